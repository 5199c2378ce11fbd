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

from ..stats.paired import paired_pvalues

__all__ = ["centre", "test_intervals", "CENTRE_NAMES"]

CENTRE_NAMES = {"t": "mean", "randomization": "mean", "bootstrap": "mean", "sign": "median",
                "wilcoxon": "Hodges–Lehmann estimate"}
_BISECTIONS = 16  # the bracket shrinks to 2**-16 of its first width: far below a pixel
_EXPANSIONS = 40
# shifts probed per call: a resampling test draws its flips once per call, so probing 15 shifts
# in one call costs little more than one; scipy's Wilcoxon and the bootstrap scale with rows
_PROBES = {"randomization": 15}


def centre(d: np.ndarray, test: str) -> np.ndarray:
    """The point estimate each row's test is centred on."""
    if test == "sign":
        return np.median(d, axis=1)
    if test == "wilcoxon":
        i, j = np.triu_indices(d.shape[1])
        return np.median((d[:, i] + d[:, j]) / 2, axis=1)
    return d.mean(axis=1)


def test_intervals(d, *, test: str, p_values, p_adjusted, significant, alpha: float, n_permutations: int,
                   random_state, zero_method: str = "wilcox") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(centre, low, high)`` per row of ``d`` (pairs, queries); an end is ±inf when no shift is
    rejected (a resampling test cannot reach a level below its smallest p)."""
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

    rows = np.concatenate([d, d])
    k = _PROBES.get(test, 1)

    def rejected(shifts: np.ndarray) -> np.ndarray:
        """Whether the test rejects each shift; ``shifts`` (2 · pairs, k), one call for all."""
        shifted = (rows[:, None, :] - shifts[:, :, None]).reshape(-1, rows.shape[1])
        _, pv = paired_pvalues(shifted, test=test, n_permutations=n_permutations, random_state=seed,
                               zero_method=zero_method)
        return pv.reshape(shifts.shape) <= level2[:, None]

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
    powers = 2.0 ** np.arange(k)
    for _ in range(0, _EXPANSIONS, k):  # find a rejected shift beyond each end: steps 1, 2, 4 … away
        todo = np.isnan(outside)
        if not todo.any():
            break
        probes = inside[:, None] + direction[:, None] * step[:, None] * powers
        hit = rejected(np.where(todo[:, None], probes, centre2[:, None])) & todo[:, None]
        first = hit.argmax(axis=1)
        found = hit.any(axis=1)
        rows_found = np.flatnonzero(found)
        outside[rows_found] = probes[rows_found, first[rows_found]]
        before = np.where(first > 0, probes[np.arange(len(probes)), np.maximum(first - 1, 0)], inside)
        inside = np.where(found, before, np.where(todo, probes[:, -1], inside))
        step = np.where(todo & ~found, step * 2.0 ** k, step)
    unbounded = np.isnan(outside)
    fractions = np.arange(1, k + 1) / (k + 1)
    for _ in range(0, _BISECTIONS, max(1, int(np.log2(k + 1)))):  # (k+1)-ary search between the ends
        far = np.where(unbounded, inside, outside)
        probes = inside[:, None] + (far - inside)[:, None] * fractions
        hit = rejected(probes) & ~unbounded[:, None]
        first = np.where(hit.any(axis=1), hit.argmax(axis=1), k)
        idx = np.arange(len(probes))
        outside = np.where(first < k, probes[idx, np.minimum(first, k - 1)], outside)
        inside = np.where(first > 0, probes[idx, np.maximum(first - 1, 0)], inside)
    ends = np.where(unbounded, direction * np.inf, inside)
    n = len(d)
    return c, ends[:n], ends[n:]
