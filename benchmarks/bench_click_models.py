"""Click models at scale: fit PBM, cascade, DCM and DBN to a simulated log of N rows (10M by
default: a day of a mid-size engine), each in a fresh process, and report the time to fit, the
time per EM iteration and the process's peak memory (VmHWM, its own high-water mark).

The log: 1 000 000 impressions of 10 results (N / 10 impressions), queries drawn from 20 000
(Zipf-like), each query's 30 candidate documents shown in a random order, clicks drawn by the
model itself (PBM, cascade, DBN) with attractiveness uniform in (0.05, 0.9).

    python benchmarks/bench_click_models.py                       # 10M rows, 20 EM iterations
    python benchmarks/bench_click_models.py --rows 1000000 --models pbm dbn --iterations 10

Prints a Markdown table (rows, model, iterations, fit seconds wall and CPU — numpy runs on one
core, so CPU time is what an idle machine's wall time would be — seconds per iteration, peak
MiB, MiB of the log's columns); nothing is written unless ``--output FILE``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

_CHILD = r"""
import json, sys, time
sys.path.insert(0, {src!r})
import numpy as np
from cranfield.online.click_models import fit_click_model
from cranfield.online.simulation import simulate_clicks

def peak_mib():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM"):
            return int(line.split()[1]) / 1024
    return float("nan")

rows, model, iterations = {rows}, {model!r}, {iterations}
rng = np.random.default_rng(0)
depth, n_queries, pool = 10, 20_000, 30
n = rows // depth
query = np.minimum((rng.pareto(1.2, n) * 50).astype(np.int64), n_queries - 1)
order = np.argsort(rng.random((n, pool)), axis=1)[:, :depth]
alpha = rng.uniform(0.05, 0.9, (n_queries, pool))
a = alpha[query[:, None], order]
params = {{"pbm": {{"examination": 1 / np.arange(1, depth + 1)}}, "dbn": {{"continuation": 0.8}},
           "dcm": {{"examination": np.full(depth, 0.6)}}}}.get(model, {{}})
clicks = simulate_clicks(a, model=model, seed=1, **params)
del a
log = {{"impression": np.repeat(np.arange(n), depth), "query": np.repeat(query, depth),
        "doc": (query[:, None] * pool + order).ravel(), "rank": np.tile(np.arange(1, depth + 1), n),
        "clicked": clicks.ravel()}}
del order, clicks
data_mib = sum(v.nbytes for v in log.values()) / 2**20
before = peak_mib()
start, cpu_start = time.perf_counter(), time.process_time()
fitted = fit_click_model(log, model=model, iterations=iterations, tol=0)
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
print(json.dumps({{"rows": rows, "model": model, "iterations": fitted.settings["iterations"], "seconds": seconds, "cpu": cpu,
                   "per_iteration": seconds / fitted.settings["iterations"], "peak_mib": peak_mib(),
                   "data_mib": data_mib, "peak_before_fit_mib": before, "pairs": int(len(fitted.attractiveness))}}))
"""


def measure(rows: int, model: str, iterations: int) -> dict:
    code = _CHILD.format(src=str(ROOT / "src"), rows=rows, model=model, iterations=iterations)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f"{model} at {rows} rows failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def report(results: list[dict], command: str) -> str:
    from _machine import cpu, version

    lines = [f"Command: `{command}`", "", f"Machine: {cpu()}; numpy {version('numpy')}", "",
             "| rows | model | iterations | fit, wall (s) | fit, CPU (s) | wall s / iteration | peak memory (MiB) | "
             "log columns (MiB) |", "|---:|---|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        lines.append(f"| {r['rows']:,} | {r['model']} | {r['iterations']} | {r['seconds']:.1f} | "
                     f"{r['cpu']:.1f} | {r['per_iteration']:.2f} | {r['peak_mib']:.0f} | {r['data_mib']:.0f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[10_000_000])
    parser.add_argument("--models", nargs="+", default=["pbm", "cascade", "dbn"],
                        choices=["pbm", "cascade", "dcm", "ubm", "dbn"])
    parser.add_argument("--iterations", type=int, default=20, help="EM iterations (tol = 0: exactly these)")
    parser.add_argument("--output", default=None, help="Also write the Markdown table here.")
    args = parser.parse_args(argv)
    results = [measure(rows, model, args.iterations) for rows in args.rows for model in args.models]
    text = report(results, "python benchmarks/bench_click_models.py " + " ".join(sys.argv[1:] if argv is None else argv))
    print(text)
    if args.output:
        sys.path.insert(0, str(ROOT / "src"))
        from cranfield.io.atomic import write_text_output

        write_text_output(text, args.output)


if __name__ == "__main__":
    main()
