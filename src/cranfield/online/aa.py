r"""A/A simulation: how often do the A/B tests call a difference where there is none?

The randomisation units of a real log (``unit``) are re-randomised, ``n_simulations`` times, into
two arms of equal size (a random permutation; the first half is arm A, with an odd count the extra
unit goes to B); every metric is tested between the arms with each test of ``tests``, and the
share of simulations with :math:`p \le \alpha` is reported with its Wilson interval. A
well-calibrated test gives a share near :math:`\alpha`; far above it, the test's variance is too
small for the log (e.g. a per-impression test on a log randomised by user), below it, the test is
conservative (Kohavi, Tang & Xu 2020, ch. 19).

Tests, as in :mod:`cranfield.online.ab`: ``"delta"`` (z test with the delta-method variance of
each arm's ratio over its units) and ``"welch"`` (Welch's t on the per-unit values; units where
the metric is undefined left out). All simulations are computed at once: with the assignment
matrix :math:`A` (simulations × units), every arm's sums :math:`\sum Y_u, \sum X_u, \sum Y_u^2,
\sum Y_u X_u, \sum X_u^2` are matrix products, a chunk of simulations at a time.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from ..errors import InputError, UsageError
from ..stats._resample import as_generator, check_count, chunk_rows
from ..stats.intervals import proportion_ci
from .ab import _check_alpha, _metric_data

__all__ = ["AA_TESTS", "AARow", "AAResult", "aa_assignments", "aa_simulation"]

AA_TESTS = ("delta", "welch")


@dataclass(frozen=True)
class AARow:
    metric: str
    test: str
    simulations: int
    significant: int
    rate: float
    rate_low: float
    rate_high: float
    alpha: float


@dataclass(frozen=True)
class AAResult:
    rows: list
    settings: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"settings": dict(self.settings), "rows": [asdict(r) for r in self.rows]}


def aa_assignments(n_units: int, n_simulations: int, rng=None) -> np.ndarray:
    """Boolean (simulations × units): True where the unit is in arm B (each row a random
    permutation's second half); ``rng``: a numpy Generator or a seed."""
    n_units = check_count(n_units, "n_units", 1, 10**9)
    n_simulations = check_count(n_simulations, "n_simulations", 1)
    rng = as_generator(rng)
    if n_units * n_simulations > 10**9:
        raise UsageError(f"n_units x n_simulations: {n_units * n_simulations:,} cells is over 10^9; draw in chunks")
    ranks = rng.random((n_simulations, n_units)).argsort(axis=1).argsort(axis=1)
    return ranks >= n_units // 2


def _pvalues(assign, y, x, test):
    """Two-sided p-values of B against A for each row of ``assign``."""
    from scipy import special

    b = assign.astype(np.float64)
    a = 1.0 - b
    if test == "delta":
        parts = []
        for w in (a, b):
            sy, sx, syy, sxy, sxx = w @ y, w @ x, w @ (y * y), w @ (y * x), w @ (x * x)
            with np.errstate(invalid="ignore", divide="ignore"):
                r = sy / sx
                v = np.maximum((syy - 2 * r * sxy + r * r * sxx) / (sx * sx), 0.0)
            parts.append((r, v))
        with np.errstate(invalid="ignore", divide="ignore"):
            z = (parts[1][0] - parts[0][0]) / np.sqrt(parts[0][1] + parts[1][1])
        return 2 * special.ndtr(-np.abs(z))
    defined = x > 0
    m = np.divide(y, x, out=np.zeros_like(y), where=defined)
    stats = []
    for w in (a[:, defined], b[:, defined]):
        n = w.sum(axis=1)
        mean = (w @ m[defined]) / n
        var = (w @ (m[defined] ** 2) - n * mean * mean) / (n - 1)
        stats.append((mean, np.maximum(var, 0.0) / n, n))
    (ma, va, na), (mb, vb, nb) = stats
    se2 = va + vb
    with np.errstate(invalid="ignore", divide="ignore"):
        t = (mb - ma) / np.sqrt(se2)
        df = se2 ** 2 / (va ** 2 / (na - 1) + vb ** 2 / (nb - 1))
    return 2 * special.stdtr(df, -np.abs(t))


def aa_simulation(data, *, metrics=None, unit: str = "impression", tests=AA_TESTS, n_simulations: int = 1000,
                  alpha: float = 0.05, random_state=0) -> AAResult:
    """The false-positive rate of each test on each metric over ``n_simulations`` A/A splits of
    the units of ``data`` (a ClickLog or ImpressionMetrics; its variants are ignored)."""
    alpha = _check_alpha(alpha, "alpha")
    n_simulations = check_count(n_simulations, "n_simulations", 1)
    if isinstance(tests, str) or not isinstance(tests, (list, tuple)) or not tests or \
            any(t not in AA_TESTS for t in tests):
        raise UsageError(f"tests: expected a list of {', '.join(AA_TESTS)}, found {tests!r:.60}")
    rng = as_generator(random_state)
    data, names = _metric_data(data, metrics)
    codes, ids = data.unit(unit)
    present = np.bincount(codes, minlength=len(ids)) > 0
    n_units = int(present.sum())
    if n_units < 4:
        raise InputError(f"an A/A split needs at least 4 {unit}s; the log has {n_units}", field=unit)
    sums = {}
    for name in names:
        num, den = data.values[name]
        sums[name] = (np.bincount(codes, weights=num, minlength=len(present))[present],
                      np.bincount(codes, weights=den, minlength=len(present))[present])
    hits = {(name, test): 0 for name in names for test in tests}
    rows_per_chunk = max(1, chunk_rows(n_units))
    for start in range(0, n_simulations, rows_per_chunk):
        assign = aa_assignments(n_units, min(rows_per_chunk, n_simulations - start), rng)
        for name in names:
            for test in tests:
                p = _pvalues(assign, *sums[name], test)
                hits[name, test] += int(np.count_nonzero(p <= alpha))  # NaN (undefined) is not significant
    rows = []
    for (name, test), k in hits.items():
        ci = proportion_ci(k, n_simulations, method="wilson")
        rows.append(AARow(name, test, n_simulations, k, k / n_simulations, float(ci.low), float(ci.high), alpha))
    settings = {"unit": unit, "units": n_units, "simulations": n_simulations, "alpha": alpha, "split": "equal halves",
                "seed": random_state if isinstance(random_state, (int, np.integer)) else None, **data.settings}
    return AAResult(rows, settings)
