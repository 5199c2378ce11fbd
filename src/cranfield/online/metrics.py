r"""Online metrics of a click log, per impression and aggregated per variant, query, session or user.

Every metric is a *ratio metric* (Deng, Knoblich & Lu 2018): each impression :math:`i`
contributes a numerator :math:`y_i` and a denominator :math:`x_i`, and a group's value is
:math:`R = \sum_i y_i / \sum_i x_i` (the mean over impressions when :math:`x_i = 1`):

==========================  ==========================================  ==========================
name                        :math:`y_i`                                 :math:`x_i`
==========================  ==========================================  ==========================
``ctr``                     clicks                                      results shown
``ctr@k``                   clicks at ranks ≤ k                         min(k, results shown)
``abandonment``             1 if no click, else 0                       1
``rr``                      1 / rank of the first click (0: no click)   1
``clicks``                  clicks (clicks per query)                   1
``sat_clicks``              clicks with dwell ≥ ``dwell_threshold``     1
``ttfc``                    time to first click (seconds)               1 if defined, else 0
``skips``                   results not clicked above the last click    1
==========================  ==========================================  ==========================

*Time to first click* (needs ``timestamp``): the earliest click time minus the time the
impression was shown (the timestamp of its rows not clicked); defined for impressions with at
least one click and one row not clicked, others have :math:`x_i = 0` (they do not count).
*Skips above the last click*: with the last click at rank :math:`L` and :math:`c` clicks,
:math:`L - c` (0 without clicks). A dwell that is unknown (NaN) is not a satisfied click.

Intervals (``ci``): ``"delta"`` (default), the delta-method interval of a ratio with the
randomisation units as clusters, :math:`\widehat{\mathrm{Var}}(R) = \sum_u (Y_u - R X_u)^2 /
(\sum_u X_u)^2` with :math:`Y_u, X_u` the sums over unit :math:`u` (Deng et al. 2018; it equals
the cluster-robust variance of a weighted regression on a constant, statsmodels
``WLS(...).fit(cov_type="cluster", cov_kwds={"use_correction": False})``); ``"wilson"``, the
Wilson interval of :func:`cranfield.stats.proportion_ci` with :math:`\sum y` successes out of
:math:`\sum x` (a proportion whose trials are independent: only with ``unit="impression"``).
A group with fewer than two units has no interval (NaN bounds, ``n_units`` says why); a group
where the metric is defined for no impression (:math:`\sum x = 0`, e.g. ``ttfc`` without a
click) has the estimate NaN as well.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from .._params import check_choice, check_fraction
from ..dask._deps import compute, current_client, require_dask
from ..errors import InputError, MeasureError, UsageError
from ..measures.base import Family, families, get_family, parse_measure, register
from ..stats import proportion_ci
from .logs import ClickLog, raise_partition_error, read_click_log_partition

__all__ = ["METRICS", "ImpressionMetrics", "MetricSummary", "impression_metrics", "summarize", "merge_impression_metrics",
           "dask_impression_metrics", "parse_metric"]

# the metrics computed when none are named (impression_metrics, online ab, online metrics)
DEFAULT_METRICS = ("ctr", "ctr@3", "abandonment", "rr", "clicks", "skips")
GROUPS = ("variant", "query", "session", "user", "impression")
KEYS = ("impression", "query", "variant", "user", "session")


def parse_metric(name) -> tuple[str, int | None]:
    """``(family, k)`` of a metric name (``"ctr@5"`` → ``("ctr@k", 5)``), read by the one measure
    parser (:func:`cranfield.measures.base.parse_measure` with ``area="online"``)."""
    if not isinstance(name, str):
        raise UsageError(f"metric: expected a name, found {type(name).__name__} {name!r:.40}")
    try:
        measure = parse_measure(name, area="online")
    except MeasureError as error:  # the registry's text, as the usage error online callers expect
        raise UsageError(str(error)) from None
    return (f"{measure.name}@k", int(measure.cutoff)) if measure.cutoff is not None else (measure.name, None)


@dataclass(frozen=True, eq=False)
class ImpressionMetrics:
    """Per-impression numerators and denominators of metrics: the sufficient statistics every
    aggregate and every A/B analysis is computed from (merge those of partitions with
    :func:`merge_impression_metrics`). Rows are impressions sorted by id; ``codes[key]`` /
    ``ids[key]`` for key in impression, query, variant, user, session (None when absent);
    ``values[metric] = (numerator, denominator)``; ``settings`` the options that made them."""

    codes: dict
    ids: dict
    values: dict
    settings: dict = field(default_factory=dict)

    @property
    def n_impressions(self) -> int:
        return int(self.codes["impression"].shape[0])

    def value(self, metric: str) -> np.ndarray:
        """Per-impression value :math:`y_i / x_i` (NaN where :math:`x_i = 0`: not defined)."""
        num, den = self._pair(metric)
        out = np.full(num.shape, np.nan)
        np.divide(num, den, out=out, where=den != 0)
        return out

    def _pair(self, metric: str):
        if not isinstance(metric, str) or metric not in self.values:
            raise UsageError(f"metric {metric!r} was not computed; computed: {', '.join(self.values)}")
        return self.values[metric]

    def unit(self, unit: str) -> tuple[np.ndarray, np.ndarray]:
        """``(codes per impression, ids)`` of the randomisation unit."""
        if unit not in ("impression", "session", "user"):
            raise UsageError(f"unit: expected impression, session or user, found {unit!r}")
        if self.codes.get(unit) is None:
            raise UsageError(f"unit {unit!r}: the click log has no {unit} column")
        return self.codes[unit], self.ids[unit]


def _segment_first(rows: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Mask of the first of each run of equal ``groups`` values (rows sorted by group)."""
    return np.r_[True, groups[1:] != groups[:-1]] if rows.size else np.zeros(0, dtype=bool)


