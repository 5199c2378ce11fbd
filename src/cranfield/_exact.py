"""Exact ties and exact integer aggregation (issue 24, cause 2).

Two floating-point pitfalls where the answer is exact:

* **Ties between systems.** A system's mean is a sum of per-query floats; two systems whose
  means are equal as rationals (7/12 and 7/12) can differ in the last bit after summation, and a
  ranking then puts one above the other. :func:`snap_ties` decides ties on the values' exact
  meaning: values that agree to :data:`TIE_RELATIVE` (12 significant digits, relative) are made
  equal (each group takes its smallest member), so ``==`` and ``>`` then see the tie. The
  rounding error of a mean of per-query values is a few units in the 16th digit; two real
  systems' means that differ below the 12th digit are not distinguishable by any test (and
  trec_eval prints 4 decimals). Every ranking of systems (reusability, agreement between
  judgments, correlation of system rankings) snaps before it compares.
* **Means of integers.** Integer labels near 2⁶³ overflow int64 sums (wrapping to −2⁶³), and
  near 2⁵³ + 1 they are no longer exact in float64. :func:`integer_totals` sums them exactly
  (int64 where the bound allows, Python ints otherwise), :func:`rounded_mean` rounds the exact
  quotient to an integer, :func:`float_quotient` gives the correctly rounded float.

And one for scale-invariant statistics (silhouette, R², the χ² of a sample ratio...), whose
sums of squares overflow at 1e200 and underflow at 1e-200: :func:`unit_scale` multiplies the
inputs by a power of two (exact) before squaring (issue 24, cause 3).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["TIE_RELATIVE", "snap_ties", "integer_totals", "rounded_mean", "float_quotient", "unit_scale",
           "unit_exponent", "scaled_power"]

TIE_RELATIVE = 1e-12


def snap_ties(values, *, relative: float = TIE_RELATIVE, axis: int = 0) -> np.ndarray:
    """``values`` (float array) with every group of values that agree within ``relative``
    (chained in sorted order: ``|b − a| <= relative · max(|a|, |b|)`` between neighbours) replaced
    by the group's smallest member, independently along ``axis`` (per column of a systems ×
    measures matrix). NaN stays NaN.

    >>> a, b = 0.1 + 0.2 + 0.3, 0.3 + 0.2 + 0.1  # 0.6 in two orders
    >>> a == b, bool(np.all(snap_ties([a, b]) == snap_ties([a, b])[0]))
    (False, True)
    """
    x = np.array(values, dtype=np.float64, copy=True)
    if x.ndim == 0 or x.size == 0:
        return x
    moved = np.moveaxis(x, axis, -1)
    flat = moved.reshape(-1, moved.shape[-1])
    order = np.argsort(flat, axis=1, kind="stable")
    ranked = np.take_along_axis(flat, order, axis=1)
    gap = np.abs(np.diff(ranked, axis=1))
    scale = np.maximum(np.abs(ranked[:, 1:]), np.abs(ranked[:, :-1]))
    with np.errstate(invalid="ignore"):
        joined = gap <= relative * scale  # NaN never joins
    start = np.ones(ranked.shape, dtype=bool)
    start[:, 1:] = ~joined
    # each element takes the value of its group's first (smallest) member
    firsts = np.maximum.accumulate(np.where(start, np.arange(ranked.shape[1])[None, :], 0), axis=1)
    snapped = np.take_along_axis(ranked, firsts, axis=1)
    out = np.empty_like(flat)
    np.put_along_axis(out, order, snapped, axis=1)
    return np.moveaxis(out.reshape(moved.shape), -1, axis)


def integer_totals(counts: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``counts @ values`` exactly: ``counts`` (rows × k, whole numbers) weights the integer
    ``values`` (k); int64 when no partial sum can overflow, an object array of Python ints
    otherwise."""
    counts = np.asarray(counts)
    values = np.asarray(values)
    whole = np.rint(counts).astype(np.int64) if counts.dtype.kind == "f" else counts.astype(np.int64)
    biggest = int(np.abs(values.astype(object)).max()) if values.size else 0
    rows = int(whole.sum(axis=1).max()) if whole.size else 0
    if biggest * max(rows, 1) < 2**60:  # 2·total + n stays within int64 in rounded_mean
        return whole @ values.astype(np.int64)
    return whole.astype(object) @ np.array([int(v) for v in values.tolist()], dtype=object)


def rounded_mean(totals: np.ndarray, n: np.ndarray, *, halves: str = "down") -> np.ndarray:
    """``totals / n`` rounded to the nearest integer, halves ``"down"`` or ``"up"``, computed on
    integers (exact at any size); int64 (a mean of int64 values is one)."""
    t = np.asarray(totals)
    m = np.asarray(n)
    m = (np.rint(m).astype(np.int64) if m.dtype.kind == "f" else m.astype(np.int64))
    if t.dtype == object:
        m = m.astype(object)
    if halves == "down":  # ceil(t/n − 1/2) = −floor((n − 2t) / 2n)
        out = -((m - 2 * t) // (2 * m))
    else:  # floor(t/n + 1/2)
        out = (2 * t + m) // (2 * m)
    return np.array([int(v) for v in out.tolist()], dtype=np.int64) if out.dtype == object else out


def float_quotient(totals: np.ndarray, n: np.ndarray) -> np.ndarray:
    """``totals / n`` correctly rounded to float64 (Python's int true division where a total
    exceeds 2⁵³, where float(total) would already round)."""
    t = np.asarray(totals)
    m = np.asarray(n)
    if t.dtype != object and (t.size == 0 or -2**53 < int(t.min()) and int(t.max()) < 2**53):
        return t.astype(np.float64) / m.astype(np.float64)
    whole = [int(v) for v in np.rint(m.astype(np.float64)).tolist()]
    return np.array([int(a) / b for a, b in zip(t.tolist(), whole)], dtype=np.float64)


def unit_exponent(*arrays) -> int:
    """The exponent ``e`` with the largest magnitude of the float64 ``arrays`` in [2^(e-1), 2^e)
    (0 when all are zero, empty or one holds a non-finite value): ``unit_scale`` divides by 2^e."""
    largest = max((float(np.max(np.abs(np.asarray(a, dtype=np.float64)))) for a in arrays if np.size(a)),
                  default=0.0)
    if largest == 0.0 or not np.isfinite(largest):
        return 0
    return int(np.frexp(largest)[1])


def unit_scale(*arrays) -> list:
    """The float64 ``arrays`` multiplied by one power of two that brings their largest magnitude
    into [0.5, 1): exact (no rounding), so a scale-invariant statistic computed on them is the
    same, while its squares neither overflow (values near 1e200) nor underflow (near 1e-200).
    Arrays already in that range, all zero or holding a non-finite value are returned unchanged.

    >>> [a.tolist() for a in unit_scale(np.array([3e200, -1e200]))]
    [[0.9798151324726952, -0.3266050441575651]]
    """
    values = [np.asarray(a, dtype=np.float64) for a in arrays]
    exponent = unit_exponent(*values)
    return values if exponent == 0 else [np.ldexp(a, -exponent) for a in values]


def scaled_power(value: float, exponent: int) -> float:
    """``value · 2^exponent`` correctly rounded: 0 below the smallest subnormal, ``inf`` beyond
    the largest float64 (the caller says so), never a warning or an exception.

    >>> scaled_power(0.75, 1000), scaled_power(0.75, -2), scaled_power(0.75, 2000)
    (8.036314553897005e+300, 0.1875, inf)
    """
    try:
        return math.ldexp(value, exponent)
    except OverflowError:
        return math.copysign(math.inf, value)
