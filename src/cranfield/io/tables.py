"""One table model, many renderings: terminal (rich), Markdown, LaTeX (booktabs), CSV, TSV.

A :class:`Table` holds column headers and rows of cells (str, int, float or None); floats are
formatted with ``digits`` decimals. Cells listed in ``bold`` are emphasised where the format can
(terminal, Markdown, LaTeX). ``notes`` are printed under the table (e.g. what a significance
mark means). JSON is not a table format: each command builds its own JSON document.
"""

from __future__ import annotations

import csv
import io

from .._params import usage_error
from ._latex import render_latex
from ._table_model import Cell, Marked, Table  # noqa: F401  (the table model, re-exported)

__all__ = ["Table", "Marked", "TABLE_FORMATS", "render_table", "table_html"]

TABLE_FORMATS = ("table", "csv", "tsv", "markdown", "latex")


def _render_delimited(table: Table, delimiter: str) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\n")
    writer.writerow(table.columns)
    for row in table.rows:
        writer.writerow([table.cell_text(value) if not isinstance(value, float) else repr(value) for value in row])
    return buffer.getvalue()


def _render_markdown(table: Table) -> str:
    def fmt(i: int, j: int, value) -> str:
        text = table.cell_text(value).replace("|", r"\|")
        return f"**{text}**" if (i, j) in table.bold and text else text

    numeric = [all(isinstance(row[j], (int, float, Marked)) or row[j] is None for row in table.rows) and table.rows
               for j in range(len(table.columns))]
    lines = []
    if table.title:
        lines += [f"**{table.title}**", ""]
    lines.append("| " + " | ".join(table.columns) + " |")
    lines.append("|" + "|".join("---:" if numeric[j] else "---" for j in range(len(table.columns))) + "|")
    for i, row in enumerate(table.rows):
        lines.append("| " + " | ".join(fmt(i, j, v) for j, v in enumerate(row)) + " |")
    if table.notes:
        lines.append("")
        lines += [note for note in table.notes]
    return "\n".join(lines) + "\n"


def _render_terminal(table: Table, width: int | None = None) -> str:
    from ._terminal import render_terminal  # lazy (start-up): rich, for terminal output only

    return render_terminal(table, width)


def render_table(table: Table, fmt: str = "table", *, width: int | None = None) -> str:
    """Render ``table`` as ``fmt`` (one of :data:`TABLE_FORMATS`) and return the text; a terminal
    table fits ``width`` columns (default: the terminal's, see :mod:`cranfield.io._terminal`)."""
    if fmt == "table":
        return _render_terminal(table, width)
    if fmt == "csv":
        return _render_delimited(table, ",")
    if fmt == "tsv":
        return _render_delimited(table, "\t")
    if fmt == "markdown":
        return _render_markdown(table)
    if fmt == "latex":
        return render_latex(table)
    raise usage_error("format", f"one of {', '.join(TABLE_FORMATS)} (json: io.json_text)", fmt)


def table_html(table: Table) -> str:
    """An HTML ``<table>`` (bold cells, caption, notes) for notebooks' ``_repr_html_``."""
    import html

    head = "".join(f"<th>{html.escape(str(col))}</th>" for col in table.columns)
    body = []
    for i, row in enumerate(table.rows):
        cells = []
        for j, value in enumerate(row):
            text = html.escape(table.cell_text(value))
            cells.append(f"<td><b>{text}</b></td>" if (i, j) in table.bold else f"<td>{text}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    notes = "".join(f"<p><small>{html.escape(n)}</small></p>" for n in table.notes)
    caption = f"<caption>{html.escape(table.title)}</caption>" if table.title else ""
    return f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>{notes}"