def impression_metrics(log: ClickLog, *, metrics=DEFAULT_METRICS,
                       dwell_threshold: float = 30.0) -> ImpressionMetrics:
    """Per-impression numerators and denominators (see the module docstring), vectorised over
    the impressions with segment operations on ``log.impression_offsets``.

    >>> from cranfield.online import ClickLog
    >>> log = ClickLog.from_columns(impression=[1, 1, 2, 2], query=["q"] * 4, rank=[1, 2, 1, 2],
    ...                             doc=["a", "b", "a", "b"], clicked=[0, 1, 0, 0])
    >>> m = impression_metrics(log, metrics=["rr", "abandonment"])
    >>> m.value("rr").tolist(), m.value("abandonment").tolist()
    ([0.5, 0.0], [0.0, 1.0])
    """
    if not isinstance(log, ClickLog):
        raise UsageError(f"log: expected a ClickLog (cranfield.online.read_click_log), found {type(log).__name__}")
    if isinstance(metrics, str) or not hasattr(metrics, "__iter__"):
        raise UsageError(f"metrics: expected a list of metric names, found {metrics!r:.60}")
    names = list(dict.fromkeys(metrics))
    if not names:
        raise UsageError("metrics: expected at least one metric name")
    parsed = [parse_metric(m) for m in names]
    if isinstance(dwell_threshold, (bool, np.bool_)) or not isinstance(dwell_threshold, (int, float, np.number)) \
            or not np.isfinite(dwell_threshold) or dwell_threshold < 0:
        raise UsageError(f"dwell_threshold: expected seconds >= 0, found {dwell_threshold!r}")
    n = log.n_impressions
    offsets = log.impression_offsets
    shown = np.diff(offsets).astype(np.float64)
    imp, rank, clicked = log.impression, log.rank, log.clicked
    click_rows = np.flatnonzero(clicked)
    click_imp = imp[click_rows]
    starts = _segment_first(click_rows, click_imp)
    clicks = np.bincount(click_imp, minlength=n).astype(np.float64)
    first_rank = np.zeros(n)
    first_rank[click_imp[starts]] = rank[click_rows[starts]]
    last = np.r_[starts[1:], True] if click_rows.size else starts
    last_rank = np.zeros(n)
    last_rank[click_imp[last]] = rank[click_rows[last]]
    clicks_of = _Clicks(log, n, shown, click_rows, click_imp, starts, clicks, first_rank, last_rank,
                        float(dwell_threshold))
    values: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for name, (family, k) in zip(names, parsed):
        values[name] = get_family(family.removesuffix("@k"), "online").kernel(clicks_of, k, name)
    codes = {"impression": np.arange(n, dtype=np.int64)}
    ids = {"impression": log.impression_ids}
    for key in ("query", "variant", "user", "session"):
        column = getattr(log, key)
        codes[key] = None if column is None else log.per_impression(column)
        ids[key] = getattr(log, f"{key}_ids")
    return ImpressionMetrics(codes, ids, values, {"dwell_threshold": float(dwell_threshold)})


