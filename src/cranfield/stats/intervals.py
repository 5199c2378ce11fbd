"""Confidence intervals: the mean over queries, proportions and quantiles.

* :func:`mean_ci` — normal, Student t, bootstrap percentile and BCa intervals for a mean,
  for one sample (1-D) or many at once (2-D, one sample per row).
* :func:`proportion_ci` — Wilson score and Clopper–Pearson (exact) intervals.
* :func:`quantile_ci` — distribution-free (order statistics) and bootstrap intervals of a quantile.

Intervals of ROC statistics (DeLong's interval of an AUC, bootstrap intervals) are in
:mod:`cranfield.stats.roc`; every interval is an :class:`~cranfield.stats.Interval`.

Policies: a sample whose values are all equal has the degenerate interval ``[mean, mean]``
with every method; fewer than two values is an :class:`~cranfield.errors.InputError`.
"""

from __future__ import annotations

import numpy as np

from .._params import check_choice, check_fraction
from ..errors import InputError, UsageError
from ._interval import Interval, as_floats, check_confidence
from ._resample import as_generator, bootstrap_counts, check_count
from .roc import delong as _delong

__all__ = ["MEAN_CI_METHODS", "QUANTILE_CI_METHODS", "mean_ci", "proportion_ci", "quantile_ci"]

MEAN_CI_METHODS = ("auto", "normal", "t", "bootstrap", "bca")
QUANTILE_CI_METHODS = ("binomial", "bootstrap")


def _as_samples(values, name: str = "values") -> tuple[np.ndarray, bool]:
    x = as_floats(values, name)
    single = x.ndim == 1
    if x.ndim not in (1, 2):
        raise InputError(f"expected a 1-D array (one sample) or a 2-D array (one sample per row), found {x.ndim} dimensions", field=name)
    x = x[None, :] if single else x
    if x.shape[1] < 2:
        raise InputError(f"expected at least 2 values per sample, found {x.shape[1]}", field=name)
    if not np.all(np.isfinite(x)):
        raise InputError("expected finite numbers, found NaN or infinity", field=name)
    return x, single


def _unwrap(single: bool, *arrays: np.ndarray):
    return tuple(float(a[0]) for a in arrays) if single else arrays


