"""Multilabel input (issue 16, item 1): per-label confusion matrices, Hamming loss, subset
accuracy, rates with every average, AP/AUC with average="samples", label ranking (LRAP, coverage
error, ranking loss) and DCG/nDCG — against scikit-learn on the same inputs and the hand-checked
values of scikit-learn's own tests (sklearn/metrics/tests/test_ranking.py, cited per test)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn import metrics as skm

import cranfield.classification as cc
from cranfield.classification import label_ranking as lr
from cranfield.classification import multilabel as ml
from cranfield.errors import InputError, UsageError

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

# Label-ranking and DCG values are sums of per-row ratios in another order than scikit-learn's
# per-row Python loop: a few ulps apart (measured ≤ 3.4e-16; DCG with log_base=10: 1.8e-15 on
# values near 5, i.e. 2 ulps).
TOL = 1e-13


def _data(seed: int, n: int = 150, k: int = 5):
    rng = np.random.default_rng(seed)
    truth = (rng.random((n, k)) < 0.35).astype(int)
    pred = (rng.random((n, k)) < 0.35).astype(int)
    scores = rng.random((n, k)).round(1)  # ties within rows
    return truth, pred, scores, rng.uniform(0.1, 2.0, n)


@pytest.mark.parametrize("weighted", [False, True])
def test_confusion_matrices_hamming_subset_accuracy(weighted):
    t, p, _, w = _data(0)
    w = w if weighted else None
    for kwargs in ({}, {"samplewise": True}, {"labels": [3, 0]}):
        ours = ml.multilabel_confusion_matrix(t, p, sample_weight=w, **kwargs)
        theirs = skm.multilabel_confusion_matrix(t, p, sample_weight=w, **kwargs)
        # weighted sums: cranfield's weights @ cells (BLAS) vs scikit-learn's np.sum, another order (≤ 1 ulp
        # each); scikit-learn derives TN by subtraction, so an exact 0 comes out as ±1e-15 there
        np.testing.assert_allclose(ours, theirs, rtol=1e-14 if weighted else 0, atol=1e-14 if weighted else 0)
    assert ml.hamming_loss(t, p, sample_weight=w) == pytest.approx(skm.hamming_loss(t, p, sample_weight=w), abs=1e-15)
    assert ml.subset_accuracy(t, p, sample_weight=w) == pytest.approx(skm.accuracy_score(t, p, sample_weight=w),
                                                                      abs=1e-15)
    assert cc.accuracy(t, p, sample_weight=w) == ml.subset_accuracy(t, p, sample_weight=w)


def test_multiclass_confusion_matrices_with_absent_labels():
    y = np.array([0, 1, 2, 2, 1, 0])
    pred = np.array([0, 2, 2, 1, 1, 1])
    for labels in (None, [2, 0], [0, 1, 2, 5]):
        np.testing.assert_array_equal(ml.multilabel_confusion_matrix(y, pred, labels=labels),
                                      skm.multilabel_confusion_matrix(y, pred, labels=labels))
    assert ml.hamming_loss(y, pred) == skm.hamming_loss(y, pred)


@pytest.mark.parametrize("average", [None, "micro", "macro", "weighted", "samples"])
def test_rates_equal_sklearn(average):
    t, p, _, w = _data(1)
    t[0] = 0  # a sample without labels: 0/0 → zero_division
    for ours, theirs, kwargs in ((cc.precision, skm.precision_score, {}), (cc.recall, skm.recall_score, {}),
                                 (cc.f1, skm.f1_score, {}), (cc.fbeta, skm.fbeta_score, {"beta": 0.5}),
                                 (cc.jaccard, skm.jaccard_score, {})):
        for weights in (None, w):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                a = ours(t, p, average=average, sample_weight=weights, zero_division=0.0, **kwargs)
                b = theirs(t, p, average=average, sample_weight=weights, zero_division=0.0, **kwargs)
            np.testing.assert_allclose(a, b, rtol=0, atol=1e-15)


@pytest.mark.parametrize("average", [None, "micro", "macro", "weighted", "samples"])
def test_ap_and_auc_multilabel_equal_sklearn(average):
    t, _, s, w = _data(2)
    rows = (t.sum(axis=1) > 0) & (t.sum(axis=1) < t.shape[1])  # 'samples' AUC needs both kinds in a row
    for weights in (None, w):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ap = cc.average_precision(t, s, average=average, sample_weight=weights)
            expected = skm.average_precision_score(t, s, average=average, sample_weight=weights)
        np.testing.assert_allclose(ap, expected, rtol=0, atol=TOL)
        sub = None if weights is None else weights[rows]
        np.testing.assert_allclose(cc.roc_auc(t[rows], s[rows], average=average, sample_weight=sub),
                                   skm.roc_auc_score(t[rows], s[rows], average=average, sample_weight=sub),
                                   rtol=0, atol=TOL)


def test_label_ranking_equal_sklearn():
    t, _, s, w = _data(3)
    t[0] = 0
    t[1] = 1
    for ours, theirs in ((lr.label_ranking_average_precision, skm.label_ranking_average_precision_score),
                         (lr.coverage_error, skm.coverage_error), (lr.label_ranking_loss, skm.label_ranking_loss)):
        for weights in (None, w):
            assert ours(t, s, sample_weight=weights) == pytest.approx(theirs(t, s, sample_weight=weights), abs=TOL)


def test_coverage_error_of_sklearn():
    # sklearn test_ranking.py::test_coverage_error and ::test_coverage_tie_handling
    assert lr.coverage_error([[0, 1]], [[0.25, 0.75]]) == 1
    assert lr.coverage_error([[0, 1]], [[0.75, 0.25]]) == 2
    assert lr.coverage_error([[0, 0]], [[0.75, 0.25]]) == 0
    assert lr.coverage_error([[1, 0, 1]], [[0.25, 0.5, 0.75]]) == 3
    assert lr.coverage_error([[0, 1, 1]], [[0.75, 0.5, 0.25]]) == 3
    assert lr.coverage_error([[0, 1, 0], [1, 1, 0], [0, 1, 1]], [[0.1, 10, -3], [3, 1, 3], [0, 2, 0]]) == 7 / 3
    assert lr.coverage_error([[1, 0]], [[0.5, 0.5]]) == 2
    assert lr.coverage_error([[0, 1, 0]], [[0.25, 0.5, 0.5]]) == 2
    assert lr.coverage_error([[1, 0, 0]], [[0.25, 0.5, 0.5]]) == 3


def test_label_ranking_loss_of_sklearn():
    # sklearn test_ranking.py::test_label_ranking_loss
    assert lr.label_ranking_loss([[0, 1]], [[0.75, 0.25]]) == 1
    assert lr.label_ranking_loss([[0, 1, 0]], [[0.25, 0.5, 0.75]]) == 1 / 2
    assert lr.label_ranking_loss([[1, 0, 1]], [[0.25, 0.5, 0.75]]) == 1 / 2
    assert lr.label_ranking_loss([[1, 1]], [[0.5, 0.5]]) == 0  # undefined: the ranking does not matter
    assert lr.label_ranking_loss([[0, 0, 0]], [[0.25, 0.5, 0.5]]) == 0
    assert lr.label_ranking_loss([[0, 1, 0], [1, 1, 0], [0, 1, 1]],
                                 [[0.1, 10, -3], [0, 1, 3], [0, 2, 0]]) == pytest.approx((0 + 2 / 2 + 1 / 2) / 3)


def test_lrap_tie_rule():
    # a tie ranks each tied label at the lowest rank of the tie (scikit-learn's rule)
    assert lr.label_ranking_average_precision([[1, 0]], [[0.5, 0.5]]) == 0.5
    assert lr.label_ranking_average_precision([[1, 0, 1]], [[0.2, 0.5, 0.5]]) == pytest.approx((2 / 3 + 1 / 2) / 2)
    assert lr.label_ranking_average_precision([[0, 0], [1, 1]], [[0.1, 0.2], [0.3, 0.3]]) == 1.0  # policy


def test_dcg_and_ndcg_equal_sklearn():
    rng = np.random.default_rng(4)
    gains = rng.integers(0, 4, (60, 6)).astype(float) * 0.5
    scores = rng.integers(0, 3, (60, 6)).astype(float)  # ties
    distinct = rng.random((60, 6))
    for k in (None, 1, 3):
        assert lr.dcg_score(gains, scores, k=k) == pytest.approx(skm.dcg_score(gains, scores, k=k), abs=TOL)
        assert lr.ndcg_score(gains, scores, k=k) == pytest.approx(skm.ndcg_score(gains, scores, k=k), abs=TOL)
        assert lr.dcg_score(gains, scores, k=k, log_base=10) == pytest.approx(
            skm.dcg_score(gains, scores, k=k, log_base=10), abs=TOL)
        # scikit-learn's ignore_ties=True order among ties depends on its sort: compared without ties
        assert lr.ndcg_score(gains, distinct, k=k, ignore_ties=True) == pytest.approx(
            skm.ndcg_score(gains, distinct, k=k, ignore_ties=True), abs=TOL)
    w = rng.random(60)
    assert lr.ndcg_score(gains, scores, sample_weight=w) == pytest.approx(
        skm.ndcg_score(gains, scores, sample_weight=w), abs=TOL)


def test_dcg_ties_of_sklearn():
    # sklearn test_ranking.py::test_dcg_ties: all tied → mean gain × sum of discounts
    gains = np.arange(5.0)[None, :]
    discounts = 1 / np.log2(np.arange(2, 7))
    assert lr.dcg_score(gains, np.zeros((1, 5))) == pytest.approx(discounts.sum() * 2.0, abs=1e-15)
    assert lr.dcg_score(gains, np.zeros((1, 5)), ignore_ties=True) == pytest.approx((discounts * gains[0, ::-1]).sum())
    scores = np.zeros((1, 5))
    scores[0, 3:] = 1
    expected = discounts[:2].sum() * gains[0, 3:].mean() + discounts[2:].sum() * gains[0, :3].mean()
    assert lr.dcg_score(gains, scores) == pytest.approx(expected, abs=1e-15)


def test_ndcg_toy_examples_of_sklearn():
    # sklearn test_ranking.py::test_ndcg_toy_examples
    gains = 3 * np.eye(7)[:5]
    scores = np.tile(np.arange(6, -1, -1), (5, 1)).astype(float)
    for ignore_ties in (False, True):
        assert lr.ndcg_score(gains, scores, ignore_ties=ignore_ties) == pytest.approx(
            (1 / np.log2(np.arange(2, 7))).mean())
        assert lr.dcg_score(gains, scores, ignore_ties=ignore_ties) == pytest.approx(
            (3 / np.log2(np.arange(2, 7))).mean())
    assert lr.ndcg_score(3 * np.ones((5, 7)), scores) == pytest.approx(1.0)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31), st.integers(2, 6), st.integers(1, 12))
def test_property_samples_ap_is_lrap_on_rows_with_labels(seed, k, n):
    rng = np.random.default_rng(seed)
    t = (rng.random((n, k)) < 0.5).astype(int)
    t[:, 0] = 1  # every row has a relevant label
    s = rng.integers(0, 3, (n, k)).astype(float)
    assert cc.average_precision(t, s, average="samples") == pytest.approx(
        lr.label_ranking_average_precision(t, s), abs=TOL)
    assert 0 <= lr.label_ranking_loss(t, s) <= 1
    assert 1 <= lr.coverage_error(t, s) <= k


def test_bad_input():
    with pytest.raises(InputError, match=r"row 2 has 2 values, expected 3 \(as row 0\)"):
        ml.hamming_loss([[0, 1, 1], [1, 0, 0], [1, 0]], [[0, 1, 1], [1, 0, 0], [1, 0, 1]])
    with pytest.raises(InputError, match="shape"):
        ml.hamming_loss([[0, 1, 1]], [[0, 1]])
    with pytest.raises(InputError, match=r"found 2 in row 0, column 1"):
        lr.coverage_error([[0, 2]], [[0.1, 0.2]])
    with pytest.raises(InputError, match=r"y_pred.*0/1|0/1.*y_pred"):
        cc.precision([[0, 1]], [[0, 3]], average="micro")
    with pytest.raises(UsageError, match="no single positive class"):
        cc.precision([[0, 1], [1, 1]], [[0, 1], [1, 0]])
    with pytest.raises(UsageError, match="not for multilabel"):
        cc.mcc([[0, 1], [1, 1]], [[0, 1], [1, 0]])
    with pytest.raises(UsageError, match="column"):
        ml.multilabel_confusion_matrix([[0, 1]], [[0, 1]], labels=[5])
    with pytest.raises(UsageError, match="samplewise"):
        ml.multilabel_confusion_matrix([0, 1], [0, 1], samplewise=True)
    with pytest.raises(InputError, match="gains ≥ 0"):
        lr.ndcg_score([[-1.0, 2.0]], [[0.1, 0.2]])
    with pytest.raises(InputError, match="row 0"):
        cc.roc_auc([[1, 1], [0, 1]], [[0.1, 0.2], [0.3, 0.4]], average="samples")
