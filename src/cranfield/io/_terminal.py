"""Terminal tables that fit the terminal: the one text renderer behind every ``-f table`` output.

The width is ``COLUMNS`` when set, else the terminal's width, else 120 columns when the output
is not a terminal (a file or a pipe). A table wider than that is laid out again, in this order,
until it fits; no number is ever cut or replaced by an ellipsis:

1. **natural**: every cell on one line;
2. **folded headers**: the column headers wrap between words, and long text cells (over 24
   characters, e.g. a definition) wrap between words; short cells (numbers, intervals, names)
   never wrap;
3. **split**: the columns are dealt into several tables that each repeat the key columns (the
   text columns before the first numeric one, e.g. ``id`` and ``system``), keeping the column
   groups of the table together (a mean and its interval);
4. **transposed**: one table per row, listing ``column  value`` (a very narrow terminal).
"""

from __future__ import annotations

import io
import shutil

from rich.box import HEAVY_HEAD
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

from ._table_model import Marked

__all__ = ["terminal_width", "render_terminal", "column_pieces", "FALLBACK_WIDTH", "SHORT_CELL"]

FALLBACK_WIDTH = 120  # output that is not a terminal (a file, a pipe) and no COLUMNS
SHORT_CELL = 24  # cells up to this many characters never wrap


def terminal_width() -> int:
    """The width to render for: ``COLUMNS``, the terminal's width, or :data:`FALLBACK_WIDTH`."""
    width = shutil.get_terminal_size((FALLBACK_WIDTH, 24)).columns
    return max(width, 20)


def _min_width(text: str) -> int:
    """The narrowest a cell may be: all of it when short; otherwise its longest word, at most
    :data:`SHORT_CELL` (a longer word, a path or a hash, is folded)."""
    if cell_len(text) <= SHORT_CELL:
        return cell_len(text)
    return min(SHORT_CELL, max((cell_len(word) for word in text.split()), default=0))


def _total(widths) -> int:
    """Width of a rich table with a heavy head box and one space of padding each side."""
    return sum(widths) + 3 * len(widths) + 1


