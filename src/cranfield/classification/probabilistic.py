"""Probabilistic outputs (log-loss, Brier score, multi-class ROC AUC), margins (hinge loss) and
numeric errors (MSE, MAE, R², D² scores).

All functions take ``(y_true, y_prob_or_pred, *, sample_weight=None, ...)`` and return a float.
An n×C matrix of probabilities must have rows that sum to 1 within C × :data:`SUM_TOLERANCE`
(probabilities rounded to 6 decimals pass; scikit-learn only warns, here a row that does not is an
``InputError`` naming it).
"""

from __future__ import annotations

from typing import Any, Hashable, Sequence

import numpy as np

from .._params import check_choice, check_probability
from .._exact import unit_scale
from ..errors import InputError, UsageError
from ._tweedie import check_domain, check_power, unit_deviance
from ._validation import (_is_matrix, binary_truth, check_flag, check_lengths, check_scores, check_weights, encode_labels,
                          normalize_weights, score_matrix)
from .class_columns import order_frame_columns
from .multiclass import roc_auc_multiclass as _auc

__all__ = ["log_loss", "brier_score", "roc_auc_multiclass", "hinge_loss", "mean_squared_error",
           "root_mean_squared_error", "mean_absolute_error", "r2_score", "d2_absolute_error_score", "d2_pinball_score",
           "d2_tweedie_score", "d2_log_loss_score", "d2_brier_score", "SUM_TOLERANCE"]

SUM_TOLERANCE = 1e-6  # per class: |Σₖ pᵢₖ − 1| ≤ C · 1e-6 for a row of C class probabilities


def _probabilities(y_prob: Any, n: int | None = None) -> np.ndarray:
    array = np.asarray(y_prob.to_numpy() if hasattr(y_prob, "to_numpy") else y_prob)
    if array.ndim == 1:
        array = check_scores(array, "y_prob")
    elif array.ndim == 2:
        array = check_scores(array.reshape(-1), "y_prob").reshape(array.shape)
    else:
        raise InputError(f"expected a 1-D or 2-D array of probabilities, found shape {array.shape}", field="y_prob")
    if ((array < 0) | (array > 1)).any():
        i = int(np.flatnonzero(((array < 0) | (array > 1)).reshape(-1))[0])
        raise InputError(f"expected probabilities in [0, 1], found {array.reshape(-1)[i]} at flat index {i}",
                         field="y_prob")
    return array


def _average(values: np.ndarray, weights: np.ndarray | None) -> float:
    if weights is None:
        return float(np.mean(values))
    if not weights.any():
        raise InputError("all sample weights are 0", field="sample_weight")
    return float(np.average(values, weights=normalize_weights(weights)[0]))  # scale-free (exact power of 2)


def _multiclass(y_true: Any, y_prob: Any, labels: Sequence[Hashable] | None, sample_weight: Any):
    """(one-hot truth, n×k probabilities, weights, classes); a 1-D y_prob is P(second class)."""
    classes, (codes,) = encode_labels((y_true, "y_true"), labels=labels)
    prob = _probabilities(order_frame_columns(y_prob, classes, explicit_order=labels is not None, name="y_prob"))
    n = check_lengths(y_true=codes, y_prob=prob)
    weights = check_weights(sample_weight, n)
    if prob.ndim == 1:
        prob = np.column_stack([1.0 - prob, prob])
    else:
        _check_sums(prob)
    if len(classes) == 1 and prob.shape[1] == 2 and labels is None:
        raise InputError(f"y_true has one class only ({classes[0]!r}); pass labels= to say which column it is",
                         field="y_true")
    if prob.shape[1] != len(classes):
        raise InputError(f"y_prob has {prob.shape[1]} columns but there are {len(classes)} classes {classes!r}",
                         field="y_prob")
    onehot = np.zeros(prob.shape, dtype=np.float64)
    onehot[np.arange(n), codes] = 1.0
    return onehot, prob, weights, classes


def _check_sums(prob: np.ndarray) -> None:
    sums = prob.sum(axis=1)
    tolerance = SUM_TOLERANCE * prob.shape[1]
    bad = np.abs(sums - 1.0) > tolerance
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(f"the probabilities of row {i} sum to {float(sums[i]):.10g}; expected 1 (within "
                         f"{tolerance:g}): pass class probabilities (e.g. a softmax), not raw scores", field="y_prob")


def _total(values: np.ndarray, weights: np.ndarray | None, normalize: bool) -> float:
    if normalize:
        return _average(values, weights)
    return float(values.sum() if weights is None else np.dot(values, weights))


