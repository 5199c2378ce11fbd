"""Measure families of issue 3 beyond trec_eval (cranfield.measures): nDCG(gain=exp), ERR, AP denominators, F, E, SysEff,
Fallout, judged_only (condensed lists), micro averaging, median, PR tables.

Reference values come from (1) worked examples computed by hand with exact fractions (each
derivation in a comment), (2) brute-force oracles written from the definitions, one loop per
query, on random inputs (hypothesis), (3) gdeval.pl (TREC Web track, via ir_measures) for
ERR@k and exp-gain nDCG@k, and pytrec_eval (via ir_measures) for judged_only, on the real
Cranfield runs. ranx agrees too (ndcg_burges@10, f1@k; checked once, see docs/measures.md) but is
kept out of the tests: its numba JIT costs 15–20 s per process.
"""

from __future__ import annotations

import math
import shutil
from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cranfield
from cranfield.errors import MeasureError, UsageError
from cranfield.measures.base import parse_measure

# --------------------------------------------------------------------------- worked example
# One query. Judgments: a=3, b=0, c=1, d=2, e=1 (e is not retrieved); relevant (≥1): a, c, d, e, R = 4.
# Ranking (scores 5..1): b, a, x, c, d   (x is unjudged: non-relevant by default).
QRELS = {"q1": {"a": 3, "b": 0, "c": 1, "d": 2, "e": 1}}
RUN = {"q1": {"b": 5.0, "a": 4.0, "x": 3.0, "c": 2.0, "d": 1.0}}
# Second query for micro averaging: f relevant, g judged non-relevant; ranking g, h.
QRELS2 = {**QRELS, "q2": {"f": 1, "g": 0}}
RUN2 = {**RUN, "q2": {"g": 2.0, "h": 1.0}}

F = Fraction
# ERR@5, g_max = 3 (highest level judged): stop probabilities R = (2^g − 1)/8:
# b 0, a 7/8, x 0, c 1/8, d 3/8.
# ERR = (1/2)(7/8) + (1/4)(1/8)(1 − 7/8) + (1/5)(3/8)(1 − 7/8)(1 − 1/8) = 7/16 + 1/256 + 21/2560
ERR5 = F(7, 16) + F(1, 256) + F(21, 2560)
assert ERR5 == F(1151, 2560)
# ERR(p=0.9)@5: reaching rank r also needs p^(r−1):
P9 = F(9, 10)
ERR5_P9 = F(1, 2) * F(7, 8) * P9 + F(1, 4) * F(1, 8) * F(1, 8) * P9 ** 3 + F(1, 5) * F(3, 8) * F(7, 64) * P9 ** 4

HAND = {
    # AP@3: the only relevant document in the top 3 is a at rank 2, P = 1/2.
    "AP@3": F(1, 2) / 4, "AP(denom=min)@3": F(1, 2) / 3, "AP(denom=hits)@3": F(1, 2) / 1,
    # AP@5: relevant at ranks 2, 4, 5: 1/2 + 2/4 + 3/5 = 8/5; ÷ R = 4, ÷ min(4, 5) = 4, ÷ hits = 3.
    "AP@5": F(8, 5) / 4, "AP(denom=min)@5": F(8, 5) / 4, "AP(denom=hits)@5": F(8, 5) / 3,
    # F_β@5 = (1+β²)·relret/(β²·R + k), relret = 3: F1 = 6/9; F2 = 15/21.
    "F@5": F(6, 9), "F(beta=2)@5": F(15, 21),
    # E_b = 1 − 1/(α/P + (1−α)/R), α = 1/(b²+1) = 4/5, P = 3/5, R = 3/4: 1 − 1/(4/3 + 4/15) = 3/8.
    "E(b=0.5)@5": F(3, 8),
    # F@2: relret = 1 (a): 2·1/(4 + 2) = 1/3; E@2 = 2/3.
    "F@2": F(1, 3), "E@2": F(2, 3),
    "ERR@5": ERR5, "ERR(p=0.9)@5": ERR5_P9,
    # ERR@1: b has grade 0.
    "ERR@1": F(0),
    # Condensed list (x removed): b, a, c, d: relevant at 2, 3, 4: (1/2 + 2/3 + 3/4)/4 = 23/48.
    "AP(judged_only=true)": F(23, 48), "AP": (F(1, 2) + F(2, 4) + F(3, 5)) / 4,
    # P@3 on the condensed list: a, c in b, a, c.
    "P(judged_only=true)@3": F(2, 3),
}
# Fallout with N = 20: non-relevant retrieved = 5 − 3 = 2 (b, x); N − R = 16.
HAND_N20 = {"Fallout": F(2, 16), "Fallout@3": F(2, 16), "Fallout@1": F(1, 16)}


