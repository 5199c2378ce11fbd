"""Diversity measures (issue 14, item 5) against NIST ndeval, through the pyndeval package.

Comparisons are ``==`` on doubles. Two documented differences of the oracle are removed before
comparing, never by a tolerance:

* ranking: pyndeval sorts a run by score, then docno *ascending*; ndeval ``-traditional`` and
  cranfield (trec_eval's rule) by score, then docno *descending*. pyndeval is given scores that
  encode cranfield's order (−rank), so tied scores are ranked alike (``test_ties``).
* float order: ndeval adds a document's gains over its subtopics in subtopic-number order;
  pyndeval numbers subtopics in the order they first appear in its input, so its sums follow
  that order (feeding it the same qrels shuffled moves its own values by up to 2.5 ulps, measured
  over 2,100 values with α = 0.3). It is fed the qrels sorted by subtopic number, ndeval's order,
  which cranfield uses whatever the row order.

Policy difference: a query without relevant subtopics has nNRBP = 0 here, NaN (0/0) in ndeval.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cranfield
from cranfield.errors import InputError
from cranfield.measures.base import Measure, parse_measure
from cranfield.retrieval.diversity import (NDEVAL_MEASURES, DiversityQrels, evaluate_diversity, ndeval_text,
                                           read_diversity_qrels)

pyndeval = pytest.importorskip("pyndeval")

DOCS = ["d1", "d10", "d2", "D3", "d4", "e5", "d6", "d7", "d8", "d9"]
PARAMS = {"alpha": ("ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG", "NRBP", "nNRBP"), "beta": ("NRBP", "nNRBP")}


def as_rows(qrels: dict) -> list[tuple]:
    """(qid, subtopic, docno, rel) rows sorted by subtopic number (ndeval's order; see above)."""
    rows = [(q, s, d, r) for q, subs in qrels.items() for s, docs in subs.items() for d, r in docs.items()]
    return sorted(rows, key=lambda row: int(row[1]))


def ranked(run: dict) -> list[tuple]:
    """The run for pyndeval with scores −rank, rank by trec_eval's rule (score desc, docno desc)."""
    rows = []
    for q, docs in run.items():
        order = sorted(docs, key=lambda d: d.encode(), reverse=True)
        order.sort(key=lambda d: -docs[d])
        rows.extend((q, d, -float(rank)) for rank, d in enumerate(order))
    return rows


def measures_with(names, alpha, beta) -> list[Measure]:
    out = []
    for name in names:
        m = parse_measure(name)
        params = {p: v for p, v in (("alpha", alpha), ("beta", beta)) if m.name in PARAMS[p]}
        out.append(Measure(m.name, params, m.cutoff))
    return out


def same(a, b) -> bool:
    """Per-query values of two Results identical (==, bit for bit)."""
    return a.query_ids.tolist() == b.query_ids.tolist() and list(a.per_query) == list(b.per_query) and all(
        np.asarray(a.per_query[name]).tolist() == np.asarray(b.per_query[name]).tolist() for name in a.per_query)


def compare(qrels: dict, run: dict, names, alpha=0.5, beta=0.5):
    expected = pyndeval.ndeval(as_rows(qrels), ranked(run), list(names), alpha=alpha, beta=beta)
    measures = measures_with(names, alpha, beta)
    got = evaluate_diversity(qrels, run, measures)
    assert sorted(got.query_ids.tolist()) == sorted(expected)
    for i, qid in enumerate(got.query_ids.tolist()):
        for name, measure in zip(names, measures):
            value, reference = got.per_query[str(measure)][i], expected[qid][name]
            if name == "nNRBP" and math.isnan(reference):  # policy: 0 where ndeval divides 0 by 0
                reference = 0.0
            assert value == reference, (qid, name, value, reference)
    return got, expected


@st.composite
def instances(draw):
    qrels, run = {}, {}
    for q in range(draw(st.integers(1, 3))):
        qid = f"q{q}"
        subs = {}
        for s in draw(st.lists(st.integers(1, 12), min_size=1, max_size=4, unique=True)):
            docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=6, unique=True))
            subs[str(s)] = {d: draw(st.sampled_from([-1, 0, 1, 1, 2])) for d in docs}
        qrels[qid] = subs
    for q in range(draw(st.integers(1, 4))):
        docs = draw(st.lists(st.sampled_from(DOCS + ["x1", "x2"]), min_size=1, max_size=12, unique=True))
        run[f"q{q}"] = {d: draw(st.sampled_from([0.0, 1.0, 1.5, 2.0, 3.0])) for d in docs}
    return qrels, run


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances(), st.sampled_from([0.0, 0.3, 0.5, 0.77, 1.0]), st.sampled_from([0.13, 0.5, 0.9, 1.0]),
       st.integers(1, 20))
