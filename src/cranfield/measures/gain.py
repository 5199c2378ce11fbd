"""trec_eval's experimental gain measures G and binG (Buckley, 2008).

G = (1/ΣIdeal) Σ_i gain_i / log2(2 + C_i − S_i), where S_i is the cumulative gain of the
ranking up to rank i and C_i the cumulative cost Σ_{j ≤ i} max(ideal gain at j, 1).
binG = (1/R) Σ_{relevant d} 1 / log2(2 + non-relevant documents ranked above d).

Reference: trec_eval m_G.c, m_binG.c.
"""

from __future__ import annotations

import numpy as np

from ..retrieval.ranked import segmented_accumulate
from ._common import REL_PARAM, binary_view, safe_divide
from ._gains import GAINS_PARAM, IDEAL_PARAM, gain_view
from .base import Family, register


def _g(view, measure) -> np.ndarray:
    gv = gain_view(view, measure.param("gains"), ideal=measure.param("ideal"))
    sum_results = segmented_accumulate(np.add, gv.doc_gain, view.num_ret)
    # ideal gain at each ranked position (0 past the ideal list), cost = max(ideal, 1)
    ideal_starts = np.concatenate(([0], np.cumsum(gv.ideal_len)[:-1]))
    inside = view.pos < gv.ideal_len[view.seg]
    ideal_here = np.zeros(view.rel.size)
    ideal_here[inside] = gv.ideal[ideal_starts[view.seg[inside]] + view.pos[inside]]
    sum_cost = segmented_accumulate(np.add, np.maximum(ideal_here, 1.0), view.num_ret)
    nonzero = gv.doc_gain != 0
    terms = gv.doc_gain[nonzero] / np.log2(2.0 + sum_cost[nonzero] - sum_results[nonzero])
    results_g = np.bincount(view.seg[nonzero], weights=terms, minlength=view.n_queries)
    sum_ideal = np.bincount(gv.ideal_seg, weights=gv.ideal, minlength=view.n_queries)
    return safe_divide(results_g, sum_ideal)


def _bin_g(view, measure) -> np.ndarray:
    v = binary_view(view, measure)
    rel = v.is_rel
    nonrel_above = (v.pos[rel] + 1 - v.cum_rel[rel]).astype(np.float64)
    terms = 1.0 / np.log2(2.0 + nonrel_above)
    total = np.bincount(v.seg[rel], weights=terms, minlength=v.n_queries)
    return safe_divide(total, v.num_rel)


register(Family("G", _g, "Normalised gain, each document's gain discounted by the gain still missing against "
                "the ideal ranking.", "trec_eval G (Buckley 2008, experimental)",
                params={"gains": GAINS_PARAM, "ideal": IDEAL_PARAM},
                bounds=(None, None)))
register(Family("BinG", _bin_g, "Binary G: mean over relevant documents of 1/log2(2 + non-relevant above).",
                "trec_eval binG (Buckley 2008, experimental)", params={"rel": REL_PARAM}))
