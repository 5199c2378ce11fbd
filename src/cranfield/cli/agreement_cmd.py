"""``cranfield agreement`` (assessor agreement between qrels) and ``cranfield aggregate-labels``
(crowd labels → qrels): thin shells over :mod:`cranfield.judgments`."""

from __future__ import annotations

import click

from ..errors import UsageError
from ..io.atomic import check_output, write_text_output
from ..judgments.from_files import aggregate_label_file, agreement_from_files
from ..report.agreement import agreement_html, per_query_table, render_agreement
from ._options import html_option, write_html_report

FORMATS = ("table", "csv", "tsv", "json", "markdown", "latex")
_CONTEXT = {"help_option_names": ["-h", "--help"]}


@click.command("agreement", context_settings=_CONTEXT)
@click.argument("qrels", nargs=-1, metavar="QRELS1 QRELS2 [QRELS...]")
@click.option("--runs", "runs", multiple=True, metavar="RUN", type=click.Path(dir_okay=False, allow_dash=True),
              help="A run to rank under each set of judgments (repeatable; at least two): the system rankings "
                   "and Kendall's tau / tau_AP between them.")
@click.option("-m", "--measure", default="AP", show_default=True, help="Measure that ranks the runs.")
@click.option("--missing", type=click.Choice(("intersect", "nonrelevant", "keep")), default="intersect",
              show_default=True,
              help="Pairs judged by only some sets: compare the pairs every set judged (intersect), count a "
                   "missing judgment as 0 (nonrelevant), or keep them, each statistic using the pairs it can (keep).")
@click.option("-l", "--relevance-level", type=int, default=1, show_default=True,
              help="Least label counted as relevant (overlap of relevant sets; ranking measure).")
@click.option("--name", "names", multiple=True, metavar="LABEL",
              help="Name of each QRELS in order (repeatable). Default: the file names.")
@click.option("--resamples", type=int, default=1000, show_default=True,
              help="Bootstrap resamples of the queries for the intervals (0: none).")
@click.option("--confidence", type=float, default=0.95, show_default=True, help="Confidence of the intervals.")
@click.option("--seed", type=int, default=0, show_default=True, help="Random seed of the bootstrap.")
@click.option("-q", "--per-query", is_flag=True, help="Also print every statistic per query.")
@click.option("--digits", type=int, default=4, show_default=True, help="Decimals in tables.")
@click.option("-f", "--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True),
              help="Write here (atomically) instead of standard output.")
@html_option
def agreement_command(qrels, runs, measure, missing, relevance_level, names, resamples, confidence, seed, per_query,
                      digits, fmt, output, html):
    """Agreement between two or more sets of judgments of the same pairs: percentage agreement,
    Cohen's kappa (unweighted, linear, quadratic), Fleiss' kappa, Krippendorff's alpha (nominal,
    ordinal, interval) and the overlap of the relevant sets (Voorhees 2000), pooled over all
    queries with bootstrap intervals over queries; with --runs, the system rankings under each set
    and their rank correlations. See docs/judgments-agreement.md.

    \b
    Examples:
      cranfield agreement assessor1.qrels assessor2.qrels
      cranfield agreement a.qrels b.qrels c.qrels --missing keep --format markdown
      cranfield agreement primary.qrels secondary.qrels --runs bm25.run --runs tfidf.run -m nDCG@10
      cranfield agreement $(cranfield datasets --path qrels_raw) $(cranfield datasets --path qrels) --name raw --name graded
    """
    if len(qrels) < 2:
        raise UsageError(f"expected at least two QRELS files, found {len(qrels)}")
    if names and len(names) != len(qrels):
        raise UsageError(f"--name: expected one per QRELS ({len(qrels)}), found {len(names)}")
    if runs and len(runs) < 2:
        raise UsageError("--runs: ranking systems needs at least two runs")
    result, ranking = agreement_from_files(qrels, runs, names=list(names) or None, measure=measure,
                                           relevance_level=relevance_level, missing=missing, n_resamples=resamples,
                                           confidence=confidence, random_state=seed)
    write_text_output(render_agreement(result, fmt, ranking=ranking, digits=digits, per_query=per_query), output)
    if html is not None:
        write_html_report(html, "Assessor agreement", [per_query_table(result, digits=digits)] if per_query else [],
                          sections=[("agreement", "Agreement", agreement_html(result, ranking=ranking, digits=digits))],
                          settings=result.settings, inputs=[*[(f"qrels {n}", q) for n, q in zip(result.names, qrels)],
                                                            *[("run", r) for r in runs]])


