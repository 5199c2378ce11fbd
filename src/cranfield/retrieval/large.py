"""Evaluate runs too large for memory: read in blocks, evaluate whole queries per block.

:func:`evaluate_large` reads a run file (TREC text, gzip, Parquet file or dataset) in blocks of
about ``batch_rows`` rows and evaluates the complete queries of each block; the query that spans
a block boundary is carried to the next block. Runs are nearly always grouped by query (every
query's lines together); if one is not, this is noticed on the fly (a query id comes back after
another one), and the run is first partitioned by query into temporary Parquet files (ranges of
the sorted qrels query ids), which are then evaluated one by one. Rows of queries absent from the
qrels are dropped early, as the in-memory path ignores them.

The per-query values and the aggregates are identical to :meth:`cranfield.Evaluator.evaluate`
(see :mod:`cranfield.retrieval.partial`); memory is bounded by a block, the qrels and the
per-query values, whatever the size of the run.

>>> import cranfield, tempfile, os
>>> folder = tempfile.mkdtemp()
>>> cranfield.Run.from_dict({"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d3": 1.0}}).to_trec(os.path.join(folder, "r"))
>>> qrels = {"q1": {"d1": 1}, "q2": {"d4": 1}}
>>> evaluate_large(qrels, os.path.join(folder, "r"), ["AP"], batch_rows=1).mean["AP"]
0.5
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Sequence

import numpy as np

from ..errors import InputError, UsageError
from .._arrow import release_unused_memory
from .._threads import available_threads
from ..io.blocks import Block, input_size, iter_run_blocks
from ..io.parquet import NAME_KEY, is_parquet
from ..io.trec import iter_parsed
from ..io.trec_grammar import check_dialect
from ..measures.base import Measure
from .evaluate import DEFAULT_MEASURES, Evaluator
from ._segments import run_starts
from .doc_join import native_index
from .partial import Partial, PieceEvaluator, combine, evaluate_piece, missing_piece, seen_mask
from .results import Results
from .run import Run

__all__ = ["evaluate_large", "evaluate_path", "use_low_memory", "block_rows", "LOW_MEMORY_BYTES", "BLOCK_ROWS"]

#: `cranfield evaluate` switches to the block-wise path for run files above this size (text bytes)
LOW_MEMORY_BYTES = 1 << 30


class _NotGrouped(Exception):
    """A query id came back after another one: the run is not grouped by query."""


def evaluate_large(qrels, run: "str | os.PathLike", measures: "Sequence[str | Measure] | str" = DEFAULT_MEASURES, *,
                   batch_rows: int | None = None, progress: bool = False, tmp_dir: "str | os.PathLike | None" = None,
                   name: str | None = None, relevance_level: int = 1, complete: bool = False,
                   max_results: int | None = None, judged_only: bool = False, collection_size: int | None = None,
                   aggregate: str = "macro", dialect: str = "cranfield") -> Results:
    """Evaluate a run file of any size in bounded memory; the same results as :func:`cranfield.evaluate`.

    ``batch_rows``: rows per block, each thread evaluating one block at a time (memory grows with
    it: about 150 bytes per row; default :func:`block_rows`, a thread's share of a fixed budget); ``progress``:
    a progress bar on standard error (on a terminal); ``tmp_dir``: where a run that is not grouped
    by query is partitioned (default: the system's temporary folder; about 15 bytes per row);
    ``dialect``: of the TREC text run (see :mod:`cranfield.io.trec_grammar`).
    The other options are :class:`~cranfield.Evaluator`'s.
    """
    evaluator = Evaluator(qrels, measures, relevance_level=relevance_level, complete=complete,
                          max_results=max_results, judged_only=judged_only, collection_size=collection_size,
                          aggregate=aggregate)
    return evaluate_path(evaluator, run, batch_rows=batch_rows, progress=progress, tmp_dir=tmp_dir, name=name,
                         dialect=dialect)


def evaluate_path(evaluator: Evaluator, path: "str | os.PathLike", *, batch_rows: int | None = None,
                  progress: bool = False, tmp_dir: "str | os.PathLike | None" = None,
                  name: str | None = None, dialect: str = "cranfield", extras=None) -> Results:
    """:func:`evaluate_large` with an existing :class:`~cranfield.Evaluator` (qrels prepared once).

    ``batch_rows``: default :func:`block_rows`. ``extras(view)``: more per-query columns read from
    each piece's ranked view, as :meth:`~cranfield.Evaluator.evaluate` takes them."""
    check_dialect(dialect)
    batch_rows = block_rows() if batch_rows is None else batch_rows
    if batch_rows < 1:
        raise UsageError(f"batch_rows must be ≥ 1, found {batch_rows}")
    with _Progress(path, enabled=progress) as bar:
        try:
            partials = _grouped(evaluator, path, batch_rows, dialect, bar, extras)
        except _NotGrouped:
            bar.restart("partitioning by query")
            partials = _partitioned(evaluator, path, batch_rows, dialect, bar, tmp_dir, extras)
    if evaluator.options["complete"]:
        partials.append(missing_piece(evaluator, seen_mask(partials, evaluator), extras=extras))
    return combine(evaluator, partials, name or _default_name(path, dialect), source=str(path))


#: environment variable: rows evaluated at once (see :data:`BLOCK_ROWS`); when set, every run file is
#: read block-wise
BLOCK_ROWS_VARIABLE = "CRANFIELD_BLOCK_ROWS"
#: rows evaluated at once by default, all threads together (the evaluation temporaries of a row: about
#: 150 bytes): each thread's blocks are a share of it, so the memory does not grow with the threads
BLOCK_ROWS = 1 << 19
MIN_BLOCK_ROWS = 1 << 16  # by default a thread's share is at least this: smaller pieces cost more than they save


def _forced() -> bool:
    value = os.environ.get(BLOCK_ROWS_VARIABLE, "")
    return value.isdigit() and int(value) > 0


def block_rows() -> int:
    """Rows per block: a thread's share of :data:`BLOCK_ROWS` (or of ``CRANFIELD_BLOCK_ROWS`` when set
    to a positive integer); each of :func:`~cranfield._threads.available_threads` threads evaluates
    one block (and the query it ends with) at a time."""
    threads = available_threads()
    if _forced():
        return max(1, int(os.environ[BLOCK_ROWS_VARIABLE]) // threads)
    return max(MIN_BLOCK_ROWS, BLOCK_ROWS // threads)


def use_low_memory(run: "str | os.PathLike", requested: bool = False) -> bool:
    """Whether ``cranfield evaluate`` and ``cranfield trec_eval`` read ``run`` block-wise: asked for
    (``requested``, or ``CRANFIELD_BLOCK_ROWS`` set), or a file (not '-') larger than
    :data:`LOW_MEMORY_BYTES` (a Parquet dataset: over 1/8 of that, compressed)."""
    if str(run) == "-" or not isinstance(run, (str, os.PathLike)):
        return False
    if requested or _forced():
        return True
    path = Path(str(run))
    if path.is_dir():
        size = sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
        return size * 8 > LOW_MEMORY_BYTES
    return path.is_file() and path.stat().st_size > LOW_MEMORY_BYTES


def _default_name(path, dialect: str = "cranfield") -> str:
    if is_parquet(path):
        import pyarrow.dataset as ds

        metadata = ds.dataset(str(path), format="parquet", partitioning="hive").schema.metadata or {}
        if metadata.get(NAME_KEY):
            return metadata[NAME_KEY].decode("utf-8", "replace")
        return Path(str(path)).name
    # the tag of the first run line, as read_run names a run (read by the grammar, first block only)
    for parsed in iter_parsed(path, "run", dialect=dialect, chunk_bytes=1 << 16):
        return parsed.tag or Path(str(path)).name
    return Path(str(path)).name  # pragma: no cover - iter_parsed raises on a file without rows


#: smallest text block of the block-wise reader (bytes); tests set it tiny to cross block edges
MIN_BLOCK_BYTES = 1 << 16
#: bytes of text read ahead, all reading threads together: each thread's block is a share of it, so
#: the memory of the reader does not grow with the threads
READ_AHEAD_BYTES = 1 << 26
BYTES_PER_ROW = 40  # about, in TREC run text: text blocks of batch_rows rows


def _blocks(path, batch_rows: int, dialect: str):
    """The run's blocks, each cut into slices of at most ``batch_rows`` rows (no copy).

    The reader parses up to threads + 1 text blocks ahead (:func:`cranfield.io.trec.iter_parsed`):
    a block is :data:`READ_AHEAD_BYTES` / (threads + 2), so that what is read ahead is bounded
    whatever the number of threads."""
    share = READ_AHEAD_BYTES // (available_threads() + 2)
    block_bytes = max(MIN_BLOCK_BYTES, min(batch_rows * BYTES_PER_ROW, share))
    for block in iter_run_blocks(path, block_bytes=block_bytes, batch_rows=batch_rows, dialect=dialect):
        if len(block) <= batch_rows:
            yield block
            continue
        lines = block.line_numbers()
        for start in range(0, len(block), batch_rows):  # a loop over slices of a block, not rows
            stop = min(len(block), start + batch_rows)
            yield Block(block.qid.slice(start, stop - start), block.docno.slice(start, stop - start),
                        block.score[start:stop], lines[start:stop], block.first + start,
                        block.position, block.tag, _sliced_starts(block.query_starts, start, stop))


def _sliced_starts(starts: "np.ndarray | None", start: int, stop: int) -> "np.ndarray | None":
    """The query starts of rows ``start:stop`` of a block whose starts are ``starts`` (its first
    row starts a run of equal ids, whether or not a query starts there)."""
    if starts is None:
        return None
    inside = starts[(starts > start) & (starts < stop)] - start
    return np.concatenate(([0], inside)).astype(np.int64, copy=False)


def _run_of(qid, docno, score, lines, codes, source: str) -> tuple[Run, np.ndarray]:
    """A piece as a Run, its query starts from the rows' query codes (not from the id strings), and
    those codes."""
    return Run(qid, docno, score, source=source, lines=lines, _trusted=True, _query_starts=run_starts(codes)), codes


def _grouped(evaluator: Evaluator, path, batch_rows: int, dialect: str, bar, extras=None) -> list[Partial | None]:
    """One pass over a run grouped by query; raises _NotGrouped as soon as it is seen not to be.

    Each block's rows up to its last query are evaluated together with the query carried from
    the previous block; the last query is carried (it may go on in the next block): a piece
    evaluated holds at most ``batch_rows`` rows plus those of one query."""
    with _Pieces(_piece_evaluator(evaluator), extras, available_threads()) as pieces:
        _pieces_of_grouped(evaluator._prepared, _blocks(path, batch_rows, dialect), pieces, str(path), bar)
        return pieces.finish()


class _IndexedPieces:
    """Pieces ranked against the whole qrels' compiled judgment index, as the in-memory path ranks
    its parts: one hash lookup a row, whatever the size of the qrels."""

    def __init__(self, evaluator: Evaluator) -> None:
        self.evaluator = evaluator

    def evaluate(self, run: Run, *, extras=None, codes: np.ndarray | None = None) -> Partial | None:
        # pieces hold judged queries, their codes found when their block was read
        return evaluate_piece(self.evaluator, run, extras=extras, known=True, codes=codes)


def _piece_evaluator(evaluator: Evaluator):
    """What ranks the pieces: the whole-qrels compiled index where it is built (the duplicate check
    built it); else each piece against its own queries' judgments (:class:`PieceEvaluator`: the
    other whole-qrels indexes cost time in proportion to the qrels at every piece), the
    whole-qrels indexes then released (about 50 bytes a judgment)."""
    if native_index(evaluator._prepared) is not None:
        return _IndexedPieces(evaluator)
    evaluator._prepared.release_index()
    release_unused_memory()
    return PieceEvaluator(evaluator)


def _pieces_of_grouped(prepared, blocks, pieces: "_Pieces", source: str, bar) -> None:
    """Hand the whole queries of each block to ``pieces`` (see :func:`_grouped`)."""
    import pyarrow as pa

    seen = np.zeros(len(prepared.query_ids), dtype=bool)
    carry = None  # (qid, docno, score, lines, query codes) of the last query of the previous block
    carry_code = -1
    for block in blocks:
        codes = prepared.codes_of(block.qid, block.query_starts)
        lines = block.line_numbers()
        starts = run_starts(codes)
        heads = codes[starts]
        continues = carry is not None and heads[0] == carry_code
        check = heads[1:] if continues else heads
        check = check[check >= 0]
        if seen[check].any() or np.unique(check).size != check.size:
            raise _NotGrouped
        seen[check] = True
        last, tail_code = int(starts[-1]), int(heads[-1])
        tail = (block.qid.slice(last), block.docno.slice(last), block.score[last:], lines[last:], codes[last:])
        if continues and last == 0:  # the whole block goes on with the carried query
            carry = _concat([carry, tail])
            bar.advance(block.position)
            continue
        done = [carry] if carry is not None else []
        take = np.flatnonzero(codes[:last] >= 0)
        if take.size == last:  # every query judged (the usual case): slices, no copy
            done.append((block.qid.slice(0, last), block.docno.slice(0, last), block.score[:last], lines[:last],
                         codes[:last]))
        elif take.size:
            index = pa.array(take)
            done.append((block.qid.take(index), block.docno.take(index), block.score[take], lines[take], codes[take]))
        if done:
            pieces.add(*_run_of(*_concat(done), source))
        carry, carry_code = (tail, tail_code) if tail_code >= 0 else (None, -1)
        bar.advance(block.position)
    if carry is not None:
        pieces.add(*_run_of(*_concat([carry]), source))


class _Pieces:
    """Evaluates pieces in ``threads`` threads, at most ``threads`` pieces at once (the reader
    goes on with the next block meanwhile); their partials are gathered in any order (:func:`combine`
    orders the queries). An input error found while evaluating (a duplicate document) is raised
    only after the whole file was read, so that a bad line further down wins, as when the whole
    file is read first; of two such errors, that of the piece earlier in the file."""

    def __init__(self, evaluator, extras=None, threads: int = 1) -> None:
        from collections import deque
        from concurrent.futures import ThreadPoolExecutor

        self.evaluator = evaluator
        self.extras = extras
        self.threads = threads
        self.pool = ThreadPoolExecutor(threads) if threads > 1 else None
        self.running: deque = deque()
        self.partials: list[Partial | None] = []
        self.pending: InputError | None = None

    def add(self, run: Run, codes: np.ndarray | None = None) -> None:
        """Evaluate ``run`` (with its rows' query codes, if known) in a thread."""
        if self.pending is not None:
            return
        known = {} if codes is None else {"codes": codes}
        if self.pool is None:
            self._gather(lambda: self.evaluator.evaluate(run, extras=self.extras, **known))
            return
        while len(self.running) >= self.threads:
            self._gather(self.running.popleft().result)
        self.running.append(self.pool.submit(self.evaluator.evaluate, run, extras=self.extras, **known))

    def _gather(self, result) -> None:
        try:
            self.partials.append(result())
        except InputError as error:
            self.pending = self.pending or error

    def finish(self) -> list[Partial | None]:
        """The partials of every piece, once all are evaluated (or the first input error)."""
        while self.running:
            self._gather(self.running.popleft().result)
        if self.pending is not None:
            raise self.pending
        return self.partials

    def __enter__(self) -> "_Pieces":
        return self

    def __exit__(self, *exc) -> None:
        if self.pool is not None:
            for future in self.running:
                future.cancel()
            self.pool.shutdown(wait=True)


def _concat(pieces):
    import pyarrow as pa

    def strings(arrays):
        chunks = []
        for a in arrays:
            chunks.extend(a.chunks if isinstance(a, pa.ChunkedArray) else [a])
        return pa.chunked_array(chunks, type=pa.string())

    return (strings([p[0] for p in pieces]), strings([p[1] for p in pieces]),
            *(np.concatenate([p[i] for p in pieces]) for i in (2, 3, 4)))


def _partitioned(evaluator: Evaluator, path, batch_rows: int, dialect: str, bar, tmp_dir,
                 extras=None) -> list[Partial | None]:
    """Partition the run by ranges of the sorted qrels query ids into temporary Parquet files,
    then evaluate each file (every query wholly in one)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    prepared = evaluator._prepared
    n_queries = len(prepared.query_ids)
    schema = pa.schema([("qid", pa.string()), ("docno", pa.string()), ("score", pa.float64()), ("line", pa.int64())])
    source = str(path)
    with tempfile.TemporaryDirectory(prefix="cranfield-", dir=tmp_dir) as folder:
        writers: dict[int, object] = {}
        n_parts = None
        try:
            for block in _blocks(path, batch_rows, dialect):
                if n_parts is None:  # about batch_rows rows per part, from the first block's density
                    n_parts = _n_parts(path, block, batch_rows, n_queries)
                codes = prepared.codes_of(block.qid)
                keep = np.flatnonzero(codes >= 0)
                part = codes[keep] * n_parts // n_queries
                order = keep[np.argsort(part, kind="stable")]
                part = np.sort(part, kind="stable")
                bounds = np.flatnonzero(np.r_[True, part[1:] != part[:-1], True]) if part.size else []
                table = pa.table({"qid": block.qid, "docno": block.docno, "score": block.score,
                                  "line": block.line_numbers()}, schema=schema).take(pa.array(order))
                for a, b in zip(bounds[:-1], bounds[1:]):  # a loop over parts, not rows
                    p = int(part[a])
                    if p not in writers:
                        writers[p] = pq.ParquetWriter(os.path.join(folder, f"part-{p:05d}.parquet"), schema,
                                                      compression="lz4")
                    writers[p].write_table(table.slice(int(a), int(b - a)))
                bar.advance(block.position)
        finally:
            for writer in writers.values():
                writer.close()
        bar.restart("evaluating parts", total=len(writers), unit="parts")
        with _Pieces(_piece_evaluator(evaluator), extras, available_threads()) as pieces:
            for i, p in enumerate(sorted(writers)):
                table = pq.read_table(os.path.join(folder, f"part-{p:05d}.parquet"))
                pieces.add(Run(table.column("qid"), table.column("docno"), table.column("score").to_numpy(),
                               source=source, lines=table.column("line").to_numpy(), _trusted=True))
                del table
                bar.advance(i + 1)
            return pieces.finish()


def _n_parts(path, block, batch_rows: int, n_queries: int) -> int:
    """Parts of about ``batch_rows`` rows: the rows of a text file estimated from its size and the
    bytes of the first block's ids (plus a short rest of line: more rows, smaller parts, if anything)."""
    import pyarrow.compute as pc

    total, unit = input_size(path)
    if unit != "rows":
        ids = sum(pc.sum(pc.binary_length(a)).as_py() or 0 for a in (block.qid, block.docno)) / max(len(block), 1)
        total = total / (ids + SHORTEST_REST_OF_LINE)
    return int(max(1, min(n_queries, 4096, np.ceil(total / batch_rows))))


SHORTEST_REST_OF_LINE = 16  # bytes of a run line besides its ids: " Q0 ", " 1 0.5 t" and the newline


class _Progress:
    """A rich progress bar on standard error (bytes or rows of the input); silent off a terminal."""

    def __init__(self, path, *, enabled: bool) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self.path = path
        self._progress = None
        self._task = None

    def __enter__(self) -> "_Progress":
        if not self.enabled:
            return self
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn, \
            TimeRemainingColumn

        total, self.unit = input_size(self.path)
        self._progress = Progress(TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(),
                                  TimeElapsedColumn(), TimeRemainingColumn(), console=Console(stderr=True),
                                  transient=True)
        self._progress.__enter__()
        self._task = self._progress.add_task(f"evaluating {Path(str(self.path)).name}", total=total)
        return self

    def advance(self, position: int) -> None:
        if self._progress is not None:
            self._progress.update(self._task, completed=position)

    def restart(self, description: str | None = None, *, total: int | None = None, unit: str | None = None) -> None:
        if self._progress is not None:
            fields = {"completed": 0}
            if description:
                fields["description"] = description
            if total is not None:
                fields["total"] = total
            self._progress.update(self._task, **fields)

    def __exit__(self, *exc) -> None:
        if self._progress is not None:
            self._progress.__exit__(*exc)
