"""Every rate of a confusion matrix, declared once in :data:`RATES`.

Each :class:`RateDef` holds the canonical name, its aliases (the names other fields use), the
formula, a reference and the kernel. ``scope="counts"`` kernels work on one-vs-rest counts
(``tp, fp, fn, tn`` arrays, one entry per class) and can be averaged over classes;
``scope="matrix"`` kernels work on the whole N×N matrix (rows = actual, columns = predicted).

Undefined values (a zero denominator) follow the ``zero_division`` policy, as scikit-learn:
``"warn"`` gives the rate's ``undefined`` value (scikit-learn's default: 0.0 for most rates,
NaN for Cohen's kappa and the likelihood ratios) and the caller warns; a number (or NaN) is
used as is, silently. Kernels never warn: they report where a value was undefined.

References: Fawcett (2006), "An introduction to ROC analysis", Pattern Recognition Letters 27;
Powers (2011), "Evaluation: from precision, recall and F-measure to ROC, informedness,
markedness and correlation", J. Mach. Learn. Technol. 2; Gorodkin (2004), "Comparing two
K-category assignments by a K-category correlation coefficient", Comput. Biol. Chem. 28;
Cohen (1960), Educ. Psychol. Meas. 20; van Rijsbergen (1979), Information Retrieval, ch. 7.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, Callable, Sequence

import numpy as np

from .._params import Interval, check_choice, check_flag, usage_error
from ..errors import MeasureError, UsageError
from ._validation import normalize_weights

__all__ = ["RateDef", "RATES", "AVERAGES", "get_rate", "rate_names", "compute_rate", "rate_from_counts",
           "counts_from_matrix"]

AVERAGES = ("binary", "micro", "macro", "weighted", "samples", None)


@dataclass(frozen=True)
class RateDef:
    name: str
    aliases: tuple[str, ...]
    formula: str
    reference: str
    kernel: Callable
    scope: str = "counts"  # "counts": one-vs-rest, averageable; "matrix": the whole N×N matrix
    undefined: float = 0.0  # value under zero_division="warn" (scikit-learn's default)
    greater_is_better: bool = True
    parameters: tuple[str, ...] = ()
    count: bool = False  # a (weighted) count, in the units of the matrix; else a ratio of counts (scale-free)

    @property
    def function_name(self) -> str:
        """A Python identifier among the name and aliases (``for`` is a keyword)."""
        import keyword

        for candidate in (self.name, *self.aliases):
            if candidate.isidentifier() and not keyword.iskeyword(candidate):
                return candidate
        raise AssertionError(self.name)  # pragma: no cover


class _Divider:
    """``num / den`` that records where ``den == 0`` instead of producing inf/NaN."""

    def __init__(self) -> None:
        self.undefined: np.ndarray | bool = False

    def __call__(self, num, den):
        num = np.asarray(num, dtype=np.float64)
        den = np.asarray(den, dtype=np.float64)
        bad = den == 0
        self.undefined = self.undefined | bad
        return num / np.where(bad, 1.0, den)


_BETA = Interval(0, None, finite=False)  # a number >= 0, inf included (F-beta's limit: recall)


def _fbeta(c, div, beta=1.0):
    beta = _BETA(beta, "beta")
    if np.isposinf(beta):  # the limit β → ∞ of F-β is recall (as scikit-learn)
        return div(c.tp, c.tp + c.fn)
    b2 = float(beta) ** 2
    if not np.isfinite(b2):
        raise UsageError(f"beta={beta!r} overflows β²; use beta=float('inf') for the limit (recall)")
    return div((1 + b2) * c.tp, (1 + b2) * c.tp + b2 * c.fn + c.fp)


def _unit_scale(m: np.ndarray) -> np.ndarray:
    """``m`` times the power of two that brings its sum into [0.5, 1): squares of sums cannot
    overflow (huge weights), and, the scaling being exact, every sum and product rounds as on the
    raw counts (dividing by the sum instead rounds each cell: a class holding every sample then
    gave s² − t·t a tiny negative value and MCC a NaN, where scikit-learn gives 0)."""
    total = m.sum()
    return np.ldexp(m, -int(np.frexp(total)[1])) if 0 < total < np.inf else m


def _mcc(m, div):
    m = _unit_scale(m)  # scale-free
    t, p, s = m.sum(axis=1), m.sum(axis=0), m.sum()
    return div(np.trace(m) * s - t @ p, np.sqrt((s * s - p @ p) * (s * s - t @ t)))


KAPPA_WEIGHTS = (None, "linear", "quadratic")


def _kappa(m, div, weights=None):
    check_choice(weights, "weights", KAPPA_WEIGHTS)
    m = _unit_scale(m)  # scale-free
    t, p, s = m.sum(axis=1), m.sum(axis=0), m.sum()
    if weights is None:
        return div(np.trace(m) * s - t @ p, s * s - t @ p)
    # weighted kappa (Cohen 1968): 1 − Σ w_ij O_ij / Σ w_ij E_ij, E = outer(row sums, column sums) / n,
    # w_ij = |i − j| or (i − j)², classes in label order; the products in scikit-learn's order
    k = len(m)
    gap = np.abs(np.arange(k)[:, None] - np.arange(k)[None, :]).astype(np.float64)
    w = gap if weights == "linear" else gap**2
    expected = np.outer(p, t) / s if s > 0 else np.zeros_like(m)
    return 1.0 - div(np.sum(w * m), np.sum(w * expected))


def _balanced_accuracy(m, div, adjusted=False):
    adjusted = check_flag(adjusted, "adjusted")
    support = m.sum(axis=1)
    present = support > 0
    score = div(np.sum(np.diag(m)[present] / support[present]), np.count_nonzero(present))
    if adjusted:  # chance-corrected (scikit-learn's adjusted=True): (score − 1/k) / (1 − 1/k), k classes present
        chance = div(1.0, np.count_nonzero(present))
        return div(score - chance, 1.0 - chance)
    return score


_F = "Fawcett 2006"
_P = "Powers 2011"

RATES: tuple[RateDef, ...] = (
    RateDef("tp", ("true_positives", "hits"), "TP", _F, lambda c, d: c.tp, count=True),
    RateDef("fp", ("false_positives", "false_alarms", "type_1_errors"), "FP", _F, lambda c, d: c.fp,
            greater_is_better=False, count=True),
    RateDef("fn", ("false_negatives", "misses", "type_2_errors"), "FN", _F, lambda c, d: c.fn,
            greater_is_better=False, count=True),
    RateDef("tn", ("true_negatives", "correct_rejections"), "TN", _F, lambda c, d: c.tn, count=True),
    RateDef("precision", ("ppv", "positive_predictive_value"), "TP / (TP + FP)", _F,
            lambda c, d: d(c.tp, c.tp + c.fp)),
    RateDef("recall", ("tpr", "sensitivity", "true_positive_rate", "hit_rate", "car", "correct_acceptance_rate"),
            "TP / (TP + FN)", _F, lambda c, d: d(c.tp, c.tp + c.fn)),
    RateDef("specificity", ("tnr", "true_negative_rate", "selectivity", "crr", "correct_rejection_rate"),
            "TN / (TN + FP)", _F, lambda c, d: d(c.tn, c.tn + c.fp)),
    RateDef("fpr", ("false_positive_rate", "fallout", "fall_out", "far", "false_acceptance_rate",
                    "false_alarm_rate"), "FP / (FP + TN)", _F, lambda c, d: d(c.fp, c.fp + c.tn),
            greater_is_better=False),
    RateDef("fnr", ("false_negative_rate", "miss_rate", "frr", "false_rejection_rate"), "FN / (FN + TP)", _F,
            lambda c, d: d(c.fn, c.fn + c.tp), greater_is_better=False),
    RateDef("npv", ("negative_predictive_value",), "TN / (TN + FN)", _P, lambda c, d: d(c.tn, c.tn + c.fn)),
    RateDef("fdr", ("false_discovery_rate",), "FP / (FP + TP)", _P, lambda c, d: d(c.fp, c.fp + c.tp),
            greater_is_better=False),
    RateDef("for", ("false_omission_rate",), "FN / (FN + TN)", _P, lambda c, d: d(c.fn, c.fn + c.tn),
            greater_is_better=False),
    RateDef("prevalence", ("base_rate",), "(TP + FN) / (TP + FP + FN + TN)", _P,
            lambda c, d: d(c.tp + c.fn, c.tp + c.fp + c.fn + c.tn)),
    RateDef("f1", ("f1_score", "f_measure", "f_score", "dice"), "2 TP / (2 TP + FP + FN)", "van Rijsbergen 1979",
            lambda c, d: _fbeta(c, d, 1.0)),
    RateDef("fbeta", ("f_beta", "fbeta_score"), "(1 + β²) TP / ((1 + β²) TP + β² FN + FP)", "van Rijsbergen 1979",
            _fbeta, parameters=("beta",)),
    RateDef("jaccard", ("threat_score", "csi", "critical_success_index", "iou"), "TP / (TP + FP + FN)",
            "Jaccard 1912", lambda c, d: d(c.tp, c.tp + c.fp + c.fn)),
    RateDef("informedness", ("youden_j", "youden", "bookmaker_informedness", "bm"), "TPR + TNR − 1", _P,
            lambda c, d: d(c.tp, c.tp + c.fn) + d(c.tn, c.tn + c.fp) - 1.0),
    RateDef("markedness", ("mk", "deltap"), "PPV + NPV − 1", _P,
            lambda c, d: d(c.tp, c.tp + c.fp) + d(c.tn, c.tn + c.fn) - 1.0),
    RateDef("lr_plus", ("positive_likelihood_ratio", "plr", "lr+"), "TPR / FPR = TP (FP + TN) / (FP (TP + FN))",
            "Altman & Bland 1994, BMJ 309", lambda c, d: d(c.tp * (c.fp + c.tn), c.fp * (c.tp + c.fn)),
            undefined=np.nan),
    RateDef("lr_minus", ("negative_likelihood_ratio", "nlr", "lr-"), "FNR / TNR = FN (FP + TN) / (TN (TP + FN))",
            "Altman & Bland 1994, BMJ 309", lambda c, d: d(c.fn * (c.fp + c.tn), c.tn * (c.tp + c.fn)),
            undefined=np.nan, greater_is_better=False),
    RateDef("dor", ("diagnostic_odds_ratio",), "(TP TN) / (FP FN) = LR+ / LR−", "Glas et al. 2003, J Clin Epid 56",
            lambda c, d: d(c.tp * c.tn, c.fp * c.fn), undefined=np.nan),
    RateDef("accuracy", ("acc",), "trace(C) / n", _F, lambda m, d: d(np.trace(m), m.sum()), scope="matrix"),
    RateDef("error_rate", ("err", "misclassification_rate"), "1 − accuracy", _F,
            lambda m, d: d(m.sum() - np.trace(m), m.sum()), scope="matrix", greater_is_better=False),
    RateDef("balanced_accuracy", ("bacc",), "mean over classes present in y_true of recall; binary: (TPR + TNR) / 2; "
            "adjusted: (score − 1/k) / (1 − 1/k)", "Brodersen et al. 2010, ICPR", _balanced_accuracy, scope="matrix",
            parameters=("adjusted",)),
    RateDef("mcc", ("matthews_corrcoef", "phi"), "(c n − t·p) / √((n² − p·p)(n² − t·t)); binary: "
            "(TP TN − FP FN) / √((TP+FP)(TP+FN)(TN+FP)(TN+FN))", "Matthews 1975; Gorodkin 2004", _mcc,
            scope="matrix"),
    RateDef("kappa", ("cohen_kappa", "cohens_kappa"), "(p_o − p_e) / (1 − p_e) = (c n − t·p) / (n² − t·p); "
            "weighted: 1 − Σ w_ij O_ij / Σ w_ij E_ij, w = |i − j| or (i − j)²", "Cohen 1960; Cohen 1968", _kappa,
            scope="matrix", undefined=np.nan, parameters=("weights",)),
)

_BY_NAME: dict[str, RateDef] = {}
for _rate in RATES:
    for _key in (_rate.name, *_rate.aliases):
        assert _key.lower() not in _BY_NAME, _key
        _BY_NAME[_key.lower()] = _rate


def get_rate(name: str) -> RateDef:
    """The rate called ``name`` (canonical name or alias, case-insensitive, '-' and ' ' read as '_')."""
    key = str(name).strip().lower().replace("-", "_").replace(" ", "_")
    rate = _BY_NAME.get(key) or _BY_NAME.get(str(name).strip().lower())
    if rate is None:
        raise MeasureError(f"unknown rate {name!r}; expected one of {', '.join(rate_names())}")
    return rate


def rate_names() -> list[str]:
    """Canonical names of all rates, in table order."""
    return [rate.name for rate in RATES]


def counts_from_matrix(matrix: np.ndarray) -> SimpleNamespace:
    """One-vs-rest counts per class from an N×N matrix (rows = actual, columns = predicted)."""
    m = np.asarray(matrix, dtype=np.float64)
    tp = np.diag(m).copy()
    fp = m.sum(axis=0) - tp
    fn = m.sum(axis=1) - tp
    tn = m.sum() - tp - fp - fn
    return SimpleNamespace(tp=tp, fp=fp, fn=fn, tn=tn)


def _fill(rate: RateDef, zero_division) -> float:
    if isinstance(zero_division, str):
        if zero_division != "warn":
            raise usage_error("zero_division", "'warn' or a number", zero_division)
        return rate.undefined
    return float(zero_division)


def _nanaverage(values: np.ndarray, weights: np.ndarray | None) -> float:
    keep = ~np.isnan(values)
    if not keep.any():
        return float("nan")
    if weights is None:
        return float(np.mean(values[keep]))
    w = weights[keep]
    if w.sum() == 0:
        return 0.0
    return float(np.average(values[keep], weights=w))


def compute_rate(rate: RateDef, matrix: np.ndarray, *, positive: int | None = None, average: str | None = "binary",
                 zero_division="warn", select: Sequence[int] | None = None, **params
                 ) -> tuple[float | np.ndarray, bool]:
    """Value of ``rate`` on ``matrix`` and whether a 0/0 was replaced by the zero_division value.

    ``positive`` is the index of the positive class for ``average="binary"``. For counts rates,
    ``average=None`` gives one value per class; "micro" sums the counts over classes first;
    "macro" is the unweighted mean of the per-class values and "weighted" their mean weighted by
    support (TP + FN), both ignoring NaN values (as scikit-learn). ``select``: the indices of the
    classes to report and average over (scikit-learn's ``labels=`` subset; the other classes still
    count as errors). Matrix rates ignore ``average``.
    """
    _check_params(rate, params, average)
    if average == "samples":
        raise UsageError("average='samples' needs multilabel input (an n×C indicator y_true and y_pred)")
    m = np.asarray(matrix, dtype=np.float64)
    if not rate.count:  # ratios: counts times a power of two (exact) so that products cannot over/underflow
        m = normalize_weights(m)[0]
    if rate.scope == "matrix":
        fill = _fill(rate, zero_division)
        div = _Divider()
        value = rate.kernel(m, div, **params)
        undefined = bool(np.any(div.undefined))
        return (fill if undefined else float(value)), undefined
    return rate_from_counts(rate, counts_from_matrix(m), positive=positive, average=average,
                            zero_division=zero_division, select=select, **params)


def _check_params(rate: RateDef, params: dict, average: Any) -> None:
    unknown = set(params) - set(rate.parameters)
    if unknown:
        raise UsageError(f"rate {rate.name!r} takes no parameter {', '.join(sorted(unknown))}")
    check_choice(average, "average", AVERAGES)


def rate_from_counts(rate: RateDef, counts: SimpleNamespace, *, positive: int | None = None,
                     average: str | None = "binary", zero_division="warn", select: Sequence[int] | None = None,
                     **params) -> tuple[float | np.ndarray, bool]:
    """A counts rate from one-vs-rest ``counts`` (``tp, fp, fn, tn`` arrays, one entry per class;
    per-sample counts of multilabel input give per-sample values with ``average=None``)."""
    _check_params(rate, params, average)
    if average == "samples":
        raise UsageError("average='samples' is computed from per-sample counts by the multilabel functions")
    if rate.scope != "counts":
        raise UsageError(f"{rate.name} is computed on a whole confusion matrix, not on one-vs-rest counts")
    fill = _fill(rate, zero_division)
    div = _Divider()
    if select is not None:
        index = np.asarray(select, dtype=np.intp)
        counts = SimpleNamespace(**{k: np.asarray(v, dtype=np.float64)[index] for k, v in vars(counts).items()})
    if average == "micro":
        counts = SimpleNamespace(**{k: np.atleast_1d(np.sum(v)) for k, v in vars(counts).items()})
    elif average == "binary":
        if positive is None:
            raise UsageError("average='binary' needs a positive class; pass pos_label= or choose "
                             "average='micro', 'macro', 'weighted' or None")
        counts = SimpleNamespace(**{k: v[[positive]] for k, v in vars(counts).items()})
    values = np.asarray(rate.kernel(counts, div, **params), dtype=np.float64) * np.ones(len(counts.tp))
    bad = np.broadcast_to(np.asarray(div.undefined), values.shape)
    values = np.where(bad, fill, values)
    undefined = bool(bad.any())
    if average in ("micro", "binary"):
        return float(values[0]), undefined
    if average is None:
        return values, undefined
    weights = counts.tp + counts.fn if average == "weighted" else None
    return _nanaverage(values, weights), undefined
