"""Evaluation on a Dask LocalCluster (2 worker processes): identical to the in-memory path."""

from __future__ import annotations

import logging
import os
import signal

import numpy as np
import pyarrow as pa
import pytest

import cranfield
import cranfield.dask
from cranfield.errors import InputError

from .conftest import MEASURES, assert_same, random_data

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")


@pytest.fixture(autouse=True)
def _deadline():
    """No test may hang: fail after 60 s."""
    def expire(*_):
        raise TimeoutError("dask test took more than 60 s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(60)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                       silence_logs=logging.ERROR)
    with distributed.Client(cluster, timeout=30) as c:
        yield c
    cluster.close(timeout=30)


def _frames(seed, shuffle=True):
    qrels_table, run_table = random_data(seed)
    run = run_table.to_pandas()
    if shuffle:
        run = run.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    return qrels_table, run


@pytest.mark.parametrize("options", [{}, {"complete": True, "judged_only": True}, {"max_results": 5}])
def test_broadcast_qrels_any_partitioning(client, options):
    qrels, run = _frames(0)
    expected = cranfield.evaluate(qrels, pa.Table.from_pandas(run), MEASURES, **options)
    frame = dd.from_pandas(run, npartitions=5, sort=False)  # queries spread over partitions: shuffled
    for partitioned in ("auto", False):
        got = cranfield.dask.evaluate(qrels, frame, MEASURES, partitioned=partitioned, npartitions=3, **options)
        assert_same(expected, got)
    with pytest.raises(InputError, match="two partitions"):
        cranfield.dask.evaluate(qrels, frame, MEASURES, partitioned=True)


def test_parquet_dataset_partitioned_by_query(client, tmp_path):
    import pyarrow.dataset as ds

    qrels, run = _frames(1)
    table = pa.Table.from_pandas(run, preserve_index=False)
    table = table.append_column("shard", pa.array(np.array([hash(q) % 4 for q in run["qid"]])))
    ds.write_dataset(table, tmp_path / "run", format="parquet", partitioning=["shard"], partitioning_flavor="hive")
    expected = cranfield.evaluate(qrels, table, MEASURES)
    got = cranfield.dask.evaluate(qrels, str(tmp_path / "run"), MEASURES, partitioned=True)
    assert_same(expected, got)
    assert got.run_name == "run"


@pytest.mark.parametrize("options", [{}, {"complete": True}, {"aggregate": "micro"}])
def test_co_partitioned_qrels(client, options):
    qrels, run = _frames(2)
    measures = ["SetP", "SetF", "NumRet", "SetR"] if options.get("aggregate") == "micro" else MEASURES
    expected = cranfield.evaluate(qrels, pa.Table.from_pandas(run), measures, **options)
    qrels_frame = dd.from_pandas(qrels.to_pandas(), npartitions=3, sort=False)
    got = cranfield.dask.evaluate(qrels_frame, dd.from_pandas(run, npartitions=4, sort=False), measures,
                                  npartitions=5, **options)
    assert_same(expected, got)


def test_statistics_on_gathered_values(client):
    qrels, run = _frames(3)
    other = run.assign(score=run["score"] * -1.0)
    results = {name: cranfield.dask.evaluate(qrels, dd.from_pandas(frame, npartitions=3), ["AP"])
               for name, frame in (("a", run), ("b", other))}
    memory = {name: cranfield.evaluate(qrels, pa.Table.from_pandas(frame), ["AP"]) for name, frame in
              (("a", run), ("b", other))}
    as_values = lambda rs: {k: {"AP": dict(r.per_query["AP"])} for k, r in rs.items()}  # noqa
    left = cranfield.compare_values(as_values(results)).pairs
    right = cranfield.compare_values(as_values(memory)).pairs
    assert repr(left) == repr(right)


def test_worker_killed_during_a_job(client, tmp_path):
    """A worker process dies in the middle of a task: Dask retries it elsewhere, same numbers."""
    qrels, run = _frames(4)
    expected = cranfield.evaluate(qrels, pa.Table.from_pandas(run), MEASURES)
    flag = tmp_path / "killed"
    before = set(client.scheduler_info()["workers"])

    def die_once(frame, flag=str(flag)):
        if len(frame) and not os.path.exists(flag):
            open(flag, "w").close()
            os._exit(1)  # the worker process dies mid-task
        return frame

    frame = dd.from_pandas(run, npartitions=4, sort=False).map_partitions(die_once, meta=run.iloc[:0])
    got = cranfield.dask.evaluate(qrels, frame, MEASURES, partitioned=False, npartitions=3)
    assert flag.exists()
    assert_same(expected, got)
    client.wait_for_workers(2, timeout=30)
    assert set(client.scheduler_info()["workers"]) != before  # one worker was replaced


# ---------------------------------------------------------------------------- classification
def _scores(seed, n=5000, weights=False):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    s = np.round(rng.normal(size=n) + y, 2)  # many ties
    w = rng.integers(0, 4, n).astype(float) if weights else None
    return y, s, w


@pytest.mark.parametrize("weights", [False, True])
def test_classification_exact(client, weights):
    import pandas as pd

    y, s, w = _scores(0, weights=weights)
    frame = pd.DataFrame({"y_true": y, "y_score": s, **({"w": w} if weights else {})})
    stats = cranfield.dask.score_stats(dd.from_pandas(frame, npartitions=7), sample_weight="w" if weights else None,
                                       split_every=2)
    kw = {"sample_weight": w}
    assert stats.exact and stats.auc_error_bound == 0
    for mine, theirs in ((stats.roc_curve(), cranfield.roc_curve(y, s, **kw)),
                         (stats.pr_curve(), cranfield.pr_curve(y, s, **kw)),
                         (stats.det_curve(), cranfield.det_curve(y, s, **kw))):
        for field in ("x", "y", "thresholds", "tps", "fps"):
            np.testing.assert_array_equal(getattr(mine, field), getattr(theirs, field))
    assert stats.roc_auc() == cranfield.roc_auc(y, s, **kw)
    assert stats.roc_auc(max_fpr=0.2) == cranfield.roc_auc(y, s, max_fpr=0.2, **kw)
    assert stats.average_precision() == cranfield.average_precision(y, s, **kw)
    assert stats.equal_error_rate() == cranfield.equal_error_rate(y, s, **kw)
    for t in (-0.5, 0.31, 1.0):
        expected = cranfield.ConfusionMatrix.from_labels(y.astype(int), (s >= t).astype(int), labels=[0, 1],
                                                         **({"sample_weight": w} if weights else {}))
        np.testing.assert_array_equal(stats.confusion_matrix(t).matrix, expected.matrix)


def test_classification_dask_arrays_and_float_weights(client):
    import dask.array as da

    y, s, _ = _scores(1)
    w = np.random.default_rng(2).random(y.size)
    stats = cranfield.dask.score_stats(y_true=da.from_array(y, chunks=900), y_score=da.from_array(s, chunks=900),
                                       sample_weight=da.from_array(w, chunks=900))
    # fractional weights are summed in another order: equal up to rounding
    assert stats.roc_auc() == pytest.approx(cranfield.roc_auc(y, s, sample_weight=w), rel=1e-12)
    assert stats.average_precision() == pytest.approx(cranfield.average_precision(y, s, sample_weight=w), rel=1e-12)


def test_classification_binned(client):
    import pandas as pd

    rng = np.random.default_rng(3)
    y = rng.random(20_000) < 0.4
    s = rng.normal(size=y.size) + y  # all distinct
    frame = dd.from_pandas(pd.DataFrame({"y_true": y, "y_score": s}), npartitions=4)
    stats = cranfield.dask.score_stats(frame, bins=256)
    assert not stats.exact and len(stats) == 256
    exact = cranfield.roc_auc(y, s)
    assert abs(stats.roc_auc() - exact) <= stats.auc_error_bound < 0.01
    edge = stats.edges[100]  # confusion matrices at bin edges are exact
    expected = cranfield.ConfusionMatrix.from_labels(y.astype(int), (s >= edge).astype(int), labels=[0, 1])
    np.testing.assert_array_equal(stats.confusion_matrix(edge).matrix, expected.matrix)
    same = cranfield.dask.score_stats(frame, bins=256, range=(float(s.min()), float(s.max())))
    np.testing.assert_array_equal(same.pos, stats.pos)


def test_merge_in_any_tree():
    from cranfield.dask.counts import ScoreStats

    y, s, w = _scores(5, n=999, weights=True)
    parts = [ScoreStats.from_arrays(y[i::5], s[i::5], sample_weight=w[i::5]) for i in range(5)]
    one = ScoreStats.from_arrays(y, s, sample_weight=w)
    for merged in (ScoreStats.merge(parts), ScoreStats.merge([ScoreStats.merge(parts[:2]), ScoreStats.merge(parts[2:])])):
        np.testing.assert_array_equal(merged.scores, one.scores)
        np.testing.assert_array_equal(merged.pos, one.pos)
        np.testing.assert_array_equal(merged.neg, one.neg)


def test_missing_dask_gives_an_install_hint(monkeypatch):
    import builtins

    from cranfield.dask import _deps

    real = builtins.__import__

    def no_dask(name, *args, **kwargs):
        if name == "dask" or name.startswith("dask."):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_dask)
    with pytest.raises(cranfield.UsageError, match=r"pip install 'cranfield\[dask\]'"):
        _deps.require_dask()


