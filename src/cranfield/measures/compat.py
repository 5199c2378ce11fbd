"""Compatibility: rank-biased overlap of a run with the ideal ranking of its graded qrels.

The ideal ranking lists the documents judged relevant (level > 0) by decreasing level; documents
of equal level are put in the run's order (retrieved ones first, by rank), the order most
favourable to the run, as Clarke et al. prescribe for ties. With depth D = max(n, R) (n retrieved,
R relevant) and overlap(d) the number of documents common to the top d of both rankings::

    RBO    = Σ_{d=1}^{D} p^(d−1) · overlap(d) / d  ÷  Σ_{d=1}^{D} p^(d−1)
    Compat = RBO(run, ideal) / RBO(ideal, ideal)          (normalize=true, the default)

0 for a query without relevant documents. A relevant retrieved document at rank r and ideal
position s counts in overlap(d) for every d ≥ max(r, s), so the sum is one prefix sum of
p^(d−1)/d read per document: no loop over ranks.

Reference: Clarke, Vtyurina & Smucker, "Assessing top-k preferences", ACM TOIS 39(3) 2021;
ir_measures' ``Compat(p=0.95, normalize=True)`` (which breaks ties in the ideal ranking by the
run's scores, unretrieved documents scoring 0).
"""

from __future__ import annotations

import numpy as np

from ._common import safe_divide
from .base import Family, Param, register


def _p_check(value: float) -> str | None:
    return None if 0 < value < 1 else "the persistence p must lie in (0, 1)"


def _compat(view, measure) -> np.ndarray:
    p = measure.param("p")
    levels = view.level_values
    positive = levels > 0
    num_rel = view.level_counts[:, positive].sum(axis=1).astype(np.int64)
    depth = np.maximum(view.num_ret, num_rel)
    width = int(depth.max(initial=0))
    powers = np.cumprod(np.concatenate(([1.0], np.full(max(width - 1, 0), p))))[:width]  # p^(d-1), d = 1..width
    weighted = np.concatenate(([0.0], np.cumsum(powers / np.arange(1, width + 1))))  # H(d) = Σ_{j≤d} p^(j-1)/j
    total = np.concatenate(([0.0], np.cumsum(powers)))  # Σ_{j≤d} p^(j-1)
    norm = total[depth]
    # ideal position of each relevant retrieved document: documents of a higher level, then the
    # retrieved documents of its level ranked above it, then itself
    rel = np.flatnonzero(view.rel > 0)
    q, level, rank = view.seg[rel], view.rel[rel], view.pos[rel] + 1
    above_levels = np.cumsum(view.level_counts[:, ::-1], axis=1)[:, ::-1]  # judged at this level or higher
    column = np.searchsorted(levels, level)
    higher = above_levels[q, column] - view.level_counts[q, column]
    order = np.lexsort((rank, level, q))  # rank within (query, level) groups
    group = q[order] * (int(levels.max(initial=0)) + 1) + level[order]
    starts = np.concatenate(([True], group[1:] != group[:-1]))
    first = np.maximum.accumulate(np.where(starts, np.arange(order.size), 0))
    same_level_above = np.empty(order.size, dtype=np.int64)
    same_level_above[order] = np.arange(order.size) - first
    position = higher + same_level_above + 1
    common_from = np.maximum(rank, position)
    score = np.bincount(q, weights=weighted[depth[q]] - weighted[common_from - 1], minlength=view.n_queries)
    rbo = safe_divide(score, norm)
    if not measure.param("normalize"):
        return rbo
    # RBO(ideal, ideal): overlap(d) = min(d, R), i.e. Σ_{d≤R} p^(d−1) + R · Σ_{R<d≤D} p^(d−1)/d
    ideal = total[num_rel] + num_rel * (weighted[depth] - weighted[num_rel])
    return safe_divide(rbo, safe_divide(ideal, norm))


register(Family("Compat", _compat, "Compatibility: rank-biased overlap of the run with the ideal ranking of the "
                "graded qrels (ties in the run's favour), normalised by the ideal's own RBO.",
                "Clarke, Vtyurina & Smucker, TOIS 2021; ir_measures Compat",
                params={"p": Param("float", 0.95, "persistence of the RBO user", _p_check),
                        "normalize": Param("bool", True, "divide by RBO(ideal, ideal)")}))
