"""The sorted, judged view of a run: the one sufficient statistic every measure reuses.

Per evaluated query (in byte-wise order of query id) it holds the relevance of each retrieved
document in rank order, concatenated over queries with ``offsets``, plus the number of judged
documents at each relevance level. Relevance codes follow trec_eval: a value ≥ 0 is a
judgment, ``NONPOOL`` (-1) a document absent from the qrels, ``UNJUDGED`` (-2) a document in
the qrels with a negative judgment (in the pool but not judged).

Ranking rule (trec_eval's, exactly): the rank column is ignored; documents are ordered by
score descending (double precision), ties by docno descending byte-wise. Everything is
vectorised over all queries at once: no Python loop over queries or documents.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..errors import InputError
from .qrels import Qrels
from .run import Run

__all__ = ["RankedView", "PreparedQrels", "prepare_qrels", "rank", "query_codes", "query_block_starts", "NONPOOL",
           "UNJUDGED"]

NONPOOL = -1
UNJUDGED = -2


from .._arrow import indices as _indices_array
from .._arrow import take_sorted
from .._arrow import to_numpy as _np
from ._segments import run_starts
from .doc_keys import HashCollision


@dataclass
class PreparedQrels:
    """Qrels encoded once, for evaluating many runs (see :class:`~cranfield.Evaluator`).

    Judgments are keyed by (query, packed docno) (see :mod:`.doc_keys`); the exact dictionary
    encoding of docnos is built only when some id does not pack (too long, non-ASCII, NUL).
    """

    qrels: Qrels
    query_ids: np.ndarray  # sorted unique query ids (object array of str)
    query_index: object  # pyarrow array of the sorted query ids, for lookups
    q: np.ndarray  # query index of each judgment (int64)
    rel: np.ndarray  # int64
    _packed: dict = field(default_factory=dict, repr=False)
    _exact: dict = field(default_factory=dict, repr=False)

    def packed_width(self) -> int | None:
        from .doc_keys import packed_width

        if "width" not in self._packed:
            self._packed["width"] = packed_width(self.qrels.longest_docno())
        return self._packed["width"]

    def packed(self, n_words: int) -> "PackedJudgments | None":
        """Judgments keyed by mix(query, packed docno), for runs whose ids pack into ``n_words``
        words, or None if the judged ids do not pack."""
        from .doc_keys import KeyTable, mix, packed_words

        if n_words not in self._packed:
            words = packed_words(self.qrels.docno, n_words)
            if words is None:
                return None
            keys = mix(self.q, words, len(self.query_ids))
            self._packed[n_words] = PackedJudgments(keys, KeyTable(keys, self.q, len(self.query_ids)), self.q,
                                                     words, self.rel)
        return self._packed[n_words]

    def judged_levels(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Distinct judged levels (≥ 0), the level code and query index of each judgment ≥ 0."""
        if "levels" not in self._exact:
            judged = self.rel >= 0
            rel = self.rel[judged]
            top = int(rel.max()) if rel.size else 0
            if top < 1 << 20:  # small levels (the usual case): counting, not sorting
                present = np.bincount(rel, minlength=top + 1) > 0
                levels = np.flatnonzero(present).astype(np.int64)
                lookup = np.cumsum(present) - 1
                code = lookup[rel]
            else:
                levels, code = np.unique(rel, return_inverse=True)
            self._exact["levels"] = (levels.astype(np.int64), code.reshape(-1), self.q[judged])
        return self._exact["levels"]

    def level_counts(self) -> np.ndarray:
        """(queries, judged levels) number of judgments of each query at each level."""
        if "counts" not in self._exact:
            levels, code, q = self.judged_levels()
            flat = np.bincount(q * levels.size + code, minlength=len(self.query_ids) * levels.size)
            self._exact["counts"] = flat.reshape(len(self.query_ids), levels.size).astype(np.int64)
        return self._exact["counts"]

    def _exact_encoding(self) -> dict:
        if "dictionary" not in self._exact:
            encoded = self.qrels.docno.dictionary_encode()
            dictionary = encoded.chunk(0).dictionary
            d = _indices(encoded)
            keys = self.q * len(dictionary) + d
            sort = np.argsort(keys, kind="stable")
            self._exact.update(dictionary=dictionary, d=d, sort=sort, keys_sorted=keys[sort],
                               rel_sorted=self.rel[sort])
        return self._exact

    @property
    def doc_dictionary(self):
        """Distinct judged docnos (Arrow strings): the exact, general path."""
        return self._exact_encoding()["dictionary"]

    @property
    def keys_sorted(self) -> np.ndarray:
        return self._exact_encoding()["keys_sorted"]

    @property
    def rel_sorted(self) -> np.ndarray:
        return self._exact_encoding()["rel_sorted"]

    def check_duplicates(self) -> None:
        """A (query, docno) judged twice is an error naming both lines."""
        width = self.packed_width()
        packed = self.packed(width) if width is not None else None
        if packed is not None:
            i, j = packed.table.repeats
            real = np.flatnonzero((packed.q[i] == packed.q[j]) & (packed.words[i] == packed.words[j]).all(axis=1))
            if real.size:
                k = real[np.argmin(j[real])]  # the earliest repeated line
                self._raise_duplicate(*sorted((int(i[k]), int(j[k]))))
            if not i.size:
                return  # else a hash collision might hide a duplicate: check exactly
        exact = self._exact_encoding()
        dup = np.flatnonzero(exact["keys_sorted"][1:] == exact["keys_sorted"][:-1])
        if dup.size:
            i, j = sorted((int(exact["sort"][dup[0]]), int(exact["sort"][dup[0] + 1])))
            self._raise_duplicate(i, j)

    def _raise_duplicate(self, i: int, j: int) -> None:
        raise InputError(f"duplicate judgment for query {self.query_ids[self.q[i]]!r}, document "
                         f"{self.qrels.docno[i].as_py()!r} (also on line {self.qrels.line_of(i)})",
                         source=self.qrels.source, line=self.qrels.line_of(j), field="docno")


