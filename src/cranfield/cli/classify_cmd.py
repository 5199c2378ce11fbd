"""``cranfield classify``: confusion matrix, rates, curves' areas and a threshold for one file."""

from __future__ import annotations

import json
import warnings
from typing import Sequence

import click
import numpy as np

from ..classification.table import label_column, number_column, positive_label, prediction_column, read_table
from ..errors import InputError, UsageError

FORMATS = ("table", "json", "csv", "tsv", "markdown", "latex")
CRITERIA = ("accuracy", "f1", "youden", "closest", "cost")


def _number(value):
    if value is None:
        return None
    if isinstance(value, (list, np.ndarray)):
        return [_number(v) for v in np.asarray(value).tolist()]
    value = float(value)
    return value if np.isfinite(value) else None


def _threshold_note(threshold: float) -> str | None:
    if threshold == np.inf:
        return "the threshold is +inf (null in JSON): no sample is predicted positive"
    if threshold == -np.inf:
        return "the threshold is -inf (null in JSON): every sample is predicted positive"
    return None


def evaluate_file(path: str, *, truth: str, score: str | Sequence[str] | None = None, pred: str | None = None,
                  threshold: float | None = None, optimize: str | None = None, cost_fp: float = 1.0,
                  cost_fn: float = 1.0, positive: str | None = None) -> dict:
    """The JSON-ready report of ``cranfield classify`` (library entry point of the command).

    ``score`` is one column or several: with one (or none), the report of that system (its name
    under ``"system"``); with several, ``{"file", "n", "truth", "systems": {column: report}}``, one
    report per score column, each as it would be alone.
    """
    scores = [score] if isinstance(score, str) else list(dict.fromkeys(score or ()))
    if not scores and pred is None:
        raise UsageError("give --score COL, --pred COL or both")
    if threshold is not None and optimize is not None:
        raise UsageError("--threshold and --optimize exclude each other")
    if not scores and (threshold is not None or optimize is not None):
        raise UsageError("--threshold and --optimize need --score")
    if threshold is not None and threshold != threshold:
        raise UsageError("--threshold nan: expected a number (±inf allowed)")
    if pred is not None and (threshold is not None or optimize is not None):
        raise UsageError("--threshold and --optimize decide the predictions; do not give --pred with them")
    if pred is not None and len(scores) > 1:
        raise UsageError(f"--pred gives one system's classes; with {len(scores)} --score columns, leave out --pred "
                         "(each score column is thresholded) or give one --score")
    if truth in scores or truth == pred:
        raise UsageError(f"the truth column {truth!r} cannot also be a --score or --pred column")
    table, first_line = read_table(path)
    y_true = label_column(table, truth, path, first_line)
    y_pred = prediction_column(table, pred, path, first_line) if pred is not None else None
    values = {name: number_column(table, name, path, first_line) for name in scores}
    if len(y_true) == 0:
        raise InputError("no rows", source=path)
    from ..classification._validation import check_class_count, check_same_kind

    check_class_count(len(np.unique(y_true)), truth, source=path)
    if y_pred is not None:
        check_same_kind((y_true, truth), (y_pred, pred), source=path, first_line=first_line)
    pos = positive_label(y_true, [] if y_pred is None else [y_pred], positive, needed=bool(scores))
    options = dict(threshold=threshold, optimize=optimize, cost_fp=cost_fp, cost_fn=cost_fn)
    if len(scores) <= 1:
        name = scores[0] if scores else None
        return _system_report(path, truth, y_true, pos, name or pred, values.get(name), y_pred, **options)
    return {"file": path, "n": int(len(y_true)), "truth": truth,
            "systems": {name: _system_report(path, truth, y_true, pos, name, values[name], None, **options)
                        for name in scores}}


