"""Pooling (cranfield.judgments.pooling, cranfield pool): hand-checked examples, an independent
pure-Python oracle of trec_eval's ranking, hypothesis properties, the CLI and its errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cranfield import datasets, read_qrels
from cranfield.cli import main
from cranfield.errors import InputError, UsageError
from cranfield.judgments import build_pool

# ----------------------------------------------------------------------------- oracle


def ranked(run_of_query: dict) -> list:
    """trec_eval's order, written independently: score descending, then docno descending
    byte-wise."""
    by_docno = sorted(run_of_query, key=lambda d: d.encode(), reverse=True)
    return sorted(by_docno, key=lambda d: -run_of_query[d])  # stable: ties keep docno descending


def oracle_candidates(runs: dict, depth: int | None) -> dict:
    """{qid: {docno: [ranks in each run retrieving it]}}"""
    out: dict = {}
    for run in runs.values():
        for qid, docs in run.items():
            for rank, doc in enumerate(ranked(docs)[:depth], start=1):
                out.setdefault(qid, {}).setdefault(doc, []).append(rank)
    return out


def oracle_sheet(runs: dict, *, method: str, depth=None, budget=None, p=0.8, k=60.0) -> list:
    cands = oracle_candidates(runs, depth)
    rows = []
    for qid in sorted(cands, key=lambda q: q.encode()):
        docs = cands[qid]

        def weight(ranks):
            ranks = sorted(ranks)
            if method == "rbp":
                total = 0.0
                for r in ranks:
                    total += (1 - p) * p ** (r - 1)
                return total
            if method == "rrf":
                total = 0.0
                for r in ranks:
                    total += 1.0 / (k + r)
                return total
            return float(len(ranks))

        order = sorted(docs, key=lambda d: (-weight(docs[d]), min(docs[d]), d.encode()))
        rows += [(qid, d) for d in order[:budget]]
    return rows


# ----------------------------------------------------------------------------- hand-checked

RUNS = {
    "a": {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"x": 1.0, "y": 1.0}},
    "b": {"q1": {"d2": 3.0, "d4": 2.0, "d1": 0.5}, "q2": {"y": 2.0}},
}


def test_depth_pool_by_hand():
    pool = build_pool(RUNS, method="depth", depth=2)
    # q1: a top 2 = d1, d2; b top 2 = d2, d4 → d2 (2 runs) then d1 (best rank 1), d4 (best rank 2)
    # q2: a ties x, y at 1.0 → docno descending: y, x; b: y → y (2 runs), x
    assert list(zip(pool.qid, pool.docno)) == [("q1", "d2"), ("q1", "d1"), ("q1", "d4"), ("q2", "y"), ("q2", "x")]
    assert pool.order.tolist() == [1, 2, 3, 1, 2]
    assert pool.runs.tolist() == [2, 1, 1, 2, 1]
    assert pool.pool_size.tolist() == [3, 2] and pool.candidates.tolist() == [3, 2]
    assert pool.contributed.tolist() == [4, 3]  # a: d1 d2 y x; b: d2 d4 y
    assert pool.unique.tolist() == [2, 1]  # a: d1, x; b: d4


def test_rbp_weights_by_hand():
    pool = build_pool(RUNS, method="rbp", p=0.5, budget=2)
    # q1: d1 = 0.5 (a rank 1) + 0.125 (b rank 3); d2 = 0.25 + 0.5; d3 = 0.125; d4 = 0.25
    assert pool.docno.tolist()[:2] == ["d2", "d1"]
    assert pool.weight.tolist()[:2] == [0.75, 0.625]
    assert pool.pool_size.tolist() == [2, 2]


def test_rrf_by_hand():
    pool = build_pool(RUNS, method="rrf", rrf_k=0.0)
    q1 = [(d, w) for q, d, w in zip(pool.qid, pool.docno, pool.weight) if q == "q1"]
    assert q1 == [("d2", 1.5), ("d1", 1 + 1 / 3), ("d4", 0.5), ("d3", 1 / 3)]


def test_mtf_by_hand():
    runs = {"a": {"q": {"a1": 4.0, "a2": 3.0, "s": 2.0, "a3": 1.0}},
            "b": {"q": {"b1": 4.0, "s": 3.0, "b2": 2.0}}}
    qrels = {"q": {"a1": 1, "b1": 0, "s": 1, "a2": 0, "b2": 1}}
    pool = build_pool(runs, method="mtf", qrels=qrels)
    # queue [a, b]: a1 relevant (a stays) → a2 not (a to back) → b1 not (b to back) → a: s relevant
    # (a stays) → a3 not → b: s judged, skipped → b2
    assert pool.docno.tolist() == ["a1", "a2", "b1", "s", "a3", "b2"]
    # without judgments: a round robin over the runs
    robin = build_pool(runs, method="mtf", budget=5)
    assert robin.docno.tolist() == ["a1", "b1", "a2", "s", "a3"]
    assert robin.pool_size.tolist() == [5]


def test_sheet_formats_and_stats(tmp_path):
    pool = build_pool(RUNS, method="depth", depth=2)
    path = tmp_path / "sheet.qrels"
    pool.write(path)
    qrels = read_qrels(path)  # a valid qrels file: every document in the pool, not yet judged (-1)
    assert qrels.rel.tolist() == [-1] * 5 and qrels.docno.to_pylist() == pool.docno.tolist()
    csv = pool.sheet_text("csv").splitlines()
    assert csv[0] == "qid,docno,order,runs,weight,rel" and csv[1] == "q1,d2,1,2,2.0,-1"
    stats = pool.stats_text().splitlines()
    assert "run,a,unique,2" in stats and "query,q2,pool_size,2" in stats and "setting,depth,,2" in stats


@pytest.mark.parametrize("kwargs, message", [
    (dict(method="depth"), "needs a depth"),
    (dict(method="depth", depth=0), "depth"),
    (dict(method="rbp", budget=0), "budget"),
    (dict(method="rbp", budget=-3), "budget"),
    (dict(method="rbp", p=1.0), "p"),
    (dict(method="rrf", rrf_k=-1), "rrf_k"),
    (dict(method="bogus"), "method"),
    (dict(method="rbp", qrels={"q1": {"d1": 1}}), "only mtf"),
    (dict(method="depth", depth=True), "depth"),
])
def test_bad_arguments(kwargs, message):
    with pytest.raises(UsageError, match=message):
        build_pool(RUNS, **kwargs)


def test_empty_pool_and_duplicates(tmp_path):
    with pytest.raises(InputError, match="the pool is empty"):
        build_pool({"a": {"q1": {}}}, depth=3)
    run = tmp_path / "dup.run"
    run.write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.5 t\nq1 Q0 d1 3 1.0 t\n")
    with pytest.raises(InputError, match="retrieved twice") as error:
        build_pool([str(run)], depth=5)
    assert error.value.line == 3 and error.value.field == "docno" and "dup.run" in str(error.value)


def test_shipped_runs_depth_pool_is_union_of_top_k():
    runs = datasets.cranfield()["runs"]
    pool = build_pool(runs, method="depth", depth=10)
    assert pool.contributed.tolist() == [2250, 2250, 2250]  # 225 queries × 10
    assert len(pool) == int(pool.pool_size.sum()) and pool.pool_size.max() <= 30


# ----------------------------------------------------------------------------- properties

ids = st.sampled_from(["d1", "d2", "d3", "d10", "D2", "x", "é"])
scores = st.sampled_from([0.0, 1.0, 1.5, 2.0, -1.0])  # few values: many ties
run_of_query = st.dictionaries(ids, scores, min_size=1, max_size=6)
query_runs = st.dictionaries(st.sampled_from(["q1", "q2", "10", "9"]), run_of_query, min_size=1, max_size=3)
many_runs = st.lists(query_runs, min_size=1, max_size=4).map(lambda rs: {f"r{i}": r for i, r in enumerate(rs)})


def sheet(pool) -> list:
    return list(zip(pool.qid.tolist(), pool.docno.tolist()))


@settings(max_examples=30, deadline=None)
@given(many_runs, st.integers(1, 7), st.integers(1, 8), st.sampled_from(["depth", "rbp", "rrf"]))
def test_matches_oracle(runs, depth, budget, method):
    pool = build_pool(runs, method=method, depth=depth, budget=budget, p=0.7)
    assert sheet(pool) == oracle_sheet(runs, method=method, depth=depth, budget=budget, p=0.7)


@settings(max_examples=25, deadline=None)
@given(many_runs, st.integers(1, 6))
def test_depth_pool_is_the_union_of_top_k_and_monotone(runs, depth):
    pool = build_pool(runs, method="depth", depth=depth)
    union = {(q, d) for run in runs.values() for q, docs in run.items() for d in ranked(docs)[:depth]}
    assert set(sheet(pool)) == union and len(pool) == len(union)
    deeper = build_pool(runs, method="depth", depth=depth + 1)
    assert set(sheet(pool)) <= set(sheet(deeper))
    # unique + shared = contributed, and the unique ones are retrieved by one run only
    assert int(pool.unique.sum()) == int((pool.runs == 1).sum())
    assert int(pool.contributed.sum()) == int(pool.runs.sum())


@settings(max_examples=25, deadline=None)
@given(many_runs, st.integers(1, 5), st.sampled_from(["depth", "rbp", "rrf", "mtf"]))
def test_budget_respected_and_order_dense(runs, budget, method):
    pool = build_pool(runs, method=method, depth=6, budget=budget)
    assert (pool.pool_size <= budget).all()
    assert (pool.pool_size == np.minimum(pool.candidates, budget)).all()
    # judging order: 1..n within each query, queries byte-wise
    for qid, size in zip(pool.query_ids, pool.pool_size):
        assert pool.order[pool.qid == qid].tolist() == list(range(1, size + 1))
    assert pool.qid.tolist() == sorted(pool.qid.tolist(), key=lambda q: q.encode())


@settings(max_examples=20, deadline=None)
@given(many_runs)
def test_mtf_without_judgments_pools_every_candidate_once(runs):
    pool = build_pool(runs, method="mtf")
    assert sorted(sheet(pool)) == sorted({(q, d) for run in runs.values() for q, docs in run.items() for d in docs})
    assert math.isclose(float(pool.weight.sum()), float(pool.runs.sum()))


def oracle_mtf(runs: dict, qrels: dict, budget, depth) -> list:
    """Local Move-to-Front, queue form, one query and one judgment at a time."""
    rows = []
    qids = sorted({q for run in runs.values() for q in run}, key=lambda q: q.encode())
    for qid in qids:
        lists = [ranked(run[qid])[:depth] if qid in run else [] for run in runs.values()]
        key, next_key = list(range(len(lists))), len(lists)
        pointer, judged, out = [0] * len(lists), set(), []
        while budget is None or len(out) < budget:
            live = [r for r in range(len(lists)) if any(d not in judged for d in lists[r][pointer[r]:])]
            if not live:
                break
            r = min(live, key=lambda i: key[i])
            while lists[r][pointer[r]] in judged:
                pointer[r] += 1
            doc = lists[r][pointer[r]]
            pointer[r] += 1
            judged.add(doc)
            out.append(doc)
            if qrels.get(qid, {}).get(doc, 0) < 1:
                key[r], next_key = next_key, next_key + 1
        rows += [(qid, d) for d in out]
    return rows


@settings(max_examples=30, deadline=None)
@given(many_runs, st.dictionaries(st.sampled_from(["q1", "q2", "10", "9"]),
                                  st.dictionaries(ids, st.integers(-1, 2), max_size=5), max_size=4),
       st.one_of(st.none(), st.integers(1, 6)), st.integers(1, 6))
def test_mtf_matches_oracle(runs, qrels, budget, depth):
    pool = build_pool(runs, method="mtf", qrels=qrels or None, budget=budget, depth=depth)
    assert sheet(pool) == oracle_mtf(runs, qrels, budget, depth)


# ----------------------------------------------------------------------------- command line

SHIPPED = datasets.cranfield()


def test_cli_pool_writes_sheet_and_stats(tmp_path, capsys):
    out, stats = tmp_path / "sheet.csv", tmp_path / "stats.csv"
    runs = [str(p) for p in SHIPPED["runs"].values()]
    assert main(["pool", *runs, "--method", "rbp", "--budget", "7", "--format", "csv", "-o", str(out),
                 "--stats", str(stats)]) == 0
    lines = out.read_text().splitlines()
    assert lines[0] == "qid,docno,order,runs,weight,rel" and len(lines) == 1 + 225 * 7
    assert "setting,p,,0.8" in stats.read_text()
    assert "pooled 1575 documents over 225 queries" in capsys.readouterr().err


@pytest.mark.parametrize("args, message", [
    (["--depth", "0"], "--depth: expected a whole number >= 1, found 0"),
    (["--method", "rbp", "--budget", "0"], "--budget: expected a whole number >= 1, found 0"),
    (["--method", "depth"], "needs --depth"),
    (["--method", "rbp", "--p", "1.5"], "p: expected a number strictly between 0 and 1"),
])
def test_cli_pool_errors(args, message, capsys):
    runs = [str(p) for p in SHIPPED["runs"].values()]
    assert main(["pool", *runs, *args]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_cli_pool_stats_and_output_must_differ(tmp_path, capsys):
    same = tmp_path / "x.csv"
    assert main(["pool", *[str(p) for p in SHIPPED["runs"].values()], "--depth", "3", "-o", str(same), "--stats",
                 str(same)]) == 2
    assert "name the same file" in capsys.readouterr().err and not same.exists()


def test_cli_pool_empty_pool(tmp_path, capsys):
    empty = tmp_path / "empty.run"
    empty.write_text("")
    assert main(["pool", str(empty), "--depth", "5"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_long_and_non_packable_ids_take_the_dictionary_path():
    # ids over 32 bytes do not pack into words: Arrow's dictionary encoding, same order rules
    long = {f"r{i}": {q: {("x" * 40) + d: s for d, s in docs.items()} for q, docs in run.items()}
            for i, run in enumerate(RUNS.values())}
    for method in ("depth", "rbp"):
        pool = build_pool(long, method=method, depth=2)
        assert sheet(pool) == oracle_sheet(long, method=method, depth=2)
