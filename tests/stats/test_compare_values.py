import copy
import csv
import io
import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from cranfield.errors import InputError, UsageError
from cranfield.stats import adjust_pvalues, compare_values


def _values(rng, systems=("bm25", "tfidf", "coord"), measures=("AP", "nDCG@10"), n=40, offsets=(0.1, 0.08, -0.1)):
    qids = [f"q{i}" for i in range(n)]
    base = rng.random(n) * 0.6
    return {s: {m: dict(zip(qids, np.clip(base + off + rng.normal(0, 0.08, n), 0, 1).round(4)))
                for m in measures} for s, off in zip(systems, offsets)}


def test_numbers_match_the_building_blocks(rng):
    values = _values(rng)
    c = compare_values(values, test="t", correction="holm")
    assert c.systems == ("bm25", "tfidf", "coord") and c.measures == ("AP", "nDCG@10")
    assert [(p.a, p.b) for p in c.pairs if p.measure == "AP"] == [("bm25", "tfidf"), ("bm25", "coord"), ("tfidf", "coord")]
    qids = sorted(values["bm25"]["AP"])
    for m in c.measures:
        raw = []
        for p in [p for p in c.pairs if p.measure == m]:
            x = np.array([values[p.a][m][q] for q in qids])
            y = np.array([values[p.b][m][q] for q in qids])
            ref = stats.ttest_rel(x, y)
            assert p.p_value == pytest.approx(ref.pvalue, rel=1e-10)
            assert p.diff == pytest.approx((x - y).mean(), abs=1e-14)
            # ci="auto" is the t interval, the one the t test inverts (issue 17; it was normal from n = 30)
            assert (p.ci_low, p.ci_high) == pytest.approx(stats.t.interval(0.95, len(x) - 1, (x - y).mean(), stats.sem(x - y)), abs=1e-12)
            assert p.statistic == pytest.approx(ref.statistic, rel=1e-10) and p.df == len(x) - 1 and p.n == len(x)
            assert p.effect_size == pytest.approx((x - y).mean() / (x - y).std(ddof=1), rel=1e-12)
            assert (p.wins, p.ties, p.losses) == ((x > y).sum(), (x == y).sum(), (x < y).sum())
            raw.append(p.p_value)
        adjusted = adjust_pvalues(raw, method="holm")
        assert [p.p_adjusted for p in c.pairs if p.measure == m] == pytest.approx(adjusted.tolist(), abs=1e-15)
        assert [p.significant for p in c.pairs if p.measure == m] == [bool(q <= 0.05) for q in adjusted]
    s = c.summary("AP", "coord")
    x = np.array([values["coord"]["AP"][q] for q in qids])
    assert (s.mean, s.ci_low, s.ci_high) == pytest.approx((x.mean(), *stats.t.interval(0.95, len(x) - 1, x.mean(), stats.sem(x))), abs=1e-12)


def test_pairs_are_matched_by_query_id_not_position(rng):
    values = _values(rng)
    shuffled = copy.deepcopy(values)
    order = list(values["tfidf"]["AP"])[::-1]
    shuffled["tfidf"] = {m: {q: values["tfidf"][m][q] for q in order} for m in values["tfidf"]}
    a, b = compare_values(values), compare_values(shuffled)
    assert [p.p_value for p in a.pairs] == [p.p_value for p in b.pairs]
    assert values == _values(np.random.default_rng(12345))  # inputs are not mutated


def test_missing_queries_policy(rng):
    values = _values(rng, n=10)
    del values["tfidf"]["AP"]["q3"]
    del values["tfidf"]["AP"]["q7"]
    with pytest.raises(InputError, match=r"system 'tfidf', measure 'AP': no value for 2 of the 10 queries.*'q3', 'q7'.*missing='intersect'"):
        compare_values(values)
    inter = compare_values(values, missing="intersect")
    assert len(inter.query_ids) == 8 and "q3" not in inter.query_ids
    zero = compare_values(values, missing="zero")
    assert len(zero.query_ids) == 10
    i = list(zero.query_ids).index("q3")
    assert zero.values("AP")[1, i] == 0.0
    assert zero.summary("AP", "tfidf").mean == pytest.approx(sum(values["tfidf"]["AP"].values()) / 10)


@pytest.mark.parametrize("kind", ["long", "per_system_frame", "series", "arrays"])
def test_input_forms_give_the_same_comparison(rng, kind):
    values = _values(rng, n=12)
    ref = compare_values(values)
    if kind == "long":
        given_values = pd.DataFrame([(s, m, q, v) for s, ms in values.items() for m, qs in ms.items() for q, v in qs.items()],
                                    columns=["system", "measure", "query_id", "value"])
    elif kind == "per_system_frame":
        given_values = {s: pd.DataFrame(ms) for s, ms in values.items()}
    elif kind == "series":
        given_values = {s: {m: pd.Series(qs) for m, qs in ms.items()} for s, ms in values.items()}
    else:
        given_values = {s: {m: (np.array(list(qs)), np.array(list(qs.values()))) for m, qs in ms.items()} for s, ms in values.items()}
    other = compare_values(given_values)
    assert other.to_dict() == ref.to_dict()


