"""Clustering evaluation: external scores (against true classes) and internal scores (geometry).

External scores compare a clustering ``labels_pred`` with classes ``labels_true`` (any hashable
labels, one kind per array; the label values themselves never matter, only the partition) through
one sufficient statistic, the contingency table n_ck (samples of class c in cluster k), built once
by sorting integer keys (bincount when the table is small): the adjusted Rand index (Hubert &
Arabie 1985), mutual information and its normalised (Strehl & Ghosh 2002) and adjusted (Vinh,
Epps & Bailey 2010) forms, homogeneity, completeness and V-measure (Rosenberg & Hirschberg 2007),
Fowlkes–Mallows (1983), purity, the pair-counting confusion matrix.

Internal scores need the data ``X`` (n × d) or, for the silhouette, a precomputed distance matrix:
silhouette (Rousseeuw 1987), Davies–Bouldin (1979), Caliński–Harabasz (1974). Distances are
computed in row chunks of bounded memory (``working_memory`` MiB).

Every function equals scikit-learn's function of the same name (same arithmetic, same order of
floating-point operations, hence ``==``), except the expected mutual information inside AMI,
which is summed vectorised (a reordering of a sum of positive terms). Policies: an empty input is
an error (scikit-learn returns 1.0); internal scores need 2 ≤ k ≤ n − 1 clusters (an error
otherwise, naming ``labels``). Natural logarithms throughout.
"""

from __future__ import annotations

from math import log
from typing import Any

import numpy as np

from .._exact import unit_scale
from .._params import check_choice, check_count, check_interval
from ..errors import InputError
from ..measures.base import Family, Param, register
from ._validation import check_labels, check_scores

__all__ = ["contingency_matrix", "pair_confusion_matrix", "rand_score", "adjusted_rand_score",
           "mutual_info_score", "normalized_mutual_info_score", "adjusted_mutual_info_score",
           "homogeneity_score", "completeness_score", "v_measure_score", "homogeneity_completeness_v_measure",
           "fowlkes_mallows_score", "purity_score", "silhouette_samples", "silhouette_score",
           "davies_bouldin_score", "calinski_harabasz_score", "AVERAGE_METHODS"]

AVERAGE_METHODS = ("min", "geometric", "arithmetic", "max")
_EPS = float(np.finfo(np.float64).eps)


# ------------------------------------------------------------------------------ contingency table
class _Table:
    """The sparse contingency table: class sizes ``a`` (rows), cluster sizes ``b`` (columns) and
    the non-zero cells (row, column, count) in row-major order."""

    def __init__(self, labels_true: Any, labels_pred: Any) -> None:
        truth = check_labels(labels_true, "labels_true")
        pred = check_labels(labels_pred, "labels_pred")
        if len(truth) != len(pred):
            raise InputError(f"labels_pred has {len(pred)} samples, expected {len(truth)} as labels_true",
                             field="labels_pred")
        if len(truth) == 0:
            raise InputError("no samples", field="labels_true")
        self.n = len(truth)
        self.rows, self.row_codes = _codes(truth, "labels_true")
        self.cols, self.col_codes = _codes(pred, "labels_pred")
        r, c = len(self.rows), len(self.cols)
        keys = self.row_codes.astype(np.int64) * c + self.col_codes
        if r * c <= 4 * self.n + 1024:  # dense bincount is cheap
            counts = np.bincount(keys, minlength=r * c)
            cells = np.flatnonzero(counts)
            values = counts[cells]
        else:
            cells, values = np.unique(keys, return_counts=True)
        self.nz_row, self.nz_col = np.divmod(cells, c)
        self.values = values.astype(np.int64)
        self.a = np.bincount(self.row_codes, minlength=r).astype(np.int64)
        self.b = np.bincount(self.col_codes, minlength=c).astype(np.int64)

    def dense(self) -> np.ndarray:
        table = np.zeros((len(self.rows), len(self.cols)), dtype=np.int64)
        table[self.nz_row, self.nz_col] = self.values
        return table


def _codes(labels: np.ndarray, name: str) -> tuple[np.ndarray, np.ndarray]:
    try:
        values, codes = np.unique(labels, return_inverse=True)
    except TypeError:
        raise InputError("labels of one type that cannot be ordered", field=name) from None
    return values, codes.reshape(-1).astype(np.intp)


