"""The reports of ``cranfield calibration``, ``cranfield clustering`` and ``cranfield regression``:
one table file (CSV, TSV or Parquet, read through the table grammar of :mod:`.table`) in, a
JSON-ready dict of figures out; the commands only render them."""

from __future__ import annotations

import math

import numpy as np

from .._params import check_count
from ..errors import CranfieldError, InputError, UsageError
from . import calibration as cal
from . import clustering as cl
from . import regression as rg
from .table import label_column, number_column, positive_label, read_table

__all__ = ["calibration_report", "clustering_report", "regression_report", "table_columns"]


def _number(value):
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def calibration_report(path: str, *, truth: str | None = None, score: str, bins: int = 10, strategy: str = "uniform",
                       positive: str | None = None, clip: float | None = None, bootstrap: int = 0,
                       seed: int = 0, label: str | None = None, step=None) -> dict:
    """The JSON-ready report of ``cranfield calibration`` (library entry point of the command);
    ``label`` is the deprecated name of ``truth``; ``step(description, total)`` (the
    :func:`cranfield.report.progress.steps` protocol) shows the bootstrap's progress."""
    label = truth if truth is not None else label
    if label is None:
        raise UsageError("missing option --truth")
    if label == score:
        raise UsageError(f"the truth column {label!r} cannot also be the --score column")
    clip = cal.check_clip(clip)  # a usage error, not a note in the report
    bootstrap = 0 if bootstrap == 0 else check_count(bootstrap, "bootstrap", 2)
    table, first = read_table(path)
    y_true = label_column(table, label, path, first)
    y_prob = number_column(table, score, path, first)
    if len(y_true) == 0:
        raise InputError("no rows", source=path)
    bad = (y_prob < 0) | (y_prob > 1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(f"expected a probability in [0, 1], found {y_prob[i]}", source=path, line=i + first,
                         field=score)
    pos = positive_label(y_true, [], positive, needed=True)
    diagram = cal.reliability_diagram(y_true, y_prob, n_bins=bins, strategy=strategy, pos_label=pos)
    brier = cal.brier_decomposition(y_true, y_prob, n_bins=bins, strategy=strategy, pos_label=pos)
    notes: list[str] = []
    measures = {"n": len(y_prob), "ece": diagram.ece, "mce": diagram.mce,
                "adaptive_ece": cal.adaptive_calibration_error(y_true, y_prob, n_bins=bins, pos_label=pos),
                "brier": brier.brier, "reliability": brier.reliability, "resolution": brier.resolution,
                "uncertainty": brier.uncertainty, "within_bin_variance": brier.within_bin_variance,
                "within_bin_covariance": brier.within_bin_covariance}
    try:
        fit = cal.calibration_slope(y_true, y_prob, pos_label=pos, clip=clip)
        measures.update(slope=fit.slope, intercept=fit.intercept, intercept_in_the_large=fit.intercept_in_the_large)
    except CranfieldError as error:
        measures.update(slope=None, intercept=None, intercept_in_the_large=None)
        notes.append(f"calibration slope undefined: {getattr(error, 'message', error)}")
    intervals = {}
    for statistic in ("ece", "slope") if bootstrap else ():
        if statistic == "slope" and measures["slope"] is None:
            continue
        options = {"n_bins": bins, "strategy": strategy} if statistic == "ece" else {"clip": clip}
        advance = None if step is None else step(f"bootstrap of the {statistic} ({bootstrap:,} resamples)",
                                                  total=bootstrap)
        try:
            ci = cal.calibration_bootstrap(y_true, y_prob, statistic=statistic, n_resamples=bootstrap,
                                           random_state=seed, pos_label=pos, progress=advance, **options)
            intervals[statistic] = {"low": ci.low, "high": ci.high, "confidence": ci.confidence}
        except CranfieldError as error:
            notes.append(f"no bootstrap interval for {statistic}: {getattr(error, 'message', error)}")
    return {"file": path, "truth": label, "label": label, "score": score, "positive": pos if not isinstance(pos, np.generic)
            else pos.item(), "settings": {"bins": bins, "strategy": strategy, "clip": clip, "bootstrap": bootstrap,
                                          "seed": seed},
            "measures": {k: (_number(v) if k != "n" else v) for k, v in measures.items()}, "intervals": intervals,
            "bins": diagram.to_dict()["bins"], "notes": notes}


def _two_columns(path: str, first_name: str, second_name: str, column, options: tuple[str, str]):
    """``(table, first line, a, b)``: two distinct columns of a table read by ``column``
    (label_column or number_column); no rows is an error."""
    if first_name == second_name:
        raise UsageError(f"{options[0]} and {options[1]} name the same column")
    table, first = read_table(path)
    a, b = column(table, first_name, path, first), column(table, second_name, path, first)
    if len(a) == 0:
        raise InputError("no rows", source=path)
    return table, first, a, b


def clustering_report(path: str, *, labels_true: str, labels_pred: str, features: tuple[str, ...] = ()) -> dict:
    """The JSON-ready report of ``cranfield clustering``."""
    table, first, truth, pred = _two_columns(path, labels_true, labels_pred, label_column,
                                             ("--truth", "--pred"))
    external = {
        "adjusted_rand": cl.adjusted_rand_score(truth, pred), "rand": cl.rand_score(truth, pred),
        "adjusted_mutual_info": cl.adjusted_mutual_info_score(truth, pred),
        "normalized_mutual_info": cl.normalized_mutual_info_score(truth, pred),
        "mutual_info": cl.mutual_info_score(truth, pred),
    }
    h, c, v = cl.homogeneity_completeness_v_measure(truth, pred)
    external.update(homogeneity=h, completeness=c, v_measure=v, fowlkes_mallows=cl.fowlkes_mallows_score(truth, pred),
                    purity=cl.purity_score(truth, pred))
    internal = {}
    if features:
        X = np.column_stack([number_column(table, name, path, first) for name in features])
        try:
            internal = {"silhouette": cl.silhouette_score(X, pred), "davies_bouldin": cl.davies_bouldin_score(X, pred),
                        "calinski_harabasz": cl.calinski_harabasz_score(X, pred)}
        except InputError as error:
            raise InputError(error.message, source=path, field=labels_pred) from None
    return {"file": path, "labels_true": labels_true, "labels_pred": labels_pred, "n": int(len(truth)),
            "classes": int(len(np.unique(truth))), "clusters": int(len(np.unique(pred))),
            "settings": {"features": list(features), "average_method": "arithmetic", "metric": "euclidean"},
            "external": external, "internal": internal}


def regression_report(path: str, *, true: str, pred: str) -> dict:
    """The JSON-ready report of ``cranfield regression``."""
    _, _, y, yhat = _two_columns(path, true, pred, number_column, ("--truth", "--pred"))
    measures = {"r2": rg.r2_score(y, yhat), "explained_variance": rg.explained_variance_score(y, yhat),
                "mse": rg.mean_squared_error(y, yhat), "rmse": rg.root_mean_squared_error(y, yhat),
                "mae": rg.mean_absolute_error(y, yhat), "median_absolute_error": rg.median_absolute_error(y, yhat),
                "mape": rg.mean_absolute_percentage_error(y, yhat), "max_error": rg.max_error(y, yhat)}
    notes = []
    if (y > -1).all() and (yhat > -1).all():
        measures.update(msle=rg.mean_squared_log_error(y, yhat), rmsle=rg.root_mean_squared_log_error(y, yhat))
    else:
        notes.append("MSLE and RMSLE need values > -1: left out")
    if (y >= 0).all() and (yhat > 0).all():
        measures["poisson_deviance"] = rg.mean_poisson_deviance(y, yhat)
    else:
        notes.append("Poisson deviance needs true values >= 0 and predictions > 0: left out")
    if (y > 0).all() and (yhat > 0).all():
        measures["gamma_deviance"] = rg.mean_gamma_deviance(y, yhat)
    else:
        notes.append("Gamma deviance needs true values and predictions > 0: left out")
    return {"file": path, "true": true, "pred": pred, "n": int(len(y)),
            "measures": {k: _number(v) for k, v in measures.items()}, "notes": notes}


def table_columns(path: str, first_name: str, second_name: str, *, numeric_first: bool = False):
    """``(first, second)``: a label (or, with ``numeric_first``, a number) column and a number
    column of the table at ``path``, as the reports read them (for their plots)."""
    table, first = read_table(path)
    column = number_column if numeric_first else label_column
    return column(table, first_name, path, first), number_column(table, second_name, path, first)
