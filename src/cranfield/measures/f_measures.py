"""Combinations of precision and recall at a cut-off: F, van Rijsbergen's E, and the
distance of the best (recall, precision) point to the perfect one (system efficiency).

With relret_k the relevant documents in the top k, R the relevant ones and P = relret_k / k,
Rec = relret_k / R (the P@k and R@k of trec_eval: missing ranks count as non-relevant)::

    F_β@k = (1 + β²) · P · Rec / (β² · P + Rec) = (1 + β²) · relret_k / (β² · R + k)
    E_b@k = 1 − F_b@k = 1 − 1 / (α/P + (1 − α)/Rec),  α = 1 / (b² + 1)
    SysEff = 1 − d / √2,   d = min over ranks i of √((1 − Rec_i)² + (1 − P_i)²)

F is 0 (E is 1) when no relevant document is in the top k. Without k, F and E use the whole
retrieved list (F then equals SetF). SysEff is 1 for a perfect ranking and 0 when no relevant
document is retrieved (every point is (0, 0)) or R = 0. Micro averages (aggregate="micro"):
Σ (1 + β²)·relret_k / Σ (β²·R + k) for F, and 1 minus it for E.

References: van Rijsbergen, *Information Retrieval* (2nd ed., 1979) ch. 7 (E, and F = 1 − E);
Manning, Raghavan & Schütze 2008 §8.3 (F_β); ranx f1@k computes F_1@k. SysEff: the distance of
the recall–precision curve to the ideal point (1, 1), as the course material of the issue
defines it; no peer tool computes it.
"""

from __future__ import annotations

import numpy as np

from ._common import REL_PARAM, binary_view, safe_divide
from .base import Family, Param, register


def _nonnegative(value: float) -> str | None:
    return None if value >= 0 else "must be ≥ 0"


def _f_parts(view, measure, weight: str):
    """(numerator, denominator) of F_β@k: (1 + β²)·relret_k and β²·R + k."""
    v = binary_view(view, measure)
    beta2 = measure.param(weight) ** 2
    k = v.num_ret if measure.cutoff is None else measure.cutoff
    relret = v.rel_ret_at(k).astype(np.float64)
    return (1.0 + beta2) * relret, beta2 * v.num_rel + np.asarray(k, dtype=np.float64)


def _f(view, measure) -> np.ndarray:
    return safe_divide(*_f_parts(view, measure, "beta"))


def _f_micro(view, measure):
    return _f_parts(view, measure, "beta")


def _e(view, measure) -> np.ndarray:
    return 1.0 - safe_divide(*_f_parts(view, measure, "b"))


def _e_micro(view, measure):
    numerator, denominator = _f_parts(view, measure, "b")
    return denominator - numerator, denominator


def _sys_eff(view, measure) -> np.ndarray:
    v = binary_view(view, measure)
    rel = v.is_rel  # the best point lies at a relevant document (below it, recall stays and P falls)
    recall = safe_divide(v.cum_rel[rel], v.num_rel[v.seg[rel]])
    precision = v.cum_rel[rel] / (v.pos[rel] + 1.0)
    squared = (1.0 - recall) ** 2 + (1.0 - precision) ** 2
    best = np.full(v.n_queries, 2.0)  # the point (0, 0): no relevant document retrieved
    np.minimum.at(best, v.seg[rel], squared)
    return np.clip(1.0 - np.sqrt(best) / np.sqrt(2.0), 0.0, 1.0)


register(Family("F", _f, "F-measure at k: (1+β²)·P@k·R@k / (β²·P@k + R@k) = (1+β²)·relret_k / (β²·R + k); "
                "without k, over the whole retrieved list (= SetF).",
                "van Rijsbergen 1979; Manning et al. 2008 §8.3; ranx f1",
                params={"rel": REL_PARAM, "beta": Param("float", 1.0, "weight of recall", _nonnegative)},
                cutoff="optional", micro=_f_micro, aliases=("F1", "FMeasure")))
register(Family("E", _e, "van Rijsbergen's effectiveness E at k: 1 − 1/(α/P + (1−α)/R), α = 1/(b²+1), "
                "i.e. 1 − F_b@k (lower is better).", "van Rijsbergen 1979 ch. 7",
                params={"rel": REL_PARAM, "b": Param("float", 1.0, "relative importance of recall", _nonnegative)},
                cutoff="optional", micro=_e_micro, greater_is_better=False))
register(Family("SysEff", _sys_eff, "System efficiency 1 − d/√2, d = smallest distance of a (recall, precision) "
                "point of the ranking to the perfect point (1, 1).",
                "distance to the ideal recall–precision point (issue 3 definition)",
                params={"rel": REL_PARAM}, aliases=("SystemEfficiency",)))
