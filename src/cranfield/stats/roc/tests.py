r"""Tests of two ROC curves, as R's pROC's ``roc.test`` defines them.

:func:`roc_test` — ``method="delong"``: paired (DeLong et al. 1988, a z test) or unpaired (each
curve's DeLong variance, a t test with Welch–Satterthwaite degrees of freedom computed as pROC
does, from the curves' total sizes); ``"bootstrap"``: the AUC difference over its bootstrap
standard deviation, a z test (paired curves resampled together, stratified by class);
``"venkatraman"``: a permutation test that the two curves are equal at every operating point, not
only in area — paired (Venkatraman & Begg 1996) or unpaired (Venkatraman 2000); see
:mod:`.venkatraman`.

Monte Carlo p-values are :math:`(1 + \#\{E^* \ge E\})/(1 + B)` (never 0; pROC reports
:math:`\#\{E^* \ge E\}/B`); with numpy's generator they agree with pROC up to the Monte Carlo
error only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..._params import check_choice
from ...errors import InputError, UsageError
from .._resample import as_generator
from . import venkatraman
from .bootstrap import _bootstrap, check_resamples, paired_bootstrap_aucs
from .curve import _auc_of_counts, _empirical_auc, _labels_scores
from .delong import delong_covariance, paired_difference

__all__ = ["ROCTest", "roc_test"]

_ALTERNATIVES = ("two-sided", "greater", "less")


@dataclass(frozen=True)
class ROCTest:
    """The result of :func:`roc_test`, with what was done."""

    method: str  # "delong", "bootstrap" or "venkatraman"
    paired: bool
    statistic: float  # z (DeLong paired, bootstrap), t (DeLong unpaired) or E (Venkatraman)
    p_value: float
    auc_a: float
    auc_b: float
    df: "float | None" = None  # degrees of freedom of the unpaired DeLong t test
    alternative: str = "two-sided"
    n_resamples: "int | None" = None
    seed: "int | None" = None
    exact: bool = True  # False for Monte Carlo p-values

    @property
    def statistic_name(self) -> str:
        return {"delong": "t" if not self.paired else "z", "bootstrap": "D", "venkatraman": "E"}[self.method]


def _sided(statistic: float, alternative: str, df: "float | None" = None) -> float:
    from scipy import stats

    distribution = stats.norm if df is None else stats.t(df)
    if alternative == "two-sided":
        return float(2 * distribution.sf(abs(statistic)))
    if alternative == "greater":
        return float(distribution.sf(statistic))
    return float(distribution.cdf(statistic))


def _placement_variance(y: np.ndarray, s: np.ndarray) -> tuple[float, float]:
    """AUC and DeLong's variance of one curve (placements, ddof 1)."""
    auc, covariance = delong_covariance(y, s)
    return float(auc[0]), float(covariance[0, 0])


def _unpaired_delong(ya, sa, yb, sb, alternative) -> ROCTest:
    auc_a, var_a = _placement_variance(ya, sa)
    auc_b, var_b = _placement_variance(yb, sb)
    total = var_a + var_b
    if total <= 0:
        raise InputError("DeLong's test is undefined: both curves have zero variance (each separates its classes "
                         "perfectly or not at all)", field="y_score")
    t = (auc_a - auc_b) / np.sqrt(total)
    df = total ** 2 / (var_a ** 2 / (ya.size - 1) + var_b ** 2 / (yb.size - 1))
    return ROCTest("delong", False, float(t), _sided(float(t), alternative, float(df)), auc_a, auc_b, df=float(df),
                   alternative=alternative)


def _paired_delong(y, sa, sb, alternative) -> ROCTest:
    auc_a, auc_b, var = paired_difference(y, sa, sb)
    diff = auc_a - auc_b
    if var <= 0:
        if diff == 0:
            return ROCTest("delong", True, 0.0, 1.0, auc_a, auc_b, alternative=alternative)
        raise InputError("DeLong's test is undefined: the variance of the AUC difference is 0", field="y_score")
    z = diff / np.sqrt(var)
    return ROCTest("delong", True, float(z), _sided(float(z), alternative), auc_a, auc_b, alternative=alternative)


