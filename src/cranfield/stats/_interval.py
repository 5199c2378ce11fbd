"""The result type of every confidence interval of :mod:`cranfield.stats` and the checks every
interval shares (private: :class:`Interval` is public as ``cranfield.stats.Interval``).

It sits below :mod:`.intervals` and :mod:`.roc` so that both build their intervals from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

import numpy as np

from .._params import check_fraction
from ..errors import InputError

__all__ = ["Interval", "check_confidence", "as_floats"]

Number = Union[float, np.ndarray]


@dataclass(frozen=True)
class Interval:
    """A point estimate with its two-sided confidence interval ``[low, high]``.

    Fields are floats for one sample and arrays for many (one entry per row).
    """

    estimate: Number
    low: Number
    high: Number
    confidence: float
    method: str

    def __iter__(self):
        """``estimate, low, high = interval``."""
        return iter((self.estimate, self.low, self.high))


def check_confidence(confidence: float) -> float:
    return check_fraction(confidence, "confidence")


def as_floats(values, name: str) -> np.ndarray:
    """``values`` as a float64 array, or an InputError naming ``name`` (text, None, ragged lists...)."""
    if isinstance(values, (str, bytes)) or values is None:
        raise InputError(f"expected an array of numbers, found {type(values).__name__} {values!r:.80}", field=name)
    try:
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError, OverflowError) as error:
        raise InputError(f"expected an array of numbers: {' '.join(str(error).split())[:160]}", field=name) from None
