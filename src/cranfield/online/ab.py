r"""A/B tests between the variants of a click log, with the randomisation unit honoured.

The *randomisation unit* (``unit``: impression, session or user) is what was assigned to a
variant; every unit must lie in one variant. A metric is a ratio of sums (see
:mod:`cranfield.online.metrics`); per unit :math:`u` the sums :math:`Y_u, X_u` over its
impressions are the independent observations. Each comparison of a treatment :math:`T` with the
control :math:`C` reports the absolute lift :math:`\Delta = R_T - R_C` and the relative lift
:math:`\Delta_\% = R_T / R_C - 1`, each with an interval, and one test (``test``):

* ``"delta"`` (default): :math:`z = \Delta / \sqrt{V_T + V_C}` with the delta-method variance of
  each ratio, :math:`V = \sum_u (Y_u - R X_u)^2 / (\sum_u X_u)^2` (Deng, Knoblich & Lu 2018) —
  the variance of a metric per impression or per query when users are randomised, which the naive
  formula underestimates. Equal to the cluster-robust (uncorrected) variance of the treatment
  coefficient of a weighted regression (statsmodels ``WLS.fit(cov_type="cluster")``). Relative
  lift variance: :math:`V_T / R_C^2 + R_T^2 V_C / R_C^4` (delta method).
* ``"proportion"``: the two-proportion z test with the pooled proportion (statsmodels
  ``proportions_ztest``), successes :math:`\sum y` out of :math:`\sum x` trials; only when the
  trials are the randomisation units (``unit="impression"``, :math:`0 \le y_i \le x_i` whole);
  the lift's interval is the unpooled Wald interval.
* ``"welch"``: Welch's t test on the per-unit values :math:`m_u = Y_u / X_u` (scipy
  ``ttest_ind(equal_var=False)``; estimand: the mean over units), with its interval.
* ``"mannwhitney"``: the Mann–Whitney U test on :math:`m_u` (scipy ``mannwhitneyu``, two-sided);
  the lift's interval is the delta method's (a rank test has none for a difference of means).
* ``"bootstrap"``: units resampled with replacement within each variant (seeded,
  ``n_resamples``), the percentile interval of :math:`\Delta^*` and the two-sided p-value
  :math:`\min(1, 2\min(\#\{\Delta^* \le 0\}, \#\{\Delta^* \ge 0\}) / B)`.

CUPED (Deng, Xu, Kohavi & Walker 2013): with a pre-period ``covariate`` :math:`c_u` per unit,
:math:`\tilde m_u = m_u - \theta (c_u - \bar c)`, :math:`\theta = \mathrm{cov}(m, c) /
\mathrm{var}(c)` over the units of both variants, then Welch's test on :math:`\tilde m`; the
variance shrinks by the factor :math:`1 - \rho^2`.

The sample-ratio mismatch check comes first (Fabijan et al. 2019): Pearson's χ² of the number of
units per variant against the planned split (scipy ``chisquare``); a p-value below ``srm_alpha``
means the assignment is broken and the comparisons should not be trusted. Several treatments are
each compared with the control; the p-values of all comparisons of one call form one family,
adjusted with ``correction`` (:func:`cranfield.stats.adjust_pvalues`).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np

from .._exact import unit_scale
from .._params import check_choice, check_interval, usage_error
from ..errors import InputError, UsageError
from ..stats._resample import as_generator, bootstrap_counts, check_count
from ..stats.corrections import CORRECTIONS, adjust_pvalues
from .cuped import _check_alpha, ratio_cuped  # noqa: F401  (_check_alpha: used by aa, quantiles, sequential)
from .logs import ClickLog
from .metrics import DEFAULT_METRICS, ImpressionMetrics, impression_metrics, parse_metric

__all__ = ["ABResult", "ABTest", "SRMResult", "ab_test", "sample_ratio_mismatch", "cuped_adjust", "TESTS"]

TESTS = ("delta", "proportion", "welch", "mannwhitney", "bootstrap")
MAX_BOOTSTRAP_CELLS = 2 * 10**8  # units x resamples (the resampled sums are one matrix product per chunk)


@dataclass(frozen=True)
class SRMResult:
    """Sample-ratio mismatch: units per variant against the planned shares, Pearson's χ²."""

    variants: list
    observed: list
    expected: list
    statistic: float
    df: int
    p_value: float
    alpha: float
    unit: str
    test: str = "Pearson chi-square goodness of fit"

    @property
    def mismatch(self) -> bool:
        return self.p_value < self.alpha


