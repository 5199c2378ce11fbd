"""Equivalence and non-inferiority of two systems on the same queries: "B is as good as A".

A non-significant difference test does not show that two systems are equally effective; these
tests do, within a margin chosen before the experiment (in the measure's units, e.g. 0.01 AP):

* :func:`tost_paired` — two one-sided t tests (Schuirmann 1987): the mean difference lies in
  ``(low, high)``;
* :func:`noninferiority_test` — one one-sided t test: the mean difference ``x − y`` is above
  ``−margin`` (x is not worse than y by ``margin`` or more).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._params import check_interval
from ..errors import InputError, UsageError

__all__ = ["EquivalenceResult", "tost_paired", "noninferiority_test"]


@dataclass(frozen=True)
class EquivalenceResult:
    """Outcome of an equivalence (TOST) or non-inferiority test on the mean of ``x − y``.

    ``p_value``: the test's p (TOST: the larger of the two one-sided p); ``statistics`` and
    ``p_values``: each one-sided test's t and p (lower bound first); ``ci_low``, ``ci_high``: the
    (1 − 2α) t interval of the mean difference (TOST rejects exactly when it lies inside the
    margins); ``rejected``: p ≤ α, i.e. equivalence (or non-inferiority) is shown.
    """

    test: str
    diff: float
    low: float
    high: float
    statistics: tuple
    p_values: tuple
    p_value: float
    df: int
    ci_low: float
    ci_high: float
    alpha: float
    rejected: bool
    n: int


def _prepare(x, y, alpha) -> tuple[np.ndarray, float]:
    a = np.asarray(x, dtype=np.float64)
    b = np.asarray(y, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape or len(a) < 2:
        raise InputError(f"expected two 1-D arrays of at least 2 paired values, found shapes {a.shape} and {b.shape}", field="y")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise InputError("expected finite values, found NaN or infinity", field="x")
    return a - b, check_interval(alpha, "alpha", low=0, high=0.5, closed="neither")


def _margin(value, name: str) -> float:
    if isinstance(value, (bool, str)) or not isinstance(value, (int, float, np.number)) or not np.isfinite(value):
        raise UsageError(f"{name}: expected a finite number, found {value!r}")
    return float(value)


def _one_sided(d: np.ndarray, bound: float, greater: bool) -> tuple[float, float]:
    """t and p of H0: mean <= bound (``greater``) or mean >= bound; zero spread: ±inf, p 0 or 1."""
    from scipy import stats

    n = len(d)
    se = d.std(ddof=1) / np.sqrt(n)
    gap = d.mean() - bound
    if se == 0:
        t = 0.0 if gap == 0 else float(np.copysign(np.inf, gap))
    else:
        t = float(gap / se)
    p = float(stats.t.sf(t, n - 1) if greater else stats.t.cdf(t, n - 1))
    return t, p


def _interval(d: np.ndarray, alpha: float) -> tuple[float, float]:
    from scipy import stats

    n = len(d)
    half = stats.t.ppf(1 - alpha, n - 1) * d.std(ddof=1) / np.sqrt(n)
    return float(d.mean() - half), float(d.mean() + half)


def tost_paired(x, y, *, low: float, high: float, alpha: float = 0.05) -> EquivalenceResult:
    r"""Equivalence of paired values by two one-sided t tests (TOST; Schuirmann 1987; Lakens 2017).

    With :math:`d = x - y`, :math:`\bar d`, :math:`s_d`, :math:`n`: :math:`t_L = (\bar d -
    \text{low})/(s_d/\sqrt n)` tests :math:`H_0: \mu_d \le \text{low}` (upper tail) and
    :math:`t_U = (\bar d - \text{high})/(s_d/\sqrt n)` tests :math:`H_0: \mu_d \ge \text{high}`
    (lower tail), both with :math:`n-1` df; :math:`p = \max(p_L, p_U)`. Equivalence is shown at
    level α when p ≤ α, i.e. when the (1 − 2α) t interval lies inside (low, high). Same numbers as
    ``statsmodels.stats.weightstats.ttost_paired(x, y, low, high)``.

    >>> r = tost_paired([0.50, 0.62, 0.71, 0.40, 0.55], [0.49, 0.60, 0.72, 0.41, 0.54], low=-0.05, high=0.05)
    >>> r.rejected, round(r.p_value, 4)
    (True, 0.0008)
    """
    d, alpha = _prepare(x, y, alpha)
    low, high = _margin(low, "low"), _margin(high, "high")
    if not low < high:
        raise UsageError(f"low, high: expected low < high, found {low!r} and {high!r}")
    t_low, p_low = _one_sided(d, low, greater=True)
    t_high, p_high = _one_sided(d, high, greater=False)
    p = max(p_low, p_high)
    ci_low, ci_high = _interval(d, alpha)
    return EquivalenceResult("tost", float(d.mean()), low, high, (t_low, t_high), (p_low, p_high), p, len(d) - 1,
                             ci_low, ci_high, alpha, p <= alpha, len(d))


def noninferiority_test(x, y, *, margin: float, alpha: float = 0.05) -> EquivalenceResult:
    r"""Non-inferiority of ``x`` to ``y`` by at most ``margin`` (> 0): one-sided t test of
    :math:`H_0: \mu_{x-y} \le -\text{margin}` against :math:`\mu_{x-y} > -\text{margin}`,
    :math:`t = (\bar d + \text{margin})/(s_d/\sqrt n)`, :math:`n-1` df, upper tail (the lower
    half of TOST; Walker & Nowacki 2011). ``high`` of the result is +inf.

    >>> r = noninferiority_test([0.50, 0.62, 0.71, 0.40, 0.55], [0.52, 0.63, 0.70, 0.42, 0.56], margin=0.05)
    >>> r.rejected
    True
    """
    d, alpha = _prepare(x, y, alpha)
    margin = _margin(margin, "margin")
    if margin <= 0:
        raise UsageError(f"margin: expected a positive number (the largest acceptable loss), found {margin!r}")
    t, p = _one_sided(d, -margin, greater=True)
    ci_low, ci_high = _interval(d, alpha)
    return EquivalenceResult("non-inferiority", float(d.mean()), -margin, float("inf"), (t,), (p,), p, len(d) - 1,
                             ci_low, ci_high, alpha, p <= alpha, len(d))
