r"""CUPED for ratio metrics by the delta method (Deng, Xu, Kohavi & Walker 2013, §3.3 and the
appendix on ratio metrics).

A ratio metric :math:`R = \sum_u Y_u / \sum_u N_u` (clicks per impression with users
randomised) and a pre-period covariate that is itself a ratio :math:`C = \sum_u X_u / \sum_u M_u`
(:math:`M_u = 1` for a plain per-unit value). By the delta method each arm's estimates are, to
first order, means of the per-unit *linearised* values

.. math::

    \ell_u = \frac{Y_u - R N_u}{\bar N}, \qquad k_u = \frac{X_u - C M_u}{\bar M},

(:math:`\bar N, \bar M` the arm's means), so :math:`\mathrm{Var}(R) = \sum_u \ell_u^2 / n^2` — the
delta-method variance of :mod:`cranfield.online.ab` — and likewise :math:`\mathrm{Var}(C)` and
:math:`\mathrm{Cov}(R, C) = \sum_u \ell_u k_u / n^2`. CUPED replaces each arm's estimate by
:math:`R - \theta (C - \bar C)`, :math:`\bar C` the covariate over both arms, with one
:math:`\theta = \sum \ell_u k_u / \sum k_u^2` over the units of both arms (the least-squares
slope of :math:`\ell` on :math:`k` with one intercept per arm; it minimises the variance); the
adjusted variance of an arm is :math:`\sum_u (\ell_u - \theta k_u)^2 / n^2`. The lift is the
difference of the adjusted estimates, tested with a z test; the relative lift's variance is the
delta method's as in :mod:`cranfield.online.ab`.
"""

from __future__ import annotations

import math

import numpy as np

from .._params import check_fraction
from ..errors import InputError
from ._clicklog import as_array

__all__ = ["ratio_cuped"]


def _check_alpha(value, name: str) -> float:
    return check_fraction(value, name)


def _linearised(y, n, x, m):
    r, c = y.sum() / n.sum(), x.sum() / m.sum()
    return float(r), float(c), (y - r * n) / n.mean(), (x - c * m) / m.mean()


def ratio_cuped(y, n, x, m, in_treatment, *, confidence: float = 0.95) -> dict:
    """CUPED-adjusted comparison of a ratio metric between two arms (module docstring).

    ``y, n``: the metric's numerator and denominator per unit; ``x, m``: the covariate's per unit
    (``m`` all ones for a per-unit covariate); ``in_treatment``: bool per unit. Returns a dict
    with the adjusted ``estimate_control``, ``estimate_treatment``, ``lift``, ``lift_low``,
    ``lift_high``, ``relative_lift`` (and bounds), ``statistic`` (z), ``p_value``,
    ``cuped_theta``, ``variance_reduction`` (1 − adjusted / unadjusted variance of the lift).
    """
    from scipy import special

    arrays = [as_array(a, name, np.float64) for a, name in zip((y, n, x, m), "ynxm")]
    t = as_array(in_treatment, "in_treatment", bool)
    confidence = _check_alpha(confidence, "confidence")
    if any(a.shape != t.shape or a.ndim != 1 for a in arrays):
        raise InputError("expected arrays of one value per unit, all of the same length", field="covariate")
    if not all(np.all(np.isfinite(a)) for a in arrays):
        raise InputError("expected finite values and covariates, found NaN or infinity", field="covariate")
    arms = []
    for mask in (~t, t):
        if mask.sum() < 2:
            raise InputError("CUPED needs at least two units per variant", field="variant")
        ya, na, xa, ma = (a[mask] for a in arrays)
        if na.sum() == 0 or ma.sum() == 0:
            raise InputError("a variant has no unit where the metric or the covariate is defined", field="variant")
        arms.append((*_linearised(ya, na, xa, ma), int(mask.sum())))
    skk = sum(float(k @ k) for *_, k, _ in arms)
    theta = sum(float(ell @ k) for *_, ell, k, _ in arms) / skk if skk > 0 else 0.0
    c_all = float(arrays[2].sum() / arrays[3].sum())
    est, var, raw = [], [], []
    for r, c, ell, k, size in arms:
        est.append(r - theta * (c - c_all))
        resid = ell - theta * k
        var.append(float(resid @ resid) / size ** 2)
        raw.append(float(ell @ ell) / size ** 2)
    z_level = float(special.ndtri(0.5 + confidence / 2))
    lift = est[1] - est[0]
    se = math.sqrt(var[0] + var[1])
    statistic = lift / se if se > 0 else (0.0 if lift == 0 else math.copysign(math.inf, lift))
    out = dict(estimate_control=est[0], estimate_treatment=est[1], lift=lift, lift_low=lift - z_level * se,
               lift_high=lift + z_level * se, statistic=statistic, p_value=float(2 * special.ndtr(-abs(statistic))),
               cuped_theta=theta, variance_reduction=1 - (var[0] + var[1]) / (raw[0] + raw[1])
               if raw[0] + raw[1] > 0 else 0.0)
    if est[0] != 0:
        relative = est[1] / est[0] - 1
        rel_se = math.sqrt(var[1] / est[0] ** 2 + est[1] ** 2 * var[0] / est[0] ** 4)
        out.update(relative_lift=relative, relative_low=relative - z_level * rel_se,
                   relative_high=relative + z_level * rel_se)
    else:
        out.update(relative_lift=math.nan, relative_low=math.nan, relative_high=math.nan)
    return out
