"""Evaluation results: per-query values and their aggregates, with exports."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import UsageError
from ..measures.base import parse_measure

__all__ = ["Results", "PerQuery", "MeasureKeyed", "LONG_COLUMNS", "long_columns", "aggregate", "micro_aggregate"]

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
    values; ``to_pandas()`` the per-query table (``form="wide"`` or ``"long"``).

    A measure is found by any accepted spelling of it: ``mean["map"]``, ``mean["AP"]``,
    ``per_query["ndcg_cut_10"]``, ``per_query["nDCG@10"]`` are the same entries. Per-query
    values are a :class:`PerQuery` array: a numpy array aligned with ``query_ids`` that is also
    addressed by query id (``per_query["AP"]["q1"]``, ``.keys()``, ``.items()``,
    ``.to_dict()``, ``.to_series()``).

    >>> r = Results("run", (), np.array(["q1", "q2"]), {"AP": np.array([0.5, 1.0])}, {"AP": 0.75})
    >>> r.mean["map"], r.per_query["map"]["q2"], float(r.per_query["AP"][0])
    (0.75, 1.0, 0.5)
    >>> dict(r.per_query["AP"])
    {'q1': 0.5, 'q2': 1.0}
    """

    run_name: str
    measures: tuple
    query_ids: np.ndarray
    per_query: dict[str, np.ndarray]
    mean: dict[str, float]
    settings: dict[str, Any] = field(default_factory=dict)
    in_run: np.ndarray | None = None

    def __post_init__(self) -> None:
        query_ids = np.asarray(self.query_ids)
        # measures' values are addressable by qid; other per-query columns (trec_eval's relstring,
        # bytes) are kept as they are
        self.per_query = MeasureKeyed({str(name): PerQuery(values, query_ids)
                                       if np.asarray(values).dtype.kind in "fiu" else values
                                       for name, values in self.per_query.items()})
        self.mean = MeasureKeyed(self.mean)

    @property
    def n_queries(self) -> int:
        """The number of queries the aggregates are over."""
        return len(self.query_ids)

    @property
    def median(self) -> dict[str, float]:
        """The median of each measure's per-query values (0 for no query)."""
        return MeasureKeyed({name: float(np.median(values)) if values.size else 0.0
                             for name, values in self.per_query.items()})

    @property
    def gmean(self) -> dict[str, float]:
        """The geometric mean of each measure's per-query values, each floored at 1e-5 (trec_eval's
        GMAP rule)."""
        return MeasureKeyed({name: aggregate(np.asarray(values), "gmean") for name, values in self.per_query.items()})

    @property
    def names(self) -> list[str]:
        return [str(m) for m in self.measures] if self.measures else list(self.mean)

    def __getitem__(self, measure) -> float:
        return self.mean[measure]

    def query(self, qid: str) -> dict[str, float]:
        """All values of one query."""
        index = np.flatnonzero(self.query_ids == qid)
        if not index.size:
            raise KeyError(qid)
        return {name: float(values[index[0]]) for name, values in self.per_query.items()}

    def per_query_series(self, measure):
        """The per-query values of ``measure`` (any spelling) as a pandas Series indexed by qid."""
        return self.per_query[measure].to_series(name=self.per_query.resolve(measure))

    def to_dict(self, *, per_query: bool = False) -> dict[str, Any]:
        """The JSON document of ``cranfield evaluate --format json`` for this run."""
        doc: dict[str, Any] = {"run": self.run_name, "n_queries": self.n_queries,
                               "mean": {k: float(v) for k, v in self.mean.items()}}
        if per_query:
            doc["per_query"] = {str(q): {name: float(vals[i]) for name, vals in self.per_query.items()}
                                for i, q in enumerate(self.query_ids)}
        return doc

    def to_pandas(self, form: str = "wide", *, per_query: bool = True):
        """A pandas DataFrame of the per-query values.

        ``form="wide"`` (default): one row per query (index ``qid``), one column per measure;
        ``form="long"``: the tidy table with columns ``run, qid, measure, value`` (one row per
        query and measure, measures in the order asked, queries byte-wise), as
        ``cranfield evaluate -q -f csv`` writes it. ``per_query=False``: one row of aggregates
        (index ``run``)."""
        import pandas as pd

        if not per_query:
            return pd.DataFrame([dict(self.mean)], index=pd.Index([self.run_name], name="run"))
        if form == "wide":
            return pd.DataFrame({name: np.asarray(vals) for name, vals in self.per_query.items()},
                                index=pd.Index([str(q) for q in self.query_ids], name="qid"))
        if form == "long":
            return pd.DataFrame(long_columns([self]))
        raise UsageError(f"form: expected 'wide' or 'long', found {form!r}")

    def _repr_html_(self) -> str:
        rows = "".join(f"<tr><td>{name}</td><td>{value:.4f}</td></tr>" for name, value in self.mean.items())
        return (f"<table><caption>{self.run_name} — {len(self.query_ids)} queries</caption>"
                f"<tr><th>measure</th><th>value</th></tr>{rows}</table>")

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v:.4f}" for k, v in list(self.mean.items())[:6])
        more = ", …" if len(self.mean) > 6 else ""
        return f"<Results {self.run_name!r}: {len(self.query_ids)} queries; {shown}{more}>"


LONG_COLUMNS = ("run", "qid", "measure", "value")


