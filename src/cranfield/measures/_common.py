"""Helpers shared by the measure kernels."""

from __future__ import annotations

import numpy as np

from .base import Param

__all__ = ["REL_PARAM", "binary_view", "safe_divide", "positive_int"]


def _level_check(value: int) -> str | None:
    return None if value >= 0 else "the relevance level must be ≥ 0"


REL_PARAM = Param("int", None, "minimum relevance level counted as relevant (default: the evaluation's, 1)",
                  _level_check)


def binary_view(view, measure):
    """The view with the measure's own relevance level, if it has a ``rel`` parameter."""
    return view.at_level(measure.param("rel") if "rel" in measure.family.params else None)


def safe_divide(numerator, denominator) -> np.ndarray:
    """numerator / denominator, 0 where the denominator is 0 (trec_eval's policy)."""
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.asarray(denominator, dtype=np.float64)
    out = np.zeros(np.broadcast(numerator, denominator).shape, dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


def positive_int(value) -> str | None:
    return None if value >= 1 else "must be ≥ 1"
