"""The classification input rules (``classification/_validation.py``), issue 19 item 5.

- weighted curves are bitwise scikit-learn's (same order of additions), and every score measure is
  bitwise unchanged when the weights are multiplied by a power of two, however large or small;
- labels: one kind per column, no missing value, the first offending element named;
- integer scores beyond 2**53: results of integer comparison, or an error naming both rows;
- weights: finite, ≥ 0, not all 0.
"""

import math
from fractions import Fraction
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

import cranfield
import cranfield.classification
from cranfield.classification import measures as cm_measures
from cranfield.classification._validation import MAX_CLASSES, check_labels, check_scores, normalize_weights
from cranfield.errors import InputError, UsageError

POWERS_OF_TWO = (2.0**-664, 2.0**-40, 2.0**1000)  # ≈ 1e-200, 1e-12, 1e301: exact rescalings
DECIMAL_SCALES = (1e-200, 1e-12, 1e300)  # c·w is rounded: the inputs themselves differ by ≤ ½ ulp


@st.composite
def weighted(draw, min_size=2):
    n = draw(st.integers(min_size, 50))
    y = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    y[0], y[1] = True, False
    s = np.array(draw(st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.7, 0.9, 1.0, -3.0]), min_size=n,
                               max_size=n)))
    # 0 or in [1e-3, 10]: the scaled weights below stay normal numbers (w · 2**-664 ≥ 1e-203)
    w = np.array(draw(st.lists(st.one_of(st.just(0.0), st.floats(1e-3, 10.0)), min_size=n, max_size=n)))
    w[0], w[1] = draw(st.floats(0.01, 10.0)), draw(st.floats(0.01, 10.0))
    return y, s, w


def _ulps(a: float, b: float, n: int) -> bool:
    return abs(a - b) <= n * math.ulp(max(abs(a), abs(b), 1e-300))


# ------------------------------------------------------------------ scikit-learn, bitwise
@settings(max_examples=120, deadline=None)
@given(weighted())
def test_weighted_curves_are_bitwise_sklearn(data):
    """Same sort (decreasing, ties in input order) and the same cumulative sums as scikit-learn:
    the curves are compared with ``array_equal``, at the raw scale and at extreme power-of-two scales."""
    y, s, w = data
    fpr, tpr, thr = skm.roc_curve(y, s, sample_weight=w, drop_intermediate=False)
    precision, recall, _ = skm.precision_recall_curve(y, s, sample_weight=w, drop_intermediate=False)
    for scale in (1.0, *POWERS_OF_TWO):
        roc = cranfield.roc_curve(y, s, sample_weight=w * scale)
        assert np.array_equal(roc.x, fpr) and np.array_equal(roc.y, tpr) and np.array_equal(roc.thresholds, thr)
        pr = cranfield.pr_curve(y, s, sample_weight=w * scale)
        assert np.array_equal(pr.x, recall[::-1]) and np.array_equal(pr.y, precision[::-1])
        assert np.array_equal(roc.tps, roc.tps) and np.array_equal(roc.fps / scale, cranfield.roc_curve(
            y, s, sample_weight=w).fps)  # counts come back in the units of the weights, exactly


def _exact_areas(y, s, w) -> tuple[Fraction, Fraction]:
    """Weighted ROC AUC (Mann–Whitney, ties counted half) and AP (Σ ΔTP·precision / P over the
    distinct thresholds), in exact rational arithmetic on the doubles given."""
    y, s, w = list(map(bool, y)), [Fraction(float(v)) for v in s], [Fraction(float(v)) for v in w]
    pos = [(si, wi) for yi, si, wi in zip(y, s, w) if yi]
    neg = [(si, wi) for yi, si, wi in zip(y, s, w) if not yi]
    P, N = sum(wi for _, wi in pos), sum(wi for _, wi in neg)
    wins = sum(wp * wn * (1 if sp > sn else Fraction(1, 2) if sp == sn else 0) for sp, wp in pos for sn, wn in neg)
    ap = Fraction(0)
    previous = Fraction(0)
    for t in sorted(set(s), reverse=True):
        tp = sum(wi for si, wi in pos if si >= t)
        fp = sum(wi for si, wi in neg if si >= t)
        if tp > previous:
            ap += (tp - previous) / P * tp / (tp + fp)
        previous = tp
    return wins / (P * N), ap / 1


