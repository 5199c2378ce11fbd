"""``cranfield curves``: write the plots of retrieval runs or of a classifier's scores to a folder."""

from __future__ import annotations

import click

from .._params import usage_error
from ..errors import UsageError
from ..plots._base import save_figures
from ..plots.classification import cap_plot, gain_plot, lift_curve_plot
from ..plots.retrieval import difference_plot, forest_plot, per_query_pr_plot, recall_precision_plot
from ..report.detection import detection_figures
from ..retrieval.inputs import baseline_name
from ..report.multiclass import multiclass_figures
from ..report.progress import steps
from ._common import EXIT_CODES, detection_options, retrieval_options, unique_stems
from ._study import study_from_inputs

RETRIEVAL_KINDS = ("recall_precision", "per_query_pr", "forest", "differences")
DETECTION_KINDS = ("roc", "pr", "det", "confusion", "threshold")
GAIN_KINDS = ("lift", "gain", "cap")  # classifier figures drawn only when asked for with --only


def _pairs(pair_specs, systems, resolve) -> list[tuple[str, str]]:
    pairs = []
    for spec in pair_specs:
        a, sep, b = spec.partition(",")
        if not sep or not a or not b:
            raise UsageError(f"--pair: expected A,B (two run names or file names), found {spec!r}")
        a, b = resolve(a.strip(), "--pair"), resolve(b.strip(), "--pair")
        if a == b:
            raise UsageError(f"--pair: expected two different runs, found {spec!r}")
        pairs.append((a, b))
    return pairs


def retrieval_selection(study, kinds, pairs) -> dict:
    """The chosen retrieval figures (see ``--only`` and ``--pair``), as ``{stem: (draw, caption)}``
    where ``draw()`` makes the Figure (so that drawing can show its progress)."""
    c = study.comparison
    plans = {}
    if "recall_precision" in kinds:
        plans["recall_precision"] = (lambda: recall_precision_plot(study.results),
                                     "11-point interpolated recall–precision graph, mean over queries")
    if "per_query_pr" in kinds:
        for name, r in study.results.items():
            plans[f"per_query_pr_{name}"] = (lambda r=r: per_query_pr_plot(r),
                                             f"{name}: each query's interpolated curve and the mean")
    if "forest" in kinds and c.pairs:
        plans["forest"] = (lambda: forest_plot(c), "Mean differences between systems with confidence intervals; "
                                                   "filled = significant after correction")
    if "differences" in kinds:
        first = study.measures[0]
        for a, b in pairs or [(p.a, p.b) for p in c.pairs if p.measure == first]:
            plans[f"differences_{a}_vs_{b}"] = (lambda a=a, b=b: difference_plot(c, first, a=a, b=b),
                                                f"Per-query {first} differences {a} − {b}, sorted")
    return plans


def gain_figures(study, kinds) -> dict:
    """The lift, cumulative-gain and CAP figures of every system named in ``kinds``."""
    plans = {"gain": (gain_plot, ("Cumulative gain: share of positives in the top of the scores; dashed: random, "
                                  "dotted: perfect")),
             "lift": (lift_curve_plot, "Lift: gain / share targeted; dashed: random (1)"),
             "cap": (cap_plot, "Cumulative accuracy profile; accuracy ratio (= 2 AUC - 1) in the legend")}
    return {kind: (draw(study.y_true, study.scores), caption) for kind, (draw, caption) in plans.items()
            if kind in kinds}


