"""Calibration of predicted probabilities: reliability diagrams, ECE / MCE / adaptive ECE, the
Brier score's decomposition, calibration slope and intercept, bootstrap intervals.

Inputs: binary ``y_true`` (two classes; ``pos_label`` as everywhere) with ``y_prob`` the
probability of the positive class, or multiclass ``y_true`` with an n × k ``y_prob`` (columns in
the order of the sorted classes or of ``labels``), read **top-label** (confidence = the largest
probability, correct = its class is the true one; ties go to the first column) or **class-wise**
(each column against the rest, averaged over classes: Nixon et al. 2019's SCE).

**Bins** (``strategy``): ``"uniform"``: edges ``numpy.linspace(0, 1, n_bins + 1)``;
``"quantile"``: edges ``numpy.percentile(y_prob, linspace(0, 100, n_bins + 1))`` (linear
interpolation; equal edges leave empty bins); ``"unique"``: one bin per distinct probability.
A probability p goes to bin b when e_b < p ≤ e_{b+1} (the first bin also holds e_0): the left
search of p among the inner edges, as scikit-learn's ``calibration_curve``, which
:func:`calibration_curve` equals (``==``). Empty bins take no part in any average.
**Adaptive** (equal-mass) bins: the samples sorted by probability (stable) are split into
``n_bins`` runs of ⌊n/B⌋ or ⌈n/B⌉ samples (``numpy.array_split``), so ties may straddle two bins.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, Sequence

import numpy as np

from .._params import Count, Interval, Optional, check_choice, check_count, check_fraction, check_interval
from ..errors import InputError, UsageError
from . import _bootstrap_kernels as _kernels
from ._validation import binary_truth, check_labels, check_lengths, check_scores, check_weights, encode_labels

__all__ = ["STRATEGIES", "ReliabilityDiagram", "BrierDecomposition", "CalibrationFit", "CalibrationInterval",
           "calibration_curve", "reliability_diagram", "expected_calibration_error", "maximum_calibration_error",
           "adaptive_calibration_error", "brier_decomposition", "calibration_slope", "calibration_bootstrap"]

STRATEGIES = ("uniform", "quantile", "unique")
MULTICLASS = ("top_label", "classwise")


# ------------------------------------------------------------------------------ inputs
def _probabilities(y_prob: Any) -> np.ndarray:
    if hasattr(y_prob, "to_numpy") and not isinstance(y_prob, np.ndarray):
        y_prob = y_prob.to_numpy()
    try:
        array = np.asarray(y_prob) if not isinstance(y_prob, (list, tuple)) or not y_prob \
            or not isinstance(y_prob[0], (list, tuple, np.ndarray)) else np.asarray(y_prob, dtype=np.float64)
    except (ValueError, TypeError):
        raise InputError("expected probabilities: n values, or n rows of k values", field="y_prob") from None
    if array.ndim == 2 and array.shape[1] >= 2:
        prob = check_scores(array.reshape(-1), "y_prob", exact=False).reshape(array.shape)
    else:
        prob = check_scores(y_prob, "y_prob", exact=False)
    bad = (prob < 0) | (prob > 1)
    if bad.any():
        i = int(np.flatnonzero(bad.reshape(-1))[0])
        raise InputError(f"expected probabilities in [0, 1], found {prob.reshape(-1)[i]} at flat index {i}",
                         field="y_prob")
    return prob


def _binary(y_true: Any, y_prob: Any, sample_weight: Any, pos_label: Hashable | None, labels, multiclass: str):
    """[(correct as float 0/1, confidence, weights)]: one pair for binary and top-label, k for
    class-wise."""
    check_choice(multiclass, "multiclass", MULTICLASS)
    prob = _probabilities(y_prob)
    if prob.ndim == 1:
        if labels is not None:
            raise UsageError("labels= is for an n × k y_prob; give pos_label= for binary probabilities")
        truth = binary_truth(y_true, pos_label).astype(np.float64)
        n = check_lengths(y_true=truth, y_prob=prob)
        if n == 0:
            raise InputError("no samples", field="y_true")
        return [(truth, prob, check_weights(sample_weight, n))]
    classes, (codes,) = encode_labels((y_true, "y_true"), labels=labels)
    n = check_lengths(y_true=codes, y_prob=prob)
    if n == 0:
        raise InputError("no samples", field="y_true")
    if prob.shape[1] != len(classes):
        raise InputError(f"y_prob has {prob.shape[1]} columns but there are {len(classes)} classes "
                         f"{classes[:10]!r}; pass labels= to name the columns", field="y_prob")
    weights = check_weights(sample_weight, n)
    if multiclass == "top_label":
        top = np.argmax(prob, axis=1)
        return [((top == codes).astype(np.float64), prob[np.arange(n), top], weights)]
    return [((codes == j).astype(np.float64), prob[:, j], weights) for j in range(len(classes))]


def _check_bins(n_bins: Any, strategy: str) -> int:
    check_choice(strategy, "strategy", STRATEGIES)
    return check_count(n_bins, "n_bins", 1, 10**6)


def _bin_ids(prob: np.ndarray, n_bins: int, strategy: str) -> tuple[np.ndarray, np.ndarray]:
    """(edges, bin of each sample)."""
    if strategy == "unique":
        values, ids = np.unique(prob, return_inverse=True)
        return values, ids.reshape(-1)
    if strategy == "uniform":
        edges = np.linspace(0.0, 1.0, n_bins + 1)
    else:
        edges = np.percentile(prob, np.linspace(0, 1, n_bins + 1) * 100)
    return edges, np.searchsorted(edges[1:-1], prob)


# ------------------------------------------------------------------------------ reliability
@dataclass(frozen=True, eq=False)
class ReliabilityDiagram:
    """Per non-empty bin: ``bin`` (its index), ``weight`` (samples or their weights),
    ``mean_predicted`` (mean confidence) and ``fraction_positive`` (observed frequency, or
    accuracy for top-label); ``edges`` (all bins; for ``"unique"`` the distinct probabilities)
    and ``bin_weight`` (all bins, 0 when empty); the settings that made it."""

    edges: np.ndarray
    bin: np.ndarray
    weight: np.ndarray
    mean_predicted: np.ndarray
    fraction_positive: np.ndarray
    bin_weight: np.ndarray
    n_samples: int
    settings: dict = field(default_factory=dict)

    @property
    def gap(self) -> np.ndarray:
        """|fraction_positive − mean_predicted| per non-empty bin."""
        return np.abs(self.fraction_positive - self.mean_predicted)

    @property
    def ece(self) -> float:
        """Σ_b (w_b / W) |acc_b − conf_b| (Naeini, Cooper & Hauskrecht 2015, AAAI)."""
        return float(np.dot(self.weight, self.gap) / self.weight.sum())

    @property
    def mce(self) -> float:
        """max_b |acc_b − conf_b| over non-empty bins (Naeini et al. 2015)."""
        return float(self.gap.max())

    def to_dict(self) -> dict:
        return {"settings": dict(self.settings), "n_samples": self.n_samples, "ece": self.ece, "mce": self.mce,
                "edges": self.edges.tolist(), "bins": [
                    {"bin": int(b), "weight": float(w), "mean_predicted": float(p), "fraction_positive": float(f)}
                    for b, w, p, f in zip(self.bin, self.weight, self.mean_predicted, self.fraction_positive)]}


def _diagram(truth: np.ndarray, prob: np.ndarray, weights: np.ndarray | None, n_bins: int, strategy: str,
             settings: dict) -> ReliabilityDiagram:
    edges, ids = _bin_ids(prob, n_bins, strategy)
    size = max(len(edges) - 1, int(ids.max()) + 1)
    w = np.ones_like(prob) if weights is None else weights
    total = np.bincount(ids, weights=w, minlength=size)
    sums = np.bincount(ids, weights=prob * w if weights is not None else prob, minlength=size)
    hits = np.bincount(ids, weights=truth * w if weights is not None else truth, minlength=size)
    nonzero = total != 0
    return ReliabilityDiagram(edges=edges, bin=np.flatnonzero(nonzero), weight=total[nonzero],
                              mean_predicted=sums[nonzero] / total[nonzero],
                              fraction_positive=hits[nonzero] / total[nonzero], bin_weight=total,
                              n_samples=len(prob), settings=settings)


def reliability_diagram(y_true: Any, y_prob: Any, *, n_bins: int = 10, strategy: str = "uniform",
                        sample_weight: Any = None, pos_label: Hashable | None = None,
                        labels: Sequence[Hashable] | None = None) -> ReliabilityDiagram:
    """The data of a reliability diagram (DeGroot & Fienberg 1983; Niculescu-Mizil & Caruana
    2005): observed frequency against mean predicted probability per bin. Binary ``y_prob`` or,
    for an n × k ``y_prob``, the top-label reading (confidence against accuracy)."""
    bins = _check_bins(n_bins, strategy)
    reading = "binary" if _probabilities(y_prob).ndim == 1 else "top_label"
    ((truth, prob, weights),) = _binary(y_true, y_prob, sample_weight, pos_label, labels, "top_label")
    settings = {"n_bins": bins, "strategy": strategy, "weighted": weights is not None, "reading": reading}
    return _diagram(truth, prob, weights, bins, strategy, settings)


def calibration_curve(y_true: Any, y_prob: Any, *, pos_label: Hashable | None = None, n_bins: int = 5,
                      strategy: str = "uniform") -> tuple[np.ndarray, np.ndarray]:
    """``(fraction_positive, mean_predicted)`` of the non-empty bins, as scikit-learn's
    ``sklearn.calibration.calibration_curve`` (binary, unweighted, ``uniform`` or ``quantile``)."""
    check_choice(strategy, "strategy", ("uniform", "quantile"))
    d = reliability_diagram(y_true, y_prob, n_bins=n_bins, strategy=strategy, pos_label=pos_label)
    return d.fraction_positive, d.mean_predicted


def _adaptive_ids(prob: np.ndarray, n_bins: int) -> np.ndarray:
    order = np.argsort(prob, kind="stable")
    n = len(prob)
    ids = np.empty(n, dtype=np.intp)
    # numpy.array_split: the first n % B runs get one extra sample
    small, extra = divmod(n, n_bins)
    sizes = np.full(n_bins, small)
    sizes[:extra] += 1
    ids[order] = np.repeat(np.arange(n_bins), sizes)
    return ids


def _calibration_error(y_true, y_prob, *, n_bins, strategy, sample_weight, pos_label, labels, multiclass,
                       kind: str) -> float:
    bins = _check_bins(n_bins, strategy)
    values = []
    for truth, prob, weights in _binary(y_true, y_prob, sample_weight, pos_label, labels, multiclass):
        if kind == "adaptive":
            ids = _adaptive_ids(prob, bins)
            w = np.ones_like(prob) if weights is None else weights
            total = np.bincount(ids, weights=w, minlength=bins)
            conf = np.bincount(ids, weights=prob * w, minlength=bins)
            acc = np.bincount(ids, weights=truth * w, minlength=bins)
            keep = total != 0
            gap = np.abs(acc[keep] - conf[keep]) / total[keep]
            values.append(float(np.dot(total[keep], gap) / total[keep].sum()))
            continue
        d = _diagram(truth, prob, weights, bins, strategy, {})
        values.append(d.ece if kind == "ece" else d.mce)
    return float(np.mean(values))


def expected_calibration_error(y_true: Any, y_prob: Any, *, n_bins: int = 15, strategy: str = "uniform",
                               sample_weight: Any = None, pos_label: Hashable | None = None,
                               labels: Sequence[Hashable] | None = None, multiclass: str = "top_label") -> float:
    """ECE = Σ_b (n_b / n) |acc_b − conf_b| over the bins (Naeini, Cooper & Hauskrecht 2015, AAAI;
    Guo et al. 2017 for the top-label reading, 15 bins); ``multiclass="classwise"``: the mean over
    classes of each class's ECE (Nixon et al. 2019's static calibration error). 0 when each
    bin's frequency equals its mean probability; depends on the bins (report them)."""
    return _calibration_error(y_true, y_prob, n_bins=n_bins, strategy=strategy, sample_weight=sample_weight,
                              pos_label=pos_label, labels=labels, multiclass=multiclass, kind="ece")


