"""The peers' variants (issue 16, item 2), each a named option: drop_intermediate, binned curves,
torchmetrics' EER and fixed-precision/recall points, generic auc, weighted kappa, adjusted balanced
accuracy, F-β with β = ∞, log_loss(normalize=False), Brier (multiclass, scale_by_half), hinge
loss, D² scores, labels= subsets. Oracles: scikit-learn on the same inputs, the hand-checked
values of scikit-learn's tests (cited), and values computed by hand from torchmetrics' definitions
(torchmetrics is not installed; its docstring examples are reproduced)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn import metrics as skm

import cranfield.classification as cc
from cranfield.classification.curves import BinnedCounts
from cranfield.errors import InputError, UsageError


def _binary(seed: int, n: int = 300, decimals: int = 1):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.4
    return y, rng.random(n).round(decimals), rng.uniform(0.1, 2.0, n)


# ------------------------------------------------------------------------------ curves
@pytest.mark.parametrize("weighted", [False, True])
def test_drop_intermediate_equals_sklearn(weighted):
    y, s, w = _binary(0)
    w = w if weighted else None
    fpr, tpr, thresholds = skm.roc_curve(y, s, sample_weight=w, drop_intermediate=True)
    curve = cc.roc_curve(y, s, sample_weight=w, drop_intermediate=True)
    np.testing.assert_array_equal(curve.thresholds, thresholds)
    np.testing.assert_array_equal(curve.x, fpr)
    np.testing.assert_array_equal(curve.y, tpr)
    precision, recall, thresholds = skm.precision_recall_curve(y, s, sample_weight=w, drop_intermediate=True)
    curve = cc.pr_curve(y, s, sample_weight=w, drop_intermediate=True)
    np.testing.assert_array_equal(curve.thresholds[1:], thresholds[::-1])
    np.testing.assert_array_equal(curve.y, precision[::-1])
    np.testing.assert_array_equal(curve.x, recall[::-1])
    # DET: scikit-learn also trims the ends; its points are ours, in reverse order
    fpr, fnr, thresholds = skm.det_curve(y, s, sample_weight=w, drop_intermediate=True)
    curve = cc.det_curve(y, s, sample_weight=w, drop_intermediate=True)
    ours = {t: (a, b) for t, a, b in zip(curve.thresholds, curve.x, curve.y)}
    for t, a, b in zip(thresholds, fpr, fnr):
        assert ours[t] == (a, b)


def test_drop_intermediate_toy_values_of_sklearn():
    # sklearn test_ranking.py::test_roc_curve_drop_intermediate and
    # ::test_precision_recall_curve_drop_intermediate
    y = [0, 0, 0, 0, 1, 1]
    s = [0.0, 0.2, 0.5, 0.6, 0.7, 1.0]
    np.testing.assert_array_equal(cc.roc_curve(y, s, drop_intermediate=True).thresholds, [np.inf, 1.0, 0.7, 0.0])
    np.testing.assert_array_equal(cc.pr_curve(y, s, drop_intermediate=True).thresholds[1:], [1.0, 0.7, 0.0])
    y = [0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1]
    s = [0.0, 0.1, 0.6, 0.6, 0.7, 0.8, 0.9, 0.6, 0.7, 0.8, 0.9, 0.9, 1.0]
    np.testing.assert_array_equal(cc.roc_curve(y, s, drop_intermediate=True).thresholds,
                                  [np.inf, 1.0, 0.9, 0.7, 0.6, 0.0])
    np.testing.assert_array_equal(cc.pr_curve(y, s, drop_intermediate=True).thresholds[1:],
                                  [1.0, 0.9, 0.8, 0.7, 0.6, 0.0])
    # sklearn ::test_det_curve_drop_intermediate: ([1, 0, 0], [0, .5, 1]) → fpr [1, 1, 0], fnr [0, 1, 1] in
    # increasing threshold; ours run from +inf, so reversed
    curve = cc.det_curve([1, 0, 0], [0, 0.5, 1], drop_intermediate=True)
    np.testing.assert_array_equal(curve.x, [0.0, 1.0, 1.0])
    np.testing.assert_array_equal(curve.y, [1.0, 1.0, 0.0])
    assert len(cc.det_curve([1, 0, 0], [0, 0.5, 1])) == 4


def test_binned_curves_equal_thresholding_by_hand():
    y, s, w = _binary(1, decimals=3)
    thresholds = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
    curve = cc.roc_curve(y, s, sample_weight=w, thresholds=thresholds)
    for t, fpr, tpr in zip(curve.thresholds, curve.x, curve.y):
        predicted = s >= t
        assert tpr == pytest.approx(w[predicted & y].sum() / w[y].sum(), abs=1e-15)
        assert fpr == pytest.approx(w[predicted & ~y].sum() / w[~y].sum(), abs=1e-15)
    np.testing.assert_array_equal(curve.thresholds, thresholds[::-1])
    # scores below the lowest threshold still count in P and N (rates over all samples)
    shifted = cc.roc_curve(y, s - 0.5, thresholds=thresholds)
    assert shifted.y[-1] == pytest.approx(np.mean(s[y] >= 0.5), abs=1e-15)
    assert shifted.x[-1] == pytest.approx(np.mean(s[~y] >= 0.5), abs=1e-15)
    # chunks (bounded memory, a stream) give the counts of one pass
    whole = BinnedCounts(11).update(y, s).counts()
    chunked = BinnedCounts(11)
    for part in np.array_split(np.arange(len(y)), 4):
        chunked.update(y[part], s[part])
    np.testing.assert_array_equal(chunked.counts().tps, whole.tps)
    np.testing.assert_array_equal(chunked.counts().fps, whole.fps)
    with pytest.raises(UsageError, match="thresholds"):
        BinnedCounts(1)


def test_eer_conventions_torchmetrics_examples():
    # torchmetrics binary_eer docstring: preds [0, .5, .7, .8], target [0, 1, 1, 0] → 0.5; thresholds=5 → 0.75
    assert cc.equal_error_rate([0, 1, 1, 0], [0, 0.5, 0.7, 0.8], method="closest") == 0.5
    assert cc.equal_error_rate([0, 1, 1, 0], [0, 0.5, 0.7, 0.8], method="closest", thresholds=5) == 0.75
    # torchmetrics eer (legacy example): the first of two points at the same distance → (1/2 + 2/3) / 2
    assert cc.equal_error_rate([0, 0, 1, 1, 1], [0.13, 0.26, 0.08, 0.19, 0.34], method="closest") == \
        pytest.approx(7 / 12, abs=1e-15)
    # torchmetrics multilabel_eer docstring: per label [0.5, 0.5, 0.1667], binned (5) [0.5, 0.75, 0.1667]
    preds = np.array([[0.75, 0.05, 0.35], [0.45, 0.75, 0.05], [0.05, 0.55, 0.75], [0.05, 0.65, 0.05]])
    target = np.array([[1, 0, 1], [0, 0, 0], [0, 1, 1], [1, 1, 1]])
    for thresholds, expected in ((None, [0.5, 0.5, 1 / 6]), (5, [0.5, 0.75, 1 / 6])):
        got = [cc.equal_error_rate(target[:, j], preds[:, j], method="closest", thresholds=thresholds)
               for j in range(3)]
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-15)
    # the interpolated convention stays the default
    assert cc.equal_error_rate([0, 1, 1, 0], [0, 0.5, 0.7, 0.8]) == 0.5
    with pytest.raises(UsageError, match="method"):
        cc.equal_error_rate([0, 1], [0.1, 0.2], method="nearest")


def test_fixed_precision_and_recall_torchmetrics_examples():
    # torchmetrics binary_recall_at_fixed_precision docstring: (1.0, 0.5), also with thresholds=5
    assert cc.recall_at_precision([0, 1, 1, 0], [0, 0.5, 0.7, 0.8], min_precision=0.5) == (1.0, 0.5)
    assert cc.recall_at_precision([0, 1, 1, 0], [0, 0.5, 0.7, 0.8], min_precision=0.5, thresholds=5) == (1.0, 0.5)
    # torchmetrics multiclass_recall_at_fixed_precision docstring: [1, 1, 0, 0] with thresholds [.75, .75, nan, nan]
    preds = np.array([[0.75, 0.05, 0.05, 0.05, 0.05], [0.05, 0.75, 0.05, 0.05, 0.05],
                      [0.05, 0.05, 0.75, 0.05, 0.05], [0.05, 0.05, 0.05, 0.75, 0.05]])
    target = np.array([0, 1, 3, 2])
    got = [cc.recall_at_precision(target == c, preds[:, c], min_precision=0.5) for c in range(4)]
    assert [r for r, _ in got] == [1.0, 1.0, 0.0, 0.0]
    assert got[0][1] == got[1][1] == 0.75 and np.isnan(got[2][1]) and np.isnan(got[3][1])
    # precision at fixed recall, by brute force over the operating points
    y, s, _ = _binary(2)
    curve = cc.pr_curve(y, s)
    for minimum in (0.1, 0.5, 0.9, 1.0):
        value, threshold = cc.precision_at_recall(y, s, min_recall=minimum)
        ok = curve.x[1:] >= minimum
        assert value == curve.y[1:][ok].max()
        assert threshold == curve.thresholds[1:][ok][curve.y[1:][ok] == value].max()
    with pytest.raises(UsageError, match="min_recall"):
        cc.precision_at_recall(y, s, min_recall=1.5)


def test_generic_auc_of_sklearn():
    # sklearn test_ranking.py::test_auc
    assert cc.auc([0, 1], [0, 1]) == 0.5
    assert cc.auc([1, 0], [0, 1]) == 0.5
    assert cc.auc([1, 0, 0], [0, 1, 1]) == 0.5
    assert cc.auc([0, 1, 1], [1, 1, 0]) == 1.0
    assert cc.auc([0, 0.5, 1], [0, 0.5, 1]) == 0.5
    curve = cc.roc_curve(*_binary(3)[:2])
    assert cc.auc(curve.x, curve.y) == pytest.approx(cc.roc_auc(*_binary(3)[:2]), abs=1e-15)
    with pytest.raises(InputError, match="neither increasing nor decreasing"):
        cc.auc([2, 1, 3, 4], [5, 6, 7, 8])
    with pytest.raises(InputError, match="at least 2 points"):
        cc.auc([0.0], [0.1])


# ------------------------------------------------------------------------------ rates
def test_weighted_kappa_of_sklearn():
    # sklearn test_classification.py::test_cohen_kappa (Artstein & Poesio 2008 examples)
    y1 = np.array([0] * 46 + [1] * 44 + [2] * 10)
    y2 = np.array([0] * 50 + [1] * 40 + [2] * 10)
    assert cc.kappa(y1, y2) == pytest.approx(0.9315, abs=5e-5)
    assert cc.kappa(y1, y2, weights="linear") == pytest.approx(0.9412, abs=5e-5)
    assert cc.kappa(y1, y2, weights="quadratic") == pytest.approx(0.9541, abs=5e-5)
    a = np.array([0] * 40 + [1] * 60 + [2] * 4)
    b = np.array([0] * 20 + [1] * 20 + [0] * 10 + [1] * 50 + [2] * 4)
    assert cc.kappa(a, b, labels=[0, 1]) == pytest.approx(0.348, abs=5e-4)  # the spurious class 2 ignored
    rng = np.random.default_rng(4)
    t, p, w = rng.integers(0, 4, 200), rng.integers(0, 4, 200), rng.random(200)
    for weights in (None, "linear", "quadratic"):
        # cranfield works on proportions (scale-free), scikit-learn on counts: a few ulps apart
        assert cc.kappa(t, p, weights=weights, sample_weight=w) == pytest.approx(
            skm.cohen_kappa_score(t, p, weights=weights, sample_weight=w), abs=1e-14)
        assert cc.kappa(t, p, weights=weights, labels=[3, 1, 0, 2]) == pytest.approx(
            skm.cohen_kappa_score(t, p, weights=weights, labels=[3, 1, 0, 2]), abs=1e-14)
    with pytest.raises(UsageError, match="weights"):
        cc.kappa(t, p, weights="cubic")


def test_adjusted_balanced_accuracy_and_fbeta_infinity():
    rng = np.random.default_rng(5)
    t, p, w = rng.integers(0, 3, 100), rng.integers(0, 3, 100), rng.random(100)
    for weights in (None, w):
        assert cc.balanced_accuracy(t, p, adjusted=True, sample_weight=weights) == pytest.approx(
            skm.balanced_accuracy_score(t, p, adjusted=True, sample_weight=weights), abs=1e-15)
    assert cc.balanced_accuracy([0, 1, 0, 1], [0, 1, 0, 1], adjusted=True) == 1.0
    assert cc.balanced_accuracy([0, 1, 0, 1], [1, 1, 1, 1], adjusted=True) == 0.0  # chance level
    tb, pb = t == 1, p == 1
    assert cc.fbeta(tb, pb, beta=np.inf) == skm.fbeta_score(tb, pb, beta=np.inf) == cc.recall(tb, pb)
    assert cc.fbeta(t, p, beta=np.inf, average="macro") == skm.fbeta_score(t, p, beta=np.inf, average="macro")
    with pytest.raises(UsageError, match="beta"):
        cc.fbeta(tb, pb, beta=-1)


@pytest.mark.parametrize("average", [None, "micro", "macro", "weighted"])
def test_labels_subset_and_absent_class_as_sklearn(average):
    rng = np.random.default_rng(6)
    t, p = rng.integers(0, 4, 80), rng.integers(0, 4, 80)
    for labels in ([2, 0], [0, 1, 2, 3, 9], [3, 2, 1, 0]):
        for ours, theirs in ((cc.precision, skm.precision_score), (cc.recall, skm.recall_score),
                             (cc.f1, skm.f1_score), (cc.jaccard, skm.jaccard_score)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                a = ours(t, p, labels=labels, average=average)
                b = theirs(t, p, labels=labels, average=average)
            np.testing.assert_allclose(a, b, rtol=0, atol=1e-15)
    with pytest.warns(UserWarning, match="undefined"):  # class 9 never occurs: 0/0 → 0 and a warning
        cc.recall(t, p, labels=[0, 9], average=None)


# ------------------------------------------------------------------------------ probabilistic
def test_brier_multiclass_and_scale_by_half_of_sklearn():
    # sklearn test_classification.py::test_brier_score_loss_multiclass
    assert cc.brier_score(["eggs", "spam", "ham"], [[1, 0, 0, 0], [0, 1, 0, 0], [0, 1, 0, 0]],
                          labels=["eggs", "ham", "spam", "yams"]) == pytest.approx(2 / 3)
    assert cc.brier_score([1, 0, 2], [[0.2, 0.7, 0.1], [0.6, 0.2, 0.2], [0.6, 0.1, 0.3]]) == pytest.approx(0.41333333)
    assert cc.brier_score([0, 1, 2], np.eye(3)) == 0
    assert cc.brier_score([0, 1, 2], [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]) == 2
    # sklearn's docstring: binary 0.0375, scale_by_half=False 0.075
    assert cc.brier_score([0, 1, 1, 0], [0.1, 0.9, 0.8, 0.3]) == pytest.approx(0.0375)
    assert cc.brier_score([0, 1, 1, 0], [0.1, 0.9, 0.8, 0.3], scale_by_half=False) == pytest.approx(0.075)
    rng = np.random.default_rng(7)
    y, prob, w = rng.integers(0, 3, 120), rng.dirichlet(np.ones(3), 120), rng.random(120)
    for half in ("auto", True, False):
        assert cc.brier_score(y, prob, scale_by_half=half, sample_weight=w) == skm.brier_score_loss(
            y, prob, scale_by_half=half, sample_weight=w)
    with pytest.raises(InputError, match=r"row 1 sum to 0\.9"):
        cc.brier_score([0, 1], [[0.5, 0.5], [0.3, 0.6]])
    with pytest.raises(UsageError, match="scale_by_half"):
        cc.brier_score([0, 1], [0.2, 0.8], scale_by_half="yes")


def test_log_loss_sum_and_probability_rows():
    rng = np.random.default_rng(8)
    y, prob, w = rng.integers(0, 3, 50), rng.dirichlet(np.ones(3), 50), rng.random(50)
    assert cc.log_loss(y, prob, normalize=False) == skm.log_loss(y, prob, normalize=False)
    assert cc.log_loss(y, prob, normalize=False, sample_weight=w) == skm.log_loss(y, prob, normalize=False,
                                                                                 sample_weight=w)
    rounded = np.round(prob, 6)  # rounded CSV values stay within the tolerance (1e-6)
    cc.log_loss(y, rounded)
    scores = prob * 3
    with pytest.raises(InputError, match=r"row 0 sum to .*expected 1"):
        cc.log_loss(y, np.clip(scores, 0, 1))


def test_hinge_loss_of_sklearn():
    # sklearn test_classification.py::test_hinge_loss_binary and ::test_hinge_loss_multiclass
    assert cc.hinge_loss([-1, 1, 1, -1], [-8.5, 0.5, 1.5, -0.3]) == 1.2 / 4
    assert cc.hinge_loss([0, 2, 2, 0], [-8.5, 0.5, 1.5, -0.3]) == 1.2 / 4
    decision = np.array([[+0.36, -0.17, -0.58, -0.99], [-0.54, -0.37, -0.48, -0.58], [-1.45, -0.58, -0.38, -0.17],
                         [-0.54, -0.38, -0.48, -0.58], [-2.36, -0.79, -0.27, +0.24], [-1.45, -0.58, -0.38, -0.17]])
    y = np.array([0, 1, 2, 1, 3, 2])
    assert cc.hinge_loss(y, decision) == skm.hinge_loss(y, decision)
    w = np.arange(1.0, 7.0)
    assert cc.hinge_loss(y, decision, sample_weight=w) == skm.hinge_loss(y, decision, sample_weight=w)
    with pytest.raises(InputError, match="pass labels="):
        cc.hinge_loss([0, 1, 1], np.zeros((3, 3)))
    assert cc.hinge_loss([0, 1, 1], np.zeros((3, 3)), labels=[0, 1, 2]) == skm.hinge_loss(
        [0, 1, 1], np.zeros((3, 3)), labels=[0, 1, 2])


def test_d2_scores_equal_sklearn():
    rng = np.random.default_rng(9)
    truth = rng.gamma(2.0, size=80)
    pred = np.abs(truth + rng.normal(0, 0.4, 80)) + 0.01
    w = rng.integers(0, 3, 80).astype(float)  # integer weights with zeros: ties in the weighted quantile
    for weights in (None, w):
        assert cc.d2_absolute_error_score(truth, pred, sample_weight=weights) == skm.d2_absolute_error_score(
            truth, pred, sample_weight=weights)
        for alpha in (0.1, 0.5, 0.9):
            assert cc.d2_pinball_score(truth, pred, alpha=alpha, sample_weight=weights) == skm.d2_pinball_score(
                truth, pred, alpha=alpha, sample_weight=weights)
        for power in (-1, 0, 1, 1.5, 2, 3):
            assert cc.d2_tweedie_score(truth, pred, power=power, sample_weight=weights) == pytest.approx(
                skm.d2_tweedie_score(truth, pred, power=power, sample_weight=weights), abs=1e-15)
    assert cc.d2_absolute_error_score([1, 1, 1], [1, 1, 1]) == 1.0  # constant truth, perfect: force_finite
    with pytest.raises(InputError, match="fewer than two"):
        cc.d2_tweedie_score([1.0], [1.0])
    with pytest.raises(UsageError, match="0 < power < 1"):
        cc.d2_tweedie_score([1.0, 2.0], [1.0, 2.0], power=0.5)
    with pytest.raises(InputError, match="field y_pred: .*needs strictly positive values"):
        cc.d2_tweedie_score([1.0, 2.0], [0.0, 2.0], power=1)


def test_d2_log_loss_and_brier_equal_sklearn():
    rng = np.random.default_rng(10)
    y, prob, w = rng.integers(0, 3, 60), rng.dirichlet(np.ones(3), 60), rng.random(60)
    for weights in (None, w):
        assert cc.d2_log_loss_score(y, prob, sample_weight=weights) == skm.d2_log_loss_score(y, prob,
                                                                                            sample_weight=weights)
        assert cc.d2_brier_score(y, prob, sample_weight=weights) == skm.d2_brier_score(y, prob, sample_weight=weights)
        assert cc.d2_brier_score(y == 1, prob[:, 1], sample_weight=weights) == skm.d2_brier_score(
            y == 1, prob[:, 1], sample_weight=weights)
    with pytest.raises(InputError, match="fewer than two"):
        cc.d2_brier_score([1], [0.5])
