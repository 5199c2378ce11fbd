"""The ranked, judged view of a run: the one sufficient statistic every measure kernel reads.

Per evaluated query (in byte-wise order of query id) it holds the relevance of each retrieved
document in rank order, concatenated over queries with ``offsets``, plus the number of judged
documents at each relevance level. Relevance codes follow trec_eval: a value ≥ 0 is a
judgment, ``NONPOOL`` (-1) a document absent from the qrels, ``UNJUDGED`` (-2) a document in
the qrels with a negative judgment (in the pool but not judged). The evaluation engine
(:mod:`cranfield.retrieval.ranked`) builds it; the measures only read it, so it lives here,
below the engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..errors import UsageError

__all__ = ["RankedView", "QrelsStatistics", "NONPOOL", "UNJUDGED", "segmented_accumulate", "check_relevance_level"]

NONPOOL = -1
UNJUDGED = -2


def check_relevance_level(level) -> None:
    """A relevance level below 0 is refused (policy, docs/reliability.md): it would make documents
    outside the qrels (code -1) and negative judgments ("in the pool, not judged", -2) relevant
    in the ranking while R counts judged documents only, so AP exceeds 1 and NumRelRet exceeds
    NumRel (trec_eval 9.0.8 with ``-l -2`` does print such values). Level 0 is allowed: every
    judged document (rel ≥ 0) is relevant, negative judgments are not."""
    if int(level) < 0:
        raise UsageError(f"relevance_level (-l) must be ≥ 0, found {int(level)}: with a negative level, documents "
                         "outside the qrels and negative (unjudged) judgments would count as relevant in the ranking "
                         "but not in R (AP > 1, NumRelRet > NumRel)")


@dataclass(frozen=True)
class QrelsStatistics:
    """Per-query statistics of the judgments alone (the ideal DCG at k, say), computed once for
    every query of the qrels and shared by every view ranked against the same prepared qrels: a
    repeated evaluation (a training loop, the parts of a large run) computes them once.

    ``level_counts``: (qrels queries, levels) judged documents per level, of every qrels query;
    ``rows``: the view's queries among them (a bool mask or indices); ``memo``: the qrels' cache.
    A statistic of one query depends only on that query's counts, so taking the view's rows of
    the all-query values gives the same bits as computing them on the view's queries."""

    level_counts: np.ndarray
    rows: np.ndarray
    memo: dict

    def per_query(self, key, compute) -> np.ndarray:
        """``compute()`` (the statistic of every qrels query, from :attr:`level_counts`), computed
        once per ``key`` and read at the view's rows."""
        values = self.memo.get(key)
        if values is None:
            values = self.memo[key] = compute()
        return values[self.rows]


