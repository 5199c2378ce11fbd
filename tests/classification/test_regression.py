"""Regression errors against scikit-learn (the oracle, test-only) and bad input."""

import warnings

import numpy as np
import pytest

from cranfield.classification import regression as rg
from cranfield.classification import probabilistic
from cranfield.errors import InputError, UsageError

metrics = pytest.importorskip("sklearn.metrics")

MULTI = ["mean_absolute_percentage_error", "median_absolute_error", "mean_squared_log_error",
         "root_mean_squared_log_error"]


def _cases(count=60, seed=0):
    rng = np.random.default_rng(seed)
    for trial in range(count):
        n, m = int(rng.integers(1, 50)), int(rng.integers(1, 4))
        shape = (n,) if trial % 2 else (n, m)
        y = rng.gamma(2.0, size=shape) * (rng.random(shape) < 0.9)
        pred = y.copy() if trial % 7 == 0 else rng.gamma(2.0, size=shape) + 0.01
        if trial % 11 == 0:
            y = np.round(y)
        w = None
        if trial % 3 == 0:
            w = rng.integers(0, 4, n).astype(float)
            w[0] = max(w[0], 1.0)
        several = len(shape) == 2 and shape[1] > 1
        outputs = ["uniform_average", "raw_values"] + ([rng.random(shape[1])] if several else [])
        yield y, pred, w, outputs


def test_reexports_are_probabilistic_functions():
    assert rg.mean_squared_error is probabilistic.mean_squared_error
    assert rg.r2_score is probabilistic.r2_score


@pytest.mark.parametrize("name", MULTI)
def test_multioutput_functions_equal_to_sklearn(name):
    for y, pred, w, outputs in _cases():
        for multioutput in outputs:
            ours = getattr(rg, name)(y, pred, sample_weight=w, multioutput=multioutput)
            theirs = getattr(metrics, name)(y, pred, sample_weight=w, multioutput=multioutput)
            np.testing.assert_array_equal(ours, theirs)


def test_explained_variance_equal_to_sklearn():
    for y, pred, w, outputs in _cases():
        for multioutput in [*outputs, "variance_weighted"]:
            for force_finite in (True, False):
                with warnings.catch_warnings(), np.errstate(all="ignore"):
                    warnings.simplefilter("ignore")
                    theirs = metrics.explained_variance_score(y, pred, sample_weight=w, multioutput=multioutput,
                                                              force_finite=force_finite)
                    ours = rg.explained_variance_score(y, pred, sample_weight=w, multioutput=multioutput,
                                                       force_finite=force_finite)
                np.testing.assert_array_equal(ours, theirs)  # NaN where both are NaN (force_finite=False)


@pytest.mark.parametrize("power", [-1.5, 0, 1, 1.5, 2, 3])
def test_tweedie_family_equal_to_sklearn(power):
    for y, pred, w, _ in _cases(40, seed=1):
        if y.ndim == 2 and y.shape[1] > 1:
            continue
        pred = np.where(pred > 0, pred, 0.5)
        y = y + 0.1 if power >= 2 else y
        assert rg.mean_tweedie_deviance(y, pred, sample_weight=w, power=power) == \
            metrics.mean_tweedie_deviance(y, pred, sample_weight=w, power=power)
        assert rg.max_error(y, pred) == metrics.max_error(y, pred)
    y, pred = [0.0, 2.0, 3.0], [0.5, 1.5, 3.5]
    assert rg.mean_poisson_deviance(y, pred) == metrics.mean_poisson_deviance(y, pred)
    assert rg.mean_gamma_deviance([1.0, 2.0], [1.5, 1.5]) == metrics.mean_gamma_deviance([1.0, 2.0], [1.5, 1.5])


def test_weighted_median_ties_exactly_half():
    # cumulative weight reaches exactly half at 2.0: scikit-learn's averaged inverted CDF → (2 + 3) / 2
    y, pred, w = [0.0, 0.0, 0.0, 0.0], [1.0, 2.0, 3.0, 4.0], [1.0, 1.0, 0.0, 2.0]
    assert rg.median_absolute_error(y, pred, sample_weight=w) == \
        metrics.median_absolute_error(y, pred, sample_weight=w)


def test_bad_input():
    with pytest.raises(InputError, match="needs values >") as error:
        rg.mean_squared_log_error([1.0, -2.0], [1.0, 1.0])
    assert error.value.field == "y_true"
    with pytest.raises(InputError, match="non-negative") as error:
        rg.mean_poisson_deviance([1.0, -1.0], [1.0, 1.0])
    assert error.value.field == "y_true"
    with pytest.raises(InputError, match="strictly positive") as error:
        rg.mean_gamma_deviance([1.0, 1.0], [1.0, 0.0])
    assert error.value.field == "y_pred"
    with pytest.raises(InputError, match="samples") as error:
        rg.median_absolute_error([1.0, 2.0], [1.0])
    assert error.value.field == "y_pred"
    with pytest.raises(InputError, match="outputs"):
        rg.explained_variance_score(np.ones((3, 2)), np.ones((3, 3)))
    with pytest.raises(InputError, match="finite"):
        rg.mean_absolute_percentage_error([1.0, np.nan], [1.0, 1.0])
    with pytest.raises(InputError, match="no samples"):
        rg.max_error([], [])
    with pytest.raises(InputError, match="one output"):
        rg.max_error(np.ones((3, 2)), np.ones((3, 2)))
    with pytest.raises(UsageError, match="0 < power < 1"):
        rg.mean_tweedie_deviance([1.0], [1.0], power=0.5)
    with pytest.raises(UsageError, match="multioutput"):
        rg.median_absolute_error([1.0, 2.0], [1.0, 2.0], multioutput="variance_weighted")
    with pytest.raises(UsageError, match="several outputs"):
        rg.mean_absolute_percentage_error([1.0, 2.0], [1.0, 2.0], multioutput=[0.5])
    with pytest.raises(InputError, match="non-negative weights"):
        rg.mean_squared_log_error([1.0, 2.0], [1.0, 2.0], sample_weight=[1.0, -1.0])
