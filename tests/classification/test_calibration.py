"""Calibration: scikit-learn's calibration_curve (==), statsmodels' logistic fits, Murphy's
identity, hand-computed ECE, properties and bad input."""

import numpy as np
import pytest

from cranfield.classification import calibration as cal
from cranfield.errors import InputError, UsageError

sk_calibration = pytest.importorskip("sklearn.calibration")
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def _binary_cases(count=40, seed=0):
    rng = np.random.default_rng(seed)
    for trial in range(count):
        n = int(rng.integers(2, 200))
        y = rng.integers(0, 2, n)
        p = rng.random(n)
        if trial % 3 == 0:
            p = np.round(p, 1)  # values on the uniform edges (0.1, 0.2...) and ties
        if trial % 5 == 0:
            p = rng.beta(0.3, 0.3, n)
        yield y, p


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_calibration_curve_equal_to_sklearn(strategy):
    for y, p in _binary_cases():
        for n_bins in (1, 2, 5, 10, 17):
            ours = cal.calibration_curve(y, p, n_bins=n_bins, strategy=strategy)
            theirs = sk_calibration.calibration_curve(y, p, n_bins=n_bins, strategy=strategy)
            assert ours[0].shape == theirs[0].shape
            assert (ours[0] == theirs[0]).all() and (ours[1] == theirs[1]).all()
    labels = np.array(["no", "yes", "yes", "no", "yes"])
    p = [0.1, 0.8, 0.6, 0.3, 0.9]
    ours = cal.calibration_curve(labels, p, pos_label="yes", n_bins=3)
    theirs = sk_calibration.calibration_curve(labels, p, pos_label="yes", n_bins=3)
    assert (ours[0] == theirs[0]).all() and (ours[1] == theirs[1]).all()


def test_ece_mce_from_sklearn_bins():
    for y, p in _binary_cases(20, seed=1):
        prob_true, prob_pred = sk_calibration.calibration_curve(y, p, n_bins=10)
        edges = np.linspace(0, 1, 11)
        counts = np.bincount(np.searchsorted(edges[1:-1], p), minlength=10)
        counts = counts[counts > 0]
        gaps = np.abs(prob_true - prob_pred)
        assert cal.expected_calibration_error(y, p, n_bins=10) == pytest.approx(
            np.dot(counts, gaps) / len(p), rel=1e-12)  # Σ n_b |gap_b| / n, the same terms summed in another order
        assert cal.maximum_calibration_error(y, p, n_bins=10) == gaps.max()


def test_bin_edge_rule():
    # p on an inner edge goes to the lower bin; 0 goes to the first bin, 1 to the last
    d = cal.reliability_diagram([0, 1, 0, 1], [0.0, 0.5, 0.5000001, 1.0], n_bins=2)
    assert d.bin.tolist() == [0, 1]
    assert d.weight.tolist() == [2.0, 2.0]


def test_adaptive_ece_by_hand():
    p = np.array([0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9, 0.95])
    y = np.array([0, 0, 1, 0, 1, 1, 0, 1, 1])
    # 3 equal-mass bins of 3 samples: |1/3 − 0.2|, |2/3 − 17/30|, |2/3 − 2.65/3|
    expected = (abs(1 / 3 - 0.2) + abs(2 / 3 - 1.7 / 3) + abs(2 / 3 - 2.65 / 3)) / 3
    assert cal.adaptive_calibration_error(y, p, n_bins=3) == pytest.approx(expected, abs=1e-15)


def test_multiclass_top_label_and_classwise():
    rng = np.random.default_rng(2)
    prob = rng.dirichlet([1, 1, 1], 300)
    y = rng.integers(0, 3, 300)
    top = prob.argmax(axis=1)
    assert cal.expected_calibration_error(y, prob, n_bins=10) == cal.expected_calibration_error(
        (top == y).astype(int), prob.max(axis=1), n_bins=10)
    per_class = [cal.expected_calibration_error((y == j).astype(int), prob[:, j], n_bins=10) for j in range(3)]
    assert cal.expected_calibration_error(y, prob, n_bins=10, multiclass="classwise") == pytest.approx(
        np.mean(per_class), abs=1e-16)
    names = np.array(["a", "b", "c"])[y]
    assert cal.expected_calibration_error(names, prob) == cal.expected_calibration_error(y, prob)


