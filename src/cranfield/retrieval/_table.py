"""The columnar base shared by :class:`~cranfield.Qrels` and :class:`~cranfield.Run`."""

from __future__ import annotations

import os
from typing import Any, ClassVar

import numpy as np

from .._arrow import indices, query_block_starts, take_sorted, to_numpy
from ..errors import InputError
from ..io.atomic import atomic_write
from ..io.json_mapping import is_json_path, read_json_mapping, write_json_mapping
from ..io.parquet import is_parquet, read_parquet_columns, write_parquet
from ..io.trec import read_trec_columns
from ..io.trec_grammar import check_dialect
from ..io.value_chunks import ValueChunks
from ._columns import (
    check_numbers,
    columns_from_dict,
    columns_from_frame,
    to_chunked_strings,
)
from .doc_keys import longest_bytes

try:  # the compiled core (setup.py builds it); without it, dicts take the Python path
    from .._native import dict_columns as _dict_columns
except ImportError:  # pragma: no cover - a source tree that was not built
    _dict_columns = None

__all__ = ["TrecTable"]


class TrecTable:
    """Columns ``qid``, ``docno`` (Arrow string arrays) and a numeric value per row.

    Rows keep the 1-based line number of the file they came from (or the row number of the
    dict / frame), so that later checks (duplicates) can name the lines.
    Instances are immutable by convention: no method changes them.
    """

    value_field: ClassVar[str] = "value"
    _qid = None  # the rows' query ids (see qid), or None while only _qid_heads are held
    _qid_heads = None
    value_dtype: ClassVar[Any] = np.float64
    default_source: ClassVar[str] = "table"

    def __init__(self, qid, docno, values, *, source: str | None = None, lines: np.ndarray | None = None,
                 name: str | None = None, _trusted: bool = False, _query_starts: np.ndarray | None = None,
                 _longest_docno: int | None = None, _qid_heads=None) -> None:
        source = source or self.default_source
        if qid is None and _qid_heads is not None and _query_starts is not None:  # a reader's: rows' ids on demand
            self._qid, self._qid_heads = None, to_chunked_strings(_qid_heads, source=source, field="qid", trusted=True)
        else:
            self.qid = to_chunked_strings(qid, source=source, field="qid", trusted=_trusted)
        self.docno = to_chunked_strings(docno, source=source, field="docno", trusted=_trusted)
        self._values, self._chunks = self._checked_values(values, source, lines, _trusted)
        n_qid = len(self) if self._qid is None else len(self._qid)
        if not (n_qid == len(self.docno) == len(self)):
            raise InputError(f"columns of different lengths: qid {n_qid}, docno {len(self.docno)}, "
                             f"{self.value_field} {len(self)}", source=source)
        self._lines = lines
        self.source = source
        self.name = name
        self._query_starts = _query_starts
        self._longest_docno = _longest_docno

    def _checked_values(self, values, source: str, lines, trusted: bool):
        """``(array, None)``: the values checked and typed; or ``(None, chunks)``: a reader's blocks
        (:class:`~cranfield.io.value_chunks.ValueChunks`, checked and typed by the reader), kept as
        read until the whole column is asked for (a slice copies only its rows)."""
        if isinstance(values, ValueChunks):
            if trusted and values.dtype == self.value_dtype and not values.whole:
                return None, values
            values = values.array()
        array = to_numpy(values)
        if array.dtype.kind not in "iuf" or array.ndim != 1:
            try:
                array = array.astype(np.float64)
            except (TypeError, ValueError):
                raise InputError(f"expected numbers, found values of type {array.dtype}", source=source,
                                 field=self.value_field) from None
        if array.dtype.kind == "f" and not trusted:  # a file's numbers were checked by its reader
            check_numbers(array, source=source, field=self.value_field, lines=lines)
        if self.value_dtype is np.int64 and array.dtype.kind == "f":
            fractional = (array != np.floor(array)) | (np.abs(array) >= 2.0**63)  # beyond int64: no silent wrap
            if fractional.any():
                index = int(np.flatnonzero(fractional)[0])
                line = int(lines[index]) if lines is not None else index + 1
                raise InputError(f"expected an integer relevance, found {array[index].item()!r}", source=source,
                                 line=line, field=self.value_field)
        return array.astype(self.value_dtype, copy=False), None

    @property
    def qid(self):
        """The query id of each row (an Arrow string ChunkedArray). A table read from a TREC file
        holds one id per query (:meth:`query_heads`) and makes this column when it is first asked
        for: evaluating does not need it (10M run lines: 80 MB)."""
        qid = self._qid
        if qid is None:
            qid = self._qid = _rows_of_heads(self._qid_heads, self._query_starts, len(self))
        return qid

    @qid.setter
    def qid(self, column) -> None:
        self._qid, self._qid_heads = column, None

    @property
    def holds_query_heads(self) -> bool:
        """Whether the table holds one query id per run of equal ids, its rows' ids not made yet."""
        return self._qid is None

    def query_heads(self):
        """The query id of each run of equal ids, at :meth:`query_starts` (without the rows' ids
        where the table holds them so)."""
        if self._qid_heads is not None:
            return self._qid_heads
        return take_sorted(self.qid, self.query_starts())

    @property
    def values(self) -> np.ndarray:
        """The scores (runs) or relevances (qrels) of the rows, one array. Made from the blocks as
        read on first use; the blocks are then let go (their memory freed unless a slice of the
        table still reads them), so the column is not held twice."""
        values = self._values
        if values is None:
            chunks = self._chunks
            if chunks is None:  # another thread made the array meanwhile
                return self._values
            values = chunks.array()
            self._values, self._chunks = values, None
        return values

    @values.setter
    def values(self, array: np.ndarray) -> None:
        self._values, self._chunks = array, None

    @property
    def lines(self) -> np.ndarray:
        """1-based line (or row) number of each row in its source."""
        if self._lines is None:
            return np.arange(1, len(self) + 1, dtype=np.int64) + self._line_offset
        return self._lines

    _line_offset = 0  # rows of a slice start after this many lines of the source
    #: no (qid, docno) pair repeats, by construction (a dict's exact str keys, rows of checked qrels):
    #: the duplicate check has nothing to find
    distinct_pairs = False
    #: the docno of each row as the Python str it came from (a dict's keys), or None: the compiled dict
    #: index reads them with their cached hashes instead of converting the Arrow column back
    docno_objects: list | None = None

    def longest_docno(self) -> int:
        """Length in bytes of the longest docno (computed once; a slice keeps its source's)."""
        if self._longest_docno is None:
            self._longest_docno = longest_bytes(self.docno)
        return self._longest_docno

    def query_starts(self) -> np.ndarray:
        """Start rows of the runs of equal query ids (computed once; see ``ranked.query_block_starts``)."""
        if self._query_starts is None:
            self._query_starts = query_block_starts(self.qid)
        return self._query_starts

    _query_blocks = None  # (distinct query ids, rows of each) of a dict's rows, grouped by query

    def sorted_query_codes(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(distinct query ids sorted byte-wise as an object array, the code of each row's query in
        that order) when known without looking at the rows (a dict's columns from the core), else
        None. Python sorts str by code point: the order of their UTF-8 bytes."""
        if self._query_blocks is None:
            return None
        qids, counts = self._query_blocks
        order = sorted(range(len(qids)), key=qids.__getitem__)
        code = np.empty(len(qids), dtype=np.int64)
        code[order] = np.arange(len(qids))
        return np.asarray([qids[i] for i in order], dtype=object), np.repeat(code, counts)

    def line_of(self, index: int) -> int:
        return int(index) + 1 + self._line_offset if self._lines is None else int(self._lines[index])

    def slice(self, start: int, stop: int):
        """Rows [start, stop) as a new object of the same type (zero-copy; lines are kept)."""
        part = object.__new__(type(self))
        part.__dict__.update(self.__dict__)
        if self._qid is None:  # the ids of the queries of its rows: from the one holding row start on
            first = int(np.searchsorted(self._query_starts, start, side="right")) - 1 if stop > start else 0
            last = int(np.searchsorted(self._query_starts, stop, side="left")) if stop > start else 0
            part._qid_heads = self._qid_heads.slice(first, last - first)
        else:
            part.qid = self._qid.slice(start, stop - start)
        part.docno = self.docno.slice(start, stop - start)
        chunks = self._chunks  # (read first: `values` sets _values before it lets the blocks go)
        if chunks is not None:  # the blocks as read: the part takes its rows only
            part._values, part._chunks = None, chunks.slice(start, stop)
        else:
            part.values = self._values[start:stop]
        part._query_blocks = None
        if self.docno_objects is not None:
            part.docno_objects = self.docno_objects[start:stop]
        if self._query_starts is not None:
            inside = self._query_starts[np.searchsorted(self._query_starts, start, side="right"):
                                        np.searchsorted(self._query_starts, stop, side="left")] - start
            part._query_starts = np.concatenate(([0], inside)) if stop > start else inside[:0]
        if self._lines is None:
            part._line_offset = self._line_offset + start
        else:
            part._lines = self._lines[start:stop]
        return part

    # ------------------------------------------------------------------ constructors
    @classmethod
    def _from_file(cls, path, kind: str, *, dialect: str = "cranfield", **kwargs):
        check_dialect(dialect)
        if is_json_path(path):  # ranx's {qid: {docno: value}} JSON file, checked as the dict backend
            qids, docnos, values = columns_from_dict(read_json_mapping(path), source=str(path),
                                                     value_field=cls.value_field)
            return cls(qids, docnos, values, source=str(path), **kwargs), None
        parquet = is_parquet(path)  # a .parquet file or a directory of them (a dataset)
        cols = read_parquet_columns(path, kind=kind) if parquet else read_trec_columns(path, kind=kind,
                                                                                        dialect=dialect, qid_heads=True)
        return cls(cols.qid, cols.docno, cols.chunks, source=cols.source, lines=cols.line, _trusted=not parquet,
                   _query_starts=cols.query_starts, _longest_docno=cols.longest_docno,
                   _qid_heads=getattr(cols, "qid_heads", None), **kwargs), cols

    @classmethod
    def from_dict(cls, mapping: dict, *, name: str | None = None):
        """From ``{qid: {docno: value}}``: the columns built by the compiled core when it takes the
        dict (:meth:`_from_native_dict`), else by the checks of :mod:`cranfield.io.values`."""
        native = cls._from_native_dict(mapping, name=name)
        if native is not None:
            return native
        source = f"{cls.__name__.lower()} dict"
        # ids and values checked by io.values (int64 relevance kept exact, finite float64 scores)
        qids, docnos, values = columns_from_dict(mapping, source=source, value_field=cls.value_field)
        return cls(qids, docnos, values, source=source, name=name)

    @classmethod
    def _from_native_dict(cls, mapping, *, name: str | None):
        """The columns of a dict from :mod:`cranfield._native.dict_columns` (which checks ids and values as
        :mod:`cranfield.io.values` does: exact str ids, finite float / int64 scores, exact int64
        relevances), or None when the core is absent or declines the dict (then the Python path
        builds the same columns or raises its error)."""
        if _dict_columns is None or type(mapping) is not dict:
            return None
        relevance = cls.value_dtype is np.int64
        out = _dict_columns.columns(mapping, relevance)
        if out is None:
            return None
        import pyarrow as pa

        qids, counts, docnos, values, qid_rows, docno_rows = out
        counts = np.frombuffer(counts, dtype=np.int64)
        table = cls(pa.chunked_array([_strings(qid_rows, int(counts.sum()), qids, counts)]),
                    pa.chunked_array([_strings(docno_rows, len(docnos), docnos)]),
                    np.frombuffer(values, dtype=np.int64 if relevance else np.float64),
                    source=f"{cls.__name__.lower()} dict", name=name, _trusted=True,
                    _query_starts=np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64))
        table.distinct_pairs = True  # distinct str keys of one dict: distinct UTF-8 ids (no lone surrogate)
        table.docno_objects = docnos
        table._query_blocks = (qids, counts)
        return table

    @classmethod
    def from_frame(cls, frame, *, qid: str = "qid", docno: str = "docno", value: str | None = None,
                   name: str | None = None):
        """From a pandas or polars DataFrame, or an Arrow table (column names are options)."""
        source = f"{cls.__name__.lower()} frame"
        cols = columns_from_frame(frame, {"qid": qid, "docno": docno, cls.value_field: value or cls.value_field},
                                  source=source)
        values = cols[cls.value_field]
        import pyarrow as pa

        if values.null_count:
            index = int(np.flatnonzero(to_numpy(values.is_null()))[0])
            raise InputError("missing value (null)", source=source, line=index + 1, field=cls.value_field)
        if not (pa.types.is_integer(values.type) or pa.types.is_floating(values.type)):
            raise InputError(f"expected numbers, found column type {values.type}", source=source, field=cls.value_field)
        return cls(cols["qid"], cols["docno"], to_numpy(values), source=source, name=name)

    # ------------------------------------------------------------------ accessors
    def __len__(self) -> int:
        chunks = self._chunks  # (read first, as in slice)
        return len(chunks) if chunks is not None else len(self._values)

    @property
    def query_ids(self) -> list[str]:
        """Distinct query ids, sorted byte-wise (trec_eval's order)."""
        import pyarrow.compute as pc

        unique = pc.unique(self.qid)
        return unique.take(pc.sort_indices(unique)).to_pylist()

    def to_dict(self) -> dict[str, dict[str, Any]]:
        """``{qid: {docno: value}}``."""
        result: dict[str, dict[str, Any]] = {}
        for q, d, v in zip(self.qid.to_pylist(), self.docno.to_pylist(), self.values.tolist()):
            result.setdefault(q, {})[d] = v
        return result

    def to_arrow(self):
        import pyarrow as pa

        return pa.table({"qid": self.qid, "docno": self.docno, self.value_field: self.values})

    def to_pandas(self):
        return self.to_arrow().to_pandas()

    def to_parquet(self, path: "str | os.PathLike", *, row_group_rows: int = 1 << 20, compression: str = "zstd") -> None:
        """Write as one Parquet file (columns ``qid``, ``docno``, ``score``/``rel``), atomically; read
        it back with ``read_run``/``read_qrels`` (see :mod:`cranfield.io.parquet`)."""
        write_parquet(self, path, row_group_rows=row_group_rows, compression=compression)

    def to_json(self, path: "str | os.PathLike") -> None:
        """Write as ranx's JSON (``{qid: {docno: value}}``), atomically; read back by
        :func:`cranfield.read_qrels` / :func:`cranfield.read_run` and ``ranx.Qrels.from_file`` /
        ``ranx.Run.from_file``."""
        write_json_mapping(self.to_dict(), path)

    def to_file(self, path: "str | os.PathLike") -> None:
        """Write in the format the file name says: ``.json`` (ranx's JSON), else TREC text."""
        if is_json_path(path):
            self.to_json(path)
        else:
            self.to_trec(path)

    @staticmethod
    def _write_lines(path: "str | os.PathLike", lines) -> None:
        """Write TREC text lines atomically (all or nothing)."""
        with atomic_write(path) as handle:
            handle.writelines(lines)

    def __repr__(self) -> str:
        name = f" {self.name!r}" if self.name else ""
        return f"<{type(self).__name__}{name}: {len(self)} rows, {len(self.query_ids)} queries, from {self.source}>"



def _strings(buffers, n: int, ids: list, repeat: np.ndarray | None = None):
    """An Arrow string array of ``n`` rows from the core's (int32 offsets, UTF-8 text) buffers, or
    of ``ids`` (each repeated ``repeat`` times) where the text passes int32 offsets (None)."""
    import pyarrow as pa

    if buffers is not None:
        offsets, text = buffers
        return pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(text))
    strings = pa.array(ids, pa.string())
    return strings if repeat is None else strings.take(pa.array(np.repeat(np.arange(len(ids)), repeat)))


def _rows_of_heads(heads, starts: np.ndarray, n: int):
    """The id of each of ``n`` rows from the id of each run of equal ids (``heads``, at ``starts``)."""
    import pyarrow as pa

    if n == 0:
        return pa.chunked_array([], type=pa.string())
    run = np.zeros(n, dtype=np.int64)
    run[starts[1:]] = 1
    np.cumsum(run, out=run)
    whole = heads.combine_chunks() if isinstance(heads, pa.ChunkedArray) else heads
    return pa.chunked_array([whole.take(indices(run))], type=pa.string())
