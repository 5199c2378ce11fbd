"""Presentation of a :class:`~cranfield.stats.compare.Comparison`: tables, JSON, pandas, HTML."""

from __future__ import annotations

import math
import string

from ..errors import UsageError
from ..report.tables import TABLE_FORMATS, Marked, Table, render_table, table_html

__all__ = ["comparison_dict", "summary_table", "pairs_table", "render_comparison", "comparison_frame", "comparison_html"]

_CORRECTION_NAMES = {"none": "no correction", "bonferroni": "Bonferroni correction", "holm": "Holm correction",
                     "bh": "Benjamini-Hochberg correction (FDR)", "tukey": "Tukey HSD",
                     "randomized-tukey": "randomized Tukey HSD"}
_TEST_NAMES = {"t": "paired t test", "wilcoxon": "Wilcoxon signed-rank test", "sign": "sign test",
               "randomization": "randomization test", "bootstrap": "paired bootstrap test"}
_CI_NAMES = {"normal": "normal", "t": "Student t", "bootstrap": "bootstrap percentile", "bca": "bootstrap BCa"}


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def comparison_dict(c) -> dict:
    measures = {}
    for m in c.measures:
        systems = {s.system: {"mean": s.mean, "ci_low": s.ci_low, "ci_high": s.ci_high}
                   for s in c.summaries if s.measure == m}
        pairs = [{"a": p.a, "b": p.b, "diff": p.diff, "ci_low": p.ci_low, "ci_high": p.ci_high,
                  "effect_size": _finite(p.effect_size), "p_value": p.p_value, "p_adjusted": p.p_adjusted,
                  "significant": p.significant} for p in c.pairs if p.measure == m]
        measures[m] = {"systems": systems, "pairs": pairs}
    return {"measures": measures}


def _ids(systems) -> list[str]:
    if len(systems) <= 26:
        return list(string.ascii_lowercase[: len(systems)])
    return [str(i + 1) for i in range(len(systems))]


def _method_note(c) -> str:
    s = c.settings
    family = f"each system against {s['baseline']}" if s["baseline"] is not None else "all pairs"
    return (f"{_TEST_NAMES[s['test']]}, {_CORRECTION_NAMES[s['correction']]} over {family} per measure, "
            f"alpha = {s['alpha']:g}; {len(c.query_ids)} queries paired by query id")


def summary_table(c, *, digits: int = 4) -> Table:
    """Systems × measures: mean (best bold) with significance marks, and its confidence interval."""
    s = c.settings
    ids = _ids(c.systems)
    id_of = dict(zip(c.systems, ids))
    level = f"{100 * s['confidence']:g}%"
    columns = ["id", "system"] if s["baseline"] is None else ["system"]
    for m in c.measures:
        columns += [m, f"{level} CI"]
    marks: dict[tuple[str, str], str] = {}
    for p in c.pairs:
        if not p.significant:
            continue
        if s["baseline"] is not None:
            marks[(p.measure, p.a)] = "+" if p.diff > 0 else "-"
        else:
            winner, loser = (p.a, p.b) if p.diff > 0 else (p.b, p.a)
            marks[(p.measure, winner)] = marks.get((p.measure, winner), "") + id_of[loser]
    rows, bold = [], set()
    best = {m: max(x.mean for x in c.summaries if x.measure == m) for m in c.measures}
    for r, system in enumerate(c.systems):
        row = [id_of[system], system] if s["baseline"] is None else [system]
        for m in c.measures:
            summary = c.summary(m, system)
            mark = "".join(sorted(marks.get((m, system), "")))
            if s["baseline"] is not None and system == s["baseline"]:
                mark = "(baseline)"
            if summary.mean == best[m]:
                bold.add((r, len(row)))
            row.append(Marked(f"{summary.mean:.{digits}f}", mark))
            row.append(f"[{summary.ci_low:.{digits}f}, {summary.ci_high:.{digits}f}]")
        rows.append(row)
    if s["baseline"] is not None:
        meaning = f"+ / -: significantly higher / lower than the baseline {s['baseline']}"
    else:
        meaning = "Letters after a mean: the system is significantly better than the systems with those ids"
    notes = [f"Bold: highest mean per measure. {meaning} ({_method_note(c)}).",
             f"CI: {level} confidence interval of the mean over queries ({_CI_NAMES.get(s['ci'], s['ci'])})."]
    from .compare import query_counts_note  # each run's own query count, when it differs (issue 13)

    notes += [n for n in [query_counts_note(s.get("queries_per_system", {}), len(c.query_ids), s["missing"])] if n]
    return Table(columns, rows, title="Systems", digits=digits, bold=bold, notes=notes,
                 bold_meaning="the highest mean per measure", column_group=2)


