"""Regression errors and scores: R², explained variance, MAPE, median absolute error, (R)MSLE,
maximum error, mean Poisson / Gamma / Tweedie deviance.

``mean_squared_error``, ``root_mean_squared_error``, ``mean_absolute_error`` and ``r2_score``
are those of :mod:`cranfield.classification.probabilistic` (one-output), re-exported here. The
other functions take ``(y_true, y_pred, *, sample_weight=None, multioutput=...)`` as scikit-learn:
``y_true`` and ``y_pred`` are n values or n × m (m outputs); ``multioutput`` is
``"uniform_average"`` (the mean over outputs), ``"raw_values"`` (one value per output, an
array) or m weights. Every function equals scikit-learn's function of the same name (same
arithmetic, ``==``). Domain errors (a negative target for MSLE or a Poisson deviance, a zero
prediction for a Gamma deviance...) are :class:`~cranfield.errors.InputError` naming the argument
and the first offending index.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._params import check_flag, usage_error
from .._exact import unit_scale
from ..errors import InputError, UsageError
from ._tweedie import check_domain, check_power, unit_deviance
from ._validation import check_scores, check_weights
from .probabilistic import mean_absolute_error, mean_squared_error, r2_score, root_mean_squared_error

__all__ = ["mean_squared_error", "root_mean_squared_error", "mean_absolute_error", "r2_score",
           "explained_variance_score", "mean_absolute_percentage_error", "median_absolute_error",
           "mean_squared_log_error", "root_mean_squared_log_error", "max_error", "mean_tweedie_deviance",
           "mean_poisson_deviance", "mean_gamma_deviance", "MULTIOUTPUT"]

MULTIOUTPUT = ("uniform_average", "raw_values", "variance_weighted")


def _targets(values: Any, name: str) -> np.ndarray:
    if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):
        values = values.to_numpy()
    if isinstance(values, (list, tuple)) and values and all(isinstance(v, (list, tuple, np.ndarray)) for v in values):
        try:
            array = np.asarray(values)
        except ValueError:
            raise InputError("rows of different lengths", field=name) from None
        if array.dtype == object:
            raise InputError("rows of different lengths", field=name)
    else:
        array = values if isinstance(values, np.ndarray) else None
    if array is None or array.ndim < 2:
        return check_scores(values, name, exact=False)[:, None]
    if array.ndim != 2:
        raise InputError(f"expected n values or an n × m array, found shape {array.shape}", field=name)
    return check_scores(array.reshape(-1), name, exact=False).reshape(array.shape)


def _check(y_true: Any, y_pred: Any, sample_weight: Any, multioutput: Any, *, allowed=MULTIOUTPUT[:2]):
    """(n × m truth, n × m predictions, weights or None, multioutput: str or m weights)."""
    truth, pred = _targets(y_true, "y_true"), _targets(y_pred, "y_pred")
    if truth.shape[0] != pred.shape[0]:
        raise InputError(f"y_pred has {pred.shape[0]} samples, expected {truth.shape[0]} as y_true", field="y_pred")
    if truth.shape[1] != pred.shape[1]:
        raise InputError(f"y_pred has {pred.shape[1]} outputs, expected {truth.shape[1]} as y_true", field="y_pred")
    if truth.shape[0] == 0:
        raise InputError("no samples", field="y_true")
    weights = check_weights(sample_weight, truth.shape[0])
    if isinstance(multioutput, str):
        if multioutput not in allowed:
            raise usage_error("multioutput", f"one of {', '.join(allowed)} or one weight per output", multioutput)
    elif multioutput is not None:
        m = check_scores(multioutput, "multioutput", exact=False)
        if truth.shape[1] == 1:
            raise UsageError("multioutput weights need several outputs; y_true has one")
        if len(m) != truth.shape[1]:
            raise UsageError(f"multioutput has {len(m)} weights, expected {truth.shape[1]} (one per output)")
        if (m < 0).any() or not m.any():
            raise usage_error("multioutput", "weights >= 0, not all 0", m.tolist())
        multioutput = m
    else:
        raise usage_error("multioutput", "a string or one weight per output", None)
    return truth, pred, weights, multioutput


def _combine(per_output: np.ndarray, multioutput: Any):
    if isinstance(multioutput, str):
        if multioutput == "raw_values":
            return per_output
        return float(np.average(per_output))
    return float(np.average(per_output, weights=multioutput))


def _mean(values: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    return np.average(values, axis=0, weights=weights)


def _first(mask: np.ndarray) -> str:
    i = np.argwhere(mask)[0]
    return f"index {int(i[0])}" if mask.shape[1] == 1 else f"index {tuple(int(v) for v in i)}"


def explained_variance_score(y_true: Any, y_pred: Any, *, sample_weight: Any = None,
                             multioutput: Any = "uniform_average", force_finite: bool = True):
    """Explained variance 1 − Var_w(y − ŷ)/Var_w(y) per output: R² without penalising a constant
    bias of the predictions (Var_w the weighted population variance). A constant ``y_true`` gives
    1.0 for a perfect prediction, 0.0 otherwise (``force_finite=True``, as scikit-learn), or
    NaN/−inf with ``force_finite=False``. ``multioutput="variance_weighted"`` weighs each output's
    score by the variance of its ``y_true``."""
    truth, pred, w, multioutput = _check(y_true, y_pred, sample_weight, multioutput, allowed=MULTIOUTPUT)
    check_flag(force_finite, "force_finite")
    truth, pred = unit_scale(truth, pred)  # scale-invariant: no overflow or underflow of squares
    diff_mean = _mean(truth - pred, w)
    numerator = _mean((truth - pred - diff_mean) ** 2, w)
    denominator = _mean((truth - _mean(truth, w)) ** 2, w)
    nonzero_den = denominator != 0
    if not force_finite:
        with np.errstate(divide="ignore", invalid="ignore"):
            scores = 1 - numerator / denominator
    else:
        nonzero_num = numerator != 0
        scores = np.ones(truth.shape[1])
        valid = nonzero_den & nonzero_num
        scores[valid] = 1 - numerator[valid] / denominator[valid]
        scores[nonzero_num & ~nonzero_den] = 0.0
    if isinstance(multioutput, str) and multioutput == "variance_weighted":
        multioutput = denominator if nonzero_den.any() else "uniform_average"
    return _combine(scores, multioutput)


def mean_absolute_percentage_error(y_true: Any, y_pred: Any, *, sample_weight: Any = None,
                                   multioutput: Any = "uniform_average"):
    """MAPE = Σ wᵢ |yᵢ − ŷᵢ| / max(|yᵢ|, ε) / Σ wᵢ, ε the float64 machine epsilon (so a zero target
    gives a huge, finite term, as scikit-learn); a fraction, not a percentage."""
    truth, pred, w, multioutput = _check(y_true, y_pred, sample_weight, multioutput)
    eps = np.finfo(np.float64).eps
    return _combine(_mean(np.abs(pred - truth) / np.maximum(np.abs(truth), eps), w), multioutput)


def _weighted_median(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Per column, the weighted median of scikit-learn's averaged inverted CDF: sort, find the
    first value whose cumulative weight reaches half the total; when it reaches it exactly
    (within ε), the mean of that value and the next one of positive weight."""
    n, m = values.shape
    order = np.argsort(values, axis=0, kind="stable")
    ordered = np.take_along_axis(values, order, axis=0)
    w = weights[order]
    cdf = np.cumsum(w, axis=0)
    half = 0.5 * cdf[-1]
    half = np.where(half == 0, np.nextafter(half, 1), half)
    out = np.empty(m)
    for j in range(m):  # one pass per output column
        i = min(int(np.searchsorted(cdf[:, j], half[j])), n - 1)
        if cdf[i, j] - half[j] > np.finfo(np.float64).eps:
            out[j] = ordered[i, j]
            continue
        after = min(i + 1, n - 1)
        if w[after, j] == 0:  # the next value with positive weight
            nxt = int(np.searchsorted(cdf[:, j], cdf[i, j], side="right"))
            after = i if nxt > n - 1 else nxt
        out[j] = (ordered[i, j] + ordered[after, j]) / 2
    return out


