"""``evaluate`` and ``Evaluator``: qrels prepared once, any number of runs and measures."""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

from .._params import Count, Interval, Optional, check_choice
from .._arrow import release_unused_memory
from ..errors import UsageError
from ..io.ecosystem import with_columns
from ..measures.base import Measure, parse_measures
from ..measures.condensed import view_for
from .qrels import Qrels, read_qrels
from .ranked import RankedView, prepare_qrels, rank, rank_dict
from .results import Results, aggregate, micro_aggregate
from .run import drop_self, read_run
from . import parallel  # its settings looked up when called (the tests lower them)
from .parallel import available_threads

__all__ = ["evaluate", "evaluate_runs", "prepare_and_read", "Evaluator", "DEFAULT_MEASURES"]

DEFAULT_MEASURES = ("AP", "nDCG@10", "P@10", "R@1000", "RR", "RPrec")


# trec_eval's -l (a whole level that int64 judgments can hold) and -M / -N (whole counts)
_LEVEL = Interval(None, 2**63 - 1, integer=True)
_COUNT = Optional(Count(0))


class Evaluator:
    """Evaluate runs against one set of qrels, prepared (encoded and indexed) once.

    Options follow trec_eval: ``relevance_level`` (``-l``, minimum relevant judgment),
    ``complete`` (``-c``, average over every qrels query, missing ones scoring 0),
    ``max_results`` (``-M``), ``judged_only`` (``-J``), ``collection_size`` (``-N``).
    ``aggregate``: ``"macro"`` (default: each measure's own aggregate of the per-query values,
    the mean for most) or ``"micro"`` (Σ numerators / Σ denominators over queries, for the
    measures with a ratio form: set measures, F, E, Fallout; counts are summed either way).
    ``ignore_self``: drop every run row whose docno equals its query id before evaluating (BEIR's
    ArguAna/Quora practice; the qrels are unchanged, see :func:`~cranfield.retrieval.run.drop_self`).
    ``propensities``: a ``docno propensity`` file or ``{docno: propensity}`` mapping, for PSP@k and
    PSnDCG@k (:mod:`cranfield.io.propensities`).
    """

    def __init__(self, qrels, measures: "Sequence[str | Measure] | str" = DEFAULT_MEASURES, *,
                 relevance_level: int = 1, complete: bool = False, max_results: int | None = None,
                 judged_only: bool = False, collection_size: int | None = None,
                 aggregate: str = "macro", ignore_self: bool = False, propensities=None) -> None:
        self.qrels: Qrels = read_qrels(qrels)
        self.measures: list[Measure] = parse_measures(measures if not isinstance(measures, str) else [measures])
        if not self.measures:
            raise UsageError("no measures given")
        relevance_level = _LEVEL(relevance_level, "relevance_level")
        max_results = _COUNT(max_results, "max_results")
        collection_size = _COUNT(collection_size, "collection_size")
        check_choice(aggregate, "aggregate", ("macro", "micro"))
        if aggregate == "micro":
            lacking = [str(m) for m in self.measures if m.family.micro is None and m.family.aggregate != "sum"]
            if lacking:
                raise UsageError(f"no micro average for {', '.join(lacking)} (micro averaging needs a ratio: "
                                 f"set measures, F, E, Fallout); evaluate these with aggregate='macro'")
        self.aggregate = aggregate
        self.options = dict(relevance_level=relevance_level, complete=bool(complete), max_results=max_results,
                            judged_only=bool(judged_only), collection_size=collection_size)
        self.ignore_self = bool(ignore_self)
        self.propensities = None
        if propensities is not None:
            # lazy (start-up): io.propensities imports pyarrow; the protocols import this engine without it
            from ..io.propensities import read_propensities

            self.propensities = read_propensities(propensities)
        self._prepared = prepare_qrels(self.qrels)

    def rank_run(self, run, **overrides) -> RankedView:
        """The ranked view of a read run with this evaluator's options (``overrides`` replace
        some): self-retrieved rows dropped (``ignore_self``), propensities looked up."""
        if self.ignore_self:
            run = drop_self(run)
            overrides.pop("query_codes", None)  # given for the rows before the self rows were dropped
        propensity = None if self.propensities is None else self.propensities.lookup(run.docno)
        return rank(self._prepared, run, **{**self.options, **overrides}, propensity=propensity)

    def settings(self) -> dict:
        """The settings that produced the results (the non-default new options only)."""
        extra = {"ignore_self": True} if self.ignore_self else {}
        if self.propensities is not None:
            extra["propensities"] = self.propensities.source
        return {**self.options, "aggregate": self.aggregate, **extra}

    def warm(self) -> None:
        """Build the judgment index that evaluations share (otherwise built by the first one)."""
        self._prepared.join_index()
        self._prepared.level_counts()

    def view(self, run) -> RankedView:
        """The sorted, judged view of a run (the statistic all measures share)."""
        view = self._dict_view(run)
        if view is not None:
            return view
        view = self.rank_run(read_run(run))
        release_unused_memory()
        return view

    def evaluate(self, run, *, name: str | None = None, threads: int | None = None, extras=None) -> Results:
        """Per-query values and aggregates of every measure for ``run``.

        A run of a million rows or more, grouped by query, is split at query boundaries and
        evaluated in parts by ``threads`` threads (default: the cores available; one thread
        still works part by part, which keeps the memory low; the numbers are the same, see
        :mod:`.parallel`). ``extras(view)``, if given, returns more per-query columns
        ``{name: array}`` read from the ranked view (trec_eval's relstring); they are added to
        ``per_query``, without aggregates.
        """
        view = self._dict_view(run)
        if view is not None:
            return self.results_from_view(view, name or "run", self.measures, extras=extras)
        run = read_run(run, name=name)
        run_name = name or run.name or "run"
        threads = available_threads() if threads is None else max(1, int(threads))
        if len(run) >= parallel.MIN_ROWS and not self.options["complete"] and self.aggregate == "macro":  # in parts
            results = parallel.evaluate_parallel(self, run, run_name, threads, extras=extras)
            if results is not None:
                return results
        return self.results_from_view(self.view(run), run_name, self.measures, extras=extras)

    def _dict_view(self, run) -> RankedView | None:
        """The view of a ``{qid: {docno: score}}`` run by the compiled core, or None (not a dict,
        options the core does not take, the core absent or declining: then the Run path)."""
        if type(run) is not dict or self.ignore_self or self.propensities is not None:
            return None
        return rank_dict(self._prepared, run, **self.options)

    def results_from_view(self, view: RankedView, run_name: str, measures: Sequence[Measure], *,
                          extras=None) -> Results:
        """Compute ``measures`` on a ranked view.

        Policy for queries added by ``complete`` (absent from the run): every measure is 0
        except the number of relevant documents, as trec_eval -c documents it.
        """
        per_query: dict[str, np.ndarray] = {}
        means: dict[str, float] = {}
        missing = ~view.in_run if view.in_run is not None else np.zeros(view.n_queries, dtype=bool)
        for measure in measures:
            measure_view = view_for(view, measure)
            values = np.asarray(measure.family.kernel(measure_view, measure), dtype=np.float64)
            if missing.any() and measure.name != "NumRel":
                values = np.where(missing, 0.0, values)
            key = str(measure)
            per_query[key] = values
            if self.aggregate == "micro" and measure.family.micro is not None:
                numerator, denominator = measure.family.micro(measure_view, measure)
                means[key] = micro_aggregate(np.where(missing, 0.0, numerator), denominator)
            else:
                means[key] = aggregate(values, measure.family.aggregate, view.n_queries)
        if extras is not None:
            per_query.update(extras(view))
        return Results(run_name=run_name, measures=tuple(measures), query_ids=view.query_ids,
                       per_query=per_query, mean=means, settings=self.settings(),
                       in_run=view.in_run)

    def evaluate_many(self, runs: Iterable) -> list[Results]:
        return [self.evaluate(run) for run in runs]


