"""The fast paths of the TREC text grammar, each taken for a block of lines only when every line
of the block is read exactly as :func:`cranfield.io.trec_grammar.parse_lines` reads it;
otherwise (None) the caller runs the reference parser on that block, which raises the error.

First choice, the compiled tokenizer (:mod:`cranfield._native.trec_tokenizer`, when the package
was built with it): one pass over the bytes, without the GIL, that decides per line and writes
the columns directly; it declines a block holding any line it does not read with certainty as the
grammar does (every fault, and a score with a leading ``+`` or that underflows, where Arrow
versions may differ). Its skipped lines (blank, comment) are the reference's.

Second choice, Arrow's typed CSV reader. The checks, all over the whole block (never a sample):

* the block holds no CR, VT, FF or NUL byte, and exactly one of space and TAB (the separator):
  Arrow then splits lines and fields where the grammar does; it does not start with a UTF-8 BOM
  (which Arrow would drop, where the grammar drops only the file's first);
* Arrow finds exactly the format's number of fields on every line (so no blank line and no
  extra field) and every field is non-empty (no leading, trailing or doubled separator);
* the ids are UTF-8 (Arrow checks the text columns; the other fields are bytes, as in the
  reference parser);
* no comment line (per dialect: a query id starting with ``#`` at the first row of each run of
  equal ids, which is where one would show);
* the value field: scores parse and are finite (Arrow parses exactly the decimal syntax, plus
  the words nan/inf that are not finite); Arrow's integer parser reads ``[-]digits`` (the
  grammar, less ``+1``, which Arrow refuses: the block goes to the reference parser) and
  hexadecimal ``0x..``: a block holding the bytes ``0x``/``0X`` anywhere goes to the reference
  parser.
"""

from __future__ import annotations

import numpy as np

from .._arrow import query_block_starts, take_sorted
from .._arrow import to_numpy as _np
from .trec_grammar import BOM, RUN, Parsed, TrecFormat

try:  # the compiled tokenizer is optional: a package built without it reads blocks with Arrow
    from .._native import trec_tokenizer as _native
except ImportError:  # pragma: no cover - the extension is built by every install (tests check it in CI)
    _native = None

__all__ = ["parse_fast", "parse_native"]

_FORBIDDEN = (b"\r", b"\v", b"\f", b"\0")
#: blocks of this many bytes or more get int64 offsets (large_string), cast to string as the reference does
WIDE_BYTES = 2**31 - 1
_COMMENTS_NONE, _COMMENTS_FIRST_FIELD, _COMMENTS_FIRST_BYTE = range(3)


def parse_fast(data, start: int, end: int, fmt: TrecFormat, dialect: str, first: int, *,
               use_threads: bool = True, heads: bool = False) -> "Parsed | None":
    """Rows of ``data[start:end]`` (whole lines) through the compiled tokenizer or else Arrow's CSV
    reader, or None if any line of the block is outside what they read exactly. ``use_threads``:
    Arrow's threads within the block (the reader parses several blocks at once instead);
    ``heads``: the compiled tokenizer gives the query ids as :attr:`Parsed.qid_heads`."""
    if _native is not None:
        parsed = parse_native(data, start, end, fmt, dialect, first, heads=heads)
        if parsed is not None:
            return parsed
    return parse_arrow(data, start, end, fmt, dialect, first, use_threads=use_threads)