def contingency_matrix(labels_true: Any, labels_pred: Any) -> np.ndarray:
    """The k_true × k_pred table n_ck of samples in class c (sorted labels of ``labels_true``)
    and cluster k (sorted labels of ``labels_pred``), int64.

    >>> contingency_matrix([0, 0, 1, 1], ["a", "b", "b", "b"]).tolist()
    [[1, 1], [0, 2]]
    """
    return _Table(labels_true, labels_pred).dense()


def _pairs(t: _Table) -> np.ndarray:
    squares = int(np.dot(t.values, t.values))
    n = t.n
    same_both = squares - n
    same_pred_only = int(np.dot(t.values, t.b[t.nz_col])) - squares  # pairs together in pred, apart in truth
    same_true_only = int(np.dot(t.values, t.a[t.nz_row])) - squares
    return np.array([[n * n - same_pred_only - same_true_only - squares, same_pred_only],
                     [same_true_only, same_both]], dtype=np.int64)


def pair_confusion_matrix(labels_true: Any, labels_pred: Any) -> np.ndarray:
    """The 2 × 2 confusion matrix over ordered pairs of distinct samples: C[i, j] counts pairs
    together in the true classes (i = 1) or not (i = 0) and together in the clustering (j = 1)
    or not (j = 0); C.sum() = n(n − 1). Hubert & Arabie (1985), Journal of Classification 2.

    >>> pair_confusion_matrix([0, 0, 1, 1], [0, 0, 1, 2]).tolist()
    [[8, 0], [2, 2]]
    """
    return _pairs(_Table(labels_true, labels_pred))


def rand_score(labels_true: Any, labels_pred: Any) -> float:
    """Rand index: the share of sample pairs on which both partitions agree (Rand 1971); 1.0 when
    there is no pair (one sample)."""
    c = _pairs(_Table(labels_true, labels_pred))
    agree, total = int(c[0, 0] + c[1, 1]), int(c.sum())
    return 1.0 if agree == total or total == 0 else agree / total


def adjusted_rand_score(labels_true: Any, labels_pred: Any) -> float:
    """Adjusted Rand index (Hubert & Arabie 1985): the Rand index corrected for chance,
    ARI = (RI − E[RI]) / (max RI − E[RI]) under the permutation model; with the pair confusion
    matrix, ARI = 2(tp·tn − fn·fp) / ((tp + fn)(fn + tn) + (tp + fp)(fp + tn)). 1 for identical
    partitions, about 0 for independent ones, may be negative. Symmetric.

    >>> adjusted_rand_score([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    """
    (tn, fp), (fn, tp) = _pairs(_Table(labels_true, labels_pred)).tolist()
    if fn == 0 and fp == 0:
        return 1.0
    return 2.0 * (tp * tn - fn * fp) / ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn))


# ------------------------------------------------------------------------------ information
def _entropy(sizes: np.ndarray) -> float:
    if sizes.size == 1:
        return 0.0
    p = sizes.astype(np.float64)
    total = np.sum(p)
    return float(-np.sum((p / total) * (np.log(p) - log(total))))


def _mutual_information(t: _Table) -> float:
    if t.a.size == 1 or t.b.size == 1:
        return 0.0
    counts = t.values.astype(np.float64)
    share = counts / t.n
    outer = t.a[t.nz_row] * t.b[t.nz_col]
    log_outer = -np.log(outer) + log(t.a.sum()) + log(t.b.sum())
    terms = share * (np.log(counts) - log(t.n)) + share * log_outer
    terms = np.where(np.abs(terms) < _EPS, 0.0, terms)
    return float(np.clip(terms.sum(), 0.0, None))


def mutual_info_score(labels_true: Any, labels_pred: Any) -> float:
    """Mutual information I(C; K) = Σ_ck (n_ck/n) ln(n · n_ck / (a_c b_k)) in nats (a_c, b_k: class
    and cluster sizes); terms below machine epsilon count 0 and the sum is clipped at 0."""
    return _mutual_information(_Table(labels_true, labels_pred))


def _check_average(average_method: str) -> str:
    return check_choice(average_method, "average_method", AVERAGE_METHODS)


