"""Expected reciprocal rank: the cascade user model with graded stop probabilities.

The user scans the ranking from the top and stops at rank i, satisfied, with probability
R_i = (2^{g_i} − 1) / 2^{g_max}, g_i being the relevance level of the document at rank i (0 for
unjudged documents and levels < 0), g_max the top of the relevance scale::

    ERR@k    = Σ_{r ≤ k} (1/r) · R_r · Π_{i < r} (1 − R_i)
    ERR(p)@k = Σ_{r ≤ k} (1/r) · R_r · Π_{i < r} p · (1 − R_i)

In the second form the user goes on past a document that did not satisfy them only with
probability p (abandonment); p = 1 is Chapelle's ERR. Without k: the whole ranking.
``gmax`` defaults to the highest relevance level judged in the qrels (over all queries, so the
scale is the same for every query); ``gmax=4`` reproduces gdeval (TREC Web track), whatever
the qrels hold. Levels above gmax count as gmax. ERR is not normalised: its maximum is below 1.

Reference: Chapelle, Metzler, Zhang & Grinspan, "Expected reciprocal rank for graded
relevance", CIKM 2009 (§4, eq. 4; the abandonment variant after eq. 5); gdeval.pl (TREC Web
2010–2014) computes ERR@k with g_max = 4.
"""

from __future__ import annotations

import numpy as np

from .base import Family, Param, register


def _p_check(value: float) -> str | None:
    return None if 0 < value <= 1 else "the continuation probability p must lie in (0, 1]"


def _gmax_check(value: int) -> str | None:
    return None if value >= 0 else "must be ≥ 0"


def _err(view, measure) -> np.ndarray:
    gmax = measure.param("gmax")
    if gmax is None:
        gmax = int(view.level_values.max(initial=0))
    p = measure.param("p")
    k = measure.cutoff
    top = slice(None) if k is None else view.pos < k
    seg, pos = view.seg[top], view.pos[top]
    grade = np.clip(view.rel[top], 0, gmax)
    scale = 2.0 ** gmax
    stop = (2.0 ** grade - 1.0) / scale  # R_i
    # probability of reaching each rank: p^(r-1) Π_ℓ (1 − R_ℓ)^(documents of grade ℓ above),
    # from exact per-level counts (no long floating products, no loop over documents)
    reach = np.power(p, pos.astype(np.float64)) if p != 1 else np.ones(pos.size)
    for level in np.unique(grade[grade > 0]):
        is_level = grade == level
        above = _segment_cumsum_exclusive(is_level, seg, view.n_queries)
        reach *= np.power(1.0 - (2.0 ** level - 1.0) / scale, above.astype(np.float64))
    terms = stop * reach / (pos + 1.0)
    return np.bincount(seg, weights=terms, minlength=view.n_queries)


def _segment_cumsum_exclusive(flags: np.ndarray, seg: np.ndarray, n_queries: int) -> np.ndarray:
    """Per element, how many earlier elements of its segment have ``flags`` (segments contiguous)."""
    total = np.cumsum(flags, dtype=np.int64)
    lengths = np.bincount(seg, minlength=n_queries)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    before = np.concatenate(([0], total))[starts]
    return total - np.repeat(before, lengths) - flags


register(Family("ERR", _err, "Expected reciprocal rank: Σ_r (1/r)·R_r·Π_{i<r} p(1 − R_i), stop probability "
                "R = (2^g − 1)/2^gmax (cascade model; p = 1 is Chapelle's ERR).",
                "Chapelle et al., CIKM 2009; gdeval ERR@k (gmax=4)",
                params={"p": Param("float", 1.0, "probability of going on after a non-satisfying document",
                                   _p_check),
                        "gmax": Param("int", None, "top relevance level (default: highest judged level)",
                                      _gmax_check)},
                cutoff="optional"))
