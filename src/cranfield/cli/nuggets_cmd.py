"""``cranfield nuggets``: nugget scores (TREC 2024 RAG) and citation support of generated answers
(a thin shell over :mod:`cranfield.rag`)."""

from __future__ import annotations


import click

from ..io.atomic import write_text_output
from ..io.json_text import json_text
from ..io.tables import Table, render_table
from ..rag import scores_of_files

FORMATS = ("table", "csv", "tsv", "json", "markdown", "latex")


@click.command("nuggets", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("assignments", metavar="ASSIGNMENTS...", nargs=-1)
@click.option("--support", "support", metavar="FILE", multiple=True,
              help="Citation-support judgments (JSONL) to score too (repeatable).")
@click.option("-q", "--per-query", is_flag=True, help="Also give every answer's scores.")
@click.option("--digits", type=int, default=4, show_default=True, help="Decimals in tables.")
@click.option("-f", "--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option("-o", "--output", metavar="FILE", default=None, help="Write here (atomically). Default: standard output.")
def command(assignments, support, per_query, digits, fmt, output):
    """Score generated answers by their nugget ASSIGNMENTS (TREC 2024 RAG JSONL: one answer per
    line with its nuggets' importance and assignment): V_strict, A_strict, V, A and the weighted
    scores, per run (mean over its queries) and with -q per answer; with --support, the citation
    support precision and recall. See docs/rag.md.

    \b
    Examples:
      cranfield nuggets assignments.jsonl
      cranfield nuggets run1.jsonl run2.jsonl -q -f csv -o scores.csv
      cranfield nuggets assignments.jsonl --support support.jsonl -f json
    """
    write_text_output(_render(scores_of_files(assignments, support), per_query, digits, fmt), output)


def _render(parts, per_query: bool, digits: int, fmt: str) -> str:
    if fmt == "json":
        out = [{"scores": list(names), "runs": result.mean(), "notes": result.notes,
                **({"per_query": result.rows()} if per_query else {})} for names, result in parts]
        return json_text(out if len(out) > 1 else out[0], ensure_ascii=True)
    text = []
    for names, result in parts:
        means = result.mean()
        notes = [f"{k}: {v}" for k, v in result.notes.items() if v]
        text.append(render_table(Table(["run", "queries", *names],
                                       [[run, m["queries"], *[m[s] for s in names]] for run, m in means.items()],
                                       digits=digits, notes=notes), fmt))
        if per_query:
            rows = [[r["run"], r["qid"], *[r[s] for s in names]] for r in result.rows()]
            text.append(render_table(Table(["run", "qid", *names], rows, digits=digits), fmt))
    return "\n".join(text)
