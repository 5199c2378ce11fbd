"""Multiple-comparison corrections (cranfield.stats.corrections): every correction (Bonferroni,
Šidák, Holm, Holm–Šidák, Hochberg, Hommel, Benjamini–Hochberg, Benjamini–Yekutieli) against
statsmodels' multipletests, R's p.adjust and the textbook definitions; families across measures;
Tukey HSD against scipy and the two-way ANOVA residual; randomized Tukey HSD."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from cranfield.errors import InputError, UsageError
from cranfield.stats.compare import compare_values
from cranfield.stats.corrections import CORRECTIONS, adjust_pvalues, randomized_tukey_hsd, tukey_hsd

from ._r import r_vector, run_r

STATSMODELS = {"bonferroni": "bonferroni", "sidak": "sidak", "holm": "holm", "holm-sidak": "holm-sidak",
               "hochberg": "simes-hochberg", "hommel": "hommel", "bh": "fdr_bh", "by": "fdr_by"}
R_NAMES = {"bonferroni": "bonferroni", "holm": "holm", "hochberg": "hochberg", "hommel": "hommel", "bh": "BH", "by": "BY"}


def _families():
    rng = np.random.default_rng(2026)
    out = []
    for trial in range(60):
        m = int(rng.integers(1, 40))
        p = rng.random(m) ** rng.uniform(0.5, 4)
        out.append(np.round(p, 2) if trial % 3 == 0 else p)  # ties every third family
    out.append(np.array([0.0, 1.0, 1.0, 0.5, 0.0]))
    return out


def _ulps(a, b) -> float:
    return float(np.max(np.abs(a - b) / np.spacing(np.maximum(np.abs(b), np.finfo(float).tiny)), initial=0))


def test_every_correction_equals_statsmodels_multipletests():
    from statsmodels.stats.multitest import multipletests

    assert set(STATSMODELS) | {"none"} == set(CORRECTIONS)
    for i, p in enumerate(_families()):
        for ours, theirs in STATSMODELS.items():
            if ours == "holm" and i % 10:
                continue  # statsmodels' holm takes 0.3 s a call; R's p.adjust checks every family below
            with np.errstate(divide="ignore"):  # statsmodels' log1p(-1) for sidak at p = 1
                ref = multipletests(p, method=theirs)[1]
            got = adjust_pvalues(p, method=ours)
            # == except BH: ours is m p / i (= scipy's false_discovery_control), statsmodels'
            # p / (i / m): two roundings apart, measured at most 2 ulps
            assert _ulps(got, ref) <= (2 if ours == "bh" else 0), (ours, p)


@pytest.fixture(scope="module")
def r_adjusted():
    lines = [f"p <- {r_vector(p)}; " + "; ".join(f"out('{name}_{i}', p.adjust(p, '{r}'))" for name, r in R_NAMES.items())
             for i, p in enumerate(_families())]
    return run_r("\n".join(lines))


def test_corrections_equal_r_p_adjust(r_adjusted):
    worst = 0.0
    for i, p in enumerate(_families()):
        for name in R_NAMES:
            ref = r_adjusted[f"{name}_{i}"]
            # R computes in its own order (e.g. cummin over n/i * p): a few ulps; measured <= 3
            np.testing.assert_allclose(adjust_pvalues(p, method=name), ref, rtol=4 * np.finfo(float).eps, atol=0)
            worst = max(worst, _ulps(adjust_pvalues(p, method=name), ref))
    assert worst <= 4


@given(st.lists(st.floats(0, 1), min_size=1, max_size=30))
@settings(max_examples=60, deadline=None)
def test_orderings_between_procedures(p):
    p = np.array(p)
    a = {m: adjust_pvalues(p, method=m) for m in CORRECTIONS}
    tol = 1e-12
    assert np.all(a["holm"] <= a["bonferroni"] + tol) and np.all(a["hochberg"] <= a["holm"] + tol)
    assert np.all(a["hommel"] <= a["hochberg"] + tol) and np.all(a["sidak"] <= a["bonferroni"] + tol)
    assert np.all(a["holm-sidak"] <= a["holm"] + tol) and np.all(a["bh"] <= a["by"] + tol)
    for m in CORRECTIONS:
        assert np.all(a[m] >= p - tol) and np.all(a[m] <= 1)


def test_family_across_measures():
    rng = np.random.default_rng(4)
    values = {s: {m: {f"q{i}": float(rng.random() + 0.05 * k) for i in range(25)} for m in ("AP", "P@10", "RR")}
              for k, s in enumerate(("a", "b", "c"))}
    per = compare_values(values, correction="hommel")
    together = compare_values(values, correction="hommel", family="all")
    raw = np.array([p.p_value for p in together.pairs])
    assert raw.tolist() == [p.p_value for p in per.pairs]
    assert [p.p_adjusted for p in together.pairs] == adjust_pvalues(raw, method="hommel").tolist()
    for i in range(3):
        block = raw[3 * i:3 * i + 3]
        assert [p.p_adjusted for p in per.pairs[3 * i:3 * i + 3]] == adjust_pvalues(block, method="hommel").tolist()
    assert together.settings["family_size"] == 9 and per.settings["family_size"] == 3
    with pytest.raises(Exception, match="family"):
        compare_values(values, correction="tukey", family="all")


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
