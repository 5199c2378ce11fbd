"""Evaluation results: per-query values and their aggregates, with exports."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Results", "aggregate", "micro_aggregate"]

MIN_GEO_MEAN = 0.00001


def aggregate(values: np.ndarray, how: str, n: int | None = None) -> float:
    """Summarise per-query values as trec_eval does: the sum added query by query, divided by
    ``n`` (default: the number of values); ``gmean`` averages log(max(v, 1e-5)); ``sum`` sums."""
    n = values.size if n is None else n
    if values.size == 0 or n == 0:
        return 0.0
    if how == "gmean":
        logs = np.log(np.maximum(values, MIN_GEO_MEAN))
        total = float(np.cumsum(logs)[-1]) + (n - values.size) * math.log(MIN_GEO_MEAN)
        return math.exp(total / n)
    total = float(np.cumsum(values)[-1])
    return total if how == "sum" else total / n


def micro_aggregate(numerators: np.ndarray, denominators: np.ndarray) -> float:
    """Micro average: Σ numerators / Σ denominators over queries (0 when Σ denominators = 0)."""
    denominator = float(np.sum(denominators))
    return float(np.sum(numerators)) / denominator if denominator else 0.0


@dataclass
class Results:
    """Per-query values of each measure for one run, and their aggregates.

    ``query_ids`` are sorted byte-wise; ``per_query[name]`` is aligned with them;
    ``mean[name]`` is the aggregate trec_eval reports (mean; geometric mean for GMAP/GMBpref;
    sum for counts such as NumRet; with ``aggregate="micro"``, Σ numerators / Σ denominators).
    ``median`` and ``gmean`` give the median and the geometric mean (floor 1e-5) of the per-query
    values; ``to_pandas()`` the per-query table.
    """

    run_name: str
    measures: tuple
    query_ids: np.ndarray
    per_query: dict[str, np.ndarray]
    mean: dict[str, float]
    settings: dict[str, Any] = field(default_factory=dict)
    in_run: np.ndarray | None = None

    @property
    def median(self) -> dict[str, float]:
        """The median of each measure's per-query values (0 for no query)."""
        return {name: float(np.median(values)) if values.size else 0.0 for name, values in self.per_query.items()}

    @property
    def gmean(self) -> dict[str, float]:
        """The geometric mean of each measure's per-query values, each floored at 1e-5 (trec_eval's
        GMAP rule)."""
        return {name: aggregate(values, "gmean") for name, values in self.per_query.items()}

    @property
    def names(self) -> list[str]:
        return [str(m) for m in self.measures]

    def __getitem__(self, measure) -> float:
        return self.mean[str(measure) if not isinstance(measure, str) else _canonical(measure)]

    def query(self, qid: str) -> dict[str, float]:
        """All values of one query."""
        index = np.flatnonzero(self.query_ids == qid)
        if not index.size:
            raise KeyError(qid)
        return {name: float(values[index[0]]) for name, values in self.per_query.items()}

    def to_dict(self, *, per_query: bool = False) -> dict[str, Any]:
        """The JSON document of ``cranfield evaluate --format json`` for this run."""
        doc: dict[str, Any] = {"run": self.run_name, "mean": {k: float(v) for k, v in self.mean.items()}}
        if per_query:
            doc["per_query"] = {str(q): {name: float(vals[i]) for name, vals in self.per_query.items()}
                                for i, q in enumerate(self.query_ids)}
        return doc

    def to_pandas(self, *, per_query: bool = True):
        """A DataFrame: one row per query (index ``qid``) or one row of aggregates."""
        import pandas as pd

        if per_query:
            frame = pd.DataFrame({name: vals for name, vals in self.per_query.items()},
                                 index=pd.Index(list(self.query_ids), name="qid"))
            return frame
        return pd.DataFrame([self.mean], index=pd.Index([self.run_name], name="run"))

    def _repr_html_(self) -> str:
        rows = "".join(f"<tr><td>{name}</td><td>{value:.4f}</td></tr>" for name, value in self.mean.items())
        return (f"<table><caption>{self.run_name} — {len(self.query_ids)} queries</caption>"
                f"<tr><th>measure</th><th>value</th></tr>{rows}</table>")

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v:.4f}" for k, v in list(self.mean.items())[:6])
        more = ", …" if len(self.mean) > 6 else ""
        return f"<Results {self.run_name!r}: {len(self.query_ids)} queries; {shown}{more}>"


def _canonical(name: str) -> str:
    from ..measures.base import parse_measure

    return str(parse_measure(name))
