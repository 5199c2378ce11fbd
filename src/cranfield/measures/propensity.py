"""Propensity-scored precision and nDCG, for extreme classification and recommendation, where
the relevant documents (labels) that are observed are a biased sample of the true ones.

With y_l = 1 for a relevant document (rel ≥ the relevance level) and p_l its propensity (the
probability that its relevance is observed; :mod:`cranfield.io.propensities`)::

    PSP@k    = (1/k) Σ_{l ≤ k} y_l / p_l
    PSDCG@k  = Σ_{l ≤ k} y_l / (p_l · log2(l + 1))
    PSnDCG@k = PSDCG@k / Σ_{l = 1}^{min(k, R)} 1 / log2(l + 1)

as defined by Jain, Prabhu & Varma (the normaliser of PSnDCG is the ideal DCG without propensities,
R the number of relevant documents, so neither measure is bounded by 1: it is unbiased for
the precision and nDCG on the true, unobserved labels). pyxclib's ``psprecision``/``psndcg``
divide instead by the best propensity-scored value any ranking of the query could reach; that is
another measure. A relevant retrieved document without a propensity is an error (no default
propensity is assumed); non-relevant documents need none.

Reference: Jain, Prabhu & Varma, "Extreme multi-label loss functions for recommendation, tagging,
ranking & other missing label applications", KDD 2016 (§3, eq. 3–4).
"""

from __future__ import annotations

import numpy as np

from ..errors import UsageError
from ._common import REL_PARAM, binary_view, safe_divide
from .base import Family, register


def _scored(view, measure) -> tuple[np.ndarray, np.ndarray]:
    """(flat index, 1/p) of the relevant documents in the top k."""
    v = binary_view(view, measure)
    if v.propensity is None:
        raise UsageError(f"{measure} needs propensities: evaluate(..., propensities=FILE_OR_DICT) or "
                         "cranfield evaluate --propensities FILE")
    index, _, pos, _ = v.relevant
    index = index[pos < measure.cutoff]
    p = v.propensity[index]
    if np.isnan(p).any():
        missing = int(np.isnan(p).sum())
        query = v.query_ids[v.seg[index[np.argmax(np.isnan(p))]]]
        raise UsageError(f"{measure}: {missing} relevant retrieved document(s) have no propensity "
                         f"(the first in query {query!r}); give every relevant document one")
    return index, 1.0 / p


def _psp(view, measure) -> np.ndarray:
    index, weight = _scored(view, measure)
    return view.sum_at(index, weight) / measure.cutoff


def _psndcg(view, measure) -> np.ndarray:
    index, weight = _scored(view, measure)
    dcg = view.sum_at(index, weight / np.log2(view.pos[index] + 2.0))
    v = binary_view(view, measure)
    depth = np.minimum(v.num_rel, measure.cutoff)
    discounts = np.concatenate(([0.0], np.cumsum(1.0 / np.log2(np.arange(int(depth.max(initial=0))) + 2.0))))
    return safe_divide(dcg, discounts[depth])


register(Family("PSP", _psp, "Propensity-scored precision at k: (1/k) Σ_{top k} y/p, p the relevant document's "
                "propensity (unbiased for P@k on the unobserved labels).", "Jain, Prabhu & Varma, KDD 2016",
                params={"rel": REL_PARAM}, cutoff="required", bounds=(0.0, None), needs=("propensities",)))
register(Family("PSnDCG", _psndcg, "Propensity-scored nDCG at k: Σ_{top k} y/(p·log2(rank+1)) divided by the "
                "ideal DCG@k without propensities.", "Jain, Prabhu & Varma, KDD 2016",
                params={"rel": REL_PARAM}, cutoff="required", bounds=(0.0, None), needs=("propensities",)))
