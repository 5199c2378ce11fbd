"""mSPRT always-valid p-values and confidence sequences: against a brute-force loop over the looks
(per-unit sums recomputed from scratch with pandas at every look, the closed-form mixture
likelihood ratio of Johari et al. written out), and a bounded Monte Carlo A/A check."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from cranfield.errors import UsageError
from cranfield.online import ClickLog, impression_metrics
from cranfield.online.sequential import impression_times, msprt_looks, sequential_ab_test

from .clicklog_factory import random_log_columns


@pytest.fixture(scope="module")
def log():
    return ClickLog.from_columns(**random_log_columns(5, n_users=40, lift=0.1))


def _brute_force(m, name, unit, time, tau, alpha, min_units):
    """Every look from scratch: delta-method variance over the units seen so far, closed-form
    mixture likelihood ratio, running minimum of 1/LR and running intersection of the intervals."""
    num, den = m.values[name]
    frame = pd.DataFrame({"u": m.codes[unit], "v": m.codes["variant"], "y": num, "x": den, "t": time})
    frame = frame.iloc[np.argsort(time, kind="stable")].reset_index(drop=True)
    p_run, low_run, high_run, first = 1.0, -math.inf, math.inf, None
    for n in range(1, len(frame) + 1):  # the reference: a Python loop over every look
        seen = frame.iloc[:n]
        per_unit = seen.groupby("u").agg(y=("y", "sum"), x=("x", "sum"), v=("v", "first"))
        arms = []
        for v in (0, 1):
            g = per_unit[per_unit.v == v]
            if len(g) < min_units or g.x.sum() == 0:
                arms = None
                break
            r = g.y.sum() / g.x.sum()
            arms.append((r, float(((g.y - r * g.x) ** 2).sum() / g.x.sum() ** 2)))
        if arms is None or arms[0][1] + arms[1][1] <= 0:
            continue
        d, var = arms[1][0] - arms[0][0], arms[0][1] + arms[1][1]
        lr = math.sqrt(var / (var + tau ** 2)) * math.exp(tau ** 2 * d * d / (2 * var * (var + tau ** 2)))
        p_run = min(p_run, 1 / lr, 1.0)
        half = math.sqrt(var * (var + tau ** 2) / tau ** 2 * (math.log((var + tau ** 2) / var) - 2 * math.log(alpha)))
        low_run, high_run = max(low_run, d - half), min(high_run, d + half)
        if first is None and p_run <= alpha:
            first = n
    return p_run, low_run, high_run, first


@pytest.mark.parametrize("min_units", [2, 10])
@pytest.mark.parametrize("unit", ["user", "session", "impression"])
@pytest.mark.parametrize("name", ["ctr", "clicks", "rr"])
def test_equals_a_brute_force_loop_over_the_looks(log, unit, name, min_units):
    m = impression_metrics(log, metrics=[name])
    time = impression_times(log)
    tau = 0.05
    result = sequential_ab_test(log, metrics=[name], unit=unit, tau=tau, alpha=0.05, min_units=min_units)
    t = result.tests[0]
    p, low, high, first = _brute_force(m, name, unit, time, tau, 0.05, min_units)
    # the library's per-unit squares are running sums, the loop's are recomputed: float reordering only
    assert t.p_value == pytest.approx(p, rel=1e-9)
    assert (t.cs_low, t.cs_high) == pytest.approx((low, high), rel=1e-9)
    assert t.first_look == first
    assert t.looks == m.n_impressions and result.settings["order"] == "time"


def test_crossing_is_reported_on_a_real_effect():
    log = ClickLog.from_columns(**random_log_columns(2, n_users=300, lift=0.3))
    t = sequential_ab_test(log, metrics=["ctr"], unit="user", tau=0.1).tests[0]
    assert t.p_value <= 0.05 and t.first_look is not None and t.first_impression is not None
    assert t.cs_low > 0 and t.cs_low <= t.lift <= t.cs_high


def test_the_closed_form_per_look():
    out = msprt_looks([0.3, 0.0, 0.2], [0.04, -1.0, 0.01], tau=0.5, alpha=0.1)
    v, t2 = 0.04, 0.25
    lr = math.sqrt(v / (v + t2)) * math.exp(t2 * 0.09 / (2 * v * (v + t2)))
    assert out["p_value"][0] == pytest.approx(min(1.0, 1 / lr), rel=1e-12)
    assert out["p_value"][1] == out["p_value"][0]  # a look without evidence keeps the running minimum
    assert out["p_value"][2] <= out["p_value"][1]
    with pytest.raises(UsageError, match="tau"):
        msprt_looks([0.1], [0.1], tau=0)


def test_aa_false_positive_rate_stays_below_alpha():
    """Monte Carlo (seeded, bounded): 400 A/A experiments of 600 impressions, Bernoulli(0.3) per
    impression, a look after each; the share that ever crosses alpha = 0.1 must stay below alpha
    (plus a 3-sigma Monte Carlo margin; the mSPRT is conservative, so it is far below)."""
    rng = np.random.default_rng(20260901)
    alpha, n, reps = 0.1, 600, 400
    variant = rng.integers(0, 2, (reps, n))
    y = (rng.random((reps, n)) < 0.3).astype(float)
    hits = 0
    for r in range(reps):
        sums, counts = np.zeros((2, n)), np.zeros((2, n))
        for v in (0, 1):
            sums[v] = np.cumsum(np.where(variant[r] == v, y[r], 0.0))
            counts[v] = np.cumsum(variant[r] == v)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = sums / counts
            var = (mean * (1 - mean) / counts).sum(axis=0)
        var[(counts < 2).any(axis=0)] = np.nan
        hits += msprt_looks(mean[1] - mean[0], var, tau=0.05, alpha=alpha)["p_value"][-1] <= alpha
    rate = hits / reps
    assert rate <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / reps)


def test_defaults_and_orders(log):
    m = impression_metrics(log, metrics=["ctr"])
    by_order = sequential_ab_test(m, metrics=["ctr"], unit="user").tests[0]
    assert by_order.tau == pytest.approx(0.05 * abs(_control_ctr(m)))
    reverse = sequential_ab_test(m, metrics=["ctr"], unit="user", time=-np.arange(m.n_impressions)).tests[0]
    assert reverse.lift == pytest.approx(by_order.lift, rel=1e-12)  # the end is the same experiment
    with pytest.raises(Exception, match="time"):
        sequential_ab_test(m, time=[1.0])


def _control_ctr(m):
    num, den = m.values["ctr"]
    a = m.codes["variant"] == 0
    return num[a].sum() / den[a].sum()


def test_looks_without_any_click_carry_no_evidence():
    """The first impressions have no click: their variance is 0 (the running sums give ~1e-18 by
    cancellation, which made an interval of width 1e-8 around 0 before the rounding policy)."""
    rng = np.random.default_rng(3)
    n = 400
    clicked = np.r_[np.zeros(40, bool), rng.random(n - 40) < 0.3]
    log = ClickLog.from_columns(impression=np.arange(n), query=np.zeros(n, int), rank=np.ones(n, int),
                                doc=np.zeros(n, int), clicked=clicked, variant=np.where(np.arange(n) % 2, "B", "A"),
                                user=np.arange(n) % 50, timestamp=np.arange(n, dtype=float))
    t = sequential_ab_test(log, metrics=["ctr"], unit="user", tau=0.05, min_units=2).tests[0]
    assert t.cs_low < t.lift < t.cs_high and t.cs_high - t.cs_low > 0.05


def test_cli_sequential_reports_the_library_result(tmp_path, capsys):
    import json

    import cranfield.cli

    columns = random_log_columns(21, n_users=40)
    pd.DataFrame(columns).to_csv(tmp_path / "clicks.csv", index=False)
    status = cranfield.cli.main(["online", "ab", str(tmp_path / "clicks.csv"), "--unit", "user", "--sequential",
                                 "--tau", "0.05", "-m", "ctr", "-f", "json"])
    out, _ = capsys.readouterr()
    expected = sequential_ab_test(ClickLog.from_columns(**columns), metrics=["ctr"], unit="user", tau=0.05).tests[0]
    test = json.loads(out)["tests"][0]
    assert status == 0 and test["p_value"] == expected.p_value and test["first_look"] == expected.first_look
    assert cranfield.cli.main(["online", "ab", str(tmp_path / "clicks.csv"), "--tau", "0.1"]) == 2


def test_aa_logs_through_the_whole_analysis_stay_below_alpha():
    """Monte Carlo (seeded, bounded): 60 A/A click logs of 150 users randomised, a look after every
    impression, CTR by user: the share crossing alpha stays below alpha + 3 sigma with the default
    min_units (with min_units=2 the plug-in variance of a few users makes it several times alpha)."""
    alpha, n = 0.05, 60
    logs = [impression_metrics(ClickLog.from_columns(**random_log_columns(1000 + s, n_users=150, lift=0.0)),
                               metrics=["ctr"]) for s in range(n)]
    rate = np.mean([sequential_ab_test(m, unit="user", tau=0.05, correction="none").tests[0].p_value <= alpha
                    for m in logs])
    assert rate <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / n)
    early = np.mean([sequential_ab_test(m, unit="user", tau=0.05, min_units=2).tests[0].p_value <= alpha
                     for m in logs])
    assert early > rate