def test_equals_ndeval_on_random_data(instance, alpha, beta, k):
    qrels, run = instance
    if not set(qrels) & set(run):
        return
    names = list(NDEVAL_MEASURES) + [f"{m}@{k}" for m in ("ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG", "P-IA",
                                                          "strec")]
    compare(qrels, run, names, alpha, beta)


def test_query_without_relevant_subtopics_scores_zero():
    qrels = {"q1": {"1": {"d1": 0, "d2": 0}}, "q2": {"1": {"d1": 1}}}
    run = {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d1": 1.0}}
    got, expected = compare(qrels, run, NDEVAL_MEASURES)
    assert math.isnan(expected["q1"]["nNRBP"])  # ndeval's 0/0
    assert all(got.per_query[m][0] == 0.0 for m in NDEVAL_MEASURES)


def test_document_relevant_to_several_subtopics():
    """Clarke et al.'s novelty discount, by hand: d2 then d1, d1 relevant to both intents."""
    qrels = {"q": {"1": {"d1": 1, "d2": 1}, "2": {"d1": 1}}}
    run = {"q": {"d2": 2.0, "d1": 1.0}}
    got, _ = compare(qrels, run, ["alpha-nDCG@2", "P-IA@2", "strec@1", "MAP-IA", "alpha-DCG@2"])
    # gains: d2 1; d1 (1 − α) + 1 = 1.5. Ideal: d1 (2) then d2 (0.5). (Hand formulas round
    # differently from ndeval's running sums: 4 ulps.)
    run_dcg, ideal_dcg = 1 + 1.5 / math.log2(3), 2 + 0.5 / math.log2(3)
    assert got.mean["alpha-nDCG@2"] == pytest.approx(run_dcg / ideal_dcg, rel=4 * np.finfo(float).eps)
    assert got.mean["P-IA@2"] == 3 / 4 and got.mean["strec@1"] == 1 / 2
    assert got.mean["MAP-IA"] == ((1 / 1 + 2 / 2) / 2 + (1 / 2) / 1) / 2  # AP_1 = (1/1 + 2/2)/2, AP_2 = 1/2


def test_ties_follow_docno_descending():
    qrels = {"q": {"1": {"a": 1}, "2": {"b": 1, "a": 1}}}
    run = {"q": {"a": 1.0, "b": 1.0, "c": 2.0}}  # c, then b before a (docno descending)
    compare(qrels, run, ["alpha-nDCG@2", "ERR-IA@2", "MAP-IA", "P-IA@2"])
    got = evaluate_diversity(qrels, run, ["P-IA@2"])
    assert got.mean["P-IA@2"] == 1 / 4  # c (nothing), b (intent 2 of 2)
    raw = pyndeval.ndeval(as_rows(qrels), [("q", d, s) for d, s in run["q"].items()], ["P-IA@2"])
    assert raw["q"]["P-IA@2"] == 2 / 4  # pyndeval's own tie order: a before b


def test_run_shorter_than_k_and_queries_on_one_side():
    qrels = {"q1": {"1": {"d1": 1, "d2": 1}, "2": {"d3": 1}}, "only-qrels": {"1": {"d1": 1}}}
    run = {"q1": {"d1": 1.0, "d3": 0.5}, "only-run": {"d1": 1.0}}
    got, _ = compare(qrels, run, NDEVAL_MEASURES)
    assert got.query_ids.tolist() == ["q1"]
    assert got.mean["P-IA@20"] == 2 / (20 * 2)
    complete = evaluate_diversity(qrels, run, ["alpha-nDCG@20", "nNRBP"], complete=True)
    assert complete.query_ids.tolist() == ["only-qrels", "q1"]
    assert complete.per_query["alpha-nDCG@20"][0] == 0.0 and complete.per_query["nNRBP"][0] == 0.0


def test_ordinary_qrels_are_one_intent_per_query():
    qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2, "d4": 1}, "q2": {"d1": 1}}
    run = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0, "x": 0.5}, "q2": {"d9": 1.0}}
    names = ["MAP-IA", "AP", "alpha-nDCG@3", "nNRBP", "strec@1", "P-IA@4", "P@4"]
    plain = cranfield.evaluate(qrels, run, names)
    assert plain.per_query["MAP-IA"].tolist() == plain.per_query["AP"].tolist()
    assert plain.per_query["P-IA@4"].tolist() == plain.per_query["P@4"].tolist()
    as_diversity = {q: {"0": docs} for q, docs in qrels.items()}
    compare(as_diversity, run, ["MAP-IA", "alpha-nDCG@3", "nNRBP", "strec@1", "P-IA@4"])
    for name in names:
        assert evaluate_diversity(as_diversity, run, [name]).per_query[name].tolist() == plain.per_query[name].tolist()


