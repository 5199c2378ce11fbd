r"""Venkatraman's permutation tests that two ROC curves are equal at every operating point
(not only in area), as R's pROC computes them; the kernels of :func:`cranfield.stats.roc_test`.

* Paired (Venkatraman & Begg 1996, Biometrika 83:835): each example's ranks under the two
  scores; :math:`E = \sum_{x=1}^{n} |(FN_b + FP_b)(x) - (FN_a + FP_a)(x)|` over the rank
  cut-offs x, with FN(x) the positives ranked ≤ x and FP(x) the negatives ranked > x. A
  permutation exchanges each example's two ranks with probability 1/2 (the exchanged ranks are
  jittered by U(−½, ½) so that ties are broken at random) and ranks again.
* Unpaired (Venkatraman 2000, Biometrics 56:1134): each curve's ranks 1..n; with the pooled
  proportion of positives :math:`\pi` and, per rank cut-off x, the fractions of positives
  :math:`F(x)` and of negatives :math:`G(x)` ranked ≤ x, each curve is the path
  :math:`p(x) = \pi F(x) + (1-\pi) G(x) \mapsto e(x) = \pi F(x) + (1-\pi)(1 - G(x))` (the
  mixture quantile against the error rate there); E is the trapezoidal area between the two
  paths (both interpolated linearly on the union of their abscissas, where both are defined).
  A permutation jitters every rank by U(−½, ½), pools the negatives of both curves and the
  positives of both curves, deals each pool out again at random in the curves' class sizes,
  and ranks each curve again.

Both return the observed E and the number of permutations with :math:`E^* \ge E`. The sums are
pROC's, in its order (R's ``sum`` accumulates in long double: so does
:func:`_unpaired_statistic`), so that E is bit-identical to pROC's on x86-64.
"""

from __future__ import annotations

import numpy as np

_CELLS = 1_000_000  # permutations × examples per chunk: bounded memory whatever n_resamples


def ranks_first(values: np.ndarray) -> np.ndarray:
    """Ranks 1..n per row, ties in order of appearance (R's ``ties.method = "first"``)."""
    order = np.argsort(values, axis=-1, kind="stable")
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(1, values.shape[-1] + 1)[None, :].repeat(values.shape[0], 0), axis=-1)
    return ranks


def _paired_statistic(rank_a: np.ndarray, rank_b: np.ndarray, y: np.ndarray) -> np.ndarray:
    """E per row (one row per permutation) of the paired test, ranks 1..n."""
    signed = np.where(y, 1, -1)  # FN + FP at x = #neg + Σ_{rank ≤ x} (pos: +1, neg: -1)
    errors = []
    for ranks in (rank_a, rank_b):
        at_rank = np.empty_like(ranks)
        np.put_along_axis(at_rank, ranks - 1, np.broadcast_to(signed, ranks.shape), axis=1)
        errors.append(np.cumsum(at_rank, axis=1))
    return np.abs(errors[1] - errors[0]).sum(axis=1).astype(np.float64)