def _generalized_mean(u: float, v: float, method: str) -> float:
    if method == "min":
        return min(u, v)
    if method == "geometric":
        return float(np.sqrt(u * v))
    if method == "arithmetic":
        return float(np.mean([u, v]))
    return max(u, v)


def normalized_mutual_info_score(labels_true: Any, labels_pred: Any, *, average_method: str = "arithmetic"
                                 ) -> float:
    """NMI = I(C; K) / mean(H(C), H(K)), the mean chosen by ``average_method`` (min, geometric,
    arithmetic, max; Strehl & Ghosh 2002 use the geometric, Vinh et al. 2010 recommend the
    arithmetic — which makes NMI the V-measure). 1.0 when both partitions have one block."""
    method = _check_average(average_method)
    t = _Table(labels_true, labels_pred)
    if t.a.size == t.b.size == 1:
        return 1.0
    mi = _mutual_information(t)
    if mi == 0:
        return 0.0
    return float(mi / _generalized_mean(_entropy(t.a), _entropy(t.b), method))


def _expected_mutual_information(t: _Table) -> float:
    """E[I] under the hypergeometric model of random partitions with the observed sizes (Vinh et
    al. 2010, eq. 24a): Σ_c Σ_k Σ_nij (nij/n) ln(n·nij/(a_c b_k)) · P(nij | a_c, b_k, n). The
    terms of one class are computed at once (vectorised over clusters and nij), the log-factorials
    ln m! read from one table of m = 0..n (computed directly when n > 10⁷)."""
    from scipy.special import gammaln

    n, a, b = t.n, t.a, t.b
    if a.size == 1 or b.size == 1:
        return 0.0
    if n <= 10**7:
        table = gammaln(np.arange(n + 1, dtype=np.float64) + 1)

        def log_factorial(m):
            return table[m]
    else:
        def log_factorial(m):
            return gammaln(np.asarray(m, dtype=np.float64) + 1)
    log_n = np.log(n)
    log_a, log_b = np.log(a), np.log(b)
    fixed_b = log_factorial(b) + log_factorial(n - b)
    total = 0.0
    for i in range(a.size):  # one pass per class; clusters and nij vectorised
        start = np.maximum(1, a[i] - n + b)
        stop = np.minimum(a[i], b) + 1
        length = np.maximum(stop - start, 0)
        if not length.any():
            continue
        j = np.repeat(np.arange(b.size), length)
        nij = start[j] + (np.arange(length.sum()) - np.repeat(np.cumsum(length) - length, length))
        term2 = log_n + np.log(nij) - log_a[i] - log_b[j]
        gln = (log_factorial(a[i]) + log_factorial(n - a[i]) + fixed_b[j] - log_factorial(nij) - log_factorial(n)
               - log_factorial(a[i] - nij) - log_factorial(b[j] - nij) - log_factorial(n - a[i] - b[j] + nij))
        total += float(np.sum(nij / n * term2 * np.exp(gln)))
    return total


def adjusted_mutual_info_score(labels_true: Any, labels_pred: Any, *, average_method: str = "arithmetic"
                               ) -> float:
    """AMI = (I − E[I]) / (mean(H(C), H(K)) − E[I]) (Vinh, Epps & Bailey 2010, JMLR 11), E[I] the
    expected mutual information of random partitions with the same block sizes. 1.0 when both
    partitions have one block, 0.0 when only one does; numerator and denominator are kept at
    least machine epsilon away from 0 (as scikit-learn)."""
    method = _check_average(average_method)
    t = _Table(labels_true, labels_pred)
    if t.a.size == t.b.size == 1:
        return 1.0
    if t.a.size == 1 or t.b.size == 1:
        return 0.0
    mi = _mutual_information(t)
    emi = _expected_mutual_information(t)
    denominator = _generalized_mean(_entropy(t.a), _entropy(t.b), method) - emi
    denominator = min(denominator, -_EPS) if denominator < 0 else max(denominator, _EPS)
    numerator = mi - emi
    numerator = min(numerator, -_EPS) if numerator < 0 else max(numerator, _EPS)
    return float(numerator / denominator)


