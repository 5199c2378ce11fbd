"""Average precision and its trec_eval relatives.

AP = (1/R) Σ_{relevant d retrieved} P@rank(d); relevant documents not retrieved contribute 0.
AP@k (trec_eval map_cut) keeps the sum to the top k and still divides by R; denom=min divides
by min(R, k) (the best AP@k reachable is then 1), denom=hits by the relevant documents found in
the top k (some tutorials, torchmetrics RetrievalMAP(top_k=k)); 0 when the divisor is 0.
GMAP is AP aggregated by the geometric mean with trec_eval's floor of 1e-5.
infAP estimates AP when the pool is sampled (judgments < 0 = pooled but not judged).

References: Buckley & Voorhees 2000 (AP); Robertson 2006 (GMAP); Yilmaz & Aslam 2006 (infAP);
trec_eval m_map.c, m_map_cut.c, m_gm_map.c, m_infap.c.
"""

from __future__ import annotations

import numpy as np

from .view import UNJUDGED
from . import _compiled
from ._common import REL_PARAM, binary_view, safe_divide
from ._running import RunningSums
from .base import Family, Param, register
from .trec import CUTOFFS, TrecMeasure, cut, single

INFAP_EPSILON = 0.00001


def _ap(view, measure) -> np.ndarray:
    v = binary_view(view, measure)
    # Σ P@rank over the relevant documents in the top k: the running sum of P@rank over each query's
    # relevant documents (rank order, added one by one from 0.0: the bits of a sequential sum), read
    # after the relevant documents in the top k; one running sum serves AP and every AP@k
    running = v.cached(("ap-running", v.relevance_level), lambda: _precision_running(v))
    hits = v.num_rel_ret if measure.cutoff is None else v.rel_ret_at(measure.cutoff)
    denom = measure.param("denom") if "denom" in measure.family.params else "R"  # GMAP shares this kernel
    if denom == "R":
        divisor = v.num_rel
    elif denom == "hits":
        divisor = hits
    else:  # min
        divisor = v.num_rel if measure.cutoff is None else np.minimum(v.num_rel, measure.cutoff)
    return safe_divide(running.at(hits), divisor)


def _precision_running(v) -> RunningSums:
    """Running sums of P@rank over each query's relevant documents, in rank order."""
    _, _, pos, rel_so_far = v.relevant
    return RunningSums(rel_so_far / (pos + 1.0), v.num_rel_ret)


def _inf_ap(view, measure) -> np.ndarray:
    v = binary_view(view, measure)
    compiled = _compiled.binary_pass(v)
    if compiled is not None:
        return compiled["infap"].copy()
    rel = v.is_rel
    nonrel_so_far = v.cum_judged_nonrel[rel].astype(np.float64)
    unjudged_so_far = v.segment_cumsum(v.rel == UNJUDGED)[rel].astype(np.float64)
    rel_so_far = v.cum_rel[rel].astype(np.float64)
    j = v.pos[rel].astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = (1.0 / (j + 1.0) + (j / (j + 1.0)) * ((rel_so_far - 1 + nonrel_so_far + unjudged_so_far) / j)
                * ((rel_so_far - 1 + INFAP_EPSILON) / (rel_so_far - 1 + nonrel_so_far + 2 * INFAP_EPSILON)))
    term = np.where(j == 0, 1.0, term)
    total = np.bincount(v.seg[rel], weights=term, minlength=v.n_queries)
    return safe_divide(total, v.num_rel)


_DENOM = Param("str", "R", "divisor: R (number relevant, trec_eval), min = min(R, k), hits = relevant in the top k",
               lambda v: None if v in ("R", "min", "hits") else "expected R, min or hits")

register(Family("AP", _ap, "Average precision: mean of P@rank over the relevant documents (÷ R; a relevant "
                "document not retrieved counts 0). AP@k sums over the top k only, still ÷ R.",
                "Buckley & Voorhees 2000; trec_eval map, map_cut",
                params={"rel": REL_PARAM, "denom": _DENOM}, cutoff="optional",
                aliases=("MAP",),
                trec=(TrecMeasure("map", "single", build=single("AP")), TrecMeasure("map_cut", "cut_long", CUTOFFS, cut("AP")),)))
register(Family("GMAP", _ap, "Average precision aggregated over queries by the geometric mean, each value "
                "floored at 1e-5.", "Robertson 2006; trec_eval gm_map", params={"rel": REL_PARAM},
                aggregate="gmean",
                trec=(TrecMeasure("gm_map", "single", build=single("GMAP"), per_query=False),)))
register(Family("infAP", _inf_ap, "Inferred AP: AP estimated from a sampled pool; documents in the pool but "
                "unjudged (rel < 0) are assumed relevant at the rate of the judged ones.",
                "Yilmaz & Aslam 2006; trec_eval infAP", params={"rel": REL_PARAM}, aliases=("InfAP",),
                trec=(TrecMeasure("infAP", "single", build=single("infAP")),)))