def maximum_calibration_error(y_true: Any, y_prob: Any, *, n_bins: int = 15, strategy: str = "uniform",
                              sample_weight: Any = None, pos_label: Hashable | None = None,
                              labels: Sequence[Hashable] | None = None, multiclass: str = "top_label") -> float:
    """MCE = max_b |acc_b − conf_b| over non-empty bins (Naeini et al. 2015): the worst bin,
    whatever its size; class-wise: the mean over classes."""
    return _calibration_error(y_true, y_prob, n_bins=n_bins, strategy=strategy, sample_weight=sample_weight,
                              pos_label=pos_label, labels=labels, multiclass=multiclass, kind="mce")


def adaptive_calibration_error(y_true: Any, y_prob: Any, *, n_bins: int = 15, sample_weight: Any = None,
                               pos_label: Hashable | None = None, labels: Sequence[Hashable] | None = None,
                               multiclass: str = "top_label") -> float:
    """Adaptive ECE: the ECE over equal-mass bins (n_bins runs of the samples sorted by
    probability, see the module's documentation), so that every bin holds about n/B samples
    (Nixon et al. 2019, "Measuring calibration in deep learning", CVPR workshops: adaptive
    binning); ``multiclass="classwise"`` averages it over classes (their ACE)."""
    return _calibration_error(y_true, y_prob, n_bins=n_bins, strategy="uniform", sample_weight=sample_weight,
                              pos_label=pos_label, labels=labels, multiclass=multiclass, kind="adaptive")


