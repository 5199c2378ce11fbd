"""Read and write TREC qrels and run files, fast and strictly.

The grammar (fields, separators, numbers, comments per dialect, errors) is specified once in
:mod:`cranfield.io.trec_grammar`. This module opens the input (a path, ``-`` for standard
input, a binary file object; gzip is decompressed as a stream) and cuts it into blocks of whole
lines (:data:`CHUNK_BYTES` each); every block is parsed by the verified fast path
(:mod:`cranfield.io.trec_fast`) or, when any of its lines is outside that subset, by the
reference parser: the same rows, or the same error (file, line, field), whatever the block
size. The whole-file reader (:func:`read_trec_columns`) and the block-wise one
(:func:`cranfield.io.blocks.iter_run_blocks`) are the same loop (:func:`iter_parsed`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import IO, Iterable, Iterator

import numpy as np

from .._arrow import release_unused_memory
from .._threads import available_threads, in_order
from ..errors import InputError
from .mapped import MappedFile
from .sources import open_input_counted
from .trec_fast import parse_fast
from .trec_grammar import BOM, Parsed, check_dialect, format_of, last_tag, parse_lines
from .value_chunks import ValueChunks

__all__ = ["read_trec_columns", "iter_parsed", "TrecColumns", "RUN_FIELDS", "QRELS_FIELDS", "write_trec_lines",
           "CHUNK_BYTES"]

RUN_FIELDS = ("qid", "Q0", "docno", "rank", "score", "tag")
QRELS_FIELDS = ("qid", "iter", "docno", "rel")

#: bytes of text per block (whole lines; a longer line makes a longer block). Tests set it tiny.
CHUNK_BYTES = 1 << 23


@dataclass
class TrecColumns:
    """Columns of a TREC file: Arrow string arrays plus original 1-based line numbers."""

    qid: "object"  # pyarrow.ChunkedArray of string
    docno: "object"
    chunks: ValueChunks  # float64 scores or int64 relevance, as read (see :attr:`value`)
    line: "np.ndarray | None"  # int64 line number of each row (None: row i is line i + 1)
    tag: "object | None"  # run tag of the first row (runs only)
    source: str
    query_starts: "np.ndarray | None" = None  # first row of each run of equal query ids, if known
    longest_docno: "int | None" = None  # bytes, if known
    subtopic: "object | None" = None  # pyarrow.ChunkedArray of string (diversity qrels only)
    #: the query id of each run of equal ids (at query_starts), when read with ``qid_heads=True``
    #: (``qid`` is then None): the rows' ids are not made
    qid_heads: "object | None" = None
    last_tag: "str | None" = None  # the run tag of the last row (runs): trec_eval's runid

    @property
    def value(self) -> np.ndarray:
        """The scores or relevances as one array."""
        return self.chunks.array()


def _display_name(path) -> str:
    if hasattr(path, "read"):
        return str(getattr(path, "name", "<stream>"))
    if path is None or str(path) == "-":
        return "<stdin>"
    return str(path)


# ------------------------------------------------------------------------------ opening
def open_input(path: "str | os.PathLike | IO[bytes]", source: str):
    """The input's bytes through :func:`cranfield.io.sources.open_input_counted` (the one opener
    of every reader): a regular, uncompressed file mapped (:class:`cranfield.io.mapped.MappedFile`),
    anything else a binary stream read once and decompressed on the fly (``read(n)``); both have
    ``position()`` (source bytes consumed, for progress) and ``close()``. The container is
    sniffed; the grammar applied to the bytes never is."""
    return open_input_counted(path, display_name=source, mapped=True)


def _blocks(stream, chunk_bytes: int, source: str) -> Iterator[tuple[bytes, int, int]]:
    """``(data, start, end)``: the blocks of whole lines of a mapped file or of a stream (below);
    a UTF-8 BOM at the start of the file is dropped either way."""
    if isinstance(stream, MappedFile):
        return stream.blocks(chunk_bytes, len(BOM) if stream.startswith(BOM) else 0)
    return _chunks(stream, chunk_bytes, source)


def _chunks(stream, chunk_bytes: int, source: str) -> Iterator[tuple[bytes, int, int]]:
    """``(data, start, end)``: ``data[start:end]`` is a block of whole lines (the file's last line
    may lack its LF); a UTF-8 BOM at the start of the file is dropped. The next read overlaps
    the parsing of the current block; blocks are cut without copying (a line split by a read
    is joined into a one-line block of its own)."""
    from concurrent.futures import ThreadPoolExecutor

    size = max(int(chunk_bytes), 1)
    carry = stream.read(len(BOM))  # the opener turns read and decompression errors into InputError
    if carry == BOM:
        carry = b""
    with ThreadPoolExecutor(1) as pool:
        future = pool.submit(stream.read, size)
        while True:
            data = future.result()
            if not data:
                if carry:
                    yield carry, 0, len(carry)
                return
            future = pool.submit(stream.read, size)
            begin = 0
            if carry:
                newline = data.find(b"\n")
                if newline < 0:
                    carry += data
                    continue
                joint = carry + data[:newline + 1]
                carry = b""
                yield joint, 0, len(joint)
                begin = newline + 1
            cut = data.rfind(b"\n") + 1
            if cut <= begin:
                carry = data[begin:]
                continue
            yield data, begin, cut
            carry = data[cut:]


def iter_parsed(path: "str | os.PathLike | IO[bytes]", kind: str, *, dialect: str = "cranfield",
                chunk_bytes: "int | None" = None, general: bool = False, positions: "list | None" = None,
                threads: "int | None" = None, heads: bool = False) -> Iterator[Parsed]:
    """The rows of a TREC file, block by block (blocks without rows are not yielded).

    ``general=True`` parses every block with the reference parser (for tests: the result is
    the same). ``positions``, if given, receives the input position after each yielded block.
    ``threads`` (default :func:`cranfield._threads.available_threads`) blocks are parsed by the
    fast path at once, each in one thread; the blocks are still taken in file order, and a block
    the fast path declines is parsed by the reference parser in that order, so the rows, the
    line numbers and the error (that of the first bad line) are those of one thread.
    ``heads``: blocks read by the compiled tokenizer keep one query id per run of equal ids
    (:attr:`Parsed.qid_heads`) instead of one per row.
    Raises the error of the first bad line, or one for an empty file / a file without rows.
    """
    check_dialect(dialect)
    fmt = format_of(kind)
    source = _display_name(path)
    threads = available_threads() if threads is None else max(1, int(threads))
    stream = open_input(path, source)
    first = 1
    seen_bytes = seen_rows = False
    chunks = _blocks(stream, CHUNK_BYTES if chunk_bytes is None else chunk_bytes, source)
    release = stream.release if isinstance(stream, MappedFile) else None
    try:
        for data, start, end, parsed in _fast_parsed(chunks, fmt, dialect, 1 if general else threads, general,
                                                     heads):
            seen_bytes = True
            if parsed is None:
                parsed = parse_lines(data, start, end, fmt, dialect, first, source)
            else:  # the fast path ran before the block's first line number was known
                parsed.first = first
                if parsed.lines is not None:  # the compiled tokenizer skipped blank or comment lines
                    parsed.lines = parsed.lines + first
            first += parsed.n_lines
            if fmt.is_run:
                parsed.last_tag = last_tag(data, start, end, dialect)
            if release is not None:  # the block's pages: parsed (blocks are parsed ahead, released in order)
                release(start, end)
            if len(parsed):
                seen_rows = True
                if positions is not None:
                    positions.append(stream.position())
                yield parsed
    finally:
        chunks.close()  # waits for a read in flight before the file is closed
        stream.close()
    expected = f"\"{' '.join(fmt.fields)}\""
    if not seen_bytes:
        raise InputError(f"empty file; expected {kind} lines {expected}", source=source)
    if not seen_rows:
        raise InputError(f"no {kind} lines (only comments or blank lines); expected {expected}", source=source)


def _fast_parsed(chunks, fmt, dialect: str, threads: int, general: bool, heads: bool = False):
    """``(data, start, end, Parsed or None)`` per block, in order: the fast path's result (None
    where it declines the block, or for every block with ``general``). With several threads,
    up to ``threads`` + 1 blocks are parsed ahead, each in one thread by the compiled tokenizer
    or Arrow (both, and the byte scans, release the GIL), which scales with the cores where one multi-threaded Arrow
    read per block would wait for its slowest thread at every block."""
    if general:
        for data, start, end in chunks:
            yield data, start, end, None
        return
    if threads == 1:
        for data, start, end in chunks:
            yield data, start, end, parse_fast(data, start, end, fmt, dialect, 0, use_threads=False, heads=heads)
        return
    from concurrent.futures import ThreadPoolExecutor

    def parse(block):
        return parse_fast(*block, fmt, dialect, 0, use_threads=False, heads=heads)

    with ThreadPoolExecutor(threads) as pool:
        for (data, start, end), parsed in in_order(pool, parse, chunks, threads):
            yield data, start, end, parsed


def read_trec_columns(path: "str | os.PathLike | IO[bytes]", *, kind: str, dialect: str = "cranfield",
                      qid_heads: bool = False) -> TrecColumns:
    """Read a TREC ``run``, ``qrels`` or ``diversity qrels`` file into columns, validating every line (see
    :mod:`cranfield.io.trec_grammar` for the grammar and the dialects). ``qid_heads=True``: the
    query ids as one per run of equal ids (:attr:`TrecColumns.qid_heads`, with ``query_starts``),
    ``qid`` None: a column of one id per row is not made."""
    import pyarrow as pa

    source = _display_name(path)
    try:
        parts = list(iter_parsed(path, kind, dialect=dialect, heads=qid_heads))
        starts, heads = _merged_starts(parts)
        qid = None if qid_heads else pa.chunked_array([c for p in parts for c in _chunks_of(p.qid)], type=pa.string())
        docno = pa.chunked_array([c for p in parts for c in _chunks_of(p.docno)], type=pa.string())
        value = ValueChunks([p.value for p in parts])  # concatenated when read whole (see value_chunks)
        contiguous = all(p.lines is None for p in parts) and len(value) == parts[-1].first + \
            parts[-1].n_lines - 1
        lines = None if contiguous else np.concatenate(
            [p.lines if p.lines is not None else np.arange(p.first, p.first + len(p), dtype=np.int64) for p in parts])
        longest = None
        if all(p.longest_docno is not None for p in parts):
            longest = max(p.longest_docno for p in parts)
        subtopic = None
        if parts[0].subtopic is not None:
            subtopic = pa.chunked_array([c for p in parts for c in _chunks_of(p.subtopic)], type=pa.string())
        return TrecColumns(qid=qid, docno=docno, chunks=value, line=lines, tag=parts[0].tag, source=source,
                           query_starts=starts, longest_docno=longest, subtopic=subtopic,
                           qid_heads=heads if qid_heads else None,
                           last_tag=next((p.last_tag for p in reversed(parts) if p.last_tag is not None), None))
    finally:
        release_unused_memory()


def _chunks_of(array):
    import pyarrow as pa

    return array.chunks if isinstance(array, pa.ChunkedArray) else [array]


def _merged_starts(parts: list[Parsed]):
    """``(starts, heads)``: the query starts of the blocks as rows of the whole file, and the id
    at each (a ChunkedArray); a query that goes on across blocks starts once."""
    import pyarrow as pa

    pieces, head_pieces = [], []
    offset = 0
    previous_last = None
    for part in parts:
        heads = part.heads()  # (computes the part's query starts if its parser did not)
        starts = part.query_starts
        last = heads[len(heads) - 1].as_py()
        if previous_last is not None and heads[0].as_py() == previous_last:
            starts, heads = starts[1:], heads.slice(1)
        pieces.append(starts + offset)
        head_pieces.extend(_chunks_of(heads))
        previous_last = last
        offset += len(part)
    return np.concatenate(pieces).astype(np.int64, copy=False), pa.chunked_array(head_pieces, type=pa.string())


def write_trec_lines(rows: Iterable[str], handle: IO[str]) -> None:
    for row in rows:
        handle.write(row)
