"""tune: the same choice as scikit-learn's GridSearchCV on the same folds, and no test leakage."""

import numpy as np
import pytest

from cranfield.classification.thresholds import best_threshold
from cranfield.errors import UsageError
from cranfield.protocols.splits import folds_from_cv, holdout
from cranfield.protocols.tuning import tune

GRID = {"C": [0.001, 0.01, 0.1, 1.0]}


def test_equals_grid_search_on_same_folds(small_cancer, logreg):
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import GridSearchCV

    X, y = small_cancer
    result = tune(logreg, X, y, params=GRID, metric="roc_auc", cv=4, random_state=0)
    split = holdout(y, test_size=0.25, stratify=True, random_state=0)
    folds = folds_from_cv(4, y[split.train], random_state=0)
    search = GridSearchCV(logreg, GRID, cv=folds, scoring="roc_auc").fit(X[split.train], y[split.train])
    means = [v.values["roc_auc"].mean() for v in result.validation]
    np.testing.assert_allclose(means, search.cv_results_["mean_test_score"], rtol=0, atol=1e-12)
    assert result.best_params == search.best_params_
    expected = roc_auc_score(y[split.test], search.best_estimator_.decision_function(X[split.test]))
    assert result.test["roc_auc"] == pytest.approx(expected, abs=1e-12)
    assert (result.n_train, result.n_test) == (len(split.train), len(split.test))
    assert np.allclose(result.model.coef_, search.best_estimator_.coef_)


class Spy:
    """Records the row ids (column 0) of every fit and output call; not a scikit-learn estimator."""

    log: list = []

    def __init__(self, shift=0.0):
        self.shift = shift

    def fit(self, X, y):
        Spy.log.append(("fit", set(X[:, 0].astype(int))))
        self.mean = X[:, 1:][y == 1].mean(axis=0) - X[:, 1:][y == 0].mean(axis=0)
        return self

    def decision_function(self, X):
        Spy.log.append(("score", set(X[:, 0].astype(int))))
        return X[:, 1:] @ self.mean + self.shift

    def predict(self, X):
        Spy.log.append(("predict", set(X[:, 0].astype(int))))
        return (X[:, 1:] @ self.mean + self.shift > 0).astype(int)


def test_test_rows_reach_the_model_once_at_the_end(small_cancer):
    X, y = small_cancer
    Xid = np.column_stack([np.arange(len(y)), X])
    Spy.log = []
    result = tune(lambda shift: Spy(shift), Xid, y, params={"shift": [-1.0, 0.0, 1.0]}, metric="f1",
                  threshold="youden", cv=3, random_state=5, report=["f1", "roc_auc"])
    test_ids = set(holdout(y, test_size=0.25, stratify=True, random_state=5).test.tolist())
    last_fit = max(i for i, (kind, _) in enumerate(Spy.log) if kind == "fit")
    touching = [i for i, (_, ids) in enumerate(Spy.log) if ids & test_ids]
    assert touching and min(touching) > last_fit  # never during tuning, never fitted on
    assert all(Spy.log[i][1] == test_ids for i in touching)
    assert len(touching) == 1  # one scoring call: labels come from the threshold
    assert Spy.log[last_fit][1] == set(range(len(y))) - test_ids
    assert result.threshold is not None and result.n_test == len(test_ids)
    assert not hasattr(result, "evaluate")


def test_threshold_chosen_on_out_of_fold_validation_scores(small_cancer, logreg):
    from sklearn.metrics import f1_score
    from sklearn.model_selection import cross_val_predict

    X, y = small_cancer
    result = tune(logreg, X, y, params=GRID, metric="roc_auc", threshold="f1", cv=4, random_state=1)
    split = holdout(y, test_size=0.25, stratify=True, random_state=1)
    folds = folds_from_cv(4, y[split.train], random_state=1)
    best = logreg.set_params(**result.best_params)
    scores = cross_val_predict(best, X[split.train], y[split.train], cv=folds, method="decision_function")
    point = best_threshold(y[split.train], scores, criterion="f1")
    assert result.threshold.threshold == pytest.approx(point.threshold, abs=1e-12)
    test_scores = best.fit(X[split.train], y[split.train]).decision_function(X[split.test])
    assert result.test["f1"] == pytest.approx(f1_score(y[split.test], test_scores >= point.threshold), abs=1e-12)
    assert result.test_confusion_matrix.total == len(split.test)


def test_explicit_test_set_and_exports(small_cancer, logreg):
    X, y = small_cancer
    split = holdout(y, test_size=0.25, stratify=True, random_state=2)
    a = tune(logreg, X, y, params=GRID, metric="accuracy", cv=3, random_state=2)
    b = tune(logreg, X[split.train], y[split.train], params=GRID, metric="accuracy", cv=3, random_state=2,
             test=(X[split.test], y[split.test]))
    assert a.best_params == b.best_params and a.test == b.test
    frame = a.to_pandas()
    assert list(frame.columns) == ["C", "accuracy (validation)", "low", "high", "chosen"] and frame["chosen"].sum() == 1
    assert "held-out test" in a.render("markdown") and "<table>" in a._repr_html_() and "Tuning" in repr(a)
    loss = tune(logreg, X, y, params=GRID, metric="log_loss", cv=3, random_state=2)
    means = [v.values["log_loss"].mean() for v in loss.validation]
    assert loss.best_index == int(np.argmin(means))  # losses are minimised


def test_errors(small_cancer, logreg):
    X, y = small_cancer
    with pytest.raises(UsageError, match="not both"):
        tune(logreg, X, y, test=(X, y), test_size=0.2)
    with pytest.raises(UsageError):
        tune(logreg, X, y, params={"C": 1.0})
    with pytest.raises(UsageError):
        tune(logreg, X, y, threshold=3)
    with pytest.raises(UsageError, match="binary"):
        tune(logreg, X, y % 1 + np.arange(len(y)) % 3, metric="accuracy", threshold="f1")
    with pytest.raises(UsageError, match="set_params"):
        tune(Spy(), X, y, params={"shift": [0.0]})
