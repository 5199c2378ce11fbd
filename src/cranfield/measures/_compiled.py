"""The compiled measure kernels (:mod:`cranfield._native.measure_kernels`), where the package was built.

Each family's registered kernel stays its one entry point: it asks :func:`kernels` and takes the
compiled pass when there is one, else its numpy code; the two give bit-identical values (the
compiled pass does the same float operations in the same order, and its logarithms come from
numpy: :func:`log2_table`). ``ENABLED`` lets the tests switch the compiled pass off to compare.
"""

from __future__ import annotations

import numpy as np

try:  # the compiled core (setup.py builds it); without it, the numpy kernels do the job
    from .._native import measure_kernels as _module
except ImportError:  # pragma: no cover - a source tree that was not built
    _module = None

__all__ = ["ENABLED", "kernels", "log2_table", "ranked", "level_gains", "floats"]

ENABLED = True
_LOGS = np.zeros(0)


def kernels():
    """The compiled module, or None (not built, or switched off)."""
    return _module if ENABLED else None


def log2_table(size: int) -> np.ndarray:
    """At least ``size`` values log2(2 + k), k = 0, 1, …, computed by numpy (whose SIMD log2 may
    differ from libm's in the last bit): the discount of rank k + 1, shared by both paths."""
    global _LOGS
    table = _LOGS
    if table.size < size:
        table = np.log2(np.arange(2, max(size, 2 * table.size, 1024) + 2, dtype=np.float64))
        _LOGS = table  # replaced whole: a thread reading the old table still holds a valid one
    return table


def ranked(view) -> tuple[np.ndarray, np.ndarray]:
    """A view's relevance codes and offsets as the compiled kernels take them."""
    return np.ascontiguousarray(view.rel, dtype=np.int64), np.ascontiguousarray(view.offsets, dtype=np.int64)


def level_gains(gv) -> tuple[np.ndarray, np.ndarray]:
    """A gain view's levels and their gains as the compiled kernels take them."""
    return np.ascontiguousarray(gv.level_values, dtype=np.int64), np.ascontiguousarray(gv.level_gain, np.float64)


def floats(buffer) -> np.ndarray:
    """A float64 array over a compiled kernel's result."""
    return np.frombuffer(buffer, dtype=np.float64)