@click.command("aggregate-labels", context_settings=_CONTEXT)
@click.argument("labels", metavar="LABELS")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, allow_dash=True),
              help="The qrels to write (TREC text, atomically); '-' for standard output.")
@click.option("--method", type=click.Choice(("majority", "dawid-skene", "mean", "median")), default="majority",
              show_default=True, help="How the labels of a pair are merged.")
@click.option("--ties", type=click.Choice(("lowest", "highest")), default="lowest", show_default=True,
              help="Tied votes (majority, Dawid-Skene), halves (mean), even counts (median): the lower or higher label.")
@click.option("--workers", "workers_output", metavar="CSV",  # an output: not a click.Path (those are inputs)
              help="Write the per-worker quality estimates here as CSV (atomically).")
@click.option("--max-iter", type=int, default=100, show_default=True, help="Dawid-Skene: most EM iterations.")
@click.option("--tol", type=float, default=1e-5, show_default=True,
              help="Dawid-Skene: stop when the log-likelihood per label rises by less than this.")
@click.option("--delimiter", default=None, metavar="CHAR",
              help="Field separator of a text LABELS (default: TAB for .tsv/.tab/.txt, else a comma).")
@click.option("--columns", "columns", default=None, metavar="FIELD=COL,...",
              help="Column names, e.g. query=topic,document=docid,worker=annotator,label=grade.")
def aggregate_command(labels, output, method, ties, workers_output, max_iter, tol, delimiter, columns):
    """Merge crowd labels (a CSV/TSV/Parquet table with columns query, document, worker, label)
    into qrels: by majority vote, Dawid-Skene EM (per-worker confusion matrices), or the mean or
    median label. A worker who labels the same pair twice, an empty field or a label that is not
    an integer is an error naming the file, line and field. See docs/judgments-agreement.md.

    \b
    Examples:
      cranfield aggregate-labels labels.csv -o qrels.txt
      cranfield aggregate-labels labels.csv -o qrels.txt --method dawid-skene --workers workers.csv
      cranfield aggregate-labels labels.tsv -o qrels.txt --method median --ties highest
      cranfield aggregate-labels export.csv -o - --columns query=topic,document=docid,worker=annotator,label=grade
    """
    if workers_output is not None and workers_output == output and output != "-":
        raise UsageError("--workers and -o name the same file; choose two names")
    check_output(workers_output)  # refused before any work, like -o
    result = aggregate_label_file(labels, columns=_columns(columns), delimiter=delimiter, method=method, ties=ties,
                                  max_iter=max_iter, tol=tol)
    lines = "".join(f"{q} 0 {d} {r}\n" for q, d, r in zip(result.query, result.document, result.label.tolist()))
    write_text_output(lines, output)
    if workers_output is not None:
        write_text_output(result.workers_csv(), workers_output)
    if output != "-":
        extra = f" in {result.n_iter} iterations" if method == "dawid-skene" else ""
        click.echo(f"cranfield: {len(result.label)} judgments from {result.settings['labels']} labels of "
                   f"{result.settings['workers']} workers ({method}{extra}) written to {output}", err=True)


def _columns(text: str | None) -> dict | None:
    if text is None:
        return None
    mapping = {}
    for item in text.split(","):
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise UsageError(f"--columns: expected FIELD=COL,..., found {text!r}")
        mapping[key.strip()] = value.strip()
    return mapping