@dataclass(frozen=True)
class ABTest:
    """One comparison of a treatment with the control on one metric (self-describing)."""

    metric: str
    control: str
    treatment: str
    test: str
    unit: str
    estimate_control: float
    estimate_treatment: float
    n_control: int
    n_treatment: int
    lift: float
    lift_low: float
    lift_high: float
    relative_lift: float
    relative_low: float
    relative_high: float
    statistic: float
    df: float | None
    p_value: float
    p_adjusted: float
    alpha: float
    confidence: float
    ci_method: str
    correction: str
    seed: int | None = None
    n_resamples: int | None = None
    cuped_theta: float | None = None
    variance_reduction: float | None = None

    @property
    def significant(self) -> bool:
        return self.p_adjusted <= self.alpha


@dataclass(frozen=True)
class ABResult:
    """The sample-ratio check and every comparison, with the settings that produced them."""

    srm: SRMResult
    tests: list
    settings: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        srm = asdict(self.srm)
        srm["mismatch"] = self.srm.mismatch
        return {"settings": dict(self.settings), "srm": srm,
                "tests": [{**asdict(t), "significant": t.significant} for t in self.tests]}


# ----------------------------------------------------------------------------------- helpers
def _units(metrics: ImpressionMetrics, unit: str):
    """``(unit codes per impression, variant per unit, units present)``; a unit in two variants
    is an error."""
    codes, ids = metrics.unit(unit)
    variant = metrics.codes["variant"]
    n_units = len(ids)
    first = np.full(n_units, -1, dtype=np.int64)
    first[codes[::-1]] = variant[::-1]
    bad = variant != first[codes]
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        names = metrics.ids["variant"]
        raise InputError(f"{unit} {ids[codes[i]]!r} is in variants {names[first[codes[i]]]!r} and {names[variant[i]]!r}; "
                         f"with unit={unit!r} each {unit} must be randomised into one variant (or analyse by a smaller "
                         f"unit)", source=metrics.settings.get("source"), field="variant")
    return codes, first, first >= 0


def sample_ratio_mismatch(metrics, *, unit: str = "impression", expected_split=None,
                          alpha: float = 0.001) -> SRMResult:
    r"""Pearson's χ² of the units per variant against ``expected_split`` (variant → share;
    default equal shares): :math:`\chi^2 = \sum_v (o_v - e_v)^2 / e_v`, :math:`e_v = N s_v`,
    :math:`k - 1` degrees of freedom (Fabijan et al. 2019). ``metrics``: ImpressionMetrics or a
    ClickLog."""
    from scipy import special

    metrics = _as_metrics(metrics, None)
    alpha = _check_alpha(alpha, "srm_alpha")
    _, unit_variant, present = _units(metrics, unit)
    names = [str(v) for v in metrics.ids["variant"]]
    observed = np.bincount(unit_variant[present], minlength=len(names)).astype(np.float64)
    if expected_split is None:
        shares = np.ones(len(names))
    else:
        if not isinstance(expected_split, dict) or not expected_split:
            raise UsageError(f"expected_split: expected a dict variant -> share, found {expected_split!r:.80}")
        split = {str(k): v for k, v in expected_split.items()}
        missing = [v for v in split if v not in names]
        if missing:
            raise InputError(f"variant {missing[0]!r} of the planned split has no {unit}; the log has "
                             f"{', '.join(names)}", field="variant")
        extra = [v for v in names if v not in split]
        if extra:
            raise InputError(f"variant {extra[0]!r} is not in the planned split ({', '.join(split)})", field="variant")
        shares = np.array([_check_share(split[v], v) for v in names])
    if len(names) < 2:
        raise UsageError(f"a sample-ratio check needs at least two variants; the log has {', '.join(names)}")
    shares = unit_scale(shares)[0]  # shares of 1e±300: their sum neither overflows nor underflows
    expected = observed.sum() * shares / shares.sum()
    terms = (observed - expected) ** 2 / expected
    statistic = float(terms.sum())
    df = len(names) - 1
    return SRMResult(names, observed.astype(int).tolist(), expected.tolist(), statistic, df,
                     float(special.chdtrc(df, statistic)), alpha, unit)


