"""``cranfield classify``: confusion matrix, rates, curves' areas and a threshold for one file."""

from __future__ import annotations

import json
import warnings
from typing import Sequence

import click
import numpy as np

from ..classification import ConfusionMatrix
from ..classification._validation import binary_truth, check_class_count, check_same_kind
from ..classification.confusion import SUMMARY_RATES
from ..classification.curves import average_precision, equal_error_rate, roc_auc
from ..classification.multiclass import average_precision_multiclass, roc_auc_multiclass, top_k_accuracy
from ..classification.rates import get_rate
from ..classification.table import label_column, number_column, positive_label, prediction_column, read_table
from ..classification.table import parse_label
from ..classification.thresholds import best_threshold
from ..errors import InputError, UsageError
from ..io.atomic import write_text_output
from ..io.tables import Table, render_table
from ._common import CRITERIA

FORMATS = ("table", "json", "csv", "tsv", "markdown", "latex")
AVERAGES = ("macro", "weighted", "micro", "none")


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
                  cost_fn: float = 1.0, positive: str | None = None, class_scores: Sequence[str] = (),
                  labels: Sequence[str] | None = None, average: str = "macro", multi_class: str = "ovr") -> dict:
    """The JSON-ready report of ``cranfield classify`` (library entry point of the command).

    ``score`` is one column or several: with one (or none), the report of that system (its name
    under ``"system"``); with several, ``{"file", "n", "truth", "systems": {column: report}}``, one
    report per score column, each as it would be alone.

    ``class_scores``: one score column per class (multiclass), in the order of ``labels`` (texts
    read as the truth column's type) or of the sorted classes: the report then has mAP and ROC AUC
    (``multi_class`` "ovr" or "ovo") averaged by ``average`` ("macro", "weighted", "micro" or
    "none": per class), top-1 and top-2 accuracy, and the confusion matrix of the top-scored class
    (or of ``pred``). ``average`` also averages the per-class rates of a multiclass matrix.
    """
    if not (isinstance(average, str) and average in AVERAGES):
        raise UsageError(f"--average must be one of {', '.join(AVERAGES)}, found {average!r}")
    if not (isinstance(multi_class, str) and multi_class in ("ovr", "ovo")):
        raise UsageError(f"--multi-class must be ovr or ovo, found {multi_class!r}")
    class_scores = list(dict.fromkeys(class_scores or ()))
    if multi_class == "ovo" and average not in ("macro", "weighted"):
        raise UsageError("--multi-class ovo averages over pairs of classes: use --average macro or weighted")
    if class_scores:
        if score:
            raise UsageError("--class-score (one column per class) and --score (binary scores) exclude each other")
        if threshold is not None or optimize is not None or positive is not None:
            raise UsageError("--threshold, --optimize and --positive are for binary --score columns, not --class-score")
        return _class_scores_report(path, truth, class_scores, pred, labels, average, multi_class)
    scores = [score] if isinstance(score, str) else list(dict.fromkeys(score or ()))
    if not scores and pred is None:
        raise UsageError("give --score COL, --pred COL or both (or --class-score COL once per class)")
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
    check_class_count(len(np.unique(y_true)), truth, source=path)
    if y_pred is not None:
        check_same_kind((y_true, truth), (y_pred, pred), source=path, first_line=first_line)
    pos = positive_label(y_true, [] if y_pred is None else [y_pred], positive, needed=bool(scores))
    classes = _parse_labels(labels, y_true, [] if y_pred is None else [(y_pred, pred)], truth, path, first_line)
    options = dict(threshold=threshold, optimize=optimize, cost_fp=cost_fp, cost_fn=cost_fn, classes=classes,
                   average=average)
    if len(scores) <= 1:
        name = scores[0] if scores else None
        return _system_report(path, truth, y_true, pos, name or pred, values.get(name), y_pred, **options)
    return {"file": path, "n": int(len(y_true)), "truth": truth,
            "systems": {name: _system_report(path, truth, y_true, pos, name, values[name], None, **options)
                        for name in scores}}


def _system_report(path: str, truth: str, y_true: np.ndarray, pos, system: str | None, y_score: np.ndarray | None,
                   y_pred: np.ndarray | None, *, threshold: float | None, optimize: str | None, cost_fp: float,
                   cost_fn: float, classes: list | None = None, average: str = "macro") -> dict:
    report: dict = {"file": path, "n": int(len(y_true)), "system": system, "threshold": None, "criterion": None}
    if y_score is not None:
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
    if classes is not None and y_score is not None and len(classes) != 2:
        raise UsageError(f"--labels lists {len(classes)} classes; a binary --score needs two")
    cm = ConfusionMatrix.from_labels(y_true, y_pred, labels=classes, pos_label=pos)
    _add_matrix(report, cm, average)
    return report


def _add_matrix(report: dict, cm, average: str) -> None:
    """The confusion matrix, its rates (per-class rates averaged by ``average`` unless binary)
    and the baselines."""
    summary = cm.to_dict()
    report["confusion_matrix"] = {"labels": summary["labels"], "matrix": summary["matrix"], "rows": "actual",
                                  "positive": summary["positive"]}
    if cm.is_binary:
        report["average"] = "binary"
        report["metrics"] = summary["metrics"]
    else:
        report["average"] = average
        how = None if average == "none" else average
        report["metrics"] = {name: _number(cm.rate(name, average=how if get_rate(name).scope == "counts" else "auto"))
                             for name in SUMMARY_RATES}
    report["baselines"] = dict(summary["baselines"])
    if cm.is_binary:
        report["baselines"]["no_skill_average_precision"] = summary["metrics"]["prevalence"]