def long_columns(results) -> dict[str, list]:
    """The tidy long table of several runs' per-query values: ``{"run": [...], "qid": [...],
    "measure": [...], "value": [...]}``, one row per run × measure × query (runs in order,
    measures in the order asked, queries byte-wise)."""
    columns: dict[str, list] = {name: [] for name in LONG_COLUMNS}
    for r in results:
        qids = [str(q) for q in r.query_ids]
        for name, values in r.per_query.items():
            columns["run"] += [r.run_name] * len(qids)
            columns["qid"] += qids
            columns["measure"] += [name] * len(qids)
            columns["value"] += np.asarray(values, dtype=np.float64).tolist()
    return columns


class MeasureKeyed(dict):
    """A dict keyed by canonical measure names that also finds a measure by any accepted
    spelling (``"map"`` → ``"AP"``, ``"ndcg_cut_10"`` → ``"nDCG@10"``)."""

    def resolve(self, key) -> str:
        """The key under which ``key`` (a Measure or any spelling of one) is stored."""
        if not isinstance(key, str):
            key = str(key)
        if dict.__contains__(self, key):
            return key
        try:
            canonical = _canonical(key)
        except Exception:  # not a measure name at all
            canonical = None
        if canonical is not None and dict.__contains__(self, canonical):
            return canonical
        raise KeyError(f"{key!r}: not among the measures evaluated ({', '.join(self)})"
                       + (f"; it means {canonical}" if canonical and canonical != key else ""))

    def __missing__(self, key):
        return dict.__getitem__(self, self.resolve(key))

    def __contains__(self, key) -> bool:
        try:
            self.resolve(key)
        except KeyError:
            return False
        return True

    def get(self, key, default=None):
        return self[key] if key in self else default


class PerQuery(np.ndarray):
    """One measure's per-query values: a read-only mapping qid -> value (a registered
    :class:`collections.abc.Mapping`: iteration, ``keys()``, ``values()``, ``items()``,
    ``get()``, ``in`` and ``values["q1"]`` all speak of query ids, in the order of
    ``Results.query_ids``) that is also a float numpy array aligned with the query ids, so that
    arithmetic, ``np.mean``, ``.tolist()`` and ``values[0]`` (an integer position) work as on any
    array. ``to_series()`` gives a pandas Series indexed by qid, ``to_numpy()`` a plain array.
    Arithmetic and slices give plain arrays.

    >>> v = PerQuery([0.5, 1.0], ["q1", "q2"])
    >>> list(v), v.values().tolist(), v.items(), "q2" in v, isinstance(v, Mapping)
    (['q1', 'q2'], [0.5, 1.0], [('q1', 0.5), ('q2', 1.0)], True, True)
    """

    def __new__(cls, values, query_ids):
        array = np.asarray(values, dtype=np.float64).view(cls)
        array._qids = np.asarray(query_ids)
        array._where = None
        return array

    def __array_finalize__(self, obj) -> None:
        self._qids = None  # a slice or a computed array is no longer aligned with the query ids
        self._where = None

    def __array_wrap__(self, array, context=None, return_scalar=False):
        array = np.asarray(array).view(np.ndarray)
        return array[()] if return_scalar else array

    def __reduce__(self):
        return (PerQuery, (np.asarray(self).copy(), self._qids if self._qids is not None else np.array([])))

    def __copy__(self):
        return PerQuery(self.to_numpy(), self._qids) if self._qids is not None else self.to_numpy()

    def __deepcopy__(self, memo):
        return PerQuery(self.to_numpy(), np.array(self._qids)) if self._qids is not None else self.to_numpy()

    def _index(self) -> dict:
        if self._qids is None or len(self._qids) != len(self):
            raise KeyError("these values are not aligned with query ids (a slice or a computed array); "
                           "address them by position")
        if self._where is None:
            self._where = {str(q): i for i, q in enumerate(self._qids)}
        return self._where

    def __getitem__(self, key):
        if isinstance(key, str):
            index = self._index()
            if key not in index:
                raise KeyError(f"query {key!r}: not among the {len(index)} queries evaluated")
            return float(np.ndarray.__getitem__(self, index[key]))
        result = np.ndarray.__getitem__(self, key)
        return result.view(np.ndarray) if isinstance(result, np.ndarray) else result

    def __contains__(self, key) -> bool:
        if isinstance(key, str):
            return key in self._index()
        return np.ndarray.__contains__(self.view(np.ndarray), key)

    def keys(self) -> list[str]:
        """The query ids, in order."""
        return list(self._index())

    def __iter__(self):
        """The query ids, in order (a mapping's iteration; ``values()`` or ``tolist()`` for the values)."""
        return iter(self.keys())

    def values(self) -> np.ndarray:
        """The values, in query-id order (a plain numpy array, a copy)."""
        return self.to_numpy()

    def items(self) -> list[tuple[str, float]]:
        return list(zip(self.keys(), np.asarray(self).tolist()))

    def get(self, qid: str, default=None):
        return self[qid] if qid in self else default

    def to_dict(self) -> dict[str, float]:
        """``{qid: value}``."""
        return dict(self.items())

    def to_numpy(self) -> np.ndarray:
        """The values as a plain numpy array (a copy), aligned with the query ids."""
        return np.array(self.view(np.ndarray))

    def to_series(self, name: str | None = None):
        """A pandas Series indexed by qid."""
        import pandas as pd

        return pd.Series(self.to_numpy(), index=pd.Index(self.keys(), name="qid"), name=name)


Mapping.register(PerQuery)


def _canonical(name: str) -> str:
    return str(parse_measure(name))
