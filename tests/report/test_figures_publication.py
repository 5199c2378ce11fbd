"""Figures for publication (issue 13, item 3) and the forest plot's agreement with its test.

Every plot function's figure: TrueType (Type 42) fonts in PDF and PostScript (checked with
poppler's ``pdffonts``: skipped when it is missing and CI is unset, a failure under CI), every
visible text inside the figure as saved, lines and bars in the Okabe–Ito palette (or neutral
greys), one font-size scale, legends off the axes; the user's global rcParams untouched. The
forest plot: an interval clear of zero exactly when its marker is filled (significant), and a
legend that names the test and the correction.
"""

import io
import re
import subprocess

import numpy as np
import pytest

from cranfield import ConfusionMatrix, plots
from cranfield.plots._style import FONT_SIZES, NEUTRALS, PALETTE

from .conftest import require_tool

LONG = "a_system_with_a_rather_long_name_v2"


def _comparison(test="t", correction="holm", n_systems=4, n_queries=30, names=None, seed=0):
    from cranfield.stats.compare import compare_values

    rng = np.random.default_rng(seed)
    base = rng.random(n_queries)
    names = names or [f"s{i}" for i in range(n_systems)]
    values = {name: {"AP": {f"q{q}": float(np.clip(base[q] + 0.06 * i + rng.normal(0, 0.15), 0, 1))
                            for q in range(n_queries)}} for i, name in enumerate(names)}
    return compare_values(values, test=test, correction=correction, n_permutations=2000)


def _curve():
    from cranfield.protocols.curves import ScoreCurve

    train = np.array([[0.9, 0.92, 0.91], [0.8, 0.82, 0.81], [0.7, 0.71, 0.72]])
    return ScoreCurve("validation", "C", np.array([0.01, 1.0, 100.0]), train, train - 0.1, "accuracy")


@pytest.fixture(scope="module")
def figures(retrieval_study):
    """One figure of every plot function (and its variants), with long names and titles."""
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 300)
    scores = {LONG: y * 0.8 + rng.random(300), "b": rng.random(300), "c": y * 0.3 + rng.random(300)}
    results = retrieval_study.results
    first = next(iter(results.values()))
    small = _comparison(names=[LONG, "b", "c"], n_queries=25)
    cm = ConfusionMatrix(np.array([[50, 10, 3], [5, 40, 8], [2, 9, 70]]), ["cat", "dog", LONG])
    out = {
        "recall_precision": plots.recall_precision_plot(results),
        "per_query_pr": plots.per_query_pr_plot(first),
        "per_query_pr_chosen": plots.per_query_pr_plot(first, queries=["1", "2", "3"]),
        "difference": plots.difference_plot(retrieval_study.comparison),
        "difference_labelled": plots.difference_plot(small, title=f"{LONG} against b: a title that is far too "
                                                                  "long for one line of this figure, on purpose"),
        "forest": plots.forest_plot(retrieval_study.comparison),
        "forest_long_names": plots.forest_plot(small),
        "roc": plots.roc_plot(y, scores),
        "pr": plots.pr_plot(y, scores),
        "det": plots.det_plot(y, scores),
        "confusion": plots.confusion_matrix_plot(cm),
        "confusion_normalised": plots.confusion_matrix_plot(cm, normalize="actual"),
        "threshold": plots.threshold_plot(y, {LONG: scores[LONG]}),
    }
    out["validation_curve"] = plots.validation_curve_plot(_curve())
    out["learning_curve"] = plots.learning_curve_plot(_curve())
    return out


@pytest.fixture(scope="module")
def drawn(figures):
    """Each figure drawn once on an Agg canvas: ``{name: (figure, renderer)}``."""
    return {name: (figure, _agg(figure)) for name, figure in figures.items()}


def _agg(figure):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    return canvas.get_renderer()


def _texts(figure):
    """The texts a renderer draws: visible, not empty, tick labels only of ticks in view."""
    from matplotlib.text import Text

    hidden = set()
    for ax in figure.axes:
        for axis in (ax.xaxis, ax.yaxis):
            low, high = sorted(axis.get_view_interval())
            span = (high - low) * 1e-9
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not low - span <= tick.get_loc() <= high + span:
                    hidden |= {id(tick.label1), id(tick.label2)}
    return [t for t in figure.findobj(Text) if t.get_visible() and t.get_text().strip() and id(t) not in hidden]


def test_pdf_fonts_are_truetype(figures, tmp_path):
    pdffonts = require_tool("pdffonts", "poppler-utils")
    import matplotlib

    with matplotlib.rc_context({"pdf.fonttype": 3}):  # the user's own setting does not leak in
        for name, figure in figures.items():
            path = plots.save_figure(figure, tmp_path / f"{name}.pdf")
            listing = subprocess.run([pdffonts, str(path)], capture_output=True, text=True, check=True).stdout
            rows = listing.splitlines()[2:]
            assert rows, f"{name}: no font in the PDF"
            assert not [r for r in rows if "Type 3" in r], f"{name}: Type 3 fonts\n{listing}"
            assert all("TrueType" in r for r in rows), f"{name}:\n{listing}"


def test_postscript_fonts_are_type42(figures):
    for name in ("det", "confusion"):
        buffer = io.BytesIO()
        figures[name].savefig(buffer, format="ps")
        data = buffer.getvalue()
        assert b"/FontType 42" in data and b"/FontType 3" not in data, name


def test_no_text_is_clipped(drawn):
    """Every visible text lies inside the figure as :func:`save_figure` writes it (no tight bbox)."""
    for name, (figure, renderer) in drawn.items():
        box = figure.bbox
        for text in _texts(figure):
            extent = text.get_window_extent(renderer)
            inside = (extent.x0 >= box.x0 - 1 and extent.y0 >= box.y0 - 1 and extent.x1 <= box.x1 + 1
                      and extent.y1 <= box.y1 + 1)
            assert inside, f"{name}: {text.get_text()[:60]!r} at {extent} outside the figure {box}"


