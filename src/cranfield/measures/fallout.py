"""Fallout: the share of the collection's non-relevant documents that the system retrieved.

    Fallout   = |retrieved ∖ relevant| / |collection ∖ relevant| = (ret − relret) / (N − R)
    Fallout@k = (k' − relret_k) / (N − R),  k' = min(k, ret)

N is the collection size (``collection_size=``, ``-N``; an error names the measure when it is
missing). Unjudged retrieved documents count as non-relevant (the default policy). 0 when
N = R. Micro average: Σ (ret − relret) / Σ (N − R).

Reference: Salton & McGill, *Introduction to Modern Information Retrieval* (1983) §5.2;
Manning, Raghavan & Schütze 2008 §8.3 (fallout = false positive rate).
"""

from __future__ import annotations

import numpy as np

from ..errors import UsageError
from ._common import REL_PARAM, binary_view, safe_divide
from .base import Family, register


def _parts(view, measure):
    v = binary_view(view, measure)
    n = view.collection_size
    if n is None:
        raise UsageError(f"{measure} needs the collection size (collection_size= in Python, -N/--collection-size "
                         f"on the command line)")
    if measure.cutoff is None:
        retrieved, relret = v.num_ret, v.num_rel_ret
    else:
        retrieved = np.minimum(v.num_ret, measure.cutoff)
        relret = v.rel_ret_at(measure.cutoff)
    nonrel_ret = (retrieved - relret).astype(np.float64)
    nonrel = float(n) - v.num_rel
    too_small = nonrel_ret > nonrel
    if too_small.any():
        i = int(np.flatnonzero(too_small)[0])
        raise UsageError(f"{measure}: collection_size={n} is too small for query {view.query_ids[i]!r}, which has "
                         f"{int(v.num_rel[i])} relevant and {int(nonrel_ret[i])} retrieved non-relevant documents "
                         f"(expected N ≥ {int(v.num_rel[i] + nonrel_ret[i])})")
    return nonrel_ret, nonrel


def _fallout(view, measure) -> np.ndarray:
    return safe_divide(*_parts(view, measure))


register(Family("Fallout", _fallout, "Fallout: retrieved non-relevant / non-relevant in the collection "
                "(ret − relret) / (N − R); needs the collection size N. Fallout@k: over the top k.",
                "Salton & McGill 1983; Manning et al. 2008 §8.3",
                params={"rel": REL_PARAM}, cutoff="optional", needs=("collection_size",), micro=_parts,
                bounds=(0.0, 1.0), greater_is_better=False))
