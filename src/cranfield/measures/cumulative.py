"""Cumulative gain without discount, and counts of relevant documents at a cut-off.

NCG@k = CG@k / ICG@k, CG@k = Σ_{i ≤ k} gain(d_i), ICG@k the same sum over the ideal ranking (all
judged documents by decreasing gain); 0 when ICG@k = 0. Without k: the whole ranking against all
the judged gain (a graded recall). Gains as nDCG's: level ℓ gains ℓ unless ``gains={…}`` says
otherwise; unjudged documents gain 0.
Hits@k = the number of relevant documents in the top k (rel ≥ the relevance level), averaged
over queries (ranx's ``hits@k``; trec_eval's num_rel_ret cut at k).

References: Järvelin & Kekäläinen, "Cumulated gain-based evaluation of IR techniques", ACM TOIS
20(4) 2002 (CG and its normalised form, terrierteam/ir_measures#19); ranx ``hits``.
"""

from __future__ import annotations

import numpy as np

from ._common import REL_PARAM, binary_view, safe_divide
from ._gains import GAINS_PARAM, gain_view
from .base import Family, register


def _ncg(view, measure) -> np.ndarray:
    gv = gain_view(view, measure.param("gains"))
    k = measure.cutoff
    nonzero = gv.doc_gain != 0
    if k is not None:
        nonzero &= view.pos < k
    cg = view.segment_sum(gv.doc_gain, nonzero)
    inside = slice(None) if k is None else gv.ideal_pos < k
    icg = np.bincount(gv.ideal_seg[inside], weights=gv.ideal[inside], minlength=view.n_queries)
    return safe_divide(cg, icg)


def _hits(view, measure) -> np.ndarray:
    return binary_view(view, measure).rel_ret_at(measure.cutoff).astype(np.float64)


register(Family("NCG", _ncg, "Normalised cumulative gain: Σ gains in the top k divided by the same sum for the "
                "ideal ranking (0 when that is 0); no discount.", "Järvelin & Kekäläinen, TOIS 2002",
                params={"gains": GAINS_PARAM}, cutoff="optional"))
register(Family("Hits", _hits, "Number of relevant documents in the top k, averaged over queries.",
                "ranx hits; trec_eval num_rel_ret at k", params={"rel": REL_PARAM}, cutoff="required",
                bounds=(0.0, None), integer_valued=True))