# ------------------------------------------------------------------------------ Brier decomposition
@dataclass(frozen=True)
class BrierDecomposition:
    """Murphy's (1973) partition of the Brier score over bins, with Stephenson, Coelho & Jolliffe's
    (2008) two within-bin terms that make it exact for any binning:

    brier = reliability − resolution + uncertainty + within_bin_variance − 2 · within_bin_covariance

    reliability = Σ_b (w_b/W)(f̄_b − ō_b)², resolution = Σ_b (w_b/W)(ō_b − ō)², uncertainty =
    ō(1 − ō), within_bin_variance = (1/W) Σ_b Σ_{i∈b} wᵢ(fᵢ − f̄_b)², within_bin_covariance =
    (1/W) Σ_b Σ_{i∈b} wᵢ(fᵢ − f̄_b)(oᵢ − ō_b). With ``strategy="unique"`` every forecast equals its
    bin's mean, both within-bin terms are 0 and Murphy's identity brier = REL − RES + UNC holds
    (up to rounding)."""

    brier: float
    reliability: float
    resolution: float
    uncertainty: float
    within_bin_variance: float
    within_bin_covariance: float
    settings: dict


def brier_decomposition(y_true: Any, y_prob: Any, *, n_bins: int = 10, strategy: str = "uniform",
                        sample_weight: Any = None, pos_label: Hashable | None = None) -> BrierDecomposition:
    """The Brier score (1/W) Σ wᵢ (fᵢ − oᵢ)² of binary probabilities and its decomposition into
    reliability (calibration, lower is better), resolution (discrimination, higher is better) and
    uncertainty (of the outcomes alone) — Murphy (1973), J. Applied Meteorology 12. See
    :class:`BrierDecomposition` for the exact identity. ``strategy="unique"`` bins by distinct
    forecast, the setting in which Murphy's three terms alone add up (forecasts issued as a few
    values, e.g. 0.0, 0.1, ..., 1.0); for continuous forecasts it degenerates (one sample per bin:
    reliability = brier, resolution = uncertainty), so the default bins them (10 uniform bins)
    and reports the two within-bin terms."""
    bins = _check_bins(n_bins, strategy)
    if _probabilities(y_prob).ndim != 1:
        raise InputError("the Brier decomposition takes binary probabilities (one per sample)", field="y_prob")
    ((o, f, weights),) = _binary(y_true, y_prob, sample_weight, pos_label, None, "top_label")
    w = np.ones_like(f) if weights is None else weights
    total_w = w.sum()
    edges, ids = _bin_ids(f, bins, strategy)
    size = int(ids.max()) + 1
    wb = np.bincount(ids, weights=w, minlength=size)
    keep = wb > 0
    fbar = np.zeros(size)
    obar = np.zeros(size)
    fbar[keep] = np.bincount(ids, weights=w * f, minlength=size)[keep] / wb[keep]
    obar[keep] = np.bincount(ids, weights=w * o, minlength=size)[keep] / wb[keep]
    if strategy == "unique":  # each bin's forecast is its value, exactly (not a rounded mean)
        fbar = edges
    base = float(np.dot(w, o) / total_w)
    df, do = f - fbar[ids], o - obar[ids]
    return BrierDecomposition(
        brier=float(np.dot(w, (f - o) ** 2) / total_w),
        reliability=float(np.dot(wb, (fbar - obar) ** 2) / total_w),
        resolution=float(np.dot(wb, (obar - base) ** 2) / total_w),
        uncertainty=base * (1 - base),
        within_bin_variance=float(np.dot(w, df * df) / total_w),
        within_bin_covariance=float(np.dot(w, df * do) / total_w),
        settings={"n_bins": bins if strategy != "unique" else int(keep.sum()), "strategy": strategy,
                  "weighted": weights is not None})


