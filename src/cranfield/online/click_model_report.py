"""The report of ``cranfield online click-model``: click models fitted to a click log by EM,
evaluated on a held-out log (or the same one), with the observed and predicted click-through
rates by rank; the command only renders it."""

from __future__ import annotations

from dataclasses import dataclass

from .click_models import ClickModel, evaluate_click_model, fit_click_model
from .logs import read_click_log

__all__ = ["ClickModelReport", "click_model_report"]


@dataclass
class ClickModelReport:
    """``summary``: one row per model (model, iterations, converged, log-likelihood, perplexity,
    rows); ``by_rank``: (model, rank, observed CTR, predicted CTR, perplexity or None);
    ``document``: the JSON-ready form; ``evaluations`` and ``fitted``: one per model."""

    summary: list
    by_rank: list
    document: dict
    evaluations: list
    fitted: list[ClickModel]


def click_model_report(log, *, models=("pbm",), test_log=None, iterations: int = 50, tol: float = 1e-6,
                       max_rank: int | None = None, step=None) -> ClickModelReport:
    """Fit each of ``models`` to ``log`` and evaluate it on ``test_log`` (default: ``log``);
    ``step(description)`` (the :func:`cranfield.report.progress.steps` protocol) is told before
    each fit."""
    data = read_click_log(log)
    held_out = read_click_log(test_log) if test_log else data
    summary, by_rank, document, evaluations, fitted = [], [], {"models": {}}, [], []
    for name in models or ("pbm",):
        if step is not None:
            step(f"fitting the {name} click model (at most {iterations} EM iterations)")
        model = fit_click_model(data, model=name, iterations=iterations, tol=tol, max_rank=max_rank)
        ev = evaluate_click_model(model, held_out, max_rank=max_rank)
        evaluations.append(ev)
        fitted.append(model)
        s = model.settings
        summary.append([name, s["iterations"], s["converged"], ev["log_likelihood"], ev["perplexity"], ev["rows"]])
        ranks = ev["ranks"].tolist()
        for r, obs, pred in zip(ev["ctr_ranks"].tolist(), ev["observed_ctr"].tolist(), ev["predicted_ctr"].tolist()):
            at = ranks.index(r) if r in ranks else None
            by_rank.append([name, r, obs, pred, None if at is None else float(ev["perplexity_by_rank"][at])])
        document["models"][name] = {"evaluation": ev, "settings": s, "continuation": model.continuation,
                                    "examination": model.examination}
    document["settings"] = {"log": log, "test": test_log or log, "iterations": iterations, "tol": tol,
                            "max_rank": max_rank}
    return ClickModelReport(summary, by_rank, document, evaluations, fitted)