@settings(max_examples=60, deadline=None)
@given(weighted())
def test_weighted_areas_match_sklearn(data):
    """ROC AUC and AP against their exact rational values, cranfield and scikit-learn alike.
    AUC: both sum trapezoids over normalised rates in [0, 1], whose rounding errors are absolute,
    not relative to the area (a tiny AUC of 5e-5 is ~1,000 ulps of itself off in both): within
    4 ulps of 1.0 (measured worst over 4,000 random cases: 1.5 for cranfield, 1.25 for
    scikit-learn). AP: cranfield's one pass of non-negative terms ΔTP·precision/P stays within 16
    ulps of the value (measured worst: 4); scikit-learn's Σ Δrecall·precision within 4 ulps of 1.0."""
    y, s, w = data
    auc, ap = map(float, _exact_areas(y, s, w))
    absolute = 4 * math.ulp(1.0)
    assert abs(cranfield.roc_auc(y, s, sample_weight=w) - auc) <= absolute
    assert abs(skm.roc_auc_score(y, s, sample_weight=w) - auc) <= absolute
    assert _ulps(cranfield.average_precision(y, s, sample_weight=w), ap, 16)
    assert abs(skm.average_precision_score(y, s, sample_weight=w) - ap) <= absolute


def test_small_weighted_auc_is_the_exact_value():
    """The case hypothesis found: AUC = 1/130 exactly; cranfield gives the correctly rounded
    double, scikit-learn's trapezoid 28 ulps of it below."""
    y, s, w = np.array([True, False, False, False]), np.array([0, .1, 0, 0]), np.array([1, 2, 0, .03125])
    assert _exact_areas(y, s, w)[0] == Fraction(1, 130)
    assert cranfield.roc_auc(y, s, sample_weight=w) == 1 / 130


@settings(max_examples=60, deadline=None)
@given(weighted())
def test_weighted_confusion_matrix_is_bitwise_sklearn(data):
    y, s, w = data
    pred = s >= 0.5
    for scale in (1.0, *POWERS_OF_TWO[:2]):
        ours = cranfield.ConfusionMatrix.from_labels(y, pred, sample_weight=w * scale).matrix
        assert np.array_equal(ours, skm.confusion_matrix(y, pred, sample_weight=w * scale))


# ------------------------------------------------------------------ scale invariance
def _score_measures(y, s, w):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        point = cranfield.best_threshold(y, s, criterion="f1", sample_weight=w)
        cost = cranfield.best_threshold(y, s, criterion="cost", cost_fn=3, sample_weight=w)
        cm = cranfield.ConfusionMatrix.from_labels(y, s >= 0.5, sample_weight=w)
        return {
            "roc_auc": cranfield.roc_auc(y, s, sample_weight=w),
            "partial_auc": cranfield.roc_auc(y, s, sample_weight=w, max_fpr=0.5),
            "average_precision": cranfield.average_precision(y, s, sample_weight=w),
            "eer": cranfield.equal_error_rate(y, s, sample_weight=w),
            "interpolated_ap": cranfield.interpolated_average_precision(y, s, sample_weight=w),
            "roc_x": tuple(cranfield.roc_curve(y, s, sample_weight=w).x),
            "pr_y": tuple(cranfield.pr_curve(y, s, sample_weight=w).y),
            "det_y": tuple(cranfield.det_curve(y, s, sample_weight=w).y),
            "f1_threshold": point.threshold, "f1": point.value, "cost": cost.value,
            "precision": cm.precision, "mcc": cm.mcc, "kappa": cm.kappa, "lr_plus": cm.lr_plus, "dor": cm.rate("dor"),
            "brier": cranfield.brier_score(y, np.clip(s, 0, 1), sample_weight=w),
            "log_loss": cranfield.log_loss(y, np.clip(s, 0, 1), sample_weight=w),
        }


@settings(max_examples=40, deadline=None)
@given(weighted(), st.sampled_from(POWERS_OF_TWO))
def test_power_of_two_scales_change_nothing(data, scale):
    """Weights times 2**k (k = −664 … 1000): every score measure is bitwise the same (the weights are
    normalised by a power of two before any sum: the same numbers are added)."""
    y, s, w = data
    base, scaled = _score_measures(y, s, w), _score_measures(y, s, w * scale)
    for key, value in base.items():  # bitwise, NaN (an undefined likelihood ratio) equal to NaN
        assert np.array_equal(np.array(value), np.array(scaled[key]), equal_nan=True), key


