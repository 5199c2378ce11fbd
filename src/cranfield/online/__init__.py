"""Online evaluation: click logs, online metrics, A/B tests (and, from issue 15's other half,
interleaving, click models and user simulation).

* :mod:`.logs` — :class:`ClickLog`, the canonical click log, and :func:`read_click_log`;
* :mod:`.metrics` — CTR, CTR@k, abandonment, reciprocal rank of the first click, clicks per
  query, satisfied clicks, time to first click, skips; aggregated with delta-method intervals;
* :mod:`.ab` — sample-ratio mismatch, A/B tests with the randomisation unit honoured, CUPED,
  several variants; :mod:`.power` — power, minimum detectable effect, sample size.

See docs/online.md.
"""

from __future__ import annotations

from .ab import ABResult, ABTest, SRMResult, ab_test, cuped_adjust, sample_ratio_mismatch
from .logs import ClickLog, read_click_log
from .metrics import (METRICS, ImpressionMetrics, MetricSummary, dask_impression_metrics, impression_metrics,
                      merge_impression_metrics, summarize)
from .power import (effect_size_from_means, effect_size_from_proportions, minimum_detectable_effect, power,
                    sample_size)

__all__ = [
    "ClickLog", "read_click_log",
    "METRICS", "ImpressionMetrics", "MetricSummary", "impression_metrics", "summarize", "merge_impression_metrics",
    "dask_impression_metrics",
    "ABResult", "ABTest", "SRMResult", "ab_test", "sample_ratio_mismatch", "cuped_adjust",
    "power", "sample_size", "minimum_detectable_effect", "effect_size_from_proportions", "effect_size_from_means",
]
