"""Effect sizes for paired comparisons: how large a difference is, not only whether it is.

Functions take per-query values of two systems in the same query order (``x``, ``y``), or a
(pairs, queries) matrix of differences for the batch forms (``*_rows``).
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from .intervals import Interval, mean_ci

__all__ = ["mean_difference", "cohens_dz", "cohens_dz_rows", "win_tie_loss", "win_tie_loss_rows"]


def _paired(x, y) -> np.ndarray:
    a = np.asarray(x, dtype=np.float64)
    b = np.asarray(y, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape:
        raise InputError(f"expected two 1-D arrays of paired values of the same length, found shapes {a.shape} and {b.shape}", field="y")
    return a - b


def mean_difference(x, y, *, method: str = "auto", confidence: float = 0.95, n_resamples: int = 10_000,
                    random_state=0) -> Interval:
    r"""Mean of the per-query differences :math:`\bar d = \overline{x - y}` with its confidence
    interval (any :func:`~cranfield.stats.intervals.mean_ci` method applied to :math:`d`).

    >>> ci = mean_difference([0.5, 0.7, 0.9], [0.4, 0.5, 0.6], method="t")
    >>> round(ci.estimate, 4), round(ci.low, 4), round(ci.high, 4)
    (0.2, -0.0484, 0.4484)
    """
    return mean_ci(_paired(x, y), method=method, confidence=confidence, n_resamples=n_resamples,
                   random_state=random_state)


def cohens_dz_rows(differences) -> np.ndarray:
    r"""Cohen's :math:`d_z = \bar d / s_d` (ddof 1) of each row of a (pairs, queries) matrix.

    Cohen (1988, §2.3.5); Lakens (2013) eq. 6. Policy: :math:`s_d = 0` gives 0 when
    :math:`\bar d = 0` and :math:`\pm\infty` otherwise.
    """
    d = np.asarray(differences, dtype=np.float64)
    if d.ndim != 2 or d.shape[1] < 2:
        raise InputError(f"expected a (pairs, queries) matrix with at least 2 queries, found shape {d.shape}", field="differences")
    mean = d.mean(axis=1)
    sd = d.std(axis=1, ddof=1)
    safe = np.where(sd > 0, sd, 1.0)
    return np.where(sd > 0, mean / safe, np.where(mean == 0, 0.0, np.copysign(np.inf, mean)))


def cohens_dz(x, y) -> float:
    r"""Cohen's :math:`d_z` for paired data: mean difference over the standard deviation of the
    differences, :math:`d_z = \bar d / s_d` = t / √n (see :func:`cohens_dz_rows`).

    >>> round(cohens_dz([0.5, 0.7, 0.9], [0.4, 0.5, 0.6]), 4)
    2.0
    """
    return float(cohens_dz_rows(_paired(x, y)[None, :])[0])


def win_tie_loss_rows(differences) -> np.ndarray:
    """(pairs, 3) integer matrix: per row, the queries with difference > 0, == 0 and < 0."""
    d = np.asarray(differences, dtype=np.float64)
    d = d[None, :] if d.ndim == 1 else d
    return np.stack([(d > 0).sum(axis=1), (d == 0).sum(axis=1), (d < 0).sum(axis=1)], axis=1)


def win_tie_loss(x, y) -> tuple[int, int, int]:
    """Queries where ``x`` is higher, equal (exactly) and lower than ``y``.

    >>> win_tie_loss([0.5, 0.7, 0.9], [0.4, 0.7, 1.0])
    (1, 1, 1)
    """
    wins, ties, losses = win_tie_loss_rows(_paired(x, y)[None, :])[0]
    return int(wins), int(ties), int(losses)