def _check_share(value, variant) -> float:
    return check_interval(value, f"expected_split[{variant!r}]", low=0, closed="neither")


def cuped_adjust(values, covariate) -> tuple[np.ndarray, float]:
    r"""CUPED (Deng et al. 2013): ``(values - θ (covariate - mean(covariate)), θ)`` with
    :math:`\theta = \mathrm{cov}(y, c) / \mathrm{var}(c)` (0 when the covariate is constant)."""
    y = np.asarray(values, dtype=np.float64)
    c = np.asarray(covariate, dtype=np.float64)
    if y.ndim != 1 or c.shape != y.shape or y.size < 2:
        raise InputError(f"expected two 1-D arrays of the same length >= 2, found shapes {y.shape} and {c.shape}",
                         field="covariate")
    if not (np.all(np.isfinite(y)) and np.all(np.isfinite(c))):
        raise InputError("expected finite values and covariates, found NaN or infinity", field="covariate")
    dc = c - c.mean()
    var = float(dc @ dc)
    theta = float((y - y.mean()) @ dc / var) if var > 0 else 0.0
    return y - theta * dc, theta


def _as_metrics(data, metric_names) -> ImpressionMetrics:
    if isinstance(data, ImpressionMetrics):
        return data
    if isinstance(data, ClickLog):
        names = metric_names or list(DEFAULT_METRICS)
        return impression_metrics(data, metrics=names)
    raise UsageError(f"expected a ClickLog or ImpressionMetrics, found {type(data).__name__}")


def _metric_data(data, metrics) -> tuple[ImpressionMetrics, list]:
    """``data`` as ImpressionMetrics and the metric names asked for (default: all computed)."""
    if metrics is not None and (isinstance(metrics, str) or not hasattr(metrics, "__iter__")):
        raise UsageError(f"metrics: expected a list of metric names, found {metrics!r:.60}")
    names = None if metrics is None else list(dict.fromkeys(metrics))
    for name in names or ():
        parse_metric(name)
    data = _as_metrics(data, names)
    names = names or list(data.values)
    missing = [n for n in names if n not in data.values]
    if missing:
        raise UsageError(f"metric {missing[0]!r} was not computed; computed: {', '.join(data.values)}")
    return data, names


def _covariate_per_unit(covariate, ids: np.ndarray, unit: str) -> np.ndarray:
    """The covariate as a float array aligned with the unit ids; a unit without one is an error."""
    if hasattr(covariate, "to_dict") and not isinstance(covariate, dict):
        covariate = covariate.to_dict()
    if not isinstance(covariate, dict):
        raise UsageError(f"covariate: expected a dict {unit} id -> pre-period value, found {type(covariate).__name__}")
    lookup = {str(k): v for k, v in covariate.items()}
    out = np.empty(len(ids))
    for i, name in enumerate(ids.tolist()):  # one dict lookup per unit: a hash join
        value = lookup.get(str(name))
        if value is None or isinstance(value, (bool, str)) or not isinstance(value, (int, float, np.number)) \
                or not math.isfinite(float(value)):
            raise InputError(f"{unit} {name!r} has no finite pre-period covariate (found {value!r}); CUPED needs one "
                             f"for every {unit}", field="covariate")
        out[i] = float(value)
    return out


