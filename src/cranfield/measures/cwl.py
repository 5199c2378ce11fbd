"""The C/W/L framework: measures as a user model that continues from rank i to rank i + 1 with
probability C(i).

From C follow the weight of each rank, W(i) = Π_{j<i} C(j) / Σ_k Π_{j<k} C(j) (the share of the
user's attention it gets), and the probability of stopping at it, L(i) = Π_{j<i} C(j) · (1 − C(i)).
The measure is the expected utility per item, EU = Σ_i W(i) · g_i (``stat=eu``, the default); the
framework's other statistics are ``etu`` (expected total utility, Σ_i L(i) · Σ_{j≤i} g_j), ``etc``
(expected total cost, Σ_i L(i) · i, each item costing 1) and ``ei`` (expected items examined,
1/W(1)). Gains are the relevance levels scaled to [0, 1]: g = min(ℓ, max_rel)/max_rel
(unjudged and negative judgments 0; ``max_rel`` defaults to the highest level judged in the qrels,
as ERR's gmax, and at least 1; ir_measures requires it). As cwl_eval, each ranking is truncated or padded with
zero-gain items to ``n`` = 1000 items, so that the user may go on past its end.

* INST(T):  C(i) = ((i + T + T_i − 1)/(i + T + T_i))², T_i = T − Σ_{j≤i} g_j (Moffat et al. 2015)
* INSQ(T):  C(i) = ((i + 2T − 1)/(i + 2T))² (Moffat, Scholer & Thomas 2012)
* BPM(T)@K: C(i) = 1 while Σ_{j≤i} g_j < T and i < K, else 0 (static Bejeweled player; Zhang et al. 2017)
* CWL-RBP(p): C(i) = p;  CWL-RR: C(i) = 1 until the first item with gain, then 0;
  CWL-AP: C(i) = Σ_{j>i} g_j/j ÷ Σ_{j≥i} g_j/j (0 where the numerator is 0) — the C/W/L forms of
  RBP, RR and AP (on the truncated or padded ranking: CWL-AP divides by the relevant documents
  retrieved, not by R).

The kernel works on a (queries × n) grid, a block of queries at a time: no loop over queries or
ranks. Values equal cwl_eval's up to the order of floating additions (pairwise row sums here,
np.dot there; ~1e-16).

References: Moffat, Bailey, Scholer & Thomas, "INST: an adaptive metric for information retrieval
evaluation", ADCS 2015, and "Incorporating user expectations and behavior into the measurement of
search effectiveness", TOIS 35(3) 2017; Azzopardi, Thomas & Moffat, "cwl_eval: an evaluation tool
for information retrieval", SIGIR 2019 (the reference tool; ir_measures' INST, INSQ, BPM).
"""

from __future__ import annotations

import numpy as np

from ._common import positive_int
from .base import Family, Param, register

_BLOCK_CELLS = 1 << 22  # cells of one (queries × n) block: ~32 MiB per array


def _stat_check(value: str) -> str | None:
    return None if value in ("eu", "etu", "etc", "ei") else "expected eu, etu, etc or ei"


def _positive(value: float) -> str | None:
    return None if value > 0 else "must be > 0"


def _p_check(value: float) -> str | None:
    return None if 0 < value < 1 else "the persistence p must lie in (0, 1)"


COMMON = {
    "max_rel": Param("int", None, "relevance level of gain 1 (default: the highest judged level)", positive_int),
    "n": Param("int", 1000, "depth the ranking is truncated or padded to (cwl_eval's 1000)", positive_int),
    "stat": Param("str", "eu", "eu (expected utility per item), etu, etc or ei", _stat_check),
}


def _inst(gains, cum, i, measure):
    t = measure.param("T")
    remaining = t - cum
    return ((i + t + remaining - 1.0) / (i + t + remaining)) ** 2.0


def _insq(gains, cum, i, measure):
    t = measure.param("T")
    return np.broadcast_to(((i + 2.0 * t - 1.0) / (i + 2.0 * t)) ** 2.0, gains.shape)


