"""Presentation of pools and of their reusability: tables (terminal, CSV, Markdown, LaTeX,
JSON), a ranking-stability chart and an HTML section / page (see :mod:`cranfield.judgments`)."""

from __future__ import annotations

from typing import Mapping

import numpy as np

from .._exact import snap_ties
from ..io._format import settings_items
from ..io.json_text import json_text
from ..io.tables import Table, render_table
from ..judgments import build_pool, leave_one_out
from ..plots._base import colors, new_axes
from .html import chart_html, document, escape, table_html

__all__ = ["reusability_table", "reusability_summary_table", "render_reusability", "pool_size_table",
           "pool_run_table", "stability_figure", "judgments_section", "judgments_page", "add_section",
           "pools_at_depths", "reusability_by_pool_tables", "demo_text", "demo_section"]


def reusability_table(result, *, digits: int = 4) -> Table:
    """One row per run × measure: score, left-out score, change, rank, left-out rank, change."""
    columns, rows = list(result.COLUMNS), result.rows()
    by_run = result.settings.get("groups") == "runs"
    if by_run:  # each run its own group: no group column
        columns, rows = columns[:1] + columns[2:], [row[:1] + row[2:] for row in rows]
    return Table(columns, rows, digits=digits,
                 title=f"Leave-one-{'run' if by_run else 'group'}-out "
                       f"(depth-{result.settings['depth']} pool)",
                 notes=["left_out: the run scored without the judgments only its group contributed; delta = "
                        "left_out − score; rank: among all runs (1 = best); left_out_rank: the left-out score "
                        "among the other runs' full scores; rank_change > 0: the run drops."])


def reusability_summary_table(result, *, digits: int = 4) -> Table:
    """One row per measure: τ and τ_AP between the rankings with and without, and the changes."""
    return Table(list(result.SUMMARY_COLUMNS), result.summary_rows(), digits=digits,
                 title="System rankings with all judgments vs each run left out",
                 notes=["tau: Kendall's tau-b; tau_ap: Yilmaz et al. 2008 (reference: the full ranking; ties in "
                        "the order of the runs given); empty: undefined (every run tied)."])


def render_reusability(result, fmt: str = "table", *, digits: int = 4) -> str:
    """The two tables in ``fmt`` (CSV/TSV: the per-run table only, tidy), or one JSON document."""
    if fmt == "json":
        return json_text(result.to_dict(), indent=1, ensure_ascii=True)
    if fmt in ("csv", "tsv"):  # tidy: every column, the group included
        return render_table(Table(list(result.COLUMNS), result.rows()), fmt)
    return (render_table(reusability_table(result, digits=digits), fmt) + "\n"
            + render_table(reusability_summary_table(result, digits=digits), fmt))


def pool_size_table(pools: Mapping[str, object]) -> Table:
    """Per pool (e.g. per depth): documents to judge, and their number per query (min, mean, max)."""
    rows = [[label, len(pool), int(pool.pool_size.min()), float(pool.pool_size.mean()), int(pool.pool_size.max())]
            for label, pool in pools.items()]
    return Table(["pool", "documents", "min/query", "mean/query", "max/query"], rows, digits=1,
                 title="Pool sizes")


def pool_run_table(pools: Mapping[str, object]) -> Table:
    """Per run and pool: documents it contributes and those unique to it."""
    labels = list(pools)
    names = next(iter(pools.values())).run_names
    rows = [[name, *[int(v) for label in labels for v in (pools[label].contributed[i], pools[label].unique[i])]]
            for i, name in enumerate(names)]
    columns = ["run", *[f"{label}: {what}" for label in labels for what in ("contributed", "unique")]]
    return Table(columns, rows, title="Contribution of each run",
                 notes=["contributed: pooled documents the run retrieves within the ranks considered; unique: "
                        "those no other run retrieves there."])


def stability_figure(result, measure: str | None = None):
    """Ranking stability: each run's score with all judgments and left out (a dumbbell per
    run, runs ordered by the full score), for one measure (default: the first)."""
    j = result.measures.index(measure) if measure is not None else 0
    order = np.argsort(-snap_ties(result.score[:, j]), kind="stable")  # equal means: the order given
    figure, ax = new_axes(size=(6.4, 0.45 * len(order) + 1.6))
    y = np.arange(order.size)[::-1]
    palette = colors(2)
    for position, i in zip(y, order):
        ax.plot([result.score[i, j], result.left_out[i, j]], [position, position], color="#9aa3af", lw=1.5, zorder=1)
    ax.scatter(result.score[order, j], y, color=palette[0], label="all judgments", zorder=2)
    ax.scatter(result.left_out[order, j], y, color=palette[1], marker="D", label="left out", zorder=3)
    ax.set_yticks(y)
    ax.set_yticklabels([result.run_names[i] for i in order])
    tau = result.tau[j]
    ax.set_xlabel(result.measures[j])
    ax.set_title(f"{result.measures[j]}: tau {tau:.3f}, tau_AP {result.tau_ap[j]:.3f}" if tau is not None
                 else result.measures[j])
    ax.legend(loc="best")
    return figure


