"""Plots of detection / classification evaluation: ROC, PR, DET, confusion matrix, thresholds,
cumulative gain, lift and CAP.

``y_score`` is one score array or a mapping name -> scores (several systems on the same
samples, drawn on one chart). Every function returns a matplotlib ``Figure``.
"""

from __future__ import annotations

from typing import Any, Hashable, Sequence

import numpy as np

from ..classification.confusion import ConfusionMatrix
from ..classification.curves import (average_precision, det_curve, equal_error_rate, pr_curve, roc_auc, roc_curve,
                                     threshold_sweep)
from ..classification.gain import accuracy_ratio, cap_curve, gain_curve, lift_curve
from ..classification.thresholds import best_threshold
from ..errors import UsageError
from ..stats.roc import sensitivity_ci
from ._base import colors, named_scores, new_axes
from ._style import FONT_SIZES, NEUTRALS, outside_legend, styled, wrap_title
from .multiclass import class_pr_plot, class_roc_plot

__all__ = ["roc_plot", "pr_plot", "det_plot", "confusion_matrix_plot", "threshold_plot", "DET_TICKS", "det_deviate",
           "gain_plot", "lift_curve_plot", "cap_plot"]

# percentages shown on the normal-deviate axes of a DET plot
DET_TICKS = (0.1, 0.5, 2, 5, 10, 20, 40, 60, 80, 90, 95, 98, 99.5, 99.9)


def _class_matrix(y_score: Any) -> bool:
    """An n×C score matrix (array or DataFrame with several columns), not one system's scores."""
    from collections.abc import Mapping

    return not isinstance(y_score, Mapping) and np.ndim(y_score) == 2 and np.shape(y_score)[1] > 1


@styled
def roc_plot(y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Hashable | None = None,
             title: str | None = None, ax=None, band: float | None = None, band_resamples: int = 2000,
             random_state: int | None = 0):
    """ROC curves (TPR against FPR) with each system's AUC in the legend and the chance diagonal.

    ``band`` (a confidence level such as 0.95) shades, around each curve, the stratified bootstrap
    interval of the sensitivity at 101 specificities (:func:`cranfield.stats.sensitivity_ci`, as
    pROC's ``ci.se``; ``band_resamples`` resamples, seeded by ``random_state``); unweighted only.
    """
    if _class_matrix(y_score):  # n×C scores of a multiclass or multilabel problem
        return class_roc_plot(y_true, y_score, sample_weight=sample_weight, title=title, ax=ax)
    if band is not None and sample_weight is not None:
        raise UsageError("band: the bootstrap band of the ROC curve is computed without sample weights")
    figure, ax = new_axes(ax, size=(5.6, 5.0))
    scores = named_scores(y_score)
    for (name, s), color in zip(scores.items(), colors(len(scores))):
        curve = roc_curve(y_true, s, sample_weight=sample_weight, pos_label=pos_label)
        auc = roc_auc(y_true, s, sample_weight=sample_weight, pos_label=pos_label)
        ax.plot(curve.x, curve.y, color=color, linewidth=1.8, label=f"{name} (AUC = {auc:.3f})")
        if band is not None:
            labels = np.asarray(y_true) == (1 if pos_label is None else pos_label)
            specificities = np.linspace(0, 1, 101)
            interval = sensitivity_ci(labels, s, specificities, confidence=band, n_resamples=band_resamples,
                                      random_state=random_state)
            ax.fill_between(1 - specificities, interval.low, interval.high, color=color, alpha=0.18, linewidth=0,
                            label=f"{name}: {band:.0%} bootstrap band of sensitivity")
    ax.plot([0, 1], [0, 1], color=NEUTRALS[2], linestyle="--", linewidth=1, label="chance (AUC = 0.5)")
    ax.set(xlim=(-0.01, 1.01), ylim=(-0.01, 1.01), xlabel="false positive rate (1 − specificity)",
           ylabel="true positive rate (recall)", aspect="equal")
    wrap_title(ax, title or "ROC curve")
    outside_legend(figure, ax, loc_inside="lower right")
    ax.grid(True, alpha=0.3)
    return figure


@styled
def pr_plot(y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Hashable | None = None,
            title: str | None = None, ax=None):
    """Precision–recall curves (steps, as average precision sums them) with each system's AP in
    the legend and the no-skill line at the prevalence of the positive class."""
    if _class_matrix(y_score):
        return class_pr_plot(y_true, y_score, sample_weight=sample_weight, title=title, ax=ax)
    figure, ax = new_axes(ax, size=(5.6, 5.0))
    scores = named_scores(y_score)
    prevalence = None
    for (name, s), color in zip(scores.items(), colors(len(scores))):
        curve = pr_curve(y_true, s, sample_weight=sample_weight, pos_label=pos_label)
        ap = average_precision(y_true, s, sample_weight=sample_weight, pos_label=pos_label)
        ax.plot(curve.x, curve.y, color=color, linewidth=1.8, drawstyle="steps-pre", label=f"{name} (AP = {ap:.3f})")
        prevalence = curve.tps[-1] / (curve.tps[-1] + curve.fps[-1])
    ax.axhline(prevalence, color=NEUTRALS[2], linestyle="--", linewidth=1,
               label=f"no skill (prevalence {prevalence:.3f})")
    ax.set(xlim=(-0.01, 1.01), ylim=(-0.01, 1.02), xlabel="recall (true positive rate)", ylabel="precision")
    wrap_title(ax, title or "Precision–recall curve")
    outside_legend(figure, ax, loc_inside="lower left")
    ax.grid(True, alpha=0.3)
    return figure


