"""``cranfield online interleave | click-model | simulate``: interleaving, click models and user
simulation (the ``cranfield online`` group imports these commands)."""

from __future__ import annotations

import re
import warnings

import click

from ..errors import UsageError
from ..io.atomic import write_text_output
from ..io.json_text import json_text
from ..io.tables import Table, render_table
from ..online import (
    simulation,  # simulation.cranfield_online_demo looked up when called (the tests shorten it)
)
from ..online.click_model_report import click_model_report
from ..online.click_models import write_inferred_qrels
from ..online.interleaving_report import (
    LIST_COLUMNS,
    interleaved_lists,
    logged_interleaving,
    simulated_interleaving,
)
from ..online.simulation import simulate_experiment, write_simulated_log
from ..plots._base import save_figure
from ..plots.online_models import (
    ctr_by_rank_plot,
    interleaving_outcome_plot,
    sensitivity_plot,
)
from ..report.progress import steps
from ..stats._report import p_text
from ._options import html_option, renamed_option, take_renamed, write_html_report

FORMATS = ("table", "json", "csv", "tsv", "markdown")
CONTEXT = {"help_option_names": ["-h", "--help"]}


def _numbers(text: str, name: str, kind=float) -> list:
    try:
        return [kind(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise UsageError(f"{name}: expected comma-separated numbers, found {text!r}") from None


def _emit(tables: list, document: dict, fmt: str, output: str | None) -> None:
    if fmt == "json":
        text = json_text(document)
    else:
        text = "\n".join(render_table(table, fmt) for table in tables)
    write_text_output(text, output)


def _save_plot(figure, path: str | None) -> None:
    if path is not None:
        save_figure(figure, path)


# ------------------------------------------------------------------------------- interleave

@click.command("interleave", context_settings=CONTEXT)
@click.argument("runs", nargs=-1, required=False, metavar="RUN_A RUN_B [RUN...]")
@click.option("--method", type=click.Choice(("team_draft", "balanced", "probabilistic", "multileave")),
              default="team_draft", show_default=True, help="Interleaving method (multileave: three runs or more).")
@click.option("-k", "--depth", type=int, default=10, show_default=True, help="Documents taken from each run per query.")
@click.option("--length", type=int, default=None, help="Length of the interleaved list. Default: --depth.")
@click.option("--seed", type=int, default=0, show_default=True, help="Random seed (the same seed, the same lists).")
@click.option("--qrels", metavar="FILE", default=None,
              help="Simulate clicks from these judgments (click model --model) and report who wins.")
@click.option("--clicks", metavar="FILE", default=None,
              help="Score a logged experiment: the interleaved lists shown and their clicks (a click log, CSV/TSV/"
                   "Parquet, with a team column for team_draft and multileave). RUNs optional for team methods.")
@click.option("--model", type=click.Choice(("pbm", "cascade", "dcm", "ubm", "dbn")), default="cascade",
              show_default=True, help="Click model of the simulated users (with --qrels).")
@click.option("--impressions", type=int, default=None,
              help="With --qrels: simulated impressions, queries drawn uniformly. Default: each query once.")
@click.option("--per", type=click.Choice(("impression", "query")), default="impression", show_default=True,
              help="With --qrels or --clicks: the unit of wins and losses (query: the sign of its impressions' "
                   "outcomes summed).")
@click.option("--tau", type=float, default=3.0, show_default=True,
              help="Softmax exponent of probabilistic interleaving (that of the experiment).")
@click.option("--plot", "plot", metavar="FILE", default=None,
              help="With --qrels or --clicks: write the outcome plot here.")
@click.option("-f", "--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), help="Write here (atomically).")
@html_option
def interleave(runs, method, depth, length, seed, qrels, clicks, model, impressions, per, tau, plot, fmt, output,
               html):
    """Interleave RUNS query by query and print the interleaved lists with the run (team) of
    each document; with --qrels, simulate users clicking them; with --clicks, score a logged
    experiment (the lists users saw, each result's team, their clicks). Both print wins, ties
    and losses, Δ_AB with a bootstrap interval and the sign test, and for three runs or more
    the multileaving preference matrix (docs/online-models.md).

    \b
    Examples:
      cranfield online interleave bm25.run tfidf.run --depth 10 --format csv -o lists.csv
      cranfield online interleave a.run b.run --method probabilistic --seed 7
      cranfield online interleave a.run b.run --qrels qrels.txt --model cascade --impressions 5000 --plot out.png
      cranfield online interleave a.run b.run c.run --method multileave --qrels qrels.txt
      cranfield online interleave --clicks experiment.csv --per query -f json -o outcome.json
      cranfield online interleave --clicks experiment.parquet --method probabilistic a.run b.run --depth 10
    """
    given = _explicit(("model", "impressions", "length", "per", "tau", "plot"))
    if "tau" in given and method != "probabilistic":
        raise UsageError("--tau applies to --method probabilistic")
    if clicks is not None:
        clash = ["--qrels"] * (qrels is not None) + [f"--{name}" for name in ("model", "impressions", "length")
                                                     if name in given]
        if clash:
            raise UsageError(f"--clicks scores the logged lists and clicks; {clash[0]} does not apply (it "
                             "simulates them)")
        report = logged_interleaving(clicks, runs, method=method, depth=depth, tau=tau, per=per, seed=seed)
        _report(report, plot=plot, fmt=fmt, output=output, html=html,
                title=f"{method} interleaving, logged clicks ({report.impressions} impressions)",
                inputs=[("click log", clicks), *[(f"run {r}", r) for r in runs]])
        return
    if len(runs) < 2:
        raise UsageError(f"expected RUN_A RUN_B (two runs or more to interleave), found {len(runs)}; or --clicks LOG")
    if qrels is None:
        if given & {"per", "plot", "model", "impressions"}:
            raise UsageError(f"--{min(given & {'per', 'plot', 'model', 'impressions'})} applies with --qrels or "
                             "--clicks")
        lists = interleaved_lists(runs, method=method, depth=depth, length=length, seed=seed, tau=tau)
        table = Table(list(LIST_COLUMNS), lists["rows"],
                      title=f"{method} interleaving of {', '.join(lists['names'])} (seed {seed})",
                      notes=["team: the run that contributed the document; clicked: 0 until the experiment logs "
                             "its clicks (then read it back with --clicks)"])
        document = {"lists": [dict(zip(LIST_COLUMNS, r)) for r in table.rows], "settings": lists["settings"]}
        _emit([table], document, fmt, output)
        write_html_report(html, "Interleaved lists", [table], settings=document["settings"],
                          inputs=[(f"run {name}", path) for name, path in zip(lists["names"], runs)])
        return
    report = simulated_interleaving(runs, qrels, method=method, depth=depth, length=length, seed=seed, tau=tau,
                                    model=model, impressions=impressions, per=per)
    _report(report, plot=plot, fmt=fmt, output=output, html=html,
            title=f"{method} interleaving with simulated {model} users ({report.impressions} impressions)",
            inputs=[("qrels", qrels), *[(f"run {name}", path) for name, path in zip(report.names, runs)]])


def _explicit(names) -> set:
    """The options among ``names`` given on the command line (not left at their default)."""
    from click.core import ParameterSource

    context = click.get_current_context()
    return {name for name in names if context.get_parameter_source(name) not in (ParameterSource.DEFAULT, None)}


def _report(report, *, plot, fmt, output, title: str, html=None, inputs=()) -> None:
    """Wins, ties, losses and Δ of each pair of runs (one row for two runs), and for three runs
    or more the multileaving preference matrix."""
    outcomes, names = report.outcomes, report.names
    rows = [[o["A"], o["B"], o["wins"], o["ties"], o["losses"], o["delta"], o["ci_low"], o["ci_high"],
             p_text(o["p_value"], 4)] for o in outcomes]
    test = outcomes[0]["settings"]["test"]
    tables = [Table(["A", "B", "wins", "ties", "losses", "delta", "ci_low", "ci_high", "p_value"], rows,
                    title=title + (", per query" if report.settings["per"] == "query" else ""),
                    notes=[f"Δ_AB = (wins + ties/2)/n − 1/2; {test}"])]
    if report.preferences is not None:
        prefs = report.preferences
        tables.insert(0, Table(["run", *names], [[a, *prefs[i].tolist()] for i, a in enumerate(names)],
                               title="Multileaving preferences (row over column; > 0: row preferred)"))
    document = report.to_dict()
    _emit(tables, document, fmt, output)
    if plot or html:
        figure = interleaving_outcome_plot({f"{o['A']} vs {o['B']}": o for o in outcomes})
        _save_plot(figure, plot)
        write_html_report(html, "Interleaving", tables, figures={"outcome": (figure, "Δ_AB of each pair with its "
                                                                                    "interval")},
                          settings=document["settings"], inputs=inputs)


def _fit_warning(fit, *args, **kwargs):
    """``fit(*args, **kwargs)``; a warning it gives (a click model that did not converge) is one
    line on standard error, in the command line's terms."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fit(*args, **kwargs)
    for message in dict.fromkeys(str(w.message) for w in caught):
        message = re.sub(r"\btol=(\S+);", r"--tol \1;", message.replace("iterations= (or tol=)", "--iterations (or --tol)"))
        click.echo(f"cranfield: warning: {message}", err=True)
    return result


# ------------------------------------------------------------------------------- click-model

@click.command("click-model", context_settings=CONTEXT)
@click.argument("log", metavar="LOG")
@click.option("-m", "--model", "models", multiple=True, type=click.Choice(("pbm", "cascade", "dcm", "ubm", "dbn")),
              help="Click model to fit (repeatable). Default: pbm.")
@click.option("--test-log", "test_log", metavar="FILE", default=None,
              help="Held-out click log for the log-likelihood and perplexity. Default: LOG itself.")
@renamed_option("--test", "test_log", "FILE")
@click.option("--iterations", type=int, default=50, show_default=True, help="Most EM iterations.")
@click.option("--tol", type=float, default=1e-6, show_default=True, help="Stop when no parameter moves more.")
@click.option("--max-rank", type=int, default=None, help="Ignore rows below this rank.")
@click.option("--qrels-out", metavar="FILE", default=None,
              help="Write the inferred relevance of the first model as TREC qrels here.")
@click.option("--thresholds", default="0.25,0.5,0.75", show_default=True,
              help="Grade boundaries of --qrels-out (grade = number of thresholds ≤ the probability).")
@click.option("--probabilities", is_flag=True, help="--qrels-out writes the probabilities instead of grades.")
@click.option("--plot", metavar="FILE", default=None, help="Write the plot of CTR by rank, observed and fitted.")
@click.option("-f", "--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), help="Write here (atomically).")
@html_option
def click_model(log, models, test_log, iterations, tol, max_rank, qrels_out, thresholds, probabilities, plot, fmt,
                output, html):
    """Fit click models to the click LOG (CSV/TSV/Parquet: impression, query, rank, doc,
    clicked) by EM; print the log-likelihood and perplexity (on --test, else on LOG) and, by
    rank, the observed and predicted click-through rates; optionally export the inferred
    relevance as qrels.

    \b
    Examples:
      cranfield online click-model clicks.csv -m pbm -m dbn --test-log held_out.csv
      cranfield online click-model clicks.parquet -m dbn --qrels-out inferred.qrels --thresholds 0.2,0.5
      cranfield online click-model clicks.csv -m cascade --plot ctr.png --format json -o fit.json
    """
    test_log = take_renamed("test_log", test_log, "--test-log", required=False)
    cuts = _numbers(thresholds, "thresholds")
    with steps() as step:  # on a terminal: a spinner while EM runs
        report = _fit_warning(click_model_report, log, models=models, test_log=test_log, iterations=iterations,
                              tol=tol, max_rank=max_rank, step=step)
    document = report.document
    tables = [Table(["model", "iterations", "converged", "log_likelihood", "perplexity", "rows"], report.summary,
                    title="Click models (log-likelihood: mean per impression, natural log)"),
              Table(["model", "rank", "observed_ctr", "predicted_ctr", "perplexity"], report.by_rank,
                    title="By rank")]
    _emit(tables, document, fmt, output)
    if qrels_out:
        write_inferred_qrels(report.fitted[0], qrels_out, thresholds=cuts, probabilities=probabilities)
    if plot or html:
        figure = ctr_by_rank_plot(report.evaluations)
        _save_plot(figure, plot)
        write_html_report(html, "Click models", tables, figures={"ctr_by_rank": (figure, "Click-through rate by rank, "
                                                                                         "observed and fitted")},
                          settings=document["settings"], inputs=[("click log", log)] + ([("test log", test_log)]
                                                                                         if test_log else []))


# ------------------------------------------------------------------------------- simulate

@click.command("simulate", context_settings=CONTEXT)
@click.argument("qrels", metavar="QRELS")
@click.argument("run_a", metavar="RUN_A")
@click.argument("run_b", metavar="RUN_B", required=False)
@click.option("--model", type=click.Choice(("pbm", "cascade", "dcm", "ubm", "dbn")), default="cascade",
              show_default=True, help="Click model of the simulated users.")
@click.option("--method", type=click.Choice(("team_draft", "balanced", "probabilistic")), default="team_draft",
              show_default=True, help="Interleaving method.")
@click.option("--impressions", default="100,200,500,1000,2000,5000", show_default=True,
              help="Experiment sizes to try (comma-separated), or with --log-out the impressions of the log.")
@click.option("--repetitions", type=int, default=100, show_default=True, help="Experiments per size.")
@click.option("-k", "--depth", type=int, default=10, show_default=True, help="Results shown per impression.")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="Significance level.")
@click.option("--power", type=float, default=0.8, show_default=True, help="Detection rate to reach.")
@click.option("--ab-metric", type=click.Choice(("any_click", "clicks", "reciprocal_rank")), default="any_click",
              show_default=True, help="Per-impression metric of the A/B test.")
@click.option("--seed", type=int, default=0, show_default=True, help="Random seed.")
@click.option("--log-out", metavar="FILE", default=None,
              help="Instead: write a simulated click log (CSV) of RUN_A here.")
@click.option("--plot", metavar="FILE", default=None, help="Write the sensitivity plot here.")
@click.option("-f", "--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), help="Write here (atomically).")
def simulate(qrels, run_a, run_b, model, method, impressions, repetitions, depth, alpha, power, ab_metric, seed,
             log_out, plot, fmt, output):
    """Simulate users clicking on RUN_A and RUN_B (clicks from QRELS grades through a click
    model) and compare how often an A/B test and interleaving detect the offline difference,
    and how many impressions each needs (Chapelle et al. 2012). With --log-out, write a
    simulated click log of RUN_A instead.

    \b
    Examples:
      cranfield online simulate qrels.txt bm25.run tfidf.run --model cascade --repetitions 200
      cranfield online simulate qrels.txt a.run b.run --impressions 500,2000,8000 --plot sensitivity.png
      cranfield online simulate qrels.txt a.run --log-out clicks.csv --impressions 100000 --model dbn
    """
    sizes = _numbers(impressions, "impressions", int)
    if log_out is not None:
        write_simulated_log(qrels, run_a, log_out, model=model, impressions=max(sizes or [0]), depth=depth, seed=seed)
        return
    if run_b is None:
        raise UsageError("expected RUN_B (or --log-out to simulate a log of RUN_A)")
    with steps() as step:  # on a terminal: a spinner with the elapsed time (simulations take seconds)
        step(f"simulating {repetitions} repetitions x {len(sizes) or 1} sizes of {model} users")
        out = simulate_experiment(qrels, run_a, run_b, model=model, method=method, impressions=sizes,
                                  repetitions=repetitions, depth=depth, alpha=alpha, power=power,
                                  ab_metric=ab_metric, seed=seed)
    rows = [[int(n), float(a), float(b), float(c), float(d)] for n, a, b, c, d in zip(
        out["impressions"], out["ab"]["detection_rate"], out["ab"]["error_rate"],
        out["interleaving"]["detection_rate"], out["interleaving"]["error_rate"])]
    a_name, b_name = out["names"]
    need = {k: out[k]["impressions_needed"] for k in ("ab", "interleaving")}
    table = Table(["impressions", "ab_detects", "ab_wrong", "interleaving_detects", "interleaving_wrong"], rows,
                  title=f"{a_name} vs {b_name}: {out['offline']['measure']} {out['offline']['run_a']:.4f} vs "
                        f"{out['offline']['run_b']:.4f}; simulated {model} users",
                  notes=[f"impressions needed for power {power:g}: A/B {need['ab'] or 'more than tried'}, "
                         f"interleaving {need['interleaving'] or 'more than tried'}"])
    _emit([table], out, fmt, output)
    if plot:
        _save_plot(sensitivity_plot(out), plot)


def run_online_demo(folder, *, fmt: str = "png", seed: int = 0, quiet: bool = False) -> None:
    """``cranfield demo --online``: simulate the A/B test and interleaving on the shipped
    Cranfield runs (cascade users clicking by the graded judgments), print the detection rates
    and write the sensitivity plot and the numbers (JSON) into ``folder``."""
    from pathlib import Path

    out = simulation.cranfield_online_demo(seed=seed)
    a, b = out["names"]
    need = {k: out[k]["impressions_needed"] for k in ("ab", "interleaving")}
    table = Table(["impressions", "A/B detects", "interleaving detects"],
                  [[int(n), float(x), float(y)] for n, x, y in zip(out["impressions"], out["ab"]["detection_rate"],
                                                                   out["interleaving"]["detection_rate"])],
                  title=f"Simulated online experiment: {a} (nDCG@10 {out['offline']['run_a']:.4f}) vs {b} "
                        f"({out['offline']['run_b']:.4f}), cascade users, {out['settings']['repetitions']} repetitions",
                  digits=2, notes=[f"impressions needed for 80% detection: A/B test {need['ab'] or 'more than tried'}, "
                                   f"team-draft interleaving {need['interleaving'] or 'more than tried'}"])
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    plot = save_figure(sensitivity_plot(out), folder / f"online_sensitivity.{fmt}")
    write_text_output(json_text(out, ensure_ascii=True), folder / "online.json")
    click.echo(render_table(table, "table"), nl=False)
    if not quiet:
        click.echo(f"\ncranfield: wrote {plot} and {folder / 'online.json'}", err=True)
