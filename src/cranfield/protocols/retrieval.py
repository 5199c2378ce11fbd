"""``tune_on_queries``: pick the best of several runs (parameter settings) on training queries,
report it on test queries; k-fold over queries so that every query is a test query once.

Reporting the best of n runs on the queries it was picked on is optimistic (the maximum of n
noisy means); the honest figure is the cross-validated one. Reference: the train/test query
protocol of TREC-style parameter tuning, e.g. Metzler & Croft (2007), "Linear feature-based
models for information retrieval", Information Retrieval 10(3) (5-fold over queries).

Policies: the queries are those of ``qrels`` with at least one relevant document (rel ≥
``relevance_level``), as trec_eval averages; a run that misses such a query scores 0 on it
(trec_eval ``-c``), so that all runs are measured on the same queries. Each run is evaluated
once; a split takes the per-query values of its queries, which equals evaluating the qrels
and runs sliced by :func:`~cranfield.protocols.splits.subset_queries` (tested).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import UsageError
from ..io.tables import Table
from ..retrieval.evaluate import Evaluator
from ..retrieval.qrels import read_qrels
from ..retrieval.run import read_run
from ._html import TableReport
from .splits import query_holdout, query_kfold, relevant_counts

__all__ = ["QueryTuning", "tune_on_queries", "per_query_matrix"]


@dataclass(eq=False)
class QueryTuning(TableReport):
    """Result of :func:`tune_on_queries`.

    ``values[r, q]``: the measure of run r on query ``query_ids[q]``; per split s:
    ``train_means[s, r]``, ``chosen[s]`` (run index) and ``test_means[s]``;
    ``test_values[rep, q]``: the chosen run's value on query q when q was a test query in repeat
    ``rep`` (NaN if it never was, with a holdout split).
    """

    measure: str
    runs: list[str]
    query_ids: np.ndarray
    values: np.ndarray
    splits: list[tuple[np.ndarray, np.ndarray]]
    repeat_of: np.ndarray
    train_means: np.ndarray
    chosen: np.ndarray
    test_means: np.ndarray
    test_values: np.ndarray
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def mean(self) -> float:
        """The cross-validated estimate: the mean over test queries of the runs chosen without
        them (averaged over repeats; with a holdout, the test mean)."""
        return float(np.nanmean(np.nanmean(self.test_values, axis=1)))

    @property
    def run_means(self) -> dict[str, float]:
        """Each run's mean over all queries (picking the best of these is the optimistic figure)."""
        return {name: float(v) for name, v in zip(self.runs, self.values.mean(axis=1))}

    @property
    def oracle(self) -> tuple[str, float]:
        """The run that is best on all queries and its mean: tuned on the test queries (optimistic)."""
        means = self.values.mean(axis=1)
        best = int(np.argmax(means))
        return self.runs[best], float(means[best])

    @property
    def chosen_counts(self) -> dict[str, int]:
        counts = np.bincount(self.chosen, minlength=len(self.runs))
        return {name: int(c) for name, c in zip(self.runs, counts)}

    def to_pandas(self):
        """One row per split: repeat, fold, query counts, chosen run, its train and test means."""
        import pandas as pd

        rows = []
        repeats = self.repeat_of
        for s, (train, test) in enumerate(self.splits):
            rows.append({"repeat": int(repeats[s]), "fold": int(s - np.flatnonzero(repeats == repeats[s])[0]),
                         "n_train": len(train), "n_test": len(test), "chosen": self.runs[self.chosen[s]],
                         "train": float(self.train_means[s, self.chosen[s]]), "test": float(self.test_means[s])})
        return pd.DataFrame(rows)

    def table(self, *, digits: int = 4):
        frame_rows = self.to_pandas().to_dict("records")
        rows = [[r["repeat"], r["fold"], r["n_train"], r["n_test"], r["chosen"], r["train"], r["test"]]
                for r in frame_rows]
        oracle_name, oracle_mean = self.oracle
        notes = [f"cross-validated {self.measure}: {self.mean:.{digits}f} over {len(self.query_ids)} queries",
                 f"best on all queries (optimistic, tuned on the test queries): {oracle_name} "
                 f"{oracle_mean:.{digits}f}",
                 "chosen: " + ", ".join(f"{k} ×{v}" for k, v in self.chosen_counts.items() if v)]
        return Table(["repeat", "fold", "train queries", "test queries", "chosen", f"{self.measure} train",
                      f"{self.measure} test"], rows, title=f"Tuning on queries: {self.measure}", digits=digits,
                     notes=notes)

    def __repr__(self) -> str:
        return (f"<QueryTuning {self.measure}: cross-validated {self.mean:.4f} over {len(self.query_ids)} queries, "
                f"{len(self.splits)} splits, {len(self.runs)} runs>")