def paired(y: np.ndarray, sa: np.ndarray, sb: np.ndarray, n_resamples: int, rng) -> tuple[float, int]:
    rank_a = ranks_first(sa[None, :])
    rank_b = ranks_first(sb[None, :])
    observed = float(_paired_statistic(rank_a, rank_b, y)[0])
    n = y.size
    chunk = max(1, min(n_resamples, 2 * _CELLS // n))
    exceed = 0
    for start in range(0, n_resamples, chunk):
        rows = min(chunk, n_resamples - start)
        swap = rng.random((rows, n)) < 0.5
        ra = rank_a + rng.random((rows, n)) - 0.5
        rb = rank_b + rng.random((rows, n)) - 0.5
        new_a, new_b = np.where(swap, rb, ra), np.where(swap, ra, rb)
        exceed += int(np.count_nonzero(_paired_statistic(ranks_first(new_a), ranks_first(new_b), y) >= observed))
    return observed, exceed


def _path(labels: np.ndarray, mixing: float) -> tuple[np.ndarray, np.ndarray]:
    """(p, e) per rank cut-off 1..n of one curve; ``labels``: positives in increasing rank order."""
    positives = np.cumsum(labels, axis=1)
    n = labels.shape[1]
    f = positives / positives[:, -1:]
    g = (np.arange(1, n + 1) - positives) / (n - positives[:, -1:])
    return mixing * f + (1 - mixing) * g, mixing * f + (1 - mixing) * (1 - g)


def _at(p: np.ndarray, e: np.ndarray, count: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The path (p, e) interpolated linearly at x, NaN outside [p_1, p_n] (R's ``approxfun``,
    ``rule = 1``); ``count``: how many of p are ≤ x."""
    n = p.shape[1]
    i = np.clip(count - 1, 0, n - 1)
    j = np.minimum(i + 1, n - 1)
    pi, pj = np.take_along_axis(p, i, axis=1), np.take_along_axis(p, j, axis=1)
    ei, ej = np.take_along_axis(e, i, axis=1), np.take_along_axis(e, j, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        inside = ei + (ej - ei) * ((x - pi) / (pj - pi))
    value = np.where(x == pi, ei, inside)
    return np.where((count == 0) | ((count == n) & (x != pi)), np.nan, value)


def _unpaired_statistic(labels_a: np.ndarray, labels_b: np.ndarray, mixing: float) -> np.ndarray:
    """E per row of the unpaired test; ``labels_*``: positives in increasing rank order, one row
    per permutation."""
    pa, ea = _path(labels_a, mixing)
    pb, eb = _path(labels_b, mixing)
    x = np.concatenate([pa, pb], axis=1)
    order = np.argsort(x, axis=1, kind="stable")
    x = np.take_along_axis(x, order, axis=1)
    from_a = order < pa.shape[1]
    # how many of each path's abscissas are ≤ x: the running count, read at the last of equal x
    size = x.shape[1]
    last = np.ones(x.shape, dtype=bool)
    last[:, :-1] = x[:, 1:] != x[:, :-1]
    ends = np.minimum.accumulate(np.where(last, np.arange(size), size)[:, ::-1], axis=1)[:, ::-1]
    count_a = np.take_along_axis(np.cumsum(from_a, axis=1), ends, axis=1)
    count_b = np.take_along_axis(np.cumsum(~from_a, axis=1), ends, axis=1)
    gap = np.abs(_at(pa, ea, count_a, x) - _at(pb, eb, count_b, x))
    trapezoids = ((gap[:, 1:] + gap[:, :-1]) * (x[:, 1:] - x[:, :-1])) / 2
    trapezoids = np.where(np.isnan(trapezoids), 0.0, trapezoids)  # where a path is undefined (na.rm)
    # R's sum: sequential, in long double
    return np.cumsum(trapezoids.astype(np.longdouble), axis=1)[:, -1].astype(np.float64)


def unpaired(ya: np.ndarray, sa: np.ndarray, yb: np.ndarray, sb: np.ndarray, n_resamples: int,
             rng) -> tuple[float, int]:
    mixing = (int(ya.sum()) + int(yb.sum())) / (ya.size + yb.size)
    order_a, order_b = np.argsort(sa, kind="stable"), np.argsort(sb, kind="stable")
    observed = float(_unpaired_statistic(ya[order_a][None, :], yb[order_b][None, :], mixing)[0])
    rank_a, rank_b = ranks_first(sa[None, :])[0], ranks_first(sb[None, :])[0]
    negatives = np.concatenate([rank_a[~ya], rank_b[~yb]]).astype(np.float64)
    positives = np.concatenate([rank_a[ya], rank_b[yb]]).astype(np.float64)
    neg_a, pos_a = int((~ya).sum()), int(ya.sum())
    labels_a = np.r_[np.zeros(neg_a, bool), np.ones(pos_a, bool)]
    labels_b = np.r_[np.zeros(negatives.size - neg_a, bool), np.ones(positives.size - pos_a, bool)]
    chunk = max(1, min(n_resamples, _CELLS // (ya.size + yb.size)))
    exceed = 0
    for start in range(0, n_resamples, chunk):
        rows = min(chunk, n_resamples - start)
        dealt = []
        for pool in (negatives, positives):  # jitter, then shuffle each row of the pool
            jittered = pool + rng.random((rows, pool.size)) - 0.5
            dealt.append(np.take_along_axis(jittered, np.argsort(rng.random((rows, pool.size)), axis=1), axis=1))
        neg, pos = dealt
        values_a = np.concatenate([neg[:, :neg_a], pos[:, :pos_a]], axis=1)
        values_b = np.concatenate([neg[:, neg_a:], pos[:, pos_a:]], axis=1)
        resampled = _unpaired_statistic(labels_a[np.argsort(values_a, axis=1, kind="stable")],
                                        labels_b[np.argsort(values_b, axis=1, kind="stable")], mixing)
        exceed += int(np.count_nonzero(resampled >= observed))
    return observed, exceed
