"""HTML rendering of a :class:`cranfield.report.tables.Table` for notebooks (private).

(The stats package has its own copy; a public ``table_html`` in ``cranfield.report.tables``
would serve both.)"""

from __future__ import annotations

import html

__all__ = ["table_html", "TableReport"]


def table_html(t) -> str:
    head = "".join(f"<th>{html.escape(str(col))}</th>" for col in t.columns)
    body = []
    for i, row in enumerate(t.rows):
        cells = []
        for j, value in enumerate(row):
            text = html.escape(t.cell_text(value))
            cells.append(f"<td><b>{text}</b></td>" if (i, j) in t.bold else f"<td>{text}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    notes = "".join(f"<p><small>{html.escape(n)}</small></p>" for n in t.notes)
    caption = f"<caption>{html.escape(t.title)}</caption>" if t.title else ""
    return f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>{notes}"


class TableReport:
    """``render(fmt)`` and ``_repr_html_`` for result objects that define ``table(digits=)``."""

    def table(self, *, digits: int = 4):  # pragma: no cover - defined by subclasses
        raise NotImplementedError

    def render(self, fmt: str = "table", *, digits: int = 4, width: int | None = None) -> str:
        """The summary table as text: terminal, csv, tsv, markdown or latex."""
        from ..report.tables import render_table

        return render_table(self.table(digits=digits), fmt, width=width)

    def _repr_html_(self) -> str:
        return table_html(self.table())
