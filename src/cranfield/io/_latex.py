"""LaTeX rendering of a :class:`~cranfield.io.tables.Table`, ready for a paper.

A booktabs ``table`` float whose first line names the packages it needs; numbers (and
intervals, counts) right-aligned; significance marks of :class:`~cranfield.io.tables.Marked`
cells as superscripts; bold cells said in the caption; every string escaped in one pass; wide
tables split into column blocks that repeat the leading label columns, and the whole shrunk to
``\\linewidth`` only when it is still wider (never enlarged).
"""

from __future__ import annotations

import re

from ._table_model import Marked, Table

__all__ = ["LATEX_PACKAGES", "render_latex", "latex_escape", "render_paper_table"]

# what the LaTeX output needs in the preamble (said in its first line)
LATEX_PACKAGES = ("booktabs", "graphicx")
# a block of columns is split off when its estimated width passes an article's text width
_BLOCK_PT = 345.0
_CHAR_PT, _COLUMN_PT = 5.0, 12.0  # a digit of 10 pt Computer Modern; \tabcolsep on both sides

_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "<=": r"$\le$", ">=": r"$\ge$", "≤": r"$\le$", "≥": r"$\ge$", "<": r"\textless{}",
                  ">": r"\textgreater{}", "|": r"\textbar{}", "−": r"$-$", "±": r"$\pm$", "×": r"$\times$",
                  "…": r"\dots{}", "½": r"$\frac12$", "Σ": r"$\Sigma$", "α": r"$\alpha$", "†": r"$\dagger$", "‡": r"$\ddagger$"}
_LATEX_PATTERN = re.compile("|".join(re.escape(k) for k in sorted(_LATEX_SPECIAL, key=len, reverse=True)))


def latex_escape(text: str) -> str:
    """``text`` as LaTeX text in one pass: the ten special characters escaped, ``<=``/``>=``
    (and ≤ ≥ − ± ×) as math symbols, ``< > |`` as text symbols (the default OT1 font has none)."""
    return _LATEX_PATTERN.sub(lambda m: _LATEX_SPECIAL[m.group()], text)


_NUMBER_TEXT = re.compile(r"[-+−]?[\[(]?[-+−]?\d[\d.,eE+\-−/ %]*[\])]?")


def _numeric_column(table: Table, j: int) -> bool:
    """Numbers, marked numbers, intervals ``[a, b]`` and counts ``w/t/l``: right-aligned in LaTeX."""
    def numeric(value) -> bool:
        if value is None or isinstance(value, (int, float, Marked)):
            return True
        return isinstance(value, str) and (not value or _NUMBER_TEXT.fullmatch(value) is not None)

    return bool(table.rows) and all(numeric(row[j]) for row in table.rows)


def _latex_mark(mark: str) -> str:
    if re.fullmatch(r"[A-Za-z0-9+\-*]+", mark):
        return rf"$^{{\mathrm{{{mark}}}}}$" if mark.isalnum() else "$^{" + mark.replace("*", r"\ast") + "}$"
    return rf"\textsuperscript{{{latex_escape(mark)}}}"


def _blocks(table: Table, numeric: list[bool]) -> tuple[int, list[list[int]]]:
    """The leading label columns (repeated in every block) and the blocks of the other columns,
    each of ``table.column_group`` columns kept together, so that a block's estimated width
    stays under an article's text width (a table whose other columns are not all numbers, or
    that fits, is one block)."""
    n = len(table.columns)
    keys = next((j for j in range(n) if numeric[j]), n)
    rest = list(range(keys, n))
    if not rest or not all(numeric[j] for j in rest):
        return keys, [rest]

    def width(j: int) -> float:
        texts = [str(table.columns[j])] + [table.cell_text(row[j]) for row in table.rows]
        return _COLUMN_PT + _CHAR_PT * max(map(len, texts))

    size = max(1, table.column_group)
    groups = [rest[i:i + size] for i in range(0, len(rest), size)]
    base = sum(width(j) for j in range(keys))
    blocks, current, used = [], [], base
    for group in groups:
        extra = sum(width(j) for j in group)
        if current and used + extra > _BLOCK_PT:
            blocks.append(current)
            current, used = [], base
        current += group
        used += extra
    return keys, blocks + [current]


def render_latex(table: Table) -> str:
    """A booktabs ``table`` float: numbers right-aligned, marks as superscripts, bold best
    values; column blocks for wide tables, shrunk to ``\\linewidth`` when still wider."""
    def fmt(i: int, j: int, value) -> str:
        if isinstance(value, Marked):
            text = latex_escape(value.text)
            mark = _latex_mark(value.mark) if value.mark else ""
        else:
            text, mark = latex_escape(table.cell_text(value)), ""
        return (rf"\textbf{{{text}}}" if (i, j) in table.bold and text else text) + mark

    numeric = [_numeric_column(table, j) for j in range(len(table.columns))]
    keys, blocks = _blocks(table, numeric)
    caption = table.title or ""
    if table.bold and not any("bold" in note.lower() for note in table.notes):
        caption = f"{caption}. Bold: {table.bold_meaning}." if caption else f"Bold: {table.bold_meaning}."
    lines = [rf"% Requires: \usepackage{{{','.join(LATEX_PACKAGES)}}}",
             "% Bold: " + (table.bold_meaning if table.bold else "none") + ("; " + str(len(blocks)) +
                                                                             " column blocks" if len(blocks) > 1 else "")
             + "; shrunk to the line width only when wider",
             r"\begin{table}[ht]", r"\centering"]
    if caption:
        lines.append(rf"\caption{{{latex_escape(caption)}}}")
    lines += [r"\sbox0{%", r"\begin{tabular}{@{}c@{}}" if len(blocks) > 1 else "%"]
    for b, block in enumerate(blocks):
        columns = list(range(keys)) + block
        align = "".join("r" if numeric[j] else "l" for j in columns)
        lines += [rf"\begin{{tabular}}{{@{{}}{align}@{{}}}}", r"\toprule",
                  " & ".join(latex_escape(str(table.columns[j])) for j in columns) + r" \\", r"\midrule"]
        for i, row in enumerate(table.rows):
            lines.append(" & ".join(fmt(i, j, row[j]) for j in columns) + r" \\")
        lines += [r"\bottomrule", r"\end{tabular}"]
        if len(blocks) > 1:
            lines.append(r"\\[2ex]" if b < len(blocks) - 1 else r"\\")
    lines += [r"\end{tabular}}%" if len(blocks) > 1 else "}%",
              r"\ifdim\wd0>\linewidth\resizebox{\linewidth}{!}{\usebox0}\else\usebox0\fi"]
    if table.notes:
        lines.append(r"\par\smallskip{\footnotesize\raggedright")
        lines += [latex_escape(note) + r"\par" for note in table.notes]
        lines.append("}")
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


