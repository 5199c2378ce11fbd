"""What an id, a relevance and a score are, for every input that is not TREC text.

Parquet files and datasets (in memory and batch-wise), pandas / polars frames, Arrow tables,
dicts and Dask partitions all go through these three functions, so that the same values give the
same rows or the same error whatever the path (DESIGN principle 11). The rules are the TREC text
grammar's (:mod:`cranfield.io.trec`), stated for typed columns:

* **id** (``qid``, ``docno``): text, or an integer (written as its decimal text); not null, not
  empty, no ASCII whitespace (space, tab, CR, LF, VT, FF: a TREC line could not hold it), no NUL
  (the text readers refuse a NUL byte as binary data). Other control characters are id characters
  on every path, as in trec_eval. A query
  id may start with ``#``: trec_eval 9.0.8 reads such a line as data (dialect ``trec_eval-9``); only
  cranfield's own text dialect skips it as a comment.
* **relevance** (``rel``): an integer within int64 (−2⁶³ … 2⁶³−1). Integer columns of any width,
  unsigned ones included (uint64 2⁶⁴−1 is an error, not −1), and floating columns whose values are
  whole numbers (pandas turns integers with gaps into floats); a fraction, NaN, ±inf or a value
  beyond int64 is an error. Booleans are not relevance grades (an error: write ``.astype(int)``),
  nor is text ("1" in a typed column is a mistake, not a number).
* **score**: a finite float64. Integer and floating columns (float32 is widened exactly); NaN,
  ±inf, booleans, text and nulls are errors.

Errors are :class:`InputError` naming the source, the 1-based row (``first_row`` + the index, or
``lines[index]``; for dicts, the query and document) and the field, what was found and what was
expected. Only the first bad row is reported, chosen the same way on every path.

    >>> import numpy as np
    >>> relevance_column(np.array([0, 1, 2], dtype=np.uint8), source="qrels frame").tolist()
    [0, 1, 2]
    >>> relevance_column(np.array([1, 2**64 - 1], dtype=np.uint64), source="qrels.parquet", first_row=10)
    Traceback (most recent call last):
    ...
    cranfield.errors.InputError: qrels.parquet:11: field rel: expected an integer relevance (within int64), found 18446744073709551615
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .._arrow import to_numpy
from ..errors import InputError

__all__ = ["relevance_column", "score_column", "id_column", "value_column", "nested_columns", "WHITESPACE"]

WHITESPACE = b" \t\n\r\v\f"  # what separates TREC fields (trec_eval's isspace, ASCII only)
_INT64_LIMIT = 2.0 ** 63  # floats ≥ this (or < −this) are beyond int64
_IS_SPACE = np.zeros(256, dtype=bool)
_IS_SPACE[list(WHITESPACE)] = True
_IS_SPACE[0] = True  # NUL: no text file holds it (the text readers refuse it as binary data), so no id does

Where = Callable[[int], str]  # index -> "query 'q1', document 'd2': " (dicts: no row numbers)


def _fail(message: str, index: int, *, source: str, field: str, first_row: int, lines, where: Where | None):
    if where is not None:
        raise InputError(where(index) + message, source=source, line=index + 1, field=field)
    line = int(lines[index]) if lines is not None else first_row + int(index)
    raise InputError(message, source=source, line=line, field=field)


def value_column(values, *, kind: str, source: str, field: str | None = None, first_row: int = 1,
                 lines: np.ndarray | None = None, where: Where | None = None) -> np.ndarray:
    """``kind="qrels"``: :func:`relevance_column`; ``kind="run"``: :func:`score_column`."""
    if kind == "qrels":
        return relevance_column(values, source=source, field=field or "rel", first_row=first_row, lines=lines,
                                where=where)
    return score_column(values, source=source, field=field or "score", first_row=first_row, lines=lines, where=where)


# ---------------------------------------------------------------------------------------- numbers
def _as_numpy(values, *, source: str, field: str, first_row: int, lines, where: Where | None,
              expected: str) -> np.ndarray:
    """Numbers as a numpy array of kind i/u/f; nulls, booleans, text and other types as errors."""
    import pyarrow as pa

    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        kind = values.type
        if values.null_count:
            index = _first_null(values)
            _fail("missing value (null)", index, source=source, field=field, first_row=first_row, lines=lines,
                  where=where)
        if pa.types.is_dictionary(kind):
            values = values.cast(kind.value_type) if isinstance(values, pa.Array) else \
                pa.chunked_array([c.dictionary_decode() for c in values.chunks], kind.value_type)
            kind = values.type
        if pa.types.is_boolean(kind):
            _boolean(expected, source, field)
        if pa.types.is_decimal(kind):
            values = values.cast(pa.float64()) if kind.scale > 0 else _decimal_to_int(values, source, field)
            kind = values.type
        if not (pa.types.is_integer(kind) or pa.types.is_floating(kind)):
            raise InputError(f"expected {expected}, found {_type_name(kind)}", source=source, field=field)
        if pa.types.is_float16(kind):
            values = values.cast(pa.float32())
        return to_numpy(values)
    array = values if isinstance(values, np.ndarray) else _from_python(values)
    if array.ndim != 1:
        raise InputError(f"expected a flat column of {expected}, found {array.ndim} dimensions", source=source,
                         field=field)
    if array.dtype.kind in "iuf":
        return array
    if array.dtype.kind == "b":
        if where is not None:  # a dict's values: name the first one
            _fail(f"expected {_article(expected)}, found {bool(array[0])!r}", 0, source=source, field=field,
                  first_row=first_row, lines=lines, where=where)
        _boolean(expected, source, field)
    if array.dtype.kind in "OUS":  # text, None, mixed types, Python ints beyond 64 bits: each value's type
        if not isinstance(values, np.ndarray) or array.dtype.kind != "O":
            array = _objects(values if not isinstance(values, np.ndarray) else array)
        return _from_objects(array, source=source, field=field, first_row=first_row, lines=lines, where=where,
                             expected=expected)
    raise InputError(f"expected {expected}, found values of type {array.dtype}", source=source, field=field)


def _type_name(kind) -> str:
    import pyarrow as pa

    if pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_string_view(kind):
        return "a text column (numbers must be stored as numbers)"
    return f"a column of type {kind}"


def _boolean(expected: str, source: str, field: str):
    raise InputError(f"expected {expected}, found a boolean (True/False) column; convert it to integers",
                     source=source, field=field)


def _objects(values) -> np.ndarray:
    """A sequence as a 1-d object array of its very values (numpy would turn [1, "a"] into text)."""
    if hasattr(values, "tolist"):
        values = values.tolist()
    array = np.empty(len(values), dtype=object)
    array[:] = list(values)
    return array


def _article(expected: str) -> str:
    return {"integer relevances": "a number", "finite numbers": "a number"}.get(expected, expected)


def _from_python(values) -> np.ndarray:
    if isinstance(values, (list, tuple)):
        if not values:
            return np.zeros(0, dtype=np.float64)
        types = set(map(type, values))  # numpy would turn True into 1 next to integers: look first
        if len(types) > 1 and types & {bool, np.bool_}:
            return _objects(values)
        try:
            array = np.asarray(values)
        except (ValueError, TypeError, OverflowError):
            return _objects(values)
        if array.dtype.kind == "f" and not any(issubclass(t, (float, np.floating)) for t in types):
            return _objects(values)  # integers that numpy made floats (int64 next to uint64): keep them exact
        return array
    if hasattr(values, "to_numpy"):  # pandas / polars Series
        return _from_python(values.to_numpy().tolist()) if getattr(values, "dtype", None) == object else \
            np.asarray(values.to_numpy())
    return np.asarray(values)


def _from_objects(array: np.ndarray, *, source, field, first_row, lines, where, expected) -> np.ndarray:
    """An object array (Python ints beyond int64, None, mixed types): each type checked.

    Object arrays come from dicts and pandas object columns only; the loop below is over the
    values' types, done once (vectorised checks take over on the typed array it returns).
    """
    types = np.fromiter((type(v) for v in array), dtype=object, count=array.size)
    number = np.fromiter((issubclass(t, (int, float, np.integer, np.floating)) and not issubclass(t, (bool, np.bool_))
                          for t in types), dtype=bool, count=array.size)
    if not number.all():
        index = int(np.flatnonzero(~number)[0])
        value = array[index]
        found = "a missing value (None)" if value is None else \
            repr(bool(value)) if isinstance(value, (bool, np.bool_)) else repr(value)
        if isinstance(value, float) and value != value:  # NaN is a float: not reached
            found = "nan"  # pragma: no cover
        message = "missing value (null)" if value is None else f"expected {_article(expected)}, found {found}"
        _fail(message, index, source=source, field=field, first_row=first_row, lines=lines, where=where)
    is_int = np.fromiter((issubclass(t, (int, np.integer)) for t in types), dtype=bool, count=array.size)
    if is_int.all():
        big = np.fromiter((not (-(1 << 63) <= int(v) < (1 << 63)) for v in array), dtype=bool, count=array.size)
        if big.any():
            index = int(np.flatnonzero(big)[0])
            if expected == "integer relevances":
                _fail(f"expected an integer relevance (within int64), found {int(array[index])}", index, source=source,
                      field=field, first_row=first_row, lines=lines, where=where)
            return array.astype(np.float64)
        return array.astype(np.int64)
    if expected == "integer relevances" and is_int.any():
        big = is_int & np.fromiter((isinstance(v, (int, np.integer)) and not (-(1 << 63) <= int(v) < (1 << 63))
                                    for v in array), dtype=bool, count=array.size)
        if big.any():
            index = int(np.flatnonzero(big)[0])
            _fail(f"expected an integer relevance (within int64), found {int(array[index])}", index, source=source,
                  field=field, first_row=first_row, lines=lines, where=where)
    return array.astype(np.float64)


def _decimal_to_int(values, source: str, field: str):
    import pyarrow as pa

    try:
        return values.cast(pa.int64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return values.cast(pa.float64())


def _first_null(values) -> int:
    import pyarrow.compute as pc

    return int(np.flatnonzero(to_numpy(pc.is_null(values)))[0])


def relevance_column(values, *, source: str, field: str = "rel", first_row: int = 1,
                     lines: np.ndarray | None = None, where: Where | None = None) -> np.ndarray:
    """Relevance grades as int64 (see the module docstring for the rules)."""
    array = _as_numpy(values, source=source, field=field, first_row=first_row, lines=lines, where=where,
                      expected="integer relevances")
    if array.dtype.kind == "i":
        return array.astype(np.int64, copy=False)
    if array.dtype.kind == "u":
        if array.dtype.itemsize == 8 and array.size:
            big = array > np.uint64(2**63 - 1)
            if big.any():
                index = int(np.flatnonzero(big)[0])
                _fail(f"expected an integer relevance (within int64), found {int(array[index])}", index,
                      source=source, field=field, first_row=first_row, lines=lines, where=where)
        return array.astype(np.int64)
    with np.errstate(invalid="ignore"):
        bad = ~np.isfinite(array) | (array != np.floor(array)) | (array >= _INT64_LIMIT) | (array < -_INT64_LIMIT)
    if bad.any():
        index = int(np.flatnonzero(bad)[0])
        _fail(f"expected an integer relevance, found {array[index].item()!r}", index, source=source, field=field,
              first_row=first_row, lines=lines, where=where)
    return array.astype(np.int64)


def score_column(values, *, source: str, field: str = "score", first_row: int = 1,
                 lines: np.ndarray | None = None, where: Where | None = None) -> np.ndarray:
    """Scores as finite float64 (see the module docstring for the rules)."""
    array = _as_numpy(values, source=source, field=field, first_row=first_row, lines=lines, where=where,
                      expected="finite numbers")
    array = array.astype(np.float64, copy=False)
    finite = np.isfinite(array)
    if not finite.all():
        index = int(np.flatnonzero(~finite)[0])
        _fail(f"expected a finite number, found {array[index].item()!r}", index, source=source, field=field,
              first_row=first_row, lines=lines, where=where)
    return array


# ---------------------------------------------------------------------------------------- ids
def id_column(values, *, source: str, field: str, first_row: int = 1, lines: np.ndarray | None = None,
              where: Where | None = None):
    """Ids as an Arrow ChunkedArray of ``string`` (integers become their decimal text)."""
    import pyarrow.compute as pc

    array = _arrow_ids(values, source=source, field=field, first_row=first_row, lines=lines, where=where)
    if array.null_count:
        _fail("missing id (null)", _first_null(array), source=source, field=field, first_row=first_row, lines=lines,
              where=where)
    if len(array) == 0:
        return array
    lengths = to_numpy(pc.binary_length(array))
    if (lengths == 0).any():
        _fail("empty id", int(np.flatnonzero(lengths == 0)[0]), source=source, field=field, first_row=first_row,
              lines=lines, where=where)
    if _any_space(array):
        has_space = to_numpy(pc.match_substring_regex(array, "[ \t\n\r\v\f\x00]"))
        index = int(np.flatnonzero(has_space)[0])
        value = array[index].as_py()
        what = "whitespace, which TREC files cannot hold" if any(c in value for c in " \t\n\r\v\f") else \
            "a NUL character, which a text file cannot hold"
        _fail(f"id {value!r} contains {what}", index, source=source, field=field, first_row=first_row, lines=lines,
              where=where)
    return array


def _any_space(array) -> bool:
    """Whether any id holds an ASCII blank or a NUL: one table lookup over the string bytes (no regex)."""
    for chunk in array.chunks:
        if len(chunk) == 0:
            continue
        offsets_buffer, data = chunk.buffers()[1], chunk.buffers()[2]
        if data is None:
            continue
        offsets = np.frombuffer(offsets_buffer, dtype=np.int32, count=len(chunk) + 1, offset=chunk.offset * 4)
        text = np.frombuffer(data, dtype=np.uint8)[offsets[0]:offsets[-1]]
        if _IS_SPACE[text].any():
            return True
    return False


def _arrow_ids(values, *, source, field, first_row, lines, where):
    import pyarrow as pa
    import pyarrow.compute as pc

    if hasattr(values, "__len__") and len(values) == 0:  # no row: no id to judge (an empty frame's dtype is arbitrary)
        return pa.chunked_array([], pa.string())
    if isinstance(values, pa.ChunkedArray):
        array = values
    elif isinstance(values, pa.Array):
        array = pa.chunked_array([values])
    else:
        items = values if isinstance(values, np.ndarray) else _from_python_ids(values)
        if items.dtype.kind == "O":
            items = _check_id_objects(items, source=source, field=field, first_row=first_row, lines=lines, where=where)
        elif items.dtype.kind not in "iuU":
            raise InputError(f"expected text ids, found values of type {items.dtype}", source=source, field=field)
        try:
            array = pa.chunked_array([pa.array(items)])
        except UnicodeEncodeError as error:
            index = _first_unencodable(items)
            _fail(f"id cannot be encoded as UTF-8 ({error.reason}); expected text", index, source=source,
                  field=field, first_row=first_row, lines=lines, where=where)
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError) as error:
            raise InputError(f"expected text ids ({str(error).splitlines()[0]})", source=source,
                             field=field) from None
    kind = array.type
    if pa.types.is_dictionary(kind):
        array = pa.chunked_array([c.dictionary_decode() for c in array.chunks], kind.value_type)
        kind = array.type
    if pa.types.is_integer(kind):
        array = pc.cast(array, pa.string())
    elif pa.types.is_large_string(kind) or pa.types.is_string_view(kind):
        array = pc.cast(array, pa.string())
    elif pa.types.is_null(kind):
        array = pc.cast(array, pa.string())
    if not pa.types.is_string(array.type):
        raise InputError(f"expected text ids, found values of type {array.type}", source=source, field=field)
    return array


def _from_python_ids(values) -> np.ndarray:
    if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):
        values = values.to_numpy()
    if isinstance(values, np.ndarray):
        return values
    return _objects(values)


def _check_id_objects(items: np.ndarray, *, source, field, first_row, lines, where) -> np.ndarray:
    """Every id is a str or an integer (not a bool); integers become their text (in a copy)."""
    if set(map(type, items)) <= {str}:  # the usual case, checked in one C-level pass
        return items
    ok = np.fromiter((isinstance(v, str) or (isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)))
                      for v in items), dtype=bool, count=items.size)
    if not ok.all():
        index = int(np.flatnonzero(~ok)[0])
        value = items[index]
        message = "missing id (null)" if value is None or value != value else \
            f"expected a text id, found {type(value).__name__} {value!r}"
        _fail(message, index, source=source, field=field, first_row=first_row, lines=lines, where=where)
    is_int = np.fromiter((not isinstance(v, str) for v in items), dtype=bool, count=items.size)
    if is_int.any():
        items = items.copy()  # never the caller's array
        items[is_int] = [str(int(v)) for v in items[is_int]]
    return items


def _first_unencodable(items: np.ndarray) -> int:
    for index, value in enumerate(items):  # error path only
        try:
            str(value).encode("utf-8")
        except UnicodeEncodeError:
            return index
    return 0  # pragma: no cover


def nested_columns(mapping: dict, names: tuple[str, str, str], value: str, *, source: str
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list]:
    """The three key columns (object arrays) and the values of a three-level dict
    ``{a: {b: {c: value}}}`` (crowd labels, diversity qrels), row by row in the dict's order.
    ``names`` name the levels and ``value`` the leaves, in the error a non-dict level gets.
    (A loop over the dict's entries: the dict is the data.)"""
    first, second, third = [], [], []
    values: list = []
    for a, middle in mapping.items():
        if not isinstance(middle, dict):
            raise InputError(f"{names[0]} {a!r}: expected a dict {{{names[1]}: {{{names[2]}: {value}}}}}, found "
                             f"{type(middle).__name__}", source=source)
        for b, inner in middle.items():
            if not isinstance(inner, dict):
                raise InputError(f"{names[0]} {a!r}, {names[1]} {b!r}: expected a dict {{{names[2]}: {value}}}, "
                                 f"found {type(inner).__name__}", source=source)
            n = len(inner)
            first.extend([a] * n)
            second.extend([b] * n)
            third.extend(inner)
            values.extend(inner.values())
    columns = []
    for keys in (first, second, third):
        column = np.empty(len(keys), dtype=object)
        column[:] = keys
        columns.append(column)
    return columns[0], columns[1], columns[2], values