@settings(max_examples=40, deadline=None)
@given(weighted(), st.sampled_from(DECIMAL_SCALES))
def test_decimal_scales_change_nothing_but_rounding(data, scale):
    """Weights times 1e-200, 1e-12 or 1e300: c·w is itself rounded (½ ulp per weight), so results may
    move by a few ulps — and never become NaN, 0 or inf (they did before the normalisation)."""
    y, s, w = data
    base, scaled = _score_measures(y, s, w), _score_measures(y, s, w * scale)
    for key, value in base.items():
        values = value if isinstance(value, tuple) else (value,)
        others = scaled[key] if isinstance(value, tuple) else (scaled[key],)
        assert len(values) == len(others), key
        for a, b in zip(values, others):
            assert math.isfinite(b) == math.isfinite(a) and math.isnan(a) == math.isnan(b), key
            if math.isfinite(a):
                assert abs(a - b) <= 1e-9 * max(1.0, abs(a)), (key, a, b)


def test_extreme_weights_before_and_after():
    """The issue's example: scikit-learn's numbers at weights w, 1e-200·w and 1e308·w (before the
    fix: roc_auc NaN at both extremes, EER 0.0 at 1e308)."""
    y = [0, 1, 1, 0, 1, 0]
    s = [0.1, 0.4, 0.35, 0.8, 0.9, 0.2]
    w = np.array([0.2, 0.4, 0.6, 0.2, 0.4, 1.0])
    expected_auc = skm.roc_auc_score(y, s, sample_weight=w)
    expected_ap = skm.average_precision_score(y, s, sample_weight=w)
    eer = cranfield.equal_error_rate(y, s, sample_weight=w)
    for scale in (1e-200, 1e308):
        assert _ulps(cranfield.roc_auc(y, s, sample_weight=w * scale), expected_auc, 4)
        assert _ulps(cranfield.average_precision(y, s, sample_weight=w * scale), expected_ap, 4)
        assert _ulps(cranfield.equal_error_rate(y, s, sample_weight=w * scale), eer, 4)
    for scale in (2.0**-664, 2.0**1022):
        assert cranfield.roc_auc(y, s, sample_weight=w * scale) == cranfield.roc_auc(y, s, sample_weight=w)
        assert cranfield.equal_error_rate(y, s, sample_weight=w * scale) == eer


def test_counts_stay_in_the_units_of_the_weights():
    y, s, w = [1, 0, 1, 0], [0.9, 0.8, 0.4, 0.2], np.array([3.0, 5.0, 7.0, 2.0])
    counts = cranfield.classification.score_counts(y, s, sample_weight=w)
    assert counts.exponent == 0 and counts.tps.tolist() == [3, 3, 10, 10] and counts.fps.tolist() == [0, 5, 5, 7]
    sweep = cranfield.threshold_sweep(y, s, sample_weight=w)
    assert sweep["tp"].tolist() == [0, 3, 3, 10, 10] and sweep["tn"].tolist() == [7, 7, 2, 2, 0]
    point = cranfield.best_threshold(y, s, criterion="accuracy", sample_weight=w)
    assert point.threshold == 0.4 and (point.tp, point.fp, point.fn, point.tn) == (10.0, 5.0, 0.0, 2.0)
    assert cranfield.roc_curve(y, s, sample_weight=w).fps.tolist() == [0, 0, 5, 5, 7]


def test_normalize_weights_is_an_exact_power_of_two():
    for top in (1e-310, 1e-200, 0.75, 1.0, 3.0, 1e308):
        w = np.array([top, top / 3, 0.0])
        scaled, exponent = normalize_weights(w)
        assert 0.5 <= scaled.max() < 1 and np.array_equal(np.ldexp(scaled, exponent), w)


# ------------------------------------------------------------------ weights
@pytest.mark.parametrize("weights, message", [
    ([0, 0, 0, 0], "all sample weights are 0"),
    ([1, -1, 1, 1], "expected non-negative weights, found -1.0 at index 1"),
    ([1, np.nan, 1, 1], "expected finite numbers, found nan at index 1"),
    ([1, 1, np.inf, 1], "expected finite numbers, found inf at index 2"),
    ([1, 1, "a", 1], "expected a number, found text '1' at index 0"),
])
def test_bad_weights(weights, message):
    for call in (lambda: cranfield.roc_auc([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4], sample_weight=weights),
                 lambda: cranfield.ConfusionMatrix.from_labels([0, 1, 0, 1], [0, 1, 1, 1], sample_weight=weights),
                 lambda: cranfield.brier_score([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4], sample_weight=weights)):
        with pytest.raises(InputError, match="field sample_weight: ") as info:
            call()
        assert message in str(info.value)