class _Layout:
    """The cells of a table as text, with per-column natural and minimum widths."""

    def __init__(self, table):
        self.table = table
        self.columns = [str(c) for c in table.columns]
        self.cells = [[table.cell_text(v) for v in row] for row in table.rows]
        n = len(self.columns)
        self.numeric = [bool(table.rows) and all(_is_number(r[j]) for r in table.rows) for j in range(n)]
        self.natural = [max([cell_len(self.columns[j])] + [cell_len(r[j]) for r in self.cells]) for j in range(n)]
        header_min = [max((cell_len(w) for w in self.columns[j].split()), default=0) for j in range(n)]
        self.minimum = [max([header_min[j]] + [_min_width(r[j]) for r in self.cells]) for j in range(n)]

    def widths(self, columns: list[int], width: int) -> list[int] | None:
        """Column widths for ``columns`` within ``width``: natural if they fit, else each column
        at its minimum plus a share of the room left; None when even the minimum is too wide."""
        natural = [self.natural[j] for j in columns]
        if _total(natural) <= width:
            return natural
        chosen = [self.minimum[j] for j in columns]
        room = width - _total(chosen)
        if room < 0:
            return None
        for i in sorted(range(len(columns)), key=lambda i: natural[i] - chosen[i]):
            share = min(natural[i] - chosen[i], room // max(1, len(columns) - i))
            chosen[i] += share
            room -= share
        return chosen

    def key_columns(self) -> list[int]:
        """The leading text columns (row labels), at least the first column."""
        keys = []
        for j, numeric in enumerate(self.numeric):
            if numeric:
                break
            keys.append(j)
        if len(keys) == len(self.columns):  # no numeric column: the first one names the row
            keys = [0]
        return keys or [0]


def _is_number(value) -> bool:
    return value is None or isinstance(value, (int, float, Marked)) and not isinstance(value, bool)


def _rich(layout: _Layout, columns: list[int], widths: list[int]) -> RichTable:
    table = layout.table
    rich_table = RichTable(box=HEAVY_HEAD, header_style="bold")
    for j, w in zip(columns, widths):
        rich_table.add_column(layout.columns[j], justify="right" if layout.numeric[j] else "left", width=w,
                              min_width=w, max_width=w, overflow="fold")
    for i, row in enumerate(layout.cells):
        rich_table.add_row(*[Text(row[j], style="bold" if (i, j) in table.bold else "") for j in columns])
    return rich_table


def _groups(layout: _Layout, keys: list[int]) -> list[list[int]]:
    """The non-key columns in groups that stay together (``Table.column_group``)."""
    rest = [j for j in range(len(layout.columns)) if j not in keys]
    size = max(1, layout.table.column_group)
    return [rest[i:i + size] for i in range(0, len(rest), size)]


def _split(layout: _Layout, width: int) -> list[tuple[list[int], list[int]]] | None:
    """Several (columns, widths) pieces, each repeating the key columns; None if a group does not fit."""
    keys = layout.key_columns()
    pieces: list[list[int]] = []
    current: list[int] = []
    for group in _groups(layout, keys):
        if current and layout.widths(keys + current + group, width) is None:
            pieces.append(current)
            current = []
        if layout.widths(keys + group, width) is None:
            return None
        current += group
    if current:
        pieces.append(current)
    return [(keys + piece, layout.widths(keys + piece, width)) for piece in pieces]


def column_pieces(table, width: int) -> list[list[int]]:
    """The column indices of each table that ``table`` is laid out in within ``width``
    characters: all of them when they fit (headers and long text folded), else the split
    (each piece led by the key columns), else one piece per column group. The HTML report
    splits its tables with this rule too."""
    layout = _Layout(table)
    everything = list(range(len(layout.columns)))
    if not everything or layout.widths(everything, width) is not None:
        return [everything]
    pieces = _split(layout, width)
    if pieces is not None:
        return [columns for columns, _ in pieces]
    keys = layout.key_columns()
    return [keys + group for group in _groups(layout, keys)]


def _transposed(layout: _Layout, width: int) -> list[RichTable]:
    """One two-column table (column, value) per row: fits any width a value fits."""
    tables = []
    label_need = max(cell_len(c) for c in layout.columns)
    value_need = max([cell_len(text) for row in layout.cells for text in row] + [1])
    value_width = max(1, min(value_need, width - 7 - min(label_need, 10)))
    label_width = max(1, min(label_need, width - 7 - value_width))
    for i, row in enumerate(layout.cells):
        rich_table = RichTable(box=HEAVY_HEAD, show_header=False)
        rich_table.add_column(width=label_width, overflow="fold", style="bold")
        rich_table.add_column(width=value_width, overflow="fold")
        for j, name in enumerate(layout.columns):
            rich_table.add_row(name, Text(row[j], style="bold" if (i, j) in layout.table.bold else ""))
        tables.append(rich_table)
    return tables


def render_terminal(table, width: int | None = None) -> str:
    """``table`` (a :class:`~cranfield.io.tables.Table`) as terminal text no wider than ``width``
    (default :func:`terminal_width`)."""
    width = width or terminal_width()
    layout = _Layout(table)
    everything = list(range(len(layout.columns)))
    widths = layout.widths(everything, width) if everything else []
    if widths is not None:
        renderables = [_rich(layout, everything, widths)]
    else:
        pieces = _split(layout, width)
        if pieces is not None:
            renderables = [_rich(layout, cols, w) for cols, w in pieces]
        else:
            renderables = _transposed(layout, width)
    console = Console(file=io.StringIO(), width=width, force_terminal=False, color_system=None, soft_wrap=False)
    for k, renderable in enumerate(renderables):
        if table.title:  # above the table, wrapped to the terminal (not to the table's width)
            part = f" ({k + 1}/{len(renderables)})" if len(renderables) > 1 else ""
            console.print(Text(table.title + part, style="bold"))
        console.print(renderable)
    for note in table.notes:
        console.print(note, markup=False, highlight=False)
    return console.file.getvalue()
