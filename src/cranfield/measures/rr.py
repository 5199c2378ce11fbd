"""Reciprocal rank: 1 / rank of the first relevant document (0 if none in the top k).

Reference: Voorhees 1999 (TREC-8 QA); trec_eval m_recip_rank.c.
"""

from __future__ import annotations

import numpy as np

from ._common import REL_PARAM, binary_view
from .base import Family, register
from .trec import TrecMeasure, single


def _rr(view, measure) -> np.ndarray:
    v = binary_view(view, measure)
    _, q, pos, rel_so_far = v.relevant
    first = np.full(v.n_queries, -1, dtype=np.int64)
    first[q[rel_so_far == 1]] = pos[rel_so_far == 1]
    found = (first >= 0) & ((first < measure.cutoff) if measure.cutoff is not None else True)
    return np.where(found, 1.0 / np.where(found, first + 1.0, 1.0), 0.0)


register(Family("RR", _rr, "Reciprocal rank of the first relevant document; RR@k is 0 when it is below rank k.",
                "Voorhees 1999; trec_eval recip_rank", params={"rel": REL_PARAM}, cutoff="optional",
                aliases=("MRR", "RecipRank"),
                trec=(TrecMeasure("recip_rank", "single", build=single("RR")),)))