def test_ordinary_measures_see_the_highest_judgment_of_a_document():
    qrels = {"q": {"1": {"d1": 0, "d2": 2}, "2": {"d1": 1, "d2": 0}, "3": {"d3": -1}}}
    run = {"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
    got = evaluate_diversity(qrels, run, ["AP", "nDCG@3", "Judged@3", "strec@3"])
    flat = cranfield.evaluate({"q": {"d1": 1, "d2": 2, "d3": -1}}, run, ["AP", "nDCG@3", "Judged@3"])
    for name in ("AP", "nDCG@3", "Judged@3"):
        assert got.mean[name] == flat.mean[name]


def test_cranfield_evaluate_recognises_diversity_qrels_and_condensed_lists():
    qrels = DiversityQrels.from_dict({"q": {"1": {"d1": 1, "d3": 1}, "2": {"d2": 1, "d4": 0}}})
    run = {"q": {"u1": 5.0, "d1": 4.0, "u2": 3.0, "d2": 2.0, "d4": 1.5, "d3": 1.0}}
    names = ["alpha-nDCG@3", "ERR-IA@3", "MAP-IA", "NRBP(alpha=0.3,beta=0.8)"]
    via_evaluate = cranfield.evaluate(qrels, run, names)
    assert same(via_evaluate, evaluate_diversity(qrels, run, names))
    condensed = cranfield.evaluate(qrels, run, ["alpha-nDCG(judged_only=true)@3", "ERR-IA(judged_only=true)@3",
                                                "MAP-IA(judged_only=true)",
                                                "NRBP(alpha=0.3,beta=0.8,judged_only=true)"])
    judged = evaluate_diversity(qrels, {"q": {d: s for d, s in run["q"].items() if not d.startswith("u")}}, names)
    for name, values in zip(names, condensed.per_query.values()):
        assert values.tolist() == judged.per_query[name].tolist(), name
    assert same(cranfield.evaluate(qrels, run, names, judged_only=True), judged)


def test_parts_evaluated_in_threads_agree(monkeypatch):
    from cranfield.retrieval import parallel

    rng = np.random.default_rng(3)
    qrels = {f"q{q:02d}": {str(s): {f"d{d}": int(rng.integers(0, 2)) for d in rng.choice(40, 12, replace=False)}
                           for s in range(1, 5)} for q in range(12)}
    run = {f"q{q:02d}": {f"d{d}": float(rng.integers(0, 9)) for d in rng.choice(50, 30, replace=False)}
           for q in range(12)}
    whole = evaluate_diversity(qrels, run)
    monkeypatch.setattr(parallel, "MIN_ROWS", 10)
    monkeypatch.setattr(parallel, "PART_ROWS", 40)
    calls = []
    original = parallel.evaluate_parallel
    monkeypatch.setattr(parallel, "evaluate_parallel", lambda *a, **k: calls.append(1) or original(*a, **k))
    evaluator = cranfield.retrieval.diversity.DiversityEvaluator(qrels)
    parts = evaluator.evaluate(cranfield.Run.from_dict(run), threads=2)
    assert calls and len(parallel.split_run(cranfield.Run.from_dict(run), 4)) == 4  # evaluated in parts
    for name in NDEVAL_MEASURES:
        assert parts.per_query[name].tolist() == whole.per_query[name].tolist(), name


# ------------------------------------------------------------------------------ intent weights
def test_intent_weights():
    qrels = {"q": {"1": {"d1": 1}, "2": {"d2": 1}, "3": {"d3": 0}}}
    run = {"q": {"d1": 2.0, "d9": 1.0}}
    uniform = evaluate_diversity(qrels, run, NDEVAL_MEASURES)
    equal = evaluate_diversity(qrels, run, NDEVAL_MEASURES, intent_weights={"q": {"1": 3, "2": 3}})
    assert same(equal, uniform)  # equal weights: w·S/Σw = 1 exactly
    weighted = evaluate_diversity(qrels, run, ["P-IA@2", "strec@2", "MAP-IA"],
                                  intent_weights={"q": {"1": 3.0, "2": 1.0}})
    # Agrawal et al.: Σ_j P(j|q) · measure_j, P(1|q) = 3/4
    assert weighted.mean["P-IA@2"] == pytest.approx(0.75 * 0.5, rel=1e-15)  # w·S/Σw then /S: one rounding each
    assert weighted.mean["strec@2"] == pytest.approx(0.75, rel=1e-15)
    assert weighted.mean["MAP-IA"] == pytest.approx(0.75, rel=1e-15)


@pytest.mark.parametrize("weights, field, text", [
    ({"q": {"7": 1.0}}, "subtopic", "unknown subtopic '7'"),
    ({"q": {"1": -1.0, "2": 1.0}}, "weight", "expected a finite weight"),
    ({"q": {"1": 1.0}}, "subtopic", "no weight for subtopic '2'"),
    ({"zz": {"1": 1.0}}, "qid", "not in the diversity qrels"),
    ({"q": {"1": 0.0, "2": 0}}, "weight", "sum to 0"),
])
def test_bad_intent_weights(weights, field, text):
    qrels = {"q": {"1": {"d1": 1}, "2": {"d2": 1}}}
    with pytest.raises(InputError) as error:
        evaluate_diversity(qrels, {"q": {"d1": 1.0}}, intent_weights=weights)
    assert error.value.field == field and text in str(error.value)


# ------------------------------------------------------------------------------ inputs and paths
def write(path, text):
    path.write_text(text)
    return str(path)


def test_same_values_from_file_dict_and_frames(tmp_path):
    pd = pytest.importorskip("pandas")
    qrels = {"1": {"2": {"a": 1, "b": 0}, "10": {"b": 1, "c": 2}}, "2": {"1": {"a": 1}}}
    run = {"1": {"a": 1.0, "b": 2.0, "c": 0.5}, "2": {"a": 1.0, "z": 3.0}}
    rows = as_rows(qrels)
    text = "".join(f"{q} {s} {d} {r}\n" for q, s, d, r in reversed(rows))
    from_file = evaluate_diversity(write(tmp_path / "q.txt", text), run)
    tabbed = evaluate_diversity(write(tmp_path / "t.txt", text.replace(" ", "\t")), run)
    frame = pd.DataFrame(rows, columns=["qid", "subtopic", "docno", "rel"])
    for other in (evaluate_diversity(qrels, run), evaluate_diversity(frame, run), tabbed,
                  evaluate_diversity(DiversityQrels.from_frame(frame.iloc[::-1]), run)):
        assert same(other, from_file)
    assert read_diversity_qrels(str(tmp_path / "q.txt")).subtopic.to_pylist() == [r[1] for r in reversed(rows)]


def test_fast_and_reference_parsers_agree(tmp_path):
    from cranfield.io.trec import iter_parsed

    path = write(tmp_path / "q.txt", "".join(f"q{i % 7} {i % 5} doc{i} {i % 3}\n" for i in range(500)))
    fast, general = list(iter_parsed(path, "diversity qrels")), list(iter_parsed(path, "diversity qrels",
                                                                                  general=True))
    for name in ("qid", "subtopic", "docno"):
        assert sum((getattr(p, name).to_pylist() for p in fast), []) == \
            sum((getattr(p, name).to_pylist() for p in general), [])


@pytest.mark.parametrize("text, line, field, fragment", [
    ("q 1 d1 1\nq 2 d1 0\nq 1 d1 0\n", 3, "subtopic", "also on line 1"),
    ("q 1 d1 1\nq 2 d1\n", 2, None, 'expected 4 fields "qid subtopic docno rel", found 3'),
    ("q 1 d1 1.5\n", 1, "rel", "expected an integer relevance"),
    ("q 1 d1 1 extra\n", 1, None, "found 5"),
    ("q \xff d1 1\n", 1, "subtopic", "invalid UTF-8"),
])
def test_bad_diversity_qrels(tmp_path, text, line, field, fragment):
    path = tmp_path / "bad.txt"
    path.write_bytes(text.encode("latin-1"))
    with pytest.raises(InputError) as error:
        evaluate_diversity(str(path), {"q": {"d1": 1.0}})
    assert (error.value.line, error.value.field) == (line, field) and fragment in str(error.value)
    assert str(path) in str(error.value)


def test_bad_dict_and_frame():
    with pytest.raises(InputError, match="subtopic '1'"):
        read_diversity_qrels({"q": {"1": ["d1"]}})
    with pytest.raises(InputError, match="empty id"):
        read_diversity_qrels({"q": {"": {"d1": 1}}})
    pd = pytest.importorskip("pandas")
    with pytest.raises(InputError, match="no column 'subtopic'"):
        read_diversity_qrels(pd.DataFrame({"qid": ["q"], "docno": ["d"], "rel": [1]}))


def test_measure_names_and_parameters():
    assert str(parse_measure("alpha-nDCG(alpha=0.5)@20")) == "alpha-nDCG@20"
    assert str(parse_measure("alpha_nDCG(alpha=0.3)@5")) == "alpha-nDCG(alpha=0.3)@5"
    assert str(parse_measure("AP-IA")) == "MAP-IA" and str(parse_measure("S-recall@10")) == "strec@10"
    assert str(parse_measure("NRBP(beta=0.8)")) == "NRBP(beta=0.8)"
    from cranfield.errors import MeasureError

    for bad in ("alpha-nDCG", "alpha-nDCG(alpha=1.5)@5", "MAP-IA@10", "P-IA(alpha=0.5)@5"):
        with pytest.raises(MeasureError):
            parse_measure(bad)


# ------------------------------------------------------------------------------ the ndeval command
def test_ndeval_command_prints_ndevals_report(tmp_path, capsys):
    from cranfield.cli import main

    qrels = {"3": {"1": {"a": 1, "b": 1}, "2": {"c": 1}}, "12": {"1": {"a": 1}}, "20": {"1": {"a": 0}}}
    run = {"12": {"a": 1.0, "b": 2.0}, "3": {"c": 1.0, "a": 0.5}, "20": {"a": 1.0}, "99": {"a": 1.0}}
    qrels_path = write(tmp_path / "qrels", "".join(f"{q} {s} {d} {r}\n" for q, s, d, r in as_rows(qrels)))
    run_path = write(tmp_path / "run", "".join(f"{q} Q0 {d} 1 {s} myrun\n" for q, docs in run.items()
                                               for d, s in docs.items()))
    assert main(["ndeval", qrels_path, run_path]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "runid,topic," + ",".join(NDEVAL_MEASURES)
    assert [line.split(",")[1] for line in lines[1:]] == ["3", "12", "20", "99", "amean"]  # numeric topic order
    expected = pyndeval.ndeval(as_rows(qrels), ranked(run), list(NDEVAL_MEASURES))
    for line in lines[1:4]:
        fields = line.split(",")
        want = [0.0 if math.isnan(v) else v for v in expected[fields[1]].values()]
        assert fields[0] == "myrun" and fields[2:] == ["%.6f" % v for v in want]
    assert lines[4] == "myrun,99," + ",".join(["0.000000"] * 21)  # not in the qrels: zeros, as ndeval
    means = [sum(0.0 if math.isnan(expected[q][m]) else expected[q][m] for q in ("3", "12", "20")) / 3
             for m in NDEVAL_MEASURES]
    assert lines[5].split(",")[2:] == ["%.6f" % v for v in means]
    assert main(["ndeval", "--ndeval-nan", qrels_path, run_path]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[3].split(",")[2 + NDEVAL_MEASURES.index("nNRBP")] == "-nan"


def test_ndeval_command_bad_input_is_one_line(tmp_path, capsys):
    from cranfield.cli import main

    qrels = write(tmp_path / "qrels", "1 1 a 1\n1 1 a 0\n")
    run = write(tmp_path / "run", "1 Q0 a 1 1.0 r\n")
    assert main(["ndeval", qrels, run]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and f"{qrels}:2" in err and "duplicate judgment" in err
    assert main(["ndeval", "--beta", "-1", qrels, run]) == 2


def test_ndeval_text_refuses_bad_options():
    from cranfield.errors import UsageError

    for options in ({"alpha": 1.5}, {"beta": "x"}, {"max_results": 0}):
        with pytest.raises(UsageError):
            ndeval_text({"q": {"1": {"a": 1}}}, {"q": {"a": 1.0}}, **options)
