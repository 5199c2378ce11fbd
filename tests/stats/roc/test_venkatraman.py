"""Venkatraman's unpaired test (cranfield.stats.roc.venkatraman): E == pROC's, permutation p within Monte Carlo bounds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cranfield.stats.roc import roc_test, venkatraman

from ._proc import B_R, EQUAL, UNEQUAL, _labels_first, _p_tolerance, _same_as_r


@pytest.mark.slow  # the pROC oracle: one Rscript call per session (30-40 s)
def test_unpaired_venkatraman_equal_sizes(proc):
    ya, sa, yb, sb = EQUAL
    result = roc_test(ya, sa, sb, y_true_b=yb, method="venkatraman", n_resamples=10_000, random_state=5)
    e, p = proc["equal"]
    _same_as_r(result.statistic, e)  # pROC's sums in pROC's order, in long double as R's sum
    assert abs(result.p_value - p) <= _p_tolerance(p, 10_000, B_R), (result.p_value, p)
    assert (result.method, result.paired, result.n_resamples, result.seed, result.exact) == \
        ("venkatraman", False, 10_000, 5, False)
    assert result.statistic_name == "E"


@pytest.mark.slow  # the pROC oracle: one Rscript call per session (30-40 s)
@pytest.mark.parametrize("name", list(UNEQUAL))
def test_unpaired_venkatraman_statistic(proc, name):
    ya, sa, yb, sb = UNEQUAL[name]
    mixing = (ya.sum() + yb.sum()) / (ya.size + yb.size)
    ours = venkatraman._unpaired_statistic(_labels_first(ya, sa), _labels_first(yb, sb), mixing)[0]
    _same_as_r(ours, proc[name][0])


@pytest.mark.slow  # the pROC oracle: one Rscript call per session (30-40 s)
def test_unpaired_venkatraman_permutations(proc):
    ya, sa, yb, sb = UNEQUAL["u1"]
    result = roc_test(ya, sa, sb, y_true_b=yb, method="venkatraman", n_resamples=10_000, random_state=9)
    _same_as_r(result.statistic, proc["u1"][0])
    p = proc["u1.p"][0]
    assert abs(result.p_value - p) <= _p_tolerance(p, 10_000, B_R), (result.p_value, p)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(4, 30), st.integers(4, 30))
def test_unpaired_statistic_properties(seed, n_a, n_b):
    rng = np.random.default_rng(seed)
    ya, yb = rng.permutation(np.arange(n_a) < n_a // 2), rng.permutation(np.arange(n_b) < (n_b + 1) // 2)
    sa, sb = rng.normal(ya * 1.0, 1.0), rng.normal(yb * 0.5, 1.0)
    mixing = (ya.sum() + yb.sum()) / (n_a + n_b)
    la, lb = _labels_first(ya, sa), _labels_first(yb, sb)
    e = venkatraman._unpaired_statistic(la, lb, mixing)[0]
    assert e >= 0 and e == venkatraman._unpaired_statistic(lb, la, mixing)[0]  # symmetric in the curves
    assert venkatraman._unpaired_statistic(la, la, mixing)[0] == 0  # a curve against itself
    # ranks only: a strictly increasing transform of a curve's scores leaves E unchanged
    moved = roc_test(ya, 3 * sa + 1, sb, y_true_b=yb, method="venkatraman", n_resamples=20, random_state=1)
    plain = roc_test(ya, sa, sb, y_true_b=yb, method="venkatraman", n_resamples=20, random_state=1)
    assert (moved.statistic, moved.p_value) == (plain.statistic, plain.p_value)
