"""The classification table format (CSV, TSV or Parquet): one truth column and score or
predicted-label columns, one row per sample. This module is its grammar: how the file is read
into an Arrow table, what an empty line, a header or a text that is not UTF-8 is; the values of
each column are checked by :mod:`cranfield.classification.table` (scores finite, labels of one
type, predictions classes). Errors name the file, the line (CSV counts the header as line 1) and
the column.

Text is read once through :func:`cranfield.io.sources.read_all` (compressed, piped, bounded); the
separator is a TAB for names ending ``.tsv``, ``.tab`` or ``.txt`` (before a compression suffix),
else a comma. An empty line before the header or between rows is an error (it would shift every
later line number); empty lines at the end are ignored. Integers beyond 2**53 that Arrow reads as
doubles keep their text (see :func:`integer_texts_of`) so that distinct integers stay distinct.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from .._arrow import RAGGED_ROW, to_numpy
from ..errors import InputError
from .sources import read_all

__all__ = ["read_table", "table_column", "integer_texts_of", "EXACT_INTEGERS"]

EXACT_INTEGERS = 2**53  # every integer of magnitude <= 2**53 is a float64


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
        parse = csv.ParseOptions(delimiter=_delimiter(path))
        try:
            table = csv.read_csv(pa.BufferReader(data), parse_options=parse)
        except pa.ArrowInvalid:
            _name_the_ragged_row(data, parse, path)
            raise
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


def _name_the_ragged_row(data: bytes, parse, path: str) -> None:
    """A row with another number of fields than the header is an error naming its line: Arrow
    names the row only when it reads on one thread, so the failed text is read again that way
    (on the error path only; the row number counts the header, as the line numbers do)."""
    import pyarrow as pa
    from pyarrow import csv

    try:
        csv.read_csv(pa.BufferReader(data), parse_options=parse, read_options=csv.ReadOptions(use_threads=False))
    except pa.ArrowInvalid as error:
        ragged = RAGGED_ROW.search(str(error))
        if ragged:
            line, expected, found = (int(g) for g in ragged.groups())
            raise InputError(f"expected {expected} fields as in the header, found {found}", source=path,
                             line=line) from None


def table_column(table, name: str, path: str, first_line: int):
    """The column ``name`` (once in the header, UTF-8, no empty or missing value)."""
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
    import pyarrow.compute as pc

    missing = pc.is_null(column, nan_is_null=True) if pa.types.is_floating(column.type) else \
        (pc.is_null(column) if column.null_count else None)  # text 'nan' is null to Arrow; a typed NaN the same
    if missing is not None and pc.any(missing).as_py():
        row = int(pc.index(missing, True).as_py())
        raise InputError("expected a value, found an empty or missing one (e.g. '', NA, NaN, null)", source=path,
                         line=row + first_line, field=name)
    return column


_INTEGER_TEXTS = b"cranfield.integer_texts"


def _with_integer_texts(table, data, path: str):
    """``table`` with, in its schema metadata, the text of every integer written beyond 2**53 in a
    column Arrow read as doubles (it does when a value does not fit int64): taken from the same
    bytes (``data``, read once: no second read of a FIFO or pipe), for :func:`number_column`."""
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


def integer_texts_of(table, name: str) -> list:
    """``[(row, text), ...]``: the integers beyond 2**53 of column ``name`` as written (CSV)."""
    metadata = table.schema.metadata or {}
    return [tuple(item) for item in json.loads(metadata[_INTEGER_TEXTS]).get(name, [])] if _INTEGER_TEXTS in metadata \
        else []
