"""cross_validate against scikit-learn's cross_validate / cross_val_predict on the same splits."""

import numpy as np
import pytest

import cranfield
from cranfield.classification.confusion import ConfusionMatrix
from cranfield.errors import InputError, MeasureError, UsageError
from cranfield.protocols.cross_validation import cross_validate
from cranfield.protocols.splits import kfold

# cranfield name -> (scikit-learn scorer, sign)
BINARY = {"accuracy": ("accuracy", 1), "precision": ("precision", 1), "recall": ("recall", 1), "f1": ("f1", 1),
          "balanced_accuracy": ("balanced_accuracy", 1), "mcc": ("matthews_corrcoef", 1),
          "jaccard": ("jaccard", 1), "roc_auc": ("roc_auc", 1), "average_precision": ("average_precision", 1),
          "log_loss": ("neg_log_loss", -1), "brier_score": ("neg_brier_score", -1)}


def _sk(model, X, y, folds, scoring):
    from sklearn.model_selection import cross_validate as sk_cross_validate

    return sk_cross_validate(model, X, y, cv=folds, scoring=scoring)


def test_binary_equals_sklearn(cancer, logreg):
    X, y = cancer
    folds = kfold(y, n_splits=5, stratify=True, random_state=0)
    ours = cross_validate(logreg, X, y, metrics=list(BINARY), cv=folds)
    theirs = _sk(logreg, X, y, folds, [s for s, _ in BINARY.values()])
    for name, (scorer, sign) in BINARY.items():
        np.testing.assert_allclose(ours.values[name], sign * theirs[f"test_{scorer}"], rtol=0, atol=1e-12, err_msg=name)


def test_predict_proba_only_model_and_repeated_splitter(small_cancer):
    from sklearn.model_selection import RepeatedStratifiedKFold
    from sklearn.naive_bayes import GaussianNB

    X, y = small_cancer
    splitter = RepeatedStratifiedKFold(n_splits=4, n_repeats=2, random_state=1)
    ours = cross_validate(GaussianNB(), X, y, metrics=["roc_auc", "ap", "accuracy"], cv=splitter)
    theirs = _sk(GaussianNB(), X, y, splitter, ["roc_auc", "average_precision", "accuracy"])
    for name, scorer in (("roc_auc", "roc_auc"), ("average_precision", "average_precision"), ("accuracy", "accuracy")):
        np.testing.assert_allclose(ours.values[name], theirs[f"test_{scorer}"], rtol=0, atol=1e-12)
    assert ours.n_repeats == 2 and [f.fold for f in ours.folds] == [0, 1, 2, 3] * 2


def test_multiclass_equals_sklearn(logreg):
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)  # converges faster
    folds = kfold(y, n_splits=5, stratify=True, random_state=2)
    ours = cross_validate(logreg, X, y, metrics=["accuracy", "f1", "precision", "recall", "log_loss",
                                                 "roc_auc_multiclass", ("f1", {"average": "weighted"})], cv=folds)
    theirs = _sk(logreg, X, y, folds, ["accuracy", "f1_macro", "precision_macro", "recall_macro", "neg_log_loss",
                                       "roc_auc_ovr", "f1_weighted"])
    pairs = [("accuracy", "accuracy", 1), ("f1", "f1_macro", 1), ("precision", "precision_macro", 1),
             ("recall", "recall_macro", 1), ("log_loss", "neg_log_loss", -1), ("roc_auc_multiclass", "roc_auc_ovr", 1),
             ("f1(average=weighted)", "f1_weighted", 1)]
    for ours_name, scorer, sign in pairs:
        np.testing.assert_allclose(ours.values[ours_name], sign * theirs[f"test_{scorer}"], rtol=0, atol=1e-12)
    assert ours.confusion_matrix.matrix.sum() == 150 and ours.y_score is None
    with pytest.raises(UsageError, match="binary"):
        cross_validate(logreg, X, y, metrics=["roc_auc"], cv=3)


