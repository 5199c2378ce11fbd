"""Evaluation split by query: evaluate pieces of a run, then gather the per-query values.

Every measure's value for a query depends only on that query's rows and on the qrels, so a run
can be evaluated a piece at a time (a block of a large file, a partition of a Dask DataFrame) as
long as each query lies wholly in one piece. :func:`evaluate_piece` evaluates one piece into a
:class:`Partial` (per-query values, and the numerators/denominators of micro averages);
:func:`combine` orders the gathered values by query id (byte-wise, as the in-memory path) and
recomputes the aggregates with the same sequential sums, so the numbers are identical to
:meth:`~cranfield.Evaluator.evaluate` on the whole run.

Two measures (ERR, RBP with graded gains) use the highest relevance level of the whole qrels:
pieces evaluated against a *part* of the qrels pass the levels of the whole qrels (``levels``),
and the ranked view is widened to them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._arrow import take_sorted
from ..errors import InputError
from ..measures.condensed import view_for
from .qrels import Qrels
from .ranked import RankedView, no_common_query, prepare_qrels, query_codes
from .results import Results, aggregate, micro_aggregate
from .run import Run

__all__ = ["Partial", "PieceEvaluator", "evaluate_piece", "missing_piece", "combine", "query_codes", "judged_levels"]


@dataclass
class Partial:
    """Per-query values of the queries of one piece (``query_ids`` in any order)."""

    query_ids: np.ndarray  # object array of str
    per_query: dict[str, np.ndarray]
    micro: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    in_run: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.query_ids)


def judged_levels(rel: np.ndarray) -> np.ndarray:
    """The distinct judged relevance levels (≥ 0), ascending: the ``level_values`` of ranked views."""
    return np.unique(rel[rel >= 0]).astype(np.int64)


def _widen(view: RankedView, levels: np.ndarray | None) -> RankedView:
    """The view with ``level_values`` = ``levels`` (a superset), counts 0 at the added levels."""
    if levels is None or np.array_equal(levels, view.level_values):
        return view
    counts = np.zeros((view.n_queries, levels.size), dtype=np.int64)
    counts[:, np.searchsorted(levels, view.level_values)] = view.level_counts
    return RankedView(query_ids=view.query_ids, offsets=view.offsets, rel=view.rel, level_values=levels,
                      level_counts=counts, relevance_level=view.relevance_level, in_run=view.in_run,
                      collection_size=view.collection_size)


def _partial_from_view(evaluator, view: RankedView, extras=None) -> Partial:
    results = evaluator.results_from_view(view, "piece", evaluator.measures, extras=extras)
    micro = {}
    if evaluator.aggregate == "micro":
        missing = ~view.in_run if view.in_run is not None else np.zeros(view.n_queries, dtype=bool)
        for measure in evaluator.measures:
            if measure.family.micro is not None:
                numerator, denominator = measure.family.micro(view_for(view, measure), measure)
                micro[str(measure)] = (np.where(missing, 0.0, numerator), np.asarray(denominator, dtype=np.float64))
    in_run = view.in_run if view.in_run is not None else np.ones(view.n_queries, dtype=bool)
    return Partial(np.asarray(view.query_ids, dtype=object), results.per_query, micro, in_run)


def evaluate_piece(evaluator, run: Run, *, levels: np.ndarray | None = None,
                   complete: bool = False, extras=None, known: bool = False,
                   codes: np.ndarray | None = None) -> Partial | None:
    """Evaluate a piece of a run holding whole queries (None if no query is in the qrels).

    ``complete`` applies trec_eval's ``-c`` to this piece's qrels (use it only when the evaluator's
    qrels are the part of the qrels that goes with this piece). ``extras(view)``: more per-query
    columns read from the piece's ranked view, as :meth:`.Evaluator.evaluate` takes them; they are
    gathered by :func:`combine` with the measures' values. ``known``: the caller knows that some
    query of the piece is in the qrels (not looked up again); ``codes``: the rows' query codes
    against the evaluator's qrels, if the caller has them."""
    import pyarrow.compute as pc

    prepared = evaluator._prepared
    if len(run) == 0 or not (known or pc.any(pc.is_in(run.qid, value_set=prepared.query_index)).as_py()):
        return None
    view = evaluator.rank_run(run, complete=complete, **({} if codes is None else {"query_codes": codes}))
    return _partial_from_view(evaluator, _widen(view, levels), extras)


