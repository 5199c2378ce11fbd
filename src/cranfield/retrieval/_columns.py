"""Shared construction of the columnar containers (Qrels, Run) from files, dicts and frames."""

from __future__ import annotations

import numpy as np

from .._arrow import to_numpy

from ..errors import InputError

__all__ = ["columns_from_dict", "columns_from_frame", "to_chunked_strings"]


def to_chunked_strings(values, *, source: str, field: str, trusted: bool = False):
    """Any sequence of ids (str, or int which is turned into its decimal text) -> Arrow strings."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(values, pa.ChunkedArray):
        array = values
    elif isinstance(values, pa.Array):
        array = pa.chunked_array([values])
    else:
        array = pa.chunked_array([pa.array(np.asarray(values, dtype=object) if not isinstance(values, list) else values)])
    if pa.types.is_integer(array.type):
        array = pc.cast(array, pa.string())
    elif pa.types.is_large_string(array.type) or pa.types.is_string_view(array.type):
        array = pc.cast(array, pa.string())
    elif pa.types.is_dictionary(array.type):
        array = pc.cast(array, pa.string())
    if not pa.types.is_string(array.type):
        raise InputError(f"expected text ids, found values of type {array.type}", source=source, field=field)
    if trusted:  # ids split from a TREC file: non-empty, no whitespace by construction
        return array
    if array.null_count:
        index = int(np.flatnonzero(to_numpy(pc.is_null(array)))[0])
        raise InputError("missing id (null)", source=source, line=index + 1, field=field)
    lengths = to_numpy(pc.utf8_length(pc.utf8_trim_whitespace(array)))
    if lengths.size and (lengths == 0).any():
        index = int(np.flatnonzero(lengths == 0)[0])
        raise InputError("empty id", source=source, line=index + 1, field=field)
    has_space = to_numpy(pc.match_substring_regex(array, r"\s"))
    if has_space.any():
        index = int(np.flatnonzero(has_space)[0])
        raise InputError(f"id {array[index].as_py()!r} contains whitespace, which TREC files cannot hold",
                         source=source, line=index + 1, field=field)
    return array


def columns_from_dict(mapping, *, source: str, value_field: str):
    """``{qid: {docno: value}}`` -> (qids, docnos, values) Python lists."""
    if not isinstance(mapping, dict):
        raise InputError(f"expected a dict {{qid: {{docno: {value_field}}}}}, found {type(mapping).__name__}", source=source)
    qids: list[str] = []
    docnos: list[str] = []
    values: list = []
    for qid, docs in mapping.items():
        if not isinstance(docs, dict):
            raise InputError(f"query {qid!r}: expected a dict {{docno: {value_field}}}, found {type(docs).__name__}",
                             source=source)
        qids.extend([str(qid)] * len(docs))
        docnos.extend(str(d) for d in docs)
        values.extend(docs.values())
    return qids, docnos, values


def columns_from_frame(frame, columns: dict[str, str], *, source: str):
    """A pandas / polars DataFrame or an Arrow table -> dict of Arrow arrays for the named columns."""
    import pyarrow as pa

    if isinstance(frame, pa.Table):
        table = frame
    elif hasattr(frame, "to_arrow"):  # polars
        table = frame.to_arrow()
    elif hasattr(frame, "columns") and hasattr(frame, "iloc"):  # pandas
        table = pa.Table.from_pandas(frame, preserve_index=False)
    else:
        raise InputError(f"expected a pandas or polars DataFrame or an Arrow table, found {type(frame).__name__}",
                         source=source)
    result = {}
    for role, name in columns.items():
        if name not in table.column_names:
            raise InputError(f"no column {name!r} (columns: {', '.join(map(str, table.column_names))})",
                             source=source, field=role)
        result[role] = table.column(name)
    return result


def check_numbers(values: np.ndarray, *, source: str, field: str, lines: np.ndarray | None = None) -> None:
    bad = ~np.isfinite(values)
    if bad.any():
        index = int(np.flatnonzero(bad)[0])
        line = int(lines[index]) if lines is not None else index + 1
        raise InputError(f"expected a finite number, found {values[index].item()!r}", source=source, line=line, field=field)