@dataclass(frozen=True)
class _Clicks:
    """What every metric kernel reads: the log and its per-impression click statistics."""

    log: ClickLog
    n: int
    shown: np.ndarray
    click_rows: np.ndarray
    click_imp: np.ndarray
    starts: np.ndarray
    clicks: np.ndarray
    first_rank: np.ndarray
    last_rank: np.ndarray
    dwell_threshold: float

    @property
    def ones(self) -> np.ndarray:
        return np.ones(self.n)


# Kernels: kernel(clicks, k, name) -> (numerator, denominator) per impression.
def _ctr(c: _Clicks, k, name):
    if k is None:
        return c.clicks, c.shown
    top = c.click_rows[c.log.rank[c.click_rows] <= k]
    return np.bincount(c.log.impression[top], minlength=c.n).astype(np.float64), np.minimum(c.shown, float(k))


def _abandonment(c: _Clicks, k, name):
    return (c.clicks == 0).astype(np.float64), c.ones


def _rr(c: _Clicks, k, name):
    rr = np.zeros(c.n)
    np.divide(1.0, c.first_rank, out=rr, where=c.first_rank > 0)
    return rr, c.ones


def _clicks(c: _Clicks, k, name):
    return c.clicks, c.ones


def _skips(c: _Clicks, k, name):
    return np.where(c.clicks > 0, c.last_rank - c.clicks, 0.0), c.ones


def _sat_clicks(c: _Clicks, k, name):
    if c.log.dwell is None:
        raise UsageError(f"metric {name}: the click log has no dwell column")
    sat = c.click_rows[c.log.dwell[c.click_rows] >= c.dwell_threshold]
    return np.bincount(c.log.impression[sat], minlength=c.n).astype(np.float64), c.ones


def _ttfc(c: _Clicks, k, name):
    log = c.log
    if log.timestamp is None:
        raise UsageError("metric ttfc: the click log has no timestamp column")
    ts = log.timestamp
    first_click = np.zeros(c.n)
    if c.click_rows.size:
        first_click[c.click_imp[c.starts]] = np.minimum.reduceat(ts[c.click_rows], np.flatnonzero(c.starts))
    unclicked = np.flatnonzero(~log.clicked)
    shown_at = np.zeros(c.n)
    shown_at[log.impression[unclicked]] = ts[unclicked]  # equal within an impression (checked on reading)
    defined = (c.clicks > 0) & (c.clicks < c.shown)
    return np.where(defined, first_click - shown_at, 0.0), defined.astype(np.float64)


# The online area of the one measure registry (DESIGN 15), in the order of METRICS.
_DENG = "Deng, Knoblich & Lu 2018 (ratio metrics)"
for _family in (
    Family("ctr", _ctr, "Click-through rate: clicks / results shown; ctr@k: clicks at ranks ≤ k / min(k, shown).",
           "Joachims 2002; " + _DENG, cutoff="optional"),
    Family("abandonment", _abandonment, "Abandonment rate: share of impressions without a click.",
           "Li, Huffman & Tokuda 2009 (good abandonment)", greater_is_better=False),
    Family("rr", _rr, "Reciprocal rank of the first click (0 without a click), mean over impressions.",
           "Chapelle et al. 2012 (online metrics)"),
    Family("clicks", _clicks, "Clicks per impression.", "Chapelle et al. 2012", bounds=(0.0, None)),
    Family("sat_clicks", _sat_clicks, "Satisfied clicks per impression: clicks with dwell ≥ dwell_threshold seconds.",
           "Fox et al. 2005 (30 s dwell)", bounds=(0.0, None)),
    Family("ttfc", _ttfc, "Time to first click (seconds) after the impression was shown.",
           "Chapelle et al. 2012", greater_is_better=False, bounds=(0.0, None)),
    Family("skips", _skips, "Results not clicked above the last click, per impression.",
           "Joachims et al. 2005 (skip-above)", greater_is_better=False, bounds=(0.0, None)),
):
    register(replace(_family, area="online", data="click logs"))