@dataclass
class PackedJudgments:
    """Judgments (in qrels order) keyed by mix(query, packed docno), with their hash table."""

    keys: np.ndarray  # int64 key of each judgment
    table: object  # doc_keys.KeyTable over keys
    q: np.ndarray  # query index of each judgment
    words: np.ndarray  # (n, w) native-order words of each judged docno
    rel: np.ndarray


def prepare_qrels(qrels: Qrels) -> PreparedQrels:
    """Encode qrels: query index of each judgment and (lazily) document keys; duplicates are an
    error."""
    import pyarrow.compute as pc

    if len(qrels) == 0:
        raise InputError("no judgments", source=qrels.source)
    q_encoded = qrels.qid.dictionary_encode()
    q_dict = q_encoded.chunk(0).dictionary if q_encoded.num_chunks else None
    order = _np(pc.sort_indices(q_dict))
    rank_of_code = np.empty(len(order), dtype=np.int64)
    rank_of_code[order] = np.arange(len(order))
    q = rank_of_code[_indices(q_encoded)]
    query_index = q_dict.take(_indices_array(order))
    query_ids = np.asarray(query_index.to_pylist(), dtype=object)
    prepared = PreparedQrels(qrels=qrels, query_ids=query_ids, query_index=query_index, q=q, rel=qrels.rel)
    prepared.check_duplicates()
    return prepared


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
        index = np.flatnonzero(self.rel >= self.relevance_level)
        q = np.searchsorted(self.offsets, index, side="right") - 1
        first = np.searchsorted(q, np.arange(self.n_queries))  # q is ascending
        return index, q, index - self.offsets[q], np.arange(1, index.size + 1) - first[q]

    def rel_ret_at(self, k: "np.ndarray | int") -> np.ndarray:
        """Per query, the number of relevant documents in the top ``k`` (k per query or scalar):
        a binary search per query in the relevant ranks, which serves every cut-off."""
        keys, width = self.cached(("relevant-keys", self.relevance_level), self._relevant_keys)
        k = np.clip(np.asarray(k, dtype=np.int64), 0, width)
        queries = np.arange(self.n_queries, dtype=np.int64) * width
        found = np.searchsorted(keys, queries + k) - np.searchsorted(keys, queries)
        return found.astype(np.int64)

    def _relevant_keys(self) -> tuple[np.ndarray, int]:
        """query · width + rank of each relevant document (ascending), width above every rank."""
        _, q, pos, _ = self.relevant
        width = int(self.num_ret.max(initial=0)) + 1
        return q * width + pos, width

    def top_rows(self, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The first ``k`` ranked documents of each query: (flat index, query, 0-based rank)."""
        lengths = np.minimum(self.num_ret, k)
        q = np.repeat(np.arange(self.n_queries), lengths)
        pos = np.arange(q.size) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        return self.offsets[q] + pos, q, pos

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
                                          collection_size=self.collection_size)
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


def no_common_query(qrels_query_ids, source) -> InputError:
    """The one error every evaluation path raises when no run query is in the qrels (the same
    text whether the run was read whole, block-wise or by Dask partitions)."""
    sample = ", ".join(map(str, list(qrels_query_ids[:3])))
    return InputError(f"no query in common between the run and the qrels ({len(qrels_query_ids)} queries, "
                      f"e.g. {sample})", source=source)


def check_relevance_level(level) -> None:
    """A relevance level below 0 is refused (policy, docs/reliability.md): it would make documents
    outside the qrels (code -1) and negative judgments ("in the pool, not judged", -2) relevant
    in the ranking while R counts judged documents only, so AP exceeds 1 and NumRelRet exceeds
    NumRel (trec_eval 9.0.8 with ``-l -2`` does print such values). Level 0 is allowed: every
    judged document (rel ≥ 0) is relevant, negative judgments are not."""
    if int(level) < 0:
        from ..errors import UsageError

        raise UsageError(f"relevance_level (-l) must be ≥ 0, found {int(level)}: with a negative level, documents "
                         "outside the qrels and negative (unjudged) judgments would count as relevant in the ranking "
                         "but not in R (AP > 1, NumRelRet > NumRel)")


def rank(prepared: PreparedQrels, run: Run, *, relevance_level: int = 1, complete: bool = False,
         max_results: int | None = None, judged_only: bool = False,
         collection_size: int | None = None) -> RankedView:
    """Build the :class:`RankedView` of ``run`` against prepared qrels.

    ``complete`` (trec_eval ``-c``): evaluate every qrels query, a query missing from the run
    has an empty ranking; otherwise only queries in both. ``max_results`` (``-M``) keeps the
    first N documents per query after ranking; ``judged_only`` (``-J``) drops documents
    without a judgment (after ranking, keeping the order of the rest).
    """

    check_relevance_level(relevance_level)
    if len(run) == 0:
        raise InputError("the run is empty", source=run.source)
    if max_results is not None and max_results < 0:
        raise InputError(f"max_results must be ≥ 0, found {max_results}")
    n_q = len(prepared.query_ids)
    q = query_codes(run.qid, prepared.query_index, run.query_starts())  # -1: query not in the qrels
    heads = q[run.query_starts()]  # q is constant over each block of rows
    in_run = np.zeros(n_q, dtype=bool)
    in_run[heads[heads >= 0]] = True
    if not in_run.any():
        raise no_common_query(prepared.query_ids, run.source)
    evaluated = np.ones(n_q, dtype=bool) if complete else in_run

    keep = q >= 0
    rows = np.flatnonzero(keep) if not keep.all() else None
    score = run.score if rows is None else run.score[rows]
    qi = q if rows is None else q[rows]
    from .doc_join import DictionaryDocs, PackedDocs

    docs = PackedDocs.build(run, prepared, qi, rows, q) or DictionaryDocs(run, prepared, rows)
    docs.check_duplicates(qi, rows, run, prepared)
    try:
        rel = docs.relevance(qi)
    except HashCollision:  # two ids share a key: join exactly
        rel = DictionaryDocs(run, prepared, rows).relevance(qi)
    order, ties = _ranking_order(qi, score, docs.tie_order)
    if order is not None:
        qi, rel = qi[order], rel[order]
    if ties is not None:
        positions, sources = ties
        rel[positions] = rel[sources]

    # rows are now grouped by query in ascending order
    if max_results is not None:
        starts = np.searchsorted(qi, np.arange(n_q + 1))
        pos = np.arange(qi.size) - np.repeat(starts[:-1], np.diff(starts))
        mask = pos < max_results
        qi, rel = qi[mask], rel[mask]
    if judged_only:
        mask = rel >= 0
        qi, rel = qi[mask], rel[mask]
    counts = np.diff(np.searchsorted(qi, np.arange(n_q + 1)))[evaluated]
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    return RankedView(query_ids=prepared.query_ids[evaluated], offsets=offsets, rel=rel,
                      level_values=prepared.judged_levels()[0], level_counts=prepared.level_counts()[evaluated],
                      relevance_level=int(relevance_level), in_run=in_run[evaluated],
                      collection_size=collection_size)


def _indices(encoded) -> np.ndarray:
    return np.concatenate([_np(chunk.indices) for chunk in encoded.chunks]).astype(np.int64) \
        if encoded.num_chunks else np.zeros(0, dtype=np.int64)


def query_block_starts(qid) -> np.ndarray:
    """Start rows of the runs of equal ids (each Arrow chunk compared with its neighbour row,
    a cheap memcmp; no copy of the strings)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    chunks = [c for c in (qid.chunks if isinstance(qid, pa.ChunkedArray) else [qid]) if len(c)]
    starts = [np.zeros(1, dtype=np.int64)]
    offset = 0
    previous_last = None
    for chunk in chunks:
        m = len(chunk)
        if previous_last is not None and chunk[0].as_py() != previous_last:
            starts.append(np.array([offset], dtype=np.int64))
        if m > 1:
            change = _np(pc.not_equal(chunk.slice(1), chunk.slice(0, m - 1)))
            starts.append(np.flatnonzero(change).astype(np.int64) + 1 + offset)
        previous_last = chunk[m - 1].as_py()
        offset += m
    if not offset:
        return np.zeros(0, dtype=np.int64)
    starts = np.concatenate(starts)  # ascending, chunk after chunk (np.unique would import numpy.ma: 0.05 s)
    return starts[np.concatenate(([True], starts[1:] != starts[:-1]))]


def query_codes(qid, query_index, starts: np.ndarray | None = None) -> np.ndarray:
    """Index of each row's query id among the sorted qrels queries (``query_index``, an Arrow
    array), -1 if absent (intp).

    Runs list a query's documents together, so only one id per block (``starts``, computed if
    not given) is looked up; when ids change often, every id is hashed.
    """
    import pyarrow.compute as pc

    n = len(qid)
    if n == 0:
        return np.zeros(0, dtype=np.intp)
    starts = query_block_starts(qid) if starts is None else starts
    if starts.size > n // 4:
        found = _np(pc.index_in(qid, value_set=query_index)).astype(np.float64)
        return np.where(np.isnan(found), -1, found).astype(np.intp)
    found = _np(pc.index_in(take_sorted(qid, starts), value_set=query_index)).astype(np.float64)
    found = np.where(np.isnan(found), -1, found).astype(np.intp)
    return np.repeat(found, np.diff(np.concatenate((starts, [n]))))


def _ranking_order(qi: np.ndarray, score: np.ndarray, tie_order):
    """How to put rows in (query, score desc, docno desc) order: ``(order, ties)``.

    ``order`` is a permutation of the rows (None if they are already grouped by query and
    sorted by score); ``ties`` (None if no two rows of a query share a score) is
    ``(positions, sources)``: after ``order``, ``x[positions] = x[sources]`` puts the rows of
    each block of tied scores in docno order (the query does not change within a block).

    Runs usually arrive grouped by query and sorted by score: that is checked in O(n) and only
    the blocks of tied scores are sorted by docno (``tie_order(rows, block_id)`` gives the order
    of those rows, given as original row numbers, by block, then docno descending byte-wise).
    """
    n = qi.size
    order = None
    if n > 1 and (qi[1:] < qi[:-1]).any():
        order = _group_order(qi)
        qi, score = qi[order], score[order]
    same_q = qi[1:] == qi[:-1]
    if n > 1 and (same_q & (score[1:] > score[:-1])).any():
        inner = np.lexsort((-score, qi))
        order = inner if order is None else order[inner]
        score, qi = score[inner], qi[inner]
        same_q = qi[1:] == qi[:-1]
    tied = same_q & (score[1:] == score[:-1])
    if not tied.any():
        return order, None
    in_block = np.zeros(n, dtype=bool)
    in_block[1:] |= tied
    in_block[:-1] |= tied
    members = np.flatnonzero(in_block)
    opens = np.ones(members.size, dtype=bool)  # a member opens a block unless tied with the row before
    opens[1:] = ~tied[members[1:] - 1]
    block_id = np.cumsum(opens, dtype=np.int64)
    source_rows = members if order is None else order[members]
    return order, (members, members[tie_order(source_rows, block_id)])


def _group_order(qi: np.ndarray) -> np.ndarray:
    """A stable permutation sorting rows by query: whole blocks moved when each query forms
    one block (the usual run, listed in another query order), else a stable argsort."""
    starts = run_starts(qi)
    heads = qi[starts]
    block_order = np.argsort(heads, kind="stable")
    if (np.diff(heads[block_order]) == 0).any():
        return np.argsort(qi, kind="stable")
    lengths = np.diff(np.concatenate((starts, [qi.size])))[block_order]
    new_starts = np.cumsum(lengths) - lengths
    return np.arange(qi.size) + np.repeat(starts[block_order] - new_starts, lengths)


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
