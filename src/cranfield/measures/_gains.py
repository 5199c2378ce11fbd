"""Graded gains shared by nDCG, G and RBP: the gain of each ranked document and the ideal
ranking (all judged documents with positive gain, by decreasing gain), per query.

Gain of a judged level ℓ ≥ 0 is ``gains.get(ℓ, ℓ)`` (trec_eval: gain = relevance level unless
overridden with ``ndcg.1=3,2=9``); with ``gain=exp`` an unlisted level gains 2^ℓ − 1 (Burges et
al. 2005); unjudged documents have gain 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .base import Param

__all__ = ["GAINS_PARAM", "GAIN_PARAM", "GainView", "gain_view"]

GAINS_PARAM = Param("gains", (), "gain of each relevance level, e.g. {1:1,2:3}; unlisted levels gain their level")
GAIN_PARAM = Param("str", "linear", "gain of an unlisted level ℓ: linear = ℓ (trec_eval), exp = 2^ℓ − 1 (Burges)",
                   lambda v: None if v in ("linear", "exp") else "expected linear or exp")


@dataclass
class GainView:
    level_gain: np.ndarray  # gain of each of view.level_values
    doc_gain: np.ndarray  # gain of each ranked document (0 for unjudged)
    ideal: np.ndarray  # flat ideal gains (positive only, decreasing within each query)
    ideal_len: np.ndarray  # per query
    ideal_seg: np.ndarray
    ideal_pos: np.ndarray

    def ideal_prefix(self, k) -> np.ndarray:
        """Per query, Σ over the first k ideal positions of gain / log2(position + 2)."""
        k = np.broadcast_to(np.asarray(k, dtype=np.int64), self.ideal_len.shape)
        mask = self.ideal_pos < k[self.ideal_seg]
        weights = self.ideal[mask] / np.log2(self.ideal_pos[mask] + 2.0)
        return np.bincount(self.ideal_seg[mask], weights=weights, minlength=self.ideal_len.size)


def level_gains(level_values: np.ndarray, gains, gain: str = "linear") -> np.ndarray:
    mapping = dict(gains)
    default = (lambda level: 2.0 ** level - 1.0) if gain == "exp" else float
    return np.array([mapping.get(int(level), default(int(level))) for level in level_values], dtype=np.float64)


def gain_view(view, gains=(), gain: str = "linear") -> GainView:
    key = ("gains", tuple(gains)) if gain == "linear" else ("gains", tuple(gains), gain)
    cached = view._cache.get(key)
    if cached is not None:
        return cached
    g = level_gains(view.level_values, gains, gain)
    doc_gain = np.zeros(view.rel.size, dtype=np.float64)
    judged = view.rel >= 0
    if judged.any():
        doc_gain[judged] = g[np.searchsorted(view.level_values, view.rel[judged])]
    order = np.argsort(-g, kind="stable")
    order = order[g[order] > 0]
    counts = view.level_counts[:, order]
    ideal_len = counts.sum(axis=1).astype(np.int64)
    ideal = np.repeat(np.tile(g[order], view.n_queries), counts.ravel())
    ideal_seg = np.repeat(np.arange(view.n_queries), ideal_len)
    starts = np.concatenate(([0], np.cumsum(ideal_len)[:-1]))
    ideal_pos = np.arange(ideal.size) - np.repeat(starts, ideal_len)
    result = GainView(g, doc_gain, ideal, ideal_len, ideal_seg, ideal_pos)
    view._cache[key] = result
    return result