def log_loss(y_true: Any, y_prob: Any, *, sample_weight: Any = None, labels: Sequence[Hashable] | None = None,
             normalize: bool = True) -> float:
    """Log-loss (cross-entropy): −(1/n) Σᵢ Σₖ [yᵢ = k] ln pᵢₖ, natural logarithm; with
    ``normalize=False`` the (weighted) sum instead of the mean, as scikit-learn's option.

    ``y_prob`` is n×k (columns in the order of the sorted classes, or of ``labels``; rows summing
    to 1) or, for two classes, the probability of the second class. Probabilities are clipped to
    [ε, 1 − ε] with ε the float64 machine epsilon and are not renormalised (as scikit-learn ≥ 1.5).
    Reference: Bishop (2006), Pattern Recognition and Machine Learning, §4.3.4.
    """
    normalize = check_flag(normalize, "normalize")
    onehot, prob, weights, _ = _multiclass(y_true, y_prob, labels, sample_weight)
    eps = np.finfo(np.float64).eps
    clipped = np.clip(prob, eps, 1 - eps)
    loss = -np.sum(onehot * np.log(clipped), axis=1)
    return _total(loss, weights, normalize)


def brier_score(y_true: Any, y_prob: Any, *, sample_weight: Any = None, pos_label: Hashable | None = None,
                labels: Sequence[Hashable] | None = None, scale_by_half: bool | str = "auto") -> float:
    """Brier score (Brier 1950, Monthly Weather Review 78): (1/n) Σᵢ Σₖ (pᵢₖ − [yᵢ = k])², the
    mean squared distance between the probability vector and the one-hot truth, times ½ when
    ``scale_by_half``. ``"auto"`` (scikit-learn's default) halves it for two classes, where it is
    then the familiar (1/n) Σᵢ (pᵢ − [yᵢ = positive])² in [0, 1], and not for three or more
    (range [0, 2]). ``y_prob``: the positive class's probability (1-D, binary, ``pos_label``) or an
    n×C matrix whose rows sum to 1 (columns in the order of the sorted classes or of ``labels``).
    Equals scikit-learn's ``brier_score_loss``."""
    if not isinstance(scale_by_half, (bool, np.bool_)):
        check_choice(scale_by_half, "scale_by_half", ("auto", True, False))
    prob = _probabilities(y_prob)
    if prob.ndim == 2 and prob.shape[1] >= 2:
        onehot, prob, weights, _ = _multiclass(y_true, prob, labels, sample_weight)
        squared = np.sum((prob - onehot) ** 2, axis=1)
        half = prob.shape[1] < 3 if scale_by_half == "auto" else scale_by_half
        return _average(squared, weights) * (0.5 if half else 1.0)
    truth = binary_truth(y_true, pos_label).astype(np.float64)
    if prob.ndim != 1:
        prob = prob.reshape(-1)
    n = check_lengths(y_true=truth, y_prob=prob)
    # binary: Σₖ over the two columns is 2 (p − y)²; halved ("auto"/True) it is (p − y)²
    value = _average((prob - truth) ** 2, check_weights(sample_weight, n))
    return value if scale_by_half in ("auto", True) else 2.0 * value


def roc_auc_multiclass(y_true: Any, y_prob: Any, *, multi_class: str = "ovr", average: str | None = "macro",
                       sample_weight: Any = None, labels: Sequence[Hashable] | None = None) -> float:
    """Multi-class ROC AUC: see :func:`cranfield.classification.multiclass.roc_auc_multiclass`
    (OvR per class, macro, weighted, micro; OvO after Hand & Till 2001)."""
    return _auc(y_true, y_prob, multi_class=multi_class, average=average, sample_weight=sample_weight, labels=labels)


def hinge_loss(y_true: Any, pred_decision: Any, *, labels: Sequence[Hashable] | None = None,
               sample_weight: Any = None) -> float:
    """Mean hinge loss max(0, 1 − margin). Two classes: ``pred_decision`` is 1-D (positive = the
    larger label in sorted order, coded +1, the other −1) and margin = y·d. More classes (an n×C
    ``pred_decision``, columns in the order of the sorted classes or ``labels``): Crammer & Singer
    (2001), margin = d_true − max_{k ≠ true} d_k. Equals scikit-learn's ``hinge_loss``."""
    if _is_matrix(pred_decision):
        decision = score_matrix(pred_decision, "pred_decision")
        if labels is not None and len(labels) != decision.shape[1]:
            raise UsageError(f"labels has {len(labels)} classes but pred_decision has {decision.shape[1]} columns")
        classes, (codes,) = encode_labels((y_true, "y_true"), labels=labels)
        n = check_lengths(y_true=codes, pred_decision=decision)
        if len(classes) != decision.shape[1]:
            raise InputError(f"y_true has {len(classes)} classes but pred_decision has {decision.shape[1]} columns; "
                             "pass labels= (one per column) when a class never occurs", field="y_true")
        rows = np.arange(n)
        own = decision[rows, codes]
        others = decision.copy()
        others[rows, codes] = -np.inf
        margin = own - others.max(axis=1)
    else:
        decision = check_scores(pred_decision, "pred_decision", exact=False)
        classes, (codes,) = encode_labels((y_true, "y_true"), labels=labels)
        n = check_lengths(y_true=codes, pred_decision=decision)
        if len(classes) > 2:
            raise InputError(f"a 1-D pred_decision is for two classes; y_true has {len(classes)}: pass an n×C matrix",
                             field="pred_decision")
        sign = np.where(codes == len(classes) - 1, 1.0, -1.0) if len(classes) == 2 else np.ones(n)
        margin = sign * decision
    if n == 0:
        raise InputError("no samples", field="y_true")
    return _average(np.maximum(1.0 - margin, 0.0), check_weights(sample_weight, n))


