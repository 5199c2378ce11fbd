r"""Systems run several times (random seeds, folds): the mean over seeds, and how much of the
variation comes from the seeds rather than from the topics (ranx#6, #60).

For one system and measure, the scores form a seeds × topics matrix :math:`x_{st}`
(:math:`S` seeds, :math:`T` topics). The two-way ANOVA without replication (random seed and
topic effects, :math:`x_{st} = \mu + a_s + b_t + e_{st}`) gives the mean squares
:math:`MS_{seed}, MS_{topic}, MS_{res}` and, by their expectations, the variance components

.. math::

    \hat\sigma^2_{seed} = \frac{MS_{seed} - MS_{res}}{T}, \quad
    \hat\sigma^2_{topic} = \frac{MS_{topic} - MS_{res}}{S}, \quad
    \hat\sigma^2_{res} = MS_{res}

(a negative estimate is reported as 0, the usual truncation; Searle, Casella & McCulloch 1992,
§3.5). The system's score is the mean over seeds of the seed means, with the Student t interval
over the :math:`S` seed means (the seeds are the replicates; :math:`S - 1` degrees of freedom).
:func:`compare_seeds` then compares the systems on their per-topic means over seeds with
:func:`cranfield.stats.compare_values` (paired by topic), so that a difference between systems is
judged against the topics' variation with the seed noise averaged out.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from ..errors import InputError, UsageError
from .compare import compare_values
from ._interval import check_confidence

__all__ = ["SeedSummary", "SeedResult", "seed_summary", "compare_seeds", "parse_seed_groups"]


@dataclass(frozen=True)
class SeedSummary:
    system: str
    measure: str
    n_seeds: int
    n_topics: int
    mean: float
    ci_low: float
    ci_high: float
    sd_over_seeds: float
    var_seed: float
    var_topic: float
    var_residual: float
    seed_means: list


@dataclass(frozen=True)
class SeedResult:
    summaries: list
    comparison: object = None
    settings: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        out = {"settings": dict(self.settings), "seeds": [asdict(s) for s in self.summaries]}
        if self.comparison is not None:
            out["comparison"] = self.comparison.to_dict()
        return out


def parse_seed_groups(specs) -> dict:
    """``["bm25=a.run,b.run", ...]`` as ``{"bm25": ["a.run", "b.run"], ...}``."""
    groups: dict = {}
    for spec in specs:
        name, sep, runs = str(spec).partition("=")
        members = [r.strip() for r in runs.split(",") if r.strip()]
        if not sep or not name.strip() or not members or name.strip() in groups:
            raise UsageError(f"--seeds: expected SYSTEM=RUN1,RUN2,... with a new system name and its runs, found {spec!r}")
        groups[name.strip()] = members
    return groups


def _components(x: np.ndarray) -> tuple[float, float, float]:
    s, t = x.shape
    grand = x.mean()
    ss_seed = t * float(((x.mean(axis=1) - grand) ** 2).sum())
    ss_topic = s * float(((x.mean(axis=0) - grand) ** 2).sum())
    ss_res = float(((x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + grand) ** 2).sum())
    ms_seed, ms_topic = ss_seed / (s - 1), ss_topic / (t - 1)
    ms_res = ss_res / ((s - 1) * (t - 1))
    return max(0.0, (ms_seed - ms_res) / t), max(0.0, (ms_topic - ms_res) / s), ms_res


def seed_summary(matrices, groups, *, confidence: float = 0.95) -> list:
    """Per system (``groups``: ``{system: [run, ...]}``, at least 2 runs each) and measure:
    ``matrices[measure]`` is ``{run: per-topic values}`` (arrays over the same topics in the same
    order). Returns :class:`SeedSummary` rows (module docstring)."""
    from scipy import special

    confidence = check_confidence(confidence)
    if not isinstance(matrices, dict) or not all(isinstance(v, dict) for v in matrices.values()):
        raise UsageError("matrices: expected {measure: {run: per-topic values}}")
    if not isinstance(groups, dict) or not groups or \
            not all(isinstance(v, (list, tuple)) and all(isinstance(r, str) for r in v) for v in groups.values()):
        raise UsageError("groups: expected {system: [run, ...]} with run names")
    rows = []
    for system, runs in groups.items():
        if len(runs) < 2:
            raise UsageError(f"--seeds: system {system!r} has {len(runs)} run; the variance over seeds needs 2 or more")
        for measure, per_run in matrices.items():
            missing = [r for r in runs if r not in per_run]
            if missing:
                raise UsageError(f"--seeds: run {missing[0]!r} of system {system!r} is none of the runs: "
                                 f"{', '.join(per_run)}")
            try:
                x = np.vstack([np.asarray(per_run[r], dtype=np.float64) for r in runs])
            except (TypeError, ValueError) as error:
                raise InputError(f"system {system!r}, {measure}: expected per-topic scores of the same length "
                                 f"({' '.join(str(error).split())[:80]})", field="score") from None
            if x.ndim != 2 or x.shape[1] < 2 or not np.all(np.isfinite(x)):
                raise InputError(f"system {system!r}, {measure}: expected finite scores on at least 2 topics",
                                 field="score")
            seed_means = x.mean(axis=1)
            sd = float(seed_means.std(ddof=1))
            half = float(special.stdtrit(len(runs) - 1, 0.5 + confidence / 2) * sd / np.sqrt(len(runs)))
            mean = float(seed_means.mean())
            rows.append(SeedSummary(system, measure, len(runs), x.shape[1], mean, mean - half, mean + half, sd,
                                    *_components(x), seed_means.tolist()))
    return rows


def compare_seeds(matrices, groups, query_ids, *, confidence: float = 0.95, **compare_options) -> SeedResult:
    """:func:`seed_summary` and :func:`cranfield.stats.compare_values` of the systems' per-topic
    means over their seeds (``compare_options`` go to it; ``query_ids`` label the topics)."""
    summaries = seed_summary(matrices, groups, confidence=confidence)
    values = {system: {measure: dict(zip(map(str, query_ids), np.mean([per_run[r] for r in runs], axis=0).tolist()))
                       for measure, per_run in matrices.items()} for system, runs in groups.items()}
    comparison = compare_values(values, **compare_options) if len(groups) >= 2 else None
    settings = {"groups": {k: list(v) for k, v in groups.items()}, "confidence": confidence,
                "variance components": "two-way ANOVA (seed x topic), expected mean squares, truncated at 0",
                "comparison": "per-topic means over seeds, paired by topic" if comparison is not None else None}
    return SeedResult(summaries, comparison, settings)
