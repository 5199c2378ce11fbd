import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from cranfield.errors import InputError, UsageError
from cranfield.stats.paired import (bootstrap_test, mcnemar_test, paired_pvalues, paired_t_test, paired_test,
                                   randomization_test, round_significant, sign_test, wilcoxon_test)


def _pairs(rng, n, k=6):
    """k pairs of per-query values in [0, 1] with ties, as AP-like scores."""
    x = np.round(rng.random((k, n)), 2)
    y = np.clip(np.round(x + rng.normal(0.03, 0.1, (k, n)), 2), 0, 1)
    return x, y


@pytest.mark.parametrize("n", [3, 10, 50, 400])
def test_t_equals_scipy_ttest_rel(rng, n):
    x, y = _pairs(rng, n)
    statistic, p = paired_pvalues(x - y, test="t")
    for i in range(len(x)):
        ref = stats.ttest_rel(x[i], y[i])
        assert statistic[i] == pytest.approx(ref.statistic, rel=1e-10)
        assert p[i] == pytest.approx(ref.pvalue, rel=1e-10, abs=1e-300)
    one = paired_t_test(x[0], y[0])
    assert (one.statistic, one.p_value) == pytest.approx(tuple(stats.ttest_rel(x[0], y[0])[:2]), rel=1e-10)


@pytest.mark.parametrize("n", [8, 30, 120])
@pytest.mark.parametrize("zero_method", ["wilcox", "pratt"])
def test_wilcoxon_equals_scipy(rng, n, zero_method):
    x, y = _pairs(rng, n)
    for i in range(len(x)):
        ours = wilcoxon_test(x[i], y[i], zero_method=zero_method)
        # scipy of the differences rounded as documented (10 significant digits: x - y of values on a
        # 0.01 grid differ by rounding noise only, which would break ties)
        ref = stats.wilcoxon(round_significant(x[i] - y[i]), zero_method=zero_method)
        assert ours.statistic == pytest.approx(ref.statistic, abs=1e-10)
        assert ours.p_value == pytest.approx(ref.pvalue, abs=1e-10)


@pytest.mark.parametrize("n", [5, 25, 300])
def test_sign_equals_scipy_binomtest(rng, n):
    x, y = _pairs(rng, n)
    statistic, p = paired_pvalues(x - y, test="sign")
    for i in range(len(x)):
        wins, losses = int((x[i] > y[i]).sum()), int((x[i] < y[i]).sum())
        assert statistic[i] == wins
        assert p[i] == pytest.approx(stats.binomtest(wins, wins + losses, 0.5).pvalue, abs=1e-10)
    assert sign_test(x[0], y[0]).p_value == p[0]


@pytest.mark.parametrize("n", [4, 9, 13])
def test_randomization_is_exact_when_2n_is_small_and_equals_scipy(rng, n):
    x, y = _pairs(rng, n)
    statistic, p = paired_pvalues(x - y, test="randomization", n_permutations=10_000)
    for i in range(len(x)):
        d = x[i] - y[i]
        if not np.any(d):
            assert p[i] == 1.0
            continue
        ref = stats.permutation_test((d,), np.mean, permutation_type="samples", n_resamples=np.inf,
                                     alternative="two-sided")
        assert statistic[i] == pytest.approx(d.mean(), abs=1e-15)
        assert p[i] == pytest.approx(ref.pvalue, abs=1e-10)


def test_randomization_monte_carlo_is_within_its_error_of_the_exact_value(rng):
    n = 16  # 65 536 sign vectors: exact by enumeration, then Monte Carlo with 4 000
    d = np.round(rng.normal(0.02, 0.1, (5, n)), 3)
    _, exact = paired_pvalues(d, test="randomization", n_permutations=1 << n)
    b = 4000
    _, approx = paired_pvalues(d, test="randomization", n_permutations=b, random_state=3)
    se = np.sqrt(exact * (1 - exact) / b) + 1 / b
    assert np.all(np.abs(approx - exact) <= 4 * se)
    ref = stats.permutation_test((d[0],), np.mean, permutation_type="samples", n_resamples=np.inf).pvalue
    assert exact[0] == pytest.approx(ref, abs=1e-10)


def test_randomization_is_seeded_and_never_zero(rng):
    x = rng.random(200) + 0.3
    y = rng.random(200)
    a = randomization_test(x, y, n_permutations=999, random_state=5)
    assert a == randomization_test(x, y, n_permutations=999, random_state=5)
    assert a.p_value == pytest.approx(1 / 1000)  # no flip reaches a difference this large


