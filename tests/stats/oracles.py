"""Reference implementations used as test oracles (slow, written from the papers)."""

import numpy as np


def slow_delong(y_true, scores):
    """O(n^2) DeLong oracle straight from DeLong, DeLong & Clarke-Pearson (1988), eqs. (2)-(5).

    psi(x, y) = 1 if x > y, 1/2 if x == y, 0 otherwise, for every positive x and negative y.
    Returns the AUCs and the covariance matrix S = S10 / m + S01 / n.
    """
    y = np.asarray(y_true).astype(bool)
    scores = np.atleast_2d(np.asarray(scores, dtype=float))
    pos, neg = scores[:, y], scores[:, ~y]
    psi = (pos[:, :, None] > neg[:, None, :]) + 0.5 * (pos[:, :, None] == neg[:, None, :])  # (k, m, n)
    v10 = psi.mean(axis=2)  # structural components of the positives
    v01 = psi.mean(axis=1)  # ... of the negatives
    auc = v10.mean(axis=1)
    m, n = pos.shape[1], neg.shape[1]
    s10 = (v10 - auc[:, None]) @ (v10 - auc[:, None]).T / (m - 1)
    s01 = (v01 - auc[:, None]) @ (v01 - auc[:, None]).T / (n - 1)
    return auc, s10 / m + s01 / n
