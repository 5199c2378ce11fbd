"""``cranfield measures``: every registered measure of every area, its definition and reference."""

from __future__ import annotations

import io
import json
import shutil

import click

from ..io.atomic import write_text_output
from ..io.tables import Table, render_table
from ..measures.base import AREAS
from ..measures.catalog import catalog

FORMATS = ("terminal", "markdown", "csv", "json")


@click.command("measures", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-a", "--area", type=click.Choice(AREAS), default=None,
              help="Only the measures of this area (default: every area).")
@click.option("-f", "--format", "fmt", type=click.Choice([*FORMATS, "table"]), default="terminal", show_default=True,
              help="terminal (wrapped to the terminal's width), markdown, csv or json; table = terminal.")
@click.option("-o", "--output", default=None, metavar="FILE", help="Write to FILE (atomically) instead of stdout.")
def command(area, fmt, output):
    """List every measure: name, parameters, the data it needs, definition and reference."""
    rows = catalog(area)
    if fmt == "json":
        text = json.dumps(rows, indent=2, ensure_ascii=False) + "\n"
    elif fmt in ("terminal", "table"):
        text = _terminal(rows, shutil.get_terminal_size((80, 24)).columns)
    else:
        columns = ["area", "measure", "parameters", "data", "definition", "reference", "aliases", "trec_eval"]
        text = render_table(Table(columns, [[r["area"], r["form"], _params(r), r["data"], r["definition"],
                                             r["reference"], ", ".join(r["aliases"]), ", ".join(r["trec_eval"])]
                                            for r in rows]), fmt)
    write_text_output(text, output)


def _params(row) -> str:
    return ", ".join(f"{k}={v}" for k, v in row["parameters"].items())


def _terminal(rows, width: int) -> str:
    """One table per area: the measure and its parameters, then the definition and reference
    wrapped to the width (long words folded, never cut)."""
    from rich.console import Console  # rich is imported on use: it costs start-up time (as io.tables)
    from rich.table import Table as RichTable
    from rich.text import Text

    console = Console(file=io.StringIO(), width=max(width, 40), force_terminal=False, color_system=None)
    for area in dict.fromkeys(r["area"] for r in rows):
        table = RichTable(title=f"{area} measures", header_style="bold", expand=False, show_lines=True)
        table.add_column("measure", overflow="fold", min_width=10, max_width=max(12, width // 3))
        table.add_column(Text("definition [reference]"), overflow="fold", ratio=1)
        for r in (r for r in rows if r["area"] == area):
            name = "\n".join([r["form"], *(f" {k}={v}" for k, v in r["parameters"].items())])
            text = f"{r['definition']} [{r['reference']}]" + (f" data: {r['data']}." if area != "retrieval" else "")
            table.add_row(Text(name), Text(text))  # Text: brackets are not markup
        console.print(table)
    return console.file.getvalue()
