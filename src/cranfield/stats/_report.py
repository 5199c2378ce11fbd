"""Presentation of a :class:`~cranfield.stats.compare.Comparison`: tables, JSON, pandas, HTML."""

from __future__ import annotations

import math
import string
from collections.abc import Mapping

import numpy as np

from .._params import check_choice
from .._exact import snap_ties
from ..errors import UsageError
from ..io._latex import render_paper_table
from ..io.tables import TABLE_FORMATS, Marked, Table, render_table, table_html

__all__ = ["comparison_dict", "summary_table", "pairs_table", "paper_latex", "render_comparison", "comparison_frame", "comparison_html"]

_CORRECTION_NAMES = {"none": "no correction", "bonferroni": "Bonferroni correction", "sidak": "Šidák correction",
                     "holm": "Holm correction", "holm-sidak": "Holm–Šidák correction",
                     "hochberg": "Hochberg correction", "hommel": "Hommel correction",
                     "bh": "Benjamini-Hochberg correction (FDR)", "by": "Benjamini-Yekutieli correction (FDR)",
                     "tukey": "Tukey HSD", "randomized-tukey": "randomized Tukey HSD"}
_CORRECTION_KINDS = {"none": "none", "bh": "FDR", "by": "FDR", "tukey": "test", "randomized-tukey": "test"}
SCHEMA = "cranfield.comparison/2"
_TEST_NAMES = {"t": "paired t test", "wilcoxon": "Wilcoxon signed-rank test", "sign": "sign test",
               "randomization": "randomization test", "bootstrap": "paired bootstrap test"}
_CI_NAMES = {"normal": "normal", "t": "Student t", "bootstrap": "bootstrap percentile", "bca": "bootstrap BCa"}


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _is_tukey(c) -> bool:
    return c.settings["correction"] in ("tukey", "randomized-tukey")


def settings_dict(c) -> dict:
    """The settings block of the JSON document (docs/statistics.md, "JSON schema")."""
    s = c.settings
    test = {"name": s["test"], "title": _TEST_NAMES[s["test"]], "statistic": s.get("statistic"), "df": s.get("df"),
            "p_method": s.get("p_method"), "exact": s.get("exact"), "two_sided": True}
    if s["test"] == "wilcoxon":
        test.update(zero_method=s.get("zero_method"), rank_digits=s.get("rank_digits"), continuity=s.get("continuity"))
    correction = {"name": s["correction"], "title": _CORRECTION_NAMES[s["correction"]],
                  "kind": _CORRECTION_KINDS.get(s["correction"], "FWER"),
                  "family": s.get("family", "measure"), "family_size": s.get("family_size"),
                  "family_members": ("each system against the baseline" if s["baseline"] is not None else "all pairs")
                  + (" of every measure" if s.get("family") == "all" else " of one measure")}
    return {"test": test, "correction": correction, "alpha": s["alpha"],
            "ci": {"method": s["ci"], "title": _CI_NAMES.get(s["ci"], s["ci"]), "level": s["confidence"],
                   "requested": s.get("ci_requested", s["ci"]), "matches_test": _ci_matches_test(c)},
            "resampling": {"resamples": s["n_permutations"], "seed": s.get("seed"), "p_floor": s.get("p_floor"),
                           "used_by": _resampling_users(c)},
            "effect_size": "d_z = mean difference / SD of differences (Cohen 1988; Lakens 2013)",
            "baseline": s["baseline"], "missing": s["missing"], "n_queries": len(c.query_ids),
            "queries_per_system": dict(s.get("queries_per_system", {})) or None, "notes": list(s.get("notes", []))}


def _resampling_users(c) -> list[str]:
    s = c.settings
    users = [name for name, used in (("test", s["test"] in ("randomization", "bootstrap") and not s.get("exact")),
                                     ("correction", s["correction"] == "randomized-tukey"),
                                     ("ci", s["ci"] in ("bootstrap", "bca"))) if used]
    return users


def _ci_matches_test(c) -> bool:
    """Whether an interval excluding 0 is the same verdict as the unadjusted test: t interval and t test."""
    s = c.settings
    return s["test"] == "t" and s["ci"] == "t" and abs(s["confidence"] - (1 - s["alpha"])) < 1e-12


