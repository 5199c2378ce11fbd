"""Clustering scores against scikit-learn (the oracle, test-only), properties, bad input."""

import numpy as np
import pytest

from cranfield.classification import clustering as cl
from cranfield.errors import InputError, UsageError

metrics = pytest.importorskip("sklearn.metrics")
from sklearn.metrics import cluster as skc  # noqa: E402

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

EXTERNAL = ["adjusted_rand_score", "rand_score", "mutual_info_score", "fowlkes_mallows_score", "homogeneity_score",
            "completeness_score", "v_measure_score"]


def _cases(count=30, seed=0):
    rng = np.random.default_rng(seed)
    for trial in range(count):
        n = int(rng.integers(2, 200))
        t = rng.integers(0, int(rng.integers(1, 8)), n)
        p = t.copy() if trial % 5 == 0 else rng.integers(0, int(rng.integers(1, 8)), n)
        yield t, p


@pytest.mark.parametrize("name", EXTERNAL)
def test_external_equal_to_sklearn(name):
    for t, p in _cases():
        assert getattr(cl, name)(t, p) == getattr(metrics, name)(t, p)


@pytest.mark.parametrize("method", cl.AVERAGE_METHODS)
def test_nmi_equal_and_ami_close_to_sklearn(method):
    for t, p in _cases():
        assert cl.normalized_mutual_info_score(t, p, average_method=method) == \
            metrics.normalized_mutual_info_score(t, p, average_method=method)
        # E[MI] is summed vectorised (scikit-learn: sequential loops): a reordering of a sum of
        # positive terms, ~1e-16 relative; AMI divides it by (mean entropy − E[MI]), measured ≤ 1.2e-14
        assert cl.adjusted_mutual_info_score(t, p, average_method=method) == pytest.approx(
            metrics.adjusted_mutual_info_score(t, p, average_method=method), rel=1e-12, abs=1e-12)


def test_matrices_and_string_labels_equal_to_sklearn():
    t = np.array(["a", "b", "a", "c", "c", "b", "a"])
    p = np.array([3, 3, 1, 1, 2, 2, 1])
    assert (cl.contingency_matrix(t, p) == skc.contingency_matrix(t, p)).all()
    assert (cl.pair_confusion_matrix(t, p) == skc.pair_confusion_matrix(t, p)).all()
    assert cl.homogeneity_completeness_v_measure(t, p, beta=2.0) == \
        metrics.homogeneity_completeness_v_measure(t, p, beta=2.0)
    for t, p in _cases(20, seed=1):
        assert (cl.pair_confusion_matrix(t, p) == skc.pair_confusion_matrix(t, p)).all()
        assert cl.v_measure_score(t, p, beta=0.5) == metrics.v_measure_score(t, p, beta=0.5)


def test_large_label_space_uses_sparse_cells():
    rng = np.random.default_rng(2)
    t, p = rng.integers(0, 500, 600), rng.integers(0, 500, 600)  # 250 000 cells, 600 samples
    assert cl.adjusted_rand_score(t, p) == metrics.adjusted_rand_score(t, p)
    assert cl.mutual_info_score(t, p) == metrics.mutual_info_score(t, p)


def test_purity_by_hand():
    # clusters: 0 -> classes [a, a, b] (max 2), 1 -> [b, b] (2), 2 -> [c] (1): (2 + 2 + 1) / 6
    assert cl.purity_score(list("aabbbc"), [0, 0, 0, 1, 1, 2]) == 5 / 6
    for t, p in _cases(20, seed=3):
        table = skc.contingency_matrix(t, p)
        assert cl.purity_score(t, p) == table.max(axis=0).sum() / len(t)


def _blobs(n, k, d, seed):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, k, n)
    X = rng.normal(size=(n, d)) + labels[:, None] * 1.5
    return X, labels


def test_internal_equal_to_sklearn():
    for seed in range(12):
        X, labels = _blobs(60 + 10 * seed, 2 + seed % 4, 1 + seed % 3, seed)
        assert cl.davies_bouldin_score(X, labels) == metrics.davies_bouldin_score(X, labels)
        assert cl.calinski_harabasz_score(X, labels) == metrics.calinski_harabasz_score(X, labels)
        D = metrics.pairwise_distances(X)
        # the per-cluster sums of distances: a product with the indicator matrix here, a sequential
        # bincount per row in scikit-learn: a reordering of n positive terms, relative error
        # ≤ n·ε per sum, so |Δs| ≤ 2n·ε ≈ 5e-14 for n ≤ 170
        np.testing.assert_allclose(cl.silhouette_samples(X, labels), metrics.silhouette_samples(X, labels),
                                   rtol=0, atol=1e-13)
        np.testing.assert_allclose(cl.silhouette_samples(D, labels, metric="precomputed"),
                                   metrics.silhouette_samples(D, labels, metric="precomputed"), rtol=0, atol=1e-13)
        assert cl.silhouette_score(X, labels) == pytest.approx(metrics.silhouette_score(X, labels), abs=1e-13)


