"""Quantile metrics of an A/B test: each variant's interval equals scipy.stats.quantile_test's on
the per-unit values (computed independently with pandas), the bootstrap difference equals a loop
over the same resamples, and agrees with scipy.stats.bootstrap up to Monte Carlo error."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import cranfield.cli
from cranfield.online import ClickLog, impression_metrics
from cranfield.online.quantiles import bootstrap_quantile_difference, quantile_ab_test

from .clicklog_factory import random_log_columns


@pytest.fixture(scope="module")
def metrics():
    log = ClickLog.from_columns(**random_log_columns(8, n_users=200, lift=0.1))
    return impression_metrics(log, metrics=["ttfc", "ctr"])


def _per_unit(m, name, unit):
    num, den = m.values[name]
    frame = pd.DataFrame({"u": m.codes[unit], "v": m.codes["variant"], "y": num, "x": den})
    g = frame.groupby("u").agg(y=("y", "sum"), x=("x", "sum"), v=("v", "first"))
    g = g[g.x > 0]
    return [(g.y / g.x)[g.v == v].to_numpy() for v in (0, 1)]


@pytest.mark.parametrize("unit", ["user", "impression"])
@pytest.mark.parametrize("name", ["ttfc", "ctr"])
def test_variant_intervals_equal_scipy_quantile_test(metrics, unit, name):
    result = quantile_ab_test(metrics, metrics=[name], unit=unit, quantiles=[0.5, 0.9], n_resamples=200)
    control, treatment = _per_unit(metrics, name, unit)
    for t in result.tests:
        for values, (est, low, high) in ((control, (t.control_estimate, t.control_low, t.control_high)),
                                         (treatment, (t.treatment_estimate, t.treatment_low, t.treatment_high))):
            ci = stats.quantile_test(values, q=np.quantile(values, t.q), p=t.q).confidence_interval(0.95)
            assert (est, low, high) == (np.quantile(values, t.q), ci.low, ci.high)
        assert t.difference == np.quantile(treatment, t.q) - np.quantile(control, t.q)
        assert (t.n_control, t.n_treatment) == (control.size, treatment.size)


def test_bootstrap_difference_equals_a_loop_over_the_resamples():
    rng = np.random.default_rng(1)
    t, c = rng.exponential(2.0, 40), rng.exponential(1.5, 30)
    diff, low, high, p = bootstrap_quantile_difference(t, c, 0.9, n_resamples=300, random_state=7)
    g = np.random.default_rng(7)
    draws = []
    ci = g.integers(0, c.size, (300, c.size))
    ti = g.integers(0, t.size, (300, t.size))
    for k in range(300):
        draws.append(np.quantile(t[ti[k]], 0.9) - np.quantile(c[ci[k]], 0.9))
    draws = np.array(draws)
    # numpy's quantile along an axis interpolates in another order than row by row: last bits only
    assert (low, high) == pytest.approx(tuple(np.quantile(draws, [0.025, 0.975])), rel=1e-13)
    assert p == min(1.0, 2 * min((draws <= 0).sum(), (draws >= 0).sum()) / 300)
    assert diff == np.quantile(t, 0.9) - np.quantile(c, 0.9)


def test_bootstrap_difference_agrees_with_scipy_bootstrap():
    """Monte Carlo: 4000 resamples each; the percentile bounds agree within 0.1 (their bootstrap
    standard error here is about 0.03)."""
    rng = np.random.default_rng(2)
    t, c = rng.normal(1.0, 1.0, 150), rng.normal(0.0, 1.0, 120)
    _, low, high, _ = bootstrap_quantile_difference(t, c, 0.5, n_resamples=4000, random_state=3)
    ref = stats.bootstrap((t, c), lambda a, b, axis: np.quantile(a, 0.5, axis=axis) - np.quantile(b, 0.5, axis=axis),
                          method="percentile", n_resamples=4000, vectorized=True, random_state=4)
    assert low == pytest.approx(ref.confidence_interval.low, abs=0.1)
    assert high == pytest.approx(ref.confidence_interval.high, abs=0.1)


def test_cli_quantiles(tmp_path, capsys):
    columns = random_log_columns(8, n_users=200, lift=0.1)
    pd.DataFrame(columns).to_csv(tmp_path / "clicks.csv", index=False)
    status = cranfield.cli.main(["online", "ab", str(tmp_path / "clicks.csv"), "--unit", "user", "--quantile", "0.5",
                                 "--quantile", "0.9", "-m", "ttfc", "--resamples", "300", "-f", "json"])
    out, _ = capsys.readouterr()
    expected = quantile_ab_test(ClickLog.from_columns(**columns), metrics=["ttfc"], unit="user", quantiles=[0.5, 0.9],
                                n_resamples=300, random_state=0)
    assert status == 0
    assert json.loads(out)["tests"] == [json.loads(json.dumps(t)) for t in expected.to_dict()["tests"]]