# ------------------------------------------------------------------------------ logistic recalibration
@dataclass(frozen=True)
class CalibrationFit:
    """Logistic recalibration logit P(y = 1) = intercept + slope · logit(p) (Cox 1958): ``slope``
    (1 ideal; < 1: predictions too extreme, over-fitting; > 1: too moderate) and ``intercept``
    with their standard errors (from the observed information); ``intercept_in_the_large``: the
    intercept with the slope fixed at 1 (logit(p) as an offset; 0 ideal, > 0: probabilities too
    low on average)."""

    slope: float
    intercept: float
    slope_se: float
    intercept_se: float
    intercept_in_the_large: float
    intercept_in_the_large_se: float
    n_iter: int
    settings: dict


def _newton(X: np.ndarray, y: np.ndarray, w: np.ndarray, offset: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Maximum-likelihood logistic regression by Newton–Raphson: (coefficients, covariance, iterations)."""
    from scipy.special import expit

    beta = np.zeros(X.shape[1])
    for iteration in range(1, 101):
        mu = expit(offset + X @ beta)
        hessian = (X * (w * mu * (1 - mu))[:, None]).T @ X
        gradient = X.T @ (w * (y - mu))
        try:
            step = np.linalg.solve(hessian, gradient)
        except np.linalg.LinAlgError:
            step = np.full_like(beta, np.inf)
        if not np.isfinite(step).all() or np.abs(beta + step).max() > 1e6:
            raise InputError("the logistic recalibration has no finite maximum (logit(p) separates the classes "
                             "perfectly, or y_true has one class)", field="y_true")
        beta = beta + step
        if np.abs(step).max() <= 1e-13 * (1 + np.abs(beta).max()):
            break
    else:
        raise InputError("the logistic recalibration does not converge in 100 Newton steps (logit(p) separates "
                         "the classes perfectly, or y_true has one class)", field="y_true")
    mu = expit(offset + X @ beta)
    hessian = (X * (w * mu * (1 - mu))[:, None]).T @ X
    return beta, np.linalg.inv(hessian), iteration


def check_clip(clip: Any) -> float | None:
    """``clip`` as None or a number strictly between 0 and 0.5 (not nan, not inf)."""
    return _CLIP(clip, "clip")


_CLIP = Optional(Interval(0, 0.5, closed="neither"))
_RESAMPLES = Count(2, 10**6)


def calibration_slope(y_true: Any, y_prob: Any, *, sample_weight: Any = None, pos_label: Hashable | None = None,
                      clip: float | None = None) -> CalibrationFit:
    """Calibration slope and intercept by logistic recalibration (Cox 1958, Biometrika 45; Van
    Calster et al. 2016): the maximum-likelihood fit of logit P(y = 1) = a + b · logit(p), and of
    a alone with b = 1 (``intercept_in_the_large``). ``sample_weight`` are frequency weights.

    logit(p) is infinite at p = 0 or 1: such probabilities are an error unless ``clip`` = ε is
    given, which clips them to [ε, 1 − ε] (and says so in ``settings``).
    """
    clip = check_clip(clip)
    if _probabilities(y_prob).ndim != 1:
        raise InputError("the calibration slope takes binary probabilities (one per sample)", field="y_prob")
    ((o, p, weights),) = _binary(y_true, y_prob, sample_weight, pos_label, None, "top_label")
    if clip is not None:
        p = np.clip(p, clip, 1 - clip)
    edge = (p <= 0) | (p >= 1)
    if edge.any():
        i = int(np.flatnonzero(edge)[0])
        raise InputError(f"logit(p) is infinite for p = {p[i]} at index {i}; pass clip= (e.g. 1e-15) to clip "
                         "probabilities to [clip, 1 − clip]", field="y_prob")
    w = np.ones_like(p) if weights is None else weights
    z = np.log(p) - np.log1p(-p)
    both, cov, n_iter = _newton(np.column_stack([np.ones_like(z), z]), o, w, np.zeros_like(z))
    large, cov_large, _ = _newton(np.ones((len(z), 1)), o, w, z)
    return CalibrationFit(slope=float(both[1]), intercept=float(both[0]), slope_se=float(np.sqrt(cov[1, 1])),
                          intercept_se=float(np.sqrt(cov[0, 0])), intercept_in_the_large=float(large[0]),
                          intercept_in_the_large_se=float(np.sqrt(cov_large[0, 0])), n_iter=n_iter,
                          settings={"clip": clip, "weighted": weights is not None})


# ------------------------------------------------------------------------------ bootstrap
@dataclass(frozen=True)
class CalibrationInterval:
    """A calibration statistic with its percentile bootstrap interval [low, high]."""

    statistic: str
    estimate: float
    low: float
    high: float
    confidence: float
    n_resamples: int
    random_state: int
    settings: dict


_STATISTICS = {
    "ece": lambda t, p, w, o: expected_calibration_error(t, p, sample_weight=w, **o),
    "mce": lambda t, p, w, o: maximum_calibration_error(t, p, sample_weight=w, **o),
    "adaptive_ece": lambda t, p, w, o: adaptive_calibration_error(t, p, sample_weight=w, **o),
    "slope": lambda t, p, w, o: calibration_slope(t, p, sample_weight=w, **o).slope,
    "intercept": lambda t, p, w, o: calibration_slope(t, p, sample_weight=w, **o).intercept,
    "intercept_in_the_large": lambda t, p, w, o: calibration_slope(t, p, sample_weight=w, **o).intercept_in_the_large,
    "reliability": lambda t, p, w, o: brier_decomposition(t, p, sample_weight=w, **o).reliability,
    "resolution": lambda t, p, w, o: brier_decomposition(t, p, sample_weight=w, **o).resolution,
}


def calibration_bootstrap(y_true: Any, y_prob: Any, *, statistic: str = "ece", n_resamples: int = 1000,
                          confidence: float = 0.95, random_state: int = 0, sample_weight: Any = None,
                          progress: Callable[[int], None] | None = None, **options: Any) -> CalibrationInterval:
    """Percentile bootstrap interval (Efron & Tibshirani 1993) of a calibration ``statistic``
    (``ece``, ``mce``, ``adaptive_ece``, ``slope``, ``intercept``, ``intercept_in_the_large``,
    ``reliability``, ``resolution``): the statistic on ``n_resamples`` resamples of the samples
    drawn with replacement by ``numpy.random.default_rng(random_state)`` (bins are recomputed on
    each resample); ``options`` go to the statistic's function (``n_bins``, ``strategy``...).
    Resamples where the statistic is undefined (e.g. one class for the slope) are an error.
    ``progress(k)`` is called as each block of k resamples is done.

    Binary probabilities with ``ece``/``mce`` on uniform bins and the slope and intercepts are
    computed for all resamples at once (:mod:`._bootstrap_kernels`: the same resamples as one
    statistic per resample, the same values up to the order of float sums); the other statistics
    compute one statistic per resample."""
    check_choice(statistic, "statistic", _STATISTICS)
    n_resamples = _RESAMPLES(n_resamples, "n_resamples")
    check_fraction(confidence, "confidence")
    check_interval(random_state, "random_state", low=0, integer=True)
    compute = _STATISTICS[statistic]
    prob = _probabilities(y_prob)
    estimate = compute(y_true, y_prob, sample_weight, options)  # validates everything once
    truth = check_labels(y_true, "y_true")
    weights = None if sample_weight is None else check_weights(sample_weight, len(prob))
    rng = np.random.default_rng(int(random_state))
    n = len(prob)
    values = _vectorised(statistic, y_true, prob, weights, options, rng, n_resamples, progress)
    if values is None:
        values = np.empty(n_resamples)
        for r in range(n_resamples):  # one statistic per resample (bins or order statistics per resample)
            index = rng.integers(0, n, size=n)
            values[r] = compute(truth[index], prob[index], None if weights is None else weights[index], options)
            if progress is not None and (r + 1) % 100 == 0:
                progress(100)
        if progress is not None and n_resamples % 100:
            progress(n_resamples % 100)
    alpha = (1 - confidence) / 2
    low, high = np.quantile(values, [alpha, 1 - alpha])
    return CalibrationInterval(statistic=statistic, estimate=float(estimate), low=float(low), high=float(high),
                               confidence=float(confidence), n_resamples=int(n_resamples),
                               random_state=int(random_state), settings=dict(options))


def _vectorised(statistic: str, y_true: Any, prob: np.ndarray, weights: np.ndarray | None, options: dict,
                rng: np.random.Generator, n_resamples: int, progress) -> np.ndarray | None:
    """The bootstrap values of the statistics computed on all resamples at once, or ``None``
    for the others (see :func:`calibration_bootstrap`)."""
    keys = set(options)
    if prob.ndim != 1:
        return None
    truth = binary_truth(y_true, options.get("pos_label")).astype(np.float64)
    blocks = _kernels.index_blocks(rng, len(prob), n_resamples, progress)
    if statistic in ("ece", "mce") and keys <= {"n_bins", "strategy", "pos_label"} \
            and options.get("strategy", "uniform") == "uniform":
        bins = int(options.get("n_bins", 15))
        _, ids = _bin_ids(prob, bins, "uniform")
        which = 0 if statistic == "ece" else 1
        return np.concatenate([_kernels.binned_errors(c, truth, prob, weights, ids, bins)[which] for c in blocks])
    if statistic in ("slope", "intercept", "intercept_in_the_large") and keys <= {"pos_label", "clip"}:
        fit = calibration_slope(y_true, prob, sample_weight=weights, **options)
        clip = options.get("clip")
        p = prob if clip is None else np.clip(prob, clip, 1 - clip)
        z = np.log(p) - np.log1p(-p)
        large = statistic == "intercept_in_the_large"
        start = np.array([fit.intercept_in_the_large] if large else [fit.intercept, fit.slope])
        column = 1 if statistic == "slope" else 0
        return np.concatenate([_kernels.logistic_fits(i, z, truth, start, weights=weights, offset=large)[:, column]
                               for i in blocks])
    return None
