"""A detection study: one file of truth and scores of several systems, evaluated once, then
shown as tables, plots and HTML (the classifier form of ``cranfield report`` and the
``cranfield demo --detection`` data).

Per system: ROC AUC with DeLong's interval, average precision, equal error rate and the
operating point that optimises a criterion; between systems: DeLong's test of the AUCs,
corrected for multiple comparisons.
"""

from __future__ import annotations

import string
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from ..classification._validation import binary_truth
from ..classification.calibration import brier_decomposition, expected_calibration_error, maximum_calibration_error
from ..classification.confusion import ConfusionMatrix
from ..classification.curves import average_precision, equal_error_rate
from ..classification.table import label_column, number_column, positive_label, read_table
from ..classification.thresholds import best_threshold
from ..errors import InputError, UsageError
from ..io.tables import Marked, Table, render_table
from ..plots.calibration import reliability_plot
from ..plots.classification import confusion_matrix_plot, det_plot, pr_plot, roc_plot, threshold_plot
from ..stats._report import p_text
from ..stats.corrections import adjust_pvalues
from ..stats.roc import auc_ci, delong_test
from .html import chart_html, document, escape, file_info, inputs_html, table_html

__all__ = ["DetectionStudy", "detection_study", "detection_figures", "detection_html", "MAX_SAMPLE_ROWS"]

MAX_SAMPLE_ROWS = 5000  # the sortable per-sample table of the HTML report shows at most this many


@dataclass
class DetectionStudy:
    """Inputs, per-system measures and operating points, and the tables of a detection study."""

    path: Path
    truth: str
    positive: object
    y_true: np.ndarray  # bool, True = positive
    scores: dict  # system name -> float array
    points: dict  # system name -> OperatingPoint
    summary: Table
    pairs: Table
    settings: dict = field(default_factory=dict)

    @property
    def best(self) -> str:
        """The system with the highest ROC AUC (the first one on ties)."""
        return max(self.scores, key=lambda name: self.settings["auc"][name])

    def summary_text(self, fmt: str = "table", *, digits: int = 4) -> str:
        tables = [self.summary] + ([self.pairs] if self.pairs.rows else [])
        return "\n".join(render_table(t, fmt) for t in tables)


def _noop(description: str) -> None:
    return None


def _read(path: str, truth: str, scores: Sequence[str], positive: str | None):
    table, first_line = read_table(path)
    labels = label_column(table, truth, path, first_line)
    if len(labels) == 0:
        raise InputError("no rows", source=path)
    values = {name: number_column(table, name, path, first_line) for name in scores}
    pos = positive_label(labels, [], positive, needed=True)
    is_pos = binary_truth(labels, pos)
    if is_pos.all() or not is_pos.any():
        raise InputError(f"the truth column needs both classes (positive = {pos!r}); found only one", source=path,
                         field=truth)
    others = np.unique(labels[~is_pos]).tolist()
    negative = others[0] if len(others) == 1 else f"not {pos}"  # the user's name of the other class
    return pos, is_pos, values, negative


