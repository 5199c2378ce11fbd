"""Compare systems honestly: per-system means with CIs, paired tests, corrections, effect sizes.

:func:`compare_values` works on per-query values; :func:`compare` evaluates runs first. Both
return a :class:`Comparison`. For each measure, the family of tests that a correction covers is
the set of pairs compared for that measure (all pairs, or each system against the baseline).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .._params import check_choice, check_fraction, usage_error
from ..errors import InputError, UsageError
from ..measures.base import parse_measures
from ..retrieval.evaluate import Evaluator, mapped_columns
from ._inputs import MISSING_POLICIES, align, normalise_values
from ._report import (comparison_dict, comparison_frame, comparison_html, pairs_table, paper_latex, render_comparison,
                      summary_table)
from ._report import query_counts_note
from ._resample import MAX_RESAMPLES, check_count
from .corrections import CORRECTIONS, adjust_pvalues, randomized_tukey_hsd, tukey_hsd
from .effects import cohens_dz_rows, win_tie_loss_rows
from .intervals import MEAN_CI_METHODS, mean_ci
from .paired import PAIRED_TESTS, ZERO_METHODS, paired_pvalues, test_description, wilcoxon_method

__all__ = ["SystemSummary", "PairResult", "Comparison", "compare_values", "compare",
           "COMPARE_CORRECTIONS", "FAMILIES", "TUKEY_TESTS", "MonteCarloFloorWarning", "QuerySetError",
           "query_counts_note", "needed_resamples"]

# tukey and randomized-tukey are tests of their own (over all systems), accepted in the
# ``correction`` slot because they replace the paired test's p-value by a family-wise one
TUKEY_TESTS = ("tukey", "randomized-tukey")
COMPARE_CORRECTIONS = CORRECTIONS + TUKEY_TESTS
FAMILIES = ("measure", "all")


class MonteCarloFloorWarning(UserWarning):
    """A resampling test's smallest attainable p cannot pass the correction: nothing can be significant."""


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
    statistic: float = math.nan  # the paired test's statistic (see settings["statistic"])
    df: float | None = None  # its degrees of freedom (t test: n - 1)
    n: int = 0  # queries paired
    p_method: str = ""  # how p was computed (exact, Monte Carlo, normal approximation...)
    p_floored: bool = False  # p is the smallest a Monte Carlo test can give, 1/(B+1): the true p is below it
    # p_adjusted was computed from floored p values: the true adjusted p is at most it (an upper bound)
    p_adjusted_floored: bool = False
    # with correction="tukey" / "randomized-tukey", Tukey's HSD p of the pair (the same number as
    # p_adjusted, kept there for compatibility: it is not an adjustment of p_value); else None
    p_tukey: float | None = None


