"""Plots of multiclass and multilabel scores: one ROC or precision–recall curve per class (each
class against the rest) and the micro-averaged curve, with the areas in the legend and the
macro average in the title. ``y_true``: class labels (multiclass) or an n×C indicator
(multilabel); ``y_score``: an n×C matrix, one column per class in ``labels`` order (default: the
sorted classes of ``y_true``), or a pandas DataFrame whose columns are the class names.
"""

from __future__ import annotations

from typing import Any, Hashable, Sequence

import numpy as np

from ..classification.curves import class_curves
from ..classification.multiclass import average_precision_multiclass, roc_auc_multiclass
from ._base import colors, new_axes
from ._style import NEUTRALS, outside_legend, styled, wrap_title

__all__ = ["class_roc_plot", "class_pr_plot"]


def _frame_labels(y_score: Any, labels: Sequence[Hashable] | None):
    """A DataFrame's columns name its classes (``labels`` then picks and orders them)."""
    columns = getattr(y_score, "columns", None)
    if columns is None:
        return np.asarray(y_score, dtype=np.float64) if not isinstance(y_score, np.ndarray) else y_score, labels
    if labels is None:
        labels = list(columns)
    return y_score[list(labels)].to_numpy(dtype=np.float64), list(labels)


def _class_plot(kind: str, y_true, y_score, labels, sample_weight, title, ax):
    scores, labels = _frame_labels(y_score, labels)
    area = roc_auc_multiclass if kind == "roc" else average_precision_multiclass
    options = {"multi_class": "ovr"} if kind == "roc" else {}
    per_class = area(y_true, scores, average=None, labels=labels, sample_weight=sample_weight, **options)
    curves = class_curves(y_true, scores, kind=kind, labels=labels, sample_weight=sample_weight)
    micro_curve = class_curves(y_true, scores, kind=kind, average="micro", labels=labels, sample_weight=sample_weight)
    micro = area(y_true, scores, average="micro", labels=labels, sample_weight=sample_weight, **options)
    name = "AUC" if kind == "roc" else "AP"
    figure, ax = new_axes(ax, size=(5.6, 5.0))
    step = {} if kind == "roc" else {"drawstyle": "steps-pre"}
    for (label, curve), value, color in zip(curves.items(), per_class, colors(len(curves))):
        ax.plot(curve.x, curve.y, color=color, linewidth=1.6, label=f"{label} ({name} = {value:.3f})", **step)
    ax.plot(micro_curve.x, micro_curve.y, color=NEUTRALS[0], linewidth=2.2, linestyle="--",
            label=f"micro-average ({name} = {micro:.3f})", **step)
    if kind == "roc":
        ax.plot([0, 1], [0, 1], color=NEUTRALS[2], linestyle=":", linewidth=1, label="chance (AUC = 0.5)")
        ax.set(xlabel="false positive rate (1 − specificity)", ylabel="true positive rate (recall)", aspect="equal")
    else:
        ax.set(xlabel="recall (true positive rate)", ylabel="precision")
    ax.set(xlim=(-0.01, 1.01), ylim=(-0.01, 1.02))
    macro = float(np.mean(per_class))
    what = "ROC curves" if kind == "roc" else "Precision–recall curves"
    wrap_title(ax, title or f"{what}, each class against the rest (macro {name} = {macro:.3f})")
    outside_legend(figure, ax, loc_inside="lower right" if kind == "roc" else "lower left")
    ax.grid(True, alpha=0.3)
    return figure


@styled
def class_roc_plot(y_true: Any, y_score: Any, *, labels: Sequence[Hashable] | None = None, sample_weight: Any = None,
                   title: str | None = None, ax=None):
    """One ROC curve per class (one-vs-rest) and the micro-averaged curve; AUCs in the legend
    (:func:`cranfield.roc_auc_multiclass` with ``average=None`` and ``"micro"``)."""
    return _class_plot("roc", y_true, y_score, labels, sample_weight, title, ax)


@styled
def class_pr_plot(y_true: Any, y_score: Any, *, labels: Sequence[Hashable] | None = None, sample_weight: Any = None,
                  title: str | None = None, ax=None):
    """One precision–recall curve per class (one-vs-rest) and the micro-averaged curve; APs in
    the legend (:func:`cranfield.average_precision_multiclass`)."""
    return _class_plot("pr", y_true, y_score, labels, sample_weight, title, ax)
