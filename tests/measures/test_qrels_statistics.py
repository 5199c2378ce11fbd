"""Statistics of the judgments shared across the views of one prepared qrels
(:class:`cranfield.measures.view.QrelsStatistics`): the ideal DCG of every qrels query is computed
once and read at each view's queries. The contract: the same bytes as computing it on the view
alone, whichever view filled the cache first, for every measure that reads the ideal DCG."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import cranfield
from cranfield.measures.base import parse_measure
from cranfield.measures.condensed import view_for
from cranfield.measures.view import NONPOOL, UNJUDGED, QrelsStatistics, RankedView

MEASURES = ["nDCG", "nDCG@1", "nDCG@3", "nDCG@40", "nDCG(gain=exp)", "nDCG(gains={0:2,1:-1,2:2.5})@5",
            "nDCG(ideal=trec_eval)@5", "RnDCG", "RnDCG(gains={1:3,2:3,3:1})", "nDCGRel", "nDCG(judged_only=true)@10"]
LEVELS = [0, 1, 2, 3, 7]


@st.composite
def qrels_views(draw):
    """(level values, counts of every qrels query, two row masks, the ranking of each query)."""
    levels = np.array(sorted(draw(st.sets(st.sampled_from(LEVELS), min_size=1, max_size=4))), dtype=np.int64)
    n_all = draw(st.integers(1, 7))
    counts = np.array([[draw(st.integers(0, 6)) for _ in levels] for _ in range(n_all)], dtype=np.int64)
    rankings = []
    for q in range(n_all):
        judged = [int(level) for level, n in zip(levels, counts[q]) for _ in range(n)]
        retrieved = [level for level in judged if draw(st.booleans())]
        extra = draw(st.lists(st.sampled_from([NONPOOL, UNJUDGED]), max_size=5))
        rankings.append(draw(st.permutations(retrieved + extra)))
    masks = [np.array(draw(st.lists(st.booleans(), min_size=n_all, max_size=n_all)), dtype=bool) for _ in range(2)]
    return levels, counts, masks, rankings


def view_of(levels, counts, mask, rankings, statistics=None) -> RankedView:
    chosen = [rankings[q] for q in np.flatnonzero(mask)]
    offsets = np.concatenate(([0], np.cumsum([len(r) for r in chosen]))).astype(np.int64)
    rel = np.array([x for r in chosen for x in r], dtype=np.int64)
    ids = np.array([f"q{q}" for q in np.flatnonzero(mask)], dtype=object)
    return RankedView(ids, offsets, rel, levels, counts[mask], qrels_statistics=statistics)


@settings(max_examples=150, deadline=None)
@given(qrels_views(), st.sampled_from(MEASURES))
def test_shared_ideal_is_the_views_own(case, name):
    levels, counts, (first, second), rankings = case
    measure = parse_measure(name)
    memo: dict = {}
    for mask in (first, second):  # the first view fills the cache, the second reads it
        shared = view_of(levels, counts, mask, rankings, QrelsStatistics(counts, mask, memo))
        alone = view_of(levels, counts, mask, rankings)
        got = np.asarray(measure.family.kernel(view_for(shared, measure), measure), dtype=np.float64)
        expected = np.asarray(measure.family.kernel(view_for(alone, measure), measure), dtype=np.float64)
        assert got.tobytes() == expected.tobytes(), (name, mask)


def test_a_repeated_evaluation_computes_the_ideal_once():
    """The training-loop use: the second call of a prepared Evaluator reads the cached ideal DCG
    (a cache of wrong rows would give other values than the first call's)."""
    qrels = {"a": {"d1": 2, "d2": 1, "d3": 0}, "b": {"d1": 1}, "c": {"d4": 3, "d5": 3}}
    evaluator = cranfield.Evaluator(qrels, ["nDCG@2", "nDCG"])
    first = evaluator.evaluate({"c": {"d5": 1.0, "d9": 2.0}, "a": {"d2": 1.0, "d1": 0.5}})
    memo = evaluator._prepared.statistics
    assert memo and all(values.size == 3 for values in memo.values())  # every qrels query
    second = evaluator.evaluate({"c": {"d5": 1.0, "d9": 2.0}, "a": {"d2": 1.0, "d1": 0.5}})
    assert first.to_dict() == second.to_dict()
    only_b = evaluator.evaluate({"b": {"d1": 1.0, "d7": 2.0}})
    fresh = cranfield.Evaluator(qrels, ["nDCG@2", "nDCG"]).evaluate({"b": {"d1": 1.0, "d7": 2.0}})
    assert only_b.to_dict() == fresh.to_dict()
    assert only_b.per_query["nDCG@2"]["b"] == 1 / np.log2(3)
