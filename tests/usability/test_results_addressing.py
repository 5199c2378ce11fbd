"""Results addressed the way users ask: any spelling of a measure, per query by query id,
long and wide frames, and curves unpacked like scikit-learn's."""

import pickle

import numpy as np
import pytest

import cranfield

QRELS = {"q1": {"d1": 1, "d2": 0}, "q2": {"d2": 1}, "q3": {"d3": 2}}
RUN = {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d1": 1.0, "d2": 0.5}, "q3": {"d9": 1.0}}


@pytest.fixture(scope="module")
def results():
    return cranfield.evaluate(QRELS, RUN, ["map", "ndcg_cut_10", "P.5"])


@pytest.mark.parametrize("spelling", ["map", "AP"])
def test_mean_by_any_spelling_of_ap(results, spelling):
    assert results.mean[spelling] == pytest.approx(0.5)
    assert results[spelling] == results.mean["AP"]
    assert spelling in results.mean


@pytest.mark.parametrize("spelling", ["ndcg_cut_10", "ndcg_cut.10", "nDCG@10"])
def test_ndcg_by_any_spelling(results, spelling):
    assert results.mean[spelling] == results.mean["nDCG@10"]
    assert results.per_query[spelling]["q1"] == 1.0


def test_unknown_or_unevaluated_measure_is_a_key_error_that_says_why(results):
    with pytest.raises(KeyError, match="P_10.*not among the measures evaluated.*it means P@10"):
        results.mean["P_10"]
    assert "P@10" not in results.mean and "nonsense" not in results.mean
    assert results.mean.get("P@10") is None


def test_per_query_by_query_id_and_by_position(results):
    ap = results.per_query["map"]
    assert ap["q1"] == 1.0 and ap["q2"] == 0.5 and ap["q3"] == 0.0
    assert ap[0] == 1.0 and ap.tolist() == [1.0, 0.5, 0.0]  # numpy access still works
    assert dict(ap) == {"q1": 1.0, "q2": 0.5, "q3": 0.0} == ap.to_dict()
    assert ap.keys() == ["q1", "q2", "q3"] and "q2" in ap and "q9" not in ap
    with pytest.raises(KeyError, match="q9"):
        ap["q9"]


def test_derived_arrays_are_plain_numpy(results):
    ap = results.per_query["AP"]
    assert type(ap + 1) is np.ndarray and type(ap[:2]) is np.ndarray and type(ap.to_numpy()) is np.ndarray
    assert isinstance(ap.sum(), float) and float(np.median(ap)) == 0.5
    assert pickle.loads(pickle.dumps(ap))["q2"] == 0.5
    import copy

    assert copy.deepcopy(results).per_query["AP"]["q2"] == 0.5 and copy.copy(ap)["q1"] == 1.0
    ordered = np.sort(ap)  # a computed order is not the query order: no lookup by qid on it
    assert ordered.tolist() == [0.0, 0.5, 1.0]
    with pytest.raises((KeyError, IndexError)):
        ordered["q1"]


def test_per_query_series_is_indexed_by_qid(results):
    series = results.per_query_series("map")
    assert series.name == "AP" and series.index.name == "qid" and series["q2"] == 0.5


def test_to_pandas_wide_and_long(results):
    wide = results.to_pandas()
    assert list(wide.columns) == ["AP", "nDCG@10", "P@5"] and list(wide.index) == ["q1", "q2", "q3"]
    long = results.to_pandas("long")
    assert list(long.columns) == ["run", "qid", "measure", "value"] and len(long) == 9
    assert long.set_index(["measure", "qid"]).loc[("AP", "q2"), "value"] == 0.5
    assert results.to_pandas(per_query=False).loc["run", "AP"] == pytest.approx(0.5)
    with pytest.raises(cranfield.errors.UsageError):
        results.to_pandas("tall")


def test_curve_unpacks_like_scikit_learn():
    y, s = [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]
    curve = cranfield.roc_curve(y, s)
    fpr, tpr, thresholds = curve
    assert fpr is curve.x and tpr is curve.y and thresholds is curve.thresholds


def test_pr_and_det_curves_unpack_in_scikit_learns_order():
    y, s = [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]
    pr = cranfield.pr_curve(y, s)
    precision, recall, thresholds = pr
    assert precision is pr.y and recall is pr.x and pr.y_name == "precision"
    det = cranfield.det_curve(y, s)
    fpr, fnr, _ = det
    assert fpr is det.x and fnr is det.y and det.y_name == "fnr"


def test_per_query_is_a_mapping_qid_to_value(results):
    """Issue 27, item 5: iteration, ``in``, ``[]``, ``keys``/``values``/``items`` all speak of qids."""
    from collections.abc import Mapping

    ap = results.per_query["AP"]
    assert isinstance(ap, Mapping)
    assert list(ap) == ["q1", "q2", "q3"] == list(ap.keys())
    assert ap.values().tolist() == [1.0, 0.5, 0.0] and ap.items() == [("q1", 1.0), ("q2", 0.5), ("q3", 0.0)]
    assert all(q in ap for q in ap) and {q: ap[q] for q in ap} == dict(ap) == dict(ap.items())
    assert len(ap) == 3 and np.mean(ap) == 0.5  # still an array for numpy
