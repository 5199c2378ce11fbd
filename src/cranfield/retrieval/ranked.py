"""The sorted, judged view of a run: the one sufficient statistic every measure reuses.

Per evaluated query (in byte-wise order of query id) it holds the relevance of each retrieved
document in rank order, concatenated over queries with ``offsets``, plus the number of judged
documents at each relevance level. Relevance codes follow trec_eval: a value ≥ 0 is a
judgment, ``NONPOOL`` (-1) a document absent from the qrels, ``UNJUDGED`` (-2) a document in
the qrels with a negative judgment (in the pool but not judged).

Ranking rule (trec_eval's, exactly): the rank column is ignored; documents are ordered by
score descending (double precision), ties by docno descending byte-wise. Everything is
vectorised over all queries at once: no Python loop over queries or documents.

A ``{qid: {docno: score}}`` dict run (the training-loop use) skips the Run columns:
:func:`rank_dict` walks the dict, joins and ranks it in the compiled core
(:mod:`cranfield._native.dict_run`), giving the same view; whatever the core declines takes the
path above.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from .qrels import Qrels
from .run import Run

try:  # the compiled core (setup.py builds it); without it, dict runs take the Python path
    from .._native import dict_run as _dict_run
except ImportError:  # pragma: no cover - a source tree that was not built
    _dict_run = None

__all__ = ["RankedView", "PreparedQrels", "prepare_qrels", "rank", "rank_dict", "ranked_view", "query_codes",
           "query_block_starts", "NONPOOL", "UNJUDGED"]

from ..measures.view import NONPOOL, UNJUDGED, QrelsStatistics, RankedView, check_relevance_level, segmented_accumulate  # noqa: F401 (re-exported)


from .._arrow import compute
from .._arrow import indices as _indices_array
from .._arrow import index_in
from .._arrow import query_block_starts
from .._arrow import take_sorted
from .._arrow import to_numpy as _np
from ._segments import run_starts, spread
from .doc_join import DictionaryDocs, NativeDocs, PackedDocs, _indices, native_index
from . import doc_keys  # doc_keys.mix looked up when called (the tests weaken it to force collisions)
from .doc_keys import HashCollision, KeyTable, packed_width, packed_words



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
    #: per-query statistics of the judgments, shared by the views ranked against these qrels
    statistics: dict = field(default_factory=dict, repr=False)

    def codes_of(self, qid, starts: np.ndarray | None = None) -> np.ndarray:
        """:func:`query_codes` of ``qid`` against these qrels (their sorted ids given, for the
        binary search of a few heads among many queries)."""
        return query_codes(qid, self.query_index, starts, sorted_ids=self.query_ids)

    def codes_of_table(self, table) -> np.ndarray:
        """:meth:`codes_of` the rows of a Run or Qrels, from its query heads where it holds them
        (then the column of the rows' ids is not made)."""
        if table.holds_query_heads:
            return query_codes(None, self.query_index, table.query_starts(), sorted_ids=self.query_ids,
                               heads=table.query_heads(), n=len(table))
        return self.codes_of(table.qid, table.query_starts())

    def packed_width(self) -> int | None:
        if "width" not in self._packed:
            self._packed["width"] = packed_width(self.qrels.longest_docno())
        return self._packed["width"]

    def packed(self, n_words: int) -> "PackedJudgments | None":
        """Judgments keyed by mix(query, packed docno), for runs whose ids pack into ``n_words``
        words, or None if the judged ids do not pack."""
        if n_words not in self._packed:
            words = packed_words(self.qrels.docno, n_words)
            if words is None:
                return None
            keys = doc_keys.mix(self.q, words, len(self.query_ids))
            self._packed[n_words] = PackedJudgments(keys, KeyTable(keys, self.q, len(self.query_ids)), self.q,
                                                     words, self.rel)
        return self._packed[n_words]

    def judged_levels(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Distinct judged levels (≥ 0), the level code and query index of each judgment ≥ 0."""
        if "levels" not in self._exact:
            judged = self.rel >= 0
            every = bool(judged.all())  # the usual qrels: no copies of the columns
            rel = self.rel if every else self.rel[judged]
            top = int(rel.max()) if rel.size else 0
            if top < 1 << 20:  # small levels (the usual case): counting, not sorting
                present = np.bincount(rel, minlength=top + 1) > 0
                levels = np.flatnonzero(present).astype(np.int64)
                code = rel if levels.size == top + 1 else (np.cumsum(present) - 1)[rel]  # levels 0..top: code = rel
            else:
                levels, code = np.unique(rel, return_inverse=True)
            self._exact["levels"] = (levels.astype(np.int64), code.reshape(-1), self.q if every else self.q[judged])
        return self._exact["levels"]

    def level_counts(self) -> np.ndarray:
        """(queries, judged levels) number of judgments of each query at each level."""
        if "counts" not in self._exact:
            levels, code, q = self.judged_levels()
            key = q * levels.size  # one temporary (q * L + code would make two: fresh pages cost here)
            key += code
            flat = np.bincount(key, minlength=len(self.query_ids) * levels.size)
            self._exact["counts"] = flat.reshape(len(self.query_ids), levels.size).astype(np.int64, copy=False)
        return self._exact["counts"]

    def dict_index(self):
        """The judgments indexed by (query, docno) for :func:`rank_dict` (built once; an opaque
        object of :mod:`cranfield._native.dict_run`)."""
        if "dict_index" not in self._exact:
            self._exact["dict_index"] = _dict_run.index(self.query_ids.tolist(), np.ascontiguousarray(self.q, np.int64),
                                                        self.qrels.docno_objects or self.qrels.docno.to_pylist(),
                                                        np.ascontiguousarray(self.rel, np.int64))
        return self._exact["dict_index"]

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

    def join_index(self) -> None:
        """Build the judgment index that joins share (the compiled one, else the packed one), so that
        threads find it built."""
        if native_index(self) is None:
            width = self.packed_width()
            if width is not None:
                self.packed(width)

    def release_index(self) -> None:
        """Drop the whole-qrels judgment indexes (the compiled index, packed keys and their hash
        table, the exact docno encoding, the dict index), rebuilt if asked for again: the block-wise
        path ranks each piece against its own queries' judgments and never reads them (about 50
        bytes a judgment)."""
        self._packed.clear()
        for key in ("native_index", "dictionary", "d", "sort", "keys_sorted", "rel_sorted", "dict_index"):
            self._exact.pop(key, None)

    def check_duplicates(self) -> None:
        """A (query, docno) judged twice is an error naming both lines (none can be in qrels whose
        pairs are distinct by construction: a dict's exact str keys, a part of checked qrels; else
        found by the compiled index where it is built; worded by the pure path)."""
        if self.qrels.distinct_pairs:
            return
        native = native_index(self)
        if native is not None and not native[1]:
            return
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
    if len(qrels) == 0:
        raise InputError("no judgments", source=qrels.source)
    known = qrels.sorted_query_codes()  # a dict's queries: sorted as str, without encoding the rows
    if known is not None:
        import pyarrow as pa

        query_ids, q = known
        query_index = pa.array(query_ids, pa.string())
    else:
        query_index, q = _sorted_query_codes(qrels)
        query_ids = np.asarray(query_index.to_pylist(), dtype=object)
    prepared = PreparedQrels(qrels=qrels, query_ids=query_ids, query_index=query_index, q=q, rel=qrels.rel)
    prepared.check_duplicates()
    return prepared


def _sorted_query_codes(qrels: Qrels):
    """(the distinct query ids sorted byte-wise, an Arrow array; the code of each row's query in
    that order, int64). Qrels list a query's judgments together: only the first id of each run of
    equal ids (known from the reader) is encoded (:func:`_codes_by_runs`); when ids change often,
    every row is (:func:`_codes_by_rows`). Both give the same arrays."""
    starts = qrels.query_starts()
    if qrels.holds_query_heads or starts.size <= len(qrels) // 4:
        return _codes_by_runs(qrels.query_heads(), starts, len(qrels))
    return _codes_by_rows(qrels.qid)


def _codes_by_runs(heads, starts: np.ndarray, n: int):
    """:func:`_sorted_query_codes` from the id of each run of equal ids (``heads``, at ``starts``)."""
    import pyarrow as pa

    encoded = compute("dictionary_encode", heads.combine_chunks() if isinstance(heads, pa.ChunkedArray) else heads)
    query_index, code = _sorted_dictionary(encoded.dictionary, _np(encoded.indices).astype(np.int64))
    return query_index, spread(code, starts, n)


def _codes_by_rows(qid):
    """:func:`_sorted_query_codes` from every row's id."""
    encoded = compute("dictionary_encode", qid)
    return _sorted_dictionary(encoded.chunk(0).dictionary, _indices(encoded))


def _sorted_dictionary(dictionary, codes: np.ndarray):
    """(``dictionary`` sorted byte-wise, ``codes`` renumbered in that order)."""
    order = _np(compute("sort_indices", dictionary))
    rank_of_code = np.empty(len(order), dtype=np.int64)
    rank_of_code[order] = np.arange(len(order))
    return compute("take", dictionary, _indices_array(order)), rank_of_code[codes]


def no_common_query(qrels_query_ids, source) -> InputError:
    """The one error every evaluation path raises when no run query is in the qrels (the same
    text whether the run was read whole, block-wise or by Dask partitions)."""
    sample = ", ".join(map(str, list(qrels_query_ids[:3])))
    return InputError(f"no query in common between the run and the qrels ({len(qrels_query_ids)} queries, "
                      f"e.g. {sample})", source=source)


def rank(prepared: PreparedQrels, run: Run, *, relevance_level: int = 1, complete: bool = False,
         max_results: int | None = None, judged_only: bool = False,
         collection_size: int | None = None, propensity: np.ndarray | None = None,
         query_codes: np.ndarray | None = None) -> RankedView:
    """Build the :class:`RankedView` of ``run`` against prepared qrels.

    ``complete`` (trec_eval ``-c``): evaluate every qrels query, a query missing from the run
    has an empty ranking; otherwise only queries in both. ``max_results`` (``-M``) keeps the
    first N documents per query after ranking; ``judged_only`` (``-J``) drops documents
    without a judgment (after ranking, keeping the order of the rest). ``propensity``: a value per
    run row (e.g. :meth:`~cranfield.io.propensities.Propensities.lookup`), carried to the view in
    rank order. ``query_codes``: the code of each row's query among the qrels' sorted query ids
    (-1: not in the qrels), when the caller has them already (a piece of a block-wise read).
    """

    check_relevance_level(relevance_level)
    if len(run) == 0:
        raise InputError("the run is empty", source=run.source)
    if max_results is not None and max_results < 0:
        raise InputError(f"max_results must be ≥ 0, found {max_results}")
    n_q = len(prepared.query_ids)
    q = prepared.codes_of_table(run) if query_codes is None else query_codes  # -1: not in qrels
    heads = q[run.query_starts()]  # q is constant over each block of rows
    in_run = np.zeros(n_q, dtype=bool)
    in_run[heads[heads >= 0]] = True
    if not in_run.any():
        raise no_common_query(prepared.query_ids, run.source)

    keep = q >= 0
    rows = np.flatnonzero(keep) if not keep.all() else None
    score = run.score if rows is None else run.score[rows]
    extra = propensity if propensity is None or rows is None else propensity[rows]
    qi = q if rows is None else q[rows]
    docs = NativeDocs.build(run, prepared, qi, rows, q) or PackedDocs.build(run, prepared, qi, rows, q) \
        or DictionaryDocs(run, prepared, rows)
    docs.check_duplicates(qi, rows, run, prepared)
    try:
        rel = docs.relevance(qi)
    except HashCollision:  # two ids share a key: join exactly
        rel = DictionaryDocs(run, prepared, rows).relevance(qi)
    order, ties = _ranking_order(qi, score, docs.tie_order)
    if order is not None:
        qi, rel = qi[order], rel[order]
        extra = extra if extra is None else extra[order]
    if ties is not None:
        positions, sources = ties
        rel[positions] = rel[sources]
        if extra is not None:
            extra = extra.copy()
            extra[positions] = extra[sources]

    return ranked_view(prepared, qi, rel, in_run, complete=complete, max_results=max_results,
                       judged_only=judged_only, relevance_level=relevance_level, collection_size=collection_size,
                       propensity=extra)


def ranked_view(prepared: PreparedQrels, qi: np.ndarray | None, rel: np.ndarray, in_run: np.ndarray, *,
                complete: bool = False, max_results: int | None = None, judged_only: bool = False,
                relevance_level: int = 1, collection_size: int | None = None, propensity: np.ndarray | None = None,
                counts: np.ndarray | None = None, judged_rows: np.ndarray | None = None) -> RankedView:
    """The view of ranked rows: ``qi`` (query code of each row, ascending; or None, given
    ``counts``, the rows of each query code) and ``rel`` (relevance codes, in rank order within a
    query), ``in_run`` (bool per qrels query); ``max_results`` and ``judged_only`` applied here.
    ``judged_rows``: the positions in ``rel`` of the judged rows, ascending, where the join knows
    them (see :attr:`RankedView.judged_rows`; dropped when rows are cut here)."""
    n_q = len(prepared.query_ids)
    evaluated = np.ones(n_q, dtype=bool) if complete else in_run
    extra = propensity
    if max_results is not None or judged_only:  # rows are cut here
        judged_rows = None  # (positions in the rows before the cut)
        if qi is None:
            qi = np.repeat(np.arange(n_q, dtype=np.int64), counts)
    if max_results is not None:
        starts = np.searchsorted(qi, np.arange(n_q + 1))
        pos = np.arange(qi.size) - np.repeat(starts[:-1], np.diff(starts))
        mask = pos < max_results
        qi, rel = qi[mask], rel[mask]
        extra = extra if extra is None else extra[mask]
        counts = None
    if judged_only:
        mask = rel >= 0
        qi, rel = qi[mask], rel[mask]
        extra = extra if extra is None else extra[mask]
        counts = None
    if counts is None:
        counts = np.diff(np.searchsorted(qi, np.arange(n_q + 1)))
    counts = counts[evaluated]
    offsets = np.zeros(counts.size + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    level_counts = prepared.level_counts()
    return RankedView(query_ids=prepared.query_ids[evaluated], offsets=offsets, rel=rel,
                      level_values=prepared.judged_levels()[0], level_counts=level_counts[evaluated],
                      relevance_level=int(relevance_level), in_run=in_run[evaluated],
                      collection_size=collection_size, propensity=extra, judged_rows=judged_rows,
                      qrels_statistics=QrelsStatistics(level_counts, evaluated, prepared.statistics))


def rank_dict(prepared: PreparedQrels, mapping, **options) -> RankedView | None:
    """The :class:`RankedView` of a ``{qid: {docno: score}}`` dict run by the compiled core
    (:mod:`cranfield._native.dict_run`: no Run columns are built), or None when the core is not
    built or declines the dict (anything :meth:`Run.from_dict` would question, an empty run, no
    query in common): then ``rank(prepared, Run.from_dict(mapping))`` gives the view or the error.
    ``options`` as :func:`rank` (no propensities)."""
    if _dict_run is None or type(mapping) is not dict or options.get("relevance_level", 1) < 0 \
            or (options.get("max_results") or 0) < 0:  # bad options: rank() says so, after the run's own errors
        return None
    out = _dict_run.rank(mapping, prepared.dict_index())
    if out is None:
        return None
    rel, counts, judged = (np.frombuffer(column, dtype=np.int64) for column in out)
    return ranked_view(prepared, None, rel, counts > 0, counts=counts, judged_rows=judged, **options)


def query_codes(qid, query_index, starts: np.ndarray | None = None, *,
                sorted_ids: np.ndarray | None = None, heads=None, n: int | None = None) -> np.ndarray:
    """Index of each row's query id among the sorted qrels queries (``query_index``, an Arrow
    array), -1 if absent (intp).

    Runs list a query's documents together, so only one id per block (``starts``, computed if
    not given) is looked up; when ids change often, every id is hashed. ``sorted_ids``: the same
    ids as an object array; when the heads are few against them (a part or block of a large run,
    a one-line block), the heads are found by a binary search there instead of in a hash table
    of every qrels id built per call (Arrow's ``index_in``): the same codes. ``heads`` (the id at
    each of ``starts``) and ``n`` (the rows) may stand for ``qid`` (then None).
    """
    n = len(qid) if n is None else n
    if n == 0:
        return np.zeros(0, dtype=np.intp)
    starts = query_block_starts(qid) if starts is None else starts
    if sorted_ids is not None and starts.size * 16 < len(sorted_ids):
        ids = np.asarray((take_sorted(qid, starts) if heads is None else heads).to_pylist(), dtype=object)
        position = np.minimum(np.searchsorted(sorted_ids, ids), len(sorted_ids) - 1)
        return spread(np.where(sorted_ids[position] == ids, position, -1).astype(np.intp), starts, n)
    if heads is None and starts.size > n // 4:
        return index_in(qid, query_index)
    return spread(index_in(take_sorted(qid, starts) if heads is None else heads, query_index), starts, n)


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
