"""The fields of a click log (:mod:`cranfield.io.clicklog`): ranks, clicks, seconds, times and
ids, from text (every cell a string, parsed here) or typed columns (Arrow, numpy, Python objects),
with one set of rules for every path. ``first`` is the line of the first row (an int) or each
row's line (an int64 array, for text with blank lines skipped).
"""

from __future__ import annotations

import numpy as np

from .._arrow import to_numpy
from ..errors import InputError
from .values import id_column

_NUMBER = r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$"
_RANK = "a rank (a whole number >= 1)"
_SECONDS = "a number of seconds"
_TIME = "a number of seconds or an ISO 8601 time (2026-03-02T08:00:33, 2026-03-02T08:00:33.25+01:00)"
_DATE_TIME = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,9})?)?)?"
_ISO_NAIVE = _DATE_TIME + "$"
_ISO_ZONED = _DATE_TIME.replace(")?)?)?", ")?)?)") + "(Z|[+-][0-9]{2}:?[0-9]{2})$"


def line_of(index, first) -> int:
    """The input line of row ``index``."""
    return int(first[int(index)]) if isinstance(first, np.ndarray) else int(index) + int(first)


def fail(message: str, index: int, source: str, field: str, first: int):
    raise InputError(message, source=source, line=line_of(index, first), field=field)


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

    array = values if _is_arrow(values) else pa.chunked_array([pa.array(values)])
    if array.null_count:
        array = pc.fill_null(array, "")
    ok = to_numpy(pc.match_substring_regex(array, pattern))
    empty = to_numpy(pc.match_substring_regex(array, r"^([nN][aA][nN])?$")) if allow_empty else \
        np.zeros(len(ok), dtype=bool)  # missing: an empty cell, or nan (as numpy and Arrow write NaN)
    bad = ~(ok | empty)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        fail(f"expected {expected}, found {array[i].as_py()!r}", i, source, field, first)
    out = np.full(len(ok), np.nan)
    if ok.any():
        out[ok] = to_numpy(pc.cast(_where(array, ok), pa.float64()))
    infinite = np.isinf(out)  # 1e400: a number by the syntax, beyond float64
    if infinite.any():
        i = int(np.flatnonzero(infinite)[0])
        fail(f"expected {expected}, found {array[i].as_py()!r} (beyond the float64 range)", i, source, field, first)
    return out


def _where(array, mask: np.ndarray):
    import pyarrow as pa
    import pyarrow.compute as pc

    return pc.filter(array, pa.chunked_array([pa.array(mask)]) if isinstance(array, pa.ChunkedArray) else pa.array(mask))


def _text_times(values, source: str, first) -> np.ndarray:
    """Text timestamps: every cell a number of seconds (any epoch), or every cell an ISO 8601
    time (seconds since 1970-01-01T00:00:00Z: a zone converts to UTC, none means UTC); the first
    row decides which, a row of the other kind is an error."""
    import pyarrow as pa
    import pyarrow.compute as pc

    array = values if _is_arrow(values) else pa.chunked_array([pa.array(values)])
    if array.null_count:
        array = pc.fill_null(array, "")
    if len(array) == 0 or not (pc.match_substring_regex(array[:1], _ISO_NAIVE)[0].as_py() or
                               pc.match_substring_regex(array[:1], _ISO_ZONED)[0].as_py()):
        numbers = to_numpy(pc.match_substring_regex(array, _NUMBER))
        if not numbers.all():
            i = int(np.flatnonzero(~numbers)[0])
            kind = "a number of seconds as on the first row" if _is_iso(array[i]) else _TIME
            fail(f"expected {kind}, found {array[i].as_py()!r}", i, source, "timestamp", first)
        return _text_numbers(array, source, "timestamp", first, pattern=_NUMBER, expected=_SECONDS, allow_empty=False)
    naive = to_numpy(pc.match_substring_regex(array, _ISO_NAIVE))
    zoned = to_numpy(pc.match_substring_regex(array, _ISO_ZONED))
    if not (naive | zoned).all():
        i = int(np.flatnonzero(~(naive | zoned))[0])
        fail(f"expected an ISO 8601 time as on the first row, found {array[i].as_py()!r}", i, source, "timestamp",
             first)
    out = np.empty(len(array), dtype=np.int64)
    for mask, kind in ((naive, pa.timestamp("ns")), (zoned, pa.timestamp("ns", tz="UTC"))):
        if mask.any():
            out[mask] = _nanoseconds(_where(array, mask), kind, np.flatnonzero(mask), source, first)
    return seconds_of(out, 10**9)


def seconds_of(ticks: np.ndarray, per: int) -> np.ndarray:
    """Integer ticks (``per`` to the second) as float64 seconds, the same float whatever the unit
    (whole seconds, then the fraction: each exact or rounded once)."""
    whole, fraction = np.divmod(ticks, per)
    return whole.astype(np.float64) + fraction.astype(np.float64) / per


def _is_iso(scalar) -> bool:
    import re

    text = scalar.as_py() or ""
    return bool(re.match(_ISO_NAIVE, text) or re.match(_ISO_ZONED, text))


def _nanoseconds(texts, kind, rows: np.ndarray, source: str, first) -> np.ndarray:
    import pyarrow as pa

    try:
        return to_numpy(texts.cast(kind).cast(pa.int64()))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        for index, text in enumerate(texts.to_pylist()):  # error path only: the first cell that is no time
            try:
                pa.array([text]).cast(kind)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                fail(f"expected an ISO 8601 time (a real date and time, years 1678 to 2261), found {text!r}",
                     int(rows[index]), source, "timestamp", first)
        raise  # pragma: no cover


