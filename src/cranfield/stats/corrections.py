"""Multiple comparisons: p-value adjustments and Tukey's honestly significant difference.

Testing many pairs at level α finds "significant" differences by chance; these procedures
control the family-wise error rate (Bonferroni, Šidák, Holm, Holm–Šidák, Hochberg, Hommel,
Tukey HSD) or the false discovery rate (Benjamini–Hochberg, Benjamini–Yekutieli). The family is
the set of p-values passed in one call. Tukey HSD is not an adjustment of given p-values but a
test of its own over all systems (:func:`tukey_hsd`).
"""

from __future__ import annotations

import numpy as np

from .._params import check_choice
from ..errors import InputError
from ._resample import as_generator, check_count

__all__ = ["CORRECTIONS", "FWER_CORRECTIONS", "adjust_pvalues", "tukey_hsd", "randomized_tukey_hsd"]

CORRECTIONS = ("none", "bonferroni", "sidak", "holm", "holm-sidak", "hochberg", "hommel", "bh", "by")
FWER_CORRECTIONS = ("bonferroni", "sidak", "holm", "holm-sidak", "hochberg", "hommel")


def adjust_pvalues(p_values, *, method: str = "holm") -> np.ndarray:
    r"""Adjusted p-values for a family of :math:`m` tests; reject where adjusted p ≤ α.

    With :math:`p_{(1)} \le \dots \le p_{(m)}` the sorted p-values:

    * ``"bonferroni"``: :math:`\min(1, m p_i)`;
    * ``"sidak"`` (Šidák 1967): :math:`1 - (1 - p_i)^m`;
    * ``"holm"`` (Holm 1979, step-down):
      :math:`\tilde p_{(i)} = \max_{j \le i} \min(1, (m-j+1)\, p_{(j)})`;
    * ``"holm-sidak"`` (step-down Šidák): :math:`\tilde p_{(i)} = \max_{j \le i} 1 - (1 -
      p_{(j)})^{m-j+1}`;
    * ``"hochberg"`` (Hochberg 1988, step-up; valid under independence or positive dependence):
      :math:`\tilde p_{(i)} = \min_{j \ge i} \min(1, (m-j+1)\, p_{(j)})`;
    * ``"hommel"`` (Hommel 1988; closed Simes tests, the adjusted p of Wright 1992): for every
      size :math:`k` of a closed subfamily, the Simes p :math:`\min_j k\,p_{(j)}/j` over the
      :math:`k` largest, combined with the smaller ones; uniformly more powerful than Hochberg;
    * ``"bh"`` (Benjamini & Hochberg 1995, step-up, controls the FDR):
      :math:`\tilde p_{(i)} = \min_{j \ge i} \min(1, m\, p_{(j)}/j)`
      (= ``scipy.stats.false_discovery_control(p, method="bh")``);
    * ``"by"`` (Benjamini & Yekutieli 2001, FDR under any dependence): BH with :math:`m` replaced
      by :math:`m \sum_{i=1}^m 1/i`;
    * ``"none"``: the p-values unchanged.

    Same numbers as R's ``p.adjust`` and ``statsmodels.stats.multitest.multipletests``
    (methods bonferroni, sidak, holm, holm-sidak, simes-hochberg, hommel, fdr_bh, fdr_by).
    Returns an array of the input's shape (a new array).

    >>> adjust_pvalues([0.01, 0.04, 0.03], method="holm").tolist()
    [0.03, 0.06, 0.06]
    """
    check_choice(method, "correction", CORRECTIONS)
    p = np.asarray(p_values, dtype=np.float64)
    if p.size and (not np.all(np.isfinite(p)) or p.min() < 0 or p.max() > 1):
        raise InputError("expected p-values between 0 and 1", field="p_values")
    flat = p.ravel()
    m = flat.size
    if method == "none" or m == 0:
        return p.copy()
    if method == "bonferroni":
        return np.minimum(1.0, m * p)
    if method == "sidak":
        with np.errstate(divide="ignore"):  # p = 1: log1p(-1) = -inf, adjusted 1
            return -np.expm1(m * np.log1p(-p))
    order = np.argsort(flat, kind="stable")
    ranked = flat[order]
    rank = np.arange(1, m + 1)
    left = np.arange(m, 0, -1)  # m - j + 1: hypotheses not yet rejected at step j
    if method == "holm":
        adjusted = np.maximum.accumulate(np.minimum(1.0, left * ranked))
    elif method == "holm-sidak":
        with np.errstate(divide="ignore"):
            adjusted = np.maximum.accumulate(-np.expm1(left * np.log1p(-ranked)))
    elif method == "hochberg":
        adjusted = np.minimum(1.0, np.minimum.accumulate((left * ranked)[::-1])[::-1])
    elif method == "hommel":
        adjusted = _hommel(ranked)
    elif method == "by":
        harmonic = np.sum(1.0 / rank)
        adjusted = np.minimum(1.0, np.minimum.accumulate((ranked / ((rank / m) / harmonic))[::-1])[::-1])
    else:
        adjusted = np.minimum.accumulate(np.minimum(1.0, m * ranked / rank)[::-1])[::-1]
    out = np.empty(m)
    out[order] = adjusted
    return out.reshape(p.shape)


