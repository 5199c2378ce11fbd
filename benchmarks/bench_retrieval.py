"""End-to-end retrieval evaluation benchmark: cranfield vs pytrec_eval, ranx and ir_measures.

    .venv/bin/python benchmarks/bench_retrieval.py                 # 1k and 10k queries
    .venv/bin/python benchmarks/bench_retrieval.py --queries 1000  # quick

Each tool runs in a FRESH Python process that reads the TREC qrels and run files and computes
map, ndcg_cut_10, P_10, recall_1000 and recip_rank per query and their means, the way a user
would write it with that tool. So the wall time includes interpreter start, imports, parsing and
any JIT compilation (ranx/numba), and the peak memory (max RSS of the child process, from
``os.wait4``) is the whole process's. ranx caches its numba code on disk: it is measured once with
an empty cache (what a user pays on the first run) and then with a warm cache.

The script also times ``cranfield --version``, checks that every peer's means and per-query
values agree with cranfield's (or with pytrec_eval's while cranfield is not importable), and
writes ``docs/benchmarks/retrieval.md``. Data comes from ``make_data.py`` (generated if missing).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OUT_DIR = HERE / "_out"  # git-ignored: worker outputs and the warm numba cache
DOC = ROOT / "docs" / "benchmarks" / "retrieval.md"

# trec_eval names of the measures, in report order.
MEASURES = ["map", "ndcg_cut_10", "P_10", "recall_1000", "recip_rank"]
TOOLS = ["cranfield", "cranfield-cli", "pytrec_eval", "ranx", "ir_measures"]
CLI_MEASURES = ["map", "ndcg_cut.10", "P.10", "recall.1000", "recip_rank"]  # same, as -m options
PACKAGES = ["cranfield", "numpy", "pyarrow", "pytrec-eval-terrier", "ranx", "numba", "ir-measures"]
AGREE_TOL = 1e-9


# --------------------------------------------------------------------------------------------
# Workers: one per tool, each run in a fresh process. Each returns {measure: {qid: value}}.
# --------------------------------------------------------------------------------------------

def _work_cranfield(qrels_path: str, run_path: str, timer: dict) -> dict:
    import cranfield

    timer["import"] = time.perf_counter()
    timer["read"] = timer["import"]  # evaluate() reads the files itself: the run while the qrels are prepared
    res = cranfield.evaluate(qrels_path, run_path, MEASURES)
    timer["evaluate"] = time.perf_counter()
    qids = [str(q) for q in res.query_ids]
    out = {}
    for name in MEASURES:
        values = res.per_query[str(cranfield.parse_measure(name))]
        out[name] = dict(zip(qids, values.tolist()))
    return out


def _work_pytrec_eval(qrels_path: str, run_path: str, timer: dict) -> dict:
    import pytrec_eval

    timer["import"] = time.perf_counter()
    with open(qrels_path) as f:
        qrels = pytrec_eval.parse_qrel(f)
    with open(run_path) as f:
        run = pytrec_eval.parse_run(f)
    timer["read"] = time.perf_counter()
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P.10", "recall.1000", "recip_rank"})
    per_query = evaluator.evaluate(run)
    timer["evaluate"] = time.perf_counter()
    return {name: {qid: values[name] for qid, values in per_query.items()} for name in MEASURES}


def _work_ranx(qrels_path: str, run_path: str, timer: dict) -> dict:
    import ranx

    timer["import"] = time.perf_counter()
    qrels = ranx.Qrels.from_file(qrels_path, kind="trec")
    run = ranx.Run.from_file(run_path, kind="trec")
    timer["read"] = time.perf_counter()
    names = {"map": "map", "ndcg_cut_10": "ndcg@10", "P_10": "precision@10", "recall_1000": "recall@1000",
             "recip_rank": "mrr"}
    ranx.evaluate(qrels, run, list(names.values()))  # means; per-query values are saved in run.scores
    timer["evaluate"] = time.perf_counter()
    return {name: {str(q): float(v) for q, v in run.scores[ranx_name].items()} for name, ranx_name in names.items()}


def _work_ir_measures(qrels_path: str, run_path: str, timer: dict) -> dict:
    import ir_measures
    from ir_measures import AP, RR, P, R, nDCG

    timer["import"] = time.perf_counter()
    qrels = ir_measures.read_trec_qrels(qrels_path)  # lazy iterators: parsing happens in calc()
    run = ir_measures.read_trec_run(run_path)
    timer["read"] = time.perf_counter()
    names = {AP: "map", nDCG @ 10: "ndcg_cut_10", P @ 10: "P_10", R @ 1000: "recall_1000", RR: "recip_rank"}
    results = ir_measures.calc(list(names), qrels, run)  # aggregated and per-query
    timer["evaluate"] = time.perf_counter()
    out: dict = {name: {} for name in MEASURES}
    for metric in results.per_query:
        out[names[metric.measure]][metric.query_id] = metric.value
    return out


def worker(tool: str, qrels_path: str, run_path: str, out_path: str) -> None:
    """Run one tool end to end and write its per-query values and phase times as JSON."""
    timer = {"start": time.perf_counter()}
    values = globals()[f"_work_{tool}"](qrels_path, run_path, timer)
    phases = {k: timer[k] - timer[prev] for prev, k in [("start", "import"), ("import", "read"), ("read", "evaluate")]}
    Path(out_path).write_text(json.dumps({"phases": phases, "values": values}))


# --------------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------------

def run_child(argv: list[str], env: dict | None = None) -> dict:
    """Run argv as a child process; return wall time, peak RSS (MB), exit code and stderr tail."""
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)  # rusage of this child alone
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        tail = err.read().decode(errors="replace").strip().splitlines()[-3:]
    maxrss_mb = usage.ru_maxrss / 1024 if sys.platform != "darwin" else usage.ru_maxrss / 2**20
    return {"wall": wall, "peak_mb": maxrss_mb, "rc": proc.returncode, "stderr": "\n".join(tail)}


def cranfield_exe() -> str | None:
    exe = Path(sys.executable).parent / "cranfield"
    return str(exe) if exe.exists() else shutil.which("cranfield")


def from_cli_json(path: Path) -> dict:
    """Per-query values from ``cranfield evaluate --per-query --format json`` output: the tidy rows
    ``{"run", "qid", "measure", "value"}`` (docs/cli.md)."""
    import cranfield  # only to map trec_eval names to the canonical names used as JSON keys

    canonical = {str(cranfield.parse_measure(name)): name for name in MEASURES}
    out: dict = {name: {} for name in MEASURES}
    for row in json.loads(path.read_text()):
        if row["measure"] in canonical:
            out[canonical[row["measure"]]][row["qid"]] = row["value"]
    return out


def bench_tool(tool: str, n: int, qrels_path: Path, run_path: Path, env: dict, label: str | None = None) -> dict:
    out_path = OUT_DIR / f"{label or tool}_{n}.json"
    out_path.unlink(missing_ok=True)
    if tool == "cranfield-cli":  # the command line, as a shell user runs it
        argv = [cranfield_exe() or "cranfield", "evaluate", str(qrels_path), str(run_path),
                *(a for m in CLI_MEASURES for a in ("-m", m)), "--per-query", "--format", "json", "-o", str(out_path)]
    else:
        argv = [sys.executable, str(Path(__file__).resolve()), "--worker", tool, str(qrels_path), str(run_path), str(out_path)]
    result = run_child(argv, env)
    result.update(tool=label or tool, n=n)
    if result["rc"] == 0 and out_path.exists():
        if tool == "cranfield-cli":
            result["phases"], result["values"] = {}, from_cli_json(out_path)
        else:
            data = json.loads(out_path.read_text())
            result["phases"], result["values"] = data["phases"], data["values"]
    status = f"{result['wall']:7.2f} s {result['peak_mb']:7.0f} MB" if "values" in result else f"FAILED: {result['stderr']}"
    print(f"  {n:>6} queries  {label or tool:<24} {status}", flush=True)
    return result


def version_time(repeat: int = 5) -> float | None:
    """Median wall time of ``cranfield --version`` in a fresh process (None if not installed)."""
    exe_path = cranfield_exe()
    if exe_path is None:
        return None
    times = []
    for _ in range(repeat):
        r = run_child([exe_path, "--version"])
        if r["rc"] != 0:
            return None
        times.append(r["wall"])
    return sorted(times)[len(times) // 2]


def compare(ref: dict, other: dict) -> dict:
    """Per measure: |difference of means|, number of differing queries, queries only on one side."""
    out = {}
    for name in MEASURES:
        a, b = ref[name], other[name]
        common = a.keys() & b.keys()
        mean_a = sum(a.values()) / len(a) if a else float("nan")
        mean_b = sum(b.values()) / len(b) if b else float("nan")
        out[name] = {
            "mean_ref": mean_a,
            "mean_other": mean_b,
            "abs_diff": abs(mean_a - mean_b),
            "n_diff": sum(abs(a[q] - b[q]) > AGREE_TOL for q in common),
            "n_only": len(a.keys() ^ b.keys()),
        }
    return out


def machine() -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        import psutil

        ram_gb = psutil.virtual_memory().total / 2**30
    except ImportError:
        ram_gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    versions = {}
    for pkg in PACKAGES:
        try:
            versions[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            versions[pkg] = "not installed"
    return {"cpu": cpu, "cores": cores, "ram_gb": ram_gb, "python": platform.python_version(),
            "os": f"{platform.system()} {platform.release()}", "versions": versions}


def targets(results: list[dict], version_s: float | None) -> list[str]:
    """Issue 2's targets, checked at the largest size measured."""
    ok = [r for r in results if "values" in r]
    if not any(r["tool"] == "cranfield" for r in ok):
        return []
    n = max(r["n"] for r in ok if r["tool"] == "cranfield")
    wall = {r["tool"]: r["wall"] for r in ok if r["n"] == n}
    peak = {r["tool"]: r["peak_mb"] for r in ok if r["n"] == n}
    rows = []

    def row(what: str, value: str, met: bool | None) -> None:
        rows.append(f"| {what} | {value} | {'n/a' if met is None else ('yes' if met else '**no**')} |")

    for peer, factor in [("pytrec_eval", 5), ("ranx", 10)]:
        if peer in wall:
            ratio = wall[peer] / wall["cranfield"]
            row(f"≥ {factor}x faster than {peer} end to end", f"{ratio:.1f}x", ratio >= factor)
    row("peak memory ≤ 1.5 GB", f"{peak['cranfield']:,.0f} MB", peak["cranfield"] <= 1536)
    row("`cranfield --version` < 0.3 s", "n/a" if version_s is None else f"{version_s:.3f} s",
        None if version_s is None else version_s < 0.3)
    return [f"## Targets (issue 2), at {n:,} queries ({n * 1000:,} run lines)", "",
            "| target | measured | met |", "|---|---:|---|", *rows, ""]


