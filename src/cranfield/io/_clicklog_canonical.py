"""The canonical click-log columns given as arrays (a :class:`cranfield.online.ClickLog`, or the
plain dict of arrays the simulator produces): the grammar of the in-memory form that
interleaving, click models and simulation read, next to the grammar of click-log files
(:mod:`cranfield.io.clicklog`).

:func:`log_columns` reads any object with the canonical attribute names of
:class:`cranfield.online.logs.ClickLog` (``impression``, ``query``, ``doc``, ``rank``,
``clicked``, ``impression_offsets``, ``query_ids``, ``doc_ids``) or a mapping with those keys.
Rows must be sorted by impression, then rank; ranks are 1-based and distinct within an
impression; errors name the row (from 1) and the field.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError, UsageError

__all__ = ["OPTIONAL", "REQUIRED", "as_array", "log_columns"]

REQUIRED = ("impression", "query", "doc", "rank", "clicked")
OPTIONAL = ("query_ids", "doc_ids", "impression_offsets")


def as_array(value, name: str, dtype=None) -> np.ndarray:
    """``np.asarray(value, dtype)``, or a UsageError naming ``name`` when it is not an array."""
    try:
        array = np.asarray(value, dtype=dtype)
    except (TypeError, ValueError, OverflowError) as error:
        raise UsageError(f"{name}: expected an array{'' if dtype is None else ' of numbers'}, found "
                         f"{type(value).__name__} ({' '.join(str(error).split())[:80]})") from None
    if array.dtype.kind in "OV" and dtype is None:
        raise UsageError(f"{name}: expected an array of numbers or ids, found objects of mixed types")
    return array


def _get(log, name):
    if isinstance(log, dict):
        return log.get(name)
    return getattr(log, name, None)


def _integers(values, name: str, source: str) -> np.ndarray:
    array = as_array(values, name)
    if array.ndim != 1:
        raise InputError(f"expected a one-dimensional array, found {array.ndim} dimensions", source=source, field=name)
    if array.dtype.kind == "b":
        array = array.astype(np.int64)
    if array.dtype.kind not in "iu":
        if array.dtype.kind == "f" and array.size and np.all(np.isfinite(array)) and np.all(array == np.floor(array)):
            array = array.astype(np.int64)
        elif array.size:
            raise InputError(f"expected integers, found values of type {array.dtype}", source=source, field=name)
        else:
            array = array.astype(np.int64)
    return array.astype(np.int64, copy=False)


def _id_texts(ids, name: str) -> np.ndarray:
    """The id texts of a codes column (a ClickLog holds them as an object array of str)."""
    array = np.asarray(ids, dtype=object)
    if array.ndim != 1 or not all(isinstance(value, (str, int, np.integer)) for value in array.tolist()):
        raise UsageError(f"{name}: expected a one-dimensional array of ids (str or int)")
    return array.astype(str)


def _codes(values, name: str, source: str, ids) -> tuple[np.ndarray, np.ndarray | None]:
    """Integer codes of an id column: the codes themselves when ``ids`` are given or the values
    are integers, else the index of each value among its sorted distinct values."""
    array = as_array(values, name)
    if ids is not None or array.dtype.kind in "iub" or array.size == 0:
        return _integers(array, name, source), None if ids is None else _id_texts(ids, f"{name}_ids")
    if array.ndim != 1:
        raise InputError(f"expected a one-dimensional array, found {array.ndim} dimensions", source=source, field=name)
    text = array.astype(str)
    unique, codes = np.unique(text, return_inverse=True)
    return codes.reshape(-1).astype(np.int64), unique


def log_columns(log, *, source: str = "click log") -> dict:
    """The canonical columns of ``log`` as numpy arrays, checked: equal lengths, ranks ≥ 1,
    clicks 0/1, the rows of an impression contiguous with strictly increasing ranks, codes ≥ 0.
    ``query`` and ``doc`` are codes into ``query_ids`` / ``doc_ids`` when those are given (or
    integers), else ids, encoded here; ``impression`` may be any id (its rows contiguous)."""
    if log is None or isinstance(log, (str, bytes, int, float)):
        raise UsageError(f"{source}: expected a click log (a ClickLog or a dict of columns), found {type(log).__name__}")
    columns = {}
    for name in REQUIRED:
        if _get(log, name) is None:
            raise InputError(f"missing column {name!r}", source=source, field=name)
    for name in ("query", "doc"):
        columns[name], columns[f"{name}_ids"] = _codes(_get(log, name), name, source, _get(log, f"{name}_ids"))
    impression = as_array(_get(log, "impression"), "impression")
    if impression.ndim != 1:
        raise InputError(f"expected a one-dimensional array, found {impression.ndim} dimensions", source=source,
                         field="impression")
    for name in ("rank", "clicked"):
        columns[name] = _integers(_get(log, name), name, source)
    n = len(impression)
    for name in ("query", "doc", "rank", "clicked"):
        if len(columns[name]) != n:
            raise InputError(f"expected {n} values (as many as impression), found {len(columns[name])}", source=source,
                             field=name)
    clicked = columns.pop("clicked")
    bad = np.flatnonzero((clicked != 0) & (clicked != 1))
    if bad.size:
        raise InputError(f"expected 0 or 1, found {clicked[bad[0]]}", source=source, line=int(bad[0]) + 1, field="clicked")
    columns["clicked"] = clicked.astype(bool)
    for name, low in (("rank", 1), ("query", 0), ("doc", 0)):
        bad = np.flatnonzero(columns[name] < low)
        if bad.size:
            raise InputError(f"expected an integer ≥ {low}, found {columns[name][bad[0]]}", source=source,
                             line=int(bad[0]) + 1, field=name)
    new = np.r_[True, impression[1:] != impression[:-1]] if n else np.zeros(0, bool)
    starts = np.flatnonzero(new)
    increasing = impression.dtype.kind in "iu" and bool(np.all(impression[starts[1:]] > impression[starts[:-1]]))
    if not increasing and len(starts) != len(np.unique(impression[starts])):
        seen = impression[starts]
        order = np.argsort(seen, kind="stable")
        again = order[1:][seen[order][1:] == seen[order][:-1]][0]
        raise InputError(f"the rows of impression {seen[again]} are not contiguous; sort the log by impression, then "
                         "rank", source=source, line=int(starts[again]) + 1, field="impression")
    columns["impression"] = np.cumsum(new) - 1
    rank = columns["rank"]
    bad = np.flatnonzero(~new[1:] & (np.diff(rank) <= 0)) if n > 1 else np.zeros(0, np.int64)
    if bad.size:
        i = int(bad[0]) + 1
        raise InputError(f"ranks of an impression must increase without repeats; found rank {rank[i]} after rank "
                         f"{rank[i - 1]} in impression {impression[i]}", source=source, line=i + 1, field="rank")
    columns["impression_offsets"] = np.r_[starts, n].astype(np.int64)
    for name in ("query", "doc"):
        ids = columns[f"{name}_ids"]
        if ids is not None and n and columns[name].max() >= len(ids):
            i = int(np.argmax(columns[name]))
            raise InputError(f"code {columns[name][i]} has no id ({len(ids)} {name} ids)", source=source, line=i + 1,
                             field=name)
    return columns
