"""``cranfield evaluate``: measures of one or more runs, as a table or a document.

Query-set policy: each run is evaluated over its own queries (those of the run with judgments;
with ``-c``, every qrels query, a missing one scoring 0), and every table gives each run's number
of queries. When runs cover different queries their means are not comparable: the table says so,
a warning goes to standard error, and ``-c`` (or ``cranfield compare --missing``) makes them so.

``-q`` with ``-f csv|tsv|json`` writes one tidy long table, one row per run × measure × query:
``run, qid, measure, value`` (runs in the order given, measures in the order asked, queries in
trec_eval's byte-wise order; values with full precision). JSON is the same rows as a list of
objects ``{"run", "qid", "measure", "value"}``.
"""

from __future__ import annotations

import click

from ..errors import UsageError
from ..io.atomic import write_text_output
from ..io.json_text import json_text
from ._options import cli_terms, evaluate_options, evaluation_options, input_options, run_specs
from .._arrow import use_jemalloc

FORMATS = ("table", "csv", "tsv", "json", "markdown", "latex")
UNJUDGED_MEASURES = ("Unjudged@10", "Unjudged@100", "Unjudged@1000")  # --unjudged


@click.command("evaluate", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("qrels", metavar="QRELS")
@click.argument("runs", metavar="RUN...", nargs=-1)
@click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE",
              help="Canonical name (AP, nDCG@10, P(rel=2)@5) or trec_eval name (map, P.5,10); repeatable. "
                   "Default: AP nDCG@10 P@10 R@1000 RR RPrec.")
@click.option("-q", "--per-query", is_flag=True,
              help="Also give each query's values; with -f csv/tsv/json: one long table run,qid,measure,value.")