def homogeneity_completeness_v_measure(labels_true: Any, labels_pred: Any, *, beta: float = 1.0
                                       ) -> tuple[float, float, float]:
    """(homogeneity, completeness, V-measure) (Rosenberg & Hirschberg 2007, EMNLP):
    h = 1 − H(C|K)/H(C) = I/H(C) (each cluster holds one class), c = I/H(K) (each class in one
    cluster), V_β = (1 + β) h c / (β h + c); h = 1 when H(C) = 0 and c = 1 when H(K) = 0."""
    check_interval(beta, "beta", low=0)
    t = _Table(labels_true, labels_pred)
    h_true, h_pred = _entropy(t.a), _entropy(t.b)
    mi = _mutual_information(t)
    homogeneity = mi / h_true if h_true else 1.0
    completeness = mi / h_pred if h_pred else 1.0
    if homogeneity + completeness == 0.0:
        return float(homogeneity), float(completeness), 0.0
    v = (1 + beta) * homogeneity * completeness / (beta * homogeneity + completeness)
    return float(homogeneity), float(completeness), float(v)


def homogeneity_score(labels_true: Any, labels_pred: Any) -> float:
    """Homogeneity I(C; K)/H(C) (see :func:`homogeneity_completeness_v_measure`)."""
    return homogeneity_completeness_v_measure(labels_true, labels_pred)[0]


def completeness_score(labels_true: Any, labels_pred: Any) -> float:
    """Completeness I(C; K)/H(K) (see :func:`homogeneity_completeness_v_measure`)."""
    return homogeneity_completeness_v_measure(labels_true, labels_pred)[1]


def v_measure_score(labels_true: Any, labels_pred: Any, *, beta: float = 1.0) -> float:
    """V-measure, the weighted harmonic mean of homogeneity and completeness (β > 1 weighs
    completeness more); with β = 1 it equals NMI with the arithmetic mean."""
    return homogeneity_completeness_v_measure(labels_true, labels_pred, beta=beta)[2]


def fowlkes_mallows_score(labels_true: Any, labels_pred: Any) -> float:
    """Fowlkes–Mallows index (Fowlkes & Mallows 1983, JASA 78): the geometric mean of pair
    precision and pair recall, TP/√((TP + FP)(TP + FN)) over sample pairs; 0.0 when no pair is
    together in both partitions."""
    t = _Table(labels_true, labels_pred)
    tk = np.dot(t.values, t.values) - t.n
    pk = np.sum(t.b ** 2) - t.n
    qk = np.sum(t.a ** 2) - t.n
    return float(np.sqrt(tk / pk) * np.sqrt(tk / qk)) if tk != 0.0 else 0.0


def purity_score(labels_true: Any, labels_pred: Any) -> float:
    """Purity (Zhao & Karypis 2004; Manning, Raghavan & Schütze 2008, §16.3): each cluster is
    assigned its most frequent class, purity = (1/n) Σ_k max_c n_ck. 1 for every singleton
    clustering: read it with the number of clusters (or with completeness)."""
    t = _Table(labels_true, labels_pred)
    best = np.zeros(t.b.size, dtype=np.int64)
    np.maximum.at(best, t.nz_col, t.values)
    return float(best.sum() / t.n)