def _p_text(p: float, digits: int) -> str:
    return f"{p:.1e}" if 0 < p < 10 ** -digits else f"{p:.{digits}f}"


def pairs_table(c, *, digits: int = 4) -> Table:
    """One row per comparison: difference with CI, d_z, p, adjusted p, significance, W/T/L."""
    s = c.settings
    level = f"{100 * s['confidence']:g}%"
    columns = ["measure", "a", "b", "diff a-b", f"{level} CI", "d_z", "p", f"p ({s['correction']})", "sig.", "W/T/L"]
    rows = [[p.measure, p.a, p.b, p.diff, f"[{p.ci_low:.{digits}f}, {p.ci_high:.{digits}f}]", p.effect_size,
             _p_text(p.p_value, digits), _p_text(p.p_adjusted, digits), "*" if p.significant else "",
             f"{p.wins}/{p.ties}/{p.losses}"] for p in c.pairs]
    notes = [f"*: adjusted p <= {s['alpha']:g} ({_method_note(c)}). d_z: Cohen's d for paired data "
             f"(mean difference / SD of differences). W/T/L: queries where a is higher / equal / lower than b."]
    return Table(columns, rows, title="Pairs", digits=digits, notes=notes)


def _long_table(c, digits: int) -> Table:
    means = {(x.measure, x.system): x.mean for x in c.summaries}
    columns = ["measure", "a", "b", "mean_a", "mean_b", "diff", "ci_low", "ci_high", "effect_size", "p_value",
               "p_adjusted", "significant", "wins", "ties", "losses"]
    rows = [[p.measure, p.a, p.b, means[(p.measure, p.a)], means[(p.measure, p.b)], p.diff, p.ci_low, p.ci_high,
             p.effect_size, p.p_value, p.p_adjusted, p.significant, p.wins, p.ties, p.losses] for p in c.pairs]
    return Table(columns, rows, digits=digits)


def render_comparison(c, fmt: str, *, digits: int = 4, width: int | None = None) -> str:
    if fmt == "json":
        return c.to_json()
    if fmt not in TABLE_FORMATS:
        raise UsageError(f"format: expected one of {', '.join(TABLE_FORMATS)}, json; found {fmt!r}")
    if fmt in ("csv", "tsv"):
        return render_table(_long_table(c, digits), fmt)
    width = width or 160  # the pairs table is wide; narrower terminals wrap cells
    parts = [render_table(t, fmt, width=width) for t in c.tables(digits=digits) if t.rows]
    return "\n".join(parts)


def comparison_frame(c, table: str):
    import pandas as pd

    if table == "pairs":
        t = _long_table(c, 4)
        return pd.DataFrame(t.rows, columns=list(t.columns))
    if table == "systems":
        return pd.DataFrame([(x.measure, x.system, x.mean, x.ci_low, x.ci_high) for x in c.summaries],
                            columns=["measure", "system", "mean", "ci_low", "ci_high"])
    if table == "differences":
        frames = []
        for p in c.pairs:
            frames.append(pd.DataFrame({"measure": p.measure, "a": p.a, "b": p.b, "query_id": c.query_ids,
                                        "diff": c.differences(p.measure, p.a, p.b)}))
        if not frames:
            return pd.DataFrame(columns=["measure", "a", "b", "query_id", "diff"])
        return pd.concat(frames, ignore_index=True)
    raise UsageError(f"table: expected 'pairs', 'systems' or 'differences', found {table!r}")


def comparison_html(c) -> str:
    return "\n".join(table_html(t) for t in c.tables() if t.rows)