# ---------------------------------------------------------------------------- errors: global rows
def _bad_run(where: str):
    import pandas as pd

    n = 200
    run = pd.DataFrame({"qid": [f"q{i // 50}" for i in range(n)], "docno": [f"d{i}" for i in range(n)],
                        "score": np.arange(n, dtype=float)})
    if where == "score":
        run.loc[137, "score"] = np.nan
    elif where == "docno":
        run.loc[163, "docno"] = "d 163"
    elif where == "both":  # a score error in an earlier partition, an id error in a later one
        run.loc[60, "score"] = np.inf
        run.loc[170, "docno"] = ""
    elif where == "uint64":
        run["score"] = np.arange(n, dtype=np.uint64)
    return run


@pytest.mark.parametrize("where", ["score", "docno", "both"])
@pytest.mark.parametrize("partitioned", ["auto", False])
def test_run_errors_give_global_rows(client, where, partitioned):
    """The same error as Run.from_frame on all the rows: row numbers over the whole frame, not
    inside a partition (the partitions hold 50 rows each)."""
    run = _bad_run(where)
    with pytest.raises(InputError) as expected:
        cranfield.Run.from_frame(run)
    assert expected.value.line > 50
    with pytest.raises(InputError) as got:
        cranfield.dask.evaluate({"q1": {"d1": 1}}, dd.from_pandas(run, npartitions=4, sort=False), ["AP"],
                                partitioned=partitioned, npartitions=3)
    assert str(got.value) == str(expected.value)
    assert (got.value.line, got.value.field) == (expected.value.line, expected.value.field)