# ------------------------------------------------------------------------------------- tests
def _delta(y, x, ratio):
    sx = x.sum()
    resid = y - ratio * x
    return float(resid @ resid / (sx * sx))


def _compare(name, y, x, variant_of, c, t, test, options, cuped_values):
    from scipy import special, stats

    confidence = options["confidence"]
    z = special.ndtri(0.5 + confidence / 2)
    in_c, in_t = variant_of == c, variant_of == t
    yc, xc, yt, xt = y[in_c], x[in_c], y[in_t], x[in_t]
    if xc.sum() == 0 or xt.sum() == 0:
        raise InputError(f"metric {name}: a variant has no impression where it is defined", field="variant")
    rc, rt = float(yc.sum() / xc.sum()), float(yt.sum() / xt.sum())
    vc, vt = _delta(yc, xc, rc), _delta(yt, xt, rt)
    lift = rt - rc
    se = math.sqrt(vc + vt)
    extra: dict = {}
    ci_method = "delta"
    df = None
    mc = yc[xc > 0] / xc[xc > 0]
    mt = yt[xt > 0] / xt[xt > 0]
    if cuped_values is not None:
        adjusted, theta = cuped_values
        mc, mt = adjusted[in_c & (x > 0)], adjusted[in_t & (x > 0)]
        raw = np.concatenate([y[in_c & (x > 0)] / x[in_c & (x > 0)], y[in_t & (x > 0)] / x[in_t & (x > 0)]])
        extra = {"cuped_theta": theta,
                 "variance_reduction": float(1 - np.var(np.concatenate([mc, mt])) / np.var(raw)) if np.var(raw) > 0
                 else 0.0}
    if test == "delta":
        statistic = lift / se if se > 0 else (0.0 if lift == 0 else math.copysign(math.inf, lift))
        p = float(2 * special.ndtr(-abs(statistic)))
        low, high = lift - z * se, lift + z * se
    elif test == "proportion":
        if options["unit"] != "impression" or np.any(y < 0) or np.any(y > x) or np.any(y != np.round(y)):
            raise UsageError(f"test='proportion' needs successes out of independent trials: metric {name} with "
                             f"unit={options['unit']!r} is not one (use unit='impression' with a 0/1 or count metric, "
                             f"or test='delta')")
        cc, nc, ct, nt = yc.sum(), xc.sum(), yt.sum(), xt.sum()
        pooled = (ct + cc) / (nt + nc)
        pooled_se = math.sqrt(pooled * (1 - pooled) * (1 / nt + 1 / nc))
        statistic = (ct / nt - cc / nc) / pooled_se if pooled_se > 0 else 0.0
        p = float(stats.norm.sf(abs(statistic)) * 2)
        wald = math.sqrt(rt * (1 - rt) / nt + rc * (1 - rc) / nc)
        low, high = lift - z * wald, lift + z * wald
        ci_method = "wald (unpooled)"
    elif test in ("welch", "mannwhitney") or cuped_values is not None:
        if len(mc) < 2 or len(mt) < 2:
            raise InputError(f"metric {name}: {test} needs at least two units per variant", field="variant")
        welch = stats.ttest_ind(mt, mc, equal_var=False)
        if test == "mannwhitney":
            result = stats.mannwhitneyu(mt, mc, alternative="two-sided")
            statistic, p = float(result.statistic), float(result.pvalue)
            low, high = lift - z * se, lift + z * se
        else:
            statistic, p, df = float(welch.statistic), float(welch.pvalue), float(welch.df)
            interval = welch.confidence_interval(confidence)
            lift = float(mt.mean() - mc.mean())
            rc, rt = float(mc.mean()), float(mt.mean())
            low, high = float(interval.low), float(interval.high)
            se = float(math.sqrt(mt.var(ddof=1) / len(mt) + mc.var(ddof=1) / len(mc)))
            vc, vt = mc.var(ddof=1) / len(mc), mt.var(ddof=1) / len(mt)
            ci_method = "welch t"
    else:  # bootstrap
        low, high, p = _bootstrap(yc, xc, yt, xt, lift, options)
        statistic = lift
        ci_method = "bootstrap percentile"
    if rc != 0:
        relative = rt / rc - 1
        rel_se = math.sqrt(vt / rc ** 2 + rt ** 2 * vc / rc ** 4)
        rel_low, rel_high = relative - z * rel_se, relative + z * rel_se
    else:
        relative = rel_low = rel_high = math.nan  # documented: no relative lift over a zero control
    return dict(metric=name, estimate_control=rc, estimate_treatment=rt, n_control=int(len(yc)), n_treatment=int(len(yt)),
                lift=float(lift), lift_low=float(low), lift_high=float(high), relative_lift=float(relative),
                relative_low=float(rel_low), relative_high=float(rel_high), statistic=float(statistic), df=df,
                p_value=float(min(1.0, p)), ci_method=ci_method, **extra)


