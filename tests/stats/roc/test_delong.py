"""DeLong's covariance, interval and paired test (cranfield.stats.roc.delong) against an O(n^2) oracle written from the paper."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from cranfield.errors import InputError
from cranfield.stats.roc import auc_ci, delong_covariance, delong_test


def slow_delong(y_true, scores):
    """O(n^2) DeLong oracle straight from DeLong, DeLong & Clarke-Pearson (1988), eqs. (2)-(5).

    psi(x, y) = 1 if x > y, 1/2 if x == y, 0 otherwise, for every positive x and negative y.
    Returns the AUCs and the covariance matrix S = S10 / m + S01 / n.
    """
    y = np.asarray(y_true).astype(bool)
    scores = np.atleast_2d(np.asarray(scores, dtype=float))
    pos, neg = scores[:, y], scores[:, ~y]
    psi = (pos[:, :, None] > neg[:, None, :]) + 0.5 * (pos[:, :, None] == neg[:, None, :])  # (k, m, n)
    v10 = psi.mean(axis=2)  # structural components of the positives
    v01 = psi.mean(axis=1)  # ... of the negatives
    auc = v10.mean(axis=1)
    m, n = pos.shape[1], neg.shape[1]
    s10 = (v10 - auc[:, None]) @ (v10 - auc[:, None]).T / (m - 1)
    s01 = (v01 - auc[:, None]) @ (v01 - auc[:, None]).T / (n - 1)
    return auc, s10 / m + s01 / n


@pytest.mark.parametrize("ties", [False, True])
def test_delong_equals_slow_oracle_and_mann_whitney(rng, ties):
    n = 150
    y = rng.integers(0, 2, n)
    scores = np.stack([rng.normal(size=n) + y, rng.normal(size=n) + 0.5 * y, rng.normal(size=n)])
    if ties:
        scores = np.round(scores * 2) / 2  # many tied scores
    aucs, cov = delong_covariance(y, scores)
    ref_aucs, ref_cov = slow_delong(y, scores)
    np.testing.assert_allclose(aucs, ref_aucs, rtol=0, atol=1e-12)
    np.testing.assert_allclose(cov, ref_cov, rtol=0, atol=1e-12)
    # AUC = U / (n1 n0), the Mann-Whitney identity (ties count 1/2)
    for k in range(3):
        u = stats.mannwhitneyu(scores[k][y == 1], scores[k][y == 0]).statistic
        assert aucs[k] == pytest.approx(u / ((y == 1).sum() * (y == 0).sum()), abs=1e-12)


def test_auc_ci_is_estimate_plus_minus_z_root_var(rng):
    y = rng.integers(0, 2, 80)
    s = rng.normal(size=80) + y
    auc, var = slow_delong(y, s)
    ci = auc_ci(y, s, confidence=0.9)
    half = stats.norm.ppf(0.95) * np.sqrt(var[0, 0])
    assert (ci.estimate, ci.low, ci.high) == pytest.approx((auc[0], auc[0] - half, auc[0] + half), abs=1e-12)


def test_auc_ci_clipped_to_unit_interval():
    ci = auc_ci([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    assert ci.estimate == 0.75 and ci.high == 1.0  # 3 of the 4 (pos, neg) pairs ordered right


def test_auc_errors():
    with pytest.raises(InputError, match="both positive and negative"):
        auc_ci([1, 1, 1], [0.1, 0.2, 0.3])
    with pytest.raises(InputError, match="binary"):
        auc_ci([0, 2, 1], [0.1, 0.2, 0.3])
    with pytest.raises(InputError, match="shape"):
        auc_ci([0, 1, 1], [0.1, 0.2])


def test_delong_test_equals_slow_oracle(rng):
    n = 200
    y = rng.integers(0, 2, n)
    a = rng.normal(size=n) + 1.0 * y
    b = 0.6 * a + rng.normal(size=n) * 0.8 + 0.2 * y  # correlated with a
    r = delong_test(y, a, b, confidence=0.95)
    auc, cov = slow_delong(y, np.stack([a, b]))
    se = np.sqrt(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1])
    z = (auc[0] - auc[1]) / se
    assert (r.auc_a, r.auc_b) == pytest.approx(tuple(auc), abs=1e-12)
    assert r.statistic == pytest.approx(z, rel=1e-10)
    assert r.p_value == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-10)
    assert (r.ci_low, r.ci_high) == pytest.approx((r.diff - 1.959963984540054 * se, r.diff + 1.959963984540054 * se), abs=1e-12)
    swapped = delong_test(y, b, a)
    assert swapped.diff == pytest.approx(-r.diff) and swapped.p_value == pytest.approx(r.p_value)


def test_delong_test_identical_scores():
    r = delong_test([0, 1, 0, 1], [0.1, 0.9, 0.3, 0.4], [0.1, 0.9, 0.3, 0.4])
    assert (r.diff, r.statistic, r.p_value) == (0.0, 0.0, 1.0)


@pytest.mark.parametrize("module, name", [("intervals", "auc_ci"), ("intervals", "delong_covariance"),
                                          ("paired", "delong_test"), ("paired", "AUCComparison")])
def test_the_old_homes_still_give_the_names_with_a_deprecation_warning(module, name):
    import importlib

    import cranfield.stats.roc as roc

    old = importlib.import_module(f"cranfield.stats.{module}")
    with pytest.warns(DeprecationWarning, match=f"cranfield.stats.{module}.{name} moved to cranfield.stats.roc"):
        assert getattr(old, name) is getattr(roc, name)
