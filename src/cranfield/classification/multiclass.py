"""Multiclass and multilabel scores: mean average precision, ROC AUC (one-vs-rest, one-vs-one),
per-class and micro-averaged curves, top-k accuracy.

Inputs: ``y_true`` is either one label per sample (multiclass: the classes are the sorted distinct
labels, or ``labels=`` in the order of the columns of ``y_score``; a frame's columns named after
the classes are matched by name, see :mod:`.class_columns`) or an n×C indicator matrix of
0/1 (multilabel: column c is class c, ``labels=`` names the columns). ``y_score`` is n×C, column c
the score of class c (any real numbers: one-vs-rest areas only rank them).

``average`` (scikit-learn's names): ``None`` one value per class (in class order); ``"macro"``
their mean; ``"weighted"`` their mean weighted by each class's (weighted) number of positives;
``"micro"`` the binary measure over all n·C (sample, class) pairs; ``"samples"`` (multilabel)
the binary measure of each sample's row over the classes, averaged over samples.

The per-class statistic is computed without ``argsort``: for class c, the column sorted once
(``np.sort``) and its positives' scores sorted, then ``searchsorted`` gives for each positive the
number of samples (and of positives) with a lower or equal score. ROC AUC is then the
Mann–Whitney count Σ₊ (#neg below + ½ #neg tied) / (P N), summed in integers and divided once
(the exactly rounded area); AP = (1/P) Σ₊ #pos ≥ s / #all ≥ s — the definitions of
:func:`.curves.roc_auc` and :func:`.curves.average_precision` (step-wise AP, a tie forming one
operating point). With sample weights, each class goes through the weighted statistic of
:mod:`.curves` (bitwise that of the binary functions).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Hashable, Sequence

import numpy as np

from .._params import check_choice, check_count
from ..errors import InputError, UsageError
from ._counts import _ap_from_counts, _auc_from_counts, _counts_weighted
from ._validation import (AVERAGE_CHOICES, _indicator, _is_matrix, _show, as_matrix, check_flag,  # noqa: F401
                          check_lengths, check_weights, encode_labels, is_choice, score_matrix, warn_undefined)
from ._validation import check_scores
from .class_columns import frame_columns, order_frame_columns
from .label_ranking import row_rank_counts

__all__ = ["average_precision_multiclass", "roc_auc_multiclass", "top_k_accuracy"]


@dataclass(frozen=True)
class MultiInput:
    """Validated multiclass or multilabel input: ``scores`` n×C float64; ``truth`` an n×C boolean
    indicator (multilabel) or ``codes`` one class index per sample (multiclass)."""

    scores: np.ndarray
    classes: list
    weights: np.ndarray | None
    codes: np.ndarray | None = None
    indicator: np.ndarray | None = None

    @property
    def multilabel(self) -> bool:
        return self.indicator is not None

    def truth(self) -> np.ndarray:
        """The n×C boolean indicator of the positives."""
        if self.indicator is not None:
            return self.indicator
        onehot = np.zeros(self.scores.shape, dtype=bool)
        onehot[np.arange(len(self.codes)), self.codes] = True
        return onehot

    def support(self) -> np.ndarray:
        """(Weighted) number of positives of each class."""
        if self.indicator is not None:
            return (self.indicator.sum(axis=0).astype(np.float64) if self.weights is None
                    else self.weights @ self.indicator)
        return np.bincount(self.codes, weights=self.weights, minlength=len(self.classes)).astype(np.float64)


def multi_input(y_true: Any, y_score: Any, *, labels: Sequence[Hashable] | None = None, sample_weight: Any = None,
                score_name: str = "y_score") -> MultiInput:
    """Validate ``(y_true, y_score)`` as multiclass (labels) or multilabel (indicator) input; a
    ``y_score`` frame with string column names is matched to the classes by name
    (:mod:`.class_columns`)."""
    if frame_columns(y_score) is not None and not _is_matrix(y_true):
        named, _ = encode_labels((y_true, "y_true"), labels=labels)
        y_score = order_frame_columns(y_score, named, explicit_order=labels is not None, name=score_name)
    scores = score_matrix(y_score, score_name)
    n, k = scores.shape
    if _is_matrix(y_true):
        truth = _indicator(as_matrix(y_true, "y_true"), scores.shape)
        if labels is None:
            classes = list(range(k))
        else:
            classes = list(labels)
            if len(classes) != k or len(set(classes)) != k:
                raise UsageError(f"labels= names the {k} columns of a multilabel y_true (distinct), found {classes!r}")
        weights = check_weights(sample_weight, n)
        return MultiInput(scores, classes, weights, indicator=truth)
    if labels is not None and len(labels) != k:
        raise UsageError(f"labels has {len(labels)} classes but {score_name} has {k} columns (one per class)")
    classes, (codes,) = encode_labels((y_true, "y_true"), labels=labels)
    check_lengths(y_true=codes, **{score_name: scores})
    if len(classes) != k:
        raise InputError(f"y_true has {len(classes)} classes {classes[:10]!r} but {score_name} has {k} columns; "
                         "pass labels= (one per column, in column order) when a class never occurs",
                         field="y_true")
    return MultiInput(scores, classes, check_weights(sample_weight, n), codes=codes)


def _check_average(average: Any, allowed: tuple = AVERAGE_CHOICES) -> None:
    check_choice(average, "average", allowed)


def _grouped_positives(data: MultiInput) -> list[np.ndarray]:
    """The scores of each class's positives, each array sorted."""
    if data.codes is not None:
        order = np.argsort(data.codes, kind="stable")
        bounds = np.searchsorted(data.codes[order], np.arange(len(data.classes) + 1))
        return [np.sort(data.scores[order[bounds[c]:bounds[c + 1]], c]) for c in range(len(data.classes))]
    return [np.sort(data.scores[data.indicator[:, c], c]) for c in range(len(data.classes))]


