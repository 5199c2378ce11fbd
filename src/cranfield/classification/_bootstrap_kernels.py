"""Vectorised kernels of the calibration bootstrap (:func:`.calibration.calibration_bootstrap`).

The draws are those of the loop they replace (``rng.integers(0, n, size=n)`` per resample,
drawn a block of resamples at a time: numpy's Generator gives the same numbers either way), so
the resamples are identical; each statistic is then computed for a block of resamples at once:

* ECE / MCE with fixed (``uniform``) bins: the per-bin tallies of every resample by one
  ``bincount`` (the loop's sums, in the loop's order) and the loop's arithmetic: the loop's
  values, bit for bit;
* the calibration slope and intercepts: Newton–Raphson on the logistic likelihood weighted by
  the counts (how often each sample is drawn in the resample), all resamples at once, started
  from the full-data fit and stopped once a step is below 1e-7 (quadratic convergence: the fit
  is then exact to about 1e-13, relative; the loop stopped at steps of 1e-13): the loop's fits
  to about 1e-13, so the interval ends agree to about 1e-13 (a documented change).

What stays a loop over resamples (quantile or adaptive bins, the Brier decomposition, n × k
probabilities) computes the statistic one resample at a time, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
from scipy.special import expit

from ..errors import InputError

BLOCK_CELLS = 1 << 22  # resamples × samples drawn at a time (32 MiB of int64 draws)
SLICE_CELLS = 1 << 16  # resamples × samples per pass of a kernel: its arrays (512 KiB each) stay in the cache


def index_blocks(rng: np.random.Generator, n: int, n_resamples: int,
                 advance: Callable[[int], None] | None = None) -> Iterator[np.ndarray]:
    """Blocks of bootstrap draws (resamples × n indices), ``rng.integers(0, n, size=n)`` per
    resample, in order; ``advance(k)`` after each block of k resamples is used."""
    block = max(1, BLOCK_CELLS // max(n, 1))
    for start in range(0, n_resamples, block):
        rows = min(block, n_resamples - start)
        yield rng.integers(0, n, size=(rows, n))
        if advance is not None:
            advance(rows)


def counts_of(index: np.ndarray) -> np.ndarray:
    """How often each sample is drawn in each resample (float64, resamples × n)."""
    rows, n = index.shape
    flat = (index + (np.arange(rows) * n)[:, None]).ravel()
    return np.bincount(flat, minlength=rows * n).reshape(rows, n).astype(np.float64, copy=False)


def binned_errors(index: np.ndarray, truth: np.ndarray, prob: np.ndarray, weights: np.ndarray | None,
                  ids: np.ndarray, n_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """(ECE, MCE) of each resample (row of ``index``), each sample's bin fixed (``ids``): the
    per-bin tallies are the loop's ``bincount`` sums, in the same order, a cache-sized slice of
    resamples at a time."""
    rows = max(1, SLICE_CELLS // max(index.shape[1], 1))
    parts = [_binned(index[i:i + rows], truth, prob, weights, ids, n_bins) for i in range(0, index.shape[0], rows)]
    return np.concatenate([e for e, _ in parts]), np.concatenate([m for _, m in parts])


def _binned(index, truth, prob, weights, ids, n_bins):
    rows = index.shape[0]
    keys = (ids[index] + (np.arange(rows) * n_bins)[:, None]).ravel()
    size = rows * n_bins
    w = None if weights is None else weights[index].ravel()
    total = np.bincount(keys, weights=w, minlength=size).reshape(rows, n_bins)
    sums = np.bincount(keys, weights=(prob[index].ravel() if w is None else prob[index].ravel() * w),
                       minlength=size).reshape(rows, n_bins)
    hits = np.bincount(keys, weights=(truth[index].ravel() if w is None else truth[index].ravel() * w),
                       minlength=size).reshape(rows, n_bins)
    nonzero = total != 0
    safe = np.where(nonzero, total, 1.0)
    gap = np.where(nonzero, np.abs(hits / safe - sums / safe), 0.0)
    # the loop's last step, np.dot over the non-empty bins, row by row (O(bins) each), so that
    # the values are the loop's to the last bit
    ece = np.array([np.dot(t[m], g[m]) / t[m].sum() for t, g, m in zip(total, gap, nonzero)])
    mce = np.where(nonzero, gap, -np.inf).max(axis=1)
    return ece, mce


def _undefined() -> InputError:
    return InputError("the logistic recalibration has no finite maximum on a bootstrap resample (logit(p) separates "
                      "the classes perfectly, or the resample has one class)", field="y_true")


def logistic_fits(index: np.ndarray, z: np.ndarray, y: np.ndarray, start: np.ndarray, *,
                  weights: np.ndarray | None = None, offset: bool = False) -> np.ndarray:
    """Maximum-likelihood fits of logit P(y) = a + b·z (``offset=False``: rows (a, b)) or of a + z
    (``offset=True``: rows (a,)) on each resample (row of ``index``, the draws), weighted by the
    counts of the draws (times ``weights``), by Newton–Raphson from ``start``, a cache-sized slice
    of resamples at a time; a resample without a finite maximum is an error."""
    rows = max(1, SLICE_CELLS // max(index.shape[1], 1))
    powers = np.column_stack([np.ones_like(z), z, z * z])
    fits = []
    for i in range(0, index.shape[0], rows):
        counts = counts_of(index[i:i + rows])
        fits.append(_fits(counts if weights is None else counts * weights, z, y, start, powers, offset=offset))
    return np.concatenate(fits)


def _fits(counts: np.ndarray, z: np.ndarray, y: np.ndarray, start: np.ndarray, powers: np.ndarray, *,
          offset: bool) -> np.ndarray:
    k = 1 if offset else 2
    beta = np.tile(np.asarray(start, dtype=np.float64)[:k], (counts.shape[0], 1))
    active = np.arange(counts.shape[0])
    for _ in range(100):
        w = counts if active.size == counts.shape[0] else counts[active]
        b = beta[active]
        eta = np.broadcast_to(z, w.shape) + b[:, :1] if offset else np.multiply(b[:, 1:], z[None, :])
        if not offset:
            eta += b[:, :1]
        mu = expit(eta, out=eta)  # in place: one n-wide temporary per product below
        v = np.subtract(1.0, mu)
        v *= mu
        v *= w
        r = np.subtract(y[None, :], mu, out=mu)
        r *= w
        (h00, h01, h11), (g0, g1) = (v @ powers).T, (r @ powers[:, :2]).T
        if offset:
            step = (g0 / h00)[:, None]
        else:
            det = h00 * h11 - h01 * h01
            step = np.column_stack([(h11 * g0 - h01 * g1) / det, (h00 * g1 - h01 * g0) / det])
        new = beta[active] + step
        if not (np.isfinite(step).all() and np.abs(new).max(initial=0.0) <= 1e6):
            raise _undefined()
        beta[active] = new
        # Newton converges quadratically: after a step of 1e-7 the error is of order 1e-14, so
        # this stops one or two steps before the loop's rule (a step <= 1e-13) with the same fit
        # to about 1e-13 (relative), a third less work
        done = np.abs(step).max(axis=1) <= 1e-7 * (1 + np.abs(new).max(axis=1))
        active = active[~done]
        if active.size == 0:
            return beta
    raise _undefined()
