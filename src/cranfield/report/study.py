"""The study of ``cranfield report`` and ``cranfield curves``: which form the inputs and options
describe (a classifier's scores with two classes, several classes or several labels, or
retrieval runs), and its study; the commands draw and write it."""

from __future__ import annotations

from ..errors import UsageError
from ..io.run_names import run_specs
from .detection import detection_study
from .multiclass import multiclass_study, multilabel_study, truth_class_count
from .retrieval import DEFAULT_REPORT_MEASURES, retrieval_study

__all__ = ["study_from_inputs"]


def study_from_inputs(inputs, *, truth=None, scores=(), positive=None, optimize="f1", measures=(), test="t",
                      correction="holm", baseline=None, alpha=0.05, ci="auto", permutations=10_000, seed=0, step=None,
                      missing="error", names=(), qrels_columns=None, run_columns=None, class_scores=(),
                      class_truths=(), evaluate_options=None):
    """``("detection" | "multiclass" | "retrieval", study)``: the form the inputs and options
    describe (one labelled FILE with score columns: two classes, several classes or several
    labels; else QRELS and RUNs, labelled by ``names`` specs) and its study. ``evaluate_options``:
    the :class:`~cranfield.Evaluator` keyword arguments of the retrieval form."""
    if class_truths:
        if len(inputs) != 1 or truth is not None or scores or not class_scores:
            raise UsageError("the multilabel form takes one FILE with --class-truth CLASS=COLUMN and --class-score "
                             "CLASS=COLUMN for each class (no --truth, no --score)")
        return "multiclass", multilabel_study(inputs[0], class_truths=list(class_truths),
                                              class_scores=list(class_scores), step=step)
    if class_scores or (truth is not None and scores and positive is None and len(inputs) == 1
                        and truth_class_count(inputs[0], truth) > 2):
        if truth is None or len(inputs) != 1:
            raise UsageError("the multiclass form takes one FILE with --truth COL and --class-score CLASS=COLUMN "
                             "for each class")
        if class_scores and scores:
            raise UsageError("give the class score columns with --class-score only (--score is for two classes)")
        return "multiclass", multiclass_study(inputs[0], truth=truth, class_scores=list(class_scores or scores),
                                              step=step, option="--class-score" if class_scores else "--score")
    if truth is not None or scores:
        if truth is None or not scores:
            raise UsageError("the classifier form needs --truth COL and at least one --score COL")
        if len(inputs) != 1:
            raise UsageError(f"the classifier form takes one FILE (with --truth and --score); found {len(inputs)}")
        if correction not in ("none", "bonferroni", "holm", "bh"):
            raise UsageError(f"--correction {correction} applies to retrieval runs; for classifiers use none, "
                             "bonferroni, holm or bh")
        return "detection", detection_study(inputs[0], truth=truth, scores=scores, positive=positive,
                                            criterion=optimize, correction=correction, alpha=alpha, step=step)
    if not inputs or (len(inputs) < 2 and not names):
        raise UsageError("expected QRELS and at least one RUN (or FILE with --truth and --score)")
    specs = run_specs(inputs[1:], names)
    options = dict(evaluate_options or {})
    return "retrieval", retrieval_study(inputs[0], [p for p, _ in specs], labels=[label for _, label in specs],
                                        measures=list(measures) or DEFAULT_REPORT_MEASURES, test=test,
                                        correction=correction, alpha=alpha, ci=ci, n_permutations=permutations,
                                        random_state=seed, baseline=baseline, missing=missing,
                                        relevance_level=options.pop("relevance_level", 1), evaluate_options=options,
                                        qrels_columns=qrels_columns, run_columns=run_columns, step=step)
