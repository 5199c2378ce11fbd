"""The click-log format: one grammar for every way a click log is read.

A click log is a long table, one row per result shown (an *impression* is one result page
shown for one query; its rows are its ranked results):

============  ========  =====================================================================
column        required  value
============  ========  =====================================================================
impression    yes [1]   impression id (text or integer)
query         yes       query id (text or integer)
rank          yes       1-based position of the result: a whole number ≥ 1
doc           yes       document id (text or integer)
clicked       yes       ``1``/``0``, ``true``/``false`` (any letter case) or a boolean column
timestamp     no        seconds (a finite number, any epoch) or a timestamp column: on a row
                        not clicked, when the impression was shown; on a clicked row, when
                        the click happened
dwell         no        seconds on the clicked document, a finite number ≥ 0; empty (text:
                        an empty cell or ``nan``; typed: null or NaN) when unknown; on a row
                        not clicked empty or 0
variant       no        the experiment arm (bucket) of the impression; default ``all``
user          no        user id
session       no        session id (several impressions)
team          no [2]    interleaving: the run (team) credited with the shown document (an id)
============  ========  =====================================================================

[1] without an ``impression`` column, ``session`` is the impression id (one result page per
session). Ids are taken as written: text or integers (an integer is its decimal text), not
empty, no whitespace (the rules of :mod:`cranfield.io.values`, shared with qrels and runs).
Another column name is an error (a misspelt ``dwel`` must not be ignored silently).

[2] a log of an interleaving experiment (the interleaved lists shown, see
:mod:`cranfield.online.interleaving_log`); required by team-based scoring. When the column exists,
every row names its team, clicked or not (a result shown was contributed by some run).

Text (CSV; TSV for ``.tsv``/``.tab``/``.txt``) has a header line; every known column is read as
text and parsed here: ``rank`` is ASCII digits, numbers are decimal (``12``, ``-1.5``,
``2e3``; no ``nan``/``inf``). Parquet, pandas, polars, Arrow tables and dicts of columns keep
their types: integer ranks (or whole floats), numeric or boolean ``clicked``.

What else is an error (one :class:`~cranfield.errors.InputError` naming the source, the line —
text counts the header as line 1, other inputs count rows from 1 — and the field):
two rows for the same (impression, rank); ranks of an impression not running 1, 2, … (a click
on a rank that was not shown above all); an impression with two queries, variants, users or
sessions; a session with two variants; a negative dwell, or a dwell on a row not clicked; rows
not clicked of one impression shown at different times, or a click before its impression was
shown; a variant missing from, or not in, ``expected_variants`` (a planned split).

The result is canonical: rows sorted by impression then rank; every id column as int64 codes into
its ids sorted by code point (so the same log gives the same arrays whatever its row order or
path), except documents, coded in the order of their first appearance (sorting millions of
document ids would cost more than every metric; ``doc_ids[doc]`` is the same whatever the order).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..errors import InputError, UsageError

__all__ = ["COLUMNS", "ID_COLUMNS", "read_click_table", "parse_click_table", "read_covariate_table", "DEFAULT_VARIANT"]

ID_COLUMNS = ("impression", "query", "doc", "variant", "user", "session", "team")
COLUMNS = ("impression", "query", "rank", "doc", "clicked", "timestamp", "dwell", "variant", "user", "session",
           "team")
DEFAULT_VARIANT = "all"
_NUMBER = r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$"
_RANK = "a rank (a whole number >= 1)"
_SECONDS = "a number of seconds"
_TEXT_SUFFIXES = (".gz", ".bz2", ".xz", ".zst", ".lz4")


def _plain_name(path: str) -> str:
    name = path.lower()
    for suffix in _TEXT_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def read_click_table(source) -> tuple[Any, str, int]:
    """``(columns, source name, first line)``: the raw columns of a click log, a dict of name →
    Arrow array or sequence. ``source``: a path (Parquet by its name, else CSV/TSV text through
    :func:`cranfield.io.sources.open_input`), a file object, a pyarrow Table, a pandas or polars
    DataFrame, or a dict of columns."""
    import pyarrow as pa

    if isinstance(source, dict):
        return dict(source), "click log dict", 1
    if isinstance(source, pa.Table):
        return {name: source.column(name) for name in source.column_names}, "click log table", 1
    module = type(source).__module__.split(".")[0]
    if module == "pandas" and hasattr(source, "columns"):
        try:
            table = pa.Table.from_pandas(source, preserve_index=False)
        except (pa.ArrowInvalid, pa.ArrowTypeError) as error:
            raise InputError(f"cannot convert the DataFrame: {' '.join(str(error).split())[:200]}",
                             source="click log DataFrame") from None
        return {name: table.column(name) for name in table.column_names}, "click log DataFrame", 1
    if module == "polars" and hasattr(source, "to_arrow"):
        table = source.to_arrow()
        return {name: table.column(name) for name in table.column_names}, "click log DataFrame", 1
    if isinstance(source, (str, os.PathLike)) or hasattr(source, "read"):
        return _read_file(source)
    raise UsageError(f"click log: expected a file name, a file object, a DataFrame, an Arrow table or a dict of "
                     f"columns, found {type(source).__name__}")


def _read_file(source) -> tuple[dict, str, int]:
    import pyarrow as pa

    text_types: dict = {}  # every known column as text (ids too: dictionaries per block would need unifying)
    from pyarrow import csv

    from .sources import display_name_of, open_input

    name = display_name_of(source)
    plain = _plain_name(name)
    try:
        if isinstance(source, (str, os.PathLike)) and plain.endswith((".parquet", ".pq", ".parq")):
            import pyarrow.parquet as pq

            if not os.path.exists(source):
                raise InputError("no such file", source=name)
            table = pq.read_table(source)  # ids as text: Parquet's dictionaries are per row group
            first = 1
        else:
            delimiter = "\t" if plain.endswith((".tsv", ".tab", ".txt")) else ","
            table = csv.read_csv(open_input(source, display_name=name),
                                 parse_options=csv.ParseOptions(delimiter=delimiter),
                                 convert_options=csv.ConvertOptions(column_types={c: text_types.get(c, pa.string())
                                                                              for c in (*COLUMNS, "covariate")},
                                                                    strings_can_be_null=False))
            first = 2
    except (pa.ArrowInvalid, pa.ArrowIOError, OSError, UnicodeDecodeError) as error:
        if isinstance(error, InputError):
            raise
        text = " ".join(str(error).split())
        text = text if text.isprintable() else repr(text)[1:-1]
        raise InputError(f"cannot read the click log: {text[:200]}", source=name) from None
    return {c: table.column(c) for c in table.column_names}, name, first


# ------------------------------------------------------------------------------------- fields
def _fail(message: str, index: int, source: str, field: str, first: int):
    raise InputError(message, source=source, line=int(index) + first, field=field)


def _is_arrow(values) -> bool:
    import pyarrow as pa

    return isinstance(values, (pa.Array, pa.ChunkedArray))


def _is_text(values) -> bool:
    import pyarrow as pa

    if _is_arrow(values):
        return pa.types.is_string(values.type) or pa.types.is_large_string(values.type)
    return isinstance(values, np.ndarray) and values.dtype.kind == "U"


def _text_numbers(values, source: str, field: str, first: int, *, pattern: str, expected: str,
                  allow_empty: bool) -> np.ndarray:
    """Text cells parsed as float64 (``allow_empty``: an empty cell is NaN); a cell that is not
    ``pattern`` is an error naming its row."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from .._arrow import to_numpy

    array = values if _is_arrow(values) else pa.chunked_array([pa.array(values)])
    if array.null_count:
        array = pc.fill_null(array, "")
    ok = to_numpy(pc.match_substring_regex(array, pattern))
    empty = to_numpy(pc.match_substring_regex(array, r"^([nN][aA][nN])?$")) if allow_empty else \
        np.zeros(len(ok), dtype=bool)  # missing: an empty cell, or nan (as numpy and Arrow write NaN)
    bad = ~(ok | empty)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        _fail(f"expected {expected}, found {array[i].as_py()!r}", i, source, field, first)
    out = np.full(len(ok), np.nan)
    if ok.any():
        out[ok] = to_numpy(pc.cast(pc.filter(array, pa.chunked_array([pa.array(ok)]) if isinstance(array, pa.ChunkedArray)
                                             else pa.array(ok)), pa.float64()))
    return out