def test_string_labels_and_pos_label(small_cancer, logreg):
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import cross_val_predict

    X, y = small_cancer
    names = np.where(y == 1, "benign", "malignant")  # sklearn's classes_ = [benign, malignant]
    folds = kfold(names, n_splits=4, stratify=True, random_state=0)
    with pytest.raises(UsageError, match="pos_label"):
        cross_validate(logreg, X, names, metrics=["f1"], cv=folds)
    ours = cross_validate(logreg, X, names, metrics=["roc_auc", "recall"], cv=folds, pos_label="benign")
    # positive = classes_[0]: the decision function is negated
    decision = cross_val_predict(logreg, X, names, cv=folds, method="decision_function")
    expected = [roc_auc_score(names[f.test] == "benign", -decision[f.test]) for f in folds]
    np.testing.assert_allclose(ours.values["roc_auc"], expected, rtol=0, atol=1e-12)
    assert ours.confusion_matrix.positive == "benign"


def test_pooled_out_of_fold_matrix_and_curves(cancer, logreg):
    from sklearn.metrics import roc_curve as sk_roc
    from sklearn.model_selection import cross_val_predict

    X, y = cancer
    folds = kfold(y, n_splits=5, stratify=True, random_state=0)
    result = cross_validate(logreg, X, y, metrics=["accuracy"], cv=folds)
    predicted = cross_val_predict(logreg, X, y, cv=folds)
    assert result.confusion_matrix == ConfusionMatrix.from_labels(y, predicted, labels=[0, 1])
    # the sum of the folds' matrices
    total = sum((ConfusionMatrix.from_labels(y[f.test], predicted[f.test], labels=[0, 1]) for f in folds[1:]),
                ConfusionMatrix.from_labels(y[folds[0].test], predicted[folds[0].test], labels=[0, 1]))
    assert result.confusion_matrix == total
    scores = cross_val_predict(logreg, X, y, cv=folds, method="decision_function")
    fpr, tpr, _ = sk_roc(y, scores, drop_intermediate=False)
    curve = result.roc_curve()
    np.testing.assert_allclose(curve.x, fpr, atol=1e-12)
    np.testing.assert_allclose(curve.y, tpr, atol=1e-12)
    assert len(result.pr_curve()) == len(result.det_curve()) == len(curve)
    assert np.array_equal(np.sort(result.index), np.arange(len(y)))


def test_corrected_interval_and_mean_ci(small_cancer, logreg):
    from scipy import stats

    from cranfield.stats.intervals import mean_ci

    X, y = small_cancer
    result = cross_validate(logreg, X, y, metrics=["accuracy"], cv=5, repeats=2, random_state=0)
    v = result.values["accuracy"]
    assert len(v) == 10
    n_train = np.mean([len(f.train) for f in result.folds])
    n_test = np.mean([len(f.test) for f in result.folds])
    half = stats.t.ppf(0.975, 9) * np.sqrt((1 / 10 + n_test / n_train) * v.var(ddof=1))
    ci = result.intervals["accuracy"]
    assert ci.method == "corrected"
    np.testing.assert_allclose([ci.low, ci.high], [v.mean() - half, v.mean() + half], rtol=1e-12)
    t = cross_validate(logreg, X, y, metrics=["accuracy"], cv=5, repeats=2, random_state=0, ci="t")
    assert t.intervals["accuracy"] == mean_ci(v, method="t")
    assert t.intervals["accuracy"].high - t.intervals["accuracy"].low < ci.high - ci.low  # naive is narrower


def test_model_not_fitted_and_inputs_unchanged(small_cancer, logreg):
    from sklearn.exceptions import NotFittedError

    X, y = small_cancer
    X0, y0 = X.copy(), y.copy()
    result = cross_validate(logreg, X, y, metrics=["accuracy"], cv=3, random_state=0, return_models=True)
    with pytest.raises(NotFittedError):
        logreg.predict(X)
    assert np.array_equal(X, X0) and np.array_equal(y, y0)
    assert len(result.models) == 3 and all(m is not logreg for m in result.models)


