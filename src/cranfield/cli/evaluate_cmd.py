"""``cranfield evaluate``: measures of one or more runs, as a table or a document."""

from __future__ import annotations

import json

import click

from ..io.atomic import write_text_output

FORMATS = ("table", "csv", "tsv", "json", "markdown", "latex")


@click.command("evaluate", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("qrels", metavar="QRELS")
@click.argument("runs", metavar="RUN...", nargs=-1, required=True)
@click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE",
              help="Canonical name (AP, nDCG@10, P(rel=2)@5) or trec_eval name (map, P.5,10); repeatable. "
                   "Default: AP nDCG@10 P@10 R@1000 RR RPrec.")
@click.option("-q", "--per-query", is_flag=True, help="Also give each query's values.")
@click.option("-f", "--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option("-o", "--output", default=None, metavar="FILE", help="Write to FILE (atomically) instead of stdout.")
@click.option("-l", "--relevance-level", type=int, default=1, show_default=True,
              help="Minimum judgment counted as relevant (trec_eval -l).")
@click.option("-c", "--complete", is_flag=True, help="Average over all qrels queries; missing ones score 0 (-c).")
@click.option("-M", "--max-results", type=int, default=None, help="Use the first N documents per query (-M).")
@click.option("-J", "--judged-only", is_flag=True, help="Drop unjudged documents before evaluating (-J).")
@click.option("-N", "--collection-size", type=int, default=None, help="Collection size, for measures that need it.")
@click.option("--aggregate", type=click.Choice(["macro", "micro"]), default="macro", show_default=True,
              help="macro: mean of per-query values; micro: Σ numerators / Σ denominators (set measures, F, E, "
                   "Fallout).")
@click.option("--digits", type=int, default=4, show_default=True, help="Decimals in tables.")
@click.option("--low-memory", is_flag=True, help="Read each run in blocks (bounded memory, same numbers); "
              "automatic for run files over 1 GiB.")
def command(qrels, runs, measures, per_query, fmt, output, relevance_level, complete, max_results, judged_only,
            collection_size, aggregate, digits, low_memory):
    """Evaluate each RUN against QRELS.

    \b
    Examples:
      cranfield evaluate qrels.txt bm25.run -m AP -m nDCG@10 -m P@10
      cranfield evaluate qrels.txt a.run b.run -m map -m P.5,10 --format markdown
      cranfield evaluate qrels.txt a.run -m AP --per-query --format json -o results.json
    """
    from ..retrieval.evaluate import DEFAULT_MEASURES, Evaluator, evaluate_runs
    from ..retrieval.large import evaluate_path, use_low_memory

    def make_evaluator():
        return Evaluator(qrels, list(measures) or list(DEFAULT_MEASURES), relevance_level=relevance_level,
                         complete=complete, max_results=max_results, judged_only=judged_only,
                         collection_size=collection_size, aggregate=aggregate)

    def in_memory(run) -> bool:
        return not use_low_memory(run, low_memory)

    def evaluate_one(evaluator, run):
        return evaluator.evaluate(run) if not isinstance(run, str) or in_memory(run) \
            else evaluate_path(evaluator, run, progress=True)

    results = evaluate_runs(make_evaluator, [str(run) for run in runs], evaluate_one=evaluate_one,
                            prefetch=in_memory)
    write_text_output(render_results(results, fmt, per_query=per_query, digits=digits), output)


def render_results(results, fmt: str, *, per_query: bool = False, digits: int = 4) -> str:
    """Text of several runs' results in one format (see ``--format``)."""
    if fmt == "json":
        return json.dumps([r.to_dict(per_query=per_query) for r in results], indent=2) + "\n"
    from ..report.tables import Table, render_table

    names = results[0].names
    rows = [[r.run_name, *[r.mean[n] for n in names]] for r in results]
    bold = set()
    if len(results) > 1:
        for j, name in enumerate(names, start=1):
            best = max(r.mean[name] for r in results)
            bold |= {(i, j) for i, r in enumerate(results) if r.mean[name] == best}
    notes = [f"{len(results[0].query_ids)} queries; mean over queries (GMAP/GMBpref: geometric; counts: sum)."]
    if results[0].settings.get("aggregate") == "micro":
        notes = [f"{len(results[0].query_ids)} queries; micro average: Σ numerators / Σ denominators (counts: sum)."]
    text = render_table(Table(["run", *names], rows, digits=digits, bold=bold, notes=notes if fmt == "table" else []),
                        fmt)
    if per_query:
        for r in results:
            query_rows = [[str(q), *[float(r.per_query[n][i]) for n in names]] for i, q in enumerate(r.query_ids)]
            text += "\n" + render_table(Table(["qid", *names], query_rows, digits=digits,
                                              title=f"{r.run_name}: per query" if fmt in ("table", "markdown", "latex")
                                              else None), fmt)
    return text