def _bootstrap(yc, xc, yt, xt, lift, options):
    b = options["n_resamples"]
    if (len(yc) + len(yt)) * b > MAX_BOOTSTRAP_CELLS:
        raise UsageError(f"n_resamples: {len(yc) + len(yt):,} units x {b:,} resamples is over the limit of "
                         f"{MAX_BOOTSTRAP_CELLS:,}; use fewer resamples or test='delta'")
    rng = as_generator(options["random_state"])
    draws = []
    for part_c, part_t in zip(bootstrap_counts(len(yc), b, rng), bootstrap_counts(len(yt), b, rng)):
        with np.errstate(invalid="ignore", divide="ignore"):
            draws.append((part_t @ yt) / (part_t @ xt) - (part_c @ yc) / (part_c @ xc))
    deltas = np.concatenate(draws)
    deltas = deltas[np.isfinite(deltas)]  # a resample whose denominator is 0 has no ratio: dropped
    if deltas.size == 0:
        raise InputError("every bootstrap resample has a zero denominator", field="variant")
    level = 1 - options["confidence"]
    low, high = np.quantile(deltas, [level / 2, 1 - level / 2])
    # two-sided Monte Carlo p with the add-one rule (Davison & Hinkley 1997, eq. 4.11): never 0, so
    # that a few resamples cannot make a difference "significant"
    tail = min(np.count_nonzero(deltas <= 0), np.count_nonzero(deltas >= 0))
    p = min(1.0, 2 * (tail + 1) / (deltas.size + 1))
    return float(low), float(high), float(p)


