"""``cranfield measures``: the registered retrieval measures, their parameters and definitions."""

from __future__ import annotations

import click

from ..io.atomic import write_text_output
from ..io.tables import Table, render_table
from ..measures.base import families


@click.command("measures", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-f", "--format", "fmt", type=click.Choice(["table", "markdown", "csv"]), default="table")
def command(fmt):
    """List every retrieval measure: name, cut-off, parameters, definition, reference."""
    rows = []
    for name, family in sorted(families().items(), key=lambda kv: kv[0].lower()):
        cut = {"none": "", "optional": "@k optional", "required": "@k" if family.cutoff_kind == "int" else "@r"}
        params = ", ".join(f"{k}={v.default if v.default not in (None, ()) else '…'}" for k, v in family.params.items())
        rows.append([name, cut[family.cutoff], params, family.definition, family.reference])
    table = Table(["measure", "cut-off", "parameters", "definition", "reference"], rows)
    write_text_output(render_table(table, fmt, width=200), None)