def _quantiles_per_row(sorted_rows: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """Linear-interpolated quantile of each sorted row at its own level (numpy's 'linear' method)."""
    n_rows, b = sorted_rows.shape
    position = np.clip(levels, 0.0, 1.0) * (b - 1)
    lower = np.floor(position).astype(np.int64)
    upper = np.minimum(lower + 1, b - 1)
    frac = position - lower
    rows = np.arange(n_rows)
    low_v, up_v = sorted_rows[rows, lower], sorted_rows[rows, upper]
    return low_v + frac * (up_v - low_v)


# Limit (docs/reliability.md, "Limits"): bootstrap intervals sort every resampled mean: 800 MB.
MAX_BOOTSTRAP_CELLS = 10**8


def _bootstrap_means(x: np.ndarray, n_resamples: int, random_state) -> np.ndarray:
    """Resampled means, shape (rows, n_resamples); every row uses the same resampled query sets."""
    rng = as_generator(random_state)
    n = x.shape[1]
    parts = [x @ counts.T / n for counts in bootstrap_counts(n, n_resamples, rng)]
    return np.concatenate(parts, axis=1)


def mean_ci(values, *, method: str = "auto", confidence: float = 0.95, n_resamples: int = 10_000,
            random_state=0) -> Interval:
    r"""Confidence interval for the mean of per-query values.

    With :math:`\bar x` the mean, :math:`s` the sample standard deviation (ddof 1), :math:`n`
    the number of queries and :math:`\alpha = 1 - \text{confidence}`:

    * ``"normal"``: :math:`\bar x \pm z_{1-\alpha/2}\, s/\sqrt n`;
    * ``"t"``: :math:`\bar x \pm t_{n-1,\,1-\alpha/2}\, s/\sqrt n` (Student, 1908);
    * ``"auto"``: ``"t"`` when :math:`n < 30`, else ``"normal"``;
    * ``"bootstrap"``: the :math:`\alpha/2` and :math:`1-\alpha/2` quantiles of the means of
      ``n_resamples`` resamples of the queries with replacement (Efron & Tibshirani 1993, ch. 13);
    * ``"bca"``: bias-corrected and accelerated percentiles (Efron 1987; Efron & Tibshirani 1993,
      ch. 14.3), bias :math:`z_0 = \Phi^{-1}(\#\{\theta^* < \hat\theta\}/B)` (ties count half)
      and acceleration from the jackknife, as ``scipy.stats.bootstrap(method="BCa")``.

    ``values``: 1-D (one sample) or 2-D (one sample per row; rows share the resamples).

    >>> ci = mean_ci([0.2, 0.4, 0.6], method="t")
    >>> round(ci.estimate, 4), round(ci.low, 4), round(ci.high, 4)
    (0.4, -0.0968, 0.8968)
    """
    from scipy import special, stats

    if not isinstance(method, str) or method not in MEAN_CI_METHODS:
        check_choice(method, "method", MEAN_CI_METHODS)
    confidence = check_confidence(confidence)
    x, single = _as_samples(values)
    n = x.shape[1]
    alpha = 1.0 - confidence
    mean = x.mean(axis=1)
    sd = x.std(axis=1, ddof=1)
    if method == "auto":
        method = "t" if n < 30 else "normal"
    if method in ("normal", "t"):
        crit = special.ndtri(1 - alpha / 2) if method == "normal" else stats.t.ppf(1 - alpha / 2, n - 1)
        half = crit * sd / np.sqrt(n)
        low, high = mean - half, mean + half
    else:
        n_resamples = check_count(n_resamples, "n_resamples", 2)
        if x.shape[0] * n_resamples > MAX_BOOTSTRAP_CELLS:  # every resampled mean is kept (8 bytes each)
            raise UsageError(f"n_resamples: {x.shape[0]:,} samples x {n_resamples:,} resamples is over the limit of "
                             f"{MAX_BOOTSTRAP_CELLS:,} resampled means (memory: 8 bytes each); use fewer resamples")
        theta = np.sort(_bootstrap_means(x, n_resamples, random_state), axis=1)
        levels = np.array([alpha / 2, 1 - alpha / 2])
        if method == "bootstrap":
            lv = np.broadcast_to(levels, (x.shape[0], 2))
        else:
            below = (theta < mean[:, None]).sum(axis=1) + (theta <= mean[:, None]).sum(axis=1)
            z0 = special.ndtri(below / (2.0 * n_resamples))
            jack = (mean[:, None] * n - x) / (n - 1)  # leave-one-out means
            dev = jack.mean(axis=1, keepdims=True) - jack
            with np.errstate(divide="ignore", invalid="ignore"):
                accel = (dev ** 3).sum(axis=1) / (6.0 * ((dev ** 2).sum(axis=1)) ** 1.5)
                z = special.ndtri(levels)[None, :]
                lv = special.ndtr(z0[:, None] + (z0[:, None] + z) / (1 - accel[:, None] * (z0[:, None] + z)))
            lv = np.where(np.isfinite(lv), lv, levels[None, :])
        low = _quantiles_per_row(theta, lv[:, 0])
        high = _quantiles_per_row(theta, lv[:, 1])
    flat = sd == 0
    low, high = np.where(flat, mean, low), np.where(flat, mean, high)
    estimate, low, high = _unwrap(single, mean, low, high)
    return Interval(estimate, low, high, confidence, method)


def proportion_ci(successes, n, *, method: str = "wilson", confidence: float = 0.95) -> Interval:
    r"""Confidence interval for a proportion :math:`\hat p = x/n` (precision, recall, accuracy…).

    * ``"wilson"`` (Wilson 1927): :math:`\dfrac{\hat p + z^2/2n}{1 + z^2/n} \pm
      \dfrac{z}{1 + z^2/n}\sqrt{\dfrac{\hat p(1-\hat p)}{n} + \dfrac{z^2}{4n^2}}`;
    * ``"clopper-pearson"`` (Clopper & Pearson 1934, exact): :math:`[B(\alpha/2; x, n-x+1),\
      B(1-\alpha/2; x+1, n-x)]` with :math:`B` the beta quantile, 0 when :math:`x=0` and 1 when
      :math:`x=n`.

    Scalars or arrays (broadcast). Same numbers as ``scipy.stats.binomtest(x, n).proportion_ci``.

    >>> ci = proportion_ci(8, 10)
    >>> round(ci.low, 4), round(ci.high, 4)
    (0.4902, 0.9433)
    """
    from scipy import special, stats

    if not isinstance(method, str) or method not in ("wilson", "clopper-pearson"):
        raise UsageError(f"method: expected 'wilson' or 'clopper-pearson', found {method!r}")
    confidence = check_confidence(confidence)
    x = as_floats(successes, "successes")
    total = as_floats(n, "n")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(total))):
        raise InputError("expected finite counts, found NaN or infinity", field="successes")
    if np.any(total < 1) or np.any(x < 0) or np.any(x > total) or np.any(x != np.round(x)) or np.any(total != np.round(total)):
        raise InputError("expected integer counts with 0 <= successes <= n and n >= 1", field="successes")
    alpha = 1.0 - confidence
    p = x / total
    if method == "wilson":
        z = special.ndtri(1 - alpha / 2)
        denom = 1 + z * z / total
        center = (p + z * z / (2 * total)) / denom
        half = z / denom * np.sqrt(p * (1 - p) / total + z * z / (4 * total * total))
        low, high = center - half, center + half
    elif method == "clopper-pearson":
        with np.errstate(invalid="ignore"):
            low = np.where(x == 0, 0.0, stats.beta.ppf(alpha / 2, x, total - x + 1))
            high = np.where(x == total, 1.0, stats.beta.ppf(1 - alpha / 2, x + 1, total - x))
    else:
        raise UsageError(f"method: expected 'wilson' or 'clopper-pearson', found {method!r}")
    scalar = p.ndim == 0
    conv = (lambda a: float(a)) if scalar else np.asarray
    return Interval(conv(p), conv(low), conv(high), confidence, method)


