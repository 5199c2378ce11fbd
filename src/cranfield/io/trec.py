"""Read and write TREC qrels and run files, fast and strictly.

Format (trec_eval's; text after a run line's 6th field is ignored, as trec_eval does)::

    qrels:  qid  iter  docno  rel                  (4 fields)
    run:    qid  Q0    docno  rank  score  tag     (6 fields)

Fields are separated by any run of spaces or tabs; lines starting with ``#`` and blank lines
are skipped; CRLF line ends, a UTF-8 byte-order mark and gzip compression (``.gz`` or the
gzip magic bytes) are accepted; ``-`` reads standard input.

The file is read in blocks by Arrow's multi-threaded CSV reader (one column per line) and
split with vectorised string kernels: there is no Python loop per line. Every error names the
file, the line and the field, what was found and what was expected.
"""

from __future__ import annotations

import gzip
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Iterable

import numpy as np

from .._arrow import release_unused_memory, take_sorted
from .._arrow import to_numpy as _np
from ..errors import InputError

__all__ = ["read_trec_columns", "TrecColumns", "RUN_FIELDS", "QRELS_FIELDS", "write_trec_lines"]

RUN_FIELDS = ("qid", "Q0", "docno", "rank", "score", "tag")
QRELS_FIELDS = ("qid", "iter", "docno", "rel")

_BLOCK_SIZE = 1 << 22  # 4 MiB of text per block: parallel parsing, small peak memory


@dataclass
class TrecColumns:
    """Columns of a TREC file: Arrow string arrays plus original 1-based line numbers."""

    qid: "object"  # pyarrow.ChunkedArray of string
    docno: "object"
    value: np.ndarray  # float64 scores or int64 relevance
    line: "np.ndarray | None"  # int64 line number of each row (None: row i is line i + 1)
    tag: "object | None"  # run tag of the first row (runs only)
    source: str
    query_starts: "np.ndarray | None" = None  # first row of each run of equal query ids, if known
    longest_docno: "int | None" = None  # bytes, if known


def _display_name(path: "str | os.PathLike | None") -> str:
    if path is None or str(path) == "-":
        return "<stdin>"
    return str(path)


def _open_source(path: "str | os.PathLike | IO[bytes]", source: str):
    """Return an Arrow input stream for a path, '-', or a binary file object."""
    import pyarrow as pa

    if hasattr(path, "read"):
        data = path.read()
        if isinstance(data, str):
            data = data.encode("utf-8")
        return _maybe_gunzip(data, source)
    if str(path) == "-":
        return _maybe_gunzip(sys.stdin.buffer.read(), source)
    file_path = Path(path)
    if not file_path.exists():
        raise InputError("no such file", source=source)
    if file_path.is_dir():
        raise InputError("is a directory, expected a file", source=source)
    with open(file_path, "rb") as handle:
        magic = handle.read(2)
    if magic == b"\x1f\x8b":
        return _maybe_gunzip(file_path.read_bytes(), source)
    try:
        return pa.OSFile(str(file_path), "r")  # buffered reads: no memory map inflating the resident set
    except OSError as error:  # pragma: no cover - permissions and the like
        raise InputError(f"cannot read file: {error.strerror or error}", source=source) from None


def _maybe_gunzip(data: bytes, source: str):
    import pyarrow as pa

    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (EOFError, OSError, gzip.BadGzipFile) as error:
            raise InputError(f"corrupt or truncated gzip data ({error})", source=source) from None
    return pa.BufferReader(data)


