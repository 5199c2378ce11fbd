"""Online metrics: per-impression values against a plain loop over impressions, aggregated
intervals against statsmodels, Dask partitions merged exactly."""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd
import pytest

from cranfield.errors import InputError, UsageError
from cranfield.online import (ClickLog, dask_impression_metrics, impression_metrics, merge_impression_metrics,
                              summarize)

from .clicklog_factory import random_log_columns

ALL = ["ctr", "ctr@3", "abandonment", "rr", "clicks", "sat_clicks", "ttfc", "skips"]


def _reference(columns: dict, threshold: float) -> dict:
    """Per impression id: each metric's (numerator, denominator), by a plain loop (test only)."""
    frame = pd.DataFrame(columns)
    out = {}
    for imp, rows in frame.groupby("impression"):
        rows = rows.sort_values("rank")
        clicked = rows["clicked"].to_numpy(bool)
        ranks = rows["rank"].to_numpy()
        c = int(clicked.sum())
        n = len(rows)
        first = ranks[clicked][0] if c else 0
        last = ranks[clicked][-1] if c else 0
        skips = sum(1 for r, k in zip(ranks, clicked) if r < last and not k)
        ts = rows["timestamp"].to_numpy()
        defined = 0 < c < n
        ttfc = ts[clicked].min() - ts[~clicked][0] if defined else 0.0
        sat = int(np.sum(clicked & (rows["dwell"].to_numpy() >= threshold)))
        out[imp] = {"ctr": (c, n), "ctr@3": (int(clicked[ranks <= 3].sum()), min(3, n)),
                    "abandonment": (float(c == 0), 1), "rr": (1 / first if c else 0.0, 1), "clicks": (c, 1),
                    "sat_clicks": (sat, 1), "ttfc": (ttfc, float(defined)), "skips": (skips, 1)}
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_per_impression_values_equal_a_plain_loop(seed):
    columns = random_log_columns(seed, n_users=25, max_depth=6 + seed)
    log = ClickLog.from_columns(**columns)
    m = impression_metrics(log, metrics=ALL, dwell_threshold=20.0)
    reference = _reference(columns, 20.0)
    for name in ALL:
        num, den = m.values[name]
        expected_num = np.array([reference[i][name][0] for i in m.ids["impression"]], dtype=float)
        expected_den = np.array([reference[i][name][1] for i in m.ids["impression"]], dtype=float)
        np.testing.assert_array_equal(den, expected_den, err_msg=name)
        np.testing.assert_array_equal(num, expected_num, err_msg=name)  # same operations: exact


def test_small_example_by_hand():
    log = ClickLog.from_columns(impression=["a"] * 4 + ["b"] * 2, query=["q"] * 6, rank=[1, 2, 3, 4, 1, 2],
                                doc=list("wxyzwx"), clicked=[0, 1, 0, 1, 0, 0],
                                dwell=[None, 40, None, 10, None, None],
                                timestamp=[100, 103.5, 100, 101, 50, 50])
    m = impression_metrics(log, metrics=ALL, dwell_threshold=30)
    assert m.value("ctr").tolist() == [0.5, 0.0]
    assert m.value("ctr@3").tolist() == [1 / 3, 0.0]
    assert m.value("abandonment").tolist() == [0.0, 1.0]
    assert m.value("rr").tolist() == [0.5, 0.0]
    assert m.value("clicks").tolist() == [2.0, 0.0]
    assert m.value("sat_clicks").tolist() == [1.0, 0.0]
    assert m.value("skips").tolist() == [2.0, 0.0]  # ranks 1 and 3 skipped above the last click (rank 4)
    ttfc = m.value("ttfc")
    assert ttfc[0] == 1.0 and np.isnan(ttfc[1])  # the first click in time is rank 4's, 1 s after display
    summary = summarize(m, by="variant")
    assert [r[2] for r in summary.rows if r[1] == "ctr"] == [2 / 6]


def test_delta_interval_equals_statsmodels_cluster_robust():
    sm = pytest.importorskip("statsmodels.api")
    log = ClickLog.from_columns(**random_log_columns(4, n_users=80))
    m = impression_metrics(log, metrics=["ctr", "rr", "abandonment"])
    summary = summarize(m, by="variant", unit="user", confidence=0.9)
    z = 1.6448536269514722  # ndtri(0.95)
    for row in summary.rows:
        variant, name = row[0], row[1]
        keep = m.ids["variant"][m.codes["variant"]] == variant
        num, den = m.values[name]
        fit = sm.WLS(num[keep] / den[keep], np.ones(keep.sum()), weights=den[keep]).fit(
            cov_type="cluster", cov_kwds={"groups": m.codes["user"][keep], "use_correction": False})
        # the same estimator; statsmodels sums in another order (matrix products): a few ulps
        assert row[2] == pytest.approx(fit.params[0], rel=1e-13)
        assert (row[4] - row[3]) / (2 * z) == pytest.approx(fit.bse[0], rel=1e-12)
    naive = summarize(m, by="variant", unit="impression")
    width = {(r[0], r[1]): r[4] - r[3] for r in naive.rows}
    assert any(r[4] - r[3] > width[(r[0], r[1])] for r in summary.rows)  # clustering by user widens


