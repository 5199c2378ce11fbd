"""User-model measures: rank-biased precision and its residual.

RBP(p) = (1 − p) Σ_i g_i p^(i−1), gains normalised to [0, 1] as trec_eval 10 does
((g − min)/(max − min) when a gain lies outside [0, 1]). The residual (Moffat & Zobel's
uncertainty) is p^n + (1 − p) Σ_{unjudged d_i} p^(i−1), n being the number retrieved: the most
RBP could still grow if every unjudged and unretrieved document were relevant.

Reference: Moffat & Zobel, ACM TOIS 27(1) 2008; trec_eval 10 m_rbp.c, m_rbp_resid.c.
"""

from __future__ import annotations

import numpy as np

from ._gains import GAINS_PARAM, gain_view, level_gains
from .base import Family, Param, register
from .trec import TrecMeasure, gains_measure, single


def _p_check(value: float) -> str | None:
    return None if 0 < value < 1 else "the persistence p must lie in (0, 1)"


def _powers(view, p: float) -> np.ndarray:
    width = int(view.num_ret.max()) if view.n_queries else 0
    steps = np.full(width + 1, p)
    steps[0] = 1.0
    return np.cumprod(steps)  # p^0, p^1, ... by repeated multiplication, as trec_eval


def _rbp(view, measure) -> np.ndarray:
    p = measure.param("p")
    powers = _powers(view, p)
    if measure.param("residual"):
        unjudged = view.rel < 0
        tail = powers[view.num_ret]
        return tail + (1.0 - p) * view.segment_sum(powers[view.pos], unjudged)
    gv = gain_view(view, measure.param("gains"))
    # per-query normalisation over the gains of levels 0..max judged level (and listed levels)
    present = view.level_counts > 0
    if present.shape[1] == 0:
        top_level = np.zeros(view.n_queries, dtype=np.int64)
    else:
        last = np.argmax(np.cumsum(present, axis=1), axis=1)
        top_level = np.where(present.any(axis=1), view.level_values[last], 0)
    listed = dict(measure.param("gains"))
    all_levels = np.arange(int(view.level_values.max(initial=0)) + 1)
    gains_all = level_gains(all_levels, listed.items())
    prefix_min = np.minimum.accumulate(gains_all)
    prefix_max = np.maximum.accumulate(gains_all)
    lo = prefix_min[top_level]
    hi = prefix_max[top_level]
    if listed:
        lo = np.minimum(lo, min(listed.values()))
        hi = np.maximum(hi, max(listed.values()))
    scale = (lo < 0) | (hi > 1)
    gain = gv.doc_gain
    q = view.seg
    normalised = np.where(scale[q], (gain - lo[q]) / np.where(hi[q] > lo[q], hi[q] - lo[q], 1.0), gain)
    normalised = np.where(view.rel >= 0, normalised, 0.0)
    nonzero = normalised != 0
    return (1.0 - p) * view.segment_sum(normalised * powers[view.pos], nonzero)


register(Family("RBP", _rbp, "Rank-biased precision (1−p) Σ g_i p^(i−1), gains normalised to [0, 1]; with "
                "residual=true, the residual uncertainty from unjudged and unretrieved documents.",
                "Moffat & Zobel 2008; trec_eval 10 rbp, rbp_resid",
                params={"p": Param("float", 0.9, "persistence", _p_check), "gains": GAINS_PARAM,
                        "residual": Param("bool", False, "return the residual instead of RBP")},
                trec=(TrecMeasure("rbp", "params", (), gains_measure("RBP"), pairs=True, since="10"), TrecMeasure("rbp_resid", "single", build=single("RBP", residual=True), since="10"),)))
