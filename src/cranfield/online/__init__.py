"""Online evaluation: click logs, online metrics, A/B tests, interleaving, click models and user
simulation.

* :mod:`.logs` — :class:`ClickLog`, the canonical click log, and :func:`read_click_log`;
* :mod:`.metrics` — CTR, CTR@k, abandonment, reciprocal rank of the first click, clicks per
  query, satisfied clicks, time to first click, skips; aggregated with delta-method intervals;
* :mod:`.ab` — sample-ratio mismatch, A/B tests with the randomisation unit honoured, CUPED,
  several variants; :mod:`.sequential` — always-valid mSPRT p-values and confidence sequences;
  :mod:`.cuped` — CUPED for ratio metrics (delta method); :mod:`.quantiles` — P50/P90 of a metric
  per unit with intervals and differences; :mod:`.aa` — A/A simulation of the false-positive rate;
  :mod:`.power` — power, minimum detectable effect, sample size;
* :mod:`.interleaving` — team-draft, balanced, probabilistic interleaving, team-draft multileaving,
  credit and outcomes; :mod:`.click_models` — PBM, cascade, DCM, UBM, DBN fitted by EM, inferred
  relevance; :mod:`.simulation` — simulated clicks, A/B and interleaving experiments (imported
  lazily).

See docs/online.md and docs/online-models.md.
"""

from __future__ import annotations

from .._lazy import lazy_attributes
from .ab import ABResult, ABTest, SRMResult, ab_test, cuped_adjust, sample_ratio_mismatch
from .logs import ClickLog, read_click_log
from .metrics import (METRICS, ImpressionMetrics, MetricSummary, dask_impression_metrics, impression_metrics,
                      merge_impression_metrics, summarize)
from .power import (effect_size_from_means, effect_size_from_proportions, minimum_detectable_effect, power,
                    sample_size)

_LAZY: dict[str, str] = {
    **{name: "interleaving" for name in ("interleave", "interleaving_credit", "interleaving_outcome",
                                         "multileaving_preferences", "ranked_lists", "sign_test_pvalue")},
    "interleaving_from_log": "interleaving_log",
    "ratio_cuped": "cuped",
    **{name: "aa" for name in ("aa_simulation", "aa_assignments")},
    **{name: "quantiles" for name in ("quantile_ab_test", "bootstrap_quantile_difference")},
    **{name: "sequential" for name in ("sequential_ab_test", "msprt_looks", "SequentialResult", "SequentialTest")},
    **{name: "click_models" for name in ("ClickModel", "fit_click_model", "fit_click_model_dask",
                                         "evaluate_click_model", "inferred_relevance", "write_inferred_qrels")},
    **{name: "simulation" for name in ("simulate_clicks", "simulate_log", "simulate_experiment",
                                       "cranfield_online_demo")},
}

__all__ = sorted(_LAZY) + [
    "ClickLog", "read_click_log",
    "METRICS", "ImpressionMetrics", "MetricSummary", "impression_metrics", "summarize", "merge_impression_metrics",
    "dask_impression_metrics",
    "ABResult", "ABTest", "SRMResult", "ab_test", "sample_ratio_mismatch", "cuped_adjust",
    "power", "sample_size", "minimum_detectable_effect", "effect_size_from_proportions", "effect_size_from_means",
]

__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, globals())