def test_silhouette_chunks_and_sampling():
    X, labels = _blobs(150, 3, 2, 7)
    whole = cl.silhouette_samples(X, labels)
    np.testing.assert_allclose(cl.silhouette_samples(X, labels, working_memory=0.01), whole, rtol=0, atol=1e-13)
    assert cl.silhouette_score(X, labels, sample_size=60, random_state=3) == pytest.approx(
        metrics.silhouette_score(X, labels, sample_size=60, random_state=3), abs=1e-13)


def test_singleton_cluster_has_zero_silhouette():
    X = np.array([[0.0], [0.1], [5.0], [5.2], [9.0]])
    s = cl.silhouette_samples(X, [0, 0, 1, 1, 2])
    assert s[4] == 0.0
    np.testing.assert_allclose(s, metrics.silhouette_samples(X, [0, 0, 1, 1, 2]), atol=1e-15)


labelings = st.lists(st.integers(0, 4), min_size=1, max_size=40)


@settings(max_examples=60, deadline=None)
@given(labelings, st.data())
def test_ari_symmetric_and_permutation_invariant(t, data):
    p = data.draw(st.lists(st.integers(0, 4), min_size=len(t), max_size=len(t)))
    t, p = np.array(t), np.array(p)
    assert cl.adjusted_rand_score(t, p) == cl.adjusted_rand_score(p, t)
    renamed = np.array([7, 3, 9, 1, 5])[p]  # a bijective renaming of the clusters
    assert cl.adjusted_rand_score(t, renamed) == cl.adjusted_rand_score(t, p)
    order = np.random.default_rng(len(t)).permutation(len(t))  # the order of the samples
    assert cl.adjusted_rand_score(t[order], p[order]) == pytest.approx(cl.adjusted_rand_score(t, p), abs=1e-15)
    assert cl.adjusted_rand_score(t, t) == 1.0
    assert 0.0 <= cl.v_measure_score(t, p) <= 1.0 + 1e-12


def test_bad_input():
    with pytest.raises(InputError, match="labels_pred") as error:
        cl.adjusted_rand_score([0, 1, 1], [0, 1])
    assert error.value.field == "labels_pred"
    with pytest.raises(InputError, match="no samples"):
        cl.mutual_info_score([], [])
    with pytest.raises(InputError, match="missing") as error:
        cl.adjusted_rand_score([0, None, 1], [0, 1, 1])
    assert error.value.field == "labels_true"
    X = np.zeros((4, 2))
    with pytest.raises(InputError, match="1 clusters") as error:
        cl.silhouette_score(X, [0, 0, 0, 0])
    assert error.value.field == "labels"
    with pytest.raises(InputError, match="4 clusters"):
        cl.davies_bouldin_score(X, [0, 1, 2, 3])
    with pytest.raises(InputError, match="rows of X"):
        cl.calinski_harabasz_score(X, [0, 1, 0])
    with pytest.raises(InputError, match="finite") as error:
        cl.silhouette_score(np.array([[0.0], [np.nan], [1.0]]), [0, 1, 1])
    assert error.value.field == "X"
    with pytest.raises(InputError, match="diagonal"):
        cl.silhouette_samples(np.ones((3, 3)), [0, 1, 1], metric="precomputed")
    with pytest.raises(InputError, match="square"):
        cl.silhouette_samples(np.ones((3, 2)), [0, 1, 1], metric="precomputed")
    with pytest.raises(UsageError, match="average_method"):
        cl.adjusted_mutual_info_score([0, 1], [0, 1], average_method="mean")
    with pytest.raises(UsageError, match="metric"):
        cl.silhouette_score(X, [0, 0, 1, 1], metric="cosine")
    with pytest.raises(UsageError, match="beta"):
        cl.v_measure_score([0, 1], [0, 1], beta=-1)


def test_docstring_examples():
    import doctest

    assert doctest.testmod(cl, optionflags=doctest.NORMALIZE_WHITESPACE).failed == 0
