"""``cranfield online``: click logs, online metrics, A/B tests and power, interleaving, click
models and simulation."""

from __future__ import annotations

import importlib
import math

import click

from .._params import check_finite, option_names
from ..errors import UsageError
from ..io.json_text import json_text
from ..io.atomic import check_output, write_text_output
from ..io.tables import Table, render_table
from ..online.log_reports import aa_report, ab_report, metrics_report
from ..online.metrics import MetricSummary
from ..online.power_plan import plan_ab_test
from ..plots import save_figure
from ..plots.online import lift_plot, power_curve_plot
from ..report.online import ab_table, online_document, srm_table
from ._inputs import _registering_inputs
from ._options import html_option, write_html_report

FORMATS = ("table", "json", "csv", "tsv", "markdown")

# name -> "module:attribute", imported on first use
COMMANDS: dict[str, str] = {
    "metrics": "cranfield.cli.online_cmd:metrics",
    "ab": "cranfield.cli.online_cmd:ab",
    "power": "cranfield.cli.online_cmd:power",
    "aa": "cranfield.cli.online_cmd:aa",
    "interleave": "cranfield.cli.online_models_cmd:interleave",
    "click-model": "cranfield.cli.online_models_cmd:click_model",
    "simulate": "cranfield.cli.online_models_cmd:simulate",
}


class OnlineGroup(click.Group):
    """Subcommands imported on first use."""

    def list_commands(self, ctx) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx, cmd_name: str):
        if cmd_name not in COMMANDS:
            return None
        module_name, attribute = COMMANDS[cmd_name].split(":")
        return _registering_inputs(getattr(importlib.import_module(module_name), attribute))


@click.group("online", cls=OnlineGroup, context_settings={"help_option_names": ["-h", "--help"]})
def command() -> None:
    """Online evaluation: metrics of click logs, A/B and A/A tests, power and sample sizes.

    A click log is a CSV/TSV (header line) or Parquet table, one row per result shown:
    impression, query, rank, doc, clicked, and optionally timestamp, dwell, variant, user,
    session (docs/online.md).

    \b
    Examples:
      cranfield online metrics clicks.csv --by variant -m ctr -m abandonment
      cranfield online ab clicks.parquet --unit user --split A=0.5,B=0.5 --format markdown
      cranfield online ab clicks.csv --unit user --sequential --tau 0.01
      cranfield online aa clicks.csv --unit user --simulations 2000
      cranfield online power --baseline 0.3 --mde 0.01
    """


def _output_options(function):
    for option in reversed([
        click.option("--digits", type=click.IntRange(0, 20), default=4, show_default=True, help="Decimals in tables."),
        click.option("-f", "--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True),
        click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True),
                     help="Write here (atomically) instead of standard output."),
    ]):
        function = option(function)
    return function


def _log_options(function):
    for option in reversed([
        click.option("-m", "--measure", "--metric", "metric_names", multiple=True, metavar="METRIC",
                     help="ctr, ctr@K, abandonment, rr, clicks, sat_clicks, ttfc, skips (repeatable). "
                          "Default: ctr, ctr@3, abandonment, rr, clicks, skips."),
        click.option("--unit", type=click.Choice(("impression", "session", "user")), default="impression",
                     show_default=True, help="Randomisation unit: the clusters of the intervals and tests."),
        click.option("--dwell-threshold", type=float, default=30.0, show_default=True,
                     help="Seconds of dwell that make a click satisfied (sat_clicks)."),
    ]):
        function = option(function)
    return function


def _split(text: str | None) -> dict | None:
    """``A=0.5,B=0.5`` as a dict (shares need not sum to 1)."""
    if text is None:
        return None
    split = {}
    for item in text.split(","):
        name, sep, share = item.partition("=")
        name = name.strip()
        try:
            value = float(share) if sep else math.nan
        except ValueError:
            value = math.nan
        if not name or not math.isfinite(value) or value <= 0 or name in split:
            raise UsageError(f"--split: expected VARIANT=SHARE,... with distinct variants and shares > 0, found {text!r}")
        split[name] = value
    return split


def _write(text: str, output) -> None:
    write_text_output(text if text.endswith("\n") else text + "\n", output)


def _json(document) -> str:
    return json_text(document)