def test_brier_decomposition_identities():
    from sklearn.metrics import brier_score_loss

    for y, p in _binary_cases(30, seed=3):
        exact = cal.brier_decomposition(y, p, strategy="unique")
        assert exact.within_bin_variance == 0.0 and exact.within_bin_covariance == 0.0
        # Murphy (1973): BS = REL − RES + UNC with one bin per distinct forecast; three sums of
        # n terms each, so a few ulps of rounding
        assert exact.brier == pytest.approx(exact.reliability - exact.resolution + exact.uncertainty, abs=1e-14)
        assert exact.brier == pytest.approx(brier_score_loss(y, p), abs=1e-15)
        binned = cal.brier_decomposition(y, p, n_bins=5)
        assert binned.brier == pytest.approx(binned.reliability - binned.resolution + binned.uncertainty
                                             + binned.within_bin_variance - 2 * binned.within_bin_covariance, abs=1e-14)


def test_calibration_slope_equal_to_statsmodels():
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(4)
    for trial in range(4):
        n = 300
        z = rng.normal(size=n) * 1.5
        p = 1 / (1 + np.exp(-z))
        y = (rng.random(n) < 1 / (1 + np.exp(-(0.4 * trial - 0.2 + (0.5 + 0.3 * trial) * z)))).astype(int)
        w = rng.integers(1, 4, n).astype(float) if trial % 2 else None
        fit = cal.calibration_slope(y, p, sample_weight=w)
        logit = np.log(p) - np.log1p(-p)
        X = sm.add_constant(logit)
        ref = sm.GLM(y, X, family=sm.families.Binomial(), freq_weights=w).fit(tol=1e-14)
        large = sm.GLM(y, np.ones((n, 1)), family=sm.families.Binomial(), offset=logit, freq_weights=w).fit(tol=1e-14)
        # both iterate to the same optimum (Newton here, IRLS there): coefficients agree to a few
        # ulps (measured ≤ 2.4e-15 relative), the tolerance leaves room for the last iteration
        assert fit.intercept == pytest.approx(ref.params[0], rel=1e-12, abs=1e-14)
        assert fit.slope == pytest.approx(ref.params[1], rel=1e-12)
        assert fit.intercept_in_the_large == pytest.approx(large.params[0], rel=1e-12, abs=1e-14)
        # GLM's standard errors come from the weights of its last IRLS iterate, one step before the
        # optimum (measured 4e-9 relative off); ours and Logit's are at the optimum (below)
        assert fit.intercept_se == pytest.approx(ref.bse[0], rel=1e-7)
        assert fit.slope_se == pytest.approx(ref.bse[1], rel=1e-7)
        assert fit.intercept_in_the_large_se == pytest.approx(large.bse[0], rel=1e-7)
        if w is None:
            logit_ref = sm.Logit(y, X).fit(disp=0, method="newton", tol=1e-14, maxiter=100)
            # Newton to the optimum on both sides: measured ≤ 1.6e-15 relative
            assert fit.slope == pytest.approx(logit_ref.params[1], rel=1e-12)
            assert fit.slope_se == pytest.approx(logit_ref.bse[1], rel=1e-12)
            assert fit.intercept_se == pytest.approx(logit_ref.bse[0], rel=1e-12)


def test_bootstrap_is_seeded_and_covers():
    rng = np.random.default_rng(5)
    p = rng.random(200)
    y = (rng.random(200) < p).astype(int)
    a = cal.calibration_bootstrap(y, p, n_resamples=60, random_state=11, n_bins=5)
    b = cal.calibration_bootstrap(y, p, n_resamples=60, random_state=11, n_bins=5)
    assert a == b
    assert a.estimate == cal.expected_calibration_error(y, p, n_bins=5)
    assert a.low <= a.high and a.settings == {"n_bins": 5}
    c = cal.calibration_bootstrap(y, p, statistic="slope", n_resamples=30, random_state=1)
    assert c.low < c.estimate < c.high


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 9), st.integers(1, 6)), min_size=1, max_size=10))
def test_ece_zero_for_perfectly_calibrated_binned_data(groups):
    # forecast k/10 issued to 10·m samples of which k·m are positive: each bin's frequency is its forecast
    p, y = [], []
    for k, m in groups:
        p += [k / 10] * (10 * m)
        y += [1] * (k * m) + [0] * ((10 - k) * m)
    # a bin's mean forecast is a sum of its n equal forecasts divided by n: exact up to n/2 ulps,
    # n ≤ 600 here, so |ECE| ≤ 600 · 2⁻⁵³ ≈ 7e-14
    assert cal.expected_calibration_error(y, p, n_bins=10) == pytest.approx(0.0, abs=1e-13)
    d = cal.brier_decomposition(y, p, strategy="unique")
    assert d.reliability == pytest.approx(0.0, abs=1e-15)
    assert d.brier == pytest.approx(d.uncertainty - d.resolution, abs=1e-14)