def parse_native(data, start: int, end: int, fmt: TrecFormat, dialect: str, first: int, *,
                 heads: bool = False) -> "Parsed | None":
    """Rows of ``data[start:end]`` through :mod:`cranfield._native.trec_tokenizer`, or None where it
    declines the block. ``first``: the line number of the block's first line (for the rows' lines
    when blank or comment lines are skipped). ``heads``: the query ids as one per run of equal ids
    (:attr:`Parsed.qid_heads`), not one per row."""
    import pyarrow as pa

    if end <= start:
        return None
    wide = end - start >= WIDE_BYTES
    found = _native.tokenize(data, start, end, *_layout(fmt, dialect), int(wide), heads)
    if found is None:
        return None
    rows, n_lines, ids, values, starts, tag, skipped = found
    kind = pa.large_string() if wide else pa.string()
    counts = [len(starts) // 8 if heads and k == 0 else rows for k in range(len(ids))]
    columns = [pa.Array.from_buffers(kind, count, [None, pa.py_buffer(offsets), pa.py_buffer(text)], null_count=0)
               for count, (offsets, text, _) in zip(counts, ids)]
    if wide:
        columns = [column.cast(pa.string()) for column in columns]
    lines = None
    if skipped is not None:
        keep = np.ones(n_lines, dtype=bool)
        keep[np.frombuffer(skipped, dtype=np.int64)] = False
        lines = np.flatnonzero(keep).astype(np.int64) + first
    parsed = Parsed(None if heads else columns[0], columns[-1],
                    np.frombuffer(values, dtype=np.float64 if fmt.is_run else np.int64),
                    lines, first, n_lines, None if tag is None else tag.decode("utf-8", "replace"),
                    query_starts=np.frombuffer(starts, dtype=np.int64), longest_docno=ids[-1][2],
                    subtopic=columns[1] if len(columns) == 3 else None, qid_heads=columns[0] if heads else None)
    return parsed


def _layout(fmt: TrecFormat, dialect: str) -> tuple:
    """The tokenizer's description of a format's line and of the dialect's comments, blank lines and
    CRs (the rules of :func:`cranfield.io.trec_grammar.parse_lines`)."""
    if dialect == "cranfield" or (dialect == "trec_eval-10" and fmt.is_run):
        comments = _COMMENTS_FIRST_FIELD
    else:
        comments = _COMMENTS_FIRST_BYTE if dialect == "trec_eval-10" else _COMMENTS_NONE
    blank_error = fmt is not RUN and dialect in ("trec_eval-9", "trec_eval-10")
    kept = sum(1 << j for j in fmt.ids)
    return (len(fmt.fields), int(fmt.exact), kept, fmt.value, int(not fmt.is_run), 5 if fmt.is_run else -1,
            comments, int(blank_error), int(dialect == "cranfield"))


def parse_arrow(data, start: int, end: int, fmt: TrecFormat, dialect: str, first: int, *,
                use_threads: bool = True) -> "Parsed | None":
    """Rows of ``data[start:end]`` (whole lines) through Arrow's CSV reader, or None if any line
    of the block is outside the subset it reads exactly."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as csv

    if end <= start or any(data.find(byte, start, end) >= 0 for byte in _FORBIDDEN) or \
            data[start:start + len(BOM)] == BOM:
        return None  # (Arrow drops a UTF-8 BOM that starts its buffer: here it starts a line within the file)
    has_tab, has_space = data.find(b"\t", start, end) >= 0, data.find(b" ", start, end) >= 0
    if has_tab == has_space:
        return None
    names = [f"f{i}" for i in range(len(fmt.fields))]
    types = {name: pa.binary() for name in names}  # iter/Q0, rank, tag: bytes, never decoded
    for j in fmt.ids:  # ids: UTF-8, checked by Arrow
        types[f"f{j}"] = pa.string()
    value_name = names[fmt.value]
    types[value_name] = pa.float64() if fmt.is_run else pa.int64()
    if not fmt.is_run and _holds_hex(data, start, end):
        return None  # Arrow's integer parser also reads hexadecimal: such blocks go to the reference parser
    try:
        table = csv.read_csv(
            pa.BufferReader(pa.py_buffer(memoryview(data)[start:end])),
            read_options=csv.ReadOptions(column_names=names, block_size=max(1 << 20, min((end - start) // 8 + 1, 1 << 22)) if use_threads
                                         else min(end - start + 1, 1 << 24), use_threads=use_threads),
            parse_options=csv.ParseOptions(delimiter="\t" if has_tab else " ", quote_char=False, escape_char=False,
                                           ignore_empty_lines=False, newlines_in_values=False),
            convert_options=csv.ConvertOptions(column_types=types, strings_can_be_null=False,
                                               quoted_strings_can_be_null=False, null_values=[], check_utf8=True))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
        return None
    if table.num_rows == 0:
        return None
    longest = 0
    for name in names:
        if name == value_name:  # parsed as a number: never empty
            continue
        lengths = pc.min_max(pc.binary_length(table.column(name))).as_py()
        if lengths["min"] == 0:
            return None
        if name == "f2":
            longest = lengths["max"]
    qid = table.column("f0")
    starts = query_block_starts(qid)
    if dialect != "trec_eval-9" and pc.any(pc.starts_with(take_sorted(qid, starts), "#")).as_py():
        return None
    value = table.column(value_name)
    if fmt.is_run:
        value = _np(value)
        if not np.isfinite(value).all():
            return None
    else:
        value = _np(value)
    tag = table.column("f5")[0].as_py().decode("utf-8", "replace") if fmt.is_run else None
    parsed = Parsed(qid, table.column("f2"), value, None, first, table.num_rows, tag,
                    subtopic=table.column("f1") if 1 in fmt.ids else None)
    parsed.query_starts = starts
    parsed.longest_docno = longest
    return parsed


def _holds_hex(data, start: int, end: int) -> bool:
    """Whether the block holds ``0x`` or ``0X`` (a cheap one-byte scan first: most blocks hold no x)."""
    return any(data.find(x, start, end) >= 0 and data.find(b"0" + x, start, end) >= 0 for x in (b"x", b"X"))
