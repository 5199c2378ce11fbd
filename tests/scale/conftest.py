"""Shared random data for the scale tests: qrels and runs with ties, graded judgments, queries
missing on either side, ids whose byte order differs from numeric order."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

MEASURES = ["AP", "nDCG@10", "P@5", "R@50", "RR", "RPrec", "bpref", "ERR@10", "RBP(p=0.8)", "NumRel",
            "NumRet", "NumRelRet", "infAP", "Success@3", "GMAP"]


def random_data(seed: int, n_queries: int = 60, depth: int = 40, n_docs: int = 300):
    """(qrels table, run table): Arrow tables with columns qid, docno, rel / score."""
    rng = np.random.default_rng(seed)
    qids = np.array([f"q{n}" for n in rng.choice(10_000, n_queries, replace=False)] + ["qé", "q 1".replace(" ", "_")])
    q_rows, d_rows, s_rows = [], [], []
    for i, q in enumerate(qids):  # test data only: a loop is fine here
        k = int(rng.integers(1, depth))
        docs = rng.choice(n_docs, k, replace=False)
        q_rows += [q] * k
        d_rows += [f"d{d}" for d in docs]
        s_rows += list(np.round(rng.normal(size=k), 1 if i % 3 == 0 else 6))  # some queries with ties
    jq, jd, jr = [], [], []
    for q in qids[5:]:  # the first 5 run queries have no judgments; qrels-only queries below
        k = int(rng.integers(1, 30))
        docs = rng.choice(n_docs, k, replace=False)
        jq += [q] * k
        jd += [f"d{d}" for d in docs]
        jr += list(rng.choice([-1, 0, 0, 1, 2, 3], k))
    for extra in ("z1", "z2"):
        jq += [extra] * 3
        jd += ["d1", "d2", "d3"]
        jr += [1, 0, 2]
    qrels = pa.table({"qid": jq, "docno": jd, "rel": np.array(jr, dtype=np.int64)})
    run = pa.table({"qid": q_rows, "docno": d_rows, "score": np.array(s_rows, dtype=np.float64)})
    return qrels, run


def assert_same(a, b):
    """Identical results: query ids, every per-query value and every aggregate, bit for bit."""
    assert list(a.query_ids) == list(b.query_ids)
    assert a.per_query.keys() == b.per_query.keys()
    for name in a.per_query:
        np.testing.assert_array_equal(a.per_query[name], b.per_query[name], err_msg=name)
    assert a.mean == b.mean
    np.testing.assert_array_equal(a.in_run, b.in_run)


@pytest.fixture(params=[0, 1])
def data(request):
    return random_data(request.param)