def test_bad_input():
    with pytest.raises(InputError, match=r"\[0, 1\]") as error:
        cal.expected_calibration_error([0, 1], [0.2, 1.2])
    assert error.value.field == "y_prob"
    with pytest.raises(InputError, match="inconsistent|samples"):
        cal.reliability_diagram([0, 1, 1], [0.2, 0.3])
    with pytest.raises(InputError, match="two classes"):
        cal.brier_decomposition([0, 1, 2], [0.1, 0.2, 0.3])
    with pytest.raises(InputError, match="columns") as error:
        cal.expected_calibration_error([0, 1, 2], np.full((3, 2), 0.5))
    assert error.value.field == "y_prob"
    with pytest.raises(InputError, match="clip") as error:
        cal.calibration_slope([0, 1, 1], [0.0, 0.5, 0.7])
    assert error.value.field == "y_prob"
    assert cal.calibration_slope([0, 1, 0, 1], [0.0, 0.6, 0.7, 0.5], clip=1e-6).settings["clip"] == 1e-6
    with pytest.raises(InputError, match="separates") as error:
        cal.calibration_slope([0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9])
    with pytest.raises(UsageError, match="strategy"):
        cal.reliability_diagram([0, 1], [0.2, 0.8], strategy="kmeans")
    with pytest.raises(UsageError, match="n_bins"):
        cal.expected_calibration_error([0, 1], [0.2, 0.8], n_bins=0)
    with pytest.raises(UsageError, match="statistic"):
        cal.calibration_bootstrap([0, 1], [0.2, 0.8], statistic="auc")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.booleans(), st.integers(1, 3)), min_size=1, max_size=60),
       st.integers(1, 12), st.sampled_from(["uniform", "quantile", "unique"]))
def test_brier_decomposition_identity_holds_for_any_bins(rows, n_bins, strategy):
    p = [r[0] for r in rows]
    y = [int(r[1]) for r in rows]
    w = [float(r[2]) for r in rows]
    d = cal.brier_decomposition(y, p, n_bins=n_bins, strategy=strategy, sample_weight=w)
    # Stephenson et al. (2008): exact in real arithmetic; here five weighted sums rounded separately
    assert d.brier == pytest.approx(d.reliability - d.resolution + d.uncertainty + d.within_bin_variance
                                    - 2 * d.within_bin_covariance, abs=1e-14)
    assert d.reliability >= 0 and d.resolution >= 0 and 0 <= d.uncertainty <= 0.25


def test_reliability_plot_draws_each_system():
    pytest.importorskip("matplotlib")
    from cranfield.plots import reliability_plot

    rng = np.random.default_rng(6)
    p = rng.random(300)
    y = (rng.random(300) < p).astype(int)
    figure = reliability_plot(y, {"raw": p, "squared": p ** 2}, n_bins=8, strategy="quantile")
    top, bottom = figure.axes
    labels = [line.get_label() for line in top.lines]
    ece = cal.reliability_diagram(y, p ** 2, n_bins=8, strategy="quantile").ece
    assert labels[0] == "perfect calibration" and labels[2] == f"squared (ECE = {ece:.3f})"
    d = cal.reliability_diagram(y, p, n_bins=8, strategy="quantile")
    assert list(top.lines[1].get_ydata()) == list(d.fraction_positive)
    prob = rng.dirichlet([1, 1, 1], 300)
    assert len(reliability_plot(rng.integers(0, 3, 300), prob).axes) == 2  # top-label
