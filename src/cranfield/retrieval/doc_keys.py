"""Document ids as packed integers: fast joins without hashing strings one by one.

An id of at most 32 bytes is NUL-padded to a multiple of 8 bytes (one vectorised Arrow kernel)
and read as 64-bit words. In the machine's byte order (a zero-copy view) the words serve for
equality and hashing; read big-endian (:func:`ordered`), comparing word tuples is comparing the
ids byte-wise (strcmp order, trec_eval's tie rule). A 64-bit mix of (query, words) is the join
key between a run and its qrels, looked up in a :class:`KeyTable`; every match is verified on
the words themselves, so a hash collision can never produce a wrong number (the caller falls
back to exact dictionary encoding if one is ever seen).
"""

from __future__ import annotations

import numpy as np

from ._segments import run_starts

__all__ = ["MAX_BYTES", "longest_bytes", "packed_width", "packed_words", "packed_keys", "ordered", "mix", "KeyTable",
           "HashCollision"]

MAX_BYTES = 32
_C1 = np.uint64(0x9E3779B97F4A7C15)
_C2 = np.uint64(0x94D049BB133111EB)
_C3 = np.uint64(0xBF58476D1CE4E5B9)


class HashCollision(Exception):
    """Two different (query, id) pairs share a key: use the exact path."""


def longest_bytes(ids) -> int:
    """Length in bytes of the longest of the Arrow strings ``ids`` (0 if there are none)."""
    import pyarrow.compute as pc

    return int(pc.max(pc.binary_length(ids)).as_py() or 0)


