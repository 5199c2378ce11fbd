"""The training-loop use (issue 25): a dict run evaluated again and again against dict qrels.

    python benchmarks/bench_in_memory.py                      # 1,000 queries x 100 docs, 5 measures
    python benchmarks/bench_in_memory.py --calls 50

Qrels: 1,000 queries x about 20 judgments (grades 0-2); run: the same queries x 100 documents
with distinct scores. Timed per call, best of ``--calls`` calls after one warm-up call, in this
process, the tools taking turns call by call: ``cranfield.evaluate(qrels, run, measures)``; ``cranfield.Evaluator`` (qrels prepared
once, as in a loop) and the preparation alone (``Evaluator(qrels, measures)``: the dict qrels'
columns, query codes and duplicate check, the part of a one-shot call a loop does once); pytrec_eval's ``RelevanceEvaluator`` (prepared once, as its users do) and
ranx's ``evaluate`` (Qrels and Run built per call, as its docs show; its numba compile excluded).
Values are checked equal (``==``, per query, all five measures) to pytrec_eval's. The header says
whether the compiled dict path (``cranfield._native.dict_run``, built by ``pip install`` or
``python setup.py build_ext --inplace``) was there; without it dict runs go through Run columns.
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
from _machine import cpu, version  # noqa: E402

MEASURES = ["AP", "nDCG@10", "P@10", "R@100", "RR"]
TREC_ORDER = ["map", "ndcg_cut_10", "P_10", "recall_100", "recip_rank"]  # MEASURES' trec_eval names
TREC = set(TREC_ORDER)
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


def best_alternating(functions: dict, calls: int) -> dict:
    """name -> the shortest of ``calls`` timings of each function, after one warm-up call each;
    the functions take turns call by call, so that a change of the machine's speed during the
    run (this one drifts by 10-35 % within minutes) falls on every tool alike."""
    import time

    for function in functions.values():
        function()
    times = {name: [] for name in functions}
    for _ in range(calls):
        for name, function in functions.items():
            start = time.perf_counter()
            function()
            times[name].append(time.perf_counter() - start)
    return {name: min(values) for name, values in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=20)
    args = parser.parse_args()
    import cranfield

    qrels, run = data()
    from cranfield.retrieval import ranked

    core = "compiled dict path" if ranked._dict_run is not None else "NO compiled core (pure Python path)"
    print(f"# {cpu()}; 1,000 queries x 100 documents, 5 measures; best of {args.calls} calls; {core}")
    evaluator = cranfield.Evaluator(qrels, MEASURES)
    functions = {"cranfield.evaluate": lambda: cranfield.evaluate(qrels, run, MEASURES),
                 "cranfield.Evaluator (prepared)": lambda: evaluator.evaluate(run),
                 # the one-shot call's share that prepares the dict qrels (columns, query codes, duplicate check)
                 "cranfield.Evaluator(qrels): preparation only": lambda: cranfield.Evaluator(qrels, MEASURES)}
    reference = None
    try:
        import pytrec_eval
        prepared = pytrec_eval.RelevanceEvaluator(qrels, TREC)
        functions[f"pytrec_eval {version('pytrec-eval-terrier')}"] = lambda: prepared.evaluate(run)
        reference = prepared.evaluate(run)
    except ImportError:
        pass
    try:
        import ranx
        warnings.simplefilter("ignore")
        functions[f"ranx {version('ranx')}"] = lambda: ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), RANX)
    except ImportError:
        pass
    rows = list(best_alternating(functions, args.calls).items())
    if reference is not None:
        mine = evaluator.evaluate(run)
        differ = sum(mine.per_query[ours][q] != reference[q][trec] for ours, trec in zip(MEASURES, TREC_ORDER)
                     for q in reference)
        print(f"# per-query values (5 measures x {len(reference)} queries) unequal to pytrec_eval's: {differ}")
    bases = [(peer, next((t for n, t in rows if n.startswith(peer)), None)) for peer in ("pytrec_eval", "ranx")]
    bases = [(peer, t) for peer, t in bases if t]
    print("| call | ms per call |" + "".join(f" vs {peer} |" for peer, _ in bases))
    print("|---|---:|" + "---:|" * len(bases))
    for name, seconds in rows:
        print(f"| {name} | {seconds * 1e3:.2f} |" + "".join(f" {t / seconds:.2f}× |" for _, t in bases))


if __name__ == "__main__":
    main()