def detection_study(path: str | Path, *, truth: str, scores: Sequence[str], positive: str | None = None,
                    criterion: str = "f1", correction: str = "holm", alpha: float = 0.05,
                    step: Callable[[str], None] = _noop, **criterion_params) -> DetectionStudy:
    """Read ``path`` (CSV, TSV or Parquet) and evaluate each ``scores`` column against ``truth``."""
    scores = list(dict.fromkeys(scores))
    if not scores:
        raise UsageError("give at least one score column (--score COL)")
    if truth in scores:
        raise UsageError(f"the truth column {truth!r} cannot also be a score column")
    step(f"reading {Path(path).name}")
    pos, y, values, negative = _read(str(path), truth, scores, positive)
    step("evaluating")
    auc = {n: auc_ci(y, s, confidence=1 - alpha) for n, s in values.items()}
    ap = {n: average_precision(y, s) for n, s in values.items()}
    eer = {n: equal_error_rate(y, s) for n, s in values.items()}
    points = {n: best_threshold(y, s, criterion=criterion, **criterion_params) for n, s in values.items()}
    names = list(values)
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    tests = [delong_test(y, values[a], values[b], confidence=1 - alpha) for a, b in pairs]
    adjusted = adjust_pvalues(np.array([t.p_value for t in tests]), method=correction) if tests else np.array([])
    ids = dict(zip(names, string.ascii_lowercase if len(names) <= 26 else map(str, range(1, len(names) + 1))))
    marks = {n: "" for n in names}
    for (a, b), t, p in zip(pairs, tests, adjusted):
        if p <= alpha:
            winner, loser = (a, b) if t.diff > 0 else (b, a)
            marks[winner] += ids[loser]
    level = f"{100 * (1 - alpha):g}%"
    rows, bold = [], set()
    best_auc = max(a.estimate for a in auc.values())
    for r, n in enumerate(names):
        pt = points[n]
        f1 = 2 * pt.tp / (2 * pt.tp + pt.fp + pt.fn) if pt.tp + pt.fp + pt.fn else 0.0
        if auc[n].estimate == best_auc:
            bold.add((r, 2))
        rows.append([ids[n], n, Marked(f"{auc[n].estimate:.4f}", "".join(sorted(marks[n]))),
                     f"[{auc[n].low:.4f}, {auc[n].high:.4f}]", ap[n], eer[n], pt.threshold, pt.precision, pt.tpr, f1,
                     (pt.tp + pt.tn) / (pt.tp + pt.fp + pt.fn + pt.tn)])
    n_pos = int(y.sum())
    summary = Table(["id", "system", "ROC AUC", f"{level} CI", "AP", "EER", f"threshold ({criterion})", "precision",
                     "recall", "F1", "accuracy"], rows, title="Systems", bold=bold, bold_meaning="the highest ROC AUC",
                    notes=[f"{len(y)} samples, {n_pos} positive ({truth} = {pos!r}), prevalence {n_pos / len(y):.4f} "
                           "(the AP of a system without skill).",
                           f"CI: DeLong's {level} interval of the AUC. Letters after an AUC: significantly higher than "
                           f"the systems with those ids (DeLong's paired test, {correction} correction, alpha = "
                           f"{alpha:g}). Bold: highest AUC.",
                           f"Precision, recall, F1, accuracy at the threshold that maximises {criterion} "
                           "(positive iff score ≥ threshold)."])
    pair_rows = [[a, b, t.diff, f"[{t.ci_low:.4f}, {t.ci_high:.4f}]", t.statistic, p_text(t.p_value, 4),
                  p_text(float(p), 4),
                  "*" if p <= alpha else ""] for (a, b), t, p in zip(pairs, tests, adjusted)]
    pairs_table = Table(["a", "b", "AUC a − b", f"{level} CI", "z", "p", f"p ({correction})", "sig."], pair_rows,
                        title="Pairs (DeLong's test of two correlated ROC AUCs)",
                        notes=[f"*: adjusted p <= {alpha:g}."] if pair_rows else [])
    settings = {"truth column": truth, "positive class": pos, "score columns": ", ".join(names),
                "threshold criterion": criterion, "test": "DeLong (paired ROC AUC)", "correction": correction,
                "negative class": negative, "alpha": f"{alpha:g}", "auc": {n: a.estimate for n, a in auc.items()}}
    return DetectionStudy(Path(path), truth, pos, y, values, points, summary, pairs_table, settings)


def detection_figures(study: DetectionStudy, *, criterion_params: dict | None = None) -> dict:
    """``{file stem: (Figure, caption)}``: ROC, PR and DET of all systems; for the best system
    (highest AUC) the confusion matrix at its chosen threshold (counts, and normalised by the
    actual class) and the metrics against the threshold."""
    y, scores, best = study.y_true, study.scores, study.best
    point = study.points[best]
    negative, positive = str(study.settings.get("negative class", "negative")), str(study.positive)
    if negative == positive:
        negative = f"not {positive}"
    cm = ConfusionMatrix(np.array([[point.tn, point.fp], [point.fn, point.tp]]), [negative, positive],
                         pos_label=positive)
    at = f"{best} at threshold {point.threshold:.4g} ({point.criterion})"
    return {
        "roc": (roc_plot(y, scores), "ROC curves; AUC in the legend; dashed: chance"),
        "pr": (pr_plot(y, scores), "Precision–recall curves; AP in the legend; dashed: no skill (prevalence)"),
        "det": (det_plot(y, scores), "DET curves on normal-deviate axes; EER in the legend"),
        f"confusion_{best}": (confusion_matrix_plot(cm, title=f"Confusion matrix: {best}"), f"Counts: {at}"),
        f"confusion_{best}_normalised": (confusion_matrix_plot(cm, normalize="actual", title=f"Normalised: {best}"),
                                         f"Rows normalised (recall per class): {at}"),
        f"threshold_{best}": (threshold_plot(y, {best: scores[best]}, criterion=point.criterion, **(criterion_params or {})),
                              f"{best}: metrics against the threshold, chosen point dashed"),
        **_reliability_figure(study),
    }


