"""``cranfield calibration``, ``cranfield clustering`` and ``cranfield regression``: one table
file (CSV, TSV or Parquet, read as ``cranfield classify`` reads it) in, a table of figures out."""

from __future__ import annotations

import math

import click
import numpy as np

from .._params import check_count
from ..classification.table import label_column, number_column, positive_label, read_table
from ..errors import CranfieldError, InputError, UsageError
from ..io.json_text import json_text
from ..classification import calibration as cal, clustering as cl, regression as rg
from ..io.atomic import write_text_output
from ..io.tables import Table, render_table
from ..plots._base import save_figure
from ..plots.calibration import reliability_plot
from ..plots.regression import predicted_vs_true_plot, residual_plot as draw_residuals
from ..report.progress import steps
from ._options import renamed_option, take_renamed

FORMATS = ("table", "json", "csv", "tsv", "markdown", "latex")


def _number(value):
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _emit(tables, document: dict, fmt: str, digits: int, output: str | None) -> None:
    if fmt == "json":
        text = json_text(document, ensure_ascii=True)
    elif fmt in ("csv", "tsv"):
        text = render_table(tables[0], fmt)
    else:
        text = "\n".join(render_table(t, fmt) for t in tables)
    write_text_output(text, output)


def _save(figure, path: str | None) -> None:
    if path is None:
        return
    save_figure(figure, path)


def _format_options(function):
    function = click.option("-o", "--output", type=click.Path(dir_okay=False),
                            help="Write here (atomically) instead of stdout.")(function)
    function = click.option("--digits", type=int, default=4, show_default=True, help="Decimals in tables.")(function)
    return click.option("-f", "--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)(function)


# ------------------------------------------------------------------------------ calibration
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


@click.command("calibration")
@click.argument("table", type=click.Path(dir_okay=False))
@click.option("--truth", metavar="COL", help="Column with the actual class (two classes).")
@renamed_option("--label", "truth")
@click.option("--score", required=True, metavar="COL",
              help="Column with the predicted probability of the positive class.")
@click.option("--bins", type=click.IntRange(1, 100000), default=10, show_default=True, help="Number of bins.")
@click.option("--strategy", type=click.Choice(("uniform", "quantile")), default="uniform", show_default=True,
              help="Equal-width bins or equal-count (quantile) bins.")
@click.option("--positive", metavar="LABEL", help="The positive class (default: 1 for 0/1 or -1/1 labels).")
@click.option("--clip", type=float, help="Clip probabilities to [EPS, 1-EPS] for the slope (logit of 0 or 1).")
@click.option("--bootstrap", type=click.IntRange(0, 100000), default=0, show_default=True,
              help="Bootstrap resamples for intervals of ECE and slope (0: none).")
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=0, show_default=True, help="Seed of the bootstrap.")
@click.option("--plot", metavar="PNG", help="Write the reliability diagram here (.png, .svg or .pdf).")
@_format_options
def calibration_command(table, truth, score, bins, strategy, positive, clip, bootstrap, seed, plot, fmt, digits,
                        output):
    """Calibration of probabilities in a CSV, TSV or Parquet TABLE: ECE, MCE, adaptive ECE, the
    Brier score's decomposition, calibration slope and intercept, the reliability diagram.

    \b
    Examples:
      cranfield calibration preds.csv --truth y --score prob
      cranfield calibration preds.parquet --truth y --score p --bins 15 --strategy quantile --plot rel.png
      cranfield calibration preds.csv --truth y --score prob --bootstrap 1000 --seed 7 -f json
    """
    label = take_renamed("truth", truth, "--truth")
    with steps() as step:  # a progress bar on a terminal only: the bootstrap can take seconds
        report = calibration_report(table, truth=label, score=score, bins=bins, strategy=strategy,
                                    positive=positive, clip=clip, bootstrap=bootstrap, seed=seed, step=step)
    rows = []
    for name, value in report["measures"].items():
        ci = report["intervals"].get(name)
        rows.append([name, value, None if ci is None else ci["low"], None if ci is None else ci["high"]])
    identity = ("brier = reliability - resolution + uncertainty + within_bin_variance - 2 within_bin_covariance")
    notes = [f"{bins} {strategy} bins; {identity}", *report["notes"]]
    if bootstrap:
        notes.append(f"95% percentile bootstrap intervals, {bootstrap} resamples, seed {seed}")
    summary = Table(["measure", "value", "low", "high"] if bootstrap else ["measure", "value"],
                    [r if bootstrap else r[:2] for r in rows], title=f"calibration of {score}", digits=digits,
                    notes=notes)
    per_bin = Table(["bin", "weight", "mean predicted", "fraction positive"],
                    [[b["bin"], b["weight"], b["mean_predicted"], b["fraction_positive"]] for b in report["bins"]],
                    title="reliability diagram (non-empty bins)", digits=digits)
    if plot is not None:
        t, first = read_table(table)
        y_true, y_prob = label_column(t, label, table, first), number_column(t, score, table, first)
        _save(reliability_plot(y_true, {score: y_prob}, n_bins=bins, strategy=strategy,
                               pos_label=report["positive"]), plot)
    _emit([summary, per_bin], report, fmt, digits, output)