def _typed_numbers(values, source: str, field: str, first: int, *, expected: str, allow_missing: bool) -> np.ndarray:
    """Numbers of a typed column (Arrow, numpy) or of Python objects, as float64; NaN marks a
    missing value where ``allow_missing``; booleans, text and infinities are errors."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from .._arrow import to_numpy

    if _is_arrow(values):
        kind = values.type
        if pa.types.is_dictionary(kind):
            values, kind = values.cast(kind.value_type), kind.value_type
        if pa.types.is_null(kind):
            array = np.full(len(values), np.nan)
        elif pa.types.is_timestamp(kind) and field == "timestamp":
            if values.null_count:
                _fail(f"expected {expected}, found a missing value", _first_null(values), source, field, first)
            seconds = {"s": 1, "ms": 1e3, "us": 1e6, "ns": 1e9}[kind.unit]
            return to_numpy(pc.cast(values, pa.int64())).astype(np.float64) / seconds
        elif pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind):
            array = to_numpy(pc.fill_null(pc.cast(values, pa.float64()), float("nan")))
        else:
            raise InputError(f"expected {expected}, found a column of type {kind}", source=source, field=field)
    elif isinstance(values, np.ndarray) and values.dtype.kind in "iuf":
        array = values.astype(np.float64)
    elif isinstance(values, np.ndarray) and values.dtype.kind == "M" and field == "timestamp":
        return values.astype("datetime64[ns]").astype(np.int64) / 1e9
    else:
        items = values.tolist() if hasattr(values, "tolist") else list(values)
        array = np.empty(len(items))
        for i, value in enumerate(items):  # objects only (dicts, object columns): each value's type
            if value is None:
                array[i] = np.nan
            elif isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_)):
                array[i] = float(value)
            else:
                _fail(f"expected {expected}, found {value!r}", i, source, field, first)
    missing = np.isnan(array)
    if missing.any() and not allow_missing:
        _fail(f"expected {expected}, found a missing value", int(np.flatnonzero(missing)[0]), source, field, first)
    infinite = np.isinf(array)
    if infinite.any():
        i = int(np.flatnonzero(infinite)[0])
        _fail(f"expected {expected}, found {array[i].item()!r}", i, source, field, first)
    return array


def _first_null(values) -> int:
    import pyarrow.compute as pc

    from .._arrow import to_numpy

    return int(np.flatnonzero(to_numpy(pc.is_null(values)))[0])


def _arrowish(values):
    """Python sequences as an Arrow array when they convert (None becomes null); otherwise
    unchanged, so that the typed rules name the first bad value."""
    import pyarrow as pa

    if _is_arrow(values) or (isinstance(values, np.ndarray) and values.dtype.kind != "O"):
        return values
    try:
        return pa.chunked_array([pa.array(values if isinstance(values, np.ndarray) else list(values))])
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError, OverflowError):
        return values


def _numbers(values, source, field, first, *, allow_missing: bool) -> np.ndarray:
    values = _arrowish(values)
    if _is_text(values):
        return _text_numbers(values, source, field, first, pattern=_NUMBER, expected=_SECONDS, allow_empty=allow_missing)
    return _typed_numbers(values, source, field, first, expected=_SECONDS, allow_missing=allow_missing)


def _ranks(values, source: str, first: int) -> np.ndarray:
    values = _arrowish(values)
    if _is_text(values):
        ranks = _text_numbers(values, source, "rank", first, pattern=r"^[0-9]+$", expected=_RANK, allow_empty=False)
    else:
        ranks = _typed_numbers(values, source, "rank", first, expected=_RANK, allow_missing=False)
    bad = (ranks < 1) | (ranks != np.floor(ranks)) | (ranks > 2**53)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        _fail(f"expected {_RANK}, found {ranks[i].item()!r}", i, source, "rank", first)
    return ranks.astype(np.int64)


def _clicks(values, source: str, first: int) -> np.ndarray:
    import pyarrow as pa
    import pyarrow.compute as pc

    from .._arrow import to_numpy

    expected = "1, 0, true or false"
    if _is_arrow(values) and values.null_count:
        _fail(f"expected {expected}, found a missing value", _first_null(values), source, "clicked", first)
    if _is_arrow(values) and pa.types.is_boolean(values.type):
        return to_numpy(values).astype(bool)
    if not _is_arrow(values):
        array = np.asarray(values) if not isinstance(values, np.ndarray) else values
        if array.dtype.kind == "b":
            return array.astype(bool)
        if array.dtype.kind == "O":  # each value's own type: True, 1, "true"; anything else is shown as found
            texts = [str(v).lower() if isinstance(v, (bool, np.bool_, str)) else
                     str(int(v)) if isinstance(v, (int, np.integer)) else repr(v) for v in array.tolist()]
            values = pa.chunked_array([pa.array(texts, type=pa.string())])
        elif array.dtype.kind == "U":
            values = pa.chunked_array([pa.array(array)])
        else:
            values = array
    if _is_text(values):
        lowered = pc.utf8_lower(values)
        truth = to_numpy(pc.is_in(lowered, value_set=pa.array(["1", "true"])))
        false = to_numpy(pc.is_in(lowered, value_set=pa.array(["0", "false"])))
        bad = ~(truth | false)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            _fail(f"expected {expected}, found {values[i].as_py()!r}", i, source, "clicked", first)
        return truth
    numbers = _typed_numbers(values, source, "clicked", first, expected=expected, allow_missing=False)
    bad = (numbers != 0) & (numbers != 1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        _fail(f"expected {expected}, found {numbers[i].item()!r}", i, source, "clicked", first)
    return numbers == 1


def _codes(values, source: str, field: str, first: int, *, sort: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, ids)``: int64 codes into the distinct ids, sorted by code point (``sort``) or in
    the order of their first appearance."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from .._arrow import to_numpy

    if _is_arrow(values) and (pa.types.is_floating(values.type) or pa.types.is_boolean(values.type)) or \
            (isinstance(values, np.ndarray) and values.dtype.kind in "fb"):
        kind = values.type if _is_arrow(values) else values.dtype
        raise InputError(f"expected text or integer ids, found values of type {kind}", source=source, field=field)
    runs = _runs(values) if _is_arrow(values) and _is_text(values) else None
    if runs is not None:  # ids in runs (an impression's rows together): each run coded once
        heads, lengths = runs
        try:
            head_codes, dictionary = _encode(values.take(pa.array(heads)), source, field, 0)
        except InputError as error:
            if error.line is None:
                raise
            raise InputError(error.message, source=source, line=int(heads[error.line]) + first, field=field) from None
        codes = np.repeat(head_codes, lengths)
    else:
        codes, dictionary = _encode(values, source, field, first)
    if not sort:
        return codes, dictionary.to_numpy(zero_copy_only=False)
    order = to_numpy(pc.sort_indices(dictionary)).astype(np.int64)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank[codes], dictionary.take(pa.array(order)).to_numpy(zero_copy_only=False)


def _encode(values, source: str, field: str, first: int):
    """``(codes, Arrow array of the distinct ids in order of first appearance)``, ids checked."""
    import pyarrow as pa

    from .._arrow import to_numpy
    from .values import id_column

    if _is_arrow(values) and pa.types.is_dictionary(values.type) and isinstance(values, pa.ChunkedArray) and \
            sum(len(c.dictionary) for c in values.chunks) > len(values):  # unifying would cost more than encoding
        values = pa.chunked_array([c.dictionary_decode() for c in values.chunks], values.type.value_type)
    if _is_arrow(values) and pa.types.is_dictionary(values.type):
        return _dictionary_codes(values, source, field, first)
    array = id_column(values, source=source, field=field, first_row=first)
    if len(array) == 0:
        return np.zeros(0, dtype=np.int64), pa.array([], type=pa.string())
    encoded = array.combine_chunks().dictionary_encode() if isinstance(array, pa.ChunkedArray) \
        else array.dictionary_encode()
    return to_numpy(encoded.indices).astype(np.int64), encoded.dictionary


def _runs(values):
    """``(first row of each run, run lengths)`` of equal consecutive text values, when there are
    at most half as many runs as rows (else None: coding every row is as cheap)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from .._arrow import to_numpy

    n = len(values)
    if n < 1024 or values.null_count:
        return None
    array = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    change = to_numpy(pc.fill_null(pc.not_equal(array.slice(1), array.slice(0, n - 1)), True))
    heads = np.flatnonzero(np.r_[True, change])
    if 2 * len(heads) > n:
        return None
    return heads, np.diff(np.r_[heads, n])


