r"""Sequential A/B tests that may be looked at after every impression: the mixture sequential
probability ratio test (mSPRT) with always-valid p-values and confidence sequences.

Johari, Koomen, Pekelis & Walsh (2017, 2022), "Always valid inference: continuous monitoring of
A/B tests", *Operations Research* 70(3). After look :math:`n` (the first :math:`n` impressions
of the control and the treatment in time order) the lift of a ratio metric is
:math:`\Delta_n = R_T - R_C` with the delta-method variance :math:`V_n = V_T + V_C` of
:mod:`cranfield.online.ab` (per randomisation unit, the units seen so far). With a normal mixing
distribution :math:`\theta \sim N(0, \tau^2)` over the lift, the mixture likelihood ratio is

.. math::

    \Lambda_n = \sqrt{\frac{V_n}{V_n + \tau^2}}
                \exp\!\Big(\frac{\tau^2 \Delta_n^2}{2 V_n (V_n + \tau^2)}\Big),

the always-valid p-value is the running minimum :math:`p_n = \min(1, \min_{m \le n} 1/\Lambda_m)`
(the probability that it ever falls below :math:`\alpha` under no effect is at most
:math:`\alpha`, however often one looks), and the confidence sequence is the running
intersection of

.. math::

    \Delta_m \pm \sqrt{\frac{V_m (V_m + \tau^2)}{\tau^2}
                       \Big(\log\frac{V_m + \tau^2}{V_m} - 2 \log \alpha\Big)}.

Policies: a look where a variant has fewer than ``min_units`` units (default 30) or :math:`V_n = 0`
(within rounding: :math:`10^{-12}` of :math:`(\sum Y_u^2 + R^2 \sum X_u^2) / (\sum X_u)^2`) carries no
evidence (:math:`p = 1`, an unbounded interval): the mixture ratio takes the variance as known,
and a variance estimated from a handful of units is often far too small — with 2 units per arm,
A/A logs of 200 randomised users crossed α = 0.05 in 29 % of the experiments on CTR (1.5 % with
30 units). ``tau`` is in the metric's units (the prior
scale of the lift); by default :math:`\tau = 0.05 |R_C|` at the end of the experiment (a 5 %
relative lift; this plug-in looks at the data once: give ``tau`` for the strict guarantee).
Every look is computed at once from cumulative sums over the impressions in time order: the
per-unit sums :math:`\sum_u Y_u^2, \sum_u Y_u X_u, \sum_u X_u^2` grow by the change of one unit's
squares per impression.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np

from .._params import check_choice
from ..errors import InputError, UsageError
from ..stats.corrections import CORRECTIONS, adjust_pvalues
from ._clicklog import as_array
from .ab import _check_alpha, _metric_data, _units, _variant_code
from .logs import ClickLog
from .metrics import ImpressionMetrics

__all__ = ["SequentialTest", "SequentialResult", "sequential_ab_test", "msprt_looks", "impression_times"]


@dataclass(frozen=True)
class SequentialTest:
    """The mSPRT of one treatment against the control on one metric, at the last look."""

    metric: str
    control: str
    treatment: str
    unit: str
    tau: float
    looks: int
    lift: float
    variance: float
    p_value: float
    p_adjusted: float
    cs_low: float
    cs_high: float
    first_look: int | None
    first_impression: str | None
    alpha: float
    correction: str

    @property
    def significant(self) -> bool:
        return self.p_adjusted <= self.alpha


@dataclass(frozen=True)
class SequentialResult:
    tests: list
    settings: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"settings": dict(self.settings),
                "tests": [{**asdict(t), "significant": t.significant} for t in self.tests]}


def impression_times(log: ClickLog) -> np.ndarray | None:
    """When each impression was shown: the earliest timestamp of its rows (None without a
    timestamp column)."""
    if log.timestamp is None:
        return None
    if log.n_impressions == 0:
        return np.zeros(0)
    return np.minimum.reduceat(log.timestamp, log.impression_offsets[:-1])


def _arm_moments(y, x, unit_codes, in_arm):
    """Per look (one per impression in the given order), the cumulative sums over the arm's units:
    ``(S_Y, S_X, S_YY, S_XY, S_XX, n_units)`` where the squares are of the per-unit sums."""
    y = np.where(in_arm, y, 0.0)
    x = np.where(in_arm, x, 0.0)
    order = np.argsort(unit_codes, kind="stable")  # time order kept within a unit
    u = unit_codes[order]
    starts = np.r_[True, u[1:] != u[:-1]] if u.size else np.zeros(0, bool)
    first = np.maximum.accumulate(np.where(starts, np.arange(len(u)), 0))  # where each unit's run starts
    yu, xu = np.empty_like(y), np.empty_like(x)
    for source, target in ((y, yu), (x, xu)):
        c = np.cumsum(source[order])
        before = np.r_[0.0, c[:-1]]
        target[order] = c - before[first]  # the unit's running sum after this impression
    py, px = yu - y, xu - x  # ... and before it
    new_unit = np.zeros(len(y), bool)
    new_unit[order[starts]] = True
    return (np.cumsum(y), np.cumsum(x), np.cumsum(yu * yu - py * py), np.cumsum(yu * xu - py * px),
            np.cumsum(xu * xu - px * px), np.cumsum(new_unit & in_arm))


def _ratio_and_variance(moments):
    sy, sx, syy, sxy, sxx, n = moments
    with np.errstate(invalid="ignore", divide="ignore"):
        r = sy / sx
        v = (syy - 2 * r * sxy + r * r * sxx) / (sx * sx)
        scale = (syy + r * r * sxx) / (sx * sx)
    # the running sums cancel: a variance within rounding of 0 (e.g. no click yet anywhere) is 0
    return r, np.where(v > 1e-12 * scale, v, 0.0), n


def msprt_looks(lift, variance, *, tau: float, alpha: float = 0.05) -> dict:
    r"""Per look, the mixture likelihood ratio, the always-valid p-value (running minimum) and
    the confidence sequence (running intersection), from the lift estimates and their variances
    (arrays, one per look; a look with a non-positive or NaN variance carries no evidence).

    >>> out = msprt_looks([0.0, 0.5], [1.0, 0.01], tau=0.2, alpha=0.05)
    >>> [round(float(p), 4) for p in out["p_value"]]
    [1.0, 0.0001]
    """
    d = as_array(lift, "lift", np.float64)
    v = as_array(variance, "variance", np.float64)
    alpha = _check_alpha(alpha, "alpha")
    if d.ndim != 1 or v.shape != d.shape:
        raise UsageError(f"lift, variance: expected two 1-D arrays of the same length, found shapes {d.shape} and {v.shape}")
    if isinstance(tau, bool) or not isinstance(tau, (int, float, np.number)) or not math.isfinite(tau) or tau <= 0:
        raise UsageError(f"tau: expected a number > 0 (the prior scale of the lift), found {tau!r}")
    t2 = float(tau) ** 2
    ok = (v > 0) & np.isfinite(v) & np.isfinite(d)
    vs = np.where(ok, v, 1.0)
    ds = np.where(ok, d, 0.0)
    log_lr = np.where(ok, 0.5 * np.log(vs / (vs + t2)) + t2 * ds * ds / (2 * vs * (vs + t2)), -np.inf)
    p = np.minimum.accumulate(np.minimum(1.0, np.exp(-log_lr)))
    half = np.sqrt(vs * (vs + t2) / t2 * (np.log((vs + t2) / vs) - 2 * math.log(alpha)))
    low = np.maximum.accumulate(np.where(ok, ds - half, -np.inf))
    high = np.minimum.accumulate(np.where(ok, ds + half, np.inf))
    return {"log_lr": log_lr, "p_value": p, "cs_low": low, "cs_high": high}


def sequential_ab_test(data, *, metrics=None, unit: str = "impression", control=None, tau: float | None = None,
                       alpha: float = 0.05, correction: str = "holm", time=None,
                       min_units: int = 30) -> SequentialResult:
    """mSPRT of every variant against the ``control`` on each metric, looking after every
    impression in time order (module docstring).

    ``data``: a :class:`~cranfield.online.ClickLog` (time: when each impression was shown, from its
    timestamps; impression order without them) or :class:`~cranfield.online.ImpressionMetrics`
    (``time``: one value per impression; default the impressions' order). ``min_units``: looks
    before each variant has this many units carry no evidence. ``correction`` adjusts
    the final always-valid p-values of all comparisons (:func:`cranfield.stats.adjust_pvalues`).
    """
    check_choice(correction, "correction", CORRECTIONS)
    alpha = _check_alpha(alpha, "alpha")
    if isinstance(min_units, bool) or not isinstance(min_units, (int, np.integer)) or min_units < 2:
        raise UsageError(f"min_units: expected a whole number >= 2, found {min_units!r:.40}")
    if isinstance(data, ClickLog) and time is None:
        time = impression_times(data)
    data, names = _metric_data(data, metrics)
    order = _time_order(time, data)
    codes, _, _ = _units(data, unit)  # also checks that each unit lies in one variant
    variant = data.codes["variant"][order]
    unit_codes = codes[order]
    variant_names = [str(v) for v in data.ids["variant"]]
    c = 0 if control is None else _variant_code(control, variant_names)
    impression_ids = data.ids["impression"][order]
    raw = []
    for name in names:
        num, den = data.values[name]
        y, x = num[order].astype(np.float64), den[order].astype(np.float64)
        for t in range(len(variant_names)):
            if t != c:
                raw.append(_one(name, y, x, variant, unit_codes, c, t, tau, alpha, impression_ids, min_units)
                           | {"control": variant_names[c], "treatment": variant_names[t]})
    adjusted = adjust_pvalues([r["p_value"] for r in raw], method=correction) if raw else []
    tests = [SequentialTest(unit=unit, alpha=alpha, correction=correction, p_adjusted=float(q), **r)
             for r, q in zip(raw, adjusted)]
    settings = {"test": "mSPRT (normal mixture)", "unit": unit, "control": variant_names[c], "alpha": alpha,
                "tau": tau, "min_units": int(min_units), "correction": correction, "order": "time" if time is not None else "impression",
                **data.settings}
    return SequentialResult(tests, settings)


def _time_order(time, data: ImpressionMetrics) -> np.ndarray:
    n = data.n_impressions
    if time is None:
        return np.arange(n)
    t = np.asarray(time, dtype=np.float64)
    if t.shape != (n,) or not np.all(np.isfinite(t)):
        raise InputError(f"time: expected {n} finite values (one per impression), found shape {t.shape}",
                         field="timestamp")
    return np.argsort(t, kind="stable")


def _one(name, y, x, variant, unit_codes, c, t, tau, alpha, impression_ids, min_units) -> dict:
    keep = (variant == c) | (variant == t)
    y, x, variant, units, ids = y[keep], x[keep], variant[keep], unit_codes[keep], impression_ids[keep]
    rc, vc, nc = _ratio_and_variance(_arm_moments(y, x, units, variant == c))
    rt, vt, nt = _ratio_and_variance(_arm_moments(y, x, units, variant == t))
    if not len(y) or not np.isfinite(rc[-1]) or not np.isfinite(rt[-1]):
        raise InputError(f"metric {name}: a variant has no impression where it is defined", field="variant")
    if tau is None:
        tau_used = 0.05 * abs(float(rc[-1]))
        if tau_used == 0:
            raise UsageError(f"metric {name}: the control's value is 0, so the default tau (5% of it) is 0; give tau")
    else:
        tau_used = tau
    lift = rt - rc
    variance = np.where((nc >= min_units) & (nt >= min_units), vc + vt, np.nan)
    looks = msprt_looks(lift, variance, tau=tau_used, alpha=alpha)
    p = looks["p_value"]
    crossed = np.flatnonzero(p <= alpha)
    first = int(crossed[0]) if crossed.size else None
    return dict(metric=name, tau=float(tau_used), looks=len(y), lift=float(lift[-1]), variance=float(variance[-1]),
                p_value=float(p[-1]), cs_low=float(looks["cs_low"][-1]), cs_high=float(looks["cs_high"][-1]),
                first_look=None if first is None else first + 1,
                first_impression=None if first is None else str(ids[first]))
