"""Graded gains shared by nDCG, G and RBP: the gain of each ranked document and the ideal
ranking (all judged documents with positive gain, by decreasing gain), per query.

Gain of a judged level ℓ ≥ 0 is ``gains.get(ℓ, ℓ)`` (trec_eval: gain = relevance level unless
overridden with ``ndcg.1=3,2=9``); with ``gain=exp`` an unlisted level gains 2^ℓ − 1 (Burges et
al. 2005); unjudged documents have gain 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..errors import MeasureError
from ._running import RunningSums
from .base import Param

__all__ = ["GAINS_PARAM", "GAIN_PARAM", "IDEAL_PARAM", "GainView", "gain_view"]

# the largest gain magnitude: a sum of 2**500 such gains (and its discounted, normalised forms)
# still fits a double, so DCG, G and RBP never print inf or nan (issue 24, cause 3)
MAX_GAIN = 2.0**512
MAX_EXP_LEVEL = 512  # gain=exp: 2^512 - 1 is the largest gain allowed
GAINS_PARAM = Param("gains", (), "gain of each relevance level, e.g. {1:1,2:3}; unlisted levels gain their level",
                    lambda v: None if all(abs(g) <= MAX_GAIN for _, g in v) else
                    f"expected gains of magnitude at most 2^512 (about {MAX_GAIN:.3g}): larger ones overflow the sums")
GAIN_PARAM = Param("str", "linear", "gain of an unlisted level ℓ: linear = ℓ (trec_eval), exp = 2^ℓ − 1 (Burges)",
                   lambda v: None if v in ("linear", "exp") else "expected linear or exp")


@dataclass
class GainView:
    level_gain: np.ndarray  # gain of each of view.level_values
    level_values: np.ndarray
    rel: np.ndarray  # relevance codes of the ranked documents (view.rel)
    ideal_gains: np.ndarray  # the positive level gains, decreasing
    ideal_counts: np.ndarray  # (queries, len(ideal_gains)) judged documents at each of those levels
    memo: dict = field(default_factory=dict, repr=False)  # statistics shared by the measures of one view
    # the ideal DCG of every qrels query, shared with the other views of the same qrels (sorted
    # ideal only: its gains depend on the gain map alone): (the qrels' statistics, the cache key,
    # the level columns of ideal_gains)
    shared: "tuple | None" = field(default=None, repr=False)

    def gain_of(self, rel: np.ndarray) -> np.ndarray:
        """Gain of documents with relevance codes ``rel`` (0 for unjudged ones)."""
        out = np.zeros(rel.size, dtype=np.float64)
        judged = rel >= 0
        if judged.any():
            out[judged] = self.level_gain[np.searchsorted(self.level_values, rel[judged])]
        return out

    @cached_property
    def doc_gain(self) -> np.ndarray:
        """Gain of each ranked document."""
        return self.gain_of(self.rel)

    @cached_property
    def ideal_len(self) -> np.ndarray:
        return self.ideal_counts.sum(axis=1).astype(np.int64)

    @cached_property
    def _ideal(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return _flatten(self.ideal_gains, self.ideal_counts)

    @property
    def ideal(self) -> np.ndarray:
        """Flat ideal gains (positive only, decreasing within each query)."""
        return self._ideal[0]

    @property
    def ideal_seg(self) -> np.ndarray:
        return self._ideal[1]

    @property
    def ideal_pos(self) -> np.ndarray:
        return self._ideal[2]

    @cached_property
    def ideal_running(self):
        """Running sums of the ideal gain / log2(position + 2), per query (every cut-off at once)."""
        return RunningSums(self.ideal / np.log2(self.ideal_pos + 2.0), self.ideal_len)

    def ideal_dcg(self, k: "int | None" = None) -> np.ndarray:
        """Per query, the ideal DCG at rank ``k`` (None: of all its judged documents), computed once
        for every qrels query where the view shares the qrels' statistics."""
        if self.shared is None:
            return self.ideal_prefix(self.ideal_len if k is None else k)
        statistics, key, columns = self.shared

        def every_query() -> np.ndarray:
            whole = GainView(self.level_gain, self.level_values, self.rel, self.ideal_gains,
                             statistics.level_counts[:, columns])
            return whole.ideal_prefix(whole.ideal_len if k is None else k)

        return statistics.per_query(key + ("ideal-dcg", None if k is None else int(k)), every_query)

    def ideal_prefix(self, k) -> np.ndarray:
        """Per query, Σ over the first k ideal positions of gain / log2(position + 2) (k per
        query or scalar), added in order. A small scalar k, asked before any other: only the
        first k ideal gains are built; otherwise the running sums serve every k."""
        k = np.asarray(k, dtype=np.int64)
        if k.ndim == 0 and k <= SMALL_CUTOFF and "ideal_running" not in self.__dict__:
            kept = np.minimum(np.cumsum(self.ideal_counts, axis=1), k)
            ideal, seg, pos = _flatten(self.ideal_gains, np.diff(kept, axis=1, prepend=0))
            return np.bincount(seg, weights=ideal / np.log2(pos + 2.0), minlength=self.ideal_counts.shape[0])
        return self.ideal_running.at(k)


SMALL_CUTOFF = 32  # cut-offs up to this read only the top k rows, unless running sums are already built