@pytest.mark.parametrize("name", sorted(HAND))
def test_worked_example(name):
    got = cranfield.evaluate(QRELS, RUN, [name]).mean[str(parse_measure(name))]
    assert got == pytest.approx(float(HAND[name]), abs=1e-15)


@pytest.mark.parametrize("name", sorted(HAND_N20))
def test_fallout_worked_example(name):
    assert cranfield.evaluate(QRELS, RUN, [name], collection_size=20).mean[name] == float(HAND_N20[name])


def test_sys_eff_worked_example():
    # (recall, precision) after each rank: b (0, 0), a (1/4, 1/2), x (1/4, 1/3), c (1/2, 1/2), d (3/4, 3/5).
    # Squared distances to (1, 1) at the relevant ones: 13/16, 1/2, 1/16 + 4/25 = 89/400 (the minimum).
    expected = 1 - math.sqrt(89 / 400) / math.sqrt(2)
    assert cranfield.evaluate(QRELS, RUN, ["SysEff"]).mean["SysEff"] == pytest.approx(expected, abs=1e-15)


def test_ndcg_exp_worked_example():
    # exp gains 2^ℓ − 1: a 7, b 0, c 1, d 3, e 1. DCG@3 = 7/log2(3); ideal order a, d, c|e:
    # IDCG@3 = 7/log2(2) + 3/log2(3) + 1/log2(4).
    expected = (7 / math.log2(3)) / (7 + 3 / math.log2(3) + 1 / 2)
    got = cranfield.evaluate(QRELS, RUN, ["nDCG(gain=exp)@3", "DCG(gain=exp)@3"]).mean
    assert got["nDCG(gain=exp)@3"] == pytest.approx(expected, abs=1e-15)
    assert got["DCG(gain=exp)@3"] == pytest.approx(7 / math.log2(3), abs=1e-15)
    # explicit gains win over gain=exp for the levels they list: {3: 1} makes a's gain 1
    mixed = cranfield.evaluate(QRELS, RUN, ["DCG(gain=exp,gains={3:1})@3"]).mean
    assert mixed["DCG(gain=exp,gains={3:1})@3"] == pytest.approx(1 / math.log2(3), abs=1e-15)


def test_err_gmax_parameter():
    # gmax=4 (gdeval's fixed scale): R_a = 7/16, R_c = 1/16, R_d = 3/16.
    expected = F(1, 2) * F(7, 16) + F(1, 4) * F(1, 16) * F(9, 16) + F(1, 5) * F(3, 16) * F(9, 16) * F(15, 16)
    got = cranfield.evaluate(QRELS, RUN, ["ERR(gmax=4)@5"]).mean["ERR(gmax=4)@5"]
    assert got == pytest.approx(float(expected), abs=1e-15)


def test_micro_and_macro_averages():
    # q1: relret 3, ret 5, R 4; q2: relret 0, ret 2, R 1.
    names = ["SetP", "SetR", "SetF", "SetRelP", "F@5", "E@5", "Fallout", "NumRet"]
    macro = cranfield.evaluate(QRELS2, RUN2, names, collection_size=20).mean
    micro = cranfield.evaluate(QRELS2, RUN2, names, collection_size=20, aggregate="micro").mean
    assert macro["SetP"] == pytest.approx(float((F(3, 5) + 0) / 2))
    assert micro["SetP"] == pytest.approx(float(F(3, 7)))  # (3 + 0) / (5 + 2)
    assert micro["SetR"] == pytest.approx(float(F(3, 5)))  # (3 + 0) / (4 + 1)
    assert micro["SetF"] == pytest.approx(float(F(6, 12)))  # Σ 2·relret / Σ (R + ret) = 6 / (9 + 3)
    assert micro["SetRelP"] == pytest.approx(float(F(3, 5)))  # 3 / (min(5, 4) + min(2, 1))
    assert micro["F@5"] == pytest.approx(float(F(6, 9 + 6)))  # 6 / ((4 + 5) + (1 + 5))
    assert micro["E@5"] == pytest.approx(1 - float(F(6, 15)))
    assert micro["Fallout"] == pytest.approx(float(F(2 + 2, 16 + 19)))  # q2: g, h of 20 − 1
    assert micro["NumRet"] == macro["NumRet"] == 7  # counts are summed either way


