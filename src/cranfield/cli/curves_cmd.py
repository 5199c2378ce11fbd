"""``cranfield curves``: write the plots of retrieval runs or of a classifier's scores to a folder."""

from __future__ import annotations

import click

from .report_cmd import EXIT_CODES, detection_options, retrieval_options, study_from_inputs


@click.command("curves", epilog=EXIT_CODES, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("inputs", nargs=-1, required=True, metavar="QRELS RUN... | FILE")
@click.option("-o", "--output-dir", required=True, metavar="DIR", help="Folder for the figures (created if needed).")
@click.option("--format", "fmt", type=click.Choice(("png", "svg", "pdf")), default="png", show_default=True)
@click.option("--dpi", type=int, default=150, show_default=True, help="Resolution of PNG figures.")
@retrieval_options
@detection_options
@click.option("-q", "--quiet", is_flag=True, help="No progress and no messages (errors still go to stderr).")
def command(inputs, output_dir, fmt, dpi, measures, test, correction, baseline, alpha, ci, permutations, seed,
            relevance_level, truth, scores, positive, optimize, quiet):
    """Draw the figures and write them to DIR (PNG, SVG or PDF; each file written atomically).

    \b
    Retrieval (QRELS RUN...): recall_precision (11-point interpolated, all runs), forest
    (differences with CIs), differences_A_vs_B (per-query bars of the first measure),
    per_query_pr_RUN.
    Classifier (FILE --truth COL --score COL...): roc, pr, det, confusion_BEST (counts and
    normalised) and threshold_BEST, for the system with the best ROC AUC.

    \b
    Examples:
      cranfield curves qrels.txt bm25.run tfidf.run -o plots/
      cranfield curves qrels.txt a.run b.run -m nDCG@10 --format svg -o plots/
      cranfield curves scores.csv --truth label --score model_a --score model_b -o plots/
    """
    from ..plots._base import save_figures
    from ..report.progress import steps

    with steps(enabled=not quiet) as step:
        kind, study = study_from_inputs(inputs, truth=truth, scores=scores, positive=positive, optimize=optimize,
                                        measures=measures, test=test, correction=correction, baseline=baseline,
                                        alpha=alpha, ci=ci, permutations=permutations, seed=seed,
                                        relevance_level=relevance_level, step=step)
        step("drawing")
        if kind == "retrieval":
            from ..report.retrieval import retrieval_figures as figures_of
        else:
            from ..report.detection import detection_figures as figures_of
        figures = figures_of(study)
        step(f"writing {len(figures)} figures")
        written = save_figures(figures, output_dir, format=fmt, dpi=dpi)
    if not quiet:
        click.echo(f"cranfield: wrote {len(written)} figures to {output_dir}: "
                   + ", ".join(p.name for p in written), err=True)
