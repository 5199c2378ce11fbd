r"""DeLong's statistics of ROC AUCs: the covariance matrix of correlated AUCs, the interval of one
AUC and the test of two AUCs measured on the same examples.

The covariance is computed with the O(n log n) algorithm of Sun & Xu (2014) from midranks.
References: DeLong, DeLong & Clarke-Pearson (1988), *Comparing the areas under two or more
correlated receiver operating characteristic curves*, Biometrics 44:837; Sun & Xu (2014), *Fast
implementation of DeLong's algorithm*, IEEE Signal Processing Letters 21:1389.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from ...errors import InputError
from .._interval import Interval, as_floats, check_confidence
from .curve import check_labels

__all__ = ["delong_covariance", "auc_ci", "AUCComparison", "delong_test"]


def delong_covariance(y_true, y_scores) -> tuple[np.ndarray, np.ndarray]:
    r"""AUCs of ``k`` classifiers on the same examples and DeLong's covariance matrix of them.

    ``y_scores`` has shape (k, n) (or (n,) for one classifier). With :math:`m` positives,
    :math:`n_0` negatives and midranks computed in the pooled sample (:math:`T_Z`), among the
    positives (:math:`T_X`) and among the negatives (:math:`T_Y`) (Sun & Xu 2014):
    :math:`V_{10} = (T_Z - T_X)/n_0` for positives, :math:`V_{01} = 1 - (T_Z - T_Y)/m` for
    negatives, AUC = mean of :math:`V_{10}`, and
    :math:`S = \operatorname{cov}(V_{10})/m + \operatorname{cov}(V_{01})/n_0` (DeLong, DeLong &
    Clarke-Pearson 1988). Ties count one half. O(k n log n). At least 2 positives and 2
    negatives are required (an :class:`InputError` otherwise, as pROC returns NA).
    """
    from scipy.stats import rankdata

    y = check_labels(y_true)
    scores = as_floats(y_scores, "y_score")
    scores = scores[None, :] if scores.ndim == 1 else scores
    if scores.ndim != 2 or scores.shape[1] != y.shape[0]:
        raise InputError(f"expected scores of shape (n,) or (k, n) with n = {y.shape[0]} labels, found {np.shape(y_scores)}", field="y_score")
    if not np.all(np.isfinite(scores)):
        raise InputError("expected finite scores, found NaN or infinity", field="y_score")
    pos, neg = scores[:, y], scores[:, ~y]
    m, n0 = pos.shape[1], neg.shape[1]
    if m < 2 or n0 < 2:
        raise InputError(f"DeLong's variance needs at least 2 positive and 2 negative examples, found {m} positive and "
                         f"{n0} negative: with one, a variance component is undefined (pROC gives NA); collect more "
                         f"examples or use a bootstrap interval", field="y_true")
    tz = rankdata(np.concatenate([pos, neg], axis=1), axis=1)
    tx = rankdata(pos, axis=1)
    ty = rankdata(neg, axis=1)
    v10 = (tz[:, :m] - tx) / n0
    v01 = 1.0 - (tz[:, m:] - ty) / m
    aucs = v10.mean(axis=1)
    s10 = np.atleast_2d(np.cov(v10))
    s01 = np.atleast_2d(np.cov(v01))
    return aucs, s10 / m + s01 / n0


def auc_ci(y_true, y_score, *, confidence: float = 0.95) -> Interval:
    r"""DeLong's confidence interval for ROC AUC: :math:`\widehat{AUC} \pm z_{1-\alpha/2}\sqrt{\hat V}`.

    :math:`\hat V` is DeLong's variance (see :func:`delong_covariance`); the interval is clipped
    to [0, 1], as R's ``pROC::ci.auc(method="delong")`` does.

    >>> ci = auc_ci([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> ci.estimate
    0.75
    """
    from scipy import special

    confidence = check_confidence(confidence)
    aucs, cov = delong_covariance(y_true, y_score)
    half = special.ndtri(0.5 + confidence / 2) * np.sqrt(max(cov[0, 0], 0.0))
    auc = float(aucs[0])
    return Interval(auc, float(max(0.0, auc - half)), float(min(1.0, auc + half)), confidence, "delong")


@dataclass(frozen=True)
class AUCComparison:
    """DeLong's comparison of two correlated ROC AUCs: difference ``auc_a - auc_b``, CI, z, p."""

    auc_a: float
    auc_b: float
    diff: float
    ci_low: float
    ci_high: float
    statistic: float
    p_value: float


def paired_difference(y_true, y_score_a, y_score_b) -> tuple[float, float, float]:
    """The two AUCs of scores on the same examples and DeLong's variance of their difference
    :math:`V_a + V_b - 2C_{ab}` (may be 0 or, by rounding, slightly negative)."""
    aucs, cov = delong_covariance(y_true, np.stack([y_score_a, y_score_b]))
    return float(aucs[0]), float(aucs[1]), float(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1])


def delong_test(y_true, y_score_a, y_score_b, *, confidence: float = 0.95) -> AUCComparison:
    r"""DeLong's test for two ROC AUCs measured on the same examples (DeLong et al. 1988).

    :math:`z = (A_a - A_b)/\sqrt{V_a + V_b - 2C_{ab}}` with DeLong's covariance matrix (computed
    by Sun & Xu's 2014 O(n log n) algorithm, :func:`delong_covariance`),
    :math:`p = 2\Phi(-|z|)`, and the interval :math:`A_a - A_b \pm z_{1-\alpha/2}\sqrt{V}` —
    as R's ``pROC::roc.test(method="delong", paired=TRUE)``. A zero variance gives z = 0 (equal
    AUCs) or ±inf; :func:`cranfield.stats.roc_test` refuses the latter.
    """
    from scipy import special

    confidence = check_confidence(confidence)
    a = np.asarray(y_score_a, dtype=np.float64)
    b = np.asarray(y_score_b, dtype=np.float64)
    if a.shape != b.shape:
        raise InputError(f"expected two score arrays of the same shape, found {a.shape} and {b.shape}", field="y_score_b")
    auc_a, auc_b, var = paired_difference(y_true, a, b)
    diff = auc_a - auc_b
    se = np.sqrt(max(var, 0.0))
    if se > 0:
        z = diff / se
    else:
        z = 0.0 if diff == 0 else float(np.sign(diff) * np.inf)
    p = float(2.0 * special.ndtr(-abs(z)))
    half = float(special.ndtri(0.5 + confidence / 2) * se)
    return AUCComparison(auc_a, auc_b, diff, diff - half, diff + half, float(z), p)


def moved_here(module: str, names: tuple[str, ...]):
    """A module ``__getattr__`` that gives ``names`` (moved from ``module`` to this module) with a
    DeprecationWarning: the old homes of the DeLong statistics, ``stats.intervals`` and ``stats.paired``."""
    def __getattr__(name: str):
        if name in names:
            warnings.warn(f"{module}.{name} moved to cranfield.stats.roc (also cranfield.stats.{name})",
                          DeprecationWarning, stacklevel=2)
            return globals()[name]
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    return __getattr__