def _hommel(ranked: np.ndarray) -> np.ndarray:
    """Hommel's adjusted p-values of sorted p-values (Wright 1992, the closed-Simes shortcut).

    For each subfamily size k = m, m-1, ..., 2: the Simes p of the k largest p-values,
    c_k = min_{j=1..k} k p_(m-k+j) / j, bounds the adjustment of those k; each of the m-k+1
    smallest is bounded by min(k p_(i), c_k). The adjusted p is the largest such bound over k
    (and at least p itself). O(m^2) with vector steps.
    """
    m = len(ranked)
    adjusted = np.full(m, np.min(m * ranked / np.arange(1, m + 1)))
    bound = adjusted.copy()
    for k in range(m - 1, 1, -1):
        small = m - k + 1  # the first m-k+1 p-values: the smallest one and those outside the k largest
        simes = np.min(k * ranked[small:] / np.arange(2, k + 1))
        bound[:small] = np.minimum(k * ranked[:small], simes)
        bound[small:] = bound[small - 1]
        adjusted = np.maximum(adjusted, bound)
    return np.minimum(1.0, np.maximum(adjusted, ranked))


def _as_matrix(values) -> np.ndarray:
    v = np.asarray(values, dtype=np.float64)
    if v.ndim != 2 or v.shape[0] < 2 or v.shape[1] < 2:
        raise InputError(f"expected a (systems, queries) matrix with at least 2 systems and 2 queries, found shape {v.shape}", field="values")
    if not np.all(np.isfinite(v)):
        raise InputError("expected finite values, found NaN or infinity", field="values")
    return v


def tukey_hsd(values, *, blocked: bool = True) -> np.ndarray:
    r"""Tukey's HSD family-wise p-values for all pairs of systems, a (k, k) matrix.

    ``values``: (systems, queries). With ``blocked=True`` (the IR default; Carterette 2012,
    Sakai 2018 §4) queries are blocks: the error mean square comes from the two-way ANOVA
    without replication, :math:`MSE = \sum_{ij}(x_{ij} - \bar x_{i\cdot} - \bar x_{\cdot j}
    + \bar x)^2 / ((k-1)(n-1))`, and :math:`p_{ij} = P(Q_{k,(k-1)(n-1)} \ge |\bar x_i - \bar
    x_j| / \sqrt{MSE/n})` with :math:`Q` the studentized range. With ``blocked=False`` the
    systems are independent groups (one-way ANOVA) and this is ``scipy.stats.tukey_hsd``.
    """
    from scipy import stats

    v = _as_matrix(values)
    k, n = v.shape
    if not blocked:
        return np.asarray(stats.tukey_hsd(*v).pvalue, dtype=np.float64)
    means = v.mean(axis=1)
    residual = v - means[:, None] - v.mean(axis=0)[None, :] + v.mean()
    df = (k - 1) * (n - 1)
    mse = float((residual ** 2).sum() / df)
    diff = np.abs(means[:, None] - means[None, :])
    p = np.ones((k, k))
    iu = np.triu_indices(k, 1)
    if mse > 0:
        q = diff[iu] / np.sqrt(mse / n)
        p[iu] = np.clip(stats.studentized_range.sf(q, k, df), 0.0, 1.0)
    else:  # additive data without noise: any difference is exact
        p[iu] = np.where(diff[iu] > 0, 0.0, 1.0)
    p[(iu[1], iu[0])] = p[iu]
    return p


def randomized_tukey_hsd(values, *, n_permutations: int = 10_000, random_state=0) -> np.ndarray:
    r"""Randomized Tukey HSD over queries (Carterette 2012; Sakai 2018 §4.5), a (k, k) matrix.

    Each trial permutes, independently for every query, the k systems' values, and records the
    range :math:`\max_i \bar x^*_i - \min_i \bar x^*_i` of the system means. The family-wise
    p-value of pair (i, j) is :math:`(b+1)/(B+1)` with :math:`b` the trials whose range reaches
    :math:`|\bar x_i - \bar x_j|`. Trials are drawn in chunks as arrays (no loop per trial);
    cost O(B n k log k).
    """
    v = _as_matrix(values)
    n_permutations = check_count(n_permutations, "n_permutations", 1)
    rng = as_generator(random_state)
    k, n = v.shape
    vt = v.T.copy()  # (n, k)
    rows = max(1, (1 << 21) // (n * k))
    ranges = []
    done = 0
    while done < n_permutations:
        size = min(rows, n_permutations - done)
        order = np.argsort(rng.random((size, n, k)), axis=2)
        means = np.take_along_axis(np.broadcast_to(vt, (size, n, k)), order, axis=2).mean(axis=1)
        ranges.append(means.max(axis=1) - means.min(axis=1))
        done += size
    ranges = np.sort(np.concatenate(ranges))
    means = v.mean(axis=1)
    diff = np.abs(means[:, None] - means[None, :])
    threshold = diff - 1e-12 * (np.abs(v).sum(axis=1).max() / n)
    count = n_permutations - np.searchsorted(ranges, threshold, side="left")
    p = np.minimum(1.0, (count + 1) / (n_permutations + 1))
    np.fill_diagonal(p, 1.0)
    return p