# ------------------------------------------------------------------------------ internal scores
def _data(X: Any, labels: Any, *, square: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(X as n × d float64, label codes, cluster sizes); checks 2 ≤ k ≤ n − 1."""
    if hasattr(X, "to_numpy") and not isinstance(X, np.ndarray):
        X = X.to_numpy()
    try:
        array = np.asarray(X)
    except (ValueError, TypeError):
        raise InputError("expected a two-dimensional array of numbers", field="X") from None
    if array.ndim != 2 or array.shape[1] == 0:
        raise InputError(f"expected a two-dimensional array (n samples × d features), found shape {array.shape}",
                         field="X")
    data = check_scores(array.reshape(-1), "X", exact=False).reshape(array.shape)
    codes = _codes(check_labels(labels, "labels"), "labels")
    sizes = np.bincount(codes[1])
    n = len(codes[1])
    if n != data.shape[0]:
        raise InputError(f"labels has {n} samples, expected {data.shape[0]} (the rows of X)", field="labels")
    if square and data.shape[1] != n:
        raise InputError(f"a precomputed distance matrix must be square, found shape {data.shape}", field="X")
    if not 1 < sizes.size < n:
        raise InputError(f"found {sizes.size} clusters among {n} samples; internal scores need 2 to n − 1 clusters",
                         field="labels")
    return unit_scale(data)[0], codes[1], sizes  # scale-invariant scores: no over/underflow



def _squared_norms(X: np.ndarray) -> np.ndarray:
    return np.einsum("ij,ij->i", X, X)


def _euclidean(A: np.ndarray, B: np.ndarray, norms_a: np.ndarray, norms_b: np.ndarray) -> np.ndarray:
    """‖a − b‖ through ‖a‖² − 2a·b + ‖b‖² (one matrix product), clipped at 0, as scikit-learn."""
    d = (-2 * A) @ B.T  # = −2(A Bᵀ) bit for bit (scaling by a power of two is exact): one pass fewer
    d += norms_a[:, None]
    d += norms_b[None, :]
    np.maximum(d, 0, out=d)
    return d


def _check_memory(working_memory: float) -> float:
    return check_interval(working_memory, "working_memory", low=0, closed="right")  # MiB


def silhouette_samples(X: Any, labels: Any, *, metric: str = "euclidean", working_memory: float = 256.0
                       ) -> np.ndarray:
    """Silhouette of each sample (Rousseeuw 1987, J. Comput. Appl. Math. 20): s = (b − a)/max(a, b),
    a the mean distance to the other members of its cluster, b the smallest mean distance to the
    members of another cluster; 0 for a sample alone in its cluster. ``metric``: ``"euclidean"``
    (X is n × d data) or ``"precomputed"`` (X is an n × n distance matrix with a zero diagonal).

    Distances are computed ``working_memory`` MiB of rows at a time, never holding the n × n
    matrix, and summed per cluster by a product with the n × k indicator matrix (one ``bincount``
    per chunk when that matrix would take over a quarter of ``working_memory``). Differs from
    scikit-learn (which sums by ``bincount`` row by row) by a reordering of the sums: a few ulps.
    """
    check_choice(metric, "metric", ("euclidean", "precomputed"))
    budget = _check_memory(working_memory)
    data, codes, sizes = _data(X, labels, square=metric == "precomputed")
    n, k = len(codes), sizes.size
    if metric == "precomputed" and np.any(np.abs(np.diagonal(data)) > _EPS * 100):
        i = int(np.flatnonzero(np.abs(np.diagonal(data)) > _EPS * 100)[0])
        raise InputError(f"a distance matrix has zeros on its diagonal, found {data[i, i]} at [{i}, {i}]", field="X")
    norms = _squared_norms(data) if metric == "euclidean" else None
    onehot = None
    if 8 * n * k <= budget * 2**20 / 4:  # per-cluster sums as one matrix product
        onehot = np.zeros((n, k))
        onehot[np.arange(n), codes] = 1.0
        rows = max(1, int(0.75 * budget * 2**20 // (8 * n)))  # the block of distances
    else:
        rows = max(1, int(budget * 2**20 // (24 * n)))  # distances, bincount keys and weights
    intra = np.empty(n)
    inter = np.empty(n)
    for start in range(0, n, rows):  # chunks of rows; each chunk vectorised
        stop = min(n, start + rows)
        if metric == "euclidean":
            d = _euclidean(data[start:stop], data, norms[start:stop], norms)
            d.flat[start::n + 1] = 0.0  # a sample's distance to itself
            np.sqrt(d, out=d)
        else:
            d = data[start:stop]
        m = stop - start
        if onehot is not None:
            sums = d @ onehot
        else:
            keys = (np.arange(m, dtype=np.int64)[:, None] * k + codes[None, :]).reshape(-1)
            sums = np.bincount(keys, weights=d.reshape(-1), minlength=m * k).reshape(m, k)
        own = (np.arange(m), codes[start:stop])
        intra[start:stop] = sums[own]
        sums[own] = np.inf
        sums /= sizes
        inter[start:stop] = sums.min(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        intra /= (sizes - 1)[codes]
        s = inter - intra
        s /= np.maximum(intra, inter)
    return np.nan_to_num(s)


def silhouette_score(X: Any, labels: Any, *, metric: str = "euclidean", sample_size: int | None = None,
                     random_state: int | None = None, working_memory: float = 256.0) -> float:
    """Mean silhouette over samples (see :func:`silhouette_samples`); ``sample_size`` draws that
    many samples without replacement (``numpy.random.RandomState(random_state).permutation``, as
    scikit-learn) and scores them alone."""
    if sample_size is not None:
        sample_size = check_count(sample_size, "sample_size")
        if random_state is not None:  # scikit-learn's RandomState(random_state): an int below 2**32
            random_state = check_interval(random_state, "random_state", low=0, high=2**32, closed="left",
                                          integer=True)
        data, _, _ = _data(X, labels, square=metric == "precomputed")
        codes = check_labels(labels, "labels")
        index = np.random.RandomState(random_state).permutation(data.shape[0])[:sample_size]
        X = data[index][:, index] if metric == "precomputed" else data[index]
        labels = codes[index]
    return float(np.mean(silhouette_samples(X, labels, metric=metric, working_memory=working_memory)))


def _groups(codes: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The stable order that groups samples by cluster and each cluster's start in it."""
    order = np.argsort(codes, kind="stable")
    return order, np.concatenate([[0], np.cumsum(sizes)])


def davies_bouldin_score(X: Any, labels: Any) -> float:
    """Davies–Bouldin index (Davies & Bouldin 1979, IEEE TPAMI 1): the mean over clusters i of
    max_{j≠i} (s_i + s_j)/d(c_i, c_j), s the mean Euclidean distance of a cluster's members to its
    centroid c; lower is better, 0 is the minimum (returned when all s or all d are 0)."""
    data, codes, sizes = _data(X, labels)
    order, bounds = _groups(codes, sizes)
    grouped = data[order]
    k = sizes.size
    centroids = np.zeros((k, data.shape[1]))
    spread = np.zeros(k)
    for c in range(k):  # one pass per cluster, over its rows only
        members = grouped[bounds[c]:bounds[c + 1]]
        centroid = np.mean(members, axis=0)
        centroids[c] = centroid
        d = _euclidean(members, centroid[None, :], _squared_norms(members), _squared_norms(centroid[None, :]))
        spread[c] = np.mean(np.sqrt(d))
    norms = _squared_norms(centroids)
    between = _euclidean(centroids, centroids, norms, norms)
    np.fill_diagonal(between, 0)
    between = np.sqrt(between)
    if np.all(np.isclose(spread, 0.0)) or np.all(np.isclose(between, 0.0)):
        return 0.0
    between[between == 0] = np.inf
    return float(np.mean(np.max((spread[:, None] + spread) / between, axis=1)))


def calinski_harabasz_score(X: Any, labels: Any) -> float:
    """Caliński–Harabasz index (Caliński & Harabasz 1974, Comm. Statistics 3), the variance ratio
    criterion [B/(k − 1)] / [W/(n − k)], B and W the between- and within-cluster sums of squares;
    higher is better; 1.0 when W = 0 (as scikit-learn)."""
    data, codes, sizes = _data(X, labels)
    order, bounds = _groups(codes, sizes)
    grouped = data[order]
    n, k = len(codes), sizes.size
    between, within = 0.0, 0.0
    mean = np.mean(data, axis=0)
    for c in range(k):  # one pass per cluster, over its rows only
        members = grouped[bounds[c]:bounds[c + 1]]
        centre = np.mean(members, axis=0)
        between += members.shape[0] * np.sum((centre - mean) ** 2)
        within += np.sum((members - centre) ** 2)
    return float(1.0 if within == 0.0 else between * (n - k) / (within * (k - 1.0)))


# ------------------------------------------------------------------------------ the registry
# The clustering area of the one measure registry (DESIGN 15): each score with its aliases, typed
# parameters, definition, reference and the data it reads.
_EXT, _INT, _SK = "cluster labels", "features and cluster labels", "; scikit-learn "
_METHOD = {"average_method": Param("str", "arithmetic", "min, geometric, arithmetic or max")}
_SILHOUETTE = {"metric": Param("str", "euclidean", "distance, or precomputed"),
               "sample_size": Param("value", None, "score a random sample of this size"),
               "random_state": Param("value", None, "seed of the sample"),
               "working_memory": Param("float", 256.0, "MiB per chunk of distances")}
_SCORES = (
    ("rand", rand_score, _EXT, True, ("rand_score", "ri"), {},
     "Rand index: share of sample pairs on which the clustering and the classes agree (same or different group).",
     "Rand 1971" + _SK + "rand_score"),
    ("adjusted_rand", adjusted_rand_score, _EXT, True, ("adjusted_rand_score", "ari"), {},
     "Adjusted Rand index: the Rand index corrected for chance (0 for random labels, 1 for identical partitions).",
     "Hubert & Arabie 1985" + _SK + "adjusted_rand_score"),
    ("mutual_info", mutual_info_score, _EXT, True, ("mutual_info_score", "mi"), {},
     "Mutual information between classes and clusters (natural logarithm).", "Cover & Thomas 2006" + _SK
     + "mutual_info_score"),
    ("nmi", normalized_mutual_info_score, _EXT, True, ("normalized_mutual_info", "normalized_mutual_info_score"),
     _METHOD, "Normalised mutual information: MI / mean of the two entropies (average_method).",
     "Strehl & Ghosh 2002" + _SK + "normalized_mutual_info_score"),
    ("ami", adjusted_mutual_info_score, _EXT, True, ("adjusted_mutual_info", "adjusted_mutual_info_score"),
     _METHOD, "Adjusted mutual information: (MI − E[MI]) / (mean entropy − E[MI]), corrected for chance.",
     "Vinh, Epps & Bailey 2010" + _SK + "adjusted_mutual_info_score"),
    ("homogeneity", homogeneity_score, _EXT, True, ("homogeneity_score",), {},
     "Homogeneity: 1 − H(C|K) / H(C); 1 when each cluster holds one class.",
     "Rosenberg & Hirschberg 2007" + _SK + "homogeneity_score"),
    ("completeness", completeness_score, _EXT, True, ("completeness_score",), {},
     "Completeness: 1 − H(K|C) / H(K); 1 when each class lies in one cluster.",
     "Rosenberg & Hirschberg 2007" + _SK + "completeness_score"),
    ("v_measure", v_measure_score, _EXT, True, ("v_measure_score",), {"beta": Param("float", 1.0, "weight")},
     "V-measure: weighted harmonic mean of homogeneity and completeness.",
     "Rosenberg & Hirschberg 2007" + _SK + "v_measure_score"),
    ("fowlkes_mallows", fowlkes_mallows_score, _EXT, True, ("fowlkes_mallows_score", "fmi"), {},
     "Fowlkes–Mallows index: geometric mean of pairwise precision and recall.",
     "Fowlkes & Mallows 1983" + _SK + "fowlkes_mallows_score"),
    ("purity", purity_score, _EXT, True, ("purity_score",), {},
     "Purity: share of samples in their cluster's majority class.", "Manning, Raghavan & Schütze 2008 §16.3"),
    ("silhouette", silhouette_score, _INT, True, ("silhouette_score",), _SILHOUETTE,
     "Mean silhouette (b − a) / max(a, b): a = mean distance within the cluster, b = to the nearest other one.",
     "Rousseeuw 1987" + _SK + "silhouette_score"),
    ("davies_bouldin", davies_bouldin_score, _INT, False, ("davies_bouldin_score",), {},
     "Davies–Bouldin index: mean over clusters of the worst (s_i + s_j) / d(c_i, c_j); lower is better.",
     "Davies & Bouldin 1979" + _SK + "davies_bouldin_score"),
    ("calinski_harabasz", calinski_harabasz_score, _INT, True, ("calinski_harabasz_score", "variance_ratio"), {},
     "Caliński–Harabasz index: between-cluster over within-cluster dispersion, scaled by (n − k) / (k − 1).",
     "Caliński & Harabasz 1974" + _SK + "calinski_harabasz_score"),
)
for _score in _SCORES:  # name, kernel, data, greater is better, aliases, parameters, definition, reference
    register(Family(_score[0], _score[1], _score[6], _score[7], params=_score[5], aliases=_score[4],
                    area="clustering", data=_score[2], greater_is_better=_score[3], bounds=(None, None)))
