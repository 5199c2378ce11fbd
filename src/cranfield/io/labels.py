"""THE grammar of crowd labels: a long table ``query, document, worker, label``, one row per label
a worker gave to a (query, document) pair. Every way of reading it goes through this module and
gives the same :class:`CrowdLabels` or the same error (file, line, field).

Sources
    * CSV or TSV **text** with a header line (a path, ``-`` for standard input, or a file object),
      read once through :func:`cranfield.io.sources.open_input` (gzip, bz2, xz, zstd by their magic
      bytes; pipes and FIFOs); the separator is a TAB for names ending ``.tsv``, ``.tab`` or
      ``.txt`` (before a compression suffix), a comma otherwise, or ``delimiter=``;
    * **Parquet** (a file named ``.parquet``/``.pq``/``.parq``, or a directory of them);
    * **pandas / polars DataFrames** and **Arrow tables**;
    * **dicts**: columnar, ``{"query": [...], "document": [...], "worker": [...], "label": [...]}``,
      or nested, ``{query: {document: {worker: label}}}``.
Columns
    ``query``, ``document``, ``worker`` and ``label``, found by name (exact, case-sensitive), in any
    order, each exactly once; other columns are ignored. ``columns=`` maps other names, e.g.
    ``{"query": "topic", "document": "docid"}``.
Text
    UTF-8 (a byte-order mark before the header is dropped); the first line is the header. Lines end
    with LF or CRLF; a field may be quoted (``"q1"``) but may not hold a line break. Fields are
    taken as written: no blanks are trimmed. A line whose every field is empty (a blank line, or
    separators only) is skipped. A line with another number of fields than the header is an error.
    Text is read by :mod:`cranfield.io.header_text`, the reader of the click logs too. A table
    without rows (a header only, an empty frame or dict) is read as empty labels on every path;
    aggregating them is the error ("no labels to aggregate").
Ids
    ``query``, ``document`` and ``worker`` follow the id rule of :mod:`cranfield.io.values` (the
    rule of TREC ids, since the output is TREC qrels): non-empty text without ASCII whitespace
    (an integer column gives its decimal text). A worker id such as ``"John Smith"`` is an error:
    write ``John_Smith``.
Labels
    Integers. In text: an optional sign and decimal digits (``0``, ``2``, ``-1``, ``+3``, ``007``)
    within the signed 64-bit range; ``1.0``, ``1.5``, ``1e3``, ``" 1"``, ``yes`` and an empty field
    are errors. In typed columns (Parquet, frames, dicts): the relevance rule of
    :mod:`cranfield.io.values` (integer columns; floating columns whose values are whole numbers,
    as pandas makes of integers with gaps; no booleans, text or nulls).
Duplicates
    A worker who labels the same (query, document) pair twice is an error, naming the line of the
    second label and the line of the first.
Errors
    :class:`~cranfield.errors.InputError` with the source, the line and the field. **Text counts
    the header as line 1** (the first label is on line 2); Parquet, frames and columnar dicts
    count rows from 1; a nested dict's error names the query, document and worker. The columns
    are checked in the order query, document, worker, label, each reporting its first bad row;
    duplicates are checked last. Every decision is made per row, over the whole input.

    >>> import io
    >>> labels = read_labels(io.StringIO("query,document,worker,label\\nq1,d1,w1,1\\nq1,d1,w2,0\\n"))
    >>> len(labels), labels.label.tolist(), labels.line.tolist()
    (2, [1, 0], [2, 3])
    >>> read_labels(io.StringIO("query,document,worker,label\\nq1,d1,w1,1\\nq1,d1,w1,0\\n"), name="l.csv")
    Traceback (most recent call last):
    ...
    cranfield.errors.InputError: l.csv:3: field worker: worker 'w1' labels query 'q1', document 'd1' twice (first at line 2); expected one label per worker and pair
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from .._arrow import to_numpy
from ..errors import InputError, UsageError
from .header_text import delimiter_for, read_header_text, utf8_column
from .parquet import is_parquet
from .sources import display_name_of
from .values import id_column, nested_columns, relevance_column

__all__ = ["LABEL_FIELDS", "CrowdLabels", "read_labels"]

LABEL_FIELDS = ("query", "document", "worker", "label")
_INTEGER = r"^[+-]?[0-9]+$"


@dataclass(frozen=True)
class CrowdLabels:
    """Validated crowd labels: Arrow string arrays ``query``, ``document``, ``worker``, an int64
    ``label`` array and the 1-based ``line`` (text: header = line 1) or row of each label."""

    query: object
    document: object
    worker: object
    label: np.ndarray
    line: np.ndarray
    source: str

    def __len__(self) -> int:
        return int(self.label.size)

    def to_arrow(self):
        """The four columns as an Arrow table."""
        import pyarrow as pa

        return pa.table({"query": self.query, "document": self.document, "worker": self.worker,
                         "label": pa.array(self.label)})


# --------------------------------------------------------------------------------------- entry
def read_labels(source, *, columns: "dict[str, str] | None" = None, delimiter: str | None = None,
                name: str | None = None) -> CrowdLabels:
    """Crowd labels from any source of the grammar above (see the module documentation).

    ``source``: a path, ``"-"``, a file object, a pandas/polars DataFrame, an Arrow table, a dict,
    or :class:`CrowdLabels` (returned as is). ``columns``: ``{field: column name}`` for columns not
    named ``query``/``document``/``worker``/``label``. ``delimiter``: the text separator (one
    character; default by file name, see above). ``name``: the source's name in errors.
    """
    if isinstance(source, CrowdLabels):
        return source
    mapping = _column_names(columns)
    if delimiter is not None and (not isinstance(delimiter, str) or len(delimiter) != 1
                                  or delimiter in "\r\n\"" or not delimiter.isprintable() and delimiter != "\t"):
        raise UsageError(f"delimiter: expected one character (not a quote or a line break), found {delimiter!r}")
    if name is not None and not isinstance(name, str):
        raise UsageError(f"name: expected text, found {type(name).__name__}")
    if isinstance(source, dict):
        return _from_dict(source, mapping, name or "labels dict")
    if _is_frame(source):
        return _from_table(_frame_columns(source, mapping, name or "labels frame"), name or "labels frame", 1)
    if isinstance(source, (str, os.PathLike)) and str(source) != "-":
        if is_parquet(source):
            return _from_parquet(source, mapping, name or os.fsdecode(source))
    if isinstance(source, (str, os.PathLike)) or hasattr(source, "read"):
        display = name or display_name_of(source)
        sep = delimiter or delimiter_for(display)
        return _from_text(source, mapping, display, sep)
    raise InputError(f"expected a path, '-', a file object, a DataFrame, an Arrow table or a dict, found "
                     f"{type(source).__name__}", source=name or "labels")


def _column_names(columns) -> dict[str, str]:
    if columns is None:
        return {f: f for f in LABEL_FIELDS}
    if not isinstance(columns, dict):
        raise UsageError(f"columns: expected a dict {{field: column name}}, found {type(columns).__name__}")
    unknown = [k for k in columns if k not in LABEL_FIELDS]
    if unknown:
        raise UsageError(f"columns: unknown field {unknown[0]!r}; expected some of {', '.join(LABEL_FIELDS)}")
    if not all(isinstance(v, str) and v for v in columns.values()):
        raise UsageError("columns: expected non-empty column names")
    mapping = {f: columns.get(f, f) for f in LABEL_FIELDS}
    if len(set(mapping.values())) != 4:
        raise UsageError(f"columns: two fields map to the same column ({mapping})")
    return mapping


def _is_frame(source) -> bool:
    import sys

    pa = sys.modules.get("pyarrow")
    if pa is not None and isinstance(source, pa.Table):
        return True
    return hasattr(source, "columns") and (hasattr(source, "iloc") or hasattr(source, "to_arrow"))


# --------------------------------------------------------------------------------------- checks
def _finish(query, document, worker, label_values, *, source: str, first_row: int = 1, lines=None,
            where=None) -> CrowdLabels:
    """The one set of column rules (ids, labels) and the duplicate check, for every path."""
    kw = dict(source=source, first_row=first_row, lines=lines, where=where)
    q = id_column(query, field="query", **kw)
    d = id_column(document, field="document", **kw)
    w = id_column(worker, field="worker", **kw)
    label = label_values if isinstance(label_values, np.ndarray) and label_values.dtype == np.int64 else \
        relevance_column(label_values, field="label", **kw)
    n = label.size
    line = np.asarray(lines, dtype=np.int64) if lines is not None else np.arange(first_row, first_row + n,
                                                                                  dtype=np.int64)
    _check_duplicates(q, d, w, line, source=source, where=where)
    return CrowdLabels(query=q, document=d, worker=w, label=label, line=line, source=source)


def codes(array) -> tuple[np.ndarray, list]:
    """Dense int64 codes of an Arrow string array (in order of first appearance) and the values."""
    import pyarrow as pa

    encoded = array.dictionary_encode() if isinstance(array, pa.Array) else \
        pa.chunked_array(array.chunks, array.type).combine_chunks().dictionary_encode()
    return to_numpy(encoded.indices).astype(np.int64), encoded.dictionary.to_pylist()


def _check_duplicates(q, d, w, line, *, source: str, where) -> None:
    n = len(line)
    if n < 2:
        return
    qc, _ = codes(q)
    dc, _ = codes(d)
    wc, _ = codes(w)
    sizes = [int(qc.max()) + 1, int(dc.max()) + 1, int(wc.max()) + 1]
    if sizes[0] * sizes[1] * sizes[2] < 2**62:  # one int64 key: one stable sort
        key = (qc * sizes[1] + dc) * sizes[2] + wc
        order = np.argsort(key, kind="stable")
        same = key[order][1:] == key[order][:-1]
    else:
        order = np.lexsort((np.arange(n), wc, dc, qc))
        same = (qc[order][1:] == qc[order][:-1]) & (dc[order][1:] == dc[order][:-1]) & \
            (wc[order][1:] == wc[order][:-1])
    if not same.any():
        return
    later = order[1:][same]
    earlier = order[:-1][same]
    k = int(np.argmin(later))
    i, j = int(later[k]), int(earlier[k])
    what = f"worker {w[i].as_py()!r} labels query {q[i].as_py()!r}, document {d[i].as_py()!r} twice"
    if where is not None:
        raise InputError(f"{what}; expected one label per worker and pair", source=source, line=i + 1, field="worker")
    raise InputError(f"{what} (first at line {int(line[j])}); expected one label per worker and pair",
                     source=source, line=int(line[i]), field="worker")


# --------------------------------------------------------------------------------------- typed
def _frame_columns(frame, mapping: dict, source: str) -> dict:
    import pyarrow as pa

    if isinstance(frame, pa.Table):
        names = frame.column_names
        get = frame.column
    elif hasattr(frame, "to_arrow") and not hasattr(frame, "iloc"):  # polars
        names = list(frame.columns)

        def get(column):
            return frame.get_column(column).to_arrow()
    else:  # pandas
        names = list(frame.columns)

        def get(column):
            series = frame[column]
            try:
                return pa.chunked_array([pa.Array.from_pandas(series)])
            except (pa.ArrowException, TypeError, ValueError, OverflowError):
                return series.to_numpy(dtype=object, copy=True)
    return {field: get(_find_column(names, column, field, source)) for field, column in mapping.items()}


def _find_column(names, column: str, field: str, source: str, line: int | None = None) -> str:
    if column not in names:
        raise InputError(f"no column {column!r}; the columns are {', '.join(map(repr, map(str, names)))}; expected "
                         f"columns {', '.join(LABEL_FIELDS)}", source=source, line=line, field=field)
    if list(names).count(column) > 1:
        raise InputError(f"column {column!r} appears {list(names).count(column)} times; expected once",
                         source=source, line=line, field=field)
    return column


def _from_table(cols: dict, source: str, first_row: int) -> CrowdLabels:
    return _finish(cols["query"], cols["document"], cols["worker"], cols["label"], source=source, first_row=first_row)


def _from_parquet(path, mapping: dict, source: str) -> CrowdLabels:
    import pyarrow as pa
    import pyarrow.dataset as ds

    if not os.path.exists(path):
        raise InputError("no such file or directory", source=source)
    try:
        dataset = ds.dataset(os.fspath(path), format="parquet", partitioning="hive")
        names = dataset.schema.names
        for field, column in mapping.items():
            _find_column(names, column, field, source)
        table = dataset.to_table(columns=list(mapping.values()))
    except (pa.ArrowException, OSError) as error:
        text = " ".join(str(error).split())[:200]
        raise InputError(f"not a readable Parquet file or dataset ({text})", source=source) from None
    return _from_table({f: table.column(c) for f, c in mapping.items()}, source, 1)


def _from_dict(mapping_in: dict, mapping: dict, source: str) -> CrowdLabels:
    if set(mapping.values()) <= set(mapping_in):  # columnar
        import pyarrow as pa

        cols = {}
        for field, column in mapping.items():
            values = mapping_in[column]
            if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
                raise InputError(f"expected a sequence of values, found {type(values).__name__}", source=source,
                                 field=field)
            cols[field] = values if isinstance(values, (np.ndarray, pa.Array, pa.ChunkedArray)) else \
                _object_array(values)
        lengths = {len(v) for v in cols.values()}
        if len(lengths) > 1:
            raise InputError(f"columns of different lengths: {', '.join(f'{f} {len(v)}' for f, v in cols.items())}",
                             source=source)
        return _from_table(cols, source, 1)
    q, d, w, labels = nested_columns(mapping_in, ("query", "document", "worker"), "label", source=source)

    def where(index: int) -> str:
        return f"query {q[index]!r}, document {d[index]!r}, worker {w[index]!r}: "

    return _finish(q, d, w, labels if labels else np.zeros(0, np.int64), source=source, where=where)


def _object_array(values) -> np.ndarray:
    if hasattr(values, "tolist") and not isinstance(values, list):
        values = values.tolist()
    array = np.empty(len(values), dtype=object)
    array[:] = list(values)
    return array


# --------------------------------------------------------------------------------------- text
def _from_text(path, mapping: dict, source: str, sep: str) -> CrowdLabels:
    def check_names(names: list) -> None:
        for field, column in mapping.items():
            _find_column(names, column, field, source, line=1)

    text = read_header_text(path, name=source, sep=sep, expected=",".join(LABEL_FIELDS), check_names=check_names)
    cols = {field: utf8_column(text.columns[text.names.index(column)], source, field, text.lines)
            for field, column in mapping.items()}
    label = _parse_integers(cols["label"], source, text.lines)
    return _finish(cols["query"], cols["document"], cols["worker"], label, source=source, lines=text.lines)


def _parse_integers(column, source: str, lines: np.ndarray) -> np.ndarray:
    """Text labels as int64 by the integer syntax (module documentation)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if len(column) == 0:
        return np.zeros(0, dtype=np.int64)
    ok = to_numpy(pc.match_substring_regex(column, _INTEGER))
    if not ok.all():
        index = int(np.flatnonzero(~ok)[0])
        text = column[index].as_py()
        found = "an empty field" if text == "" else repr(text)
        raise InputError(f"expected an integer label (an optional sign and decimal digits), found {found}",
                         source=source, line=int(lines[index]), field="label")
    try:
        unsigned = pc.replace_substring_regex(column, r"^\+", "")  # Arrow's cast takes no leading +
        return to_numpy(pc.cast(unsigned, pa.int64())).astype(np.int64, copy=False)
    except pa.ArrowInvalid:
        for index, text in enumerate(column.to_pylist()):  # error path only
            if not -(1 << 63) <= int(text) < (1 << 63):
                raise InputError(f"expected an integer label within the signed 64-bit range, found {text}",
                                 source=source, line=int(lines[index]), field="label") from None
        raise  # pragma: no cover
