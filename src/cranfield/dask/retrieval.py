"""Retrieval evaluation of runs (and qrels) held as Dask DataFrames or Parquet datasets.

Strategy: every partition that holds whole queries is evaluated by the in-memory kernels (see
:mod:`cranfield.retrieval.partial`) and the per-query values are gathered and combined.

* ``partitioned="auto"`` (default): the run's partitions are first assumed to hold whole
  queries (the usual case for data written per query range or per user shard); if a query turns
  out to be in two partitions, the run is shuffled by query and evaluated again.
* ``partitioned=True``: trust the partitioning (a query in two partitions is an error);
  ``partitioned=False``: always shuffle by query first.

The shuffle is a hash partitioning of the query ids into ``npartitions`` buckets (an all-to-all
exchange of task outputs), the same for the run and, when given as a Dask DataFrame, the qrels,
so that bucket *j* of both holds the same queries (co-partitioning). In-memory qrels are prepared
once and broadcast to the workers.
"""

from __future__ import annotations

import os
from typing import Any, Sequence

import numpy as np

from .._params import check_choice, check_count
from ..errors import InputError, UsageError
from ..io.values import relevance_column
from ..measures.base import Measure
from ..retrieval._columns import columns_from_frame
from ..retrieval.evaluate import DEFAULT_MEASURES, Evaluator
from ..retrieval.partial import PieceEvaluator, combine, evaluate_piece, judged_levels, missing_piece, seen_mask
from ..retrieval.qrels import Qrels
from ..retrieval.results import Results
from ..retrieval.run import Run
from ._deps import compute, current_client, require_dask

__all__ = ["evaluate"]


def evaluate(qrels: Any, run: Any, measures: "Sequence[str | Measure] | str" = DEFAULT_MEASURES, *,
             partitioned: "bool | str" = "auto", npartitions: int | None = None, name: str | None = None,
             qid: str = "qid", docno: str = "docno", score: str = "score", rel: str = "rel", client=None,
             relevance_level: int = 1, complete: bool = False, max_results: int | None = None,
             judged_only: bool = False, collection_size: int | None = None, aggregate: str = "macro") -> Results:
    """Evaluate a distributed run; the same :class:`~cranfield.Results` as :func:`cranfield.evaluate`.

    ``run``: a Dask DataFrame with columns ``qid``, ``docno``, ``score`` (names are options), or the
    path of a Parquet file or dataset (local or on shared storage: any URL ``dask.dataframe.
    read_parquet`` reads, e.g. ``s3://bucket/run/``). ``qrels``: anything
    :func:`cranfield.read_qrels` reads (prepared once, broadcast), or a Dask DataFrame with columns
    ``qid``, ``docno``, ``rel`` (co-partitioned with the run). ``partitioned``: see the module
    docstring; ``npartitions``: buckets of the shuffle (default: the run's partitions).
    ``client``: a ``distributed.Client`` (default: the current one, else Dask's local scheduler).
    The other options are :class:`~cranfield.Evaluator`'s.
    """
    require_dask()
    check_choice(partitioned, "partitioned", ("auto", True, False))
    client = current_client(client)
    run_frame = _as_frame(run, [qid, docno, score], "run")
    run_source = str(run) if isinstance(run, (str, os.PathLike)) else "run frame"
    options = dict(relevance_level=relevance_level, complete=complete, max_results=max_results,
                   judged_only=judged_only, collection_size=collection_size, aggregate=aggregate)
    run_name = name or (os.path.basename(str(run).rstrip("/")) if isinstance(run, (str, os.PathLike)) else "run")
    columns = (qid, docno, score)
    n_out = check_count(npartitions or run_frame.npartitions, "npartitions")
    if hasattr(qrels, "to_delayed") and hasattr(qrels, "npartitions"):
        qrels_frame = _as_frame(qrels, [qid, docno, rel], "qrels")
        return _co_partitioned(qrels_frame, run_frame, measures, options, columns, (qid, docno, rel), n_out,
                               run_name, client, sources=("qrels frame", run_source))
    evaluator = Evaluator(qrels, measures, **options)
    piece_evaluator = PieceEvaluator(evaluator)
    for attempt in (1, 2):
        try:
            partials = _evaluate_pieces(piece_evaluator, run_frame, columns, partitioned, n_out, run_name, client,
                                        run_source)
            break
        except _lost_data_errors():
            # A worker died and Dask forgot a future it needed (scattered data cannot be
            # recomputed): scatter again and run the job once more; the numbers are the same.
            if attempt == 2:
                raise
    if options["complete"]:
        partials.append(missing_piece(evaluator, seen_mask(partials, evaluator)))
    return combine(evaluator, partials, run_name, source=run_name)


