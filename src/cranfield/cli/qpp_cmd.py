"""``cranfield qpp``: evaluate a query performance predictor against a run's measured
effectiveness (a thin shell over :func:`cranfield.correlation.qpp_evaluation`)."""

from __future__ import annotations


import click

from ..io.atomic import write_text_output
from ..io.json_text import json_text
from ..retrieval.qpp import qpp_from_files
from ..io.tables import Marked, Table, render_table

FORMATS = ("table", "csv", "tsv", "json", "markdown", "latex")
COLUMNS = ("measure", "queries", "pearson", "pearson_p", "kendall", "kendall_p", "smare")


@click.command("qpp", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("predictions", metavar="PREDICTIONS")
@click.argument("qrels", metavar="QRELS")
@click.argument("run", metavar="RUN")
@click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE",
              help="Effectiveness measure the predictor should track (repeatable) [default: AP].")
@click.option("-f", "--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
              help="Output format.")
@click.option("-o", "--output", metavar="FILE", default=None, help="Write here (atomically). Default: standard output.")
def command(predictions, qrels, run, measures, fmt, output):
    """Evaluate query performance predictions (PREDICTIONS: 'qid value' lines) against RUN's
    per-query effectiveness on QRELS: Pearson's r and Kendall's tau with p-values, and sMARE
    (Faggioli et al., ICTIR 2021; lower is better). The predictions must cover exactly the
    queries RUN is evaluated on.

    \b
    Examples:
      cranfield qpp predictions.txt qrels.txt run.txt
      cranfield qpp predictions.txt qrels.txt run.txt -m AP -m nDCG@10 -f csv
    """
    rows = qpp_from_files(predictions, qrels, run, measures)
    write_text_output(_render(rows, fmt), output)


def _render(rows: list[dict], fmt: str) -> str:
    if fmt == "json":
        return json_text(rows, ensure_ascii=True)
    if fmt in ("csv", "tsv"):  # exact values
        return render_table(Table(list(COLUMNS), [[r[k] for k in COLUMNS] for r in rows]), fmt)
    shown = [[Marked(_p(r[k])) if k.endswith("_p") else r[k] for k in COLUMNS] for r in rows]
    return render_table(Table(list(COLUMNS), shown, title="query performance prediction"), fmt)


def _p(value: float) -> str:
    return f"{value:.4f}" if value >= 1e-4 else f"{value:.1e}"
