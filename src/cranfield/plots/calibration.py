"""Reliability diagram: observed frequency against mean predicted probability per bin, with the
histogram of the predictions underneath (how many samples each bin rests on)."""

from __future__ import annotations

from typing import Any, Hashable, Sequence

import numpy as np

from ..classification.calibration import reliability_diagram
from ..errors import UsageError
from ._base import colors, named_scores, require_matplotlib
from ._style import NEUTRALS, styled, wrap_title

__all__ = ["reliability_plot"]


@styled
def reliability_plot(y_true: Any, y_prob: Any, *, n_bins: int = 10, strategy: str = "uniform",
                     sample_weight: Any = None, pos_label: Hashable | None = None,
                     labels: Sequence[Hashable] | None = None, title: str | None = None):
    """Reliability diagram(s) of one or several systems (``y_prob`` an array, or a mapping name ->
    probabilities on the same samples; an n × k array is read top-label): each non-empty bin's
    observed frequency (accuracy) against its mean predicted probability (confidence), the
    diagonal of perfect calibration, each system's ECE in the legend; below, the share of the
    samples in each of ``n_bins`` (at least 10) uniform bins. Bins as
    :func:`cranfield.classification.calibration.reliability_diagram`."""
    if isinstance(y_prob, dict):
        systems = dict(y_prob)
        if not systems:
            raise UsageError("y_prob: no system to draw")
    else:
        probs = np.asarray(y_prob.to_numpy() if hasattr(y_prob, "to_numpy") else y_prob, dtype=object)
        systems = {"model": y_prob} if probs.ndim == 2 else named_scores(y_prob)
    diagrams = {name: reliability_diagram(y_true, p, n_bins=n_bins, strategy=strategy, sample_weight=sample_weight,
                                          pos_label=pos_label, labels=labels) for name, p in systems.items()}
    histograms = diagrams if strategy == "uniform" else {
        name: reliability_diagram(y_true, p, n_bins=max(n_bins, 10), strategy="uniform", sample_weight=sample_weight,
                                  pos_label=pos_label, labels=labels) for name, p in systems.items()}
    require_matplotlib()
    from ._style import StyledFigure  # optional dependency: StyledFigure subclasses matplotlib's Figure

    figure = StyledFigure(figsize=(5.6, 6.4), layout="constrained")
    top, bottom = figure.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [3, 1]})
    top.plot([0, 1], [0, 1], color=NEUTRALS[2], linestyle="--", linewidth=1, label="perfect calibration")
    for (name, d), color in zip(diagrams.items(), colors(len(diagrams))):
        top.plot(d.mean_predicted, d.fraction_positive, "o-", color=color, linewidth=1.6, markersize=4,
                 label=f"{name} (ECE = {d.ece:.3f})")
        hist = histograms[name]  # the predictions' distribution over uniform bins, whatever the strategy
        bottom.stairs(hist.bin_weight / hist.bin_weight.sum(), hist.edges, color=color, linewidth=1.5,
                      fill=len(diagrams) == 1, alpha=0.6 if len(diagrams) == 1 else 1.0)
    reading = next(iter(diagrams.values())).settings["reading"]
    top.set(xlim=(-0.01, 1.01), ylim=(-0.01, 1.01),
            ylabel="observed frequency" if reading == "binary" else "accuracy")
    bottom.set(xlabel="mean predicted probability" if reading == "binary" else "confidence (top-label)",
               ylabel="share of samples")
    wrap_title(top, title or f"Reliability diagram ({n_bins} {strategy} bins)")
    top.grid(True, alpha=0.3)
    bottom.grid(True, alpha=0.3)
    top.legend(loc="upper left")
    return figure