def test_input_errors(rng):
    with pytest.raises(InputError, match="finite"):
        compare_values({"a": {"AP": {"q1": 0.1, "q2": float("nan")}}, "b": {"AP": {"q1": 0.1, "q2": 0.2}}})
    with pytest.raises(InputError, match="measures"):
        compare_values({"a": {"AP": {"q1": 0.1, "q2": 0.2}}, "b": {"P@10": {"q1": 0.1, "q2": 0.2}}})
    with pytest.raises(InputError, match="appears 2 times"):
        compare_values({"a": {"AP": pd.Series([0.1, 0.2], index=["q1", "q1"])}})
    with pytest.raises(InputError, match="at least 2 queries"):
        compare_values({"a": {"AP": {"q1": 0.1}}, "b": {"AP": {"q1": 0.2}}})
    values = _values(rng, n=5)
    with pytest.raises(UsageError, match="baseline"):
        compare_values(values, baseline="nope")
    for option in [dict(test="z"), dict(correction="sidakk"), dict(ci="wald"), dict(alpha=5), dict(missing="drop")]:
        with pytest.raises(UsageError):
            compare_values(values, **option)


def test_baseline_pairs_and_marks(rng):
    c = compare_values(_values(rng), baseline="coord", correction="bonferroni")
    assert [(p.a, p.b) for p in c.pairs if p.measure == "AP"] == [("bm25", "coord"), ("tfidf", "coord")]
    assert all(p.significant and p.diff > 0 for p in c.pairs)
    text = c.render("markdown")
    assert "+ / -: significantly higher / lower than the baseline coord" in text
    assert "**0." in text and "(baseline)" in text


def test_json_has_exactly_the_documented_shape(rng):
    c = compare_values(_values(rng, n=20), test="randomization", n_permutations=500)
    doc = json.loads(c.to_json())
    assert set(doc) == {"schema", "settings", "measures"}  # the settings block: test_outputs.py
    assert set(doc["measures"]) == {"AP", "nDCG@10"}
    for block in doc["measures"].values():
        assert set(block) == {"systems", "pairs"}
        assert set(block["systems"]) == {"bm25", "tfidf", "coord"}
        for s in block["systems"].values():
            assert set(s) == {"mean", "ci_low", "ci_high"}
        assert len(block["pairs"]) == 3
        for p in block["pairs"]:
            assert set(p) == {"a", "b", "diff", "ci_low", "ci_high", "effect_size", "p_value", "p_adjusted", "significant",
                              "n", "statistic", "df", "p_method", "p_floored", "wins", "ties", "losses",
                              "p_adjusted_floored", "p_tukey"}
            assert isinstance(p["significant"], bool)
    assert json.loads(c.render("json")) == doc


def test_renderings(rng):
    c = compare_values(_values(rng))
    term = c.render("table")
    assert "Systems" in term and "Pairs" in term and "Holm correction" in term
    assert "letters after a mean" in term.lower()
    latex = c.render("latex")
    assert r"\toprule" in latex and r"\textbf{" in latex
    rows = list(csv.DictReader(io.StringIO(c.render("csv"))))
    assert len(rows) == 6 and float(rows[0]["p_value"]) == c.pairs[0].p_value
    assert "<table>" in c._repr_html_() and "<b>" in c._repr_html_()
    assert c.to_pandas("pairs").shape == (6, 29)  # 15 numbers + 14 settings columns (issue 17)
    assert c.to_pandas("systems").shape == (6, 5)
    diffs = c.to_pandas("differences")
    assert diffs.shape == (6 * 40, 5)
    np.testing.assert_array_equal(diffs["diff"][:40], c.differences("AP", "bm25", "tfidf"))
    with pytest.raises(UsageError):
        c.render("html")
    with pytest.raises(UsageError):
        c.to_pandas("other")


def test_bold_marks_the_best_mean_and_letters_the_significant_wins(rng):
    c = compare_values(_values(rng, n=60))
    table = c.tables()[0]
    best_row = int(np.argmax([c.summary("AP", s).mean for s in c.systems]))
    assert (best_row, 2) in table.bold
    for p in c.pairs:
        if p.measure == "AP" and p.significant:
            winner, loser = (p.a, p.b) if p.diff > 0 else (p.b, p.a)
            row = c.systems.index(winner)
            assert "abc"[c.systems.index(loser)] in table.rows[row][2].split(" ")[1]


@pytest.mark.parametrize("test", ["t", "wilcoxon", "sign", "randomization", "bootstrap"])
@pytest.mark.parametrize("correction", ["none", "bonferroni", "holm", "bh", "tukey", "randomized-tukey"])
def test_every_test_and_correction_runs(rng, test, correction):
    c = compare_values(_values(rng, n=15), test=test, correction=correction, n_permutations=300)
    for p in c.pairs:
        assert 0 <= p.p_value <= 1 and 0 <= p.p_adjusted <= 1
        if correction in ("none", "bonferroni", "holm", "bh"):
            assert p.p_adjusted >= p.p_value - 1e-15


@given(st.permutations(["s1", "s2", "s3"]), st.integers(0, 2 ** 16))
@settings(max_examples=20, deadline=None)
def test_system_order_does_not_change_a_pair(order, seed):
    values = _values(np.random.default_rng(seed), systems=("s1", "s2", "s3"), measures=("AP",), n=12)
    a = compare_values(values)
    b = compare_values({s: values[s] for s in order})
    for p in a.pairs:
        q = next(q for q in b.pairs if {q.a, q.b} == {p.a, p.b})
        sign = 1 if q.a == p.a else -1
        assert q.p_value == pytest.approx(p.p_value, abs=1e-12)
        assert q.p_adjusted == pytest.approx(p.p_adjusted, abs=1e-12)
        assert q.diff == pytest.approx(sign * p.diff, abs=1e-12)
        assert q.effect_size == pytest.approx(sign * p.effect_size, abs=1e-12)
