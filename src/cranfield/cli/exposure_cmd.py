"""``cranfield exposure``: expected exposure of a stochastic ranker (a thin shell over
:func:`cranfield.fairness.expected_exposure`)."""

from __future__ import annotations


import click

from ..fairness import EXPOSURE_MODELS, exposure_from_files
from ..io.atomic import write_text_output
from ..io.json_text import json_text
from ..io.tables import Table, render_table

FORMATS = ("table", "csv", "tsv", "json", "markdown", "latex")


@click.command("exposure", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("qrels", metavar="QRELS")
@click.argument("runs", metavar="RUN...", nargs=-1)
@click.option("--groups", metavar="FILE", default=None, help="'docno group' lines: also the group figures.")
@click.option("--p", "p", type=float, default=0.5, show_default=True, help="Patience of the browsing model.")
@click.option("--model", type=click.Choice(EXPOSURE_MODELS), default="rbp", show_default=True,
              help="Browsing model: rbp (p^(rank-1)) or gerr (also stops at relevant documents, --u).")
@click.option("--u", "u", type=float, default=0.5, show_default=True, help="gerr: chance a relevant document satisfies.")
@click.option("--plackett-luce", "samples", type=int, default=None, metavar="N",
              help="Sample N rankings from the single RUN's scores as Plackett-Luce logits.")
@click.option("--seed", type=int, default=0, show_default=True, help="Random seed of --plackett-luce.")
@click.option("-l", "--relevance-level", type=int, default=1, show_default=True,
              help="Least grade counted as relevant (gerr, groups).")
@click.option("-q", "--per-query", is_flag=True, help="Also give every query's figures.")
@click.option("--digits", type=int, default=4, show_default=True, help="Decimals in tables.")
@click.option("-f", "--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option("-o", "--output", metavar="FILE", default=None, help="Write here (atomically). Default: standard output.")
def command(qrels, runs, groups, p, model, u, samples, seed, relevance_level, per_query, digits, fmt, output):
    """Expected exposure (Diaz et al., CIKM 2020) of a stochastic ranker given by sampled rankings:
    several RUNs (one sample each), one RUN numbering its samples in field 2 (TREC's iter), or
    --plackett-luce N samples drawn from one RUN's scores. Disparity, relevance and loss of the
    documents' expected exposure against the ideal; with --groups, of the groups'. See docs/fairness.md.

    \b
    Examples:
      cranfield exposure qrels.txt sample1.run sample2.run sample3.run --groups groups.txt
      cranfield exposure qrels.txt sampled.run -f json
      cranfield exposure qrels.txt bm25.run --plackett-luce 100 --seed 1
    """
    result = exposure_from_files(qrels, runs, samples=samples, seed=seed, p=p, model=model, u=u, groups=groups,
                                 relevance_level=relevance_level)
    write_text_output(_render(result, per_query, digits, fmt), output)


def _render(result, per_query: bool, digits: int, fmt: str) -> str:
    if fmt == "json":
        return json_text(result.to_dict(), ensure_ascii=True)
    names = [n for n in result.per_query]
    mean = result.mean
    settings = ", ".join(f"{k}={v}" for k, v in result.settings.items())
    text = render_table(Table(["figure", "mean"], [[n.replace("_", " "), mean[n]] for n in names], digits=digits,
                              title=f"expected exposure over {len(result.query_ids)} queries",
                              notes=[f"settings: {settings}"]), fmt)
    if per_query:
        rows = [[q, int(result.samples[i]), *[float(result.per_query[n][i]) for n in names]]
                for i, q in enumerate(result.query_ids)]
        text += "\n" + render_table(Table(["qid", "samples", *names], rows, digits=digits), fmt)
    return text

