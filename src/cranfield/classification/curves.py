"""ROC, precision-recall and DET curves, and the areas and points derived from them.

One sufficient statistic feeds everything (:func:`score_counts`): the distinct scores in
decreasing order and, for each, the cumulative (weighted) number of positives ``tps`` and
negatives ``fps`` whose score is ≥ that threshold. A sample is predicted positive iff its score
is ≥ the threshold, so tied scores form one operating point. Every curve starts at the
threshold +inf (nothing predicted positive) and has one point per distinct score.

Without weights the statistic is computed from two plain sorts (all scores, and the positives'
scores) and a ``searchsorted``, which is several times faster than an ``argsort``; with weights,
from one ``argsort``, on the weights times the power of two that brings the largest into [½, 1)
(:func:`._validation.normalize_weights`): an exact rescaling, so every rate, area and curve is
bitwise that of the raw weights where these do not overflow or underflow, and does not depend on
their scale (weights of 1e-200 or 1e308 give the results of weights near 1).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Hashable, Sequence

import numpy as np

from .._params import check_choice, check_count, check_interval, check_probability, usage_error
from ..errors import InputError, UsageError
from ..io.tables import Table
from ._counts import (ScoreCounts, _ap_from_counts, _auc_from_counts, _counts_unweighted,  # noqa: F401  (re-exported)
                      _counts_weighted, _increments, _score_counts, score_counts)
from ._validation import (AVERAGE_CHOICES, _is_matrix, binary_truth, check_flag, check_lengths, check_scores, check_weights)
from .multiclass import _check_average, average_precision_multiclass, multi_input, roc_auc_multiclass

__all__ = ["ScoreCounts", "Curve", "BinnedCounts", "score_counts", "roc_curve", "pr_curve", "det_curve", "roc_auc",
           "average_precision", "interpolated_average_precision", "equal_error_rate", "threshold_sweep", "auc",
           "recall_at_precision", "precision_at_recall", "class_curves"]


def _require_both(counts: ScoreCounts, what: str) -> None:
    if counts.n_pos <= 0 or counts.n_neg <= 0:
        found = "positive" if counts.n_pos > 0 else "negative"
        raise InputError(f"{what} is undefined when y_true has only one class (found only {found} samples, "
                         "or all their weights are 0)", field="y_true")


def _require_positive(counts: ScoreCounts, what: str) -> None:
    if counts.n_pos <= 0:
        raise InputError(f"{what} is undefined when y_true has no positive sample (or their weights are all 0)",
                         field="y_true")


@dataclass(frozen=True)
class Curve:
    """Points of a ROC, PR or DET curve, in order of decreasing threshold.

    ``x[i], y[i]`` is the operating point of ``thresholds[i]`` (positive iff score ≥ threshold);
    ``thresholds[0]`` is +inf (nothing predicted positive). ``tps``/``fps`` are the cumulative
    positive/negative weights at each point, from which any other rate can be derived.
    """

    kind: str
    x: np.ndarray
    y: np.ndarray
    thresholds: np.ndarray
    tps: np.ndarray = field(repr=False)
    fps: np.ndarray = field(repr=False)
    x_name: str = "x"
    y_name: str = "y"

    def __len__(self) -> int:
        return len(self.x)

    def __iter__(self):
        """Unpacks in scikit-learn's order: ``fpr, tpr, thresholds = roc_curve(...)``, ``fpr, fnr,
        thresholds = det_curve(...)``, ``precision, recall, thresholds = pr_curve(...)`` (points in
        this Curve's order, decreasing threshold)."""
        return iter((self.y, self.x, self.thresholds) if self.kind == "pr" else (self.x, self.y, self.thresholds))

    @property
    def points(self) -> np.ndarray:
        """An (n, 2) array of (x, y)."""
        return np.column_stack([self.x, self.y])

    def table(self, *, digits: int = 4):
        rows = [[t, a, b] for t, a, b in zip(self.thresholds.tolist(), self.x.tolist(), self.y.tolist())]
        return Table(["threshold", self.x_name, self.y_name], rows, title=f"{self.kind.upper()} curve",
                     digits=digits)

    def _repr_html_(self) -> str:
        n = len(self)
        shown = list(range(n)) if n <= 12 else [*range(6), *range(n - 6, n)]
        rows = "".join(f"<tr><td>{self.thresholds[i]:.6g}</td><td>{self.x[i]:.4g}</td><td>{self.y[i]:.4g}</td></tr>"
                       for i in shown)
        more = f"<p>{n} points ({n - len(shown)} not shown)</p>" if len(shown) < n else f"<p>{n} points</p>"
        return (f"<table><caption>{self.kind.upper()} curve</caption><thead><tr><th>threshold</th>"
                f"<th>{self.x_name}</th><th>{self.y_name}</th></tr></thead><tbody>{rows}</tbody></table>{more}")


def _with_start(counts: ScoreCounts) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    thresholds = np.concatenate([[np.inf], counts.thresholds])
    return thresholds, np.concatenate([[0.0], counts.tps]), np.concatenate([[0.0], counts.fps])


def _kept(kind: str, tps: np.ndarray, fps: np.ndarray) -> np.ndarray:
    """scikit-learn's ``drop_intermediate`` rule: ROC keeps the corners (a point is dropped when it
    lies between two points on a straight line, second differences of TP and FP both 0); PR and
    DET keep the first and last point of each run of equal TP (equal recall, equal miss rate)."""
    keep = np.ones(len(tps), dtype=bool)
    if len(tps) > 2:
        if kind == "roc":
            keep[1:-1] = (np.diff(fps, 2) != 0) | (np.diff(tps, 2) != 0)
        else:
            keep[1:-1] = (np.diff(tps[:-1]) != 0) | (np.diff(tps[1:]) != 0)
    return keep


def _counts_for_curve(y_true, y_score, sample_weight, pos_label, thresholds) -> tuple[ScoreCounts, bool]:
    """The statistic at every distinct score (start point +inf added), or at fixed thresholds."""
    if thresholds is None:
        return _score_counts(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label), True
    binned = BinnedCounts(thresholds).update(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label)
    return binned.counts(), False


def _curve(kind: str, counts: ScoreCounts, *, start: bool, drop_intermediate: bool) -> Curve:
    drop_intermediate = check_flag(drop_intermediate, "drop_intermediate")
    if start:
        thresholds, tps, fps = _with_start(counts)
    else:
        thresholds, tps, fps = counts.thresholds, counts.tps, counts.fps
    if drop_intermediate:
        if kind in ("roc", "pr") and start:  # scikit-learn thins ROC and PR points before adding the end point
            keep = np.concatenate([[True], _kept(kind, tps[1:], fps[1:])])
        else:  # DET: scikit-learn thins after adding it
            keep = _kept(kind, tps, fps)
        thresholds, tps, fps = thresholds[keep], tps[keep], fps[keep]
    n_pos, n_neg = counts.n_pos, counts.n_neg
    if kind == "roc":
        x, y, names = fps / n_neg, tps / n_pos, ("fpr", "tpr")
    elif kind == "det":
        x, y, names = fps / n_neg, (n_pos - tps) / n_pos, ("fpr", "fnr")
    else:
        predicted = tps + fps
        precision = np.divide(tps, predicted, out=np.ones_like(tps), where=predicted > 0)
        x, y, names = tps / n_pos, precision, ("recall", "precision")
    return Curve(kind, x, y, thresholds, counts.unscaled(tps), counts.unscaled(fps), *names)


def roc_curve(y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Hashable | None = None,
              drop_intermediate: bool = False, thresholds: Any = None) -> Curve:
    """ROC curve: x = FPR = FP/N, y = TPR = TP/P at every distinct threshold, from (0, 0).

    Equals ``sklearn.metrics.roc_curve(..., drop_intermediate=False)``; ``drop_intermediate=True``
    drops the points that lie on a straight line between their neighbours, as scikit-learn's
    default (the area is unchanged). ``thresholds`` (an int n: n thresholds evenly spaced in
    [0, 1], as torchmetrics; or an array): the binned curve at those thresholds only, in
    decreasing order, with no +inf start point (see :class:`BinnedCounts`). Reference: Fawcett (2006).
    """
    counts, start = _counts_for_curve(y_true, y_score, sample_weight, pos_label, thresholds)
    _require_both(counts, "the ROC curve")
    return _curve("roc", counts, start=start, drop_intermediate=drop_intermediate)


def pr_curve(y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Hashable | None = None,
             drop_intermediate: bool = False, thresholds: Any = None) -> Curve:
    """Precision-recall curve: x = recall = TP/P, y = precision = TP/(TP+FP), from (0, 1).

    The point at +inf has precision 1 by convention (as scikit-learn's last point); so has any
    binned threshold with no sample predicted positive. Equals
    ``sklearn.metrics.precision_recall_curve(..., drop_intermediate=False)`` read backwards;
    ``drop_intermediate=True`` keeps only the first and last point of each run of equal recall (as
    scikit-learn's option). ``thresholds``: as :func:`roc_curve`.
    """
    counts, start = _counts_for_curve(y_true, y_score, sample_weight, pos_label, thresholds)
    _require_positive(counts, "the precision-recall curve")
    return _curve("pr", counts, start=start, drop_intermediate=drop_intermediate)


def det_curve(y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Hashable | None = None,
              drop_intermediate: bool = False, thresholds: Any = None) -> Curve:
    """Detection error tradeoff: x = FPR (false alarm), y = FNR (miss) at every distinct threshold.

    Unlike scikit-learn's ``det_curve``, all points are kept (scikit-learn drops those before
    the last FPR = 0 and after the first FNR = 0); ``drop_intermediate=True`` further drops the
    points inside runs of equal miss rate (scikit-learn's option). ``thresholds``: as
    :func:`roc_curve`. Reference: Martin et al. (1997), "The DET curve in assessment of detection
    task performance", Eurospeech.
    """
    counts, start = _counts_for_curve(y_true, y_score, sample_weight, pos_label, thresholds)
    _require_both(counts, "the DET curve")
    return _curve("det", counts, start=start, drop_intermediate=drop_intermediate)


class BinnedCounts:
    """Positive and negative (weighted) counts at fixed thresholds, in memory O(thresholds):
    ``update`` can be called on successive chunks of a stream (as torchmetrics' binned metrics).

    ``thresholds``: an int n ≥ 2 (n values evenly spaced in [0, 1]) or an array of distinct finite
    numbers. A sample counts at threshold t iff its score ≥ t. :meth:`counts` returns the
    :class:`ScoreCounts` at the thresholds in decreasing order, from which every curve follows.
    """

    def __init__(self, thresholds: Any = 100) -> None:
        if isinstance(thresholds, (int, np.integer)) and not isinstance(thresholds, bool):
            values = np.linspace(0.0, 1.0, check_count(thresholds, "thresholds", 2))
        else:
            values = check_scores(thresholds, "thresholds")
            if len(values) == 0 or len(np.unique(values)) != len(values):
                raise usage_error("thresholds", "a non-empty array of distinct numbers", thresholds)
        self._ascending = np.sort(values)
        self._pos = np.zeros(len(values) + 1)
        self._neg = np.zeros(len(values) + 1)

    def update(self, y_true: Any, y_score: Any, *, sample_weight: Any = None,
               pos_label: Hashable | None = None) -> "BinnedCounts":
        positive = binary_truth(y_true, pos_label)
        scores = check_scores(y_score)
        n = check_lengths(y_true=positive, y_score=scores)
        weights = check_weights(sample_weight, n)
        above = np.searchsorted(self._ascending, scores, side="right")  # number of thresholds ≤ score
        size = len(self._pos)
        w = np.ones(n) if weights is None else weights
        self._pos += np.bincount(above[positive], weights=w[positive], minlength=size)
        self._neg += np.bincount(above[~positive], weights=w[~positive], minlength=size)
        return self

    def counts(self) -> ScoreCounts:
        # a sample whose score passes j thresholds counts at the j lowest: suffix sums from the top
        tps = np.cumsum(self._pos[::-1])[:-1]
        fps = np.cumsum(self._neg[::-1])[:-1]
        return ScoreCounts(self._ascending[::-1].copy(), tps, fps, total_pos=float(self._pos.sum()),
                           total_neg=float(self._neg.sum()))


def _trapezoid(x: np.ndarray, y: np.ndarray) -> float:
    return float(np.dot(np.diff(x), (y[1:] + y[:-1])) / 2.0)


def roc_auc(y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Hashable | None = None,
            max_fpr: float | None = None, mcclish: bool = True, average: str | None = "macro",
            multi_class: str = "ovr", labels: Sequence[Hashable] | None = None) -> Any:
    """Area under the ROC curve (trapezoidal: a tie between a positive and a negative counts ½).

    AUC = Σᵢ (FPRᵢ − FPRᵢ₋₁)(TPRᵢ + TPRᵢ₋₁)/2 = P(s⁺ > s⁻) + ½ P(s⁺ = s⁻) (Hanley & McNeil 1982).
    With ``max_fpr``, the partial area over FPR ∈ [0, max_fpr] (the curve interpolated linearly
    at max_fpr), standardised by McClish (1989) as scikit-learn's ``roc_auc_score``:
    ½ (1 + (A − A_min)/(A_max − A_min)), A_min = max_fpr²/2, A_max = max_fpr; ``mcclish=False``
    gives the raw partial area A. One-class ``y_true`` is an error.

    An n×C ``y_score`` (one column per class; multiclass labels or a multilabel indicator
    ``y_true``) goes to :func:`.multiclass.roc_auc_multiclass` with ``average`` (None, "micro",
    "macro", "weighted", "samples"), ``multi_class`` ("ovr", "ovo") and ``labels``; these three
    are ignored for binary input.
    """
    _check_multi_options(average, multi_class)
    if _multi(y_true, y_score):
        if max_fpr is not None or pos_label is not None:
            raise UsageError("max_fpr and pos_label are for binary problems; y_score here has one column per class")
        return roc_auc_multiclass(y_true, y_score=y_score, average=average, multi_class=multi_class, labels=labels,
                                  sample_weight=sample_weight)
    counts = _score_counts(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label)
    _require_both(counts, "ROC AUC")
    if max_fpr is None or max_fpr == 1:  # McClish standardisation is the identity at max_fpr = 1
        return _auc_from_counts(counts)
    max_fpr = check_interval(max_fpr, "max_fpr", low=0, high=1, closed="right")
    fpr = np.concatenate([[0.0], counts.fps]) / counts.n_neg
    tpr = np.concatenate([[0.0], counts.tps]) / counts.n_pos
    stop = int(np.searchsorted(fpr, max_fpr, side="right"))
    x = np.append(fpr[:stop], max_fpr)
    y = np.append(tpr[:stop], np.interp(max_fpr, fpr[stop - 1:stop + 1], tpr[stop - 1:stop + 1]))
    area = _trapezoid(x, y)
    if not mcclish:
        return area
    min_area = 0.5 * max_fpr**2
    return 0.5 * (1 + (area - min_area) / (max_fpr - min_area))


def average_precision(y_true: Any, y_score: Any, *, sample_weight: Any = None,
                      pos_label: Hashable | None = None, average: str | None = "macro",
                      labels: Sequence[Hashable] | None = None) -> Any:
    """Average precision, step-wise as scikit-learn: AP = Σₙ (Rₙ − Rₙ₋₁) Pₙ over the distinct
    thresholds (no interpolation). Without positives it is undefined: an error.

    Reference: Manning, Raghavan & Schütze (2008), Introduction to IR, §8.4; scikit-learn's
    ``average_precision_score``. Its no-skill baseline is the prevalence P / (P + N).

    An n×C ``y_score`` goes to :func:`.multiclass.average_precision_multiclass` (mAP with
    ``average="macro"``; ``average`` and ``labels`` are ignored for binary input).
    """
    _check_multi_options(average, "ovr")
    if _multi(y_true, y_score):
        if pos_label is not None:
            raise UsageError("pos_label is for binary problems; y_score here has one column per class")
        return average_precision_multiclass(y_true, y_score, average=average, labels=labels,
                                            sample_weight=sample_weight)
    counts = _score_counts(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label)
    _require_positive(counts, "average precision")
    return _ap_from_counts(counts)


def _check_multi_options(average: Any, multi_class: Any) -> None:
    """The multiclass options are checked for binary input too (where they do not apply)."""
    check_choice(average, "average", AVERAGE_CHOICES)
    check_choice(multi_class, "multi_class", ("ovr", "ovo"))


def _multi(y_true: Any, y_score: Any) -> bool:
    """An n×C score matrix (C ≥ 2) or a multilabel y_true: the multiclass functions' input."""
    return _is_matrix(y_score) or _is_matrix(y_true)


def class_curves(y_true: Any, y_score: Any, *, kind: str = "roc", average: str | None = None,
                 labels: Sequence[Hashable] | None = None, sample_weight: Any = None,
                 drop_intermediate: bool = False):
    """ROC, PR or DET curves (``kind``) of a multiclass or multilabel problem: with
    ``average=None`` a dict ``{class: Curve}`` (each class against the rest), with
    ``average="micro"`` one :class:`Curve` over all (sample, class) pairs (the curve whose
    area is the micro-averaged AUC/AP). ``drop_intermediate`` as in :func:`roc_curve`."""
    makers = {"roc": roc_curve, "pr": pr_curve, "det": det_curve}
    check_choice(kind, "kind", tuple(makers))
    _check_average(average, (None, "micro"))
    drop_intermediate = check_flag(drop_intermediate, "drop_intermediate")
    data = multi_input(y_true, y_score, labels=labels, sample_weight=sample_weight)
    truth = data.truth()
    make = makers[kind]
    if average == "micro":
        weights = None if data.weights is None else np.repeat(data.weights, len(data.classes))
        return make(truth.reshape(-1), data.scores.reshape(-1), sample_weight=weights,
                    drop_intermediate=drop_intermediate)
    return {label: make(truth[:, c], data.scores[:, c], sample_weight=data.weights,
                        drop_intermediate=drop_intermediate)
            for c, label in enumerate(data.classes)}


def interpolated_average_precision(y_true: Any, y_score: Any, *, n_points: int | None = 11,
                                   sample_weight: Any = None, pos_label: Hashable | None = None) -> float:
    """Interpolated AP: the interpolated precision p_interp(r) = max_{r' ≥ r} p(r') averaged over
    ``n_points`` equally spaced recall levels 0, 1/(n−1), …, 1 (11-point AP, TREC and PASCAL VOC
    2007), or with ``n_points=None`` the area under p_interp (all-point, PASCAL VOC 2010+).

    References: Salton & McGill (1983); Everingham et al. (2010), IJCV 88, §4.2.
    """
    curve = pr_curve(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label)
    recall, precision = curve.x[1:], curve.y[1:]
    envelope = np.maximum.accumulate(precision[::-1])[::-1]  # max precision at recall ≥ r
    if n_points is None:
        return float(np.dot(np.diff(recall, prepend=0.0), envelope))
    levels = np.linspace(0.0, 1.0, check_count(n_points, "n_points", 2))
    at = np.searchsorted(recall, levels - 1e-12, side="left")  # first point with recall ≥ level
    values = np.where(at < len(recall), envelope[np.minimum(at, len(recall) - 1)], 0.0)
    return float(values.mean())


def equal_error_rate(y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Hashable | None = None,
                     method: str = "interpolated", thresholds: Any = None) -> float:
    """Equal error rate: the rate at which FPR = FNR on the DET curve.

    ``method="interpolated"`` (default): linear interpolation between the two operating points
    where FNR − FPR changes sign (as in speaker verification, e.g. NIST SRE; Martin et al. 1997).
    ``method="closest"``: torchmetrics' convention, (FPR + FNR)/2 at the operating point where
    |FPR − FNR| is smallest, the first such point in order of decreasing threshold (differences
    within one machine epsilon of the smallest count as ties). ``thresholds``: the binned curve
    (as :func:`roc_curve`; torchmetrics' ``thresholds=``)."""
    check_choice(method, "method", ("interpolated", "closest"))
    curve = det_curve(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label, thresholds=thresholds)
    fpr, fnr = curve.x, curve.y
    if method == "closest":
        diff = np.abs(fpr - fnr)
        i = int(np.argmax(diff <= diff.min() + np.finfo(np.float64).eps))
        return float((fpr[i] + fnr[i]) / 2)
    gap = fnr - fpr  # decreasing from 1 (threshold +inf) to ≤ 0 (lowest threshold)
    i = int(np.searchsorted(-gap, 0.0, side="left"))  # first point with gap ≤ 0
    if i >= len(gap):  # binned thresholds may stop before the gap closes
        return float(fpr[-1] + gap[-1] / 2)
    if gap[i] == 0 or i == 0:
        return float(fpr[i] + gap[i] / 2) if i == 0 else float(fpr[i])
    # between points i-1 (gap > 0) and i (gap < 0): where the segment crosses fnr = fpr
    t = gap[i - 1] / (gap[i - 1] - gap[i])
    return float(fpr[i - 1] + t * (fpr[i] - fpr[i - 1]))


def _best_at(curve: Curve, target: np.ndarray, other: np.ndarray, floor: np.ndarray, minimum: float, name: str
             ) -> tuple[float, float]:
    minimum = check_probability(minimum, name)
    eligible = np.flatnonzero(floor >= minimum)
    if not len(eligible):
        return 0.0, float("nan")
    # the largest target; ties: the largest other rate, then the largest threshold (torchmetrics)
    best = eligible[np.lexsort((curve.thresholds[eligible], other[eligible], target[eligible]))[-1]]
    value = float(target[best])
    return value, (float(curve.thresholds[best]) if value > 0 else float("nan"))


def recall_at_precision(y_true: Any, y_score: Any, *, min_precision: float, sample_weight: Any = None,
                        pos_label: Hashable | None = None, thresholds: Any = None) -> tuple[float, float]:
    """(recall, threshold): the highest recall among the operating points whose precision is
    ≥ ``min_precision``; ties go to the higher precision, then the higher threshold. When no point
    qualifies, or the best recall is 0, the threshold is NaN (recall 0), as torchmetrics'
    ``binary_recall_at_fixed_precision``. The +inf start point is not an operating point here."""
    curve = pr_curve(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label, thresholds=thresholds)
    sub = curve if thresholds is not None else Curve("pr", curve.x[1:], curve.y[1:], curve.thresholds[1:],
                                                      curve.tps[1:], curve.fps[1:])
    return _best_at(sub, sub.x, sub.y, sub.y, min_precision, "min_precision")


def precision_at_recall(y_true: Any, y_score: Any, *, min_recall: float, sample_weight: Any = None,
                        pos_label: Hashable | None = None, thresholds: Any = None) -> tuple[float, float]:
    """(precision, threshold): the highest precision among the operating points whose recall is
    ≥ ``min_recall``; ties go to the higher recall, then the higher threshold; NaN threshold when
    none qualifies or the best precision is 0 (torchmetrics' ``binary_precision_at_fixed_recall``)."""
    curve = pr_curve(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label, thresholds=thresholds)
    sub = curve if thresholds is not None else Curve("pr", curve.x[1:], curve.y[1:], curve.thresholds[1:],
                                                      curve.tps[1:], curve.fps[1:])
    return _best_at(sub, sub.y, sub.x, sub.x, min_recall, "min_recall")


def auc(x: Any, y: Any) -> float:
    """Area under any curve given by its points, by the trapezoidal rule: Σ (xᵢ − xᵢ₋₁)(yᵢ + yᵢ₋₁)/2.
    ``x`` must be monotonic (increasing, or decreasing: the area is then taken with the sign that
    makes it positive for positive ``y``), as scikit-learn's ``auc``; at least two points."""
    xs, ys = check_scores(x, "x", exact=False), check_scores(y, "y", exact=False)
    check_lengths(x=xs, y=ys)
    if len(xs) < 2:
        raise InputError(f"at least 2 points are needed to compute an area, found {len(xs)}", field="x")
    dx = np.diff(xs)
    direction = 1.0
    if (dx < 0).any():
        if not (dx <= 0).all():
            i = int(np.flatnonzero(dx < 0)[0]) if (dx > 0).any() else 0
            raise InputError(f"x is neither increasing nor decreasing (it changes direction at index {i + 1})",
                             field="x")
        direction = -1.0
    return direction * float(np.trapezoid(ys, xs))


def threshold_sweep(y_true: Any, y_score: Any, *, sample_weight: Any = None,
                    pos_label: Hashable | None = None) -> dict[str, np.ndarray]:
    """Every distinct score as a threshold (plus +inf): columns ``threshold, tp, fp, fn, tn`` and
    ``tpr, fpr, precision, f1, accuracy`` (positive iff score ≥ threshold; 0/0 gives 0, as
    scikit-learn's default). A dict of equal-length arrays, e.g. for ``pandas.DataFrame``."""
    counts = _score_counts(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label)
    thresholds, tp, fp = _with_start(counts)
    fn, tn = counts.n_pos - tp, counts.n_neg - fp
    total = counts.n_pos + counts.n_neg

    def div(a, b):
        return np.divide(a, b, out=np.zeros_like(a), where=b != 0)

    w = counts.unscaled
    return {"threshold": thresholds, "tp": w(tp), "fp": w(fp), "fn": w(fn), "tn": w(tn),
            "tpr": div(tp, tp + fn), "fpr": div(fp, fp + tn), "precision": div(tp, tp + fp),
            "f1": div(2 * tp, 2 * tp + fp + fn), "accuracy": div(tp + tn, np.full_like(tp, total))}
