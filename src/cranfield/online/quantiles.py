r"""Quantile metrics of an A/B test: the P50, P90, … of a metric per randomisation unit in each
variant, with confidence intervals, and the difference of quantiles between variants.

Per unit :math:`u` the metric's value is :math:`m_u = Y_u / X_u` (the sums over its impressions;
units where the metric is undefined, :math:`X_u = 0`, are left out). With ``unit="impression"``
that is the per-impression metric (e.g. the time to first click of each impression); with
``unit="user"`` the per-user value (e.g. each user's CTR), the units being what was randomised so
that the values are independent.

* Each variant's quantile and interval: :func:`cranfield.stats.quantile_ci` (the
  distribution-free order-statistic interval by default, the same as ``scipy.stats.quantile_test``;
  or a bootstrap).
* The difference :math:`Q_T(q) - Q_C(q)`: units resampled with replacement within each variant
  (seeded, ``n_resamples``), numpy's quantile (linear interpolation) of every resample at once
  (a matrix of resamples, a chunk of rows at a time); the percentile interval and the two-sided
  p-value :math:`\min(1, 2\min(\#\{\Delta^* \le 0\}, \#\{\Delta^* \ge 0\}) / B)`, as the
  ``bootstrap`` test of :mod:`cranfield.online.ab`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from ..errors import InputError, UsageError
from ..stats._resample import as_generator, check_count, chunk_rows
from ..stats.intervals import quantile_ci
from ._clicklog import as_array
from .ab import _check_alpha, _metric_data, _units, _variant_code

__all__ = ["QuantileTest", "QuantileResult", "quantile_ab_test", "bootstrap_quantile_difference"]


@dataclass(frozen=True)
class QuantileTest:
    metric: str
    q: float
    control: str
    treatment: str
    unit: str
    n_control: int
    n_treatment: int
    control_estimate: float
    control_low: float
    control_high: float
    treatment_estimate: float
    treatment_low: float
    treatment_high: float
    difference: float
    difference_low: float
    difference_high: float
    p_value: float
    confidence: float
    ci_method: str


@dataclass(frozen=True)
class QuantileResult:
    tests: list
    settings: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"settings": dict(self.settings), "tests": [asdict(t) for t in self.tests]}


def bootstrap_quantile_difference(treatment, control, q: float, *, confidence: float = 0.95,
                                  n_resamples: int = 2000, random_state=0) -> tuple[float, float, float, float]:
    """``(difference, low, high, p_value)`` of ``quantile(treatment, q) - quantile(control, q)``
    by the bootstrap of each sample (module docstring), vectorised over resamples."""
    t = as_array(treatment, "treatment", np.float64)
    c = as_array(control, "control", np.float64)
    q, confidence = _check_alpha(q, "q"), _check_alpha(confidence, "confidence")
    if not (np.all(np.isfinite(t)) and np.all(np.isfinite(c))):
        raise InputError("expected finite values, found NaN or infinity", field="values")
    if t.ndim != 1 or c.ndim != 1 or t.size < 2 or c.size < 2:
        raise InputError("a quantile difference needs at least two values in each variant", field="variant")
    b = check_count(n_resamples, "n_resamples", 1)
    rng = as_generator(random_state)
    rows = max(1, min(chunk_rows(t.size), chunk_rows(c.size)))
    draws = []
    for start in range(0, b, rows):
        k = min(rows, b - start)
        resampled_c = c[rng.integers(0, c.size, (k, c.size))]
        resampled_t = t[rng.integers(0, t.size, (k, t.size))]
        draws.append(np.quantile(resampled_t, q, axis=1) - np.quantile(resampled_c, q, axis=1))
    deltas = np.concatenate(draws)
    level = 1 - confidence
    low, high = np.quantile(deltas, [level / 2, 1 - level / 2])
    p = min(1.0, 2 * min(np.count_nonzero(deltas <= 0), np.count_nonzero(deltas >= 0)) / deltas.size)
    return float(np.quantile(t, q) - np.quantile(c, q)), float(low), float(high), float(p)


def quantile_ab_test(data, *, quantiles=(0.5, 0.9), metrics=None, unit: str = "impression", control=None,
                     confidence: float = 0.95, method: str = "binomial", n_resamples: int = 2000,
                     random_state=0) -> QuantileResult:
    """Quantiles of each metric per ``unit`` in every variant, with intervals (``method`` of
    :func:`cranfield.stats.quantile_ci`), and each treatment's difference from the ``control``
    by the bootstrap over units (module docstring)."""
    confidence = _check_alpha(confidence, "confidence")
    if isinstance(quantiles, (int, float)) or not hasattr(quantiles, "__iter__") or not list(quantiles):
        raise UsageError(f"quantiles: expected a list of numbers in (0, 1), found {quantiles!r:.60}")
    qs = [_check_alpha(q, "quantiles") for q in quantiles]
    data, names = _metric_data(data, metrics)
    codes, unit_variant, present = _units(data, unit)
    variant_names = [str(v) for v in data.ids["variant"]]
    c = 0 if control is None else _variant_code(control, variant_names)
    n_all = len(unit_variant)
    tests = []
    for name in names:
        num, den = data.values[name]
        y = np.bincount(codes, weights=num, minlength=n_all)
        x = np.bincount(codes, weights=den, minlength=n_all)
        defined = present & (x > 0)
        values = np.divide(y, x, out=np.zeros(n_all), where=defined)
        per_variant = [values[defined & (unit_variant == v)] for v in range(len(variant_names))]
        for q in qs:
            ci_c = quantile_ci(per_variant[c], q, confidence, method=method, n_resamples=n_resamples,
                               random_state=random_state)
            for t in range(len(variant_names)):
                if t == c:
                    continue
                ci_t = quantile_ci(per_variant[t], q, confidence, method=method, n_resamples=n_resamples,
                                   random_state=random_state)
                diff = bootstrap_quantile_difference(per_variant[t], per_variant[c], q, confidence=confidence,
                                                     n_resamples=n_resamples, random_state=random_state)
                tests.append(QuantileTest(name, q, variant_names[c], variant_names[t], unit, int(per_variant[c].size),
                                          int(per_variant[t].size), *map(float, ci_c), *map(float, ci_t), *diff,
                                          confidence, ci_c.method))
    settings = {"unit": unit, "control": variant_names[c], "quantiles": qs, "confidence": confidence,
                "method": method, "difference": "bootstrap percentile over units", "n_resamples": n_resamples,
                "seed": random_state if isinstance(random_state, (int, np.integer)) else None, **data.settings}
    return QuantileResult(tests, settings)