# The metric names users type (ctr@k: any k ≥ 1): a view of the registry's online area.
METRICS = tuple(name for f in families("online").values() for name in (f.name, *((f"{f.name}@k",) if f.cutoff != "none" else ())))


# --------------------------------------------------------------------------------- aggregation
@dataclass(frozen=True)
class MetricSummary:
    """Aggregated metrics: one row per (group, metric) with estimate, interval and counts, and the
    settings that produced them (``by``, ``unit``, ``ci``, ``confidence``, ``dwell_threshold``)."""

    rows: list
    settings: dict

    COLUMNS = ("group", "metric", "estimate", "ci_low", "ci_high", "numerator", "denominator", "n_impressions",
               "n_units")


def _check_confidence(confidence) -> float:
    return check_fraction(confidence, "confidence")


def ratio_by_group(num, den, groups, n_groups, units) -> tuple:
    """``(R, var, n_units, Σy, Σx)`` per group: the ratio of sums and its delta-method variance
    with ``units`` as clusters (unit ids may repeat across groups; pairs are clusters)."""
    sum_y = np.bincount(groups, weights=num, minlength=n_groups)
    sum_x = np.bincount(groups, weights=den, minlength=n_groups)
    ratio = np.full(n_groups, np.nan)
    np.divide(sum_y, sum_x, out=ratio, where=sum_x != 0)
    pair = groups.astype(np.int64) * (int(units.max(initial=0)) + 1) + units
    keys, inverse = np.unique(pair, return_inverse=True)
    cluster_group = keys // (int(units.max(initial=0)) + 1)
    y_c = np.bincount(inverse, weights=num, minlength=len(keys))
    x_c = np.bincount(inverse, weights=den, minlength=len(keys))
    safe = np.where(np.isfinite(ratio), ratio, 0.0)
    resid = y_c - safe[cluster_group] * x_c
    n_units = np.bincount(cluster_group[x_c != 0], minlength=n_groups)
    var = np.full(n_groups, np.nan)
    np.divide(np.bincount(cluster_group, weights=resid * resid, minlength=n_groups), sum_x * sum_x, out=var,
              where=(sum_x != 0) & (n_units >= 2))
    return ratio, var, n_units, sum_y, sum_x


def summarize(metrics: ImpressionMetrics, *, by: str = "variant", unit: str = "impression", ci: str = "delta",
              confidence: float = 0.95) -> MetricSummary:
    """Each metric aggregated per group (``by``: variant, query, session, user or impression)
    with a confidence interval (``ci``: delta or wilson; see the module docstring) whose
    clusters are the randomisation ``unit`` (impression, session or user)."""
    from scipy import special

    if not isinstance(metrics, ImpressionMetrics):
        raise UsageError(f"metrics: expected ImpressionMetrics, found {type(metrics).__name__}")
    check_choice(by, "by", GROUPS)
    if ci not in ("delta", "wilson"):
        raise UsageError(f"ci: expected delta or wilson, found {ci!r}")
    if ci == "wilson" and unit != "impression":
        raise UsageError("ci='wilson' treats impressions as independent trials: use unit='impression' or ci='delta'")
    confidence = _check_confidence(confidence)
    units, _ = metrics.unit(unit)
    if metrics.codes.get(by) is None:
        raise UsageError(f"by {by!r}: the click log has no {by} column")
    groups, group_ids = metrics.codes[by], metrics.ids[by]
    n_groups = len(group_ids)
    z = special.ndtri(0.5 + confidence / 2)
    counts = np.bincount(groups, minlength=n_groups)
    rows = []
    for name, (num, den) in metrics.values.items():  # a handful of metrics; groups are vectorised
        ratio, var, n_units, sum_y, sum_x = ratio_by_group(num, den, groups, n_groups, units)
        low, high = np.full(n_groups, np.nan), np.full(n_groups, np.nan)
        if ci == "delta":
            ok = np.isfinite(var)
            half = z * np.sqrt(var[ok])
            low[ok], high[ok] = ratio[ok] - half, ratio[ok] + half
        else:
            if np.any(num > den) or np.any(num < 0):
                raise UsageError(f"ci='wilson' needs a proportion: metric {name} has more successes than trials")
            ok = (sum_x >= 1) & (sum_x == np.round(sum_x))
            if ok.any():
                interval = proportion_ci(sum_y[ok], sum_x[ok], method="wilson", confidence=confidence)
                low[ok], high[ok] = interval.low, interval.high
        for g in np.flatnonzero(counts):
            rows.append([str(group_ids[g]), name, float(ratio[g]), float(low[g]), float(high[g]), float(sum_y[g]),
                         float(sum_x[g]), int(counts[g]), int(n_units[g])])
    settings = {"by": by, "unit": unit, "ci": ci, "confidence": confidence, **metrics.settings}
    return MetricSummary(rows, settings)


