"""Discounted cumulative gain and its normalisations.

DCG@k = Σ_{i ≤ k} gain(d_i) / log2(i + 1); nDCG@k = DCG@k / IDCG@k, the ideal DCG of all
judged documents sorted by decreasing gain (0 when IDCG = 0). Without k: the whole ranking.
gain=exp replaces the default gain ℓ of level ℓ by 2^ℓ − 1 (Burges et al. 2005; gdeval, ranx
ndcg_burges); explicit gains={…} still win.
nDCGRel averages nDCG at each relevant document; RnDCG averages nDCG at the ranks where the
ideal gain changes (trec_eval's experimental ndcg_rel and Rndcg).

References: Järvelin & Kekäläinen, ACM TOIS 20(4) 2002; Burges et al., ICML 2005 (exp gain);
trec_eval m_ndcg.c, m_ndcg_cut.c,
m_ndcg_rel.c, m_Rndcg.c.
"""

from __future__ import annotations

import numpy as np

from . import _compiled
from ._common import safe_divide
from ._gains import GAIN_PARAM, GAINS_PARAM, IDEAL_PARAM, SMALL_CUTOFF, gain_view
from ._running import RunningSums
from .base import Family, register
from .trec import CUTOFFS, TrecMeasure, cut, gains_measure


def _dcg_at(view, gv, k) -> np.ndarray:
    """Σ gain / log2(rank + 1) over the documents with a non-zero gain (in the top k), added in
    rank order: a small k asked first reads only the top k rows; otherwise one running sum per
    query serves every k (the same sums, bit for bit)."""
    if k is not None and k <= SMALL_CUTOFF and "dcg" not in gv.memo:
        rows = view.judged_top_rows(k)  # (the judged ones only, where known: the others add no gain)
        index, q, pos = view.top_rows(k) if rows is None else rows
        gain = gv.gain_of(view.rel[index])
        nonzero = gain != 0
        return np.bincount(q[nonzero], weights=gain[nonzero] / np.log2(pos[nonzero] + 2.0), minlength=view.n_queries)
    return _dcg_running(view, gv).at(view.num_ret if k is None else k)


def _discounted(view, gv) -> np.ndarray:
    """gain / log2(rank + 1) of each ranked document, 0 where the gain is 0."""
    if "discounted" not in gv.memo:
        discounted = np.zeros(gv.doc_gain.size, dtype=np.float64)
        nonzero = np.flatnonzero(gv.doc_gain != 0)
        discounted[nonzero] = gv.doc_gain[nonzero] / np.log2(view.pos[nonzero] + 2.0)
        gv.memo["discounted"] = discounted
    return gv.memo["discounted"]


def _dcg_running(view, gv) -> RunningSums:
    """DCG at every rank of every query (shared by nDCG, nDCG@k for all k, DCG and nDCGRel)."""
    if "dcg" not in gv.memo:
        compiled = _compiled.gain_pass(view, gv)
        gv.memo["dcg"] = RunningSums(_discounted(view, gv), view.num_ret) if compiled is None \
            else RunningSums(None, view.num_ret, flat=compiled["dcg"])
    return gv.memo["dcg"]


def _gv(view, measure):
    gain = measure.param("gain") if "gain" in measure.family.params else "linear"
    ideal = measure.param("ideal") if "ideal" in measure.family.params else "sorted"
    return gain_view(view, measure.param("gains"), gain, ideal)


def _dcg(view, measure) -> np.ndarray:
    return _dcg_at(view, _gv(view, measure), measure.cutoff)


def _ndcg(view, measure) -> np.ndarray:
    gv = _gv(view, measure)
    k = measure.cutoff
    return safe_divide(_dcg_at(view, gv, k), gv.ideal_dcg(k))


def _ndcg_rel(view, measure) -> np.ndarray:
    gv = _gv(view, measure)
    compiled = _compiled.gain_pass(view, gv)
    if compiled is not None:
        return compiled["ndcg_rel"].copy()
    dcg, ideal = _dcg_running(view, gv), gv.ideal_running
    # at each relevant document: DCG to its rank / ideal DCG to that rank (capped at the ideal length)
    index = np.flatnonzero((gv.doc_gain > 0) & (gv.ideal_len[view.seg] > 0))
    q, rank = view.seg[index], view.pos[index] + 1
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = dcg.at_each(q, rank) / ideal.at_each(q, np.minimum(rank, gv.ideal_len[q]))
    total = np.bincount(q, weights=ratios, minlength=view.n_queries)
    rel_ret = np.bincount(q, minlength=view.n_queries)
    total = total + safe_divide((gv.ideal_len - rel_ret) * dcg.at(view.num_ret), ideal.at(gv.ideal_len))
    return np.where(total > 0, safe_divide(total, gv.ideal_len), 0.0)


