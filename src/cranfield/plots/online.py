"""Plots of online experiments: the lift of each metric with its interval, and power curves."""

from __future__ import annotations

import numpy as np

from ..errors import UsageError
from ..online.power import power, sample_size
from ._base import new_axes
from ._style import NEUTRALS, PALETTE, outside_legend, wrap_title

__all__ = ["lift_plot", "power_curve_plot"]


def lift_plot(result, *, relative: bool = True, title: str | None = None, ax=None):
    """One row per (metric, treatment) of an :class:`~cranfield.online.ABResult`: the relative
    lift (``relative=True``, in %) or the absolute lift with its interval; filled markers are
    significant at the adjusted level, open ones are not. The legend names the test, the
    interval's method and the correction."""
    tests = list(getattr(result, "tests", None) or [])
    if not tests:
        raise UsageError("result: expected an ABResult with at least one comparison")
    scale = 100.0 if relative else 1.0
    centre = np.array([(t.relative_lift if relative else t.lift) for t in tests]) * scale
    low = np.array([(t.relative_low if relative else t.lift_low) for t in tests]) * scale
    high = np.array([(t.relative_high if relative else t.lift_high) for t in tests]) * scale
    figure, ax = new_axes(ax, size=(7.0, 1.6 + 0.32 * len(tests)))
    y = np.arange(len(tests))[::-1]
    on, off = PALETTE[0], NEUTRALS[2]
    for row, t, c, lo, hi in zip(y, tests, centre, low, high):
        color = on if t.significant else off
        if np.isfinite(lo) and np.isfinite(hi):
            ax.plot([lo, hi], [row, row], color=color, linewidth=1.6)
        if np.isfinite(c):
            ax.plot([c], [row], marker="o", markersize=7, color=color, markerfacecolor=color if t.significant else "white")
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(y, [f"{t.metric}: {t.treatment} vs {t.control}" for t in tests])
    ax.set(xlabel="relative lift (%)" if relative else "absolute lift", ylim=(-0.7, len(tests) - 0.3))
    wrap_title(ax, title or f"Lift over the control (unit: {tests[0].unit})")
    alpha = tests[0].alpha
    ax.plot([], [], marker="o", color=on, linestyle="-", label=f"significant: adjusted p ≤ {alpha:g}")
    ax.plot([], [], marker="o", color=off, markerfacecolor="white", linestyle="-", label="not significant")
    ci = "delta method" if relative else tests[0].ci_method
    outside_legend(figure, ax, title=f"test {tests[0].test}, {tests[0].correction} correction; "
                                     f"{tests[0].confidence:.0%} interval: {ci}")
    ax.grid(True, axis="x", alpha=0.3)
    return figure


def power_curve_plot(effect_sizes, *, n1=None, alpha: float = 0.05, ratio: float = 1.0, alternative: str = "two-sided",
                     test: str = "z", target: float = 0.8, title: str | None = None, ax=None):
    """Power against the number of units in the first group, one curve per standardised effect
    size (:func:`cranfield.online.power`); the dashed line is the ``target`` power and each
    curve's crossing is marked with the sample size it needs."""
    sizes = np.atleast_1d(np.asarray(effect_sizes, dtype=np.float64)) if not isinstance(effect_sizes, str) else None
    if sizes is None or sizes.ndim != 1 or sizes.size == 0 or sizes.size > 8 or not np.all(np.isfinite(sizes)) \
            or np.any(sizes == 0):
        raise UsageError(f"effect_sizes: expected 1 to 8 nonzero standardised effect sizes, found {effect_sizes!r:.60}")
    needed = [sample_size(float(d), power=target, alpha=alpha, ratio=ratio, alternative=alternative, test=test)
              for d in sizes]
    top = float(n1) if n1 is not None else 2.0 * max(needed)
    if not np.isfinite(top) or top <= 3:
        raise UsageError(f"n1: expected a number of units > 3, found {n1!r}")
    grid = np.unique(np.geomspace(3.0, top, 200))
    figure, ax = new_axes(ax)
    for i, (d, n_needed) in enumerate(zip(sizes, needed)):
        color = PALETTE[i % len(PALETTE)]
        ax.plot(grid, [power(float(d), n, alpha=alpha, ratio=ratio, alternative=alternative, test=test) for n in grid],
                color=color, label=f"d = {d:g}: n₁ = {int(np.ceil(n_needed)):,}")
        if n_needed <= top:
            ax.plot([n_needed], [target], marker="o", color=color)
    ax.axhline(target, color=NEUTRALS[2], linestyle="--", linewidth=0.8)
    ax.set(xscale="log", xlabel="units in the first group (n₁)", ylabel="power", ylim=(0, 1.02))
    wrap_title(ax, title or f"Power of the two-sample {test} test (α = {alpha:g}, ratio {ratio:g}, {alternative})")
    outside_legend(figure, ax, title="standardised effect size")
    ax.grid(True, alpha=0.3)
    return figure
