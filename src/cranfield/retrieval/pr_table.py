"""Precision–recall data of a run: the (recall, precision) pair at every rank of every query,
and the interpolated precision at fixed recall levels (the recall–precision graph's data).

    precision_i = relret_i / i,   recall_i = relret_i / R      (rank i = 1 … retrieved)
    IPrec(r)    = max{ precision_i : i ≥ i_c }, i_c the rank of the c-th relevant document,
                  c = ⌊r·R + 0.9⌋ (trec_eval 9; rounding="nearest" for trec_eval 10)

The ranking follows trec_eval (score descending, ties by docno descending); recall is 0 for a
query without relevant documents. The 11-point table's column means are the points of the
averaged recall–precision graph; their mean is IPrec11 (trec_eval 11pt_avg).

References: Salton & McGill 1983 ch. 5; Manning, Raghavan & Schütze 2008 §8.4 (fig. 8.2).

>>> t = pr_table({"q": {"a": 1, "b": 1}}, {"q": {"a": 3.0, "x": 2.0, "b": 1.0}})
>>> t.rank.tolist(), t.precision.round(3).tolist(), t.recall.tolist()
([1, 2, 3], [1.0, 0.5, 0.667], [0.5, 0.5, 1.0])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._params import check_choice, usage_error
from ..measures.interpolated import _iprec_values
from .evaluate import Evaluator

__all__ = ["PRTable", "IPrecTable", "pr_table", "iprec_table"]


@dataclass(frozen=True)
class PRTable:
    """(recall, precision) after each rank, queries concatenated (``offsets`` delimit them)."""

    query_ids: np.ndarray
    offsets: np.ndarray
    rank: np.ndarray  # 1-based rank within its query
    relevant: np.ndarray  # bool: the document at this rank is relevant
    precision: np.ndarray
    recall: np.ndarray

    def query(self, qid: str) -> "PRTable":
        """The rows of one query."""
        index = np.flatnonzero(self.query_ids == qid)
        if not index.size:
            raise KeyError(qid)
        i = int(index[0])
        rows = slice(int(self.offsets[i]), int(self.offsets[i + 1]))
        return PRTable(self.query_ids[i:i + 1], np.array([0, rows.stop - rows.start]), self.rank[rows],
                       self.relevant[rows], self.precision[rows], self.recall[rows])

    def to_pandas(self):
        """One row per (query, rank): qid, rank, relevant, precision, recall."""
        import pandas as pd

        qid = np.repeat(self.query_ids, np.diff(self.offsets))
        return pd.DataFrame({"qid": qid, "rank": self.rank, "relevant": self.relevant,
                             "precision": self.precision, "recall": self.recall})


@dataclass(frozen=True)
class IPrecTable:
    """Interpolated precision per query (rows) at each recall level (columns)."""

    query_ids: np.ndarray
    levels: tuple[float, ...]
    values: np.ndarray  # (n_queries, n_levels)

    @property
    def mean(self) -> np.ndarray:
        """Per level, the mean over queries: the averaged recall–precision graph."""
        return self.values.mean(axis=0) if self.values.shape[0] else np.zeros(len(self.levels))

    def to_pandas(self):
        import pandas as pd

        return pd.DataFrame(self.values, index=pd.Index(list(self.query_ids), name="qid"),
                            columns=[float(level) for level in self.levels])


def _view(qrels, run, options):
    return Evaluator(qrels, ["NumRet"], **options).view(run)


def pr_table(qrels, run, *, relevance_level: int = 1, complete: bool = False, max_results: int | None = None,
             judged_only: bool = False) -> PRTable:
    """The precision and recall after each rank of each query (see the module docstring)."""
    v = _view(qrels, run, dict(relevance_level=relevance_level, complete=complete, max_results=max_results,
                              judged_only=judged_only))
    precision = v.cum_rel / (v.pos + 1.0)
    num_rel = v.num_rel[v.seg].astype(np.float64)
    recall = np.divide(v.cum_rel, num_rel, out=np.zeros(v.rel.size), where=num_rel > 0)
    return PRTable(v.query_ids, v.offsets, v.pos + 1, v.is_rel, precision, recall)


def iprec_table(qrels, run, *, levels=tuple(i / 10 for i in range(11)), rounding: str = "trec9",
                relevance_level: int = 1, complete: bool = False, max_results: int | None = None,
                judged_only: bool = False) -> IPrecTable:
    """Interpolated precision of each query at each recall level (default the 11 points)."""
    levels = tuple(float(level) for level in levels)
    if not levels or not all(0.0 <= level <= 1.0 for level in levels):
        raise usage_error("levels", "a non-empty list of numbers from 0 to 1", list(levels))
    check_choice(rounding, "rounding", ("trec9", "nearest"))
    v = _view(qrels, run, dict(relevance_level=relevance_level, complete=complete, max_results=max_results,
                              judged_only=judged_only))
    values = np.column_stack([_iprec_values(v, level, rounding) for level in levels]) if v.n_queries \
        else np.zeros((0, len(levels)))
    if v.in_run is not None:
        values[~v.in_run] = 0.0
    return IPrecTable(v.query_ids, levels, values)
