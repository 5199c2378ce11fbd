"""Diversity evaluation speed: cranfield's ndeval measures vs cranfield's own AP/nDCG on the same
run, and vs pyndeval (NIST ndeval in C behind a Python API).

    python benchmarks/bench_diversity.py                                 # 10M run lines
    python benchmarks/bench_diversity.py --lines 1000000 --pyndeval-lines 200000

Synthetic, seeded data: ``lines / 1000`` queries of 1000 ranked documents (distinct scores, so
every tool ranks alike); per query 100 judged documents (80 of them retrieved) judged for 1–5 of
6 subtopics, about half relevant. Timings, in one process, best of ``--repeat``:

* files: ``evaluate_diversity(qrels, run)`` (ndeval's 21 measures) vs ``cranfield.evaluate`` of
  the document-level qrels for AP and nDCG@10, both reading the text files;
* qrels prepared: building each evaluator (diversity: the intent table and the greedy ideal
  ranking, done once per qrels however many runs are evaluated);
* run in memory: each prepared evaluator on the run already read (the evaluation of one run);
* pyndeval on the first ``--pyndeval-lines`` lines (its Python input lists built beforehand, not
  timed), against cranfield on the same lines; the largest |difference| of their values is printed.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

import numpy as np


def make_data(lines: int, directory: str, seed: int = 14):
    import pyarrow as pa
    import pyarrow.compute as pc

    rng = np.random.default_rng(seed)
    n_q, depth, judged = max(lines // 1000, 1), 1000, 100
    q = np.repeat(np.arange(n_q), depth)
    rank = np.tile(np.arange(depth), n_q)
    docs = 3 * rank + rng.integers(0, 3, rank.size)  # distinct per query: 1000 of 3000 document numbers
    run = {"q": q, "d": docs, "score": (depth - rank).astype(np.float64)}
    # judged: 80 retrieved (anywhere in the top 1000) + 20 not retrieved, 1-5 of 6 subtopics each
    picked = np.sort(rng.random((n_q, depth)).argpartition(80, axis=1)[:, :80], axis=1)
    judged_docs = np.concatenate([docs.reshape(n_q, depth)[np.arange(n_q)[:, None], picked],
                                  3000 + rng.integers(0, 1000, (n_q, judged - 80))], axis=1)
    n_sub = rng.integers(1, 6, (n_q, judged))
    jq = np.repeat(np.repeat(np.arange(n_q), judged), n_sub.reshape(-1))
    jd = np.repeat(judged_docs.reshape(-1), n_sub.reshape(-1))
    starts = np.repeat(np.cumsum(n_sub.reshape(-1)) - n_sub.reshape(-1), n_sub.reshape(-1))
    js = np.arange(jq.size) - starts + rng.integers(0, 2, jq.size)  # subtopic ids 1..6, distinct per doc
    js = np.minimum(js + 1, 6)
    key = jq.astype(np.int64) * 10**8 + jd * 10 + js
    keep = np.concatenate(([True], np.diff(np.sort(key)) != 0))
    order = np.argsort(key)[keep]
    qrels = {"q": jq[order], "s": js[order], "d": jd[order], "rel": rng.integers(0, 2, order.size)}

    def text(columns, path):
        cols = [c if isinstance(c, str) else pa.array(c).cast(pa.string()) for c in columns]
        joined = pc.binary_join_element_wise(*cols, " ")
        with open(path, "wb") as handle:
            for chunk in range(0, len(joined), 1 << 20):
                part = joined.slice(chunk, 1 << 20)
                handle.write(pc.binary_join(pa.array([part], type=pa.list_(pa.string())), "\n")[0].as_py().encode()
                             + b"\n")

    def named(prefix, numbers):
        return pc.binary_join_element_wise(prefix, pa.array(numbers).cast(pa.string()), "")

    paths = {name: os.path.join(directory, name) for name in ("qrels.div", "qrels.doc", "run")}
    text([named("q", qrels["q"]), qrels["s"], named("doc", qrels["d"]), qrels["rel"]], paths["qrels.div"])
    doc_key = qrels["q"].astype(np.int64) * 10**8 + qrels["d"]
    first = np.concatenate(([True], doc_key[1:] != doc_key[:-1]))
    doc_rel = np.maximum.reduceat(qrels["rel"], np.flatnonzero(first))
    text([named("q", qrels["q"][first]), "0", named("doc", qrels["d"][first]), doc_rel], paths["qrels.doc"])
    text([named("q", q), "Q0", named("doc", docs), rank + 1, run["score"], "bench"], paths["run"])
    return paths, qrels, run


def timed(fn, repeat: int):
    best, value = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - start)
    return best, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=10_000_000)
    parser.add_argument("--pyndeval-lines", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()

    import cranfield
    from cranfield.retrieval.diversity import (NDEVAL_MEASURES, DiversityEvaluator, evaluate_diversity,
                                               read_diversity_qrels)

    print(f"cranfield {cranfield.__version__}, numpy {np.__version__}, Python {sys.version.split()[0]}, "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as directory:
        start = time.perf_counter()
        paths, qrels, run = make_data(args.lines, directory)
        print(f"data: {args.lines:,} run lines, {len(qrels['q']):,} diversity qrels lines "
              f"({time.perf_counter() - start:.1f} s to write)")
        rows = []
        t_div, div = timed(lambda: evaluate_diversity(paths["qrels.div"], paths["run"]), args.repeat)
        t_adhoc, _ = timed(lambda: cranfield.evaluate(paths["qrels.doc"], paths["run"], ["AP", "nDCG@10"]),
                           args.repeat)
        rows.append(("files: diversity (21 ndeval measures)", t_div))
        rows.append(("files: evaluate AP + nDCG@10", t_adhoc))
        loaded = cranfield.read_run(paths["run"])
        dq, aq = read_diversity_qrels(paths["qrels.div"]), cranfield.read_qrels(paths["qrels.doc"])

        def prepared_diversity():
            evaluator = DiversityEvaluator(dq)
            evaluator.warm()
            return evaluator

        def prepared_adhoc():
            evaluator = cranfield.Evaluator(aq, ["AP", "nDCG@10"])
            evaluator.warm()
            return evaluator

        t_prep_div, div_ev = timed(prepared_diversity, args.repeat)
        t_prep_adhoc, adhoc_ev = timed(prepared_adhoc, args.repeat)
        t_div_mem, _ = timed(lambda: div_ev.evaluate(loaded), args.repeat)
        t_adhoc_mem, _ = timed(lambda: adhoc_ev.evaluate(loaded), args.repeat)
        t_div_one, _ = timed(lambda: DiversityEvaluator(dq, ["alpha-nDCG@20"]).evaluate(loaded), 1)
        rows.append(("qrels prepared: diversity (incl. greedy ideal)", t_prep_div))
        rows.append(("qrels prepared: evaluate", t_prep_adhoc))
        rows.append(("run in memory: diversity (21 ndeval measures)", t_div_mem))
        rows.append(("run in memory: evaluate AP + nDCG@10", t_adhoc_mem))
        rows.append(("run in memory: alpha-nDCG@20 alone, incl. qrels", t_div_one))
        print(f"\n{'what':<50}{'seconds':>9}")
        for name, seconds in rows:
            print(f"{name:<50}{seconds:>9.2f}")
        print(f"diversity / evaluate: files {t_div / t_adhoc:.2f}x, qrels {t_prep_div / t_prep_adhoc:.2f}x, "
              f"run in memory {t_div_mem / t_adhoc_mem:.2f}x")

        try:
            import pyndeval
        except ImportError:
            print("pyndeval not installed: no comparison with ndeval")
            return
        m = min(args.pyndeval_lines, args.lines)
        n_q = max(m // 1000, 1)
        small_qrels = qrels["q"] < n_q
        qrels_rows = sorted(zip((f"q{v}" for v in qrels["q"][small_qrels]), qrels["s"][small_qrels].astype(str),
                                (f"doc{v}" for v in qrels["d"][small_qrels]), qrels["rel"][small_qrels].tolist()),
                            key=lambda r: int(r[1]))
        small_run = run["q"] < n_q
        run_rows = list(zip((f"q{v}" for v in run["q"][small_run]), (f"doc{v}" for v in run["d"][small_run]),
                            run["score"][small_run].tolist()))
        t_nd, expected = timed(lambda: pyndeval.ndeval(qrels_rows, run_rows, list(NDEVAL_MEASURES)), 1)
        sub_q = {}
        for q, s, d, r in qrels_rows:
            sub_q.setdefault(q, {}).setdefault(s, {})[d] = r
        sub_run = cranfield.Run.from_frame(__import__("pyarrow").table(
            {"qid": [r[0] for r in run_rows], "docno": [r[1] for r in run_rows], "score": [r[2] for r in run_rows]}))
        sub_qrels = cranfield.retrieval.diversity.DiversityQrels.from_dict(sub_q)
        t_ours, ours = timed(lambda: evaluate_diversity(sub_qrels, sub_run), args.repeat)
        worst = 0.0
        for i, qid in enumerate(ours.query_ids.tolist()):
            for name in NDEVAL_MEASURES:
                reference = expected[qid][name]
                reference = 0.0 if reference != reference else reference
                worst = max(worst, abs(ours.per_query[name][i] - reference))
        print(f"\n{m:,} lines ({n_q} queries): pyndeval {t_nd:.2f} s, cranfield {t_ours:.2f} s "
              f"({t_nd / t_ours:.1f}x faster); max |cranfield − pyndeval| = {worst:g}")


if __name__ == "__main__":
    main()