def test_micro_needs_a_ratio():
    with pytest.raises(UsageError, match="no micro average for AP"):
        cranfield.evaluate(QRELS, RUN, ["SetP", "AP"], aggregate="micro")
    with pytest.raises(UsageError, match="macro"):
        cranfield.evaluate(QRELS, RUN, ["SetP"], aggregate="weighted")


def test_micro_with_complete_counts_missing_queries():
    # -c: q2 is not in the run: its relevant document counts as missed in micro recall.
    run = {"q1": RUN["q1"]}
    micro = cranfield.evaluate(QRELS2, run, ["SetR"], complete=True, aggregate="micro").mean["SetR"]
    assert micro == pytest.approx(3 / 5)


def test_fallout_needs_collection_size():
    with pytest.raises(UsageError, match="collection size"):
        cranfield.evaluate(QRELS, RUN, ["Fallout"])
    with pytest.raises(UsageError, match="too small for query 'q1'"):
        cranfield.evaluate(QRELS, RUN, ["Fallout"], collection_size=5)  # 4 relevant + 2 non-relevant retrieved


def test_parameters_are_checked():
    for bad in ["AP(denom=max)@5", "nDCG(gain=log)@5", "ERR(p=0)@5", "ERR(p=1.5)", "E(b=-1)@5", "ERR(gmax=-1)"]:
        with pytest.raises(MeasureError):
            parse_measure(bad)


@pytest.mark.parametrize("text", ["nDCG(gain=exp)@10", "DCG(gain=exp)", "ERR@20", "ERR(p=0.9)@20", "ERR(gmax=4)@10",
                                  "AP(denom=min)@10", "AP(denom=hits)@10", "F@10", "F(beta=2)@10", "E(b=0.5)@10",
                                  "SysEff", "Fallout", "Fallout@10", "nDCG(judged_only=true)@10",
                                  "AP(denom=hits,judged_only=true)@5"])
def test_canonical_names_round_trip(text):
    measure = parse_measure(text)
    assert str(measure) == text and parse_measure(str(measure)) == measure


def test_defaults_are_omitted():
    assert str(parse_measure("nDCG(gain=linear)@10")) == "nDCG@10"
    assert str(parse_measure("AP(denom=R)@10")) == "AP@10"
    assert str(parse_measure("ERR(p=1)@10")) == "ERR@10"
    assert str(parse_measure("P(judged_only=false)@10")) == "P@10"
    assert str(parse_measure("F1@10")) == "F@10"


def test_median_and_per_query_table():
    results = cranfield.evaluate(QRELS2, RUN2, ["SetP", "AP"])
    assert results.median["SetP"] == pytest.approx(np.median([3 / 5, 0.0]))
    # geometric mean with trec_eval's floor: √(3/5 · 1e-5); for AP it equals GMAP
    assert results.gmean["SetP"] == pytest.approx(math.sqrt(3 / 5 * 1e-5))
    assert results.gmean["AP"] == pytest.approx(cranfield.evaluate(QRELS2, RUN2, ["GMAP"]).mean["GMAP"])
    frame = results.to_pandas()
    assert list(frame.index) == ["q1", "q2"] and frame.loc["q1", "SetP"] == pytest.approx(3 / 5)


def test_pr_table_worked_example():
    table = cranfield.pr_table(QRELS, RUN)
    assert table.rank.tolist() == [1, 2, 3, 4, 5]
    assert table.relevant.tolist() == [False, True, False, True, True]
    assert table.precision.tolist() == pytest.approx([0, 1 / 2, 1 / 3, 2 / 4, 3 / 5])
    assert table.recall.tolist() == pytest.approx([0, 1 / 4, 1 / 4, 2 / 4, 3 / 4])
    frame = table.to_pandas()
    assert list(frame.columns) == ["qid", "rank", "relevant", "precision", "recall"] and len(frame) == 5


