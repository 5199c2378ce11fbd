"""stats.quantile_ci: the order-statistic interval equals scipy's quantile_test interval (==); the
bootstrap equals a resample-by-resample loop over the same draws (==)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from cranfield.errors import InputError, UsageError
from cranfield.stats import quantile_ci


@pytest.mark.slow  # scipy's quantile_test over many sizes: about 50 s
@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=2, max_size=400),
       q=st.sampled_from([0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99]),
       confidence=st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_binomial_interval_equals_scipy(values, q, confidence):
    x = np.array(values)
    reference = stats.quantile_test(x, p=q).confidence_interval(confidence)
    if np.isnan(reference.low) or np.isnan(reference.high):  # scipy: too few values, NaN
        with pytest.raises(InputError, match="too few"):
            quantile_ci(x, q, confidence)
        return
    estimate, low, high = quantile_ci(x, q, confidence)
    assert (low, high) == (reference.low, reference.high)
    assert estimate == np.quantile(x, q)


def test_too_few_values_say_how_many_are_needed():
    with pytest.raises(InputError, match="50 values are too few .* at least 59 are needed"):
        quantile_ci(np.arange(50.0), 0.95, 0.9)
    assert quantile_ci(np.arange(59.0), 0.95, 0.9).high == 58.0


def test_bootstrap_equals_the_loop_over_resamples():
    x = np.random.default_rng(3).lognormal(size=101)
    got = quantile_ci(x, 0.9, 0.9, method="bootstrap", n_resamples=500, random_state=7)
    rng = np.random.default_rng(7)  # the same draws as stats._resample.bootstrap_counts
    draws = rng.integers(0, x.size, size=(500, x.size))
    theta = np.quantile(np.sort(x)[np.sort(draws, axis=1)], 0.9, axis=1)
    low, high = np.quantile(np.sort(theta), [0.05, 0.95])
    assert (got.low, got.high) == (low, high) and got.estimate == np.quantile(x, 0.9)
    assert got == quantile_ci(x, 0.9, 0.9, method="bootstrap", n_resamples=500, random_state=7)


@pytest.mark.parametrize("kwargs, message", [
    ({"q": 1.0}, "q: expected a number strictly between 0 and 1"),
    ({"q": float("nan")}, "q: expected a number strictly between 0 and 1"),
    ({"q": 0.5, "confidence": 1.0}, "confidence: expected a number strictly between 0 and 1"),
    ({"q": 0.5, "method": "exact"}, "method: expected one of binomial, bootstrap"),
    ({"q": 0.5, "method": "bootstrap", "n_resamples": 1}, "n_resamples"),
])
def test_errors(kwargs, message):
    with pytest.raises(UsageError, match=message):
        quantile_ci(np.arange(100.0), **kwargs)
    with pytest.raises(InputError):
        quantile_ci([1.0, float("nan"), 2.0], 0.5)