def settings_lines(c) -> list[tuple[str, str]]:
    """The settings as (label, text) lines, for reports: what was done, in words."""
    d = settings_dict(c)
    t, corr, ci, res = d["test"], d["correction"], d["ci"], d["resampling"]
    test = _test_note(c) + (f"; statistic: {t['statistic']}" if t["statistic"] else "") + f"; p: {t['p_method']}, two-sided"
    if _is_tukey(c):
        family = f"{corr['title']}: a test of its own over all {len(c.systems)} systems of each measure"
    else:
        kind = "" if corr["kind"] in corr["title"] else f" ({corr['kind']})"
        family = f"{corr['title']}{kind} over {corr['family_members']}: {corr['family_size']} tests"
    lines = [("test", test), ("multiple comparisons", family), ("alpha", f"{d['alpha']:g}"),
             ("intervals", f"{100 * ci['level']:g}% {ci['title']}" + ("" if ci["matches_test"] else
                                                                     " (not the test's own interval)")),
             ("queries", f"{d['n_queries']} paired by query id (missing = {d['missing']})")]
    if res["used_by"]:
        lines.append(("resampling", f"B = {res['resamples']:,}, seed {res['seed']} (used by {', '.join(res['used_by'])})"))
    lines += [("note", n) for n in d["notes"]]
    return lines


def comparison_dict(c) -> dict:
    measures = {}
    for m in c.measures:
        systems = {s.system: {"mean": s.mean, "ci_low": s.ci_low, "ci_high": s.ci_high}
                   for s in c.summaries if s.measure == m}
        pairs = [{"a": p.a, "b": p.b, "n": p.n, "diff": p.diff, "ci_low": p.ci_low, "ci_high": p.ci_high,
                  "effect_size": _finite(p.effect_size), "statistic": _finite(p.statistic), "df": p.df,
                  "p_value": p.p_value, "p_method": p.p_method, "p_floored": p.p_floored,
                  "p_adjusted": p.p_adjusted, "p_adjusted_floored": p.p_adjusted_floored, "p_tukey": p.p_tukey,
                  "significant": p.significant,
                  "wins": p.wins, "ties": p.ties, "losses": p.losses} for p in c.pairs if p.measure == m]
        measures[m] = {"systems": systems, "pairs": pairs}
    return {"schema": SCHEMA, "settings": settings_dict(c), "measures": measures}


def _ids(systems) -> list[str]:
    if len(systems) <= 26:
        return list(string.ascii_lowercase[: len(systems)])
    return [str(i + 1) for i in range(len(systems))]


def _test_details(c) -> str:
    """How the paired test computed p, in words ("" when nothing needs saying)."""
    s = c.settings
    if s["test"] == "t":
        return f"t with {s['df']} df"
    if s["test"] == "wilcoxon":
        return (f"differences to {s.get('rank_digits')} significant digits, zero_method={s.get('zero_method')}, "
                f"no continuity correction")
    if s["test"] in ("randomization", "bootstrap"):
        return "exact over all sign vectors" if s.get("exact") else f"Monte Carlo, B = {s['n_permutations']:,}, seed {s.get('seed')}"
    return ""


def _test_note(c) -> str:
    details = _test_details(c)
    return _TEST_NAMES[c.settings["test"]] + (f" ({details})" if details else "")


def _method_note(c) -> str:
    s = c.settings
    members = f"each system against {s['baseline']}" if s["baseline"] is not None else "all pairs"
    scope = "of all measures together" if s.get("family") == "all" else "per measure"
    details = _test_details(c)
    if _is_tukey(c):
        what = (f"{_CORRECTION_NAMES[s['correction']]} (studentized range over all {len(c.systems)} systems per measure, "
                f"queries as blocks): a test of its own, which decides significance")
    else:
        what = (f"{_TEST_NAMES[s['test']]}, {_CORRECTION_NAMES[s['correction']]} over {members} {scope} "
                f"({s.get('family_size', len(c.pairs))} tests)" + (f"; {details}" if details else ""))
    return f"{what}; alpha = {s['alpha']:g}; {len(c.query_ids)} queries paired by query id"


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
    tied = {m: _tied_means(c, m) for m in c.measures}  # means equal as rationals are all bold
    best = {m: max(tied[m].values()) for m in c.measures}
    for r, system in enumerate(c.systems):
        row = [id_of[system], system] if s["baseline"] is None else [system]
        for m in c.measures:
            summary = c.summary(m, system)
            mark = "".join(sorted(marks.get((m, system), "")))
            if s["baseline"] is not None and system == s["baseline"]:
                mark = "(baseline)"
            if tied[m][system] == best[m]:
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
    # each run's own query count, when it differs (issue 13)
    notes += [n for n in [query_counts_note(s.get("queries_per_system", {}), len(c.query_ids), s["missing"])] if n]
    return Table(columns, rows, title="Systems", digits=digits, bold=bold, notes=notes,
                 bold_meaning="the highest mean per measure", column_group=2)