def test_iprec_table_matches_iprec_measures(cranfield_dir):
    qrels, run = cranfield_dir / "qrels.raw.trec", cranfield_dir / "runs" / "bm25.run"
    table = cranfield.iprec_table(qrels, run)
    names = [f"IPrec@{r / 10:g}" for r in range(11)]
    results = cranfield.evaluate(qrels, run, names + ["IPrec11"])
    for j, name in enumerate(names):
        np.testing.assert_array_equal(table.values[:, j], results.per_query[str(parse_measure(name))])
    assert table.mean.mean() == pytest.approx(results.mean["IPrec11"], abs=1e-12)
    # worked example: R = 4, relevant at ranks 2, 4, 5 (precision 1/2, 1/2, 3/5); recall 1 never reached
    small = cranfield.iprec_table(QRELS, RUN, levels=[0.0, 0.25, 0.5, 0.75, 1.0])
    assert small.values[0].tolist() == pytest.approx([3 / 5, 3 / 5, 3 / 5, 3 / 5, 0.0])
    with pytest.raises(UsageError):
        cranfield.iprec_table(QRELS, RUN, levels=[1.5])


def test_cli_aggregate(tmp_path, cranfield_dir):
    from cranfield.cli import evaluate_cmd

    qrels, run = str(cranfield_dir / "qrels.raw.trec"), str(cranfield_dir / "runs" / "bm25.run")
    out = CliRunner().invoke(evaluate_cmd.command, [qrels, run, "-m", "SetR", "-m", "F@10", "--aggregate", "micro",
                                                    "-f", "csv"])
    assert out.exit_code == 0, out.output
    expected = cranfield.evaluate(qrels, run, ["SetR", "F@10"], aggregate="micro").mean
    row = out.output.strip().splitlines()[1].split(",")  # run, queries, SetR, F@10
    assert [float(v) for v in row[2:]] == pytest.approx([expected["SetR"], expected["F@10"]], abs=1e-12)
    out = CliRunner().invoke(evaluate_cmd.command, [qrels, run, "-m", "Fallout@10", "-N", "1400", "-m",
                                                    "ERR(p=0.9)@20", "-m", "nDCG(gain=exp)@10"])
    assert out.exit_code == 0, out.output
    assert "Fallout@10" in out.output and "ERR(p=0.9)@20" in out.output


# --------------------------------------------------------------------------- brute-force oracles


def ranking(run_q: dict) -> list:
    """trec_eval order: score descending, ties by docno descending."""
    return sorted(run_q, key=lambda d: (run_q[d], d), reverse=True)


def oracle(name: str, qrels_q: dict, run_q: dict, *, collection_size: int = 100) -> float:
    """One query, straight from the definitions (relevance level 1)."""
    m = parse_measure(name)
    docs = ranking(run_q)
    if m.param("judged_only"):
        docs = [d for d in docs if qrels_q.get(d, -1) >= 0]
    rel = [max(qrels_q.get(d, 0), 0) for d in docs]
    big_r = sum(1 for v in qrels_q.values() if v >= 1)
    k = m.cutoff
    top = rel if k is None else rel[:k]
    if m.name == "AP":
        hits, total = 0, 0.0
        for i, g in enumerate(top, 1):
            if g >= 1:
                hits += 1
                total += hits / i
        denom = {"R": big_r, "min": big_r if k is None else min(big_r, k), "hits": hits}[m.param("denom")]
        return total / denom if denom else 0.0
    if m.name == "ERR":
        gmax = m.param("gmax")
        if gmax is None:
            gmax = max([v for q in ALL_QRELS for v in q.values() if v >= 0], default=0)
        value, reach = 0.0, 1.0
        for i, g in enumerate(top, 1):
            stop = (2 ** min(g, gmax) - 1) / 2 ** gmax
            value += reach * stop / i
            reach *= (1 - stop) * m.param("p")
        return value
    if m.name in ("F", "E"):
        beta = m.param("beta" if m.name == "F" else "b")
        kk = len(docs) if k is None else k
        relret = sum(1 for g in top if g >= 1)
        p, r = relret / kk if kk else 0.0, relret / big_r if big_r else 0.0
        f = (1 + beta ** 2) * p * r / (beta ** 2 * p + r) if p + r > 0 else 0.0
        return f if m.name == "F" else 1 - f
    if m.name == "SysEff":
        best, relret = 2.0, 0
        for i, g in enumerate(rel, 1):
            relret += g >= 1
            recall = relret / big_r if big_r else 0.0
            best = min(best, (1 - recall) ** 2 + (1 - relret / i) ** 2)
        return 1 - math.sqrt(best) / math.sqrt(2)
    if m.name == "Fallout":
        nonrel = sum(1 for g in top if g < 1)
        return nonrel / (collection_size - big_r) if collection_size > big_r else 0.0
    if m.name == "nDCG":
        gain = (lambda g: 2 ** g - 1) if m.param("gain") == "exp" else (lambda g: g)
        dcg = sum(gain(g) / math.log2(i + 1) for i, g in enumerate(top, 1))
        ideal = sorted((gain(v) for v in qrels_q.values() if v > 0), reverse=True)
        ideal = ideal if k is None else ideal[:k]
        idcg = sum(g / math.log2(i + 1) for i, g in enumerate(ideal, 1))
        return dcg / idcg if idcg else 0.0
    if m.name == "P":
        return sum(1 for g in top if g >= 1) / k
    raise AssertionError(name)


