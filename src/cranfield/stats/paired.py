"""Paired tests between two systems on the same queries (or two classifiers on the same objects).

DeLong's test of two AUCs on the same examples is with the other ROC statistics, in
:mod:`cranfield.stats.roc`.

All two-sided. The batch function :func:`paired_pvalues` tests many pairs at once: it takes a
matrix of per-query differences, one pair per row, and is what :func:`cranfield.compare` uses;
the one-pair functions (:func:`paired_t_test`, :func:`wilcoxon_test`, :func:`sign_test`,
:func:`randomization_test`, :func:`bootstrap_test`) are thin wrappers over it.

Policies: differences that are all zero give statistic 0 and p = 1 (the systems agree on every
query); differences that are all equal and non-zero give an infinite t statistic and p = 0
(t test) or the smallest attainable p (resampling tests).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._params import check_choice
from ..errors import InputError, UsageError
from ._resample import all_sign_flips, as_generator, bootstrap_counts, check_count, sign_flip_matrices
from .roc import delong as _delong

__all__ = [
    "PAIRED_TESTS", "ZERO_METHODS", "RANK_DIGITS", "EXACT_MAX_N", "TestResult", "round_significant", "wilcoxon_method",
    "test_description", "McNemarResult", "paired_pvalues", "paired_test",
    "paired_t_test", "wilcoxon_test", "sign_test", "randomization_test", "bootstrap_test",
    "mcnemar_test",
]

PAIRED_TESTS = ("t", "wilcoxon", "sign", "randomization", "bootstrap")
ZERO_METHODS = ("wilcox", "pratt", "zsplit")
# Wilcoxon ranks |d| rounded to this many significant digits: differences of grid-valued measures
# (0.3 - 0.2 and 0.2 - 0.1) differ in their last bits only and must tie (R: wilcox.test(digits.rank=))
RANK_DIGITS = 10
# the randomization test counts all 2**n sign vectors up to this many queries (meeting in the middle)
EXACT_MAX_N = 20


@dataclass(frozen=True)
class TestResult:
    """Outcome of a two-sided paired test: its statistic, p-value, test name and number of pairs."""

    __test__ = False  # not a pytest class

    statistic: float
    p_value: float
    method: str
    n: int
    df: float | None = None  # degrees of freedom of the t test
    details: str = ""  # how p was computed: exact / Monte Carlo / normal approximation...


def round_significant(values, digits: int = RANK_DIGITS) -> np.ndarray:
    """``values`` rounded to ``digits`` significant digits (R's ``signif``); zeros stay 0.

    >>> round_significant([0.3 - 0.2, 0.2 - 0.1, -0.3 + 0.2]).tolist()
    [0.1, 0.1, -0.1]
    """
    x = np.asarray(values, dtype=np.float64)
    if isinstance(digits, (bool, np.bool_)) or not isinstance(digits, (int, np.integer)) or not 1 <= digits <= 15:
        raise UsageError(f"digits: expected a whole number from 1 to 15, found {digits!r}")
    out = x.copy()
    nonzero = np.isfinite(x) & (x != 0)
    exponent = np.floor(np.log10(np.abs(x[nonzero])))
    scale = 10.0 ** (digits - 1 - exponent)
    out[nonzero] = np.round(x[nonzero] * scale) / scale
    return out


def wilcoxon_method(differences, *, zero_method: str = "wilcox", rank_digits: int = RANK_DIGITS) -> list[str]:
    """How :func:`paired_pvalues` computes each row's Wilcoxon p (``scipy.stats.wilcoxon``'s rule
    for ``method="auto"``): ``"exact"`` (no ties, no zeros, n <= 50), ``"exact (all sign
    vectors)"`` (ties or zeros, n <= 13) or ``"normal approximation"`` (tie-corrected, no
    continuity correction)."""
    d = round_significant(np.atleast_2d(np.asarray(differences, dtype=np.float64)), rank_digits)
    out = []
    for row in d:
        if not np.any(row != 0):
            out.append("all differences zero: p = 1")
            continue
        a = np.sort(np.abs(row[row != 0]) if zero_method == "wilcox" else np.abs(row))
        ties = bool(np.any(a[1:] == a[:-1]))
        zeros = bool(np.any(row == 0))
        if len(row) > 50:
            out.append("normal approximation")
        elif not (ties or zeros):
            out.append("exact")
        elif len(row) <= 13:
            out.append("exact (all sign vectors)")
        else:
            out.append("normal approximation")
    return out


def _differences(x, y) -> np.ndarray:
    a = np.asarray(x, dtype=np.float64)
    b = np.asarray(y, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape:
        raise InputError(f"expected two 1-D arrays of paired values of the same length, found shapes {a.shape} and {b.shape}", field="y")
    return (a - b)[None, :]


def _t_statistic(d: np.ndarray) -> np.ndarray:
    """One-sample t of each row, with the all-equal policy (0 if all zero, else ±inf)."""
    n = d.shape[1]
    mean = d.mean(axis=1)
    sd = d.std(axis=1, ddof=1)
    safe = np.where(sd > 0, sd, 1.0)
    return np.where(sd > 0, mean / (safe / np.sqrt(n)), np.where(mean == 0, 0.0, np.copysign(np.inf, mean)))


def randomization_is_exact(n: int, n_permutations: int, exact: bool | None = None) -> bool:
    """Whether the randomization test over ``n`` queries enumerates every sign vector: always up to
    :data:`EXACT_MAX_N` queries (``exact=None``), or when ``2**n <= n_permutations``."""
    if exact is not None:
        return bool(exact)
    return n <= EXACT_MAX_N or (n < 63 and (1 << n) <= n_permutations)


def _count_below(b: np.ndarray, q: np.ndarray, *, inclusive: bool) -> np.ndarray:
    """Per row, how many entries of ``b`` are < (or <= with ``inclusive``) each entry of ``q``:
    one lexsort along the rows of [b | q] (a query sorts before equal b's, or after them), then
    a running count of b's — every row at once, no loop."""
    rows, mb = b.shape
    mq = q.shape[1]
    values = np.concatenate([b, q], axis=1)
    is_b = np.concatenate([np.ones((rows, mb), dtype=np.int8), np.zeros((rows, mq), dtype=np.int8)], axis=1)
    tie = is_b if not inclusive else 1 - is_b  # secondary key: who comes first among equal values
    order = np.lexsort((tie, values), axis=1)
    sorted_b = np.take_along_axis(is_b, order, axis=1)
    running = np.cumsum(sorted_b, axis=1, dtype=np.int64)
    at_query = sorted_b == 0
    counts = np.empty((rows, mq), dtype=np.int64)
    np.put_along_axis(counts, order[at_query].reshape(rows, mq) - mb, running[at_query].reshape(rows, mq), axis=1)
    return counts


def _half_sums(d: np.ndarray) -> np.ndarray:
    """All 2**k signed sums of each row's k values (rows, 2**k)."""
    k = d.shape[1]
    if k == 0:
        return np.zeros((len(d), 1))
    return np.concatenate([d @ (2.0 * bits - 1.0).T for bits in all_sign_flips(k)], axis=1)


def _randomization_exact(d: np.ndarray, threshold: np.ndarray) -> np.ndarray:
    """#{s in {±1}^n : |s·d| >= threshold} per row, by meeting in the middle: the 2**h signed sums
    a of the first h queries and the 2**(n-h) sums b of the others; |a + b| >= t iff
    b >= t - a or b <= -t - a (disjoint for t > 0), counted with :func:`_count_below` over the
    rows at once — O(rows 2**(n/2) n) instead of O(rows 2**n n)."""
    n = d.shape[1]
    h = n // 2
    total = np.zeros(len(d), dtype=np.int64)
    rows = max(1, (1 << 22) // (1 << (n - h)))  # about 32 MB of sums per chunk of rows
    for start in range(0, len(d), rows):
        part, t = d[start:start + rows], threshold[start:start + rows, None]
        a, b = _half_sums(part[:, :h]), _half_sums(part[:, h:])
        upper = b.shape[1] - _count_below(b, t - a, inclusive=False)  # b >= t - a
        lower = _count_below(b, -t - a, inclusive=True)  # b <= -t - a
        total[start:start + rows] = (upper + lower).sum(axis=1)
    return np.where(threshold > 0, total, 1 << n)


def _randomization(d: np.ndarray, n_permutations: int, rng: np.random.Generator, exact: bool) -> np.ndarray:
    """Two-sided p of Fisher's sign-flip test on the sum (equivalently mean) of differences."""
    n = d.shape[1]
    observed = d.sum(axis=1)
    threshold = np.abs(observed) - 1e-9 * np.abs(d).sum(axis=1)
    if exact:
        return _randomization_exact(d, threshold) / float(1 << n)
    dt = d.T.copy()
    count = np.zeros(d.shape[0], dtype=np.int64)
    for bits in sign_flip_matrices(n, n_permutations, rng):
        flipped = 2.0 * (bits @ dt) - observed
        count += (np.abs(flipped) >= threshold).sum(axis=0)
    return (count + 1) / (n_permutations + 1)


def _abs_t(mean: np.ndarray, var: np.ndarray, n: int, eps: np.ndarray) -> np.ndarray:
    """|t| = |mean| / sqrt(var / n), with means and scales below ``eps`` (rounding noise) taken as 0."""
    scale = np.sqrt(np.maximum(var, 0.0) / n)
    small_mean, small_scale = np.abs(mean) <= eps, scale <= eps
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(mean) / np.where(small_scale, 1.0, scale)
    return np.where(small_mean, 0.0, np.where(small_scale, np.inf, t))


def _bootstrap(d: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Two-sided p of the studentized paired bootstrap test on shifted differences."""
    n = d.shape[1]
    eps = 1e-12 * np.abs(d).max(axis=1)
    observed = _abs_t(d.mean(axis=1), d.var(axis=1, ddof=1), n, eps)
    threshold = observed - 1e-9  # t is scale-free: an absolute tolerance for rounding
    z = d - d.mean(axis=1, keepdims=True)
    zt, z2t = z.T.copy(), (z * z).T.copy()
    count = np.zeros(d.shape[0], dtype=np.int64)
    for counts in bootstrap_counts(n, n_resamples, rng):
        mean = counts @ zt / n
        var = (counts @ z2t / n - mean * mean) * (n / (n - 1))
        count += (_abs_t(mean, var, n, eps) >= threshold).sum(axis=0)
    return (count + 1) / (n_resamples + 1)


def paired_pvalues(differences, *, test: str = "t", n_permutations: int = 10_000, random_state=0,
                   zero_method: str = "wilcox", rank_digits: int = RANK_DIGITS,
                   exact: bool | None = None) -> tuple[np.ndarray, np.ndarray]:
    r"""Statistics and two-sided p-values of a paired test for each row of ``differences``.

    ``differences`` has shape (pairs, queries): row ``i`` holds :math:`d_q = x_q - y_q`.

    * ``"t"``: :math:`t = \bar d / (s_d/\sqrt n)`, Student's t with :math:`n-1` degrees of
      freedom (= ``scipy.stats.ttest_rel``);
    * ``"wilcoxon"``: signed-rank test (Wilcoxon 1945), ``scipy.stats.wilcoxon`` (method
      "auto", no continuity correction) of the differences rounded to ``rank_digits``
      significant digits (:func:`round_significant`; default :data:`RANK_DIGITS` = 10), so that
      differences equal but for rounding noise tie — as R's ``wilcox.test(digits.rank=)``;
      ``zero_method``: "wilcox" (drop zeros), "pratt", "zsplit"; statistic is scipy's
      :math:`\min(W^+, W^-)`;
    * ``"sign"``: the number of positive differences among the non-zero ones, exact binomial
      test with :math:`p = 1/2` (= ``scipy.stats.binomtest``);
    * ``"randomization"``: Fisher's randomization test (Smucker, Allan & Carterette 2007): the
      share of sign flips :math:`s \in \{\pm1\}^n` with :math:`|\sum s_q d_q| \ge |\sum d_q|`;
      exact over all :math:`2^n` flips (``exact=None``: when :math:`n \le` :data:`EXACT_MAX_N`
      = 20 or :math:`2^n \le` ``n_permutations``; counted by meeting in the middle: the
      :math:`2^{n/2}` signed sums of each half of the queries, sorted, so O(:math:`2^{n/2}`) per
      pair, vectorised over pairs), else :math:`(b+1)/(B+1)` over :math:`B` random flips (Phipson &
      Smyth 2010), whose smallest value is :math:`1/(B+1)`; statistic is :math:`\bar d`;
    * ``"bootstrap"``: studentized paired bootstrap test (Efron & Tibshirani 1993, alg. 16.2;
      Sakai 2006): resample the shifted differences :math:`d_q - \bar d`; p is
      :math:`(b+1)/(B+1)` with :math:`b` the resamples whose :math:`|t^*| \ge |t|`; statistic is
      :math:`t`.

    All rows share the same random flips or resamples (one matrix product per chunk).
    """
    from scipy import stats

    check_choice(test, "test", PAIRED_TESTS)
    check_choice(zero_method, "zero_method", ZERO_METHODS)
    if exact not in (None, True, False):
        raise UsageError(f"exact: expected None, True or False, found {exact!r}")
    d = np.asarray(differences, dtype=np.float64)
    if d.ndim != 2 or d.shape[1] < 2:
        raise InputError(f"expected a (pairs, queries) matrix with at least 2 queries, found shape {d.shape}", field="differences")
    if not np.all(np.isfinite(d)):
        raise InputError("expected finite differences, found NaN or infinity", field="differences")
    n = d.shape[1]
    zero = ~np.any(d != 0, axis=1)
    if test == "t":
        statistic = _t_statistic(d)
        p = np.where(np.isfinite(statistic), 2.0 * stats.t.sf(np.abs(np.where(np.isfinite(statistic), statistic, 0.0)), n - 1), 0.0)
    elif test == "sign":
        positive = (d > 0).sum(axis=1)
        nonzero = positive + (d < 0).sum(axis=1)
        statistic = positive.astype(np.float64)
        p = np.minimum(1.0, 2.0 * stats.binom.cdf(np.minimum(positive, nonzero - positive), nonzero, 0.5))
    elif test == "wilcoxon":
        statistic, p = np.zeros(len(d)), np.ones(len(d))
        ranked = round_significant(d, rank_digits)
        for i in np.flatnonzero(~zero):  # one scipy call per pair (not per query)
            res = stats.wilcoxon(ranked[i], zero_method=zero_method, correction=False, method="auto")
            statistic[i], p[i] = res.statistic, res.pvalue
    else:
        n_permutations = check_count(n_permutations, "n_permutations", 1)
        rng = as_generator(random_state)
        statistic = d.mean(axis=1) if test == "randomization" else _t_statistic(d)
        if test == "randomization":
            if exact and n > 32:
                raise UsageError(f"exact: enumerating 2**{n} sign vectors is too slow; at most 32 queries, found {n}")
            p = _randomization(d, n_permutations, rng, randomization_is_exact(n, n_permutations, exact))
        else:
            p = _bootstrap(d, n_permutations, rng)
    statistic = np.where(zero, 0.0, statistic)
    p = np.where(zero, 1.0, np.minimum(p, 1.0))
    return statistic, p


def test_description(test: str, n: int, *, n_permutations: int = 10_000, zero_method: str = "wilcox",
                     rank_digits: int = RANK_DIGITS, exact: bool | None = None) -> dict:
    """What :func:`paired_pvalues` does for ``test`` on ``n`` queries, as a dict: ``statistic``
    (its name), ``df`` (t test: n - 1, else None), ``p_method`` ("exact", "Monte Carlo",
    "t distribution", ...), ``resamples`` and ``p_floor`` (smallest attainable p, for the
    resampling tests) and, for Wilcoxon, ``zero_method``, ``rank_digits``, ``continuity``."""
    info: dict = {"test": test, "df": None, "resamples": None, "p_floor": None}
    if test == "t":
        info.update(statistic="t", df=n - 1, p_method="Student t distribution")
    elif test == "sign":
        info.update(statistic="number of positive differences", p_method="exact binomial")
    elif test == "wilcoxon":
        info.update(statistic="min(W+, W-)", p_method="exact if no ties or zeros and n <= 50; all sign vectors "
                    "if ties or zeros and n <= 13; else normal approximation with tie correction",
                    zero_method=zero_method, rank_digits=rank_digits, continuity=False)
    elif test == "randomization":
        if randomization_is_exact(n, n_permutations, exact):
            info.update(statistic="mean difference", p_method="exact (all 2^n sign vectors)",
                        p_floor=2.0 / 2.0 ** n)
        else:
            info.update(statistic="mean difference", p_method="Monte Carlo, (b+1)/(B+1)", resamples=n_permutations,
                        p_floor=1.0 / (n_permutations + 1))
    else:
        info.update(statistic="t", p_method="Monte Carlo, (b+1)/(B+1)", resamples=n_permutations,
                    p_floor=1.0 / (n_permutations + 1))
    return info


def paired_test(x, y, *, test: str = "t", n_permutations: int = 10_000, random_state=0,
                zero_method: str = "wilcox", exact: bool | None = None) -> TestResult:
    """Two-sided paired ``test`` of per-query values ``x`` against ``y`` (same query order).

    See :func:`paired_pvalues` for the tests and their formulas.

    >>> r = paired_test([0.5, 0.6, 0.7, 0.9], [0.4, 0.6, 0.5, 0.6], test="randomization")
    >>> r.p_value  # exact: 2 of the 2**3 distinct sign flips (zero difference included: 4 of 16)
    0.25
    """
    d = _differences(x, y)
    statistic, p = paired_pvalues(d, test=test, n_permutations=n_permutations, random_state=random_state,
                                  zero_method=zero_method, exact=exact)
    n = d.shape[1]
    info = test_description(test, n, n_permutations=n_permutations, zero_method=zero_method, exact=exact)
    details = wilcoxon_method(d, zero_method=zero_method)[0] if test == "wilcoxon" else info["p_method"]
    return TestResult(float(statistic[0]), float(p[0]), test, n, info["df"], details)


def paired_t_test(x, y) -> TestResult:
    """Student's paired t test (see :func:`paired_pvalues`); equals ``scipy.stats.ttest_rel``."""
    return paired_test(x, y, test="t")


def wilcoxon_test(x, y, *, zero_method: str = "wilcox") -> TestResult:
    """Wilcoxon signed-rank test of the differences ``x - y`` rounded to :data:`RANK_DIGITS`
    significant digits (``scipy.stats.wilcoxon`` of them; R ``wilcox.test(digits.rank=10,
    correct=FALSE)``); see :func:`paired_pvalues`."""
    return paired_test(x, y, test="wilcoxon", zero_method=zero_method)


def sign_test(x, y) -> TestResult:
    """Sign test: exact binomial test of #(x > y) among the non-tied pairs, p = 1/2."""
    return paired_test(x, y, test="sign")


def randomization_test(x, y, *, n_permutations: int = 10_000, random_state=0, exact: bool | None = None) -> TestResult:
    """Fisher's paired randomization (sign-flip permutation) test; see :func:`paired_pvalues`."""
    return paired_test(x, y, test="randomization", n_permutations=n_permutations, random_state=random_state,
                       exact=exact)


def bootstrap_test(x, y, *, n_resamples: int = 10_000, random_state=0) -> TestResult:
    """Studentized paired bootstrap test; see :func:`paired_pvalues`."""
    return paired_test(x, y, test="bootstrap", n_permutations=n_resamples, random_state=random_state)


@dataclass(frozen=True)
class McNemarResult:
    """McNemar's test: ``n01`` objects only b classifies right, ``n10`` only a; accuracies."""

    statistic: float
    p_value: float
    method: str
    n01: int
    n10: int
    accuracy_a: float
    accuracy_b: float


def mcnemar_test(y_true, y_pred_a, y_pred_b, *, exact: bool | None = None, correction: bool = True) -> McNemarResult:
    r"""McNemar's test (1947) that two classifiers have the same accuracy on the same objects.

    With :math:`n_{10}` objects right for a only and :math:`n_{01}` right for b only: exact
    binomial test of :math:`\min(n_{01}, n_{10})` out of :math:`n_{01}+n_{10}` with p = 1/2
    (``exact=True``; default when :math:`n_{01}+n_{10} < 25`), else the chi-square statistic
    :math:`(|n_{01}-n_{10}| - c)^2/(n_{01}+n_{10})` with 1 degree of freedom, :math:`c = 1`
    with Edwards' continuity ``correction`` and 0 without; as R's ``mcnemar.test``, the correction
    is not applied when :math:`n_{01} = n_{10}` (statistic 0, p = 1: the corrected
    :math:`\max(0, |n_{01}-n_{10}|-1)^2` is 0 there too). No discordant pair: statistic 0, p 1.
    """
    from scipy import stats

    truth = np.asarray(y_true)
    pa, pb = np.asarray(y_pred_a), np.asarray(y_pred_b)
    if truth.ndim != 1 or pa.shape != truth.shape or pb.shape != truth.shape:
        raise InputError(f"expected y_true, y_pred_a and y_pred_b of the same 1-D shape, found {truth.shape}, {pa.shape}, {pb.shape}", field="y_pred")
    right_a, right_b = pa == truth, pb == truth
    n10 = int(np.count_nonzero(right_a & ~right_b))
    n01 = int(np.count_nonzero(~right_a & right_b))
    total = n01 + n10
    if exact is None:
        exact = total < 25
    if total == 0:
        statistic, p, method = 0.0, 1.0, "exact" if exact else "chi2"
    elif exact:
        statistic = float(min(n01, n10))
        p, method = float(min(1.0, 2.0 * stats.binom.cdf(statistic, total, 0.5))), "exact"
    else:
        yates = 1.0 if correction and n01 != n10 else 0.0
        statistic = float((abs(n01 - n10) - yates) ** 2 / total)
        p, method = float(stats.chi2.sf(statistic, 1)), "chi2"
    n = max(len(truth), 1)
    return McNemarResult(statistic, p, method, n01, n10, float(right_a.sum() / n), float(right_b.sum() / n))


# names that moved to cranfield.stats.roc (one home for ROC statistics): still importable from here, with a
# DeprecationWarning
__getattr__ = _delong.moved_here(__name__, ("delong_test", "AUCComparison"))