def _tied_means(c, measure: str) -> dict:
    """The systems' means of ``measure``, ties decided on exact values (cranfield._exact)."""
    systems = [x.system for x in c.summaries if x.measure == measure]
    return dict(zip(systems, snap_ties([x.mean for x in c.summaries if x.measure == measure]).tolist()))


def query_counts_note(counts: Mapping, compared: int, missing: str) -> str | None:
    """A table note when the systems' own query sets differ from the compared one, else None."""
    if all(n == compared for n in counts.values()):
        return None
    own = ", ".join(f"{name} {n}" for name, n in counts.items())
    how = {"intersect": "the common queries", "zero": "every query, a missing one counted as 0"}.get(missing, missing)
    return f"Queries of each run: {own}; compared on {compared} ({how}, missing={missing})."


def paper_latex(c, *, digits: int = 4, label: str | None = None, wide: bool | None = None) -> str:
    """The paper table (:func:`~cranfield.io._latex.render_paper_table`): systems × measures,
    the best mean bold, significance as superscripts (letters of the systems a system is
    significantly better than; with a baseline, † higher and ‡ lower than it), and a caption
    that says the test, the correction and alpha."""
    s = c.settings
    baseline = s["baseline"]
    index = {system: i for i, system in enumerate(c.systems)}
    letters = _ids(c.systems)
    marks: dict[tuple[int, int], str] = {}
    for p in c.pairs:
        if p.significant and p.diff != 0:
            j = c.measures.index(p.measure)
            if baseline is not None:
                key = (index[p.a], j)
                marks[key] = marks.get(key, "") + ("†" if p.diff > 0 else "‡")
            else:
                winner, loser = (p.a, p.b) if p.diff > 0 else (p.b, p.a)
                marks[(index[winner], j)] = marks.get((index[winner], j), "") + letters[index[loser]]
    means = {(x.system, x.measure): x.mean for x in c.summaries}
    values = [[means[(system, m)] for m in c.measures] for system in c.systems]
    tied = snap_ties(np.array(values, dtype=np.float64), axis=0)  # means equal as rationals: all bold
    bold = {(i, j) for j in range(len(c.measures)) for i in range(len(c.systems)) if tied[i, j] == tied[:, j].max()}
    if baseline is None:
        rows = [f"({letter}) {system}" for letter, system in zip(letters, c.systems)]
        meaning = "Superscript letters: significantly better than the systems with those letters"
    else:
        rows = list(c.systems)  # the caption names the baseline (a label would widen the column)
        meaning = f"† / ‡: significantly higher / lower than the baseline {baseline}"
    caption = (f"Mean over {len(c.query_ids)} queries; bold: the best mean per measure. {meaning} "
               f"({_method_note(c).replace('alpha = ', 'α = ')}).")
    return render_paper_table(rows, list(c.measures), values, marks=marks, bold=bold, caption=caption,
                              label=label, wide=wide, digits=digits)


def _upper_text(x: float) -> str:
    """``x`` rounded up to one significant digit, as "1e-4", "5e-4", "9e-6"."""
    exponent = math.floor(math.log10(x))
    mantissa = math.ceil(x / 10.0 ** exponent - 1e-9)
    if mantissa == 10:
        mantissa, exponent = 1, exponent + 1
    return f"{mantissa}e{exponent}"


def p_text(p: float, digits: int, floored_below: float | None = None) -> str:
    """p with ``digits`` decimals (small ones in scientific notation); a Monte Carlo p at its floor
    1/(B+1) is written "< 1/B" ("< 1e-4" for B = 10,000): the true p is below it."""
    if floored_below is not None:
        return f"< {_upper_text(floored_below)}"
    return f"{p:.1e}" if 0 < p < 10 ** -digits else f"{p:.{digits}f}"