def _sorted_counts(column_sorted: np.ndarray, positives_sorted: np.ndarray) -> tuple[float, float]:
    """(AUC numerator 2·Σ₊(#neg below + ½ #neg tied), Σ₊ #pos ≥ s / #all ≥ s) of one class."""
    n, p = len(column_sorted), len(positives_sorted)
    lo = np.searchsorted(column_sorted, positives_sorted, side="left")
    hi = np.searchsorted(column_sorted, positives_sorted, side="right")
    twice_auc = int(lo.sum(dtype=np.int64)) + int(hi.sum(dtype=np.int64)) - p * p
    pos_lo = np.searchsorted(positives_sorted, positives_sorted, side="left")
    ap_sum = float(np.sum((p - pos_lo) / (n - lo))) if p else 0.0
    return twice_auc, ap_sum


def _per_class(data: MultiInput, what: str) -> np.ndarray:
    """AP or ROC AUC of each class against the rest (NaN where undefined)."""
    k = len(data.classes)
    n = len(data.scores)
    out = np.full(k, np.nan)
    if data.weights is not None:
        truth = data.truth()
        kept = data.weights != 0
        for c in range(k):
            positive = truth[kept, c]
            counts = _counts_weighted(positive, data.scores[kept, c], data.weights[kept])
            if counts.n_pos > 0 and (what == "ap" or counts.n_neg > 0):
                out[c] = _ap_from_counts(counts) if what == "ap" else _auc_from_counts(counts)
        return out
    positives = _grouped_positives(data)
    for c in range(k):  # one sort per class column; everything else vectorised
        p = len(positives[c])
        if p == 0 or (what == "auc" and p == n):
            continue
        twice_auc, ap_sum = _sorted_counts(np.sort(data.scores[:, c]), positives[c])
        out[c] = ap_sum / p if what == "ap" else twice_auc / (2.0 * p * (n - p))
    return out


def _micro(data: MultiInput, what: str) -> float:
    truth = data.truth()
    if data.weights is None:
        p = int(truth.sum())
        total = truth.size
        if p == 0 or (what == "auc" and p == total):
            raise InputError(f"micro-averaged {_NAMES[what]} is undefined: y_true has "
                             f"{'no positive' if p == 0 else 'no negative'} (sample, class) pair", field="y_true")
        twice_auc, ap_sum = _sorted_counts(np.sort(data.scores, axis=None), np.sort(data.scores[truth]))
        return ap_sum / p if what == "ap" else twice_auc / (2.0 * p * (total - p))
    weights = np.repeat(data.weights, len(data.classes))
    kept = weights != 0
    counts = _counts_weighted(truth.reshape(-1)[kept], data.scores.reshape(-1)[kept], weights[kept])
    if counts.n_pos <= 0 or (what == "auc" and counts.n_neg <= 0):
        raise InputError(f"micro-averaged {_NAMES[what]} is undefined: y_true has no positive (or no negative) "
                         "pair of non-zero weight", field="y_true")
    return _ap_from_counts(counts) if what == "ap" else _auc_from_counts(counts)


_NAMES = {"ap": "average precision", "auc": "ROC AUC"}


