"""The table model of :mod:`cranfield.io.tables`: a :class:`Table` of cells, some :class:`Marked`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from ..errors import UsageError

__all__ = ["Cell", "Marked", "Table"]

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
            raise UsageError(f"digits: expected a whole number from 0 to 100, found {self.digits!r}")

    def cell_text(self, value) -> str:
        if value is None:
            return ""
        if isinstance(value, bool):
            return str(value).lower()
        if isinstance(value, float):
            return f"{value:.{self.digits}f}"
        return str(value)  # a Marked cell: "0.4321 ab"
