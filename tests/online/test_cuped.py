"""Ratio-metric CUPED by the delta method: theta against statsmodels OLS on the linearised
per-unit values (computed here with pandas), the variances against the delta-method moment
formulas of Deng et al. (2013) written out with numpy's covariances, and ab_test(cuped="delta")."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from cranfield.errors import InputError, UsageError
from cranfield.online import ClickLog, ab_test, impression_metrics
from cranfield.online.cuped import ratio_cuped

from .clicklog_factory import random_log_columns

sm = pytest.importorskip("statsmodels.api")


def _data(seed, n=400):
    rng = np.random.default_rng(seed)
    t = rng.random(n) < 0.5
    n_u = rng.integers(1, 20, n).astype(float)          # impressions per user
    skill = rng.beta(2, 5, n)                            # per-user click propensity, carried over periods
    y = rng.binomial(n_u.astype(int), np.clip(skill + 0.03 * t, 0, 1)).astype(float)
    m = rng.integers(1, 20, n).astype(float)
    x = rng.binomial(m.astype(int), skill).astype(float)  # pre-period clicks out of m impressions
    return y, n_u, x, m, t


def _moment_variance(y, n, x, m):
    """Var(R), Var(C), Cov(R, C) of the delta method from the moments (Deng et al. 2013, appendix)."""
    k = len(y)
    cov = np.cov(np.vstack([y, n, x, m]), ddof=0)
    my, mn, mx, mm = y.mean(), n.mean(), x.mean(), m.mean()
    grad_r = np.array([1 / mn, -my / mn ** 2, 0, 0])
    grad_c = np.array([0, 0, 1 / mm, -mx / mm ** 2])
    return grad_r @ cov @ grad_r / k, grad_c @ cov @ grad_c / k, grad_r @ cov @ grad_c / k


@pytest.mark.parametrize("seed", range(4))
def test_against_ols_and_the_moment_formulas(seed):
    y, n, x, m, t = _data(seed)
    out = ratio_cuped(y, n, x, m, t)
    frame = pd.DataFrame({"y": y, "n": n, "x": x, "m": m, "t": t})
    parts, var_adj, var_raw, est = [], [], [], []
    for arm, g in frame.groupby("t"):
        r, c = g.y.sum() / g.n.sum(), g.x.sum() / g.m.sum()
        parts.append(pd.DataFrame({"ell": (g.y - r * g.n) / g.n.mean(), "k": (g.x - c * g.m) / g.m.mean(),
                                   "arm": float(arm)}))
    lin = pd.concat(parts)
    ols = sm.OLS(lin.ell.to_numpy(), np.column_stack([lin.k, lin.arm == 0, lin.arm == 1]).astype(float)).fit()
    theta = ols.params[0]
    assert out["cuped_theta"] == pytest.approx(theta, rel=1e-10)
    c_all = x.sum() / m.sum()
    for arm, g in frame.groupby("t"):
        v_r, v_c, cov_rc = _moment_variance(g.y.to_numpy(), g.n.to_numpy(), g.x.to_numpy(), g.m.to_numpy())
        var_adj.append(v_r + theta ** 2 * v_c - 2 * theta * cov_rc)
        var_raw.append(v_r)
        est.append(g.y.sum() / g.n.sum() - theta * (g.x.sum() / g.m.sum() - c_all))
    assert (out["estimate_control"], out["estimate_treatment"]) == pytest.approx(tuple(est), rel=1e-12)
    se = np.sqrt(sum(var_adj))
    assert out["lift_high"] - out["lift"] == pytest.approx(1.959963984540054 * se, rel=1e-9)
    assert out["variance_reduction"] == pytest.approx(1 - sum(var_adj) / sum(var_raw), rel=1e-9)
    assert out["variance_reduction"] > 0.1  # the pre-period propensity is a strong covariate


def test_ab_test_with_cuped_delta():
    columns = random_log_columns(12, n_users=120, lift=0.05)
    log = ClickLog.from_columns(**columns)
    m = impression_metrics(log, metrics=["ctr"])
    users = sorted(set(columns["user"]))
    rng = np.random.default_rng(0)
    pre = {u: float(v) for u, v in zip(users, rng.random(len(users)))}
    t = ab_test(m, unit="user", covariate=pre, cuped="delta").tests[0]
    codes, ids = m.unit("user")
    num, den = m.values["ctr"]
    y, x = np.bincount(codes, weights=num), np.bincount(codes, weights=den)
    variant = np.zeros(len(ids), int)
    variant[codes] = m.codes["variant"]
    cov = np.array([pre[str(u)] for u in ids])
    ref = ratio_cuped(y, x, cov, np.ones(len(ids)), variant == 1)
    assert (t.lift, t.p_value, t.cuped_theta) == (ref["lift"], ref["p_value"], ref["cuped_theta"])
    assert t.test == "delta" and t.ci_method == "delta (CUPED, ratio)"
    with pytest.raises(UsageError, match="cuped"):
        ab_test(m, unit="user", covariate=pre, cuped="ols")


def test_errors():
    with pytest.raises(InputError, match="two units"):
        ratio_cuped([1.0, 2.0, 3.0], [1.0, 1.0, 1.0], [1.0, 2.0, 3.0], [1.0, 1.0, 1.0], [True, False, False])
