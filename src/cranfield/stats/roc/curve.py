r"""The empirical ROC curve as R's pROC defines it, and the sufficient statistic every ROC
statistic of :mod:`cranfield.stats.roc` starts from (labels and scores checked once, the number of
negatives and positives at each distinct score).

The empirical ROC curve of scores where higher means positive ("controls < cases", pROC's
``direction = "<"``) has one point per distinct score plus (specificity 0, sensitivity 1):
:math:`Sp_k = \#\{neg \le u_k\}/N`, :math:`Se_k = \#\{pos > u_k\}/P` for the distinct scores
:math:`u_1 < \dots < u_K`. Listed by increasing specificity it is a path; between two points it is
linear. A sensitivity asked at a specificity on the path's vertical segment is the highest one
(the curve's best), elsewhere the path's linear interpolation (pROC's ``coords``).

Reference: Robin et al. (2011), *pROC: an open-source package for R and S+ to analyze and compare
ROC curves*, BMC Bioinformatics 12:77.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import InputError

__all__ = ["ROCPoints", "roc_points", "sensitivity_at", "specificity_at", "check_labels"]


@dataclass(frozen=True)
class ROCPoints:
    """The empirical ROC curve as a path of increasing specificity (see the module docstring)."""

    specificity: np.ndarray
    sensitivity: np.ndarray
    thresholds: np.ndarray  # the distinct scores; point k + 1 lies between thresholds[k] and [k + 1]


def check_labels(y_true) -> np.ndarray:
    """``y_true`` as a boolean array: 1-D, binary (0/1 or True/False), with both classes present;
    an :class:`InputError` naming ``y_true`` otherwise. Every ROC statistic checks its labels here."""
    y = np.asarray(y_true)
    if y.ndim != 1:
        raise InputError(f"expected a 1-D array of 0/1 labels, found {y.ndim} dimensions", field="y_true")
    if y.dtype != bool:
        try:
            bad = ~np.isin(y, (0, 1))
        except TypeError:
            raise InputError("expected binary labels 0/1 or True/False", field="y_true") from None
        if bad.any():
            raise InputError(f"expected binary labels 0/1 or True/False, found {y[bad][0]!r}", field="y_true")
    y = y.astype(bool)
    positives = int(y.sum())
    if positives < 1 or positives == y.size:
        raise InputError(f"expected both positive and negative examples: at least one positive and one negative, "
                         f"found {positives} positive(s) among {y.size} (ROC AUC is undefined with one class)",
                         field="y_true")
    return y


def _labels_scores(y_true, y_score, *, name: str = "y_score") -> tuple[np.ndarray, np.ndarray]:
    y = np.asarray(y_true)
    s = np.asarray(y_score)
    if y.ndim != 1 or s.ndim != 1 or y.shape != s.shape:
        raise InputError(f"expected y_true and {name} of the same 1-D shape, found {y.shape} and {s.shape}",
                         field=name)
    y = check_labels(y)
    try:
        s = s.astype(np.float64)
    except (TypeError, ValueError):
        raise InputError(f"expected numeric scores, found {s.dtype}", field=name) from None
    if not np.isfinite(s).all():
        raise InputError("expected finite scores, found NaN or infinity", field=name)
    return y, s


def _curve_counts(y: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct scores and the number of negatives / positives at each."""
    values, inverse = np.unique(s, return_inverse=True)
    negatives = np.bincount(inverse[~y], minlength=values.size)
    positives = np.bincount(inverse[y], minlength=values.size)
    return values, negatives, positives


def _empirical_auc(y: np.ndarray, s: np.ndarray) -> float:
    """The AUC of checked labels and scores: P(pos > neg) + P(pos = neg)/2."""
    _, negatives, positives = _curve_counts(y, s)
    return float(_auc_of_counts(negatives[None, :], positives[None, :])[0])


def roc_points(y_true, y_score) -> ROCPoints:
    """The empirical ROC curve: specificity ascending along the path, sensitivity descending."""
    y, s = _labels_scores(y_true, y_score)
    values, negatives, positives = _curve_counts(y, s)
    n_neg, n_pos = negatives.sum(), positives.sum()
    specificity = np.concatenate(([0.0], np.cumsum(negatives) / n_neg))
    sensitivity = np.concatenate(([1.0], (n_pos - np.cumsum(positives)) / n_pos))
    return ROCPoints(specificity, sensitivity, values)


def _at(x: np.ndarray, y: np.ndarray, query: np.ndarray) -> np.ndarray:
    """y of the path (x ascending; y descending, its highest first where x repeats) at ``query``:
    the highest y where x equals the query, else the linear interpolation of the path."""
    j = np.searchsorted(x, query, side="left")
    j = np.minimum(j, x.size - 1)
    exact = x[j] == query
    i = np.maximum(j - 1, 0)
    span = x[j] - x[i]
    with np.errstate(invalid="ignore", divide="ignore"):
        interpolated = y[i] + (query - x[i]) / np.where(span > 0, span, 1.0) * (y[j] - y[i])
    return np.where(exact, y[j], interpolated)


def _unit_values(values, name: str) -> tuple[np.ndarray, bool]:
    array = np.asarray(values, dtype=np.float64)
    scalar = array.ndim == 0
    array = np.atleast_1d(array)
    if array.ndim != 1 or not np.all((array >= 0) & (array <= 1)):
        raise InputError(f"expected {name} between 0 and 1, found {values!r}", field=name)
    return array, scalar


def sensitivity_at(y_true, y_score, specificity):
    """Sensitivity of the ROC curve at the given specificity (or specificities), as pROC's
    ``coords(roc, x, input = "specificity", ret = "sensitivity")``."""
    points = roc_points(y_true, y_score)
    query, scalar = _unit_values(specificity, "specificity")
    result = _at(points.specificity, points.sensitivity, query)
    return float(result[0]) if scalar else result


def specificity_at(y_true, y_score, sensitivity):
    """Specificity of the ROC curve at the given sensitivity (or sensitivities), as pROC's
    ``coords(roc, x, input = "sensitivity", ret = "specificity")``."""
    points = roc_points(y_true, y_score)
    query, scalar = _unit_values(sensitivity, "sensitivity")
    result = _at(points.sensitivity[::-1], points.specificity[::-1], query)
    return float(result[0]) if scalar else result



def _auc_of_counts(negatives: np.ndarray, positives: np.ndarray) -> np.ndarray:
    """AUC per row: P(pos > neg) + P(pos = neg)/2 from counts per distinct score."""
    below = np.cumsum(negatives, axis=1) - negatives
    pairs = positives.sum(axis=1) * negatives.sum(axis=1)
    return (positives * (below + 0.5 * negatives)).sum(axis=1) / pairs


