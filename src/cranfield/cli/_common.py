"""What several commands share beyond the options of :mod:`._options`: the choices they offer
(spelt here so that ``--help`` imports no numpy), the exit-status epilogue, the options of the report
and curves commands, and the file names of their figures."""

from __future__ import annotations

import click

from ..plots.stems import unique_stems  # noqa: F401  (re-exported: curves, report and demo use it)
from ._options import evaluation_options, input_options, missing_option

CRITERIA = ("accuracy", "f1", "youden", "closest", "cost")
TESTS = ("t", "wilcoxon", "sign", "randomization", "bootstrap")
# the library's choices (cranfield.stats.compare.COMPARE_CORRECTIONS / FAMILIES, paired.ZERO_METHODS;
# tests/stats check they agree), spelt here so that --help does not import numpy
CORRECTIONS = ("none", "bonferroni", "sidak", "holm", "holm-sidak", "hochberg", "hommel", "bh", "by", "tukey",
               "randomized-tukey")
FAMILIES = ("measure", "all")
ZERO_METHODS = ("wilcox", "pratt", "zsplit")

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
        click.option("--class-score", "class_scores", multiple=True, metavar="CLASS=COLUMN",
                     help="Multiclass form: the score column of a class (repeatable, one per class); a bare COLUMN "
                          "names the class it ends with (p_barolo: barolo). Three or more classes in --truth and no "
                          "--positive: --score columns are read the same way."),
        click.option("--class-truth", "class_truths", multiple=True, metavar="CLASS=COLUMN",
                     help="Multilabel form: the 0/1 column saying whether each sample has CLASS (repeatable, one per "
                          "class), with a --class-score per class; predicted: score >= 0.5."),
        click.option("--optimize", type=click.Choice([c for c in CRITERIA if c != "cost"]), default="f1", show_default=True,
                     help="Criterion of the operating point shown."),
    ]
    for option in reversed(options):
        function = option(function)
    return function