@click.command("curves", epilog=EXIT_CODES, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("inputs", nargs=-1, required=True, metavar="QRELS RUN... | FILE")
@click.option("-o", "--output-dir", required=True, metavar="DIR", help="Folder for the figures (created if needed).")
@click.option("-f", "--format", "fmt", type=click.Choice(("png", "svg", "pdf")), default="png", show_default=True)
@click.option("--dpi", type=int, default=150, show_default=True, help="Resolution of PNG figures.")
@click.option("--only", "only", multiple=True, type=click.Choice(RETRIEVAL_KINDS + DETECTION_KINDS + GAIN_KINDS), metavar="KIND",
              help="Draw only this kind of figure (repeatable): " + ", ".join(RETRIEVAL_KINDS) + " (retrieval); "
                   + ", ".join(DETECTION_KINDS + GAIN_KINDS) + " (classifier; lift, gain and cap only when named). "
                   "Without forest, no significance test is run.")
@click.option("--pair", "pair_specs", multiple=True, metavar="A,B",
              help="The pair of runs (names or file names) of a difference chart (repeatable); default: every "
                   "compared pair.")
@retrieval_options
@detection_options
@click.option("-q", "--quiet", is_flag=True, help="No progress and no messages (errors still go to stderr).")
def command(inputs, output_dir, fmt, dpi, only, pair_specs, truth, scores, positive, optimize, class_scores,
            class_truths, quiet, **retrieval):
    """Draw the figures and write them to DIR (PNG, SVG or PDF; each file written atomically).

    \b
    Retrieval (QRELS RUN...): recall_precision (11-point interpolated, all runs), forest
    (differences with CIs), differences_A_vs_B (per-query bars of the first measure),
    per_query_pr_RUN.
    Classifier (FILE --truth COL --score COL...): roc, pr, det, confusion_BEST (counts and
    normalised) and threshold_BEST, for the system with the best ROC AUC; with --only: lift,
    gain (cumulative gain) and cap (cumulative accuracy profile, accuracy ratio in the legend).
    Multiclass (FILE --truth COL --class-score CLASS=COLUMN...): roc and pr (each class and the
    micro average), confusion and confusion_normalised (under the class names).
    File names are unique: names that would clash once made safe for a file system are numbered.

    \b
    Examples:
      cranfield curves qrels.txt bm25.run tfidf.run -o plots/
      cranfield curves qrels.txt a.run b.run -m nDCG@10 --format svg -o plots/
      cranfield curves qrels.txt a.run b.run c.run --only differences --pair a.run,c.run -o plots/
      cranfield curves scores.csv --truth label --score model_a --score model_b --only roc -o plots/
      cranfield curves scores.csv --truth label --score model_a --only gain --only lift --only cap -o plots/
    """
    classifier = truth is not None or bool(scores) or bool(class_scores) or bool(class_truths)
    kinds = set(only) or set(DETECTION_KINDS if classifier else RETRIEVAL_KINDS)
    if pair_specs:
        if not only:
            kinds = {"differences"}
        if "differences" not in kinds or classifier:
            raise UsageError("--pair chooses the runs of a difference chart: use it with --only differences "
                             "(retrieval runs)")
    allowed = DETECTION_KINDS + GAIN_KINDS if classifier else RETRIEVAL_KINDS
    wrong = sorted(kinds - set(allowed))
    if wrong:
        raise usage_error("--only", f"a figure of the {'classifier' if classifier else 'retrieval'} form: one of "
                                    f"{', '.join(allowed)}", wrong[0])
    if not classifier and "forest" not in kinds:
        # no figure shows p-values: skip the (resampling) significance test
        retrieval.update(test="t", correction="none")
    with steps(enabled=not quiet) as step:
        kind, study = study_from_inputs(inputs, truth=truth, scores=scores, positive=positive, optimize=optimize,
                                        class_scores=class_scores, class_truths=class_truths, step=step, **retrieval)
        if kind == "retrieval":
            paths = [str(p) for p in study.run_paths.values()]

            def resolve(name, option):
                try:
                    return baseline_name(name, study.results, paths)
                except UsageError:
                    raise UsageError(f"{option} {name!r} is none of the runs: {', '.join(study.results)} "
                                     "(run names or file names)") from None

            plans = retrieval_selection(study, kinds, _pairs(pair_specs, list(study.results), resolve))
            advance = step(f"drawing {len(plans)} figures", total=len(plans))
            figures = {}
            for stem, (draw, caption) in plans.items():
                figures[stem] = (draw(), caption)
                advance()
        else:
            step("drawing")
            figures = {}
            if kinds - set(GAIN_KINDS):  # lift, gain and cap alone draw nothing else
                drawn = multiclass_figures(study) if kind == "multiclass" else detection_figures(study)
                figures = {stem: value for stem, value in drawn.items()
                           if any(stem == k or stem.startswith(k + "_") for k in kinds)}
            if kind != "multiclass":
                figures.update(gain_figures(study, kinds))
        figures = unique_stems(figures)
        advance = step(f"writing {len(figures)} figures", total=len(figures))
        written = []
        for stem, value in figures.items():
            written += save_figures({stem: value}, output_dir, format=fmt, dpi=dpi)
            advance()
    if not quiet:
        click.echo(f"cranfield: wrote {len(written)} figures to {output_dir}: "
                   + ", ".join(p.name for p in written), err=True)
