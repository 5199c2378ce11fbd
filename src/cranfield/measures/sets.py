"""Set (unranked) measures over the whole retrieved list, and trec_eval's utility.

With P = relret/ret, R = relret/rel: SetP = P, SetR = R, SetRelP = relret/min(ret, rel),
SetAP = relret²/(ret·rel) (trec_eval set_map: the product P·R
rounded once, not twice), SetF(beta) = (1+β²)·P·R/(β²·P + R) (van Rijsbergen 1979),
Utility(a,b,c,d) = a·relret + b·(ret−relret) + c·(rel−relret) + d·(N + relret − ret − rel).
"""

from __future__ import annotations

import numpy as np

from ..errors import MeasureError, UsageError
from ._common import REL_PARAM, binary_view, safe_divide
from .base import Family, Measure, Param, register
from .trec import TrecMeasure, single


def _counts(view, measure):
    v = binary_view(view, measure)
    return v.num_rel_ret.astype(np.float64), v.num_ret.astype(np.float64), v.num_rel.astype(np.float64)


def _set_p(view, measure):
    relret, ret, _ = _counts(view, measure)
    return safe_divide(relret, ret)


def _set_r(view, measure):
    relret, _, rel = _counts(view, measure)
    return safe_divide(relret, rel)


def _set_rel_p(view, measure):
    relret, ret, rel = _counts(view, measure)
    return safe_divide(relret, np.minimum(ret, rel))


def _set_ap(view, measure):
    relret, ret, rel = _counts(view, measure)
    return safe_divide(relret * relret, ret * rel)  # m_set_map.c's order of operations, not P·R


def _beta2(measure) -> float:
    """β²: the beta2 parameter when given (trec_eval's set_F.x is β² itself: sqrt(x)² need not be
    x again), else beta²."""
    beta2 = measure.param("beta2")
    return beta2 if beta2 >= 0 else measure.param("beta") ** 2


def _set_f(view, measure):
    precision, recall = _set_p(view, measure), _set_r(view, measure)
    beta2 = _beta2(measure)
    return safe_divide((beta2 + 1.0) * precision * recall, beta2 * precision + recall)


def _utility(view, measure):
    relret, ret, rel = _counts(view, measure)
    a, b, c, d = (measure.param(x) for x in "abcd")
    n = view.collection_size
    if d != 0 and n is None:
        raise UsageError(f"{measure} needs the collection size (collection_size=, trec_eval -N)")
    n = float(n or 0)
    return a * relret + b * (ret - relret) + c * (rel - relret) + d * (n + relret - ret - rel)


# (numerator, denominator) per query, for micro averaging (Σ numerators / Σ denominators)
def _set_p_micro(view, measure):
    relret, ret, _ = _counts(view, measure)
    return relret, ret


def _set_r_micro(view, measure):
    relret, _, rel = _counts(view, measure)
    return relret, rel


def _set_rel_p_micro(view, measure):
    relret, ret, rel = _counts(view, measure)
    return relret, np.minimum(ret, rel)


def _set_f_micro(view, measure):  # F = (1+β²)·relret / (β²·rel + ret)
    relret, ret, rel = _counts(view, measure)
    beta2 = _beta2(measure)
    return (beta2 + 1.0) * relret, beta2 * rel + ret


def _nonnegative(value: float) -> str | None:
    return None if value >= 0 else "must be ≥ 0"


def _trec_utility(values, version: str = "9"):
    """trec_eval's utility.a,b,c,d."""
    if len(values) != 4:
        raise MeasureError(f"utility takes 4 coefficients a,b,c,d, found {len(values)}")
    return Measure("Utility", dict(zip("abcd", values)))


def _trec_set_f(values, version: str = "9"):
    """trec_eval's set_F.x is (1 + x)·P·R / (x·P + R): its x is β², not β (m_set_F.c), and is
    used as given (β = sqrt(x) would give back x only to within a rounding)."""
    if values[0] < 0:
        raise MeasureError(f"set_F.{values[0]}: the parameter must be ≥ 0")
    return Measure("SetF", {"beta2": values[0]} if values[0] != 1.0 else {})


register(Family("SetP", _set_p, "Set precision: relevant retrieved / retrieved.", "trec_eval set_P",
                params={"rel": REL_PARAM}, micro=_set_p_micro,
                trec=(TrecMeasure("set_P", "single", build=single("SetP")),)))
register(Family("SetR", _set_r, "Set recall: relevant retrieved / relevant.", "trec_eval set_recall",
                params={"rel": REL_PARAM}, micro=_set_r_micro,
                trec=(TrecMeasure("set_recall", "single", build=single("SetR")),)))
register(Family("SetRelP", _set_rel_p, "Set relative precision: relevant retrieved / min(retrieved, relevant).",
                "trec_eval set_relative_P", params={"rel": REL_PARAM}, micro=_set_rel_p_micro,
                trec=(TrecMeasure("set_relative_P", "single", build=single("SetRelP")),)))
register(Family("SetAP", _set_ap, "Set average precision: relret² / (ret·rel) = SetP × SetR.", "trec_eval set_map",
                params={"rel": REL_PARAM},
                trec=(TrecMeasure("set_map", "single", build=single("SetAP")),)))
register(Family("SetF", _set_f, "Set F-measure: (1+β²)·P·R / (β²·P + R), 0 when P = R = 0.",
                "van Rijsbergen 1979; trec_eval set_F",
                params={"rel": REL_PARAM, "beta": Param("float", 1.0, "weight of recall", _nonnegative),
                        "beta2": Param("float", -1.0, "β² itself, as trec_eval's set_F.x (default -1: beta²)",
                                       lambda v: None if v >= 0 or v == -1 else "must be ≥ 0 (or -1: beta²)")},
                micro=_set_f_micro,
                trec=(TrecMeasure("set_F", "params", (1.0,), _trec_set_f),)))
register(Family("Utility", _utility, "Linear utility a·relret + b·nonrelret + c·relmissed + d·nonrelmissed "
                "(d needs the collection size).", "trec_eval utility (TREC filtering track)",
                params={"rel": REL_PARAM, "a": Param("float", 1.0), "b": Param("float", -1.0),
                        "c": Param("float", 0.0), "d": Param("float", 0.0)},
                bounds=(None, None),
                trec=(TrecMeasure("utility", "params", (1.0, -1.0, 0.0, 0.0), _trec_utility),)))
