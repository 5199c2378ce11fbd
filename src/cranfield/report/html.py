"""Self-contained HTML documents: inline CSS, inline SVG charts, a small sorting script.

Nothing is loaded from the network: a report is one file that opens offline in any browser.
Building blocks: :func:`table_html` (a :class:`~cranfield.io.tables.Table` as HTML,
optionally sortable), :func:`chart_html` (a matplotlib figure as inline SVG), :func:`file_info`
(name, size, SHA-256 of an input) and :func:`document` (the page).
"""

from __future__ import annotations

import hashlib
import html
import math
import platform
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable, Sequence

from .._version import __version__
from ..io._format import settings_items
from ..io._terminal import SHORT_CELL, column_pieces
from ..io.tables import Table
from ..plots._base import figure_svg

__all__ = ["table_html", "chart_html", "file_info", "inputs_html", "definitions_html", "document", "escape",
           "results_document"]

escape = html.escape

# Characters a table may take in a 1280 px window: the page's content box is 1216 px wide, and a
# character of the tables' 14 px type is about 7.7 px wide; the margin covers bold and wide glyphs.
HTML_WIDTH = 135

_CSS = """
:root { --fg:#1d2430; --muted:#5b6575; --line:#d9dee6; --head:#f2f4f8; --accent:#1f5fa8; }
* { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       color: var(--fg); margin: 0 auto; padding: 1.5rem 2rem 4rem; max-width: 1440px; }
h1 { font-size: 1.7rem; margin: 0 0 .2rem; } h2 { font-size: 1.3rem; margin: 2.2rem 0 .6rem;
     border-bottom: 2px solid var(--line); padding-bottom: .2rem; } h3 { font-size: 1.05rem; margin: 1.2rem 0 .4rem; }
.subtitle { color: var(--muted); margin: 0 0 1rem; }
nav { margin: .8rem 0 0; } nav a { margin-right: 1rem; color: var(--accent); text-decoration: none; }
table { border-collapse: collapse; margin: .4rem 0 .3rem; font-variant-numeric: tabular-nums; }
caption { text-align: left; font-weight: 600; padding: .2rem 0; }
table { font-size: 14px; }
th, td { border-bottom: 1px solid var(--line); padding: .25rem .5rem; text-align: left; white-space: nowrap; }
th { white-space: normal; vertical-align: bottom; }
td.long { white-space: normal; overflow-wrap: anywhere; min-width: 12rem; }
th { background: var(--head); }
.scroll th { position: sticky; top: 0; z-index: 1; }
td.num { text-align: right; }
.notes { color: var(--muted); font-size: .85rem; margin: .2rem 0 1rem; max-width: 60rem; }
.wide-table { overflow-x: auto; max-width: 100%; }
.scroll { max-height: 32rem; overflow: auto; border: 1px solid var(--line); display: inline-block; max-width: 100%; }
table.sortable th { cursor: pointer; user-select: none; }
table.sortable th::after { content: " \\2195"; color: #a0a8b5; font-size: .8em; }
table.sortable th[aria-sort="ascending"]::after { content: " \\25B2"; color: var(--accent); }
table.sortable th[aria-sort="descending"]::after { content: " \\25BC"; color: var(--accent); }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(480px, 1fr)); gap: 1.2rem; }
figure.chart { margin: 0; padding: .5rem; border: 1px solid var(--line); border-radius: 6px; background: #fff;
               min-width: 0; }
figure.chart.wide { grid-column: 1 / -1; }
figure.chart svg { width: 100%; height: auto; display: block; }
figure.chart.wide svg { max-width: 900px; margin: 0 auto; }
figcaption { color: var(--muted); font-size: .85rem; padding: .3rem .2rem 0; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; }
dt { font-weight: 600; } dd { margin: 0; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9em; word-break: break-all; }
footer { margin-top: 3rem; color: var(--muted); font-size: .85rem; }
"""

