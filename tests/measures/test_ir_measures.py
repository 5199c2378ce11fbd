"""ir_measures measure objects are accepted wherever a measure name is (issue 27), and give the
numbers ir_measures itself gives on the shipped Cranfield data (``==``, query by query)."""

import re
import subprocess
import sys

import pytest

import cranfield
from cranfield.errors import MeasureError
from cranfield.measures.base import parse_measure, parse_measures

ir_measures = pytest.importorskip("ir_measures")
from ir_measures import (AP, ERR, NumQ, NumRel, NumRet, P, R, RR, SDCG, Bpref, IPrec, Judged, Rprec,
                         SetAP, SetF, SetP, SetR, Success, infAP, nDCG)


def _path(name: str) -> str:
    out = subprocess.run([sys.executable, "-m", "cranfield", "datasets", "--path", name], capture_output=True,
                         text=True, check=True)
    return out.stdout.strip()


@pytest.fixture(scope="module")
def data():
    return _path("qrels"), _path("bm25")


# Computed by ir_measures with its trec_eval provider (pytrec_eval): equal to the last bit.
TREC_EVAL_PROVIDED = [AP, AP @ 10, P @ 5, P(rel=2) @ 5, R @ 100, nDCG, nDCG @ 10,
                      nDCG(gains={0: 0, 1: 1, 2: 3, 3: 3, 4: 4}) @ 10, RR, RR @ 10, RR(rel=2), Bpref, Rprec, infAP,
                      IPrec @ 0.5, Judged @ 10, Success @ 5, NumRet, NumRel, NumRet(rel=1), SetP, SetR, SetF, SetAP,
                      SetP(relative=True), AP(judged_only=True), nDCG(judged_only=True) @ 10,
                      P(judged_only=True) @ 10]
# Computed by ir_measures with gdeval, which prints 5 decimals: ours rounded the same way.
GDEVAL_PROVIDED = [ERR @ 20, nDCG(dcg="exp-log2") @ 10]


def _reference(measure, data) -> dict:
    qrels, run = data
    found = ir_measures.iter_calc([measure], ir_measures.read_trec_qrels(qrels), ir_measures.read_trec_run(run))
    return {m.query_id: m.value for m in found}


def _ours(measure, data) -> dict:
    results = cranfield.evaluate(data[0], data[1], [measure])
    (values,) = results.per_query.values()
    return {str(q): float(v) for q, v in zip(results.query_ids, values)}


@pytest.mark.parametrize("measure", TREC_EVAL_PROVIDED, ids=str)
def test_same_values_as_ir_measures(measure, data):
    reference, ours = _reference(measure, data), _ours(measure, data)
    assert len(reference) == 225 and {q: ours[q] for q in reference} == reference


@pytest.mark.parametrize("measure", GDEVAL_PROVIDED, ids=str)
def test_same_values_as_gdeval_through_ir_measures(measure, data):
    reference, ours = _reference(measure, data), _ours(measure, data)
    assert {q: round(ours[q], 5) for q in reference} == reference  # gdeval prints %.5f


def test_objects_are_accepted_wherever_a_name_is(data):
    qrels, run = data
    results = cranfield.evaluate(qrels, run, [AP, nDCG @ 10, "P@5"])
    assert list(results.mean) == ["AP", "nDCG@10", "P@5"]
    assert results.mean["AP"] == cranfield.evaluate(qrels, run, ["AP"]).mean["AP"]
    assert cranfield.evaluate(qrels, run, AP).mean == {"AP": results.mean["AP"]}
    evaluator = cranfield.Evaluator(qrels, [nDCG @ 10, P(rel=2) @ 5])
    assert [str(m) for m in evaluator.measures] == ["nDCG@10", "P(rel=2)@5"]
    comparison = cranfield.compare(qrels, {"bm25": run, "other": _path("tfidf")}, [AP, nDCG @ 10])
    assert comparison.measures == ("AP", "nDCG@10")
    comparison = cranfield.compare(qrels, {"bm25": run, "other": _path("tfidf")}, RR)
    assert comparison.measures == ("RR",)


def test_conversion_through_the_canonical_text():
    assert [str(m) for m in parse_measures([AP, nDCG @ 10, P(rel=2) @ 5, ir_measures.RBP(p=0.8), Rprec])] == \
        ["AP", "nDCG@10", "P(rel=2)@5", "RBP(p=0.8)", "RPrec"]
    assert str(parse_measure(ir_measures.RBP)) == "RBP(p=0.8)"  # ir_measures' default p is 0.8, ours 0.9
    assert str(parse_measure(nDCG(dcg="exp-log2") @ 10)) == "nDCG(gain=exp)@10"
    assert str(parse_measure(NumRet(rel=1))) == "NumRelRet(rel=1)"
    assert str(parse_measure(SetP(relative=True))) == "SetRelP"
    assert str(parse_measure(IPrec @ 0.25)) == "IPrec@0.25"


@pytest.mark.parametrize("measure", [NumQ, SDCG @ 10, ir_measures.RBP(rel=2)], ids=str)
def test_an_unsupported_ir_measures_measure_is_named(measure, data):
    with pytest.raises(MeasureError, match=re.escape(f"the ir_measures measure {str(measure)}")):
        cranfield.evaluate(data[0], data[1], [AP, measure])
