"""Read a TREC run (text, gzip or Parquet) block by block, in bounded memory.

Each block is ``(qid, docno, score, lines)``: Arrow string arrays, float64 scores and the 1-based
line number of each row (None when row ``i`` of the block is line ``first + i``, see
:class:`Block`). Text is parsed by Arrow's streaming CSV reader with the same two paths as
:func:`cranfield.io.trec.read_trec_columns`: a typed fast path for regular files (one separator
character, no comments or blank lines), and a general whitespace-splitting path that names the
line of any error. When the fast path meets an irregular line it raises :class:`Irregular`, and
the caller starts again with ``general=True``.
"""

from __future__ import annotations

import gzip
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import numpy as np

from .._arrow import to_numpy as _np
from ..errors import InputError
from .trec import RUN_FIELDS, _parse_numbers

__all__ = ["Block", "Irregular", "iter_run_blocks", "input_size"]


class Irregular(Exception):
    """The fast text path met a line it cannot parse: read again with ``general=True``."""


@dataclass
class Block:
    """Rows of a run: ``lines`` is the line number of each row, or None for ``first, first+1, …``."""

    qid: object  # pyarrow string Array
    docno: object
    score: np.ndarray
    lines: np.ndarray | None
    first: int
    position: int  # bytes (text) or rows (Parquet) consumed so far, for progress

    def __len__(self) -> int:
        return len(self.score)

    def line_numbers(self) -> np.ndarray:
        if self.lines is not None:
            return self.lines
        return np.arange(self.first, self.first + len(self.score), dtype=np.int64)


def input_size(path: "str | os.PathLike") -> tuple[int, str]:
    """(total, unit) of the input for progress: bytes of a text file, rows of a Parquet dataset."""
    from .parquet import count_rows, is_parquet

    if is_parquet(path):
        return count_rows(path, kind="run"), "rows"
    return Path(path).stat().st_size, "bytes"


def _is_gzip(path: Path) -> bool:
    with open(path, "rb") as handle:
        return handle.read(2) == b"\x1f\x8b"


def _open(path: Path):
    import pyarrow as pa

    raw = pa.OSFile(str(path), "r")
    if _is_gzip(path):
        return raw, pa.CompressedInputStream(raw, "gzip")
    return raw, raw


def _sample(path: Path) -> bytes:
    opener = gzip.open if _is_gzip(path) else open
    with opener(path, "rb") as handle:
        return handle.read(1 << 16)


def iter_run_blocks(path: "str | os.PathLike", *, block_bytes: int = 1 << 26, batch_rows: int = 1 << 20,
                    general: bool = False) -> Iterator[Block]:
    """Yield the blocks of a run file (TREC text, gzip, or Parquet file/dataset) in file order."""
    from .parquet import is_parquet, iter_parquet_batches

    source = str(path)
    file_path = Path(path)
    if is_parquet(path):
        import pyarrow as pa

        for qid, docno, score, first in iter_parquet_batches(path, kind="run", batch_rows=batch_rows):
            qid = qid if isinstance(qid, pa.Array) else qid.combine_chunks()
            yield Block(qid, docno, score.astype(np.float64, copy=False), None, first, first - 1 + len(score))
        return
    if not file_path.exists():
        raise InputError("no such file", source=source)
    if file_path.is_dir():
        raise InputError("is a directory, expected a file or a Parquet dataset", source=source)
    sample = _sample(file_path)
    if not sample:
        raise InputError(f"empty file; expected run lines \"{' '.join(RUN_FIELDS)}\"", source=source)
    delimiter = None if general else _fast_delimiter(sample)
    if delimiter is None:
        yield from _general_blocks(file_path, source, block_bytes)
    else:
        yield from _fast_blocks(file_path, source, block_bytes, delimiter)


def _fast_delimiter(sample: bytes) -> str | None:
    """The one separator of a regular file, or None (the same test as the in-memory fast path)."""
    if b"\r" in sample or sample[:1] == b"#" or b"\n\n" in sample or b"\n#" in sample:
        return None
    has_tab, has_space = b"\t" in sample, b" " in sample
    if has_tab == has_space:
        return None
    return "\t" if has_tab else " "


def _reader(stream, block_bytes: int, names, delimiter: str, convert):
    import pyarrow.csv as csv

    return csv.open_csv(
        stream,
        read_options=csv.ReadOptions(column_names=names, block_size=block_bytes, use_threads=True),
        parse_options=csv.ParseOptions(delimiter=delimiter, quote_char=False, escape_char=False,
                                       ignore_empty_lines=False, newlines_in_values=False),
        convert_options=convert)


