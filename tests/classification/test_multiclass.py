"""Multiclass scores (issue 16, item 1): mAP, OvR/OvO ROC AUC, per-class and micro curves, top-k
accuracy, against scikit-learn on the same inputs, plus hand-checked values from scikit-learn's
own tests (sklearn/metrics/tests/test_ranking.py, cited per test)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn import metrics as skm

import cranfield.classification as cc
from cranfield.classification.curves import class_curves
from cranfield.classification.multiclass import average_precision_multiclass, roc_auc_multiclass
from cranfield.errors import InputError, UsageError

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

# cranfield's multiclass AP sums Σ #pos≥s/#all≥s per positive and its AUC is an integer
# Mann-Whitney count divided once, where scikit-learn sums Δrecall·precision and trapezoids over
# the curve: the same quantity in another float order, so a few ulps apart (measured ≤ 3.4e-16).
TOL = 1e-13


def _data(seed: int, n: int = 240, k: int = 4, decimals: int | None = 2):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)  # every class occurs
    scores = rng.random((n, k))
    if decimals is not None:
        scores = scores.round(decimals)  # many ties
    return y, scores, rng.uniform(0.1, 2.0, n)


@pytest.mark.parametrize("average", [None, "macro", "weighted", "micro"])
@pytest.mark.parametrize("weighted", [False, True])
def test_map_and_ovr_auc_equal_sklearn(average, weighted):
    y, s, w = _data(0)
    w = w if weighted else None
    onehot = np.eye(4)[y]
    ap = average_precision_multiclass(y, s, average=average, sample_weight=w)
    np.testing.assert_allclose(ap, skm.average_precision_score(onehot, s, average=average, sample_weight=w),
                               rtol=0, atol=TOL)
    auc = roc_auc_multiclass(y, y_score=s, average=average, sample_weight=w)
    np.testing.assert_allclose(auc, skm.roc_auc_score(onehot, s, average=average, sample_weight=w), rtol=0, atol=TOL)
    # the binary entry points take an n×C matrix too
    np.testing.assert_allclose(cc.average_precision(y, s, average=average, sample_weight=w), ap, rtol=0, atol=0)
    np.testing.assert_allclose(cc.roc_auc(y, s, average=average, sample_weight=w), auc, rtol=0, atol=0)


def test_weighted_per_class_equals_binary_functions_bitwise():
    y, s, w = _data(1)
    ap = average_precision_multiclass(y, s, average=None, sample_weight=w)
    auc = roc_auc_multiclass(y, s, average=None, sample_weight=w)
    for c in range(4):
        assert ap[c] == cc.average_precision(y == c, s[:, c], sample_weight=w)
        assert auc[c] == cc.roc_auc(y == c, s[:, c], sample_weight=w)


@pytest.mark.parametrize("average", ["macro", "weighted"])
def test_ovo_equals_sklearn(average):
    y, s, _ = _data(2)
    prob = s / s.sum(axis=1, keepdims=True)
    ours = roc_auc_multiclass(y, prob, multi_class="ovo", average=average)
    assert ours == pytest.approx(skm.roc_auc_score(y, prob, multi_class="ovo", average=average), abs=TOL)


@pytest.mark.parametrize("labels", [None, ["a", "b", "c"]])
def test_ovo_toy_data_of_sklearn(labels):
    # sklearn test_ranking.py::test_multiclass_ovo_roc_auc_toydata: the pairwise AUCs by hand
    y_true = ["a", "b", "a", "c"]
    scores = np.array([[0.1, 0.8, 0.1], [0.3, 0.4, 0.3], [0.35, 0.5, 0.15], [0, 0.2, 0.8]])
    pair_01 = (skm.roc_auc_score([1, 0, 1], [0.1, 0.3, 0.35]) + skm.roc_auc_score([0, 1, 0], [0.8, 0.4, 0.5])) / 2
    pair_02 = (skm.roc_auc_score([1, 1, 0], [0.1, 0.35, 0]) + skm.roc_auc_score([0, 0, 1], [0.1, 0.15, 0.8])) / 2
    pair_12 = (skm.roc_auc_score([1, 0], [0.4, 0.2]) + skm.roc_auc_score([0, 1], [0.3, 0.8])) / 2
    expected = (pair_01 + pair_02 + pair_12) / 3
    assert roc_auc_multiclass(y_true, scores, multi_class="ovo", labels=labels) == pytest.approx(expected, abs=1e-15)
    weighted = np.average([pair_01, pair_02, pair_12], weights=[0.75, 0.75, 0.5])
    assert roc_auc_multiclass(y_true, scores, multi_class="ovo", average="weighted") == pytest.approx(weighted,
                                                                                                     abs=1e-15)


def test_ovr_toy_data_of_sklearn():
    # sklearn test_ranking.py::test_multiclass_ovr_roc_auc_toydata: one-vs-rest AUCs by hand
    y_true = np.array([0, 1, 0, 2])
    scores = np.array([[0.1, 0.8, 0.1], [0.3, 0.4, 0.3], [0.35, 0.5, 0.15], [0, 0.2, 0.8]])
    out_0 = skm.roc_auc_score([1, 0, 1, 0], scores[:, 0])
    out_1 = skm.roc_auc_score([0, 1, 0, 0], scores[:, 1])
    out_2 = skm.roc_auc_score([0, 0, 0, 1], scores[:, 2])
    assert roc_auc_multiclass(y_true, scores) == pytest.approx(np.mean([out_0, out_1, out_2]), abs=1e-15)
    assert roc_auc_multiclass(y_true, scores, average="weighted") == pytest.approx(
        out_0 * 0.5 + out_1 * 0.25 + out_2 * 0.25, abs=1e-15)


def test_labels_order_the_columns_and_absent_classes():
    y, s, _ = _data(3)
    names = np.array(["cat", "dog", "eel", "fox"])
    # labels= names the columns in order; reversing both gives the reversed per-class values
    per_class = average_precision_multiclass(names[y], s[:, ::-1], labels=list(names[::-1]), average=None)
    np.testing.assert_array_equal(per_class[::-1], average_precision_multiclass(y, s, average=None))
    # a class that never occurs: AP 0 with a warning (scikit-learn's policy), ROC AUC an error
    absent = s[y != 3][:, :4]
    with pytest.warns(UserWarning, match="no positive"):
        values = average_precision_multiclass(y[y != 3], absent, labels=[0, 1, 2, 3], average=None)
    assert values[3] == 0.0
    with pytest.raises(InputError, match=r"no sample.*\[3\]"):
        roc_auc_multiclass(y[y != 3], absent, labels=[0, 1, 2, 3])
    with pytest.raises(InputError, match="pass labels="):
        roc_auc_multiclass(y[y != 3], absent)
    with pytest.raises(UsageError, match="labels has 3 classes"):
        roc_auc_multiclass(y, s, labels=[0, 1, 2])


def test_class_curves_equal_sklearn_and_micro_area():
    y, s, _ = _data(4)
    curves = class_curves(y, s, kind="roc")
    for c, curve in curves.items():
        fpr, tpr, thresholds = skm.roc_curve(y == c, s[:, c], drop_intermediate=False)
        np.testing.assert_array_equal(curve.x, fpr)
        np.testing.assert_array_equal(curve.y, tpr)
        np.testing.assert_array_equal(curve.thresholds, thresholds)
    micro = class_curves(y, s, kind="pr", average="micro")
    precision, recall, _ = skm.precision_recall_curve(np.eye(4)[y].ravel(), s.ravel())
    np.testing.assert_array_equal(micro.y, precision[::-1])
    np.testing.assert_array_equal(micro.x, recall[::-1])
    thin = class_curves(y, s, kind="det", drop_intermediate=True)
    assert all(len(thin[c]) <= len(class_curves(y, s, kind="det")[c]) for c in range(4))


@pytest.mark.parametrize("k", [1, 2, 3])
def test_top_k_equals_sklearn(k):
    y, s, w = _data(5, decimals=1)
    assert cc.top_k_accuracy(y, s, k=k) == skm.top_k_accuracy_score(y, s, k=k)
    assert cc.top_k_accuracy(y, s, k=k, sample_weight=w) == pytest.approx(
        skm.top_k_accuracy_score(y, s, k=k, sample_weight=w), abs=1e-15)
    assert cc.top_k_accuracy(y, s, k=k, normalize=False) == skm.top_k_accuracy_score(y, s, k=k, normalize=False)


@pytest.mark.parametrize(("k", "expected"), [(1, 0.25), (2, 0.5), (3, 1.0)])
def test_top_k_ties_of_sklearn(k, expected):
    # sklearn test_ranking.py::test_top_k_accuracy_score_ties: among ties the higher column ranks first
    scores = np.array([[5, 5, 7, 0], [1, 5, 5, 5], [0, 0, 3, 3], [1, 1, 1, 1]])
    assert cc.top_k_accuracy([0, 1, 2, 3], scores, k=k) == expected


@pytest.mark.parametrize(("scores", "k", "expected"), [
    ([-1, -1, 1, 1], 1, 1.0), ([-1, 1, -1, 1], 1, 0.5), ([-1, 1, -1, 1], 2, 1.0),
    ([0.2, 0.2, 0.7, 0.7], 1, 1.0), ([0.2, 0.7, 0.2, 0.7], 1, 0.5), ([0.2, 0.7, 0.2, 0.7], 2, 1.0)])
def test_top_k_binary_of_sklearn(scores, k, expected):
    # sklearn test_ranking.py::test_top_k_accuracy_score_binary
    assert cc.top_k_accuracy([0, 0, 1, 1], scores, k=k) == expected


@pytest.mark.parametrize(("y_true", "labels", "expected"), [
    ([0, 1, 1, 2], [0, 1, 2, 3], 0.75), ([1, 1, 1, 1], [0, 1, 2, 3], 0.5),
    (["a", "e", "e", "a"], ["a", "b", "d", "e"], 0.75)])
def test_top_k_with_labels_of_sklearn(y_true, labels, expected):
    # sklearn test_ranking.py::test_top_k_accuracy_score_multiclass_with_labels
    scores = np.array([[0.4, 0.3, 0.2, 0.1], [0.1, 0.3, 0.4, 0.2], [0.4, 0.1, 0.2, 0.3], [0.3, 0.2, 0.4, 0.1]])
    assert cc.top_k_accuracy(y_true, scores, k=2, labels=labels) == expected


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31), st.integers(2, 5), st.integers(5, 40))
def test_property_macro_is_mean_of_binary(seed, k, n):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)
    s = rng.integers(0, 4, (n, k)).astype(float)  # heavy ties
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected_ap = np.mean([cc.average_precision(y == c, s[:, c]) for c in range(k)])
        expected_auc = np.mean([cc.roc_auc(y == c, s[:, c]) for c in range(k)])
    assert average_precision_multiclass(y, s) == pytest.approx(expected_ap, abs=TOL)
    assert roc_auc_multiclass(y, s) == pytest.approx(expected_auc, abs=TOL)
    # one argsort-free micro statistic equals the binary function on the flattened pairs
    assert roc_auc_multiclass(y, s, average="micro") == pytest.approx(
        cc.roc_auc(np.eye(k, dtype=bool)[y].ravel(), s.ravel()), abs=TOL)


def test_bad_input():
    y, s, _ = _data(6, n=12)
    with pytest.raises(InputError, match="row 1 has 3 values, expected 4"):
        average_precision_multiclass([0, 1], [[0.1, 0.2, 0.3, 0.4], [0.1, 0.2, 0.3]])
    with pytest.raises(InputError, match=r"row 2, column 1"):
        bad = s.copy()
        bad[2, 1] = np.nan
        roc_auc_multiclass(y, bad)
    with pytest.raises(UsageError, match="average: expected one of"):
        average_precision_multiclass(y, s, average="binary")
    with pytest.raises(UsageError, match="average"):
        roc_auc_multiclass(y, s, multi_class="ovo", average="micro")
    with pytest.raises(UsageError, match="'samples' needs a multilabel"):
        roc_auc_multiclass(y, s, average="samples")
    with pytest.raises(UsageError, match="k: expected a whole number >= 1"):
        cc.top_k_accuracy(y, s, k=0)
    with pytest.raises(UsageError, match="kind"):
        class_curves(y, s, kind="lift")