def judgments_section(pools: Mapping[str, object], result=None) -> str:
    """HTML: pool sizes, per-run contribution and (with ``result``) the reusability tables and a
    ranking-stability chart per measure."""
    parts = []
    if pools:
        parts += [table_html(pool_size_table(pools)), table_html(pool_run_table(pools), sortable=True)]
    if result is not None:
        parts += [table_html(reusability_summary_table(result)),
                  table_html(reusability_table(result), sortable=True, scroll=True)]
        charts = "".join(chart_html(stability_figure(result, m), f"stability-{m}",
                                    f"Ranking stability on {m}: each run with all judgments and left out")
                         for m in result.measures)
        parts.append(f'<div class="charts">{charts}</div>')
    return "\n".join(parts)


def judgments_page(pools: Mapping[str, object], result=None, *, title: str = "cranfield: pools") -> str:
    """A self-contained HTML page with :func:`judgments_section` and the settings."""
    settings = dict(result.settings) if result is not None else {}
    listing = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in settings_items(settings))
    sections = [("judgments", "Pools and reusability", judgments_section(pools, result))]
    if listing:
        sections.append(("settings", "Settings", f"<dl>{listing}</dl>"))
    return document(title, sections)


def add_section(page: str, anchor: str, heading: str, inner: str) -> str:
    """``page`` (made by :func:`cranfield.report.html.document`) with one more section at the end
    of its main part and a link to it in its navigation bar."""
    link = f'<a href="#{escape(anchor)}">{escape(heading)}</a></nav>'
    section = f'<section id="{escape(anchor)}"><h2>{escape(heading)}</h2>\n{inner}\n</section>\n</main>'
    return page.replace("</nav>", link, 1).replace("</main>", section, 1)


def pools_at_depths(qrels, runs, depths=(10, 20, 50), *, measures=("AP", "P@10")):
    """``({"depth k": Pool}, {"depth k": Reusability})``: the runs pooled at each depth, and left
    out of each pool in turn (the demo's study)."""
    pools = {f"depth {k}": build_pool(runs, method="depth", depth=k) for k in depths}
    return pools, {f"depth {k}": leave_one_out(qrels, runs, list(measures), depth=k) for k in depths}


def reusability_by_pool_tables(results: Mapping[str, object], *, digits: int = 4) -> list[Table]:
    """Leave-one-out across several pools: per pool, run and measure the score, the left-out
    score, the change and the rank change; per pool and measure τ and τ_AP."""
    rows, summary = [], []
    for label, result in results.items():
        rows += [[label, row[0], row[2], row[3], row[4], row[5], row[8]] for row in result.rows()]
        summary += [[label, *row[:3]] for row in result.summary_rows()]
    notes = ["left_out: the run scored without the judgments only it contributed to that pool; delta = left_out − "
             "score; rank_change: its rank among the other runs' full scores minus its rank (> 0: it drops)."]
    return [Table(["pool", "run", "measure", "score", "left_out", "delta", "rank_change"], rows, digits=digits,
                  title="Leave-one-run-out: each run scored without the judgments only it contributed", notes=notes),
            Table(["pool", "measure", "tau", "tau_ap"], summary, digits=digits,
                  title="System rankings with all judgments vs each run left out (Kendall tau, tau_AP)")]


def demo_text(pools: Mapping[str, object], results: Mapping[str, object], fmt: str = "table") -> str:
    """The pool and reusability tables as text (the demo prints them)."""
    tables = [pool_size_table(pools), pool_run_table(pools), *reusability_by_pool_tables(results)]
    return "\n".join(render_table(t, fmt) for t in tables)


def demo_section(pools: Mapping[str, object], results: Mapping[str, object]) -> str:
    """HTML of the demo's pools and reusability: the tables and the ranking-stability charts of
    the deepest pool."""
    deepest = list(results.values())[-1]
    return (judgments_section(pools, None) + "\n"
            + "\n".join(table_html(t, sortable=True) for t in reusability_by_pool_tables(results))
            + "\n" + judgments_section({}, deepest))