def _system_report(path: str, truth: str, y_true: np.ndarray, pos, system: str | None, y_score: np.ndarray | None,
                   y_pred: np.ndarray | None, *, threshold: float | None, optimize: str | None, cost_fp: float,
                   cost_fn: float) -> dict:
    from ..classification import ConfusionMatrix
    from ..classification.curves import average_precision, equal_error_rate, roc_auc
    from ..classification.thresholds import best_threshold

    report: dict = {"file": path, "n": int(len(y_true)), "system": system, "threshold": None, "criterion": None}
    if y_score is not None:
        from ..classification._validation import binary_truth

        is_pos = binary_truth(y_true, pos)
        if y_pred is None:
            if optimize is not None:
                point = best_threshold(is_pos, y_score, criterion=optimize, cost_fp=cost_fp, cost_fn=cost_fn)
                report["criterion"] = {"name": point.criterion, "value": point.value}
                threshold = point.threshold
            elif threshold is None:
                threshold = 0.5
            report["threshold"] = _number(threshold)
            note = _threshold_note(threshold)
            if note:
                report.setdefault("notes", []).append(note)
            classes = sorted(set(np.unique(y_true).tolist()) | {pos})
            if len(classes) != 2:
                raise InputError(f"a score needs two classes in the truth column, found {classes!r}",
                                 source=path, field=truth)
            negative = classes[0] if classes[1] == pos else classes[1]
            y_pred = np.where(y_score >= threshold, np.asarray(pos, dtype=object), np.asarray(negative, dtype=object))
            y_pred = y_pred.astype(y_true.dtype) if y_true.dtype.kind != "O" else y_pred
        both = bool(is_pos.any() and (~is_pos).any())
        report["roc_auc"] = roc_auc(is_pos, y_score) if both else None
        report["average_precision"] = average_precision(is_pos, y_score) if is_pos.any() else None
        report["eer"] = equal_error_rate(is_pos, y_score) if both else None
        if not both:
            report.setdefault("notes", []).append("the truth column has one class only: ROC AUC, EER (and AP without positives) "
                               "are undefined (null)")
    cm = ConfusionMatrix.from_labels(y_true, y_pred, pos_label=pos)
    summary = cm.to_dict()
    report["confusion_matrix"] = {"labels": summary["labels"], "matrix": summary["matrix"], "rows": "actual",
                                  "positive": summary["positive"]}
    report["average"] = "binary" if cm.is_binary else "macro"
    report["metrics"] = summary["metrics"]
    report["baselines"] = dict(summary["baselines"])
    if cm.is_binary:
        report["baselines"]["no_skill_average_precision"] = summary["metrics"]["prevalence"]
    return report


def _measure_rows(report: dict) -> list[list]:
    rows = [[name, value] for name, value in report["metrics"].items()]
    for key in ("roc_auc", "average_precision", "eer"):
        if key in report:
            rows.append([key, report[key]])
    if report["threshold"] is not None:
        rows.append(["threshold", report["threshold"]])
    for key, value in report["baselines"].items():
        rows.append([f"baseline: {key}", value])
    return rows


def _notes(report: dict) -> list[str]:
    notes = list(report.get("notes", []))
    if report["average"] == "macro":
        notes.append("per-class rates are macro averages over classes")
    return notes


def _matrix_table(report: dict, digits: int, title: str = "confusion matrix (rows = actual)"):
    from ..report.tables import Table

    cm = report["confusion_matrix"]
    return Table(["actual \\ predicted", *[str(v) for v in cm["labels"]]],
                 [[str(label), *row] for label, row in zip(cm["labels"], cm["matrix"])], title=title, digits=digits)


def _tables(report: dict, digits: int):
    """(confusion matrix tables, measures table): one system, or one tidy table with a system column."""
    from ..report.tables import Table

    if "systems" not in report:
        metrics = Table(["measure", "value"], _measure_rows(report), title="measures", digits=digits,
                        notes=_notes(report))
        return [_matrix_table(report, digits)], metrics
    systems = report["systems"]
    matrices = [_matrix_table(r, digits, f"confusion matrix of {name} (rows = actual)") for name, r in systems.items()]
    rows = [[name, *row] for name, r in systems.items() for row in _measure_rows(r)]
    notes = list(dict.fromkeys(f"{name}: {note}" for name, r in systems.items() for note in r.get("notes", [])))
    if any(r["average"] == "macro" for r in systems.values()):
        notes.append("per-class rates are macro averages over classes")
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
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option("--digits", type=int, default=4, show_default=True, help="Decimals in tables.")
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write here (atomically) instead of stdout.")
def command(file, truth, score, pred, threshold, optimize, cost_fp, cost_fn, positive, fmt, digits, output):
    """Evaluate a detection/classification system from a CSV, TSV or Parquet FILE.

    \b
    Examples:
      cranfield classify results.csv --truth label --score prob
      cranfield classify results.parquet --truth y --score s --optimize cost --cost-fn 5
      cranfield classify results.tsv --truth gold --pred system --format json
      cranfield classify scores.csv --truth y --score model_a --score model_b
    """
    from ..io.atomic import write_text_output
    from ..report.tables import render_table

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = evaluate_file(file, truth=truth, score=score, pred=pred, threshold=threshold, optimize=optimize,
                               cost_fp=cost_fp, cost_fn=cost_fn, positive=positive)
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
