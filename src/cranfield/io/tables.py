"""One table model, many renderings: terminal (rich), Markdown, LaTeX (booktabs), CSV, TSV.

A :class:`Table` holds column headers and rows of cells (str, int, float or None); floats are
formatted with ``digits`` decimals. Cells listed in ``bold`` are emphasised where the format can
(terminal, Markdown, LaTeX). ``notes`` are printed under the table (e.g. what a significance
mark means). JSON is not a table format: each command builds its own JSON document.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from typing import Sequence

__all__ = ["Table", "Marked", "TABLE_FORMATS", "render_table", "table_html"]

TABLE_FORMATS = ("table", "csv", "tsv", "markdown", "latex")

Cell = "str | int | float | Marked | None"

class Marked(str):
    """A formatted number with significance marks: the string ``"0.4321 ab"`` everywhere, with
    the mark as a superscript in LaTeX (``0.4321$^{\\mathrm{ab}}$``)."""

    def __new__(cls, text: str, mark: str = ""):
        self = super().__new__(cls, f"{text} {mark}" if mark else text)
        self.text, self.mark = text, mark
        return self

    def __getnewargs__(self):
        return self.text, self.mark


@dataclass
class Table:
    columns: Sequence[str]
    rows: list[list]
    title: str | None = None
    digits: int = 4
    bold: set[tuple[int, int]] = field(default_factory=set)  # (row index, column index)
    notes: list[str] = field(default_factory=list)
    bold_meaning: str = "the highest value of its column"  # said in the LaTeX caption when bold is used
    column_group: int = 1  # LaTeX splits a wide table between groups of this many columns (mean, CI)

    def __post_init__(self) -> None:
        if isinstance(self.digits, bool) or not isinstance(self.digits, int) or not 0 <= self.digits <= 100:
            from ..errors import UsageError

            raise UsageError(f"digits: expected a whole number from 0 to 100, found {self.digits!r}")

    def cell_text(self, value) -> str:
        if value is None:
            return ""
        if isinstance(value, bool):
            return str(value).lower()
        if isinstance(value, float):
            return f"{value:.{self.digits}f}"
        return str(value)  # a Marked cell: "0.4321 ab"


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
    from ._terminal import render_terminal

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
        from ._latex import render_latex

        return render_latex(table)
    from ..errors import UsageError

    raise UsageError(f"unknown table format {fmt!r}; expected one of {', '.join(TABLE_FORMATS)} (or json)")


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
