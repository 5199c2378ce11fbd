"""``tune``: choose hyper-parameters (and a decision threshold) on validation folds of the
training data only, then report the choice once on held-out test data.

The protocol (Hastie, Tibshirani & Friedman 2009, *The Elements of Statistical Learning*,
§7.10.2, "the wrong and the right way to do cross-validation"):

1. the test part is set aside first (``test_size``, stratified), or given as ``test=(X, y)``;
2. every candidate setting is cross-validated on the training part only (the same folds for all);
3. the best mean validation value of ``metric`` wins (the first among ties); with ``threshold=``
   the decision threshold is then chosen on that setting's pooled out-of-fold validation scores
   (:func:`cranfield.best_threshold`);
4. the winner is refitted on the whole training part and applied **once** to the test part.

Misuse is hard by construction: the test rows reach the model in step 4 only, in one call per
output; the result keeps the test measures and confusion matrix but neither the test data nor a
way to evaluate again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Hashable

import numpy as np

from ..classification.confusion import ConfusionMatrix
from ..classification.thresholds import best_threshold
from ..errors import InputError, UsageError
from ..io.tables import Table
from ._html import TableReport
from . import _scoring as sc
from .cross_validation import CrossValidation, cross_validate
from .splits import folds_from_cv, holdout

__all__ = ["Tuning", "tune"]


@dataclass(eq=False)
class Tuning(TableReport):
    """Result of :func:`tune`. ``validation[i]`` is the cross-validation of ``candidates[i]`` on
    the training part; ``test`` holds the measures of the chosen model on the test part."""

    metric: str
    candidates: list[dict]
    validation: list[CrossValidation]
    best_index: int
    threshold: Any  # OperatingPoint (chosen on validation folds) or None
    model: Any  # the chosen setting, refitted on the whole training part
    test: dict[str, float]
    test_confusion_matrix: Any
    n_train: int
    n_test: int
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def best_params(self) -> dict:
        return dict(self.candidates[self.best_index])

    @property
    def best_validation(self) -> CrossValidation:
        return self.validation[self.best_index]

    def to_pandas(self):
        """One row per candidate: its parameters, validation mean and CI of ``metric``, ``chosen``."""
        import pandas as pd

        rows = []
        for i, (params, cv) in enumerate(zip(self.candidates, self.validation)):
            ci = cv.intervals[self.metric]
            rows.append({**params, f"{self.metric} (validation)": ci.estimate, "low": ci.low, "high": ci.high,
                         "chosen": i == self.best_index})
        return pd.DataFrame(rows)

    def table(self, *, digits: int = 4):
        keys = list(dict.fromkeys(k for c in self.candidates for k in c))
        rows, bold = [], set()
        for i, (params, cv) in enumerate(zip(self.candidates, self.validation)):
            ci = cv.intervals[self.metric]
            rows.append([*(_cell(params.get(k)) for k in keys), float(ci.estimate), float(ci.low), float(ci.high)])
            if i == self.best_index:
                bold.update((i, j) for j in range(len(keys) + 3))
        notes = [f"chosen on {self.validation[0].n_folds} validation folds of {self.n_train} training samples: "
                 + (", ".join(f"{k}={v!r}" for k, v in self.best_params.items()) or "(no parameters)")]
        if self.threshold is not None:
            notes.append(f"decision threshold {self.threshold.threshold:.6g} ({self.threshold.criterion}, "
                         "chosen on out-of-fold validation scores)")
        notes.append(f"held-out test ({self.n_test} samples, used once): "
                     + ", ".join(f"{k} = {v:.{digits}f}" for k, v in self.test.items()))
        return Table([*keys, f"{self.metric} (validation)", "low", "high"], rows, title="Tuning", digits=digits,
                     bold=bold, notes=notes)

    def __repr__(self) -> str:
        test = ", ".join(f"{k}={v:.4f}" for k, v in self.test.items())
        return f"<Tuning best {self.best_params!r}; test ({self.n_test} samples): {test}>"


def _cell(value: Any) -> Any:
    return value if isinstance(value, (int, float, str)) or value is None else repr(value)


def _threshold_options(threshold: Any) -> dict | None:
    if threshold is None:
        return None
    if isinstance(threshold, str):
        return {"criterion": threshold}
    if isinstance(threshold, dict) and "criterion" in threshold:
        return dict(threshold)
    raise UsageError(f"threshold: expected a criterion name (e.g. 'f1', 'youden', 'cost') or a dict of "
                     f"best_threshold options with 'criterion', found {threshold!r}")


def tune(model: Any, X: Any, y: Any, *, params: Any = None, metric: Any = "roc_auc", threshold: Any = None,
         cv: Any = 5, repeats: int = 1, stratify: bool = True, test_size: float | None = None,
         test: tuple | None = None, report: Any = None, random_state=None, pos_label: Hashable | None = None,
         ci: str = "corrected", confidence: float = 0.95) -> Tuning:
    """Tune on validation folds, report once on held-out test data (see the module docstring).

    - ``model``: an estimator (``params`` are applied with ``set_params`` on clones) or a factory
      ``model(**params)`` returning one. ``params``: a dict of lists (grid) or a list of dicts.
    - ``metric``: the measure the choice maximises (minimises for losses), a cranfield name.
    - ``threshold``: a :func:`cranfield.best_threshold` criterion (``"f1"``, ``"youden"``,
      ``"cost"``…) or a dict of its options, e.g. ``{"criterion": "cost", "cost_fn": 5}``; the test
      labels are then ``score ≥ threshold``. Binary problems only.
    - ``test_size`` (default 0.25): the fraction of ``X, y`` set aside first (stratified when
      ``stratify``); or ``test=(X_test, y_test)`` with ``X, y`` the training data only.
    - ``report``: the measures computed on the test part (default: ``metric`` and, with a
      threshold, the confusion-matrix rates accuracy, precision, recall, f1).
    """
    target = sc.as_target(y)
    if sc.n_rows(X) != len(target):
        raise InputError(f"X has {sc.n_rows(X)} rows but y has {len(target)} values", field="y")
    (select,) = sc.resolve_metrics([metric])
    options = _threshold_options(threshold)
    default_report = [metric] + (["accuracy", "precision", "recall", "f1"] if options else [])
    reported = sc.resolve_metrics(list(dict.fromkeys(report if report is not None else default_report)))
    task = sc.make_task(target, [select, *reported], pos_label)
    if options is not None and task.kind != "binary":
        raise UsageError("threshold= needs a binary problem")
    settings = sc.candidates(params)

    if test is not None:
        if test_size is not None:
            raise UsageError("give either test=(X_test, y_test) or test_size=, not both")
        if not (isinstance(test, tuple) and len(test) == 2):
            raise UsageError("test: expected a pair (X_test, y_test)")
        X_train, y_train = X, target
        X_test, y_test = test[0], sc.as_target(test[1])
        if sc.n_rows(X_test) != len(y_test):
            raise InputError(f"X_test has {sc.n_rows(X_test)} rows but y_test has {len(y_test)} values", field="test")
    else:
        split = holdout(target, test_size=0.25 if test_size is None else test_size,
                        stratify=stratify and task.kind != "regression", random_state=random_state)
        X_train, y_train = sc.take(X, split.train), target[split.train]
        X_test, y_test = sc.take(X, split.test), target[split.test]
    del X, target, test  # from here on, the test part is X_test/y_test only, used at the very end

    # 2. every candidate on the same validation folds of the training part
    folds = folds_from_cv(cv, y_train, repeats=repeats, stratify=stratify and task.kind != "regression",
                          random_state=random_state)
    validation = [cross_validate(sc.configured(model, p), X_train, y_train, metrics=[(select.info.name, select.params)],
                                 cv=folds, pos_label=task.positive,
                                 ci=ci, confidence=confidence) for p in settings]
    means = np.array([v.values[select.name].mean() for v in validation])
    best = sc.better(select, means)

    # 3. threshold on the winner's pooled out-of-fold validation scores
    point = None
    if options is not None:
        chosen = validation[best]
        if chosen.y_score is None:
            raise UsageError("threshold= needs a model with decision_function() or predict_proba()")
        point = best_threshold(chosen.y_true, chosen.y_score, pos_label=task.positive, **options)

    # 4. refit on all training data; the test part is used here, once
    final = sc.fit(sc.configured(model, settings[best]), X_train, y_train, np.arange(len(y_train)))
    wanted = sc.needed_outputs(reported, task, final)
    if point is not None:
        wanted = (wanted - {"labels"}) | {"scores"}
    out = sc.outputs(final, X_test, task, wanted)
    if point is not None:
        negative = next(c for c in task.classes if c != task.positive)
        out["labels"] = np.where(out["scores"] >= point.threshold, task.positive, negative)
    values = sc.score_all(reported, y_test, out, task)
    cm = None
    if task.kind != "regression" and "labels" in out:
        cm = ConfusionMatrix.from_labels(y_test, out["labels"], labels=list(task.classes), pos_label=task.positive)
    info = {"cv": cv if isinstance(cv, (int, np.integer)) else type(cv).__name__, "repeats": repeats,
            "random_state": random_state if isinstance(random_state, (int, type(None))) else repr(random_state),
            "threshold": options}
    return Tuning(select.name, settings, validation, best, point, final, values, cm, len(y_train), len(y_test), info)