class PieceEvaluator:
    """Evaluate pieces against only the judgments of their own queries.

    Ranking a piece against the whole qrels costs time in proportion to the whole qrels at every
    piece; this keeps the judgments grouped by query once, and evaluates each piece with qrels
    restricted to its queries (prepared on the fly, cheap) and the levels of the whole qrels.
    """

    def __init__(self, evaluator) -> None:
        prepared = evaluator._prepared
        self.evaluator = evaluator
        self.order = np.argsort(prepared.q, kind="stable")
        if self.order.size < 2**31:  # half the memory, for qrels of tens of millions of judgments
            self.order = self.order.astype(np.int32)
        self.starts = np.searchsorted(prepared.q[self.order], np.arange(len(prepared.query_ids) + 1))
        self.levels = prepared.judged_levels()[0]
        # the stored line numbers, or None where row i is line i + 1 + offset (a qrels file read
        # whole: not held for every judgment, computed for the rows of each piece)
        self.lines = prepared.qrels._lines
        self.line_offset = prepared.qrels._line_offset

    def evaluate(self, run: Run, *, extras=None, codes: np.ndarray | None = None) -> Partial | None:
        """The piece's partial; ``codes``: its rows' query codes against the whole qrels, if known."""
        import copy

        prepared = self.evaluator._prepared
        codes = prepared.codes_of_table(run) if codes is None else codes
        present = np.unique(codes[codes >= 0])
        if present.size == 0:
            return None
        lengths = self.starts[present + 1] - self.starts[present]
        before = np.concatenate(([0], np.cumsum(lengths)[:-1]))
        # ascending rows: taken chunk by chunk (the take of a ChunkedArray would first copy every chunk)
        rows = self.order[np.repeat(self.starts[present] - before, lengths) + np.arange(int(lengths.sum()))]
        rows = np.sort(rows).astype(np.int64)
        qrels = prepared.qrels
        subset = Qrels(take_sorted(qrels.qid, rows), take_sorted(qrels.docno, rows), qrels.rel[rows],
                       source=qrels.source, _trusted=True,
                       lines=self.lines[rows] if self.lines is not None else rows + (1 + self.line_offset))
        subset.distinct_pairs = True  # rows of qrels checked whole when they were prepared
        piece_evaluator = copy.copy(self.evaluator)  # shallow: only the prepared qrels differ
        piece_evaluator._prepared = prepare_qrels(subset)
        return evaluate_piece(piece_evaluator, run, levels=self.levels, extras=extras)


def missing_piece(evaluator, seen: np.ndarray, *, levels: np.ndarray | None = None, extras=None) -> Partial | None:
    """The queries of the evaluator's qrels not in ``seen`` (bool per sorted qrels query), as
    trec_eval ``-c`` scores them: an empty ranking (every measure 0 but the number relevant).
    ``extras``: as for :func:`evaluate_piece`."""
    prepared = evaluator._prepared
    missing = ~np.asarray(seen, dtype=bool)
    if not missing.any():
        return None
    judged = prepared.rel >= 0
    level_values, code = np.unique(prepared.rel[judged], return_inverse=True)
    new_index = np.cumsum(missing) - 1
    qj = prepared.q[judged]
    sel = missing[qj]
    counts = np.zeros((int(missing.sum()), level_values.size), dtype=np.int64)
    np.add.at(counts, (new_index[qj[sel]], code.reshape(-1)[sel]), 1)
    n = counts.shape[0]
    view = RankedView(query_ids=prepared.query_ids[missing], offsets=np.zeros(n + 1, dtype=np.int64),
                      rel=np.zeros(0, dtype=np.int64), level_values=level_values.astype(np.int64),
                      level_counts=counts, relevance_level=evaluator.options["relevance_level"],
                      in_run=np.zeros(n, dtype=bool), collection_size=evaluator.options["collection_size"])
    return _partial_from_view(evaluator, _widen(view, levels), extras)


def combine(evaluator, partials: list[Partial | None], run_name: str, *, source: str = "run") -> Results:
    """Gather pieces into :class:`~cranfield.Results` identical to the in-memory evaluation.

    A query found in two pieces is an error (the pieces were not split by query). Columns of the
    pieces other than the measures (``extras``) are gathered too, without aggregates."""
    import pyarrow as pa
    import pyarrow.compute as pc

    partials = [p for p in partials if p is not None and len(p)]
    if not any(p.in_run is None or p.in_run.any() for p in partials):  # (the queries -c adds are not in the run)
        raise no_common_query(evaluator._prepared.query_ids, source)
    query_ids = np.concatenate([p.query_ids for p in partials])
    arrow_ids = pa.array(query_ids.tolist(), type=pa.string())
    order = pc.sort_indices(arrow_ids).to_numpy()
    query_ids = query_ids[order]
    if query_ids.size > 1:
        same = np.flatnonzero(query_ids[1:] == query_ids[:-1])
        if same.size:
            raise InputError(f"query {query_ids[same[0]]!r} is in two pieces of the run; the pieces must hold "
                             "whole queries (partition the run by query)", source=source)
    in_run = np.concatenate([p.in_run for p in partials])[order]
    n = query_ids.size
    per_query, means = {}, {}
    for measure in evaluator.measures:
        key = str(measure)
        values = np.concatenate([p.per_query[key] for p in partials])[order]
        per_query[key] = values
        if evaluator.aggregate == "micro" and measure.family.micro is not None:
            numerator = np.concatenate([p.micro[key][0] for p in partials])[order]
            denominator = np.concatenate([p.micro[key][1] for p in partials])[order]
            means[key] = micro_aggregate(numerator, denominator)
        else:
            means[key] = aggregate(values, measure.family.aggregate, n)
    return Results(run_name=run_name, measures=tuple(evaluator.measures), query_ids=query_ids,
                   per_query=per_query | _gathered_extras(partials, per_query, order),
                   mean=means, settings=evaluator.settings(), in_run=in_run)


def _gathered_extras(partials: list[Partial], measures: dict, order: np.ndarray) -> dict[str, np.ndarray]:
    """The pieces' columns that are not measures, concatenated and put in query order."""
    names = [name for name in partials[0].per_query if name not in measures]
    return {name: np.concatenate([p.per_query[name] for p in partials])[order] for name in names}


def seen_mask(partials: list[Partial | None], evaluator) -> np.ndarray:
    """Bool per sorted qrels query: evaluated in one of the pieces."""
    import pyarrow as pa

    seen = np.zeros(len(evaluator._prepared.query_ids), dtype=bool)
    for p in partials:
        if p is not None and len(p):
            seen[query_codes(pa.array(p.query_ids.tolist(), type=pa.string()), evaluator._prepared.query_index)] = True
    return seen