def median_absolute_error(y_true: Any, y_pred: Any, *, sample_weight: Any = None,
                          multioutput: Any = "uniform_average"):
    """MedAE = median |yᵢ − ŷᵢ| per output, robust to outliers; with ``sample_weight`` the weighted
    median (the averaged inverted CDF: the mean of the two middle values when the cumulative
    weight reaches exactly half)."""
    truth, pred, w, multioutput = _check(y_true, y_pred, sample_weight, multioutput)
    errors = np.abs(pred - truth)
    per_output = np.median(errors, axis=0) if w is None else _weighted_median(errors, w)
    return _combine(per_output, multioutput)


def _log_targets(y_true: Any, y_pred: Any, sample_weight: Any, multioutput: Any):
    truth, pred, w, multioutput = _check(y_true, y_pred, sample_weight, multioutput)
    for values, name in ((truth, "y_true"), (pred, "y_pred")):
        bad = values <= -1
        if bad.any():
            raise InputError(f"log(1 + y) needs values > −1, found {values[bad][0]} at {_first(bad)}", field=name)
    return np.log1p(truth), np.log1p(pred), w, multioutput


def mean_squared_log_error(y_true: Any, y_pred: Any, *, sample_weight: Any = None,
                           multioutput: Any = "uniform_average"):
    """MSLE = Σ wᵢ (ln(1 + yᵢ) − ln(1 + ŷᵢ))² / Σ wᵢ: squared error of relative size, for targets
    growing exponentially; values must be > −1 (scikit-learn's domain)."""
    truth, pred, w, multioutput = _log_targets(y_true, y_pred, sample_weight, multioutput)
    return _combine(_mean((truth - pred) ** 2, w), multioutput)


