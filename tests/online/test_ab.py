"""A/B analysis and power against statsmodels and scipy on the same inputs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from cranfield.errors import InputError, UsageError
from cranfield.online import ClickLog, ab_test, cuped_adjust, impression_metrics, sample_ratio_mismatch
from cranfield.stats import adjust_pvalues

from .clicklog_factory import random_log_columns

sm = pytest.importorskip("statsmodels.api")
Z975 = 1.959963984540054  # ndtri(0.975)


@pytest.fixture(scope="module")
def metrics():
    log = ClickLog.from_columns(**random_log_columns(11, n_users=150, lift=0.08))
    return impression_metrics(log, metrics=["ctr", "rr", "abandonment", "clicks"])


def _unit_values(m, name, unit="user"):
    """Per-unit (Y, X, variant) by pandas groupby: an independent computation (test only)."""
    num, den = m.values[name]
    frame = pd.DataFrame({"u": m.codes[unit], "v": m.codes["variant"], "y": num, "x": den})
    g = frame.groupby("u").agg(y=("y", "sum"), x=("x", "sum"), v=("v", "first"))
    return g[g.x > 0]


@pytest.mark.parametrize("name", ["ctr", "rr", "abandonment", "clicks"])
@pytest.mark.parametrize("unit", ["user", "session", "impression"])
def test_delta_method_equals_cluster_robust_regression(metrics, name, unit):
    result = ab_test(metrics, metrics=[name], unit=unit)
    t = result.tests[0]
    num, den = metrics.values[name]
    treated = (metrics.codes["variant"] == 1).astype(float)
    fit = sm.WLS(num / den, sm.add_constant(treated), weights=den).fit(
        cov_type="cluster", cov_kwds={"groups": metrics.codes[unit], "use_correction": False})
    # same estimator; statsmodels sums through matrix products in another order: a few ulps
    assert t.lift == pytest.approx(fit.params[1], rel=1e-12, abs=1e-15)
    assert (t.lift_high - t.lift_low) / (2 * Z975) == pytest.approx(fit.bse[1], rel=1e-12)
    assert t.p_value == pytest.approx(fit.pvalues[1], rel=1e-10)
    assert t.statistic == pytest.approx(fit.tvalues[1], rel=1e-12)


def test_naive_variance_is_not_used_when_users_are_randomised(metrics):
    by_user = ab_test(metrics, metrics=["ctr"], unit="user").tests[0]
    by_impression = ab_test(metrics, metrics=["ctr"], unit="impression").tests[0]
    assert by_user.lift == by_impression.lift
    assert by_user.lift_high - by_user.lift_low > by_impression.lift_high - by_impression.lift_low


def test_two_proportion_z_test_equals_statsmodels(metrics):
    from statsmodels.stats.proportion import confint_proportions_2indep, proportions_ztest

    t = ab_test(metrics, metrics=["abandonment"], test="proportion").tests[0]
    num, den = metrics.values["abandonment"]
    v = metrics.codes["variant"]
    counts = [num[v == 1].sum(), num[v == 0].sum()]
    nobs = [den[v == 1].sum(), den[v == 0].sum()]
    z, p = proportions_ztest(counts, nobs)
    assert t.statistic == z and t.p_value == p  # the same operations: exact
    low, high = confint_proportions_2indep(counts[0], nobs[0], counts[1], nobs[1], method="wald")
    assert t.lift_low == pytest.approx(low, rel=1e-13) and t.lift_high == pytest.approx(high, rel=1e-13)
    with pytest.raises(UsageError, match="independent trials"):
        ab_test(metrics, metrics=["abandonment"], test="proportion", unit="user")


def test_welch_and_mann_whitney_equal_scipy_on_unit_values(metrics):
    g = _unit_values(metrics, "rr")
    mt, mc = (g.y / g.x)[g.v == 1].to_numpy(), (g.y / g.x)[g.v == 0].to_numpy()
    welch = ab_test(metrics, metrics=["rr"], unit="user", test="welch").tests[0]
    reference = stats.ttest_ind(mt, mc, equal_var=False)
    assert welch.statistic == pytest.approx(reference.statistic, rel=1e-13)  # groupby sums: another order
    assert welch.p_value == pytest.approx(reference.pvalue, rel=1e-11)
    assert welch.df == pytest.approx(reference.df, rel=1e-13)
    ci = reference.confidence_interval(0.95)
    assert welch.lift_low == pytest.approx(ci.low, rel=1e-12) and welch.lift_high == pytest.approx(ci.high, rel=1e-12)
    g = _unit_values(metrics, "clicks")  # whole numbers: sums exact in any order, so ties are the same ties
    mt, mc = (g.y / g.x)[g.v == 1].to_numpy(), (g.y / g.x)[g.v == 0].to_numpy()
    mw = ab_test(metrics, metrics=["clicks"], unit="user", test="mannwhitney").tests[0]
    reference = stats.mannwhitneyu(mt, mc, alternative="two-sided")
    assert mw.statistic == reference.statistic and mw.p_value == pytest.approx(reference.pvalue, rel=1e-13)


def test_bootstrap_is_seeded_and_close_to_the_delta_method(metrics):
    a = ab_test(metrics, metrics=["ctr"], unit="user", test="bootstrap", n_resamples=3000, random_state=5).tests[0]
    b = ab_test(metrics, metrics=["ctr"], unit="user", test="bootstrap", n_resamples=3000, random_state=5).tests[0]
    c = ab_test(metrics, metrics=["ctr"], unit="user", test="bootstrap", n_resamples=3000, random_state=6).tests[0]
    assert a == b and a != c and a.seed == 5 and a.n_resamples == 3000
    delta = ab_test(metrics, metrics=["ctr"], unit="user").tests[0]
    width = delta.lift_high - delta.lift_low
    # Monte Carlo (3000 resamples) and the bootstrap's own small-sample bias: within 15% of the width
    assert abs(a.lift_low - delta.lift_low) < 0.15 * width and abs(a.lift_high - delta.lift_high) < 0.15 * width
    assert abs(a.p_value - delta.p_value) < 0.05


def test_srm_equals_scipy_chisquare(metrics):
    srm = sample_ratio_mismatch(metrics, unit="user", expected_split={"A": 0.6, "B": 0.4})
    reference = stats.chisquare(srm.observed, np.array(srm.observed).sum() * np.array([0.6, 0.4]))
    assert srm.statistic == reference.statistic and srm.p_value == reference.pvalue
    assert srm.df == 1
    balanced = sample_ratio_mismatch(metrics, unit="user")
    assert balanced.p_value == stats.chisquare(balanced.observed).pvalue
    broken = sample_ratio_mismatch(metrics, unit="impression", expected_split={"A": 0.9, "B": 0.1})
    assert broken.mismatch
    with pytest.raises(InputError, match="variant 'C' of the planned split"):
        sample_ratio_mismatch(metrics, expected_split={"A": 1, "B": 1, "C": 1})


def test_cuped(metrics):
    g = _unit_values(metrics, "clicks")
    m = (g.y / g.x).to_numpy()
    rng = np.random.default_rng(3)
    pre = m + rng.normal(0, 0.3, len(m))  # a covariate correlated with the metric
    covariate = dict(zip(metrics.ids["user"][g.index.to_numpy()], pre))
    t = ab_test(metrics, metrics=["clicks"], unit="user", test="welch", covariate=covariate).tests[0]
    theta = np.cov(m, pre)[0, 1] / np.var(pre, ddof=1)
    assert t.cuped_theta == pytest.approx(theta, rel=1e-12)
    adjusted = m - theta * (pre - pre.mean())
    reference = stats.ttest_ind(adjusted[g.v == 1], adjusted[g.v == 0], equal_var=False)
    assert t.p_value == pytest.approx(reference.pvalue, rel=1e-10)
    rho = np.corrcoef(m, pre)[0, 1]
    assert t.variance_reduction == pytest.approx(rho ** 2, rel=1e-10)  # Var(adjusted) = (1 - ρ²) Var(m)
    plain = ab_test(metrics, metrics=["clicks"], unit="user", test="welch").tests[0]
    assert t.lift_high - t.lift_low < plain.lift_high - plain.lift_low
    y, theta0 = cuped_adjust([1.0, 2.0, 3.0], [5.0, 5.0, 5.0])
    assert theta0 == 0.0 and y.tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(InputError, match="no finite pre-period covariate"):
        ab_test(metrics, metrics=["clicks"], unit="user", test="welch", covariate={"u0": 1.0})


def test_several_variants_with_correction():
    log = ClickLog.from_columns(**random_log_columns(12, n_users=90, variants=("A", "B", "C")))
    result = ab_test(log, metrics=["ctr", "rr"], unit="user", correction="holm", control="B")
    assert [(t.metric, t.treatment, t.control) for t in result.tests] == [
        ("ctr", "A", "B"), ("ctr", "C", "B"), ("rr", "A", "B"), ("rr", "C", "B")]
    raw = [t.p_value for t in result.tests]
    from statsmodels.stats.multitest import multipletests

    assert [t.p_adjusted for t in result.tests] == adjust_pvalues(raw, method="holm").tolist()
    assert np.allclose([t.p_adjusted for t in result.tests], multipletests(raw, method="holm")[1], rtol=1e-15)
    assert result.settings["control"] == "B" and result.srm.df == 2


def test_unit_in_two_variants_is_an_error():
    columns = random_log_columns(13, n_users=10)
    columns["user"] = np.where(columns["user"] == "u1", "u0", columns["user"])  # u0 now in both variants?
    log = ClickLog.from_columns(**columns)
    m = impression_metrics(log, metrics=["ctr"])
    variants = {v for u, v in zip(columns["user"], columns["variant"]) if u == "u0"}
    if len(variants) == 2:
        with pytest.raises(InputError, match="user 'u0' is in variants"):
            ab_test(m, unit="user")
    assert ab_test(m, unit="impression").tests
