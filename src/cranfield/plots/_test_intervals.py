"""Intervals that agree with the test: the shifts a paired test does not reject.

A forest plot that draws normal intervals but fills its markers by a Holm-adjusted
randomization test shows intervals clear of zero as "not significant". Here each pair's
interval is the set of shifts δ for which the comparison's own test, applied to the differences
``d − δ``, is not rejected at the pair's local level ``α · p / p̃`` (``p̃`` the adjusted p-value):
at δ = 0 that is exactly "``p̃ ≤ α``", the comparison's significance, whatever the correction.
The ends are found by bisection from the test's centre (mean; median for the sign test; the
Hodges–Lehmann estimate for Wilcoxon) with zero's status taken from the comparison, so an
interval excludes zero if and only if the pair is significant.
"""

from __future__ import annotations

import numpy as np

__all__ = ["centre", "test_intervals", "CENTRE_NAMES"]

CENTRE_NAMES = {"t": "mean", "randomization": "mean", "bootstrap": "mean", "sign": "median",
                "wilcoxon": "Hodges–Lehmann estimate"}
_BISECTIONS = 16  # 2**-16 of the first bracket: far below a pixel
_EXPANSIONS = 40


def centre(d: np.ndarray, test: str) -> np.ndarray:
    """The point estimate each row's test is centred on."""
    if test == "sign":
        return np.median(d, axis=1)
    if test == "wilcoxon":
        i, j = np.triu_indices(d.shape[1])
        return np.median((d[:, i] + d[:, j]) / 2, axis=1)
    return d.mean(axis=1)


def test_intervals(d, *, test: str, p_values, p_adjusted, significant, alpha: float, n_permutations: int,
                   random_state) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(centre, low, high)`` per row of ``d`` (pairs, queries); an end is ±inf when no shift is
    rejected (a resampling test cannot reach a level below its smallest p)."""
    from ..stats.paired import paired_pvalues

    d = np.asarray(d, dtype=np.float64)
    sig = np.asarray(significant, dtype=bool)
    c = centre(d, test)
    # a significant pair centred at 0 (a median among many zero differences): start from the mean,
    # so that the interval, which always holds its start, excludes 0 as the decision says
    c = np.where(sig & (c == 0), d.mean(axis=1), c)
    p, adj = np.asarray(p_values, dtype=np.float64), np.asarray(p_adjusted, dtype=np.float64)
    level = np.where(adj > 0, alpha * p / np.where(adj > 0, adj, 1.0), alpha)
    level2 = np.concatenate([level, level])
    seed = random_state if isinstance(random_state, (int, np.integer)) else 0

    def rejected(shift: np.ndarray) -> np.ndarray:
        rows = np.concatenate([d, d]) - shift[:, None]
        _, pv = paired_pvalues(rows, test=test, n_permutations=n_permutations, random_state=seed)
        return pv <= level2

    direction = np.concatenate([-np.ones(len(d)), np.ones(len(d))])
    centre2 = np.concatenate([c, c])
    sig2 = np.concatenate([sig, sig])
    inside = centre2.copy()
    outside = np.full_like(inside, np.nan)
    zero_here = direction * (0.0 - centre2) > 0  # zero lies on this side of the centre
    outside[zero_here & sig2] = 0.0
    inside[zero_here & ~sig2] = 0.0
    scale = np.concatenate([np.abs(d).max(axis=1)] * 2)
    step = np.where(scale > 0, scale, 1.0)
    for _ in range(_EXPANSIONS):  # find a rejected shift beyond each end
        todo = np.isnan(outside)
        if not todo.any():
            break
        probe = inside + direction * step
        hit = todo & rejected(np.where(todo, probe, centre2))
        outside[hit] = probe[hit]
        inside[todo & ~hit] = probe[todo & ~hit]
        step = step * 2
    unbounded = np.isnan(outside)
    for _ in range(_BISECTIONS):  # keep the last shift known not to be rejected
        middle = np.where(unbounded, centre2, (inside + outside) / 2)
        hit = rejected(middle)
        outside = np.where(hit & ~unbounded, middle, outside)
        inside = np.where(~hit & ~unbounded, middle, inside)
    ends = np.where(unbounded, direction * np.inf, inside)
    n = len(d)
    return c, ends[:n], ends[n:]