def test_confusion_counts_that_overflow_are_an_error():
    with pytest.raises(InputError, match="weighted counts overflow float64"):
        cranfield.ConfusionMatrix.from_labels([0, 0, 1], [0, 0, 1], sample_weight=[1e308, 1e308, 1.0])
    # rates of a matrix whose counts are near the top of float64: scale-free, no overflow to inf/NaN
    cm = cranfield.ConfusionMatrix.from_counts(tp=1e308, fp=1e308, fn=1e307, tn=1e308)
    small = cranfield.ConfusionMatrix.from_counts(tp=1.0, fp=1.0, fn=0.1, tn=1.0)
    for name in ("precision", "lr_plus", "dor", "mcc", "kappa", "f1", "accuracy", "balanced_accuracy"):
        assert _ulps(cm.rate(name), small.rate(name), 8), name


# ------------------------------------------------------------------ labels
MISSING = [None, float("nan"), np.nan, np.float32("nan")]


def _missing_values():
    pd = pytest.importorskip("pandas")
    return MISSING + [pd.NA, pd.NaT, np.datetime64("NaT")]


@pytest.mark.parametrize("position", [0, 2])
def test_missing_labels_are_errors_naming_the_row(position):
    for missing in _missing_values():
        labels = [0, 1, 1, 0]
        labels[position] = missing
        for call in (lambda: cranfield.roc_auc(labels, [0.1, 0.2, 0.3, 0.4]),
                     lambda: cranfield.ConfusionMatrix.from_labels(labels, [0, 1, 1, 0]),
                     lambda: cranfield.ConfusionMatrix.from_labels([0, 1, 1, 0], labels),
                     lambda: cm_measures.precision(labels, [0, 1, 1, 0])):
            with pytest.raises(InputError, match=f"expected a label, found a missing value .* at index {position}"):
                call()


def test_missing_labels_in_frames():
    """pandas nullable/categorical/datetime, polars and Arrow columns: the null is found before any
    conversion (pandas Int64 → float NaN, Arrow → None...)."""
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    pa = pytest.importorskip("pyarrow")
    scores = [0.1, 0.2, 0.3, 0.4]
    columns = [pd.Series([0, 1, None, 1], dtype="Int64"), pd.Series([True, False, None, True], dtype="boolean"),
               pd.Series(["a", "b", None, "a"], dtype="string"), pd.Series(["a", "b", pd.NA, "a"], dtype=object),
               pd.Series(pd.to_datetime(["2020-01-01", "2020-01-02", None, "2020-01-01"])),
               pd.Series(pd.Categorical(["a", "b", None, "a"])),
               pl.Series([0, 1, None, 1]), pl.Series(["a", "b", None, "a"]), pa.array([0, 1, None, 1]),
               pa.chunked_array([[0, 1], [None, 1]])]
    for column in columns:
        with pytest.raises(InputError, match="field y_true: expected a label, found a missing value.* at index 2"):
            cranfield.roc_auc(column, scores)
        with pytest.raises(InputError, match="field y_pred: expected a label, found a missing value.* at index 2"):
            cranfield.ConfusionMatrix.from_labels([0, 0, 0, 0], column)


@pytest.mark.parametrize("labels, index, found", [
    ([0, 1, "1"], 2, "found '1' (string)"),
    (["a", "b", 1], 2, "found 1 (number)"),
    ([0, 1, True, 0], 2, "found True (bool)"),
    ([True, False, 0], 2, "found 0 (number)"),
    ([b"a", "a"], 1, "found 'a' (string)"),
    ((0, 1.5, "x"), 2, "found 'x' (string)"),
])
def test_mixed_label_types_are_errors_naming_the_first_row(labels, index, found):
    with pytest.raises(InputError, match=f"expected labels of one type .*{re.escape(found)} at index {index}"):
        cranfield.ConfusionMatrix.from_labels(labels, labels)
    with pytest.raises(InputError, match=f"field y_true: expected labels of one type .* at index {index}"):
        check_labels(np.array(labels, dtype=object))


