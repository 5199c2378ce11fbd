"""Regression plots: predicted against true values, and residuals against predictions."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..classification._validation import check_lengths, check_scores
from ..classification.probabilistic import r2_score, root_mean_squared_error
from ..errors import InputError
from ._base import new_axes
from ._style import NEUTRALS, PALETTE, styled, wrap_title

__all__ = ["predicted_vs_true_plot", "residual_plot"]


def _pair(y_true: Any, y_pred: Any) -> tuple[np.ndarray, np.ndarray]:
    truth, pred = check_scores(y_true, "y_true", exact=False), check_scores(y_pred, "y_pred", exact=False)
    if check_lengths(y_true=truth, y_pred=pred) == 0:
        raise InputError("no samples", field="y_true")
    return truth, pred


def _alpha(n: int) -> float:
    return float(np.clip(30 / np.sqrt(n), 0.05, 0.8))


@styled
def predicted_vs_true_plot(y_true: Any, y_pred: Any, *, title: str | None = None, ax=None):
    """Predictions against true values with the identity line (perfect predictions lie on it)
    and R² and RMSE in the title; equal axes."""
    truth, pred = _pair(y_true, y_pred)
    figure, ax = new_axes(ax, size=(5.2, 5.0))
    ax.scatter(truth, pred, s=10, alpha=_alpha(len(truth)), color=PALETTE[0], edgecolors="none")
    low, high = float(min(truth.min(), pred.min())), float(max(truth.max(), pred.max()))
    pad = 0.03 * (high - low or 1.0)
    ax.plot([low - pad, high + pad], [low - pad, high + pad], color=NEUTRALS[2], linestyle="--", linewidth=1)
    ax.set(xlim=(low - pad, high + pad), ylim=(low - pad, high + pad), xlabel="true value", ylabel="predicted value",
           aspect="equal")
    r2, rmse = r2_score(truth, pred), root_mean_squared_error(truth, pred)
    wrap_title(ax, title or f"Predicted against true (R² = {r2:.3f}, RMSE = {rmse:.3g}, n = {len(truth)})")
    ax.grid(True, alpha=0.3)
    return figure


@styled
def residual_plot(y_true: Any, y_pred: Any, *, title: str | None = None, ax=None):
    """Residuals y − ŷ against predictions ŷ with the zero line: structure (a curve, a funnel)
    shows a missed non-linearity or non-constant variance."""
    truth, pred = _pair(y_true, y_pred)
    figure, ax = new_axes(ax, size=(6.0, 4.2))
    ax.scatter(pred, truth - pred, s=10, alpha=_alpha(len(truth)), color=PALETTE[0], edgecolors="none")
    ax.axhline(0.0, color=NEUTRALS[2], linestyle="--", linewidth=1)
    ax.set(xlabel="predicted value", ylabel="residual (true − predicted)")
    wrap_title(ax, title or f"Residuals (n = {len(truth)})")
    ax.grid(True, alpha=0.3)
    return figure