@dataclass
class RankedView:
    """Relevance in rank order for each evaluated query, and judgment counts per level."""

    query_ids: np.ndarray  # evaluated queries, byte-wise sorted (object array of str)
    offsets: np.ndarray  # int64, len = n_queries + 1
    rel: np.ndarray  # int64 relevance codes in rank order, concatenated over queries
    level_values: np.ndarray  # distinct judged levels ≥ 0 (int64, ascending)
    level_counts: np.ndarray  # (n_queries, n_levels) number of judged docs per level
    relevance_level: int = 1
    in_run: np.ndarray | None = None  # bool per query: False for queries added by `complete`
    collection_size: int | None = None
    # per ranked document (like rel): its propensity, NaN where not given; None without propensities
    propensity: np.ndarray | None = None
    # the positions in rel of the judged documents (rel != NONPOOL), ascending, where the engine's
    # join knows them (the compiled dict path); None: found by scanning rel. A relevance level is
    # never below 0, so the relevant documents are among these.
    judged_rows: np.ndarray | None = field(default=None, repr=False)
    # the qrels-wide statistics this view's queries share (None: computed on this view alone)
    qrels_statistics: QrelsStatistics | None = field(default=None, repr=False)
    _cache: dict = field(default_factory=dict, repr=False)

    # ------------------------------------------------------------------ shapes
    @property
    def n_queries(self) -> int:
        return len(self.query_ids)

    @cached_property
    def num_ret(self) -> np.ndarray:
        return np.diff(self.offsets)

    @cached_property
    def seg(self) -> np.ndarray:
        """Query index of each ranked document."""
        return np.repeat(np.arange(self.n_queries, dtype=np.int64), self.num_ret)

    @cached_property
    def pos(self) -> np.ndarray:
        """0-based rank of each document within its query."""
        return np.arange(self.rel.size, dtype=np.int64) - np.repeat(self.offsets[:-1], self.num_ret)

    # ------------------------------------------------------------------ relevance
    @cached_property
    def is_rel(self) -> np.ndarray:
        return self.rel >= self.relevance_level

    @cached_property
    def is_judged_nonrel(self) -> np.ndarray:
        return (self.rel >= 0) & (self.rel < self.relevance_level)

    @cached_property
    def num_rel(self) -> np.ndarray:
        """Judged documents with relevance ≥ relevance_level, per query (R)."""
        return self.level_counts[:, self.level_values >= self.relevance_level].sum(axis=1).astype(np.int64)

    @cached_property
    def num_nonrel(self) -> np.ndarray:
        """Judged documents with 0 ≤ relevance < relevance_level, per query."""
        return self.level_counts[:, self.level_values < self.relevance_level].sum(axis=1).astype(np.int64)

    @cached_property
    def cum_rel(self) -> np.ndarray:
        """Number of relevant documents at or above each rank, within its query."""
        return self.segment_cumsum(self.is_rel)

    @cached_property
    def cum_judged_nonrel(self) -> np.ndarray:
        """Number of judged non-relevant documents at or above each rank, within its query."""
        return self.segment_cumsum(self.is_judged_nonrel)

    @cached_property
    def num_rel_ret(self) -> np.ndarray:
        return np.bincount(self.relevant[1], minlength=self.n_queries).astype(np.int64)

    @cached_property
    def relevant(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The relevant ranked documents, in rank order: (flat index, query, 0-based rank,
        number of relevant documents at or above it). Measures over relevant documents only
        (AP, P@k, RR, …) work on these few rows instead of the whole ranking."""
        judged = self.judged_rows
        index = np.flatnonzero(self.rel >= self.relevance_level) if judged is None \
            else judged[self.rel[judged] >= self.relevance_level]
        q, bounds = self._queries_of(index)
        first = bounds[:-1]
        return index, q, index - self.offsets[q], np.arange(1, index.size + 1) - first[q]

    def rel_ret_at(self, k: "np.ndarray | int") -> np.ndarray:
        """Per query, the number of relevant documents in the top ``k`` (k per query or scalar):
        a binary search per query in the relevant ranks, which serves every cut-off."""
        keys, width, queries, first = self.cached(("relevant-keys", self.relevance_level), self._relevant_keys)
        k = np.clip(np.asarray(k, dtype=np.int64), 0, width)
        found = np.searchsorted(keys, queries + k) - first
        return found.astype(np.int64)

    def _relevant_keys(self) -> tuple[np.ndarray, int, np.ndarray, np.ndarray]:
        """query · width + rank of each relevant document (ascending), width above every rank,
        query · width of each query, and the position of each query's first key."""
        _, q, pos, _ = self.relevant
        width = int(self.num_ret.max(initial=0)) + 1
        keys = q * width + pos
        queries = np.arange(self.n_queries, dtype=np.int64) * width
        return keys, width, queries, np.searchsorted(keys, queries)

    def _queries_of(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(the query of each of ``rows``, ascending positions in ``rel``; the bounds: query k's
        rows are rows[bounds[k]:bounds[k + 1]]), from one search of the query offsets."""
        bounds = np.searchsorted(rows, self.offsets)
        return np.repeat(np.arange(self.n_queries, dtype=np.int64), np.diff(bounds)), bounds

    def top_rows(self, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The first ``k`` ranked documents of each query: (flat index, query, 0-based rank)."""
        lengths = np.minimum(self.num_ret, k)
        q = np.repeat(np.arange(self.n_queries), lengths)
        pos = np.arange(q.size) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        return self.offsets[q] + pos, q, pos

    def judged_top_rows(self, k: int) -> "tuple[np.ndarray, np.ndarray, np.ndarray] | None":
        """The judged documents among the first ``k`` of each query, in the order and form of
        :meth:`top_rows` (the others have no judgment: no gain), where the view knows its judged
        rows (:attr:`judged_rows`, from the compiled dict ranking); else None."""
        judged = self.judged_rows
        if judged is None:
            return None
        q, _ = self._queries_of(judged)
        pos = judged - self.offsets[q]
        keep = pos < k
        return judged[keep], q[keep], pos[keep]

    # ------------------------------------------------------------------ segment helpers
    def segment_sum(self, values: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """Per-query sum of ``values`` (optionally only where ``mask``), sequential per query."""
        weights = values.astype(np.float64) if values.dtype != np.float64 else values
        if mask is not None:
            return np.bincount(self.seg[mask], weights=weights[mask], minlength=self.n_queries)
        return np.bincount(self.seg, weights=weights, minlength=self.n_queries)

    def segment_count(self, mask: np.ndarray) -> np.ndarray:
        return np.bincount(self.seg[mask], minlength=self.n_queries).astype(np.int64)

    def segment_cumsum(self, flags: np.ndarray) -> np.ndarray:
        """Within-query inclusive cumulative sum of integer/bool ``flags`` (exact, int64)."""
        total = np.cumsum(flags, dtype=np.int64)
        before = np.concatenate(([0], total))[self.offsets[:-1]]
        return total - np.repeat(before, self.num_ret)

    def at_level(self, level: int | None) -> "RankedView":
        """The same view with another relevance level (for measures with a ``rel`` parameter)."""
        if level is None or level == self.relevance_level:
            return self
        check_relevance_level(level)
        key = ("level", int(level))
        if key not in self._cache:
            self._cache[key] = RankedView(self.query_ids, self.offsets, self.rel, self.level_values, self.level_counts,
                                          relevance_level=int(level), in_run=self.in_run,
                                          collection_size=self.collection_size, propensity=self.propensity,
                                          judged_rows=self.judged_rows, qrels_statistics=self.qrels_statistics)
        return self._cache[key]

    def prefix_sum(self, values: np.ndarray, k: np.ndarray | int, mask: np.ndarray | None = None) -> np.ndarray:
        """Per query, the sum of ``values`` over the first ``k`` ranks (k per query or scalar)."""
        within = self.pos < k if np.ndim(k) == 0 else self.pos < np.asarray(k, dtype=np.int64)[self.seg]
        return self.segment_sum(values, within if mask is None else within & mask)

    def sum_at(self, index: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """Per query, the sum of ``weights`` given for the documents at flat positions ``index``
        (in rank order, so sums are sequential as in trec_eval)."""
        return np.bincount(self.seg[index], weights=weights, minlength=self.n_queries)

    def cached(self, key, compute):
        """Memoise an intermediate shared by several measures of one evaluation."""
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]


def segmented_accumulate(ufunc, values: np.ndarray, lengths: np.ndarray, *, reverse: bool = False,
                         fill: float = 0.0) -> np.ndarray:
    """Within-segment running ``ufunc`` (np.add or np.maximum) of a flat array, in the exact
    sequential order of a per-segment loop (so floating sums match trec_eval bit for bit).

    Segments of ``lengths`` are padded into a 2-D array when that costs little memory;
    otherwise np.maximum uses a doubling scan and np.add a global running sum.
    """
    n = values.size
    n_seg = lengths.size
    if n == 0:
        return values.astype(np.float64)
    width = int(lengths.max())
    if n_seg * width <= max(4 * n, 1 << 20):  # each segment a row (right-aligned when reversed)
        column = np.arange(width)
        inside = column >= width - lengths[:, None] if reverse else column < lengths[:, None]
        grid = np.full((n_seg, width), fill, dtype=np.float64)
        grid[inside] = values
        scan = grid[:, ::-1] if reverse else grid
        ufunc.accumulate(scan, axis=1, out=scan)
        return grid[inside]
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    seg = np.repeat(np.arange(n_seg), lengths)
    pos = np.arange(n) - np.repeat(starts, lengths)
    if reverse:
        pos = np.repeat(lengths, lengths) - 1 - pos
    if ufunc is np.maximum:
        out = values.astype(np.float64).copy()
        order = np.lexsort((pos, seg))  # positions in scan order
        scan = out[order]
        seg_scan = seg[order]
        step = 1
        while step < width:
            shifted = np.empty_like(scan)
            shifted[:step] = -np.inf
            shifted[step:] = scan[:-step]
            same = np.zeros(n, dtype=bool)
            same[step:] = seg_scan[step:] == seg_scan[:-step]
            scan = np.where(same, np.maximum(scan, shifted), scan)
            step *= 2
        out[order] = scan
        return out
    order = np.lexsort((pos, seg))
    scan = np.cumsum(values[order].astype(np.float64))
    base = np.concatenate(([0.0], scan))[np.searchsorted(seg[order], np.arange(n_seg))]
    out = np.empty(n, dtype=np.float64)
    out[order] = scan - np.repeat(base, lengths)
    return out