def _samples(data: MultiInput, what: str) -> float:
    if not data.multilabel:
        raise UsageError("average='samples' needs a multilabel y_true (an n×C indicator matrix)")
    stats = row_rank_counts(data.indicator, data.scores)
    n_rel = data.indicator.sum(axis=1)
    k = data.scores.shape[1]
    if what == "ap":
        per_row = np.bincount(stats.row, weights=stats.rel_ge / stats.all_ge, minlength=len(n_rel))
        values = np.divide(per_row, n_rel, out=np.zeros(len(n_rel)), where=n_rel > 0)
        if (n_rel == 0).any():
            warn_undefined("average precision of a sample without positive label is undefined; set to 0 "
                           "(as scikit-learn)")
    else:
        n_irr = k - n_rel
        if ((n_rel == 0) | (n_irr == 0)).any():
            i = int(np.flatnonzero((n_rel == 0) | (n_irr == 0))[0])
            raise InputError(f"ROC AUC with average='samples' is undefined for row {i}: it has only "
                             f"{'negative' if n_rel[i] == 0 else 'positive'} labels", field="y_true")
        irr_below = (k - stats.all_ge) - (n_rel[stats.row] - stats.rel_ge)
        irr_tied = (stats.all_ge - stats.all_gt) - (stats.rel_ge - stats.rel_gt)
        twice = np.bincount(stats.row, weights=2 * irr_below + irr_tied, minlength=len(n_rel))
        values = twice / (2.0 * n_rel * n_irr)
    if data.weights is None:
        return float(np.mean(values))
    return float(np.average(values, weights=data.weights))


def _average(data: MultiInput, what: str, average: Any) -> float | np.ndarray:
    _check_average(average)
    if average == "micro":
        return _micro(data, what)
    if average == "samples":
        return _samples(data, what)
    values = _per_class(data, what)
    undefined = np.isnan(values)
    if undefined.any():
        missing = [data.classes[c] for c in np.flatnonzero(undefined)]
        if what == "auc":
            raise InputError(f"ROC AUC is undefined for classes with no sample (or with every sample) in y_true: "
                             f"{missing[:10]!r}", field="y_true")
        warn_undefined(f"average precision is undefined for classes with no positive sample in y_true: "
                       f"{missing[:10]!r}; set to 0 (as scikit-learn)")
        values = np.where(undefined, 0.0, values)
    if average is None:
        return values
    if average == "macro":
        return float(np.mean(values))
    support = data.support()
    if support.sum() <= 0:
        raise InputError("average='weighted' needs at least one positive of non-zero weight", field="y_true")
    return float(np.average(values, weights=support))


def average_precision_multiclass(y_true: Any, y_score: Any, *, average: str | None = "macro",
                                 labels: Sequence[Hashable] | None = None, sample_weight: Any = None
                                 ) -> float | np.ndarray:
    """Average precision of each class against the rest, averaged: with ``average="macro"``, the
    mean average precision (mAP) over classes, the everyday detection figure.

    AP_c = Σₙ (Rₙ − Rₙ₋₁) Pₙ over the distinct scores of column c (step-wise, as
    :func:`.curves.average_precision` and scikit-learn's ``average_precision_score``). A class
    without positives has AP 0 and an :class:`UndefinedMeasureWarning` (scikit-learn's policy).
    ``average`` and the inputs: see the module docstring. References: Manning, Raghavan & Schütze
    (2008), §8.4; Everingham et al. (2010), IJCV 88 (mAP over classes).
    """
    data = multi_input(y_true, y_score, labels=labels, sample_weight=sample_weight)
    return _average(data, "ap", average)


def roc_auc_multiclass(y_true: Any, y_prob: Any = None, *, multi_class: str = "ovr", average: str | None = "macro",
                       sample_weight: Any = None, labels: Sequence[Hashable] | None = None,
                       y_score: Any = None) -> float | np.ndarray:
    """Multiclass (or multilabel) ROC AUC from an n×C score matrix (``y_prob`` or ``y_score``).

    ``multi_class="ovr"``: the AUC of each class against the rest (Provost & Domingos 2000), with
    ``average`` None, "macro", "weighted" (by prevalence), "micro" or "samples" (multilabel).
    ``"ovo"``: Hand & Till (2001), Machine Learning 45: M = 2/(C(C−1)) Σ_{j<l} (A(j|l) + A(l|j))/2,
    A(j|l) the AUC of class j against class l using column j, on the samples of those two classes;
    ``average="weighted"`` weighs each pair by its prevalence, as scikit-learn. OvO takes no sample
    weights (as scikit-learn). A class with no sample (or, OvR, no negative) is an error. Unlike
    scikit-learn, the scores need not be probabilities (the areas only rank them).
    """
    check_choice(multi_class, "multi_class", ("ovr", "ovo"))
    if (y_prob is None) == (y_score is None):
        raise UsageError("give the scores once, as y_prob or y_score")
    data = multi_input(y_true, y_score if y_prob is None else y_prob, labels=labels, sample_weight=sample_weight,
                       score_name="y_score" if y_prob is None else "y_prob")
    if multi_class == "ovr":
        return _average(data, "auc", average)
    _check_average(average, ("macro", "weighted"))
    if data.weights is not None:
        raise UsageError("sample_weight is not supported with multi_class='ovo'")
    if data.multilabel:
        raise UsageError("multi_class='ovo' needs one label per sample, not a multilabel y_true")
    return _ovo(data, average)


