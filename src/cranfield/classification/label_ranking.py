"""Label ranking: each sample's row of C class scores ranks its labels (multilabel ranking).

``y_true`` is an n×C matrix — 0/1 relevance for label-ranking average precision (LRAP), coverage
error and ranking loss; real-valued gains for DCG and nDCG — and ``y_score`` an n×C score matrix.
All rows are handled at once: one ``argsort`` along the rows, then runs of tied scores found by
comparing neighbours, and per-run sums by ``bincount`` (no Python loop over samples).

References: Tsoumakas, Katakis & Vlahavas (2010), "Mining multi-label data", Data Mining and
Knowledge Discovery Handbook (LRAP, coverage, ranking loss); Järvelin & Kekäläinen (2002), ACM
TOIS 20 (DCG); McSherry & Najork (2008), ECIR (DCG averaged over the orders of tied scores).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._params import check_count, check_interval
from ..errors import InputError
from ._validation import _indicator, as_matrix, check_flag, check_weights, score_matrix

__all__ = ["label_ranking_average_precision", "coverage_error", "label_ranking_loss", "dcg_score", "ndcg_score"]


@dataclass(frozen=True)
class RankCounts:
    """For every relevant (row, label): its row, and the numbers of labels (``all_``) and of
    relevant labels (``rel_``) of that row scored ≥ (``_ge``) and > (``_gt``) its score."""

    row: np.ndarray
    all_ge: np.ndarray
    all_gt: np.ndarray
    rel_ge: np.ndarray
    rel_gt: np.ndarray


def _runs(sorted_scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and end column of the run of equal scores holding each cell of row-sorted scores."""
    n, k = sorted_scores.shape
    new = np.ones((n, k), dtype=bool)
    np.not_equal(sorted_scores[:, 1:], sorted_scores[:, :-1], out=new[:, 1:])
    last = np.ones((n, k), dtype=bool)
    last[:, :-1] = new[:, 1:]
    column = np.broadcast_to(np.arange(k), (n, k))
    start = np.maximum.accumulate(np.where(new, column, 0), axis=1)
    end = np.minimum.accumulate(np.where(last, column, k)[:, ::-1], axis=1)[:, ::-1]
    return start, end


def row_rank_counts(relevant: np.ndarray, scores: np.ndarray) -> RankCounts:
    """The per-row rank statistics of :class:`RankCounts` (relevant: n×C bool, scores: n×C)."""
    order = np.argsort(-scores, axis=1, kind="stable")
    ordered = np.take_along_axis(scores, order, axis=1)
    rel = np.take_along_axis(relevant, order, axis=1)
    start, end = _runs(ordered)
    cum = np.cumsum(rel, axis=1)
    rel_ge = np.take_along_axis(cum, end, axis=1)
    rel_gt = np.where(start > 0, np.take_along_axis(cum, np.maximum(start - 1, 0), axis=1), 0)
    row, _ = np.nonzero(rel)
    return RankCounts(row, (end + 1)[rel], start[rel], rel_ge[rel], rel_gt[rel])


def _binary_input(y_true: Any, y_score: Any, sample_weight: Any):
    scores = score_matrix(y_score)
    truth = _indicator(as_matrix(y_true, "y_true"), scores.shape)
    if scores.shape[0] == 0:
        raise InputError("no samples", field="y_true")
    return truth, scores, check_weights(sample_weight, scores.shape[0])


def _mean(values: np.ndarray, weights: np.ndarray | None) -> float:
    return float(np.mean(values)) if weights is None else float(np.average(values, weights=weights))


def label_ranking_average_precision(y_true: Any, y_score: Any, *, sample_weight: Any = None) -> float:
    """LRAP: for each sample, the mean over its relevant labels j of
    |{relevant k: s_k ≥ s_j}| / |{k: s_k ≥ s_j}| (a tie ranks every tied label at the lowest
    rank of the tie, scikit-learn's rule), averaged over samples. A sample with no relevant label,
    or with all labels relevant, scores 1 (scikit-learn's policy). Equals scikit-learn's
    ``label_ranking_average_precision_score``."""
    truth, scores, weights = _binary_input(y_true, y_score, sample_weight)
    stats = row_rank_counts(truth, scores)
    n, k = truth.shape
    n_rel = truth.sum(axis=1)
    sums = np.bincount(stats.row, weights=stats.rel_ge / stats.all_ge, minlength=n)
    values = np.where((n_rel == 0) | (n_rel == k), 1.0, sums / np.maximum(n_rel, 1))
    return _mean(values, weights)


def coverage_error(y_true: Any, y_score: Any, *, sample_weight: Any = None) -> float:
    """Coverage error: how far down the ranking one must go to cover every relevant label, i.e. the
    number of labels scored ≥ the lowest-scored relevant label (ties count in full); 0 for a
    sample without relevant labels. Equals scikit-learn's ``coverage_error``."""
    truth, scores, weights = _binary_input(y_true, y_score, sample_weight)
    lowest = np.min(np.where(truth, scores, np.inf), axis=1, keepdims=True)
    coverage = np.where(truth.any(axis=1), np.count_nonzero(scores >= lowest, axis=1), 0)
    return _mean(coverage.astype(np.float64), weights)


