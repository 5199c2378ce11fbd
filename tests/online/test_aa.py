"""A/A simulation: each simulated split, relabelled and handed to ab_test (which is tested against
statsmodels and scipy), gives the same p-values; the counts of significant splits follow; on a
seeded log the rate by user is near alpha."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest

import cranfield.cli
from cranfield.online import ClickLog, ab_test, impression_metrics
from cranfield.online.aa import _pvalues, aa_assignments, aa_simulation

from .clicklog_factory import random_log_columns


@pytest.fixture(scope="module")
def metrics():
    log = ClickLog.from_columns(**random_log_columns(4, n_users=60, lift=0.0))
    return impression_metrics(log, metrics=["ctr", "rr", "clicks"])


def _relabelled(m, unit, in_b):
    codes, _ = m.unit(unit)
    variant = in_b[codes].astype(np.int64)
    return dataclasses.replace(m, codes={**m.codes, "variant": variant},
                               ids={**m.ids, "variant": np.array(["A", "B"], dtype=object)})


@pytest.mark.parametrize("unit", ["user", "impression"])
@pytest.mark.parametrize("test", ["delta", "welch"])
def test_every_split_equals_ab_test_on_the_relabelled_log(metrics, unit, test):
    n_units = len(metrics.unit(unit)[1])
    assign = aa_assignments(n_units, 15, np.random.default_rng(9))
    assert (assign.sum(axis=1) == n_units - n_units // 2).all()
    for name in ("ctr", "rr", "clicks"):
        num, den = metrics.values[name]
        codes, _ = metrics.unit(unit)
        y, x = np.bincount(codes, weights=num), np.bincount(codes, weights=den)
        p = _pvalues(assign, y, x, test)
        for k in range(len(assign)):
            ref = ab_test(_relabelled(metrics, unit, assign[k]), metrics=[name], unit=unit, test=test,
                          correction="none", srm_alpha=1e-300).tests[0].p_value
            assert p[k] == pytest.approx(ref, rel=1e-9, abs=1e-15)  # matrix products vs sums: float order


def test_rate_counts_the_significant_splits(metrics):
    result = aa_simulation(metrics, metrics=["ctr"], unit="user", n_simulations=40, alpha=0.2, random_state=3)
    n_units = len(metrics.unit("user")[1])
    assign = aa_assignments(n_units, 40, np.random.default_rng(3))
    for row in result.rows:
        p = [ab_test(_relabelled(metrics, "user", a), metrics=["ctr"], unit="user", test=row.test, correction="none",
                     srm_alpha=1e-300).tests[0].p_value for a in assign]
        assert row.significant == sum(v <= 0.2 for v in p) and row.rate == row.significant / 40
        assert row.rate_low <= row.rate <= row.rate_high


def test_the_per_user_rate_is_near_alpha():
    """Monte Carlo (seeded, 400 splits): the delta-method test by user holds its level."""
    columns = random_log_columns(6, n_users=120, lift=0.0, sessions_per_user=4)
    m = impression_metrics(ClickLog.from_columns(**columns), metrics=["clicks"])
    by_user = aa_simulation(m, unit="user", tests=["delta"], n_simulations=400, random_state=1).rows[0]
    assert by_user.rate_low <= 0.05 <= by_user.rate_high + 0.02


def test_cli_aa(tmp_path, capsys):
    columns = random_log_columns(4, n_users=60, lift=0.0)
    pd.DataFrame(columns).to_csv(tmp_path / "clicks.csv", index=False)
    status = cranfield.cli.main(["online", "aa", str(tmp_path / "clicks.csv"), "--unit", "user", "--simulations",
                                 "50", "-m", "ctr", "-f", "json"])
    out, _ = capsys.readouterr()
    expected = aa_simulation(ClickLog.from_columns(**columns), metrics=["ctr"], unit="user", n_simulations=50)
    assert status == 0 and json.loads(out)["rows"] == expected.to_dict()["rows"]
