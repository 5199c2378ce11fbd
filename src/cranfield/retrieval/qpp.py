"""Query performance prediction from files (``cranfield qpp``): a predictor's values against the
per-query effectiveness of a run, through :func:`cranfield.correlation.qpp_evaluation`."""

from __future__ import annotations

from ..correlation import qpp_evaluation
from ..errors import UsageError
from ..io.predictions import read_predictions
from .evaluate import evaluate
from .inputs import read_qrels_file, read_run_file

__all__ = ["qpp_from_files"]


def qpp_from_files(predictions, qrels, run, measures=None) -> list[dict]:
    """:func:`qpp_evaluation` of the predictions file (``qid value`` lines) against the per-query
    effectiveness of ``run`` on ``qrels`` for each of ``measures`` (default AP): one dict per
    measure, ``{"measure": name, **QPPEvaluation.to_dict()}``."""
    predicted = read_predictions(predictions)
    results = evaluate(read_qrels_file(qrels), read_run_file(run), list(measures or ()) or ["AP"])
    rows = []
    for name in results.names:
        actual = results.per_query[name].to_dict()
        try:
            rows.append({"measure": name, **qpp_evaluation(predicted, actual).to_dict()})
        except UsageError as error:
            raise UsageError(f"{predictions} against {run} ({name}): {error}") from None
    return rows
