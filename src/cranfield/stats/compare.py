"""Compare systems honestly: per-system means with CIs, paired tests, corrections, effect sizes.

:func:`compare_values` works on per-query values; :func:`compare` evaluates runs first. Both
return a :class:`Comparison`. For each measure, the family of tests that a correction covers is
the set of pairs compared for that measure (all pairs, or each system against the baseline).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, UsageError
from ._inputs import MISSING_POLICIES, align, normalise_values
from .corrections import CORRECTIONS, adjust_pvalues, randomized_tukey_hsd, tukey_hsd
from .effects import cohens_dz_rows, win_tie_loss_rows
from .intervals import MEAN_CI_METHODS, mean_ci
from .paired import PAIRED_TESTS, paired_pvalues

__all__ = ["SystemSummary", "PairResult", "Comparison", "compare_values", "compare",
           "COMPARE_CORRECTIONS", "QuerySetError", "query_counts_note"]

COMPARE_CORRECTIONS = CORRECTIONS + ("tukey", "randomized-tukey")


@dataclass(frozen=True)
class SystemSummary:
    """Mean of one measure over the queries for one system, with its confidence interval."""

    measure: str
    system: str
    mean: float
    ci_low: float
    ci_high: float


@dataclass(frozen=True)
class PairResult:
    """System ``a`` against system ``b`` on one measure; ``diff`` = mean of ``a - b`` per query."""

    measure: str
    a: str
    b: str
    diff: float
    ci_low: float
    ci_high: float
    effect_size: float  # Cohen's d_z
    p_value: float
    p_adjusted: float
    significant: bool
    wins: int  # queries where a > b
    ties: int
    losses: int


class Comparison:
    """The result of :func:`compare` / :func:`compare_values`.

    Attributes: ``systems``, ``measures``, ``query_ids``, ``settings`` (test, correction, alpha,
    baseline, ci, confidence, n_permutations, random_state, missing); ``summaries`` (list of
    :class:`SystemSummary`), ``pairs`` (list of :class:`PairResult`). Per-query values and
    differences: :meth:`values`, :meth:`differences`. Output: :meth:`render` (table, markdown,
    latex, csv, tsv, json), :meth:`to_json`, :meth:`to_dict`, :meth:`to_pandas`, and the
    notebook display.
    """

    def __init__(self, *, systems, measures, query_ids, matrices, summaries, pairs, settings):
        self.systems: tuple[str, ...] = tuple(systems)
        self.measures: tuple[str, ...] = tuple(measures)
        self.query_ids: np.ndarray = query_ids
        self._matrices: dict[str, np.ndarray] = matrices
        self.summaries: list[SystemSummary] = summaries
        self.pairs: list[PairResult] = pairs
        self.settings: dict = settings

    def __repr__(self) -> str:
        s = self.settings
        return (f"<Comparison of {len(self.systems)} systems on {len(self.measures)} measures over "
                f"{len(self.query_ids)} queries: {len(self.pairs)} tests ({s['test']}, correction {s['correction']})>")

    def summary(self, measure: str, system: str) -> SystemSummary:
        """The :class:`SystemSummary` of ``system`` on ``measure``."""
        for item in self.summaries:
            if item.measure == measure and item.system == system:
                return item
        raise UsageError(f"no summary for system {system!r} and measure {measure!r}; systems: {list(self.systems)}, measures: {list(self.measures)}")

    def pair(self, measure: str, a: str, b: str) -> PairResult:
        """The :class:`PairResult` of ``a`` against ``b`` on ``measure`` (as compared)."""
        for item in self.pairs:
            if item.measure == measure and item.a == a and item.b == b:
                return item
        raise UsageError(f"pair {a!r} vs {b!r} on {measure!r} was not compared")

    def values(self, measure: str) -> np.ndarray:
        """Per-query values of ``measure``, shape (systems, queries), aligned with ``query_ids``."""
        if measure not in self._matrices:
            raise UsageError(f"unknown measure {measure!r}; expected one of {list(self.measures)}")
        return self._matrices[measure].copy()

    def differences(self, measure: str, a: str, b: str) -> np.ndarray:
        """Per-query differences ``a - b`` of ``measure``, aligned with ``query_ids``."""
        v = self.values(measure)
        index = {s: i for i, s in enumerate(self.systems)}
        for name in (a, b):
            if name not in index:
                raise UsageError(f"unknown system {name!r}; expected one of {list(self.systems)}")
        return v[index[a]] - v[index[b]]

    # presentation lives in _report.py; these are thin delegates
    def to_dict(self) -> dict:
        """The JSON document as Python objects (see :meth:`to_json`)."""
        from ._report import comparison_dict

        return comparison_dict(self)

    def to_json(self, *, indent: int | None = 2) -> str:
        """``{"measures": {M: {"systems": {RUN: {"mean", "ci_low", "ci_high"}}, "pairs": [{"a",
        "b", "diff", "ci_low", "ci_high", "effect_size", "p_value", "p_adjusted",
        "significant"}]}}}``; non-finite numbers (an infinite d_z) are written as null."""
        import json

        return json.dumps(self.to_dict(), indent=indent, allow_nan=False) + "\n"

    def tables(self, *, digits: int = 4) -> list:
        """The summary table (systems × measures, best bold, marks explained) and the pairs table."""
        from ._report import pairs_table, summary_table

        return [summary_table(self, digits=digits), pairs_table(self, digits=digits)]

    def render(self, fmt: str = "table", *, digits: int = 4, width: int | None = None) -> str:
        """Text in ``fmt``: table, markdown, latex (summary and pairs tables), csv or tsv (one
        long table of pairs, with both systems' means), json."""
        from ._report import render_comparison

        return render_comparison(self, fmt, digits=digits, width=width)

    def to_pandas(self, table: str = "pairs"):
        """A pandas DataFrame: ``"pairs"`` (one row per comparison), ``"systems"`` (one row per
        system and measure) or ``"differences"`` (long: measure, a, b, query_id, diff)."""
        from ._report import comparison_frame

        return comparison_frame(self, table)

    def _repr_html_(self) -> str:
        from ._report import comparison_html

        return comparison_html(self)


PYTHON_TERMS = {"intersect": "missing='intersect'", "zero": "missing='zero'",
                "complete": "evaluate_options={'complete': True}"}


class QuerySetError(InputError):
    """Runs evaluated over different query sets, compared with ``missing="error"``.

    The query-set policy (the same in ``evaluate``, ``compare``, ``report`` and the API): each
    run is evaluated over its own queries (those of the run that have judgments; with
    ``complete``/``-c``, every qrels query, a missing one scoring 0); tables show each run's
    query count; a comparison pairs runs by query id and refuses different query sets unless told
    what to do: keep the common queries (``intersect``), count a missing query as 0 (``zero``),
    or evaluate every qrels query (``complete``). ``terms`` spells those choices in the caller's
    terms: keyword arguments in Python, :meth:`in_terms` gives the command line's flags."""

    def __init__(self, counts: dict, lacking: tuple, *, terms: dict | None = None, source: str | None = None):
        self.counts, self.lacking, self.terms = dict(counts), lacking, dict(terms or PYTHON_TERMS)
        system, missing_ids, total = lacking
        shown = ", ".join(repr(str(q)) for q in missing_ids[:5]) + (f" and {len(missing_ids) - 5} more"
                                                                     if len(missing_ids) > 5 else "")
        t = self.terms
        message = (f"runs cover different queries ({', '.join(f'{name}: {n}' for name, n in self.counts.items())}; "
                   f"{system!r} lacks {len(missing_ids)} of the {total}: {shown}); compare them on the common "
                   f"queries with {t['intersect']}, count a missing query as 0 with {t['zero']}, or evaluate every "
                   f"qrels query with {t['complete']} (trec_eval -c)")
        super().__init__(message, source=source)

    def in_terms(self, terms: dict) -> "QuerySetError":
        """The same error with the choices spelt in ``terms`` (e.g. the CLI's flags)."""
        return QuerySetError(self.counts, self.lacking, terms=terms, source=self.source)


def check_query_sets(query_ids: Mapping, missing: str, *, source: str | None = None) -> dict:
    """``{system: number of queries}``; raises :class:`QuerySetError` when the systems' query
    sets differ and ``missing`` is ``"error"``."""
    sets = {name: set(map(str, ids)) for name, ids in query_ids.items()}
    counts = {name: len(ids) for name, ids in sets.items()}
    union = set().union(*sets.values()) if sets else set()
    if missing == "error":
        for name, ids in sets.items():
            if ids != union:
                raise QuerySetError(counts, (name, sorted(union - ids), len(union)), source=source)
    return counts


def query_counts_note(counts: Mapping, compared: int, missing: str) -> str | None:
    """A table note when the systems' own query sets differ from the compared one, else None."""
    if all(n == compared for n in counts.values()):
        return None
    own = ", ".join(f"{name} {n}" for name, n in counts.items())
    how = {"intersect": "the common queries", "zero": "every query, a missing one counted as 0"}.get(missing, missing)
    return f"Queries of each run: {own}; compared on {compared} ({how}, missing={missing})."


def _pair_indices(systems: list[str], baseline: str | None) -> tuple[np.ndarray, np.ndarray]:
    k = len(systems)
    if baseline is None:
        ia, ib = np.triu_indices(k, 1)
        return ia, ib
    if baseline not in systems:
        raise UsageError(f"baseline {baseline!r} is not one of the systems: {', '.join(systems)}")
    b = systems.index(baseline)
    ia = np.array([i for i in range(k) if i != b], dtype=np.int64)
    return ia, np.full(len(ia), b, dtype=np.int64)


def _check_options(test, correction, ci, alpha, missing) -> float:
    if test not in PAIRED_TESTS:
        raise UsageError(f"test: expected one of {', '.join(PAIRED_TESTS)}, found {test!r}")
    if correction not in COMPARE_CORRECTIONS:
        raise UsageError(f"correction: expected one of {', '.join(COMPARE_CORRECTIONS)}, found {correction!r}")
    if ci not in MEAN_CI_METHODS:
        raise UsageError(f"ci: expected one of {', '.join(MEAN_CI_METHODS)}, found {ci!r}")
    if missing not in MISSING_POLICIES:
        raise UsageError(f"missing: expected one of {', '.join(MISSING_POLICIES)}, found {missing!r}")
    if isinstance(alpha, bool) or not 0.0 < float(alpha) < 1.0:
        raise UsageError(f"alpha: expected a number strictly between 0 and 1, found {alpha!r}")
    return float(alpha)


def compare_values(values, *, test: str = "t", correction: str = "holm", baseline: str | None = None,
                   alpha: float = 0.05, ci: str = "auto", confidence: float | None = None,
                   n_permutations: int = 10_000, random_state=0, missing: str = "error") -> Comparison:
    """Compare systems from their per-query values.

    ``values``: ``{system: {measure: {qid: value}}}`` or a pandas DataFrame (see
    :mod:`cranfield.stats._inputs` for every accepted form). Systems are paired by query id;
    ``missing`` ("error", "intersect", "zero") says what happens when their query sets differ.

    For every measure: each system's mean with a ``ci`` interval (:func:`~cranfield.stats.
    intervals.mean_ci`: auto = Student t below 30 queries, else normal; or bootstrap, bca); for
    each pair (all pairs ``a`` < ``b`` in the given order, or each system ``a`` against
    ``baseline`` ``b``): the mean difference ``a - b`` with the same kind of interval, Cohen's
    d_z, wins/ties/losses, the two-sided p-value of ``test`` (:func:`~cranfield.stats.paired.
    paired_pvalues`), the p-value adjusted over that measure's pairs by ``correction`` (none,
    bonferroni, holm, bh — :func:`~cranfield.stats.corrections.adjust_pvalues`; or tukey,
    randomized-tukey — family-wise p of Tukey's HSD over all systems), and ``significant`` =
    adjusted p ≤ ``alpha``. ``confidence`` defaults to 1 - ``alpha``. Resampling tests and
    intervals use ``n_permutations`` draws from ``random_state``.

    >>> values = {"A": {"AP": {"q1": 0.5, "q2": 0.7, "q3": 0.9}},
    ...           "B": {"AP": {"q1": 0.4, "q2": 0.5, "q3": 0.6}}}
    >>> c = compare_values(values)
    >>> p = c.pairs[0]
    >>> (p.a, p.b, round(p.diff, 4), round(p.effect_size, 4), (p.wins, p.ties, p.losses))
    ('A', 'B', 0.2, 2.0, (3, 0, 0))
    """
    alpha = _check_options(test, correction, ci, alpha, missing)
    systems, measures, query_ids, matrices = align(normalise_values(values), missing=missing)
    return _compare_aligned(systems, measures, query_ids, matrices, test=test, correction=correction,
                            baseline=baseline, alpha=alpha, ci=ci, confidence=confidence,
                            n_permutations=n_permutations, random_state=random_state, missing=missing)


def _compare_aligned(systems, measures, query_ids, matrices, *, test, correction, baseline, alpha, ci,
                     confidence, n_permutations, random_state, missing) -> Comparison:
    confidence = 1.0 - alpha if confidence is None else float(confidence)
    ia, ib = _pair_indices(systems, baseline)
    k, n_pairs = len(systems), len(ia)
    stacked = np.concatenate([matrices[m] for m in measures])  # (measures * systems, queries)
    resampling = dict(method=ci, confidence=confidence, n_resamples=n_permutations, random_state=random_state)
    means = mean_ci(stacked, **resampling)
    summaries = [SystemSummary(m, s, float(means.estimate[i * k + j]), float(means.low[i * k + j]), float(means.high[i * k + j]))
                 for i, m in enumerate(measures) for j, s in enumerate(systems)]
    pairs: list[PairResult] = []
    if n_pairs:
        diffs = np.concatenate([matrices[m][ia] - matrices[m][ib] for m in measures])
        intervals = mean_ci(diffs, **resampling)
        effect = cohens_dz_rows(diffs)
        wtl = win_tie_loss_rows(diffs)
        _, p = paired_pvalues(diffs, test=test, n_permutations=n_permutations, random_state=random_state)
        adjusted = np.empty_like(p)
        for i, m in enumerate(measures):
            block = slice(i * n_pairs, (i + 1) * n_pairs)
            if correction == "tukey":
                adjusted[block] = tukey_hsd(matrices[m])[ia, ib] if k > 1 else p[block]
            elif correction == "randomized-tukey":
                adjusted[block] = randomized_tukey_hsd(matrices[m], n_permutations=n_permutations, random_state=random_state)[ia, ib]
            else:
                adjusted[block] = adjust_pvalues(p[block], method=correction)
        for i, m in enumerate(measures):
            for j in range(n_pairs):
                r = i * n_pairs + j
                pairs.append(PairResult(m, systems[ia[j]], systems[ib[j]], float(intervals.estimate[r]), float(intervals.low[r]),
                                        float(intervals.high[r]), float(effect[r]), float(p[r]), float(adjusted[r]),
                                        bool(adjusted[r] <= alpha), int(wtl[r, 0]), int(wtl[r, 1]), int(wtl[r, 2])))
    settings = dict(test=test, correction=correction, alpha=alpha, baseline=baseline, ci=means.method,
                    confidence=confidence, n_permutations=n_permutations, random_state=random_state, missing=missing)
    return Comparison(systems=systems, measures=measures, query_ids=query_ids, matrices=matrices,
                      summaries=summaries, pairs=pairs, settings=settings)


def compare(qrels, runs, measures, *, test: str = "t", correction: str = "holm", baseline: str | None = None,
            alpha: float = 0.05, ci: str = "auto", confidence: float | None = None, n_permutations: int = 10_000,
            random_state=0, missing: str = "error", evaluate_options: Mapping | None = None,
            qrels_columns: Mapping | None = None, run_columns: Mapping | None = None) -> Comparison:
    """Evaluate each run against ``qrels`` on ``measures`` and compare them (see :func:`compare_values`).
    ``qrels_columns`` / ``run_columns``: a frame's column names, as in :func:`cranfield.evaluate`.

    ``runs``: a list of runs (named by ``run.name``) or a mapping name -> run. ``measures``:
    measure names or Measure objects. Per-query values come from :class:`cranfield.Evaluator`
    (qrels prepared once), with ``evaluate_options`` passed to it, e.g. ``{"complete": True}``
    (trec_eval ``-c``: every qrels query, a query missing from a run scoring 0).

    >>> import cranfield
    >>> qrels = cranfield.Qrels.from_dict({"q1": {"d1": 1}, "q2": {"d2": 1}, "q3": {"d1": 1}})
    >>> good = cranfield.Run.from_dict({"q1": {"d1": 2, "d2": 1}, "q2": {"d2": 2, "d1": 1}, "q3": {"d1": 2, "d2": 1}}, name="good")
    >>> bad = cranfield.Run.from_dict({"q1": {"d2": 2, "d1": 1}, "q2": {"d1": 2, "d2": 1}, "q3": {"d2": 2, "d1": 1}}, name="bad")
    >>> c = compare(qrels, [good, bad], ["AP"])
    >>> c.summary("AP", "good").mean, c.summary("AP", "bad").mean, c.pair("AP", "good", "bad").diff
    (1.0, 0.5, 0.5)
    """
    from ..retrieval.evaluate import Evaluator, mapped_columns

    alpha = _check_options(test, correction, ci, alpha, missing)
    qrels = mapped_columns(qrels, qrels_columns)
    if isinstance(runs, Mapping):
        named = [(str(name), run) for name, run in runs.items()]
    else:
        named = [(str(getattr(run, "name", None) or f"run{i + 1}"), run) for i, run in enumerate(runs)]
    if not named:
        raise InputError("expected at least one run, found none", source="runs")
    names = [name for name, _ in named]
    duplicated = sorted({name for name in names if names.count(name) > 1})
    if duplicated:
        raise InputError(f"several runs are named {', '.join(map(repr, duplicated))}; pass a mapping name -> run to name them apart", source="runs")
    measure_list = [measures] if isinstance(measures, str) else list(measures)
    evaluator = Evaluator(qrels, measure_list, **dict(evaluate_options or {}))
    per_system = {}
    for name, run in named:
        result = evaluator.evaluate(mapped_columns(run, run_columns))
        per_system[name] = {m: (np.asarray(result.query_ids).astype(str), np.asarray(v, dtype=np.float64))
                            for m, v in result.per_query.items()}
    counts = check_query_sets({name: next(iter(m.values()))[0] for name, m in per_system.items()}, missing)
    systems, names_m, query_ids, matrices = align(per_system, missing=missing, source="runs")
    comparison = _compare_aligned(systems, names_m, query_ids, matrices, test=test, correction=correction,
                                  baseline=baseline, alpha=alpha, ci=ci, confidence=confidence,
                                  n_permutations=n_permutations, random_state=random_state, missing=missing)
    comparison.settings["queries_per_system"] = counts
    return comparison