def det_deviate(rate):
    """Rates on the DET plot's normal-deviate (probit) axis, clipped to its tick range."""
    from scipy.special import ndtri

    return ndtri(np.clip(rate, DET_TICKS[0] / 100, DET_TICKS[-1] / 100))


@styled
def det_plot(y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Hashable | None = None,
             title: str | None = None, ax=None):
    """DET curves: miss rate (FNR) against false-alarm rate (FPR) on normal-deviate axes
    (probit scale, ticks in percent), with each system's equal error rate in the legend."""
    figure, ax = new_axes(ax, size=(5.6, 5.0))
    scores = named_scores(y_score)
    lo, hi = DET_TICKS[0] / 100, DET_TICKS[-1] / 100
    deviate = det_deviate

    for (name, s), color in zip(scores.items(), colors(len(scores))):
        curve = det_curve(y_true, s, sample_weight=sample_weight, pos_label=pos_label)
        eer = equal_error_rate(y_true, s, sample_weight=sample_weight, pos_label=pos_label)
        # points with FPR = 0 or FNR = 0 lie at -inf on a normal-deviate axis: not drawn (as scikit-learn)
        finite = (curve.x > 0) & (curve.y > 0)
        ax.plot(deviate(curve.x[finite]), deviate(curve.y[finite]), color=color, linewidth=1.8, label=f"{name} (EER = {100 * eer:.2f}%)")
    edge = deviate(np.array([lo, hi]))
    ax.plot(edge, edge, color=NEUTRALS[2], linestyle=":", linewidth=1, label="FPR = FNR")
    ticks = deviate(np.array(DET_TICKS) / 100)
    labels = [f"{t:g}" for t in DET_TICKS]
    ax.set_xticks(ticks, labels, rotation=90)
    ax.set_yticks(ticks, labels)
    ax.set(xlim=tuple(edge), ylim=tuple(edge), xlabel="false positive rate (%)", ylabel="false negative rate (miss, %)",
           aspect="equal")
    wrap_title(ax, title or "DET curve (normal-deviate scale)")
    outside_legend(figure, ax, loc_inside="upper right")  # below the axes: never over the diagonal
    ax.grid(True, alpha=0.3)
    return figure


@styled
def confusion_matrix_plot(cm, *, normalize: str | None = None, labels: Sequence | None = None,
                          title: str | None = None, ax=None):
    """Heat map of a confusion matrix (rows = actual, columns = predicted). Colours show counts,
    or with ``normalize`` ("actual": rows sum to 1, "predicted", "all") the proportions; each
    cell shows its count and, when normalised, its percentage. ``cm``: a ConfusionMatrix, or a
    square array with ``labels``."""
    if not isinstance(cm, ConfusionMatrix):
        matrix = np.asarray(cm)
        if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
            raise UsageError(f"expected a ConfusionMatrix or a square array, found shape {matrix.shape}")
        cm = ConfusionMatrix(matrix, list(labels) if labels is not None else list(range(len(matrix))))
    counts = np.asarray(cm.matrix, dtype=np.float64)
    shown = counts if normalize is None else cm.normalized(normalize)
    n = len(cm.labels)
    names = [str(v) for v in cm.labels]
    room = 0.08 * max(0, max(map(len, names)) - 6)  # inches for long class names (x labels turned)
    figure, ax = new_axes(ax, size=(1.6 + 1.0 * max(n, 3) + room, 1.2 + 0.9 * max(n, 3) + room))
    image = ax.imshow(shown, cmap="Blues", vmin=0, vmax=1 if normalize else max(float(shown.max()), 1.0))
    figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04,
                    label="count" if normalize is None else f"proportion (normalised by {normalize})")
    threshold = (image.norm.vmin + image.norm.vmax) / 2
    for i in range(n):
        for j in range(n):
            count = counts[i, j]
            text = f"{count:.0f}" if count == round(count) else f"{count:.3g}"
            if normalize is not None:
                text = f"{100 * shown[i, j]:.1f}%\n({text})"
            ax.text(j, i, text, ha="center", va="center", fontsize=FONT_SIZES["annotation"],
                    color="white" if shown[i, j] > threshold else "black")
    ax.set_xticks(range(n), names, rotation=90 if room else 0)
    ax.set_yticks(range(n), names)
    what = "counts" if normalize is None else f"normalised by {normalize}"
    ax.set(xlabel="predicted", ylabel="actual")
    wrap_title(ax, title or f"Confusion matrix ({what})")
    return figure


_SWEEP_LABELS = {"precision": "precision", "tpr": "recall (TPR)", "fpr": "false positive rate", "f1": "F1",
                 "accuracy": "accuracy"}


