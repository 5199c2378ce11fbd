"""Equivalence and non-inferiority tests (cranfield.stats.equivalence) against statsmodels' ttost_paired
and DescrStatsW.ttest_mean."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield.errors import UsageError
from cranfield.stats.equivalence import noninferiority_test, tost_paired


def _pairs(seed, n, shift=0.0):
    rng = np.random.default_rng(seed)
    x = rng.random(n)
    return x, np.clip(x - shift + 0.05 * rng.normal(size=n), 0, 1)


@pytest.mark.parametrize("seed, n, shift, margin", [(0, 8, 0.0, 0.05), (1, 30, 0.01, 0.02), (2, 120, -0.02, 0.03),
                                                    (3, 50, 0.0, 0.001)])
def test_tost_equals_statsmodels(seed, n, shift, margin):
    from statsmodels.stats.weightstats import DescrStatsW, ttost_paired

    x, y = _pairs(seed, n, shift)
    ours = tost_paired(x, y, low=-margin, high=margin)
    p, (t1, p1, df1), (t2, p2, df2) = ttost_paired(x, y, -margin, margin)
    # the same formulas; statsmodels centres the data first: measured <= 4e-15 relative
    assert ours.p_value == pytest.approx(p, rel=1e-12)
    assert ours.statistics == pytest.approx((t1, t2), rel=1e-12) and ours.p_values == pytest.approx((p1, p2), rel=1e-12)
    assert ours.df == df1 == df2
    assert ours.rejected == (ours.ci_low > -margin and ours.ci_high < margin)  # TOST = (1 - 2α) CI inside
    ni = noninferiority_test(x, y, margin=margin)
    t, pn, _ = DescrStatsW(x - y).ttest_mean(-margin, alternative="larger")
    assert (ni.statistics[0], ni.p_value) == pytest.approx((t, pn), rel=1e-12)


def test_equivalence_errors():
    with pytest.raises(UsageError):
        tost_paired([1, 2, 3], [1, 2, 3], low=0.1, high=-0.1)
    with pytest.raises(UsageError):
        noninferiority_test([1, 2, 3], [1, 2, 3], margin=-1)
