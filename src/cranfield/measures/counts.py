"""Counts per query: retrieved, relevant, relevant retrieved, judged non-relevant retrieved.

trec_eval sums these over queries in its summary (``aggregate="sum"``).
"""

from __future__ import annotations

import numpy as np

from . import _compiled
from ._common import REL_PARAM, binary_view
from .base import Family, register
from .trec import TrecMeasure, single


def _num_ret(view, measure) -> np.ndarray:
    return view.num_ret.astype(np.float64)


def _num_rel(view, measure) -> np.ndarray:
    return binary_view(view, measure).num_rel.astype(np.float64)


def _num_rel_ret(view, measure) -> np.ndarray:
    v = binary_view(view, measure)
    compiled = _compiled.binary_pass(v)
    return (v.num_rel_ret if compiled is None else compiled["num_rel_ret"]).astype(np.float64)


def _num_nonrel_judged_ret(view, measure) -> np.ndarray:
    v = binary_view(view, measure)
    compiled = _compiled.binary_pass(v)
    counts = v.segment_count(v.is_judged_nonrel) if compiled is None else compiled["num_nonrel_judged_ret"]
    return counts.astype(np.float64)


_COUNT = dict(aggregate="sum", bounds=(0.0, None), integer_valued=True)

register(Family("NumRet", _num_ret, "Number of documents retrieved for the query.", "trec_eval num_ret", **_COUNT,
                trec=(TrecMeasure("num_ret", "single", build=single("NumRet"), long=True),)))
register(Family("NumRel", _num_rel, "Number of judged relevant documents (rel ≥ level) for the query.",
                "trec_eval num_rel", params={"rel": REL_PARAM}, **_COUNT,
                trec=(TrecMeasure("num_rel", "single", build=single("NumRel"), long=True),)))
register(Family("NumRelRet", _num_rel_ret, "Number of relevant documents retrieved.", "trec_eval num_rel_ret",
                params={"rel": REL_PARAM}, **_COUNT,
                trec=(TrecMeasure("num_rel_ret", "single", build=single("NumRelRet"), long=True),)))
register(Family("NumNonRelJudgedRet", _num_nonrel_judged_ret,
                "Number of retrieved documents judged non-relevant (0 ≤ rel < level).",
                "trec_eval num_nonrel_judged_ret", params={"rel": REL_PARAM}, **_COUNT,
                trec=(TrecMeasure("num_nonrel_judged_ret", "single", build=single("NumNonRelJudgedRet"), long=True),)))
