"""Multilabel predictions: each sample has a set of labels, given as an n×C indicator matrix of
0/1 (``y_true`` and ``y_pred`` of the same shape; column c is label c).

- :func:`multilabel_confusion_matrix`: one 2×2 matrix ``[[TN, FP], [FN, TP]]`` per label (or per
  sample, ``samplewise=True``), as scikit-learn's function of that name; also for one label per
  sample (each class against the rest).
- :func:`hamming_loss`: the fraction of (sample, label) cells predicted wrongly.
- :func:`subset_accuracy`: the fraction of samples whose whole label set is right (exact match).
- The rates of :mod:`.rates` (precision, recall, F-β, Jaccard, …) on multilabel input go through
  :func:`multilabel_rate`, with ``average`` None (per label), "micro", "macro", "weighted" (by
  support) or "samples" (the rate of each sample's row, averaged over samples); the functions of
  :mod:`.measures` call it when they are given indicator matrices.

Reference: Tsoumakas, Katakis & Vlahavas (2010), "Mining multi-label data"; scikit-learn's user
guide, "Multilabel ranking metrics" and "Classification metrics".
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Hashable, Sequence

import numpy as np

from ..errors import InputError, UsageError
from ._validation import (_indicator, _is_matrix, as_matrix, check_flag, check_lengths, check_weights, encode_labels,
                          normalize_weights, warn_undefined)
from .confusion import ConfusionMatrix, rate_of_labels
from .rates import counts_from_matrix, get_rate, rate_from_counts

__all__ = ["multilabel_confusion_matrix", "hamming_loss", "subset_accuracy", "multilabel_rate"]


def is_multilabel(y_true: Any, y_pred: Any = None) -> bool:
    """Whether the input is an indicator matrix (two-dimensional with more than one column)."""
    return _is_matrix(y_true) or (y_pred is not None and _is_matrix(y_pred))


def _indicators(y_true: Any, y_pred: Any) -> tuple[np.ndarray, np.ndarray]:
    truth = as_matrix(y_true, "y_true")
    pred = as_matrix(y_pred, "y_pred")
    if truth.shape != pred.shape:
        raise InputError(f"y_true has shape {truth.shape} but y_pred has shape {pred.shape}; a multilabel "
                         "prediction has one 0/1 column per label, as y_true", field="y_pred")
    try:
        pred = _indicator(pred, truth.shape)
    except InputError as error:
        raise InputError(error.message.replace("multilabel y_true", "multilabel y_pred"), field="y_pred") from None
    return _indicator(truth, truth.shape), pred


def _columns(labels: Sequence[Hashable] | None, k: int) -> np.ndarray:
    if labels is None:
        return np.arange(k)
    index = list(labels)
    bad = [c for c in index if isinstance(c, bool) or not isinstance(c, (int, np.integer)) or not 0 <= c < k]
    if bad:
        raise UsageError(f"labels= selects columns of a multilabel input by index in [0, {k}); found {bad[0]!r}")
    if len(set(index)) != len(index):
        raise UsageError(f"labels contains duplicates: {index!r}")
    return np.asarray(index, dtype=np.intp)


def _multiclass_counts(y_true: Any, y_pred: Any, labels: Sequence[Hashable] | None, sample_weight: Any
                       ) -> SimpleNamespace:
    """One-vs-rest counts of one label per sample, for the classes of ``labels`` (a subset, or
    classes that never occur), in that order."""
    found, _ = encode_labels((y_true, "y_true"), (y_pred, "y_pred"))
    order = found if labels is None else list(labels) + [c for c in found if c not in set(labels)]
    cm = ConfusionMatrix.from_labels(y_true, y_pred, labels=order, sample_weight=sample_weight)
    counts = counts_from_matrix(cm.matrix)
    keep = np.arange(len(found) if labels is None else len(labels))
    return SimpleNamespace(**{k: v[keep] for k, v in vars(counts).items()})


def _counts(truth: np.ndarray, pred: np.ndarray, weights: np.ndarray | None, axis: int) -> SimpleNamespace:
    cells = {"tp": truth & pred, "fp": ~truth & pred, "fn": truth & ~pred, "tn": ~truth & ~pred}
    if weights is None or axis == 1:
        return SimpleNamespace(**{k: np.count_nonzero(v, axis=axis).astype(np.float64) for k, v in cells.items()})
    return SimpleNamespace(**{k: weights @ v for k, v in cells.items()})


def multilabel_confusion_matrix(y_true: Any, y_pred: Any, *, sample_weight: Any = None,
                                labels: Sequence[Hashable] | None = None, samplewise: bool = False) -> np.ndarray:
    """An array of 2×2 matrices ``[[TN, FP], [FN, TP]]``: one per label (in ``labels`` order), or
    per sample with ``samplewise=True`` (multilabel input only; sample weights then scale each
    sample's counts, as scikit-learn). For multilabel input ``labels`` are column indices; for one
    label per sample they are classes (a class that never occurs gets zeros). Integer counts
    without weights."""
    samplewise = check_flag(samplewise, "samplewise")
    weights = None
    if is_multilabel(y_true, y_pred):
        truth, pred = _indicators(y_true, y_pred)
        weights = check_weights(sample_weight, len(truth))
        columns = _columns(labels, truth.shape[1])
        truth, pred = truth[:, columns], pred[:, columns]
        if samplewise:
            counts = _counts(truth, pred, None, axis=1)
            if weights is not None:
                counts = SimpleNamespace(**{k: v * weights for k, v in vars(counts).items()})
        else:
            counts = _counts(truth, pred, weights, axis=0)
    else:
        if samplewise:
            raise UsageError("samplewise=True needs multilabel input (indicator matrices)")
        counts = _multiclass_counts(y_true, y_pred, labels, sample_weight)
        weights = sample_weight
    out = np.stack([np.stack([counts.tn, counts.fp], axis=-1), np.stack([counts.fn, counts.tp], axis=-1)], axis=-2)
    return out if weights is not None else out.astype(np.int64)


def hamming_loss(y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> float:
    """Fraction of wrong (sample, label) cells: Σᵢ wᵢ |yᵢ Δ ŷᵢ| / (C Σᵢ wᵢ) for multilabel input;
    for one label per sample, the error rate 1 − accuracy. Equals scikit-learn's ``hamming_loss``."""
    if is_multilabel(y_true, y_pred):
        truth, pred = _indicators(y_true, y_pred)
        if truth.size == 0:
            raise InputError("no samples", field="y_true")
        weights = check_weights(sample_weight, len(truth))
        wrong = np.count_nonzero(truth != pred, axis=1).astype(np.float64)
        if weights is None:
            return float(wrong.sum() / truth.size)
        return float(np.average(wrong, weights=weights) / truth.shape[1])
    return float(rate_of_labels(get_rate("error_rate"), y_true, y_pred, sample_weight=sample_weight))


def subset_accuracy(y_true: Any, y_pred: Any, *, normalize: bool = True, sample_weight: Any = None) -> float:
    """Fraction (``normalize=False``: weighted number) of samples whose predicted label set equals
    the true one (exact match); for one label per sample, the accuracy. Equals scikit-learn's
    ``accuracy_score`` on the same input."""
    normalize = check_flag(normalize, "normalize")
    if is_multilabel(y_true, y_pred):
        truth, pred = _indicators(y_true, y_pred)
        exact = (truth == pred).all(axis=1)
    else:
        _, (t, p) = encode_labels((y_true, "y_true"), (y_pred, "y_pred"))
        check_lengths(y_true=t, y_pred=p)
        exact = t == p
    if len(exact) == 0:
        raise InputError("no samples", field="y_true")
    weights = check_weights(sample_weight, len(exact))
    if weights is None:
        return float(exact.mean()) if normalize else float(exact.sum())
    return float(np.average(exact, weights=weights)) if normalize else float(np.dot(exact, weights))


def multilabel_rate(name: str, y_true: Any, y_pred: Any, *, average: str | None = "macro",
                    labels: Sequence[Hashable] | None = None, sample_weight: Any = None, zero_division="warn",
                    **params) -> float | np.ndarray:
    """The rate ``name`` of :mod:`.rates` on multilabel input (see the module docstring for
    ``average``; ``labels``: column indices). Accuracy is the subset accuracy; the other
    whole-matrix rates (MCC, kappa, balanced accuracy) are not defined for label sets."""
    rate = get_rate(name)
    if rate.name == "accuracy":
        return subset_accuracy(y_true, y_pred, sample_weight=sample_weight)
    if rate.scope != "counts":
        raise UsageError(f"{rate.name} is defined for one label per sample, not for multilabel indicator input")
    if average == "binary":
        raise UsageError("multilabel input has no single positive class: choose average=None, 'micro', 'macro', "
                         "'weighted' or 'samples'")
    truth, pred = _indicators(y_true, y_pred)
    if truth.size == 0:
        raise InputError("no samples", field="y_true")
    weights = check_weights(sample_weight, len(truth))
    if weights is not None and not rate.count:  # ratios: an exact power-of-two rescaling, sums cannot overflow
        weights = normalize_weights(weights)[0]
    columns = _columns(labels, truth.shape[1])
    truth, pred = truth[:, columns], pred[:, columns]
    if average == "samples":
        values, undefined = rate_from_counts(rate, _counts(truth, pred, None, axis=1), average=None,
                                             zero_division=zero_division, **params)
        value = float(np.average(values, weights=weights))
    else:
        value, undefined = rate_from_counts(rate, _counts(truth, pred, weights, axis=0), average=average,
                                            zero_division=zero_division, **params)
    if undefined and zero_division == "warn":
        warn_undefined(f"{rate.name} is undefined (0/0) for some labels or samples; set to {rate.undefined}. "
                       "Pass zero_division= to choose the value and silence this warning.")
    return value
