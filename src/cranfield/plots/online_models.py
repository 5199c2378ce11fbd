"""Plots of online evaluation by models: click-through rate by rank observed against a fitted
click model, interleaving outcomes, and the sensitivity of A/B tests against interleaving."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..errors import UsageError
from ._base import new_axes
from ._style import HIGHER, LOWER, NEUTRALS, PALETTE, outside_legend, styled, wrap_title

__all__ = ["ctr_by_rank_plot", "interleaving_outcome_plot", "sensitivity_plot"]


def _evaluations(evaluations) -> list[Mapping]:
    if isinstance(evaluations, Mapping):
        evaluations = [evaluations]
    if not isinstance(evaluations, Sequence) or not evaluations or not all(
            isinstance(e, Mapping) and {"ctr_ranks", "observed_ctr", "predicted_ctr", "model"} <= set(e)
            for e in evaluations):
        raise UsageError("evaluations: expected the result of evaluate_click_model (or a list of them)")
    return list(evaluations)


@styled
def ctr_by_rank_plot(evaluations, *, title: str | None = None, ax=None):
    """Observed click-through rate by rank (bars) against the CTR each fitted click model
    predicts (``P(C_r = 1)`` averaged over the same rows; lines), from
    :func:`~cranfield.online.click_models.evaluate_click_model` results (one or a list)."""
    evaluations = _evaluations(evaluations)
    figure, ax = new_axes(ax, size=(6.8, 4.2))
    first = evaluations[0]
    ranks = np.asarray(first["ctr_ranks"])
    ax.bar(ranks, first["observed_ctr"], width=0.7, color=NEUTRALS[4], edgecolor=NEUTRALS[2], label="observed")
    markers = "osD^v<>p"
    for i, evaluation in enumerate(evaluations):
        label = f"{evaluation['model']} (perplexity {evaluation['perplexity']:.4f})" if "perplexity" in evaluation \
            else str(evaluation["model"])
        ax.plot(evaluation["ctr_ranks"], evaluation["predicted_ctr"], marker=markers[i % len(markers)],
                color=PALETTE[i % len(PALETTE)], label=label)
    ax.set(xlabel="rank", ylabel="click-through rate", xticks=ranks if len(ranks) <= 20 else None)
    ax.set_ylim(bottom=0)
    ax.grid(True, axis="y", alpha=0.3)
    wrap_title(ax, title or "Click-through rate by rank: observed and predicted by click models")
    outside_legend(figure, ax, loc_inside="upper right")
    return figure


@styled
def interleaving_outcome_plot(outcomes: Mapping, *, title: str | None = None, ax=None):
    """Wins, ties and losses of run A against run B, one stacked bar per comparison, each
    labelled with Δ_AB, its interval and the sign test's p-value. ``outcomes``: ``{label:
    interleaving_outcome(...) result}``."""
    if not isinstance(outcomes, Mapping) or not outcomes or not all(
            isinstance(o, Mapping) and {"wins", "ties", "losses", "delta"} <= set(o) for o in outcomes.values()):
        raise UsageError("outcomes: expected {label: interleaving_outcome result}")
    figure, ax = new_axes(ax, size=(7.2, 1.2 + 0.6 * len(outcomes)))
    labels = list(outcomes)
    y = np.arange(len(labels))[::-1]
    for row, label in zip(y, labels):
        o = outcomes[label]
        n = o["wins"] + o["ties"] + o["losses"]
        left = 0.0
        for part, color, hatch in (("wins", HIGHER, None), ("ties", NEUTRALS[4], None), ("losses", LOWER, "///")):
            share = o[part] / n if n else 0.0
            ax.barh(row, share, left=left, color=color, hatch=hatch, edgecolor="white")
            left += share
        interval = f" [{o['ci_low']:+.3f}, {o['ci_high']:+.3f}]" if "ci_low" in o else ""
        p = f", p = {o['p_value']:.3g}" if "p_value" in o else ""
        ax.text(1.01, row, f"Δ = {o['delta']:+.3f}{interval}{p}", va="center", fontsize=8)
    ax.axvline(0.5, color="black", linewidth=0.8, linestyle="--")
    ax.set(yticks=y, yticklabels=labels, xlim=(0, 1), xlabel="share of impressions")
    from matplotlib.patches import Patch

    wrap_title(ax, title or "Interleaving outcomes: A wins, ties, B wins")
    outside_legend(figure, ax, loc_inside="lower right", extra=(
        Patch(color=HIGHER, label="A wins"), Patch(color=NEUTRALS[4], label="tie"),
        Patch(facecolor=LOWER, hatch="///", label="B wins")))
    return figure


@styled
def sensitivity_plot(experiment: Mapping, *, title: str | None = None, ax=None):
    """Detection rate against the number of impressions for the A/B test and interleaving, from
    :func:`~cranfield.online.simulation.simulate_experiment`; the target power dotted and the
    impressions each needs marked."""
    if not isinstance(experiment, Mapping) or not {"impressions", "ab", "interleaving", "settings"} <= set(experiment):
        raise UsageError("experiment: expected the result of simulate_experiment")
    figure, ax = new_axes(ax, size=(6.8, 4.2))
    n = np.asarray(experiment["impressions"])
    settings = experiment["settings"]
    for key, label, color, marker in (("ab", f"A/B test ({settings['ab_metric']})", LOWER, "s"),
                                      ("interleaving", f"interleaving ({settings['method']})", HIGHER, "o")):
        part = experiment[key]
        needed = part["impressions_needed"]
        ax.plot(n, part["detection_rate"], marker=marker, color=color,
                label=f"{label}: {needed if needed is not None else '> ' + str(int(n[-1]))} impressions")
    ax.axhline(settings["power"], color=NEUTRALS[2], linestyle=":", linewidth=1, label=f"power {settings['power']:g}")
    ax.set_xscale("log")
    ax.set(xlabel="impressions", ylabel="detection rate", ylim=(-0.02, 1.02))
    ax.grid(True, alpha=0.3)
    wrap_title(ax, title or f"How often each experiment detects the offline difference ({settings['model']} users, "
                            f"{settings['repetitions']} repetitions, α = {settings['alpha']:g})")
    outside_legend(figure, ax, loc_inside="lower right")
    return figure