def _fast_blocks(path: Path, source: str, block_bytes: int, delimiter: str) -> Iterator[Block]:
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as csv

    names = [f"f{i}" for i in range(len(RUN_FIELDS))]
    convert = csv.ConvertOptions(column_types={"f0": pa.string(), "f2": pa.string(), "f4": pa.float64()},
                                 include_columns=["f0", "f2", "f4"], strings_can_be_null=False,
                                 quoted_strings_can_be_null=False, null_values=[])
    raw, stream = _open(path)
    first = 1
    with raw:
        try:
            reader = _reader(stream, block_bytes, names, delimiter, convert)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
            raise Irregular from None
        while True:
            try:
                batch = reader.read_next_batch()
            except StopIteration:
                return
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
                raise Irregular from None
            if batch.num_rows == 0:
                continue
            qid, docno, value = batch.column("f0"), batch.column("f2"), batch.column("f4")
            if value.null_count or pc.any(pc.equal(qid, "")).as_py() or pc.any(pc.equal(docno, "")).as_py():
                raise Irregular
            score = _np(value)
            if not np.isfinite(score).all():
                raise Irregular
            yield Block(qid, docno, score, None, first, raw.tell())
            first += batch.num_rows


def _general_blocks(path: Path, source: str, block_bytes: int) -> Iterator[Block]:
    import pyarrow as pa
    import pyarrow.csv as csv

    convert = csv.ConvertOptions(column_types={"line": pa.binary()}, strings_can_be_null=False,
                                 quoted_strings_can_be_null=False)
    raw, stream = _open(path)
    first = 1
    seen_rows = False
    with raw:
        try:
            reader = _reader(stream, block_bytes, ["line"], "\x1f", convert)
            while True:
                try:
                    batch = reader.read_next_batch()
                except StopIteration:
                    break
                if batch.num_rows == 0:
                    continue
                block = _parse_general(batch.column("line"), first, source, raw.tell())
                first += batch.num_rows
                if block is not None:
                    seen_rows = True
                    yield block
        except pa.ArrowInvalid as error:
            raise InputError(f"unreadable content ({str(error).splitlines()[0]}); expected a text file",
                             source=source) from None
    if not seen_rows:
        raise InputError(f"no run lines (only comments or blank lines); expected \"{' '.join(RUN_FIELDS)}\"",
                         source=source)


def _parse_general(raw_lines, first: int, source: str, position: int) -> Block | None:
    """Split one block of lines on whitespace; skip blank lines and comments; check every field."""
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        lines = pc.cast(raw_lines, pa.string())
    except pa.ArrowInvalid:
        for number, text in enumerate(raw_lines.to_pylist(), start=first):
            try:
                text.decode("utf-8")
            except UnicodeDecodeError as error:
                raise InputError(f"invalid UTF-8 byte 0x{text[error.start]:02x}; expected UTF-8 text",
                                 source=source, line=number) from None
        raise  # pragma: no cover
    parts = pc.utf8_split_whitespace(lines)
    lengths = _np(pc.list_value_length(parts))
    head = pc.list_element(parts, 0)
    blank = (lengths == 1) & _np(pc.equal(head, ""))
    keep = ~(blank | _np(pc.starts_with(head, "#")))
    bad = np.flatnonzero(keep & (lengths < len(RUN_FIELDS)))
    if bad.size:
        index = int(bad[0])
        raise InputError(f"expected {len(RUN_FIELDS)} fields \"{' '.join(RUN_FIELDS)}\", found {int(lengths[index])}",
                         source=source, line=first + index)
    if not keep.any():
        return None
    line_numbers = np.flatnonzero(keep).astype(np.int64) + first
    if not keep.all():
        parts = parts.filter(pa.array(keep))
    score = _np(_parse_numbers(pc.list_element(parts, 4), pa.float64(), source, line_numbers, "score", "a number"))
    finite = np.isfinite(score)
    if not finite.all():
        index = int(np.flatnonzero(~finite)[0])
        raise InputError(f"expected a finite number, found {score[index]!r}", source=source,
                         line=int(line_numbers[index]), field="score")
    qid, docno = pc.list_element(parts, 0), pc.list_element(parts, 2)
    return Block(qid, docno, score, line_numbers, int(line_numbers[0]), position)