# -- the paper table: one tabular, systems x measures ------------------------------------------

# a paper's column holds this many measures and systems; beyond, the table spans both columns
PAPER_COLUMN_MEASURES, PAPER_COLUMN_SYSTEMS = 6, 8
# sizes tried in turn until the tabular fits the line (then, only then, it is scaled down)
_PAPER_SIZES = ((r"\small", "5pt"), (r"\footnotesize", "4pt"), (r"\scriptsize", "2pt"))


def _paper_mark(mark: str) -> str:
    """A significance mark as a text superscript: letters (runs of three or more consecutive
    letters written as a range, ``bcdefgh`` -> ``b–h``), or the dagger / double dagger."""
    if not mark:
        return ""
    symbols = {"†": r"$\dagger$", "‡": r"$\ddagger$"}
    if all(ch in symbols for ch in mark):
        return r"\textsuperscript{" + "".join(symbols[ch] for ch in mark) + "}"
    letters, parts, i = sorted(mark), [], 0
    while i < len(letters):
        j = i
        while j + 1 < len(letters) and ord(letters[j + 1]) == ord(letters[j]) + 1:
            j += 1
        parts.append(letters[i] + "--" + letters[j] if j - i >= 2 else "".join(letters[i:j + 1]))
        i = j + 1
    return r"\textsuperscript{" + latex_escape("".join(parts)).replace(r"\textendash{}", "--") + "}"


def render_paper_table(rows: list[str], columns: list[str], values, *, marks=None, bold=frozenset(),
                       caption: str = "", label: str | None = None, wide: bool | None = None,
                       digits: int = 4, row_header: str = "System") -> str:
    r"""The table papers print: one booktabs ``tabular``, a row per system and a column per
    measure (``values[i][j]``), bold cells ``bold`` (pairs ``(i, j)``), significance marks
    ``marks[(i, j)]`` as superscripts (letters, written as ranges ``b–h``, or † ‡) and the
    caption above it, as the ACM and IEEE classes want. It goes in a ``table`` float, which the
    tabular fits at ``\small``, else ``\footnotesize``, else ``\scriptsize`` with narrower column
    gaps (chosen by TeX with the paper's own fonts); only a tabular still wider than the line is
    scaled down to it. With more than 6 measures or 8 systems (``wide=None``), or ``wide=True``,
    it is a ``table*`` spanning both columns of a two-column paper (``\textwidth``).
    """
    marks = marks or {}
    wide = (len(columns) > PAPER_COLUMN_MEASURES or len(rows) > PAPER_COLUMN_SYSTEMS) if wide is None else wide
    env = "table*" if wide else "table"

    def cell(i: int, j: int) -> str:
        value = values[i][j]
        text = "--" if value is None else f"{value:.{digits}f}"
        return (rf"\textbf{{{text}}}" if (i, j) in bold else text) + _paper_mark(marks.get((i, j), ""))

    body = [" & ".join([latex_escape(row_header), *(latex_escape(str(c)) for c in columns)]) + r" \\", r"\midrule"]
    body += [" & ".join([latex_escape(str(name)), *(cell(i, j) for j in range(len(columns)))]) + r" \\"
             for i, name in enumerate(rows)]
    tabular = "\n".join([rf"\begin{{tabular}}{{@{{}}l{'r' * len(columns)}@{{}}}}", r"\toprule", *body,
                         r"\bottomrule", r"\end{tabular}"])
    fits = [rf"\sbox0{{{size}\setlength{{\tabcolsep}}{{{sep}}}\cranfieldtabular}}" for size, sep in _PAPER_SIZES]
    lines = [r"% Requires: \usepackage{booktabs,graphicx}",
             (f"% The paper table: one {env} ({'both columns' if wide else 'one column'} of a two-column paper); "
              r"its tabular is set at \small, \footnotesize or \scriptsize, the first that fits the line"),
             rf"\begin{{{env}}}[tb]", r"\centering"]
    if caption:
        lines.append(rf"\caption{{{latex_escape(caption)}}}")
    if label:
        lines.append(rf"\label{{{label}}}")
    lines += [r"\def\cranfieldtabular{%", tabular + "}%", fits[0] + "%"]
    lines += [r"\ifdim\wd0>\linewidth " + fit + r"\fi%" for fit in fits[1:]]
    lines += [r"\ifdim\wd0>\linewidth\resizebox{\linewidth}{!}{\usebox0}\else\usebox0\fi", rf"\end{{{env}}}"]
    return "\n".join(lines) + "\n"
