r"""Cumulative-gain, lift and CAP curves of a scorer, and the accuracy ratio.

Samples are ranked by decreasing score; at each distinct score :math:`s` (tied samples enter
together) the share of all samples targeted is :math:`x = (TP + FP) / N` and

* the *cumulative gain* is the share of the positives captured, :math:`TP / P` (the "gains
  chart" of marketing; the recall of the top :math:`x`);
* the *lift* is :math:`\mathrm{gain} / x = \mathrm{precision} / (P / N)`: how many times more
  positives the top :math:`x` holds than a random selection of the same size (undefined at
  :math:`x = 0`, so the lift curve starts at the first threshold);
* the *cumulative accuracy profile* (CAP, the Lorenz-type curve of credit scoring; Sobehart,
  Keenan & Stein 2000) has the same points as the gain curve, drawn against the random model
  (the diagonal) and the perfect one (all positives first). Its *accuracy ratio*
  :math:`AR = (A - 1/2) / ((1 - P/N) / 2)`, with :math:`A` the area under the CAP, equals the
  Gini coefficient :math:`2\,\mathrm{AUC} - 1` (Engelmann, Hayden & Tasche 2003).

All three read the one cumulative count of positives and negatives over sorted scores of
:mod:`cranfield.classification.curves` (weights count as repeated samples).
"""

from __future__ import annotations

from typing import Any, Hashable

import numpy as np

from ..errors import InputError
from .curves import Curve, _score_counts, _with_start

__all__ = ["gain_curve", "lift_curve", "cap_curve", "accuracy_ratio"]


def _shares(y_true, y_score, sample_weight, pos_label):
    counts = _score_counts(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label)
    thresholds, tps, fps = _with_start(counts)
    n_pos, total = counts.n_pos, counts.n_pos + counts.n_neg
    if n_pos == 0:
        raise InputError("no positive sample: the gain, lift and CAP curves need at least one", field="y_true")
    return counts, thresholds, tps, fps, (tps + fps) / total, tps / n_pos


def gain_curve(y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Hashable | None = None) -> Curve:
    """Cumulative gain (share of positives captured) against the share of samples targeted, from
    (0, 0) at threshold +inf to (1, 1).

    >>> c = gain_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.1])
    >>> c.x.tolist(), c.y.tolist()
    ([0.0, 0.25, 0.5, 0.75, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0])
    """
    counts, thresholds, tps, fps, x, y = _shares(y_true, y_score, sample_weight, pos_label)
    return Curve("gain", x, y, thresholds, counts.unscaled(tps), counts.unscaled(fps), "share targeted", "gain")


def lift_curve(y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Hashable | None = None) -> Curve:
    """Lift (gain / share targeted) against the share targeted, from the highest score down; the
    last point is 1 (everything targeted).

    >>> lift_curve([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.1]).y.tolist()
    [2.0, 1.0, 1.3333333333333333, 1.0]
    """
    counts, thresholds, tps, fps, x, y = _shares(y_true, y_score, sample_weight, pos_label)
    return Curve("lift", x[1:], y[1:] / x[1:], thresholds[1:], counts.unscaled(tps[1:]), counts.unscaled(fps[1:]),
                 "share targeted", "lift")


def cap_curve(y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Hashable | None = None) -> Curve:
    """The cumulative accuracy profile: the gain curve's points, as ``kind="cap"``."""
    counts, thresholds, tps, fps, x, y = _shares(y_true, y_score, sample_weight, pos_label)
    return Curve("cap", x, y, thresholds, counts.unscaled(tps), counts.unscaled(fps), "share targeted",
                 "share of positives")


def accuracy_ratio(y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Hashable | None = None
                   ) -> float:
    """The accuracy ratio of the CAP (module docstring): ``(A - 1/2) / ((1 - prevalence) / 2)``
    with ``A`` the trapezoidal area under the CAP; equal to ``2 * AUC - 1``.

    >>> accuracy_ratio([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.1])
    0.5
    """
    counts, _, _, _, x, y = _shares(y_true, y_score, sample_weight, pos_label)
    if counts.n_neg == 0:
        raise InputError("no negative sample: the accuracy ratio needs both classes", field="y_true")
    area = float(np.sum(np.diff(x) * (y[1:] + y[:-1])) / 2)
    prevalence = counts.n_pos / (counts.n_pos + counts.n_neg)
    return (area - 0.5) / ((1 - prevalence) / 2)
