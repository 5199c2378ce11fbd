"""Judged / Unjudged: the two conventions, against ir_measures itself and by hand.

``convention=ir_measures`` is compared with ir_measures' own ``Judged@k`` (its python ``judged``
provider) exactly (``==``). ir_measures breaks score ties by doc id ascending where cranfield
follows trec_eval (doc id descending), so the random scores are distinct.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cranfield

ir_measures = pytest.importorskip("ir_measures")


def test_conventions_by_hand():
    qrels = {"q": {"a": 1, "b": 0, "c": -1}}
    run = {"q": {"a": 3.0, "c": 2.0, "x": 1.0}}  # ranking a (judged), c (grade -1), x (not in the qrels)
    mean = cranfield.evaluate(qrels, run, ["Judged@5", "Judged(convention=ir_measures)@5", "Judged",
                                           "Judged(convention=ir_measures)", "Unjudged@5", "Judged@2",
                                           "Unjudged(convention=ir_measures)@2"]).mean
    assert mean["Judged@5"] == 1 / 5  # trec_eval 10: only grades >= 0 are judged, divided by k
    assert mean["Unjudged@5"] == 2 / 5
    assert mean["Judged(convention=ir_measures)@5"] == 2 / 3  # any qrels line, divided by min(k, 3)
    assert mean["Judged"] == 1 / 3 and mean["Judged(convention=ir_measures)"] == 2 / 3
    assert mean["Judged@2"] == 1 / 2
    assert mean["Unjudged(convention=ir_measures)@2"] == 0.0


@st.composite
def data(draw):
    docs = [f"d{i}" for i in range(12)]
    qrels, run = {}, {}
    for qid in ("1", "2", "3"):
        judged = draw(st.lists(st.sampled_from(docs), min_size=1, max_size=8, unique=True))
        qrels[qid] = {d: draw(st.sampled_from([-1, 0, 1, 2])) for d in judged}
        retrieved = draw(st.lists(st.sampled_from(docs), min_size=1, max_size=12, unique=True))
        run[qid] = {d: float(len(retrieved) - i) for i, d in enumerate(retrieved)}  # distinct scores
    return qrels, run


@settings(max_examples=60, deadline=None)
@given(data(), st.sampled_from([1, 3, 5, 20]))
def test_ir_measures_convention_equals_ir_measures(example, k):
    qrels, run = example
    expected = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.Judged @ k], qrels, run)}
    res = cranfield.evaluate(qrels, run, [f"Judged(convention=ir_measures)@{k}"])
    got = dict(zip(res.query_ids.tolist(), res.per_query[f"Judged(convention=ir_measures)@{k}"].tolist()))
    assert got == expected
