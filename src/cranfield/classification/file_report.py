"""The report of a classification table (CSV, TSV or Parquet), as ``cranfield classify`` prints it:
the confusion matrix, its rates, the curves' areas and a threshold for binary scores, or the
multiclass areas of one score column per class (matched to the classes by name,
:mod:`.class_columns`). One function, :func:`classify_file`, reads the file through the table
grammar (:mod:`.table`), decides thresholds and labels, and returns a JSON-ready dict; the
command only renders it.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np

from .._params import check_choice
from ..errors import InputError, UsageError
from ._validation import binary_truth, check_class_count, check_same_kind
from .class_columns import match_class_columns
from .confusion import SUMMARY_RATES, ConfusionMatrix
from .curves import average_precision, equal_error_rate, roc_auc
from .multiclass import average_precision_multiclass, roc_auc_multiclass, top_k_accuracy
from .rates import get_rate
from .table import (
    label_column,
    number_column,
    parse_label,
    positive_label,
    prediction_column,
    read_table,
)
from .thresholds import best_threshold

__all__ = ["AVERAGES", "CRITERIA", "classify_file"]

AVERAGES = ("macro", "weighted", "micro", "none")
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


def classify_file(path: str, *, truth: str, score: str | Sequence[str] | None = None, pred: str | None = None,
                  threshold: float | None = None, optimize: str | None = None, cost_fp: float = 1.0,
                  cost_fn: float = 1.0, positive: str | None = None, class_scores: Sequence[str] = (),
                  labels: Sequence[str] | None = None, average: str = "macro", multi_class: str = "ovr") -> dict:
    """The JSON-ready report of ``cranfield classify`` (library entry point of the command).

    ``score`` is one column or several: with one (or none), the report of that system (its name
    under ``"system"``); with several, ``{"file", "n", "truth", "systems": {column: report}}``, one
    report per score column, each as it would be alone.

    ``class_scores``: one score column per class (multiclass), each ``CLASS=COLUMN`` or a bare
    column name matched to its class by name (the rule of :mod:`.class_columns`: the column is
    named after the class or ends with ``_CLASS``; never by position, except bare names none of
    which names a class, paired in the order of ``labels``). ``labels`` (texts read as the truth
    column's type) chooses and orders the classes (default: sorted). The report then has mAP and ROC AUC
    (``multi_class`` "ovr" or "ovo") averaged by ``average`` ("macro", "weighted", "micro" or
    "none": per class), top-1 and top-2 accuracy, and the confusion matrix of the top-scored class
    (or of ``pred``). ``average`` also averages the per-class rates of a multiclass matrix.
    """
    check_choice(average, "average", AVERAGES)
    check_choice(multi_class, "multi_class", ("ovr", "ovo"))
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
    return {"file": path, "n": len(y_true), "truth": truth,
            "systems": {name: _system_report(path, truth, y_true, pos, name, values[name], None, **options)
                        for name in scores}}


def _system_report(path: str, truth: str, y_true: np.ndarray, pos, system: str | None, y_score: np.ndarray | None,
                   y_pred: np.ndarray | None, *, threshold: float | None, optimize: str | None, cost_fp: float,
                   cost_fn: float, classes: list | None = None, average: str = "macro") -> dict:
    report: dict = {"file": path, "n": len(y_true), "system": system, "threshold": None, "criterion": None}
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


def _class_scores_report(path: str, truth: str, specs: list[str], pred: str | None, labels: Sequence[str] | None,
                         average: str, multi_class: str) -> dict:
    if len(specs) < 2:
        raise UsageError("--class-score takes one column per class: give it at least twice")
    if truth == pred or any(spec == truth or spec.endswith("=" + truth) for spec in specs):
        raise UsageError(f"the truth column {truth!r} cannot also be a --class-score or --pred column")
    table, first_line = read_table(path)
    y_true = label_column(table, truth, path, first_line)
    if len(y_true) == 0:
        raise InputError("no rows", source=path)
    check_class_count(len(np.unique(y_true)), truth, source=path)
    y_pred = prediction_column(table, pred, path, first_line) if pred is not None else None
    if y_pred is not None:
        check_same_kind((y_true, truth), (y_pred, pred), source=path, first_line=first_line)
    classes = _parse_labels(labels, y_true, [] if y_pred is None else [(y_pred, pred)], truth, path, first_line)
    explicit = classes is not None
    if classes is None:
        classes = sorted(set(np.unique(y_true).tolist()) | (set() if y_pred is None else set(np.unique(y_pred).tolist())))
    columns = match_class_columns(specs, classes, columns=table.column_names, explicit_order=explicit,
                                  parse=lambda text: _class_text(text, y_true))
    if len(specs) != len(classes):
        raise UsageError(f"{len(specs)} --class-score columns for {len(classes)} classes {classes!r}: give one "
                         "column per class (--labels chooses the classes)")
    matrix = np.column_stack([number_column(table, name, path, first_line) for name in columns])
    how = None if average == "none" else average
    report: dict = {"file": path, "n": len(y_true), "system": ",".join(columns), "threshold": None,
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


def _class_text(text: str, y_true: np.ndarray):
    """The CLASS of ``--class-score CLASS=COLUMN`` read as the truth column's type."""
    try:
        return parse_label(text, y_true)
    except UsageError as error:
        raise UsageError(str(error).replace("--positive", "--class-score")) from None