@click.command("metrics", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("log", metavar="LOG")
@click.option("--by", type=click.Choice(("variant", "query", "session", "user", "impression")), default="variant",
              show_default=True, help="Aggregate per this group.")
@click.option("--ci", type=click.Choice(("delta", "wilson")), default="delta", show_default=True,
              help="Interval: delta method clustered by --unit, or Wilson (independent impressions).")
@click.option("--confidence", type=float, default=0.95, show_default=True, help="Confidence level of the intervals.")
@click.option("--split", metavar="VARIANT=SHARE,...", help="The planned split: a missing or unplanned variant is an error.")
@_log_options
@_output_options
@html_option
def metrics(log, by, ci, confidence, split, metric_names, unit, dwell_threshold, digits, fmt, output, html):
    """Online metrics of the click LOG per variant (or query, session, user, impression) with
    confidence intervals.

    \b
    Examples:
      cranfield online metrics clicks.csv
      cranfield online metrics clicks.tsv --by query -m ctr@5 -m rr --format csv -o per_query.csv
      cranfield online metrics clicks.parquet --unit user -m sat_clicks --dwell-threshold 30
    """
    summary = metrics_report(log, by=by, unit=unit, ci=ci, confidence=confidence, expected_split=_split(split),
                             metrics=metric_names, dwell_threshold=dwell_threshold)
    note = (f"{summary.settings['confidence']:.0%} intervals: {ci}" + (f", clustered by {unit}" if ci == "delta" else "")
            + "; an empty interval: fewer than 2 units")
    rows = [[r[0], r[1], r[2], _finite(r[3]), _finite(r[4]), r[5], r[6], r[7], r[8]] for r in summary.rows]
    table = Table([by, "metric", "estimate", "ci low", "ci high", "numerator", "denominator", "impressions",
                   f"{unit}s"], rows, digits=digits, notes=[note])
    write_html_report(html, "Online metrics", [table], settings=summary.settings, inputs=[("click log", log)],
                      subtitle=f"per {by}")
    if fmt == "json":
        document = {"log": log, "settings": summary.settings,
                    "rows": [dict(zip(MetricSummary.COLUMNS, row)) for row in summary.rows]}
        return _write(_json(document), output)
    _write(render_table(table, fmt), output)


def _finite(value):
    return value if isinstance(value, float) and math.isfinite(value) else None


@click.command("ab", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("log", metavar="LOG")
@click.option("--control", metavar="VARIANT", help="The control variant (default: the first variant id).")
@click.option("--test", type=click.Choice(("delta", "proportion", "welch", "mannwhitney", "bootstrap")),
              default="delta", show_default=True, help="Test of each treatment against the control.")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="Significance level.")
@click.option("--correction", type=click.Choice(("none", "bonferroni", "holm", "bh")), default="holm",
              show_default=True, help="Multiple-comparison correction over all comparisons.")
@click.option("--split", metavar="VARIANT=SHARE,...",
              help="The planned split, for the sample-ratio check (default: equal shares).")
@click.option("--srm-alpha", type=float, default=0.001, show_default=True,
              help="Sample-ratio mismatch is flagged below this p-value.")
@click.option("--covariate", metavar="FILE", type=click.Path(dir_okay=False),
              help="CUPED: CSV/TSV with a header, columns UNIT (the --unit's name) and covariate (pre-period value).")
@click.option("--cuped", "cuped", type=click.Choice(("welch", "delta")), default="welch", show_default=True,
              help="With --covariate: adjust the per-unit values and use Welch's t (welch), or adjust the ratio "
                   "metric itself by the delta method, z test (delta).")
@click.option("--resamples", type=int, default=2000, show_default=True, help="Bootstrap resamples.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap.")
@click.option("--plot", metavar="FILE", type=click.Path(dir_okay=False), help="Write the lift plot (PNG, SVG, PDF).")
@click.option("--html", metavar="FILE", type=click.Path(dir_okay=False), help="Write an HTML report of the test.")
@click.option("--sequential", is_flag=True,
              help="mSPRT: look after every impression in time order; always-valid p-values and confidence "
                   "sequences (docs/online.md).")
@click.option("--tau", type=float, default=None, metavar="T",
              help="With --sequential: the prior scale of the lift, in the metric's units (default: 5%% of the "
                   "control's value).")
@click.option("--min-units", type=int, default=30, show_default=True,
              help="With --sequential: looks before each variant has this many units carry no evidence.")
@click.option("--quantile", "quantiles", type=float, multiple=True, metavar="Q",
              help="Compare the Q-quantiles of the per-unit metric instead (repeatable, e.g. 0.5 and 0.9): "
                   "each variant's with its interval, the difference by the bootstrap over units.")
@_log_options
@_output_options
def ab(log, control, test, alpha, correction, split, srm_alpha, covariate, cuped, resamples, seed, plot, html,
       sequential, tau, min_units, quantiles, metric_names, unit, dwell_threshold, digits, fmt, output):
    """A/B test of the variants of the click LOG: sample-ratio check first, then each treatment
    against the control on each metric, with lifts, intervals and corrected p-values.

    \b
    Examples:
      cranfield online ab clicks.csv --unit user
      cranfield online ab clicks.parquet --unit user --split control=0.5,new=0.5 --control control
      cranfield online ab clicks.csv --unit user --test welch --covariate pre_period.csv -m clicks
      cranfield online ab clicks.csv --unit user --covariate pre_period.csv --cuped delta -m ctr
      cranfield online ab clicks.csv --test bootstrap --resamples 5000 --seed 7 --plot lift.svg --html ab.html
      cranfield online ab clicks.csv --unit user --sequential --tau 0.01 -m ctr
      cranfield online ab clicks.csv --quantile 0.5 --quantile 0.9 -m ttfc
    """
    for path in (plot, html):
        if path is not None:
            check_output(path)
    planned = _split(split)
    if sequential and quantiles:
        raise UsageError("--sequential and --quantile are two analyses: give one")
    if sequential and (covariate is not None or plot is not None or html is not None):
        raise UsageError("--sequential takes none of --covariate, --plot, --html")
    if not sequential and tau is not None:
        raise UsageError("--tau is the prior scale of the mSPRT: use it with --sequential")
    if quantiles and (covariate is not None or plot is not None or html is not None):
        raise UsageError("--quantile takes none of --covariate, --plot, --html")
    result = ab_report(log, unit=unit, control=control, test=test, alpha=alpha, correction=correction,
                       expected_split=planned, srm_alpha=srm_alpha, covariate=covariate, cuped=cuped,
                       n_resamples=resamples, random_state=seed, sequential=sequential, tau=tau, min_units=min_units,
                       quantiles=quantiles, metrics=metric_names, dwell_threshold=dwell_threshold)
    if sequential:
        return _sequential(log, result, unit=unit, alpha=alpha, correction=correction, digits=digits, fmt=fmt,
                           output=output)
    if quantiles:
        return _quantiles(log, result, unit=unit, confidence=1 - alpha, resamples=resamples, seed=seed,
                          digits=digits, fmt=fmt, output=output)
    if plot is not None:
        save_figure(lift_plot(result), plot)
    if html is not None:
        write_text_output(online_document(result, digits=digits), html)
    if fmt == "json":
        return _write(_json({"log": log, **result.to_dict()}), output)
    first = srm_table(result)
    first.digits = 1
    text = render_table(first, fmt)
    text += ("\n" if fmt in ("table", "markdown") else "") + render_table(ab_table(result, digits=digits), fmt)
    _write(text, output)


def _sequential(log, result, *, unit, alpha, correction, digits, fmt, output):
    if fmt == "json":
        return _write(_json({"log": log, **result.to_dict()}), output)
    rows = [[t.metric, f"{t.treatment} vs {t.control}", t.lift, t.cs_low, t.cs_high, t.p_value, t.p_adjusted,
             t.first_look, t.first_impression, t.looks, t.tau] for t in result.tests]
    note = (f"mSPRT (normal mixture), a look after every impression in {result.settings['order']} order, unit {unit}, "
            f"alpha {alpha:g}; p: always-valid (running minimum), adjusted: {correction}; the interval is the "
            f"confidence sequence at the last look; first look: where p first fell to alpha")
    table = Table(["metric", "comparison", "lift", "cs low", "cs high", "p (always valid)", "p adjusted",
                   "first look", "first impression", "looks", "tau"], rows, digits=digits, notes=[note])
    _write(render_table(table, fmt), output)


def _quantiles(log, result, *, unit, confidence, resamples, seed, digits, fmt, output):
    if fmt == "json":
        return _write(_json({"log": log, **result.to_dict()}), output)
    rows = [[t.metric, f"P{100 * t.q:g}", f"{t.treatment} vs {t.control}", t.control_estimate, t.control_low,
             t.control_high, t.treatment_estimate, t.treatment_low, t.treatment_high, t.difference, t.difference_low,
             t.difference_high, t.p_value] for t in result.tests]
    note = (f"quantiles of the metric per {unit}; {confidence:.0%} intervals: order statistics (distribution-free) "
            f"per variant, the difference by the bootstrap over {unit}s ({resamples} resamples, seed {seed})")
    table = Table(["metric", "quantile", "comparison", "control", "control low", "control high", "treatment",
                   "treatment low", "treatment high", "difference", "difference low", "difference high",
                   "p (bootstrap)"], rows, digits=digits, notes=[note])
    _write(render_table(table, fmt), output)


@click.command("aa", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("log", metavar="LOG")
@click.option("--simulations", type=int, default=1000, show_default=True, help="A/A splits of the units.")
@click.option("--test", "tests", type=click.Choice(("delta", "welch")), multiple=True,
              help="Test(s) to calibrate (repeatable). Default: delta and welch.")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="Significance level.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the splits.")
@_log_options
@_output_options
def aa(log, simulations, tests, alpha, seed, metric_names, unit, dwell_threshold, digits, fmt, output):
    """A/A simulation on the click LOG: re-randomise its units (--unit) into two equal arms many
    times and report, per metric and test, the share of splits called significant (near --alpha
    when the test is calibrated; the log's own variants are ignored).

    \b
    Examples:
      cranfield online aa clicks.csv --unit user --simulations 2000
      cranfield online aa clicks.csv --unit user -m ctr --test delta -f json
    """
    result = aa_report(log, unit=unit, tests=tests, n_simulations=simulations, alpha=alpha, random_state=seed,
                       metrics=metric_names, dwell_threshold=dwell_threshold)
    if fmt == "json":
        return _write(_json({"log": log, **result.to_dict()}), output)
    rows = [[r.metric, r.test, r.significant, r.simulations, r.rate, r.rate_low, r.rate_high] for r in result.rows]
    note = (f"{simulations} A/A splits of {result.settings['units']} {unit}s into equal halves (seed {seed}); "
            f"significant: p <= {alpha:g}; 95% Wilson interval of the rate")
    table = Table(["metric", "test", "significant", "splits", "false-positive rate", "low", "high"], rows,
                  digits=digits, notes=[note])
    _write(render_table(table, fmt), output)


@click.command("power", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--baseline", type=float, metavar="P", help="Control proportion (e.g. CTR 0.3): effects as proportions.")
@click.option("--sd", type=float, metavar="SD", help="Standard deviation of a mean metric: effects in its units.")
@click.option("--mde", type=float, metavar="DELTA",
              help="Absolute effect to detect (proportion points with --baseline, metric units with --sd).")
@click.option("--relative", is_flag=True, help="--mde is relative to the baseline (0.05 = +5%%; needs --baseline).")
@click.option("--effect-size", type=float, metavar="D", help="Standardised effect size instead of --mde.")
@click.option("-n", "--n", "n1", type=float, metavar="N", help="Units in the first group: report power and MDE.")
@click.option("--power", "target", type=float, default=0.8, show_default=True, help="Target power.")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="Significance level.")
@click.option("--ratio", type=float, default=1.0, show_default=True, help="Second group's size / first group's.")
@click.option("--alternative", type=click.Choice(("two-sided", "larger", "smaller")), default="two-sided",
              show_default=True)
@click.option("--test", type=click.Choice(("z", "t")), default="z", show_default=True, help="Normal or Student t.")
@click.option("--plot", metavar="FILE", type=click.Path(dir_okay=False), help="Write the power curve (PNG, SVG, PDF).")
@_output_options
def power(baseline, sd, mde, relative, effect_size, n1, target, alpha, ratio, alternative, test, plot, digits, fmt,
          output):
    """Plan an A/B test: sample size for an effect, or power and minimum detectable effect for a
    sample (two groups, normal or t test; Cohen's h for proportions).

    \b
    Examples:
      cranfield online power --baseline 0.30 --mde 0.01
      cranfield online power --baseline 0.30 --mde 0.05 --relative --ratio 2
      cranfield online power --sd 1.8 --mde 0.05 --test t
      cranfield online power --baseline 0.30 -n 20000 --plot power.svg
    """
    if baseline is not None and sd is not None:
        raise UsageError("give --baseline (a proportion) or --sd (a mean metric), not both")
    if (mde is None) == (effect_size is None) and n1 is None:
        raise UsageError("give the effect to detect (--mde with --baseline or --sd, or --effect-size), or -n N")
    if mde is not None and effect_size is not None:
        raise UsageError("give --mde or --effect-size, not both")
    if relative and (baseline is None or mde is None):
        raise UsageError("--relative needs --baseline and --mde")
    for name, value in (("mde", mde), ("effect_size", effect_size), ("sd", sd), ("n1", n1)):
        if value is not None:
            check_finite(value, name)
    click.get_current_context().with_resource(option_names(  # the library's parameters as this command's options
        p1="--baseline", p2="--baseline × (1 + --mde)" if relative else "--baseline + --mde", difference="--mde",
        n1="-n", power="--power", effect_size="--effect-size" if mde is None else "--mde"))
    plan = plan_ab_test(baseline=baseline, sd=sd, mde=mde, relative=relative, effect_size=effect_size, n1=n1,
                        target=target, alpha=alpha, ratio=ratio, alternative=alternative, test=test)
    rows, settings = plan.rows, plan.settings
    if plot is not None:
        save_figure(power_curve_plot([plan.effect], n1=None if n1 is None else max(n1, 4.0), target=target,
                                     alpha=alpha, ratio=ratio, alternative=alternative, test=test), plot)
    if fmt == "json":
        return _write(_json({"settings": settings, "results": plan.results()}), output)
    note = (f"{test} test, alpha {alpha:g}, {alternative}, power {target:g}, ratio {ratio:g}; "
            f"effect sizes: Cohen's h for proportions, difference / sd for means")
    _write(render_table(Table(["quantity", "value"], rows, digits=digits, notes=[note]), fmt), output)