def _dictionary_codes(values, source: str, field: str, first: int):
    """Codes and distinct values of a dictionary-encoded column (Parquet and CSV read ids so):
    the id rules are checked on the distinct values used, an error names the first row holding
    the bad one."""
    import pyarrow as pa

    from .._arrow import to_numpy
    from .values import id_column

    if len(values) == 0:
        return np.zeros(0, dtype=np.int64), pa.array([], type=pa.string())
    # one array, one dictionary (chunks that share theirs, as Parquet's do, are not re-hashed)
    combined = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    indices = combined.indices
    if indices.null_count:
        _fail("missing id (null)", _first_null(indices), source, field, first)
    codes = to_numpy(indices).astype(np.int64)
    dictionary = combined.dictionary
    used = np.bincount(codes, minlength=len(dictionary)) > 0
    kept = np.flatnonzero(used)
    try:
        distinct = id_column(dictionary.take(pa.array(kept)), source=source, field=field, first_row=0)
    except InputError as error:
        if error.line is None:
            raise
        row = int(np.flatnonzero(codes == kept[error.line])[0])
        raise InputError(error.message, source=source, line=row + first, field=field) from None
    remap = np.cumsum(used) - 1
    return remap[codes], distinct.combine_chunks()


# ------------------------------------------------------------------------------------ the table
def parse_click_table(columns: dict, *, source: str = "click log", first_line: int = 1,
                      expected_variants=None, with_team: bool = False) -> dict:
    """The canonical columns of a click log (see the module docstring), sorted by impression then
    rank: ``impression``, ``query``, ``doc``, ``variant``, ``user``, ``session``, ``team`` as int64
    codes with ``<name>_ids`` (``user``/``session``/``team`` None when absent), ``rank`` int64,
    ``clicked`` bool, ``dwell`` / ``timestamp`` float64 or None, ``line`` (each row's line in the
    input) and ``impression_offsets``. A ``team`` column is always checked, and returned (``team`` /
    ``team_ids``) only ``with_team`` (interleaving logs; a :class:`ClickLog` has no team)."""
    if not isinstance(columns, dict):
        raise UsageError(f"columns: expected a dict of column name -> values, found {type(columns).__name__}")
    names = list(columns)
    unknown = [n for n in names if n not in COLUMNS]
    if unknown:
        raise InputError(f"unknown column {unknown[0]!r}; a click log has the columns {', '.join(COLUMNS)}",
                         source=source, field=str(unknown[0]))
    if "impression" not in columns and "session" in columns:
        columns = {**columns, "impression": columns["session"]}
    missing = [c for c in ("impression", "query", "rank", "doc", "clicked") if c not in columns]
    if missing:
        raise InputError(f"no column {missing[0]!r}; a click log needs impression (or session), query, rank, doc and "
                         f"clicked; found {', '.join(names) or 'no column'}", source=source, field=missing[0])
    lengths = {len(v) for v in columns.values()}
    if len(lengths) != 1:
        raise InputError(f"columns of different lengths {sorted(lengths)}", source=source)
    n = lengths.pop()
    out: dict[str, Any] = {}
    for field in ID_COLUMNS:
        if field in columns:
            out[field], out[f"{field}_ids"] = _codes(columns[field], source, field, first_line, sort=field != "doc")
        else:
            out[field], out[f"{field}_ids"] = None, None
    if out["variant"] is None:
        out["variant"], out["variant_ids"] = np.zeros(n, dtype=np.int64), np.array([DEFAULT_VARIANT], dtype=object)
    out["rank"] = _ranks(columns["rank"], source, first_line)
    out["clicked"] = _clicks(columns["clicked"], source, first_line)
    out["dwell"] = _numbers(columns["dwell"], source, "dwell", first_line, allow_missing=True) if "dwell" in columns \
        else None
    out["timestamp"] = _numbers(columns["timestamp"], source, "timestamp", first_line, allow_missing=False) \
        if "timestamp" in columns else None
    _check_rows(out, source, first_line, n, expected_variants)
    out = _sorted(out, source, first_line, n)
    if not with_team:
        del out["team"], out["team_ids"]
    return out


