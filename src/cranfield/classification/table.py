"""The classification table format (CSV, TSV or Parquet): one truth column and score or
predicted-label columns, read into validated arrays. Used by ``cranfield classify`` and the
detection report alike; errors name the file, the line (CSV counts the header as line 1) and the
column."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .._arrow import to_numpy
from ..classification._validation import EXACT_INTEGERS, MAX_CLASSES, check_labels, check_scores, resolve_pos_label
from ..errors import InputError, UsageError
from ..io.sources import read_all

__all__ = ["read_table", "label_column", "number_column", "prediction_column", "parse_label", "positive_label"]


def _plain_name(path: str) -> str:
    """The lower-case file name without its compression suffix."""
    name = path.lower()
    for suffix in (".gz", ".bz2", ".zst"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name


def _delimiter(path: str) -> str:
    return "\t" if _plain_name(path).endswith((".tsv", ".tab", ".txt")) else ","


def _refuse_inner_blank_line(data: bytes, path: str) -> None:
    """An empty line before the header or between rows is an error naming its line: the CSV
    reader would skip it and every later row's line number would be one too small. Empty lines
    at the end of the file are harmless (nothing follows them)."""
    candidates = [data.find(pattern) for pattern in (b"\n\n", b"\n\r\n")]
    found = [c + 1 for c in candidates if c >= 0]
    if data.startswith((b"\n", b"\r\n")):
        found.append(0)
    if not found:
        return
    blank = min(found)
    if not data[blank:].strip():
        return  # only empty lines (or blanks) to the end of the file
    line = data.count(b"\n", 0, blank) + 1
    raise InputError("empty line; expected the header or a row of the table (remove empty lines)", source=path,
                     line=line)


def read_table(path: str):
    """The file as a pyarrow Table: Parquet by extension; otherwise CSV or TSV text (the separator
    by extension), read once through :func:`cranfield.io.sources.read_all`, so gzip, bz2, xz and zstd
    are recognised by their magic bytes and FIFOs and pipes are read once."""
    import pyarrow as pa

    name = _plain_name(path)
    try:
        if name.endswith((".parquet", ".pq")):  # Parquet reads its footer first: a seekable file
            import pyarrow.parquet as pq

            if not Path(path).is_file():
                raise InputError("no such file", source=path)
            return pq.read_table(path), 1  # row r (0-based) is reported as row r + 1
        from pyarrow import csv

        # text through the one opener: read once (FIFOs, pipes), decompressed by its magic bytes
        data = read_all(path, display_name=path)
        _refuse_inner_blank_line(data, path)
        table = csv.read_csv(pa.BufferReader(data), parse_options=csv.ParseOptions(delimiter=_delimiter(path)))
        try:
            table.column_names  # noqa: B018 - Arrow decodes the header names here
        except UnicodeDecodeError as error:
            raise InputError(f"invalid UTF-8 byte 0x{error.object[error.start]:02x} in the header; expected UTF-8 text",
                             source=path, line=1) from None
        return _with_integer_texts(table, data, path), 2  # header is line 1
    except (pa.ArrowInvalid, pa.ArrowIOError, OSError) as error:
        text = " ".join(str(error).split())  # one line: Arrow quotes the bad row, newlines and all
        text = text if text.isprintable() else repr(text)[1:-1]  # no raw control bytes on a terminal
        raise InputError(f"cannot read the file: {text[:200]}", source=path) from None


def _column(table, name: str, path: str, first_line: int):
    if name not in table.column_names:
        raise InputError(f"no column {name!r}; the columns are {', '.join(map(repr, table.column_names))}", source=path)
    if table.column_names.count(name) > 1:
        raise InputError(f"column {name!r} appears {table.column_names.count(name)} times in the header; expected once",
                         source=path, field=name)
    column = table.column(name)
    import pyarrow as pa

    if pa.types.is_binary(column.type) or pa.types.is_large_binary(column.type):  # CSV text that is not UTF-8
        for row, raw in enumerate(column.to_pylist()):
            try:
                raw.decode("utf-8")
            except (UnicodeDecodeError, AttributeError):
                raise InputError(f"invalid UTF-8 bytes in {raw!r}; expected UTF-8 text", source=path,
                                 line=row + first_line, field=name) from None
    if column.null_count:
        import pyarrow.compute as pc

        row = int(pc.index(pc.is_null(column), True).as_py())
        raise InputError("expected a value, found an empty or missing one (e.g. '', NA, NaN, null)", source=path,
                         line=row + first_line, field=name)
    return column


def number_column(table, name: str, path: str, first_line: int) -> np.ndarray:
    """A score column as finite float64 (the rules of :func:`cranfield.classification._validation.check_scores`)."""
    column = _column(table, name, path, first_line)
    import pyarrow as pa

    if not (pa.types.is_integer(column.type) or pa.types.is_floating(column.type)):
        values = column.to_numpy(zero_copy_only=False)
        for i, value in enumerate(values):  # error path only: find the first bad value
            try:
                float(value)
            except (TypeError, ValueError):
                raise InputError(f"expected a number, found {value!r}", source=path, line=i + first_line,
                                 field=name) from None
        values = values.astype(np.float64)
    else:
        values = column.to_numpy()
    scores = check_scores(values, name, source=path, first_line=first_line)
    texts = _integer_texts_of(table, name)
    if texts:  # CSV: Arrow read integers beyond 2**53 as doubles; as integers they must stay distinct
        exact = np.empty(len(scores), dtype=object)
        exact[:] = scores.tolist()
        for row, text in texts:  # the few rows beyond 2**53 (error path)
            exact[row] = int(text)
        check_scores(exact, name, source=path, first_line=first_line)
    return scores


_INTEGER_TEXTS = b"cranfield.integer_texts"


def _with_integer_texts(table, data, path: str):
    """``table`` with, in its schema metadata, the text of every integer written beyond 2**53 in a
    column Arrow read as doubles (it does when a value does not fit int64): taken from the same
    bytes (``data``, read once: no second read of a FIFO or pipe), for :func:`number_column`."""
    import json

    import pyarrow as pa
    import pyarrow.compute as pc
    from pyarrow import csv

    huge = {}  # column -> its rows beyond 2**53 (only those values float64 may tie); a loop over columns
    for name, column in zip(table.column_names, table.columns):
        if pa.types.is_floating(column.type) and table.column_names.count(name) == 1:
            rows = np.flatnonzero(np.abs(column.to_numpy(zero_copy_only=False)) >= EXACT_INTEGERS)
            if rows.size:
                huge[name] = rows
    if not huge:
        return table
    texts = csv.read_csv(pa.BufferReader(data), parse_options=csv.ParseOptions(delimiter=_delimiter(path)),
                         convert_options=csv.ConvertOptions(include_columns=list(huge),
                                                            column_types={n: pa.string() for n in huge}))
    found = {}
    for name, rows in huge.items():
        text = pc.utf8_trim_whitespace(pc.take(texts.column(name), pa.array(rows)))
        integer = to_numpy(pc.match_substring_regex(text, r"^[+-]?[0-9]+$"))
        found[name] = list(zip(rows[integer].tolist(), pc.filter(text, pa.array(integer)).to_pylist()))
    return table.replace_schema_metadata({**(table.schema.metadata or {}), _INTEGER_TEXTS: json.dumps(found)})


def _integer_texts_of(table, name: str) -> list:
    import json

    metadata = table.schema.metadata or {}
    return [tuple(item) for item in json.loads(metadata[_INTEGER_TEXTS]).get(name, [])] if _INTEGER_TEXTS in metadata \
        else []


def label_column(table, name: str, path: str, first_line: int) -> np.ndarray:
    """A label column (one type, no missing value: the rules of ``check_labels``)."""
    values = _column(table, name, path, first_line).to_numpy(zero_copy_only=False)
    return check_labels(values, name, source=path, first_line=first_line)


def prediction_column(table, name: str, path: str, first_line: int) -> np.ndarray:
    """The ``--pred`` column: classes, not scores — whole numbers if numeric, at most MAX_CLASSES."""
    values = label_column(table, name, path, first_line)
    if values.dtype.kind == "f":
        fractional = values != np.round(values)
        if fractional.any():
            i = int(np.flatnonzero(fractional)[0])
            raise InputError(f"expected a predicted class, found the number {values[i].item()!r}: --pred takes class labels; "
                             f"for scores use --score {name}", source=path, line=i + first_line, field=name)
        if np.abs(values).max(initial=0) < 2**63:
            values = values.astype(np.int64)  # 1.0 and 1 are the same class; shown as 1
    n_classes = len(np.unique(values))
    if n_classes > MAX_CLASSES:
        raise InputError(f"expected at most {MAX_CLASSES} predicted classes, found {n_classes} distinct values; "
                         f"for scores use --score {name}", source=path, field=name)
    return values


def parse_label(text: str, values: np.ndarray):
    """``--positive`` read as the type of the truth column."""
    if values.dtype.kind == "b":
        lowered = text.lower()
        if lowered not in ("true", "false", "1", "0"):
            raise UsageError(f"--positive {text!r}: the truth column is boolean; expected true or false")
        return lowered in ("true", "1")
    if values.dtype.kind in "iu":
        try:
            return int(text)
        except ValueError:
            raise UsageError(f"--positive {text!r}: the truth column holds integers") from None
    if values.dtype.kind == "f":
        try:
            return float(text)
        except ValueError:
            raise UsageError(f"--positive {text!r}: the truth column holds numbers") from None
    return text


def positive_label(truth: np.ndarray, others: list[np.ndarray], positive_text: str | None, needed: bool):
    if positive_text is not None:
        return parse_label(positive_text, truth)
    classes = sorted(set(np.unique(truth).tolist()).union(*[np.unique(o).tolist() for o in others]))
    if len(classes) > 2 and not needed:
        return None
    try:
        return resolve_pos_label(classes, None) if len(classes) == 2 or needed else None
    except UsageError:
        raise UsageError(f"cannot tell which label is positive among {classes!r}; pass --positive LABEL") from None
