r"""Partial area under the ROC curve, with McClish's (1989) standardisation, as R's pROC
(``auc(roc, partial.auc = , partial.auc.focus = , partial.auc.correct = )``).

Reference: McClish (1989), *Analyzing a portion of the ROC curve*, Med Decis Making 9:190.
"""

from __future__ import annotations

import numpy as np

from ...errors import InputError, UsageError
from .curve import roc_points

__all__ = ["partial_auc"]


def _path_area(x: np.ndarray, y: np.ndarray, low: float, high: float) -> float:
    """Area under the path (x ascending) between x = low and x = high (trapezoids, the path's
    values interpolated at the bounds; vertical segments add nothing)."""
    x0, x1, y0, y1 = x[:-1], x[1:], y[:-1], y[1:]
    a = np.clip(x0, low, high)
    b = np.clip(x1, low, high)
    width = x1 - x0
    keep = (b > a) & (width > 0)
    x0, x1, y0, y1, a, b, width = (v[keep] for v in (x0, x1, y0, y1, a, b, width))
    ya = y0 + (a - x0) / width * (y1 - y0)
    yb = y0 + (b - x0) / width * (y1 - y0)
    return float(np.sum((b - a) * (ya + yb) / 2))


def partial_auc(y_true, y_score, *, bounds: tuple[float, float] = (1.0, 0.8), focus: str = "specificity",
                correct: bool = False, allow_invalid_correction: bool = False) -> float:
    r"""Area under the ROC curve over a range of specificity (``focus="specificity"``, the area
    under sensitivity between the two specificities) or of sensitivity (``focus="sensitivity"``),
    as pROC's ``auc(roc, partial.auc = bounds, partial.auc.focus = focus)``.

    ``correct=True`` applies McClish's (1989) standardisation, :math:`\frac{1}{2}\left(1 +
    \frac{A - A_{min}}{A_{max} - A_{min}}\right)` with :math:`A_{max} = h - l` (the whole band)
    and :math:`A_{min} = (h - l)(2 - h - l)/2` (the diagonal's area in it): 0.5 for a useless
    test, 1 for a perfect one. It is undefined for a curve below the diagonal in the band (an
    error, as pROC's NA, unless ``allow_invalid_correction``).

    >>> partial_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], bounds=(1, 0.5))
    0.25
    """
    if focus not in ("specificity", "sensitivity"):
        raise UsageError(f"focus: expected 'specificity' or 'sensitivity', found {focus!r}")
    try:
        high, low = sorted((float(bounds[0]), float(bounds[1])), reverse=True)
        if len(bounds) != 2:
            raise ValueError
    except (TypeError, ValueError, IndexError):
        raise UsageError(f"bounds: expected two numbers between 0 and 1, found {bounds!r}") from None
    if not (0 <= low < high <= 1):
        raise UsageError(f"bounds: expected two different numbers between 0 and 1, found {bounds!r}")
    points = roc_points(y_true, y_score)
    if focus == "specificity":
        area = _path_area(points.specificity, points.sensitivity, low, high)
    else:
        area = _path_area(points.sensitivity[::-1], points.specificity[::-1], low, high)
    if not correct:
        return area
    smallest = (2 - high - low) * (high - low) / 2
    largest = high - low
    if area < smallest and not allow_invalid_correction:
        raise InputError(f"McClish's correction is not defined for a curve below the diagonal: partial AUC {area!r} "
                         f"< {smallest!r}, the diagonal's area between {focus} {low} and {high}", field="y_score")
    return (1 + (area - smallest) / (largest - smallest)) / 2
