r"""The corrected resampled t-test of Nadeau & Bengio (2003) and its confidence interval.

Scores from the folds of (repeated) cross-validation are not independent: the training sets
overlap, so the naive t-test over folds underestimates the variance and rejects far too often
(Dietterich 1998; Bouckaert & Frank 2004). Nadeau & Bengio correct the variance of the mean of
:math:`J` fold differences :math:`d_j = a_j - b_j` (:math:`J = k \cdot r` for r repeats of
k-fold) by the test/train size ratio:

.. math::

   t = \frac{\bar d}{\sqrt{\left(\frac1J + \frac{n_2}{n_1}\right)\hat\sigma^2}},
   \qquad \hat\sigma^2 = \frac{1}{J-1}\sum_j (d_j - \bar d)^2,\qquad \text{df} = J - 1,

with :math:`n_1` training and :math:`n_2` test samples per fold. Reference: C. Nadeau and
Y. Bengio (2003), "Inference for the generalization error", Machine Learning 52(3):239–281;
R. Bouckaert and E. Frank (2004), "Evaluating the replicability of significance tests for
comparing learning algorithms", PAKDD, LNCS 3056.

Policy: when all differences are equal (:math:`\hat\sigma = 0`), t is 0 (p = 1) if they are 0,
otherwise ±inf (p = 0), as :func:`cranfield.stats.paired.paired_t_test`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._params import check_choice, check_fraction, check_interval
from ..errors import InputError, UsageError
from ..measures.base import parse_measure
from ..stats import Interval

__all__ = ["CorrectedTTest", "corrected_ttest", "corrected_interval", "corrected_variance_factor"]

ALTERNATIVES = ("two-sided", "greater", "less")


@dataclass(frozen=True)
class CorrectedTTest:
    """Outcome of :func:`corrected_ttest`: t, p and the corrected interval of the mean difference
    (a − b); ``naive_p_value`` is the uncorrected t-test's, for comparison."""

    statistic: float
    p_value: float
    df: int
    mean_difference: float
    low: float
    high: float
    confidence: float
    n_train: float
    n_test: float
    n_folds: int
    alternative: str
    naive_p_value: float
    metric: str | None = None

    def __repr__(self) -> str:
        what = f" {self.metric}" if self.metric else ""
        return (f"<CorrectedTTest{what}: difference {self.mean_difference:.4g} "
                f"[{self.low:.4g}, {self.high:.4g}], t={self.statistic:.4g}, df={self.df}, p={self.p_value:.4g} "
                f"(naive p={self.naive_p_value:.4g})>")


def corrected_variance_factor(n_folds: int, n_train: float, n_test: float) -> float:
    """:math:`1/J + n_2/n_1`, the factor that multiplies :math:`\\hat\\sigma^2` (naive: :math:`1/J`)."""
    check_interval(n_train, "n_train", low=0, closed="neither")
    check_interval(n_test, "n_test", low=0, closed="neither")
    return 1.0 / n_folds + float(n_test) / float(n_train)


def _values(x, name: str) -> np.ndarray:
    array = np.asarray(x, dtype=np.float64)
    if array.ndim != 1 or len(array) < 2:
        raise InputError(f"expected a 1-D array of at least 2 fold values, found shape {array.shape}", field=name)
    if not np.isfinite(array).all():
        raise InputError("expected finite fold values, found NaN or infinity", field=name)
    return array


def _t_and_p(mean: float, var: float, factor: float, df: int, alternative: str) -> tuple[float, float]:
    from scipy import stats

    if var > 0:
        t = mean / np.sqrt(factor * var)
    else:
        t = 0.0 if mean == 0 else float(np.copysign(np.inf, mean))
    if alternative == "two-sided":
        p = 2 * stats.t.sf(abs(t), df)
    elif alternative == "greater":
        p = stats.t.sf(t, df)
    else:
        p = stats.t.cdf(t, df)
    return float(t), float(min(1.0, p))


