"""Rank correlation between two orderings: of documents (two runs for one query) or of systems
(systems ordered by MAP vs by nDCG@10 — meta-evaluation).

A *ranking* is either an ordered sequence of ids (best first, no ties) or a mapping
``{id: score}`` (higher first; equal scores are tied), e.g. ``{"bm25": 0.30, "tfidf": 0.28}``;
scores that agree to 12 significant digits are equal (float sums of equal rationals differ in
the last bit: :func:`cranfield._exact.snap_ties`).

Missing ids: an id present in only one ranking is appended at the end of the other, in the
order it has in the ranking where it appears (ties there stay ties). The two rankings are then
orderings of the same set of ids.

- :func:`kendall_tau`: Kendall's τ-b (ties adjusted), (C − D) / √((P − T_a)(P − T_b)), P the
  number of pairs, T_a, T_b the pairs tied in each ranking (Kendall 1945; scipy.stats.kendalltau).
- :func:`spearman_rho`: Spearman's ρ, the Pearson correlation of the (average) ranks.
- :func:`tau_ap`: the AP rank correlation of Yilmaz, Aslam & Robertson (SIGIR 2008), which
  weighs disagreements near the top more: τ_AP = 2/(n − 1) · Σ_{i=2..n} C(i)/(i − 1) − 1, C(i)
  the number of items above rank i in ``a`` that ``b`` also ranks above the item at rank i.
  Not symmetric: ``b`` is the reference (e.g. the true system ordering). No ties allowed.
- :func:`kendall_distance`: the number of inversions of a document ranking against the
  judgments of its query: pairs where a more relevant document is ranked below a less
  relevant one. Unjudged documents have relevance 0; judged documents missing from the
  ranking are appended at its end by decreasing relevance (so a missing relevant document
  counts against every less relevant document retrieved).

A correlation is undefined with fewer than two ids or when one ranking ties every id: that is
an error, never a NaN. Counting is vectorised (merge-sort inversion counts, O(n log² n)).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from ._exact import snap_ties
from ._params import check_choice, check_fraction
from .errors import UsageError

__all__ = ["kendall_tau", "spearman_rho", "tau_ap", "kendall_distance", "rbo", "RBO", "RBO_TIES", "qpp_evaluation",
           "QPPEvaluation"]


# ----------------------------------------------------------------------------- inputs


def _ranking(x: Any, name: str) -> tuple[list, np.ndarray]:
    """(ids, keys): keys are dense ranks, 0 = best, equal for tied ids."""
    if isinstance(x, (str, bytes)):
        raise UsageError(f"{name}: expected a sequence of ids or a mapping id -> score, found a string")
    if hasattr(x, "items"):
        pairs = list(x.items())
        ids = [k for k, _ in pairs]
        try:
            scores = np.asarray([v for _, v in pairs], dtype=np.float64)
        except (TypeError, ValueError):
            raise UsageError(f"{name}: scores must be numbers") from None
        if not np.isfinite(scores).all():
            bad = ids[int(np.flatnonzero(~np.isfinite(scores))[0])]
            raise UsageError(f"{name}: the score of {bad!r} is not a finite number")
        # scores equal up to float rounding (means equal as rationals) are tied: cranfield._exact
        keys = np.unique(-snap_ties(scores), return_inverse=True)[1].reshape(-1).astype(np.int64)
    else:
        ids = list(x)
        keys = np.arange(len(ids), dtype=np.int64)
    if len(set(ids)) != len(ids):
        seen: set = set()
        dup = next(i for i in ids if i in seen or seen.add(i))
        raise UsageError(f"{name} lists {dup!r} twice")
    return ids, keys


def _dense(values: np.ndarray) -> np.ndarray:
    return np.unique(values, return_inverse=True)[1].reshape(-1).astype(np.int64)


def _aligned(a: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
    """Rank keys of the union of ids in ``a`` and in ``b`` (missing ids appended, see above)."""
    ids_a, keys_a = _ranking(a, "a")
    ids_b, keys_b = _ranking(b, "b")
    in_a = dict(zip(ids_a, range(len(ids_a))))
    in_b = dict(zip(ids_b, range(len(ids_b))))
    only_b = np.array([j for j, i in enumerate(ids_b) if i not in in_a], dtype=np.int64)
    only_a = np.array([j for j, i in enumerate(ids_a) if i not in in_b], dtype=np.int64)
    both_b = np.array([in_b.get(i, -1) for i in ids_a], dtype=np.int64)  # b position of each id of a
    top_a = int(keys_a.max(initial=-1)) + 1
    top_b = int(keys_b.max(initial=-1)) + 1
    # union order: ids of a, then the ids only in b
    key_a = np.concatenate((keys_a, top_a + _dense(keys_b[only_b]) if only_b.size else np.zeros(0, np.int64)))
    key_b_of_a = np.empty(len(ids_a), dtype=np.int64)
    present = both_b >= 0
    key_b_of_a[present] = keys_b[both_b[present]]
    if only_a.size:
        key_b_of_a[only_a] = top_b + _dense(keys_a[only_a])
    key_b = np.concatenate((key_b_of_a, keys_b[only_b]))
    if key_a.size < 2:
        raise UsageError(f"a rank correlation needs at least 2 ids, found {key_a.size}")
    return key_a, key_b


# ----------------------------------------------------------------------------- counting


def _greater_before(values: np.ndarray) -> np.ndarray:
    """Per position j, the number of positions i < j with values[i] > values[j].

    Bottom-up merge sort, each level vectorised: for the right half of every block, count the
    larger elements of the (sorted) left half with one searchsorted on block-offset keys.
    """
    values = _dense(np.asarray(values))
    n = values.size
    counts = np.zeros(n, dtype=np.int64)
    order = np.arange(n, dtype=np.int64)  # original index at each current position
    vals = values.copy()
    span = int(vals.max(initial=0)) + 1
    positions = np.arange(n, dtype=np.int64)
    width = 1
    while width < n:
        block = positions // (2 * width)
        right = (positions % (2 * width)) >= width
        keys = block * span + vals
        left_keys = keys[~right]  # ascending: blocks in order, each left half sorted
        right_keys = keys[right]
        block_end = np.searchsorted(left_keys, (block[right] + 1) * span, side="left")
        not_greater = np.searchsorted(left_keys, right_keys, side="right")
        counts[order[right]] += block_end - not_greater
        merge = np.argsort(keys, kind="stable")
        order, vals = order[merge], vals[merge]
        width *= 2
    return counts


def _tied_pairs(sorted_keys: np.ndarray, *others: np.ndarray) -> int:
    """Pairs equal in every given key array (all sorted together, equal rows adjacent)."""
    same = np.ones(sorted_keys.size - 1, dtype=bool) & (sorted_keys[1:] == sorted_keys[:-1])
    for other in others:
        same &= other[1:] == other[:-1]
    # run lengths of equal neighbours
    boundaries = np.flatnonzero(np.r_[True, ~same, True])
    runs = np.diff(boundaries)
    return int((runs * (runs - 1) // 2).sum())


# ----------------------------------------------------------------------------- correlations


def kendall_tau(a: "Sequence | Mapping", b: "Sequence | Mapping") -> float:
    """Kendall's τ-b between two rankings (ties adjusted; scipy.stats.kendalltau's default).

    >>> kendall_tau(["d1", "d2", "d3", "d4"], ["d1", "d3", "d2", "d4"])
    0.6666666666666666
    >>> kendall_tau({"bm25": 0.30, "tfidf": 0.28, "coord": 0.20}, {"bm25": 0.37, "tfidf": 0.35, "coord": 0.27})
    1.0
    """
    x, y = _aligned(a, b)
    order = np.lexsort((y, x))
    x, y = x[order], y[order]
    n = x.size
    total = n * (n - 1) // 2
    x_ties = _tied_pairs(x)
    both_ties = _tied_pairs(x, y)
    y_ties = _tied_pairs(np.sort(y))
    discordant = int(_greater_before(y).sum())
    if total == x_ties or total == y_ties:
        raise UsageError("Kendall's tau is undefined: one ranking ties every id")
    numerator = total - x_ties - y_ties + both_ties - 2 * discordant
    return float(numerator / math.sqrt((total - x_ties) * (total - y_ties)))


def _average_ranks(keys: np.ndarray) -> np.ndarray:
    """1-based ranks, tied keys sharing the mean of their positions."""
    values, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
    ends = np.cumsum(counts)
    return ((ends - counts + 1 + ends) / 2.0)[inverse.reshape(-1)]


def spearman_rho(a: "Sequence | Mapping", b: "Sequence | Mapping") -> float:
    """Spearman's ρ between two rankings: Pearson's r of the average ranks.

    >>> spearman_rho(["d1", "d2", "d3", "d4"], ["d1", "d3", "d2", "d4"])
    0.8
    """
    x, y = _aligned(a, b)
    rx, ry = _average_ranks(x), _average_ranks(y)
    rx, ry = rx - rx.mean(), ry - ry.mean()
    sx, sy = float(np.dot(rx, rx)), float(np.dot(ry, ry))
    if sx == 0 or sy == 0:
        raise UsageError("Spearman's rho is undefined: one ranking ties every id")
    return float(np.clip(np.dot(rx, ry) / math.sqrt(sx * sy), -1.0, 1.0))


def tau_ap(a: "Sequence | Mapping", b: "Sequence | Mapping") -> float:
    """AP rank correlation τ_AP of ranking ``a`` against the reference ranking ``b``
    (Yilmaz, Aslam & Robertson 2008); disagreements near the top of ``a`` cost more.

    >>> round(tau_ap(["d2", "d1", "d3", "d4"], ["d1", "d2", "d3", "d4"]), 12)  # top pair swapped: 1/3
    0.333333333333
    >>> round(tau_ap(["d1", "d2", "d4", "d3"], ["d1", "d2", "d3", "d4"]), 12)  # bottom pair swapped: 7/9
    0.777777777778
    """
    x, y = _aligned(a, b)
    if np.unique(x).size != x.size or np.unique(y).size != y.size:
        raise UsageError("tau_ap is defined for rankings without ties (Yilmaz et al. 2008); "
                         "found tied scores")
    reference = y[np.argsort(x)]  # reference rank of each item, in the order of a
    n = reference.size
    above = np.arange(n, dtype=np.float64)  # items above rank i (0-based i)
    correct = above - _greater_before(reference)
    return float(2.0 / (n - 1) * np.sum(correct[1:] / above[1:]) - 1.0)


def kendall_distance(ranking: "Sequence | Mapping", qrels_of_query: Mapping[Any, int]) -> int:
    """Number of inversions of ``ranking`` against the judgments ``{docno: relevance}`` of its
    query: pairs where the more relevant document is ranked below the less relevant one.

    >>> kendall_distance(["a", "b", "c"], {"a": 0, "b": 2, "c": 1})  # (a,b), (a,c)
    2
    >>> kendall_distance(["a"], {"a": 1, "b": 2})  # b is missing: appended below a
    1
    """
    ids, keys = _ranking(ranking, "ranking")
    if np.unique(keys).size != keys.size:
        raise UsageError("ranking: the Kendall distance needs a ranking without ties; found tied scores")
    ids = [ids[i] for i in np.argsort(keys, kind="stable")]
    if not hasattr(qrels_of_query, "items"):
        raise UsageError("qrels_of_query: expected a mapping docno -> relevance")
    judged = dict(qrels_of_query.items())
    retrieved = set(ids)
    missing = sorted((d for d in judged if d not in retrieved), key=lambda d: -judged[d])
    try:
        relevance = np.asarray([judged.get(d, 0) for d in ids] + [judged[d] for d in missing], dtype=np.float64)
    except (TypeError, ValueError):
        raise UsageError("qrels_of_query: relevance values must be numbers") from None
    relevance = np.maximum(relevance, 0.0)  # negative judgments (unjudged) count as 0
    return int(_greater_before(-relevance).sum())


# ----------------------------------------------------------------------------- rank-biased overlap

RBO_TIES = ("a", "b", "w")


class RBO(float):
    """Rank-biased overlap: the float value is the extrapolated RBO (``ext``); ``min`` and ``max``
    bound the value the rankings could reach if seen to any depth; ``res`` = max − min."""

    ext: float
    min: float
    max: float
    res: float
    p: float
    ties: str

    def __new__(cls, ext: float, low: float, high: float, p: float, ties: str) -> "RBO":
        numbers = (ext, low, high, p)
        if not all(isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool) for x in numbers) \
                or ties not in RBO_TIES:
            raise UsageError(f"RBO: expected four numbers (ext, min, max, p) and ties in a, b, w, found {numbers!r}, "
                             f"{ties!r}")
        value = super().__new__(cls, ext)
        value.ext, value.min, value.max, value.res = float(ext), float(low), float(high), float(high - low)
        value.p, value.ties = p, ties
        return value

    def __repr__(self) -> str:
        return (f"RBO(ext={self.ext!r}, min={self.min!r}, max={self.max!r}, res={self.res!r}, p={self.p!r}, "
                f"ties={self.ties!r})")


def rbo(a: "Sequence | Mapping", b: "Sequence | Mapping", p: float = 0.9, *, ties: str = "a") -> RBO:
    """Rank-biased overlap of two rankings (Webber, Moffat & Zobel, TOIS 2010), with the tie-aware
    variants of Corsi & Urbano (SIGIR 2024); returns an :class:`RBO`: the extrapolated value, with
    ``.min``, ``.max`` and ``.res`` (the bounds of the full, unseen value and their gap).

    A ranking is a sequence of ids, best first, where a ``set``/``frozenset`` element is a group
    of tied ids (``["d1", {"d2", "d3"}, "d4"]``), or a mapping ``{id: score}`` (higher first,
    equal scores tied). The rankings may have different lengths and ids (RBO's indefinite
    rankings, seen to a prefix). ``p`` in (0, 1) is the persistence: the weight of depth d is
    proportional to p^(d − 1) (p = 0.9 gives the top 10 86% of the weight).

    ``ties`` (only used when a ranking has ties): ``"a"`` (default; ties as uncertainty: the
    expected overlap over the orders of the tied ids), ``"b"`` (ties as uncertainty, the agreement
    corrected for the information ties remove, as Kendall's τ-b), ``"w"`` (ties as equality:
    a tie group counts entirely from its first rank). Without ties the three are one measure.

    >>> r = rbo(["a", "b", "c", "d"], ["b", "a", "c", "e"], p=0.9)
    >>> round(r, 4), round(r.min, 4), round(r.max, 4)
    (0.7177, 0.4225, 0.8818)
    """
    p = check_fraction(p, "p")
    check_choice(ties, "ties", RBO_TIES)
    first, second = _tie_groups(a, "ranking_a"), _tie_groups(b, "ranking_b")
    short, long = (second, first) if len(first[0]) >= len(second[0]) else (first, second)
    if not short[0]:
        raise UsageError("rbo: both rankings must list at least one id")
    untied = bool(np.all(short[1] == short[2]) and np.all(long[1] == long[2]))
    return _rbo(short, long, p, "w" if untied else ties, ties)


def _tie_groups(x: Any, name: str) -> tuple[list, np.ndarray, np.ndarray]:
    """(ids in rank order, first rank, last rank of each id's tie group), ranks 0-based."""
    if hasattr(x, "items"):
        ids, keys = _ranking(x, name)
        order = np.lexsort((np.arange(len(ids)), keys))
        ids, keys = [ids[i] for i in order], keys[order]
    else:
        if isinstance(x, (str, bytes)):
            raise UsageError(f"{name}: expected a sequence of ids or a mapping id -> score, found a string")
        ids, group = [], []
        for position, item in enumerate(x):
            members = sorted(item, key=repr) if isinstance(item, (set, frozenset)) else [item]
            ids.extend(members)
            group.extend([position] * len(members))
        _ranking(ids, name)  # an id listed twice is an error
        keys = np.asarray(group, dtype=np.int64)
    n = len(ids)
    opens = np.ones(n, dtype=bool)
    opens[1:] = keys[1:] != keys[:-1]
    starts = np.flatnonzero(opens)
    sizes = np.diff(np.append(starts, n))
    top = np.repeat(starts, sizes)
    return ids, top, top + np.repeat(sizes, sizes) - 1


def _contributions(top: np.ndarray, bottom: np.ndarray, depth: int, variant: str, start=None) -> np.ndarray:
    """Rows: items; columns: depths 0..depth−1; how much of each item has been seen at each depth
    (w: all of a tie group from its first rank; a/b: the share k/g of a group of g after its k-th
    rank). ``start``: a column before which each row counts nothing."""
    cols = np.arange(depth)
    if variant == "w":
        c = (cols >= top[:, None]).astype(np.float64)
    else:
        c = np.clip((cols - top[:, None] + 1) / (bottom - top + 1)[:, None], 0.0, 1.0)
    if start is not None:
        c *= cols >= start[:, None]
    return c


def _column_sums(top, bottom, depth, variant, power=1, start=None) -> np.ndarray:
    """Σ over items of contribution**power at each depth: steps by bincount, tie ramps densely."""
    ramp = (bottom > top) if variant != "w" else np.zeros(top.size, dtype=bool)
    begin = top if start is None else np.maximum(top, start)
    step = np.cumsum(np.bincount(np.minimum(begin[~ramp], depth), minlength=depth + 1)[:depth]).astype(np.float64)
    if ramp.any():
        c = _contributions(top[ramp], bottom[ramp], depth, variant, None if start is None else start[ramp])
        step += (c ** power).sum(axis=0)
    return step


def _overlap(short, long, depth: int, variant: str) -> np.ndarray:
    """X_d = Σ over ids in both rankings of c_S · c_L, d = 1..depth."""
    where = {item: k for k, item in enumerate(long[0])}
    pairs = np.array([(j, where[item]) for j, item in enumerate(short[0]) if item in where], dtype=np.int64)
    if pairs.size == 0:
        return np.zeros(depth)
    js, jl = pairs[:, 0], pairs[:, 1]
    ts, bs, tl, bl = short[1][js], short[2][js], long[1][jl], long[2][jl]
    dense = ((bs > ts) | (bl > tl)) if variant != "w" else np.zeros(js.size, dtype=bool)
    x = np.cumsum(np.bincount(np.maximum(ts, tl)[~dense], minlength=depth + 1)[:depth]).astype(np.float64)
    if dense.any():
        x += (_contributions(ts[dense], bs[dense], depth, variant)
              * _contributions(tl[dense], bl[dense], depth, variant)).sum(axis=0)
    return x


def _agreement(x, d, variant, sum_s, sum_l, sq_s, sq_l):
    if variant == "w":
        return 2 * x / (sum_s + sum_l)
    if variant == "a":
        return x / d
    return x / np.sqrt(sq_s) / np.sqrt(sq_l)


def _rbo(short, long, p: float, variant: str, asked: str) -> RBO:
    s, l = len(short[0]), len(long[0])
    d = np.arange(1, l + 1, dtype=np.float64)
    x = _overlap(short, long, l, variant)
    sum_s = _column_sums(short[1], short[2], l, variant)
    sum_l = _column_sums(long[1], long[2], l, variant)
    sq_s = _column_sums(short[1], short[2], l, variant, power=2) if variant == "b" else None
    sq_l = _column_sums(long[1], long[2], l, variant, power=2) if variant == "b" else None
    a1 = _agreement(x[:s], d[:s], variant, sum_s[:s], sum_l[:s], sq_s[:s] if sq_s is not None else None,
                    sq_l[:s] if sq_l is not None else None)
    # beyond the shorter list's end, its unseen ids: none of the longer list's (min), the longer
    # list's own ids in its order (max), or the agreement at depth s carried on (ext)
    in_short = {item for item in short[0]}
    only_long = np.array([k for k, item in enumerate(long[0]) if item not in in_short], dtype=np.int64)
    tl, bl = long[1][only_long], long[2][only_long]
    sl, ll = slice(s, l), (l - s)
    seen = x[sl]
    unseen_max = _column_sums(tl[:ll], bl[:ll], l, variant, start=s + np.arange(min(ll, tl.size)))[sl]
    c_sum = _column_sums(tl, bl, l, variant)[sl]
    c_count = np.cumsum(np.bincount(tl, minlength=l + 1)[:l])[sl]
    unseen_ext = (d[sl] - s) * a1[s - 1] * np.divide(c_sum, c_count, out=np.zeros_like(c_sum), where=c_count > 0)
    section2 = {}
    for key, overlap in (("min", seen), ("max", seen + unseen_max), ("ext", seen + unseen_ext)):
        section2[key] = _agreement(overlap, d[sl], variant, d[sl], sum_l[sl], d[sl], sq_l[sl] if sq_l is not None else None)
    xl = x[l - 1]
    weights = p ** d
    tail_min = xl * (math.log(1 / (1 - p)) - float(np.sum(weights / d)))
    f = int(round(l + s - xl))
    deep = np.arange(l + 1, f + 1, dtype=np.float64)
    tail_max = float(np.sum((2 * deep - l - s + xl) / deep * p ** deep)) + p ** (f + 1) / (1 - p)
    tail_ext = (xl + (l - s) * a1[s - 1]) / l * p ** (l + 1) / (1 - p)
    scale = (1 - p) / p
    value = {key: scale * (float(np.sum(np.concatenate([a1, section2[key]]) * weights)) + tail)
             for key, tail in (("min", tail_min), ("max", tail_max), ("ext", tail_ext))}
    return RBO(value["ext"], value["min"], value["max"], p, asked)


# ----------------------------------------------------------------------------- query performance prediction


@dataclass(frozen=True)
class QPPEvaluation:
    """How well predicted per-query scores track the actual ones: Pearson's r and Kendall's τ-b with
    their two-sided p-values (scipy.stats.pearsonr, kendalltau), and sMARE (lower is better)."""

    pearson: float
    pearson_p: float
    kendall: float
    kendall_p: float
    smare: float
    n: int

    def to_dict(self) -> dict:
        return {"pearson": self.pearson, "pearson_p": self.pearson_p, "kendall": self.kendall,
                "kendall_p": self.kendall_p, "smare": self.smare, "queries": self.n}


def qpp_evaluation(predicted: Mapping, actual: Mapping) -> QPPEvaluation:
    """Evaluate a query performance predictor: ``predicted`` and ``actual`` map each query id to
    the predictor's value and to the measured effectiveness (e.g. AP). Both must hold the same
    queries (at least 3).

    sMARE (Faggioli, Zendel, Culpepper, Ferro & Scholer, ICTIR 2021) is the mean over queries of
    |rank by prediction − rank by effectiveness| / n, ranks averaged over ties: 0 when the
    predictor orders the queries as they perform.

    >>> e = qpp_evaluation({"q1": 0.9, "q2": 0.5, "q3": 0.1}, {"q1": 0.8, "q2": 0.2, "q3": 0.3})
    >>> round(e.pearson, 4), round(e.kendall, 4), round(e.smare, 4)
    (0.7777, 0.3333, 0.2222)
    """
    from scipy import stats

    for name, values in (("predicted", predicted), ("actual", actual)):
        if not isinstance(values, Mapping):
            raise UsageError(f"{name}: expected a mapping query id -> number, found {type(values).__name__}")
    only_p, only_a = sorted(set(predicted) - set(actual), key=str), sorted(set(actual) - set(predicted), key=str)
    if only_p or only_a:
        which = (f"predicted only: {', '.join(map(str, only_p[:5]))}" if only_p else
                 f"actual only: {', '.join(map(str, only_a[:5]))}")
        raise UsageError(f"predicted and actual must hold the same queries ({which})")
    qids = sorted(predicted, key=str)  # one order whatever the mappings' orders: the same sums
    if len(qids) < 3:
        raise UsageError(f"qpp evaluation needs at least 3 queries, found {len(qids)}")
    x = _finite_values(predicted, qids, "predicted")
    y = _finite_values(actual, qids, "actual")
    if np.all(x == x[0]) or np.all(y == y[0]):
        raise UsageError("qpp evaluation is undefined when every query has the same "
                         + ("prediction" if np.all(x == x[0]) else "actual value"))
    pearson = stats.pearsonr(x, y)
    kendall = stats.kendalltau(x, y)
    smare = float(np.mean(np.abs(stats.rankdata(x) - stats.rankdata(y)) / len(qids)))
    return QPPEvaluation(float(pearson.statistic), float(pearson.pvalue), float(kendall.statistic),
                         float(kendall.pvalue), smare, len(qids))


def _finite_values(mapping: Mapping, qids: list, name: str) -> np.ndarray:
    try:
        values = np.array([mapping[q] for q in qids], dtype=np.float64)
    except (TypeError, ValueError):
        raise UsageError(f"{name}: expected numbers") from None
    if not np.isfinite(values).all():
        raise UsageError(f"{name}: the value of query {qids[int(np.flatnonzero(~np.isfinite(values))[0])]!r} is "
                         "not a finite number")
    return values
