"""Presentation of assessor agreement (:mod:`cranfield.judgments.agreement`): tables in every text
format, JSON, and an HTML section (agreement matrix, figures with intervals, system rankings)."""

from __future__ import annotations

import math

from ..io._format import natural_key
from ..io.json_text import json_text
from ..io.tables import Table, render_table
from ..judgments.agreement import assessor_agreement, ranking_agreement
from .html import document, table_html

__all__ = ["agreement_table", "agreement_matrix", "ranking_table", "render_agreement", "agreement_html", "per_query_table", "demo_agreement_files",
           "AGREEMENT_FORMATS"]

AGREEMENT_FORMATS = ("table", "csv", "tsv", "json", "markdown", "latex")

_TITLES = {
    "percent_agreement": "percentage agreement",
    "cohen_kappa": "Cohen's kappa",
    "cohen_kappa_linear": "Cohen's kappa (linear weights)",
    "cohen_kappa_quadratic": "Cohen's kappa (quadratic weights)",
    "overlap": "overlap of relevant sets",
    "fleiss_kappa": "Fleiss' kappa",
    "krippendorff_alpha_nominal": "Krippendorff's alpha (nominal)",
    "krippendorff_alpha_ordinal": "Krippendorff's alpha (ordinal)",
    "krippendorff_alpha_interval": "Krippendorff's alpha (interval)",
}


def _value(x: float):
    return "undefined" if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def agreement_table(result, *, digits: int = 4) -> Table:
    """One row per statistic and sets: pooled value, bootstrap interval, mean of the per-query values."""
    s = result.settings
    level = int(round(100 * s["confidence"]))
    rows = [[_TITLES.get(f.statistic, f.statistic), " vs ".join(f.sets) if len(f.sets) == 2 else "all",
             _value(f.overall), _value(f.low), _value(f.high), _value(f.mean_per_query), f.pairs]
            for f in result.figures]
    notes = [f"{len(result.query_ids)} queries; pairs judged by only some sets: {s['missing']}; relevant: label >= "
             f"{s['relevance_level']}; labels {s['labels']}.",
             f"{level}% intervals: bootstrap percentile over queries ({s['n_resamples']} resamples, seed "
             f"{s['random_state']}); 'per query' is the mean of the per-query values."]
    return Table(["statistic", "sets", "value", f"{level}% low", f"{level}% high", "per query", "pairs"], rows,
                 title="Assessor agreement", digits=digits, notes=notes)


def agreement_matrix(result, statistic: str = "cohen_kappa", *, digits: int = 4) -> Table:
    """Sets × sets matrix of a pairwise statistic (1 on the diagonal)."""
    names = list(result.names)
    cells = {(f.sets[0], f.sets[1]): f.overall for f in result.figures if f.statistic == statistic and len(f.sets) == 2}
    rows = []
    for a in names:
        row = [a]
        for b in names:
            value = 1.0 if a == b else cells.get((a, b), cells.get((b, a)))
            row.append(_value(value))
        rows.append(row)
    return Table(["", *names], rows, title=f"{_TITLES.get(statistic, statistic)} between each pair of sets",
                 digits=digits)


def ranking_table(ranking, *, digits: int = 4) -> Table:
    """Mean of the measure per run under each set, then τ and τ_AP between the rankings."""
    rows = [[run, *[float(ranking.scores[i, j]) for i in range(len(ranking.names))]]
            for j, run in enumerate(ranking.runs)]
    notes = []
    for i, a in enumerate(ranking.names):
        for j, b in enumerate(ranking.names):
            if i < j:
                tap_ab, tap_ba = ranking.tau_ap[i, j], ranking.tau_ap[j, i]
                notes.append(f"{a} vs {b}: Kendall tau {_text(ranking.kendall_tau[i, j], digits)}, tau_AP "
                             f"{_text(tap_ab, digits)} (reference {a}) / {_text(tap_ba, digits)} (reference {b})")
    return Table(["run", *[f"{ranking.measure} ({n})" for n in ranking.names]], rows,
                 title=f"System rankings by {ranking.measure} under each set of judgments", digits=digits, notes=notes)


def _text(x: float, digits: int) -> str:
    return "undefined (tied scores)" if math.isnan(x) else f"{x:.{digits}f}"