@click.option("-f", "--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option("-o", "--output", default=None, metavar="FILE", help="Write to FILE (atomically) instead of stdout.")
@evaluation_options
@click.option("--aggregate", type=click.Choice(["macro", "micro"]), default="macro", show_default=True,
              help="macro: mean of per-query values; micro: Σ numerators / Σ denominators (set measures, F, E, "
                   "Fallout).")
@input_options
@click.option("--digits", type=int, default=4, show_default=True, help="Decimals in tables.")
@click.option("--unjudged", is_flag=True, help="Also give each run's unjudged rate at depths 10, 100 and 1000 "
              "(Unjudged@10, Unjudged@100, Unjudged@1000: trec_eval 10's unj; a red flag for pool bias).")
@click.option("--low-memory", is_flag=True, help="Read each run in blocks (bounded memory, same numbers); "
              "automatic for run files over 1 GiB.")
@click.option("--diversity", is_flag=True, help="QRELS are diversity qrels (qid subtopic docno rel): ndeval's "
              "measures (default: all of them) see the subtopics, the others each document's highest judgment.")
def command(qrels, runs, measures, per_query, fmt, output, aggregate, names, qrels_columns, run_columns, digits,
            unjudged, low_memory, diversity, **evaluation):
    """Evaluate each RUN against QRELS.

    Each run is evaluated over its own queries (-c: every qrels query); the table gives each
    run's number of queries and warns when they differ.

    \b
    Examples:
      cranfield evaluate qrels.txt bm25.run -m AP -m nDCG@10 -m P@10
      cranfield evaluate qrels.txt a.run b.run -m map -m P.5,10 --format markdown
      cranfield evaluate qrels.txt --name bm25=a.run --name tfidf=b.run -c -l 2
      cranfield evaluate qrels.txt a.run -m AP --per-query --format csv -o per_query.csv
      cranfield evaluate qrels.csv run.csv --qrels-columns qid=query_id,docno=doc_id,rel=relevance
      cranfield evaluate qrels.txt a.run b.run --unjudged
      cranfield evaluate --diversity qrels.diversity.txt run.txt -m 'alpha-nDCG(alpha=0.5)@20' -m ERR-IA@20
    """
    # lazy (start-up): `cranfield evaluate --help` and a usage error load no numpy, no evaluation engine
    from ..retrieval.evaluate import DEFAULT_MEASURES, Evaluator, evaluate_runs
    from ..report.progress import steps
    from ..retrieval.large import evaluate_path, use_low_memory
    from ..retrieval.inputs import read_qrels_file, read_run_file, tabular_input, unique_names

    use_jemalloc()  # memory that does not grow with the threads

    specs = run_specs(runs, names)
    if unjudged:
        measures = tuple(dict.fromkeys((*(measures or DEFAULT_MEASURES), *UNJUDGED_MEASURES)))

    def make_evaluator():
        if diversity:
            from ..retrieval.diversity import NDEVAL_MEASURES, DiversityEvaluator  # lazy (start-up): --diversity only

            return DiversityEvaluator(qrels, list(measures) or list(NDEVAL_MEASURES), aggregate=aggregate,
                                      **evaluate_options(**evaluation))
        return Evaluator(read_qrels_file(qrels, qrels_columns), list(measures) or list(DEFAULT_MEASURES),
                         aggregate=aggregate, **evaluate_options(**evaluation))

    if diversity and (low_memory or qrels_columns):
        raise UsageError("--diversity reads a diversity qrels text file and evaluates runs in memory "
                         "(no --low-memory, no --qrels-columns)")

    def in_memory(run) -> bool:
        return diversity or not use_low_memory(run, low_memory)

    inputs = [read_run_file(path, run_columns) if run_columns or tabular_input(path) else path for path, _ in specs]
    # one progress bar over the runs (percentage, time left), unless a large run shows its own
    show = len(inputs) > 1 and all(not isinstance(run, str) or in_memory(run) for run in inputs)
    with steps(enabled=show) as step:
        advance = step(f"evaluating {len(inputs)} runs", total=len(inputs))

        def evaluate_one(evaluator, run):
            result = evaluator.evaluate(run) if not isinstance(run, str) or in_memory(run) \
                else evaluate_path(evaluator, run, progress=True)
            advance()
            return result

        with cli_terms():
            results = evaluate_runs(make_evaluator, inputs, evaluate_one=evaluate_one, prefetch=in_memory)
    chosen = [label or r.run_name for (_, label), r in zip(specs, results)]
    for r, name in zip(results, unique_names(chosen)):
        r.run_name = name
    note = query_set_note(results)
    if note and fmt not in ("table", "markdown", "latex"):
        click.echo(f"cranfield: warning: {note}", err=True)
    write_text_output(render_results(results, fmt, per_query=per_query, digits=digits), output)


def query_set_note(results) -> str | None:
    """The note when runs were evaluated over different query sets, else None."""
    sets = [frozenset(map(str, r.query_ids)) for r in results]
    if len(set(sets)) <= 1:
        return None
    counts = ", ".join(f"{r.run_name} {r.n_queries}" for r in results)
    return (f"the runs cover different queries ({counts}): each mean is over the run's own queries, so the means "
            "are not comparable; -c evaluates every run over all qrels queries (a missing one scores 0), "
            "cranfield compare --missing intersect compares them on the common ones")


def render_results(results, fmt: str, *, per_query: bool = False, digits: int = 4) -> str:
    """Text of several runs' results in one format (see ``--format``)."""
    if per_query and fmt in ("csv", "tsv", "json"):
        return render_long(results, fmt)
    if fmt == "json":
        return json_text([r.to_dict() for r in results], ensure_ascii=True)
    from ..io.tables import Table, render_table  # lazy (start-up): not needed by --help
    from ..io._format import natural_key

    names = results[0].names
    rows = [[r.run_name, r.n_queries, *[r.mean[n] for n in names]] for r in results]
    bold = set()
    if len(results) > 1:
        for j, name in enumerate(names, start=2):
            best = max(r.mean[name] for r in results)
            bold |= {(i, j) for i, r in enumerate(results) if r.mean[name] == best}
    how = ("micro average: Σ numerators / Σ denominators (counts: sum)" if results[0].settings.get("aggregate") == "micro"
           else "mean over each run's queries (GMAP/GMBpref: geometric; counts: sum)")
    notes = [f"queries: the number of queries each run is evaluated over; {how}."]
    note = query_set_note(results)
    if note:
        notes.append("Warning: " + note + ".")
    text = render_table(Table(["run", "queries", *names], rows, digits=digits, bold=bold,
                              notes=notes if fmt in ("table", "markdown", "latex") else []), fmt)
    if per_query:
        for r in results:
            query_rows = sorted(([str(q), *[float(r.per_query[n][i]) for n in names]] for i, q in enumerate(r.query_ids)),
                                key=lambda row: natural_key(row[0]))  # 1, 2, 10, 100
            text += "\n" + render_table(Table(["qid", *names], query_rows, digits=digits,
                                              title=f"{r.run_name}: per query ({r.n_queries} queries)"), fmt)
    return text


def render_long(results, fmt: str) -> str:
    """The tidy long table ``run, qid, measure, value`` as CSV, TSV or JSON records."""
    import csv
    import io

    from ..retrieval.results import LONG_COLUMNS, long_columns  # lazy (start-up): not needed by --help

    columns = long_columns(results)
    rows = zip(*(columns[c] for c in LONG_COLUMNS))
    if fmt == "json":
        return json_text([dict(zip(LONG_COLUMNS, row)) for row in rows], indent=1, ensure_ascii=True)
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter="," if fmt == "csv" else "\t", lineterminator="\n")
    writer.writerow(LONG_COLUMNS)
    writer.writerows(rows)
    return buffer.getvalue()