def _ovo(data: MultiInput, average: str) -> float:
    k = len(data.classes)
    support = np.bincount(data.codes, minlength=k)
    if (support == 0).any():
        missing = [data.classes[c] for c in np.flatnonzero(support == 0)]
        raise InputError(f"ROC AUC is undefined for classes with no sample in y_true: {missing[:10]!r}", field="y_true")
    order = np.argsort(data.codes, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(support)])
    # twice[j, l]: 2 Σ over samples of class j of (#class-l samples with a lower column-j score + ½ tied)
    twice = np.zeros((k, k))
    for j in range(k):  # one sort per (column, class) block; pairs counted by searchsorted
        column = data.scores[order, j]
        blocks = [np.sort(column[bounds[c]:bounds[c + 1]]) for c in range(k)]
        mine = blocks[j]
        for l in range(k):
            if l != j:
                other = blocks[l]
                twice[j, l] = (np.searchsorted(other, mine, side="left").sum(dtype=np.int64)
                               + np.searchsorted(other, mine, side="right").sum(dtype=np.int64))
    auc = twice / (2.0 * np.outer(support, support))
    j, l = np.triu_indices(k, 1)
    pair = (auc[j, l] + auc[l, j]) / 2
    if average == "macro":
        return float(pair.mean())
    return float(np.average(pair, weights=(support[j] + support[l]) / len(data.codes)))


def top_k_accuracy(y_true: Any, y_score: Any, *, k: int = 2, normalize: bool = True, sample_weight: Any = None,
                   labels: Sequence[Hashable] | None = None) -> float:
    """Fraction (``normalize=False``: weighted count) of samples whose true class is among the
    ``k`` highest-scored classes. Ties follow scikit-learn's ``top_k_accuracy_score``: among
    equal scores, the class of higher column index ranks first. So the true class c of a sample
    ranks 1 + #{j: s_j > s_c} + #{j > c: s_j = s_c}, computed without sorting. For two classes and
    a 1-D ``y_score`` (the second class's score), k = 1 predicts the second class iff the score
    exceeds 0.5 when all scores lie in [0, 1], else 0 (as scikit-learn); k ≥ 2 always hits.
    """
    k = check_count(k, "k")
    normalize = check_flag(normalize, "normalize")
    if not _is_matrix(y_score):
        scores = check_scores(y_score)
        classes, (codes,) = encode_labels((y_true, "y_true"), labels=labels)
        n = check_lengths(y_true=codes, y_score=scores)
        if len(classes) > 2:
            raise InputError(f"a 1-D y_score is for two classes; y_true has {len(classes)}: pass an n×C matrix",
                             field="y_score")
        if k >= 2:
            hits = np.ones(n, dtype=bool)
        else:
            threshold = 0.5 if n and scores.min() >= 0 and scores.max() <= 1 else 0.0
            hits = (scores > threshold).astype(np.intp) == codes
    else:
        data = multi_input(y_true, y_score, labels=labels, sample_weight=None)
        if data.multilabel:
            raise UsageError("top-k accuracy needs one label per sample, not a multilabel y_true")
        n = len(data.codes)
        rows = np.arange(n)
        mine = data.scores[rows, data.codes][:, None]
        after = np.arange(data.scores.shape[1])[None, :] > data.codes[:, None]
        rank = np.count_nonzero(data.scores > mine, axis=1) + np.count_nonzero((data.scores == mine) & after, axis=1)
        hits = rank < k
    weights = check_weights(sample_weight, n)
    if n == 0:
        raise InputError("no samples", field="y_true")
    if weights is None:
        return float(hits.mean()) if normalize else float(hits.sum())
    return float(np.average(hits, weights=weights)) if normalize else float(np.dot(hits, weights))