ALL_QRELS: list = []  # the qrels of the current example (ERR's default g_max is over all queries)

DOCS = ["d1", "d10", "d2", "d20", "d3", "D4", "d5", "e", "f9"]


@st.composite
def instances(draw):
    n_queries = draw(st.integers(1, 4))
    qrels, run = {}, {}
    for q in range(n_queries):
        judged = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=len(DOCS), unique=True))
        qrels[f"q{q}"] = {d: draw(st.integers(-1, 3)) for d in judged}
        retrieved = draw(st.lists(st.sampled_from(DOCS), min_size=0, max_size=len(DOCS), unique=True))
        if retrieved:
            run[f"q{q}"] = {d: float(draw(st.sampled_from([0.0, 0.5, 1.0, 1.5, -1.0]))) for d in retrieved}
    if not run:
        run["q0"] = {"zz": 1.0}
    return qrels, run


ORACLE_MEASURES = ["AP", "AP@3", "AP(denom=min)@3", "AP(denom=hits)@3", "AP(denom=min)", "AP(denom=hits)",
                   "ERR", "ERR@3", "ERR(p=0.7)@4", "ERR(gmax=2)@5", "F@3", "F(beta=2)@2", "F(beta=0.5)", "E@4",
                   "E(b=0.5)@3", "SysEff", "Fallout", "Fallout@2", "nDCG(gain=exp)@3", "nDCG(gain=exp)",
                   "AP(judged_only=true)", "nDCG(gain=exp,judged_only=true)@3", "P(judged_only=true)@2"]
SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(instances())
def test_against_brute_force_oracles(instance):
    qrels, run = instance
    ALL_QRELS[:] = list(qrels.values())
    results = cranfield.evaluate(qrels, run, ORACLE_MEASURES, collection_size=100)
    for name in ORACLE_MEASURES:
        key = str(parse_measure(name))
        for i, qid in enumerate(results.query_ids):
            expected = oracle(name, qrels[qid], run.get(qid, {}))
            assert results.per_query[key][i] == pytest.approx(expected, abs=1e-12), (name, qid)


NEW = ["ERR@3", "ERR(p=0.5)@3", "F@3", "F(beta=2)@3", "E(b=0.5)@3", "AP(denom=min)@3", "AP(denom=hits)@3",
       "nDCG(gain=exp)@3", "Fallout@3", "nDCG(judged_only=true)@3"]


@SETTINGS
@given(instances(), st.integers(1, 4))
def test_bounds_and_query_order(instance, extra):
    qrels, run = instance
    names = NEW + ["SysEff", "ERR", "F", "E"]
    results = cranfield.evaluate(qrels, run, names, collection_size=100)
    reversed_run = {q: run[q] for q in reversed(list(run))}
    again = cranfield.evaluate({q: qrels[q] for q in reversed(list(qrels))}, reversed_run, names, collection_size=100)
    for measure in results.measures:
        values = results.per_query[str(measure)]
        lo, hi = measure.family.bounds
        assert np.isfinite(values).all() and (values >= lo).all() and (values <= hi + 1e-12).all(), measure
        np.testing.assert_array_equal(values, again.per_query[str(measure)])


