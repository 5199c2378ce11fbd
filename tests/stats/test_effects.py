"""Effect sizes (cranfield.stats.effects): mean difference, d_z and win/tie/loss by hand and by
their properties; effect sizes with intervals: d_z / g_z / common language (noncentral t, against R's pt with
ncp and uniroot), d_av / g_av / probability of superiority (bootstrap, against a slow loop over
the same resamples); Hedges' J against scipy's noncentral t mean."""

from __future__ import annotations

import warnings
from decimal import Decimal, getcontext

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from cranfield.errors import InputError, UsageError
from cranfield.stats._resample import as_generator, bootstrap_counts
from cranfield.stats.effects import (EFFECT_SIZES, cohens_dz, effect_size, hedges_correction,
                                    mean_difference, win_tie_loss, win_tie_loss_rows)

from ._r import r_vector, run_r


def _cases():
    rng = np.random.default_rng(11)
    out = []
    for n, shift in ((8, 0.05), (25, 0.0), (60, 0.03), (200, -0.02)):
        x = rng.random(n)
        out.append((x, np.clip(x - shift + 0.1 * rng.normal(size=n), 0, 1)))
    return out


@pytest.fixture(scope="module")
def r_bounds():
    """d_z interval by R: the noncentrality where pt(t, df, ncp) = 0.975 and 0.025 (uniroot)."""
    lines = []
    for i, (x, y) in enumerate(_cases()):
        lines.append(f"d <- {r_vector(x - y)}; n <- length(d); t <- mean(d) / sd(d) * sqrt(n)")
        lines.append("f <- function(target) uniroot(function(l) pt(t, n - 1, ncp = l) - target, c(t - 40, t + 40), "
                     "tol = 1e-13)$root")
        lines.append(f"out('dz{i}', c(mean(d) / sd(d), f(0.975) / sqrt(n), f(0.025) / sqrt(n)))")
    return run_r("\n".join(lines))


def test_dz_interval_equals_r(r_bounds):
    for i, (x, y) in enumerate(_cases()):
        e = effect_size(x, y, kind="d_z")
        estimate, low, high = r_bounds[f"dz{i}"]
        assert e.estimate == pytest.approx(estimate, rel=1e-13)
        # two root finders on two noncentral t implementations (R's pnt: ~1e-12 accuracy; uniroot
        # tol 1e-13): measured agreement 3e-11 at worst
        assert (e.ci_low, e.ci_high) == pytest.approx((low, high), rel=1e-8, abs=1e-9)
        g = effect_size(x, y, kind="g_z")
        j = hedges_correction(len(x) - 1)
        assert (g.estimate, g.ci_low, g.ci_high) == pytest.approx((j * e.estimate, j * e.ci_low, j * e.ci_high), rel=1e-15)
        cl = effect_size(x, y, kind="cl")
        assert (cl.estimate, cl.ci_low, cl.ci_high) == pytest.approx(stats.norm.cdf([e.estimate, e.ci_low, e.ci_high]), rel=1e-15)


def _exact_j(nu: int) -> Decimal:
    """J(ν) to 50 digits by the recurrence Γ(ν/2+1)/Γ((ν+1)/2) = Γ(ν/2)/Γ((ν-1)/2) · ν/(ν-1)."""
    getcontext().prec = 50
    pi = Decimal("3.14159265358979323846264338327950288419716939937510")
    ratio, k = (1 / pi.sqrt(), 2) if nu % 2 == 0 else (pi.sqrt() / 2, 3)
    while k < nu:
        ratio, k = ratio * k / (k - 1), k + 2
    return ratio / (Decimal(nu) / 2).sqrt()


@pytest.mark.parametrize("df", [2, 3, 5, 9, 30, 199, 200, 201, 300, 5000, 5001, 100_000])
def test_hedges_correction_is_exact(df):
    exact = _exact_j(df)
    # within 8 ulps of the 50-digit value (measured: 6e-16 relative at worst)
    assert abs((Decimal(hedges_correction(df)) - exact) / exact) < 8 * 2.2e-16
    if df <= 300:  # E[t'(df, nc)] = nc / J(df): scipy's noncentral t mean (its own gamma ratio)
        assert hedges_correction(df) == pytest.approx(2.0 / stats.nct.mean(df, 2.0), rel=1e-13)
    assert abs(hedges_correction(df) - (1 - 3 / (4 * df - 1))) < 0.04 / df ** 2  # the usual approximation


