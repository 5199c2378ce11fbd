"""``cranfield compare``: compare runs with paired tests, corrections, effect sizes and CIs."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import UsageError

FORMATS = ("table", "json", "csv", "tsv", "markdown", "latex")
TESTS = ("t", "wilcoxon", "sign", "randomization", "bootstrap")
CORRECTIONS = ("none", "bonferroni", "holm", "bh", "tukey", "randomized-tukey")


def _name_runs(paths: list[str], runs: list) -> dict:
    """Runs named by their tag; by file name when tags collide (or are missing)."""
    names = [getattr(run, "name", None) or Path(path).name for path, run in zip(paths, runs)]
    if len(set(names)) < len(names):
        names = [str(path) for path in paths]
    if len(set(names)) < len(names):
        raise UsageError("the same run file is given twice: " + ", ".join(paths))
    return dict(zip(names, runs))


def _baseline_name(baseline: str | None, named: dict, paths: list[str]) -> str | None:
    """``--baseline`` given as a run name, a file path or a file name."""
    if baseline is None or baseline in named:
        return baseline
    for name, path in zip(named, paths):
        if baseline in (path, Path(path).name, Path(path).stem):
            return name
    raise UsageError(f"--baseline {baseline!r} is none of the runs: {', '.join(named)} (run names or file names)")


@click.command("compare", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("qrels", type=click.Path(dir_okay=False, allow_dash=True))
@click.argument("runs", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE",
              help="Measure to compare on (repeatable), e.g. -m AP -m nDCG@10. Default: AP.")
@click.option("--test", type=click.Choice(TESTS), default="t", show_default=True, help="Paired test over queries.")
@click.option("--correction", type=click.Choice(CORRECTIONS), default="holm", show_default=True,
              help="Multiple-comparison correction over the pairs of each measure.")
@click.option("--baseline", metavar="RUN", help="Compare each run with this one only (run name or file name).")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="Significance level.")
@click.option("--ci", type=click.Choice(("auto", "normal", "t", "bootstrap", "bca")), default="auto", show_default=True,
              help="Confidence intervals: auto = Student t below 30 queries, else normal.")
@click.option("--permutations", type=int, default=10_000, show_default=True,
              help="Random permutations / bootstrap resamples.")
@click.option("--seed", type=int, default=0, show_default=True, help="Random seed of the resampling tests.")
@click.option("--missing", type=click.Choice(("error", "intersect", "zero")), default="error", show_default=True,
              help="Runs with different queries: stop, keep the common ones, or count missing as 0 (trec_eval -c).")
@click.option("-c", "--complete", is_flag=True,
              help="Average over every qrels query; a query missing from a run scores 0 (trec_eval -c).")
@click.option("-l", "--relevance-level", type=int, default=1, show_default=True,
              help="Smallest judgment that counts as relevant for binary measures (trec_eval -l).")
@click.option("--digits", type=int, default=4, show_default=True, help="Decimals in tables.")
@click.option("-f", "--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), help="Write here (atomically) instead of stdout.")
def command(qrels, runs, measures, test, correction, baseline, alpha, ci, permutations, seed, missing, complete,
            relevance_level, digits, fmt, output):
    """Compare RUNS on QRELS: means with confidence intervals, paired tests over queries,
    corrected p-values, effect sizes (Cohen's d_z) and wins/ties/losses.

    \b
    Examples:
      cranfield compare qrels.txt bm25.run tfidf.run -m AP -m nDCG@10
      cranfield compare qrels.txt a.run b.run c.run --test randomization --baseline a.run
      cranfield compare qrels.txt a.run b.run --format json --output cmp.json
    """
    import cranfield
    from ..io.atomic import write_text_output

    if len(runs) < 2:
        raise UsageError(f"expected at least 2 runs to compare, found {len(runs)}")
    qrels_data = cranfield.read_qrels(qrels)
    paths = list(runs)
    named = _name_runs(paths, [cranfield.read_run(path) for path in paths])
    comparison = cranfield.compare(qrels_data, named, list(measures) or ["AP"], test=test, correction=correction,
                                   baseline=_baseline_name(baseline, named, paths), alpha=alpha, ci=ci,
                                   n_permutations=permutations, random_state=seed, missing=missing,
                                   evaluate_options={"complete": complete, "relevance_level": relevance_level})
    write_text_output(comparison.render(fmt, digits=digits), output)