# ------------------------------------------------------------------------------- partitions
def merge_impression_metrics(parts) -> ImpressionMetrics:
    """The statistics of a whole log from those of its parts (each impression in one part):
    ids are unified and impressions sorted by id, so every aggregate equals the one computed on
    the whole log in memory (the same numbers in the same order)."""
    parts = list(parts)
    if not parts or not all(isinstance(p, ImpressionMetrics) for p in parts):
        raise UsageError("parts: expected a non-empty list of ImpressionMetrics")
    names = list(parts[0].values)
    if any(list(p.values) != names or p.settings != parts[0].settings for p in parts):
        raise UsageError("parts: computed with different metrics or settings; compute every part alike")
    codes, ids = {}, {}
    for key in KEYS:
        present = [p.codes.get(key) is not None for p in parts]
        if any(present) and not all(present):
            raise InputError(f"some partitions have a {key} column and some do not", field=key)
        if not present[0]:
            codes[key], ids[key] = None, None
            continue
        all_ids = np.concatenate([np.asarray(p.ids[key], dtype=object) for p in parts])
        uniq, inverse = np.unique(all_ids.astype(str), return_inverse=True)
        bases = np.cumsum([0] + [len(p.ids[key]) for p in parts])
        codes[key] = np.concatenate([inverse[bases[i]:bases[i + 1]][p.codes[key]] for i, p in enumerate(parts)])
        ids[key] = uniq.astype(object)
    imp = codes["impression"]
    if len(ids["impression"]) != len(imp):
        counts = np.bincount(imp)
        raise InputError(f"impression {ids['impression'][np.flatnonzero(counts > 1)[0]]!r} is in two partitions; "
                         f"partition the log by impression", field="impression")
    order = np.argsort(imp, kind="stable")
    codes = {k: (None if v is None else v[order]) for k, v in codes.items()}
    values = {name: tuple(np.concatenate([p.values[name][j] for p in parts])[order] for j in (0, 1)) for name in names}
    return ImpressionMetrics(codes, ids, values, dict(parts[0].settings))


def dask_impression_metrics(frame, *, metrics=DEFAULT_METRICS,
                            dwell_threshold: float = 30.0, client=None) -> ImpressionMetrics:
    """:func:`impression_metrics` of a Dask DataFrame in the click-log format, computed per
    partition (each read through the one grammar) and merged exactly
    (:func:`merge_impression_metrics`). Each impression must lie in one partition."""
    dask = require_dask()
    if not hasattr(frame, "to_delayed"):
        raise UsageError(f"frame: expected a dask DataFrame, found {type(frame).__name__}")
    part = dask.delayed(_partition_metrics, pure=True)
    tasks = [part(chunk, list(metrics), dwell_threshold, i) for i, chunk in enumerate(frame.to_delayed())]
    client = current_client(client)
    return merge_impression_metrics(raise_partition_error(compute(tasks, client), frame, client))


def _partition_metrics(chunk, metrics, dwell_threshold, index):
    log = read_click_log_partition(chunk, index)  # None (empty) or the partition's error: reported by the driver
    if not isinstance(log, ClickLog):
        return log
    return impression_metrics(log, metrics=metrics, dwell_threshold=dwell_threshold)
