"""A multiclass study: one file with the true class and one score column per class, evaluated
once, then shown as tables, plots and HTML (the multiclass form of ``cranfield report`` and
``cranfield curves``).

Per class (each against the rest): support, ROC AUC, average precision, and precision, recall
and F1 of the predicted class (the highest score); their macro, weighted and micro averages;
accuracy and top-2 accuracy; the confusion matrix under the user's class names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Sequence

import numpy as np

from ..classification.confusion import ConfusionMatrix
from ..classification.multiclass import average_precision_multiclass, roc_auc_multiclass, top_k_accuracy
from ..classification.multilabel import hamming_loss, multilabel_confusion_matrix, multilabel_rate
from ..classification.table import label_column, number_column, read_table
from ..errors import InputError, UsageError
from ..io.tables import Table, render_table
from ..plots.classification import confusion_matrix_plot
from ..plots.multiclass import class_pr_plot, class_roc_plot
from .html import chart_html, document, escape, file_info, inputs_html, table_html

__all__ = ["MulticlassStudy", "class_score_columns", "truth_class_count", "multiclass_study", "multilabel_study",
           "multiclass_figures", "multiclass_html", "PREDICTION_THRESHOLD"]

PREDICTION_THRESHOLD = 0.5  # multilabel: a class is predicted when its score is at least this


@dataclass
class MulticlassStudy:
    """Inputs, the score matrix (columns in ``classes`` order) and the study's tables."""

    path: Path
    truth: str
    classes: list
    columns: dict  # class -> score column
    y_true: np.ndarray  # the true class of each sample (the user's labels), or n × C 0/1 (multilabel)
    scores: np.ndarray  # n × C
    summary: Table
    confusion: Table
    overall: Table
    settings: dict = field(default_factory=dict)

    @property
    def multilabel(self) -> bool:
        return self.y_true.ndim == 2

    def summary_text(self, fmt: str = "table", *, digits: int = 4) -> str:
        return "\n".join(render_table(t, fmt) for t in (self.summary, self.overall, self.confusion))


def _noop(description: str) -> None:
    return None


def truth_class_count(path: str | Path, truth: str) -> int:
    """How many distinct classes the ``truth`` column of a table holds."""
    table, first_line = read_table(str(path))
    return len(np.unique(label_column(table, truth, str(path), first_line)))


def class_score_columns(specs: Sequence[str], classes: Sequence, columns: Sequence[str], *,
                        option: str = "--class-score") -> dict:
    """``{class: column}`` from ``--class-score`` values: ``CLASS=COLUMN``, or a bare COLUMN that
    is the class's name or ends with it after a separator (``p_barolo``, ``score-barolo``) for
    exactly one class. Every class needs one column; anything ambiguous is an error."""
    by_text = {str(c): c for c in classes}
    mapping: dict = {}
    for spec in specs:
        name, sep, column = spec.partition("=")
        if sep:
            if name not in by_text:
                raise UsageError(f"{option} {spec}: {name!r} is not a class of the truth column "
                                 f"(classes: {', '.join(by_text)})")
            label = by_text[name]
        else:
            column = spec
            matches = [c for t, c in by_text.items() if spec == t or spec.endswith(("_" + t, "-" + t, "." + t, " " + t))]
            if len(matches) != 1:
                found = "no class" if not matches else f"{len(matches)} classes"
                raise UsageError(f"{option} {spec}: the column name matches {found}; write CLASS=COLUMN "
                                 f"(classes: {', '.join(by_text)})")
            label = matches[0]
        if column not in columns:
            raise UsageError(f"{option} {spec}: no column {column!r} in the file")
        if label in mapping:
            raise UsageError(f"{option}: class {label!r} is given two columns ({mapping[label]!r} and {column!r})")
        mapping[label] = column
    missing = [str(c) for c in classes if c not in mapping]
    if missing:
        raise UsageError(f"{option}: no score column for class(es) {', '.join(missing)}; give one "
                         "--class-score CLASS=COLUMN per class")
    return {c: mapping[c] for c in classes}


def _class_rows(cm, auc, ap, support, classes, columns) -> list[list]:
    precision = cm.rate("precision", average=None, zero_division=0.0)
    recall = cm.rate("recall", average=None, zero_division=0.0)
    f1 = cm.rate("f1", average=None, zero_division=0.0)
    rows = [[str(c), columns[c], int(s), float(a), float(p), float(pr), float(r), float(f)]
            for c, s, a, p, pr, r, f in zip(classes, support, auc, ap, precision, recall, f1)]
    return rows


