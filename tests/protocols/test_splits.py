"""Splitters: stratification bounds, disjointness and coverage (property tests), determinism."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import cranfield
from cranfield.errors import InputError, UsageError
from cranfield.protocols.splits import (folds_from_cv, group_kfold, holdout, kfold, query_holdout, query_kfold,
                                        relevant_counts, subset_queries, train_validation_test)

labels = st.lists(st.integers(0, 3), min_size=6, max_size=80)


def _stratified_enough(y, k):
    return np.unique(y, return_counts=True)[1].max() >= k


@settings(max_examples=60, deadline=None)
@given(y=labels, k=st.integers(2, 5), repeats=st.integers(1, 3), seed=st.integers(0, 2**16))
def test_stratified_kfold_bounds_and_partition(y, k, repeats, seed):
    y = np.array(y)
    if not _stratified_enough(y, k) or len(y) < k:
        with pytest.raises((InputError, UsageError)):
            kfold(y, n_splits=k, repeats=repeats, stratify=True, random_state=seed)
        return
    folds = kfold(y, n_splits=k, repeats=repeats, stratify=True, random_state=seed)
    assert len(folds) == k * repeats
    classes, totals = np.unique(y, return_counts=True)
    for r in range(repeats):
        mine = [f for f in folds if f.repeat == r]
        assert [f.fold for f in mine] == list(range(k))
        # every index is tested exactly once per repeat
        tested = np.concatenate([f.test for f in mine])
        assert np.array_equal(np.sort(tested), np.arange(len(y)))
        for f in mine:
            assert np.intersect1d(f.train, f.test).size == 0
            assert np.array_equal(np.union1d(f.train, f.test), np.arange(len(y)))
            counts = np.array([(y[f.test] == c).sum() for c in classes])
            # class counts per fold differ by at most one from proportional (n_c / k): floor or ceil
            assert np.all(np.abs(counts - totals / k) < 1)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(4, 60), k=st.integers(2, 4), seed=st.integers(0, 2**16))
def test_plain_kfold_partition(n, k, seed):
    folds = kfold(n, n_splits=k, random_state=seed)
    tested = np.concatenate([f.test for f in folds])
    assert np.array_equal(np.sort(tested), np.arange(n))
    sizes = [len(f.test) for f in folds]
    assert max(sizes) - min(sizes) <= 1
    for f in folds:
        assert np.intersect1d(f.train, f.test).size == 0 and len(f.train) + len(f.test) == n


@settings(max_examples=50, deadline=None)
@given(y=labels, test_size=st.floats(0.1, 0.6), seed=st.integers(0, 2**16))
def test_stratified_holdout_bounds(y, test_size, seed):
    y = np.array(y)
    classes, totals = np.unique(y, return_counts=True)
    n_test = int(np.ceil(test_size * len(y)))
    if totals.min() < 2 or n_test < len(classes) or len(y) - n_test < len(classes):
        return  # scikit-learn refuses these (too few members to stratify)
    split = holdout(y, test_size=test_size, stratify=True, random_state=seed)
    assert len(split.test) == n_test
    assert np.intersect1d(split.train, split.test).size == 0
    assert np.array_equal(np.union1d(split.train, split.test), np.arange(len(y)))
    counts = np.array([(y[split.test] == c).sum() for c in classes])
    assert np.all(np.abs(counts - totals * n_test / len(y)) < 1)


def test_train_validation_test_disjoint_and_sizes():
    y = np.repeat([0, 1], [70, 130])
    train, validation, test = train_validation_test(y, stratify=True, random_state=3)
    parts = np.concatenate([train, validation, test])
    assert np.array_equal(np.sort(parts), np.arange(200))
    assert (len(train), len(validation), len(test)) == (140, 30, 30)
    # stratified: 35% positives... 0-class share 0.35 in each part within one sample
    for part in (train, validation, test):
        assert abs((y[part] == 0).sum() - 0.35 * len(part)) < 1 + 1e-9
    with pytest.raises(UsageError):
        train_validation_test(y, sizes=(0.5, 0.5, 0.5))


def test_deterministic_with_random_state():
    y = np.tile([0, 1, 1, 2], 25)
    a = kfold(y, n_splits=5, repeats=2, stratify=True, random_state=7)
    b = kfold(y, n_splits=5, repeats=2, stratify=True, random_state=7)
    c = kfold(y, n_splits=5, repeats=2, stratify=True, random_state=8)
    assert all(np.array_equal(x.test, z.test) for x, z in zip(a, b))
    assert not all(np.array_equal(x.test, z.test) for x, z in zip(a, c))
    assert np.array_equal(holdout(y, random_state=1).test, holdout(y, random_state=1).test)
    assert np.array_equal(query_kfold([f"q{i}" for i in range(30)], random_state=2)[0][1],
                          query_kfold([f"q{i}" for i in range(30)], random_state=2)[0][1])


def test_repeats_differ_and_match_sklearn():
    from sklearn.model_selection import RepeatedStratifiedKFold

    y = np.tile([0, 1, 1], 20)
    folds = kfold(y, n_splits=3, repeats=2, stratify=True, random_state=0)
    expected = list(RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=0).split(np.zeros((60, 1)), y))
    assert all(np.array_equal(f.test, np.sort(t)) for f, (_, t) in zip(folds, expected))
    assert not np.array_equal(folds[0].test, folds[3].test)


@settings(max_examples=30, deadline=None)
@given(groups=st.lists(st.integers(0, 9), min_size=5, max_size=60), k=st.integers(2, 4))
def test_group_kfold_never_splits_a_group(groups, k):
    groups = np.array(groups)
    if len(np.unique(groups)) < k:
        with pytest.raises(UsageError):
            group_kfold(groups, n_splits=k)
        return
    folds = group_kfold(groups, n_splits=k)
    assert np.array_equal(np.sort(np.concatenate([f.test for f in folds])), np.arange(len(groups)))
    for f in folds:
        assert not set(groups[f.train]) & set(groups[f.test])


def test_folds_unpack_and_feed_sklearn(small_cancer, logreg):
    from sklearn.model_selection import cross_val_score

    X, y = small_cancer
    folds = kfold(y, n_splits=4, stratify=True, random_state=0)
    train, test = folds[0]
    assert np.array_equal(train, folds[0].train) and np.array_equal(test, folds[0].test)
    assert len(cross_val_score(logreg, X, y, cv=folds)) == 4


def test_folds_from_cv_checks_pairs():
    y = np.array([0, 1] * 5)
    with pytest.raises(UsageError, match="both train and test"):
        folds_from_cv([(np.arange(6), np.arange(5, 10))], y)
    with pytest.raises(UsageError, match="out of range"):
        folds_from_cv([(np.arange(5), np.arange(5, 11))], y)
    with pytest.raises(UsageError, match="boolean"):
        folds_from_cv([(np.arange(10) < 5, np.arange(10) >= 5)], y)
    folds = folds_from_cv(4, y, repeats=2, random_state=0)
    assert len(folds) == 8 and folds[7].repeat == 1


# ---------------------------------------------------------------------------- query sets
@settings(max_examples=50, deadline=None)
@given(strata=st.lists(st.integers(0, 4), min_size=4, max_size=60), k=st.integers(2, 4), seed=st.integers(0, 999))
def test_query_kfold_stratified_partition(strata, k, seed):
    ids = [f"q{i}" for i in range(len(strata))]
    if k > len(ids):
        return
    mapping = dict(zip(ids, strata))
    splits = query_kfold(ids, n_splits=k, strata=mapping, n_bins=10, random_state=seed)
    tested = np.concatenate([test for _, test in splits])
    assert sorted(tested.tolist()) == sorted(ids)
    sizes = [len(test) for _, test in splits]
    assert max(sizes) - min(sizes) <= 1
    values, totals = np.unique(strata, return_counts=True)
    for train, test in splits:
        assert not set(train) & set(test) and len(train) + len(test) == len(ids)
        counts = np.array([sum(mapping[q] == v for q in test) for v in values])
        assert np.all(np.abs(counts - totals / k) < 1)


@settings(max_examples=50, deadline=None)
@given(strata=st.lists(st.integers(0, 3), min_size=4, max_size=60), test_size=st.floats(0.1, 0.7),
       seed=st.integers(0, 999))
def test_query_holdout_stratified(strata, test_size, seed):
    ids = [f"q{i}" for i in range(len(strata))]
    n_test = int(np.ceil(len(ids) * test_size))
    if n_test >= len(ids):
        with pytest.raises(UsageError):
            query_holdout(ids, test_size=test_size, strata=strata, random_state=seed)
        return
    train, test = query_holdout(ids, test_size=test_size, strata=strata, n_bins=10, random_state=seed)
    assert len(test) == n_test and not set(train) & set(test) and len(train) + len(test) == len(ids)
    values, totals = np.unique(strata, return_counts=True)
    counts = np.array([sum(strata[int(q[1:])] == v for q in test) for v in values])
    assert np.all(np.abs(counts - totals * n_test / len(ids)) < 1)


def test_numeric_strata_binned_and_relevant_counts():
    qrels = cranfield.Qrels.from_dict({"a": {"d1": 1, "d2": 0}, "b": {"d1": 2, "d3": 1, "d4": 1}, "c": {"d9": 0}})
    assert relevant_counts(qrels) == {"a": 1, "b": 3, "c": 0}
    assert relevant_counts(qrels, relevance_level=2) == {"a": 0, "b": 1, "c": 0}
    ids = [f"q{i}" for i in range(40)]
    splits = query_kfold(ids, n_splits=4, strata=np.arange(40), n_bins=4, random_state=0)
    for _, test in splits:  # each quartile of the attribute contributes 10/4 = 2 or 3 queries
        quartiles = np.array([int(q[1:]) // 10 for q in test])
        assert set(np.bincount(quartiles, minlength=4)) <= {2, 3}
    with pytest.raises(InputError):
        query_kfold(ids, strata={"q0": 1})


def test_subset_queries_slices_qrels_and_runs():
    qrels = cranfield.Qrels.from_dict({"a": {"d1": 1, "d2": 0}, "b": {"d1": 2}, "c": {"d9": 1}})
    run = cranfield.Run.from_dict({"a": {"d1": 1.0}, "b": {"d2": 0.5, "d1": 0.2}, "c": {"d9": 3.0}}, name="x")
    sub = subset_queries(qrels, ["a", "c"])
    assert isinstance(sub, cranfield.Qrels) and sub.to_dict() == {"a": {"d1": 1, "d2": 0}, "c": {"d9": 1}}
    sub_run = subset_queries(run, {"b"})
    assert isinstance(sub_run, cranfield.Run) and sub_run.name == "x"
    assert sub_run.to_dict() == {"b": {"d2": 0.5, "d1": 0.2}}
    assert qrels.to_dict()["b"] == {"d1": 2}  # input unchanged
    assert len(subset_queries(run, [])) == 0


def test_input_errors():
    with pytest.raises(UsageError):
        kfold(10, n_splits=1)
    with pytest.raises(UsageError):
        kfold(3, n_splits=5)
    with pytest.raises(UsageError):
        kfold(10, n_splits=2, repeats=2, shuffle=False)
    with pytest.raises(UsageError):
        holdout(10, test_size=1.5)
    with pytest.raises(InputError):
        holdout(np.zeros((3, 2)))
    with pytest.raises(InputError):
        query_kfold(["a", "a", "b"])


@settings(max_examples=40, deadline=None)
@given(n=st.integers(10, 120), seed=st.integers(0, 2**16), stratify=st.booleans())
def test_train_validation_test_partition_property(n, seed, stratify):
    y = np.arange(n) % 2
    train, validation, test = train_validation_test(y, stratify=stratify, random_state=seed)
    assert not (set(train) & set(validation) or set(train) & set(test) or set(validation) & set(test))
    assert np.array_equal(np.sort(np.concatenate([train, validation, test])), np.arange(n))
    assert (len(validation), len(test)) == (max(1, round(0.15 * n)), max(1, round(0.15 * n)))
