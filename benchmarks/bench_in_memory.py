"""The training-loop use (issue 25): a dict run evaluated again and again against dict qrels.

    python benchmarks/bench_in_memory.py                      # 1,000 queries x 100 docs, 5 measures
    python benchmarks/bench_in_memory.py --calls 50

Qrels: 1,000 queries x about 20 judgments (grades 0-2); run: the same queries x 100 documents
with distinct scores. Timed per call, best of ``--calls`` calls after one warm-up call, in this
process: ``cranfield.evaluate(qrels, run, measures)``; ``cranfield.Evaluator`` (qrels prepared
once, as in a loop); pytrec_eval's ``RelevanceEvaluator`` (prepared once, as its users do) and
ranx's ``evaluate`` (Qrels and Run built per call, as its docs show; its numba compile excluded).
Values are checked equal to pytrec_eval's.
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

MEASURES = ["AP", "nDCG@10", "P@10", "R@100", "RR"]
TREC = {"map", "ndcg_cut_10", "P_10", "recall_100", "recip_rank"}
RANX = ["map", "ndcg@10", "precision@10", "recall@100", "mrr"]


def data(n_queries: int = 1000, n_docs: int = 100, seed: int = 0):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        docs = rng.choice(1000, size=n_docs, replace=False)
        scores = rng.random(n_docs)
        run[f"q{q}"] = {f"d{d}": float(s) for d, s in zip(docs, scores)}
        judged = rng.choice(1000, size=20, replace=False)
        qrels[f"q{q}"] = {f"d{d}": int(g) for d, g in zip(judged, rng.integers(0, 3, size=20))}
    return qrels, run


def best(function, calls: int) -> float:
    """The shortest of ``calls`` timings after one warm-up call."""
    function()
    return best_of(function, calls)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=20)
    args = parser.parse_args()
    import cranfield

    qrels, run = data()
    print(f"# {cpu()}; 1,000 queries x 100 documents, 5 measures; best of {args.calls} calls")
    rows = [("cranfield.evaluate", best(lambda: cranfield.evaluate(qrels, run, MEASURES), args.calls))]
    evaluator = cranfield.Evaluator(qrels, MEASURES)
    rows.append(("cranfield.Evaluator (prepared)", best(lambda: evaluator.evaluate(run), args.calls)))
    reference = None
    try:
        import pytrec_eval

        prepared = pytrec_eval.RelevanceEvaluator(qrels, TREC)
        rows.append((f"pytrec_eval {version('pytrec-eval-terrier')}", best(lambda: prepared.evaluate(run), args.calls)))
        reference = prepared.evaluate(run)
    except ImportError:
        pass
    try:
        import ranx

        warnings.simplefilter("ignore")
        rows.append((f"ranx {version('ranx')}", best(lambda: ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), RANX),
                                                     args.calls)))
    except ImportError:
        pass
    if reference is not None:
        mine = evaluator.evaluate(run).per_query["AP"].to_dict()
        worst = max(abs(mine[q] - reference[q]["map"]) for q in reference)
        print(f"# AP per query vs pytrec_eval: largest difference {worst:.1e}")
    base = dict(rows).get(next((n for n, _ in rows if n.startswith("pytrec_eval")), ""), None)
    print("| call | ms per call | vs pytrec_eval |\n|---|---:|---:|")
    for name, seconds in rows:
        ratio = f"{base / seconds:.2f}×" if base else "—"
        print(f"| {name} | {seconds * 1e3:.1f} | {ratio} |")


if __name__ == "__main__":
    main()
