"""The LaTeX tables compile into a paper as they are (issue 13, item 2).

Every kind of table that renders LaTeX (comparison summary and pairs, the results of
``cranfield evaluate``, the detection study) with 1, 5 and 12 measures and long system names
full of special characters goes into a minimal ``article`` — at its own text width and at an
ACM-like 241 pt column — with only the packages its ``% Requires:`` line names. Real pdflatex
must compile it without error, without a lost character and without an overfull box, and every
word of the PDF (``pdftotext -bbox``) must lie inside the text block. Skipped when pdflatex or
poppler-utils is missing and CI is unset; under CI a missing tool is a failure.
"""

import re
import subprocess

import numpy as np
import pytest

from cranfield.io.tables import Marked, Table, render_table

from .conftest import require_tool

NAMES = ("bm25_rm3 & rerank {v2} 100%", "tf-idf~baseline #3 $x^2$ \\path", "a_very_long_system_name_without_spaces")
MEASURES = ("AP", "nDCG@10", "P@10", "RR", "RPrec", "P@5", "P@20", "R@100", "nDCG@20", "bpref", "ERR@20",
            "RBP(p=0.8)")
TEXT_WIDTHS = (None, 241)  # the article's default (345 pt), an ACM-like column


def _comparison(n_measures: int, baseline: str | None):
    from cranfield.stats.compare import compare_values

    rng = np.random.default_rng(n_measures)
    values = {name: {m: {f"q{q}": float(rng.random() * (0.6 + 0.2 * i)) for q in range(25)}
                     for m in MEASURES[:n_measures]} for i, name in enumerate(NAMES)}
    return compare_values(values, baseline=baseline)


def _results_table(n_measures: int) -> str:
    rows = [[name, *[0.1234 * (i + 1) / (j + 1) for j in range(n_measures)]] for i, name in enumerate(NAMES)]
    bold = {(2, j + 1) for j in range(n_measures)}
    return render_table(Table(["run", *MEASURES[:n_measures]], rows, bold=bold), "latex")


@pytest.fixture(scope="module")
def tools():
    return require_tool("pdflatex", "texlive-latex-base texlive-latex-recommended"), \
        require_tool("pdftotext", "poppler-utils")


def _preamble_packages(latex: str) -> set[str]:
    found = set()
    for line in re.findall(r"^% Requires: \\usepackage\{([^}]*)\}", latex, flags=re.M):
        found |= {p.strip() for p in line.split(",")}
    return found


def compile_tables(tables: list[str], folder, *, text_width_pt: int | None, tools) -> dict:
    """Compile ``tables`` in an article; returns the log, the text, and where words overflow (pt)."""
    pdflatex, pdftotext = tools
    packages = set().union(*(_preamble_packages(t) for t in tables))
    width = rf"\setlength{{\textwidth}}{{{text_width_pt}pt}}" if text_width_pt else ""
    body = "\n\\clearpage\n".join(tables)
    source = (f"\\documentclass{{article}}\n\\usepackage{{{','.join(sorted(packages))}}}\n{width}\n"
              "\\tracinglostchars=2\n\\begin{document}\n"
              "\\typeout{CRANFIELD-BLOCK=\\the\\dimexpr 1in+\\oddsidemargin\\relax,\\the\\textwidth}\n"
              f"{body}\n\\end{{document}}\n")
    (folder / "doc.tex").write_text(source, encoding="utf-8")
    done = subprocess.run([pdflatex, "-interaction=nonstopmode", "-halt-on-error", "doc.tex"], cwd=folder,
                          capture_output=True, text=True, timeout=120)
    log = (folder / "doc.log").read_text(encoding="latin-1")
    assert done.returncode == 0, log[-3000:]
    left, width = (float(v) for v in re.search(r"CRANFIELD-BLOCK=([\d.]+)pt,([\d.]+)pt", log).groups())
    subprocess.run([pdftotext, "-bbox", "doc.pdf", "words.html"], cwd=folder, check=True, timeout=60)
    words = re.findall(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>',
                       (folder / "words.html").read_text(encoding="utf-8"))
    to_bp = 72 / 72.27  # TeX points to PDF points
    low, high = left * to_bp, (left + width) * to_bp
    overflow = max([0.0] + [max(low - float(x0), float(x1) - high) / to_bp for x0, _, x1, _, _ in words])
    # the height of a number's box is about its font size: the smallest tells how far a table shrank
    numbers = [float(y1) - float(y0) for _, y0, _, y1, text in words if re.fullmatch(r"\[?-?\d\.\d{4},?\]?", text)]
    subprocess.run([pdftotext, "-layout", "doc.pdf", "doc.txt"], cwd=folder, check=True, timeout=60)
    return {"log": log, "text": (folder / "doc.txt").read_text(encoding="utf-8"), "overflow_pt": overflow,
            "words": len(words), "number_height_pt": min(numbers, default=0.0) / to_bp}


