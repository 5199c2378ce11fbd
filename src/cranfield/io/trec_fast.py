"""The fast path of the TREC text grammar: Arrow's multi-threaded typed CSV reader, taken for a
block of lines only when every line of the block is verified to be read exactly as
:func:`cranfield.io.trec_grammar.parse_lines` reads it; otherwise (None) the caller runs the
reference parser on that block. The checks, all over the whole block (never a sample):

* the block holds no CR, VT, FF or NUL byte, and exactly one of space and TAB (the separator):
  Arrow then splits lines and fields where the grammar does;
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
from .trec_grammar import Parsed, TrecFormat

__all__ = ["parse_fast"]

_FORBIDDEN = (b"\r", b"\v", b"\f", b"\0")


def parse_fast(data, start: int, end: int, fmt: TrecFormat, dialect: str, first: int, *,
               use_threads: bool = True) -> "Parsed | None":
    """Rows of ``data[start:end]`` (whole lines) through Arrow's CSV reader, or None if any line
    of the block is outside the subset it reads exactly. ``use_threads``: Arrow's threads within
    the block (the reader parses several blocks at once instead)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as csv

    if end <= start or any(data.find(byte, start, end) >= 0 for byte in _FORBIDDEN):
        return None
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
