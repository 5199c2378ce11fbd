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
timestamp     no [3]    seconds (a finite number, any epoch), an ISO 8601 time or a timestamp
                        column: on a row not clicked, when the impression was shown; on a
                        clicked row, when the click happened
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

[3] in text, every timestamp of a log is a number of seconds, or every one is an ISO 8601 time
``YYYY-MM-DD[Thh:mm[:ss[.fraction]]][zone]`` (``T`` or a space; a fraction of up to 9 digits;
zone ``Z``, ``+hh:mm`` or ``+hhmm``), read as seconds since 1970-01-01T00:00:00 UTC: a zone is
converted to UTC, a time without zone is taken as UTC (as Arrow and pandas store naive times).
Typed timestamp columns follow the same rule (with or without a zone). The first row decides
which kind a text log holds; a row of the other kind is an error.

Text (CSV; TSV for ``.tsv``/``.tab``/``.txt``) is read by :mod:`cranfield.io.header_text`: a
header line (each name once), UTF-8, quoted fields allowed, blank lines skipped but counted, a
row with another number of fields than the header an error; every known column is read as text
and parsed here: ``rank`` is ASCII digits, numbers are decimal (``12``, ``-1.5``, ``2e3``; no
``nan``/``inf``, nothing beyond the float64 range such as ``1e400``). A log with no row (a header
only, an empty frame or dict) is an error on every path. Parquet, pandas, polars, Arrow tables and dicts of columns keep
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

import csv
import io
import os
from typing import Any

import numpy as np

from ..errors import InputError, UsageError
from ._clicklog_fields import (
    click_column,
    fail,
    id_codes,
    line_of,
    rank_column,
    seconds_column,
)
from .header_text import delimiter_for, read_header_text, utf8_column
from .sources import display_name_of

__all__ = ["COLUMNS", "ID_COLUMNS", "read_click_table", "parse_click_table", "read_covariate_table", "DEFAULT_VARIANT",
           "click_log_csv"]

ID_COLUMNS = ("impression", "query", "doc", "variant", "user", "session", "team")
COLUMNS = ("impression", "query", "rank", "doc", "clicked", "timestamp", "dwell", "variant", "user", "session",
           "team")
DEFAULT_VARIANT = "all"
_REQUIRED = ("impression", "query", "rank", "doc", "clicked")
_TEXT_SUFFIXES = (".gz", ".bz2", ".xz", ".zst", ".lz4")


def _plain_name(path: str) -> str:
    name = path.lower()
    for suffix in _TEXT_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def read_click_table(source) -> tuple[Any, str, Any]:
    """``(columns, source name, lines)``: the raw columns of a click log, a dict of name →
    Arrow array or sequence, and the line of its first row (an int) or of each row (an int64
    array: text, where blank lines are skipped). ``source``: a path (Parquet by its name, else
    CSV/TSV text read by :func:`cranfield.io.header_text.read_header_text`), a file object, a
    pyarrow Table, a pandas, polars or Dask DataFrame, or a dict of columns."""
    import pyarrow as pa

    if isinstance(source, dict):
        return dict(source), "click log dict", 1
    if isinstance(source, pa.Table):
        return _table_columns(source, "click log table"), "click log table", 1
    module = type(source).__module__.split(".")[0]
    if module == "dask" and hasattr(source, "npartitions"):  # every partition, rows counted across them
        source, name = source.compute(), "click log Dask DataFrame"
    else:
        name = "click log DataFrame"
    if module in ("pandas", "dask") and hasattr(source, "columns"):
        _unique_names([str(c) for c in source.columns], name, None)
        try:
            table = pa.Table.from_pandas(source, preserve_index=False)
        except (pa.ArrowInvalid, pa.ArrowTypeError) as error:
            raise InputError(f"cannot convert the DataFrame: {' '.join(str(error).split())[:200]}",
                             source=name) from None
        return _table_columns(table, name), name, 1
    if module == "polars" and hasattr(source, "to_arrow"):
        return _table_columns(source.to_arrow(), name), name, 1
    if isinstance(source, (str, os.PathLike)) or hasattr(source, "read"):
        return _read_file(source)
    raise UsageError(f"click log: expected a file name, a file object, a DataFrame, an Arrow table or a dict of "
                     f"columns, found {type(source).__name__}")


def _unique_names(names: list, source: str, line: "int | None") -> None:
    seen: set = set()
    for name in names:
        if name in seen:
            raise InputError(f"column {name!r} appears {names.count(name)} times; expected each column once",
                             source=source, line=line, field=str(name))
        seen.add(name)


def _table_columns(table, source: str) -> dict:
    _unique_names(table.column_names, source, None)
    return {name: table.column(name) for name in table.column_names}


def _read_file(source) -> tuple[dict, str, Any]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    name = display_name_of(source)
    if isinstance(source, (str, os.PathLike)) and _plain_name(name).endswith((".parquet", ".pq", ".parq")):
        if not os.path.exists(source):
            raise InputError("no such file", source=name)
        if os.path.isdir(source):
            raise InputError("is a directory, expected a Parquet file", source=name)
        try:
            table = pq.read_table(source)  # ids as text: Parquet's dictionaries are per row group
        except (pa.ArrowException, OSError) as error:
            text = " ".join(str(error).split())
            raise InputError(f"not a readable Parquet file ({(text if text.isprintable() else repr(text))[:200]})",
                             source=name) from None
        return _table_columns(table, name), name, 1
    text = read_header_text(source, name=name, sep=delimiter_for(name), expected=",".join(_REQUIRED),
                            check_names=lambda names: _unique_names(names, name, 1))
    return {n: utf8_column(c, name, n, text.lines) for n, c in zip(text.names, text.columns)}, name, text.lines


