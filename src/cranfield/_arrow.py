"""Small Arrow helpers shared by the readers and the ranked view."""

from __future__ import annotations

import numpy as np

__all__ = ["to_numpy", "release_unused_memory"]


def to_numpy(array) -> np.ndarray:
    """An Arrow Array or ChunkedArray (or anything array-like) as a numpy array.

    ChunkedArray.to_numpy goes through pandas; concatenating the chunks keeps pandas unloaded.
    """
    import pyarrow as pa

    if isinstance(array, pa.ChunkedArray):
        if array.num_chunks == 0:
            return np.zeros(0, dtype=array.type.to_pandas_dtype())
        return np.concatenate([chunk.to_numpy(zero_copy_only=False) for chunk in array.chunks])
    if isinstance(array, pa.Array):
        return array.to_numpy(zero_copy_only=False)
    return np.asarray(array)


def release_unused_memory() -> None:
    """Give memory that Arrow's allocator keeps after large temporary work back to the system
    (mimalloc and jemalloc hold freed blocks; the peak resident set of a big evaluation drops)."""
    import pyarrow as pa

    release = getattr(pa.default_memory_pool(), "release_unused", None)
    if release is not None:
        release()
