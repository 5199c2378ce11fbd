"""The analyses of ``cranfield online metrics | ab | aa``, from the path (or frame) of a click log:
read it through the one grammar, compute the per-impression metrics, run the analysis; the
commands only render the result."""

from __future__ import annotations

from ..io.clicklog import read_covariate_table
from .aa import AAResult, aa_simulation
from .ab import ABResult, ab_test
from .logs import ClickLog, read_click_log
from .metrics import DEFAULT_METRICS, ImpressionMetrics, MetricSummary, impression_metrics, summarize
from .quantiles import QuantileResult, quantile_ab_test
from .sequential import SequentialResult, impression_times, sequential_ab_test

__all__ = ["log_metrics", "metrics_report", "ab_report", "aa_report"]


def log_metrics(log, *, metrics=None, dwell_threshold: float = 30.0,
                expected_split: dict | None = None) -> tuple[ClickLog, ImpressionMetrics]:
    """The click log at ``log`` and its per-impression ``metrics`` (default:
    :data:`~cranfield.online.metrics.DEFAULT_METRICS`); with ``expected_split`` (variant → share)
    a variant missing from the log, or one not planned, is an error."""
    names = list(metrics or ()) or list(DEFAULT_METRICS)
    click_log = read_click_log(log, expected_variants=None if expected_split is None else list(expected_split))
    return click_log, impression_metrics(click_log, metrics=names, dwell_threshold=dwell_threshold)


def metrics_report(log, *, by: str = "variant", unit: str = "impression", ci: str = "delta",
                   confidence: float = 0.95, expected_split: dict | None = None, metrics=None,
                   dwell_threshold: float = 30.0) -> MetricSummary:
    """Each metric of the click log per ``by`` group with intervals (:func:`summarize`)."""
    _, stats = log_metrics(log, metrics=metrics, dwell_threshold=dwell_threshold, expected_split=expected_split)
    return summarize(stats, by=by, unit=unit, ci=ci, confidence=confidence)


def ab_report(log, *, unit: str = "impression", control=None, test: str = "delta", alpha: float = 0.05,
              correction: str = "holm", expected_split: dict | None = None, srm_alpha: float = 0.001,
              covariate=None, cuped: str = "welch", n_resamples: int = 2000, random_state=0,
              sequential: bool = False, tau: float | None = None, min_units: int = 30, quantiles=(),
              metrics=None, dwell_threshold: float = 30.0) -> ABResult | SequentialResult | QuantileResult:
    """The A/B analysis of the click log: the fixed-horizon test (:func:`ab_test`, with the
    ``covariate`` table at that path for CUPED), or with ``sequential`` the mSPRT
    (:func:`sequential_ab_test`, looks in the log's time order), or with ``quantiles`` the
    comparison of the metric's quantiles per unit (:func:`quantile_ab_test`, confidence
    ``1 - alpha``)."""
    click_log, stats = log_metrics(log, metrics=metrics, dwell_threshold=dwell_threshold,
                                   expected_split=expected_split)
    if sequential:
        return sequential_ab_test(stats, unit=unit, control=control, tau=tau, alpha=alpha, correction=correction,
                                  time=impression_times(click_log), min_units=min_units)
    if quantiles:
        return quantile_ab_test(stats, quantiles=list(quantiles), unit=unit, control=control, confidence=1 - alpha,
                                n_resamples=n_resamples, random_state=random_state)
    cov = None if covariate is None else read_covariate_table(covariate, unit=unit)
    return ab_test(stats, unit=unit, control=control, test=test, alpha=alpha, correction=correction,
                   expected_split=expected_split, srm_alpha=srm_alpha, covariate=cov, n_resamples=n_resamples,
                   random_state=random_state, cuped=cuped)


def aa_report(log, *, unit: str = "impression", tests=(), n_simulations: int = 1000, alpha: float = 0.05,
              random_state=0, metrics=None, dwell_threshold: float = 30.0) -> AAResult:
    """The A/A simulation of the click log's units (:func:`aa_simulation`; ``tests`` default:
    delta and welch)."""
    _, stats = log_metrics(log, metrics=metrics, dwell_threshold=dwell_threshold)
    return aa_simulation(stats, unit=unit, tests=list(tests) or ["delta", "welch"], n_simulations=n_simulations,
                         alpha=alpha, random_state=random_state)