def _bootstrap_test(ya, sa, yb, sb, paired, n_resamples, stratified, random_state, alternative) -> ROCTest:
    rng = as_generator(random_state)
    if paired:
        pairs = paired_bootstrap_aucs(ya, sa, sb, n_resamples, stratified, rng)
        differences = pairs[:, 0] - pairs[:, 1]
    else:
        a = _bootstrap(ya, sa, n_resamples, stratified, rng, _auc_of_counts)
        b = _bootstrap(yb, sb, n_resamples, stratified, rng, _auc_of_counts)
        differences = a - b
    auc_a, auc_b = _empirical_auc(ya, sa), _empirical_auc(yb, sb)
    sd = float(np.std(differences, ddof=1)) if differences.size > 1 else 0.0
    if not sd > 0:
        raise InputError("the bootstrap test is undefined: the resampled AUC differences do not vary "
                         f"(standard deviation {sd!r})", field="y_score")
    statistic = (auc_a - auc_b) / sd
    seed = random_state if isinstance(random_state, (int, np.integer)) else None
    return ROCTest("bootstrap", paired, float(statistic), _sided(float(statistic), alternative), auc_a, auc_b,
                   alternative=alternative, n_resamples=int(n_resamples), seed=seed, exact=False)


def _venkatraman(ya, sa, yb, sb, paired, n_resamples, random_state) -> ROCTest:
    rng = as_generator(random_state)
    if paired:
        observed, exceed = venkatraman.paired(ya, sa, sb, n_resamples, rng)
    else:
        observed, exceed = venkatraman.unpaired(ya, sa, yb, sb, n_resamples, rng)
    seed = random_state if isinstance(random_state, (int, np.integer)) else None
    return ROCTest("venkatraman", paired, observed, (1 + exceed) / (1 + n_resamples), _empirical_auc(ya, sa),
                   _empirical_auc(yb, sb), n_resamples=int(n_resamples), seed=seed, exact=False)


def roc_test(y_true, y_score_a, y_score_b, *, y_true_b=None, method: str = "delong", alternative: str = "two-sided",
             n_resamples: int = 2000, stratified: bool = True, random_state=None) -> ROCTest:
    """Compare two ROC curves: paired (both scores on the same examples, ``y_true_b`` None) or
    unpaired (``y_true_b`` gives the second curve's labels; its scores are ``y_score_b``).

    ``method``: ``"delong"`` (default), ``"bootstrap"`` or ``"venkatraman"`` (two-sided only, as
    in pROC; unpaired, the classes are mixed in the pooled proportion of positives, see
    docs/roc-statistics.md). ``n_resamples`` and ``random_state``: the bootstrap's resamples or
    Venkatraman's permutations. ``alternative``: ``"two-sided"``, ``"greater"`` (AUC a > AUC b)
    or ``"less"``.

    >>> result = roc_test([0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.7], [0.2, 0.1, 0.3, 0.9, 0.5, 0.4])
    >>> round(result.auc_a, 4), round(result.auc_b, 4)
    (0.8889, 0.7778)
    """
    if method not in ("delong", "bootstrap", "venkatraman"):
        raise UsageError(f"method: expected 'delong', 'bootstrap' or 'venkatraman', found {method!r}")
    check_choice(alternative, "alternative", _ALTERNATIVES)
    paired = y_true_b is None
    ya, sa = _labels_scores(y_true, y_score_a, name="y_score_a")
    yb, sb = _labels_scores(y_true if paired else y_true_b, y_score_b, name="y_score_b")
    if method == "venkatraman":
        if alternative != "two-sided":
            raise UsageError("Venkatraman's test is two-sided only")
        return _venkatraman(ya, sa, yb, sb, paired, check_resamples(n_resamples), random_state)
    if method == "bootstrap":
        return _bootstrap_test(ya, sa, yb, sb, paired, check_resamples(n_resamples), bool(stratified), random_state,
                               alternative)
    if paired:
        return _paired_delong(ya, sa, sb, alternative)
    return _unpaired_delong(ya, sa, yb, sb, alternative)