def ab_test(data, *, metrics=None, unit: str = "impression", control=None, test: str = "delta",
            alpha: float = 0.05, confidence: float | None = None, correction: str = "holm", expected_split=None,
            srm_alpha: float = 0.001, covariate=None, n_resamples: int = 2000, random_state=0,
            cuped: str = "welch") -> ABResult:
    """Compare every variant with the ``control`` (default: the first variant id) on each metric.

    ``data``: a :class:`~cranfield.online.ClickLog` or :class:`~cranfield.online.ImpressionMetrics`;
    ``metrics``: names (default: every metric computed); ``unit``: the randomisation unit;
    ``test``: one of :data:`TESTS` (module docstring); ``covariate``: a dict unit id →
    pre-period value for CUPED: ``cuped="welch"`` adjusts the per-unit values and tests their mean
    with Welch's t, ``cuped="delta"`` adjusts the ratio metric itself by the delta method
    (:func:`cranfield.online.cuped.ratio_cuped`, z test); ``correction``: none, bonferroni, holm or bh
    over all comparisons of the call. The sample-ratio check is in ``result.srm``.
    """
    check_choice(test, "test", TESTS)
    check_choice(correction, "correction", CORRECTIONS)
    alpha = _check_alpha(alpha, "alpha")
    confidence = 1 - alpha if confidence is None else _check_alpha(confidence, "confidence")
    data, names = _metric_data(data, metrics)
    if test == "bootstrap":
        n_resamples = check_count(n_resamples, "n_resamples", 2)
        as_generator(random_state)
    if cuped not in ("welch", "delta"):
        raise UsageError(f"cuped: expected welch (per-unit values) or delta (the ratio metric), found {cuped!r:.40}")
    if covariate is not None and test not in ("delta", "welch"):
        raise UsageError("CUPED adjusts per-unit values and tests them with Welch's t: use test='welch' "
                         "(or 'delta', which then means welch)")
    srm = sample_ratio_mismatch(data, unit=unit, expected_split=expected_split, alpha=srm_alpha)
    codes, unit_variant, present = _units(data, unit)
    variant_names = [str(v) for v in data.ids["variant"]]
    control_code = 0 if control is None else _variant_code(control, variant_names)
    options = {"alpha": alpha, "confidence": confidence, "unit": unit, "n_resamples": n_resamples,
               "random_state": random_state}
    _, unit_ids = data.unit(unit)
    cov = None if covariate is None else _covariate_per_unit(covariate, unit_ids[present], unit)
    used = cuped if covariate is not None else test
    raw = []
    for name in names:
        num, den = data.values[name]
        n_all = len(unit_ids)
        y = np.bincount(codes, weights=num, minlength=n_all)[present]
        x = np.bincount(codes, weights=den, minlength=n_all)[present]
        variant_of = unit_variant[present]
        cuped_values = None
        if cov is not None and cuped == "delta":
            raw += _ratio_cuped_rows(name, y, x, cov, variant_of, control_code, variant_names, options)
            continue
        if cov is not None:
            defined = x > 0
            values = np.zeros(len(y))
            values[defined] = y[defined] / x[defined]
            adjusted = np.zeros(len(y))
            adjusted[defined], theta = cuped_adjust(values[defined], cov[defined])
            cuped_values = (adjusted, theta)
        for t in range(len(variant_names)):
            if t != control_code:
                raw.append(_compare(name, y, x, variant_of, control_code, t, used, options, cuped_values)
                           | {"treatment": variant_names[t]})
    adjusted_p = adjust_pvalues([r["p_value"] for r in raw], method=correction) if raw else []
    seed = random_state if used == "bootstrap" and isinstance(random_state, (int, np.integer)) else None
    tests = [ABTest(control=variant_names[control_code], test=used, unit=unit, p_adjusted=float(q), alpha=alpha,
                    confidence=confidence, correction=correction, seed=None if seed is None else int(seed),
                    n_resamples=n_resamples if used == "bootstrap" else None, **r)
             for r, q in zip(raw, adjusted_p)]
    settings = {"unit": unit, "test": used, "control": variant_names[control_code], "alpha": alpha,
                "confidence": confidence, "correction": correction, "srm_alpha": srm.alpha,
                "expected_split": None if expected_split is None else {str(k): v for k, v in expected_split.items()},
                "cuped": covariate is not None, "cuped_method": cuped if covariate is not None else None,
                **data.settings}
    if used == "bootstrap":
        settings.update(n_resamples=n_resamples, seed=seed)
    return ABResult(srm, tests, settings)


def _ratio_cuped_rows(name, y, x, cov, variant_of, c, variant_names, options) -> list:
    rows = []
    for t in range(len(variant_names)):
        if t != c:
            keep = (variant_of == c) | (variant_of == t)
            result = ratio_cuped(y[keep], x[keep], cov[keep], np.ones(int(keep.sum())), variant_of[keep] == t,
                                 confidence=options["confidence"])
            rows.append(dict(metric=name, treatment=variant_names[t], n_control=int(np.sum(variant_of == c)),
                             n_treatment=int(np.sum(variant_of == t)), df=None, ci_method="delta (CUPED, ratio)",
                             **result))
    return rows


def _variant_code(control, names: list) -> int:
    if not isinstance(control, (str, int)) or isinstance(control, bool) or str(control) not in names:
        raise usage_error("control", f"one of the variants {', '.join(names)}", control)
    return names.index(str(control))