@pytest.mark.parametrize("kind", ["d_av", "g_av", "ps"])
def test_bootstrap_intervals_equal_a_slow_loop_over_the_same_resamples(kind):
    x, y = _cases()[1]
    e = effect_size(x, y, kind=kind, n_resamples=400, random_state=5)
    n = len(x)
    values = []
    for counts in bootstrap_counts(n, 400, as_generator(5)):
        for w in counts.astype(int):
            idx = np.repeat(np.arange(n), w)
            xs, ys = x[idx], y[idx]
            d = xs - ys
            if kind == "ps":
                values.append(((d > 0) + 0.5 * (d == 0)).mean())
            else:
                values.append(d.mean() / ((xs.std(ddof=1) + ys.std(ddof=1)) / 2)
                              * (hedges_correction(n - 1) if kind == "g_av" else 1))
    # the vectorised form uses sums of squares instead of centred squares: 1e-12 covers it
    assert (e.ci_low, e.ci_high) == pytest.approx(tuple(np.quantile(values, [0.025, 0.975])), rel=1e-10, abs=1e-12)
    assert e.ci_method == "percentile bootstrap"


def test_dz_interval_covers_at_its_level():
    rng = np.random.default_rng(0)
    n, hits, trials = 12, 0, 120
    for _ in range(trials):
        d = rng.normal(0.4, 1.0, n)
        e = effect_size(d, np.zeros(n), kind="d_z", confidence=0.9)
        hits += e.ci_low <= 0.4 <= e.ci_high
    assert abs(hits / trials - 0.9) < 0.09  # binomial SD 0.027: 3.3 SD


def test_effect_size_errors():
    with pytest.raises(UsageError):
        effect_size([1, 2, 3], [1, 2, 4], kind="cohen")
    with pytest.raises(InputError):
        effect_size([1, 2, 3], [0, 1, 2], kind="d_z")  # constant differences
    with pytest.raises(InputError):
        effect_size([1, 2], [0, 1])
    assert set(EFFECT_SIZES) == {"d_z", "g_z", "d_av", "g_av", "cl", "ps"}


def test_effect_sizes_by_hand():
    x, y = [0.5, 0.7, 0.9], [0.4, 0.5, 0.6]  # d = 0.1, 0.2, 0.3: mean 0.2, sd 0.1
    assert cohens_dz(x, y) == pytest.approx(2.0)
    ci = mean_difference(x, y, method="t")
    assert ci.estimate == pytest.approx(0.2)
    assert (ci.low, ci.high) == pytest.approx(stats.t.interval(0.95, 2, loc=0.2, scale=0.1 / np.sqrt(3)))
    assert win_tie_loss([0.5, 0.7, 0.9, 0.1], [0.4, 0.7, 1.0, 0.1]) == (1, 2, 1)


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=2, max_size=30))
@settings(max_examples=60, deadline=None)
def test_effect_properties(pairs):
    x = np.array([a for a, _ in pairs]) / 5
    y = np.array([b for _, b in pairs]) / 5
    wins, ties, losses = win_tie_loss(x, y)
    assert wins + ties + losses == len(x)
    assert win_tie_loss(y, x) == (losses, ties, wins)
    dz = cohens_dz(x, y)
    assert cohens_dz(y, x) == -dz
    with warnings.catch_warnings():  # scipy warns on nearly constant differences
        warnings.simplefilter("ignore", RuntimeWarning)
        t = stats.ttest_rel(x, y).statistic if np.std(x - y) > 0 else None
    if t is not None and np.isfinite(t):
        assert dz == pytest.approx(t / np.sqrt(len(x)), rel=1e-9)  # d_z = t / sqrt(n)
    assert win_tie_loss_rows(np.stack([x - y, y - x])).tolist() == [[wins, ties, losses], [losses, ties, wins]]
