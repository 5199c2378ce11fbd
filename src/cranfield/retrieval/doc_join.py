"""Joining a run's documents with the judgments: relevance of each ranked row, duplicate
documents, and the docno order of tied rows.

Three interchangeable strategies. :class:`NativeDocs` (the usual one where the compiled core
is built) joins on the docno bytes in C (:mod:`cranfield._native.doc_join`), fed by the Arrow
buffers of the column; :class:`PackedDocs` packs docnos into 64-bit words (:mod:`.doc_keys`)
and joins on (query, docno) keys with numpy, verifying every match on the words;
:class:`DictionaryDocs` dictionary-encodes docnos with Arrow: exact for any id (too long,
non-ASCII or containing NUL) and the fallback after a hash collision. The three give the same
relevance codes and tie orders; an error (a repeated docno) is always worded by the pure paths. Their
``prepared`` argument is the :class:`~cranfield.retrieval.ranked.PreparedQrels` of the qrels
(:mod:`.ranked` imports this module, not the reverse).
"""

from __future__ import annotations

import threading
from itertools import pairwise

import numpy as np

from .._arrow import index_in
from .._arrow import indices as _indices_array
from .._arrow import to_numpy as _np
from .._threads import available_threads
from ..errors import InputError
from .doc_keys import HashCollision, ordered, packed_keys, packed_width
from ..measures.view import NONPOOL, UNJUDGED
from .run import Run

try:
    from .._native import doc_join as _native
except ImportError:  # the compiled core was not built: PackedDocs and DictionaryDocs do the job
    _native = None

__all__ = ["NativeDocs", "PackedDocs", "DictionaryDocs"]

_INDEX_LOCK = threading.Lock()  # the judgments' index is built once, whichever thread asks first


def _indices(encoded) -> np.ndarray:
    """The codes of a dictionary-encoded chunked array, as one int64 array."""
    return np.concatenate([_np(chunk.indices) for chunk in encoded.chunks]).astype(np.int64) \
        if encoded.num_chunks else np.zeros(0, dtype=np.int64)


def _string_buffers(ids):
    """``(chunks, large)``: the Arrow strings ``ids`` (an array or chunked array) as the compiled core
    reads them, in place: ``(offsets, data, offset, length)`` of each chunk, and whether the offsets
    are 64-bit; None for nulls or another type."""
    import pyarrow as pa

    chunks = ids.chunks if isinstance(ids, pa.ChunkedArray) else [ids]
    if any(chunk.null_count for chunk in chunks):
        return None
    if pa.types.is_string(ids.type) or pa.types.is_binary(ids.type):
        large = False
    elif pa.types.is_large_string(ids.type) or pa.types.is_large_binary(ids.type):
        large = True
    else:
        return None
    return tuple((offsets, data if data is not None else b"", chunk.offset, len(chunk))
                 for chunk in chunks for _, offsets, data in [chunk.buffers()]), large


class _CompiledIndex:
    """The compiled index of one PreparedQrels. It pickles empty (a capsule does not pickle: the
    prepared qrels are sent to Dask workers), and the receiving process builds its own."""

    def __init__(self) -> None:
        self.built, self.value = False, None

    def __reduce__(self):
        return _CompiledIndex, ()


def native_index(prepared) -> tuple[object, bool] | None:
    """``(index, duplicate)``: the compiled index of the judgments of ``prepared`` (built once) and
    whether a (query, docno) is judged twice; None where the core is not built or declines."""
    if _native is None:
        return None
    holder = prepared._exact.setdefault("native_index", _CompiledIndex())
    if not holder.built:
        with _INDEX_LOCK:
            if not holder.built:
                column = _string_buffers(prepared.qrels.docno)
                holder.value = None if column is None else _build_index(prepared, column)
                holder.built = True
    return holder.value


#: judgments from which the compiled index is filled by several threads (fewer: one)
PARALLEL_JUDGMENTS = 1 << 19


def _build_index(prepared, column) -> tuple[object, bool]:
    """The compiled index, its judgments inserted by up to :func:`available_threads` threads, each a
    range of rows holding whole queries (when every query's judgments are together), else by one."""
    q = np.ascontiguousarray(prepared.q, np.int64)
    n_queries = len(prepared.query_ids)
    cuts = _query_cuts(prepared.qrels, n_queries, available_threads())
    if cuts.size <= 2:
        return _native.index(q, np.ascontiguousarray(prepared.rel, np.int64), *column, n_queries)
    from concurrent.futures import ThreadPoolExecutor

    index, _ = _native.index(q, np.ascontiguousarray(prepared.rel, np.int64), *column, n_queries, 0)  # laid out
    with ThreadPoolExecutor(cuts.size - 2) as pool:  # the first range in this thread, the others at once
        others = [pool.submit(_native.fill, index, q, int(a), int(b)) for a, b in pairwise(cuts[1:])]
        duplicate = _native.fill(index, q, 0, int(cuts[1]))
        results = [future.result() for future in others]  # every range inserted before the index is used
        return index, duplicate or any(results)


