"""The canonical, columnar click log: numpy columns sorted by impression then rank.

Read with :func:`read_click_log` (a file, a DataFrame, an Arrow table, a dict of columns) or
build with :meth:`ClickLog.from_columns`; both go through the one grammar of
:mod:`cranfield.io.clicklog`, so every path gives the same log or the same error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..dask._deps import compute
from ..errors import InputError, UsageError
from ..io.clicklog import parse_click_table, read_click_table

__all__ = ["ClickLog", "read_click_log", "read_click_log_partition", "raise_partition_error"]

DASK_SOURCE = "click log Dask DataFrame"


@dataclass(frozen=True, eq=False)
class ClickLog:
    """A click log, one row per result shown, sorted by impression then rank.

    Id columns are int64 codes into their ``*_ids`` arrays (sorted by code point; documents in
    the order of their first appearance in the input): ``impression``,
    ``query`` (``query_ids``), ``doc`` (``doc_ids``), ``variant`` (``variant_ids``; one variant
    ``"all"`` when the log has none), ``user`` / ``session`` (None when absent). ``rank`` is
    1-based int64 (1, 2, … within each impression), ``clicked`` bool, ``dwell`` float64 seconds
    (NaN when unknown) or None, ``timestamp`` float64 seconds or None, ``line`` the input line of
    each row (for messages). ``impression_offsets``: impression ``i`` is rows
    ``impression_offsets[i]:impression_offsets[i + 1]``.
    """

    impression: np.ndarray
    impression_ids: np.ndarray
    query: np.ndarray
    query_ids: np.ndarray
    doc: np.ndarray
    doc_ids: np.ndarray
    rank: np.ndarray
    clicked: np.ndarray
    variant: np.ndarray
    variant_ids: np.ndarray
    impression_offsets: np.ndarray
    line: np.ndarray
    dwell: np.ndarray | None = None
    timestamp: np.ndarray | None = None
    user: np.ndarray | None = None
    user_ids: np.ndarray | None = None
    session: np.ndarray | None = None
    session_ids: np.ndarray | None = None
    source: str = "click log"

    @classmethod
    def from_columns(cls, *, expected_variants=None, source: str = "click log dict", **columns) -> "ClickLog":
        """A validated log from columns given by name (``impression=``, ``query=``, ``rank=``,
        ``doc=``, ``clicked=``, optional ``timestamp=``, ``dwell=``, ``variant=``, ``user=``,
        ``session=``): sequences, numpy or Arrow arrays, rows in any order. Errors name the row
        (1-based) and the field.

        >>> log = ClickLog.from_columns(impression=[1, 1], query=["q", "q"], rank=[2, 1], doc=["b", "a"],
        ...                             clicked=[0, 1])
        >>> log.doc_ids[log.doc].tolist(), log.clicked.tolist()
        (['a', 'b'], [True, False])
        """
        if not isinstance(source, str):
            raise UsageError(f"source: expected a name (str), found {type(source).__name__}")
        return cls(**parse_click_table(columns, source=source, first_line=1, expected_variants=expected_variants),
                   source=source)

    # -------------------------------------------------------------------------- derived
    @property
    def n_rows(self) -> int:
        return int(self.rank.shape[0])

    @property
    def n_impressions(self) -> int:
        return int(self.impression_offsets.shape[0] - 1)

    def __len__(self) -> int:
        return self.n_rows

    def per_impression(self, column: np.ndarray) -> np.ndarray:
        """The value of a column that is constant within an impression (query, variant, user,
        session), one per impression."""
        if self.n_impressions == 0:
            return np.zeros(0, dtype=column.dtype)
        return column[self.impression_offsets[:-1]]

    def unit_codes(self, unit: str) -> tuple[np.ndarray, np.ndarray]:
        """``(codes per impression, ids)`` of the randomisation unit ``impression``, ``session``
        or ``user``."""
        if unit == "impression":
            return np.arange(self.n_impressions, dtype=np.int64), self.impression_ids
        if unit in ("session", "user"):
            codes = getattr(self, unit)
            if codes is None:
                raise UsageError(f"unit {unit!r}: the click log has no {unit} column")
            return self.per_impression(codes), getattr(self, f"{unit}_ids")
        raise UsageError(f"unit: expected impression, session or user, found {unit!r}")

    def __repr__(self) -> str:
        return (f"ClickLog({self.n_rows} rows, {self.n_impressions} impressions, {len(self.query_ids)} queries, "
                f"variants {list(self.variant_ids)})")

    def equals(self, other: "ClickLog") -> bool:
        """Same rows, same ids (the input lines and the source name aside)."""
        if not isinstance(other, ClickLog):
            return False
        if not np.array_equal(self.doc_ids[self.doc], other.doc_ids[other.doc]):  # doc codes: first appearance
            return False
        for name in ("impression", "impression_ids", "query", "query_ids", "rank", "clicked",
                     "variant", "variant_ids", "impression_offsets", "dwell", "timestamp", "user", "user_ids",
                     "session", "session_ids"):
            a, b = getattr(self, name), getattr(other, name)
            if (a is None) != (b is None):
                return False
            if a is not None and not np.array_equal(a, b, equal_nan=a.dtype.kind == "f"):
                return False
        return True


def read_click_log(source, *, expected_variants=None) -> ClickLog:
    """A click log from a CSV/TSV file (header line; compressed too), a Parquet file, a pandas or
    polars DataFrame, a pyarrow Table or a dict of columns (the grammar:
    :mod:`cranfield.io.clicklog`). ``expected_variants``: the variants of the planned split; a
    variant missing from the log, or one not planned, is an error."""
    columns, name, first = read_click_table(source)
    return ClickLog(**parse_click_table(columns, source=name, first_line=first, expected_variants=expected_variants),
                    source=name)


class PartitionError:
    """The first error of Dask partition ``index`` (its rows counted from 1 in the partition)."""

    def __init__(self, index: int, error: InputError) -> None:
        self.index, self.error = index, error


def read_click_log_partition(chunk, index: int) -> "ClickLog | PartitionError | None":
    """The click log of one Dask partition (a pandas DataFrame) through the one grammar; None for
    an empty partition; a :class:`PartitionError` that :func:`raise_partition_error` turns into
    the error of the whole data (the same line and message as in memory)."""
    if len(chunk) == 0:
        return None
    try:
        columns, _, _ = read_click_table(chunk)
        return ClickLog(**parse_click_table(columns, source=DASK_SOURCE), source=DASK_SOURCE)
    except InputError as error:
        return PartitionError(index, error)


def raise_partition_error(results: list, frame, client) -> list:
    """``results`` without the empty partitions; the first partition's error, with its rows
    counted over the whole frame (the lengths of the partitions before it are computed here, on
    the error path only); a frame without rows is the in-memory "no rows" error."""
    import dask  # optional dependency: only a Dask caller gets here

    bad = [r for r in results if isinstance(r, PartitionError)]
    if bad:
        first = min(bad, key=lambda b: b.index)
        offset = int(sum(compute([dask.delayed(len)(c) for c in frame.to_delayed()[:first.index]], client))) \
            if first.index else 0
        error = first.error
        message = re.sub(r"line (\d+)", lambda m: f"line {int(m.group(1)) + offset}", error.message)
        raise InputError(message, source=DASK_SOURCE, line=None if error.line is None else error.line + offset,
                         field=error.field)
    kept = [r for r in results if r is not None]
    if not kept:
        raise InputError("no rows; expected at least one row (one per result shown)", source=DASK_SOURCE)
    return kept