# Sorting: click a header; numbers sort as numbers (data-value), text as text; a second click
# reverses. The header's aria-sort says the current order (tests read it).
_JS = """
(function () {
  function key(cell) {
    var v = cell.getAttribute("data-value");
    if (v !== null && v !== "") { var x = parseFloat(v); return isNaN(x) ? v : x; }
    return cell.textContent.trim();
  }
  function compare(a, b) {
    if (typeof a === "number" && typeof b === "number") { return a - b; }
    if (typeof a === "number") { return -1; }
    if (typeof b === "number") { return 1; }
    return String(a).localeCompare(String(b), undefined, {numeric: true});
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var heads = table.querySelectorAll("thead th");
    heads.forEach(function (th, column) {
      th.setAttribute("tabindex", "0");
      function sort() {
        var descending = th.getAttribute("aria-sort") === "ascending";
        heads.forEach(function (other) { other.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", descending ? "descending" : "ascending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (r1, r2) {
          var c = compare(key(r1.cells[column]), key(r2.cells[column]));
          return descending ? -c : c;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); } });
    });
  });
})();
"""


def _cell(table: Table, i: int, j: int, value) -> str:
    raw = table.cell_text(value)
    text = escape(raw)
    if (i, j) in table.bold and text:
        text = f"<b>{text}</b>"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
        data = repr(number) if math.isfinite(number) else ""
        return f'<td class="num" data-value="{data}">{text}</td>'
    return f'<td class="long">{text}</td>' if len(raw) > SHORT_CELL else f"<td>{text}</td>"


def table_html(table: Table, *, sortable: bool = False, table_id: str | None = None, scroll: bool = False) -> str:
    """``table`` as an HTML table (title as caption, notes below); ``sortable`` adds click-to-sort.

    A table too wide for a 1280 px window is split like a terminal table (see
    :func:`cranfield.io._terminal.column_pieces`, :data:`HTML_WIDTH` characters): several tables,
    each led by the key columns; the first keeps ``table_id``, the others add ``-2``, ``-3``..."""
    pieces = column_pieces(table, HTML_WIDTH)
    parts = []
    for k, columns in enumerate(pieces):
        identifier = table_id if k == 0 or not table_id else f"{table_id}-{k + 1}"
        attributes = (f' id="{escape(identifier)}"' if identifier else "") + (' class="sortable"' if sortable else "")
        title = table.title + (f" ({k + 1}/{len(pieces)})" if len(pieces) > 1 else "") if table.title else None
        caption = f"<caption>{escape(title)}</caption>" if title else ""
        head = "".join(f'<th scope="col">{escape(str(table.columns[j]))}</th>' for j in columns)
        body = "\n".join("<tr>" + "".join(_cell(table, i, j, row[j]) for j in columns) + "</tr>"
                         for i, row in enumerate(table.rows))
        text = f"<table{attributes}>{caption}<thead><tr>{head}</tr></thead><tbody>\n{body}\n</tbody></table>"
        parts.append(f'<div class="{"scroll" if scroll else "wide-table"}">{text}</div>')
    notes = "".join(f"<p>{escape(n)}</p>" for n in table.notes)
    return "".join(parts) + (f'<div class="notes">{notes}</div>' if notes else "")


def chart_html(figure, name: str, caption: str, *, wide: bool = False) -> str:
    """A figure as an inline SVG chart; ``name`` makes its element ids unique in the page."""
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", name)
    svg = figure_svg(figure, salt=slug)
    classes = "chart wide" if wide else "chart"
    return (f'<figure class="{classes}" id="chart-{slug}" data-chart="{escape(name)}">{svg}'
            f"<figcaption>{escape(caption)}</figcaption></figure>")


def file_info(path: str | Path) -> dict:
    """Name, path, size in bytes and SHA-256 of an input file."""
    path = Path(path)
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return {"name": path.name, "path": str(path), "bytes": path.stat().st_size, "sha256": digest.hexdigest()}


