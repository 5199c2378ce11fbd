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

from ..errors import UsageError
from .base import Family, Param, register


def _p_check(value: float) -> str | None:
    return None if 0 < value <= 1 else "the continuation probability p must lie in (0, 1]"


MAX_GMAX = 1000  # 2^gmax must stay a finite double


def _gmax_check(value: int) -> str | None:
    return None if 0 <= value <= MAX_GMAX else f"must lie in [0, {MAX_GMAX}]"


def _err(view, measure) -> np.ndarray:
    gmax = measure.param("gmax")
    if gmax is None:
        gmax = int(view.level_values.max(initial=0))
        if gmax > MAX_GMAX:
            raise UsageError(f"{measure}: the qrels judge up to level {gmax}; ERR's 2^level needs levels ≤ "
                             f"{MAX_GMAX} (map the levels, or give gmax=)")
    p = measure.param("p")
    k = measure.cutoff
    top = slice(None) if k is None else view.pos < k
    seg, pos = view.seg[top], view.pos[top]
    grade = np.clip(view.rel[top], 0, gmax)
    scale = 2.0 ** gmax
    stop_of_grade = (2.0 ** np.arange(gmax + 1) - 1.0) / scale
    stop = stop_of_grade[grade]  # R_i
    # log(1 − R_ℓ) = log(2^gmax − 2^ℓ + 1) − gmax·log 2: finite even where R_ℓ rounds to 1
    log_continue = np.log((scale - 2.0 ** np.arange(gmax + 1)) + 1.0) - gmax * np.log(2.0)
    # probability of reaching each rank: p^(r-1) Π_ℓ (1 − R_ℓ)^(documents of grade ℓ above),
    # from exact per-level counts of the documents above (no loop over queries or documents):
    # log reach = (r − 1)·log p + Σ_ℓ n_ℓ·log(1 − R_ℓ)
    lengths = np.bincount(seg, minlength=view.n_queries)
    first = np.repeat(np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths)  # segment start of each
    log_reach = pos * np.log(p)
    for level in np.unique(grade[grade > 0]):
        is_level = grade == level
        total = np.concatenate(([0], np.cumsum(is_level, dtype=np.int64)))
        above = total[:-1] - total[first]  # documents of this grade above, in the same query
        log_reach += above * log_continue[level]
    terms = stop * np.exp(log_reach) / (pos + 1.0)
    return np.bincount(seg, weights=terms, minlength=view.n_queries)


register(Family("ERR", _err, "Expected reciprocal rank: Σ_r (1/r)·R_r·Π_{i<r} p(1 − R_i), stop probability "
                "R = (2^g − 1)/2^gmax (cascade model; p = 1 is Chapelle's ERR).",
                "Chapelle et al., CIKM 2009; gdeval ERR@k (gmax=4)",
                params={"p": Param("float", 1.0, "probability of going on after a non-satisfying document",
                                   _p_check),
                        "gmax": Param("int", None, "top relevance level (default: highest judged level)",
                                      _gmax_check)},
                cutoff="optional"))
