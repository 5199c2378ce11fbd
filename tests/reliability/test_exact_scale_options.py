"""Issue 24, round 3: one property test per root cause that silently gave a wrong number.

* cause 2, exact ties and sums: system means equal as rationals tie (rank correlations, the
  ranking of systems under two sets of judgments); means of integers near 2⁶³ and 2⁵³ exact;
* cause 3, scale: scale-invariant statistics unchanged when the inputs are scaled by 2^±600;
  gains that overflow the DCG sums refused;
* cause 4, option values: non-finite, fractional or too-small values are usage errors (exit 2)
  naming the user's own option;
* cause 8, statistics printed as more than they are: an adjusted p computed from a Monte Carlo p
  at its floor is printed as a bound, Tukey's p has its own field.

Each reference is independent: exact rationals (:mod:`fractions`), scipy's Kendall τ-b, the value
at scale 1. (Cause 9, the load-dependent signal test: tests/reliability/test_nothing_lost.py.)
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from scipy import stats

import cranfield.cli
from cranfield import MeasureError, UsageError, evaluate, parse_measure
from cranfield.classification import r2_score
from cranfield.classification.calibration import calibration_slope
from cranfield.classification.clustering import (
    calinski_harabasz_score,
    davies_bouldin_score,
    silhouette_score,
)
from cranfield.classification.regression import explained_variance_score
from cranfield.correlation import kendall_tau
from cranfield.judgments import aggregate_labels
from cranfield.judgments.agreement import ranking_agreement
from cranfield.online import ab_test
from cranfield.online.ab import sample_ratio_mismatch
from cranfield.online.power import effect_size_from_proportions
from cranfield.stats import compare_values, mean_ci

CLI_SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _cli(argv, capsys):
    status = cranfield.cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


# ------------------------------------------------------------------ cause 2: exact ties and sums

def _float_mean(values) -> float:
    """A mean as trec_eval computes it: a running float sum in query order, divided by n."""
    total = 0.0
    for v in values:
        total += float(v)
    return total / len(values)


rationals = st.builds(Fraction, st.integers(0, 12), st.integers(1, 12))


@settings(max_examples=200, deadline=None)
@given(values=st.lists(rationals, min_size=3, max_size=8), other=st.lists(rationals, min_size=3, max_size=8),
       order=st.randoms(use_true_random=False))
def test_means_equal_as_rationals_are_tied_in_rank_correlations(values, other, order):
    shuffled = list(values)
    order.shuffle(shuffled)  # system B: system A's per-query values in another order (same rational mean)
    exact = {"A": sum(values) / len(values), "B": sum(shuffled) / len(shuffled), "C": sum(other) / len(other)}
    floats = {"A": _float_mean(values), "B": _float_mean(shuffled), "C": _float_mean(other)}
    reference = {"A": Fraction(1), "B": Fraction(1), "C": Fraction(0)}  # A and B tied, above C
    assume(exact["C"] != exact["A"])
    names = list(exact)
    expected = stats.kendalltau([exact[n] for n in names], [reference[n] for n in names], variant="b").statistic
    assert kendall_tau(floats, {n: float(v) for n, v in reference.items()}) == pytest.approx(expected, abs=1e-12)


def _one_relevant_run(ranks: dict) -> dict:
    """Per query i, document x at rank ranks["x"][i] and y at ranks["y"][i] among 12 documents."""
    out = {}
    for i in range(3):
        at = {ranks["x"][i]: "x", ranks["y"][i]: "y"}
        out[f"q{i + 1}"] = {at.get(r, f"f{r}"): float(20 - r) for r in range(1, 13)}
    return out


def test_agreement_runs_ranks_equal_rational_means_as_ties():
    # AP of a query with one relevant document = 1/rank: A and B have the same mean as rationals
    # under each set of judgments (1/2 + 1/3 + 1/7 in two orders, then 1/3 + 1/5 + 1/4), but the
    # float sums differ in the last bit in opposite directions; C is best under both sets
    a = _one_relevant_run({"x": (2, 3, 7), "y": (3, 5, 4)})
    b = _one_relevant_run({"x": (7, 3, 2), "y": (3, 4, 5)})
    c = {f"q{i + 1}": {"x": 20.0, "y": 19.0, **{f"f{r}": float(20 - r) for r in range(3, 13)}} for i in range(3)}
    first = {f"q{i + 1}": {"x": 1, "y": 0} for i in range(3)}
    second = {f"q{i + 1}": {"x": 0, "y": 1} for i in range(3)}
    result = ranking_agreement([first, second], [a, b, c], measure="AP")
    assert result.scores[0, 0] != result.scores[0, 1]  # the float means do differ...
    # ...but both rankings are (C, then A = B): τ-b = 1 (the old code gave 1/3)
    assert result.kendall_tau[0, 1] == result.kendall_tau[1, 0] == 1.0


def test_tied_means_are_all_bold_in_the_systems_table():
    a, b = [1 / 11, 1 / 10, 1 / 5], [1 / 5, 1 / 10, 1 / 11]  # the same rational mean, sums differing in the last bit
    queries = ["q1", "q2", "q3"]
    c = compare_values({"A": {"AP": dict(zip(queries, a))}, "B": {"AP": dict(zip(queries, b))}}, test="t")
    assert c.summaries[0].mean != c.summaries[1].mean
    rows = [line for line in c.render("markdown").splitlines() if line.startswith(("| a |", "| b |"))]
    assert len(rows) == 2 and all("**0.1303**" in row for row in rows), rows


near_2_63 = st.integers(2**63 - 2**12, 2**63 - 1)
near_2_53 = st.integers(2**53 - 8, 2**53 + 8)


@settings(max_examples=100, deadline=None)
@given(labels=st.one_of(st.lists(near_2_63, min_size=1, max_size=5), st.lists(near_2_53, min_size=1, max_size=5),
                        st.lists(st.integers(-2**63, -2**63 + 4), min_size=1, max_size=5)),
       ties=st.sampled_from(["lowest", "highest"]))
def test_the_mean_of_integer_labels_is_exact(labels, ties):
    result = aggregate_labels({"q": {"d": {f"w{i}": v for i, v in enumerate(labels)}}}, method="mean", ties=ties)
    mean = Fraction(sum(labels), len(labels))
    half = mean - Fraction(1, 2) if ties == "lowest" else mean + Fraction(1, 2)
    expected = math.ceil(half) if ties == "lowest" else math.floor(half)
    assert result.label.tolist() == [expected]
    assert result.score.tolist() == [float(mean)]  # correctly rounded


# ------------------------------------------------------------------ cause 3: scale invariance

powers = st.sampled_from([-600, -300, -150, 150, 300, 600])


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**16), exponent=powers)
def test_clustering_scores_do_not_depend_on_the_scale(seed, exponent):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(24, 3))
    labels = np.arange(24) % 3
    scaled = np.ldexp(X, exponent)
    for score in (silhouette_score, davies_bouldin_score, calinski_harabasz_score):
        assert score(scaled, labels) == score(X, labels), score.__name__


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**16), exponent=powers)
def test_r2_and_explained_variance_do_not_depend_on_the_scale(seed, exponent):
    rng = np.random.default_rng(seed)
    y = rng.normal(size=20)
    y_hat = y + rng.normal(scale=0.3, size=20)
    truth, pred = np.ldexp(y, exponent), np.ldexp(y_hat, exponent)
    assert r2_score(truth, pred) == r2_score(y, y_hat)
    assert explained_variance_score(truth, pred) == explained_variance_score(y, y_hat)


@settings(max_examples=30, deadline=None)
@given(exponent=st.sampled_from([-1000, -600, 600, 1000, 1023]), share=st.sampled_from([1.0, 1.5, 0.75]))
def test_the_sample_ratio_chi2_does_not_depend_on_the_scale_of_the_shares(exponent, share):
    log = {"impression": [f"i{k}" for k in range(30)], "variant": ["A"] * 18 + ["B"] * 12}
    metrics = _impressions(log)
    reference = sample_ratio_mismatch(metrics, expected_split={"A": share, "B": 1.0})
    scaled = sample_ratio_mismatch(metrics, expected_split={"A": math.ldexp(share, exponent),
                                                            "B": math.ldexp(1.0, exponent)})
    assert math.isfinite(scaled.statistic) and scaled.statistic == pytest.approx(reference.statistic, rel=1e-12)


def _impressions(columns):
    from cranfield.online import ClickLog, impression_metrics

    n = len(columns["impression"])
    log = ClickLog.from_columns(impression=columns["impression"], variant=columns["variant"],
                                query=["q"] * n, doc=["d"] * n, rank=[1] * n, clicked=[k % 2 for k in range(n)])
    return impression_metrics(log, metrics=["ctr"])


@pytest.mark.parametrize("gain", ["1e308", "1.7e308", "2e154"])
def test_gains_that_overflow_the_dcg_sums_are_refused(gain):
    with pytest.raises(MeasureError, match="at most 2\\^512"):
        parse_measure(f"nDCG(gains={{1:{gain}}})")


def test_large_allowed_gains_give_finite_values():
    qrels = {"q": {f"d{i}": 1 for i in range(50)}}
    run = {"q": {f"d{i}": float(50 - i) for i in range(50)}}
    result = evaluate(qrels, run, ["DCG(gains={1:1e154})", "nDCG(gains={1:1e154})"])
    assert all(math.isfinite(v) for v in result.mean.values())
    assert result.mean["nDCG(gains={1:1e+154})"] == 1.0


# ------------------------------------------------------------------ cause 4: option values

non_finite = st.sampled_from(["nan", "inf", "-inf"])


@CLI_SETTINGS
@given(value=non_finite, option=st.sampled_from(["--baseline", "--mde", "--alpha", "--ratio", "--power"]))
def test_online_power_names_the_option_of_a_bad_value(value, option, capsys):
    argv = {"--baseline": "0.3", "--mde": "0.01", option: value}
    status, _, err = _cli(["online", "power", *sum(argv.items(), ())], capsys)
    assert status == 2 and err.startswith(f"cranfield: error: {option}"), err


@pytest.mark.parametrize("baseline, mde, named", [("0.3", "0.8", "--baseline + --mde"), ("1.3", "0.1", "--baseline")])
def test_online_power_speaks_of_baseline_and_mde_not_p1_p2(baseline, mde, named, capsys):
    status, _, err = _cli(["online", "power", "--baseline", baseline, "--mde", mde], capsys)
    assert status == 2 and err.startswith(f"cranfield: error: {named}: expected a number from 0 to 1"), err
    assert "p1" not in err and "p2" not in err


@pytest.fixture(scope="module")
def probabilities(tmp_path_factory):
    path = tmp_path_factory.mktemp("cal") / "cal.csv"
    path.write_text("label,score\n1,0.9\n0,0.2\n1,0.7\n0,0.4\n1,0.3\n0,0.6\n")
    return path


@CLI_SETTINGS
@given(value=st.one_of(non_finite, st.sampled_from(["0", "0.5", "0.7", "-1"])))
def test_calibration_clip_out_of_range_is_a_usage_error(value, probabilities, capsys):
    status, out, err = _cli(["calibration", probabilities, "--truth", "label", "--score", "score", "--clip", value,
                             "--format", "json"], capsys)
    assert status == 2 and out == "" and err.startswith("cranfield: error: --clip: expected a number strictly between"), err


def test_calibration_bootstrap_of_one_resample_is_a_usage_error(probabilities, capsys):
    status, _, err = _cli(["calibration", probabilities, "--truth", "label", "--score", "score", "--bootstrap", "1"],
                          capsys)
    assert status == 2 and err.startswith("cranfield: error: --bootstrap: expected a whole number >= 2"), err


@pytest.fixture(scope="module")
def click_log(tmp_path_factory):
    from tests.online.clicklog_factory import random_log_columns

    path = tmp_path_factory.mktemp("ab") / "clicks.csv"
    pd.DataFrame(random_log_columns(21, n_users=40)).to_csv(path, index=False)
    return path


def test_ab_bootstrap_of_one_resample_is_a_usage_error(click_log, capsys):
    status, _, err = _cli(["online", "ab", click_log, "--test", "bootstrap", "--resamples", "1", "-m", "ctr"], capsys)
    assert status == 2 and err.startswith("cranfield: error: --resamples: expected a whole number >= 2"), err


@settings(max_examples=10, deadline=None)
@given(resamples=st.integers(2, 30), seed=st.integers(0, 100))
def test_an_ab_bootstrap_p_is_never_zero(resamples, seed):
    from cranfield.online import read_click_log
    from tests.online.clicklog_factory import random_log_columns

    log = read_click_log(pd.DataFrame(random_log_columns(seed, n_users=30)))
    for test in ab_test(log, metrics=["ctr"], test="bootstrap", n_resamples=resamples, random_state=seed).tests:
        assert test.p_value >= 2 / (resamples + 1) or test.p_value == 1.0


@pytest.mark.parametrize("call, name", [
    (lambda v: mean_ci([0.1, 0.2, 0.4], confidence=v), "confidence"),
    (lambda v: calibration_slope([0, 1, 0, 1], [0.2, 0.7, 0.4, 0.6], clip=v), "clip"),
    (lambda v: effect_size_from_proportions(v, 0.5), "p1"),
    (lambda v: evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, ["P@1"], max_results=v), "max_results"),
    (lambda v: evaluate({"q": {"d": 1}}, {"q": {"d": 1.0}}, ["P@1"], relevance_level=v), "relevance_level"),
])
@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 1.5, True])
def test_library_options_refuse_non_finite_and_fractional_values(call, name, value):
    if name == "p1" and value is True:
        value = 2.5  # a bool is a number for p1's check in no version; try another bad value
    with pytest.raises(UsageError, match=f"^{name}: expected "):
        call(value)


@pytest.mark.parametrize("gains", ["{1.5:3}", "{1:1,2.5:4}", "{0.5:2}"])
def test_fractional_gain_keys_are_refused(gains):
    with pytest.raises(MeasureError, match="not a valid gain map"):
        parse_measure(f"nDCG(gains={gains})")


def test_a_bootstrap_over_one_query_is_a_usage_error(tmp_path, capsys):
    (tmp_path / "a").write_text("1 0 d1 1\n1 0 d2 0\n")
    (tmp_path / "b").write_text("1 0 d1 0\n1 0 d2 1\n")
    status, _, err = _cli(["agreement", tmp_path / "a", tmp_path / "b"], capsys)
    assert status == 2 and err.startswith("cranfield: error: --resamples: a bootstrap interval over queries needs "
                                          "at least 2 queries"), err
    status, _, err = _cli(["agreement", tmp_path / "a", tmp_path / "b", "--resamples", "0"], capsys)
    assert status == 0, err


# ------------------------------------------------------------------ cause 8: p values as they are

def _clear_winner(n: int = 40) -> dict:
    rng = np.random.default_rng(1)
    return {s: {"AP": {f"q{i}": x for i, x in enumerate(rng.normal(m, 0.1, n))}}
            for s, m in [("a", 0.5), ("b", 0.3), ("c", 0.31)]}


@pytest.mark.parametrize("correction", ["holm", "bonferroni", "bh", "none", "randomized-tukey"])
def test_an_adjusted_p_from_a_floored_p_is_printed_as_a_bound(correction):
    c = compare_values(_clear_winner(), test="randomization", n_permutations=10_000, random_state=1,
                       correction=correction)
    floored = [p for p in c.pairs if p.p_floored]
    assert floored and all(p.p_adjusted_floored for p in floored)
    rows = [line for line in c.render("markdown").splitlines() if line.startswith("| AP")]
    for p, row in zip(c.pairs, rows):
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        if p.p_floored:
            assert cells[6] == "< 1e-4" and cells[7].startswith("< "), row  # both columns honest
    doc = json.loads(c.to_json())
    assert [q["p_adjusted_floored"] for q in doc["measures"]["AP"]["pairs"]] == [p.p_adjusted_floored for p in c.pairs]


def test_tukeys_p_has_its_own_field():
    c = compare_values(_clear_winner(), test="t", correction="tukey")
    assert all(p.p_tukey == p.p_adjusted for p in c.pairs)
    c = compare_values(_clear_winner(), test="t", correction="holm")
    assert all(p.p_tukey is None for p in c.pairs)