def _bpm(gains, cum, i, measure):
    return ((cum < measure.param("T")) & (i < measure.cutoff)).astype(np.float64)


def _rbp(gains, cum, i, measure):
    return np.full(gains.shape, measure.param("p"))


def _rr(gains, cum, i, measure):
    before = np.concatenate((np.zeros((gains.shape[0], 1)), cum[:, :-1]), axis=1)  # gain seen before i
    return ((before == 0) & (gains <= 0)).astype(np.float64)


def _ap(gains, cum, i, measure):
    ratio = gains / i
    after = np.cumsum(ratio[:, ::-1], axis=1)[:, ::-1]  # Σ_{j≥i} g_j/j
    top = np.concatenate((after[:, 1:], np.zeros((gains.shape[0], 1))), axis=1)
    out = np.zeros(gains.shape)
    np.divide(top, after, out=out, where=top > 0)
    return out


def _gain_grid(view, measure, rows: slice, n: int) -> np.ndarray:
    max_rel = measure.param("max_rel") or max(int(view.level_values.max(initial=0)), 1)
    lengths = np.minimum(view.num_ret[rows], n)
    q = np.repeat(np.arange(lengths.size), lengths)
    pos = np.arange(q.size) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    grid = np.zeros((lengths.size, n))
    rel = view.rel[view.offsets[rows.start:rows.stop][q] + pos]
    grid[q, pos] = np.clip(rel, 0, max_rel) / max_rel
    return grid


def _kernel(continuation):
    def kernel(view, measure) -> np.ndarray:
        n = measure.param("n")
        stat = measure.param("stat")
        out = np.zeros(view.n_queries)
        step = max(1, _BLOCK_CELLS // n)
        i = np.arange(1.0, n + 1.0)
        for start in range(0, view.n_queries, step):  # blocks of queries, each vectorised
            rows = slice(start, min(start + step, view.n_queries))
            gains = _gain_grid(view, measure, rows, n)
            cum = np.cumsum(gains, axis=1)
            c = continuation(gains, cum, i, measure)
            reach = np.ones(gains.shape)  # Π_{j<i} C(j)
            np.cumprod(c[:, :-1], axis=1, out=reach[:, 1:])
            total = reach.sum(axis=1)
            if stat == "eu":
                out[rows] = (reach * (1.0 / total)[:, None] * gains).sum(axis=1)
            elif stat == "ei":
                out[rows] = total
            else:
                stop = reach * (1.0 - c)
                out[rows] = (stop * (cum if stat == "etu" else i)).sum(axis=1)
        return out

    return kernel


def _family(name, continuation, definition, reference, params, **extra):
    register(Family(name, _kernel(continuation), definition + " (C/W/L expected utility per item; stat= for "
                    "the others).", reference, params={**params, **COMMON}, bounds=(0.0, None), **extra))


_T = {"T": Param("float", 1.0, "the gain the user wants", _positive)}
_family("INST", _inst, "INST: adaptive user who wants T gain, C(i) = ((i+T+T_i−1)/(i+T+T_i))², T_i = T − gain so far",
        "Moffat et al., ADCS 2015 / TOIS 2017; cwl_eval", _T)
_family("INSQ", _insq, "INSQ: C(i) = ((i+2T−1)/(i+2T))²", "Moffat, Scholer & Thomas, ADCS 2012; cwl_eval", _T)
_family("BPM", _bpm, "Bejeweled player model (static): goes on while gain < T and rank < K (the cut-off)",
        "Zhang et al., SIGIR 2017; cwl_eval", _T, cutoff="required")
_family("CWL-RBP", _rbp, "RBP as a C/W/L measure: C(i) = p", "Moffat & Zobel 2008; cwl_eval",
        {"p": Param("float", 0.8, "persistence", _p_check)})
_family("CWL-RR", _rr, "RR as a C/W/L measure: go on until the first item with gain", "cwl_eval", {})
_family("CWL-AP", _ap, "AP as a C/W/L measure: C(i) = Σ_{j>i} g_j/j ÷ Σ_{j≥i} g_j/j", "Moffat et al. TOIS 2017; cwl_eval",
        {})
