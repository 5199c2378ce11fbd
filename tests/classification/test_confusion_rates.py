"""ConfusionMatrix and every rate against scikit-learn (oracle) and hand-computed examples."""

import warnings

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

from cranfield import ConfusionMatrix
from cranfield.classification import measures as cm_measures
from cranfield.classification.rates import RATES, get_rate
from cranfield.classification._validation import UndefinedMeasureWarning
from cranfield.errors import InputError, MeasureError, UsageError

TOL = 1e-12


def quiet(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args, **kwargs)


@st.composite
def labelled(draw, n_classes=2, weighted=None):
    n = draw(st.integers(1, 25))
    y = draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n))
    p = draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n))
    use_w = draw(st.booleans()) if weighted is None else weighted
    w = draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.25]), min_size=n, max_size=n)) if use_w else None
    if w is not None and sum(w) == 0:
        w = None  # scikit-learn refuses all-zero weights
    return np.array(y), np.array(p), None if w is None else np.array(w)


# cranfield rate -> scikit-learn oracle for binary 0/1 labels (pos_label 1), with zero_division
SK_BINARY = {
    "precision": lambda y, p, w, zd: skm.precision_score(y, p, sample_weight=w, zero_division=zd),
    "recall": lambda y, p, w, zd: skm.recall_score(y, p, sample_weight=w, zero_division=zd),
    "specificity": lambda y, p, w, zd: skm.recall_score(y, p, pos_label=0, labels=[0, 1], sample_weight=w,
                                                        zero_division=zd),
    "npv": lambda y, p, w, zd: skm.precision_score(y, p, pos_label=0, labels=[0, 1], sample_weight=w,
                                                   zero_division=zd),
    "f1": lambda y, p, w, zd: skm.f1_score(y, p, sample_weight=w, zero_division=zd),
    "jaccard": lambda y, p, w, zd: skm.jaccard_score(y, p, sample_weight=w, zero_division=zd),
    "accuracy": lambda y, p, w, zd: skm.accuracy_score(y, p, sample_weight=w),
    "mcc": lambda y, p, w, zd: skm.matthews_corrcoef(y, p, sample_weight=w),
}


@settings(max_examples=60, deadline=None)
@given(labelled(), st.sampled_from(["warn", 0.0, 1.0]))
def test_binary_rates_equal_sklearn(data, zero_division):
    y, p, w = data
    sk_zd = "warn" if zero_division == "warn" else zero_division
    for name, oracle in SK_BINARY.items():
        if name == "mcc" and zero_division != "warn":
            continue  # scikit-learn's MCC has no zero_division: it always gives 0.0 (our "warn" value)
        ours = quiet(getattr(cm_measures, name), y, p, sample_weight=w, zero_division=zero_division)
        expected = quiet(oracle, y, p, w, sk_zd)
        assert ours == pytest.approx(expected, abs=TOL), name


@settings(max_examples=60, deadline=None)
@given(labelled())
def test_matrix_rates_equal_sklearn(data):
    y, p, w = data
    kappa = quiet(skm.cohen_kappa_score, y, p, sample_weight=w)
    ours = quiet(cm_measures.kappa, y, p, sample_weight=w)
    assert (np.isnan(kappa) and np.isnan(ours)) or ours == pytest.approx(kappa, abs=TOL)
    assert quiet(cm_measures.balanced_accuracy, y, p, sample_weight=w) == pytest.approx(
        quiet(skm.balanced_accuracy_score, y, p, sample_weight=w), abs=TOL)
    cm = ConfusionMatrix.from_labels(y, p, labels=[0, 1], sample_weight=w)
    expected = skm.confusion_matrix(y, p, labels=[0, 1], sample_weight=w)
    np.testing.assert_allclose(cm.matrix, expected, atol=TOL)


