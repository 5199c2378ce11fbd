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
from typing import Any, Mapping, Sequence

import numpy as np

from ._exact import snap_ties
from .errors import UsageError

__all__ = ["kendall_tau", "spearman_rho", "tau_ap", "kendall_distance"]


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
