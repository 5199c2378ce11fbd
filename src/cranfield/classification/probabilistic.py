"""Probabilistic outputs (log-loss, Brier score, multi-class ROC AUC) and numeric errors.

All functions take ``(y_true, y_prob_or_pred, *, sample_weight=None, ...)`` and return a float.
"""

from __future__ import annotations

from typing import Any, Hashable, Sequence

import numpy as np

from ..errors import InputError, UsageError
from ._validation import binary_truth, check_lengths, check_scores, check_weights, encode_labels, normalize_weights

__all__ = ["log_loss", "brier_score", "roc_auc_multiclass", "mean_squared_error", "root_mean_squared_error",
           "mean_absolute_error", "r2_score"]


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
    prob = _probabilities(y_prob)
    n = check_lengths(y_true=codes, y_prob=prob)
    weights = check_weights(sample_weight, n)
    if prob.ndim == 1:
        prob = np.column_stack([1.0 - prob, prob])
    if len(classes) == 1 and prob.shape[1] == 2 and labels is None:
        raise InputError(f"y_true has one class only ({classes[0]!r}); pass labels= to say which column it is",
                         field="y_true")
    if prob.shape[1] != len(classes):
        raise InputError(f"y_prob has {prob.shape[1]} columns but there are {len(classes)} classes {classes!r}",
                         field="y_prob")
    onehot = np.zeros(prob.shape, dtype=np.float64)
    onehot[np.arange(n), codes] = 1.0
    return onehot, prob, weights, classes


def log_loss(y_true: Any, y_prob: Any, *, sample_weight: Any = None, labels: Sequence[Hashable] | None = None
             ) -> float:
    """Log-loss (cross-entropy): −(1/n) Σᵢ Σₖ [yᵢ = k] ln pᵢₖ, natural logarithm.

    ``y_prob`` is n×k (columns in the order of the sorted classes, or of ``labels``) or, for two
    classes, the probability of the second class. Probabilities are clipped to [ε, 1 − ε] with ε the
    float64 machine epsilon and are not renormalised (as scikit-learn ≥ 1.5). Reference: Bishop
    (2006), Pattern Recognition and Machine Learning, §4.3.4.
    """
    onehot, prob, weights, _ = _multiclass(y_true, y_prob, labels, sample_weight)
    eps = np.finfo(np.float64).eps
    clipped = np.clip(prob, eps, 1 - eps)
    loss = -np.sum(onehot * np.log(clipped), axis=1)
    return _average(loss, weights)


def brier_score(y_true: Any, y_prob: Any, *, sample_weight: Any = None, pos_label: Hashable | None = None) -> float:
    """Brier score of binary probabilities: (1/n) Σᵢ (pᵢ − [yᵢ = positive])² (Brier 1950, Monthly
    Weather Review 78), as scikit-learn's ``brier_score_loss`` for binary ``y_true``."""
    truth = binary_truth(y_true, pos_label).astype(np.float64)
    prob = _probabilities(y_prob)
    if prob.ndim != 1:
        raise InputError(f"expected one probability per sample, found shape {prob.shape}", field="y_prob")
    n = check_lengths(y_true=truth, y_prob=prob)
    return _average((prob - truth) ** 2, check_weights(sample_weight, n))


def _binary_auc(positive: np.ndarray, scores: np.ndarray, weights: np.ndarray | None) -> float:
    from .curves import roc_auc

    return roc_auc(positive, scores, sample_weight=weights)


def roc_auc_multiclass(y_true: Any, y_prob: Any, *, multi_class: str = "ovr", average: str = "macro",
                       sample_weight: Any = None, labels: Sequence[Hashable] | None = None) -> float:
    """Multi-class ROC AUC from an n×k matrix of class probabilities.

    ``multi_class="ovr"``: the AUC of each class against the rest, averaged (``"macro"``) or
    weighted by prevalence (``"weighted"``) (Provost & Domingos 2000). ``"ovo"``: Hand & Till
    (2001), Machine Learning 45: M = 2/(k(k−1)) Σ_{j<l} (A(j|l) + A(l|j))/2, where A(j|l) is the AUC
    of class j against class l using the scores pᵢⱼ, on the samples of classes j and l only;
    ``average="weighted"`` weighs each pair by its prevalence, as scikit-learn. ``ovo`` does not
    take sample weights (as scikit-learn). A class with no sample is an error.
    """
    if multi_class not in ("ovr", "ovo"):
        raise UsageError(f"multi_class must be 'ovr' or 'ovo', found {multi_class!r}")
    if average not in ("macro", "weighted"):
        raise UsageError(f"average must be 'macro' or 'weighted', found {average!r}")
    onehot, prob, weights, classes = _multiclass(y_true, y_prob, labels, sample_weight)
    support = onehot.sum(axis=0)
    if (support == 0).any():
        missing = [c for c, s in zip(classes, support) if s == 0]
        raise InputError(f"ROC AUC is undefined for classes with no sample in y_true: {missing!r}", field="y_true")
    k = len(classes)
    if multi_class == "ovr":
        aucs = np.array([_binary_auc(onehot[:, j] > 0, prob[:, j], weights) for j in range(k)])
        if average == "macro":
            return float(aucs.mean())
        w = support if weights is None else weights @ onehot
        return float(np.average(aucs, weights=w))
    if weights is not None:
        raise UsageError("sample_weight is not supported with multi_class='ovo'")
    codes = onehot.argmax(axis=1)
    pair_scores, pair_weights = [], []
    for j in range(k):  # loops over pairs of classes, not samples
        for l in range(j + 1, k):
            mask = (codes == j) | (codes == l)
            a_jl = _binary_auc(codes[mask] == j, prob[mask, j], None)
            a_lj = _binary_auc(codes[mask] == l, prob[mask, l], None)
            pair_scores.append((a_jl + a_lj) / 2)
            pair_weights.append(mask.mean())
    return float(np.average(pair_scores, weights=None if average == "macro" else pair_weights))


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
    w = np.ones_like(truth) if weights is None else normalize_weights(weights)[0]
    residual = np.dot(w, (truth - pred) ** 2)
    mean = np.average(truth, weights=w) if w.sum() else 0.0
    total = np.dot(w, (truth - mean) ** 2)
    if total == 0:
        return 1.0 if residual == 0 else 0.0
    return float(1.0 - residual / total)