@settings(max_examples=40, deadline=None)
@given(labelled())
def test_likelihood_ratios_equal_sklearn(data):
    y, p, w = data
    try:
        lr_plus, lr_minus = quiet(skm.class_likelihood_ratios, y, p, labels=[0, 1], sample_weight=w)
    except ValueError:
        return  # scikit-learn refuses non-binary input; our policy is tested below
    for ours, theirs in ((quiet(cm_measures.lr_plus, y, p, sample_weight=w), lr_plus),
                         (quiet(cm_measures.lr_minus, y, p, sample_weight=w), lr_minus)):
        assert (np.isnan(ours) and np.isnan(theirs)) or ours == pytest.approx(theirs, rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(labelled(n_classes=4), st.sampled_from([None, "micro", "macro", "weighted"]))
# found by hypothesis: one class holds every sample; MCC was NaN (cells divided by the sum rounded s² − t·t below 0)
@example(data=(np.array([0, 0, 0, 0, 0]), np.array([0, 0, 0, 2, 3]), np.array([0.0, 0.0, 0.5, 0.5, 2.0])),
         average=None)
def test_multiclass_averages_equal_sklearn(data, average):
    y, p, w = data
    labels = [0, 1, 2, 3]
    for name, sk in (("precision", skm.precision_score), ("recall", skm.recall_score), ("f1", skm.f1_score),
                     ("jaccard", skm.jaccard_score)):
        ours = quiet(getattr(cm_measures, name), y, p, labels=labels, sample_weight=w, average=average,
                     zero_division=0.0)
        theirs = quiet(sk, y, p, labels=labels, sample_weight=w, average=average, zero_division=0.0)
        np.testing.assert_allclose(ours, theirs, atol=TOL, err_msg=name)
    ours = quiet(cm_measures.fbeta, y, p, labels=labels, sample_weight=w, average=average, beta=0.5, zero_division=1.0)
    theirs = quiet(skm.fbeta_score, y, p, labels=labels, sample_weight=w, average=average, beta=0.5,
                   zero_division=1.0)
    np.testing.assert_allclose(ours, theirs, atol=TOL)
    assert quiet(cm_measures.mcc, y, p, labels=labels, sample_weight=w) == pytest.approx(
        quiet(skm.matthews_corrcoef, y, p, sample_weight=w), abs=TOL)
    assert quiet(cm_measures.accuracy, y, p, labels=labels, sample_weight=w) == pytest.approx(
        skm.accuracy_score(y, p, sample_weight=w), abs=TOL)


@settings(max_examples=40, deadline=None)
@given(labelled(n_classes=3))
def test_one_vs_rest_counts_equal_sklearn_multilabel_confusion(data):
    y, p, w = data
    cm = ConfusionMatrix.from_labels(y, p, labels=[0, 1, 2], sample_weight=w)
    expected = skm.multilabel_confusion_matrix(y, p, labels=[0, 1, 2], sample_weight=w)
    for k in range(3):
        np.testing.assert_allclose(cm.one_vs_rest(k).matrix, expected[k], atol=TOL)
    np.testing.assert_allclose(cm.tp, expected[:, 1, 1], atol=TOL)
    np.testing.assert_allclose(cm.tn, expected[:, 0, 0], atol=TOL)


def test_hand_example_and_aliases():
    # 8 TP, 2 FP, 4 FN, 86 TN, computed by hand
    cm = ConfusionMatrix.from_counts(tp=8, fp=2, fn=4, tn=86)
    assert cm.precision == cm.ppv == 0.8
    assert cm.recall == cm.sensitivity == cm.tpr == cm.car == 8 / 12
    assert cm.specificity == cm.tnr == cm.crr == 86 / 88
    assert cm.fpr == cm.fallout == cm.far == 2 / 88
    assert cm.fnr == cm.miss_rate == cm.frr == 4 / 12
    assert cm.npv == 86 / 90 and cm.fdr == 2 / 10 and cm.rate("for") == 4 / 90
    assert cm.accuracy == 0.94 and cm.error_rate == pytest.approx(0.06)
    assert cm.f1 == pytest.approx(16 / 22) and cm.rate("fbeta", beta=2) == pytest.approx(5 * 8 / (5 * 8 + 4 * 4 + 2))
    assert cm.informedness == cm.youden_j == pytest.approx(8 / 12 + 86 / 88 - 1)
    assert cm.markedness == pytest.approx(0.8 + 86 / 90 - 1)
    assert cm.lr_plus == pytest.approx((8 / 12) / (2 / 88)) and cm.rate("lr-") == pytest.approx((4 / 12) / (86 / 88))
    assert cm.mcc == pytest.approx((8 * 86 - 2 * 4) / np.sqrt(10 * 12 * 88 * 90))
    assert cm.prevalence == 0.12 and cm.majority_accuracy == 0.88
    assert cm.tp == 8 and cm.tn == 86


def test_from_matrix_rows_predicted_and_labels():
    m = np.array([[5, 1, 0], [2, 3, 1], [0, 0, 4]])
    a = ConfusionMatrix.from_matrix(m, ["cat", "dog", "eel"])
    b = ConfusionMatrix.from_matrix(m.T, ["cat", "dog", "eel"], rows="predicted")
    assert a == b and not a.is_binary
    np.testing.assert_array_equal(a.recall, [5 / 6, 3 / 6, 4 / 4])
    assert a.rate("recall", average="macro") == pytest.approx(np.mean([5 / 6, 3 / 6, 1.0]))
    y = ["cat"] * 6 + ["dog"] * 6 + ["eel"] * 4
    p = ["cat"] * 5 + ["dog"] + ["cat"] * 2 + ["dog"] * 3 + ["eel"] + ["eel"] * 4
    assert ConfusionMatrix.from_labels(y, p) == a
    assert a.to_dict()["metrics"]["accuracy"] == pytest.approx(12 / 16)


def test_string_labels_need_positive_for_binary():
    y, p = ["no", "yes", "yes"], ["no", "no", "yes"]
    with pytest.raises(UsageError, match="pos_label"):
        cm_measures.precision(y, p)
    assert cm_measures.precision(y, p, pos_label="yes") == 1.0
    assert ConfusionMatrix.from_labels(y, p, pos_label="yes").recall == 0.5
    assert list(ConfusionMatrix.from_labels(y, p).recall) == [1.0, 0.5]  # no positive: per class


def test_zero_division_policy_warns_once_and_obeys_value():
    y, p = [0, 0, 1], [0, 0, 0]
    with pytest.warns(UndefinedMeasureWarning, match="precision"):
        assert cm_measures.precision(y, p) == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cm_measures.precision(y, p, zero_division=1.0) == 1.0
        assert np.isnan(cm_measures.precision(y, p, zero_division=np.nan))
    # MCC with a zero marginal: 0.0 as scikit-learn, but with a warning (scikit-learn is silent)
    with pytest.warns(UndefinedMeasureWarning, match="mcc"):
        assert cm_measures.mcc(y, p) == 0.0
    with pytest.warns(UndefinedMeasureWarning, match="kappa"):
        assert np.isnan(cm_measures.kappa([1, 1], [1, 1]))
    with pytest.raises(UsageError):
        cm_measures.precision(y, p, zero_division="ignore")


def test_bad_input():
    with pytest.raises(InputError, match="inconsistent numbers of samples"):
        ConfusionMatrix.from_labels([0, 1], [0, 1, 1])
    with pytest.raises(InputError, match="not one of the declared labels"):
        ConfusionMatrix.from_labels([0, 1, 2], [0, 1, 1], labels=[0, 1])
    with pytest.raises(InputError, match="missing value"):
        ConfusionMatrix.from_labels([0.0, np.nan], [0.0, 1.0])
    with pytest.raises(InputError, match="non-negative"):
        ConfusionMatrix.from_labels([0, 1], [0, 1], sample_weight=[1, -1])
    with pytest.raises(InputError, match="finite"):
        ConfusionMatrix.from_labels([0, 1], [0, 1], sample_weight=[1, np.inf])
    with pytest.raises(InputError, match="square"):
        ConfusionMatrix.from_matrix([[1, 2, 3]], [0])
    with pytest.raises(UsageError, match="binary"):
        cm_measures.recall([0, 1, 2], [0, 1, 2])
    with pytest.raises(MeasureError):
        get_rate("nonsense")
    with pytest.raises(AttributeError):
        ConfusionMatrix.from_counts(tp=1, fp=1, fn=1, tn=1).nonsense


def test_every_rate_and_alias_resolves_to_one_definition():
    for rate in RATES:
        for name in (rate.name, *rate.aliases):
            assert get_rate(name) is rate
            assert get_rate(name.upper()) is rate
    cm = ConfusionMatrix.from_counts(tp=3, fp=1, fn=2, tn=4)
    for rate in RATES:
        value = cm.rate(rate.name, beta=1.0) if "beta" in rate.parameters else cm.rate(rate.name)
        assert np.isfinite(value)


def test_integer_weights_equal_repeated_samples():
    rng = np.random.default_rng(1)
    y, p = rng.integers(0, 3, 50), rng.integers(0, 3, 50)
    w = rng.integers(0, 4, 50)
    a = ConfusionMatrix.from_labels(y, p, sample_weight=w)
    b = ConfusionMatrix.from_labels(np.repeat(y, w), np.repeat(p, w), labels=[0, 1, 2])
    np.testing.assert_allclose(a.matrix, b.matrix)


def test_inputs_not_mutated_and_html():
    y, p = np.array([0, 1, 1, 0]), np.array([1, 1, 0, 0])
    y0, p0 = y.copy(), p.copy()
    cm = ConfusionMatrix.from_labels(y, p)
    assert np.array_equal(y, y0) and np.array_equal(p, p0)
    assert "<table>" in cm._repr_html_() and "precision" in cm._repr_html_()
    with pytest.raises(ValueError):
        cm.matrix[0, 0] = 5
