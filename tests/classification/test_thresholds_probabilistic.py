"""Threshold choice (against a brute-force search over ConfusionMatrix) and probabilistic/numeric
measures (against scikit-learn)."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

import cranfield
from cranfield.classification import ConfusionMatrix, measures
from cranfield.classification.probabilistic import (mean_absolute_error, mean_squared_error, r2_score,
                                                    root_mean_squared_error)
from cranfield.errors import InputError, UsageError

TOL = 1e-12


def brute_force(y, s, w, value):
    """Evaluate ``value(ConfusionMatrix)`` at +inf and at every distinct score; the best, highest first."""
    candidates = [np.inf, *sorted(set(s.tolist()), reverse=True)]
    best = None
    for t in candidates:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cm = ConfusionMatrix.from_labels(y, s >= t, labels=[False, True], sample_weight=w)
            v = value(cm)
        if best is None or v > best[1] + 1e-12:  # equal up to rounding: keep the higher threshold
            best = (t, v)
    return best


CRITERIA = {
    "accuracy": lambda cm: cm.accuracy,
    "f1": lambda cm: cm.rate("f1", zero_division=0.0),
    "youden": lambda cm: cm.rate("tpr", zero_division=0.0) + cm.rate("tnr", zero_division=0.0) - 1,
    "closest": lambda cm: -np.hypot(cm.rate("fpr", zero_division=0.0), 1 - cm.rate("tpr", zero_division=0.0)),
    "cost": lambda cm: -(5 * cm.fn + 1 * cm.fp) / cm.total,
}


@st.composite
def scored(draw):
    n = draw(st.integers(2, 30))
    y = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    y[0], y[1] = True, False
    s = np.array(draw(st.lists(st.sampled_from([0.0, 0.2, 0.4, 0.5, 0.8, 1.0]), min_size=n, max_size=n)))
    w = np.array(draw(st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=n, max_size=n))) if draw(st.booleans()) else None
    return y, s, w


@settings(max_examples=40, deadline=None)
@given(scored(), st.sampled_from(sorted(CRITERIA)))
def test_best_threshold_equals_brute_force(data, criterion):
    y, s, w = data
    point = cranfield.best_threshold(y, s, criterion=criterion, sample_weight=w, cost_fn=5.0, cost_fp=1.0)
    threshold, value = brute_force(y, s, w, CRITERIA[criterion])
    assert point.threshold == threshold
    sign = -1 if criterion in ("closest", "cost") else 1
    assert point.value == pytest.approx(sign * value, abs=TOL)
    cm = point.confusion_matrix()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = ConfusionMatrix.from_labels(y, s >= threshold, labels=[False, True], sample_weight=w)
    np.testing.assert_allclose(cm.matrix, expected.matrix, atol=TOL)


def test_cost_with_prevalence_and_operating_points():
    y = np.array([1, 1, 1, 0, 0, 0, 0, 0])
    s = np.array([0.9, 0.8, 0.3, 0.7, 0.4, 0.2, 0.1, 0.05])
    # with prevalence π = 0.5 and equal costs, expected cost = (FNR + FPR)/2: minimised where Youden's J is max
    a = cranfield.best_threshold(y, s, criterion="cost", prevalence=0.5)
    b = cranfield.best_threshold(y, s, criterion="youden")
    assert a.threshold == b.threshold and a.value == pytest.approx((1 - b.value) / 2)
    # FPR ≤ 0.2 (1 of 5 negatives): lowest such threshold is 0.7 (TP 2, FP 1)
    p = cranfield.operating_point(y, s, fpr=0.2)
    assert (p.threshold, p.tp, p.fp) == (0.7, 2, 1)
    # TPR ≥ 1: the highest threshold with all 3 positives is 0.3 (FP 2)
    p = cranfield.operating_point(y, s, tpr=1.0)
    assert (p.threshold, p.fp) == (0.3, 2)
    # precision ≥ 0.75: thresholds 0.9, 0.8 (precision 1), 0.3 (3/5) ... lowest reaching it is 0.8
    p = cranfield.operating_point(y, s, precision=0.75)
    assert p.threshold == 0.8 and p.precision == 1.0
    with pytest.raises(UsageError):
        cranfield.operating_point(y, s)
    with pytest.raises(UsageError):
        cranfield.best_threshold(y, s, criterion="nonsense")
    with pytest.raises(UsageError):
        cranfield.best_threshold(y, s, criterion="cost", cost_fp=-1)


@st.composite
def probabilities(draw):
    k = draw(st.integers(2, 4))
    n = draw(st.integers(k + 1, 30))
    y = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    y[:k] = np.arange(k)
    raw = np.array(draw(st.lists(st.floats(0.01, 1.0), min_size=n * k, max_size=n * k))).reshape(n, k)
    raw[0, 0] = raw[0, 1]  # a tie
    prob = raw / raw.sum(axis=1, keepdims=True)
    w = np.array(draw(st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=n, max_size=n))) if draw(st.booleans()) else None
    return y, prob, w


@settings(max_examples=40, deadline=None)
@given(probabilities())
def test_probabilistic_equal_sklearn(data):
    y, prob, w = data
    k = prob.shape[1]
    assert cranfield.log_loss(y, prob, sample_weight=w) == pytest.approx(
        skm.log_loss(y, prob, sample_weight=w, labels=list(range(k))), abs=TOL)
    for average in ("macro", "weighted"):
        if k > 2:
            assert cranfield.roc_auc_multiclass(y, prob, average=average, sample_weight=w) == pytest.approx(
                skm.roc_auc_score(y, prob, multi_class="ovr", average=average, sample_weight=w), abs=TOL)
            assert cranfield.roc_auc_multiclass(y, prob, multi_class="ovo", average=average) == pytest.approx(
                skm.roc_auc_score(y, prob, multi_class="ovo", average=average), abs=TOL)
    binary = y == 0
    assert cranfield.brier_score(binary, prob[:, 0], sample_weight=w) == pytest.approx(
        skm.brier_score_loss(binary, prob[:, 0], sample_weight=w), abs=TOL)
    truth, pred = prob[:, 0] * 10, prob[:, 1] * 10 - 2
    for ours, theirs in ((mean_squared_error, skm.mean_squared_error), (mean_absolute_error, skm.mean_absolute_error),
                         (r2_score, skm.r2_score), (root_mean_squared_error, skm.root_mean_squared_error)):
        assert ours(truth, pred, sample_weight=w) == pytest.approx(theirs(truth, pred, sample_weight=w), abs=1e-10)


def test_probabilistic_edge_cases():
    # one-column form for two classes; log(2) for 50/50 guesses
    assert cranfield.log_loss([0, 1], [0.5, 0.5]) == pytest.approx(np.log(2))
    assert cranfield.log_loss(["a", "b", "a"], [0.1, 0.9, 0.2]) == pytest.approx(
        skm.log_loss(["a", "b", "a"], [0.1, 0.9, 0.2]), abs=TOL)
    with pytest.raises(InputError, match=r"\[0, 1\]"):
        cranfield.log_loss([0, 1], [0.5, 1.5])
    with pytest.raises(InputError, match="columns"):
        cranfield.log_loss([0, 1, 2], np.full((3, 2), 0.5))
    with pytest.raises(InputError, match="no sample"):
        cranfield.roc_auc_multiclass([0, 0, 1], np.full((3, 3), 1 / 3), labels=[0, 1, 2])
    assert r2_score([1, 1], [1, 1]) == 1.0 and r2_score([1, 1], [1, 2]) == 0.0  # constant truth policy
    with pytest.raises(InputError, match="finite"):
        mean_squared_error([1, np.nan], [1, 2])


def test_baselines_and_registry():
    y = np.array([1, 0, 0, 0, 1, 0, 0, 0, 0, 0])
    assert measures.majority_accuracy(y) == 0.8
    assert measures.no_skill_average_precision(y) == 0.2
    # the expected AP of random scores tends to the prevalence (large sample)
    rng = np.random.default_rng(0)
    big = rng.random(200_000) < 0.2
    assert cranfield.average_precision(big, rng.random(big.size)) == pytest.approx(0.2, abs=0.01)
    for name, info in measures.MEASURES.items():
        assert measures.get_measure(name) is info
        assert info.needs in ("labels", "scores", "probabilities", "values")
    assert measures.get_measure("Youden-J").name == "informedness"
    assert measures.get_measure("AUC").function is cranfield.roc_auc
    # every registered measure works with the common signature f(y_true, y_other, *, sample_weight=None)
    y_true = np.array([0, 1, 1, 0, 1, 0])
    y_other = {"labels": np.array([0, 1, 0, 0, 1, 1]), "scores": np.array([0.1, 0.8, 0.4, 0.3, 0.9, 0.5]),
               "probabilities": np.array([0.1, 0.8, 0.4, 0.3, 0.9, 0.5]), "values": np.arange(1.0, 7.0)}
    positive = np.array([0.5, 1.0, 2.0, 0.7, 1.5, 0.2])  # regression truth inside every deviance's domain
    for name in measures.measure_names():
        info = measures.get_measure(name)
        if name == "roc_auc_multiclass":
            continue  # needs a matrix of class probabilities; tested above
        kwargs = {"beta": 2.0} if name == "fbeta" else {}
        truth = positive if info.needs == "values" else y_true
        value = info.function(truth, y_other[info.needs], sample_weight=np.ones(6), **kwargs)
        assert np.isfinite(value), name


# registry name -> scikit-learn's function (the registry's own entries, checked against the reference)
SKLEARN_NAMES = {
    "mse": "mean_squared_error", "rmse": "root_mean_squared_error", "mae": "mean_absolute_error", "r2": "r2_score",
    "explained_variance": "explained_variance_score", "median_absolute_error": "median_absolute_error",
    "mape": "mean_absolute_percentage_error", "msle": "mean_squared_log_error",
    "rmsle": "root_mean_squared_log_error", "mean_tweedie_deviance": "mean_tweedie_deviance",
    "mean_poisson_deviance": "mean_poisson_deviance", "mean_gamma_deviance": "mean_gamma_deviance",
    "d2_absolute_error": "d2_absolute_error_score", "d2_pinball": "d2_pinball_score", "d2_tweedie": "d2_tweedie_score",
    "d2_log_loss": "d2_log_loss_score", "d2_brier": "d2_brier_score", "hinge_loss": "hinge_loss",
    "log_loss": "log_loss", "brier_score": "brier_score_loss",
}


def test_registry_regression_and_d2_equal_sklearn():
    """Every registered regression, D² and loss measure against scikit-learn on random data,
    weighted and not: == where the formula is evaluated in scikit-learn's order; 2 ulps where
    numpy's pairwise summation orders a mean differently (noted per case below)."""
    import sklearn.metrics as skm

    rng = np.random.default_rng(3)
    truth, pred, w = rng.random(50) + 0.1, rng.random(50) + 0.1, rng.random(50)
    labels, prob = rng.integers(0, 2, 50), rng.random(50)
    checked = []
    for name, info in measures.MEASURES.items():
        if name != info.name or name not in SKLEARN_NAMES:
            continue
        reference = getattr(skm, SKLEARN_NAMES[name])
        y, other = (truth, pred) if info.needs == "values" else (labels, prob if info.needs == "probabilities" else
                                                                   prob - 0.5)
        for weights in (None, w):
            ours = info.function(y, other, sample_weight=weights)
            theirs = reference(y, other, sample_weight=weights)
            assert ours == pytest.approx(theirs, rel=4.5e-16, abs=0), name  # ≤ 2 ulps (summation order)
        checked.append(name)
    assert set(checked) == set(SKLEARN_NAMES), set(SKLEARN_NAMES) - set(checked)


def test_rounding_ties_keep_the_highest_threshold():
    # found by hypothesis: thresholds 0.4 and 0.2 are both at distance √(5/9) from (0, 1), but the two
    # float computations differ in the last bit; the highest threshold must win
    y = np.array([True, False, False, False, False, True, True, False, False])
    s = np.array([0.0, 0.0, 0.0, 0.2, 0.2, 0.2, 0.4, 0.4, 0.4])
    point = cranfield.best_threshold(y, s, criterion="closest")
    assert point.threshold == 0.4 and point.value == pytest.approx(np.sqrt(5 / 9))