def test_wilson_interval_equals_statsmodels():
    proportion = pytest.importorskip("statsmodels.stats.proportion")
    log = ClickLog.from_columns(**random_log_columns(5, n_users=30))
    summary = summarize(impression_metrics(log, metrics=["abandonment", "ctr"]), by="variant", ci="wilson")
    for row in summary.rows:
        low, high = proportion.proportion_confint(row[5], row[6], alpha=0.05, method="wilson")
        assert row[3] == pytest.approx(low, rel=1e-12) and row[4] == pytest.approx(high, rel=1e-12)
    with pytest.raises(UsageError):
        summarize(impression_metrics(log, metrics=["clicks"]), ci="wilson")  # clicks can exceed 1


@pytest.mark.parametrize("by", ["query", "session", "user", "impression"])
def test_groups_sum_to_the_whole(by):
    log = ClickLog.from_columns(**random_log_columns(6, n_users=20))
    m = impression_metrics(log, metrics=["ctr"])
    rows = summarize(m, by=by).rows
    assert sum(r[5] for r in rows) == pytest.approx(m.values["ctr"][0].sum())
    assert sum(r[7] for r in rows) == m.n_impressions


def test_missing_columns_and_bad_arguments():
    columns = random_log_columns(7, n_users=5, with_time=False)
    del columns["dwell"]
    log = ClickLog.from_columns(**columns)
    with pytest.raises(UsageError, match="no timestamp"):
        impression_metrics(log, metrics=["ttfc"])
    with pytest.raises(UsageError, match="no dwell"):
        impression_metrics(log, metrics=["sat_clicks"])
    with pytest.raises(UsageError, match="cut-off must be a whole number"):
        impression_metrics(log, metrics=["ctr@0"])
    with pytest.raises(UsageError, match="unknown online metric 'ctrr'; did you mean ctr"):
        impression_metrics(log, metrics=["ctrr"])
    with pytest.raises(UsageError):
        summarize(impression_metrics(log), by="colour")


def _partitions(columns, n_parts: int, seed: int):
    """pandas frames, each holding whole impressions, rows shuffled within them."""
    frame = pd.DataFrame(columns).sample(frac=1.0, random_state=seed)
    impressions = np.array(sorted(set(columns["impression"])))
    part_of = {imp: i % n_parts for i, imp in enumerate(np.random.default_rng(seed).permutation(impressions))}
    frame["_part"] = frame["impression"].map(part_of)
    return [g.drop(columns="_part").reset_index(drop=True) for _, g in frame.groupby("_part")]


def test_partitions_merge_exactly():
    columns = random_log_columns(8, n_users=40)
    whole = impression_metrics(ClickLog.from_columns(**columns), metrics=ALL)
    from cranfield.online.metrics import _partition_metrics

    parts = [_partition_metrics(p, ALL, 30.0, i) for i, p in enumerate(_partitions(columns, 3, 0))]
    merged = merge_impression_metrics(parts)
    for by in ("variant", "query", "user"):
        # bit for bit (repr: exact floats, and NaN where a group has no defined impression)
        assert repr(summarize(merged, by=by, unit="user").rows) == repr(summarize(whole, by=by, unit="user").rows)
    split = _partitions(columns, 2, 1)
    first = split[0]["impression"].iloc[0]
    split[1] = pd.concat([split[1], split[0][split[0]["impression"] == first]])  # an impression in two partitions
    with pytest.raises(InputError, match="in two partitions"):
        merge_impression_metrics([_partition_metrics(p, ALL, 30.0, i) for i, p in enumerate(split)])


def test_dask_local_cluster_equals_in_memory():
    dd = pytest.importorskip("dask.dataframe")
    distributed = pytest.importorskip("distributed")
    columns = random_log_columns(9, n_users=30)
    whole = summarize(impression_metrics(ClickLog.from_columns(**columns), metrics=ALL), by="variant", unit="user")
    frame = dd.concat([dd.from_pandas(p, npartitions=1) for p in _partitions(columns, 3, 2)])
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0",
                                       silence_logs=logging.ERROR)
    with distributed.Client(cluster) as client:
        merged = dask_impression_metrics(frame, metrics=ALL, client=client)
    cluster.close()
    assert repr(summarize(merged, by="variant", unit="user").rows) == repr(whole.rows)
