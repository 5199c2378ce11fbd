"""The options of ``cranfield report`` and ``cranfield curves`` as the arguments of
:func:`cranfield.report.study.study_from_inputs` (the form and its study are decided there)."""

from __future__ import annotations

from ..report.study import study_from_inputs as _study
from ._options import cli_terms, evaluate_options

_STUDY_OPTIONS = ("truth", "scores", "positive", "optimize", "measures", "test", "correction", "baseline", "alpha",
                  "ci", "permutations", "seed", "step", "missing", "names", "qrels_columns", "run_columns",
                  "class_scores", "class_truths")


def study_from_inputs(inputs, **options):
    """``("detection" | "multiclass" | "retrieval", study)``: the study options passed on, the
    others (trec_eval's -c -l -M -J -N ...) as the Evaluator's keyword arguments; errors in the
    command line's terms."""
    evaluation = {key: options.pop(key) for key in list(options) if key not in _STUDY_OPTIONS}
    with cli_terms():
        return _study(inputs, evaluate_options=evaluate_options(**evaluation), **options)
