"""Plots of validation, learning and bias–variance curves (matplotlib, imported lazily, figures
made without pyplot). Each function returns the matplotlib Figure, drawn in the one figure style of
:mod:`cranfield.plots._style`."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import UsageError
from ..protocols.bias_variance import BiasVarianceCurve
from ._base import new_axes
from ._style import outside_legend, style, wrap_title

__all__ = ["score_curve_plot", "validation_curve_plot", "learning_curve_plot", "bias_variance_plot"]


def _axes(ax):
    """``(figure, axes)``: the given axes, or a new 6 × 4 in figure in the cranfield style, made
    without pyplot (which would keep every figure open for the life of the process)."""
    return new_axes(ax, size=(6, 4))


def score_curve_plot(curve: Any, *, ax=None, log_x: bool | None = None):
    """Mean training and validation values (lines) ± one standard deviation over folds (bands)
    of a :class:`~cranfield.protocols.curves.ScoreCurve`; returns the Figure.

    ``log_x`` (default: automatic for positive numeric parameters spanning ≥ 2 decades)."""
    with style():
        return _draw_score_curve(curve, ax=ax, log_x=log_x)


def _draw_score_curve(curve: Any, *, ax, log_x: bool | None):
    fig, ax = _axes(ax)
    numeric = np.asarray(curve.x).dtype.kind in "iuf"
    x = np.asarray(curve.x, dtype=np.float64) if numeric else np.arange(len(curve.x))
    if log_x is None:
        log_x = bool(numeric and curve.kind == "validation" and (x > 0).all() and x.max() / x.min() >= 100)
    for label, mean, sd, marker in (("training", curve.train_mean, curve.train_std, "o-"),
                                   ("validation", curve.validation_mean, curve.validation_std, "s-")):
        (line,) = ax.plot(x, mean, marker, label=label)
        ax.fill_between(x, mean - sd, mean + sd, alpha=0.2, color=line.get_color())
    if not numeric:
        ax.set_xticks(x)
        ax.set_xticklabels([str(v) for v in curve.x], rotation=30, ha="right")
    if log_x:
        ax.set_xscale("log")
    ax.set_xlabel("training samples" if curve.kind == "learning" else curve.x_name)
    ax.set_ylabel(curve.metric)
    wrap_title(ax, f"{curve.kind.capitalize()} curve ({curve.train.shape[1]} folds, mean ± sd)")
    ax.grid(True, alpha=0.3)
    outside_legend(fig, ax)
    return fig


def validation_curve_plot(curve: Any, *, ax=None, log_x: bool | None = None):
    """:func:`score_curve_plot` for a validation curve."""
    return score_curve_plot(curve, ax=ax, log_x=log_x)


def learning_curve_plot(curve: Any, *, ax=None):
    """:func:`score_curve_plot` for a learning curve."""
    return score_curve_plot(curve, ax=ax, log_x=False)


def bias_variance_plot(curve: Any, *, ax=None, log_x: bool | None = None):
    """Expected loss, bias (squared for the squared loss) and variance against the parameter of a
    :class:`~cranfield.protocols.bias_variance.BiasVarianceCurve` (the bias–variance trade-off);
    returns the Figure. ``log_x``: automatic for positive numbers spanning ≥ 2 decades."""
    if not isinstance(curve, BiasVarianceCurve):
        raise UsageError(f"expected a BiasVarianceCurve (from bias_variance_curve), found {type(curve).__name__}")
    if ax is not None and not hasattr(ax, "figure"):
        raise UsageError(f"ax: expected matplotlib Axes, found {type(ax).__name__}")
    with style():
        return _draw_bias_variance(curve, ax=ax, log_x=log_x)


def _draw_bias_variance(curve: Any, *, ax, log_x: bool | None):
    fig, ax = _axes(ax)
    values = np.asarray(curve.x, dtype=object)
    numeric = all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in curve.x)
    x = values.astype(np.float64) if numeric else np.arange(len(values))
    if log_x is None:
        log_x = bool(numeric and (x > 0).all() and x.max() / x.min() >= 100)
    kind = curve.results[0].loss if curve.results else ""
    bias_label = "bias²" if kind == "squared" else "bias"
    for label, y, marker in (("expected loss", curve.loss, "o-"), (bias_label, curve.bias, "s--"),
                             ("variance", curve.variance, "^:")):
        ax.plot(x, y, marker, label=label)
    if not numeric:
        ax.set_xticks(x)
        ax.set_xticklabels([str(v) for v in curve.x], rotation=30, ha="right")
    if log_x:
        ax.set_xscale("log")
    ax.set_xlabel(curve.param)
    ax.set_ylabel(f"{kind} loss")
    rounds = curve.results[0].settings.get("n_rounds") if curve.results else None
    wrap_title(ax, f"Bias–variance trade-off ({rounds} bootstrap rounds)")
    ax.grid(True, alpha=0.3)
    outside_legend(fig, ax)
    return fig
