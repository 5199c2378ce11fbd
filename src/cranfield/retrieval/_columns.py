"""Shared construction of the columnar containers (Qrels, Run) from files, dicts and frames."""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..io.values import id_column, value_column

__all__ = ["columns_from_dict", "columns_from_frame", "to_chunked_strings"]


def to_chunked_strings(values, *, source: str, field: str, trusted: bool = False):
    """Any sequence of ids (str, or int which is turned into its decimal text) -> Arrow strings,
    checked by the one rule for ids of :mod:`cranfield.io.values` (not null, not empty, no blank)."""
    import pyarrow as pa

    if trusted:  # ids split from a TREC file: non-empty, no whitespace by construction
        return values if isinstance(values, pa.ChunkedArray) else pa.chunked_array([values])
    return id_column(values, source=source, field=field)


def _kind(value_field: str) -> str:
    return "qrels" if value_field == "rel" else "run"


def columns_from_dict(mapping, *, source: str, value_field: str):
    """``{qid: {docno: value}}`` -> (qids, docnos, values): Arrow string arrays and an int64 (``rel``)
    or float64 (``score``) array, checked by :mod:`cranfield.io.values`; errors name the query and
    the document (and the row, in iteration order)."""
    if not isinstance(mapping, dict):
        raise InputError(f"expected a dict {{qid: {{docno: {value_field}}}}}, found {type(mapping).__name__}", source=source)
    keys: list = []
    counts: list[int] = []
    docnos: list = []
    values: list = []
    for qid, docs in mapping.items():  # a loop over queries; rows are gathered by extend
        if not isinstance(docs, dict):
            raise InputError(f"query {qid!r}: expected a dict {{docno: {value_field}}}, found {type(docs).__name__}",
                             source=source)
        keys.append(qid)
        counts.append(len(docs))
        docnos.extend(docs)
        values.extend(docs.values())
    key_array = np.empty(len(keys), dtype=object)
    key_array[:] = keys
    qid_objects = np.repeat(key_array, np.asarray(counts, dtype=np.int64))
    doc_objects = np.empty(len(docnos), dtype=object)
    doc_objects[:] = docnos

    def where(index: int) -> str:
        return f"query {qid_objects[index]!r}, document {doc_objects[index]!r}: "

    qids = id_column(qid_objects, source=source, field="qid", where=where)
    docs_array = id_column(doc_objects, source=source, field="docno", where=where)
    checked = value_column(values, kind=_kind(value_field), source=source, field=value_field, where=where)
    return qids, docs_array, checked


def columns_from_frame(frame, columns: dict[str, str], *, source: str):
    """A pandas / polars DataFrame or an Arrow table -> dict of Arrow arrays for the named columns,
    checked by :mod:`cranfield.io.values` (ids: strings; ``rel``: int64; ``score``: float64); errors
    name the 1-based row."""
    import pyarrow as pa

    if isinstance(frame, pa.Table):
        names = frame.column_names
        get = frame.column
    elif hasattr(frame, "to_arrow") and hasattr(frame, "columns") and not hasattr(frame, "iloc"):  # polars
        names = list(frame.columns)

        def get(name):
            return frame.get_column(name).to_arrow() if hasattr(frame, "get_column") else frame[name].to_arrow()
    elif hasattr(frame, "columns") and hasattr(frame, "iloc"):  # pandas
        names = list(frame.columns)

        def get(name):
            return _pandas_column(frame, name, source)
    else:
        raise InputError(f"expected a pandas or polars DataFrame or an Arrow table, found {type(frame).__name__}",
                         source=source)
    result = {}
    for role, name in columns.items():
        if name not in names:
            raise InputError(f"no column {name!r} (columns: {', '.join(map(str, names))})",
                             source=source, field=role)
        if names.count(name) > 1:
            raise InputError(f"column {name!r} appears {names.count(name)} times", source=source, field=role)
        column = get(name)
        if role in ("qid", "docno", "subtopic"):  # ids (subtopic: diversity qrels)
            result[role] = id_column(column, source=source, field=role)
        else:
            checked = value_column(column, kind=_kind(role), source=source, field=role)
            result[role] = pa.array(checked)
    return result


def _pandas_column(frame, name, source: str):
    """One pandas column as Arrow (nullable dtypes keep their nulls), or, for object columns that
    Arrow cannot type (mixed types, Python ints beyond 64 bits), as a numpy object array."""
    import pyarrow as pa

    series = frame[name]
    try:
        return pa.chunked_array([pa.Array.from_pandas(series)])  # pandas' missing values (NaN, None, pd.NA): null
    except (pa.ArrowException, TypeError, ValueError, OverflowError):
        return series.to_numpy(dtype=object, copy=True)


def check_numbers(values: np.ndarray, *, source: str, field: str, lines: np.ndarray | None = None) -> None:
    bad = ~np.isfinite(values)
    if bad.any():
        index = int(np.flatnonzero(bad)[0])
        line = int(lines[index]) if lines is not None else index + 1
        raise InputError(f"expected a finite number, found {values[index].item()!r}", source=source, line=line, field=field)
