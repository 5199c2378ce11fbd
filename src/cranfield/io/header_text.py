"""CSV/TSV text with a header line: the one text reader of the long-table formats (click logs,
crowd labels).

The rules, the same for every such format:

* UTF-8 (a byte-order mark before the header is dropped; UTF-16 is refused by
  :func:`cranfield.io.sources.open_input`); read once, compressed or not, in bounded blocks.
* The first line is the header: the column names, separated like the rows. An empty input, or an
  empty first line, is an error (line 1).
* Lines end with LF or CRLF. A field may be quoted (``"q1"``) but may not hold a line break.
  Fields are taken as written (no blanks trimmed).
* A line whose every field is empty (a blank line, or separators only) is skipped; line numbers
  still count it. A line with another number of fields than the header is an error naming it.
* Bytes that are not UTF-8 are an error naming the line and the field.

Line numbers count the header as line 1 (the first row is on line 2).

    >>> import io
    >>> text = read_header_text(io.BytesIO(b"a,b\\n1,x\\n\\n2,y\\n"), name="t.csv", sep=",")
    >>> text.names, [utf8_column(c, "t.csv", n, text.lines).to_pylist() for n, c in zip(text.names, text.columns)]
    (['a', 'b'], [['1', '2'], ['x', 'y']])
    >>> text.lines.tolist()
    [2, 4]
"""

from __future__ import annotations

import csv as _csv
import io
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pyarrow import csv

from .._arrow import RAGGED_ROW, to_numpy
from ..errors import InputError
from .sources import open_input

__all__ = ["HeaderText", "read_header_text", "utf8_column", "delimiter_for", "HEADER_LIMIT"]

HEADER_LIMIT = 1 << 20  # bytes: a header line longer than this is not a header
_COMPRESSION_SUFFIXES = (".gz", ".bz2", ".xz", ".zst", ".lz4")


@dataclass(frozen=True)
class HeaderText:
    """The header's ``names``, one binary Arrow column per name (blank lines dropped) and the
    1-based ``lines`` of the rows kept."""

    names: list
    columns: list
    lines: np.ndarray


def delimiter_for(name: str) -> str:
    """TAB for names ending ``.tsv``, ``.tab`` or ``.txt`` (before a compression suffix), else a comma."""
    lowered = name.lower()
    for suffix in _COMPRESSION_SUFFIXES:
        if lowered.endswith(suffix):
            lowered = lowered[: -len(suffix)]
    return "\t" if lowered.endswith((".tsv", ".tab", ".txt")) else ","


class _Joined(io.RawIOBase):
    """``prefix`` then the rest of an already opened stream (the header was read off it)."""

    def __init__(self, prefix: bytes, rest) -> None:
        self._prefix, self._rest = prefix, rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self._prefix:
            size = min(len(buffer), len(self._prefix))
            buffer[:size] = self._prefix[:size]
            self._prefix = self._prefix[size:]
            return size
        data = self._rest.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)


def _read_header(stream, source: str, expected: str) -> tuple[bytes, bytes]:
    """(header line without its line end, the bytes read after it)."""
    data = b""
    while b"\n" not in data and len(data) <= HEADER_LIMIT:
        chunk = stream.read(1 << 16)
        if not chunk:
            break
        data += chunk
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if not data.strip():
        raise InputError(f"empty input; expected a header line {expected}", source=source, line=1)
    end = data.find(b"\n")
    if end < 0:
        if len(data) > HEADER_LIMIT:
            raise InputError("no line break in the first MiB; expected a header line", source=source, line=1)
        end = len(data)
    header, rest = data[:end].rstrip(b"\r"), data[end + 1:]
    if not header.strip():
        raise InputError(f"the first line is blank; expected the header line {expected}", source=source, line=1)
    return header, rest


def _names(header: bytes, source: str, sep: str) -> list:
    try:
        return next(_csv.reader([header.decode("utf-8")], delimiter=sep))
    except UnicodeDecodeError as error:
        raise InputError(f"invalid UTF-8 byte 0x{error.object[error.start]:02x} in the header; expected UTF-8 "
                         "text", source=source, line=1) from None
    except _csv.Error as error:
        raise InputError(f"cannot read the header ({error})", source=source, line=1) from None


def read_header_text(source, *, name: str, sep: str, expected: str = "",
                     check_names: Callable[[list], None] | None = None) -> HeaderText:
    """Read ``source`` (anything :func:`cranfield.io.sources.open_input` opens) by the rules of
    the module; ``name``: the source's name in errors. ``check_names(names)`` runs on the header before any row is read (so that a
    missing column is reported before a bad row). ``expected``: the header, for messages."""
    stream = open_input(source, display_name=name)
    try:
        header, rest = _read_header(stream, name, expected)
        names = _names(header, name, sep)
        if check_names is not None:
            check_names(names)
        table = _body(stream, rest, names, name, sep)
    finally:
        stream.close()
    n = table.num_rows
    empty = np.ones(n, dtype=bool)
    for column in table.columns:
        empty &= to_numpy(pc.binary_length(column)) == 0
    keep = np.flatnonzero(~empty)
    if keep.size != n:
        table = table.take(pa.array(keep))
    return HeaderText(names=names, columns=list(table.columns), lines=keep.astype(np.int64) + 2)


def _body(stream, rest: bytes, names: list, source: str, sep: str):
    """The rows after the header as a table of binary columns (positional names: duplicates are
    the caller's to judge)."""
    positional = [f"f{i}" for i in range(len(names))]
    try:
        return csv.read_csv(
            io.BufferedReader(_Joined(rest, stream), buffer_size=1 << 20),
            read_options=csv.ReadOptions(column_names=positional, use_threads=False, block_size=1 << 24),
            parse_options=csv.ParseOptions(delimiter=sep, newlines_in_values=False, ignore_empty_lines=False),
            convert_options=csv.ConvertOptions(column_types={c: pa.binary() for c in positional},
                                               strings_can_be_null=False, quoted_strings_can_be_null=False))
    except pa.ArrowInvalid as error:
        text = str(error)
        if "Empty CSV" in text:  # a header and no row
            return pa.Table.from_arrays([pa.array([], pa.binary()) for _ in names], names=positional)
        # single-threaded, Arrow names the row (counted after the header); an invalid-row handler
        # would not see a row that is not UTF-8
        ragged = RAGGED_ROW.search(text)
        if ragged:
            row, expected, found = (int(g) for g in ragged.groups())
            raise InputError(f"expected {expected} fields as in the header, found {found}", source=source,
                             line=row + 1) from None
        text = " ".join(text.split())[:200]
        raise InputError(f"cannot read the text ({text if text.isprintable() else repr(text)})", source=source) \
            from None


def utf8_column(column, source: str, field: str, lines: np.ndarray):
    """A binary column as UTF-8 text; the first row that is not UTF-8 is an error naming its line."""
    try:
        return column.cast(pa.string())
    except pa.ArrowInvalid:
        for index, raw in enumerate(column.to_pylist()):  # error path only: find the bad row
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as error:
                raise InputError(f"invalid UTF-8 byte 0x{raw[error.start]:02x}; expected UTF-8 text", source=source,
                                 line=int(lines[index]), field=field) from None
        raise  # pragma: no cover