def multiclass_study(path: str | Path, *, truth: str, class_scores: Sequence[str] | Mapping,
                     step: Callable[[str], None] = _noop, option: str = "--class-score") -> MulticlassStudy:
    """Read ``path`` (CSV, TSV or Parquet): the ``truth`` column and one score column per class
    (``class_scores``: ``{class: column}`` or ``--class-score`` texts, see
    :func:`class_score_columns`), and evaluate them."""
    step(f"reading {Path(path).name}")
    table, first_line = read_table(str(path))
    labels = label_column(table, truth, str(path), first_line)
    if len(labels) == 0:
        raise InputError("no rows", source=str(path))
    classes = sorted(np.unique(labels).tolist(), key=lambda c: (str(type(c)), c))
    if len(classes) < 3:
        raise UsageError(f"the truth column {truth!r} has {len(classes)} classes; a multiclass report needs 3 or "
                         "more (two classes: --score COL with --positive LABEL)")
    specs = class_scores if not isinstance(class_scores, Mapping) else [f"{k}={v}" for k, v in class_scores.items()]
    columns = class_score_columns(list(specs), classes, list(table.column_names), option=option)
    scores = np.column_stack([number_column(table, columns[c], str(path), first_line) for c in classes])
    step("evaluating")
    predicted = np.asarray(classes, dtype=object)[scores.argmax(axis=1)]
    cm = ConfusionMatrix.from_labels(labels.astype(object), predicted, labels=classes)
    support = cm.support
    auc = {avg: roc_auc_multiclass(labels, scores, average=avg, labels=classes) for avg in (None, "macro", "weighted",
                                                                                         "micro")}
    ap = {avg: average_precision_multiclass(labels, scores, average=avg, labels=classes)
          for avg in (None, "macro", "weighted", "micro")}
    rows = _class_rows(cm, auc[None], ap[None], support, classes, columns)
    for avg in ("macro", "weighted", "micro"):
        rows.append([f"{avg} average", "", int(support.sum()), float(auc[avg]), float(ap[avg]),
                     *[float(cm.rate(r, average=avg, zero_division=0.0)) for r in ("precision", "recall", "f1")]])
    summary = Table(["class", "score column", "support", "ROC AUC", "AP", "precision", "recall", "F1"], rows,
                    title="Classes (each against the rest)",
                    notes=[f"{len(labels)} samples, {len(classes)} classes. Predicted class: the highest score. ROC "
                           "AUC and AP of each class against the rest; macro: their mean, weighted: weighted by "
                           "support, micro: over every (sample, class) pair."])
    overall_rows = [["accuracy", float(cm.rate("accuracy"))],
                    ["balanced accuracy", float(cm.rate("balanced_accuracy"))],
                    ["top-2 accuracy", float(top_k_accuracy(labels, scores, k=2, labels=classes))],
                    ["ROC AUC (one-vs-one, macro)", float(roc_auc_multiclass(labels, scores, multi_class="ovo",
                                                                             labels=classes))],
                    ["majority-class accuracy", float(cm.majority_accuracy)]]
    overall = Table(["measure", "value"], overall_rows, title="Overall")
    matrix = np.asarray(cm.matrix)
    confusion = Table(["actual \\ predicted", *map(str, classes)],
                      [[str(c), *[int(v) for v in matrix[i]]] for i, c in enumerate(classes)],
                      title="Confusion matrix (rows: actual class, columns: predicted class)")
    settings = {"truth column": truth, "classes": [str(c) for c in classes],
                "score columns": {str(c): columns[c] for c in classes}, "prediction": "the class of the highest score"}
    return MulticlassStudy(Path(path), truth, classes, columns, labels, scores, summary, confusion, overall, settings)


def _indicator_column(table, column: str, path: str, first_line: int, option: str) -> np.ndarray:
    values = number_column(table, column, path, first_line)
    if not np.isin(values, (0.0, 1.0)).all():
        raise InputError(f"{option}: the column {column!r} must hold 0 or 1 (is the class among the sample's labels?)",
                         source=path, field=column)
    return values.astype(np.int64)


