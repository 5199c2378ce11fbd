"""Rank-cut-off precision and recall: P@k, R@k, R-precision (and its multiples), relative
precision, success.

References: Manning, Raghavan & Schütze, *Introduction to IR* ch. 8; trec_eval m_P.c,
m_recall.c, m_Rprec.c, m_Rprec_mult.c, m_rel_P.c, m_success.c.
"""

from __future__ import annotations

import numpy as np

from ._common import REL_PARAM, binary_view, safe_divide
from .base import Family, Measure, Param, register
from .trec import CUTOFFS, RPREC_MULTS, TrecMeasure, cut, single


def _rel_ret_at(view, k) -> np.ndarray:
    return view.rel_ret_at(k).astype(np.float64)


def _precision(view, measure) -> np.ndarray:
    v = binary_view(view, measure)
    return _rel_ret_at(v, measure.cutoff) / measure.cutoff


def _recall(view, measure) -> np.ndarray:
    v = binary_view(view, measure)
    return safe_divide(_rel_ret_at(v, measure.cutoff), v.num_rel)


def _rprec(view, measure) -> np.ndarray:
    v = binary_view(view, measure)
    # trec_eval: cut-off = (long)(mult·R + 0.9); precision at that rank, 0 when the cut-off is 0
    cut = np.floor(measure.param("mult") * v.num_rel + 0.9).astype(np.int64)
    return safe_divide(_rel_ret_at(v, cut), cut)


def _relative_precision(view, measure) -> np.ndarray:
    v = binary_view(view, measure)
    return safe_divide(_rel_ret_at(v, measure.cutoff), np.minimum(measure.cutoff, v.num_rel))


def _success(view, measure) -> np.ndarray:
    v = binary_view(view, measure)
    return (_rel_ret_at(v, measure.cutoff) > 0).astype(np.float64)


def _rprec_mult(value, version: str = "9"):
    """trec_eval's Rprec_mult.m: R-precision at rank ⌊m·R + 0.9⌋."""
    return Measure("RPrec", {"mult": value})


def _mult_check(value: float) -> str | None:
    return None if value > 0 else "must be > 0"


register(Family("P", _precision, "Precision at k: relevant documents in the top k, divided by k "
                "(missing ranks count as non-relevant).", "trec_eval P; Manning et al. 2008 §8.4",
                params={"rel": REL_PARAM}, cutoff="required", aliases=("Precision",),
                trec=(TrecMeasure("P", "cut_long", CUTOFFS, cut("P")),)))
register(Family("R", _recall, "Recall at k: relevant documents in the top k, divided by the number of relevant "
                "documents R (0 when R = 0).", "trec_eval recall; Manning et al. 2008 §8.3",
                params={"rel": REL_PARAM}, cutoff="required", aliases=("Recall",),
                trec=(TrecMeasure("recall", "cut_long", CUTOFFS, cut("R")),)))
register(Family("RPrec", _rprec, "R-precision: precision at rank R (number of relevant documents); with mult=m, "
                "precision at rank ⌊m·R + 0.9⌋ (trec_eval Rprec_mult).", "Buckley & Voorhees 2000; trec_eval Rprec",
                params={"rel": REL_PARAM, "mult": Param("float", 1.0, "multiple of R", _mult_check)},
                aliases=("R-Prec", "Rprec"),
                trec=(TrecMeasure("Rprec", "single", build=single("RPrec")), TrecMeasure("Rprec_mult", "cut_double", RPREC_MULTS, _rprec_mult),)))
register(Family("RelP", _relative_precision, "Relative precision at k: relevant in the top k divided by min(k, R).",
                "trec_eval relative_P", params={"rel": REL_PARAM}, cutoff="required",
                aliases=("RelativeP",),
                trec=(TrecMeasure("relative_P", "cut_long", CUTOFFS, cut("RelP")),)))
register(Family("Success", _success, "Success at k: 1 if a relevant document is in the top k, else 0.",
                "trec_eval success (Tomlinson)", params={"rel": REL_PARAM}, cutoff="required",
                aliases=("Hit", "HitRate"),
                trec=(TrecMeasure("success", "cut_long", (1, 5, 10), cut("Success")),)))