def pairs_table(c, *, digits: int = 4) -> Table:
    """One row per comparison: difference with CI, d_z, p, adjusted p, significance, W/T/L."""
    s = c.settings
    level = f"{100 * s['confidence']:g}%"
    below = 1.0 / s["n_permutations"]
    adjusted = f"p ({_CORRECTION_NAMES[s['correction']]})" if _is_tukey(c) else f"p ({s['correction']})"
    # the test's statistic (t, W, ...), unless it is the mean difference already shown
    statistic = s.get("statistic") if any(math.isfinite(p.statistic) and p.statistic != p.diff
                                          for p in c.pairs) else None
    columns = ["measure", "a", "b", "diff a-b", f"{level} CI", "d_z", *([statistic] if statistic else []),
               f"p ({s['test']})", adjusted, "sig.", "W/T/L"]
    rows = [[p.measure, p.a, p.b, p.diff, f"[{p.ci_low:.{digits}f}, {p.ci_high:.{digits}f}]", p.effect_size,
             *([_finite(p.statistic)] if statistic else []),
             p_text(p.p_value, digits, below if p.p_floored else None),
             p_text(p.p_adjusted, digits, p.p_adjusted if p.p_adjusted_floored else None),
             "*" if p.significant else "", f"{p.wins}/{p.ties}/{p.losses}"] for p in c.pairs]
    if _is_tukey(c):
        first = (f"*: {_CORRECTION_NAMES[s['correction']]} p <= {s['alpha']:g} ({_method_note(c)}). p ({s['test']}): the "
                 f"unadjusted p of the {_test_note(c)}, for reference only; the family-wise {_CORRECTION_NAMES[s['correction']]} "
                 f"p is not an adjustment of it and can be smaller.")
    else:
        first = f"*: adjusted p <= {s['alpha']:g} ({_method_note(c)})."
    ci_note = (f"CI: {level} {_CI_NAMES.get(s['ci'], s['ci'])} interval of the mean difference, not adjusted for "
               f"multiplicity" + ("; it excludes 0 exactly when the unadjusted t test has p < "
                                  f"{1 - s['confidence']:g}." if _ci_matches_test(c) else
                                  f"; it is not the interval of the {_TEST_NAMES[s['test']]}, so it can exclude 0 "
                                  f"when the test does not reject, or the reverse."))
    notes = [first, ci_note, "d_z: mean difference / SD of differences (Cohen's d for paired data; not comparable to "
             "Cohen's 0.2/0.5/0.8 benchmarks, which are for d of independent groups). W/T/L: queries where a is "
             "higher / equal / lower than b."]
    if any(p.p_floored for p in c.pairs):
        notes.append(f"< {_upper_text(below)}: the Monte Carlo p is at its floor 1/(B+1); the true p is smaller "
                     "(and so is every adjusted p computed from it, written \"< its value\").")
    notes += list(s.get("notes", []))
    return Table(columns, rows, title="Pairs", digits=digits, notes=notes)


LONG_COLUMNS = ("measure", "a", "b", "mean_a", "mean_b", "diff", "ci_low", "ci_high", "effect_size", "p_value",
                "p_adjusted", "significant", "wins", "ties", "losses",
                # the settings, on every row (a CSV file says what produced it)
                "n", "test", "statistic", "df", "p_method", "p_floored", "correction", "family", "family_size",
                "alpha", "ci_method", "ci_level", "resamples", "seed")


def _long_table(c, digits: int) -> Table:
    means = {(x.measure, x.system): x.mean for x in c.summaries}
    s = c.settings
    resampled = bool(_resampling_users(c))
    fixed = [s["correction"], s.get("family", "measure"), s.get("family_size"), s["alpha"], s["ci"], s["confidence"],
             s["n_permutations"] if resampled else None, s.get("seed") if resampled else None]
    rows = [[p.measure, p.a, p.b, means[(p.measure, p.a)], means[(p.measure, p.b)], p.diff, p.ci_low, p.ci_high,
             p.effect_size, p.p_value, p.p_adjusted, p.significant, p.wins, p.ties, p.losses,
             p.n, s["test"], p.statistic, p.df, p.p_method, p.p_floored, *fixed] for p in c.pairs]
    return Table(list(LONG_COLUMNS), rows, digits=digits)


def render_comparison(c, fmt: str, *, digits: int = 4, width: int | None = None, layout: str = "paper") -> str:
    if layout not in ("paper", "tables"):
        raise UsageError(f"layout: expected 'paper' or 'tables', found {layout!r}")
    if fmt == "latex" and layout == "paper":
        return paper_latex(c, digits=digits)
    if fmt == "json":
        return c.to_json()
    check_choice(fmt, "format", (*TABLE_FORMATS, "json"))
    if fmt in ("csv", "tsv"):
        return render_table(_long_table(c, digits), fmt)
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
