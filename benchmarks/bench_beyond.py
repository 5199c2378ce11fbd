"""Timings of the issue-26 capabilities at a realistic size (10^4 queries), best of ``--repeat``.

    python benchmarks/bench_beyond.py

* fusion: 3 runs x 10,000 queries x 100 documents, RRF and CombMNZ (z-score) (against ranx: see
  benchmarks/bench_fusion.py);
* expected exposure: 10,000 queries x 100 documents x 10 Plackett-Luce samples, 20 judgments a query;
* model judges: 10,000 queries x 20 judgments, 5 runs x 100 documents, 1,000 bootstrap resamples;
* RAG nuggets: 10,000 answers x 10 nuggets (JSONL read included);
* QPP evaluation: 10,000 queries; quantile CI: 10^6 values (order statistics and 1,000 bootstrap
  resamples of 10^4 values); RBO: two rankings of 1,000 documents with 100 tie groups.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "src"))
from _machine import best_of, cpu  # noqa: E402


def best(function, repeat: int) -> float:
    return best_of(function, repeat)[0]


def tables(n_q: int, n_d: int, n_runs: int, seed: int = 0):
    import pyarrow as pa

    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_q), n_d).astype(str)
    runs = []
    for _ in range(n_runs):
        docno = rng.permuted(np.tile(np.arange(2 * n_d), (n_q, 1)), axis=1)[:, :n_d].ravel().astype(str)
        score = -np.sort(-rng.random((n_q, n_d)), axis=1).ravel()
        runs.append(pa.table({"qid": qid, "docno": docno, "score": score}))
    judged_q = np.repeat(np.arange(n_q), 20).astype(str)
    judged_d = rng.permuted(np.tile(np.arange(2 * n_d), (n_q, 1)), axis=1)[:, :20].ravel().astype(str)
    qrels = pa.table({"qid": judged_q, "docno": judged_d, "rel": rng.integers(0, 3, judged_q.size)})
    model = pa.table({"qid": judged_q, "docno": judged_d,
                      "rel": np.clip(qrels.column("rel").to_numpy() + rng.integers(-1, 2, judged_q.size), 0, 2)})
    return runs, qrels, model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    from cranfield import read_qrels, read_run
    from cranfield.correlation import qpp_evaluation, rbo
    from cranfield.fairness import expected_exposure, plackett_luce_samples
    from cranfield.fusion import fuse
    from cranfield.judgments.judges import judge_agreement
    from cranfield.rag import nugget_scores
    from cranfield.stats import quantile_ci

    n = args.queries
    runs, qrels, model = tables(n, 100, 5)
    runs = [read_run(r) for r in runs]
    qrels, model = read_qrels(qrels), read_qrels(model)
    rng = np.random.default_rng(1)
    rows = []
    rows.append(("fuse: RRF, 3 runs", best(lambda: fuse(runs[:3]), args.repeat)))
    rows.append(("fuse: CombMNZ z-score, 3 runs", best(lambda: fuse(runs[:3], method="combmnz", norm="zscore"),
                                                      args.repeat)))
    samples = plackett_luce_samples(runs[0], 10, seed=0)
    rows.append(("expected exposure, 10 samples", best(lambda: expected_exposure(qrels, samples), args.repeat)))
    rows.append(("judges, 5 runs, 1,000 resamples", best(lambda: judge_agreement(qrels, model, runs, n_resamples=1000),
                                                         args.repeat)))
    lines = [{"qid": str(q), "run_id": "r", "nuggets": [
        {"importance": "vital" if k < 3 else "okay",
         "assignment": ["support", "partial_support", "not_support"][int(rng.integers(3))]} for k in range(10)]}
        for q in range(n)]
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    rows.append(("nuggets, 10 per answer (read + score)", best(lambda: nugget_scores(io.BytesIO(data)), args.repeat)))
    predicted = {str(q): float(v) for q, v in enumerate(rng.random(n))}
    actual = {str(q): float(v) for q, v in enumerate(rng.random(n))}
    rows.append(("qpp evaluation", best(lambda: qpp_evaluation(predicted, actual), args.repeat)))
    values = rng.lognormal(size=1_000_000)
    rows.append(("quantile_ci, 10^6 values", best(lambda: quantile_ci(values, 0.9), args.repeat)))
    rows.append(("quantile_ci bootstrap, 10^4 values x 1,000", best(
        lambda: quantile_ci(values[:10_000], 0.9, method="bootstrap", n_resamples=1000), args.repeat)))
    a = [set(map(str, range(i, i + 10))) for i in range(0, 1000, 10)]
    b = list(map(str, rng.permutation(1000)))
    rows.append(("rbo, 1,000 ids, 100 tie groups", best(lambda: rbo(a, b, 0.9), args.repeat)))
    print(f"# {cpu()}; {n} queries; best of {args.repeat}")
    print("| step | seconds |\n|---|---:|")
    for name, seconds in rows:
        print(f"| {name} | {seconds:.3f} |")


if __name__ == "__main__":
    main()
