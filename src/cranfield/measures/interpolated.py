"""Interpolated precision at recall levels, and its average over levels (the 11-point average).

IPrec@r = max{ P@i : i ≥ i_c }, where i_c is the rank of the c-th relevant document and
c = ⌊r·R + 0.9⌋ (trec_eval 9, the textbook "first rank with recall ≥ r"; ``rounding=nearest``
gives trec_eval 10's lround(r·R)); 0 when fewer than c relevant documents are retrieved.
IPrec11 is the mean of IPrec over the levels (default 0, 0.1, …, 1).

References: Salton & McGill 1983; Manning et al. 2008 §8.4; trec_eval m_iprec_at_recall.c,
m_11pt_avg.c.
"""

from __future__ import annotations

import numpy as np

from .view import segmented_accumulate
from . import _compiled
from ._common import REL_PARAM, binary_view
from .base import Family, Measure, Param, register
from .trec import RECALL_LEVELS, TrecMeasure, cut

ELEVEN_POINTS = tuple(i / 10 for i in range(11))


def _rounding_check(value: str) -> str | None:
    return None if value in ("trec9", "nearest") else "expected trec9 or nearest"


def _levels_check(values) -> str | None:
    return None if all(0 <= v <= 1 for v in values) else "recall levels must lie in [0, 1]"


def _relevant_suffix_max(v):
    """Per relevant retrieved document (in rank order): max precision at or below it."""
    compiled = _compiled.binary_pass(v)
    if compiled is not None:
        return compiled["iprec"]
    rel = v.is_rel
    precision = v.cum_rel[rel] / (v.pos[rel] + 1.0)
    return segmented_accumulate(np.maximum, precision, v.num_rel_ret, reverse=True, fill=0.0)


def _iprec_values(v, level: float, rounding: str) -> np.ndarray:
    """IPrec at one recall level (computed once per view: IPrec and IPrec11 share it)."""
    return v.cached(("iprec", v.relevance_level, level, rounding), lambda: _iprec_at(v, level, rounding))


def _iprec_at(v, level: float, rounding: str) -> np.ndarray:
    suffix_max = v.cached(("iprec-suffix", v.relevance_level), lambda: _relevant_suffix_max(v))
    if rounding == "nearest":
        product = level * v.num_rel
        c = np.floor(product + 0.5).astype(np.int64)  # lround: half away from zero (product ≥ 0)
    else:
        c = np.floor(level * v.num_rel + 0.9).astype(np.int64)
    starts = np.concatenate(([0], np.cumsum(v.num_rel_ret)[:-1]))
    index = starts + np.maximum(c, 1) - 1
    ok = (c <= v.num_rel_ret) & (v.num_rel_ret > 0)
    out = np.zeros(v.n_queries, dtype=np.float64)
    out[ok] = suffix_max[index[ok]]
    return out


def _iprec(view, measure) -> np.ndarray:
    v = binary_view(view, measure)
    return _iprec_values(v, float(measure.cutoff), measure.param("rounding"))


def _iprec_avg(view, measure) -> np.ndarray:
    v = binary_view(view, measure)
    levels = sorted(measure.param("levels"))
    total = np.zeros(v.n_queries, dtype=np.float64)
    for level in reversed(levels):  # trec_eval sums from the highest level down
        total += _iprec_values(v, level, measure.param("rounding"))
    return total / len(levels)


_ROUNDING = Param("str", "trec9", "recall cut-off rounding: trec9 = ⌊r·R+0.9⌋, nearest = lround(r·R) (trec_eval 10)",
                  _rounding_check)

def _eleven(values, version: str = "9"):
    """trec_eval's 11pt_avg with its recall levels (rounded to nearest in trec_eval 10.0)."""
    params = {"levels": tuple(values)}
    if version == "10":
        params["rounding"] = "nearest"
    return Measure("IPrec11", params)


register(Family("IPrec", _iprec, "Interpolated precision at recall level r: the highest precision at any rank "
                "where recall ≥ r.", "Manning et al. 2008 §8.4; trec_eval iprec_at_recall",
                params={"rel": REL_PARAM, "rounding": _ROUNDING}, cutoff="required", cutoff_kind="float",
                aliases=("IPrecAtRecall",),
                trec=(TrecMeasure("iprec_at_recall", "cut_double", RECALL_LEVELS, cut("IPrec")),)))
register(Family("IPrec11", _iprec_avg, "Mean interpolated precision over recall levels (default the 11 points "
                "0, 0.1, …, 1).", "Salton & McGill 1983; trec_eval 11pt_avg",
                params={"rel": REL_PARAM, "rounding": _ROUNDING,
                        "levels": Param("floats", ELEVEN_POINTS, "recall levels", _levels_check)},
                aliases=("11pt",),
                trec=(TrecMeasure("11pt_avg", "params", RECALL_LEVELS, _eleven),)))