def render(results: list[dict], version_s: float | None, info: dict, command: str, ref_tool: str) -> str:
    v = info["versions"]
    lines = [
        "# Retrieval evaluation benchmark",
        "",
        "Generated by `benchmarks/bench_retrieval.py`; do not edit by hand. Command:",
        "",
        f"    {command}",
        "",
        "Each tool runs in a fresh Python process that reads the TREC qrels and run files and",
        "computes map, ndcg_cut_10, P_10, recall_1000 and recip_rank per query and their means",
        "(see the worker functions in the script for the exact calls). *Wall* is the whole process",
        "(interpreter start, imports, parsing, JIT, evaluation); *peak* is the child's max RSS;",
        "*ratio* is the tool's wall time / cranfield's (higher = cranfield faster). *read* and",
        "*evaluate* are measured inside the process (cranfield and ir_measures read the files inside evaluate).",
        "*cranfield-cli* is `cranfield evaluate QRELS RUN -m map -m ndcg_cut.10 -m P.10 -m recall.1000",
        "-m recip_rank --per-query --format json -o FILE`. ranx is measured twice at the first size: with",
        "an empty numba cache (its first use after installation: JIT compilation) and with a warm cache;",
        "the other ranx rows and the targets use the warm cache. ir_measures delegates these measures to",
        "pytrec_eval (its first provider).",
        "Data: `benchmarks/make_data.py` (seeded; N queries x 1000 results, ~100-300 graded judgments",
        "per query, 20 % of queries with scores rounded to 3 decimals, i.e. tied).",
        "",
        "## Machine",
        "",
        f"- CPU: {info['cpu']}, {info['cores']} cores available (shared with other work: expect noise)",
        f"- RAM: {info['ram_gb']:.1f} GiB; {info['os']}; Python {info['python']}",
        f"- Load average (1 min) at start / end of the benchmark: {info['load_start']:.1f} / {info['load_end']:.1f}",
        "- Packages: " + ", ".join(f"{k} {val}" for k, val in v.items()),
        "",
        "## Times and memory",
        "",
        "| queries | run lines | tool | wall (s) | ratio | read (s) | evaluate (s) | peak memory (MB) |",
        "|---:|---:|---|---:|---:|---:|---:|---:|",
    ]
    base = {r["n"]: r["wall"] for r in results if r["tool"] == "cranfield" and "values" in r}
    for r in results:
        if "values" not in r:
            lines.append(f"| {r['n']:,} | {r['n'] * 1000:,} | {r['tool']} | failed | | | | |")
            continue
        ratio = f"{r['wall'] / base[r['n']]:.1f}x" if r["n"] in base else "n/a"
        ph = {k: f"{v:.2f}" for k, v in r["phases"].items()}
        lines.append(f"| {r['n']:,} | {r['n'] * 1000:,} | {r['tool']} | {r['wall']:.2f} | {ratio} | "
                     f"{ph.get('read', '-')} | {ph.get('evaluate', '-')} | {r['peak_mb']:,.0f} |")
    lines += ["", "`cranfield --version` (median of 5 fresh processes): "
              + (f"{version_s:.3f} s" if version_s is not None else "not available"), ""]
    lines += targets(results, version_s)

    lines += ["## Agreement", "",
              f"Reference: **{ref_tool}**. *|Δ mean|* is the absolute difference of the means; *queries*",
              f"counts the queries whose value differs by more than {AGREE_TOL:g}.", "",
              "| queries | tool | " + " | ".join(MEASURES) + " |", "|---:|---|" + "---|" * len(MEASURES)]
    for r in results:
        if "values" not in r or r["tool"] == ref_tool:
            continue
        ref = next((x for x in results if x["tool"] == ref_tool and x["n"] == r["n"] and "values" in x), None)
        if ref is None:
            continue
        cmp = compare(ref["values"], r["values"])
        cells = [f"{c['abs_diff']:.1e} ({c['n_diff']} q)" + (f", {c['n_only']} only one side" if c["n_only"] else "")
                 for c in cmp.values()]
        lines.append(f"| {r['n']:,} | {r['tool']} | " + " | ".join(cells) + " |")
    lines += ["",
              "Expected differences: ranx breaks ties in its own order, not trec_eval's (score",
              "descending, then docno descending), so rank-sensitive measures differ on the tied queries.",
              "pytrec_eval and ir_measures (which calls pytrec_eval here) are trec_eval's C code; the",
              "scores have at most 6 decimals, so storing them as float32 (pytrec_eval) creates no tie.",
              ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--tools", nargs="+", default=TOOLS, choices=TOOLS)
    parser.add_argument("--output", type=Path, default=DOC, help="markdown report (default: %(default)s)")
    parser.add_argument("--no-output", action="store_true", help="print only, write no report")
    parser.add_argument("--worker", nargs=4, metavar=("TOOL", "QRELS", "RUN", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(*args.worker)
        return

    sys.path.insert(0, str(HERE))
    import make_data
    from _machine import ensure_bytecode

    ensure_bytecode("numpy", "pyarrow")  # the cranfield-cli row starts as an installed cranfield
    OUT_DIR.mkdir(exist_ok=True)
    load_start = os.getloadavg()[0]
    env = dict(os.environ)
    warm_cache = OUT_DIR / "numba_cache"
    shutil.rmtree(warm_cache, ignore_errors=True)
    env["NUMBA_CACHE_DIR"] = str(warm_cache)
    results = []
    for i, n in enumerate(args.queries):
        qrels_path, run_path = make_data.ensure(n)
        for tool in args.tools:
            if tool == "ranx" and i == 0:  # first run: the numba cache is empty, ranx compiles
                results.append(bench_tool(tool, n, qrels_path, run_path, env, label="ranx (empty numba cache)"))
            results.append(bench_tool(tool, n, qrels_path, run_path, env))
    version_s = version_time()
    print(f"  cranfield --version: {version_s if version_s is None else f'{version_s:.3f} s'}")

    ok = {r["tool"] for r in results if "values" in r}
    ref_tool = "cranfield" if "cranfield" in ok else "pytrec_eval"
    command = " ".join(["python", "benchmarks/bench_retrieval.py", *(argv if argv is not None else sys.argv[1:])])
    info = machine()
    info.update(load_start=load_start, load_end=os.getloadavg()[0])
    text = render(results, version_s, info, command.strip(), ref_tool)
    if not args.no_output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(text)
        print(f"wrote {args.output}")
    print(text.split("## Times and memory", 1)[1])


if __name__ == "__main__":
    main()