def _flatten(gains: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per query (row of counts), each gain repeated its count: (flat gains, query, position)."""
    lengths = counts.sum(axis=1).astype(np.int64)
    flat = np.repeat(np.tile(gains, counts.shape[0]), counts.ravel())
    seg = np.repeat(np.arange(counts.shape[0]), lengths)
    pos = np.arange(flat.size) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    return flat, seg, pos


def level_gains(level_values: np.ndarray, gains, gain: str = "linear") -> np.ndarray:
    """The gain of each relevance level; with ``gain=exp`` a level above 512 that the gain map
    does not list is an error naming it (2^ℓ − 1 would pass :data:`MAX_GAIN`: inf in the sums)."""
    mapping = dict(gains)
    if gain == "exp":
        beyond = [int(level) for level in level_values if int(level) > MAX_EXP_LEVEL and int(level) not in mapping]
        if beyond:
            raise MeasureError(f"gain=exp: relevance level {beyond[0]} would gain 2^{beyond[0]} - 1, more than "
                               f"2^{MAX_EXP_LEVEL} (the DCG sums would overflow); exp gains are defined up to "
                               f"level {MAX_EXP_LEVEL}: give larger levels a gain in the gain map or use gain=linear")
    default = (lambda level: 2.0 ** level - 1.0) if gain == "exp" else float
    return np.array([mapping[int(level)] if int(level) in mapping else default(int(level)) for level in level_values],
                    dtype=np.float64)


def gain_view(view, gains=(), gain: str = "linear", ideal: str = "sorted") -> GainView:
    key = ("gains", tuple(gains)) if gain == "linear" else ("gains", tuple(gains), gain)
    key += (("ideal", ideal),) if ideal != "sorted" else ()
    cached = view._cache.get(key)
    if cached is not None:
        return cached
    g = level_gains(view.level_values, gains, gain)
    if ideal == "trec_eval":
        ideal_gains, ideal_counts = _trec_eval_ideal(view, gains)
    else:
        order = np.argsort(-g, kind="stable")
        order = order[g[order] > 0]
        ideal_gains, ideal_counts = g[order], view.level_counts[:, order]
    statistics = view.qrels_statistics
    shared = None if statistics is None or ideal == "trec_eval" else (statistics, key, order)
    result = GainView(g, view.level_values, view.rel, ideal_gains, ideal_counts, shared=shared)
    view._cache[key] = result
    return result


IDEAL_PARAM = Param("str", "sorted", "order of the ideal ranking: sorted = by decreasing gain; trec_eval = "
                    "trec_eval 9.0.8's order, which compares gains by the integer part of their difference "
                    "(gains less than 1 apart count as equal)", lambda v: None if v in ("sorted", "trec_eval")
                    else "expected sorted or trec_eval")


def _merge_sort(items: list, compare) -> list:
    """A top-down stable merge sort, glibc's qsort for small arrays (msort.c): with a comparison
    that is not a total order the result depends on the algorithm, so it is reproduced."""
    if len(items) <= 1:
        return items
    half = len(items) // 2
    left, right = _merge_sort(items[:half], compare), _merge_sort(items[half:], compare)
    out, i, j = [], 0, 0
    while i < len(left) and j < len(right):
        if compare(left[i], right[j]) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


def _trec_eval_ideal(view, gains) -> tuple[np.ndarray, np.ndarray]:
    """The ideal ranking as trec_eval 9.0.8 builds it (m_ndcg.c, m_Rndcg.c, m_ndcg_rel.c, m_G.c):
    per query, the levels with a given gain (in level order) then the levels 0..max judged level
    not given (gain = level), sorted by increasing gain where two gains compare by the integer
    part (C truncation) of their difference, read from the highest down and cut at the first
    level with documents and a gain ≤ 0 (or at once when the top level's gain is ≤ 0, documents
    or not: trec_eval's loops test the gain before they skip levels without documents). The order
    depends only on the query's highest judged level: one block of columns per distinct highest
    level, the counts of the other queries 0."""
    values = view.level_values
    counts = view.level_counts
    present = counts > 0
    top = np.where(present.any(axis=1), values[np.argmax(np.where(present, values[None, :], -1), axis=1)], -1)
    given = [(int(level), float(value)) for level, value in gains]
    column_gains, column_levels, column_tops = [], [], []
    for highest in np.unique(top).tolist():  # a few distinct values, not a loop over queries
        entries = given + [(level, float(level)) for level in range(highest + 1)
                           if level not in {lv for lv, _ in given}]
        ranked = _merge_sort(entries, lambda a, b: int(a[1] - b[1]))[::-1]
        if not ranked:  # no judgment ≥ 0 and no gain map: an empty ideal ranking
            continue
        if ranked[0][1] <= 0:  # trec_eval starts from the top entry's gain, documents or not: none
            ranked = [(level, 0.0) for level, _ in ranked]
        column_levels += [level for level, _ in ranked]
        column_gains += [value for _, value in ranked]
        column_tops += [highest] * len(ranked)
    column_levels = np.asarray(column_levels, dtype=np.int64)
    index = np.searchsorted(values, column_levels)
    known = (index < values.size) & (values[np.minimum(index, values.size - 1)] == column_levels) if values.size \
        else np.zeros(column_levels.size, dtype=bool)
    ideal_counts = np.zeros((counts.shape[0], column_levels.size), dtype=counts.dtype)
    ideal_counts[:, known] = counts[:, index[known]]
    ideal_counts[top[:, None] != np.asarray(column_tops)[None, :]] = 0
    ideal_gains = np.asarray(column_gains, dtype=np.float64)
    stop = np.logical_or.accumulate((ideal_counts > 0) & (ideal_gains <= 0)[None, :], axis=1)
    ideal_counts[stop] = 0
    return ideal_gains, ideal_counts
