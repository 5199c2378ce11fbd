"""Choosing a decision threshold: by a criterion, or at a fixed FPR, TPR or precision.

Candidates are +inf (nothing predicted positive) and every distinct score (positive iff
score ≥ threshold), taken from the one sufficient statistic of :mod:`.curves`. When several
thresholds reach the optimum (up to rounding: 1e-12 relative), the highest one (fewest positive
predictions) is returned.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Hashable

import numpy as np

from .._params import check_choice, check_interval, check_probability
from ..errors import InputError, UsageError
from .confusion import ConfusionMatrix
from .curves import _score_counts, _with_start

__all__ = ["OperatingPoint", "CRITERIA", "best_threshold", "operating_point"]


@dataclass(frozen=True)
class OperatingPoint:
    """A threshold, the criterion value it reaches and its (weighted) confusion counts."""

    threshold: float
    criterion: str
    value: float
    tp: float
    fp: float
    fn: float
    tn: float

    @property
    def tpr(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def fpr(self) -> float:
        return self.fp / (self.fp + self.tn) if self.fp + self.tn else 0.0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    def confusion_matrix(self):
        """The binary :class:`~cranfield.classification.confusion.ConfusionMatrix` at this point."""
        return ConfusionMatrix.from_counts(tp=self.tp, fp=self.fp, fn=self.fn, tn=self.tn)


def _ratio(a: np.ndarray, b: np.ndarray | float) -> np.ndarray:
    b = np.broadcast_to(np.asarray(b, dtype=np.float64), np.shape(a))
    return np.divide(a, b, out=np.zeros_like(a), where=b != 0)


def _accuracy(tp, fp, fn, tn, **_):
    return _ratio(tp + tn, tp + fp + fn + tn)


def _fbeta(tp, fp, fn, tn, *, beta=1.0, **_):
    b2 = float(beta) ** 2
    return _ratio((1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp)


def _youden(tp, fp, fn, tn, **_):
    return _ratio(tp, tp + fn) + _ratio(tn, tn + fp) - 1.0


def _closest(tp, fp, fn, tn, **_):
    # negated distance to the ROC corner (0, 1), so that larger is better
    return -np.hypot(_ratio(fp, fp + tn), 1.0 - _ratio(tp, tp + fn))


def _cost(tp, fp, fn, tn, *, cost_fp=1.0, cost_fn=1.0, prevalence=None, **_):
    # negated expected cost per sample: C_fn π FNR + C_fp (1 − π) FPR
    if prevalence is None:
        return -(cost_fn * fn + cost_fp * fp) / (tp + fp + fn + tn)
    return -(cost_fn * prevalence * _ratio(fn, tp + fn) + cost_fp * (1 - prevalence) * _ratio(fp, fp + tn))


# name -> (kernel on count arrays (larger is better), sign of the reported value, description)
CRITERIA: dict[str, tuple] = {
    "accuracy": (_accuracy, 1, "(TP + TN) / n"),
    "f1": (_fbeta, 1, "F1 = 2 TP / (2 TP + FP + FN)"),
    "fbeta": (_fbeta, 1, "F-beta = (1 + β²) TP / ((1 + β²) TP + β² FN + FP)"),
    "youden": (_youden, 1, "Youden's J = TPR + TNR − 1 (Youden 1950)"),
    "closest": (_closest, -1, "distance to (FPR, TPR) = (0, 1): √(FPR² + (1 − TPR)²) (minimised)"),
    "cost": (_cost, -1, "expected cost per sample C_fn π FNR + C_fp (1 − π) FPR (minimised); "
                        "π = prevalence, by default the observed one (then (C_fn FN + C_fp FP) / n)"),
}
_ALIASES = {"youden_j": "youden", "informedness": "youden", "closest_to_01": "closest", "closest-to-(0,1)": "closest",
            "closest_topleft": "closest", "expected_cost": "cost", "f_beta": "fbeta", "acc": "accuracy"}


def _counts(y_true, y_score, sample_weight, pos_label):
    """Thresholds, the counts at each (weights normalised by 2**exponent: scale-free criteria) and
    the function that turns counts back into weights."""
    counts = _score_counts(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label)
    thresholds, tp, fp = _with_start(counts)
    return thresholds, tp, fp, counts.n_pos - tp, counts.n_neg - fp, counts.unscaled


def best_threshold(y_true: Any, y_score: Any, *, criterion: str = "youden", beta: float = 1.0,
                   cost_fp: float = 1.0, cost_fn: float = 1.0, prevalence: float | None = None,
                   sample_weight: Any = None, pos_label: Hashable | None = None) -> OperatingPoint:
    """The threshold that optimises ``criterion`` over +inf and every distinct score.

    Criteria (see :data:`CRITERIA`): ``"accuracy"``, ``"f1"``, ``"fbeta"`` (with ``beta``),
    ``"youden"`` (TPR + TNR − 1), ``"closest"`` (closest to the ROC corner (0, 1)) and ``"cost"``
    (expected cost with ``cost_fp``, ``cost_fn`` and, optionally, the deployment ``prevalence``;
    the Bayes-optimal choice, cf. Elkan 2001 "The foundations of cost-sensitive learning").
    ``value`` of the result is the criterion (the distance or the cost for those two).
    """
    key = _ALIASES.get(criterion, criterion)
    if key not in CRITERIA:
        check_choice(criterion, "criterion", CRITERIA)
    if key == "cost":
        for name, value in (("cost_fp", cost_fp), ("cost_fn", cost_fn)):
            check_interval(value, name, low=0)
        if prevalence is not None:
            check_probability(prevalence, "prevalence")
    if key == "fbeta":
        check_interval(beta, "beta", low=0)
    thresholds, tp, fp, fn, tn, w = _counts(y_true, y_score, sample_weight, pos_label)
    kernel, sign, _ = CRITERIA[key]
    scores = kernel(tp, fp, fn, tn, beta=beta, cost_fp=cost_fp, cost_fn=cost_fn, prevalence=prevalence)
    best = scores.max()
    # first = highest threshold among ties; values equal up to rounding (1e-12 relative) are ties
    i = int(np.flatnonzero(scores >= best - 1e-12 * max(1.0, abs(best)))[0])
    return OperatingPoint(float(thresholds[i]), key, float(sign * scores[i]), *_weights(w, tp, fp, fn, tn, i))


def operating_point(y_true: Any, y_score: Any, *, fpr: float | None = None, tpr: float | None = None,
                    precision: float | None = None, sample_weight: Any = None,
                    pos_label: Hashable | None = None) -> OperatingPoint:
    """The operating point at a fixed rate (give exactly one):

    - ``fpr=a``: the lowest threshold with FPR ≤ a (the highest TPR allowed);
    - ``tpr=b``: the highest threshold with TPR ≥ b (the lowest FPR that reaches it);
    - ``precision=c``: among thresholds with precision ≥ c, the lowest (highest recall).

    An error if no threshold reaches the target.
    """
    given = {name: v for name, v in (("fpr", fpr), ("tpr", tpr), ("precision", precision)) if v is not None}
    if len(given) != 1:
        raise UsageError("give exactly one of fpr=, tpr=, precision=")
    (name, target), = given.items()
    target = check_probability(target, name)
    thresholds, tp, fp, fn, tn, w = _counts(y_true, y_score, sample_weight, pos_label)
    if name == "fpr":
        ok = _ratio(fp, fp + tn) <= target
        i = int(np.flatnonzero(ok)[-1])  # +inf always has FPR 0
    elif name == "tpr":
        ok = np.flatnonzero(_ratio(tp, tp + fn) >= target)
        if not len(ok):
            raise InputError(f"no threshold reaches TPR ≥ {target} (no positive sample?)", field="y_true")
        i = int(ok[0])
    else:
        ok = np.flatnonzero((_ratio(tp, tp + fp) >= target) & (tp + fp > 0))
        if not len(ok):
            raise InputError(f"no threshold reaches precision ≥ {target}", field="y_score")
        i = int(ok[-1])
    rates = {"fpr": _ratio(fp[i], fp[i] + tn[i]), "tpr": _ratio(tp[i], tp[i] + fn[i]),
             "precision": _ratio(tp[i], tp[i] + fp[i])}
    return OperatingPoint(float(thresholds[i]), name, float(rates[name]), *_weights(w, tp, fp, fn, tn, i))


def _weights(unscaled, tp, fp, fn, tn, i) -> list[float]:
    return [float(v) for v in unscaled(np.array([tp[i], fp[i], fn[i], tn[i]]))]
