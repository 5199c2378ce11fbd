r"""Planning an A/B test: power, minimum detectable effect and sample size (two independent groups).

The effect size :math:`d` is standardised: :math:`d = \Delta / \sigma` for means
(:func:`effect_size_from_means`), Cohen's :math:`h = 2\arcsin\sqrt{p_2} - 2\arcsin\sqrt{p_1}` for
proportions (:func:`effect_size_from_proportions`; Cohen 1988, §6.2). With :math:`n_1` units in
the first group, :math:`n_2 = \text{ratio}\cdot n_1` in the second and
:math:`\tilde n = 1/(1/n_1 + 1/n_2)`, the power of a two-sided test at level :math:`\alpha`:

* ``test="z"``: :math:`1 - \Phi(z_{1-\alpha/2} - d\sqrt{\tilde n}) + \Phi(-z_{1-\alpha/2} -
  d\sqrt{\tilde n})`;
* ``test="t"``: the same with Student's t critical values (:math:`n_1 + n_2 - 2` degrees of
  freedom) and the noncentral t with noncentrality :math:`d\sqrt{\tilde n}` (where scipy's
  noncentral t gives NaN, deep in a tail, the tail probability is taken as 0).

One-sided (``alternative="larger"``/``"smaller"``) keeps one tail at level :math:`\alpha`. These
are the formulas of statsmodels' ``NormalIndPower`` and ``TTestIndPower`` (same numbers: the tests
compare them); :func:`sample_size` and :func:`minimum_detectable_effect` solve the power equation
for :math:`n_1` or :math:`d` with Brent's method to a relative tolerance of 1e-12. The power
kernels and the root finder are those of :mod:`cranfield.stats.power` (its paired t test is the
one-sample case); this module holds what is particular to two groups of units. Kohavi, Tang &
Xu (2020, ch. 17) explain how to use them: plan the sample, then run the test to its end.
"""

from __future__ import annotations

import numpy as np

from .._params import Choice, Interval, validate_params
from ..errors import UsageError
from ..stats.power import ALTERNATIVES, solve_power, t_test_power, z_test_power

__all__ = ["power", "sample_size", "minimum_detectable_effect", "effect_size_from_proportions",
           "effect_size_from_means", "ALTERNATIVES"]

def _number(value, name: str, *, low: float | None = None, high: float | None = None, open_low=True,
            open_high=True) -> float:
    closed = {(False, False): "both", (False, True): "left", (True, False): "right"}.get((open_low, open_high),
                                                                                         "neither")
    return Interval(low, high, closed)(value, name)


# the declared constraints of the public functions' shared options (cranfield._params)
_OPTIONS = dict(alpha=Interval(0, 1, closed="neither"), ratio=Interval(0, None, closed="neither"),
                alternative=Choice(ALTERNATIVES), test=Choice(("z", "t")))
_PROPORTION = Interval(0, 1)
_FINITE = Interval()


def _power(d: float, n1: float, alpha: float, ratio: float, alternative: str, test: str) -> float:
    r"""Power of the two-sample test: the kernels of :mod:`cranfield.stats.power` with the
    noncentrality :math:`d\sqrt{\tilde n}` (and :math:`n_1 + n_2 - 2` degrees of freedom for t)."""
    n2 = n1 * ratio
    shift = d * np.sqrt(1.0 / (1.0 / n1 + 1.0 / n2))
    if test == "z":
        return z_test_power(shift, alpha, alternative)
    return t_test_power(shift, n1 - 1 + n2 - 1, alpha, alternative)


@validate_params(effect_size=_FINITE, **_OPTIONS)
def power(effect_size, n1, *, alpha: float = 0.05, ratio: float = 1.0, alternative: str = "two-sided",
          test: str = "z") -> float:
    """Power of the two-sample test (module docstring) for a standardised ``effect_size`` and
    ``n1`` units in the first group (``ratio * n1`` in the second).

    >>> round(power(0.2, 394), 4)
    0.8004
    """
    d = float(effect_size)
    n1 = _number(n1, "n1", low=1.0 if test == "t" else 0.0, open_low=test != "t")
    if test == "t" and n1 + n1 * ratio <= 2:
        raise UsageError("n1: the t test needs more than 2 units in all")
    return _power(d, n1, alpha, ratio, alternative, test)


@validate_params(effect_size=_FINITE, **_OPTIONS)
def sample_size(effect_size, *, power: float = 0.8, alpha: float = 0.05, ratio: float = 1.0,
                alternative: str = "two-sided", test: str = "z") -> float:
    """Units needed in the first group (a real number: round up) for the test to reach ``power``
    against ``effect_size``.

    >>> math.ceil(sample_size(0.2))
    393
    """
    target = _number(power, "power", low=alpha, high=1.0)
    d = float(effect_size)
    if d == 0 or (alternative == "larger" and d < 0) or (alternative == "smaller" and d > 0):
        raise UsageError(f"effect_size: expected a nonzero effect in the direction of the alternative, found {d!r}")
    low = 1e-6 if test == "z" else max(1.0, 3.0 / (1.0 + ratio))  # t: at least 1 degree of freedom
    if _power(d, low, alpha, ratio, alternative, test) >= target:
        return low
    return solve_power(lambda n: _power(d, n, alpha, ratio, alternative, test) - target, low, 1e3, "sample size",
                       xtol=1e-300, rtol=1e-12)


@validate_params(**_OPTIONS)
def minimum_detectable_effect(n1, *, power: float = 0.8, alpha: float = 0.05, ratio: float = 1.0,
                              alternative: str = "two-sided", test: str = "z") -> float:
    """The smallest standardised effect size (positive; negative for ``alternative="smaller"``)
    that the test detects with probability ``power`` with ``n1`` units in the first group.

    >>> round(minimum_detectable_effect(394), 4)
    0.1996
    """
    target = _number(power, "power", low=alpha, high=1.0)
    n1 = _number(n1, "n1", low=1.0 if test == "t" else 0.0, open_low=test != "t")
    if test == "t" and n1 + n1 * ratio <= 2:
        raise UsageError("n1: the t test needs more than 2 units in all")
    sign = -1.0 if alternative == "smaller" else 1.0
    return sign * solve_power(lambda d: _power(sign * d, n1, alpha, ratio, alternative, test) - target, 1e-12, 1.0,
                              "effect size", xtol=1e-300, rtol=1e-12)


@validate_params(p1=_PROPORTION, p2=_PROPORTION)
def effect_size_from_proportions(p1, p2) -> float:
    r"""Cohen's :math:`h = 2\arcsin\sqrt{p_2} - 2\arcsin\sqrt{p_1}` (the effect of going from
    proportion ``p1`` in the first group to ``p2`` in the second; statsmodels'
    ``proportion_effectsize(p2, p1)``)."""
    return float(2 * np.arcsin(np.sqrt(p2)) - 2 * np.arcsin(np.sqrt(p1)))


@validate_params(p1=_PROPORTION, h=_FINITE)
def proportion_from_effect_size(p1: float, h: float) -> float:
    r"""The second proportion :math:`p_2 = \sin^2(\arcsin\sqrt{p_1} + h/2)` (inverse of Cohen's h)."""
    angle = np.arcsin(np.sqrt(p1)) + h / 2
    return float(np.sin(np.clip(angle, 0.0, np.pi / 2)) ** 2)


@validate_params(difference=_FINITE, sd=Interval(0, None, closed="neither"))
def effect_size_from_means(difference, sd) -> float:
    r""":math:`d = \Delta / \sigma`: a difference of means in units of the standard deviation."""
    return difference / sd
