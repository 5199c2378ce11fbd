"""Where `cranfield trec_eval` spends its wall time: each phase's start and end, in one process.

    python benchmarks/phases_trec_eval.py --queries 10000 --threads 2 -- -q -m all_trec

Wraps the phases' functions with timers (start and end relative to the process start, and the
summed time of calls made in worker threads), then runs the same call as the command line.
Data from ``make_data.py``. For finding the serial part of a scaling curve; not a benchmark.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import threading
import time
from pathlib import Path

T0 = time.perf_counter()
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "src"))

EVENTS: list[tuple[str, float, float, str]] = []


def timed(owner, name: str, label: str) -> None:
    original = getattr(owner, name)

    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            EVENTS.append((label, start - T0, time.perf_counter() - T0, threading.current_thread().name))

    setattr(owner, name, wrapper)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", type=int, default=10000)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--part-rows", type=int, default=None, help="override parallel.PART_ROWS")
    parser.add_argument("--chunk-mib", type=int, default=None, help="override io.trec.CHUNK_BYTES (MiB)")
    parser.add_argument("args", nargs="*")
    options = parser.parse_args()
    os.environ["CRANFIELD_THREADS"] = os.environ["OMP_NUM_THREADS"] = str(options.threads)
    import make_data

    qrels, run = (str(p) for p in make_data.ensure(options.queries))
    start_imports = time.perf_counter()
    from cranfield.io import trec
    from cranfield.retrieval import evaluate, parallel, trec_eval, trec_text

    imports = time.perf_counter() - start_imports
    if options.part_rows:
        parallel.PART_ROWS = options.part_rows
    if options.chunk_mib:
        trec.CHUNK_BYTES = options.chunk_mib << 20
    timed(trec_eval, "read_qrels", "read qrels")
    timed(evaluate, "prepare_qrels", "prepare qrels")
    timed(evaluate.Evaluator, "warm", "warm (judgment index)")
    timed(evaluate, "read_run", "read run")
    timed(trec, "read_trec_columns", "  read columns (qrels and run)")
    timed(evaluate.Evaluator, "evaluate", "evaluate")
    timed(parallel, "split_run", "  split run")
    timed(parallel, "rank", "  rank part (per thread)")
    timed(evaluate.Evaluator, "results_from_view", "  measures of part (per thread)")
    timed(trec_text, "formatted", "format values")
    timed(trec_text, "lines", "assemble lines")
    begin = time.perf_counter()
    text = trec_eval.trec_eval(qrels, run, trec_eval.TrecEvalOptions(
        measures=tuple(a for a in options.args if a not in ("-m", "-q")), query="-q" in options.args))
    total = time.perf_counter() - begin
    print(f"imports {imports:.2f} s; trec_eval() {total:.2f} s; output {len(text) / 1e6:.0f} MB; "
          f"threads {options.threads}, part rows {parallel.PART_ROWS}, chunk {trec.CHUNK_BYTES >> 20} MiB")
    sums: dict[str, list[float]] = {}
    for label, a, b, thread in sorted(EVENTS, key=lambda e: e[1]):
        sums.setdefault(label, []).append(b - a)
    first = {label: min(a for lab, a, _, _ in EVENTS if lab == label) for label in sums}
    last = {label: max(b for lab, _, b, _ in EVENTS if lab == label) for label in sums}
    for label in sorted(sums, key=lambda k: first[k]):
        print(f"{label:42s} from {first[label]:6.2f} to {last[label]:6.2f} s  calls {len(sums[label]):3d}  "
              f"summed {sum(sums[label]):6.2f} s")


if __name__ == "__main__":
    main()
