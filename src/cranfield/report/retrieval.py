"""A retrieval study: runs evaluated and compared once, then shown as a table, plots and HTML.

:func:`retrieval_study` reads the files, evaluates every run on the chosen measures and on the
11-point interpolated precision, and compares the systems (CIs, paired tests, correction).
:func:`retrieval_figures` draws its charts; :func:`retrieval_html` writes the report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from ..errors import UsageError
from ..io._format import natural_key
from ..io.tables import Table
from ..measures.base import parse_measure, parse_measures
from ..plots.retrieval import (ELEVEN_POINT_MEASURES, difference_plot, forest_plot, per_query_pr_plot,
                               recall_precision_plot)
from ..retrieval.evaluate import Evaluator
from ..stats._report import settings_lines
from ..stats.compare import check_query_sets, compare_values
from .html import chart_html, definitions_html, document, escape, file_info, inputs_html, table_html
from ..retrieval.inputs import baseline_name, read_qrels_file, read_runs

__all__ = ["DEFAULT_REPORT_MEASURES", "RetrievalStudy", "retrieval_study", "retrieval_figures", "retrieval_html"]

DEFAULT_REPORT_MEASURES = ("AP", "nDCG@10", "P@10", "RR", "RPrec")


@dataclass
class RetrievalStudy:
    """Inputs, per-run :class:`~cranfield.Results` and the :class:`~cranfield.Comparison`."""

    qrels_path: Path
    run_paths: dict  # system name -> path
    measures: list[str]
    results: dict  # system name -> Results (measures + 11-point interpolated precision)
    comparison: object
    settings: dict = field(default_factory=dict)

    def summary_text(self, fmt: str = "table", *, digits: int = 4) -> str:
        """The comparison's tables as text (see :meth:`cranfield.Comparison.render`)."""
        return self.comparison.render(fmt, digits=digits)


def _noop(description: str) -> None:
    return None


def retrieval_study(qrels: str | Path, runs: Sequence[str | Path], *, measures: Sequence[str] = DEFAULT_REPORT_MEASURES,
                    test: str = "t", correction: str = "holm", alpha: float = 0.05, ci: str = "auto",
                    n_permutations: int = 10_000, random_state: int = 0, baseline: str | None = None,
                    relevance_level: int = 1, missing: str = "error", evaluate_options: dict | None = None,
                    labels: Sequence[str | None] | None = None, qrels_columns: str | None = None,
                    run_columns: str | None = None, step: Callable[[str], None] = _noop) -> RetrievalStudy:
    """Read ``qrels`` and ``runs`` (paths), evaluate and compare them (see :func:`cranfield.compare_values`).

    ``labels`` name the runs (None: the run's tag); ``evaluate_options`` go to the Evaluator
    (complete, max_results, judged_only, collection_size); runs over different queries follow
    the query-set policy of :func:`cranfield.compare` (``missing``)."""
    if not runs:
        raise UsageError("expected at least one run, found none")
    names = [str(m) for m in parse_measures(list(measures))]
    step(f"reading {len(runs)} run(s)")
    paths = [str(p) for p in runs]
    named = read_runs(list(zip(paths, labels or [None] * len(paths))), run_columns=run_columns)
    base = baseline_name(baseline, named, paths)
    step("evaluating")
    evaluator = Evaluator(read_qrels_file(str(qrels), qrels_columns),
                          names + [m for m in ELEVEN_POINT_MEASURES if m not in names],
                          **{**dict(evaluate_options or {}), "relevance_level": relevance_level})
    results = {name: evaluator.evaluate(run) for name, run in named.items()}
    counts = check_query_sets({name: r.query_ids for name, r in results.items()}, missing)
    values = {name: {m: dict(zip(map(str, r.query_ids), r.per_query[m].tolist())) for m in names}
              for name, r in results.items()}
    step(f"comparing ({test} test, {n_permutations:,} permutations)" if test in ("randomization", "bootstrap")
         else f"comparing ({test} test)")
    comparison = compare_values(values, test=test, correction=correction, baseline=base, alpha=alpha, ci=ci,
                                n_permutations=n_permutations, random_state=random_state, missing=missing)
    comparison.settings["queries_per_system"] = counts
    settings = {"relevance level": relevance_level, **comparison.settings}
    return RetrievalStudy(Path(qrels), dict(zip(named, map(Path, paths))), names, results, comparison, settings)