def test_issue_example_three_classes_no_more():
    """Before: ConfusionMatrix.from_labels([0, 1, '1'], [0, 1, 1]) had 4 classes ['0', '1', 0, 1]."""
    with pytest.raises(InputError, match="field y_true: expected labels of one type .* found '1' .* at index 2"):
        cranfield.ConfusionMatrix.from_labels([0, 1, "1"], [0, 1, 1])
    with pytest.raises(InputError, match="field y_pred: expected labels of the same type as y_true"):
        cranfield.ConfusionMatrix.from_labels(np.array(["0", "1"]), np.array([0, 1]))
    with pytest.raises(UsageError, match="pos_label=1 .number. is not of the type of the labels"):
        cranfield.roc_auc(["1", "1"], [0.2, 0.3], pos_label=1)
    # numbers of several Python/NumPy types are one kind; booleans meet numbers across arrays
    assert cranfield.ConfusionMatrix.from_labels([0, 1.0, np.int64(1)], [0, 1, 1]).labels == [0, 1]
    assert cranfield.ConfusionMatrix.from_labels(np.array([True, False]), np.array([1, 0])).matrix.tolist() == \
        [[1, 0], [0, 1]]


KINDS = {"int": st.integers(-3, 3), "float": st.sampled_from([0.5, 1.0, 2.0]), "str": st.sampled_from(["a", "1"]),
         "bool": st.booleans(), "none": st.none(), "nan": st.just(float("nan"))}
KIND_OF = {"int": "number", "float": "number", "str": "string", "bool": "bool"}


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(sorted(KINDS)), min_size=1, max_size=12).flatmap(
    lambda kinds: st.tuples(st.just(kinds), st.tuples(*[KINDS[k] for k in kinds]))))
def test_label_rules_property(drawn):
    """Accepted iff no value is missing and all are of one kind; otherwise the error names the first
    row that is missing or whose kind differs from the first row's."""
    kinds, values = drawn
    labels = list(values)
    expected = None
    for i, k in enumerate(kinds):
        if k in ("none", "nan") or KIND_OF[k] != KIND_OF.get(kinds[0]):
            expected = i
            break
    if expected is None:
        assert len(check_labels(labels)) == len(labels)
        cm = cranfield.ConfusionMatrix.from_labels(labels, labels)
        # one class 0, 1, -1 or a bool is read as a binary problem (documented policy)
        assert cm.n_classes in (len(set(labels)), 2) and cm.total == len(labels)
    else:
        with pytest.raises(InputError, match=f"at index {expected}$"):
            check_labels(labels)


def test_class_cap():
    many = np.arange(MAX_CLASSES + 1)
    with pytest.raises(InputError, match=f"found {MAX_CLASSES + 1} distinct labels; at most {MAX_CLASSES} classes"):
        cranfield.ConfusionMatrix.from_labels(many, many)
    assert cranfield.ConfusionMatrix.from_labels(many[:-1], many[:-1]).n_classes == MAX_CLASSES
    with pytest.raises(UsageError, match="at most 1000"):
        cranfield.ConfusionMatrix.from_labels([0], [0], labels=list(range(MAX_CLASSES + 1)))


# ------------------------------------------------------------------ scores
def test_integer_scores_beyond_2_53_that_would_tie_are_refused():
    big = 2**53
    for scores in ([big, big + 1], np.array([big, big + 1], dtype=np.int64), np.array([big, big + 1], dtype=np.uint64),
                   [2**70, 2**70 + 1], [-(big + 1), -big]):
        with pytest.raises(InputError, match="integer scores beyond 2\\*\\*53 would tie as float64: .* at index 1"):
            cranfield.roc_auc([0, 1], scores)
    # before: roc_auc([0, 1], [2**53, 2**53 + 1]) was 0.5 (a silent tie), the integers say 1.0


def test_integer_scores_beyond_2_53_that_stay_apart_are_exact():
    """float64 rounding is monotone: when no two integers merge, results are those of integer order."""
    rng = np.random.default_rng(7)
    ranks = rng.permutation(200)
    scores = (2**60 + ranks.astype(np.int64) * 2**8)  # multiples of 2**8: exact in float64
    y = rng.random(200) < 0.4
    y[:2] = True, False
    assert cranfield.roc_auc(y, scores) == cranfield.roc_auc(y, ranks)
    assert cranfield.average_precision(y, scores) == cranfield.average_precision(y, ranks)
    huge = [2**80, 2**81, 3 * 2**80]  # Python ints beyond int64, exact as floats
    assert cranfield.roc_auc([0, 1, 1], huge) == cranfield.roc_auc([0, 1, 1], [1, 2, 3])


