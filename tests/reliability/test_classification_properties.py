"""Properties of EVERY registered classification measure and of the curves (issue 9).

The retrieval registry has its own driver (``tests/measures/test_properties.py``); this one covers
``cranfield.classification.measures.MEASURES``. A measure added to the registry must be listed
in PROPERTIES with the properties that hold for it, or ``test_every_measure_is_covered`` fails.

Properties:
- ``bounds``: the value lies in BOUNDS[name] (and is finite) on any input;
- ``order``: permuting the samples changes nothing;
- ``weights``: integer sample weights equal repeated samples;
- ``ideal``: a perfect system gets the best value;
- ``negated``: AUC(−score) = 1 − AUC;
- ``step_area``: AP = area under the step precision-recall curve, Σ (Rᵢ − Rᵢ₋₁)·Pᵢ;
- ``monotone``: a strictly increasing transform of the scores changes nothing.
"""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cranfield.classification.curves import det_curve, pr_curve, roc_curve
from cranfield.classification.measures import MEASURES, measure_names

INF = None
# name -> (lower, upper) bound of the value on any input (None: unbounded)
BOUNDS: dict[str, tuple[float | None, float | None]] = {
    **{n: (0.0, None) for n in ("tp", "fp", "fn", "tn", "lr_plus", "lr_minus", "dor", "log_loss", "mse", "rmse",
                                "mae")},
    **{n: (0.0, 1.0) for n in ("precision", "recall", "specificity", "fpr", "fnr", "npv", "fdr", "for",
                               "prevalence", "f1", "fbeta", "jaccard", "accuracy", "error_rate",
                               "balanced_accuracy", "roc_auc", "average_precision",
                               "interpolated_average_precision", "eer", "brier_score", "roc_auc_multiclass",
                               "majority_accuracy", "no_skill_ap")},
    **{n: (-1.0, 1.0) for n in ("informedness", "markedness", "mcc", "kappa")},
    **{n: (None, 1.0) for n in ("r2", "explained_variance", "d2_absolute_error", "d2_pinball", "d2_tweedie",
                                "d2_log_loss", "d2_brier")},
    **{n: (0.0, None) for n in ("median_absolute_error", "mape", "msle", "rmsle", "mean_tweedie_deviance",
                                "mean_poisson_deviance", "mean_gamma_deviance", "hinge_loss")},
}
# regression measures defined only for positive targets and predictions (logarithms, deviances)
POSITIVE = {"msle", "rmsle", "mean_poisson_deviance", "mean_gamma_deviance"}

GENERIC = {"bounds", "order", "weights"}
PROPERTIES: dict[str, set[str]] = {name: set(GENERIC) for name in BOUNDS}
for _name in ("precision", "recall", "specificity", "npv", "f1", "fbeta", "jaccard", "accuracy",
              "balanced_accuracy", "informedness", "markedness", "mcc", "kappa", "roc_auc", "average_precision",
              "interpolated_average_precision", "eer", "log_loss", "brier_score", "roc_auc_multiclass", "mse",
              "rmse", "mae", "r2", "error_rate", "fpr", "fnr", "fdr", "for", "explained_variance",
              "median_absolute_error", "mape", "msle", "rmsle", "mean_tweedie_deviance", "mean_poisson_deviance",
              "mean_gamma_deviance", "d2_tweedie", "d2_brier"):
    PROPERTIES[_name].add("ideal")
for _name in ("roc_auc", "average_precision", "interpolated_average_precision", "eer", "no_skill_ap"):
    PROPERTIES[_name].add("monotone")
PROPERTIES["roc_auc"].add("negated")
PROPERTIES["average_precision"].add("step_area")

TOL = 1e-9
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def test_every_measure_is_covered():
    names = set(measure_names())
    missing = sorted(names - set(PROPERTIES))
    assert not missing, f"add these classification measures to PROPERTIES and BOUNDS in {__file__}: {missing}"
    assert not sorted(set(PROPERTIES) - names), "PROPERTIES lists measures that are not registered"
    # every property named is exercised by a test below
    assert set().union(*PROPERTIES.values()) <= {"bounds", "order", "weights", "ideal", "monotone", "negated",
                                                 "step_area"}


@st.composite
def samples(draw, min_size=2, max_size=30):
    """Binary truth with both classes, scores with ties, probabilities, regression targets."""
    n = draw(st.integers(min_size, max_size))
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    y[0], y[1] = 0, 1  # both classes
    score = np.array(draw(st.lists(st.sampled_from([-2.0, -0.5, 0.0, 0.25, 0.5, 1.0, 3.0]), min_size=n,
                                   max_size=n)))
    prob = np.array(draw(st.lists(st.sampled_from([0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0]), min_size=n, max_size=n)))
    pred = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    weights = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    weights[0] = weights[1] = 1  # both classes keep weight
    return y, pred, score, prob, weights


def _inputs(name: str, y, pred, score, prob):
    """(y_true, second argument, extra keyword arguments) for the measure ``name``."""
    info = MEASURES[name]
    params = inspect.signature(info.function).parameters
    kwargs = {"zero_division": 0.0} if "zero_division" in params else {}
    if info.needs == "labels":
        return y, pred, kwargs
    if info.needs == "scores":
        return y, score, kwargs
    if info.needs == "probabilities":
        if name == "roc_auc_multiclass":
            return y, np.column_stack([1 - prob, prob]), kwargs
        if name in ("log_loss", "d2_log_loss"):
            return y, np.clip(prob, 0.05, 0.95), kwargs  # log loss is finite only away from 0 and 1
        return y, prob, kwargs
    if name in POSITIVE:
        return np.abs(score) + 0.1, prob + 0.1, kwargs
    return score, prob, kwargs  # regression: y_true, y_pred numbers