def _check(result: dict) -> None:
    assert result["words"] > 0
    assert "Missing character" not in result["log"], re.findall(r"Missing character.*", result["log"])[:3]
    assert "Overfull \\hbox" not in result["log"], re.findall(r"Overfull \\hbox.*", result["log"])[:3]
    assert result["overflow_pt"] <= 0.5, f"text runs {result['overflow_pt']:.1f} pt past the text block"
    assert "¡" not in result["text"] and "¿" not in result["text"]  # <= and >= in the OT1 font


@pytest.mark.slow
@pytest.mark.parametrize("text_width", TEXT_WIDTHS, ids=["article", "acm-column"])
@pytest.mark.parametrize("n_measures", [1, 5, 12])
def test_comparison_tables_compile_and_fit(tmp_path, tools, n_measures, text_width):
    tables = [_comparison(n_measures, None).render("latex", layout="tables"),
              _comparison(n_measures, NAMES[1]).render("latex", layout="tables"),
              _results_table(n_measures)]
    result = compile_tables(tables, tmp_path, text_width_pt=text_width, tools=tools)
    _check(result)
    assert "≤" in result["text"]  # the pairs' note: adjusted p ≤ alpha
    flat = re.sub(r"\s+", " ", result["text"])
    assert "& rerank {v2} 100%" in flat and "#3 $x" in flat  # escaped, so printed as given (\\_ is a rule)


@pytest.mark.slow
def test_detection_tables_compile_and_fit(tmp_path, tools, detection_study):
    for width in TEXT_WIDTHS:
        folder = tmp_path / str(width)
        folder.mkdir()
        _check(compile_tables([detection_study.summary_text("latex")], folder, text_width_pt=width, tools=tools))


def test_latex_table_form(retrieval_study):
    """What the paper needs, without a LaTeX: packages named, numbers right-aligned, marks as
    superscripts, ``$\\le$``, the best value bold and said so, names escaped."""
    latex = _comparison(2, None).render("latex", layout="tables")
    assert latex.startswith("% Requires: \\usepackage{booktabs,graphicx}")
    specs = re.findall(r"\\begin\{tabular\}\{@\{\}([lr]+)@\{\}\}", latex)
    summary = [spec for spec in specs if re.fullmatch("llr+", spec)]  # id, system, then means and CIs
    assert sum(len(spec) - 2 for spec in summary) == 4 and all(len(spec) % 2 == 0 for spec in summary)
    assert "lllrrrrrrlr" in specs  # pairs: measure, a, b, diff, CI, d_z, statistic, p, adjusted p, sig., W/T/L
    assert "<=" not in latex and "$\\le$" in latex
    assert "\\textbf{" in latex and "highest mean per measure" in latex
    assert "bm25\\_rm3 \\& rerank \\{v2\\} 100\\%" in latex
    assert "tf-idf\\textasciitilde{}baseline \\#3 \\$x\\textasciicircum{}2\\$ \\textbackslash{}path" in latex
    assert "\\resizebox{\\linewidth}{!}" in latex
    marked = render_table(Table(["system", "AP"], [["x", Marked("0.5000", "ab")], ["y", Marked("0.4000", "")]]),
                          "latex")
    assert "0.5000$^{\\mathrm{ab}}$ \\\\" in marked and "0.4000 \\\\" in marked
    assert re.search(r"\{@\{\}lr@\{\}\}", marked)
    assert "0.4321 ab" in render_table(Table(["AP"], [[Marked("0.4321", "ab")]]), "csv")


@pytest.mark.slow
def test_wide_tables_split_into_readable_blocks(tmp_path, tools):
    """12 measures in a 241 pt column: the summary and results tables split into column blocks
    (id and system repeated) instead of shrinking to a few points; unshrunk numbers are 8.9 pt
    high in the PDF."""
    from cranfield.stats.compare import compare_values

    rng = np.random.default_rng(0)
    values = {name: {m: {f"q{q}": float(rng.random()) for q in range(20)} for m in MEASURES}
              for name in ("bm25", "tfidf", "coord")}
    summary = compare_values(values).tables()[0]
    latex = render_table(summary, "latex")
    assert latex.count("\\toprule") > 1 and latex.count("id & system & ") == latex.count("\\toprule")
    for table in (latex, _results_table(12).replace(NAMES[0], "bm25").replace(NAMES[1], "tfidf")):
        folder = tmp_path / str(len(list(tmp_path.iterdir())))
        folder.mkdir()
        result = compile_tables([table], folder, text_width_pt=241, tools=tools)
        _check(result)
        assert result["number_height_pt"] >= 6.0, result["number_height_pt"]
