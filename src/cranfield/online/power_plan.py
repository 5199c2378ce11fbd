"""The plan of an A/B test as ``cranfield online power`` prints it: the standardised effect of
the change to detect (from proportions, from a mean's standard deviation, or given), the sample
size it needs, and for a given sample its power and minimum detectable effect; the command only
renders it. The formulas are those of :mod:`.power`."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import UsageError
from .power import (effect_size_from_means, effect_size_from_proportions, minimum_detectable_effect, power,
                    proportion_from_effect_size, sample_size)

__all__ = ["PowerPlan", "plan_ab_test"]


@dataclass
class PowerPlan:
    """``rows``: ``[quantity, value]`` in the order printed; ``settings``: what produced them;
    ``effect``: the standardised effect size the power curve is drawn for."""

    rows: list
    settings: dict
    effect: float

    def results(self) -> dict:
        return {name: value for name, value in self.rows}


def plan_ab_test(*, baseline: float | None = None, sd: float | None = None, mde: float | None = None,
                 relative: bool = False, effect_size: float | None = None, n1: float | None = None,
                 target: float = 0.8, alpha: float = 0.05, ratio: float = 1.0, alternative: str = "two-sided",
                 test: str = "z") -> PowerPlan:
    """Sample size for the effect (``mde`` as proportion points with ``baseline``, relative to it
    with ``relative``, metric units with ``sd``; or ``effect_size``), and with ``n1`` units in
    the first group the power and the minimum detectable effect (Cohen's h for proportions)."""
    options = dict(alpha=alpha, ratio=ratio, alternative=alternative, test=test)
    rows = []
    d = effect_size
    if mde is not None:
        if baseline is not None:
            delta = baseline * mde if relative else mde
            d = effect_size_from_proportions(baseline, baseline + delta)
        elif sd is not None:
            d = effect_size_from_means(mde, sd)
        else:
            raise UsageError("--mde needs --baseline (proportions) or --sd (means); or give --effect-size")
    if d is not None:
        rows.append(["standardised effect size", float(d)])
        needed = sample_size(d, power=target, **options)
        rows += [["units needed, first group", math.ceil(needed)],
                 ["units needed, second group", math.ceil(needed * ratio)]]
    mde_d = None
    if n1 is not None:
        if d is not None:
            rows.append([f"power with n1 = {n1:g}", power(d, n1, **options)])
        mde_d = minimum_detectable_effect(n1, power=target, **options)
        rows.append([f"minimum detectable effect size (n1 = {n1:g})", mde_d])
        if baseline is not None:
            p2 = proportion_from_effect_size(baseline, mde_d)
            rows.append(["minimum detectable proportion", p2])
            rows.append(["minimum detectable lift (points)", p2 - baseline])
        elif sd is not None:
            rows.append(["minimum detectable difference", mde_d * sd])
    settings = {"alpha": alpha, "power": target, "ratio": ratio, "alternative": alternative, "test": test,
                "baseline": baseline, "sd": sd, "mde": mde, "relative": relative, "effect_size": effect_size, "n1": n1}
    return PowerPlan(rows, settings, d if d is not None else mde_d)