def _numeric(y_true: Any, y_pred: Any, sample_weight: Any):
    # numeric errors: an integer beyond 2**53 is only rounded (a relative error of 1e-16), no order to keep
    truth, pred = check_scores(y_true, "y_true", exact=False), check_scores(y_pred, "y_pred", exact=False)
    n = check_lengths(y_true=truth, y_pred=pred)
    if n == 0:
        raise InputError("no samples", field="y_true")
    return truth, pred, check_weights(sample_weight, n)


def mean_squared_error(y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> float:
    """MSE = Σ wᵢ (yᵢ − ŷᵢ)² / Σ wᵢ."""
    truth, pred, weights = _numeric(y_true, y_pred, sample_weight)
    return _average((truth - pred) ** 2, weights)


def root_mean_squared_error(y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> float:
    """RMSE = √MSE."""
    return float(np.sqrt(mean_squared_error(y_true, y_pred, sample_weight=sample_weight)))


def mean_absolute_error(y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> float:
    """MAE = Σ wᵢ |yᵢ − ŷᵢ| / Σ wᵢ."""
    truth, pred, weights = _numeric(y_true, y_pred, sample_weight)
    return _average(np.abs(truth - pred), weights)


def r2_score(y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> float:
    """Coefficient of determination R² = 1 − Σ wᵢ (yᵢ − ŷᵢ)² / Σ wᵢ (yᵢ − ȳ_w)².

    When y_true is constant (denominator 0), R² is 1.0 for a perfect prediction and 0.0
    otherwise, as scikit-learn's ``force_finite=True`` default.
    """
    truth, pred, weights = _numeric(y_true, y_pred, sample_weight)
    truth, pred = unit_scale(truth, pred)  # R² is scale-invariant: no overflow or underflow of squares
    w = np.ones_like(truth) if weights is None else normalize_weights(weights)[0]
    residual = np.dot(w, (truth - pred) ** 2)
    mean = np.average(truth, weights=w) if w.sum() else 0.0
    total = np.dot(w, (truth - mean) ** 2)
    if total == 0:
        return 1.0 if residual == 0 else 0.0
    return float(1.0 - residual / total)


def _d2(numerator: float, denominator: float) -> float:
    """1 − numerator/denominator; a zero denominator gives 1 (perfect) or 0, as scikit-learn's
    ``force_finite=True``."""
    if denominator == 0:
        return 1.0 if numerator == 0 else 0.0
    return float(1.0 - numerator / denominator)


def _two_samples(y_true: Any, y_pred: Any, sample_weight: Any):
    truth, pred, weights = _numeric(y_true, y_pred, sample_weight)
    if len(truth) < 2:
        raise InputError("D² is not defined with fewer than two samples (scikit-learn returns NaN)", field="y_true")
    return truth, pred, weights


def _weighted_quantile(values: np.ndarray, weights: np.ndarray | None, alpha: float) -> float:
    """The averaged inverted CDF at ``alpha`` (where the CDF is flat at exactly alpha, the mean of
    the two neighbouring values): the median for alpha = ½ and unit weights."""
    order = np.argsort(values, kind="stable")
    v = values[order]
    w = np.ones(len(v)) if weights is None else weights[order]
    cumulative = np.cumsum(w)
    target = alpha * cumulative[-1]
    i = min(int(np.searchsorted(cumulative, target, side="left")), len(v) - 1)
    if cumulative[i] == target and i + 1 < len(v):
        j = i + 1 + int(np.searchsorted(cumulative[i + 1:], cumulative[i], side="right"))  # skip zero weights
        return float((v[i] + v[min(j, len(v) - 1)]) / 2)
    return float(v[i])


def _pinball(truth: np.ndarray, pred: np.ndarray, alpha: float) -> np.ndarray:
    diff = truth - pred
    return np.where(diff >= 0, alpha * diff, (alpha - 1) * diff)


def d2_pinball_score(y_true: Any, y_pred: Any, *, alpha: float = 0.5, sample_weight: Any = None) -> float:
    """D² for the pinball (quantile) loss: 1 − L_α(y, ŷ) / L_α(y, q_α), with q_α the (weighted)
    α-quantile of ``y_true`` (averaged inverted CDF) and L_α the mean pinball loss
    α·max(y − ŷ, 0) + (1 − α)·max(ŷ − y, 0). The fraction of the loss of the best constant
    explained (Koenker & Machado 1999, JASA 94). Equals scikit-learn's ``d2_pinball_score``."""
    alpha = check_probability(alpha, "alpha")
    truth, pred, weights = _two_samples(y_true, y_pred, sample_weight)
    w = None if weights is None else normalize_weights(weights)[0]
    quantile = _weighted_quantile(truth, w, float(alpha))
    numerator = _average(_pinball(truth, pred, alpha), w)
    denominator = _average(_pinball(truth, np.full_like(truth, quantile), alpha), w)
    return _d2(numerator, denominator)


def d2_absolute_error_score(y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> float:
    """D² for the absolute error: :func:`d2_pinball_score` with α = ½ (1 − MAE(y, ŷ) / MAE(y,
    median y)). Equals scikit-learn's ``d2_absolute_error_score``."""
    return d2_pinball_score(y_true, y_pred, alpha=0.5, sample_weight=sample_weight)


def d2_tweedie_score(y_true: Any, y_pred: Any, *, power: float = 0.0, sample_weight: Any = None) -> float:
    """D² for the Tweedie deviance: 1 − D_p(y, ŷ) / D_p(y, ȳ) with ȳ the (weighted) mean of
    ``y_true`` and D_p the mean unit deviance of power p (0 normal: D² = R²; 1 Poisson; 2 Gamma;
    p < 0 or p ≥ 1 otherwise; 0 < p < 1 is not defined). Equals scikit-learn's ``d2_tweedie_score``."""
    power = check_power(power)
    truth, pred, weights = _two_samples(y_true, y_pred, sample_weight)
    check_domain(truth, pred, power)
    w = None if weights is None else normalize_weights(weights)[0]
    mean = np.full_like(truth, np.average(truth, weights=w))
    check_domain(truth, mean, power)
    return _d2(_average(unit_deviance(truth, pred, power), w), _average(unit_deviance(truth, mean, power), w))


def _null_model(onehot: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
    """Every sample given the (weighted) class frequencies of ``y_true``: the best constant forecast."""
    return np.broadcast_to(np.average(onehot, axis=0, weights=weights), onehot.shape)


def d2_log_loss_score(y_true: Any, y_prob: Any, *, sample_weight: Any = None,
                      labels: Sequence[Hashable] | None = None) -> float:
    """D² for the log-loss: 1 − LL(y, p) / LL(y, p₀), p₀ the (weighted) class frequencies of
    ``y_true`` given to every sample (McFadden's pseudo-R² of the forecasts). Inputs as
    :func:`log_loss`. Equals scikit-learn's ``d2_log_loss_score``."""
    onehot, prob, weights, _ = _multiclass(y_true, y_prob, labels, sample_weight)
    if len(onehot) < 2:
        raise InputError("D² is not defined with fewer than two samples (scikit-learn returns NaN)", field="y_true")
    eps = np.finfo(np.float64).eps

    def total(p):
        return _total(-np.sum(onehot * np.log(np.clip(p, eps, 1 - eps)), axis=1), weights, False)

    return _d2(total(prob), total(_null_model(onehot, weights)))


def d2_brier_score(y_true: Any, y_prob: Any, *, sample_weight: Any = None, pos_label: Hashable | None = None,
                   labels: Sequence[Hashable] | None = None) -> float:
    """D² for the Brier score: 1 − BS(y, p) / BS(y, p₀), p₀ the (weighted) class frequencies of
    ``y_true`` (the Brier skill score against climatology; the ½ scaling cancels). Inputs as
    :func:`brier_score`. Equals scikit-learn's ``d2_brier_score``."""
    prob = _probabilities(y_prob)
    if prob.ndim == 2 and prob.shape[1] >= 2:
        onehot, prob, weights, _ = _multiclass(y_true, prob, labels, sample_weight)
    else:
        truth = binary_truth(y_true, pos_label).astype(np.float64)
        prob = prob.reshape(-1)
        weights = check_weights(sample_weight, check_lengths(y_true=truth, y_prob=prob))
        onehot, prob = np.column_stack([1.0 - truth, truth]), np.column_stack([1.0 - prob, prob])
    if len(onehot) < 2:
        raise InputError("D² is not defined with fewer than two samples (scikit-learn returns NaN)", field="y_true")
    w = None if weights is None else normalize_weights(weights)[0]
    numerator = _average(np.sum((prob - onehot) ** 2, axis=1), w)
    denominator = _average(np.sum((_null_model(onehot, w) - onehot) ** 2, axis=1), w)
    return _d2(numerator, denominator)