def multilabel_study(path: str | Path, *, class_truths: Sequence[str] | Mapping, class_scores: Sequence[str] | Mapping,
                     step: Callable[[str], None] = _noop) -> MulticlassStudy:
    """Multilabel: each class's 0/1 truth column (``class_truths``: ``{class: column}`` or
    ``CLASS=COLUMN`` texts) and score column (``class_scores``, as in :func:`multiclass_study`);
    a class is predicted when its score is at least :data:`PREDICTION_THRESHOLD`."""
    step(f"reading {Path(path).name}")
    table, first_line = read_table(str(path))
    pairs = class_truths.items() if isinstance(class_truths, Mapping) else \
        [spec.partition("=")[::2] if "=" in spec else (spec, spec) for spec in class_truths]
    truths = {str(k): v for k, v in pairs}
    if len(truths) < 2:
        raise UsageError("--class-truth: a multilabel report needs two classes or more (CLASS=COLUMN each)")
    classes = list(truths)
    specs = class_scores if not isinstance(class_scores, Mapping) else [f"{k}={v}" for k, v in class_scores.items()]
    columns = class_score_columns(list(specs), classes, list(table.column_names))
    indicator = np.column_stack([_indicator_column(table, truths[c], str(path), first_line, "--class-truth")
                                 for c in classes])
    scores = np.column_stack([number_column(table, columns[c], str(path), first_line) for c in classes])
    step("evaluating")
    predicted = (scores >= PREDICTION_THRESHOLD).astype(np.int64)
    auc = {avg: roc_auc_multiclass(indicator, scores, average=avg) for avg in (None, "macro", "weighted", "micro")}
    ap = {avg: average_precision_multiclass(indicator, scores, average=avg)
          for avg in (None, "macro", "weighted", "micro")}
    rates = {avg: [multilabel_rate(r, indicator, predicted, average=avg, zero_division=0.0)
                   for r in ("precision", "recall", "f1")] for avg in (None, "macro", "weighted", "micro")}
    support = indicator.sum(axis=0)
    rows = [[c, columns[c], int(support[i]), float(auc[None][i]), float(ap[None][i]),
             *[float(v[i]) for v in rates[None]]] for i, c in enumerate(classes)]
    rows += [[f"{avg} average", "", int(support.sum()), float(auc[avg]), float(ap[avg]), *map(float, rates[avg])]
             for avg in ("macro", "weighted", "micro")]
    summary = Table(["class", "score column", "support", "ROC AUC", "AP", "precision", "recall", "F1"], rows,
                    title="Classes (each against the rest)",
                    notes=[f"{len(indicator)} samples, {len(classes)} classes (multilabel). Predicted: each class whose "
                           f"score is ≥ {PREDICTION_THRESHOLD:g}. Support: samples with the class; micro: over "
                           "every (sample, class) pair."])
    overall = Table(["measure", "value"], [["subset accuracy", float(multilabel_rate("accuracy", indicator, predicted))],
                                           ["Hamming loss", float(hamming_loss(indicator, predicted))]], title="Overall")
    matrices = multilabel_confusion_matrix(indicator, predicted)
    confusion = Table(["class", "TN", "FP", "FN", "TP"], [[c, *map(int, matrices[i].ravel())]
                                                          for i, c in enumerate(classes)],
                      title="Confusion matrix of each class (predicted: score ≥ threshold)")
    settings = {"classes": classes, "truth columns": truths, "score columns": columns,
                "prediction": f"each class whose score is at least {PREDICTION_THRESHOLD:g}"}
    return MulticlassStudy(Path(path), ", ".join(truths.values()), classes, columns, indicator, scores, summary,
                           confusion, overall, settings)


def multiclass_figures(study: MulticlassStudy) -> dict:
    """``{file stem: (Figure, caption)}``: per-class ROC and PR curves with the micro average, and
    the confusion matrix (counts, and normalised by the actual class) under the class names."""
    y, s, classes = study.y_true, study.scores, study.classes
    curves = {
        "roc": (class_roc_plot(y, s, labels=classes), "ROC curve of each class against the rest, and the micro "
                                                      "average; AUC in the legend"),
        "pr": (class_pr_plot(y, s, labels=classes), "Precision–recall curve of each class against the rest, and the "
                                                    "micro average; AP in the legend")}
    if study.multilabel:  # no single predicted class: the per-class 2×2 matrices are in the summary
        return curves
    predicted = np.asarray(classes, dtype=object)[s.argmax(axis=1)]
    cm = ConfusionMatrix.from_labels(y.astype(object), predicted, labels=classes)
    return {
        **curves,
        "confusion": (confusion_matrix_plot(cm, title="Confusion matrix"), "Counts (predicted: the highest score)"),
        "confusion_normalised": (confusion_matrix_plot(cm, normalize="actual", title="Confusion matrix, normalised"),
                                 "Rows normalised: the recall of each class on the diagonal"),
    }


def multiclass_html(study: MulticlassStudy, *, figures: dict | None = None, title: str | None = None,
                    command: str | None = None) -> str:
    """The self-contained HTML report of a multiclass study."""
    figures = multiclass_figures(study) if figures is None else figures
    summary = "".join(table_html(t, table_id=i) for t, i in ((study.summary, "summary"), (study.overall, "overall"),
                                                             (study.confusion, "confusion")))
    charts = "".join(chart_html(fig, stem, caption) for stem, (fig, caption) in figures.items())
    definitions = [("ROC AUC", "area under the ROC curve of a class against the rest (TPR against FPR)"),
                   ("AP", "average precision of a class against the rest: Σ (Rₙ − Rₙ₋₁) Pₙ (scikit-learn's)"),
                   ("top-2 accuracy", "share of samples whose true class is among the 2 highest scores")]
    sections = [("summary", "Summary", summary), ("charts", "Charts", f'<div class="charts">{charts}</div>'),
                ("inputs", "Inputs and settings", inputs_html([("scores", file_info(study.path))],
                                                              study.settings.items(), definitions, command))]
    kind = "Multilabel" if study.multilabel else "Multiclass"
    subtitle = f"{len(study.classes)} classes · {len(study.y_true)} samples · {escape(study.path.name)}"
    return document(title or f"{kind} evaluation report", sections, subtitle=subtitle)
