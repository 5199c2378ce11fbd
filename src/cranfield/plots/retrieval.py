"""Plots of retrieval evaluation: recall–precision graphs, per-query differences, forest plots.

Every function returns a matplotlib ``Figure`` (or draws on ``ax`` when given and returns its
figure). Recall–precision graphs read the 11-point interpolated precision that
:func:`cranfield.evaluate` computes with the measures in :data:`ELEVEN_POINT_MEASURES`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .._params import usage_error
from ..errors import UsageError
from ..stats._report import _CORRECTION_NAMES, _TEST_NAMES
from ._base import colors, new_axes
from ._style import HIGHER, LOWER, NEUTRALS, PALETTE, outside_legend, styled, wrap_title
from ._test_intervals import CENTRE_NAMES, test_intervals

__all__ = ["ELEVEN_POINT_MEASURES", "RECALL_LEVELS", "recall_precision_plot", "per_query_pr_plot",
           "difference_plot", "forest_plot"]

RECALL_LEVELS = tuple(i / 10 for i in range(11))
ELEVEN_POINT_MEASURES = tuple(f"IPrec@{level:g}" for level in RECALL_LEVELS)


def _named_results(results: Any) -> dict[str, Any]:
    """A Results, a sequence of Results (named by run) or a mapping name -> Results."""
    if isinstance(results, Mapping):
        named = {str(name): r for name, r in results.items()}
    elif isinstance(results, Sequence) and not isinstance(results, str):
        named = {}
        for i, r in enumerate(results):
            name = str(getattr(r, "run_name", None) or f"run{i + 1}")
            named[name if name not in named else f"{name} ({i + 1})"] = r
    else:
        named = {str(getattr(results, "run_name", None) or "run"): results}
    if not named:
        raise UsageError("results: expected at least one Results, found none")
    return named


def eleven_point(results) -> np.ndarray:
    """Per-query interpolated precision at recall 0, 0.1, …, 1: shape (queries, 11)."""
    per_query = getattr(results, "per_query", None)
    if per_query is None:
        raise UsageError(f"expected a cranfield Results, found {type(results).__name__}")
    missing = [m for m in ELEVEN_POINT_MEASURES if m not in per_query]
    if missing:
        raise UsageError("a recall-precision graph needs the 11-point interpolated precision; evaluate with "
                         "cranfield.plots.ELEVEN_POINT_MEASURES (IPrec@0 … IPrec@1); missing: " + ", ".join(missing))
    return np.column_stack([np.asarray(per_query[m], dtype=np.float64) for m in ELEVEN_POINT_MEASURES])


def _rp_axes(ax, title: str) -> None:
    ax.set(xlim=(0, 1), ylim=(0, 1.02), xlabel="recall", ylabel="interpolated precision")
    wrap_title(ax, title)
    ax.set_xticks(RECALL_LEVELS)
    ax.grid(True, alpha=0.3)


@styled
def recall_precision_plot(results: Any, *, title: str | None = None, ax=None):
    """The recall–precision graph: each system's 11-point interpolated precision, averaged over
    queries, on one chart (legend: system and its 11-point average). ``results``: a Results, a
    list of them or a mapping name -> Results, evaluated with :data:`ELEVEN_POINT_MEASURES`."""
    named = _named_results(results)
    figure, ax = new_axes(ax)
    markers = "osD^v<>phX*"
    for (name, r), color, marker in zip(named.items(), colors(len(named)), markers * len(named)):
        curve = eleven_point(r).mean(axis=0)
        ax.plot(RECALL_LEVELS, curve, marker=marker, color=color, label=f"{name} (11-pt avg {curve.mean():.3f})")
    _rp_axes(ax, title or "Recall–precision (11-point interpolated, mean over queries)")
    outside_legend(figure, ax, loc_inside="upper right")
    return figure


@styled
def per_query_pr_plot(results: Any, *, queries: Sequence[str] | None = None, title: str | None = None, ax=None):
    """One system's 11-point interpolated recall–precision curve of each query (faint grey
    lines, with the interquartile band and the median; or only the ``queries`` given, in colour
    with a legend) and their mean (bold)."""
    named = _named_results(results)
    if len(named) != 1:
        raise UsageError(f"per_query_pr_plot draws one system; found {len(named)}: pass one Results")
    (name, r), = named.items()
    values = eleven_point(r)
    qids = [str(q) for q in r.query_ids]
    figure, ax = new_axes(ax)
    if queries is None:
        for row in values:
            ax.plot(RECALL_LEVELS, row, color=NEUTRALS[3], alpha=0.12, linewidth=0.8)
        ax.plot([], [], color=NEUTRALS[3], linewidth=0.8, label=f"each query ({len(qids)})")
        low, median, high = np.percentile(values, [25, 50, 75], axis=0)
        ax.fill_between(RECALL_LEVELS, low, high, color=PALETTE[0], alpha=0.25, label="25th–75th percentile")
        ax.plot(RECALL_LEVELS, median, color=PALETTE[0], linestyle="--", linewidth=1.8, label="median")
    else:
        index = {q: i for i, q in enumerate(qids)}
        unknown = [q for q in map(str, queries) if q not in index]
        if unknown:
            raise UsageError(f"queries not in the results: {', '.join(unknown[:5])}")
        for q, color in zip(map(str, queries), colors(len(queries))):
            ax.plot(RECALL_LEVELS, values[index[q]], color=color, marker=".", label=f"query {q}")
    ax.plot(RECALL_LEVELS, values.mean(axis=0), color="black", linewidth=2.5, label="mean")
    _rp_axes(ax, title or f"{name}: recall–precision per query")
    outside_legend(figure, ax, loc_inside="upper right")
    return figure


def _pair(comparison, measure: str | None, a: str | None, b: str | None):
    measure = measure or comparison.measures[0]
    if measure not in comparison.measures:
        raise usage_error("measure", f"a compared measure: one of {', '.join(comparison.measures)}", measure)
    if a is None or b is None:
        pairs = [p for p in comparison.pairs if p.measure == measure]
        if a is None and b is None and pairs:
            return measure, pairs[0].a, pairs[0].b
        if a is None or b is None:
            raise UsageError("give both systems a and b, or neither (then the first compared pair)")
    return measure, a, b


@styled
def difference_plot(comparison, measure: str | None = None, *, a: str | None = None, b: str | None = None,
                    title: str | None = None, ax=None):
    """Per-query differences ``a − b`` of ``measure`` as bars sorted from largest to smallest
    (the "R-precision histogram" of IR courses); blue where ``a`` is higher, orange and hatched
    where lower (apart for every colour vision, and in grey print), the mean difference dashed.
    Default: the first compared pair on the first measure."""
    from matplotlib.patches import Patch

    measure, a, b = _pair(comparison, measure, a, b)
    diff = comparison.differences(measure, a, b)
    order = np.argsort(-diff, kind="stable")
    sorted_diff = diff[order]
    figure, ax = new_axes(ax, size=(8.0, 4.2))
    x = np.arange(len(diff))
    bars = ax.bar(x, sorted_diff, width=1.0 if len(diff) > 60 else 0.8,
                  color=np.where(sorted_diff > 0, HIGHER, np.where(sorted_diff < 0, LOWER, NEUTRALS[3])))
    for bar, value in zip(bars, sorted_diff):
        if value < 0:
            bar.set_hatch("///")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.axhline(float(diff.mean()), color="black", linestyle="--", linewidth=1,
               label=f"mean difference {diff.mean():+.4f}")
    wins, ties, losses = int((diff > 0).sum()), int((diff == 0).sum()), int((diff < 0).sum())
    ax.set(xlim=(-0.8, len(diff) - 0.2), xlabel="queries, sorted by difference", ylabel=f"{measure}: {a} − {b}")
    wrap_title(ax, title or f"{a} vs {b} on {measure}: higher on {wins}, equal on {ties}, lower on {losses} queries")
    if len(diff) <= 40:
        ax.set_xticks(x, [str(q) for q in np.asarray(comparison.query_ids)[order]], rotation=90)
    else:
        ax.set_xticks([])
    ax.grid(True, axis="y", alpha=0.3)
    outside_legend(figure, ax, loc_inside="upper right",
                   extra=(Patch(color=HIGHER, label=f"{a} higher ({wins})"),
                          Patch(facecolor=LOWER, hatch="///", label=f"{a} lower ({losses})")))
    return figure


@styled
def forest_plot(comparison, *, measures: Sequence[str] | None = None, title: str | None = None, ax=None):
    """Each compared pair's difference ``a − b`` with an interval from the comparison's own test
    and correction, one row per pair and measure: the shifts that test does not reject at the
    pair's adjusted level (see :mod:`cranfield.plots._test_intervals`), so an interval excludes
    zero exactly when the pair is significant (filled marker); open markers are not significant.
    The legend names the test, the correction and alpha."""
    chosen = list(measures) if measures is not None else list(comparison.measures)
    pairs = [p for p in comparison.pairs if p.measure in chosen]
    if not pairs:
        raise UsageError("nothing to draw: the comparison has no pairs for " + ", ".join(chosen))
    settings = comparison.settings
    d = np.stack([comparison.differences(p.measure, p.a, p.b) for p in pairs])
    centre, low, high = test_intervals(d, test=settings["test"], p_values=[p.p_value for p in pairs],
                                       p_adjusted=[p.p_adjusted for p in pairs],
                                       significant=[p.significant for p in pairs], alpha=settings["alpha"],
                                       n_permutations=settings["n_permutations"],
                                       random_state=settings["random_state"],
                                       zero_method=settings.get("zero_method", "wilcox"))
    figure, ax = new_axes(ax, size=(7.5, 1.6 + 0.3 * len(pairs)))
    y = np.arange(len(pairs))[::-1]
    finite = np.concatenate([centre, low[np.isfinite(low)], high[np.isfinite(high)], [0.0]])
    pad = 0.05 * (finite.max() - finite.min() or 1.0)
    left, right = finite.min() - pad, finite.max() + pad
    on, off = PALETTE[0], NEUTRALS[2]
    for row, p, c, lo, hi in zip(y, pairs, centre, low, high):
        color = on if p.significant else off
        ax.plot([max(lo, left), min(hi, right)], [row, row], color=color, linewidth=1.6)
        for end, edge, marker in ((lo, left, "<"), (hi, right, ">")):
            if not np.isfinite(end):  # no shift rejected on this side: unbounded
                ax.plot([edge], [row], marker=marker, color=color, markersize=6)
        ax.plot([c], [row], marker="o", markersize=7, color=color, markerfacecolor=color if p.significant else "white")
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(y, [f"{p.measure}: {p.a} − {p.b}" for p in pairs])
    test, correction = _TEST_NAMES[settings["test"]], _CORRECTION_NAMES[settings["correction"]]
    ax.set(xlabel=f"{CENTRE_NAMES[settings['test']]} difference a − b", ylim=(-0.7, len(pairs) - 0.3),
           xlim=(left, right))
    wrap_title(ax, title or "Differences between systems")
    ax.plot([], [], marker="o", color=on, linestyle="-", label=f"significant: adjusted p ≤ {settings['alpha']:g}")
    ax.plot([], [], marker="o", color=off, markerfacecolor="white", linestyle="-", label="not significant")
    outside_legend(figure, ax, title=f"{test}, {correction}; interval: the shifts this test does not reject "
                                     "at the pair's adjusted level")
    ax.grid(True, axis="x", alpha=0.3)
    return figure