def _reliability_figure(study: DetectionStudy) -> dict:
    names = _probability_systems(study)
    if not names:
        return {}
    figure = reliability_plot(study.y_true, {n: study.scores[n] for n in names}, n_bins=10)
    return {"reliability": (figure, "Reliability diagram: observed frequency against mean probability per bin "
                                    "(10 uniform bins); the diagonal is perfect calibration")}


def _probability_systems(study: DetectionStudy) -> list[str]:
    """The systems whose scores are probabilities (every score in [0, 1]): calibration applies."""
    return [name for name, s in study.scores.items() if s.size and float(s.min()) >= 0 and float(s.max()) <= 1]


def calibration_table(study: DetectionStudy, *, n_bins: int = 10) -> "Table | None":
    """ECE, MCE and the Brier score with Murphy's decomposition (10 uniform bins) of each system
    whose scores are probabilities; None when none is."""
    names = _probability_systems(study)
    if not names:
        return None
    rows = []
    for name in names:
        p = study.scores[name]
        parts = brier_decomposition(study.y_true, p, n_bins=n_bins)
        rows.append([name, expected_calibration_error(study.y_true, p, n_bins=n_bins),
                     maximum_calibration_error(study.y_true, p, n_bins=n_bins), parts.brier, parts.reliability,
                     parts.resolution, parts.uncertainty])
    skipped = [n for n in study.scores if n not in names]
    notes = [f"{n_bins} uniform bins (bin b holds the probabilities in (b/{n_bins}, (b+1)/{n_bins}]). ECE: Σ (n_b/n) "
             "|frequency_b − mean probability_b| (Naeini et al. 2015); MCE: the largest such gap; Brier = reliability "
             "− resolution + uncertainty + within-bin terms (Murphy 1973; Stephenson et al. 2008): lower reliability "
             "is better calibrated, higher resolution discriminates better."]
    if skipped:
        notes.append(f"Not probabilities (scores outside [0, 1]), so not calibrated: {', '.join(skipped)}.")
    return Table(["system", "ECE", "MCE", "Brier", "reliability", "resolution", "uncertainty"], rows,
                 title="Calibration", notes=notes)


def _samples_table(study: DetectionStudy) -> Table:
    n = len(study.y_true)
    shown = min(n, MAX_SAMPLE_ROWS)
    names = list(study.scores)
    rows = [[i + 1, int(study.y_true[i]), *[float(study.scores[m][i]) for m in names]] for i in range(shown)]
    notes = [f"Rows 1–{shown} of {n}." if shown < n else f"All {n} rows."]
    return Table(["row", f"positive ({study.truth})", *names], rows, title="Samples: click a column header to sort",
                 notes=notes)


def detection_html(study: DetectionStudy, *, figures: dict | None = None, title: str | None = None,
                   command: str | None = None) -> str:
    """The self-contained HTML report of a detection study."""
    figures = detection_figures(study) if figures is None else figures
    summary = table_html(study.summary, table_id="summary")
    if study.pairs.rows:
        summary += table_html(study.pairs, table_id="pairs", sortable=True)
    calibration = calibration_table(study)
    if calibration is not None:
        summary += table_html(calibration, table_id="calibration")
    charts = "".join(chart_html(fig, stem, caption) for stem, (fig, caption) in figures.items())
    settings = [(k, v) for k, v in study.settings.items() if k != "auc"]  # the AUCs are in the summary
    definitions = [("ROC AUC", "area under the ROC curve (TPR against FPR), trapezoidal: P(s+ > s−) + ½ P(s+ = s−)"),
                   ("AP", "average precision: Σ (Rₙ − Rₙ₋₁) Pₙ over the distinct thresholds (scikit-learn's)"),
                   ("EER", "equal error rate: where FPR = FNR on the DET curve (linear interpolation)")]
    sections = [
        ("summary", "Summary", summary),
        ("charts", "Charts", f'<div class="charts">{charts}</div>'),
        ("samples", "Samples", table_html(_samples_table(study), sortable=True, table_id="per-query-table",
                                          scroll=True)),
        ("inputs", "Inputs and settings", inputs_html([("scores", file_info(study.path))], settings, definitions,
                                                      command)),
    ]
    n = len(study.y_true)
    subtitle = f"{len(study.scores)} system(s) · {n} samples · {int(study.y_true.sum())} positive · {escape(study.path.name)}"
    return document(title or "Detection evaluation report", sections, subtitle=subtitle)
