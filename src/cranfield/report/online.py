"""The HTML section of an online experiment: sample-ratio check, lift table, lift chart, settings."""

from __future__ import annotations

from ..errors import UsageError
from .html import chart_html, document, escape, table_html
from ..io._format import settings_items
from ..io.tables import Table
from ..plots.online import lift_plot
from ..stats._report import p_text

__all__ = ["srm_table", "ab_table", "online_section", "online_document"]


def srm_table(result) -> Table:
    """The sample-ratio mismatch check as a table (one row per variant), its verdict as a note."""
    srm = result.srm
    rows = [[v, int(o), float(e)] for v, o, e in zip(srm.variants, srm.observed, srm.expected)]
    verdict = (f"MISMATCH: p = {srm.p_value:.3g} < {srm.alpha:g}; the assignment is broken, do not trust the "
               f"comparisons below" if srm.mismatch else f"no mismatch detected (p = {srm.p_value:.3g} ≥ {srm.alpha:g})")
    notes = [f"{srm.test}: χ² = {srm.statistic:.4g}, df = {srm.df}, {srm.unit}s per variant; {verdict}."]
    return Table(["variant", f"{srm.unit}s", "expected"], rows, title="Sample-ratio mismatch check", digits=1,
                 notes=notes)


def ab_table(result, *, digits: int = 4) -> Table:
    """One row per (metric, treatment): estimates, lifts with intervals, statistic, p-values."""
    rows = []
    for t in result.tests:
        rows.append([t.metric, t.treatment, t.estimate_control, t.estimate_treatment, t.lift, t.lift_low, t.lift_high,
                     t.relative_lift, t.relative_low, t.relative_high, t.statistic, t.df, p_text(t.p_value, digits),
                     p_text(t.p_adjusted, digits),
                     "yes" if t.significant else "no", t.n_control, t.n_treatment])
    s = result.settings
    notes = [f"control {s['control']}; unit {s['unit']}; test {s['test']}; {s['confidence']:.0%} intervals "
             f"({result.tests[0].ci_method if result.tests else 'none'}; relative lift: delta method); "
             f"p adjusted by {s['correction']} over all comparisons; significant: adjusted p ≤ {s['alpha']:g}"
             + ("; CUPED with a pre-period covariate" if s.get("cuped") else "")
             + (f"; {s['n_resamples']} resamples, seed {s['seed']}" if s.get("n_resamples") else "")]
    return Table(["metric", "treatment", "control value", "treatment value", "lift", "lift low", "lift high", "rel. lift",
                  "rel. low", "rel. high", "statistic", "df", "p", "p adj.", "significant", "n control",
                  "n treatment"], rows, title="A/B comparisons", digits=digits, notes=notes)


def online_section(result, *, digits: int = 4, chart: bool = True) -> str:
    """The inner HTML of an online-experiment section (for :func:`cranfield.report.html.document`)."""
    if not hasattr(result, "srm") or not hasattr(result, "tests"):
        raise UsageError(f"result: expected an ABResult (cranfield.online.ab_test), found {type(result).__name__}")
    parts = [table_html(srm_table(result)), table_html(ab_table(result, digits=digits), sortable=True, table_id="ab")]
    if chart and result.tests:
        parts.append('<div class="charts">' + chart_html(lift_plot(result), "online-lift",
                                                          "Relative lift of each metric with its interval", wide=True)
                     + "</div>")
    settings = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in settings_items(result.settings))
    parts.append(f"<h3>Settings</h3><dl>{settings}</dl>")
    return "\n".join(parts)


def online_document(result, *, title: str = "Online experiment", digits: int = 4) -> str:
    """A self-contained HTML page with the section."""
    return document(title, [("online", "A/B test", online_section(result, digits=digits))],
                    subtitle="sample-ratio check, lifts with intervals, tests (see docs/online.md)")
