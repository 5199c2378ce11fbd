"""``cranfield calibration``, ``cranfield clustering`` and ``cranfield regression``: one table
file (CSV, TSV or Parquet, read as ``cranfield classify`` reads it) in, a table of figures out."""

from __future__ import annotations

import click

from ..classification.table_reports import (
    calibration_report,
    clustering_report,
    regression_report,
    table_columns,
)
from ..io.atomic import write_text_output
from ..io.json_text import json_text
from ..io.tables import Table, render_table
from ..plots._base import save_figure
from ..plots.calibration import reliability_plot
from ..plots.regression import predicted_vs_true_plot
from ..plots.regression import residual_plot as draw_residuals
from ..report.progress import steps
from ._options import renamed_option, take_renamed

FORMATS = ("table", "json", "csv", "tsv", "markdown", "latex")


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
        y_true, y_prob = table_columns(table, label, score)
        _save(reliability_plot(y_true, {score: y_prob}, n_bins=bins, strategy=strategy,
                               pos_label=report["positive"]), plot)
    _emit([summary, per_bin], report, fmt, digits, output)


# ------------------------------------------------------------------------------ clustering
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
        y, yhat = table_columns(table, true_column, pred, numeric_first=True)
        if plot is not None:
            _save(predicted_vs_true_plot(y, yhat), plot)
        if residual_plot is not None:
            _save(draw_residuals(y, yhat), residual_plot)
    summary = Table(["measure", "value"], [[k, v] for k, v in report["measures"].items()],
                    title=f"regression: {pred} against {true_column} ({report['n']} rows)", digits=digits,
                    notes=report["notes"])
    _emit([summary], report, fmt, digits, output)
