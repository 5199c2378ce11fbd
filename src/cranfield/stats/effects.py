"""Effect sizes for paired comparisons: how large a difference is, not only whether it is.

Functions take per-query values of two systems in the same query order (``x``, ``y``), or a
(pairs, queries) matrix of differences for the batch forms (``*_rows``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._params import check_choice
from ..errors import InputError
from ._resample import as_generator, bootstrap_counts, check_count
from ._interval import Interval, check_confidence
from .intervals import mean_ci

__all__ = ["mean_difference", "cohens_dz", "cohens_dz_rows", "win_tie_loss", "win_tie_loss_rows",
           "EFFECT_SIZES", "EffectSize", "effect_size", "hedges_correction"]


def _paired(x, y) -> np.ndarray:
    a = np.asarray(x, dtype=np.float64)
    b = np.asarray(y, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape:
        raise InputError(f"expected two 1-D arrays of paired values of the same length, found shapes {a.shape} and {b.shape}", field="y")
    return a - b


def mean_difference(x, y, *, method: str = "auto", confidence: float = 0.95, n_resamples: int = 10_000,
                    random_state=0) -> Interval:
    r"""Mean of the per-query differences :math:`\bar d = \overline{x - y}` with its confidence
    interval (any :func:`~cranfield.stats.intervals.mean_ci` method applied to :math:`d`).

    >>> ci = mean_difference([0.5, 0.7, 0.9], [0.4, 0.5, 0.6], method="t")
    >>> round(ci.estimate, 4), round(ci.low, 4), round(ci.high, 4)
    (0.2, -0.0484, 0.4484)
    """
    return mean_ci(_paired(x, y), method=method, confidence=confidence, n_resamples=n_resamples,
                   random_state=random_state)


def cohens_dz_rows(differences) -> np.ndarray:
    r"""Cohen's :math:`d_z = \bar d / s_d` (ddof 1) of each row of a (pairs, queries) matrix.

    Cohen (1988, §2.3.5); Lakens (2013) eq. 6. Policy: :math:`s_d = 0` gives 0 when
    :math:`\bar d = 0` and :math:`\pm\infty` otherwise.
    """
    d = np.asarray(differences, dtype=np.float64)
    if d.ndim != 2 or d.shape[1] < 2:
        raise InputError(f"expected a (pairs, queries) matrix with at least 2 queries, found shape {d.shape}", field="differences")
    mean = d.mean(axis=1)
    sd = d.std(axis=1, ddof=1)
    safe = np.where(sd > 0, sd, 1.0)
    return np.where(sd > 0, mean / safe, np.where(mean == 0, 0.0, np.copysign(np.inf, mean)))


def cohens_dz(x, y) -> float:
    r"""Cohen's :math:`d_z` for paired data: mean difference over the standard deviation of the
    differences, :math:`d_z = \bar d / s_d` = t / √n (see :func:`cohens_dz_rows`).

    >>> round(cohens_dz([0.5, 0.7, 0.9], [0.4, 0.5, 0.6]), 4)
    2.0
    """
    return float(cohens_dz_rows(_paired(x, y)[None, :])[0])


def win_tie_loss_rows(differences) -> np.ndarray:
    """(pairs, 3) integer matrix: per row, the queries with difference > 0, == 0 and < 0."""
    d = np.asarray(differences, dtype=np.float64)
    d = d[None, :] if d.ndim == 1 else d
    return np.stack([(d > 0).sum(axis=1), (d == 0).sum(axis=1), (d < 0).sum(axis=1)], axis=1)


def win_tie_loss(x, y) -> tuple[int, int, int]:
    """Queries where ``x`` is higher, equal (exactly) and lower than ``y``.

    >>> win_tie_loss([0.5, 0.7, 0.9], [0.4, 0.7, 1.0])
    (1, 1, 1)
    """
    wins, ties, losses = win_tie_loss_rows(_paired(x, y)[None, :])[0]
    return int(wins), int(ties), int(losses)


# ---------------------------------------------------------------- effect sizes with intervals

def hedges_correction(df) -> np.ndarray | float:
    r"""Hedges' exact small-sample correction :math:`J(\nu) = \Gamma(\nu/2) / (\sqrt{\nu/2}\,
    \Gamma((\nu-1)/2))` (Hedges 1981), computed with log-gamma; :math:`J(\nu) \approx 1 -
    3/(4\nu - 1)`. :math:`J(\nu)\, d` is unbiased when :math:`d\sqrt n` is noncentral t with
    :math:`\nu` degrees of freedom (as :math:`d_z` is, with :math:`\nu = n - 1`).

    >>> round(hedges_correction(9), 6)
    0.913875
    """
    from scipy.special import beta

    nu = np.asarray(df, dtype=np.float64)
    if nu.size == 0 or not np.all(np.isfinite(nu)) or np.any(nu <= 1):
        raise InputError("expected degrees of freedom > 1", field="df")
    # J = Γ(x + 1/2) / (Γ(x) sqrt(ν/2)) with x = (ν-1)/2. Γ(x + 1/2)/Γ(x) = sqrt(π) / B(1/2, x)
    # is accurate to 1e-15 up to ν = 200 (scipy's beta), the asymptotic series sqrt(x) (1 - 1/(8x)
    # + 1/(128x²) + 5/(1024x³) - 21/(32768x⁴) - 399/(262144x⁵) + 869/(4194304x⁶)) beyond (its next
    # term is below 1e-17 there); log-gamma differences would lose 1e-12 at ν = 5000
    x = (nu - 1) / 2
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        small = np.sqrt(np.pi) / beta(0.5, np.minimum(x, 100.0)) / np.sqrt(nu / 2)
        u = 1.0 / np.maximum(x, 1.0)
        series = 0.0
        for c in (869 / 4194304, -399 / 262144, -21 / 32768, 5 / 1024, 1 / 128, -1 / 8, 1.0):
            series = series * u + c
        large = series * np.sqrt((nu - 1) / nu)
    j = np.where(nu <= 200, small, large)
    return float(j) if j.ndim == 0 else j


@dataclass(frozen=True)
class EffectSize:
    """An effect size with its confidence interval and how that interval was computed."""

    name: str
    estimate: float
    ci_low: float
    ci_high: float
    confidence: float
    ci_method: str
    n: int


EFFECT_SIZES = ("d_z", "g_z", "d_av", "g_av", "cl", "ps")


def _nct_bounds(t: float, df: int, confidence: float) -> tuple[float, float]:
    """Noncentrality parameters λ_L, λ_U with P(T'(df, λ_L) <= t) = 1 - α/2 and
    P(T'(df, λ_U) <= t) = α/2 (Steiger & Fouladi 1997): the CI of λ by inverting the test."""
    from scipy import optimize, stats

    alpha = 1.0 - confidence
    if t < 0:  # scipy's noncentral t is unreliable far in the lower tail: use F(t; λ) = 1 - F(-t; -λ)
        low, high = _nct_bounds(-t, df, confidence)
        return -high, -low
    scale = float(np.sqrt(1.0 + t * t / (2.0 * df)))  # about the SD of the λ estimate

    def solve(target: float) -> float:
        f = lambda lam: stats.nct.cdf(t, df, lam) - target  # noqa: E731  (decreasing in lam)
        low, high = t - 3 * scale, t + 3 * scale
        for _ in range(60):
            if f(low) >= 0:
                break
            low -= 3 * scale
        for _ in range(60):
            if f(high) <= 0:
                break
            high += 3 * scale
        if not (f(low) >= 0 >= f(high)):
            raise InputError(f"no noncentral t interval found for t = {t:g} with {df} df", field="x")
        return float(optimize.brentq(f, low, high, xtol=1e-14, rtol=4 * np.finfo(float).eps, maxiter=500))

    return solve(1 - alpha / 2), solve(alpha / 2)


def _bootstrap_effect(x: np.ndarray, y: np.ndarray, kind: str, n_resamples: int, random_state,
                      confidence: float) -> tuple[float, float]:
    """Percentile bootstrap interval of d_av / g_av / ps, resampling queries (pairs kept)."""
    n_resamples = check_count(n_resamples, "n_resamples", 2, 10**6)
    n = len(x)
    d = x - y
    stats_ = []
    for w in bootstrap_counts(n, n_resamples, as_generator(random_state)):
        if kind == "ps":
            stats_.append((w @ ((d > 0) + 0.5 * (d == 0))) / n)
            continue
        mean_d = w @ d / n
        sx = np.sqrt(np.maximum(w @ (x * x) / n - (w @ x / n) ** 2, 0.0) * n / (n - 1))
        sy = np.sqrt(np.maximum(w @ (y * y) / n - (w @ y / n) ** 2, 0.0) * n / (n - 1))
        with np.errstate(divide="ignore", invalid="ignore"):
            value = mean_d / ((sx + sy) / 2)
        stats_.append(value * (hedges_correction(n - 1) if kind == "g_av" else 1.0))
    values = np.concatenate(stats_)
    values = values[np.isfinite(values)]
    alpha = 1.0 - confidence
    return float(np.quantile(values, alpha / 2)), float(np.quantile(values, 1 - alpha / 2))


def effect_size(x, y, *, kind: str = "d_z", confidence: float = 0.95, n_resamples: int = 10_000,
                random_state=0) -> EffectSize:
    r"""A standardized effect size of paired values ``x`` − ``y`` with its confidence interval.

    With :math:`d_q = x_q - y_q`, :math:`\bar d`, :math:`s_d` (ddof 1), :math:`n` queries:

    * ``"d_z"``: :math:`\bar d / s_d` (Cohen 1988; Lakens 2013 eq. 6); CI by inverting the
      noncentral t: :math:`d_z\sqrt n` is :math:`t'(n-1, \delta_z\sqrt n)`, so the interval is
      :math:`[\lambda_L, \lambda_U]/\sqrt n` (Steiger & Fouladi 1997; Cumming & Finch 2001);
    * ``"g_z"``: :math:`J(n-1)\, d_z`, Hedges' unbiased version (:func:`hedges_correction`),
      interval :math:`J(n-1)[\lambda_L, \lambda_U]/\sqrt n`;
    * ``"d_av"``: :math:`\bar d / ((s_x + s_y)/2)` (Cumming 2012; Lakens 2013 eq. 10), on the
      scale of the systems' own spread, comparable with between-groups d; percentile bootstrap
      CI over queries;
    * ``"g_av"``: :math:`J(n-1)\, d_av` (the correction is approximate for d_av); bootstrap CI;
    * ``"cl"``: common-language effect size for paired data, :math:`\Phi(d_z)` (McGraw & Wong
      1992): the chance that the difference on a new query is positive under normality; CI
      :math:`\Phi` of the d_z interval;
    * ``"ps"``: probability of superiority, :math:`(\#\{d_q > 0\} + \#\{d_q = 0\}/2) / n`
      (Grissom & Kim 2012), distribution-free; percentile bootstrap CI.

    >>> e = effect_size([0.5, 0.7, 0.9, 0.4], [0.4, 0.5, 0.6, 0.45])
    >>> round(e.estimate, 4), e.ci_method
    (0.9209, 'noncentral t')
    """
    from scipy import special

    check_choice(kind, "kind", EFFECT_SIZES)
    confidence = check_confidence(confidence)
    d = _paired(x, y)
    n = len(d)
    if n < 3:
        raise InputError(f"expected at least 3 paired values, found {n}", field="x")
    if not np.all(np.isfinite(d)):
        raise InputError("expected finite values, found NaN or infinity", field="x")
    a, b = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    sd = float(d.std(ddof=1))
    if kind in ("d_z", "g_z", "cl"):
        if sd == 0:
            raise InputError("the differences are all equal: d_z is not finite and has no interval", field="x")
        dz = float(d.mean()) / sd
        low, high = (float(lam / np.sqrt(n)) for lam in _nct_bounds(dz * np.sqrt(n), n - 1, confidence))
        if kind == "g_z":
            j = hedges_correction(n - 1)
            return EffectSize(kind, j * dz, j * low, j * high, confidence, "noncentral t", n)
        if kind == "cl":
            return EffectSize(kind, float(special.ndtr(dz)), float(special.ndtr(low)), float(special.ndtr(high)),
                              confidence, "noncentral t (Phi of the d_z interval)", n)
        return EffectSize(kind, dz, low, high, confidence, "noncentral t", n)
    if kind == "ps":
        estimate = float(((d > 0) + 0.5 * (d == 0)).mean())
    else:
        spread = (a.std(ddof=1) + b.std(ddof=1)) / 2
        if spread == 0:
            raise InputError("both systems' values are constant: d_av is not finite", field="x")
        estimate = float(d.mean() / spread) * (hedges_correction(n - 1) if kind == "g_av" else 1.0)
    low, high = _bootstrap_effect(a, b, kind, n_resamples, random_state, confidence)
    return EffectSize(kind, estimate, low, high, confidence, "percentile bootstrap", n)