def quantile_ci(values, q: float, confidence: float = 0.95, *, method: str = "binomial", n_resamples: int = 10_000,
                random_state=0) -> Interval:
    r"""The ``q``-quantile of ``values`` (numpy's linear interpolation, Hyndman & Fan type 7) with a
    two-sided confidence interval; unpacks as ``estimate, low, high``.

    * ``"binomial"`` (distribution-free, Thompson 1936; Hahn & Meeker 1991, §5.2): the order
      statistics :math:`[x_{(l)}, x_{(u)}]` with :math:`l = F^{-1}(\alpha/2)`, :math:`u =
      \bar F^{-1}(\alpha/2) + 1`, :math:`F` the Binomial(n, q) distribution: coverage at least
      the confidence for any continuous distribution; the same interval as
      ``scipy.stats.quantile_test(values, p=q).confidence_interval(confidence)``. Too few values for
      such an interval (e.g. fewer than 59 for the 0.95-quantile at 90%) is an error saying how many
      are needed.
    * ``"bootstrap"``: the percentile interval of the quantile over ``n_resamples`` resamples
      (seeded by ``random_state``).

    >>> estimate, low, high = quantile_ci(range(1, 101), 0.5)
    >>> estimate, low, high
    (50.5, 40.0, 61.0)
    """
    from scipy import stats

    check_choice(method, "method", QUANTILE_CI_METHODS)
    q = check_fraction(q, "q")
    confidence = check_confidence(confidence)
    x, single = _as_samples(values)
    if not single:
        raise InputError(f"expected a 1-D array of values, found {x.ndim} dimensions", field="values")
    x = np.sort(x[0])
    n = x.size
    estimate = float(np.quantile(x, q))
    alpha = 1.0 - confidence
    if method == "binomial":
        law = stats.binom(n, q)
        low_index, high_index = int(law.ppf(alpha / 2)) - 1, int(law.isf(alpha / 2))
        if low_index < 0 or high_index >= n:
            needed = next(m for m in range(n + 1, 10**7) if int(stats.binom(m, q).ppf(alpha / 2)) >= 1
                          and int(stats.binom(m, q).isf(alpha / 2)) < m)
            raise InputError(f"{n} values are too few for a distribution-free {confidence:g} interval of the "
                             f"{q:g}-quantile: at least {needed} are needed (or method='bootstrap')", field="values")
        return Interval(estimate, float(x[low_index]), float(x[high_index]), confidence, method)
    n_resamples = check_count(n_resamples, "n_resamples", minimum=2)
    rng = as_generator(random_state)
    position = q * (n - 1)
    lower = int(np.floor(position))
    frac = position - lower
    parts = []
    for counts in bootstrap_counts(n, n_resamples, rng):  # counts over the sorted values
        cum = np.cumsum(counts, axis=1)
        k_low = (cum <= lower).sum(axis=1)  # index of the (lower+1)-th smallest resampled value
        k_high = (cum <= min(lower + 1, n - 1)).sum(axis=1)
        a, b = x[k_low], x[k_high]  # interpolated as numpy's quantile does (from the nearer end)
        parts.append(b - (b - a) * (1 - frac) if frac >= 0.5 else a + (b - a) * frac)
    theta = np.sort(np.concatenate(parts))
    low, high = np.quantile(theta, [alpha / 2, 1 - alpha / 2])
    return Interval(estimate, float(low), float(high), confidence, method)


# names that moved to cranfield.stats.roc (one home for ROC statistics): still importable from here, with a
# DeprecationWarning
__getattr__ = _delong.moved_here(__name__, ("auc_ci", "delong_covariance"))
