"""trec_eval's experimental gain measures G and binG (Buckley, 2008).

G = (1/ΣIdeal) Σ_i gain_i / log2(2 + C_i − S_i), where S_i is the cumulative gain of the
ranking up to rank i and C_i the cumulative cost Σ_{j ≤ i} max(ideal gain at j, 1).
binG = (1/R) Σ_{relevant d} 1 / log2(2 + non-relevant documents ranked above d).

Reference: trec_eval m_G.c, m_binG.c.
"""

from __future__ import annotations

import numpy as np

from . import _compiled
from ._common import REL_PARAM, binary_view, safe_divide
from ._gains import GAINS_PARAM, IDEAL_PARAM, gain_view
from ._running import RunningSums
from .base import Family, register
from .trec import TrecMeasure, gains_measure, single


def _g(view, measure) -> np.ndarray:
    gv = gain_view(view, measure.param("gains"), ideal=measure.param("ideal"))
    compiled = _compiled.gain_pass(view, gv)
    if compiled is not None:  # the same sums in one pass; numpy takes the log2 (see _compiled)
        terms = compiled["g_gains"] / np.log2(compiled["g_args"])
        results_g = np.bincount(compiled["g_queries"], weights=terms, minlength=view.n_queries)
        return safe_divide(results_g, compiled["sum_ideal"])
    # running sums of the gains and of the costs, read at the documents with a gain only
    nonzero = np.flatnonzero(gv.doc_gain != 0)
    q, rank = view.seg[nonzero], view.pos[nonzero] + 1
    sum_results = RunningSums(gv.doc_gain, view.num_ret).at_each(q, rank)
    # cost of each rank: max(ideal gain there, 1), 1 past the ideal list
    ideal_starts = np.concatenate(([0], np.cumsum(gv.ideal_len)[:-1]))
    inside = np.flatnonzero(view.pos < gv.ideal_len[view.seg])
    cost = np.ones(view.rel.size)
    cost[inside] = np.maximum(gv.ideal[ideal_starts[view.seg[inside]] + view.pos[inside]], 1.0)
    sum_cost = RunningSums(cost, view.num_ret).at_each(q, rank)
    terms = gv.doc_gain[nonzero] / np.log2(2.0 + sum_cost - sum_results)
    results_g = np.bincount(q, weights=terms, minlength=view.n_queries)
    sum_ideal = np.bincount(gv.ideal_seg, weights=gv.ideal, minlength=view.n_queries)
    return safe_divide(results_g, sum_ideal)


def _bin_g(view, measure) -> np.ndarray:
    v = binary_view(view, measure)
    compiled = _compiled.binary_pass(v)
    if compiled is not None:
        return compiled["bing"].copy()
    rel = v.is_rel
    nonrel_above = (v.pos[rel] + 1 - v.cum_rel[rel]).astype(np.float64)
    terms = 1.0 / np.log2(2.0 + nonrel_above)
    total = np.bincount(v.seg[rel], weights=terms, minlength=v.n_queries)
    return safe_divide(total, v.num_rel)


register(Family("G", _g, "Normalised gain, each document's gain discounted by the gain still missing against "
                "the ideal ranking.", "trec_eval G (Buckley 2008, experimental)",
                params={"gains": GAINS_PARAM, "ideal": IDEAL_PARAM},
                bounds=(None, None),
                trec=(TrecMeasure("G", "params", (), gains_measure("G"), pairs=True),)))
register(Family("BinG", _bin_g, "Binary G: mean over relevant documents of 1/log2(2 + non-relevant above).",
                "trec_eval binG (Buckley 2008, experimental)", params={"rel": REL_PARAM},
                trec=(TrecMeasure("binG", "single", build=single("BinG")),)))