def corrected_interval(values, *, n_train: float, n_test: float, confidence: float = 0.95):
    r"""Confidence interval of the mean of fold values with the corrected variance:
    :math:`\bar x \pm t_{J-1,\,1-\alpha/2}\sqrt{(1/J + n_2/n_1)\,\hat\sigma^2}` (Nadeau & Bengio
    2003). Returns a :class:`cranfield.stats.Interval` (method ``"corrected"``)."""
    from scipy import stats

    confidence = check_fraction(confidence, "confidence")
    x = _values(values, "values")
    factor = corrected_variance_factor(len(x), n_train, n_test)
    half = stats.t.ppf(0.5 + confidence / 2, len(x) - 1) * np.sqrt(factor * x.var(ddof=1))
    mean = float(x.mean())
    return Interval(mean, float(mean - half), float(mean + half), float(confidence), "corrected")


def _from_cross_validation(a: Any, b: Any, metric: str | None) -> tuple[np.ndarray, np.ndarray, float, float, str]:
    if metric is None:
        if len(a.metrics) != 1:
            raise UsageError(f"metric=: which of {', '.join(a.metrics)}?")
        metric = a.metrics[0]
    name = str(parse_measure(metric, area="classification")) if metric not in a.metrics else metric
    for cv in (a, b):
        if name not in cv.metrics:
            raise UsageError(f"metric {metric!r} was not computed; available: {', '.join(cv.metrics)}")
    if len(a.folds) != len(b.folds) or any(
            not np.array_equal(fa.test, fb.test) or not np.array_equal(fa.train, fb.train)
            for fa, fb in zip(a.folds, b.folds)):
        raise UsageError("the two cross-validations used different splits; pass the same cv= (or the same "
                         "random_state) to both so that the fold values are paired")
    n_train = float(np.mean([len(f.train) for f in a.folds]))
    n_test = float(np.mean([len(f.test) for f in a.folds]))
    return a.values[name], b.values[name], n_train, n_test, name


def corrected_ttest(a, b, *, n_train: float | None = None, n_test: float | None = None, metric: str | None = None,
                    alternative: str = "two-sided", confidence: float = 0.95) -> CorrectedTTest:
    """Compare two models on the same folds with the Nadeau–Bengio corrected resampled t-test.

    ``a``, ``b``: paired fold values (1-D, same folds in the same order) with ``n_train`` and
    ``n_test`` (samples per fold), or two :class:`~cranfield.protocols.CrossValidation` results
    computed on the same splits (then the sizes come from the folds, averaged, and ``metric``
    names the measure). ``alternative``: "two-sided", "greater" (a better) or "less".

    Hand-checked example (the test suite recomputes it): d = (0.02, 0.04, 0.00, 0.02), J = 4,
    n₁ = 90, n₂ = 10: d̄ = 0.02, σ̂² = 0.0008/3; naive t = d̄/√(σ̂²/4) = √6 = 2.4495, corrected
    t = 0.02 / √((1/4 + 1/9)·0.0008/3) = √6 · √((1/4)/(13/36)) = 3√(6/13) = 2.0381.

    >>> r = corrected_ttest([0.82, 0.84, 0.80, 0.82], [0.80, 0.80, 0.80, 0.80], n_train=90, n_test=10)
    >>> round(r.statistic, 4), r.df
    (2.0381, 3)
    """
    check_choice(alternative, "alternative", ALTERNATIVES)
    name = None
    if hasattr(a, "folds") and hasattr(b, "folds"):
        if n_train is not None or n_test is not None:
            raise UsageError("n_train/n_test come from the cross-validation results; do not pass them")
        x, y, n_train, n_test, name = _from_cross_validation(a, b, metric)
    else:
        if n_train is None or n_test is None:
            raise UsageError("give n_train= and n_test= (samples per fold), or pass two CrossValidation results")
        x, y = _values(a, "a"), _values(b, "b")
        if x.shape != y.shape:
            raise InputError(f"expected paired fold values, found {len(x)} and {len(y)}", field="b")
    d = x - y
    n_folds = len(d)
    factor = corrected_variance_factor(n_folds, n_train, n_test)
    mean, var = float(d.mean()), float(d.var(ddof=1))
    t, p = _t_and_p(mean, var, factor, n_folds - 1, alternative)
    _, naive_p = _t_and_p(mean, var, 1.0 / n_folds, n_folds - 1, alternative)
    interval = corrected_interval(d, n_train=n_train, n_test=n_test, confidence=confidence)
    return CorrectedTTest(t, p, n_folds - 1, mean, interval.low, interval.high, float(confidence), float(n_train),
                          float(n_test), n_folds, alternative, naive_p, name)
