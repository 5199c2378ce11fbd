"""Runs and qrels as Parquet files or datasets: columns ``qid``, ``docno`` and ``score`` (runs)
or ``rel`` (qrels).

A Parquet *dataset* is a directory of Parquet files (any partitioning, hive-style included:
``qid=…`` folders give back the ``qid`` column). Parquet keeps the types, reads a column at a time
and compresses well: a 10M-line run takes ~60 MB instead of ~370 MB of text, and is read in a
fraction of the time. The run's name is kept in the file's metadata (``cranfield.name``).

    >>> import cranfield, tempfile, os
    >>> run = cranfield.Run.from_dict({"q1": {"d1": 2.0, "d2": 1.0}}, name="bm25")
    >>> path = os.path.join(tempfile.mkdtemp(), "bm25.parquet")
    >>> run.to_parquet(path)
    >>> back = cranfield.read_run(path)
    >>> back.name, len(back)
    ('bm25', 2)
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import numpy as np

from ..errors import InputError
from .atomic import atomic_write
from .trec import TrecColumns
from .value_chunks import ValueChunks
from .values import id_column, value_column

__all__ = ["is_parquet", "write_parquet", "read_parquet_columns", "iter_parquet_batches", "VALUE_COLUMNS",
           "NAME_KEY"]

VALUE_COLUMNS = {"run": "score", "qrels": "rel"}
NAME_KEY = b"cranfield.name"
_SUFFIXES = (".parquet", ".pq", ".parq")


def is_parquet(path: "str | os.PathLike") -> bool:
    """True for a file named ``.parquet`` (``.pq``, ``.parq``) or a directory holding such files
    (a dataset). Decided by the name only: the file is never opened here (a FIFO or a pipe must be
    read once, by its reader), and a sniffed format never changes how data is read — Parquet bytes
    under another name reach the text reader, which says so (:func:`cranfield.io.sources.open_input`)."""
    import stat

    if hasattr(path, "read") or str(path) == "-":
        return False
    p = Path(path)
    try:
        mode = p.stat().st_mode
    except (OSError, ValueError):
        return p.suffix.lower() in _SUFFIXES  # a missing x.parquet: the Parquet reader names it
    if stat.S_ISDIR(mode):
        return any(child.suffix.lower() in _SUFFIXES for child in p.rglob("*") if child.is_file())
    return stat.S_ISREG(mode) and p.suffix.lower() in _SUFFIXES


def _dataset(path, source: str):
    import pyarrow as pa
    import pyarrow.dataset as ds

    if not Path(path).exists():
        raise InputError("no such file or directory", source=source)
    folder = Path(path).is_dir()
    if folder:
        _only_parquet(Path(path), source)
    try:
        return ds.dataset(str(path), format="parquet", partitioning="hive")
    except (pa.ArrowException, OSError) as error:
        what = "a directory read as a Parquet dataset, and one of its files" if folder else "not a readable Parquet file"
        reason = _first_line(error).replace(str(path).rstrip("/") + "/", "")  # the directory is the source
        raise InputError(f"{what} cannot be read ({reason})" if folder else f"{what} ({reason})", source=source) \
            from None


def _only_parquet(folder: Path, source: str) -> None:
    """A directory is a dataset of Parquet files only (Arrow skips names starting '.' or '_')."""
    for child in sorted(folder.rglob("*")):
        relative = child.relative_to(folder)
        if child.is_file() and child.suffix.lower() not in _SUFFIXES and \
                not any(part.startswith((".", "_")) for part in relative.parts):
            raise InputError(f"a directory holding {str(relative)!r}, which is not a Parquet file; expected a file, "
                             "or a directory of Parquet files only (a dataset)", source=source)


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _check_columns(dataset, kind: str, source: str) -> list[str]:
    wanted = ["qid", "docno", VALUE_COLUMNS[kind]]
    missing = [c for c in wanted if c not in dataset.schema.names]
    if missing:
        raise InputError(f"no column {missing[0]!r} (columns: {', '.join(dataset.schema.names)}); expected "
                         f"columns {', '.join(wanted)}", source=source, field=missing[0])
    return wanted


def _stored_name(dataset) -> str | None:
    metadata = dataset.schema.metadata or {}
    name = metadata.get(NAME_KEY)
    return name.decode("utf-8", "replace") if name else None


def _checked(qid, docno, value, kind: str, source: str, first_row: int):
    """The three columns of rows ``first_row…`` checked by the one rule for ids and values
    (:mod:`cranfield.io.values`), the same as frames, dicts and Dask partitions; errors name the
    global 1-based row."""
    field = VALUE_COLUMNS[kind]
    qid = id_column(qid, source=source, field="qid", first_row=first_row)
    docno = id_column(docno, source=source, field="docno", first_row=first_row)
    values = value_column(value, kind=kind, source=source, field=field, first_row=first_row)
    return qid, docno, values


def read_parquet_columns(path: "str | os.PathLike", *, kind: str):
    """Read a Parquet file or dataset into :class:`~cranfield.io.trec.TrecColumns` (``line`` is
    None: the row number stands for the line; ``tag`` is the stored run name, if any).

    Values follow :mod:`cranfield.io.values`: scores are finite float64, relevance an integer
    within int64 (uint64 2⁶⁴−1 or 2.5 is an error, not −1 or 2), ids are non-empty text without
    blanks; the first bad row is named by its 1-based row number over the whole dataset."""
    import pyarrow as pa

    source = str(path)
    dataset = _dataset(path, source)
    columns = _check_columns(dataset, kind, source)
    try:
        table = dataset.to_table(columns=columns)
    except (pa.ArrowException, OSError) as error:
        raise InputError(f"cannot read Parquet data ({_first_line(error)})", source=source) from None
    qid, docno, value = _checked(table.column("qid"), table.column("docno"), table.column(columns[2]), kind, source,
                                 first_row=1)
    return TrecColumns(qid=qid, docno=docno, chunks=ValueChunks([value]), line=None, tag=_stored_name(dataset),
                       source=source)


def iter_parquet_batches(path: "str | os.PathLike", *, kind: str, batch_rows: int = 1 << 20
                         ) -> Iterator[tuple[object, object, np.ndarray, int]]:
    """Yield ``(qid, docno, values, first_row)`` blocks of a Parquet file or dataset, in file order,
    about ``batch_rows`` rows each (``first_row``: 1-based row number of the block's first row,
    counted over the whole dataset). Every block is checked as :func:`read_parquet_columns` checks
    the whole table, so an error names the same row on both paths."""
    import pyarrow as pa

    source = str(path)
    dataset = _dataset(path, source)
    columns = _check_columns(dataset, kind, source)
    first = 1
    batches = iter(dataset.to_batches(columns=columns, batch_size=batch_rows, use_threads=True))
    while True:
        try:
            batch = next(batches)
        except StopIteration:
            return
        except (pa.ArrowException, OSError) as error:
            raise InputError(f"cannot read Parquet data after row {first - 1} ({_first_line(error)})",
                             source=source) from None
        if batch.num_rows == 0:
            continue
        qid, docno, values = _checked(batch.column("qid"), batch.column("docno"), batch.column(columns[2]), kind,
                                      source, first_row=first)
        yield qid.chunk(0) if qid.num_chunks == 1 else qid.combine_chunks(), \
            docno.chunk(0) if docno.num_chunks == 1 else docno.combine_chunks(), values, first
        first += batch.num_rows


def count_rows(path: "str | os.PathLike", *, kind: str) -> int:
    """Number of rows of a Parquet file or dataset, from its metadata."""
    import pyarrow as pa

    source = str(path)
    try:
        return _dataset(path, source).count_rows()
    except (pa.ArrowException, OSError) as error:
        raise InputError(f"cannot read Parquet metadata ({_first_line(error)})", source=source) from None


def write_parquet(table, path: "str | os.PathLike", *, row_group_rows: int = 1 << 20,
                  compression: str = "zstd") -> None:
    """Write a :class:`~cranfield.Run` or :class:`~cranfield.Qrels` as one Parquet file, atomically
    (columns ``qid``, ``docno``, ``score``/``rel``; the run's name in the metadata)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrow = table.to_arrow()
    if getattr(table, "name", None):
        arrow = arrow.replace_schema_metadata({NAME_KEY: str(table.name).encode("utf-8")})
    with atomic_write(path, mode="wb", encoding=None) as handle:
        pq.write_table(arrow, pa.PythonFile(handle, mode="w"), row_group_size=row_group_rows,
                       compression=compression)
