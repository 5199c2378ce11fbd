"""Consistency between retrieval measures missing from tests/measures/test_properties.py (issue 9):
AP is the area under the step precision-recall curve, Σₖ (R@k − R@(k−1)) · P@k."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cranfield
from cranfield.measures.base import Measure

DOCS = ["d1", "d10", "d2", "d20", "d3", "D4", "d5", "e"]


@st.composite
def instances(draw):
    qrels, run = {}, {}
    for q in range(draw(st.integers(1, 4))):
        judged = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=len(DOCS), unique=True))
        qrels[f"q{q}"] = {d: draw(st.integers(-1, 3)) for d in judged}
        retrieved = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=len(DOCS), unique=True))
        run[f"q{q}"] = {d: float(draw(st.sampled_from([0.0, 0.5, 1.0, -1.0]))) for d in retrieved}
    return qrels, run


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances(), st.integers(1, 2))
def test_ap_is_the_area_under_the_step_pr_curve(instance, level):
    qrels, run = instance
    depth = len(DOCS)
    measures = ["AP"] + [Measure("P", {}, k) for k in range(1, depth + 1)] + [Measure("R", {}, k)
                                                                               for k in range(1, depth + 1)]
    result = cranfield.evaluate(qrels, run, measures, relevance_level=level)
    precision = np.array([result.per_query[f"P@{k}"] for k in range(1, depth + 1)])
    recall = np.array([result.per_query[f"R@{k}"] for k in range(1, depth + 1)])
    steps = np.diff(np.vstack([np.zeros(recall.shape[1]), recall]), axis=0)
    np.testing.assert_allclose(result.per_query["AP"], (steps * precision).sum(axis=0), rtol=0, atol=1e-12)