@SETTINGS
@given(instances(), st.integers(1, 4))
def test_appending_non_relevant_below_k_changes_nothing(instance, n_extra):
    qrels, run = instance
    longer = {}
    for q, docs in run.items():
        low = min(docs.values()) - 10.0
        added = {f"zz{j}": low - j for j in range(n_extra)}  # unjudged, below every retrieved document
        longer[q] = {**docs, **added}
    # at k ≤ the shortest ranking the top k is unchanged (Fallout@k grows with shorter lists)
    k = min(len(docs) for docs in run.values())
    names = [n.replace("@3", f"@{k}") for n in NEW]
    before = cranfield.evaluate(qrels, run, names, collection_size=100)
    after = cranfield.evaluate(qrels, longer, names, collection_size=100)
    for name in before.per_query:
        np.testing.assert_allclose(before.per_query[name], after.per_query[name], rtol=0, atol=1e-15, err_msg=name)


@SETTINGS
@given(st.lists(st.integers(0, 4), min_size=1, max_size=12), st.integers(1, 15))
def test_ideal_ranking(levels, k):
    qrels = {"q": {f"d{i}": g for i, g in enumerate(levels)}}
    order = sorted(qrels["q"], key=lambda d: -qrels["q"][d])
    run = {"q": {d: float(len(order) - i) for i, d in enumerate(order)}}
    names = [f"nDCG(gain=exp)@{k}", "nDCG(gain=exp)", "AP(denom=min)@{}".format(k), "SysEff"]
    results = cranfield.evaluate(qrels, run, names)
    if any(g > 0 for g in levels):
        for name in results.per_query:
            assert results.per_query[name][0] == pytest.approx(1.0, abs=1e-12), name
    # ERR of the ideal ranking is the highest ERR over all orderings: check against the reverse
    worst = {"q": {d: float(i) for i, d in enumerate(order)}}
    assert cranfield.evaluate(qrels, run, [f"ERR@{k}"]).mean[f"ERR@{k}"] >= \
        cranfield.evaluate(qrels, worst, [f"ERR@{k}"]).mean[f"ERR@{k}"] - 1e-15


@SETTINGS
@given(instances())
def test_relations(instance):
    qrels, run = instance
    r = cranfield.evaluate(qrels, run, ["F@3", "E@3", "F", "SetF", "ERR@3", "ERR(p=0.6)@3", "AP@3",
                                         "AP(denom=min)@3", "AP(denom=hits)@3", "SetP", "SetR", "F(beta=2)@3"],
                           collection_size=100)
    pq = r.per_query
    np.testing.assert_allclose(pq["E@3"], 1 - pq["F@3"], atol=1e-15)
    np.testing.assert_allclose(pq["F"], pq["SetF"], atol=1e-15)
    assert (pq["ERR(p=0.6)@3"] <= pq["ERR@3"] + 1e-15).all()
    assert (pq["AP@3"] <= pq["AP(denom=min)@3"] + 1e-15).all() and (pq["AP(denom=min)@3"] <= pq["AP(denom=hits)@3"]
                                                                    + 1e-15).all()
    # micro = macro for one query; micro SetP = Σ relret / Σ ret
    micro = cranfield.evaluate(qrels, run, ["SetP", "NumRelRet", "NumRet"], aggregate="micro")
    expected = micro.mean["NumRelRet"] / micro.mean["NumRet"] if micro.mean["NumRet"] else 0.0
    assert micro.mean["SetP"] == pytest.approx(expected, abs=1e-15)


# --------------------------------------------------------------------------- peers on real data

ir_measures = pytest.importorskip("ir_measures")


