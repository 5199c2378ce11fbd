"""Plots of retrieval evaluation: recall–precision graphs, per-query differences, forest plots.

Every function returns a matplotlib ``Figure`` (or draws on ``ax`` when given and returns its
figure). Recall–precision graphs read the 11-point interpolated precision that
:func:`cranfield.evaluate` computes with the measures in :data:`ELEVEN_POINT_MEASURES`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..errors import UsageError
from ._base import colors, new_axes

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
    ax.set(xlim=(0, 1), ylim=(0, 1.02), xlabel="recall", ylabel="interpolated precision", title=title)
    ax.set_xticks(RECALL_LEVELS)
    ax.grid(True, alpha=0.3)


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
    ax.legend(loc="upper right", fontsize="small")
    return figure


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
            ax.plot(RECALL_LEVELS, row, color="0.55", alpha=0.12, linewidth=0.8)
        ax.plot([], [], color="0.55", linewidth=0.8, label=f"each query ({len(qids)})")
        low, median, high = np.percentile(values, [25, 50, 75], axis=0)
        ax.fill_between(RECALL_LEVELS, low, high, color="#1f77b4", alpha=0.25, label="25th–75th percentile")
        ax.plot(RECALL_LEVELS, median, color="#1f77b4", linestyle="--", linewidth=1.8, label="median")
    else:
        index = {q: i for i, q in enumerate(qids)}
        unknown = [q for q in map(str, queries) if q not in index]
        if unknown:
            raise UsageError(f"queries not in the results: {', '.join(unknown[:5])}")
        for q, color in zip(map(str, queries), colors(len(queries))):
            ax.plot(RECALL_LEVELS, values[index[q]], color=color, marker=".", label=f"query {q}")
    ax.plot(RECALL_LEVELS, values.mean(axis=0), color="black", linewidth=2.5, label="mean")
    _rp_axes(ax, title or f"{name}: recall–precision per query")
    ax.legend(loc="upper right", fontsize="small")
    return figure


def _pair(comparison, measure: str | None, a: str | None, b: str | None):
    measure = measure or comparison.measures[0]
    if measure not in comparison.measures:
        raise UsageError(f"measure {measure!r} was not compared; expected one of {', '.join(comparison.measures)}")
    if a is None or b is None:
        pairs = [p for p in comparison.pairs if p.measure == measure]
        if a is None and b is None and pairs:
            return measure, pairs[0].a, pairs[0].b
        if a is None or b is None:
            raise UsageError("give both systems a and b, or neither (then the first compared pair)")
    return measure, a, b


def difference_plot(comparison, measure: str | None = None, *, a: str | None = None, b: str | None = None,
                    title: str | None = None, ax=None):
    """Per-query differences ``a − b`` of ``measure`` as bars sorted from largest to smallest
    (the "R-precision histogram" of IR courses); green where ``a`` is higher, red where lower,
    the mean difference dashed. Default: the first compared pair on the first measure."""
    measure, a, b = _pair(comparison, measure, a, b)
    diff = comparison.differences(measure, a, b)
    order = np.argsort(-diff, kind="stable")
    sorted_diff = diff[order]
    figure, ax = new_axes(ax, size=(8.0, 4.2))
    x = np.arange(len(diff))
    ax.bar(x, sorted_diff, width=1.0 if len(diff) > 60 else 0.8,
           color=np.where(sorted_diff > 0, "#2ca02c", np.where(sorted_diff < 0, "#d62728", "0.6")))
    ax.axhline(0, color="black", linewidth=0.8)
    ax.axhline(float(diff.mean()), color="black", linestyle="--", linewidth=1,
               label=f"mean difference {diff.mean():+.4f}")
    wins, ties, losses = int((diff > 0).sum()), int((diff == 0).sum()), int((diff < 0).sum())
    ax.set(xlim=(-0.8, len(diff) - 0.2), xlabel="queries, sorted by difference", ylabel=f"{measure}: {a} − {b}",
           title=title or f"{a} vs {b} on {measure}: higher on {wins}, equal on {ties}, lower on {losses} queries")
    if len(diff) <= 40:
        ax.set_xticks(x, [str(q) for q in np.asarray(comparison.query_ids)[order]], rotation=90, fontsize="x-small")
    else:
        ax.set_xticks([])
    ax.legend(loc="upper right", fontsize="small")
    ax.grid(True, axis="y", alpha=0.3)
    return figure


def forest_plot(comparison, *, measures: Sequence[str] | None = None, title: str | None = None, ax=None):
    """Each compared pair's mean difference ``a − b`` with its confidence interval, one row per
    pair and measure; filled markers are significant after correction, open ones are not."""
    chosen = list(measures) if measures is not None else list(comparison.measures)
    pairs = [p for p in comparison.pairs if p.measure in chosen]
    if not pairs:
        raise UsageError("nothing to draw: the comparison has no pairs for " + ", ".join(chosen))
    settings = comparison.settings
    figure, ax = new_axes(ax, size=(7.5, 0.9 + 0.38 * len(pairs)))
    y = np.arange(len(pairs))[::-1]
    for row, p in zip(y, pairs):
        color = "#1f77b4" if p.significant else "0.45"
        ax.plot([p.ci_low, p.ci_high], [row, row], color=color, linewidth=1.6)
        ax.plot([p.diff], [row], marker="o", markersize=7, color=color,
                markerfacecolor=color if p.significant else "white")
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(y, [f"{p.measure}: {p.a} − {p.b}" for p in pairs], fontsize="small")
    level = f"{100 * settings['confidence']:g}%"
    ax.set(xlabel=f"mean difference with {level} CI", ylim=(-0.7, len(pairs) - 0.3),
           title=title or f"Differences between systems\n({settings['test']} test, {settings['correction']} correction)")
    ax.plot([], [], marker="o", color="#1f77b4", linestyle="-", label=f"significant (adjusted p ≤ {settings['alpha']:g})")
    ax.plot([], [], marker="o", color="0.45", markerfacecolor="white", linestyle="-", label="not significant")
    if ax is figure.axes[0] and len(figure.axes) == 1:  # outside, below: never over an interval
        figure.legend(loc="outside lower center", ncol=2, fontsize="small")
    else:
        ax.legend(loc="best", fontsize="small")
    ax.grid(True, axis="x", alpha=0.3)
    return figure