def _call(name: str, y_true, other, kwargs, weights=None):
    value = MEASURES[name].function(y_true, other, sample_weight=weights, **kwargs)
    return float(value)


def _with(prop: str) -> list[str]:
    return sorted(n for n, props in PROPERTIES.items() if prop in props)


@SETTINGS
@given(samples())
def test_bounds(data):
    y, pred, score, prob, weights = data
    for name in _with("bounds"):
        y_true, other, kwargs = _inputs(name, y, pred, score, prob)
        for w in (None, weights):
            value = _call(name, y_true, other, kwargs, w)
            lo, hi = BOUNDS[name]
            assert math.isfinite(value), (name, value)
            assert lo is None or value >= lo - TOL, (name, value)
            assert hi is None or value <= hi + TOL, (name, value)


@SETTINGS
@given(samples(), st.randoms(use_true_random=False))
def test_sample_order_changes_nothing(data, rnd):
    y, pred, score, prob, weights = data
    order = np.array(rnd.sample(range(len(y)), len(y)))
    for name in _with("order"):
        y_true, other, kwargs = _inputs(name, y, pred, score, prob)
        base = _call(name, y_true, other, kwargs, weights)
        permuted = _call(name, y_true[order], other[order], kwargs, weights[order])
        assert permuted == pytest.approx(base, rel=1e-12, abs=TOL), name


@SETTINGS
@given(samples())
def test_integer_weights_equal_repeated_samples(data):
    y, pred, score, prob, weights = data
    for name in _with("weights"):
        y_true, other, kwargs = _inputs(name, y, pred, score, prob)
        weighted = _call(name, y_true, other, kwargs, weights)
        repeated = _call(name, np.repeat(y_true, weights, axis=0), np.repeat(other, weights, axis=0), kwargs)
        assert weighted == pytest.approx(repeated, rel=1e-9, abs=TOL), name


@SETTINGS
@given(samples())
def test_perfect_system_gets_the_best_value(data):
    y, _, _, _, _ = data
    perfect = {"labels": (y, y.copy()), "scores": (y, y * 2.0 - 1.0), "probabilities": (y, y.astype(float)),
               "values": (y.astype(float), y.astype(float))}
    for name in _with("ideal"):
        info = MEASURES[name]
        y_true, other = perfect[info.needs]
        if name == "roc_auc_multiclass":
            other = np.column_stack([1 - other, other])
        if name == "log_loss":
            other = np.where(y == 1, 1 - 1e-12, 1e-12)
        if name in POSITIVE or name == "mape":
            y_true, other = y_true + 1.0, other + 1.0
        kwargs = {"zero_division": 0.0} if "zero_division" in inspect.signature(info.function).parameters else {}
        value = _call(name, y_true, other, kwargs)
        lo, hi = BOUNDS[name]
        best = hi if info.greater_is_better else lo
        assert value == pytest.approx(best, abs=1e-9), (name, value)


@SETTINGS
@given(samples())
def test_increasing_transform_of_scores_changes_nothing(data):
    y, pred, score, prob, weights = data
    for name in _with("monotone"):
        base = _call(name, y, score, {}, weights)
        assert _call(name, y, np.exp(score) * 7 - 3, {}, weights) == pytest.approx(base, abs=TOL), name


@SETTINGS
@given(samples())
def test_auc_of_negated_scores_is_one_minus_auc(data):
    y, _, score, _, weights = data
    roc_auc = MEASURES["roc_auc"].function
    for w in (None, weights):
        assert roc_auc(y, -score, sample_weight=w) == pytest.approx(1 - roc_auc(y, score, sample_weight=w), abs=TOL)


@SETTINGS
@given(samples())
def test_ap_is_area_under_the_step_pr_curve(data):
    y, _, score, _, weights = data
    ap = MEASURES["average_precision"].function
    for w in (None, weights):
        curve = pr_curve(y, score, sample_weight=w)
        area = float(np.sum(np.diff(curve.x) * curve.y[1:]))
        assert ap(y, score, sample_weight=w) == pytest.approx(area, abs=TOL)


@SETTINGS
@given(samples())
def test_curves_are_monotone_and_consistent(data):
    """ROC: from (0, 0) to (1, 1), both rates non-decreasing, trapezoid area = roc_auc (no
    McClish); PR: recall non-decreasing from 0 to 1; DET: FNR non-increasing as FPR grows."""
    y, _, score, _, weights = data
    for w in (None, weights):
        roc = roc_curve(y, score, sample_weight=w)
        assert (roc.x[0], roc.y[0]) == (0.0, 0.0) and roc.x[-1] == pytest.approx(1) and roc.y[-1] == pytest.approx(1)
        assert (np.diff(roc.x) >= -TOL).all() and (np.diff(roc.y) >= -TOL).all()
        assert (np.diff(roc.thresholds) < 0).all()  # decreasing thresholds, +inf first
        area = float(np.sum(np.diff(roc.x) * (roc.y[1:] + roc.y[:-1]) / 2))
        assert MEASURES["roc_auc"].function(y, score, sample_weight=w) == pytest.approx(area, abs=TOL)
        pr = pr_curve(y, score, sample_weight=w)
        assert pr.x[0] == 0 and pr.x[-1] == pytest.approx(1) and (np.diff(pr.x) >= -TOL).all()
        assert ((pr.y >= -TOL) & (pr.y <= 1 + TOL)).all()
        det = det_curve(y, score, sample_weight=w)
        order = np.argsort(det.x, kind="stable")
        assert (np.diff(det.y[order]) <= TOL).all()
