"""``cranfield compare``: compare runs with paired tests, corrections, effect sizes and CIs."""

from __future__ import annotations

import click

from ..errors import UsageError
from ..io.atomic import write_text_output
from ..io.tables import Table, render_table
from ..stats.compare import MonteCarloFloorWarning
from ..stats.compare_runs import compare_run_files
from ._common import CORRECTIONS, FAMILIES, TESTS, ZERO_METHODS
from ._options import cli_terms, evaluate_options, evaluation_options, input_options, missing_option, run_specs

FORMATS = ("table", "json", "csv", "tsv", "markdown", "latex")


def _permutations(value: str):
    if value == "auto":
        return "auto"
    try:
        return int(value)
    except ValueError:
        raise UsageError(f"--permutations: expected a whole number or 'auto', found {value!r}") from None


@click.command("compare", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("qrels", metavar="QRELS")
@click.argument("runs", nargs=-1, metavar="RUN...")
@click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE",
              help="Measure to compare on (repeatable), e.g. -m AP -m nDCG@10. Default: AP.")
@click.option("--test", type=click.Choice(TESTS), default="t", show_default=True, help="Paired test over queries.")
@click.option("--correction", type=click.Choice(CORRECTIONS), default="holm", show_default=True,
              help="Multiple-comparison correction over the family of pairs (see --family); tukey and "
                   "randomized-tukey are Tukey's HSD, a test of its own over all systems of a measure.")
@click.option("--family", type=click.Choice(FAMILIES), default="measure", show_default=True,
              help="What the correction covers: the pairs of each measure, or all measures' pairs together.")
@click.option("--zero-method", type=click.Choice(ZERO_METHODS), default="wilcox", show_default=True,
              help="Wilcoxon test: zero differences dropped (wilcox), kept in the ranking (pratt) or split (zsplit).")
@click.option("--baseline", metavar="RUN", help="Compare each run with this one only (run name or file name).")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="Significance level.")
@click.option("--ci", type=click.Choice(("auto", "normal", "t", "bootstrap", "bca")), default="auto", show_default=True,
              help="Confidence intervals: auto = Student t (the interval of the t test).")
@click.option("--permutations", default="10000", show_default=True, metavar="B|auto",
              help="Random permutations / bootstrap resamples; 'auto' raises B until the smallest Monte Carlo p "
                   "can pass the correction.")
@click.option("--seed", type=int, default=0, show_default=True, help="Random seed of the resampling tests.")
@click.option("--seeds", "seed_groups", multiple=True, metavar="SYSTEM=RUN1,RUN2,...",
              help="Runs of one system over several seeds or folds (repeatable; runs by name or file name): report "
                   "each system's mean over seeds, its variance over seeds apart from the variance over topics, "
                   "and compare the systems on their per-topic means over seeds (docs/statistics.md).")
@missing_option
@evaluation_options
@input_options
@click.option("--digits", type=int, default=4, show_default=True, help="Decimals in tables.")
@click.option("-f", "--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), help="Write here (atomically) instead of stdout.")
def command(qrels, runs, measures, test, correction, family, zero_method, baseline, alpha, ci, permutations, seed,
            seed_groups, missing, names, qrels_columns, run_columns, digits, fmt, output, **evaluation):
    """Compare RUNS on QRELS: means with confidence intervals, paired tests over queries,
    corrected p-values, effect sizes (Cohen's d_z) and wins/ties/losses. Every output says how it
    was computed (test, statistic and df, correction and family, alpha, CI method, resamples, seed).

    Runs are paired by query id. Runs over different queries are refused unless --missing says
    what to do (intersect: the common queries; zero: a missing query counts as 0) or -c
    evaluates every qrels query; the table notes each run's own query count.

    \b
    Examples:
      cranfield compare qrels.txt bm25.run tfidf.run -m AP -m nDCG@10
      cranfield compare qrels.txt a.run b.run c.run --test randomization --baseline a.run
      cranfield compare qrels.txt --name bm25=a.run --name tfidf=b.run --missing intersect
      cranfield compare qrels.txt a.run b.run --format json --output cmp.json
      cranfield compare qrels.txt *.run --test randomization --permutations auto --family all -m AP -m P@10
      cranfield compare qrels.txt a1.run a2.run a3.run b1.run b2.run b3.run --seeds A=a1,a2,a3 --seeds B=b1,b2,b3
    """
    import warnings

    with cli_terms(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", MonteCarloFloorWarning)
        result = compare_run_files(qrels, run_specs(runs, names), measures, qrels_columns=qrels_columns,
                                   run_columns=run_columns, seed_groups=seed_groups, baseline=baseline,
                                   missing=missing, evaluate_options=evaluate_options(**evaluation), test=test,
                                   correction=correction, alpha=alpha, ci=ci,
                                   n_permutations=_permutations(permutations), random_state=seed,
                                   zero_method=zero_method, family=family)
    for warning in caught:
        if issubclass(warning.category, MonteCarloFloorWarning):
            click.echo(f"cranfield: warning: {warning.message}", err=True)
        else:
            warnings.showwarning(warning.message, warning.category, warning.filename, warning.lineno)
    if seed_groups:
        return _seed_tables(result, digits, fmt, output)
    write_text_output(result.render(fmt, digits=digits), output)


def _seed_tables(result, digits, fmt, output):
    """``--seeds``: the seed summary and the comparison of the systems' means over seeds."""
    import json

    if fmt == "json":
        return write_text_output(json.dumps(result.to_dict(), indent=2, default=str) + "\n", output)
    rows = [[s.system, s.measure, s.n_seeds, s.mean, s.ci_low, s.ci_high, s.sd_over_seeds, s.var_seed, s.var_topic,
             s.var_residual] for s in result.summaries]
    note = (f"over {result.summaries[0].n_topics} topics; CI: Student t over the seed means; variance components "
            f"from the two-way ANOVA seed x topic (truncated at 0); the comparison below is of the per-topic means "
            f"over seeds") if rows else ""
    table = Table(["system", "measure", "seeds", "mean", "ci low", "ci high", "sd over seeds", "var seed",
                   "var topic", "var residual"], rows, digits=digits, notes=[note])
    text = render_table(table, fmt)
    if result.comparison is not None:
        text += ("\n" if fmt in ("table", "markdown") else "") + result.comparison.render(fmt, digits=digits)
    write_text_output(text if text.endswith("\n") else text + "\n", output)