def _first_of_group(groups: np.ndarray, values: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """Per group, the value on its first row and that row's index (writes in reverse: the first wins)."""
    first_row = np.full(n_groups, -1, dtype=np.int64)
    first_row[groups[::-1]] = np.arange(len(groups) - 1, -1, -1)
    return values[first_row], first_row


def _constant(out, group: str, field: str, source: str, first: int, n: int, what: str) -> None:
    g, v = out[group], out[field]
    if g is None or v is None or n == 0:
        return
    first_value, first_row = _first_of_group(g, v, len(out[f"{group}_ids"]))
    bad = v != first_value[g]
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        _fail(f"{group} {out[f'{group}_ids'][g[i]]!r} has {field} {out[f'{field}_ids'][v[i]]!r} here but "
              f"{out[f'{field}_ids'][first_value[g[i]]]!r} on line {int(first_row[g[i]]) + first}; {what}",
              i, source, field, first)


def _check_rows(out: dict, source: str, first: int, n: int, expected_variants) -> None:
    clicked, dwell = out["clicked"], out["dwell"]
    for field in ("query", "variant", "user", "session"):
        if field != "session" or out["session"] is not out["impression"]:
            _constant(out, "impression", field, source, first, n, "an impression belongs to one " + field)
    _constant(out, "session", "variant", source, first, n, "a session belongs to one variant")
    if dwell is not None:
        bad = dwell < 0
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            _fail(f"expected a dwell time >= 0 seconds, found {float(dwell[i])!r}", i, source, "dwell", first)
        bad = ~clicked & (dwell > 0)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            _fail(f"dwell {float(dwell[i])!r} on a row not clicked; expected it empty or 0", i, source, "dwell", first)
    if out["timestamp"] is not None and n:
        ts, imp = out["timestamp"], out["impression"]
        shown = np.full(len(out["impression_ids"]), np.nan)
        rows = np.flatnonzero(~clicked)
        if rows.size:
            values, first_row = _first_of_group(imp[rows], ts[rows], len(shown))
            has = first_row >= 0
            shown[has] = values[has]
            bad = ts[rows] != shown[imp[rows]]
            if bad.any():
                i = int(rows[np.flatnonzero(bad)[0]])
                _fail(f"impression {out['impression_ids'][imp[i]]!r} shown at {float(ts[i])!r} here but at "
                      f"{float(shown[imp[i]])!r} on line {int(rows[first_row[imp[i]]]) + first}; rows not clicked carry the "
                      f"time the impression was shown", i, source, "timestamp", first)
        with np.errstate(invalid="ignore"):
            bad = clicked & (ts < shown[imp])
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            _fail(f"click at {float(ts[i])!r} before its impression was shown (at {float(shown[imp[i]])!r})", i, source,
                  "timestamp", first)
    if expected_variants is not None:
        _check_split(out, source, first, expected_variants)


def _check_split(out: dict, source: str, first: int, expected_variants) -> None:
    if isinstance(expected_variants, (str, bytes)) or not hasattr(expected_variants, "__iter__"):
        raise UsageError(f"expected_variants: expected a collection of variant ids, found {expected_variants!r}")
    planned = [str(v) for v in expected_variants]
    present = set(out["variant_ids"].tolist())
    missing = [v for v in planned if v not in present]
    if missing:
        raise InputError(f"variant {missing[0]!r} of the planned split ({', '.join(planned)}) has no impression; "
                         f"the log has {', '.join(sorted(present))}", source=source, field="variant")
    extra = sorted(present - set(planned))
    if extra:
        codes = np.flatnonzero(out["variant_ids"] == extra[0])[0]
        i = int(np.flatnonzero(out["variant"] == codes)[0])
        raise InputError(f"variant {extra[0]!r} is not in the planned split ({', '.join(planned)})", source=source,
                         line=i + first, field="variant")


def _sorted(out: dict, source: str, first: int, n: int) -> dict:
    imp, rank = out["impression"], out["rank"]
    max_rank = int(rank.max(initial=0))
    if n and len(out["impression_ids"]) * (max_rank + 1) < 2**62:
        key = imp * (max_rank + 1) + rank
        order = None if np.all(key[1:] > key[:-1]) else np.argsort(key, kind="stable")
    else:
        order = None if n == 0 else np.lexsort((rank, imp))
    if order is None:
        order = np.arange(n, dtype=np.int64)
    else:
        for name in ("impression", "query", "doc", "variant", "user", "session", "team", "rank", "clicked", "dwell",
                     "timestamp"):
            if out[name] is not None:
                out[name] = out[name][order]
    out["line"] = order.astype(np.int64) + first
    imp, rank = out["impression"], out["rank"]
    same = imp[1:] == imp[:-1]
    duplicate = same & (rank[1:] == rank[:-1])
    if duplicate.any():
        j = np.flatnonzero(duplicate)
        k = int(j[np.argmin(np.maximum(out["line"][j], out["line"][j + 1]))])
        a, b = sorted((int(out["line"][k]), int(out["line"][k + 1])))
        raise InputError(f"impression {out['impression_ids'][imp[k]]!r} has two rows for rank {int(rank[k])} "
                         f"(also on line {a}); expected one row per (impression, rank)", source=source, line=b,
                         field="rank")
    counts = np.bincount(imp, minlength=len(out["impression_ids"]))
    offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    position = np.arange(n, dtype=np.int64) - np.repeat(offsets[:-1], counts) + 1
    gap = rank != position
    if gap.any():
        rows = np.flatnonzero(gap)
        firsts = rows[np.r_[True, imp[rows][1:] != imp[rows][:-1]]]  # first gap of each impression
        i = int(firsts[np.argmin(out["line"][firsts])])
        name = out["impression_ids"][imp[i]]
        clicked_row = rows[(imp[rows] == imp[i]) & out["clicked"][rows]]
        if clicked_row.size:
            c = int(clicked_row[0])
            raise InputError(f"click on rank {int(rank[c])}, which was not shown: impression {name!r} has no row for "
                             f"rank {int(position[i])} (the rows of an impression are the results shown, ranks 1, 2, "
                             f"... without gaps)", source=source, line=int(out["line"][c]), field="rank")
        raise InputError(f"impression {name!r} has no row for rank {int(position[i])} (found rank {int(rank[i])}); "
                         f"ranks of an impression run 1, 2, ... without gaps", source=source,
                         line=int(out["line"][i]), field="rank")
    out["impression_offsets"] = offsets
    return out


def read_covariate_table(source, *, unit: str) -> dict:
    """A pre-period covariate per randomisation unit (CUPED): a CSV/TSV (header line) or Parquet
    table with the columns ``<unit>`` (the id: the rules of the click log's ids) and
    ``covariate`` (a finite number); a unit given twice is an error. Returns ``{id: value}``."""
    if unit not in ("impression", "session", "user"):
        raise UsageError(f"unit: expected impression, session or user, found {unit!r}")
    columns, name, first = read_click_table(source)
    for needed in (unit, "covariate"):
        if needed not in columns:
            raise InputError(f"no column {needed!r}; a covariate table has the columns {unit} and covariate, found "
                             f"{', '.join(map(str, columns)) or 'none'}", source=name, field=needed)
    extra = [c for c in columns if c not in (unit, "covariate")]
    if extra:
        raise InputError(f"unknown column {extra[0]!r}; a covariate table has the columns {unit} and covariate",
                         source=name, field=str(extra[0]))
    codes, ids = _codes(columns[unit], name, unit, first)
    values = _numbers(columns["covariate"], name, "covariate", first, allow_missing=False)
    counts = np.bincount(codes, minlength=len(ids))
    if (counts > 1).any():
        code = int(np.flatnonzero(counts > 1)[0])
        rows = np.flatnonzero(codes == code)
        _fail(f"{unit} {ids[code]!r} appears twice (also on line {int(rows[0]) + first}); expected one covariate per "
              f"{unit}", int(rows[1]), name, unit, first)
    out = np.empty(len(ids))
    out[codes] = values
    return dict(zip(ids.tolist(), out.tolist()))
