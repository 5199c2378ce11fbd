"""``cranfield report``: one self-contained HTML report (retrieval runs, or a classifier's scores)."""

from __future__ import annotations

import click

from ..errors import UsageError
from ..io.atomic import write_text_output
from ..report.detection import detection_figures, detection_html
from ..report.multiclass import multiclass_figures, multiclass_html
from ..report.progress import steps
from ..report.retrieval import retrieval_figures, retrieval_html
from ._common import EXIT_CODES, detection_options, retrieval_options, unique_stems
from ._options import command_line
from ._study import study_from_inputs

@click.command("report", epilog=EXIT_CODES, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("inputs", nargs=-1, required=True, metavar="QRELS RUN... | FILE")
@click.option("-o", "--output", required=True, metavar="FILE", help="The HTML file to write (atomically).")
@click.option("--title", help="Title of the report.")
@retrieval_options
@detection_options
@click.option("-q", "--quiet", is_flag=True, help="No progress and no messages (errors still go to stderr).")
def command(inputs, output, title, truth, scores, positive, optimize, class_scores, class_truths, quiet, **retrieval):
    """Write ONE self-contained HTML report: summary table with confidence intervals and
    significance marks, charts (inline SVG), a sortable per-query table, and the inputs
    (file names, SHA-256) and settings needed to reproduce it. It works offline: no CDN,
    no network.

    \b
    Retrieval: QRELS and one or more RUN files (TREC format).
    Classifier: one CSV/TSV/Parquet FILE with --truth and one --score per system.
    Multiclass: one FILE with --truth and one --class-score CLASS=COLUMN per class (per-class
    and averaged ROC AUC and AP, precision, recall, F1, the confusion matrix under the class names).

    \b
    Examples:
      cranfield report qrels.txt bm25.run tfidf.run -o report.html
      cranfield report qrels.txt a.run b.run -m AP -m nDCG@10 --test t -o report.html
      cranfield report qrels.txt --name bm25=a.run --name tfidf=b.run -c -l 2 -o report.html
      cranfield report scores.csv --truth label --score model_a --score model_b -o report.html
      cranfield report wine.csv --truth truth --class-score barolo=p_barolo --class-score
        grignolino=p_grignolino --class-score barbera=p_barbera -o wine.html
    """
    if inputs and str(inputs[0]).startswith("irds:") and truth is None and not scores:
        raise UsageError(f"report records each input file's SHA-256, and {inputs[0]} is no file: save the judgments "
                         f"first (python -c \"import cranfield; cranfield.read_qrels('{inputs[0]}').to_trec('qrels.txt')\") "
                         "and give qrels.txt")
    with steps(enabled=not quiet) as step:
        kind, study = study_from_inputs(inputs, truth=truth, scores=scores, positive=positive, optimize=optimize,
                                        class_scores=class_scores, class_truths=class_truths, step=step, **retrieval)
        step("drawing charts")
        renderers = {"retrieval": (retrieval_figures, retrieval_html), "multiclass": (multiclass_figures, multiclass_html)}
        figures_of, to_html = renderers.get(kind, (detection_figures, detection_html))
        text = to_html(study, figures=unique_stems(figures_of(study)), title=title, command=command_line())
        step(f"writing {output}")
        write_text_output(text, output)
    if not quiet and output != "-":
        click.echo(f"cranfield: wrote {output}", err=True)
