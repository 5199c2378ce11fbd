"""Crowd labels → qrels: several workers label each (query, document) pair; their labels are merged
into one judgment per pair, with an estimate of each worker's quality.

Methods (``method=``):

* ``"majority"``: the most frequent label of the pair. **Ties** (``ties=``): ``"lowest"`` (default)
  takes the smallest of the tied labels — the conservative reading for relevance grades;
  ``"highest"`` the largest. (crowd-kit's ``MajorityVote`` takes the first tied column of its
  table, whose order follows pandas' ``value_counts``: not a rule one can state.) ``score``: the
  winning label's share of the votes.
* ``"dawid-skene"``: the maximum-likelihood model of Dawid & Skene (1979). Each worker w has a
  confusion matrix π_w[j, c] = P(w answers j | true label c); the labels of the pair share a
  class prior p_c. EM: the **E-step** gives each pair's posterior T[i, c] ∝ p_c Π_{labels (w, j) of i}
  π_w[j, c] (in log space, normalised by log-sum-exp); the **M-step** sets p = the mean posterior
  and π_w[j, c] ∝ Σ_{pairs i w labelled j} T[i, c] (normalised over j). **Initialisation**: T = the
  majority-vote shares (each pair's vote proportions), then p and π from T, as crowd-kit does.
  Entries of π_w for answers the worker gave are floored at ε = 1e-10 before normalising, and
  p at ε in the E-step (crowd-kit's floors; answers a worker never gave have probability 0).
  **Convergence**: stop after the first iteration whose E-step raises the mean log-likelihood per
  label, (1/L) Σ_i log Σ_c p_c Π π_w[j, c], by less than ``tol`` (default 1e-5), or after ``max_iter``
  (100) iterations; ``tol=None`` runs exactly ``max_iter`` iterations. (crowd-kit stops on its own
  evidence lower bound, so its iteration count can differ by one or two.) The label is the
  posterior mode (ties by ``ties``), ``score`` its posterior probability.
* ``"mean"``: the mean label, rounded to the nearest integer, halves down (``ties="lowest"``) or up
  (``"highest"``); ``score``: the unrounded mean.
* ``"median"``: the lower median (``ties="lowest"``: of an even count, the smaller middle label) or
  the upper median (``"highest"``); always a label some worker gave.

Worker quality (:attr:`Aggregated.workers`): the number of labels, the share of them equal to the
aggregated label of their pair, and with Dawid–Skene the diagonal of the worker's confusion matrix
(P(correct | true label c) per label) and its accuracy Σ_c p_c π_w[c, c].

Everything is vectorised over labels (bincount, log-sum-exp over a (pairs × labels) array, segment
sums with ``np.add.reduceat``): no Python loop over pairs, workers or labels.

References: A. P. Dawid & A. M. Skene (1979), "Maximum likelihood estimation of observer
error-rates using the EM algorithm", J. R. Stat. Soc. C 28(1) 20–28.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

import numpy as np

from .._exact import float_quotient, integer_totals, rounded_mean
from .._params import check_choice
from ..errors import InputError, UsageError
from ..io.labels import codes, read_labels
from ..retrieval.qrels import Qrels

__all__ = ["aggregate_labels", "Aggregated", "WorkerQuality", "AGGREGATION_METHODS", "TIE_RULES"]

AGGREGATION_METHODS = ("majority", "dawid-skene", "mean", "median")
TIE_RULES = ("lowest", "highest")
EPSILON = 1e-10
MAX_CELLS = 1 << 27  # pairs × labels (or workers × labels²) cells: 1 GiB of float64


@dataclass
class WorkerQuality:
    """Per worker: id, number of labels, agreement with the aggregate; Dawid–Skene estimates."""

    worker: list
    n_labels: np.ndarray
    agreement: np.ndarray
    classes: list
    confusion_diagonal: "np.ndarray | None" = None  # (workers, classes): P(answer c | true c)
    accuracy: "np.ndarray | None" = None  # Σ_c p_c P(answer c | true c)

    def rows(self) -> tuple[list, list]:
        """(column names, rows) for a table or CSV."""
        columns = ["worker", "labels", "agreement_with_aggregate"]
        data = [self.worker, self.n_labels.tolist(), self.agreement.tolist()]
        if self.accuracy is not None:
            columns.append("ds_accuracy")
            data.append(self.accuracy.tolist())
            for j, c in enumerate(self.classes):
                columns.append(f"ds_p_correct_{c}")
                data.append(self.confusion_diagonal[:, j].tolist())
        return columns, [list(r) for r in zip(*data)]


@dataclass
class Aggregated:
    """Aggregated judgments: one row per (query, document) pair, in order of first appearance of
    the query, then of the document, in the labels."""

    query: list
    document: list
    label: np.ndarray
    score: np.ndarray
    n_labels: np.ndarray
    workers: WorkerQuality
    settings: dict
    classes: list = field(default_factory=list)
    posteriors: "np.ndarray | None" = field(default=None, repr=False)
    priors: "np.ndarray | None" = None
    confusion: "np.ndarray | None" = field(default=None, repr=False)  # (workers, answer, true)
    n_iter: int = 0
    log_likelihood: list = field(default_factory=list)

    def to_qrels(self):
        """The judgments as :class:`cranfield.Qrels` (``rel`` = the aggregated label)."""
        return Qrels(self.query, self.document, self.label, source="aggregated labels",
                     name=self.settings.get("method"))

    def write_qrels(self, path: "str | os.PathLike") -> None:
        """Write TREC qrels text (``qid 0 docno rel``), atomically."""
        self.to_qrels().to_trec(path)

    def workers_csv(self) -> str:
        """The worker table as CSV text (the settings in a leading ``#`` comment line)."""
        import csv
        import io

        columns, rows = self.workers.rows()
        buffer = io.StringIO()
        buffer.write("# " + ", ".join(f"{k}={v}" for k, v in self.settings.items()) + "\n")
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows([[f"{v:.6f}" if isinstance(v, float) else v for v in row] for row in rows])
        return buffer.getvalue()


def _check_options(method, ties, max_iter, tol) -> None:
    if not isinstance(method, str) or method not in AGGREGATION_METHODS:
        check_choice(method, "method", AGGREGATION_METHODS)
    if not isinstance(ties, str) or ties not in TIE_RULES:
        check_choice(ties, "ties", TIE_RULES)
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or not 1 <= max_iter <= 100_000:
        raise UsageError(f"max_iter: expected a whole number from 1 to 100000, found {max_iter!r}")
    if tol is not None and (isinstance(tol, bool) or not isinstance(tol, (int, float, np.floating))
                            or not math.isfinite(tol) or tol < 0):
        raise UsageError(f"tol: expected a number >= 0 or None, found {tol!r}")


def aggregate_labels(labels, *, method: str = "majority", ties: str = "lowest", max_iter: int = 100,
                     tol: "float | None" = 1e-5) -> Aggregated:
    """Merge crowd labels into one judgment per (query, document) pair (see the module documentation).

    ``labels``: anything :func:`cranfield.io.labels.read_labels` reads (a CSV/TSV/Parquet path, a
    frame, a dict, :class:`~cranfield.io.labels.CrowdLabels`).

    >>> a = aggregate_labels({"q1": {"d1": {"w1": 1, "w2": 1, "w3": 0}, "d2": {"w1": 0, "w2": 1}}})
    >>> a.document, a.label.tolist(), a.score.tolist()
    (['d1', 'd2'], [1, 0], [0.6666666666666666, 0.5])
    """
    _check_options(method, ties, max_iter, tol)
    data = read_labels(labels)
    if len(data) == 0:
        raise InputError("no labels to aggregate; expected at least one row", source=data.source)
    qc, q_names = codes(data.query)
    dc, d_names = codes(data.document)
    wc, w_names = codes(data.worker)
    pair_keys, pair = np.unique(qc * len(d_names) + dc, return_inverse=True)
    pair = pair.reshape(-1)
    classes, cls = np.unique(data.label, return_inverse=True)
    cls = cls.reshape(-1)
    n_pairs, k, n_workers = pair_keys.size, classes.size, len(w_names)
    if n_pairs * k > MAX_CELLS or n_workers * k * k > MAX_CELLS:
        raise UsageError(f"{k} distinct labels for {n_pairs:,} pairs and {n_workers:,} workers exceed the limit of "
                         f"{MAX_CELLS:,} cells; labels are meant to be relevance grades")
    votes = np.bincount(pair * k + cls, minlength=n_pairs * k).reshape(n_pairs, k).astype(np.float64)
    n_labels = votes.sum(axis=1)
    settings = {"method": method, "ties": ties, "labels": int(len(data)), "pairs": int(n_pairs),
                "workers": int(n_workers), "source": data.source}
    extra: dict = {}
    if method == "majority":
        index = _mode(votes, ties)
        score = votes[np.arange(n_pairs), index] / n_labels
        result = classes[index]
    elif method == "dawid-skene":
        settings.update(max_iter=int(max_iter), tol=tol, initialisation="majority-vote shares", epsilon=EPSILON)
        posteriors, priors, confusion, n_iter, history = _dawid_skene(pair, wc, cls, votes, n_workers, max_iter, tol)
        index = _mode(posteriors, ties)
        score = posteriors[np.arange(n_pairs), index]
        result = classes[index]
        settings["iterations"] = n_iter
        extra = dict(posteriors=posteriors, priors=priors, confusion=confusion, n_iter=n_iter,
                     log_likelihood=history)
    elif method == "mean":
        totals = integer_totals(votes, classes)  # exact: labels near 2**63 neither overflow nor round
        score = float_quotient(totals, n_labels)
        result = rounded_mean(totals, n_labels, halves="down" if ties == "lowest" else "up")
    else:
        cumulative = np.cumsum(votes, axis=1)
        middle = (n_labels - 1) // 2 if ties == "lowest" else n_labels // 2  # 0-based rank of the median label
        index = (cumulative <= middle[:, None]).sum(axis=1)
        result = classes[index]
        score = result.astype(np.float64)
    result = np.asarray(result, dtype=np.int64)
    agree = (data.label == result[pair]).astype(np.float64)
    per_worker = np.bincount(wc, minlength=n_workers).astype(np.float64)
    quality = WorkerQuality(worker=list(w_names), n_labels=per_worker.astype(np.int64),
                            agreement=np.bincount(wc, weights=agree, minlength=n_workers) / per_worker,
                            classes=classes.tolist())
    if method == "dawid-skene":
        diagonal = extra["confusion"][:, np.arange(k), np.arange(k)]
        quality.confusion_diagonal = diagonal
        quality.accuracy = diagonal @ extra["priors"]
    query = [q_names[i] for i in (pair_keys // len(d_names)).tolist()]
    document = [d_names[i] for i in (pair_keys % len(d_names)).tolist()]
    return Aggregated(query=query, document=document, label=result, score=np.asarray(score, dtype=np.float64),
                      n_labels=n_labels.astype(np.int64), workers=quality, settings=settings,
                      classes=classes.tolist(), **extra)


def _mode(weights: np.ndarray, ties: str) -> np.ndarray:
    """Column of the largest weight per row; ties to the first (lowest) or the last (highest)."""
    if ties == "lowest":
        return np.argmax(weights, axis=1)
    return weights.shape[1] - 1 - np.argmax(weights[:, ::-1], axis=1)


def _dawid_skene(pair, worker, cls, votes, n_workers, max_iter, tol):
    """EM of Dawid & Skene (module documentation); returns posteriors, priors, confusion
    (workers, answer, true), iterations run and the log-likelihood per label of each E-step."""
    n_pairs, k = votes.shape
    n = pair.size
    order = np.argsort(pair, kind="stable")  # labels grouped by pair, for the segment sums
    starts = np.flatnonzero(np.r_[True, pair[order][1:] != pair[order][:-1]])
    answer = worker * k + cls  # row of the worker's confusion matrix for each label
    given = np.bincount(answer, minlength=n_workers * k) > 0
    posteriors = votes / votes.sum(axis=1, keepdims=True)

    def m_step(t):
        counts = np.stack([np.bincount(answer, weights=t[pair, c], minlength=n_workers * k) for c in range(k)], 1)
        counts[given] = np.maximum(counts[given], EPSILON)
        confusion = counts.reshape(n_workers, k, k)
        return t.mean(axis=0), confusion / confusion.sum(axis=1, keepdims=True)

    priors, confusion = m_step(posteriors)
    history: list[float] = []
    iterations = 0
    for iterations in range(1, max_iter + 1):
        with np.errstate(divide="ignore"):
            log_confusion = np.log(confusion.reshape(n_workers * k, k))
        log_post = np.add.reduceat(log_confusion[answer[order]], starts, axis=0) + np.log(np.maximum(priors, EPSILON))
        top = log_post.max(axis=1, keepdims=True)
        scaled = np.exp(log_post - top)
        total = scaled.sum(axis=1, keepdims=True)
        posteriors = scaled / total
        history.append(float((np.log(total[:, 0]) + top[:, 0]).sum() / n))
        priors, confusion = m_step(posteriors)
        if tol is not None and len(history) > 1 and history[-1] - history[-2] < tol:
            break
    return posteriors, priors, confusion, iterations, history