def render_agreement(result, fmt: str = "table", *, ranking=None, digits: int = 4, per_query: bool = False) -> str:
    """The figures (and the rankings) in ``fmt``: table, csv, tsv, markdown, latex or json."""
    if fmt == "json":
        document = result.to_dict()
        if not per_query:
            for figure in document["figures"]:
                figure.pop("per_query")
            document.pop("queries")
        if ranking is not None:
            document["rankings"] = ranking.to_dict()
        return json_text(document, ensure_ascii=True)
    parts = [render_table(agreement_table(result, digits=digits), fmt)]
    if per_query:
        parts.append(render_table(per_query_table(result, digits=digits), fmt))
    if ranking is not None:
        parts.append(render_table(ranking_table(ranking, digits=digits), fmt))
    separator = "" if fmt in ("csv", "tsv") else "\n"
    return separator.join(parts)


def per_query_table(result, *, digits: int = 4) -> Table:
    """One row per query, one column per figure."""
    columns = ["query"] + [f"{f.statistic} ({' vs '.join(f.sets) if len(f.sets) == 2 else 'all'})"
                           for f in result.figures]
    rows = sorted(([q, *[_value(float(f.per_query[i])) for f in result.figures]] for i, q in enumerate(result.query_ids)),
                  key=lambda row: natural_key(row[0]))
    return Table(columns, rows, title="Agreement per query", digits=digits)


def agreement_html(result, *, ranking=None, digits: int = 4) -> str:
    """An HTML section: the κ agreement matrix, the figures with intervals, the rankings."""
    from html import escape

    parts = ["<p>" + escape(f"Agreement between {len(result.names)} sets of judgments over "
                            f"{len(result.query_ids)} queries. Kappa and alpha: 1 = perfect agreement, 0 = what "
                            "chance gives, below 0 = systematic disagreement; overlap: share of the documents "
                            "judged relevant by either set that both judge relevant.") + "</p>",
             table_html(agreement_matrix(result, "cohen_kappa", digits=digits), table_id="agreement-matrix"),
             table_html(agreement_matrix(result, "overlap", digits=digits), table_id="overlap-matrix"),
             table_html(agreement_table(result, digits=digits), sortable=True, table_id="agreement-figures")]
    if ranking is not None:
        parts.append(table_html(ranking_table(ranking, digits=digits), table_id="agreement-rankings"))
    return "\n".join(parts)


def demo_agreement_files(data: dict, runs: list, *, random_state=0, n_resamples: int = 1000) -> dict:
    """The demo's agreement example: the shipped Cranfield judgments in their original codes
    (``qrels.raw.trec``: 1 = most relevant … 4, −1) against the same judgments regraded
    (``qrels.graded.trec``: higher = more relevant), with the three runs ranked by AP and nDCG@10
    under each. ``{"agreement.txt": terminal tables, "agreement.html": a page}``."""
    sets = [data["qrels_raw"], data["qrels"]]
    names = ["raw codes", "graded"]
    result = assessor_agreement(sets, names=names, n_resamples=n_resamples, random_state=random_state)
    rankings = [ranking_agreement(sets, runs, measure=m, names=names) for m in ("AP", "nDCG@10")]
    intro = ("The same Cranfield judgments twice: the original codes (lower = more relevant) and the regraded "
             "qrels (higher = more relevant). The relevant sets are identical (overlap 1), so binary measures "
             "(AP) agree exactly. The grades 1-4 run the other way, so unweighted kappa and nominal or ordinal "
             "alpha are negative; the weighted figures stay near 0 because the code -1 (mapped to 0) sits at the "
             "bottom of both scales. Graded measures (nDCG@10) change their values, not the ranking of these runs.")
    text = "\n".join([intro, "", render_agreement(result, "table", ranking=rankings[0]),
                      render_table(ranking_table(rankings[1]), "table")])
    from html import escape

    inner = f"<p>{escape(intro)}</p>" + agreement_html(result, ranking=rankings[0]) + \
        table_html(ranking_table(rankings[1]), table_id="agreement-rankings-ndcg")
    page = document("cranfield demo: assessor agreement (Cranfield 1400)", [("agreement", "Assessor agreement", inner)])
    return {"agreement.txt": text, "agreement.html": page}
