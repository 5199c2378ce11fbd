"""Judgment coverage: the share of the top k that is (un)judged — a red flag for pooling bias.

Unjudged@k = |unjudged ∩ top k| / k (trec_eval 10 unj); Judged@k = |judged ∩ top k| / k
(missing ranks count as neither).

Reference: trec_eval 10 m_unjudged.c; Sakai 2007 (condensed lists).
"""

from __future__ import annotations

import numpy as np

from .base import Family, register


def _unjudged(view, measure) -> np.ndarray:
    return view.prefix_sum(np.ones(view.rel.size), measure.cutoff, view.rel < 0) / measure.cutoff


def _judged(view, measure) -> np.ndarray:
    return view.prefix_sum(np.ones(view.rel.size), measure.cutoff, view.rel >= 0) / measure.cutoff


register(Family("Unjudged", _unjudged, "Fraction of the top k without a judgment.", "trec_eval 10 unj",
                cutoff="required", aliases=("Unj",)))
register(Family("Judged", _judged, "Fraction of the top k with a judgment.", "ir_measures Judged@k",
                cutoff="required"))
