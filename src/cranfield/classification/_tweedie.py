"""The Tweedie unit deviance and its domain, shared by the mean deviance (regression) and its D²
(probabilistic): one formula, one set of domain rules, one wording of the errors.

d(y, μ) = 2 [max(y, 0)^(2−p)/((1−p)(2−p)) − y μ^(1−p)/(1−p) + μ^(2−p)/(2−p)] (Jørgensen 1997),
with the limits p = 0: (y − μ)² (normal), p = 1: 2 [y ln(y/μ) − y + μ] (Poisson), p = 2:
2 [ln(μ/y) + y/μ − 1] (Gamma). Domain (as scikit-learn): p < 0 needs μ > 0; 1 ≤ p < 2 needs y ≥ 0
and μ > 0; p ≥ 2 needs y > 0 and μ > 0; 0 < p < 1 is not a Tweedie distribution.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._params import check_finite
from ..errors import InputError, UsageError


def check_power(power: Any) -> float:
    """``power`` as a float: a finite number outside (0, 1), else a UsageError."""
    power = check_finite(power, "power")
    if 0 < power < 1:
        raise UsageError(f"the Tweedie deviance is not defined for 0 < power < 1, found {power}")
    return float(power)


def check_domain(y: np.ndarray, mu: np.ndarray, p: float) -> None:
    """An InputError naming the field and index of the first value outside the domain of power p
    (``y_pred`` checked before ``y_true``)."""
    checks = []
    if p < 0 or p >= 1:
        checks.append((mu, mu <= 0, "y_pred", "strictly positive"))
    if 1 <= p < 2:
        checks.append((y, y < 0, "y_true", "non-negative"))
    elif p >= 2:
        checks.append((y, y <= 0, "y_true", "strictly positive"))
    for values, bad, name, what in checks:
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InputError(f"the Tweedie deviance with power={p} needs {what} values, found {values[i]} at "
                             f"index {i}", field=name)


def unit_deviance(y: np.ndarray, mu: np.ndarray, p: float) -> np.ndarray:
    """d(y, μ) elementwise for power p (inputs already in the domain)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        if p == 0:
            return (y - mu) ** 2
        if p == 1:
            from scipy.special import xlogy

            return 2 * (xlogy(y, y / mu) - y + mu)
        if p == 2:
            return 2 * (np.log(mu / y) + y / mu - 1)
        base = np.where(y > 0, y, 0.0) if p < 0 else y
        return 2 * (np.power(base, 2 - p) / ((1 - p) * (2 - p)) - y * np.power(mu, 1 - p) / (1 - p)
                    + np.power(mu, 2 - p) / (2 - p))