@styled
def threshold_plot(y_true: Any, y_score: Any, *, metrics: Sequence[str] = ("precision", "tpr", "f1", "accuracy"),
                   criterion: str = "f1", sample_weight: Any = None, pos_label: Hashable | None = None,
                   title: str | None = None, ax=None, **criterion_params):
    """Metrics against the decision threshold (positive iff score ≥ threshold) for one system,
    with the operating point that optimises ``criterion`` (see :func:`cranfield.best_threshold`;
    e.g. ``cost_fn=5`` for criterion "cost") marked by a vertical line."""
    scores = named_scores(y_score)
    if len(scores) != 1:
        raise UsageError(f"threshold_plot draws one system; found {len(scores)} score arrays")
    unknown = [m for m in metrics if m not in _SWEEP_LABELS]
    if unknown:
        raise UsageError(f"unknown metric {unknown[0]!r}; expected some of {', '.join(_SWEEP_LABELS)}")
    (name, s), = scores.items()
    sweep = threshold_sweep(y_true, s, sample_weight=sample_weight, pos_label=pos_label)
    finite = np.isfinite(sweep["threshold"])
    figure, ax = new_axes(ax, size=(6.4, 4.4))
    for metric, color in zip(metrics, colors(len(metrics))):
        ax.plot(sweep["threshold"][finite], sweep[metric][finite], color=color, drawstyle="steps-post",
                label=_SWEEP_LABELS[metric])
    point = best_threshold(y_true, s, criterion=criterion, sample_weight=sample_weight, pos_label=pos_label,
                           **criterion_params)
    if np.isfinite(point.threshold):
        ax.axvline(point.threshold, color="black", linestyle="--", linewidth=1,
                   label=f"best {point.criterion} = {point.value:.3f} at {point.threshold:.4g}")
    ax.set(ylim=(-0.02, 1.02), xlabel="threshold (positive iff score ≥ threshold)", ylabel="value")
    wrap_title(ax, title or f"{name}: metrics against the threshold")
    outside_legend(figure, ax)
    ax.grid(True, alpha=0.3)
    return figure


def _gain_family(kind: str, y_true, y_score, sample_weight, pos_label, title, ax):
    draw = {"gain": gain_curve, "lift": lift_curve, "cap": cap_curve}[kind]
    figure, ax = new_axes(ax, size=(5.6, 5.0))
    scores = named_scores(y_score)
    prevalence = None
    for (name, s), color in zip(scores.items(), colors(len(scores))):
        curve = draw(y_true, s, sample_weight=sample_weight, pos_label=pos_label)
        label = name
        if kind == "cap":
            ar = accuracy_ratio(y_true, s, sample_weight=sample_weight, pos_label=pos_label)
            label = f"{name} (AR = {ar:.3f})"
        ax.plot(curve.x, curve.y, color=color, linewidth=1.8, label=label)
        prevalence = curve.tps[-1] / (curve.tps[-1] + curve.fps[-1])
    if kind == "lift":
        ax.axhline(1.0, color=NEUTRALS[2], linestyle="--", linewidth=1, label="random (lift 1)")
        ax.set(xlim=(-0.01, 1.01), ylim=(0, None), xlabel="share of samples targeted (by decreasing score)",
               ylabel="lift (gain / share targeted)")
    else:
        ax.plot([0, 1], [0, 1], color=NEUTRALS[2], linestyle="--", linewidth=1, label="random")
        ax.plot([0, prevalence, 1], [0, 1, 1], color=NEUTRALS[1], linestyle=":", linewidth=1,
                label=f"perfect (prevalence {prevalence:.3f})")
        ax.set(xlim=(-0.01, 1.01), ylim=(-0.01, 1.01), xlabel="share of samples targeted (by decreasing score)",
               ylabel="share of positives captured", aspect="equal")
    names = {"gain": "Cumulative gain", "lift": "Lift curve", "cap": "Cumulative accuracy profile (CAP)"}
    wrap_title(ax, title or names[kind])
    outside_legend(figure, ax, loc_inside="upper right" if kind == "lift" else "lower right")
    ax.grid(True, alpha=0.3)
    return figure


@styled
def gain_plot(y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Hashable | None = None,
              title: str | None = None, ax=None):
    """Cumulative-gain curves (share of positives in the top x of the scores) with the random
    and perfect models (:func:`cranfield.classification.gain_curve`)."""
    return _gain_family("gain", y_true, y_score, sample_weight, pos_label, title, ax)


@styled
def lift_curve_plot(y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Hashable | None = None,
                    title: str | None = None, ax=None):
    """Lift curves (gain / share targeted) with the random model at 1
    (:func:`cranfield.classification.lift_curve`)."""
    return _gain_family("lift", y_true, y_score, sample_weight, pos_label, title, ax)


@styled
def cap_plot(y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Hashable | None = None,
             title: str | None = None, ax=None):
    """Cumulative accuracy profiles with each system's accuracy ratio (= Gini = 2 AUC − 1) in the
    legend, the random and the perfect models (:func:`cranfield.classification.cap_curve`)."""
    return _gain_family("cap", y_true, y_score, sample_weight, pos_label, title, ax)