def _evaluate_pieces(piece_evaluator, run_frame, columns, partitioned, n_out, run_name, client, run_source) -> list:
    import dask

    shared = _share(piece_evaluator, client)
    parts = _checked_parts(run_frame, columns, "run", run_source)
    if partitioned in ("auto", True):
        pieces = [dask.delayed(_run_piece)([part], shared, columns) for part in parts]
        partials = _raise_first_bad(compute(pieces, client), {"run": run_frame}, client)
        if not _overlap(partials):
            return partials
        if partitioned is True:
            raise InputError("a query is in two partitions of the run, but partitioned=True", source=run_name)
    buckets = _hash_split(parts, columns[0], n_out)
    return _raise_first_bad(compute([dask.delayed(_run_piece)(bucket, shared, columns) for bucket in buckets], client),
                            {"run": run_frame}, client)


# ---------------------------------------------------------------------------------------- validation
class _Bad:
    """An input error found in partition ``partition`` of the ``what`` frame (row numbers local to
    the partition): passed along as a value, so that the driver can report the *first* bad row of
    the whole frame with its global row number, whatever order the workers finish in."""

    def __init__(self, what: str, partition: int, error: InputError) -> None:
        self.what, self.partition, self.error = what, partition, error

    def key(self) -> tuple:
        # qrels before the run, then columns in the order the whole-frame check takes them (qid,
        # docno, value), then rows: the error Run.from_frame / Qrels.from_frame give on all rows
        order = {"qid": 0, "docno": 1}.get(self.error.field or "", 2)
        return (self.what != "qrels", order, self.partition, self.error.line or 0)


def _first_bad(items) -> "_Bad | None":
    bad = [item for item in _flatten(items) if isinstance(item, _Bad)]
    return min(bad, key=_Bad.key) if bad else None


def _flatten(items):
    for item in items:
        if isinstance(item, (list, tuple)):
            yield from _flatten(item)
        else:
            yield item


def _checked_parts(frame, columns, what: str, source: str) -> list:
    """The partitions of ``frame`` as delayed objects, each checked by the rules of
    :mod:`cranfield.io.values` (the same as Run.from_frame / Qrels.from_frame): a partition that
    breaks them becomes a :class:`_Bad`."""
    import dask

    return [dask.delayed(_check_partition)(part, index, columns, what, source)
            for index, part in enumerate(frame.to_delayed())]


def _check_partition(frame, index: int, columns, what: str, source: str):
    qid, docno, value = columns
    role = "score" if what == "run" else "rel"
    try:
        columns_from_frame(frame, {"qid": qid, "docno": docno, role: value}, source=source)
    except InputError as error:
        return _Bad(what, index, error)
    return frame


def _raise_first_bad(results: list, frames: dict, client) -> list:
    """``results`` unless one of them is a :class:`_Bad`: then the InputError of the first bad row
    of the whole input, its row number made global by the lengths of the partitions before it
    (computed here, once, only when there is an error)."""
    bad = _first_bad(results)
    if bad is None:
        return results
    error = bad.error
    line = error.line
    if line is not None and bad.partition > 0:
        before = frames[bad.what].partitions[:bad.partition].map_partitions(len)
        lengths = before.compute(scheduler=client) if client is not None else before.compute()
        line += int(np.asarray(lengths, dtype=np.int64).sum())
    raise InputError(error.message, source=error.source, line=line, field=error.field)


def _lost_data_errors() -> tuple:
    """Errors by which Dask reports work lost with a dead worker."""
    from concurrent.futures import CancelledError

    errors: list = [CancelledError]
    try:
        from distributed.client import FutureCancelledError
        from distributed.scheduler import KilledWorker

        errors += [FutureCancelledError, KilledWorker]
    except ImportError:  # pragma: no cover - dask without distributed
        pass
    return tuple(errors)


def _as_frame(data, columns: list[str], what: str):
    """A Dask DataFrame with ``columns``, from a Dask DataFrame or a Parquet path."""
    import dask.dataframe as dd

    if isinstance(data, (str, os.PathLike)):
        return dd.read_parquet(str(data), columns=columns)
    if not hasattr(data, "to_delayed") or not hasattr(data, "columns"):
        raise UsageError(f"the {what} must be a Dask DataFrame or the path of a Parquet dataset, "
                         f"found {type(data).__name__}")
    missing = [c for c in columns if c not in data.columns]
    if missing:
        raise InputError(f"no column {missing[0]!r} (columns: {', '.join(map(str, data.columns))})",
                         source=what, field=missing[0])
    return data[columns]


