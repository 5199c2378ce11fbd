"""Issue 17's edge cases, each against its reference (R through one batched Rscript call,
scipy, statsmodels): Wilcoxon ties lost to rounding noise, McNemar with equal discordant counts,
Tukey HSD as a test of its own, DeLong with one positive, the Monte Carlo floor, exact
enumeration up to 20 queries, the default interval matching the default test."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import cranfield
from cranfield.errors import InputError
from cranfield.stats.compare import MonteCarloFloorWarning, compare_values, needed_resamples
from cranfield.stats.corrections import adjust_pvalues, tukey_hsd
from cranfield.stats.roc import auc_ci, delong_test
from cranfield.stats.paired import (mcnemar_test, paired_pvalues, randomization_test, round_significant,
                                    wilcoxon_test)

from ._r import r_vector, run_r

SHIPPED = Path(cranfield.__file__).resolve().parent / "data" / "cranfield"
MCNEMAR = [(13, 13), (10, 25), (30, 12), (26, 27), (40, 0), (3, 30)]


def _p10_differences() -> np.ndarray:
    qrels = cranfield.read_qrels(SHIPPED / "qrels.raw.trec")
    runs = [cranfield.read_run(SHIPPED / "runs" / f"{name}.run") for name in ("bm25", "tfidf")]
    c = cranfield.compare(qrels, runs, ["P@10"])
    return c.differences("P@10", *c.systems)


def _wilcoxon_cases() -> list[np.ndarray]:
    """Grid-valued differences with ties (n > 13: scipy and R both use the normal approximation)
    and tie-free ones (n < 50: both exact)."""
    rng = np.random.default_rng(17)
    cases = []
    for n in (14, 30, 60, 120):
        x, y = rng.integers(0, 11, n) / 10, rng.integers(0, 11, n) / 10
        cases.append(x - y)
    for n in (6, 20, 45):
        cases.append(rng.permutation(np.arange(1, n + 1)) * np.where(rng.random(n) < 0.5, -1, 1) / 7)
    return cases


def _blocked_matrix() -> np.ndarray:
    rng = np.random.default_rng(5)
    return rng.normal(size=(4, 25)) * 0.1 + np.array([[0.0], [0.02], [0.08], [0.1]]) + rng.normal(size=25) * 0.2


@pytest.fixture(scope="module")
def r():
    """Every R answer this module needs, from one Rscript call."""
    lines = [f"d <- {r_vector(_p10_differences())}",
             "out('p10_7', wilcox.test(d, digits.rank = 7, correct = FALSE)$p.value)",
             "out('p10_10', wilcox.test(d, digits.rank = 10, correct = FALSE)$p.value)",
             "out('p10_raw', wilcox.test(d, correct = FALSE)$p.value)"]
    for i, d in enumerate(_wilcoxon_cases()):
        lines.append(f"out('w{i}', suppressWarnings(wilcox.test({r_vector(d)}, digits.rank = 10, correct = FALSE)$p.value))")
    for b, c in MCNEMAR:
        lines.append(f"t <- mcnemar.test(matrix(c(20, {c}, {b}, 20), 2)); out('mc_{b}_{c}', c(t$statistic, t$p.value))")
    v = _blocked_matrix()
    lines += [f"v <- {r_vector(v.ravel())}",
              "f <- data.frame(value = v, system = factor(rep(1:4, each = 25)), topic = factor(rep(1:25, times = 4)))",
              "out('tukey', TukeyHSD(aov(value ~ system + topic, data = f), 'system')$system[, 'p adj'])"]
    lines += ["r1 <- roc(c(0, 0, 0, 1, 0), c(0.1, 0.5, 0.8, 0.7, 0.2), quiet = TRUE, direction = '<')",
              "out('proc_one_positive', as.numeric(ci.auc(r1, method = 'delong')))"]
    return run_r("\n".join(lines), packages=("pROC",))


def test_wilcoxon_ranks_rounded_differences_as_r_digits_rank(r):
    d = _p10_differences()
    ours = wilcoxon_test(d, np.zeros_like(d)).p_value
    # the figure; R's normal approximation and scipy's sum the same tie terms in another
    # order: 1e-12 relative covers it (measured: 6e-16)
    assert round(ours, 4) == 0.1967
    assert ours == pytest.approx(r["p10_10"][0], rel=1e-12)
    assert ours == pytest.approx(r["p10_7"][0], rel=1e-12)
    assert r["p10_raw"][0] == pytest.approx(0.1404, abs=5e-5)  # the broken ties, as before the fix
    for i, d in enumerate(_wilcoxon_cases()):
        assert wilcoxon_test(d, np.zeros_like(d)).p_value == pytest.approx(r[f"w{i}"][0], rel=1e-12), i


def test_round_significant_makes_grid_differences_equal():
    d = np.array([0.3 - 0.2, 0.2 - 0.1, 0.7 - 0.6, -(0.9 - 0.8), 1e-17, 0.0])
    assert len(set(np.abs(d[:4]).tolist())) > 1  # precondition: rounding noise
    rounded = round_significant(d)
    assert len(set(np.abs(rounded[:4]).tolist())) == 1 and rounded[5] == 0.0
    assert rounded[4] == pytest.approx(1e-17, rel=1e-15)  # x * 10**26 / 10**26: one rounding of a product


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
def test_zero_method_reaches_compare(zero_method):
    rng = np.random.default_rng(3)
    values = {s: {"P@10": {f"q{i}": v for i, v in enumerate(rng.integers(0, 11, 40) / 10)}} for s in ("a", "b")}
    c = compare_values(values, test="wilcoxon", zero_method=zero_method)
    d = c.differences("P@10", "a", "b")
    assert c.pairs[0].p_value == stats.wilcoxon(round_significant(d), zero_method=zero_method).pvalue
    assert c.to_dict()["settings"]["test"]["zero_method"] == zero_method


def test_zero_method_reaches_the_cli(tmp_path, capsys):
    from cranfield.cli import main

    qrels = tmp_path / "q"
    qrels.write_text("".join(f"q{i} 0 d{j} {int(j < 3)}\n" for i in range(16) for j in range(6)))
    for name, shift in (("a", 0), ("b", 2)):
        (tmp_path / name).write_text("".join(f"q{i} Q0 d{(j + shift * (i % 2)) % 6} {j + 1} {9 - j} {name}\n"
                                             for i in range(16) for j in range(6)))
    assert main(["compare", str(qrels), str(tmp_path / "a"), str(tmp_path / "b"), "-m", "P@3", "--test", "wilcoxon",
                 "--zero-method", "pratt", "--family", "all", "-f", "json"]) == 0
    settings = json.loads(capsys.readouterr().out)["settings"]
    assert settings["test"]["zero_method"] == "pratt" and settings["correction"]["family"] == "all"


def _mcnemar_labels(b: int, c: int):
    """20 objects both right, 20 both wrong, b right for a only, c right for b only."""
    truth = np.ones(40 + b + c, dtype=int)
    a = np.r_[np.ones(20), np.zeros(20), np.ones(b), np.zeros(c)].astype(int)
    bb = np.r_[np.ones(20), np.zeros(20), np.zeros(b), np.ones(c)].astype(int)
    return truth, a, bb


@pytest.mark.parametrize("b, c", MCNEMAR)
def test_mcnemar_equals_r(r, b, c):
    result = mcnemar_test(*_mcnemar_labels(b, c), exact=False)
    statistic, p = r[f"mc_{b}_{c}"]
    assert result.statistic == pytest.approx(statistic, rel=1e-14, abs=0)  # measured equal
    assert result.p_value == pytest.approx(p, rel=1e-12)  # pchisq vs scipy chi2.sf
    if b == c:
        assert (result.statistic, result.p_value) == (0.0, 1.0)


def test_blocked_tukey_hsd_equals_r_tukeyhsd(r):
    v = _blocked_matrix()
    ours = tukey_hsd(v)[np.triu_indices(4, 1)]
    # R's ptukey and scipy's studentized_range integrate numerically; both aim at ~1e-8 absolute
    # (R: "accuracy of about 1e-8"); measured 1e-10 here
    np.testing.assert_allclose(ours, r["tukey"], rtol=0, atol=2e-8)


def test_unblocked_tukey_hsd_equals_statsmodels():
    from statsmodels.stats.multicomp import pairwise_tukeyhsd

    v = _blocked_matrix()
    ref = pairwise_tukeyhsd(v.ravel(), np.repeat(np.arange(4), 25)).pvalues
    # statsmodels interpolates its own studentized range table (psturng), ~1e-3 (its documentation)
    np.testing.assert_allclose(tukey_hsd(v, blocked=False)[np.triu_indices(4, 1)], ref, atol=2e-3)


def test_tukey_is_presented_as_its_own_test():
    rng = np.random.default_rng(0)
    values = {s: {"AP": {f"q{i}": float(x) for i, x in enumerate(rng.random(30) + shift)}}
              for s, shift in (("a", 0), ("b", 0.05), ("c", 0.3))}
    c = compare_values(values, test="wilcoxon", correction="tukey")
    table = c.render("markdown")
    assert "p (Tukey HSD)" in table and "a test of its own" in table and "p (holm)" not in table
    assert c.to_dict()["settings"]["correction"]["kind"] == "test"


def test_delong_refuses_a_single_positive_or_negative(r):
    assert np.isnan(r["proc_one_positive"]).all()  # pROC: NA
    for labels in ([0, 0, 0, 1, 0], [1, 1, 0, 1, 1]):
        with pytest.raises(InputError, match="at least 2 positive and 2 negative"):
            auc_ci(labels, [0.1, 0.5, 0.8, 0.7, 0.2])
        with pytest.raises(InputError, match="at least 2 positive"):
            delong_test(labels, [0.1, 0.5, 0.8, 0.7, 0.2], [0.3, 0.1, 0.8, 0.6, 0.2])


def _exact_by_convolution(k: np.ndarray) -> float:
    """Two-sided exact p of the sign-flip test of integer differences ``k``: the distribution of
    sum(s_q k_q) over all 2**n sign vectors by repeated convolution (an independent algorithm)."""
    total = int(np.abs(k).sum())
    counts = np.zeros(2 * total + 1, dtype=np.int64)  # index s + total holds #{sign vectors with sum s}
    counts[total] = 1
    for v in np.abs(k).astype(int):
        if v == 0:
            counts = 2 * counts
            continue
        new = np.zeros_like(counts)
        new[v:] += counts[:-v]  # +v: sum s - v becomes s
        new[:-v] += counts[v:]  # -v: sum s + v becomes s
        counts = new
    observed = abs(int(k.sum()))
    sums = np.arange(-total, total + 1)
    return counts[np.abs(sums) >= observed].sum() / 2.0 ** len(k)


@pytest.mark.parametrize("n", [14, 20])
def test_randomization_is_exact_up_to_20_queries(n):
    rng = np.random.default_rng(n)
    k = rng.integers(-5, 8, n)
    result = randomization_test(k / 10, np.zeros(n), n_permutations=1000)
    assert result.details.startswith("exact")
    # k / 10 vs integer sums: the 1e-9 relative tolerance of the comparison is far below one step
    assert result.p_value == _exact_by_convolution(k)


def test_monte_carlo_floor_warns_and_auto_raises_the_resamples():
    rng = np.random.default_rng(1)
    n, k = 25, 12  # 66 pairs, every pair 0.1 apart: t rejects all
    base = rng.random(n)
    values = {f"s{i}": {"AP": {f"q{j}": float(base[j] + 0.1 * i + 0.01 * rng.normal()) for j in range(n)}}
              for i in range(k)}
    assert all(p.significant for p in compare_values(values).pairs)
    with pytest.warns(MonteCarloFloorWarning, match="no pair can be significant"):
        floor = compare_values(values, test="randomization", n_permutations=1000)
    assert not any(p.significant for p in floor.pairs) and all(p.p_floored for p in floor.pairs)
    assert "< 1e-3" in floor.render("markdown")
    with warnings.catch_warnings():
        warnings.simplefilter("error", MonteCarloFloorWarning)
        raised = compare_values(values, test="randomization", n_permutations="auto")
    assert raised.settings["n_permutations"] == needed_resamples(66) >= 66 / 0.005 - 1
    assert all(p.significant for p in raised.pairs)
    assert adjust_pvalues(np.full(66, 1 / (needed_resamples(66) + 1)), method="holm").max() <= 0.005


@given(st.lists(st.integers(0, 10), min_size=3, max_size=60), st.integers(0, 2**16))
@settings(max_examples=40, deadline=None)
def test_default_interval_excludes_zero_exactly_when_the_default_test_rejects(xs, seed):
    x = np.array(xs, dtype=float) / 10
    y = np.clip(x + np.random.default_rng(seed).integers(-3, 3, len(x)) / 10, 0, 1)
    c = compare_values({"a": {"M": {f"q{i}": v for i, v in enumerate(x)}},
                        "b": {"M": {f"q{i}": v for i, v in enumerate(y)}}}, correction="none")
    p = c.pairs[0]
    if abs(p.p_value - 0.05) > 1e-9 and np.ptp(x - y) > 0:
        assert (p.ci_low > 0 or p.ci_high < 0) == (p.p_value < 0.05)
    assert c.to_dict()["settings"]["ci"]["matches_test"]


@given(st.lists(st.integers(-6, 6), min_size=2, max_size=12), st.integers(1, 4))
@settings(max_examples=40, deadline=None)
def test_exact_count_by_meeting_in_the_middle_equals_brute_force(ks, scale):
    """The meet-in-the-middle count against every sign vector summed directly (ties, zeros)."""
    from cranfield.stats._resample import all_sign_flips

    d = np.array(ks, dtype=float) / (10 * scale)
    n = len(d)
    observed = abs(d.sum()) - 1e-9 * np.abs(d).sum()
    brute = sum(int((np.abs((2 * bits - 1) @ d) >= observed).sum()) for bits in all_sign_flips(n))
    _, p = paired_pvalues(d[None, :], test="randomization", exact=True)
    assert p[0] == brute / 2 ** n


def test_exact_randomization_beyond_20_on_request():
    rng = np.random.default_rng(26)
    k = rng.integers(-5, 9, 26)
    assert randomization_test(k / 10, np.zeros(26)).details.startswith("Monte Carlo")
    assert randomization_test(k / 10, np.zeros(26), exact=True).p_value == _exact_by_convolution(k)
