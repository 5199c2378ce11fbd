"""Pooling and reusability benchmark (issue 14): R synthetic runs × Q queries × D documents.

    .venv/bin/python benchmarks/bench_pooling.py --runs 100 --queries 1000 --docs 1000
    .venv/bin/python benchmarks/bench_pooling.py --runs 30 --methods rbp,rrf

Runs are built in memory (no file reading is timed): each query draws its documents from its
own neighbourhood of 5,000 ids of a 200,000-document collection, so runs overlap as real runs
do; qrels judge 200 documents per query. Prints wall and CPU seconds (all threads) per call:
on a shared machine the CPU time is the figure to compare.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pyarrow as pa

from cranfield.judgments import build_pool, leave_one_out
from cranfield.retrieval.qrels import Qrels
from cranfield.retrieval.run import Run

CASES = {"depth": {"depth": 100}, "depth10": {"depth": 10}, "rbp": {"budget": 100}, "rrf": {"budget": 100},
         "mtf": {"depth": 100, "budget": 100}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--methods", default="depth,depth10,mtf,reuse", help="of depth,depth10,rbp,rrf,mtf,reuse")
    args = parser.parse_args()
    n_runs, n_q, n_d = args.runs, args.queries, args.docs
    rng = np.random.default_rng(0)
    collection = pa.array([f"doc{i:07d}" for i in range(200_000)])
    qids = pa.array(np.repeat([f"q{i}" for i in range(n_q)], n_d).tolist())
    base = rng.integers(0, 200_000 - 5000, size=n_q)
    score = np.tile(np.arange(n_d, 0, -1, dtype=np.float64), n_q)
    runs = []
    for r in range(n_runs):
        step = int(rng.choice([1, 3, 7, 9, 11, 13, 17, 19, 21, 23]))  # coprime with 5000: distinct ids
        offsets = (np.arange(n_d)[None, :] * step + rng.integers(0, 5000, size=(n_q, 1))) % 5000
        docs = (base[:, None] + offsets).reshape(-1)
        runs.append(Run(qids, collection.take(pa.array(docs)), score, name=f"run{r}", _trusted=True))
    judged = (base[:, None] + np.arange(0, 5000, 25)[None, :]).reshape(-1)
    qrels = Qrels(pa.array(np.repeat([f"q{i}" for i in range(n_q)], 200).tolist()), collection.take(pa.array(judged)),
                  rng.integers(0, 2, size=n_q * 200))
    print(f"{n_runs} runs × {n_q} queries × {n_d} documents = {n_runs * n_q * n_d:,} rows", flush=True)
    for name in args.methods.split(","):
        wall, cpu = time.perf_counter(), time.process_time()
        if name == "reuse":
            result = leave_one_out(qrels, runs, ["AP", "P@10"], depth=100)
            what = f"leave_one_out(depth=100, AP and P@10): tau(AP) {result.tau[0]}"
        else:
            kwargs = dict(CASES[name], qrels=qrels) if name == "mtf" else CASES[name]
            pool = build_pool(runs, method=name.rstrip("0123456789"), **kwargs)
            what = (f"build_pool({name.rstrip('0123456789')}, depth={kwargs.get('depth')}, "
                    f"budget={kwargs.get('budget')}): {len(pool):,} documents")
        print(f"{what}: {time.perf_counter() - wall:.1f} s wall, {time.process_time() - cpu:.1f} s CPU", flush=True)


if __name__ == "__main__":
    main()