def _share(evaluator, client):
    """The evaluator, broadcast to every worker once (a future) when a distributed client runs."""
    if client is None:
        import dask

        return dask.delayed(evaluator, pure=False)
    return client.scatter(evaluator, broadcast=True, hash=False)


def _overlap(partials) -> bool:
    ids = [p.query_ids for p in partials if p is not None and len(p)]
    if not ids:
        return False
    every = np.concatenate(ids)
    return np.unique(every).size != every.size


def _hash_split(parts: list, qid: str, n_out: int) -> list[list]:
    """Bucket j: the list of the pieces of every input partition (delayed, checked) whose query id
    hashes to j."""
    import dask

    if n_out == 1:
        return [list(parts)]
    split = [dask.delayed(_split, nout=n_out)(part, qid, n_out) for part in parts]
    return [[s[j] for s in split] for j in range(n_out)]  # a loop over partitions, not rows


def _split(frame, qid: str, n_out: int):
    import pandas as pd

    if isinstance(frame, _Bad):
        return (frame,) * n_out
    bucket = pd.util.hash_array(frame[qid].astype(object).to_numpy()) % np.uint64(n_out)
    order = np.argsort(bucket, kind="stable")
    bounds = np.searchsorted(bucket[order], np.arange(n_out + 1, dtype=np.uint64))
    ordered = frame.iloc[order]
    return tuple(ordered.iloc[bounds[j]:bounds[j + 1]] for j in range(n_out))


def _concat(frames):
    import pandas as pd

    frames = [f for f in frames if f is not None and (isinstance(f, _Bad) or len(f))]
    bad = _first_bad(frames)
    if bad is not None:
        return bad
    if not frames:
        return None
    return frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)


def _to_run(frame, columns):
    qid, docno, score = columns
    return Run.from_frame(frame, qid=qid, docno=docno, value=score, name="run")


def _run_piece(frames, pieces, columns):
    frame = _concat(frames)
    if frame is None or isinstance(frame, _Bad):
        return frame
    return pieces.evaluate(_to_run(frame, columns))


def _co_partitioned(qrels_frame, run_frame, measures, options, run_columns, qrels_columns, n_out, run_name,
                    client, *, sources) -> Results:
    """Qrels and run hashed into the same buckets; each bucket evaluated with its own qrels."""
    import dask

    qid, docno, rel = qrels_columns
    unique = qrels_frame[rel].unique()
    levels = _levels(unique.compute(scheduler=client) if client is not None else unique.compute())
    run_buckets = _hash_split(_checked_parts(run_frame, run_columns, "run", sources[1]), run_columns[0], n_out)
    qrels_buckets = _hash_split(_checked_parts(qrels_frame, qrels_columns, "qrels", sources[0]), qid, n_out)
    tasks = [dask.delayed(_bucket)(r, q, measures, options, run_columns, qrels_columns, levels)
             for r, q in zip(run_buckets, qrels_buckets)]
    results = _raise_first_bad(compute(tasks, client), {"run": run_frame, "qrels": qrels_frame}, client)
    partials = [p for pair in results for p in pair]
    reference = Evaluator({"q": {"d": 1}}, measures, **options)  # measures and options for combining
    return combine(reference, partials, run_name, source=run_name)


def _levels(unique) -> np.ndarray:
    """The judged levels from the distinct relevance values (values that break the rules are left
    out here: the checked partitions report them, with their rows)."""
    values = np.asarray(unique)
    try:
        return judged_levels(relevance_column(values, source="qrels"))
    except InputError:
        if values.dtype.kind not in "iuf":
            return np.zeros(0, dtype=np.int64)
        with np.errstate(invalid="ignore"):
            good = np.isfinite(values) & (values == np.floor(values)) & (values < 2.0**63) & (values >= -2.0**63)
        return judged_levels(values[good].astype(np.int64))


def _bucket(run_frames, qrels_frames, measures, options, run_columns, qrels_columns, levels):
    run_frame, qrels_frame = _concat(run_frames), _concat(qrels_frames)
    bad = _first_bad([run_frame, qrels_frame])
    if bad is not None:
        return [bad]
    if qrels_frame is None:
        return [None]
    qid, docno, rel = qrels_columns
    evaluator = Evaluator(Qrels.from_frame(qrels_frame, qid=qid, docno=docno, value=rel), measures, **options)
    piece = evaluate_piece(evaluator, _to_run(run_frame, run_columns), levels=levels) if run_frame is not None else None
    missing = missing_piece(evaluator, seen_mask([piece], evaluator), levels=levels) if options["complete"] else None
    return [piece, missing]
