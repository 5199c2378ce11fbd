"""Evaluate a large run on several cores: split it at query boundaries, rank and measure each
part in its own thread, and merge the per-query values.

numpy and Arrow release the GIL in their loops, so threads give a near-linear speed-up on the
ranking and the measures. Every measure of a query depends only on that query's documents, so
the merged per-query values are those of the single-threaded path, bit for bit; aggregates are
recomputed from them in the same order.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .._arrow import compute, release_unused_memory
from .._threads import available_threads
from .ranked import no_common_query
from .results import Results, aggregate

__all__ = ["available_threads", "split_run", "evaluate_parallel", "MIN_ROWS"]

MIN_ROWS = 1_000_000  # smaller runs are evaluated in one thread
PART_ROWS = 250_000  # rows per part (about): temporaries small enough to stay in cache and be reused
#: rows of the parts evaluated at once, all threads together: the temporaries (about 150 bytes a row)
#: of the parts in flight stay under a fixed budget, whatever the number of threads
IN_FLIGHT_ROWS = 2_000_000


def split_run(run, parts: int):
    """The run cut into about ``parts`` slices of whole queries (at most one a query), or None if
    its queries are not each in one block (then it is evaluated in one piece)."""
    n = len(run)
    starts = run.query_starts()
    if len(compute("unique", run.query_heads())) != starts.size:
        return None
    parts = min(parts, starts.size)
    cuts = [0]
    for i in range(1, parts):
        position = int(np.searchsorted(starts, i * n // parts))
        if position < starts.size and starts[position] > cuts[-1]:
            cuts.append(int(starts[position]))
    cuts.append(n)
    return [run.slice(a, b) for a, b in zip(cuts[:-1], cuts[1:]) if b > a]


def evaluate_parallel(evaluator, run, run_name: str, threads: int, *, extras=None) -> Results | None:
    """Results of ``evaluator`` on ``run`` computed by ``threads`` threads, or None when the
    run is not suited (not grouped by query). ``extras``: see :meth:`.Evaluator.evaluate`."""
    # more parts than threads (at least 4 a thread): each part's temporaries are smaller, so the
    # peak memory is lower (1M rows, 2 threads, all_trec: 204 MB with 4 parts, 179 MB with 8); a
    # multiple of the threads, so that they finish together. From 8 threads on, parts grow with
    # the threads: the ~100 numpy calls per part hold the GIL between them, and with many threads
    # small parts spend their time waiting for it (measured: benchmarks/phases_trec_eval.py); but
    # the threads' parts together stay within IN_FLIGHT_ROWS (the memory does not grow with them)
    rows = min(PART_ROWS * max(1, threads // 4), IN_FLIGHT_ROWS // threads)
    parts = split_run(run, threads * max(4, -(-len(run) // (rows * threads))))
    if parts is None or len(parts) < 2:
        return None
    prepared = evaluator._prepared
    prepared.join_index()  # build the shared judgment index once, before the threads
    prepared.level_counts()

    def work(part):  # memory freed by a part is reused by the next: released once, at the end
        codes = prepared.codes_of_table(part)
        if not (codes[part.query_starts()] >= 0).any():  # none of its queries judged: it adds nothing
            return None
        view = evaluator.rank_run(part, query_codes=codes)
        return evaluator.results_from_view(view, run_name, evaluator.measures, extras=extras)

    if threads > 1:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            pieces = list(pool.map(work, parts))
    else:  # one thread: part after part, for the memory (each part's temporaries are reused)
        pieces = [work(part) for part in parts]
    release_unused_memory()
    pieces = [piece for piece in pieces if piece is not None]
    if not pieces:  # the error of the run in one piece
        raise no_common_query(prepared.query_ids, run.source)
    position = {qid: i for i, qid in enumerate(prepared.query_ids.tolist())}
    query_ids = np.concatenate([p.query_ids for p in pieces])
    order = np.argsort(np.array([position[q] for q in query_ids.tolist()]), kind="stable")
    query_ids = query_ids[order]
    per_query = {name: np.concatenate([p.per_query[name] for p in pieces])[order] for name in pieces[0].per_query}
    means = {str(m): aggregate(per_query[str(m)], m.family.aggregate, query_ids.size) for m in evaluator.measures}
    in_run = np.concatenate([p.in_run for p in pieces])[order] if pieces[0].in_run is not None else None
    return Results(run_name=run_name, measures=tuple(evaluator.measures), query_ids=query_ids, per_query=per_query,
                   mean=means, settings=dict(pieces[0].settings), in_run=in_run)