def _query_cuts(qrels, n_queries: int, threads: int) -> np.ndarray:
    """Row cuts ``[0, c1, ..., n]`` into up to ``threads`` ranges at query boundaries (``[0, n]``
    when the judgments are few or some query's judgments are not together)."""
    n = len(qrels)
    if threads < 2 or n < PARALLEL_JUDGMENTS:
        return np.array([0, n])
    starts = qrels.query_starts()
    if starts.size != n_queries:  # a query in two runs of rows: two threads could write its slots
        return np.array([0, n])
    inner = starts[np.minimum(np.searchsorted(starts, np.arange(1, threads) * (n // threads)), starts.size - 1)]
    return np.unique(np.concatenate(([0], inner[inner > 0], [n])))


class NativeDocs:
    """Docnos joined on their bytes by the compiled core: relevance and the repeated-docno check in
    one pass over the kept rows (``rows``, None for all), tie orders by byte comparison."""

    def __init__(self, run: Run, rows, q_all, column, rel: np.ndarray, duplicate: bool) -> None:
        self.run, self.rows, self.q_all, self.column, self.rel, self.duplicate = run, rows, q_all, column, rel, duplicate

    @classmethod
    def build(cls, run: Run, prepared, qi: np.ndarray, rows: np.ndarray | None, q_all: np.ndarray):
        index = native_index(prepared)
        column = _string_buffers(run.docno) if index is not None else None
        if column is None:
            return None
        rows = None if rows is None else np.ascontiguousarray(rows, np.int64)
        rel, duplicate = _native.join(index[0], np.ascontiguousarray(qi, np.int64), rows, *column)
        return cls(run, rows, q_all, column, np.frombuffer(rel, dtype=np.int64), duplicate)

    def check_duplicates(self, qi, rows, run, prepared) -> None:
        if self.duplicate:  # the error, found and worded as the pure paths do
            pure = PackedDocs.build(run, prepared, qi, rows, self.q_all) or DictionaryDocs(run, prepared, rows)
            pure.check_duplicates(qi, rows, run, prepared)

    def tie_order(self, source_rows: np.ndarray, block_id: np.ndarray) -> np.ndarray:
        rows = source_rows if self.rows is None else self.rows[source_rows]
        order = _native.tie_order(*self.column, np.ascontiguousarray(rows, np.int64),
                                  np.ascontiguousarray(block_id, np.int64))
        return np.frombuffer(order, dtype=np.int64)

    def relevance(self, qi: np.ndarray) -> np.ndarray:
        """Relevance code of each row (in the order of the rows, not ranked)."""
        return self.rel  # (a writable array over the core's bytearray: the caller may write into it)


class PackedDocs:
    """Docnos as packed words; joins and duplicate checks on 64-bit keys (see doc_keys).

    Rows are those of the run kept for evaluation (``rows``, None for all), in file order.
    """

    def __init__(self, run: Run, rows: np.ndarray | None, keys: np.ndarray, words: np.ndarray, judged) -> None:
        self.run, self.rows, self.keys, self.words, self.judged = run, rows, keys, words, judged

    @classmethod
    def build(cls, run: Run, prepared, qi: np.ndarray, rows: np.ndarray | None, q_all: np.ndarray):
        run_width = packed_width(run.longest_docno())
        judged_width = prepared.packed_width()
        if run_width is None or judged_width is None:
            return None
        n_words = max(run_width, judged_width)
        judged = prepared.packed(n_words)
        packed = packed_keys(run.docno, np.maximum(q_all, 0), n_words, len(prepared.query_ids))
        if judged is None or packed is None:
            return None
        keys, words = packed
        if rows is not None:
            keys, words = keys[rows], words[rows]
        return cls(run, rows, keys, words, judged)

    def check_duplicates(self, qi, rows, run, prepared) -> None:
        ordered = np.sort(self.keys)
        if not (ordered[1:] == ordered[:-1]).any():
            return
        sort = np.argsort(self.keys, kind="stable")
        same = np.flatnonzero(self.keys[sort][1:] == self.keys[sort][:-1])
        first, second = sort[same], sort[same + 1]
        w1, w2 = self.words[first], self.words[second]
        real = np.flatnonzero((qi[first] == qi[second]) & (w1 == w2).all(axis=1))
        if real.size:
            k = real[0]
            _raise_duplicate(first[k], second[k], qi, rows, run, prepared, _words_text(w1[k]))
        # a key shared by different ids separates the copies of a repeated one: check exactly
        DictionaryDocs(run, prepared, rows).check_duplicates(qi, rows, run, prepared)

    def tie_order(self, source_rows: np.ndarray, block_id: np.ndarray) -> np.ndarray:
        w = ordered(self.words[source_rows])
        m = w.shape[0]
        rank = _dense_rank(w[:, 0])  # rank of each docno among these rows, byte-wise
        for j in range(1, w.shape[1]):
            rank = _dense_rank(rank * m + _dense_rank(w[:, j]))
        # one unsorted-stable argsort of unique keys (a repeated docno in a block was refused):
        # a few times faster than a lexsort over the words
        return np.argsort(block_id * m + (m - 1 - rank))

    def relevance(self, qi: np.ndarray) -> np.ndarray:
        """Relevance code of each row (in the order of the rows, not ranked)."""
        judged = self.judged
        rel = np.full(qi.size, NONPOOL, dtype=np.int64)
        hit, position = judged.table.lookup(self.keys, qi)
        same = judged.q[position] == qi[hit]
        for j in range(self.words.shape[1]):  # column by column: no 2-D gather and row reduction
            same &= judged.words[:, j][position] == self.words[:, j][hit]
        if not same.all():
            raise HashCollision
        found = judged.rel[position]
        rel[hit] = np.where(found < 0, UNJUDGED, found)
        return rel


class DictionaryDocs:
    """Docnos through Arrow dictionary encoding: exact for any id (the general path)."""

    def __init__(self, run: Run, prepared, rows: np.ndarray | None):
        import pyarrow as pa

        encoded = run.docno.dictionary_encode()
        codes = _indices(encoded)
        self.dictionary = encoded.chunk(0).dictionary if encoded.num_chunks else pa.array([], pa.string())
        self.judged_code = index_in(self.dictionary, prepared.doc_dictionary).astype(np.int64)
        self.codes = codes if rows is None else codes[rows]
        self.prepared = prepared

    def check_duplicates(self, qi, rows, run, prepared) -> None:
        keys = qi * max(len(self.dictionary), 1) + self.codes
        ordered = np.sort(keys)
        if not (ordered[1:] == ordered[:-1]).any():
            return
        sort = np.argsort(keys, kind="stable")
        dup = np.flatnonzero(keys[sort][1:] == keys[sort][:-1])
        i, j = sort[dup[0]], sort[dup[0] + 1]
        _raise_duplicate(i, j, qi, rows, run, prepared, self.dictionary[int(self.codes[i])].as_py())

    def tie_order(self, source_rows: np.ndarray, block_id: np.ndarray) -> np.ndarray:
        import pyarrow.compute as pc

        distinct, inverse = np.unique(self.codes[source_rows], return_inverse=True)
        names = self.dictionary.take(_indices_array(distinct))
        name_rank = np.empty(distinct.size, dtype=np.int64)
        name_rank[_np(pc.sort_indices(names))] = np.arange(distinct.size)
        return np.lexsort((-name_rank[inverse.reshape(-1)], block_id))

    def relevance(self, qi: np.ndarray) -> np.ndarray:
        """Relevance code of each row (in the order of the rows, not ranked)."""
        prepared = self.prepared
        d = self.judged_code[self.codes]
        keys = qi * len(prepared.doc_dictionary) + np.maximum(d, 0)
        slot = np.minimum(np.searchsorted(prepared.keys_sorted, keys), prepared.keys_sorted.size - 1)
        found = (d >= 0) & (prepared.keys_sorted[slot] == keys)
        rel = np.where(found, prepared.rel_sorted[slot], NONPOOL)
        rel[found & (rel < 0)] = UNJUDGED
        return rel


def _dense_rank(values: np.ndarray) -> np.ndarray:
    """0-based rank of each value among the distinct values (equal values, equal rank)."""
    order = np.argsort(values)
    ordered_values = values[order]
    rank = np.empty(values.size, dtype=np.int64)
    rank[order] = np.cumsum(np.concatenate(([0], ordered_values[1:] != ordered_values[:-1])))
    return rank


def _words_text(words: np.ndarray) -> str:
    return words.tobytes().rstrip(b"\x00").decode("utf-8", "replace")  # native words: the id's bytes


def _raise_duplicate(i, j, qi, rows, run: Run, prepared, docno: str) -> None:
    line = (lambda k: run.line_of(k if rows is None else rows[k]))
    first, second = sorted((line(i), line(j)))
    raise InputError(f"document {docno!r} retrieved twice for query {prepared.query_ids[qi[i]]!r} "
                     f"(also on line {first})", source=run.source, line=second, field="docno")