# ------------------------------------------------------------------------------ clustering
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


@click.command("clustering")
@click.argument("table", type=click.Path(dir_okay=False))
@click.option("--truth", "labels_true", metavar="COL", help="Column with the true classes.")
@click.option("--pred", "labels_pred", metavar="COL", help="Column with the cluster of each row.")
@renamed_option("--labels-true", "labels_true")
@renamed_option("--labels-pred", "labels_pred")
@click.option("--features", metavar="COLS", multiple=True,
              help="Feature columns (comma-separated or repeated) for silhouette, Davies-Bouldin, Calinski-Harabasz.")
@_format_options
def clustering_command(table, labels_true, labels_pred, features, fmt, digits, output):
    """Evaluate a clustering against true classes (ARI, AMI, NMI, V-measure, Fowlkes-Mallows,
    purity...) and, with --features, by its geometry (silhouette, Davies-Bouldin,
    Calinski-Harabasz), from a CSV, TSV or Parquet TABLE.

    \b
    Examples:
      cranfield clustering clusters.csv --truth class --pred cluster
      cranfield clustering clusters.parquet --truth y --pred k --features x1,x2,x3
      cranfield clustering clusters.tsv --truth y --pred k -f json
    """
    labels_true = take_renamed("labels_true", labels_true, "--truth")
    labels_pred = take_renamed("labels_pred", labels_pred, "--pred")

    names = tuple(dict.fromkeys(part.strip() for spec in features for part in spec.split(",") if part.strip()))
    report = clustering_report(table, labels_true=labels_true, labels_pred=labels_pred, features=names)
    rows = [["external", k, v] for k, v in report["external"].items()] + \
           [["internal", k, v] for k, v in report["internal"].items()]
    counts = f"{report['n']} rows, {report['classes']} classes, {report['clusters']} clusters"
    notes = [f"{counts}; NMI and AMI with the arithmetic mean"]
    if names:
        notes.append(f"internal scores: Euclidean distances over {', '.join(names)}")
    _emit([Table(["kind", "measure", "value"], rows, title=f"clustering {labels_pred} against {labels_true}",
                 digits=digits, notes=notes)], report, fmt, digits, output)


# ------------------------------------------------------------------------------ regression
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
    notes += [f"{k} is beyond the float64 range: left out" for k, v in measures.items() if not math.isfinite(v)]
    return {"file": path, "true": true, "pred": pred, "n": int(len(y)),
            "measures": {k: _number(v) for k, v in measures.items()}, "notes": notes}


@click.command("regression")
@click.argument("table", type=click.Path(dir_okay=False))
@click.option("--truth", "true_column", metavar="COL", help="Column with the true values.")
@renamed_option("--true", "true_column")
@click.option("--pred", required=True, metavar="COL", help="Column with the predicted values.")
@click.option("--plot", metavar="PNG", help="Write the predicted-against-true plot here (.png, .svg or .pdf).")
@click.option("--residual-plot", metavar="PNG", help="Write the residual plot here (.png, .svg or .pdf).")
@_format_options
def regression_command(table, true_column, pred, plot, residual_plot, fmt, digits, output):
    """Regression errors from a CSV, TSV or Parquet TABLE: R², explained variance, (R)MSE, MAE,
    median absolute error, MAPE, max error, (R)MSLE, Poisson and Gamma deviances.

    \b
    Examples:
      cranfield regression preds.csv --truth y --pred yhat
      cranfield regression preds.parquet --truth y --pred yhat --plot pvt.png --residual-plot res.png
      cranfield regression preds.tsv --truth y --pred yhat -f markdown
    """
    true_column = take_renamed("true_column", true_column, "--truth")

    report = regression_report(table, true=true_column, pred=pred)
    if plot is not None or residual_plot is not None:
        t, first = read_table(table)
        y, yhat = number_column(t, true_column, table, first), number_column(t, pred, table, first)
        if plot is not None:
            _save(predicted_vs_true_plot(y, yhat), plot)
        if residual_plot is not None:
            _save(draw_residuals(y, yhat), residual_plot)
    summary = Table(["measure", "value"], [[k, v] for k, v in report["measures"].items()],
                    title=f"regression: {pred} against {true_column} ({report['n']} rows)", digits=digits,
                    notes=report["notes"])
    _emit([summary], report, fmt, digits, output)
