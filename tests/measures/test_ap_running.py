"""AP and AP@k from one running sum of P@rank per query (``measures.ap``): every value is the
double a sequential loop gives (trec_eval's m_map.c and m_map_cut.c add P@rank in rank order,
from 0.0), compared with ``==`` to such a loop written here in Python, for every cut-off, divisor
and relevance level, with the measures of one view sharing the running sum."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from cranfield.measures.base import parse_measure
from cranfield.measures.condensed import view_for
from cranfield.measures.view import NONPOOL, UNJUDGED, RankedView

LEVELS = np.array([0, 1, 2, 3], dtype=np.int64)
NAMES = ["AP", "AP@1", "AP@2", "AP@3", "AP@7", "AP@30", "AP(denom=min)@3", "AP(denom=hits)@5",
         "AP(rel=2)@4", "AP(rel=2)", "GMAP", "AP(judged_only=true)@3"]


@st.composite
def views(draw):
    n_q = draw(st.integers(1, 6))
    offsets, rel, counts = [0], [], np.zeros((n_q, LEVELS.size), dtype=np.int64)
    for q in range(n_q):
        ranking = draw(st.lists(st.sampled_from([NONPOOL, UNJUDGED, 0, 1, 2, 3]), max_size=40))
        rel += ranking
        offsets.append(len(rel))
        for level in ranking:
            if level >= 0:
                counts[q, level] += 1
        counts[q] += draw(st.lists(st.integers(0, 3), min_size=4, max_size=4))  # judged, not retrieved
    return (np.array([f"q{i}" for i in range(n_q)], dtype=object), np.array(offsets, dtype=np.int64),
            np.array(rel, dtype=np.int64), LEVELS, counts)


def sequential(view: RankedView, measure) -> list[float]:
    """AP of each query by a loop over its ranking, as trec_eval adds it."""
    given = dict(measure.params)
    level = given.get("rel") if given.get("rel") is not None else view.relevance_level
    denom = given.get("denom", "R")
    k = measure.cutoff
    values = []
    for q in range(view.n_queries):
        ranking = view.rel[view.offsets[q]:view.offsets[q + 1]]
        if given.get("judged_only"):
            ranking = ranking[ranking >= 0]
        total, found, hits = 0.0, 0, 0
        for rank, code in enumerate(ranking):
            if code >= level:
                found += 1
                if k is None or rank < k:
                    total += found / (rank + 1.0)
                    hits += 1
        judged_relevant = int(view.level_counts[q, LEVELS >= level].sum())
        divisor = {"R": judged_relevant, "hits": hits}.get(denom, judged_relevant if k is None else min(judged_relevant, k))
        values.append(total / divisor if divisor else 0.0)
    return values


@settings(max_examples=200, deadline=None)
@given(views())
def test_ap_is_the_sequential_sum(parts):
    view = RankedView(*parts)
    for name in NAMES:  # one view: the running sum computed once, read by every measure
        measure = parse_measure(name)
        got = np.asarray(measure.family.kernel(view_for(view, measure), measure), dtype=np.float64)
        assert got.tolist() == sequential(view, measure), name