def _parse_labels(labels: Sequence[str] | None, y_true: np.ndarray, others: list, truth: str, path: str,
                  first_line: int) -> list | None:
    """``--labels`` texts as values of the truth column's type; every value of the truth (and
    prediction) column must be one of them (an error names the first line that is not)."""
    if labels is None:
        return None
    texts = [t.strip() for item in labels for t in str(item).split(",") if t.strip()]
    if not texts:
        raise UsageError("--labels: expected a comma-separated list of classes")
    try:
        classes = [parse_label(t, y_true) for t in texts]
    except UsageError as error:
        raise UsageError(str(error).replace("--positive", "--labels")) from None
    if len(set(classes)) != len(classes):
        raise UsageError(f"--labels lists a class twice: {texts!r}")
    known = np.asarray(classes, dtype=object)
    for values, name in [(y_true, truth), *others]:
        outside = ~np.isin(values.astype(object), known)
        if outside.any():
            i = int(np.flatnonzero(outside)[0])
            raise InputError(f"{values[i].item() if hasattr(values[i], 'item') else values[i]!r} is not one of "
                             f"--labels {', '.join(texts)}", source=path, line=i + first_line, field=name)
    return classes


def _class_scores_report(path: str, truth: str, columns: list[str], pred: str | None, labels: Sequence[str] | None,
                         average: str, multi_class: str) -> dict:
    if truth in columns or truth == pred:
        raise UsageError(f"the truth column {truth!r} cannot also be a --class-score or --pred column")
    if len(columns) < 2:
        raise UsageError("--class-score takes one column per class: give it at least twice")
    table, first_line = read_table(path)
    y_true = label_column(table, truth, path, first_line)
    if len(y_true) == 0:
        raise InputError("no rows", source=path)
    check_class_count(len(np.unique(y_true)), truth, source=path)
    y_pred = prediction_column(table, pred, path, first_line) if pred is not None else None
    if y_pred is not None:
        check_same_kind((y_true, truth), (y_pred, pred), source=path, first_line=first_line)
    matrix = np.column_stack([number_column(table, name, path, first_line) for name in columns])
    classes = _parse_labels(labels, y_true, [] if y_pred is None else [(y_pred, pred)], truth, path, first_line)
    if classes is None:
        classes = sorted(set(np.unique(y_true).tolist()) | (set() if y_pred is None else set(np.unique(y_pred).tolist())))
    if len(classes) != len(columns):
        raise UsageError(f"{len(columns)} --class-score columns for {len(classes)} classes {classes!r}: give one "
                         "column per class, in the order of --labels (or of the sorted classes)")
    how = None if average == "none" else average
    report: dict = {"file": path, "n": int(len(y_true)), "system": ",".join(columns), "threshold": None,
                    "criterion": None, "class_scores": dict(zip(map(str, classes), columns)),
                    "multi_class": multi_class}
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # a class without samples: say so, never a silent 0
        try:
            report["map"] = _number(average_precision_multiclass(y_true, matrix, labels=classes, average=how))
        except UserWarning as warning:
            raise InputError(f"{warning}; drop it from --labels (or its column)", source=path, field=truth) from None
    report["roc_auc"] = _number(roc_auc_multiclass(y_true, y_score=matrix, labels=classes, average=how,
                                                   multi_class=multi_class))
    report["top_1_accuracy"] = top_k_accuracy(y_true, matrix, k=1, labels=classes)
    report["top_2_accuracy"] = top_k_accuracy(y_true, matrix, k=2, labels=classes)
    if y_pred is None:
        top = np.argmax(matrix, axis=1)  # first column among ties
        picked = np.empty(len(top), dtype=object)
        picked[:] = [classes[i] for i in top.tolist()]
        y_pred = picked.astype(y_true.dtype) if y_true.dtype.kind != "O" else picked
        report.setdefault("notes", []).append("predicted class: the top-scored column (the first among ties)")
    _add_matrix(report, ConfusionMatrix.from_labels(y_true, y_pred, labels=classes), average)
    return report


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
              help="Multiclass: one score column per class, in the order of --labels (or of the sorted classes); "
                   "repeat it for each class.")
@click.option("--labels", metavar="A,B,...", help="Choose and order the classes (comma-separated); a value outside "
              "them is an error naming its line; a listed class that never occurs gets 0/0 rates (a warning).")
@click.option("--average", type=click.Choice(AVERAGES), default="macro", show_default=True,
              help="How per-class values of a multiclass problem are averaged (none: one value per class).")
@click.option("--multi-class", "multi_class", type=click.Choice(("ovr", "ovo")), default="ovr", show_default=True,
              help="ROC AUC with --class-score: one-vs-rest, or one-vs-one (Hand & Till 2001).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
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
      cranfield classify probs.csv --truth animal --labels eel,dog,cat --class-score pe --class-score pd \\
          --class-score pc --average weighted --multi-class ovo
      cranfield classify gold.tsv --truth gold --pred system --average none --labels a,b,c
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = evaluate_file(file, truth=truth, score=score, pred=pred, threshold=threshold, optimize=optimize,
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
