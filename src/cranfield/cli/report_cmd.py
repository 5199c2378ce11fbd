"""``cranfield report``: one self-contained HTML report (retrieval runs, or a classifier's scores)."""

from __future__ import annotations

import os
import shlex
import sys

import click

from ..errors import UsageError
from .classify_cmd import CRITERIA
from ._options import cli_terms, evaluate_options, evaluation_options, input_options, missing_option, run_specs
from .compare_cmd import CORRECTIONS, TESTS

EXIT_CODES = ("\b\nExit status: 0 success; 2 bad input or usage (one message on standard error, "
              "no output file written or changed); 130 interrupted.")


def retrieval_options(function):
    """Options shared by the retrieval forms of ``report`` and ``curves``: the comparison's, the
    query-set policy (--missing), trec_eval's (-c -l -M -J -N) and the inputs' (--name, columns)."""
    options = [
        click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE",
                     help="Measure (repeatable). Default: AP nDCG@10 P@10 RR RPrec."),
        click.option("--test", type=click.Choice(TESTS), default="t", show_default=True,
                     help="Paired test over queries (the default of every command: see docs/cli.md)."),
        click.option("--correction", type=click.Choice(CORRECTIONS), default="holm", show_default=True,
                     help="Multiple-comparison correction over the pairs of each measure."),
        click.option("--baseline", metavar="RUN", help="Compare each run with this one only."),
        click.option("--alpha", type=float, default=0.05, show_default=True, help="Significance level."),
        click.option("--ci", type=click.Choice(("auto", "normal", "t", "bootstrap", "bca")), default="auto",
                     show_default=True, help="Confidence intervals of the means."),
        click.option("--permutations", type=int, default=10_000, show_default=True,
                     help="Random permutations / bootstrap resamples."),
        click.option("--seed", type=int, default=0, show_default=True, help="Random seed."),
        missing_option, evaluation_options, input_options,
    ]
    for option in reversed(options):
        function = option(function)
    return function


def detection_options(function):
    """Options shared by the classifier forms of ``report`` and ``curves``."""
    options = [
        click.option("--truth", metavar="COL", help="Classifier form: column with the actual class."),
        click.option("--score", "scores", multiple=True, metavar="COL",
                     help="Classifier form: column of a system's scores (repeatable: several systems)."),
        click.option("--positive", metavar="LABEL", help="The positive class (default: 1 for 0/1 labels)."),
        click.option("--optimize", type=click.Choice([c for c in CRITERIA if c != "cost"]), default="f1", show_default=True,
                     help="Criterion of the operating point shown."),
    ]
    for option in reversed(options):
        function = option(function)
    return function


def command_line() -> str | None:
    """The command as typed, when this process is the ``cranfield`` program."""
    name = os.path.basename(sys.argv[0]) if sys.argv else ""
    if name in ("cranfield", "__main__.py"):
        return "cranfield " + shlex.join(sys.argv[1:])
    return None


def study_from_inputs(inputs, *, truth, scores, positive, optimize, measures, test, correction, baseline, alpha, ci,
                      permutations, seed, step, missing="error", names=(), qrels_columns=None, run_columns=None,
                      **evaluation):
    """``("detection" | "retrieval", study)`` from the positional inputs and the options."""
    if truth is not None or scores:
        if truth is None or not scores:
            raise UsageError("the classifier form needs --truth COL and at least one --score COL")
        if len(inputs) != 1:
            raise UsageError(f"the classifier form takes one FILE (with --truth and --score); found {len(inputs)}")
        if correction not in ("none", "bonferroni", "holm", "bh"):
            raise UsageError(f"--correction {correction} applies to retrieval runs; for classifiers use none, "
                             "bonferroni, holm or bh")
        from ..report.detection import detection_study

        return "detection", detection_study(inputs[0], truth=truth, scores=scores, positive=positive,
                                            criterion=optimize, correction=correction, alpha=alpha, step=step)
    if not inputs or (len(inputs) < 2 and not names):
        raise UsageError("expected QRELS and at least one RUN (or FILE with --truth and --score)")
    from ..report.retrieval import DEFAULT_REPORT_MEASURES, retrieval_study

    specs = run_specs(inputs[1:], names)
    options = evaluate_options(**evaluation)
    with cli_terms():
        return "retrieval", retrieval_study(inputs[0], [p for p, _ in specs], labels=[label for _, label in specs],
                                            measures=list(measures) or DEFAULT_REPORT_MEASURES, test=test,
                                            correction=correction, alpha=alpha, ci=ci, n_permutations=permutations,
                                            random_state=seed, baseline=baseline, missing=missing,
                                            relevance_level=options.pop("relevance_level"), evaluate_options=options,
                                            qrels_columns=qrels_columns, run_columns=run_columns, step=step)


@click.command("report", epilog=EXIT_CODES, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("inputs", nargs=-1, required=True, metavar="QRELS RUN... | FILE")
@click.option("-o", "--output", required=True, metavar="FILE", help="The HTML file to write (atomically).")
@click.option("--title", help="Title of the report.")
@retrieval_options
@detection_options
@click.option("-q", "--quiet", is_flag=True, help="No progress and no messages (errors still go to stderr).")
def command(inputs, output, title, truth, scores, positive, optimize, quiet, **retrieval):
    """Write ONE self-contained HTML report: summary table with confidence intervals and
    significance marks, charts (inline SVG), a sortable per-query table, and the inputs
    (file names, SHA-256) and settings needed to reproduce it. It works offline: no CDN,
    no network.

    \b
    Retrieval: QRELS and one or more RUN files (TREC format).
    Classifier: one CSV/TSV/Parquet FILE with --truth and one --score per system.

    \b
    Examples:
      cranfield report qrels.txt bm25.run tfidf.run -o report.html
      cranfield report qrels.txt a.run b.run -m AP -m nDCG@10 --test t -o report.html
      cranfield report qrels.txt --name bm25=a.run --name tfidf=b.run -c -l 2 -o report.html
      cranfield report scores.csv --truth label --score model_a --score model_b -o report.html
    """
    from ..io.atomic import write_text_output
    from ..report.progress import steps

    if inputs and str(inputs[0]).startswith("irds:") and truth is None and not scores:
        raise UsageError(f"report records each input file's SHA-256, and {inputs[0]} is no file: save the judgments "
                         f"first (python -c \"import cranfield; cranfield.read_qrels('{inputs[0]}').to_trec('qrels.txt')\") "
                         "and give qrels.txt")
    with steps(enabled=not quiet) as step:
        kind, study = study_from_inputs(inputs, truth=truth, scores=scores, positive=positive, optimize=optimize,
                                        step=step, **retrieval)
        step("drawing charts")
        if kind == "retrieval":
            from ..report.retrieval import retrieval_figures as figures_of
            from ..report.retrieval import retrieval_html as to_html
        else:
            from ..report.detection import detection_figures as figures_of
            from ..report.detection import detection_html as to_html
        from .curves_cmd import unique_stems

        text = to_html(study, figures=unique_stems(figures_of(study)), title=title, command=command_line())
        step(f"writing {output}")
        write_text_output(text, output)
    if not quiet and output != "-":
        click.echo(f"cranfield: wrote {output}", err=True)
