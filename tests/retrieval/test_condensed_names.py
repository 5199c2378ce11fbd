"""Condensed-list measures by name (issue 14, item 6): Sakai's AP', nDCG'@k, P'@k and the
``condensed_`` prefix are the ``judged_only=true`` measures, which equal ir_measures'
``judged_only=True`` (computed by pytrec_eval, i.e. trec_eval's -J) with ``==``."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cranfield
from cranfield.errors import MeasureError
from cranfield.measures.base import Measure, parse_measure, parse_measures

ir_measures = pytest.importorskip("ir_measures")

NAMES = {"AP'": "AP(judged_only=true)", "condensed_AP": "AP(judged_only=true)",
         "condensed_map": "AP(judged_only=true)", "nDCG'@10": "nDCG(judged_only=true)@10",
         "condensed_nDCG@10": "nDCG(judged_only=true)@10", "condensed_ndcg_cut_10": "nDCG(judged_only=true)@10",
         "P'@5": "P(judged_only=true)@5", "condensed_P@5": "P(judged_only=true)@5", "RR'": "RR(judged_only=true)",
         "nDCG'(gain=exp)@5": "nDCG(gain=exp,judged_only=true)@5", "alpha-nDCG'@20": "alpha-nDCG(judged_only=true)@20"}


@pytest.mark.parametrize("name, canonical", sorted(NAMES.items()))
def test_names_are_the_judged_only_measures(name, canonical):
    assert parse_measure(name) == parse_measure(canonical)
    assert str(parse_measure(name)) == canonical


def test_named_forms_are_one_measure_once():
    assert parse_measures(["AP'", "condensed_AP", "AP(judged_only=true)"]) == [Measure("AP", {"judged_only": True})]


@pytest.mark.parametrize("bad", ["AP''", "condensed_", "Foo'", "condensed_nope@3", "nDCG'@0"])
def test_bad_names(bad):
    with pytest.raises(MeasureError):
        parse_measure(bad)


DOCS = [f"d{i}" for i in range(10)]


@st.composite
def instances(draw):
    qrels, run = {}, {}
    for q in range(draw(st.integers(1, 3))):
        judged = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=8, unique=True))
        qrels[f"q{q}"] = {d: draw(st.integers(0, 2)) for d in judged}
        retrieved = draw(st.lists(st.sampled_from(DOCS + ["u1", "u2", "u3"]), min_size=1, max_size=12, unique=True))
        run[f"q{q}"] = {d: float(draw(st.integers(0, 5))) for d in retrieved}
    return qrels, run


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances())
def test_equal_ir_measures_judged_only(instance):
    qrels, run = instance
    if not any(rel > 0 for docs in qrels.values() for rel in docs.values()):
        return
    ours = cranfield.evaluate(qrels, run, ["AP'", "nDCG'@10", "P'@5", "RR'"])
    theirs = [ir_measures.AP(judged_only=True), ir_measures.nDCG(judged_only=True) @ 10,
              ir_measures.P(judged_only=True) @ 5, ir_measures.RR(judged_only=True)]
    names = ["AP(judged_only=true)", "nDCG(judged_only=true)@10", "P(judged_only=true)@5", "RR(judged_only=true)"]
    expected = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(theirs, qrels, run)}
    compared = 0
    for i, qid in enumerate(ours.query_ids.tolist()):
        for name, measure in zip(names, theirs):
            if (qid, str(measure)) in expected:
                assert ours.per_query[name][i] == expected[(qid, str(measure))], (qid, name)
                compared += 1
    assert compared >= len(names)  # ir_measures scored at least one query
