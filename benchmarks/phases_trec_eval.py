"""Where `cranfield trec_eval` spends its wall time: each phase's start and end, in one process.

    python benchmarks/phases_trec_eval.py --queries 10000 --threads 2 -- -q -m all_trec

Wraps the phases' functions with timers (start and end relative to the process start, and the
summed time of calls made in worker threads), then runs the same call as the command line.
Data from ``make_data.py``. For finding the serial part of a scaling curve; not a benchmark.

    python benchmarks/phases_trec_eval.py --queries 1000 --tokenizer

``--tokenizer``: only the tokenizer phase instead, one thread: the run file cut into the reader's
blocks, each parsed by the compiled tokenizer, Arrow's CSV path and the reference parser
(process CPU time, best of ``--repeat``), in MB/s.
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
    parser.add_argument("--tokenizer", action="store_true", help="time the tokenizer paths on the run's blocks")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--memory", action="store_true", help="also the resident set every 50 ms and at each phase's end")
    parser.add_argument("args", nargs="*")
    options = parser.parse_args()
    os.environ["CRANFIELD_THREADS"] = os.environ["OMP_NUM_THREADS"] = str(options.threads)
    import make_data

    qrels, run = (str(p) for p in make_data.ensure(options.queries))
    if options.tokenizer:
        tokenizer_phase(run, options.repeat)
        return
    start_imports = time.perf_counter()
    from cranfield.io import trec, trec_fast
    from cranfield.retrieval import doc_join, evaluate, parallel, ranked, trec_eval, trec_text

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
    timed(trec_fast, "parse_native", "    block, compiled tokenizer (per thread)")
    timed(trec_fast, "parse_arrow", "    block, Arrow CSV path (per thread)")
    timed(trec, "parse_lines", "    block, reference parser")
    timed(evaluate.Evaluator, "evaluate", "evaluate")
    timed(parallel, "split_run", "  split run")
    timed(evaluate.Evaluator, "rank_run", "  rank part (per thread)")
    timed(doc_join, "native_index", "    judgment index, compiled (once)")
    timed(doc_join.NativeDocs, "build", "    join, compiled (per thread)")
    timed(doc_join.PackedDocs, "build", "    join, packed keys (per thread)")
    timed(ranked, "_ranking_order", "    rank order and ties (per thread)")
    timed(evaluate.Evaluator, "results_from_view", "  measures of part (per thread)")
    timed(trec_text, "formatted", "format values")
    timed(trec_text, "lines", "assemble lines")
    samples = _sample_memory() if options.memory else None
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
              f"summed {sum(sums[label]):6.2f} s" + (f"  RSS at end {_rss_at(samples, last[label]):5.0f} MB" if samples else ""))
    if samples:
        samples.append((time.perf_counter() - T0, _rss_mb()))
        print("resident set (s, MB):", " ".join(f"{t:.2f}:{m:.0f}" for t, m in samples[::10]))


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def _sample_memory() -> list[tuple[float, float]]:
    """The resident set every 5 ms, in a daemon thread, as (seconds since start, MB)."""
    samples: list[tuple[float, float]] = []

    def sample() -> None:
        while True:
            samples.append((time.perf_counter() - T0, _rss_mb()))
            time.sleep(0.005)

    threading.Thread(target=sample, daemon=True).start()
    return samples


def _rss_at(samples: list[tuple[float, float]], when: float) -> float:
    return max((m for t, m in samples if t <= when), default=0.0)


def tokenizer_phase(run: str, repeat: int) -> None:
    """MB/s of each block parser over the run file's blocks (process CPU time, best of ``repeat``)."""
    from cranfield.io import trec, trec_fast, trec_grammar

    data = Path(run).read_bytes()
    blocks, start = [], 0
    while start < len(data):  # whole lines, CHUNK_BYTES each, as the reader cuts them
        end = data.rfind(b"\n", start, start + trec.CHUNK_BYTES) + 1 or len(data)
        blocks.append((start, end))
        start = end
    fmt = trec_grammar.RUN
    paths = {"compiled tokenizer": lambda s, e: trec_fast.parse_native(data, s, e, fmt, "cranfield", 1),
             "Arrow CSV path": lambda s, e: trec_fast.parse_arrow(data, s, e, fmt, "cranfield", 1, use_threads=False),
             "reference parser": lambda s, e: trec_grammar.parse_lines(data, s, e, fmt, "cranfield", 1, run)}
    if trec_fast._native is None:
        del paths["compiled tokenizer"]
    print(f"{run}: {len(data) / 1e6:.1f} MB, {len(blocks)} blocks of {trec.CHUNK_BYTES >> 20} MiB, one thread")
    for name, parse in paths.items():
        best = float("inf")
        for _ in range(repeat):
            begin = time.process_time()
            rows = sum(len(parse(s, e)) for s, e in blocks)
            best = min(best, time.process_time() - begin)
        print(f"{name:20s} {best:6.3f} CPU-s  {len(data) / 1e6 / best:7.0f} MB/s  ({rows} rows)")


if __name__ == "__main__":
    main()
