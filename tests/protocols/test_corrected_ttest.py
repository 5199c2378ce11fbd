"""The Nadeau–Bengio corrected resampled t-test against its formula and a hand computation."""

import doctest

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import stats

import cranfield.protocols.corrected_ttest as module
from cranfield.errors import InputError, UsageError
from cranfield.protocols.corrected_ttest import corrected_interval, corrected_ttest
from cranfield.protocols.cross_validation import cross_validate


def test_hand_computed_example():
    # d = (0.02, 0.04, 0.00, 0.02): mean 0.02, sum of squared deviations 0.0008, s² = 0.0008/3;
    # J = 4, n_train = 90, n_test = 10: factor 1/4 + 10/90 = 13/36.
    # naive t = 0.02 / sqrt(s²/4) = sqrt(6); corrected t = sqrt(6) * sqrt((1/4) / (13/36)) = 3 sqrt(6/13)
    r = corrected_ttest([0.82, 0.84, 0.80, 0.82], [0.80, 0.80, 0.80, 0.80], n_train=90, n_test=10)
    assert r.statistic == pytest.approx(3 * np.sqrt(6 / 13), rel=1e-12)
    assert r.df == 3 and r.mean_difference == pytest.approx(0.02, rel=1e-12)
    assert r.p_value == pytest.approx(2 * stats.t.sf(3 * np.sqrt(6 / 13), 3), rel=1e-12)
    assert r.naive_p_value == pytest.approx(2 * stats.t.sf(np.sqrt(6), 3), rel=1e-12)
    half = stats.t.ppf(0.975, 3) * np.sqrt(13 / 36 * 0.0008 / 3)
    assert (r.low, r.high) == pytest.approx((0.02 - half, 0.02 + half), rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(a=st.lists(st.floats(0, 1), min_size=3, max_size=30), shift=st.floats(-0.2, 0.2),
       n_train=st.integers(10, 1000), n_test=st.integers(1, 500), seed=st.integers(0, 1000))
def test_formula_and_naive_equals_scipy(a, shift, n_train, n_test, seed):
    x = np.array(a)
    y = x - shift + np.random.default_rng(seed).normal(0, 0.05, len(x))
    d = x - y
    r = corrected_ttest(x, y, n_train=n_train, n_test=n_test)
    J = len(d)
    if d.var(ddof=1) <= 1e-20 * max(1.0, d.mean() ** 2):
        return
    t = d.mean() / np.sqrt((1 / J + n_test / n_train) * d.var(ddof=1))
    assert r.statistic == pytest.approx(t, rel=1e-9)
    assert r.p_value == pytest.approx(min(1.0, 2 * stats.t.sf(abs(t), J - 1)), rel=1e-9, abs=1e-300)
    # the uncorrected variant is the ordinary paired t-test
    assert r.naive_p_value == pytest.approx(stats.ttest_rel(x, y).pvalue, rel=1e-7, abs=1e-300)
    assert r.p_value >= r.naive_p_value - 1e-15  # the correction is conservative
    greater = corrected_ttest(x, y, n_train=n_train, n_test=n_test, alternative="greater")
    less = corrected_ttest(x, y, n_train=n_train, n_test=n_test, alternative="less")
    assert greater.p_value + less.p_value == pytest.approx(1.0, abs=1e-12)


def test_zero_variance_policy():
    same = corrected_ttest([0.5, 0.5, 0.5], [0.5, 0.5, 0.5], n_train=9, n_test=1)
    assert same.statistic == 0 and same.p_value == 1
    shifted = corrected_ttest([0.6, 0.6, 0.6], [0.5, 0.5, 0.5], n_train=9, n_test=1)
    assert shifted.statistic == np.inf and shifted.p_value == 0


def test_interval_formula():
    x = np.array([0.7, 0.75, 0.72, 0.8, 0.78])
    ci = corrected_interval(x, n_train=80, n_test=20, confidence=0.9)
    half = stats.t.ppf(0.95, 4) * np.sqrt((1 / 5 + 0.25) * x.var(ddof=1))
    assert (ci.low, ci.high) == pytest.approx((x.mean() - half, x.mean() + half), rel=1e-12)


def test_on_cross_validation_results(small_cancer, logreg):
    from sklearn.naive_bayes import GaussianNB

    X, y = small_cancer
    a = cross_validate(logreg, X, y, metrics=["accuracy", "roc_auc"], cv=5, repeats=2, random_state=3)
    b = cross_validate(GaussianNB(), X, y, metrics=["accuracy", "roc_auc"], cv=5, repeats=2, random_state=3)
    r = corrected_ttest(a, b, metric="auc")
    n_train = np.mean([len(f.train) for f in a.folds])
    n_test = np.mean([len(f.test) for f in a.folds])
    direct = corrected_ttest(a.values["roc_auc"], b.values["roc_auc"], n_train=n_train, n_test=n_test)
    assert r.statistic == direct.statistic and r.metric == "roc_auc" and r.n_folds == 10
    other = cross_validate(GaussianNB(), X, y, metrics=["accuracy"], cv=5, repeats=2, random_state=4)
    with pytest.raises(UsageError, match="different splits"):
        corrected_ttest(a, other, metric="accuracy")
    with pytest.raises(UsageError, match="metric"):
        corrected_ttest(a, b)
    with pytest.raises(UsageError):
        corrected_ttest(a, b, metric="accuracy", n_train=10, n_test=2)


def test_errors():
    with pytest.raises(UsageError):
        corrected_ttest([1, 2], [1, 2])
    with pytest.raises(InputError):
        corrected_ttest([1, 2, 3], [1, 2], n_train=2, n_test=1)
    with pytest.raises(InputError):
        corrected_ttest([1], [1], n_train=2, n_test=1)
    with pytest.raises(UsageError):
        corrected_ttest([1, 2], [2, 1], n_train=2, n_test=1, alternative="bigger")
    with pytest.raises(UsageError):
        corrected_ttest([1, 2], [2, 1], n_train=0, n_test=1)


def test_doctests():
    assert doctest.testmod(module).failed == 0