def retrieval_figures(study: RetrievalStudy) -> dict:
    """``{file stem: (Figure, caption)}``: the recall–precision graph, each run's per-query
    curves, the forest plot and, for each compared pair, the per-query differences of the first
    measure."""
    c = study.comparison
    figures = {"recall_precision": (recall_precision_plot(study.results),
                                    "11-point interpolated recall–precision graph, mean over queries")}
    for name, r in study.results.items():
        figures[f"per_query_pr_{name}"] = (per_query_pr_plot(r), f"{name}: each query's interpolated curve and the mean")
    if c.pairs:
        figures["forest"] = (forest_plot(c), "Differences between systems; each interval holds the shifts that the "
                                             "comparison's test does not reject at the pair's corrected level, so it "
                                             "excludes 0 exactly when the marker is filled (significant)")
    first = study.measures[0]
    for p in (p for p in c.pairs if p.measure == first):
        figures[f"differences_{p.a}_vs_{p.b}"] = (difference_plot(c, first, a=p.a, b=p.b),
                                                  f"Per-query {first} differences {p.a} − {p.b}, sorted")
    return figures


def _per_query_table(study: RetrievalStudy) -> Table:
    c = study.comparison
    columns = ["query"]
    blocks = []
    for m in study.measures:
        values = c.values(m)
        for i, system in enumerate(c.systems):
            columns.append(f"{m} {system}")
            blocks.append(values[i])
    rows = sorted(([str(q), *[float(b[j]) for b in blocks]] for j, q in enumerate(c.query_ids)),
                  key=lambda row: natural_key(row[0]))
    return Table(columns, rows, title=f"Per query ({len(rows)} queries): click a column header to sort",
                 notes=["Values as evaluated per query (the means above average these columns)."])


def retrieval_html(study: RetrievalStudy, *, figures: dict | None = None, title: str | None = None,
                   command: str | None = None) -> str:
    """The self-contained HTML report of a study (charts drawn unless ``figures`` are given)."""
    c = study.comparison
    figures = retrieval_figures(study) if figures is None else figures
    summary, pairs = c.tables()
    summary_part = table_html(summary, table_id="summary")
    if pairs.rows:
        summary_part += table_html(pairs, table_id="pairs", sortable=True)
    summary_part += definitions_html("How the comparison was made", settings_lines(c), element_id="statistics-settings")
    charts = "".join(chart_html(fig, stem, caption, wide=stem.startswith(("differences", "forest")))
                     for stem, (fig, caption) in figures.items())
    files = [("qrels", file_info(study.qrels_path))] + [(f"run {name}", file_info(path))
                                                         for name, path in study.run_paths.items()]
    definitions = [(m, parse_measure(m).definition) for m in study.measures]
    definitions.append(("IPrec@r", parse_measure("IPrec@0.5").definition))
    sections = [
        ("summary", "Summary", summary_part),
        ("charts", "Charts", f'<div class="charts">{charts}</div>'),
        ("per-query", "Per query", table_html(_per_query_table(study), sortable=True, table_id="per-query-table",
                                              scroll=True)),
        ("inputs", "Inputs and settings", inputs_html(files, study.settings.items(), definitions, command)),
    ]
    subtitle = (f"{len(c.systems)} system(s) · {len(c.query_ids)} queries · measures {', '.join(study.measures)} · "
                f"qrels {escape(study.qrels_path.name)}")
    return document(title or "Retrieval evaluation report", sections, subtitle=subtitle)
