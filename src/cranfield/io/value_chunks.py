"""A numeric column held as the arrays of the blocks it was read in.

The whole-file TREC reader parses a file block by block; its scores (or relevances) come as one
array per block. Concatenating them into one array writes the whole column into fresh memory,
which is mostly the kernel's page faults (10M scores: 80 MB, 0.12–0.17 s, serial after the last
block). :class:`ValueChunks` keeps the blocks' arrays: :meth:`ValueChunks.array` concatenates them
when the whole column is read, once, the copy shared by the threads; :meth:`ValueChunks.slice`
takes rows without it, so the parts of a run evaluated in threads (each a slice) copy only their
own rows, into memory the previous part freed.
"""

from __future__ import annotations

import threading

import numpy as np

from .._threads import available_threads

__all__ = ["ValueChunks", "THREADED_COPY_BYTES"]

#: values of this many bytes or more are copied together by the threads (smaller: one np.concatenate)
THREADED_COPY_BYTES = 1 << 24


class ValueChunks:
    """The arrays ``chunks`` (one dtype) read as one column."""

    def __init__(self, chunks: "list[np.ndarray]") -> None:
        self.chunks = [c for c in chunks if c.size] or list(chunks[:1]) or [np.zeros(0)]
        self.ends = np.cumsum([c.size for c in self.chunks])
        self.dtype = self.chunks[0].dtype
        self._whole: "np.ndarray | None" = self.chunks[0] if len(self.chunks) == 1 else None
        self._lock = threading.Lock()

    def __getstate__(self) -> dict:  # pickled (Dask) as one array, without the lock
        return {"chunks": [self.array()]}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["chunks"])

    def __len__(self) -> int:
        return int(self.ends[-1])

    @property
    def whole(self) -> bool:
        """Whether the column is one array already (read whole, or from one block)."""
        return self._whole is not None

    def array(self) -> np.ndarray:
        """The column as one array (concatenated once; the copy shared by the threads)."""
        if self._whole is None:
            with self._lock:
                if self._whole is None:
                    self._whole = concatenate(self.chunks)
        return self._whole

    def slice(self, start: int, stop: int) -> "ValueChunks":
        """Rows ``start:stop`` (views of the blocks' arrays; nothing copied)."""
        if self._whole is not None:
            return ValueChunks([self._whole[start:stop]])
        first = int(np.searchsorted(self.ends, start, side="right"))
        last = int(np.searchsorted(self.ends, stop, side="left"))
        pieces = []
        for i in range(first, min(last, len(self.chunks) - 1) + 1):  # a loop over blocks, not rows
            begin = int(self.ends[i]) - self.chunks[i].size
            pieces.append(self.chunks[i][max(start, begin) - begin:min(stop, int(self.ends[i])) - begin])
        return ValueChunks(pieces or [self.chunks[0][:0]])


def concatenate(arrays: "list[np.ndarray]") -> np.ndarray:
    """``np.concatenate(arrays)``, the copy shared by the threads: the time of a large copy into
    new memory is mostly the kernel's page faults, which run in parallel."""
    threads = min(available_threads(), len(arrays))
    if threads < 2 or sum(a.nbytes for a in arrays) < THREADED_COPY_BYTES:
        return np.concatenate(arrays)
    from concurrent.futures import ThreadPoolExecutor

    out = np.empty(sum(a.size for a in arrays), dtype=arrays[0].dtype)
    ends = np.cumsum([a.size for a in arrays])

    def copy(i: int) -> None:
        out[ends[i] - arrays[i].size:ends[i]] = arrays[i]

    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(copy, range(len(arrays))))
    return out
