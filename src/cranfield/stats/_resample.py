"""Vectorised resampling shared by the intervals and the tests (private).

Random sign flips and bootstrap resamples are drawn as matrices, a chunk of rows at a time, so
that a statistic over all resamples is one matrix product (BLAS), never a Python loop per
resample. All randomness comes from one :class:`numpy.random.Generator`, hence results are
reproducible for a given ``random_state``.
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

from .._params import as_generator as _as_generator
from .._params import check_count as _check_count

__all__ = ["MAX_RESAMPLES", "as_generator", "check_count", "chunk_rows", "sign_flip_matrices", "all_sign_flips", "bootstrap_counts"]

# about 8 million float64 cells (64 MB) per chunk
_CHUNK_CELLS = 1 << 23


def as_generator(random_state) -> np.random.Generator:
    """``random_state`` (None, an int >= 0 or a Generator) as a numpy Generator."""
    return _as_generator(random_state, "random_state")


def chunk_rows(n_columns: int) -> int:
    """Rows per chunk so that one chunk of ``n_columns`` float64 columns stays near 64 MB."""
    return max(1, min(1 << 14, _CHUNK_CELLS // max(1, n_columns)))


# Limit of random permutations / bootstrap resamples (docs/reliability.md, "Limits"): the time is
# linear in it, and at 10^7 the Monte Carlo error of a p-value is already below 0.0001.
MAX_RESAMPLES = 10**7


def check_count(value, name: str, minimum: int = 1, maximum: int = MAX_RESAMPLES) -> int:
    """``value`` as an int from ``minimum`` to ``maximum`` (a whole float such as ``1e4`` is
    accepted); a :class:`UsageError` naming ``name`` otherwise."""
    return _check_count(value, name, minimum, maximum, _WHY)


_WHY = "the time grows linearly with it; 10^7 draws already give a p-value to within 0.0001"


def sign_flip_matrices(n: int, n_flips: int, rng: np.random.Generator) -> Iterator[np.ndarray]:
    """Yield 0/1 float64 matrices of shape (rows, n), ``n_flips`` rows in all.

    A row ``b`` stands for the sign vector ``s = 2 b - 1``: for differences ``d``,
    ``s @ d = 2 (b @ d) - sum(d)``. Bits come from random bytes (one bit per cell).
    """
    rows = chunk_rows(n)
    done = 0
    n_bytes = (n + 7) // 8
    while done < n_flips:
        size = min(rows, n_flips - done)
        raw = rng.integers(0, 256, size=(size, n_bytes), dtype=np.uint8)
        bits = np.unpackbits(raw, axis=1, count=n)
        yield bits.astype(np.float64)
        done += size


def all_sign_flips(n: int) -> Iterator[np.ndarray]:
    """All ``2**n`` 0/1 vectors of length ``n`` (exact enumeration), as float64 matrices of at
    most :func:`chunk_rows` rows each (about 64 MB), in order of their binary code."""
    rows = chunk_rows(n)
    shifts = np.arange(n, dtype=np.int64)
    for start in range(0, 1 << n, rows):
        codes = np.arange(start, min(start + rows, 1 << n), dtype=np.int64)[:, None]
        yield ((codes >> shifts) & 1).astype(np.float64)


def bootstrap_counts(n: int, n_resamples: int, rng: np.random.Generator) -> Iterator[np.ndarray]:
    """Yield float64 matrices (rows, n) of how often each item is drawn in a bootstrap resample.

    Row ``w`` of counts gives the resampled mean ``w @ x / n``; ``n_resamples`` rows in all.
    """
    rows = chunk_rows(n)
    done = 0
    while done < n_resamples:
        size = min(rows, n_resamples - done)
        draws = rng.integers(0, n, size=(size, n), dtype=np.int64)
        draws += (np.arange(size, dtype=np.int64) * n)[:, None]
        counts = np.bincount(draws.ravel(), minlength=size * n).reshape(size, n)
        yield counts.astype(np.float64)
        done += size
