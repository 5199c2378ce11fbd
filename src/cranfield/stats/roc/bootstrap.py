r"""Bootstrap statistics of ROC curves as R's pROC: percentile intervals of the AUC and of the
sensitivity at a specificity (and the reverse), and the resampled AUCs that the bootstrap test
and power analysis of two curves use.

Resamples are drawn as count matrices (one row per resample, the number of negatives and positives
drawn at each distinct score), a chunk of rows at a time, so that a statistic over all resamples is
a few array operations, never a Python loop per resample. Stratified (pROC's default): as many
negatives and positives as the data.

References: Carpenter & Bithell (2000), *Bootstrap confidence intervals: when, which, what?*,
Stat Med 19:1141; Robin et al. (2011). Monte Carlo methods use numpy's generator
(``random_state``): their values agree with pROC's only up to the Monte Carlo error, never bit for
bit.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._interval import check_confidence
from .._resample import MAX_RESAMPLES, as_generator, check_count
from .curve import (
    _at,
    _auc_of_counts,
    _empirical_auc,
    _labels_scores,
    _unit_values,
    roc_points,
)

__all__ = ["BootstrapInterval", "auc_bootstrap_ci", "sensitivity_ci", "specificity_ci"]


def check_resamples(n_resamples) -> int:
    """``n_resamples`` as an int from 2 to :data:`~cranfield.stats._resample.MAX_RESAMPLES`."""
    return check_count(n_resamples, "n_resamples", 2, MAX_RESAMPLES)


def _resampled_counts(rng, y: np.ndarray, inverse: np.ndarray, n_values: int, rows: int, stratified: bool):
    """Per resample (rows), the number of negatives and of positives drawn at each distinct score.
    Stratified: as many negatives and positives as the data (pROC's default); otherwise n draws
    from all examples (a resample with one class only is drawn again)."""
    neg_index, pos_index = inverse[~y], inverse[y]
    if stratified:
        neg = rng.integers(0, neg_index.size, size=(rows, neg_index.size))
        pos = rng.integers(0, pos_index.size, size=(rows, pos_index.size))
        neg_values, pos_values = neg_index[neg], pos_index[pos]
        offsets = (np.arange(rows) * n_values)[:, None]
        negatives = np.bincount((neg_values + offsets).ravel(), minlength=rows * n_values).reshape(rows, n_values)
        positives = np.bincount((pos_values + offsets).ravel(), minlength=rows * n_values).reshape(rows, n_values)
        return negatives, positives
    draws = rng.integers(0, y.size, size=(rows, y.size))
    labels = y[draws]
    bad = labels.all(axis=1) | ~labels.any(axis=1)
    while bad.any():  # redraw the (rare) one-class resamples
        draws[bad] = rng.integers(0, y.size, size=(int(bad.sum()), y.size))
        labels = y[draws]
        bad = labels.all(axis=1) | ~labels.any(axis=1)
    values = inverse[draws] + (np.arange(rows) * n_values)[:, None]
    negatives = np.bincount(values[~labels], minlength=rows * n_values).reshape(rows, n_values)
    positives = np.bincount(values[labels], minlength=rows * n_values).reshape(rows, n_values)
    return negatives, positives


def _bootstrap(y_true, y_score, n_resamples, stratified, random_state, statistic) -> np.ndarray:
    """``statistic(negatives, positives)`` (count matrices, one row per resample) over resamples,
    in chunks of bounded memory."""
    y, s = _labels_scores(y_true, y_score)
    n_resamples = check_resamples(n_resamples)
    rng = as_generator(random_state)
    values, inverse = np.unique(s, return_inverse=True)
    chunk = max(1, min(n_resamples, 4_000_000 // max(values.size, y.size)))
    out = []
    for start in range(0, n_resamples, chunk):
        rows = min(chunk, n_resamples - start)
        out.append(statistic(*_resampled_counts(rng, y, inverse, values.size, rows, stratified)))
    return np.concatenate(out, axis=0)



def _curves_of_counts(negatives: np.ndarray, positives: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Specificity and sensitivity paths per row (with the (0, 1) point first)."""
    n_neg = negatives.sum(axis=1, keepdims=True)
    n_pos = positives.sum(axis=1, keepdims=True)
    ones = np.ones((negatives.shape[0], 1))
    specificity = np.concatenate([0 * ones, np.cumsum(negatives, axis=1) / n_neg], axis=1)
    sensitivity = np.concatenate([ones, (n_pos - np.cumsum(positives, axis=1)) / n_pos], axis=1)
    return specificity, sensitivity


def _rows_at(x: np.ndarray, y: np.ndarray, query: np.ndarray) -> np.ndarray:
    """:func:`_at` on every row of x, y (each row a path with x in [0, 1]) at each query value:
    one searchsorted over the rows laid end to end (row r shifted by 2r)."""
    rows, width = x.shape
    shift = 2.0 * np.arange(rows)[:, None]
    flat_x = (x + shift).ravel()
    flat_y = y.ravel()
    targets = (query[None, :] + shift).ravel()
    j = np.searchsorted(flat_x, targets, side="left")
    base = np.repeat(np.arange(rows) * width, query.size)
    j = np.minimum(j, base + width - 1)
    exact = flat_x[j] == targets
    i = np.maximum(j - 1, base)
    span = x.ravel()[j] - x.ravel()[i]
    with np.errstate(invalid="ignore", divide="ignore"):
        interpolated = flat_y[i] + (np.tile(query, rows) - x.ravel()[i]) / np.where(span > 0, span, 1.0) * \
            (flat_y[j] - flat_y[i])
    return np.where(exact, flat_y[j], interpolated).reshape(rows, query.size)


@dataclass(frozen=True)
class BootstrapInterval:
    """A percentile bootstrap interval (quantiles as R's type 7) with its settings: ``estimate``
    is the statistic on the data, ``median`` the resamples' median (the middle value pROC prints)."""

    estimate: "float | np.ndarray"
    low: "float | np.ndarray"
    high: "float | np.ndarray"
    median: "float | np.ndarray"
    confidence: float
    n_resamples: int
    stratified: bool
    seed: "int | None"
    method: str = "bootstrap percentile"
    at: "np.ndarray | None" = field(default=None)


def _percentiles(samples: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    alpha = (1 - confidence) / 2
    low, median, high = np.quantile(samples, [alpha, 0.5, 1 - alpha], axis=0)
    return low, median, high


def auc_bootstrap_ci(y_true, y_score, *, confidence: float = 0.95, n_resamples: int = 2000,
                     stratified: bool = True, random_state=None) -> BootstrapInterval:
    """Percentile bootstrap interval of the ROC AUC, as pROC's ``ci.auc(method = "bootstrap")``
    (stratified by default: negatives and positives resampled separately)."""
    confidence = check_confidence(confidence)
    aucs = _bootstrap(y_true, y_score, n_resamples, bool(stratified), random_state, _auc_of_counts)
    low, median, high = _percentiles(aucs, confidence)
    estimate = _empirical_auc(*_labels_scores(y_true, y_score))
    seed = random_state if isinstance(random_state, (int, np.integer)) else None
    return BootstrapInterval(estimate, float(low), float(high), float(median), confidence, int(n_resamples),
                             bool(stratified), seed)


def _coordinate_ci(y_true, y_score, given, name: str, confidence, n_resamples, stratified, random_state,
                   sensitivity_given: bool) -> BootstrapInterval:
    confidence = check_confidence(confidence)
    query, _ = _unit_values(given, name)

    def statistic(negatives, positives):
        specificity, sensitivity = _curves_of_counts(negatives, positives)
        if sensitivity_given:
            return _rows_at(sensitivity[:, ::-1], specificity[:, ::-1], query)
        return _rows_at(specificity, sensitivity, query)

    samples = _bootstrap(y_true, y_score, n_resamples, bool(stratified), random_state, statistic)
    low, median, high = _percentiles(samples, confidence)
    points = roc_points(y_true, y_score)
    if sensitivity_given:
        estimate = _at(points.sensitivity[::-1], points.specificity[::-1], query)
    else:
        estimate = _at(points.specificity, points.sensitivity, query)
    seed = random_state if isinstance(random_state, (int, np.integer)) else None
    return BootstrapInterval(estimate, low, high, median, confidence, int(n_resamples), bool(stratified), seed,
                             at=query)


def sensitivity_ci(y_true, y_score, specificities, *, confidence: float = 0.95, n_resamples: int = 2000,
                   stratified: bool = True, random_state=None) -> BootstrapInterval:
    """Bootstrap intervals of the sensitivity at each given specificity (a band around the ROC
    curve), as pROC's ``ci.se``: percentiles of the resampled curves' sensitivity (pROC prints
    the resamples' ``median`` between the bounds; ``estimate`` is the data's own)."""
    return _coordinate_ci(y_true, y_score, specificities, "specificities", confidence, n_resamples, stratified,
                          random_state, sensitivity_given=False)


def specificity_ci(y_true, y_score, sensitivities, *, confidence: float = 0.95, n_resamples: int = 2000,
                   stratified: bool = True, random_state=None) -> BootstrapInterval:
    """Bootstrap intervals of the specificity at each given sensitivity, as pROC's ``ci.sp``."""
    return _coordinate_ci(y_true, y_score, sensitivities, "sensitivities", confidence, n_resamples, stratified,
                          random_state, sensitivity_given=True)


def paired_bootstrap_aucs(y, sa, sb, n_resamples, stratified, rng) -> np.ndarray:
    """(AUC a, AUC b) per resample of the examples, each carrying both scores (rows: resamples)."""
    order = np.arange(y.size, dtype=np.float64)  # the example index as the "score": one count per example
    distinct = [np.unique(scores, return_inverse=True) for scores in (sa, sb)]  # once, for every chunk

    def both(negatives, positives):  # counts per example index
        rows = negatives.shape[0]
        out = np.empty((rows, 2))
        for column, (values, inverse) in enumerate(distinct):
            offsets = (np.arange(rows) * values.size)[:, None]
            index = (inverse[None, :] + offsets).ravel()
            neg = np.bincount(index, weights=negatives.ravel(), minlength=rows * values.size)
            pos = np.bincount(index, weights=positives.ravel(), minlength=rows * values.size)
            out[:, column] = _auc_of_counts(neg.reshape(rows, -1), pos.reshape(rows, -1))
        return out

    return _bootstrap(y, order, n_resamples, stratified, rng, both)
