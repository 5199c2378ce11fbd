"""scikit-learn-style Display objects for the ROC, precision-recall and DET curves.

``RocCurveDisplay.from_predictions(y_true, y_score)`` (or ``from_estimator(estimator, X, y)``
where scikit-learn is installed) computes the curve with cranfield's kernels
(:mod:`cranfield.classification.curves`), draws it with cranfield's plot function
(:func:`~cranfield.plots.roc_plot`, :func:`~cranfield.plots.pr_plot`,
:func:`~cranfield.plots.det_plot`) and returns the display, whose attributes are named and
ordered as scikit-learn's (``fpr``, ``tpr``, ``roc_auc``; ``precision``, ``recall``,
``average_precision``; ``fpr``, ``fnr``) and equal its ``roc_curve`` /
``precision_recall_curve`` / ``det_curve`` values, with ``figure_``, ``ax_`` and ``line_`` set
by :meth:`plot`. A display built from the points alone (``RocCurveDisplay(fpr=..., tpr=...)``)
draws them as a plain line.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..classification.curves import (
    average_precision,
    det_curve,
    pr_curve,
    roc_auc,
    roc_curve,
)
from ..errors import UsageError
from ._base import new_axes
from .classification import det_deviate, det_plot, pr_plot, roc_plot

__all__ = ["RocCurveDisplay", "PrecisionRecallDisplay", "DetCurveDisplay"]


def _estimator_scores(estimator, X, response_method: str, pos_label):
    """The positive class's scores of a fitted binary estimator, as scikit-learn's displays take them."""
    try:
        import sklearn  # noqa: F401  (optional: from_estimator needs a scikit-learn estimator)
    except ImportError:
        raise UsageError("from_estimator needs scikit-learn; install it with: python -m pip install scikit-learn") from None
    methods = ("predict_proba", "decision_function") if response_method == "auto" else (response_method,)
    for method in methods:
        if hasattr(estimator, method):
            scores = np.asarray(getattr(estimator, method)(X))
            if scores.ndim == 2:
                classes = list(getattr(estimator, "classes_", range(scores.shape[1])))
                if scores.shape[1] != 2:
                    raise UsageError(f"expected a binary classifier, found {scores.shape[1]} classes")
                column = classes.index(pos_label) if pos_label is not None else 1
                return scores[:, column], classes[column]
            classes = list(getattr(estimator, "classes_", [0, 1]))
            return (scores if pos_label in (None, classes[-1]) else -scores), (pos_label if pos_label is not None else classes[-1])
    raise UsageError(f"response_method: the estimator has no {' or '.join(methods)}")


class _CurveDisplay:
    _plot = None  # the cranfield plot function
    _points: tuple[str, str] = ("", "")  # the x and y attribute names

    def __init__(self, *, name: str | None = None, pos_label=None):
        self.name, self.pos_label = name, pos_label
        self._inputs: dict | None = None

    @classmethod
    def from_predictions(cls, y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label=None,
                         name: str | None = None, ax=None, **kwargs):
        """Compute the curve of ``y_score`` against ``y_true`` and draw it (on ``ax``, or a new figure)."""
        display = cls._compute(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label, name=name, **kwargs)
        display._inputs = {"y_true": y_true, "y_score": y_score, "sample_weight": sample_weight, "pos_label": pos_label}
        return display.plot(ax=ax)

    @classmethod
    def from_estimator(cls, estimator, X, y, *, sample_weight: Any = None, pos_label=None,
                       response_method: str = "auto", name: str | None = None, ax=None, **kwargs):
        """The curve of a fitted binary scikit-learn estimator's scores on ``X`` (``predict_proba``,
        else ``decision_function``), named after the estimator's class."""
        scores, positive = _estimator_scores(estimator, X, response_method, pos_label)
        return cls.from_predictions(y, scores, sample_weight=sample_weight, pos_label=positive,
                                    name=name or type(estimator).__name__, ax=ax, **kwargs)

    def plot(self, ax=None, *, name: str | None = None):
        """Draw the curve on ``ax`` (or a new figure); returns ``self`` with ``figure_``, ``ax_`` and ``line_``."""
        name = name or self.name or "classifier"
        if self._inputs is not None:
            before = len(ax.lines) if ax is not None else 0
            inputs = dict(self._inputs)
            figure = type(self)._plot(inputs.pop("y_true"), {name: inputs.pop("y_score")}, ax=ax, **inputs)
            self.ax_ = ax if ax is not None else figure.axes[0]
            self.line_ = self.ax_.lines[before]
        else:
            figure, self.ax_ = new_axes(ax, size=(5.6, 5.0))
            x, y = (np.asarray(getattr(self, a)) for a in self._points)
            self.line_, = self.ax_.plot(*self._drawn(x, y), label=name)
            self.ax_.legend(loc="best")
        self.figure_ = self.ax_.figure
        return self

    @staticmethod
    def _drawn(x, y):
        return x, y