def _read_lines(stream, source: str):
    """All lines of the stream as one Arrow binary ChunkedArray (empty lines kept)."""
    import pyarrow as pa
    import pyarrow.csv as csv

    read_options = csv.ReadOptions(column_names=["line"], block_size=_BLOCK_SIZE, use_threads=True)
    parse_options = csv.ParseOptions(delimiter="\x1f", quote_char=False, escape_char=False,
                                     ignore_empty_lines=False, newlines_in_values=False)
    convert_options = csv.ConvertOptions(column_types={"line": pa.binary()}, strings_can_be_null=False,
                                         quoted_strings_can_be_null=False)
    try:
        table = csv.read_csv(stream, read_options=read_options, parse_options=parse_options,
                             convert_options=convert_options)
    except pa.ArrowInvalid as error:
        text = str(error)
        if "Empty CSV file" in text:
            return pa.chunked_array([], pa.binary())
        # A line containing the 0x1f separator byte yields two columns: treat as binary garbage.
        raise InputError(f"unreadable content ({text.splitlines()[0]}); expected a text file", source=source) from None
    return table.column("line")


def _to_utf8(lines, source: str):
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        return pc.cast(lines, pa.string())
    except pa.ArrowInvalid:
        # Slow path, only to name the offending line.
        for number, raw in enumerate(lines.to_pylist(), start=1):
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as error:
                snippet = raw[max(0, error.start - 10): error.start + 10]
                raise InputError(f"invalid UTF-8 byte 0x{raw[error.start]:02x} near {snippet!r}; "
                                 "expected UTF-8 text", source=source, line=number) from None
        raise  # pragma: no cover


def read_trec_columns(path: "str | os.PathLike | IO[bytes]", *, kind: str) -> TrecColumns:
    """Read a TREC ``run`` or ``qrels`` file into columns, validating every line.

    Well-formed files with one separator character are parsed by Arrow's typed CSV reader
    directly (the fast path); anything else — runs of blanks, comments, blank lines, a bad
    field — goes through the general whitespace-splitting path, which names the bad line.
    """
    source = _display_name(path if not hasattr(path, "read") else getattr(path, "name", "<stream>"))
    stream = _open_source(path, source)
    try:
        fast = _read_fast(stream, kind, source)
        if fast is not None:
            return fast
        stream.seek(0)
        return _read_general(stream, kind, source)
    finally:
        release_unused_memory()


def _read_fast(stream, kind: str, source: str) -> "TrecColumns | None":
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as csv

    from ..retrieval.ranked import query_block_starts

    sample = stream.read(1 << 16)
    stream.seek(0)
    if not sample or b"\r" in sample or b"#" in sample[:1] or b"\n\n" in sample or b"\n#" in sample:
        return None
    has_tab, has_space = b"\t" in sample, b" " in sample
    if has_tab == has_space:
        return None
    delimiter = "\t" if has_tab else " "
    fields = RUN_FIELDS if kind == "run" else QRELS_FIELDS
    names = [f"f{i}" for i in range(len(fields))]
    value_column, value_type = ("f4", pa.float64()) if kind == "run" else ("f3", pa.int64())
    try:
        table = csv.read_csv(
            stream,
            read_options=csv.ReadOptions(column_names=names, block_size=_BLOCK_SIZE, use_threads=True),
            parse_options=csv.ParseOptions(delimiter=delimiter, quote_char=False, escape_char=False,
                                           ignore_empty_lines=False, newlines_in_values=False),
            convert_options=csv.ConvertOptions(
                column_types={"f0": pa.string(), "f2": pa.string(), value_column: value_type},
                include_columns=["f0", "f2", value_column], strings_can_be_null=False,
                quoted_strings_can_be_null=False, null_values=[]))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
        return None
    if table.num_rows == 0:
        return None
    qid, docno, value = table.column("f0"), table.column("f2"), table.column(value_column)
    # A comment line or an empty query id past the sample differs from the line before it, so
    # checking the first row of each run of equal ids is enough.
    starts = query_block_starts(qid)
    block_ids = take_sorted(qid, starts)
    docno_lengths = pc.min_max(pc.binary_length(docno)).as_py()
    if value.null_count or docno_lengths["min"] == 0 \
            or pc.min(pc.binary_length(block_ids)).as_py() == 0 or pc.any(pc.starts_with(block_ids, "#")).as_py():
        return None
    if kind == "run":
        # one Arrow buffer from the memory the parser just freed, seen by numpy without a copy
        scores = _np(pa.concat_arrays(value.chunks)) if value.num_chunks > 1 else _np(value)
        if not np.isfinite(scores).all():
            return None
        value = scores
        first_line = sample.split(b"\n", 1)[0].split()
        tag = first_line[5].decode("utf-8", "replace") if len(first_line) > 5 else None
    else:
        value = _np(value)
        tag = None
    return TrecColumns(qid=qid, docno=docno, value=value, line=None, tag=tag, source=source, query_starts=starts,
                       longest_docno=docno_lengths["max"])


