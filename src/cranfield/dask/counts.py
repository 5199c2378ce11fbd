"""Mergeable sufficient statistics of score-based classification measures (no Dask needed).

A :class:`ScoreStats` holds, for each distinct score, the number (or total weight) of positive and
negative samples with that score. Two of them merge by adding counts at equal scores, so the
statistic of a data set spread over many workers is the merge of the statistics of its parts, in
any grouping (a tree reduction). Every score-based measure of cranfield is a function of it: the
ROC/PR/DET curves, AUC, AP, the threshold sweep and the confusion matrix at any threshold are
computed from it by the very functions of :mod:`cranfield.classification`, fed with one
weighted sample per (distinct score, class) — so the results are *identical* to those on all
the samples at once when the weights are whole numbers (counts are exact in float64 up to 2**53);
with fractional weights, sums are added in another order (differences of a few ulps).

Bounded memory (``bins``): scores are counted in ``bins`` equal-width bins of ``range``; each bin
stands for its lower edge. Every operating point at a bin edge is exact (``score ≥ edge``), so the
curves are exact curves through a subset of the operating points and the confusion matrix at a
bin edge is exact; the AUC differs from the exact one by at most
:attr:`ScoreStats.auc_error_bound` = ½ Σ_b P_b N_b / (P N) (only pairs of a positive and a
negative in the same bin can be misordered; each counts ½).

>>> import numpy as np
>>> a = ScoreStats.from_arrays([1, 0, 1], [0.9, 0.1, 0.4])
>>> b = ScoreStats.from_arrays([0, 0], [0.4, 0.8])
>>> merged = ScoreStats.merge([a, b])
>>> merged.roc_auc() == __import__("cranfield").roc_auc([1, 0, 1, 0, 0], [0.9, 0.1, 0.4, 0.4, 0.8])
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Hashable, Sequence

import numpy as np

from .._params import check_count, usage_error
from ..classification._validation import (binary_truth, check_labels, check_lengths, check_scores, check_weights,
                                          label_kind)
from ..classification.confusion import ConfusionMatrix
from ..classification.curves import (average_precision, det_curve, equal_error_rate, pr_curve, roc_auc, roc_curve,
                                     score_counts, threshold_sweep)
from ..classification.thresholds import best_threshold
from ..errors import InputError, UsageError

__all__ = ["ScoreStats", "bin_edges"]


def bin_edges(bins: int, value_range: tuple[float, float]) -> np.ndarray:
    """``bins + 1`` equal-width edges over ``value_range`` (lo < hi, finite)."""
    bins = check_count(bins, "bins")
    lo, hi = (float(v) for v in value_range)
    if not (np.isfinite(lo) and np.isfinite(hi)) or lo > hi:
        raise usage_error("range", "two finite numbers, low <= high", value_range)
    if lo == hi:
        hi = lo + 1.0
    return np.linspace(lo, hi, int(bins) + 1)


@dataclass(frozen=True)
class ScoreStats:
    """Positive and negative counts (or weights) per distinct score (ascending), or per bin.

    ``scores``: the distinct scores, or the lower edges of the bins (``edges`` not None);
    ``pos``/``neg``: int64 counts without weights, float64 weights otherwise; ``label_kind``: the
    kind of the labels (parts whose labels differ in kind, e.g. 1 and '1', do not merge).
    """

    scores: np.ndarray
    pos: np.ndarray
    neg: np.ndarray
    edges: np.ndarray | None = None
    label_kind: str | None = None  # kind of the labels it was built from ('number', 'string', ...)

    # ------------------------------------------------------------------ building and merging
    @classmethod
    def from_arrays(cls, y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Hashable | None = None,
                    bins: int | None = None, range: tuple[float, float] | None = None) -> "ScoreStats":
        """The statistic of one part of the data (``bins`` and ``range`` together: binned)."""
        labels = check_labels(y_true, "y_true")
        kind = label_kind(labels)
        positive = binary_truth(labels, pos_label)
        scores = check_scores(y_score)
        n = check_lengths(y_true=positive, y_score=scores)
        weights = check_weights(sample_weight, n, nonzero=False)  # one part may weigh 0; merge() checks the whole
        if bins is not None:
            if range is None:
                raise UsageError("bins needs range=(low, high) (cranfield.dask.score_stats finds it for you)")
            edges = bin_edges(bins, range)
            index = np.clip(np.searchsorted(edges, scores, side="right") - 1, 0, edges.size - 2)
            size = edges.size - 1
            return cls(edges[:-1].copy(), *_count(index, positive, weights, size), edges=edges, label_kind=kind)
        distinct, index = np.unique(scores, return_inverse=True)
        return cls(distinct, *_count(index.reshape(-1), positive, weights, distinct.size), label_kind=kind)

    @classmethod
    def merge(cls, parts: Sequence["ScoreStats"]) -> "ScoreStats":
        """One statistic from several (associative and commutative: merge in any tree)."""
        parts = [p for p in parts if p is not None]
        if not parts:
            raise InputError("no samples", field="y_score")
        first = parts[0]
        kinds = [p.label_kind for p in parts if p.label_kind is not None]
        kind = kinds[0] if kinds else None
        for i, p in enumerate(parts):
            if p.label_kind is not None and p.label_kind != kind and {p.label_kind, kind} != {"bool", "number"}:
                raise InputError(f"expected labels of one type across parts: part {i} holds {p.label_kind} labels, "
                                 f"an earlier one {kind} labels (1 and '1' would be different classes)", field="y_true")
        if first.edges is not None:
            if any(p.edges is None or not np.array_equal(p.edges, first.edges) for p in parts):
                raise UsageError("cannot merge statistics binned differently (or binned with exact ones)")
            return cls(first.scores, _sum([p.pos for p in parts]), _sum([p.neg for p in parts]), edges=first.edges,
                       label_kind=kind)
        if any(p.edges is not None for p in parts):
            raise UsageError("cannot merge binned statistics with exact ones")
        scores = np.concatenate([p.scores for p in parts])
        distinct, index = np.unique(scores, return_inverse=True)
        index = index.reshape(-1)
        pos = np.concatenate([p.pos for p in parts])
        neg = np.concatenate([p.neg for p in parts])
        return cls(distinct, _add_at(distinct.size, index, pos), _add_at(distinct.size, index, neg), label_kind=kind)

    # ------------------------------------------------------------------ properties
    @property
    def exact(self) -> bool:
        return self.edges is None

    @property
    def n_pos(self) -> float:
        return float(self.pos.sum())

    @property
    def n_neg(self) -> float:
        return float(self.neg.sum())

    def __len__(self) -> int:
        return len(self.scores)

    @property
    def auc_error_bound(self) -> float:
        """Largest possible |AUC − exact AUC|: 0 if exact, else ½ Σ_b P_b N_b / (P N)."""
        if self.exact or self.n_pos == 0 or self.n_neg == 0:
            return 0.0
        return float(0.5 * np.dot(self.pos.astype(np.float64), self.neg) / (self.n_pos * self.n_neg))

    def samples(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(y_true, y_score, sample_weight)``: one weighted sample per (score, class) with a
        non-zero count; any cranfield classification function gives on them the result it gives
        on the original samples."""
        has_pos, has_neg = self.pos != 0, self.neg != 0
        y_score = np.concatenate([self.scores[has_pos], self.scores[has_neg]])
        y_true = np.concatenate([np.ones(int(has_pos.sum()), dtype=bool), np.zeros(int(has_neg.sum()), dtype=bool)])
        weight = np.concatenate([self.pos[has_pos], self.neg[has_neg]]).astype(np.float64)
        if weight.size == 0:
            raise InputError("all sample weights are 0", field="sample_weight")
        return y_true, y_score, weight

    # ------------------------------------------------------------------ measures
    def _call(self, function, **options):
        y_true, y_score, weight = self.samples()
        return function(y_true, y_score, sample_weight=weight, **options)

    def score_counts(self):
        """:class:`~cranfield.classification.curves.ScoreCounts` (cumulative counts, decreasing scores)."""
        return self._call(score_counts)

    def roc_curve(self):
        return self._call(roc_curve)

    def pr_curve(self):
        return self._call(pr_curve)

    def det_curve(self):
        return self._call(det_curve)

    def roc_auc(self, *, max_fpr: float | None = None, mcclish: bool = True) -> float:
        return self._call(roc_auc, max_fpr=max_fpr, mcclish=mcclish)

    def average_precision(self) -> float:
        return self._call(average_precision)

    def equal_error_rate(self) -> float:
        return self._call(equal_error_rate)

    def threshold_sweep(self) -> dict[str, np.ndarray]:
        return self._call(threshold_sweep)

    def best_threshold(self, criterion: str = "youden", **options):
        """:func:`cranfield.best_threshold` over the distinct scores (bin edges when binned)."""
        return self._call(best_threshold, criterion=criterion, **options)

    def confusion_matrix(self, threshold: float):
        """The binary confusion matrix of ``score ≥ threshold`` (exact when binned only at bin edges)."""
        above = self.scores >= float(threshold)
        tp, fp = float(self.pos[above].sum()), float(self.neg[above].sum())
        return ConfusionMatrix.from_counts(tp=tp, fp=fp, fn=self.n_pos - tp, tn=self.n_neg - fp)

    def __repr__(self) -> str:
        kind = "distinct scores" if self.exact else f"bins (AUC error ≤ {self.auc_error_bound:.2g})"
        return f"<ScoreStats: {len(self)} {kind}, {self.n_pos:g} positive, {self.n_neg:g} negative>"


def _count(index: np.ndarray, positive: np.ndarray, weights: np.ndarray | None, size: int):
    if weights is None:
        pos = np.bincount(index[positive], minlength=size).astype(np.int64)
        return pos, np.bincount(index[~positive], minlength=size).astype(np.int64)
    return (np.bincount(index[positive], weights=weights[positive], minlength=size),
            np.bincount(index[~positive], weights=weights[~positive], minlength=size))


def _sum(arrays: list[np.ndarray]) -> np.ndarray:
    total = arrays[0].copy()
    for a in arrays[1:]:
        total = total + a
    return total


def _add_at(size: int, index: np.ndarray, values: np.ndarray) -> np.ndarray:
    out = np.zeros(size, dtype=values.dtype)
    np.add.at(out, index, values)
    return out