def inputs_html(files: Sequence[tuple[str, dict]], settings: Iterable[tuple[str, str]],
                definitions: Iterable[tuple[str, str]] = (), command: str | None = None) -> str:
    """The reproducibility section: input files with hashes, settings, measure definitions, versions."""
    import numpy

    rows = [[role, info["name"], info["bytes"], info["sha256"], info["path"]] for role, info in files]
    parts = [table_html(Table(["input", "file", "bytes", "SHA-256", "path"], rows, title="Input files"),
                         table_id="inputs")] if rows else []
    environment = [("cranfield", __version__), ("Python", platform.python_version()), ("numpy", numpy.__version__),
                   ("platform", platform.platform(terse=True)),
                   ("generated", datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC"))]
    if command:
        environment.insert(0, ("command", command))
    for title, items in (("Settings", settings_items(list(settings))), ("Measures", list(definitions)),
                         ("Environment", environment)):
        if items:
            body = "".join(f"<dt>{escape(k)}</dt><dd>{_code_if(k, v)}</dd>" for k, v in items)
            parts.append(f"<h3>{title}</h3><dl>{body}</dl>")
    return "\n".join(parts)


def definitions_html(title: str, items: Iterable[tuple[str, str]], *, element_id: str | None = None) -> str:
    """A titled definition list (``<h3>`` + ``<dl>``) of (label, text) pairs."""
    body = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in items)
    attribute = f' id="{escape(element_id)}"' if element_id else ""
    return f"<h3{attribute}>{escape(title)}</h3><dl>{body}</dl>"


def _code_if(key: str, value: str) -> str:
    return f"<code>{escape(value)}</code>" if key == "command" else escape(value)


def results_document(title: str, tables: Sequence[Table], *, figures: dict | None = None, settings=None,
                     inputs: Sequence[tuple[str, str]] = (), subtitle: str = "", command: str | None = None,
                     sections: Sequence[tuple[str, str, str]] = ()) -> str:
    """The page every command's ``--html FILE`` writes: a Results section (``tables``, sortable
    when they have several rows, then any extra ``sections``), Charts (``figures``: ``{name:
    (Figure, caption)}``) and Inputs and settings (``inputs``: (role, path) pairs, hashed)."""
    results = "\n".join(table_html(t, sortable=len(t.rows) > 1, table_id=f"table-{k + 1}", scroll=len(t.rows) > 40)
                        for k, t in enumerate(tables) if t.rows)
    parts = [("results", "Results", results)] if results else []
    parts += list(sections)
    if figures:
        charts = "".join(chart_html(fig, name, caption) for name, (fig, caption) in figures.items())
        parts.append(("charts", "Charts", f'<div class="charts">{charts}</div>'))
    files = [(role, file_info(path)) for role, path in inputs]
    items = settings.items() if hasattr(settings, "items") else (settings or [])
    parts.append(("inputs", "Inputs and settings", inputs_html(files, items, (), command)))
    return document(title, parts, subtitle=subtitle)


def document(title: str, sections: Sequence[tuple[str, str, str]], *, subtitle: str = "") -> str:
    """The whole page: ``sections`` are ``(anchor, heading, inner HTML)``."""
    nav = "".join(f'<a href="#{escape(anchor)}">{escape(heading)}</a>' for anchor, heading, _ in sections)
    body = "\n".join(f'<section id="{escape(anchor)}"><h2>{escape(heading)}</h2>\n{inner}\n</section>'
                     for anchor, heading, inner in sections)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="generator" content="cranfield {escape(__version__)}">
<title>{escape(title)}</title>
<style>{_CSS}</style>
</head>
<body>
<header><h1>{escape(title)}</h1><p class="subtitle">{escape(subtitle)}</p><nav>{nav}</nav></header>
<main>
{body}
</main>
<footer>Made by cranfield {escape(__version__)}. This file is self-contained and works offline.</footer>
<script>{_JS}</script>
</body>
</html>
"""