def packed_width(longest: int) -> int | None:
    """Number of 64-bit words needed to pack ids of up to ``longest`` bytes, or None if that is
    too long."""
    return None if longest > MAX_BYTES else max(1, -(-longest // 8))


def iter_packed(ids, n_words: int):
    """Yield (start, words) per Arrow chunk, words in native byte order (a view of the padded
    bytes); raise ValueError for ids that do not pack (too long, or containing a NUL byte)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    width = 8 * n_words
    start = 0
    for chunk in (ids.chunks if isinstance(ids, pa.ChunkedArray) else [ids]):
        m = len(chunk)
        if m == 0:
            continue
        # ascii_rpad pads by bytes (for UTF-8 ids too): every id becomes exactly `width` bytes
        padded = pc.ascii_rpad(chunk, width=width, padding="\x00")
        offsets = np.frombuffer(padded.buffers()[1], dtype=np.int32, count=m + 1, offset=padded.offset * 4)
        if offsets[-1] - offsets[0] != m * width:
            raise ValueError("an id longer than the packed width")
        data = np.frombuffer(padded.buffers()[2], dtype=np.uint8)[offsets[0]: offsets[-1]]
        lengths = np.frombuffer(chunk.buffers()[1], dtype=np.int32, count=m + 1, offset=chunk.offset * 4)
        if int(np.count_nonzero(data)) != int(lengths[-1] - lengths[0]):
            raise ValueError("an id contains a NUL byte")
        yield start, data.view(np.uint64).reshape(m, n_words)
        start += m


def packed_words(ids, n_words: int | None = None) -> np.ndarray | None:
    """(n, w) uint64 words of each id in native byte order (``n_words`` words, or as many as the
    longest id needs), or None when ids are too long or contain NUL."""
    if n_words is None:  # (an id longer than n_words words makes iter_packed refuse)
        n_words = packed_width(longest_bytes(ids))
        if n_words is None:
            return None
    out = np.empty((len(ids), n_words), dtype=np.uint64)
    try:
        for start, words in iter_packed(ids, n_words):
            out[start: start + len(words)] = words
    except ValueError:
        return None
    return out


def ordered(words: np.ndarray) -> np.ndarray:
    """Native words as big-endian integers: comparing rows of these compares the ids byte-wise."""
    return words.byteswap() if np.little_endian else words


def packed_keys(ids, query: np.ndarray, n_words: int, n_queries: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(mix(query, words), words) for every id, or None when ids do not pack."""
    keys = np.empty(len(ids), dtype=np.int64)
    out = np.empty((len(ids), n_words), dtype=np.uint64)
    try:
        for start, words in iter_packed(ids, n_words):
            stop = start + len(words)
            out[start:stop] = words
            keys[start:stop] = mix(query[start:stop], words, n_queries)
    except ValueError:
        return None
    return keys, out


def mix(query: np.ndarray, words: np.ndarray, n_queries: int) -> np.ndarray:
    """An int64 key: the query index in the high bits, a hash of the id words in the low bits
    (multiply-xor per word, then splitmix64's finaliser: every input bit reaches every output
    bit). Keys of one query stay together, so a run's keys (grouped by query) sort cheaply."""
    query_bits = max(1, int(n_queries).bit_length())
    hash_bits = 63 - query_bits
    with np.errstate(over="ignore"):
        key = np.multiply(words[:, 0], _C1)
        tmp = np.empty_like(key)
        for j in range(1, words.shape[1]):
            np.bitwise_xor(key, words[:, j], out=key)
            np.multiply(key, _C2, out=key)
        for shift, factor in ((31, _C3), (29, _C2), (32, None)):
            np.right_shift(key, np.uint64(shift), out=tmp)
            np.bitwise_xor(key, tmp, out=key)
            if factor is not None:
                np.multiply(key, factor, out=key)
        np.right_shift(key, np.uint64(64 - hash_bits), out=key)
        np.left_shift(query.astype(np.uint64), np.uint64(hash_bits), out=tmp)
        np.bitwise_or(key, tmp, out=key)
    return key.view(np.int64)


class KeyTable:
    """A hash table (open addressing, linear probing) from int64 keys to their position,
    built and probed with vectorised numpy rounds: about one gather per key, where a sorted
    search costs ~20 dependent reads.

    Keys belong to groups (queries): each group has its own region of the table, a power of
    two of at least 3 slots per key (load ≤ 1/3, so most absent keys stop at an empty slot at
    once), and a group's slot is the low bits of its keys (already hashed by :func:`mix`).
    A run lists a query's documents together, so its probes stay in one small, cached region.
    A key given more than once is stored once; ``repeats`` holds the (2, r) positions of
    (stored copy, repeat) for the others.
    """

    def __init__(self, keys: np.ndarray, group: np.ndarray, n_groups: int) -> None:
        self.keys = keys
        counts = np.bincount(group, minlength=n_groups)
        size = np.left_shift(1, np.ceil(np.log2(np.maximum(3 * counts, 8))).astype(np.int64))
        self.mask = size - 1
        self.base = np.concatenate(([0], np.cumsum(size)[:-1]))
        self.size = int(size.sum())
        table = np.full(self.size, -1, dtype=np.int32 if keys.size < 2**31 else np.int64)
        pending = np.arange(keys.size, dtype=table.dtype)
        slot = self._slot(keys, group)
        rounds = 0
        repeats = []
        while pending.size:
            free = table[slot] < 0
            table[slot[free]] = pending[free]  # several items may race for a slot: one wins
            lost = np.flatnonzero(table[slot] != pending)
            pending, slot = pending[lost], slot[lost]
            holder = table[slot]
            # Equal keys probe the same slots in the same rounds, so a repeated key always meets
            # its first copy here: it is recorded, not stored.
            same = keys[holder] == keys[pending]
            repeats.append(np.stack((holder[same], pending[same])))
            pending, slot = pending[~same], self._next(slot[~same])
            rounds += 1
        self.table, self.rounds = table, rounds
        self.repeats = np.concatenate(repeats, axis=1).astype(np.int64) if repeats else np.zeros((2, 0), np.int64)

    def _slot(self, keys: np.ndarray, group: np.ndarray) -> np.ndarray:
        """base[group] + (keys & mask[group]), looked up once per run of equal groups."""
        starts = run_starts(group)
        if starts.size > group.size // 8:
            return self.base[group] + (keys & self.mask[group])
        heads = group[starts]
        lengths = np.diff(np.concatenate((starts, [group.size])))
        slot = keys & np.repeat(self.mask[heads], lengths)
        slot += np.repeat(self.base[heads], lengths)
        return slot

    def _next(self, slot: np.ndarray) -> np.ndarray:
        slot += 1
        slot[slot == self.size] = 0
        return slot

    def lookup(self, keys: np.ndarray, group: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(rows of ``keys`` found, their position in the table's keys); ``group`` as built."""
        slot = self._slot(keys, group)
        position = self.table[slot]
        match = (self.keys[position] == keys) & (position >= 0)  # position -1 reads the last key: harmless
        found_rows, found_positions = [np.flatnonzero(match)], []
        found_positions.append(position[found_rows[0]])
        rows = np.flatnonzero((position >= 0) & ~match)  # collided with another key: probe on
        slot = slot[rows]
        for _ in range(self.rounds - 1):  # an item sits at most rounds - 1 slots after its own
            if not rows.size:
                break
            slot = self._next(slot)
            position = self.table[slot]
            occupied = position >= 0
            rows, slot, position = rows[occupied], slot[occupied], position[occupied]
            match = self.keys[position] == keys[rows]
            found_rows.append(rows[match])
            found_positions.append(position[match])
            rows, slot = rows[~match], slot[~match]
        return np.concatenate(found_rows), np.concatenate(found_positions).astype(np.int64)