def _named_runs(runs: Any) -> tuple[list[str], list]:
    if isinstance(runs, dict):
        names = [str(k) for k in runs]
        items = [read_run(v, name=str(k)) for k, v in runs.items()]
    else:
        items = [read_run(v) for v in runs]
        names = [r.name or f"run{i}" for i, r in enumerate(items)]
    if len(items) < 2:
        raise UsageError(f"give at least two runs (settings) to choose from, found {len(items)}")
    if len(set(names)) != len(names):
        raise UsageError(f"run names are not unique: {names!r}; pass a dict name -> run")
    return names, items


def per_query_matrix(qrels, runs: Any, measure: str, *, relevance_level: int = 1, **evaluate_options):
    """(measure name, run names, query ids, values[run, query]) under the module's policies."""
    names, items = _named_runs(runs)
    if "complete" in evaluate_options:
        raise UsageError("complete= is fixed: runs missing a query score 0 on it, so that all runs share the queries")
    evaluator = Evaluator(qrels, [measure], relevance_level=relevance_level, complete=True, **evaluate_options)
    if len(evaluator.measures) != 1:
        raise UsageError(f"measure: expected one measure, found {len(evaluator.measures)} in {measure!r}")
    key = str(evaluator.measures[0])
    counts = relevant_counts(evaluator.qrels, relevance_level=relevance_level)
    results = [evaluator.evaluate(run, name=name) for name, run in zip(names, items)]
    query_ids = np.asarray(results[0].query_ids, dtype=object)
    keep = np.array([counts.get(q, 0) > 0 for q in query_ids.tolist()], dtype=bool)
    values = np.vstack([r.per_query[key] for r in results])[:, keep]
    return key, names, query_ids[keep], values


def tune_on_queries(qrels, runs: Any, *, measure: str = "AP", cv: int = 5, repeats: int = 1,
                    test_size: float | None = None, strata: Any = None, n_bins: int = 4, random_state=None,
                    relevance_level: int = 1, **evaluate_options) -> QueryTuning:
    """Choose among ``runs`` (a dict name → run, or runs with distinct names; a run is anything
    :func:`cranfield.read_run` accepts — one per parameter setting) by the mean of ``measure`` on
    training queries, and report the chosen run on the test queries.

    ``cv``: k-fold over queries (``repeats`` times), or ``test_size``: one holdout split.
    ``strata``: ``"relevant"`` (stratify by the number of relevant documents, cut into ``n_bins``
    quantile bins), a mapping qid → attribute, or None (random). Ties on the training mean go to
    the first run. Other options (``max_results``, ``judged_only``…) go to the evaluator.
    """
    key, names, query_ids, values = per_query_matrix(qrels, runs, measure, relevance_level=relevance_level,
                                                     **evaluate_options)
    if isinstance(strata, str):
        if strata != "relevant":
            raise UsageError(f"strata: expected 'relevant', a mapping qid -> attribute or None, found {strata!r}")
        strata = relevant_counts(read_qrels(qrels), relevance_level=relevance_level)
    if test_size is not None:
        if repeats != 1:
            raise UsageError("repeats applies to k-fold (cv=); a holdout split is one split")
        splits = [query_holdout(query_ids, test_size=test_size, strata=strata, n_bins=n_bins,
                                random_state=random_state)]
        repeat_of = np.zeros(1, dtype=np.int64)
    else:
        splits = query_kfold(query_ids, n_splits=cv, repeats=repeats, strata=strata, n_bins=n_bins,
                             random_state=random_state)
        repeat_of = np.repeat(np.arange(repeats), cv)
    position = {q: i for i, q in enumerate(query_ids.tolist())}
    n_repeats = int(repeat_of.max()) + 1
    train_means = np.empty((len(splits), len(names)))
    chosen = np.empty(len(splits), dtype=np.int64)
    test_means = np.empty(len(splits))
    test_values = np.full((n_repeats, len(query_ids)), np.nan)
    for s, (train, test) in enumerate(splits):  # a loop over splits; queries are vectorised
        tr = np.fromiter((position[q] for q in train), dtype=np.int64, count=len(train))
        te = np.fromiter((position[q] for q in test), dtype=np.int64, count=len(test))
        train_means[s] = values[:, tr].mean(axis=1)
        chosen[s] = int(np.argmax(train_means[s]))
        test_means[s] = values[chosen[s], te].mean()
        test_values[repeat_of[s], te] = values[chosen[s], te]
    settings = {"cv": None if test_size is not None else cv, "repeats": repeats, "test_size": test_size,
                "stratified": strata is not None, "random_state": random_state if isinstance(random_state, (int, type(None)))
                else repr(random_state), "relevance_level": relevance_level}
    return QueryTuning(key, names, query_ids, values, splits, repeat_of, train_means, chosen, test_means,
                       test_values, settings)