def test_pandas_input_and_non_sklearn_model(small_cancer):
    import pandas as pd

    X, y = small_cancer

    class Stump:  # not a scikit-learn estimator: deep-copied, not cloned
        def fit(self, X, y):
            column = np.asarray(X)[:, 0]
            self.cut = float(np.median(column))
            self.sign = 1.0 if y[column > self.cut].mean() >= y[column <= self.cut].mean() else -1.0
            return self

        def decision_function(self, X):
            return self.sign * (np.asarray(X)[:, 0] - self.cut)

        def predict(self, X):
            return (self.decision_function(X) > 0).astype(int)

    frame = pd.DataFrame(X)
    folds = kfold(y, n_splits=4, stratify=True, random_state=0)
    a = cross_validate(Stump(), frame, pd.Series(y), metrics=["roc_auc", "accuracy"], cv=folds)
    b = cross_validate(Stump(), X, y, metrics=["roc_auc", "accuracy"], cv=folds)
    for name in ("roc_auc", "accuracy"):
        assert np.array_equal(a.values[name], b.values[name])
    expected = [cranfield.roc_auc(y[f.test], Stump().fit(X[f.train], y[f.train]).decision_function(X[f.test]))
                for f in folds]
    np.testing.assert_allclose(a.values["roc_auc"], expected, atol=1e-15)


def test_groups_and_exports(small_cancer, logreg):
    X, y = small_cancer
    groups = np.arange(len(y)) // 10
    result = cross_validate(logreg, X, y, metrics=["accuracy", "roc_auc"], cv=4, groups=groups)
    for f in result.folds:
        assert not set(groups[f.train]) & set(groups[f.test])
    frame = result.to_pandas()
    assert list(frame.columns) == ["repeat", "fold", "n_train", "n_test", "accuracy", "roc_auc"]
    assert frame["n_test"].sum() == len(y)
    for fmt in ("table", "markdown", "csv", "latex"):
        assert "roc" in result.render(fmt) and "accuracy" in result.render(fmt)
    assert "<table>" in result._repr_html_() and "roc_auc" in repr(result)
    assert result["auc"] == result.mean["roc_auc"]
    assert set(result.to_dict()["summary"]) == {"accuracy", "roc_auc"}


def test_errors(small_cancer, logreg):
    X, y = small_cancer
    with pytest.raises(MeasureError):
        cross_validate(logreg, X, y, metrics=["nope"])
    with pytest.raises(InputError):
        cross_validate(logreg, X[:-1], y)
    with pytest.raises(UsageError):
        cross_validate(object(), X, y)
    with pytest.raises(UsageError):
        cross_validate(logreg, X, y, ci="wald")
    with pytest.raises(UsageError):
        cross_validate(logreg, X, y, metrics=["accuracy", "acc"])
    with pytest.raises(UsageError):
        cross_validate(logreg, X, y, metrics=["accuracy", "mse"])


def test_regression_equals_sklearn():
    from sklearn.datasets import load_diabetes
    from sklearn.linear_model import Ridge

    X, y = load_diabetes(return_X_y=True)
    folds = kfold(len(y), n_splits=4, random_state=0)
    ours = cross_validate(Ridge(), X, y, metrics=["mse", "mae", "r2"], cv=folds)
    theirs = _sk(Ridge(), X, y, folds, ["neg_mean_squared_error", "neg_mean_absolute_error", "r2"])
    np.testing.assert_allclose(ours.values["mse"], -theirs["test_neg_mean_squared_error"], rtol=1e-12)
    np.testing.assert_allclose(ours.values["mae"], -theirs["test_neg_mean_absolute_error"], rtol=1e-12)
    np.testing.assert_allclose(ours.values["r2"], theirs["test_r2"], rtol=0, atol=1e-12)
    with pytest.raises(UsageError):
        ours.confusion_matrix
    # cv=<int> on a continuous target: plain (unstratified) k-fold
    assert len(cross_validate(Ridge(), X, y, metrics=["r2"], cv=3, random_state=0).folds) == 3
