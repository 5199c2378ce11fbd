r"""ROC statistics as R's pROC defines them: partial AUC with McClish's correction, bootstrap
intervals of the AUC and of sensitivity at a specificity (and the reverse), the unpaired DeLong
test, bootstrap and Venkatraman tests of two ROC curves, and the power of an AUC test.

The empirical ROC curve of scores where higher means positive ("controls < cases", pROC's
``direction = "<"``) has one point per distinct score plus (specificity 0, sensitivity 1):
:math:`Sp_k = \#\{neg \le u_k\}/N`, :math:`Se_k = \#\{pos > u_k\}/P` for the distinct scores
:math:`u_1 < \dots < u_K`. Listed by increasing specificity it is a path; between two points it is
linear. A sensitivity asked at a specificity on the path's vertical segment is the highest one
(the curve's best), elsewhere the path's linear interpolation (pROC's ``coords``).

References: Robin et al. (2011), *pROC: an open-source package for R and S+ to analyze and compare
ROC curves*, BMC Bioinformatics 12:77; McClish (1989), *Analyzing a portion of the ROC curve*,
Med Decis Making 9:190; DeLong, DeLong & Clarke-Pearson (1988), Biometrics 44:837; Venkatraman &
Begg (1996), Biometrika 83:835; Venkatraman (2000), Biometrics 56:1134; Obuchowski, Lieber &
Wians (2004), Clin Chem 50:1118 (power of an AUC test); Carpenter & Bithell (2000) (bootstrap).
Monte Carlo methods use numpy's generator (``random_state``): their values agree with pROC's only
up to the Monte Carlo error, never bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._params import check_count, check_fraction
from ..errors import InputError, UsageError
from ._resample import MAX_RESAMPLES

__all__ = ["ROCPoints", "roc_points", "partial_auc", "sensitivity_at", "specificity_at", "auc_bootstrap_ci",
           "sensitivity_ci", "specificity_ci", "BootstrapInterval"]


# ----------------------------------------------------------------------------- the curve
@dataclass(frozen=True)
class ROCPoints:
    """The empirical ROC curve as a path of increasing specificity (see the module docstring)."""

    specificity: np.ndarray
    sensitivity: np.ndarray
    thresholds: np.ndarray  # the distinct scores; point k + 1 lies between thresholds[k] and [k + 1]


def _labels_scores(y_true, y_score, *, name: str = "y_score") -> tuple[np.ndarray, np.ndarray]:
    y = np.asarray(y_true)
    s = np.asarray(y_score)
    if y.ndim != 1 or s.ndim != 1 or y.shape != s.shape:
        raise InputError(f"expected y_true and {name} of the same 1-D shape, found {y.shape} and {s.shape}",
                         field=name)
    if y.dtype != bool:
        try:
            bad = ~np.isin(y, (0, 1))
        except TypeError:
            raise InputError("expected binary labels 0/1 or True/False", field="y_true") from None
        if bad.any():
            raise InputError(f"expected binary labels 0/1 or True/False, found {y[bad][0]!r}", field="y_true")
    try:
        s = s.astype(np.float64)
    except (TypeError, ValueError):
        raise InputError(f"expected numeric scores, found {s.dtype}", field=name) from None
    if not np.isfinite(s).all():
        raise InputError("expected finite scores, found NaN or infinity", field=name)
    y = y.astype(bool)
    positives = int(y.sum())
    if positives < 1 or positives == y.size:
        raise InputError(f"expected at least one positive and one negative example, found {positives} positive(s) "
                         f"among {y.size}", field="y_true")
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


# ----------------------------------------------------------------------------- partial AUC
def _path_area(x: np.ndarray, y: np.ndarray, low: float, high: float) -> float:
    """Area under the path (x ascending) between x = low and x = high (trapezoids, the path's
    values interpolated at the bounds; vertical segments add nothing)."""
    x0, x1, y0, y1 = x[:-1], x[1:], y[:-1], y[1:]
    a = np.clip(x0, low, high)
    b = np.clip(x1, low, high)
    width = x1 - x0
    keep = (b > a) & (width > 0)
    x0, x1, y0, y1, a, b, width = (v[keep] for v in (x0, x1, y0, y1, a, b, width))
    ya = y0 + (a - x0) / width * (y1 - y0)
    yb = y0 + (b - x0) / width * (y1 - y0)
    return float(np.sum((b - a) * (ya + yb) / 2))


def partial_auc(y_true, y_score, *, bounds: tuple[float, float] = (1.0, 0.8), focus: str = "specificity",
                correct: bool = False, allow_invalid_correction: bool = False) -> float:
    r"""Area under the ROC curve over a range of specificity (``focus="specificity"``, the area
    under sensitivity between the two specificities) or of sensitivity (``focus="sensitivity"``),
    as pROC's ``auc(roc, partial.auc = bounds, partial.auc.focus = focus)``.

    ``correct=True`` applies McClish's (1989) standardisation, :math:`\frac{1}{2}\left(1 +
    \frac{A - A_{min}}{A_{max} - A_{min}}\right)` with :math:`A_{max} = h - l` (the whole band)
    and :math:`A_{min} = (h - l)(2 - h - l)/2` (the diagonal's area in it): 0.5 for a useless
    test, 1 for a perfect one. It is undefined for a curve below the diagonal in the band (an
    error, as pROC's NA, unless ``allow_invalid_correction``).

    >>> partial_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], bounds=(1, 0.5))
    0.25
    """
    if focus not in ("specificity", "sensitivity"):
        raise UsageError(f"focus: expected 'specificity' or 'sensitivity', found {focus!r}")
    try:
        high, low = sorted((float(bounds[0]), float(bounds[1])), reverse=True)
        if len(bounds) != 2:
            raise ValueError
    except (TypeError, ValueError, IndexError):
        raise UsageError(f"bounds: expected two numbers between 0 and 1, found {bounds!r}") from None
    if not (0 <= low < high <= 1):
        raise UsageError(f"bounds: expected two different numbers between 0 and 1, found {bounds!r}")
    points = roc_points(y_true, y_score)
    if focus == "specificity":
        area = _path_area(points.specificity, points.sensitivity, low, high)
    else:
        area = _path_area(points.sensitivity[::-1], points.specificity[::-1], low, high)
    if not correct:
        return area
    smallest = (2 - high - low) * (high - low) / 2
    largest = high - low
    if area < smallest and not allow_invalid_correction:
        raise InputError(f"McClish's correction is not defined for a curve below the diagonal: partial AUC {area!r} "
                         f"< {smallest!r}, the diagonal's area between {focus} {low} and {high}", field="y_score")
    return (1 + (area - smallest) / (largest - smallest)) / 2


# ----------------------------------------------------------------------------- bootstrap
def _generator(random_state) -> np.random.Generator:
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is not None and not isinstance(random_state, (int, np.integer)):
        raise UsageError(f"random_state: expected None, an integer or a numpy Generator, found {random_state!r}")
    return np.random.default_rng(random_state)


def _check_resamples(n_resamples) -> int:
    return check_count(n_resamples, "n_resamples", 2, MAX_RESAMPLES)


def _check_confidence(confidence) -> float:
    return check_fraction(confidence, "confidence")


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
    n_resamples = _check_resamples(n_resamples)
    rng = _generator(random_state)
    values, inverse = np.unique(s, return_inverse=True)
    chunk = max(1, min(n_resamples, 4_000_000 // max(values.size, y.size)))
    out = []
    for start in range(0, n_resamples, chunk):
        rows = min(chunk, n_resamples - start)
        out.append(statistic(*_resampled_counts(rng, y, inverse, values.size, rows, stratified)))
    return np.concatenate(out, axis=0)


def _auc_of_counts(negatives: np.ndarray, positives: np.ndarray) -> np.ndarray:
    """AUC per row: P(pos > neg) + P(pos = neg)/2 from counts per distinct score."""
    below = np.cumsum(negatives, axis=1) - negatives
    pairs = positives.sum(axis=1) * negatives.sum(axis=1)
    return (positives * (below + 0.5 * negatives)).sum(axis=1) / pairs


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
    confidence = _check_confidence(confidence)
    aucs = _bootstrap(y_true, y_score, n_resamples, bool(stratified), random_state, _auc_of_counts)
    low, median, high = _percentiles(aucs, confidence)
    estimate = _empirical_auc(*_labels_scores(y_true, y_score))
    seed = random_state if isinstance(random_state, (int, np.integer)) else None
    return BootstrapInterval(estimate, float(low), float(high), float(median), confidence, int(n_resamples),
                             bool(stratified), seed)


def _coordinate_ci(y_true, y_score, given, name: str, confidence, n_resamples, stratified, random_state,
                   sensitivity_given: bool) -> BootstrapInterval:
    confidence = _check_confidence(confidence)
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
