"""The measure grammar: canonical text round-trips, trec_eval aliases, clear errors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cranfield import MeasureError, parse_measure, parse_measures
from cranfield.measures.base import Measure, families


@pytest.mark.parametrize("text,canonical", [
    ("AP", "AP"), ("map", "AP"), ("MAP", "AP"), ("AP@100", "AP@100"), ("map_cut_100", "AP@100"),
    ("P@10", "P@10"), ("P_10", "P@10"), ("P.10", "P@10"), ("P(rel=1)@10", "P(rel=1)@10"), ("P(rel=2)@5", "P(rel=2)@5"),
    ("R@1000", "R@1000"), ("recall_1000", "R@1000"), ("RPrec", "RPrec"), ("Rprec", "RPrec"),
    ("Rprec_mult_0.20", "RPrec(mult=0.2)"), ("RR", "RR"), ("recip_rank", "RR"), ("nDCG", "nDCG"),
    ("ndcg_cut_10", "nDCG@10"), ("nDCG@10", "nDCG@10"), ("nDCG(gains={2:3,1:1})@10", "nDCG(gains={1:1,2:3})@10"),
    ("Bpref", "Bpref"), ("bpref", "Bpref"), ("infAP", "infAP"), ("Success@5", "Success@5"), ("success_5", "Success@5"),
    ("IPrec@0.3", "IPrec@0.3"), ("iprec_at_recall_0.30", "IPrec@0.3"), ("NumRet", "NumRet"), ("num_ret", "NumRet"),
    ("NumRel", "NumRel"), ("NumRelRet", "NumRelRet"), ("SetP", "SetP"), ("set_P", "SetP"), ("SetR", "SetR"),
    ("SetF", "SetF"), ("set_F", "SetF"), ("Judged@10", "Judged@10"), ("RBP(p=0.8)", "RBP(p=0.8)"),
    ("gm_map", "GMAP"), ("11pt_avg", "IPrec11"), ("unj_5", "Unjudged@5"), (" AP ", "AP"),
])
def test_canonical_forms(text, canonical):
    measure = parse_measure(text)
    assert str(measure) == canonical
    assert parse_measure(str(measure)) == measure
    assert hash(parse_measure(str(measure))) == hash(measure)


def test_trec_specs_expand():
    assert [str(m) for m in parse_measures("P.5,10")] == ["P@5", "P@10"]
    assert [str(m) for m in parse_measures("ndcg_cut.10,20")] == ["nDCG@10", "nDCG@20"]
    assert [str(m) for m in parse_measures("ndcg.1=3,2=9")] == ["nDCG(gains={1:3,2:9})"]
    assert len(parse_measures("official")) == 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 11 + 9 - 0  # trec_eval's official set
    assert parse_measures(["AP", "map", "P@10"]) == [parse_measure("AP"), parse_measure("P@10")]


@pytest.mark.parametrize("text,fragment", [
    ("nDCG@-1", "cut-off must be a whole number ≥ 1"),
    ("P@abc", "expected a number"),
    ("P@0", "cut-off must be a whole number ≥ 1"),
    ("IPrec", "needs a cut-off"),
    ("P", "names 9 measures"),
    ("AP@1.5", "whole number"),
    ("RBP(p=2)", "the persistence p must lie in (0, 1)"),
    ("RBP(q=0.5)", "unknown parameter 'q'"),
    ("RBP(p=0.5", "expected"),
    ("RBP(p=0.5,p=0.6)", "given twice"),
    ("nDCGG@10", "did you mean nDCG"),
    ("mapp", "did you mean map"),
    ("Bpref@10", "takes no cut-off"),
    ("", "empty measure name"),
    ("AP $", "unexpected character"),
])
def test_errors(text, fragment):
    with pytest.raises(MeasureError) as info:
        parse_measure(text)
    assert fragment in str(info.value)


def _measure_strategy():
    def build(family, k_int, k_float, rel):
        params = {"rel": rel} if "rel" in family.params else {}
        cutoff = None
        if family.cutoff == "required" or (family.cutoff == "optional" and k_int % 2):
            cutoff = k_int if family.cutoff_kind == "int" else k_float
        return Measure(family.name, params, cutoff)

    names = sorted(families())
    return st.builds(build, st.sampled_from(names).map(lambda n: families()[n]), st.integers(1, 1000),
                     st.sampled_from([0.0, 0.1, 0.25, 0.5, 1.0]), st.integers(0, 4))


@settings(max_examples=200, deadline=None)
@given(_measure_strategy())
def test_round_trip_property(measure):
    assert parse_measure(str(measure)) == measure
