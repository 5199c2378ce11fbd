"""``cranfield classify``: confusion matrix, rates, curves' areas and a threshold for one file."""

from __future__ import annotations

import json
import warnings

import click

from ..classification.file_report import AVERAGES, CRITERIA, classify_file
from ..io.atomic import write_text_output
from ..io.tables import Table, render_table

FORMATS = ("table", "json", "csv", "tsv", "markdown", "latex")

def evaluate_file(path: str, **options) -> dict:
    """Deprecated: :func:`cranfield.classification.file_report.classify_file` (the library entry
    point of ``cranfield classify`` moved out of the command line)."""
    warnings.warn("cranfield.cli.classify_cmd.evaluate_file is deprecated; use "
                  "cranfield.classification.file_report.classify_file", DeprecationWarning, stacklevel=2)
    return classify_file(path, **options)


def _measure_rows(report: dict) -> list[list]:
    labels = report["confusion_matrix"]["labels"]
    rows = []
    for name, value in report["metrics"].items():
        if isinstance(value, list):  # --average none: one row per class
            rows += [[f"{name} ({label})", v] for label, v in zip(labels, value)]
        else:
            rows.append([name, value])
    classes = list(report.get("class_scores", {})) or labels
    for key in ("map", "roc_auc", "average_precision", "eer", "top_1_accuracy", "top_2_accuracy"):
        if key in report:
            value = report[key]
            if isinstance(value, list):
                rows += [[f"{'ap' if key == 'map' else key} ({label})", v] for label, v in zip(classes, value)]
            else:
                rows.append([key, value])
    if report["threshold"] is not None:
        rows.append(["threshold", report["threshold"]])
    for key, value in report["baselines"].items():
        rows.append([f"baseline: {key}", value])
    return rows


def _notes(report: dict) -> list[str]:
    notes = list(report.get("notes", []))
    if report["average"] in ("macro", "weighted", "micro"):
        notes.append(f"per-class rates are {report['average']} averages over classes")
    return notes


def _matrix_table(report: dict, digits: int, title: str = "confusion matrix (rows = actual)"):
    cm = report["confusion_matrix"]
    return Table(["actual \\ predicted", *[str(v) for v in cm["labels"]]],
                 [[str(label), *row] for label, row in zip(cm["labels"], cm["matrix"])], title=title, digits=digits)


def _tables(report: dict, digits: int):
    """(confusion matrix tables, measures table): one system, or one tidy table with a system column."""
    if "systems" not in report:
        metrics = Table(["measure", "value"], _measure_rows(report), title="measures", digits=digits,
                        notes=_notes(report))
        return [_matrix_table(report, digits)], metrics
    systems = report["systems"]
    matrices = [_matrix_table(r, digits, f"confusion matrix of {name} (rows = actual)") for name, r in systems.items()]
    rows = [[name, *row] for name, r in systems.items() for row in _measure_rows(r)]
    notes = list(dict.fromkeys(f"{name}: {note}" for name, r in systems.items() for note in r.get("notes", [])))
    for how in dict.fromkeys(r["average"] for r in systems.values()):
        if how in ("macro", "weighted", "micro"):
            notes.append(f"per-class rates are {how} averages over classes")
    metrics = Table(["system", "measure", "value"], rows, title=f"measures of {len(systems)} systems", digits=digits,
                    notes=notes)
    return matrices, metrics


@click.command("classify")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--truth", required=True, metavar="COL", help="Column with the actual class.")
@click.option("--score", metavar="COL", multiple=True,
              help="Column with a system's score (higher = more positive); repeat for several systems.")
@click.option("--pred", metavar="COL", help="Column with the system's predicted class.")
@click.option("--threshold", type=float, help="Predict positive iff score ≥ T (default 0.5 with --score).")
@click.option("--optimize", type=click.Choice(CRITERIA), help="Choose the threshold that optimises this criterion.")
@click.option("--cost-fp", type=float, default=1.0, show_default=True, help="Cost of a false positive (--optimize cost).")
@click.option("--cost-fn", type=float, default=1.0, show_default=True, help="Cost of a false negative (--optimize cost).")
@click.option("--positive", metavar="LABEL", help="The positive class (default: 1 for 0/1 or -1/1 labels).")
@click.option("--class-score", "class_scores", metavar="COL", multiple=True,
              help="Multiclass: the score column of one class, CLASS=COLUMN or a bare COLUMN named after its class "
                   "(CLASS, or ending with _CLASS as p_CLASS); repeat it for each class. Columns are never paired "
                   "with classes by position (except bare names none of which names a class, in --labels order).")
@click.option("--labels", metavar="A,B,...", help="Choose and order the classes (comma-separated); a value outside "
              "them is an error naming its line; a listed class that never occurs gets 0/0 rates (a warning).")
@click.option("--average", type=click.Choice(AVERAGES), default="macro", show_default=True,
              help="How per-class values of a multiclass problem are averaged (none: one value per class).")
@click.option("--multi-class", "multi_class", type=click.Choice(("ovr", "ovo")), default="ovr", show_default=True,
              help="ROC AUC with --class-score: one-vs-rest, or one-vs-one (Hand & Till 2001).")
@click.option("-f", "--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option("--digits", type=int, default=4, show_default=True, help="Decimals in tables.")
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write here (atomically) instead of stdout.")
def command(file, truth, score, pred, threshold, optimize, cost_fp, cost_fn, positive, class_scores, labels, average,
            multi_class, fmt, digits, output):
    """Evaluate a detection/classification system from a CSV, TSV or Parquet FILE.

    \b
    Examples:
      cranfield classify results.csv --truth label --score prob
      cranfield classify results.parquet --truth y --score s --optimize cost --cost-fn 5
      cranfield classify results.tsv --truth gold --pred system --format json
      cranfield classify scores.csv --truth y --score model_a --score model_b
      cranfield classify probs.csv --truth animal --class-score p_cat --class-score p_dog --class-score p_eel
      cranfield classify probs.csv --truth animal --class-score eel=pe --class-score dog=pd \\
          --class-score cat=pc --average weighted --multi-class ovo
      cranfield classify gold.tsv --truth gold --pred system --average none --labels a,b,c
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = classify_file(file, truth=truth, score=score, pred=pred, threshold=threshold, optimize=optimize,
                               cost_fp=cost_fp, cost_fn=cost_fn, positive=positive, class_scores=class_scores,
                               labels=None if labels is None else [labels], average=average, multi_class=multi_class)
    for message in dict.fromkeys(str(w.message) for w in caught):
        click.echo(f"cranfield: warning: {message}", err=True)
    if fmt == "json":
        text = json.dumps(report, indent=2, allow_nan=False) + "\n"
    else:
        matrices, metrics = _tables(report, digits)
        if fmt in ("csv", "tsv"):
            text = render_table(metrics, fmt)
        else:
            text = "\n".join(render_table(t, fmt) for t in [*matrices, metrics])
    write_text_output(text, output)