def root_mean_squared_log_error(y_true: Any, y_pred: Any, *, sample_weight: Any = None,
                                multioutput: Any = "uniform_average"):
    """RMSLE = √MSLE per output (then averaged over outputs)."""
    truth, pred, w, multioutput = _log_targets(y_true, y_pred, sample_weight, multioutput)
    return _combine(np.sqrt(_mean((truth - pred) ** 2, w)), multioutput)


def max_error(y_true: Any, y_pred: Any) -> float:
    """The worst case, maxᵢ |yᵢ − ŷᵢ| (one output)."""
    truth, pred, _, _ = _check(y_true, y_pred, None, "uniform_average")
    if truth.shape[1] != 1:
        raise InputError(f"max_error takes one output, found {truth.shape[1]}", field="y_true")
    return float(np.max(np.abs(truth - pred)))


def mean_tweedie_deviance(y_true: Any, y_pred: Any, *, sample_weight: Any = None, power: float = 0) -> float:
    """Mean Tweedie deviance of power p (Jørgensen 1987; one output), the weighted mean of
    d(y, μ) = 2 [max(y, 0)^(2−p)/((1−p)(2−p)) − y μ^(1−p)/(1−p) + μ^(2−p)/(2−p)], with the limits
    p = 0: (y − μ)² (normal), p = 1: 2 [y ln(y/μ) − y + μ] (Poisson), p = 2: 2 [ln(μ/y) + y/μ − 1]
    (Gamma). Domain (as scikit-learn): p < 0 needs μ > 0; 1 ≤ p < 2 needs y ≥ 0 and μ > 0; p ≥ 2
    needs y > 0 and μ > 0; 0 < p < 1 is not a Tweedie distribution (an error).
    """
    p = check_power(power)
    truth, pred, w, _ = _check(y_true, y_pred, sample_weight, "uniform_average")
    if truth.shape[1] != 1:
        raise InputError(f"the Tweedie deviance takes one output, found {truth.shape[1]}", field="y_true")
    y, mu = truth[:, 0], pred[:, 0]
    check_domain(y, mu, p)
    dev = unit_deviance(y, mu, p)
    return float(np.average(dev, weights=w))


def mean_poisson_deviance(y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> float:
    """Mean Poisson deviance, :func:`mean_tweedie_deviance` with power 1 (y ≥ 0, ŷ > 0)."""
    return mean_tweedie_deviance(y_true, y_pred, sample_weight=sample_weight, power=1)


def mean_gamma_deviance(y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> float:
    """Mean Gamma deviance, :func:`mean_tweedie_deviance` with power 2 (y > 0, ŷ > 0)."""
    return mean_tweedie_deviance(y_true, y_pred, sample_weight=sample_weight, power=2)
