import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from cranfield.errors import InputError, UsageError
from cranfield.stats.corrections import adjust_pvalues, randomized_tukey_hsd, tukey_hsd
from cranfield.stats.effects import cohens_dz, mean_difference, win_tie_loss, win_tie_loss_rows

pvals = st.lists(st.floats(min_value=0, max_value=1, allow_nan=False), min_size=1, max_size=25)


def _textbook(p, method):
    """Adjusted p-values straight from the definitions, one hypothesis at a time (O(m^2))."""
    p = np.asarray(p, dtype=float)
    m = len(p)
    order = np.argsort(p, kind="stable")
    s = p[order]
    out = np.empty(m)
    for i in range(m):
        if method == "holm":  # Holm (1979): max over j <= i of (m - j + 1) p_(j)
            out[order[i]] = min(1.0, max((m - j) * s[j] for j in range(i + 1)))
        else:  # Benjamini & Hochberg (1995): min over j >= i of m p_(j) / j
            out[order[i]] = min(1.0, min(m * s[j] / (j + 1) for j in range(i, m)))
    return out


@given(pvals)
@settings(max_examples=80, deadline=None)
def test_corrections_match_formulas_and_scipy(p):
    bonf = adjust_pvalues(p, method="bonferroni")
    holm = adjust_pvalues(p, method="holm")
    bh = adjust_pvalues(p, method="bh")
    np.testing.assert_allclose(bonf, np.minimum(1, len(p) * np.asarray(p)), atol=1e-15)
    np.testing.assert_allclose(holm, _textbook(p, "holm"), atol=1e-15)
    np.testing.assert_allclose(bh, _textbook(p, "bh"), atol=1e-15)
    np.testing.assert_allclose(bh, stats.false_discovery_control(p, method="bh"), atol=1e-12)
    # orderings: raw <= BH <= Holm <= Bonferroni, all within [0, 1]
    assert np.all(np.asarray(p) <= bh + 1e-15) and np.all(bh <= holm + 1e-15) and np.all(holm <= bonf + 1e-15)
    assert np.all(bonf <= 1)
    np.testing.assert_array_equal(adjust_pvalues(p, method="none"), p)


def test_holm_hand_example():
    # sorted 0.01, 0.03, 0.04 -> 3 * 0.01, 2 * 0.03, max(0.06, 1 * 0.04) (R: p.adjust(c(.01,.04,.03), "holm"))
    np.testing.assert_allclose(adjust_pvalues([0.01, 0.04, 0.03], method="holm"), [0.03, 0.06, 0.06])
    # BH: 3 * 0.01 / 1, min(3 * .03 / 2, 3 * .04 / 3) = 0.04 twice
    np.testing.assert_allclose(adjust_pvalues([0.01, 0.04, 0.03], method="bh"), [0.03, 0.04, 0.04])


def test_adjust_errors():
    with pytest.raises(UsageError):
        adjust_pvalues([0.1], method="sidakk")
    with pytest.raises(InputError):
        adjust_pvalues([1.2], method="holm")


def test_unblocked_tukey_is_scipy_tukey_hsd(rng):
    v = rng.normal(size=(4, 30)) + np.array([[0], [0.1], [0.5], [0.6]])
    np.testing.assert_allclose(tukey_hsd(v, blocked=False), stats.tukey_hsd(*v).pvalue, atol=1e-12)


def test_blocked_tukey_uses_the_two_way_anova_residual(rng):
    k, n = 4, 25
    v = rng.normal(size=(k, n)) * 0.1 + rng.random(n)[None, :] + np.array([[0], [0.02], [0.08], [0.1]])
    # oracle: residual mean square of the additive model system + query fitted by least squares
    design = np.zeros((k * n, k + n))
    rows = np.arange(k * n)
    design[rows, rows // n] = 1
    design[rows, k + rows % n] = 1
    coef, *_ = np.linalg.lstsq(design, v.ravel(), rcond=None)
    df = (k - 1) * (n - 1)
    mse = ((v.ravel() - design @ coef) ** 2).sum() / df
    means = v.mean(axis=1)
    q = abs(means[0] - means[3]) / np.sqrt(mse / n)
    p = tukey_hsd(v)
    assert p[0, 3] == pytest.approx(stats.studentized_range.sf(q, k, df), rel=1e-9)
    np.testing.assert_allclose(p, p.T)
    # blocking removes query difficulty: much more power than the one-way version
    assert p[0, 3] < tukey_hsd(v, blocked=False)[0, 3]


def test_randomized_tukey_hsd(rng):
    base = rng.random(40)[None, :]
    v = base + rng.normal(size=(3, 40)) * 0.05 + np.array([[0.0], [0.005], [0.2]])
    p = randomized_tukey_hsd(v, n_permutations=2000, random_state=1)
    assert p.shape == (3, 3) and np.allclose(p, p.T) and np.all(np.diag(p) == 1)
    assert p[0, 2] == pytest.approx(1 / 2001)  # a 0.2 gap: never reached by permuted ranges
    assert p[0, 1] > 0.5  # a tiny gap: reached most of the time
    assert np.array_equal(p, randomized_tukey_hsd(v, n_permutations=2000, random_state=1))
    # it is at least as conservative as a single randomization test of the same pair
    from cranfield.stats.paired import randomization_test

    assert p[0, 1] >= randomization_test(v[0], v[1], n_permutations=2000).p_value - 0.05


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