def evaluate_runs(make_evaluator, runs: Sequence, *, evaluate_one=None, prefetch=None) -> list[Results]:
    """Evaluate several runs, reading each run file in a background thread while the qrels are
    prepared (for the first run) or the previous run is evaluated (Arrow's reader and numpy
    release the GIL: the two overlap on a multi-core machine).

    ``make_evaluator()`` builds the :class:`Evaluator`; ``evaluate_one(evaluator, run)``
    (default ``evaluator.evaluate``) evaluates one run, given as read (a :class:`Run`) or, for the
    runs ``prefetch`` refuses, as given. ``prefetch(run)`` says whether to read a run ahead
    (default: every file but '-').
    """
    from concurrent.futures import ThreadPoolExecutor

    evaluate_one = evaluate_one or (lambda evaluator, run: evaluator.evaluate(run))
    results: list[Results] = []
    with ThreadPoolExecutor(max_workers=1) as pool:
        def load(run):
            return pool.submit(read_run, run) if _is_file(run) and (prefetch is None or prefetch(run)) else None

        pending = load(runs[0]) if runs else None
        evaluator = make_evaluator()
        evaluator.warm()
        for index, run in enumerate(runs):
            loaded = pending.result() if pending is not None else run
            pending = load(runs[index + 1]) if index + 1 < len(runs) else None
            results.append(evaluate_one(evaluator, loaded))
    return results


