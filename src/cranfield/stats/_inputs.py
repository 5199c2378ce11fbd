"""Per-query values in, aligned matrices out: the boundary of :func:`cranfield.compare_values`.

Accepted forms of ``values`` (one value per system, measure and query):

* ``{system: {measure: {qid: value}}}`` — inner mappings may also be a pandas Series indexed by
  query id, or a pair ``(query_ids, values)`` of equal-length arrays;
* ``{system: DataFrame}`` with one row per query (index = query ids) and one column per measure;
* a long pandas DataFrame with columns ``system``, ``measure``, ``query_id`` (or ``qid``) and
  ``value``.

Query ids are compared as strings. Systems are paired by query id, never by position.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .._params import check_choice
from ..errors import InputError

__all__ = ["MISSING_POLICIES", "normalise_values", "align"]

MISSING_POLICIES = ("error", "intersect", "zero")

Series = tuple[np.ndarray, np.ndarray]  # (query ids as str, float64 values)


def _is_dataframe(obj) -> bool:
    return type(obj).__name__ == "DataFrame" and hasattr(obj, "columns")


def _series(obj, where: str) -> Series:
    if isinstance(obj, tuple) and len(obj) == 2:
        qids, vals = np.asarray(obj[0]), np.asarray(obj[1])
    elif isinstance(obj, Mapping):
        qids = np.array([str(q) for q in obj.keys()], dtype=str)
        vals = np.fromiter(obj.values(), dtype=np.float64, count=len(obj))
    elif hasattr(obj, "index") and hasattr(obj, "to_numpy"):  # pandas Series
        qids, vals = np.asarray(obj.index), obj.to_numpy()
    else:
        raise InputError(f"expected a mapping query id -> value, a pandas Series or a pair (query_ids, values), found {type(obj).__name__}", source=where)
    qids = qids.astype(str)
    try:
        vals = np.asarray(vals, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise InputError(f"expected numbers, found {error}", source=where, field="value") from None
    if qids.ndim != 1 or qids.shape != vals.shape:
        raise InputError(f"expected as many values as query ids, found {qids.shape} ids and {vals.shape} values", source=where)
    bad = ~np.isfinite(vals)
    if bad.any():
        raise InputError(f"query {str(qids[bad][0])!r}: expected a finite number, found {float(vals[bad][0])!r}", source=where, field="value")
    unique, counts = np.unique(qids, return_counts=True)
    if (counts > 1).any():
        raise InputError(f"query {unique[counts > 1][0]!r} appears {counts.max()} times; expected one value per query", source=where)
    return qids, vals


def _from_long_frame(frame) -> dict[str, dict[str, Series]]:
    qcol = "query_id" if "query_id" in frame.columns else "qid"
    missing = [c for c in ("system", "measure", qcol, "value") if c not in frame.columns]
    if missing:
        raise InputError(f"expected columns system, measure, query_id (or qid), value; missing {', '.join(missing)}", source="values DataFrame")
    out: dict[str, dict[str, Series]] = {}
    for (system, measure), group in frame.groupby(["system", "measure"], sort=False):
        where = f"values DataFrame: system {system!r}, measure {measure!r}"
        out.setdefault(str(system), {})[str(measure)] = _series((group[qcol].to_numpy(), group["value"].to_numpy()), where)
    return out


def normalise_values(values) -> dict[str, dict[str, Series]]:
    """Any accepted form of ``values`` as ``{system: {measure: (qids, values)}}`` (new arrays)."""
    if _is_dataframe(values):
        return _from_long_frame(values)
    if not isinstance(values, Mapping):
        raise InputError(f"expected {{system: {{measure: {{qid: value}}}}}} or a pandas DataFrame, found {type(values).__name__}", source="values")
    out: dict[str, dict[str, Series]] = {}
    for system, per_measure in values.items():
        if _is_dataframe(per_measure):
            per_measure = {column: per_measure[column] for column in per_measure.columns}
        if not isinstance(per_measure, Mapping):
            raise InputError(f"system {system!r}: expected a mapping measure -> per-query values, found {type(per_measure).__name__}", source="values")
        out[str(system)] = {str(m): _series(v, f"values: system {system!r}, measure {m!r}") for m, v in per_measure.items()}
    if not out:
        raise InputError("expected at least one system, found none", source="values")
    return out


def _examples(ids: np.ndarray) -> str:
    shown = ", ".join(repr(str(q)) for q in ids[:5])
    return shown + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")


def align(per_system: dict[str, dict[str, Series]], *, missing: str = "error", source: str = "values",
          hint: str = "") -> tuple[list[str], list[str], np.ndarray, dict[str, np.ndarray]]:
    """Pair values by query id → (systems, measures, query_ids, {measure: (systems, queries) matrix}).

    ``missing`` says what to do when systems (or measures) cover different queries: ``"error"``
    raises an :class:`InputError` naming the system, measure and some query ids; ``"intersect"``
    keeps the queries every system has for every measure; ``"zero"`` keeps all queries and
    counts a missing value as 0 (as ``trec_eval -c`` does for queries missing from a run).
    """
    check_choice(missing, "missing", MISSING_POLICIES)
    systems = list(per_system)
    measures = list(per_system[systems[0]])
    if not measures:
        raise InputError(f"system {systems[0]!r}: expected at least one measure, found none", source="values")
    for system in systems[1:]:
        if set(per_system[system]) != set(measures):
            raise InputError(f"system {system!r} has measures {sorted(per_system[system])}, expected the same as {systems[0]!r}: {sorted(measures)}", source="values")
    series = [per_system[s][m] for m in measures for s in systems]
    union = np.unique(np.concatenate([qids for qids, _ in series]))
    n = len(union)
    matrix = np.zeros((len(series), n))
    present = np.zeros((len(series), n), dtype=bool)
    for row, (qids, vals) in enumerate(series):
        idx = np.searchsorted(union, qids)
        matrix[row, idx] = vals
        present[row, idx] = True
    if not present.all():
        if missing == "error":
            row = int(np.flatnonzero(~present.all(axis=1))[0])
            measure, system = measures[row // len(systems)], systems[row % len(systems)]
            lacking = union[~present[row]]
            raise InputError(
                f"system {system!r}, measure {measure!r}: no value for {len(lacking)} of the {n} queries "
                f"that other systems or measures have ({_examples(lacking)}); pair systems on the same "
                f"queries, or choose missing='intersect' (common queries) or missing='zero' (missing counts as 0){hint}",
                source=source)
        if missing == "intersect":
            keep = present.all(axis=0)
            union, matrix = union[keep], matrix[:, keep]
    if len(union) < 2:
        raise InputError(f"expected at least 2 queries shared by all systems, found {len(union)}", source="values")
    matrices = {m: matrix[i * len(systems):(i + 1) * len(systems)] for i, m in enumerate(measures)}
    return systems, measures, union, matrices
