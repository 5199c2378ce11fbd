"""``cranfield beyond``: beyond-accuracy measures of recommendation lists (coverage, novelty, Gini,
ARP, APLT), one row per run; see :mod:`cranfield.retrieval.beyond_accuracy`."""

from __future__ import annotations

import json

import click

from ..io.atomic import write_text_output
from ..io.tables import Table, render_table
from ..retrieval.beyond_accuracy import BEYOND_ACCURACY, beyond_accuracy_of_runs
from ._options import run_specs

FORMATS = ("table", "csv", "tsv", "json", "markdown", "latex")


@click.command("beyond", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("interactions", metavar="INTERACTIONS")
@click.argument("runs", metavar="RUN...", nargs=-1)
@click.option("-k", "--depth", "k", type=click.IntRange(min=1), default=10, show_default=True,
              help="Length of each recommendation list (the top k of each query).")
@click.option("--head-share", type=float, default=0.2, show_default=True,
              help="Share of the interactions held by the short head (APLT's long tail is the rest).")
@click.option("--catalog-size", type=int, default=None, metavar="N",
              help="Items in the catalog (default: the items of INTERACTIONS and of the lists).")
@click.option("--name", "names", multiple=True, metavar="LABEL=PATH", help="Name the run in PATH LABEL; repeatable.")
@click.option("-f", "--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option("-o", "--output", default=None, metavar="FILE", help="Write to FILE (atomically) instead of stdout.")
def command(interactions, runs, k, head_share, catalog_size, names, fmt, output):
    """Coverage, novelty, Gini, ARP and APLT of each RUN's top-k lists (a query is a user),
    item popularity from INTERACTIONS (qrels form: user 0 item rel; rel > 0 is an interaction).

    \b
    Example:
      cranfield beyond train.qrels recs.run -k 10
    """
    rows = beyond_accuracy_of_runs(run_specs(runs, names), interactions, k=k, head_share=head_share,
                                   catalog_size=catalog_size)
    if fmt == "json":
        text = json.dumps([{"run": name, **row} for name, row in rows.items()], indent=2) + "\n"
    else:
        columns = ["run", *BEYOND_ACCURACY, "unseen", "lists"]
        text = render_table(Table(columns, [[name, *(row[c] for c in columns[1:])] for name, row in rows.items()],
                                  notes=[f"top {k} of each query; popularity from {interactions}"]), fmt)
    write_text_output(text, output)
