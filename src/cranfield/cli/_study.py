"""The study of ``cranfield report`` and ``cranfield curves`` from their inputs and options."""

from __future__ import annotations

from ..errors import UsageError
from ..report.detection import detection_study
from ..report.multiclass import multiclass_study, multilabel_study, truth_class_count
from ..report.retrieval import DEFAULT_REPORT_MEASURES, retrieval_study
from ._options import cli_terms, evaluate_options, run_specs


def study_from_inputs(inputs, *, truth, scores, positive, optimize, measures, test, correction, baseline, alpha, ci,
                      permutations, seed, step, missing="error", names=(), qrels_columns=None, run_columns=None,
                      class_scores=(), class_truths=(), **evaluation):
    """``("detection" | "multiclass" | "retrieval", study)`` from the positional inputs and the options."""
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
    options = evaluate_options(**evaluation)
    with cli_terms():
        return "retrieval", retrieval_study(inputs[0], [p for p, _ in specs], labels=[label for _, label in specs],
                                            measures=list(measures) or DEFAULT_REPORT_MEASURES, test=test,
                                            correction=correction, alpha=alpha, ci=ci, n_permutations=permutations,
                                            random_state=seed, baseline=baseline, missing=missing,
                                            relevance_level=options.pop("relevance_level"), evaluate_options=options,
                                            qrels_columns=qrels_columns, run_columns=run_columns, step=step)
