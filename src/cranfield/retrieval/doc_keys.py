"""Document ids as packed integers: fast joins without hashing strings one by one.

An id of at most 32 bytes is NUL-padded to a multiple of 8 bytes (one vectorised Arrow kernel)
and read as big-endian 64-bit words, so that comparing word tuples is comparing the ids
byte-wise (strcmp order, trec_eval's tie rule). A 64-bit mix of (query, words) then serves as
the join key between a run and its qrels: keys are sorted and searched with numpy, and every
match is verified on the words themselves, so a hash collision can never produce a wrong
number (the caller falls back to exact dictionary encoding if one is ever seen).
"""

from __future__ import annotations

import numpy as np

__all__ = ["MAX_BYTES", "packed_width", "packed_words", "packed_keys", "mix", "HashCollision"]

MAX_BYTES = 32
_C1 = np.uint64(0x9E3779B97F4A7C15)
_C2 = np.uint64(0x94D049BB133111EB)
_C3 = np.uint64(0xBF58476D1CE4E5B9)


class HashCollision(Exception):
    """Two different (query, id) pairs share a key: use the exact path."""


def packed_width(ids) -> int | None:
    """Number of 64-bit words needed to pack the longest id, or None if an id is too long."""
    import pyarrow as pa
    import pyarrow.compute as pc

    chunks = [c for c in (ids.chunks if isinstance(ids, pa.ChunkedArray) else [ids]) if len(c)]
    longest = max((pc.max(pc.binary_length(c)).as_py() or 0 for c in chunks), default=0)
    return None if longest > MAX_BYTES else max(1, -(-longest // 8))


def iter_packed(ids, n_words: int):
    """Yield (start, words) per Arrow chunk; raise ValueError for ids that do not pack."""
    import pyarrow as pa
    import pyarrow.compute as pc

    width = 8 * n_words
    start = 0
    for chunk in (ids.chunks if isinstance(ids, pa.ChunkedArray) else [ids]):
        m = len(chunk)
        if m == 0:
            continue
        padded = pc.utf8_rpad(chunk, width=width, padding="\x00")
        offsets = np.frombuffer(padded.buffers()[1], dtype=np.int32, count=m + 1, offset=padded.offset * 4)
        if offsets[-1] - offsets[0] != m * width:  # multi-byte characters: widths differ in bytes
            raise ValueError("non-ASCII ids")
        data = np.frombuffer(padded.buffers()[2], dtype=np.uint8)[offsets[0]: offsets[-1]].reshape(m, width)
        lengths = np.frombuffer(chunk.buffers()[1], dtype=np.int32, count=m + 1, offset=chunk.offset * 4)
        if int(np.count_nonzero(data)) != int(lengths[-1] - lengths[0]):
            raise ValueError("an id contains a NUL byte")
        yield start, data.view(">u8").astype(np.uint64)
        start += m


def packed_words(ids, n_words: int | None = None) -> np.ndarray | None:
    """(n, w) uint64 words of each id, or None when ids are too long, non-ASCII or contain NUL."""
    width = packed_width(ids)
    if width is None or (n_words is not None and width > n_words):
        return None
    n_words = n_words or width
    out = np.empty((len(ids), n_words), dtype=np.uint64)
    try:
        for start, words in iter_packed(ids, n_words):
            out[start: start + len(words)] = words
    except ValueError:
        return None
    return out


def packed_keys(ids, query: np.ndarray, n_words: int, n_queries: int) -> np.ndarray | None:
    """mix(query, words) for every id, computed chunk by chunk (the words are not kept)."""
    keys = np.empty(len(ids), dtype=np.int64)
    try:
        for start, words in iter_packed(ids, n_words):
            stop = start + len(words)
            keys[start:stop] = mix(query[start:stop], words, n_queries)
    except ValueError:
        return None
    return keys


def mix(query: np.ndarray, words: np.ndarray, n_queries: int) -> np.ndarray:
    """An int64 key: the query index in the high bits, a splitmix-style hash of the id words in
    the low bits. Keys of one query stay together, so searching a run's keys (grouped by query)
    in the sorted qrels keys is cache-friendly."""
    query_bits = max(1, int(n_queries).bit_length())
    hash_bits = 63 - query_bits
    with np.errstate(over="ignore"):
        key = np.full(words.shape[0], _C1, dtype=np.uint64)
        for j in range(words.shape[1]):  # splitmix64's finaliser after each word: every bit mixes
            key ^= words[:, j]
            key ^= key >> np.uint64(30)
            key *= _C3
            key ^= key >> np.uint64(27)
            key *= _C2
            key ^= key >> np.uint64(31)
        key >>= np.uint64(64 - hash_bits)
        key |= query.astype(np.uint64) << np.uint64(hash_bits)
    return key.view(np.int64)
