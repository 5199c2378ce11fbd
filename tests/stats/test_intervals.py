import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from cranfield.errors import InputError, UsageError
from cranfield.stats.intervals import mean_ci, proportion_ci

finite = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, allow_infinity=False)


@pytest.mark.parametrize("n", [5, 29, 30, 200])
def test_normal_and_t_match_textbook_formulas(rng, n):
    x = rng.normal(0.3, 0.2, n)
    se = stats.sem(x)
    for method, ref in [("normal", stats.norm.interval(0.9, loc=x.mean(), scale=se)),
                        ("t", stats.t.interval(0.9, n - 1, loc=x.mean(), scale=se))]:
        ci = mean_ci(x, method=method, confidence=0.9)
        assert ci.estimate == pytest.approx(x.mean(), abs=1e-14)
        assert (ci.low, ci.high) == pytest.approx(ref, abs=1e-12)
    # "auto": Student t below 30 queries, normal from 30 on
    assert mean_ci(x).method == ("t" if n < 30 else "normal")


def test_normal_is_196_sigma_over_root_n():
    x = np.array([0.1, 0.5, 0.3, 0.9, 0.2] * 8)  # n = 40
    ci = mean_ci(x, method="normal")
    half = 1.959963984540054 * x.std(ddof=1) / np.sqrt(40)
    assert (ci.low, ci.high) == pytest.approx((x.mean() - half, x.mean() + half), abs=1e-12)


def test_docstring_example_by_hand():
    # mean 0.4, s = 0.2, t_{2,0.975} = 4.3027 (printed t tables): 0.4 +- 4.3027 * 0.2 / sqrt(3)
    ci = mean_ci([0.2, 0.4, 0.6], method="t")
    assert ci.high == pytest.approx(0.4 + 4.3027 * 0.2 / np.sqrt(3), abs=1e-5)


@pytest.mark.parametrize("method, scipy_method", [("bootstrap", "percentile"), ("bca", "BCa")])
def test_bootstrap_intervals_agree_with_scipy_within_monte_carlo_error(rng, method, scipy_method):
    x = rng.exponential(0.3, 40)  # skewed: BCa and percentile differ
    ours = mean_ci(x, method=method, n_resamples=20_000, random_state=1)
    ref = stats.bootstrap((x,), np.mean, method=scipy_method, n_resamples=20_000, rng=2).confidence_interval
    # Monte Carlo SE of a 2.5% bootstrap quantile here is about 0.001 each; 0.01 is > 5 SE
    assert ours.low == pytest.approx(ref.low, abs=0.01)
    assert ours.high == pytest.approx(ref.high, abs=0.01)


def test_bca_corrects_towards_the_skew(rng):
    x = rng.exponential(1.0, 30)
    pct = mean_ci(x, method="bootstrap", n_resamples=5000)
    bca = mean_ci(x, method="bca", n_resamples=5000)
    assert bca.high > pct.high and bca.low > pct.low  # right-skewed: BCa shifts the interval up


def test_bootstrap_is_seeded_and_rows_share_resamples(rng):
    x = rng.random((3, 25))
    batch = mean_ci(x, method="bca", n_resamples=999, random_state=7)
    for i in range(3):
        one = mean_ci(x[i], method="bca", n_resamples=999, random_state=7)
        assert (one.low, one.high) == pytest.approx((batch.low[i], batch.high[i]), abs=1e-13)
    other = mean_ci(x[0], method="bca", n_resamples=999, random_state=8)
    assert other.low != batch.low[0]


def test_constant_sample_has_degenerate_interval():
    for method in ("normal", "t", "bootstrap", "bca"):
        ci = mean_ci([0.25] * 10, method=method, n_resamples=100)
        assert (ci.low, ci.estimate, ci.high) == (0.25, 0.25, 0.25)


def test_mean_ci_errors():
    with pytest.raises(InputError, match="at least 2"):
        mean_ci([0.3])
    with pytest.raises(InputError, match="finite"):
        mean_ci([0.3, np.nan])
    with pytest.raises(UsageError, match="method"):
        mean_ci([0.3, 0.4], method="wald")
    with pytest.raises(UsageError, match="confidence"):
        mean_ci([0.3, 0.4], confidence=95)


@given(st.lists(finite, min_size=2, max_size=40), st.sampled_from(["normal", "t"]), finite)
@settings(max_examples=60, deadline=None)
def test_interval_properties(values, method, shift):
    x = np.array(values)
    ci = mean_ci(x, method=method)
    assert ci.low <= ci.estimate <= ci.high
    moved = mean_ci(x + shift, method=method)  # translation equivariance
    assert moved.low == pytest.approx(ci.low + shift, abs=1e-6)
    wider = mean_ci(x, method=method, confidence=0.99)
    assert wider.high - wider.low >= ci.high - ci.low - 1e-12
    assert mean_ci(x, method="t").high >= mean_ci(x, method="normal").high - 1e-12


@pytest.mark.parametrize("x, n", [(0, 10), (1, 10), (8, 10), (10, 10), (37, 120), (500, 1000)])
@pytest.mark.parametrize("method, scipy_method", [("wilson", "wilson"), ("clopper-pearson", "exact")])
def test_proportion_ci_equals_scipy(x, n, method, scipy_method):
    ref = stats.binomtest(x, n).proportion_ci(confidence_level=0.95, method=scipy_method)
    ci = proportion_ci(x, n, method=method)
    assert ci.estimate == x / n
    assert (ci.low, ci.high) == pytest.approx((ref.low, ref.high), abs=1e-10)


def test_proportion_ci_broadcasts_and_validates():
    ci = proportion_ci(np.array([1, 5]), 10)
    assert ci.low.shape == (2,)
    with pytest.raises(InputError):
        proportion_ci(11, 10)
    with pytest.raises(UsageError):
        proportion_ci(1, 10, method="wald")
