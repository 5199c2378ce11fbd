"""ROC / PR / DET curves, AUC, AP, EER and the sweep against scikit-learn and hand examples."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

import cranfield
from cranfield.classification.curves import (_counts_unweighted, _counts_weighted, equal_error_rate,
                                             interpolated_average_precision, threshold_sweep)
from cranfield.errors import InputError, UsageError

TOL = 1e-12


@st.composite
def scored(draw, weighted=None, both=True):
    n = draw(st.integers(2, 40))
    y = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    if both:
        y[0], y[1] = True, False
    # few distinct values: many ties
    s = np.array(draw(st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.7, 0.9, 1.0, -3.0]), min_size=n,
                               max_size=n)))
    use_w = draw(st.booleans()) if weighted is None else weighted
    w = None
    if use_w:
        w = np.array(draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.5]), min_size=n, max_size=n)))
        if both:
            w[0] = w[1] = 1.0  # keep one positive and one negative of non-zero weight
    return y, s, w


@settings(max_examples=80, deadline=None)
@given(scored())
def test_roc_curve_and_auc_equal_sklearn(data):
    y, s, w = data
    curve = cranfield.roc_curve(y, s, sample_weight=w)
    fpr, tpr, thr = skm.roc_curve(y, s, sample_weight=w, drop_intermediate=False)
    np.testing.assert_allclose(curve.x, fpr, atol=TOL)
    np.testing.assert_allclose(curve.y, tpr, atol=TOL)
    np.testing.assert_array_equal(curve.thresholds, thr)
    assert cranfield.roc_auc(y, s, sample_weight=w) == pytest.approx(skm.roc_auc_score(y, s, sample_weight=w),
                                                                     abs=TOL)
    for max_fpr in (0.1, 0.5, 0.73):
        assert cranfield.roc_auc(y, s, sample_weight=w, max_fpr=max_fpr) == pytest.approx(
            skm.roc_auc_score(y, s, sample_weight=w, max_fpr=max_fpr), abs=TOL)


@settings(max_examples=80, deadline=None)
@given(scored())
def test_pr_curve_and_ap_equal_sklearn(data):
    y, s, w = data
    curve = cranfield.pr_curve(y, s, sample_weight=w)
    precision, recall, thr = skm.precision_recall_curve(y, s, sample_weight=w, drop_intermediate=False)
    # scikit-learn: increasing thresholds then the (recall 0, precision 1) end point
    np.testing.assert_allclose(curve.x, recall[::-1], atol=TOL)
    np.testing.assert_allclose(curve.y, precision[::-1], atol=TOL)
    np.testing.assert_array_equal(curve.thresholds[1:], thr[::-1])
    assert cranfield.average_precision(y, s, sample_weight=w) == pytest.approx(
        skm.average_precision_score(y, s, sample_weight=w), abs=TOL)


@settings(max_examples=60, deadline=None)
@given(scored())
def test_det_curve_contains_sklearns(data):
    y, s, w = data
    curve = cranfield.det_curve(y, s, sample_weight=w)
    fpr, fnr, thr = skm.det_curve(y, s, sample_weight=w)
    # scikit-learn keeps a contiguous part of the points, in increasing threshold order
    ours = {t: (a, b) for t, a, b in zip(curve.thresholds, curve.x, curve.y)}
    for t, a, b in zip(thr, fpr, fnr):
        assert ours[t] == pytest.approx((a, b), abs=TOL)


@settings(max_examples=60, deadline=None)
@given(scored(weighted=False, both=False))
def test_fast_unweighted_statistic_equals_weighted_one(data):
    y, s, _ = data
    fast = _counts_unweighted(y, s)
    slow = _counts_weighted(y, s, np.ones(len(s)))  # normalised to weights ½ = 2**-1: exact
    assert slow.exponent == 1
    for a, b in ((fast.thresholds, slow.thresholds), (fast.tps, slow.unscaled(slow.tps)),
                 (fast.fps, slow.unscaled(slow.fps))):
        np.testing.assert_array_equal(a, b)


@settings(max_examples=40, deadline=None)
@given(scored(weighted=False))
def test_metamorphic_properties(data):
    y, s, _ = data
    auc = cranfield.roc_auc(y, s)
    # swapping the classes gives 1 − AUC (ties count ½ both ways)
    assert cranfield.roc_auc(~y, s) == pytest.approx(1 - auc, abs=TOL)
    # a strictly increasing transform of the scores changes nothing
    assert cranfield.roc_auc(y, np.exp(s)) == pytest.approx(auc, abs=TOL)
    assert cranfield.average_precision(y, 3 * s + 1) == pytest.approx(cranfield.average_precision(y, s), abs=TOL)
    # the order of the samples changes nothing
    perm = np.random.default_rng(0).permutation(len(y))
    assert cranfield.roc_auc(y[perm], s[perm]) == pytest.approx(auc, abs=TOL)
    # integer weights equal repeated samples
    w = np.arange(len(y)) % 3 + 1
    assert cranfield.roc_auc(y, s, sample_weight=w) == pytest.approx(cranfield.roc_auc(np.repeat(y, w), np.repeat(s, w)),
                                                                     abs=TOL)
    assert cranfield.average_precision(y, s, sample_weight=w) == pytest.approx(
        cranfield.average_precision(np.repeat(y, w), np.repeat(s, w)), abs=TOL)
    # interpolated AP (all points) is at least the step-wise AP; EER lies in [0, 1]
    assert interpolated_average_precision(y, s, n_points=None) >= cranfield.average_precision(y, s) - TOL
    assert 0 <= equal_error_rate(y, s) <= 1


def test_hand_examples():
    # scikit-learn's documented example: y = [0, 0, 1, 1], s = [0.1, 0.4, 0.35, 0.8] → AUC 0.75, AP 0.8333
    y, s = [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]
    assert cranfield.roc_auc(y, s) == 0.75
    assert cranfield.average_precision(y, s) == pytest.approx(0.5 * 1 + 0.5 * 2 / 3)
    # ranking + − + −: precision at the positives 1 and 2/3; 11-point interpolation: levels 0..0.5 → 1,
    # levels 0.6..1.0 → 2/3, so (6·1 + 5·2/3)/11; all-point: 0.5·1 + 0.5·2/3
    y2, s2 = [1, 0, 1, 0], [4, 3, 2, 1]
    assert interpolated_average_precision(y2, s2) == pytest.approx((6 + 5 * 2 / 3) / 11)
    assert interpolated_average_precision(y2, s2, n_points=None) == pytest.approx(0.5 + 1 / 3)
    # EER: points (fpr, fnr) = (0,1), (0,.5), (.5,.5), (.5,0), (1,0): fnr = fpr = 0.5 at threshold 3
    assert equal_error_rate(y2, s2) == 0.5
    # perfectly separated: EER 0; a tie across the classes: the segment crosses at 0.5
    assert equal_error_rate([1, 1, 0, 0], [4, 3, 2, 1]) == 0.0
    assert equal_error_rate([1, 0], [1, 1]) == 0.5
    sweep = threshold_sweep(y2, s2)
    assert list(sweep["threshold"]) == [np.inf, 4, 3, 2, 1]
    assert list(sweep["tp"]) == [0, 1, 1, 2, 2] and list(sweep["tn"]) == [2, 2, 1, 1, 0]
    assert list(sweep["accuracy"]) == [0.5, 0.75, 0.5, 0.75, 0.5]


def test_partial_auc_without_mcclish_is_raw_area():
    y, s = [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]
    # ROC points (0,0) (0,.5) (.5,.5) (.5,1) (1,1): area over FPR ≤ 0.5 is 0.5 · 0.5 = 0.25
    assert cranfield.roc_auc(y, s, max_fpr=0.5, mcclish=False) == pytest.approx(0.25)
    with pytest.raises(UsageError):
        cranfield.roc_auc(y, s, max_fpr=0)


def test_bad_input_and_one_class_policy():
    with pytest.raises(InputError, match="finite"):
        cranfield.roc_auc([0, 1], [0.5, np.nan])
    with pytest.raises(InputError, match="finite"):
        cranfield.average_precision([0, 1], [np.inf, 0.5])
    with pytest.raises(InputError, match="inconsistent"):
        cranfield.roc_auc([0, 1, 1], [0.5, 0.2])
    with pytest.raises(InputError, match="one class"):
        cranfield.roc_auc([1, 1], [0.5, 0.2])
    with pytest.raises(InputError, match="one class"):
        cranfield.roc_curve([0, 0], [0.5, 0.2])
    with pytest.raises(InputError, match="no positive"):
        cranfield.average_precision([0, 0], [0.5, 0.2])
    with pytest.raises(InputError, match="two classes"):
        cranfield.roc_auc([0, 1, 2], [0.5, 0.2, 0.1])
    with pytest.raises(InputError, match="expected a number, found text .a. at index 0"):
        cranfield.roc_auc([0, 1], ["a", "b"])
    with pytest.raises(InputError, match="no samples"):
        cranfield.roc_auc([], [])
    with pytest.raises(InputError, match="one class"):  # all positive weights zero
        cranfield.roc_auc([0, 1], [0.5, 0.2], sample_weight=[1, 0])
    # string labels: pos_label required, then fine
    assert cranfield.roc_auc(["b", "a"], [0.9, 0.1], pos_label="b") == 1.0


def test_curve_type():
    curve = cranfield.roc_curve([0, 1, 1], [0.2, 0.9, 0.4])
    assert isinstance(curve, cranfield.Curve) and curve.kind == "roc" and len(curve) == 4
    assert curve.points.shape == (4, 2) and curve.thresholds[0] == np.inf
    assert "<table>" in curve._repr_html_()
    assert curve.table().columns == ["threshold", "fpr", "tpr"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cranfield.pr_curve([0, 1, 1], [0.2, 0.9, 0.4])
