"""Small Arrow helpers shared by the readers and the ranked view."""

from __future__ import annotations

import os
import re

import numpy as np

__all__ = ["to_numpy", "release_unused_memory", "indices", "take_sorted", "compute", "lookup_options", "index_in"]


def to_numpy(array) -> np.ndarray:
    """An Arrow Array or ChunkedArray (or anything array-like) as a numpy array.

    ChunkedArray.to_numpy goes through pandas; concatenating the chunks keeps pandas unloaded.
    """
    import pyarrow as pa

    if isinstance(array, pa.ChunkedArray):
        if array.num_chunks == 0:
            return np.zeros(0, dtype=array.type.to_pandas_dtype())
        return np.concatenate([_chunk_to_numpy(chunk) for chunk in array.chunks])
    if isinstance(array, pa.Array):
        return _chunk_to_numpy(array)
    return np.asarray(array)


def _chunk_to_numpy(chunk) -> np.ndarray:
    """Numbers and booleans without nulls straight from the Arrow buffers (Array.to_numpy may
    import pandas, ~0.2 s); anything else through Array.to_numpy."""
    import pyarrow as pa

    kind = chunk.type
    if pa.types.is_integer(kind) or pa.types.is_floating(kind):
        dtype = np.dtype(kind.to_pandas_dtype())
        values = np.frombuffer(chunk.buffers()[1], dtype=dtype, count=len(chunk), offset=chunk.offset * dtype.itemsize)
        if chunk.null_count == 0:
            return values
        # with nulls, as Array.to_numpy: float64, NaN where null (an index_in of absent ids)
        bits = np.frombuffer(chunk.buffers()[0], dtype=np.uint8)
        valid = np.unpackbits(bits, bitorder="little")[chunk.offset: chunk.offset + len(chunk)].astype(bool)
        return np.where(valid, values, np.nan)
    if chunk.null_count == 0 and pa.types.is_boolean(kind):
        bits = np.frombuffer(chunk.buffers()[1], dtype=np.uint8)
        return np.unpackbits(bits, bitorder="little")[chunk.offset: chunk.offset + len(chunk)].astype(bool)
    return chunk.to_numpy(zero_copy_only=False)


def use_jemalloc() -> None:
    """Arrow's jemalloc pool for this command's process, where pyarrow has one (unless
    ``ARROW_DEFAULT_MEMORY_POOL`` chooses). Arrow's default, mimalloc, keeps the blocks each thread
    freed, so the peak memory grows with the threads; measured with ``cranfield trec_eval -q -m
    all_trec`` on 10M lines read block-wise: 628 / 750 MB with 2 / 8 threads (mimalloc), 602 /
    623 MB (jemalloc), the same CPU time."""
    if os.environ.get("ARROW_DEFAULT_MEMORY_POOL"):
        return
    import pyarrow as pa  # lazy (start-up): the commands call this before their engine imports pyarrow

    try:
        pa.set_memory_pool(pa.jemalloc_memory_pool())
    except NotImplementedError:  # a pyarrow built without jemalloc: keep its default
        pass


def release_unused_memory() -> None:
    """Give memory that Arrow's allocator keeps after large temporary work back to the system
    (mimalloc and jemalloc hold freed blocks; the peak resident set of a big evaluation drops)."""
    import pyarrow as pa

    release = getattr(pa.default_memory_pool(), "release_unused", None)
    if release is not None:
        release()


def indices(values: np.ndarray):
    """A numpy integer array as an Arrow int64 array, without copying.

    (``pa.array`` would first look for pandas objects, which imports pandas: ~0.2 s that a
    command-line evaluation does not need.)
    """
    import pyarrow as pa

    values = np.ascontiguousarray(values, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), values.size, [None, pa.py_buffer(values)])


def compute(name: str, *args, options=None):
    """Arrow's compute function ``name`` on ``args`` (with its ``options`` object). Importing
    ``pyarrow.compute`` builds a documented wrapper for each of its ~300 functions: 25 ms of a
    command's start-up, which ``Array.take``, ``.dictionary_encode``, … pay when first called.
    The functions themselves are ``pyarrow._compute``'s: the same results without that cost."""
    return _compute_module().call_function(name, list(args), options)


def lookup_options(value_set):
    """The options of ``is_in`` and ``index_in`` (see :func:`compute`)."""
    return _compute_module().SetLookupOptions(value_set=value_set)


def index_in(values, value_set) -> np.ndarray:
    """The position of each of ``values`` in ``value_set`` (Arrow arrays), -1 where it is absent
    (intp): Arrow's ``index_in``, whose nulls for absent values are read as NaN."""
    found = to_numpy(compute("index_in", values, options=lookup_options(value_set)))
    return np.where(np.isnan(found), -1, found).astype(np.intp)


def _compute_module():
    """``pyarrow._compute``, or ``pyarrow.compute`` if a pyarrow lacks it (the same functions)."""
    try:
        import pyarrow._compute as module  # lazy (start-up): the compute functions, without pyarrow.compute's wrappers
    except ImportError:  # pragma: no cover - a pyarrow that moved them
        import pyarrow.compute as module  # lazy (start-up): as above
    return module


def take_sorted(array, rows: np.ndarray):
    """``array.take(rows)`` for ascending ``rows``, chunk by chunk (a ChunkedArray's own take
    first concatenates all its chunks: a copy of every string to read a few)."""
    import pyarrow as pa

    if not isinstance(array, pa.ChunkedArray):
        return compute("take", array, indices(rows))
    pieces = []
    stop = 0
    for chunk in array.chunks:
        start, stop = stop, stop + len(chunk)
        lo, hi = np.searchsorted(rows, [start, stop])
        if hi > lo:
            pieces.append(compute("take", chunk, indices(rows[lo:hi] - start)))
    return pa.chunked_array(pieces, type=array.type)


def query_block_starts(qid) -> np.ndarray:
    """Start rows of the runs of equal ids (each Arrow chunk compared with its neighbour row,
    a cheap memcmp; no copy of the strings)."""
    import pyarrow as pa

    chunks = [c for c in (qid.chunks if isinstance(qid, pa.ChunkedArray) else [qid]) if len(c)]
    starts = [np.zeros(1, dtype=np.int64)]
    offset = 0
    previous_last = None
    for chunk in chunks:
        m = len(chunk)
        if previous_last is not None and chunk[0].as_py() != previous_last:
            starts.append(np.array([offset], dtype=np.int64))
        if m > 1:
            change = to_numpy(compute("not_equal", chunk.slice(1), chunk.slice(0, m - 1)))
            starts.append(np.flatnonzero(change).astype(np.int64) + 1 + offset)
        previous_last = chunk[m - 1].as_py()
        offset += m
    if not offset:
        return np.zeros(0, dtype=np.int64)
    starts = np.concatenate(starts)  # ascending, chunk after chunk (np.unique would import numpy.ma: 0.05 s)
    return starts[np.concatenate(([True], starts[1:] != starts[:-1]))]


#: Arrow's CSV message for a row with another number of fields than the header: the readers
#: turn it into an error naming the line (row, expected, found)
RAGGED_ROW = re.compile(r"Row #(\d+): Expected (\d+) columns, got (\d+)")