class Comparison:
    """The result of :func:`compare` / :func:`compare_values`.

    Attributes: ``systems``, ``measures``, ``query_ids``, ``settings`` (test, correction, alpha,
    baseline, ci, confidence, n_permutations, random_state, missing, zero_method, family and
    family_size, statistic, df, p_method, exact, resamples, p_floor, n_queries, notes; see
    docs/statistics.md, "JSON schema"); ``summaries`` (list of
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
            raise usage_error("measure", f"one of {', '.join(self.measures)}", measure)
        return self._matrices[measure].copy()

    def differences(self, measure: str, a: str, b: str) -> np.ndarray:
        """Per-query differences ``a - b`` of ``measure``, aligned with ``query_ids``."""
        v = self.values(measure)
        index = {s: i for i, s in enumerate(self.systems)}
        for name in (a, b):
            if name not in index:
                raise usage_error("system", f"one of {', '.join(self.systems)}", name)
        return v[index[a]] - v[index[b]]

    # presentation lives in _report.py; these are thin delegates
    def to_dict(self) -> dict:
        """The JSON document as Python objects (see :meth:`to_json`)."""
        return comparison_dict(self)

    def to_json(self, *, indent: int | None = 2) -> str:
        """``{"measures": {M: {"systems": {RUN: {"mean", "ci_low", "ci_high"}}, "pairs": [{"a",
        "b", "diff", "ci_low", "ci_high", "effect_size", "p_value", "p_adjusted",
        "significant"}]}}}``; non-finite numbers (an infinite d_z) are written as null."""
        import json

        return json.dumps(self.to_dict(), indent=indent, allow_nan=False) + "\n"

    def tables(self, *, digits: int = 4) -> list:
        """The summary table (systems × measures, best bold, marks explained) and the pairs table."""
        return [summary_table(self, digits=digits), pairs_table(self, digits=digits)]

    def render(self, fmt: str = "table", *, digits: int = 4, width: int | None = None, layout: str = "paper") -> str:
        """Text in ``fmt``: table, markdown (summary and pairs tables), latex (the paper table,
        :meth:`to_latex`; ``layout="tables"``: the summary and pairs tables), csv or tsv (one
        long table of pairs, with both systems' means), json."""
        return render_comparison(self, fmt, digits=digits, width=width, layout=layout)

    def to_latex(self, *, digits: int = 4, label: str | None = None, wide: bool | None = None) -> str:
        r"""The paper table: one LaTeX ``tabular``, systems × measures, the best mean per measure
        bold, significance as superscript letters (or †/‡ against the baseline), a caption that
        says the test, the correction and alpha. It fits ``\columnwidth`` of a two-column ACM or
        IEEE paper up to 6 measures and 8 systems; beyond (or ``wide=True``) it is a ``table*``
        spanning ``\textwidth``. ``label``: its ``\label``."""
        return paper_latex(self, digits=digits, label=label, wide=wide)

    def to_pandas(self, table: str = "pairs"):
        """A pandas DataFrame: ``"pairs"`` (one row per comparison), ``"systems"`` (one row per
        system and measure) or ``"differences"`` (long: measure, a, b, query_id, diff)."""
        return comparison_frame(self, table)

    def _repr_html_(self) -> str:
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


def _check_options(test, correction, ci, alpha, missing, zero_method="wilcox", family="measure") -> float:
    check_choice(test, "test", PAIRED_TESTS)
    check_choice(correction, "correction", COMPARE_CORRECTIONS)
    check_choice(ci, "ci", MEAN_CI_METHODS)
    check_choice(missing, "missing", MISSING_POLICIES)
    check_choice(zero_method, "zero_method", ZERO_METHODS)
    if family not in FAMILIES:
        raise UsageError(f"family: expected 'measure' (one family per measure) or 'all' (all measures' pairs "
                         f"together), found {family!r}")
    if family == "all" and correction in TUKEY_TESTS:
        raise UsageError(f"family: {correction} is a test over the systems of one measure; use family='measure'")
    return check_fraction(alpha, "alpha")


def _adjusted_floored(p: np.ndarray, floored: np.ndarray, adjusted: np.ndarray, correction: str, family: str,
                      n_pairs: int, n_permutations) -> np.ndarray:
    """Which adjusted p values are upper bounds, not values: those that a floored Monte Carlo p
    (whose true value is below the floor) moves: the adjustment recomputed with the floored p
    values halved differs there (every correction is monotone in each p, so the true adjusted p
    is at most the one computed). A randomized Tukey p at its own floor 1/(B+1) is one too."""
    if correction == "tukey":
        return np.zeros(len(adjusted), dtype=bool)
    if correction == "randomized-tukey":
        return adjusted <= (1.0 + 1e-12) / (n_permutations + 1)
    if not floored.any():
        return floored.copy()
    lowered = np.where(floored, p / 2, p)
    if family == "all" or not n_pairs:
        again = adjust_pvalues(lowered, method=correction)
    else:
        again = np.concatenate([adjust_pvalues(block, method=correction) for block in lowered.reshape(-1, n_pairs)])
    return again != adjusted


def _smallest_adjusted(floor: float, m: int, correction: str) -> float:
    """The smallest adjusted p a family of ``m`` tests can reach when no p can be below ``floor``."""
    if correction in TUKEY_TESTS:
        return floor
    return float(adjust_pvalues(np.full(m, floor), method=correction).min())


def needed_resamples(family_size: int, *, correction: str = "holm", alpha: float = 0.05, resolution: float = 10.0) -> int:
    """The Monte Carlo resamples B whose smallest p, 1/(B+1), adjusted by ``correction`` over
    ``family_size`` tests, is at most ``alpha / resolution`` (so that p-values near alpha are
    resolved), rounded up to a multiple of 1000, at least 10,000.

    >>> needed_resamples(561, correction="holm")  # 34 systems, all pairs
    113000
    """
    m = check_count(family_size, "family_size", 1, 10**9)
    target = float(alpha) / float(resolution)
    if not 0 < target < 1:
        raise UsageError(f"alpha / resolution: expected a level between 0 and 1, found {target!r}")
    low, high = 10_000, 10_000
    while _smallest_adjusted(1.0 / (high + 1), m, correction) > target:
        if high >= MAX_RESAMPLES:
            return MAX_RESAMPLES
        low, high = high, min(high * 2, MAX_RESAMPLES)
    while high - low > 1000:  # the adjusted floor decreases with B: bisect
        mid = (low + high) // 2
        low, high = (mid, high) if _smallest_adjusted(1.0 / (mid + 1), m, correction) > target else (low, mid)
    return int(math.ceil(high / 1000) * 1000)


def _resamples(n_permutations, test, correction, family_size, alpha) -> tuple[int, bool]:
    """``n_permutations`` as an int (``"auto"``: :func:`needed_resamples`) and whether it was raised."""
    if isinstance(n_permutations, str):
        if n_permutations != "auto":
            raise UsageError(f"n_permutations: expected a whole number or 'auto', found {n_permutations!r}")
        if test in ("randomization", "bootstrap") or correction == "randomized-tukey":
            needed = needed_resamples(max(family_size, 1), correction=correction if correction != "none" else "bonferroni",
                                      alpha=alpha) if correction != "none" else 10_000
            return max(needed, 10_000), needed > 10_000
        return 10_000, False
    return check_count(n_permutations, "n_permutations", 1), False


def compare_values(values, *, test: str = "t", correction: str = "holm", baseline: str | None = None,
                   alpha: float = 0.05, ci: str = "auto", confidence: float | None = None,
                   n_permutations: int | str = 10_000, random_state=0, missing: str = "error",
                   zero_method: str = "wilcox", family: str = "measure") -> Comparison:
    """Compare systems from their per-query values.

    ``values``: ``{system: {measure: {qid: value}}}`` or a pandas DataFrame (see
    :mod:`cranfield.stats._inputs` for every accepted form). Systems are paired by query id;
    ``missing`` ("error", "intersect", "zero") says what happens when their query sets differ.

    For every measure: each system's mean with a ``ci`` interval (:func:`~cranfield.stats.
    intervals.mean_ci`; ``"auto"`` = Student t, the interval that matches the default t test; or
    normal, bootstrap, bca); for each pair (all pairs ``a`` < ``b`` in the given order, or each
    system ``a`` against ``baseline`` ``b``): the mean difference ``a - b`` with the same kind of
    interval, Cohen's d_z, wins/ties/losses, the statistic and two-sided p-value of ``test``
    (:func:`~cranfield.stats.paired.paired_pvalues`; Wilcoxon with ``zero_method``), the p-value
    adjusted by ``correction`` (:func:`~cranfield.stats.corrections.adjust_pvalues`: none,
    bonferroni, sidak, holm, holm-sidak, hochberg, hommel, bh, by) over the ``family``: the pairs
    of each measure (``"measure"``) or of all measures together (``"all"``); or ``tukey`` /
    ``randomized-tukey`` — Tukey's HSD over all systems, a test of its own whose family-wise p
    replaces the paired test's; and ``significant`` = adjusted p ≤ ``alpha``. ``confidence``
    defaults to 1 - ``alpha``. Resampling tests and intervals use ``n_permutations`` draws
    from ``random_state``; ``n_permutations="auto"`` raises it to :func:`needed_resamples` so
    that the smallest Monte Carlo p can pass the correction; otherwise a
    :class:`MonteCarloFloorWarning` says when it cannot. ``settings`` records all of this.

    >>> values = {"A": {"AP": {"q1": 0.5, "q2": 0.7, "q3": 0.9}},
    ...           "B": {"AP": {"q1": 0.4, "q2": 0.5, "q3": 0.6}}}
    >>> c = compare_values(values)
    >>> p = c.pairs[0]
    >>> (p.a, p.b, round(p.diff, 4), round(p.effect_size, 4), (p.wins, p.ties, p.losses))
    ('A', 'B', 0.2, 2.0, (3, 0, 0))
    """
    alpha = _check_options(test, correction, ci, alpha, missing, zero_method, family)
    systems, measures, query_ids, matrices = align(normalise_values(values), missing=missing)
    return _compare_aligned(systems, measures, query_ids, matrices, test=test, correction=correction,
                            baseline=baseline, alpha=alpha, ci=ci, confidence=confidence,
                            n_permutations=n_permutations, random_state=random_state, missing=missing,
                            zero_method=zero_method, family=family)


def _seed_text(random_state):
    if random_state is None or isinstance(random_state, (int, np.integer)):
        return None if random_state is None else int(random_state)
    return repr(random_state)


def _compare_aligned(systems, measures, query_ids, matrices, *, test, correction, baseline, alpha, ci,
                     confidence, n_permutations, random_state, missing, zero_method="wilcox",
                     family="measure") -> Comparison:
    confidence = 1.0 - alpha if confidence is None else float(confidence)
    ia, ib = _pair_indices(systems, baseline)
    k, n_pairs, n = len(systems), len(ia), len(query_ids)
    family_size = n_pairs * (len(measures) if family == "all" else 1)
    n_permutations, raised = _resamples(n_permutations, test, correction, family_size, alpha)
    ci_method = "t" if ci == "auto" else ci  # the t interval is the one the default t test inverts
    stacked = np.concatenate([matrices[m] for m in measures])  # (measures * systems, queries)
    resampling = dict(method=ci_method, confidence=confidence, n_resamples=n_permutations, random_state=random_state)
    means = mean_ci(stacked, **resampling)
    summaries = [SystemSummary(m, s, float(means.estimate[i * k + j]), float(means.low[i * k + j]), float(means.high[i * k + j]))
                 for i, m in enumerate(measures) for j, s in enumerate(systems)]
    info = test_description(test, n, n_permutations=n_permutations, zero_method=zero_method)
    pairs: list[PairResult] = []
    notes: list[str] = []
    if n_pairs:
        diffs = np.concatenate([matrices[m][ia] - matrices[m][ib] for m in measures])
        intervals = mean_ci(diffs, **resampling)
        effect = cohens_dz_rows(diffs)
        wtl = win_tie_loss_rows(diffs)
        statistic, p = paired_pvalues(diffs, test=test, n_permutations=n_permutations, random_state=random_state,
                                      zero_method=zero_method)
        methods = wilcoxon_method(diffs, zero_method=zero_method) if test == "wilcoxon" else [info["p_method"]] * len(p)
        floor = info["p_floor"]
        monte_carlo = info["resamples"] is not None
        adjusted = np.empty_like(p)
        if family == "all":
            adjusted[:] = adjust_pvalues(p, method=correction)
        for i, m in enumerate(measures):
            block = slice(i * n_pairs, (i + 1) * n_pairs)
            if correction == "tukey":
                adjusted[block] = tukey_hsd(matrices[m])[ia, ib] if k > 1 else p[block]
            elif correction == "randomized-tukey":
                adjusted[block] = randomized_tukey_hsd(matrices[m], n_permutations=n_permutations, random_state=random_state)[ia, ib]
            elif family == "measure":
                adjusted[block] = adjust_pvalues(p[block], method=correction)
        floored = (p <= floor * (1 + 1e-12)) if (floor is not None and monte_carlo) else np.zeros(len(p), dtype=bool)
        if correction == "randomized-tukey":
            floor = 1.0 / (n_permutations + 1) if floor is None else min(floor, 1.0 / (n_permutations + 1))
        if floor is not None and correction != "tukey":
            smallest = _smallest_adjusted(floor, family_size, correction)
            if smallest > alpha:
                what = (f"{n_permutations:,} resamples give p >= 1/(B+1) = {1 / (n_permutations + 1):.2g}"
                        if monte_carlo or correction == "randomized-tukey" else
                        f"the exact test over {n} queries gives p >= 2/2^{n} = {floor:.2g}")
                message = (f"{what}; {correction} over {family_size} test{'s' if family_size != 1 else ''} then gives adjusted p >= {smallest:.2g} > "
                           f"alpha = {alpha:g}: no pair can be significant")
                if monte_carlo or correction == "randomized-tukey":
                    message += (f"; use n_permutations='auto' (--permutations auto), which raises B to "
                                f"{needed_resamples(family_size, correction=correction if correction != 'none' else 'bonferroni', alpha=alpha):,}")
                notes.append("Warning: " + message + ".")
                warnings.warn(message, MonteCarloFloorWarning, stacklevel=3)
        adjusted_floored = _adjusted_floored(p, floored, adjusted, correction, family, n_pairs, n_permutations)
        tukey = correction in TUKEY_TESTS
        for i, m in enumerate(measures):
            for j in range(n_pairs):
                r = i * n_pairs + j
                pairs.append(PairResult(m, systems[ia[j]], systems[ib[j]], float(intervals.estimate[r]), float(intervals.low[r]),
                                        float(intervals.high[r]), float(effect[r]), float(p[r]), float(adjusted[r]),
                                        bool(adjusted[r] <= alpha), int(wtl[r, 0]), int(wtl[r, 1]), int(wtl[r, 2]),
                                        float(statistic[r]), info["df"], n, methods[r], bool(floored[r]),
                                        bool(adjusted_floored[r]), float(adjusted[r]) if tukey else None))
    if raised:
        notes.append(f"Resamples raised to B = {n_permutations:,} (n_permutations='auto') so that the smallest Monte "
                     f"Carlo p, 1/(B+1), can pass the {correction} correction over {family_size} tests.")
    settings = dict(test=test, correction=correction, alpha=alpha, baseline=baseline, ci=means.method,
                    confidence=confidence, n_permutations=n_permutations, random_state=random_state, missing=missing,
                    zero_method=zero_method, family=family, family_size=family_size, statistic=info["statistic"],
                    df=info["df"], p_method=info["p_method"], exact=info["resamples"] is None,
                    resamples=info["resamples"], p_floor=info["p_floor"], n_queries=n, seed=_seed_text(random_state),
                    ci_requested=ci, notes=notes)
    if test == "wilcoxon":
        settings.update(rank_digits=info["rank_digits"], continuity=info["continuity"])
    return Comparison(systems=systems, measures=measures, query_ids=query_ids, matrices=matrices,
                      summaries=summaries, pairs=pairs, settings=settings)


def compare(qrels, runs, measures, *, test: str = "t", correction: str = "holm", baseline: str | None = None,
            alpha: float = 0.05, ci: str = "auto", confidence: float | None = None, n_permutations: int | str = 10_000,
            random_state=0, missing: str = "error", zero_method: str = "wilcox", family: str = "measure",
            evaluate_options: Mapping | None = None,
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
    alpha = _check_options(test, correction, ci, alpha, missing, zero_method, family)
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
    measure_list = parse_measures(measures)  # names, Measures or ir_measures objects (the one parser)
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
                                  n_permutations=n_permutations, random_state=random_state, missing=missing,
                                  zero_method=zero_method, family=family)
    comparison.settings["queries_per_system"] = counts
    return comparison