def prepare_and_read(make_evaluator, run, *, dialect: str = "cranfield"):
    """``(make_evaluator() warmed, read_run(run, dialect=dialect))``, the run file read in a
    background thread."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(read_run, run, dialect=dialect) if _is_file(run) else None
        evaluator = make_evaluator()
        evaluator.warm()
        return evaluator, (pending.result() if pending is not None else read_run(run, dialect=dialect))


def mapped_columns(data, columns: "dict[str, str] | None"):
    """``data`` with its columns named by ``columns`` (role -> column), or ``data`` itself."""
    if not columns:
        return data
    try:
        return with_columns(data, **dict(columns))
    except TypeError:
        raise UsageError(f"columns: expected a mapping with keys qid, docno, rel or score, found "
                         f"{sorted(columns)}") from None


def _is_file(run) -> bool:
    import os

    return isinstance(run, (str, os.PathLike)) and str(run) != "-"


def evaluate(qrels, run, measures: "Sequence[str | Measure] | str" = DEFAULT_MEASURES, *,
             relevance_level: int = 1, complete: bool = False, max_results: int | None = None,
             judged_only: bool = False, collection_size: int | None = None, aggregate: str = "macro",
             qrels_columns: "dict[str, str] | None" = None, run_columns: "dict[str, str] | None" = None,
             ignore_self: bool = False, propensities=None) -> Results:
    """Evaluate one run: per-query values and aggregates of each measure.

    ``qrels`` and ``run`` are file paths, ``{qid: {docno: value}}`` dicts, DataFrames, or
    :class:`Qrels`/:class:`Run` objects (or :class:`~cranfield.retrieval.diversity.DiversityQrels`,
    for the diversity measures of :mod:`cranfield.measures.diversity`); ``measures`` are canonical
    names (``"AP"``, ``"nDCG@10"``), trec_eval names (``"map"``, ``"P.5,10"``), :class:`Measure` objects
    or ir_measures measure objects (``AP``, ``nDCG@10``).
    ``qrels_columns`` / ``run_columns`` name a frame's columns, e.g. ``{"qid": "query_id",
    "docno": "doc_id", "rel": "relevance"}`` (the ir_measures, PyTerrier and ranx names are
    recognised without them; see :func:`cranfield.with_columns`). ``ignore_self`` and
    ``propensities``: see :class:`Evaluator`.

    >>> r = evaluate({"q1": {"d1": 1, "d2": 0}}, {"q1": {"d1": 2.0, "d2": 1.0}}, ["AP", "P@2"])
    >>> r.mean["AP"], r.mean["P@2"]
    (1.0, 0.5)
    """
    qrels, run = mapped_columns(qrels, qrels_columns), mapped_columns(run, run_columns)
    # diversity qrels (qid subtopic docno rel) name their own evaluator (DiversityEvaluator: the same
    # options, intents kept for ndeval's measures); diversity.py builds on this module, not the reverse
    factory = getattr(qrels, "evaluator_class", Evaluator)

    def make_evaluator():
        return factory(qrels, measures, relevance_level=relevance_level, complete=complete,
                         max_results=max_results, judged_only=judged_only, collection_size=collection_size,
                         aggregate=aggregate, **extra)

    extra = {k: v for k, v in (("ignore_self", ignore_self), ("propensities", propensities)) if v}
    if type(run) is dict:  # nothing to read ahead, no file-path index to warm: the dict path builds its own
        return make_evaluator().evaluate(run)
    return evaluate_runs(make_evaluator, [run])[0]
