"""Power and design: how many queries an experiment needs, and what it can detect.

* :func:`paired_power` — power of the two-sided (or one-sided) paired t test for a true mean
  difference, given n queries and the SD of per-query differences;
* :func:`minimum_detectable_difference` — the smallest true difference that n queries detect
  with a given power;
* :func:`pilot_variance` — Sakai's variance estimates from a pilot topic-by-run matrix;
* :func:`topic_set_size` — topic set size design (Sakai 2014, 2016): the number of topics a
  test collection needs so that a paired t test (two systems) or a one-way ANOVA (m systems)
  detects a minimum difference with the given power;
* :func:`t_test_power`, :func:`z_test_power`, :func:`solve_power` — the power kernels (noncentral t,
  normal) and the root finder that every power computation of cranfield uses, here and for the
  two-sample A/B designs of :mod:`cranfield.online.power`.

All exact: noncentral t and F distributions (scipy), no normal approximation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._params import Interval, check_choice, check_fraction
from ..errors import InputError, UsageError

__all__ = ["ALTERNATIVES", "paired_power", "minimum_detectable_difference", "pilot_matrix", "pilot_variance",
           "TopicSetSize", "topic_set_size", "anova_power", "t_test_power", "z_test_power", "solve_power"]

ALTERNATIVES = ("two-sided", "larger", "smaller")
MAX_TOPICS = 100_000


def _positive(value, name: str, *, integer: bool = False, minimum: float = 0.0) -> float:
    return Interval(minimum, None, "neither", integer)(value, name)


def _level(value, name: str) -> float:
    return check_fraction(value, name)


def _alternative(value) -> str:
    return check_choice(value, "alternative", ALTERNATIVES)


def t_test_power(shift: float, df: float, alpha: float, alternative: str) -> float:
    r"""Power of a t test at level ``alpha`` whose statistic follows the noncentral t with ``df``
    degrees of freedom and noncentrality ``shift`` under the alternative: :math:`P(T' > t_{1-a}) +
    P(T' < t_a)` with :math:`a = \alpha/2` two-sided (one tail at level :math:`\alpha` for
    ``"larger"`` / ``"smaller"``) — the formula of statsmodels' ``ttest_power``, the kernel of the
    one-sample (paired) and the two-sample power of :mod:`cranfield.online.power`. Where scipy's
    noncentral t cdf is NaN, deep in a tail (a probability below double precision), the tail is 0.
    """
    from scipy import special, stats

    level = alpha / 2.0 if alternative == "two-sided" else alpha

    def cdf(x):  # scipy's noncentral t returns NaN deep in a tail (probability ~1e-300): 0 or 1 there
        value = special.nctdtr(df, shift, x)
        return value if np.isfinite(value) else (0.0 if x < shift else 1.0)

    result = 0.0
    if alternative in ("two-sided", "larger"):
        result = 1 - cdf(stats.t.isf(level, df))
    if alternative in ("two-sided", "smaller"):
        result += cdf(stats.t.ppf(level, df))
    return float(result)


def z_test_power(shift: float, alpha: float, alternative: str) -> float:
    r"""Power of a z test at level ``alpha`` whose statistic is normal with mean ``shift`` and unit
    variance under the alternative (statsmodels' ``normal_power``; tails as :func:`t_test_power`)."""
    from scipy import stats

    level = alpha / 2.0 if alternative == "two-sided" else alpha
    result = 0.0
    if alternative in ("two-sided", "larger"):
        result = stats.norm.sf(stats.norm.isf(level) - shift)
    if alternative in ("two-sided", "smaller"):
        result += stats.norm.cdf(stats.norm.ppf(level) - shift)
    return float(result)


def solve_power(function, low: float, high: float, name: str, *, xtol: float, rtol: float) -> float:
    """The root of ``function`` (a power minus its target, increasing) above ``low``: ``high``
    doubled until the sign changes (a :class:`UsageError` naming ``name`` if it never does),
    then Brent's method to ``xtol`` / ``rtol``."""
    from scipy import optimize

    f_low, f_high = function(low), function(high)
    expand = 0
    while f_low * f_high > 0 and expand < 200:
        high *= 2.0
        f_high = function(high)
        expand += 1
    if f_low * f_high > 0:
        raise UsageError(f"no {name} reaches the requested power")
    return float(optimize.brentq(function, low, high, xtol=xtol, rtol=rtol, maxiter=500))


def _t_power(effect: float, n: int, alpha: float, alternative: str) -> float:
    """Power of the one-sample (paired) t test over ``n`` queries for a standardised ``effect``."""
    return min(1.0, t_test_power(effect * np.sqrt(n), n - 1, alpha, alternative))


def paired_power(*, n: int, diff: float, sd: float, alpha: float = 0.05, alternative: str = "two-sided") -> float:
    r"""Power of the paired t test: the probability that it rejects at level ``alpha`` when the
    true mean difference is ``diff`` and the per-query differences have SD ``sd``.

    With :math:`\lambda = \sqrt n\,\text{diff}/\text{sd}` and :math:`t' \sim t'(n-1, \lambda)`
    (noncentral t): two-sided power :math:`P(t' > t_c) + P(t' < -t_c)`, :math:`t_c = t_{n-1,
    1-\alpha/2}` (Cohen 1988, ch. 2) — as ``statsmodels.stats.power.TTestPower().power``.

    >>> round(paired_power(n=50, diff=0.02, sd=0.08), 4)
    0.4104
    """
    n = _positive(n, "n", integer=True, minimum=1)
    if isinstance(diff, (bool, str)) or not isinstance(diff, (int, float, np.number)) or not np.isfinite(diff):
        raise UsageError(f"diff: expected a finite number, found {diff!r}")
    return _t_power(float(diff) / _positive(sd, "sd"), n, _level(alpha, "alpha"), _alternative(alternative))


def minimum_detectable_difference(*, n: int, sd: float, alpha: float = 0.05, power: float = 0.8,
                                  alternative: str = "two-sided") -> float:
    r"""The smallest true mean difference (in the measure's units; positive) that the paired t
    test over ``n`` queries detects with probability ``power``: the root of
    :func:`paired_power` = ``power`` in diff (Brent's method). As ``sd`` times
    ``statsmodels.stats.power.TTestPower().solve_power(nobs=n, alpha=alpha, power=power)``.

    >>> round(minimum_detectable_difference(n=50, sd=0.08), 4)
    0.0323
    """
    n = _positive(n, "n", integer=True, minimum=1)
    sd = _positive(sd, "sd")
    alpha, power = _level(alpha, "alpha"), _level(power, "power")
    alternative = _alternative(alternative)
    if alternative == "smaller":
        return minimum_detectable_difference(n=n, sd=sd, alpha=alpha, power=power, alternative="larger")
    floor = _t_power(0.0, n, alpha, alternative)
    if power <= floor:
        raise UsageError(f"power: expected more than {floor:g} (the power at no difference), found {power!r}")
    effect = solve_power(lambda e: _t_power(e, n, alpha, alternative) - power, 0.0, 1.0, "difference", xtol=1e-14,
                         rtol=4 * np.finfo(float).eps)
    return float(effect * sd)


def pilot_matrix(pilot, measure: str | None = None) -> np.ndarray:
    """A (systems, topics) matrix from a pilot: a 2-D array, ``{name: Results}`` or a list of
    :class:`~cranfield.Results` (``measure`` chosen; the topics every run has), or a
    :class:`~cranfield.Comparison` (``measure`` chosen)."""
    if hasattr(pilot, "values") and hasattr(pilot, "measures") and callable(pilot.values):  # a Comparison
        if measure is None:
            raise UsageError("measure: expected the measure of the pilot Comparison to use, found None")
        return pilot.values(measure)
    items = list(pilot.values()) if isinstance(pilot, dict) else pilot
    if isinstance(items, (list, tuple)) and items and all(hasattr(r, "per_query") for r in items):
        if measure is None:
            raise UsageError("measure: expected the measure of the pilot Results to use, found None")
        common = set(map(str, items[0].query_ids))
        for r in items[1:]:
            common &= set(map(str, r.query_ids))
        topics = sorted(common)
        rows = []
        for r in items:
            by_id = dict(zip(map(str, r.query_ids), np.asarray(r.per_query[measure], dtype=np.float64)))
            rows.append([by_id[t] for t in topics])
        return np.array(rows, dtype=np.float64).reshape(len(items), len(topics))
    try:
        matrix = np.asarray(pilot, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"expected a (systems, topics) matrix, Results or a Comparison, found {type(pilot).__name__}",
                         field="pilot") from None
    return matrix


def pilot_variance(pilot, *, measure: str | None = None, method: str = "one-way") -> float:
    r"""Within-system variance :math:`\hat\sigma^2` of a measure from a pilot topic-by-run matrix
    (m systems × n topics), as Sakai's topic set size design uses it:

    * ``"one-way"`` (Sakai 2016): the residual variance of the one-way ANOVA,
      :math:`V_E = \sum_i\sum_j (x_{ij} - \bar x_{i\cdot})^2 / (m(n-1))` (the pooled variance of
      each system's scores);
    * ``"two-way"``: the residual variance of the two-way ANOVA without replication (topics as
      blocks), :math:`\sum_{ij}(x_{ij} - \bar x_{i\cdot} - \bar x_{\cdot j} + \bar x)^2/((m-1)(n-1))`
      — smaller, since topic difficulty is removed.
    """
    x = pilot_matrix(pilot, measure)
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 2:
        raise InputError(f"expected a pilot of at least 2 systems and 2 topics, found shape {x.shape}", field="pilot")
    if not np.all(np.isfinite(x)):
        raise InputError("expected finite pilot values, found NaN or infinity", field="pilot")
    m, n = x.shape
    if method == "one-way":
        return float(((x - x.mean(axis=1, keepdims=True)) ** 2).sum() / (m * (n - 1)))
    if method == "two-way":
        residual = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()
        return float((residual ** 2).sum() / ((m - 1) * (n - 1)))
    raise UsageError(f"method: expected 'one-way' or 'two-way', found {method!r}")


def anova_power(*, n: int, n_systems: int, min_range: float, variance: float, alpha: float = 0.05) -> float:
    r"""Power of the one-way ANOVA F test over ``n_systems`` systems and ``n`` topics each, when
    the best and worst systems' true means differ by ``min_range`` and the others sit midway
    (the least favourable configuration; Sakai 2016): noncentrality
    :math:`\lambda = n\,\text{min\_range}^2 / (2\sigma^2)`, :math:`F' \sim F'(m-1, m(n-1), \lambda)`,
    power :math:`P(F' \ge F_{m-1, m(n-1), 1-\alpha})` (= statsmodels ``FTestAnovaPower`` with
    :math:`f^2 = \text{min\_range}^2/(2m\sigma^2)`)."""
    from scipy import stats

    n = _positive(n, "n", integer=True, minimum=1)
    m = _positive(n_systems, "n_systems", integer=True, minimum=1)
    lam = n * _positive(min_range, "min_range") ** 2 / (2 * _positive(variance, "variance"))
    alpha = _level(alpha, "alpha")
    d1, d2 = m - 1, m * (n - 1)
    return float(stats.ncf.sf(stats.f.ppf(1 - alpha, d1, d2), d1, d2, lam))


@dataclass(frozen=True)
class TopicSetSize:
    """The result of :func:`topic_set_size`: ``n_topics`` and the power it reaches, with the inputs."""

    n_topics: int
    power: float
    test: str
    min_diff: float
    variance: float
    variance_method: str
    alpha: float
    target_power: float
    n_systems: int


def topic_set_size(pilot=None, *, min_diff: float, test: str = "t", alpha: float = 0.05, power: float = 0.8,
                   measure: str | None = None, variance: float | None = None, variance_method: str = "one-way",
                   n_systems: int | None = None) -> TopicSetSize:
    r"""Topic set size design (Sakai 2014; 2016): the smallest number of topics n for which

    * ``test="t"``: the two-sided paired t test detects a true mean difference ``min_diff``
      between two systems with probability ``power`` (:func:`paired_power`), the variance of
      the per-topic differences taken as :math:`\hat\sigma_d^2 = 2\hat\sigma^2` (Sakai's
      conservative choice: no credit for the correlation between systems);
    * ``test="anova"``: the one-way ANOVA over ``n_systems`` systems (default: the pilot's)
      detects a range ``min_diff`` between the best and the worst (:func:`anova_power`).

    :math:`\hat\sigma^2` is ``variance`` if given, else :func:`pilot_variance` of ``pilot`` (a
    topic-by-run matrix, Results or a Comparison, with ``measure``) by ``variance_method``.
    n is found by doubling then bisection on the exact power (increasing in n).

    >>> topic_set_size(variance=0.03, min_diff=0.05).n_topics
    191
    """
    alpha, target = _level(alpha, "alpha"), _level(power, "power")
    min_diff = _positive(min_diff, "min_diff")
    if test not in ("t", "anova"):
        raise UsageError(f"test: expected 't' or 'anova', found {test!r}")
    if variance is None:
        if pilot is None:
            raise UsageError("expected a pilot (topic-by-run matrix, Results or Comparison) or a variance, found neither")
        sigma2 = pilot_variance(pilot, measure=measure, method=variance_method)
        if sigma2 <= 0:
            raise InputError("the pilot's variance is 0: every system scores the same on every topic", field="pilot")
        pilot_systems = pilot_matrix(pilot, measure).shape[0]
    else:
        sigma2, variance_method, pilot_systems = _positive(variance, "variance"), "given", None
    if test == "anova":
        m = n_systems if n_systems is not None else pilot_systems
        if m is None:
            raise UsageError("n_systems: expected the number of systems for the ANOVA design, found None")
        m = _positive(m, "n_systems", integer=True, minimum=1)
        power_at = lambda n: anova_power(n=n, n_systems=m, min_range=min_diff, variance=sigma2, alpha=alpha)  # noqa: E731
    else:
        m = 2
        sd = float(np.sqrt(2 * sigma2))
        power_at = lambda n: paired_power(n=n, diff=min_diff, sd=sd, alpha=alpha)  # noqa: E731
    low, high = 1, 2
    while power_at(high) < target:
        low, high = high, high * 2
        if high > MAX_TOPICS:
            raise UsageError(f"min_diff: more than {MAX_TOPICS:,} topics would be needed; choose a larger difference")
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if power_at(mid) < target else (low, mid)
    return TopicSetSize(high, power_at(high), test, min_diff, sigma2, variance_method, alpha, target, m)
