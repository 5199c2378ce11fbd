"""Shared plumbing of interleaving, click models and simulation: padded per-impression matrices
and parameter checks. The columns of a click log are read by
:func:`cranfield.io._clicklog_canonical.log_columns` (re-exported here with ``as_array``).
"""

from __future__ import annotations

import numpy as np

from ..errors import UsageError
from ..io._clicklog_canonical import OPTIONAL, REQUIRED, as_array, log_columns  # noqa: F401 - re-exported


def positions(offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the impression's index and the 0-based position within the impression."""
    lengths = np.diff(offsets)
    owner = np.repeat(np.arange(len(lengths)), lengths)
    return owner, np.arange(offsets[-1] if len(offsets) else 0) - offsets[:-1][owner]


def padded(values: np.ndarray, owner: np.ndarray, position: np.ndarray, shape: tuple[int, int], fill=0) -> np.ndarray:
    """Scatter per-row ``values`` into an (impressions × positions) matrix filled with ``fill``."""
    out = np.full(shape, fill, dtype=np.asarray(values).dtype)
    out[owner, position] = values
    return out


def check_seed(seed) -> np.random.Generator:
    """A numpy Generator from an int seed, a Generator, or None (fresh entropy)."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or (isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and seed >= 0):
        return np.random.default_rng(seed)
    raise UsageError(f"seed: expected a non-negative integer, a numpy Generator or None, found {seed!r}")


def check_probability(value, name: str, *, open_low: bool = False, open_high: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise UsageError(f"{name}: expected a number from 0 to 1, found {value!r}")
    value = float(value)
    if not (0.0 <= value <= 1.0) or (open_low and value == 0.0) or (open_high and value == 1.0):
        raise UsageError(f"{name}: expected a number in {'(' if open_low else '['}0, 1{')' if open_high else ']'}, "
                         f"found {value!r}")
    return value


def check_count(value, name: str, *, low: int = 1, high: int = 10**9) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        raise UsageError(f"{name}: expected an integer from {low} to {high}, found {value!r:.40}")
    return int(value)