def _rndcg(view, measure) -> np.ndarray:
    gv = _gv(view, measure)
    compiled = _compiled.gain_pass(view, gv)
    if compiled is not None:
        return compiled["rndcg"].copy()
    n = view.n_queries
    # boundaries: ranks b (1..L) where the ideal gain changes, the last one where it drops to 0
    change = np.ones(gv.ideal.size, dtype=bool)
    change[1:] = (gv.ideal[1:] != gv.ideal[:-1]) | (gv.ideal_seg[1:] != gv.ideal_seg[:-1])
    change &= gv.ideal_pos > 0  # the first ideal position is no boundary
    boundary_seg = np.concatenate((gv.ideal_seg[change], np.flatnonzero(gv.ideal_len > 0)))
    boundary_rank = np.concatenate((gv.ideal_pos[change], gv.ideal_len[gv.ideal_len > 0]))
    discounted = np.where(gv.doc_gain != 0, gv.doc_gain / np.log2(view.pos + 2.0), 0.0)
    total = np.zeros(n)
    count = np.zeros(n)
    # at most one boundary per distinct gain value per query: loop over boundary "slots"
    order = np.lexsort((boundary_rank, boundary_seg))
    boundary_seg, boundary_rank = boundary_seg[order], boundary_rank[order]
    slot = np.arange(boundary_seg.size) - np.searchsorted(boundary_seg, boundary_seg)
    for s in range(int(slot.max()) + 1 if slot.size else 0):
        pick = slot == s
        q, b = boundary_seg[pick], boundary_rank[pick]
        k = np.zeros(n, dtype=np.int64)
        k[q] = b
        dcg = view.prefix_sum(discounted, k)
        idcg = gv.ideal_prefix(k)
        ok = np.zeros(n, dtype=bool)
        ok[q] = idcg[q] > 0
        total[ok] += dcg[ok] / idcg[ok]
        count[ok] += 1
    # trec_eval adds the full-ranking value when the ranking runs past the ideal by ≥ 2 ranks
    extra = (gv.ideal_len + 1 < view.num_ret) & (gv.ideal_len > 0)
    full = safe_divide(view.segment_sum(discounted), gv.ideal_dcg())
    total[extra] += full[extra]
    count[extra] += 1
    value = safe_divide(total, count)
    return np.where(view.num_rel > 0, value, 0.0)


_GAINS = {"gains": GAINS_PARAM, "ideal": IDEAL_PARAM}
_GAIN_AND_GAINS = {"gains": GAINS_PARAM, "gain": GAIN_PARAM}

register(Family("nDCG", _ndcg, "Normalised discounted cumulative gain: DCG / ideal DCG, with gain = relevance "
                "level (or the gains map) and discount 1/log2(rank + 1).",
                "Järvelin & Kekäläinen 2002; trec_eval ndcg, ndcg_cut; gain=exp: Burges et al. 2005",
                params={**_GAIN_AND_GAINS, "ideal": IDEAL_PARAM}, cutoff="optional",
                aliases=("NDCG",),
                trec=(TrecMeasure("ndcg", "params", (), gains_measure("nDCG"), pairs=True), TrecMeasure("ndcg_cut", "cut_long", CUTOFFS, cut("nDCG")),)))
register(Family("DCG", _dcg, "Discounted cumulative gain Σ gain / log2(rank + 1).",
                "Järvelin & Kekäläinen 2002; trec_eval 10 dcg", params=_GAIN_AND_GAINS, cutoff="optional",
                bounds=(None, None),
                trec=(TrecMeasure("dcg", "params", (), gains_measure("DCG"), pairs=True, since="10"),)))
register(Family("nDCGRel", _ndcg_rel, "nDCG averaged over the relevant documents (a relevant document not "
                "retrieved takes the final DCG / ideal DCG).", "trec_eval ndcg_rel", params=_GAINS,
                trec=(TrecMeasure("ndcg_rel", "params", (), gains_measure("nDCGRel"), pairs=True),)))
register(Family("RnDCG", _rndcg, "nDCG averaged at the R-levels: the ranks where the ideal gain changes.",
                "trec_eval Rndcg", params=_GAINS,
                trec=(TrecMeasure("Rndcg", "params", (), gains_measure("RnDCG"), pairs=True),)))
