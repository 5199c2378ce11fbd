"""``render`` and ``_repr_html_`` for protocol result objects (private)."""

from __future__ import annotations

from ..io.tables import render_table, table_html

__all__ = ["table_html", "TableReport"]


class TableReport:
    """``render(fmt)`` and ``_repr_html_`` for result objects that define ``table(digits=)``."""

    def table(self, *, digits: int = 4):  # pragma: no cover - defined by subclasses
        raise NotImplementedError

    def render(self, fmt: str = "table", *, digits: int = 4, width: int | None = None) -> str:
        """The summary table as text: terminal, csv, tsv, markdown or latex."""
        return render_table(self.table(digits=digits), fmt, width=width)

    def _repr_html_(self) -> str:
        return table_html(self.table())
