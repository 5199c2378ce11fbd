"""bpref: binary preference, robust to incomplete judgments.

bpref = (1/R) Σ_{judged relevant r retrieved} (1 − min(n_r, R) / min(N, R)), n_r being the
number of judged non-relevant documents ranked above r and N the number judged non-relevant;
unjudged documents are ignored. GMBpref aggregates it by the geometric mean (floor 1e-5).

Reference: Buckley & Voorhees, SIGIR 2004; trec_eval m_bpref.c, m_gm_bpref.c.
"""

from __future__ import annotations

import numpy as np

from . import _compiled
from ._common import REL_PARAM, binary_view, safe_divide
from .base import Family, register
from .trec import TrecMeasure, single


def _bpref(view, measure) -> np.ndarray:
    v = binary_view(view, measure)
    return v.cached(("bpref", v.relevance_level), lambda: _bpref_values(v))  # shared by Bpref and GMBpref


def _bpref_values(v) -> np.ndarray:
    compiled = _compiled.binary_pass(v)
    if compiled is not None:
        return compiled["bpref"]
    rel = v.is_rel
    nonrel_above = v.cum_judged_nonrel[rel]
    q = v.seg[rel]
    big_r = v.num_rel[q]
    denominator = np.minimum(v.num_nonrel[q], big_r).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = np.where(nonrel_above > 0, 1.0 - np.minimum(nonrel_above, big_r) / denominator, 1.0)
    return safe_divide(np.bincount(q, weights=term, minlength=v.n_queries), v.num_rel)


register(Family("Bpref", _bpref, "Binary preference: fraction of judged non-relevant documents (among the first R) "
                "ranked below each relevant one, averaged over relevant documents.",
                "Buckley & Voorhees 2004; trec_eval bpref", params={"rel": REL_PARAM}, aliases=("bpref",),
                trec=(TrecMeasure("bpref", "single", build=single("Bpref")),)))
register(Family("GMBpref", _bpref, "bpref aggregated by the geometric mean (floor 1e-5).", "trec_eval gm_bpref",
                params={"rel": REL_PARAM}, aggregate="gmean",
                trec=(TrecMeasure("gm_bpref", "single", build=single("GMBpref"), per_query=False),)))