def test_one_font_size_scale(drawn):
    allowed = set(FONT_SIZES.values())
    for name, (figure, _) in drawn.items():
        sizes = {round(t.get_fontsize(), 2) for t in _texts(figure)}
        assert sizes <= allowed, f"{name}: sizes {sorted(sizes - allowed)} not in {FONT_SIZES}"


def test_lines_and_bars_use_the_palette(figures):
    from matplotlib.colors import to_hex

    allowed = {c.lower() for c in PALETTE + NEUTRALS}
    for name, figure in figures.items():
        for ax in figure.axes:
            used = [line.get_color() for line in ax.lines] + [line.get_markerfacecolor() for line in ax.lines]
            used += [patch.get_facecolor() for patch in ax.patches]
            used += [c for coll in ax.collections if not hasattr(coll, "get_array") or coll.get_array() is None
                     for c in coll.get_facecolor()]
            hexes = {to_hex(c).lower() for c in used if not (isinstance(c, str) and c == "none")}
            assert hexes <= allowed, f"{name}: colours {sorted(hexes - allowed)} outside the palette"


def test_legends_lie_off_the_axes(drawn):
    """DET above all: its legend never covers the diagonal, because it is below the axes."""
    for name in ("recall_precision", "per_query_pr", "difference", "forest", "roc", "pr", "det", "threshold",
                 "validation_curve"):
        figure, renderer = drawn[name]
        legends = list(figure.legends) + [ax.get_legend() for ax in figure.axes if ax.get_legend()]
        assert legends, name
        for legend in legends:
            box = legend.get_window_extent(renderer)
            for ax in figure.axes:
                assert not box.overlaps(ax.get_window_extent(renderer)), f"{name}: the legend covers the axes"


def test_global_rcparams_untouched():
    import matplotlib

    before = dict(matplotlib.rcParams)
    plots.roc_plot([0, 1, 0, 1], [0.1, 0.8, 0.3, 0.6])
    assert dict(matplotlib.rcParams) == before


def _drawn_rows(figure):
    """Per row y of a forest plot: the interval drawn and whether its round marker is filled."""
    from matplotlib.colors import to_hex

    ax = figure.axes[0]
    intervals, filled = {}, {}
    for line in ax.lines:
        x, y = line.get_xdata(), line.get_ydata()
        if len(x) == 2 and y[0] == y[1]:
            intervals[float(y[0])] = (min(x), max(x))
        elif len(x) == 1 and line.get_marker() == "o":
            filled[float(y[0])] = to_hex(line.get_markerfacecolor()) != "#ffffff"
    assert intervals.keys() == filled.keys()
    return intervals, filled


def _check_forest(comparison):
    figure = plots.forest_plot(comparison)
    intervals, filled = _drawn_rows(figure)
    ys = sorted(intervals, reverse=True)
    assert len(ys) == len(comparison.pairs)
    for y, pair in zip(ys, comparison.pairs):
        low, high = intervals[y]
        clear = low > 0 or high < 0
        assert clear == filled[y] == pair.significant, (pair, low, high)
    return figure


def test_forest_interval_and_marker_agree_on_the_misreported_case(retrieval_study):
    c = retrieval_study.comparison  # t test, Holm correction, normal intervals
    misreported = [p for p in c.pairs if (p.ci_low > 0 or p.ci_high < 0) != p.significant]
    assert misreported, "precondition: the data has a normal interval clear of zero that is not significant"
    figure = _check_forest(c)
    title = figure.legends[0].get_title().get_text().replace("\n", " ")
    assert "paired t test" in title and "Holm correction" in title
    assert any("adjusted p ≤ 0.05" in t.get_text() for t in figure.legends[0].get_texts())


@pytest.mark.parametrize("test", ["t", "wilcoxon", "sign", "randomization", "bootstrap"])
@pytest.mark.parametrize("correction", ["none", "bonferroni", "holm", "bh", "tukey"])
def test_forest_interval_and_marker_agree_for_every_test_and_correction(test, correction):
    c = _comparison(test, correction, n_systems=4, n_queries=30, seed=3)
    assert 0 < sum(p.significant for p in c.pairs) or correction != "none"
    figure = _check_forest(c)
    title = figure.legends[0].get_title().get_text().replace("\n", " ")
    from cranfield.stats._report import _CORRECTION_NAMES, _TEST_NAMES

    assert _TEST_NAMES[test] in title and _CORRECTION_NAMES[correction] in title
    assert re.search(r"mean|median|Hodges", figure.axes[0].get_xlabel())


def test_forest_edge_cases_keep_the_agreement():
    """A significant sign test whose median difference is 0 (many ties), and an exact randomization
    test on 5 queries that cannot reach alpha (no shift rejected: the interval is unbounded)."""
    from cranfield.stats.compare import compare_values

    ties = {"a": {"AP": {f"q{q}": 0.5 + 0.1 * (q < 10) for q in range(21)}},
            "b": {"AP": {f"q{q}": 0.5 for q in range(21)}}}
    c = compare_values(ties, test="sign")
    assert c.pairs[0].significant and np.median(c.differences("AP", "a", "b")) == 0
    _check_forest(c)
    few = {"a": {"AP": {f"q{q}": 0.9 for q in range(5)}}, "b": {"AP": {f"q{q}": 0.1 * q for q in range(5)}}}
    c = compare_values(few, test="randomization")
    assert not c.pairs[0].significant
    figure = _check_forest(c)
    assert {line.get_marker() for line in figure.axes[0].lines} >= {"<", ">"}  # unbounded both ways
