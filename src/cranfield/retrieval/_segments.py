"""Runs of equal values in a numpy array (rows of one query, one group)."""

from __future__ import annotations

import numpy as np

__all__ = ["run_starts", "spread"]


def run_starts(values: np.ndarray) -> np.ndarray:
    """Index of the first element of each run of equal consecutive values (0 first; empty for
    an empty array)."""
    if values.size == 0:
        return np.zeros(0, dtype=np.intp)
    return np.flatnonzero(np.concatenate(([True], values[1:] != values[:-1])))


def spread(values: np.ndarray, starts: np.ndarray, n: int) -> np.ndarray:
    """Each run's value repeated over its rows: run i holds rows ``starts[i]`` up to the next start
    (the last one up to ``n``)."""
    return np.repeat(values, np.diff(np.append(starts, n)))
