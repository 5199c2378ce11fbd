"""Shared plumbing of interleaving, click models and simulation: padded per-impression matrices.
(Their parameters are checked by :mod:`cranfield._params`.) The columns of a click log are read by
:func:`cranfield.io._clicklog_canonical.log_columns` (re-exported here with ``as_array``).
"""

from __future__ import annotations

import numpy as np

from ..io._clicklog_canonical import as_array, log_columns  # noqa: F401 - re-exported


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
