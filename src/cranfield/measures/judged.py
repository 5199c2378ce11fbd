"""Judgment coverage: the share of the top k that is (un)judged — a red flag for pooling bias.

Two conventions exist, and they differ on short rankings and on negative judgments:

* ``convention=trec_eval`` (default), trec_eval 10.0's unjudged rate (``unj``, m_unj.c):
  Unjudged@k = |unjudged ∩ top k| / k and Judged@k = |judged ∩ top k| / k = 1 − Unjudged@k when
  k documents are retrieved. A document is judged when the qrels give it a grade ≥ 0; a negative
  grade ("in the pool, not judged") counts as unjudged. A ranking shorter than k is padded with
  ranks that count as neither, so the denominator stays k.
* ``convention=ir_measures``, ir_measures' ``Judged@k`` (its ``judged`` provider, after
  OpenNIR): |documents of the top k that appear in the qrels, whatever their grade (−1
  included)| / min(k, number retrieved).

Without a cut-off both divide by the number retrieved (the whole ranking).

References: trec_eval 10.0 m_unj.c (unj); ir_measures providers/judged_provider.py (Judged);
Sakai 2007 (condensed lists, judged-only evaluation).
"""

from __future__ import annotations

import numpy as np

from .view import NONPOOL
from ._common import safe_divide
from .base import Family, Param, register
from .trec import TrecMeasure, cut

_CONVENTIONS = ("trec_eval", "ir_measures")
CONVENTION = Param("str", "trec_eval", "trec_eval = trec_eval 10 unj (grade ≥ 0 is judged, ÷ k); ir_measures = "
                   "ir_measures Judged (any qrels line is judged, ÷ min(k, retrieved))",
                   lambda v: None if v in _CONVENTIONS else "expected trec_eval or ir_measures")


def _share(view, measure, judged: np.ndarray) -> np.ndarray:
    k = measure.cutoff
    ones = np.ones(view.rel.size)
    if k is None:
        return safe_divide(view.segment_sum(ones, judged), view.num_ret)
    count = view.prefix_sum(ones, k, judged)
    if measure.param("convention") == "ir_measures":
        return safe_divide(count, np.minimum(view.num_ret, k))
    return count / k


def _unjudged(view, measure) -> np.ndarray:
    if measure.param("convention") == "ir_measures":
        return _share(view, measure, view.rel == NONPOOL)
    return _share(view, measure, view.rel < 0)


def _judged(view, measure) -> np.ndarray:
    if measure.param("convention") == "ir_measures":
        return _share(view, measure, view.rel != NONPOOL)
    return _share(view, measure, view.rel >= 0)


register(Family("Unjudged", _unjudged, "Fraction of the top k (or of the ranking) without a judgment.",
                "trec_eval 10 unj; convention=ir_measures: the complement of ir_measures Judged",
                params={"convention": CONVENTION}, cutoff="optional", aliases=("Unj",), greater_is_better=False,
                trec=(TrecMeasure("unj", "cut_long", (5, 10, 20), cut("Unjudged"), since="10"),)))
register(Family("Judged", _judged, "Fraction of the top k (or of the ranking) with a judgment.",
                "1 − trec_eval 10 unj; convention=ir_measures: ir_measures Judged@k",
                params={"convention": CONVENTION}, cutoff="optional"))