def _typed_numbers(values, source: str, field: str, first: int, *, expected: str, allow_missing: bool) -> np.ndarray:
    """Numbers of a typed column (Arrow, numpy) or of Python objects, as float64; NaN marks a
    missing value where ``allow_missing``; booleans, text and infinities are errors."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if _is_arrow(values):
        kind = values.type
        if pa.types.is_dictionary(kind):
            values, kind = values.cast(kind.value_type), kind.value_type
        if pa.types.is_null(kind):
            array = np.full(len(values), np.nan)
        elif pa.types.is_timestamp(kind) and field == "timestamp":
            if values.null_count:
                fail(f"expected {expected}, found a missing value", _first_null(values), source, field, first)
            per = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}[kind.unit]
            return seconds_of(to_numpy(pc.cast(values, pa.int64())).astype(np.int64), per)
        elif pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind):
            array = to_numpy(pc.fill_null(pc.cast(values, pa.float64()), float("nan")))
        else:
            raise InputError(f"expected {expected}, found a column of type {kind}", source=source, field=field)
    elif isinstance(values, np.ndarray) and values.dtype.kind in "iuf":
        array = values.astype(np.float64)
    elif isinstance(values, np.ndarray) and values.dtype.kind == "M" and field == "timestamp":
        missing = np.isnat(values)
        if missing.any():
            fail(f"expected {expected}, found a missing value (NaT)", int(np.flatnonzero(missing)[0]), source, field,
                 first)
        return seconds_of(values.astype("datetime64[ns]").astype(np.int64), 10**9)
    else:
        items = values.tolist() if hasattr(values, "tolist") else list(values)
        array = np.empty(len(items))
        for i, value in enumerate(items):  # objects only (dicts, object columns): each value's type
            if value is None:
                array[i] = np.nan
            elif isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_)):
                array[i] = float(value)
            else:
                fail(f"expected {expected}, found {value!r}", i, source, field, first)
    missing = np.isnan(array)
    if missing.any() and not allow_missing:
        fail(f"expected {expected}, found a missing value", int(np.flatnonzero(missing)[0]), source, field, first)
    infinite = np.isinf(array)
    if infinite.any():
        i = int(np.flatnonzero(infinite)[0])
        fail(f"expected {expected}, found {array[i].item()!r}", i, source, field, first)
    return array


def _first_null(values) -> int:
    import pyarrow.compute as pc

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


def seconds_column(values, source, field, first, *, allow_missing: bool) -> np.ndarray:
    values = _arrowish(values)
    if _is_text(values) and field == "timestamp":
        return _text_times(values, source, first)
    if _is_text(values):
        return _text_numbers(values, source, field, first, pattern=_NUMBER, expected=_SECONDS, allow_empty=allow_missing)
    return _typed_numbers(values, source, field, first, expected=_SECONDS, allow_missing=allow_missing)


def rank_column(values, source: str, first: int) -> np.ndarray:
    values = _arrowish(values)
    if _is_text(values):
        ranks = _text_numbers(values, source, "rank", first, pattern=r"^[0-9]+$", expected=_RANK, allow_empty=False)
    else:
        ranks = _typed_numbers(values, source, "rank", first, expected=_RANK, allow_missing=False)
    bad = (ranks < 1) | (ranks != np.floor(ranks)) | (ranks > 2**53)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        fail(f"expected {_RANK}, found {ranks[i].item()!r}", i, source, "rank", first)
    return ranks.astype(np.int64)


def click_column(values, source: str, first: int) -> np.ndarray:
    import pyarrow as pa
    import pyarrow.compute as pc

    expected = "1, 0, true or false"
    if _is_arrow(values) and values.null_count:
        fail(f"expected {expected}, found a missing value", _first_null(values), source, "clicked", first)
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
            fail(f"expected {expected}, found {values[i].as_py()!r}", i, source, "clicked", first)
        return truth
    numbers = _typed_numbers(values, source, "clicked", first, expected=expected, allow_missing=False)
    bad = (numbers != 0) & (numbers != 1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        fail(f"expected {expected}, found {numbers[i].item()!r}", i, source, "clicked", first)
    return numbers == 1


def id_codes(values, source: str, field: str, first: int, *, sort: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, ids)``: int64 codes into the distinct ids, sorted by code point (``sort``) or in
    the order of their first appearance."""
    import pyarrow as pa
    import pyarrow.compute as pc

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
            raise InputError(error.message, source=source, line=line_of(heads[error.line], first), field=field) from None
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

    if _is_arrow(values) and pa.types.is_dictionary(values.type) and isinstance(values, pa.ChunkedArray) and \
            sum(len(c.dictionary) for c in values.chunks) > len(values):  # unifying would cost more than encoding
        values = pa.chunked_array([c.dictionary_decode() for c in values.chunks], values.type.value_type)
    if _is_arrow(values) and pa.types.is_dictionary(values.type):
        return _dictionary_codes(values, source, field, first)
    array = id_column(values, source=source, field=field, first_row=0 if isinstance(first, np.ndarray) else first,
                      lines=first if isinstance(first, np.ndarray) else None)
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

    if len(values) == 0:
        return np.zeros(0, dtype=np.int64), pa.array([], type=pa.string())
    # one array, one dictionary (chunks that share theirs, as Parquet's do, are not re-hashed)
    combined = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    indices = combined.indices
    if indices.null_count:
        fail("missing id (null)", _first_null(indices), source, field, first)
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
        raise InputError(error.message, source=source, line=line_of(row, first), field=field) from None
    remap = np.cumsum(used) - 1
    return remap[codes], distinct.combine_chunks()