def test_co_partitioned_qrels_errors_give_global_rows(client):
    import pandas as pd

    run = _bad_run("none")
    qrels = pd.DataFrame({"qid": run["qid"], "docno": run["docno"], "rel": np.ones(len(run))})
    qrels.loc[151, "rel"] = 2.5
    with pytest.raises(InputError, match=r"qrels frame:152: field rel: expected an integer relevance, found 2.5"):
        cranfield.dask.evaluate(dd.from_pandas(qrels, npartitions=4, sort=False),
                                dd.from_pandas(run, npartitions=3, sort=False), ["AP"])
    qrels["rel"] = np.ones(len(run), dtype=np.uint64)
    qrels.loc[120, "rel"] = np.uint64(2**64 - 1)  # not −1
    with pytest.raises(InputError, match=r"qrels frame:121: field rel: .*within int64.*18446744073709551615"):
        cranfield.dask.evaluate(dd.from_pandas(qrels, npartitions=4, sort=False),
                                dd.from_pandas(run, npartitions=3, sort=False), ["AP"])


def test_parquet_dataset_errors_give_global_rows(client, tmp_path):
    import pyarrow.parquet as pq

    run = pa.Table.from_pandas(_bad_run("none"), preserve_index=False)
    scores = run.column("score").to_numpy().copy()
    scores[175] = np.inf
    bad = run.set_column(2, "score", pa.array(scores))
    (tmp_path / "run").mkdir()
    for i in range(4):  # four files of 50 rows: the bad row is row 26 of the fourth
        pq.write_table(bad.slice(50 * i, 50), tmp_path / "run" / f"part-{i}.parquet")
    path = str(tmp_path / "run")
    message = rf"{path}:176: field score: expected a finite number, found inf"
    with pytest.raises(InputError, match=message):
        cranfield.dask.evaluate({"q1": {"d1": 1}}, path, ["AP"])
    with pytest.raises(InputError, match=message):  # the in-memory Parquet reader names the same row
        cranfield.read_run(path)


def test_classification_errors_give_global_index(client):
    import pandas as pd

    y, s, _ = _scores(1, n=1000)
    s = s.copy()
    s[777] = np.nan
    frame = dd.from_pandas(pd.DataFrame({"y_true": y, "y_score": s}), npartitions=5)
    with pytest.raises(InputError) as expected:  # the same columns in memory (pandas: NaN is a missing value)
        cranfield.roc_auc(pd.Series(y), pd.Series(s))
    for bins in (None, 16):
        with pytest.raises(InputError) as got:
            cranfield.dask.score_stats(frame, bins=bins)
        assert str(got.value) == str(expected.value)
        assert "at index 777" in str(got.value)