def _read_general(stream, kind: str, source: str) -> TrecColumns:
    import pyarrow as pa
    import pyarrow.compute as pc

    fields = RUN_FIELDS if kind == "run" else QRELS_FIELDS
    lines = _to_utf8(_read_lines(stream, source), source)
    if len(lines) == 0:
        raise InputError(f"empty file; expected {kind} lines \"{' '.join(fields)}\"", source=source)

    # ASCII whitespace only, as trec_eval's isspace() and the fast path; leading blanks are not a field
    parts = pc.ascii_split_whitespace(pc.ascii_trim_whitespace(lines))
    lengths = _np(pc.list_value_length(parts))
    first = pc.list_element(parts, 0)
    # skip blank lines ([""]) and comments (first field starts with '#')
    blank = (lengths == 1) & _np(pc.equal(first, ""))
    comment = _np(pc.starts_with(first, "#"))
    keep = ~(blank | comment)
    line_numbers = np.flatnonzero(keep).astype(np.int64) + 1
    if line_numbers.size == 0:
        raise InputError(f"no {kind} lines (only comments or blank lines); expected "
                         f"\"{' '.join(fields)}\"", source=source)
    # trec_eval ignores text after the 6th field of a run line (its test suite relies on it)
    wrong = (lengths < len(fields)) if kind == "run" else (lengths != len(fields))
    bad = np.flatnonzero(keep & wrong)
    if bad.size:
        index = int(bad[0])
        raise InputError(f"expected {len(fields)} fields \"{' '.join(fields)}\", found {int(lengths[index])}",
                         source=source, line=index + 1)
    if not keep.all():
        parts = parts.filter(pa.chunked_array([pa.array(keep)]) if isinstance(parts, pa.ChunkedArray) else pa.array(keep))

    def column(j: int):
        return pc.list_element(parts, j)

    qid, docno = column(0), column(2)
    if kind == "run":
        value = _parse_numbers(column(4), pa.float64(), source, line_numbers, "score", "a number")
        scores = _np(value)
        finite = np.isfinite(scores)
        if not finite.all():
            index = int(np.flatnonzero(~finite)[0])
            raise InputError(f"expected a finite number, found {column(4)[index].as_py()!r}",
                             source=source, line=int(line_numbers[index]), field="score")
        value = scores
        tag = column(5)[0].as_py()
    else:
        value = _np(_parse_numbers(column(3), pa.int64(), source, line_numbers, "rel", "an integer relevance"))
        tag = None
    return TrecColumns(qid=qid, docno=docno, value=value, line=line_numbers, tag=tag, source=source)


def _parse_numbers(strings, arrow_type, source: str, line_numbers: np.ndarray, field: str, expected: str,
                   *, check_only: bool = False):
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        values = pc.cast(strings, arrow_type)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        if check_only:
            # trec_eval ignores the rank column; we accept anything there.
            return None
        pattern = r"^[+-]?\d+$" if arrow_type == pa.int64() else r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$"
        ok = pc.match_substring_regex(strings, pattern)
        ok_np = _np(ok)
        bad = np.flatnonzero(~ok_np)
        index = int(bad[0]) if bad.size else 0
        found = strings[index].as_py() if hasattr(strings, "__getitem__") else "?"
        raise InputError(f"expected {expected}, found {found!r}", source=source,
                         line=int(line_numbers[index]), field=field) from None
    return values


def write_trec_lines(rows: Iterable[str], handle: IO[str]) -> None:
    for row in rows:
        handle.write(row)
