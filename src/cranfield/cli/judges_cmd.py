"""``cranfield judges``: a model's relevance judgments against people's (a thin shell over
:func:`cranfield.judgments.judges.judge_agreement`)."""

from __future__ import annotations


import click

from ..io.atomic import write_text_output
from ..io.json_text import json_text
from ..io.tables import Table, render_table
from ..judgments.from_files import judges_from_files
from ..judgments.judges import MERGE_POLICIES
from ._options import run_specs

FORMATS = ("table", "csv", "tsv", "json", "markdown", "latex")
AGREEMENT = (("percent_agreement", "percentage agreement"), ("cohen_kappa", "Cohen's kappa"),
             ("cohen_kappa_linear", "Cohen's kappa, linear"), ("cohen_kappa_quadratic", "Cohen's kappa, quadratic"),
             ("krippendorff_alpha_ordinal", "Krippendorff's alpha, ordinal"),
             ("krippendorff_alpha_interval", "Krippendorff's alpha, interval"), ("overlap", "overlap of relevant sets"))


@click.command("judges", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("human", metavar="HUMAN_QRELS")
@click.argument("model", metavar="MODEL_QRELS")
@click.argument("runs", metavar="[RUN...]", nargs=-1)
@click.option("-m", "--measure", default="AP", show_default=True, help="Measure that ranks the runs.")
@click.option("-l", "--relevance-level", type=int, default=1, show_default=True,
              help="Least label counted as relevant (overlap of relevant sets; the measure).")
@click.option("--top-k", type=int, default=5, show_default=True,
              help="Head of the system ranking watched for changes.")
@click.option("--bootstrap", "resamples", type=int, default=1000, show_default=True,
              help="Bootstrap resamples of the queries for the intervals (0: none).")
@click.option("--confidence", type=float, default=0.95, show_default=True, help="Confidence of the intervals.")
@click.option("--seed", type=int, default=0, show_default=True, help="Random seed of the bootstrap.")
@click.option("--merged", metavar="FILE", default=None,
              help="Also write merged qrels here (TREC, atomically): see --policy.")
@click.option("--policy", type=click.Choice(MERGE_POLICIES), default="human-first", show_default=True,
              help="--merged: every human judgment and the model's for the other pairs (human-first), or the reverse.")
@click.option("-f", "--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option("-o", "--output", metavar="FILE", default=None, help="Write here (atomically). Default: standard output.")
def command(human, model, runs, measure, relevance_level, top_k, resamples, confidence, seed, merged, policy, fmt,
            output):
    """How far MODEL_QRELS (e.g. an LLM's judgments) agree with HUMAN_QRELS: agreement (kappa,
    alpha) with bootstrap intervals over queries, the grade confusion matrix, leniency (mean grade
    shift, per-grade rates), and with two or more RUNs whether the system ranking survives
    (Kendall's tau, tau_AP, discordant pairs, top-k changes). See docs/judgments-agreement.md.

    \b
    Examples:
      cranfield judges human.qrels umbrela.qrels -f json
      cranfield judges human.qrels llm.qrels a.run b.run c.run -m nDCG@10 --top-k 3
      cranfield judges human.qrels llm.qrels --merged filled.qrels
    """
    result, merged_qrels = judges_from_files(human, model, run_specs(runs, ()) if runs else (), measure=measure,
                                             relevance_level=relevance_level, top_k=top_k, n_resamples=resamples,
                                             confidence=confidence, random_state=seed,
                                             policy=policy if merged is not None else None)
    if merged is not None:
        merged_qrels.to_trec(merged)
    write_text_output(render_judges(result, fmt), output)


def render_judges(result, fmt: str) -> str:
    """The tables of a :class:`~cranfield.judgments.judges.JudgeAgreement` (or its JSON)."""
    if fmt == "json":
        return json_text(result.to_dict(), ensure_ascii=True)
    tables = [_agreement_table(result), _confusion_table(result), _leniency_table(result)]
    if result.ranking is not None:
        tables.append(_ranking_table(result.ranking))
    return "\n".join(render_table(t, fmt) for t in tables)


def _agreement_table(result) -> Table:
    rows = []
    for statistic, label in AGREEMENT:
        try:
            f = result.agreement.figure(statistic)
        except Exception:  # a statistic the agreement did not compute (e.g. no interval level)
            continue
        rows.append([label, f.overall, f.low, f.high, f.pairs])
    return Table(["statistic", "value", "ci low", "ci high", "pairs"], rows, title="agreement, human vs model")


def _confusion_table(result) -> Table:
    rows = [[f"human {g}", *[int(v) for v in row]] for g, row in zip(result.grades, result.confusion)]
    return Table(["", *[f"model {g}" for g in result.grades]], rows, title="grade confusion (pairs both judged)")


def _leniency_table(result) -> Table:
    rows = [[str(g), r["pairs"], r["lower"], r["same"], r["higher"]] for g, r in result.grade_rates.items()]
    return Table(["human grade", "pairs", "model lower", "model same", "model higher"], rows,
                 title="leniency", notes=[f"mean grade shift (model - human): {result.mean_shift:+.4f}"])


def _ranking_table(ranking) -> Table:
    rows = [[name.replace("_", " "), v if name in ("kendall_tau", "tau_ap") else int(v), lo, hi]
            for name, (v, lo, hi) in ranking.figures.items()]
    return Table(["figure", "value", "ci low", "ci high"], rows,
                 title=f"system ranking by {ranking.measure} ({len(ranking.runs)} runs, {ranking.queries} queries, "
                       f"top {ranking.top_k})")
