"""``cross_validate``: fit on each training fold, measure on its test fold, summarise.

Per fold, any cranfield classification measure (labels, scores — ROC AUC, AP — or
probabilities); over folds, the mean with a confidence interval; pooled over all test folds,
the out-of-fold confusion matrix and ROC / PR / DET curves. The per-fold values equal
scikit-learn's ``cross_validate`` on the same splits for the measures both have.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Hashable

import numpy as np

from .._params import check_choice
from ..classification.confusion import ConfusionMatrix
from ..measures.base import parse_measure
from ..classification.curves import det_curve, pr_curve, roc_curve
from ..errors import InputError, UsageError
from ..io.tables import Table
from ..stats import Interval, mean_ci
from ._html import TableReport
from . import _scoring as sc
from .corrected_ttest import corrected_interval
from .splits import Fold, folds_from_cv

__all__ = ["CrossValidation", "cross_validate", "CI_METHODS"]

CI_METHODS = ("corrected", "t", "normal", "bootstrap", "bca")


@dataclass(eq=False)
class CrossValidation(TableReport):
    """Result of :func:`cross_validate`.

    ``values[name]``: one value per fold (in the order of ``folds``); ``intervals[name]``: the mean
    over folds with its confidence interval; ``y_true``/``y_pred``/``y_score``/``y_prob`` and
    ``index``: the test-fold outputs of all folds, concatenated (a sample appears once per repeat).
    """

    metrics: list[str]
    values: dict[str, np.ndarray]
    folds: list[Fold]
    intervals: dict[str, Any]
    index: np.ndarray
    y_true: np.ndarray
    y_pred: np.ndarray | None
    y_score: np.ndarray | None
    y_prob: np.ndarray | None
    task: sc.Task
    settings: dict[str, Any] = field(default_factory=dict)
    models: list | None = None

    # -- summaries -----------------------------------------------------------------------
    @property
    def mean(self) -> dict[str, float]:
        return {name: float(self.values[name].mean()) for name in self.metrics}

    @property
    def std(self) -> dict[str, float]:
        return {name: float(self.values[name].std(ddof=1)) if len(self.folds) > 1 else 0.0 for name in self.metrics}

    @property
    def n_folds(self) -> int:
        return len(self.folds)

    @property
    def n_repeats(self) -> int:
        return len({f.repeat for f in self.folds})

    def __getitem__(self, metric: str) -> float:
        return self.mean[self._name(metric)]

    def _name(self, metric: str) -> str:
        if metric in self.values:
            return metric
        name = str(parse_measure(metric, area="classification"))  # canonical text: "AUC" -> roc_auc
        if name not in self.values:
            raise UsageError(f"metric {metric!r} was not computed; available: {', '.join(self.metrics)}")
        return name

    # -- pooled out-of-fold ----------------------------------------------------------------
    @property
    def confusion_matrix(self):
        """The pooled out-of-fold confusion matrix (the sum of the folds' matrices)."""
        if self.y_pred is None:
            raise UsageError("no predicted labels: the model has no predict()")
        if self.task.kind == "regression":
            raise UsageError("a confusion matrix needs classes; this was a regression")
        return ConfusionMatrix.from_labels(self.y_true, self.y_pred, labels=list(self.task.classes),
                                           pos_label=self.task.positive)

    def _curve(self, function):
        if self.y_score is None:
            raise UsageError("no scores: curves need a binary problem and a model with decision_function() or "
                             "predict_proba()")
        return function(self.y_true, self.y_score, pos_label=self.task.positive)

    def roc_curve(self):
        """ROC curve of the pooled out-of-fold scores (assumes scores comparable across folds)."""
        return self._curve(roc_curve)

    def pr_curve(self):
        """Precision-recall curve of the pooled out-of-fold scores."""
        return self._curve(pr_curve)

    def det_curve(self):
        """DET curve of the pooled out-of-fold scores."""
        return self._curve(det_curve)

    # -- exports ---------------------------------------------------------------------------
    def to_pandas(self):
        """One row per fold: ``repeat``, ``fold``, ``n_train``, ``n_test`` and one column per metric."""
        import pandas as pd

        frame = pd.DataFrame({
            "repeat": [f.repeat for f in self.folds], "fold": [f.fold for f in self.folds],
            "n_train": [len(f.train) for f in self.folds], "n_test": [len(f.test) for f in self.folds],
            **{name: self.values[name] for name in self.metrics}})
        return frame

    def table(self, *, digits: int = 4):
        """A :class:`cranfield.io.tables.Table`: per metric the mean, sd, CI, min and max."""
        level = int(round(self.settings.get("confidence", 0.95) * 100))
        rows = []
        for name in self.metrics:
            ci, v = self.intervals[name], self.values[name]
            rows.append([name, float(v.mean()), self.std[name], float(ci.low), float(ci.high), float(v.min()),
                         float(v.max())])
        reps = self.n_repeats
        title = (f"{self.settings.get('model', 'model')}: {len(self.folds) // reps}-fold cross-validation"
                 + (f" × {reps} repeats" if reps > 1 else ""))
        note = {"corrected": "Nadeau–Bengio corrected t interval"}.get(self.settings.get("ci"),
                                                                        f"{self.settings.get('ci')} interval")
        return Table(["metric", "mean", "sd", f"{level}% low", f"{level}% high", "min", "max"], rows, title=title,
                     digits=digits, notes=[f"{len(self.folds)} folds; {note} over folds"])

    def to_dict(self) -> dict:
        return {"settings": {k: v for k, v in self.settings.items()},
                "folds": [{"repeat": f.repeat, "fold": f.fold, "n_train": len(f.train), "n_test": len(f.test),
                           **{m: float(self.values[m][i]) for m in self.metrics}} for i, f in enumerate(self.folds)],
                "summary": {m: {"mean": float(self.values[m].mean()), "low": float(self.intervals[m].low),
                                "high": float(self.intervals[m].high)} for m in self.metrics}}

    def __repr__(self) -> str:
        shown = ", ".join(f"{m}={self.intervals[m].estimate:.4f} [{self.intervals[m].low:.4f}, "
                          f"{self.intervals[m].high:.4f}]" for m in self.metrics[:4])
        more = ", …" if len(self.metrics) > 4 else ""
        return f"<CrossValidation {len(self.folds)} folds: {shown}{more}>"


def interval(values: np.ndarray, folds: list[Fold], method: str, confidence: float, random_state):
    """The CI of the mean over folds: Nadeau–Bengio corrected t, or :func:`cranfield.stats.intervals.mean_ci`."""
    if len(values) < 2:
        v = float(values[0])
        return Interval(v, float("nan"), float("nan"), confidence, method)
    if method == "corrected":
        return corrected_interval(values, n_train=float(np.mean([len(f.train) for f in folds])),
                                  n_test=float(np.mean([len(f.test) for f in folds])), confidence=confidence)
    return mean_ci(values, method=method, confidence=confidence, random_state=random_state)


def model_name(model: Any) -> str:
    return type(model).__name__ if not callable(model) or hasattr(model, "fit") else getattr(model, "__name__", "model")


def run_folds(model: Any, X: Any, y: np.ndarray, folds: list[Fold], metrics: list, task: sc.Task, *,
              return_models: bool = False) -> dict[str, Any]:
    """Fit a clone on each training fold and score its test fold (the loop over folds)."""
    wanted = sc.needed_outputs(metrics, task, model)
    per_fold = {m.name: np.empty(len(folds)) for m in metrics}
    pooled: dict[str, list] = {kind: [] for kind in wanted}
    models = []
    for i, fold in enumerate(folds):
        fitted = sc.fit(model, X, y, fold.train)
        out = sc.outputs(fitted, sc.take(X, fold.test), task, wanted)
        for name, value in sc.score_all(metrics, y[fold.test], out, task).items():
            per_fold[name][i] = value
        for kind, array in out.items():
            pooled[kind].append(array)
        if return_models:
            models.append(fitted)
    return {"values": per_fold, "pooled": {k: np.concatenate(v) for k, v in pooled.items()},
            "models": models if return_models else None}


def cross_validate(model: Any, X: Any, y: Any, *, metrics: Any = ("accuracy",), cv: Any = 10, repeats: int = 1,
                   stratify: bool = True, groups: Any = None, random_state=None, pos_label: Hashable | None = None,
                   ci: str = "corrected", confidence: float = 0.95, return_models: bool = False) -> CrossValidation:
    """Cross-validate ``model`` (any object with ``fit`` and ``predict`` / ``predict_proba`` /
    ``decision_function``) on ``X``, ``y``; the model itself is never fitted (clones are).

    - ``metrics``: cranfield classification measure names (``"accuracy"``, ``"f1"``, ``"roc_auc"``,
      ``"ap"``, ``"log_loss"``, …; see :func:`cranfield.classification.measures.get_measure`) or
      ``(name, {params})`` pairs such as ``("fbeta", {"beta": 2})``. Scores come from
      ``decision_function`` (else the positive column of ``predict_proba``), as scikit-learn's
      scorers; multi-class label measures are macro-averaged unless ``average`` is given.
    - ``cv``: the number of folds k (stratified k-fold when ``stratify`` and ``y`` are classes,
      repeated ``repeats`` times with new shuffles; group k-fold with ``groups``), a scikit-learn
      splitter, or a list of ``(train, test)`` index pairs / :class:`~cranfield.protocols.splits.Fold`.
    - ``ci``: the interval of the mean over folds: ``"corrected"`` (default; Nadeau & Bengio 2003:
      t with variance (1/J + n_test/n_train) s², because overlapping training sets make fold values
      dependent), or ``"t"``, ``"normal"``, ``"bootstrap"``, ``"bca"`` as
      :func:`cranfield.stats.intervals.mean_ci` (these treat folds as independent: too narrow).

    Reference: Kohavi (1995), "A study of cross-validation and bootstrap for accuracy estimation
    and model selection", IJCAI.
    """
    check_choice(ci, "ci", CI_METHODS)
    sc.check_model(model)
    target = sc.as_target(y)
    if sc.n_rows(X) != len(target):
        raise InputError(f"X has {sc.n_rows(X)} rows but y has {len(target)} values", field="y")
    metric_list = sc.resolve_metrics(metrics)
    task = sc.make_task(target, metric_list, pos_label)
    folds = folds_from_cv(cv, target, repeats=repeats, stratify=stratify and task.kind != "regression",
                          groups=groups, random_state=random_state)
    done = run_folds(model, X, target, folds, metric_list, task, return_models=return_models)
    pooled = done["pooled"]
    intervals = {m.name: interval(done["values"][m.name], folds, ci, confidence, random_state) for m in metric_list}
    index = np.concatenate([f.test for f in folds])
    settings = {"model": model_name(model), "cv": cv if isinstance(cv, (int, np.integer)) else type(cv).__name__,
                "repeats": repeats, "stratify": stratify, "ci": ci, "confidence": confidence,
                "random_state": random_state if isinstance(random_state, (int, type(None))) else repr(random_state)}
    return CrossValidation([m.name for m in metric_list], done["values"], folds, intervals, index, target[index],
                           pooled.get("labels"), pooled.get("scores"), pooled.get("probabilities"), task, settings,
                           done["models"])