@pytest.mark.parametrize("scores, message", [
    ([0.1, None], "expected a number, found None at index 1"),
    (["0.1", "0.2"], "expected a number, found text '0.1' at index 0"),
    ([0.1, float("nan")], "expected finite numbers, found nan at index 1"),
    ([0.1, 10**400], "expected a finite number, found 1000"),
    (np.array(["2020-01-01", "2020-01-02"], dtype="M8[D]"), "expected a number, found"),
])
def test_bad_scores(scores, message):
    with pytest.raises(InputError, match="field y_score: ") as info:
        check_scores(scores)
    assert message in str(info.value)


def test_missing_scores_in_frames():
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    for column in (pd.Series([0.1, None, 0.3]), pd.Series([1, None, 3], dtype="Int64"), pl.Series([0.1, None, 0.3])):
        with pytest.raises(InputError, match="field y_score: expected a .* at index 1"):
            cranfield.roc_auc([0, 1, 1], column)


# ------------------------------------------------------------------ Dask partitions: the same rules
def _dask_frame(columns, npartitions=2):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    return dd.from_pandas(pd.DataFrame(columns), npartitions=npartitions, sort=False)


def test_dask_partitions_follow_the_same_rules():
    pytest.importorskip("dask")
    import dask

    import cranfield.dask as cd
    pd = pytest.importorskip("pandas")
    with dask.config.set(scheduler="synchronous"):
        frame = _dask_frame({"y": pd.array([1, 0, 1, 0, None, 1], dtype="Int64"), "s": [.9, .1, .8, .3, .5, .6]})
        with pytest.raises(InputError, match="field y_true: expected a label, found a missing "
                                             "value .* at index 4"):
            cd.score_stats(frame, y_true="y", y_score="s")
        frame = _dask_frame({"y": [1, 0, 1, 0, 0, 1], "s": [.9, .1, np.nan, .3, .5, .6]})
        with pytest.raises(InputError, match="field y_score: expected a number, found a missing value .nan. "
                                             "at index 2"):
            cd.score_stats(frame, y_true="y", y_score="s", bins=4)
        # a partition may weigh 0; the statistic equals the in-memory one, at any weight scale
        y, s, w = [1, 0, 1, 0, 0, 1], [.9, .1, .8, .3, .5, .6], np.array([0, 0, 0, 1, 2, 3.0])
        for scale in (1.0, 2.0**-664, 1e300):
            stats = cd.score_stats(_dask_frame({"y": y, "s": s, "w": w * scale}), y_true="y", y_score="s",
                                   sample_weight="w")
            assert stats.roc_auc() == cranfield.roc_auc(y, s, sample_weight=w * scale)
    from cranfield.dask.counts import ScoreStats

    numbers = ScoreStats.from_arrays([1, 0], [0.5, 0.2])
    strings = ScoreStats.from_arrays(["1", "0"], [0.5, 0.2], pos_label="1")
    with pytest.raises(InputError, match="expected labels of one type across parts: part 1 holds string labels"):
        ScoreStats.merge([numbers, strings])
    booleans = ScoreStats.from_arrays([True, False], [0.4, 0.1])
    assert ScoreStats.merge([numbers, booleans]).n_pos == 2


def test_empty_line_inside_a_table_names_its_line(tmp_path):
    """Arrow skips empty lines, which shifted every later line number by one (found in review):
    an empty line before data is now an error at its own line; empty lines at the end are fine."""
    from cranfield.classification.table import number_column, read_table

    inner = tmp_path / "inner.csv"
    inner.write_text("y,s\n1,0.5\n\n0,x\n")
    with pytest.raises(InputError) as info:
        read_table(str(inner))
    assert info.value.line == 3 and "empty line" in str(info.value)
    trailing = tmp_path / "trailing.csv"
    trailing.write_text("y,s\n1,0.5\n0,x\n\n\n")
    table, first = read_table(str(trailing))
    with pytest.raises(InputError) as info:
        number_column(table, "s", str(trailing), first)
    assert info.value.line == 3 and info.value.field == "s"