def _slow_bootstrap_p(d, b, seed):
    """Studentized paired bootstrap test, one resample at a time (Efron & Tibshirani 1993, alg. 16.2)."""
    r = np.random.default_rng(seed)
    n = len(d)
    t_obs = abs(d.mean() / (d.std(ddof=1) / np.sqrt(n)))
    z = d - d.mean()
    hits = 0
    for _ in range(b):
        s = z[r.integers(0, n, n)]
        sd = s.std(ddof=1)
        hits += abs(s.mean() / (sd / np.sqrt(n))) >= t_obs if sd > 0 else 0
    return (hits + 1) / (b + 1)


def test_bootstrap_test_agrees_with_a_loop_implementation(rng):
    d = rng.normal(0.02, 0.1, 40)
    b = 3000
    ours = bootstrap_test(d, np.zeros(40), n_resamples=b, random_state=1).p_value
    ref = _slow_bootstrap_p(d, b, seed=2)
    assert abs(ours - ref) <= 4 * np.sqrt(2 * ref * (1 - ref) / b) + 2 / b
    # with many queries the bootstrap and t tests agree closely
    d = rng.normal(0.01, 0.1, 500)
    assert bootstrap_test(d, np.zeros(500), n_resamples=4000).p_value == pytest.approx(
        paired_t_test(d, np.zeros(500)).p_value, abs=0.03)


@pytest.mark.parametrize("test", ["t", "wilcoxon", "sign", "randomization", "bootstrap"])
def test_degenerate_differences(test):
    same = paired_test([0.1, 0.2, 0.3], [0.1, 0.2, 0.3], test=test, n_permutations=99)
    assert (same.statistic, same.p_value) == (0.0, 1.0)
    shifted = paired_test(np.linspace(0, 1, 40) + 0.1, np.linspace(0, 1, 40), test=test, n_permutations=99)
    assert shifted.p_value <= 0.01


def test_constant_nonzero_difference_gives_infinite_t():
    r = paired_t_test([0.5, 0.75, 1.0], [0.25, 0.5, 0.75])  # exact binary fractions: sd is exactly 0
    assert r.statistic == np.inf and r.p_value == 0.0


@given(st.lists(st.tuples(st.integers(0, 10), st.integers(0, 10)), min_size=2, max_size=30),
       st.sampled_from(["t", "wilcoxon", "sign", "randomization", "bootstrap"]))
@settings(max_examples=40, deadline=None)
def test_p_value_properties(pairs, test):
    x = np.array([a for a, _ in pairs]) / 10
    y = np.array([b for _, b in pairs]) / 10
    r = paired_test(x, y, test=test, n_permutations=200)
    assert 0.0 <= r.p_value <= 1.0
    swapped = paired_test(y, x, test=test, n_permutations=200)
    assert swapped.p_value == pytest.approx(r.p_value, abs=1e-12)  # two-sided: symmetric in a, b
    if test in ("t", "sign", "randomization", "bootstrap"):
        shifted = paired_test(x + 0.25, y + 0.25, test=test, n_permutations=200)
        assert shifted.p_value == pytest.approx(r.p_value, abs=1e-9)


def test_paired_input_errors():
    with pytest.raises(InputError, match="same length"):
        paired_t_test([0.1, 0.2], [0.1])
    with pytest.raises(UsageError, match="test"):
        paired_test([0.1, 0.2], [0.1, 0.3], test="anova")
    with pytest.raises(InputError, match="finite"):
        paired_t_test([0.1, np.nan], [0.1, 0.3])
    with pytest.raises(UsageError, match="n_permutations"):
        randomization_test([0.1, 0.2], [0.1, 0.3], n_permutations=0)


def test_mcnemar_exact_equals_binomtest_and_chi2_equals_formula():
    y = np.array([1] * 60 + [0] * 60)
    a = y.copy()
    b = y.copy()
    a[:10] = 0  # a wrong on 10 objects b gets right
    b[10:35] = 0  # b wrong on 25 objects a gets right
    exact = mcnemar_test(y, a, b, exact=True)
    assert (exact.n01, exact.n10) == (10, 25)
    assert exact.p_value == pytest.approx(stats.binomtest(10, 35, 0.5).pvalue, abs=1e-12)
    chi2 = mcnemar_test(y, a, b)  # 35 discordant pairs >= 25: chi-square with correction
    assert chi2.method == "chi2"
    # (|10 - 25| - 1)^2 / 35 = 196 / 35 = 5.6 (Edwards' continuity correction)
    assert chi2.statistic == pytest.approx(5.6)
    assert chi2.p_value == pytest.approx(stats.chi2.sf(5.6, 1), rel=1e-12)
    plain = mcnemar_test(y, a, b, correction=False)
    assert plain.statistic == pytest.approx(225 / 35)
    assert (chi2.accuracy_a, chi2.accuracy_b) == (110 / 120, 95 / 120)
    same = mcnemar_test(y, a, a)
    assert (same.statistic, same.p_value) == (0.0, 1.0)
    with pytest.raises(InputError):
        mcnemar_test(y, a[:5], b)