def label_ranking_loss(y_true: Any, y_score: Any, *, sample_weight: Any = None) -> float:
    """Ranking loss: the fraction of (relevant, irrelevant) label pairs of a sample that are
    mis-ordered, the irrelevant label scored ≥ the relevant one (a tie counts as an error), averaged
    over samples; 0 for a sample whose labels are all relevant or all irrelevant. Equals
    scikit-learn's ``label_ranking_loss``."""
    truth, scores, weights = _binary_input(y_true, y_score, sample_weight)
    stats = row_rank_counts(truth, scores)
    n, k = truth.shape
    n_rel = truth.sum(axis=1)
    wrong = np.bincount(stats.row, weights=(stats.all_ge - stats.rel_ge).astype(np.float64), minlength=n)
    pairs = n_rel * (k - n_rel)
    values = np.divide(wrong, pairs, out=np.zeros(n), where=pairs > 0)
    return _mean(values, weights)


def _discounts(k_labels: int, k: int | None, log_base: float) -> np.ndarray:
    discount = 1 / (np.log(np.arange(k_labels) + 2) / np.log(log_base))
    if k is not None:
        discount[k:] = 0
    return discount


def _check_k_base(k: Any, log_base: Any) -> None:
    if k is not None:
        check_count(k, "k")
    check_interval(log_base, "log_base", low=1, closed="neither")


def _dcg_rows(gains: np.ndarray, scores: np.ndarray, discount: np.ndarray, ignore_ties: bool) -> np.ndarray:
    n, c = gains.shape
    order = np.argsort(scores, axis=1, kind="stable")[:, ::-1]  # ties: the later column first
    ranked = np.take_along_axis(gains, order, axis=1)
    if ignore_ties:
        return ranked @ discount
    start, _ = _runs(np.take_along_axis(scores, order, axis=1))
    run = (start + np.arange(n)[:, None] * c).reshape(-1)  # a global id per run of tied scores
    sizes = np.bincount(run, minlength=n * c)
    gain_sums = np.bincount(run, weights=ranked.reshape(-1), minlength=n * c)
    discount_sums = np.bincount(run, weights=np.broadcast_to(discount, (n, c)).reshape(-1), minlength=n * c)
    per_run = np.divide(gain_sums, sizes, out=np.zeros(n * c), where=sizes > 0) * discount_sums
    return per_run.reshape(n, c).sum(axis=1)


def _gain_input(y_true: Any, y_score: Any, sample_weight: Any):
    gains = score_matrix(y_true, "y_true")
    scores = score_matrix(y_score)
    if gains.shape != scores.shape:
        raise InputError(f"y_true has shape {gains.shape} but y_score has shape {scores.shape}", field="y_true")
    if gains.shape[1] < 2:
        raise InputError("DCG needs at least two labels (columns) per sample", field="y_score")
    return gains, scores, check_weights(sample_weight, gains.shape[0])


def dcg_score(y_true: Any, y_score: Any, *, k: int | None = None, log_base: float = 2, sample_weight: Any = None,
              ignore_ties: bool = False) -> float:
    """Discounted cumulative gain: Σᵣ g₍ᵣ₎ / log_b(r + 1) over the labels ranked by decreasing
    score (the first ``k`` ranks), averaged over samples. Gains ``y_true`` are any real numbers.
    Tied scores: the gain of each tied label is replaced by the mean gain of its tie group, times
    the discounts of the ranks the group spans (McSherry & Najork 2008, scikit-learn's default);
    ``ignore_ties=True`` ranks ties by decreasing column index instead. Equals scikit-learn's
    ``dcg_score``."""
    _check_k_base(k, log_base)
    ignore_ties = check_flag(ignore_ties, "ignore_ties")
    gains, scores, weights = _gain_input(y_true, y_score, sample_weight)
    discount = _discounts(gains.shape[1], k, float(log_base))
    return _mean(_dcg_rows(gains, scores, discount, ignore_ties), weights)


def ndcg_score(y_true: Any, y_score: Any, *, k: int | None = None, sample_weight: Any = None,
               ignore_ties: bool = False) -> float:
    """Normalised DCG: DCG / ideal DCG (the DCG of the labels ranked by their gains), per sample,
    averaged; a sample whose ideal DCG is 0 scores 0 (scikit-learn's policy). Gains must be ≥ 0.
    Ties as :func:`dcg_score`; the log base cancels. Equals scikit-learn's ``ndcg_score``."""
    _check_k_base(k, 2)
    ignore_ties = check_flag(ignore_ties, "ignore_ties")
    gains, scores, weights = _gain_input(y_true, y_score, sample_weight)
    if (gains < 0).any():
        i, j = np.argwhere(gains < 0)[0]
        raise InputError(f"nDCG needs gains ≥ 0, found {gains[i, j]} in row {i}, column {j}", field="y_true")
    discount = _discounts(gains.shape[1], k, 2.0)
    dcg = _dcg_rows(gains, scores, discount, bool(ignore_ties))
    ideal = _dcg_rows(gains, gains, discount, True)
    values = np.divide(dcg, ideal, out=np.zeros_like(dcg), where=ideal != 0)
    return _mean(values, weights)