# ------------------------------------------------------------------------------------ the table
def parse_click_table(columns: dict, *, source: str = "click log", first_line: "int | np.ndarray" = 1,
                      expected_variants=None, with_team: bool = False) -> dict:
    """The canonical columns of a click log (see the module docstring), sorted by impression then
    rank: ``impression``, ``query``, ``doc``, ``variant``, ``user``, ``session``, ``team`` as int64
    codes with ``<name>_ids`` (``user``/``session``/``team`` None when absent), ``rank`` int64,
    ``clicked`` bool, ``dwell`` / ``timestamp`` float64 or None, ``line`` (each row's line in the
    input) and ``impression_offsets``. A ``team`` column is always checked, and returned (``team`` /
    ``team_ids``) only ``with_team`` (interleaving logs; a :class:`ClickLog` has no team).
    ``first_line``: the line of the first row, or each row's line (an int64 array, as
    :func:`read_click_table` gives for text, whose blank lines are skipped)."""
    if not isinstance(columns, dict):
        raise UsageError(f"columns: expected a dict of column name -> values, found {type(columns).__name__}")
    names = list(columns)
    unknown = [n for n in names if n not in COLUMNS]
    if unknown:
        raise InputError(f"unknown column {unknown[0]!r}; a click log has the columns {', '.join(COLUMNS)}",
                         source=source, field=str(unknown[0]))
    if "impression" not in columns and "session" in columns:
        columns = {**columns, "impression": columns["session"]}
    missing = [c for c in _REQUIRED if c not in columns]
    if missing:
        raise InputError(f"no column {missing[0]!r}; a click log needs impression (or session), query, rank, doc and "
                         f"clicked; found {', '.join(names) or 'no column'}", source=source, field=missing[0])
    lengths = {len(v) for v in columns.values()}
    if len(lengths) != 1:
        raise InputError(f"columns of different lengths {sorted(lengths)}", source=source)
    n = lengths.pop()
    if n == 0:
        raise InputError("no rows; expected at least one row (one per result shown)", source=source)
    out: dict[str, Any] = {}
    for field in ID_COLUMNS:
        if field in columns:
            out[field], out[f"{field}_ids"] = id_codes(columns[field], source, field, first_line, sort=field != "doc")
        else:
            out[field], out[f"{field}_ids"] = None, None
    if out["variant"] is None:
        out["variant"], out["variant_ids"] = np.zeros(n, dtype=np.int64), np.array([DEFAULT_VARIANT], dtype=object)
    out["rank"] = rank_column(columns["rank"], source, first_line)
    out["clicked"] = click_column(columns["clicked"], source, first_line)
    out["dwell"] = seconds_column(columns["dwell"], source, "dwell", first_line, allow_missing=True) if "dwell" in columns \
        else None
    out["timestamp"] = seconds_column(columns["timestamp"], source, "timestamp", first_line, allow_missing=False) \
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
        fail(f"{group} {out[f'{group}_ids'][g[i]]!r} has {field} {out[f'{field}_ids'][v[i]]!r} here but "
              f"{out[f'{field}_ids'][first_value[g[i]]]!r} on line {line_of(first_row[g[i]], first)}; {what}",
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
            fail(f"expected a dwell time >= 0 seconds, found {float(dwell[i])!r}", i, source, "dwell", first)
        bad = ~clicked & (dwell > 0)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            fail(f"dwell {float(dwell[i])!r} on a row not clicked; expected it empty or 0", i, source, "dwell", first)
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
                fail(f"impression {out['impression_ids'][imp[i]]!r} shown at {float(ts[i])!r} here but at "
                      f"{float(shown[imp[i]])!r} on line {line_of(rows[first_row[imp[i]]], first)}; rows not clicked carry the "
                      f"time the impression was shown", i, source, "timestamp", first)
        with np.errstate(invalid="ignore"):
            bad = clicked & (ts < shown[imp])
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            fail(f"click at {float(ts[i])!r} before its impression was shown (at {float(shown[imp[i]])!r})", i, source,
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
                         line=line_of(i, first), field="variant")


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
    out["line"] = first[order] if isinstance(first, np.ndarray) else order.astype(np.int64) + first
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
    codes, ids = id_codes(columns[unit], name, unit, first)
    values = seconds_column(columns["covariate"], name, "covariate", first, allow_missing=False)
    counts = np.bincount(codes, minlength=len(ids))
    if (counts > 1).any():
        code = int(np.flatnonzero(counts > 1)[0])
        rows = np.flatnonzero(codes == code)
        fail(f"{unit} {ids[code]!r} appears twice (also on line {line_of(rows[0], first)}); expected one covariate per "
              f"{unit}", int(rows[1]), name, unit, first)
    out = np.empty(len(ids))
    out[codes] = values
    return dict(zip(ids.tolist(), out.tolist()))


def click_log_csv(columns: dict) -> str:
    """The CSV text (header ``impression,query,rank,doc,clicked``, clicked as 0/1) of a click
    log's columns, as :func:`read_click_table` reads it back."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["impression", "query", "rank", "doc", "clicked"])
    writer.writerows(zip(columns["impression"].tolist(), columns["query"].tolist(), columns["rank"].tolist(),
                         columns["doc"].tolist(), np.asarray(columns["clicked"]).astype(int).tolist()))
    return buffer.getvalue()