class RocCurveDisplay(_CurveDisplay):
    """ROC curve: ``fpr``, ``tpr`` (scikit-learn's ``roc_curve``, ``drop_intermediate=True`` by
    default as its display), ``roc_auc``; see the module's documentation."""

    _plot = staticmethod(roc_plot)
    _points = ("fpr", "tpr")

    def __init__(self, *, fpr, tpr, roc_auc: float | None = None, name: str | None = None, pos_label=None):
        super().__init__(name=name, pos_label=pos_label)
        self.fpr, self.tpr, self.roc_auc = np.asarray(fpr), np.asarray(tpr), roc_auc

    @classmethod
    def _compute(cls, y_true, y_score, *, sample_weight, pos_label, name, drop_intermediate: bool = True):
        curve = roc_curve(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label,
                          drop_intermediate=drop_intermediate)
        auc = roc_auc(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label)
        return cls(fpr=curve.x, tpr=curve.y, roc_auc=auc, name=name, pos_label=pos_label)


class PrecisionRecallDisplay(_CurveDisplay):
    """Precision-recall curve: ``precision``, ``recall`` in scikit-learn's order (recall
    decreasing to the point (0, 1)), ``average_precision``; see the module's documentation."""

    _plot = staticmethod(pr_plot)
    _points = ("recall", "precision")

    def __init__(self, *, precision, recall, average_precision: float | None = None, name: str | None = None,
                 pos_label=None):
        super().__init__(name=name, pos_label=pos_label)
        self.precision, self.recall, self.average_precision = np.asarray(precision), np.asarray(recall), average_precision

    @classmethod
    def _compute(cls, y_true, y_score, *, sample_weight, pos_label, name, drop_intermediate: bool = False):
        curve = pr_curve(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label,
                         drop_intermediate=drop_intermediate)
        ap = average_precision(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label)
        return cls(precision=curve.y[::-1], recall=curve.x[::-1], average_precision=ap, name=name, pos_label=pos_label)


class DetCurveDisplay(_CurveDisplay):
    """DET curve: ``fpr``, ``fnr`` as scikit-learn's ``det_curve`` gives them (from the last
    point with no false positive to the first with no miss, false positive rate decreasing),
    drawn on normal-deviate axes; see the module's documentation."""

    _plot = staticmethod(det_plot)
    _points = ("fpr", "fnr")

    def __init__(self, *, fpr, fnr, name: str | None = None, pos_label=None):
        super().__init__(name=name, pos_label=pos_label)
        self.fpr, self.fnr = np.asarray(fpr), np.asarray(fnr)

    @classmethod
    def _compute(cls, y_true, y_score, *, sample_weight, pos_label, name):
        curve = det_curve(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label)
        first = int(np.flatnonzero(curve.x == 0)[-1])  # the last point with no false positive
        last = int(np.flatnonzero(curve.y == 0)[0])  # the first with no miss
        keep = slice(first, last + 1)
        return cls(fpr=curve.x[keep][::-1], fnr=curve.y[keep][::-1], name=name, pos_label=pos_label)

    @staticmethod
    def _drawn(x, y):
        finite = (x > 0) & (y > 0)
        return det_deviate(x[finite]), det_deviate(y[finite])
