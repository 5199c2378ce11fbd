"""The sufficient statistic of the score-based measures (see :mod:`.curves`): cumulative positive and
negative weight over the distinct scores, in decreasing order, and the two areas read from it (AP and
ROC AUC). Shared by :mod:`.curves` (one class) and :mod:`.multiclass` (one class at a time)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Hashable

import numpy as np

from ..errors import InputError
from ._validation import binary_truth, check_lengths, check_scores, check_weights, normalize_weights

__all__ = ["ScoreCounts", "score_counts"]


@dataclass(frozen=True)
class ScoreCounts:
    """``tps[i]``/``fps[i]``: positive/negative weight with score ≥ ``thresholds[i]`` (decreasing),
    divided by ``2**exponent`` (0 for the counts returned by :func:`score_counts`; the internal,
    normalised statistic of weighted samples has the exponent of the largest weight)."""

    thresholds: np.ndarray
    tps: np.ndarray
    fps: np.ndarray
    exponent: int = 0
    total_pos: float | None = None  # binned counts: samples below the lowest threshold count here only
    total_neg: float | None = None

    def unscaled(self, values: np.ndarray) -> np.ndarray:
        """``values`` (in the units of tps/fps) as weights: times ``2**exponent``, exactly."""
        return values if self.exponent == 0 else np.ldexp(values, self.exponent)

    @property
    def n_pos(self) -> float:
        if self.total_pos is not None:
            return float(self.total_pos)
        return float(self.tps[-1]) if len(self.tps) else 0.0

    @property
    def n_neg(self) -> float:
        if self.total_neg is not None:
            return float(self.total_neg)
        return float(self.fps[-1]) if len(self.fps) else 0.0


def _counts_unweighted(positive: np.ndarray, scores: np.ndarray) -> ScoreCounts:
    # Two plain sorts (SIMD-accelerated in numpy) and one stable merge of the two sorted runs
    # (timsort merges presorted runs in linear time), instead of a slower argsort of everything.
    n_neg = len(scores) - int(np.count_nonzero(positive))
    merged = np.empty(len(scores), dtype=np.float64)
    np.compress(~positive, scores, out=merged[:n_neg])
    np.compress(positive, scores, out=merged[n_neg:])
    merged[:n_neg].sort()
    merged[n_neg:].sort()
    order = np.argsort(merged, kind="stable")
    ordered = merged[order][::-1]  # decreasing
    tps = np.cumsum((order >= n_neg)[::-1], dtype=np.float64)
    del merged, order
    ends = _run_ends(ordered)
    if len(ends) < len(ordered):  # ties: keep the last index of each run of equal scores
        ordered, tps = ordered[ends], tps[ends]
    return ScoreCounts(ordered, tps, (ends + 1.0) - tps)


def _run_ends(ordered: np.ndarray) -> np.ndarray:
    """Last index of each run of equal values."""
    change = np.empty(len(ordered), dtype=bool)
    np.not_equal(ordered[1:], ordered[:-1], out=change[:-1])
    change[-1] = True
    return np.flatnonzero(change)


def _counts_weighted(positive: np.ndarray, scores: np.ndarray, weights: np.ndarray) -> ScoreCounts:
    weights, exponent = normalize_weights(weights)
    # The order and sums of scikit-learn's confusion_matrix_at_thresholds — decreasing scores, tied
    # samples in input order, one cumulative sum per class — so that weighted curves are bitwise
    # those of scikit-learn. A (fast) unstable sort, then only the tied samples put in input order.
    order = np.argsort(scores)[::-1].copy()
    ordered = scores[order]
    ends = _run_ends(ordered)
    if len(ends) < len(ordered):
        sizes = np.diff(ends, prepend=-1)
        tied = np.flatnonzero(np.repeat(sizes > 1, sizes))
        run = np.repeat(np.arange(len(ends), dtype=np.int64), sizes)[tied]
        key = run * len(order) + order[tied]  # (run, input position): unique keys
        order[tied] = order[tied][np.argsort(key)]
        del sizes, tied, run, key
    w = weights[order]
    pos = positive[order]
    del order
    tps = np.cumsum(np.where(pos, w, 0.0))
    fps = np.cumsum(np.where(pos, 0.0, w))
    del w, pos
    if len(ends) < len(ordered):
        ordered, tps, fps = ordered[ends], tps[ends], fps[ends]
    return ScoreCounts(ordered, tps, fps, exponent)


def score_counts(y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Hashable | None = None
                 ) -> ScoreCounts:
    """The sufficient statistic of every score-based measure (see the module docstring), in the
    units of the weights."""
    counts = _score_counts(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label)
    return ScoreCounts(counts.thresholds, counts.unscaled(counts.tps), counts.unscaled(counts.fps))


def _score_counts(y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Hashable | None = None
                  ) -> ScoreCounts:
    """The statistic with weights normalised by a power of two (``exponent``) for the measures."""
    positive = binary_truth(y_true, pos_label)
    scores = check_scores(y_score)
    n = check_lengths(y_true=positive, y_score=scores)
    if n == 0:
        raise InputError("no samples", field="y_score")
    weights = check_weights(sample_weight, n)
    if weights is None:
        return _counts_unweighted(positive, scores)
    kept = weights != 0
    if not kept.all():  # samples of weight 0 give no threshold (as scikit-learn)
        positive, scores, weights = positive[kept], scores[kept], weights[kept]
    return _counts_weighted(positive, scores, weights)


def _increments(cumulative: np.ndarray) -> np.ndarray:
    """``np.diff(cumulative, prepend=0)`` without the temporary concatenation."""
    out = np.empty_like(cumulative)
    out[0] = cumulative[0]
    np.subtract(cumulative[1:], cumulative[:-1], out=out[1:])
    return out


def _ap_from_counts(counts: ScoreCounts) -> float:
    tps, fps = counts.tps, counts.fps
    # precision at each threshold; tps + fps is 0 only before the first sample of non-zero weight,
    # where tps (and the gain) is 0 too, hence the floor at the smallest normal number
    precision = tps / np.maximum(tps + fps, np.finfo(np.float64).tiny)
    return float(np.dot(_increments(tps), precision) / counts.n_pos)


def _auc_from_counts(counts: ScoreCounts) -> float:
    tps, fps = counts.tps, counts.fps
    # Σ ΔFPᵢ (TPᵢ + TPᵢ₋₁) / (2 P N), the trapezoidal area over the distinct thresholds
    return float((np.dot(_increments(fps)[1:], tps[1:] + tps[:-1]) + fps[0] * tps[0])
                 / (2.0 * counts.n_pos * counts.n_neg))