@pytest.mark.skipif(shutil.which("perl") is None, reason="gdeval needs perl")
@pytest.mark.parametrize("run_file", ["bm25.run", "tfidf.run", "coord_title.run"])
def test_err_and_exp_ndcg_match_gdeval(cranfield_dir, run_file):
    """gdeval.pl prints 5 decimals; it fixes g_max = 4, the top level of the graded Cranfield qrels,
    and breaks ties by docno descending like trec_eval (coord_title has many ties)."""
    qrels_path, run_path = cranfield_dir / "qrels.graded.trec", cranfield_dir / "runs" / run_file
    qrels = list(ir_measures.read_trec_qrels(str(qrels_path)))
    run = list(ir_measures.read_trec_run(str(run_path)))
    pairs = {"ERR@20": "ERR@20", "ERR@5": "ERR@5", "nDCG(gain=exp)@10": "nDCG@10"}
    reference: dict = {}
    for metric in ir_measures.gdeval.iter_calc([ir_measures.parse_measure(m) for m in set(pairs.values())], qrels, run):
        reference.setdefault(str(metric.measure), {})[metric.query_id] = metric.value
    ours = cranfield.evaluate(qrels_path, run_path, list(pairs) + ["ERR(gmax=4)@20"])
    for name, peer in pairs.items():
        expected = np.array([reference[peer][q] for q in ours.query_ids])
        np.testing.assert_allclose(ours.per_query[name], expected, rtol=0, atol=5.01e-6, err_msg=name)
    np.testing.assert_array_equal(ours.per_query["ERR(gmax=4)@20"], ours.per_query["ERR@20"])


@pytest.mark.parametrize("qrels_file", ["qrels.raw.trec", "qrels.graded.trec"])
def test_judged_only_matches_pytrec_eval(cranfield_dir, qrels_file):
    from ir_measures import AP, RR, P, nDCG

    qrels_path, run_path = cranfield_dir / qrels_file, cranfield_dir / "runs" / "coord_title.run"
    qrels = list(ir_measures.read_trec_qrels(str(qrels_path)))
    run = list(ir_measures.read_trec_run(str(run_path)))
    pairs = {"nDCG(judged_only=true)@10": nDCG(judged_only=True) @ 10, "AP(judged_only=true)": AP(judged_only=True),
             "P(judged_only=true)@5": P(judged_only=True) @ 5, "RR(judged_only=true)": RR(judged_only=True)}
    reference: dict = {}
    for metric in ir_measures.pytrec_eval.iter_calc(list(pairs.values()), qrels, run):
        reference.setdefault(str(metric.measure), {})[metric.query_id] = metric.value
    ours = cranfield.evaluate(qrels_path, run_path, list(pairs))
    for name, peer in pairs.items():
        expected = np.array([reference[str(peer)][q] for q in ours.query_ids])
        np.testing.assert_allclose(ours.per_query[name], expected, rtol=0, atol=1e-12, err_msg=name)
    # the evaluation-wide option (trec_eval -J) gives the same numbers
    wide = cranfield.evaluate(qrels_path, run_path, ["nDCG@10", "AP"], judged_only=True)
    np.testing.assert_array_equal(wide.per_query["AP"], ours.per_query["AP(judged_only=true)"])


def test_rbp_residual_worked_example():
    """Moffat & Zobel 2008 §4: the residual is the RBP weight of the unjudged documents in the
    ranking plus p^d for everything below the depth d. Ranking a (relevant), b (unjudged),
    c (non-relevant), p = 1/2: RBP = (1/2)·1 = 1/2; residual = (1/2)·(1/2)^1 + (1/2)^3 = 3/8."""
    qrels, run = {"q": {"a": 1, "c": 0, "z": 1}}, {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    got = cranfield.evaluate(qrels, run, ["RBP(p=0.5)", "RBP(p=0.5,residual=true)"]).mean
    assert got == {"RBP(p=0.5)": 0.5, "RBP(p=0.5,residual=true)": 0.375}


def test_err_with_large_levels_stays_finite():
    # R = 1 − 2^−60 rounds to 1 in double precision: log(1 − R) must not become −inf·0 = NaN
    qrels, run = {"q": {"a": 60, "b": 3, "c": 0}}, {"q": {"c": 3.0, "a": 2.0, "b": 1.0}}
    values = cranfield.evaluate(qrels, run, ["ERR", "ERR(gmax=1000)", "ERR(p=0.5)"]).mean
    assert values["ERR"] == pytest.approx(0.5) and values["ERR(p=0.5)"] == pytest.approx(0.25)
    assert 0 < values["ERR(gmax=1000)"] < 1e-250
    with pytest.raises(MeasureError):
        parse_measure("ERR(gmax=1001)")
