"""`cranfield trec_eval` against the trec_eval program itself (9.0.8, built with -O3), side by side.

    python benchmarks/bench_trec_eval.py                          # 1M and 10M lines, 2 threads
    python benchmarks/bench_trec_eval.py --threads 1 2            # also record 1 thread
    python benchmarks/bench_trec_eval.py --queries 1000 --repeat 1 --no-output   # quick look
    python benchmarks/bench_trec_eval.py --cores 2 --doc OUT.md  # a bigger machine as a 2-core one
    python benchmarks/bench_trec_eval.py --scaling 1 2 4 8 16 --queries 10000 --doc OUT.md  # cores curve
    python benchmarks/bench_trec_eval.py --lines 100000000 --cases "-q -m all_trec" --repeat 1 \
        --data-dir /tmp/te100 --doc OUT.md && rm -r /tmp/te100   # 100M lines (3.7 GB): out of core

``--cores N`` confines the whole benchmark (both tools) to the first N cores of the machine
(``sched_setaffinity``), so a bigger machine stands in for the 2-core one. ``--scaling T...``
times cranfield at 10M lines with T threads confined to T cores (trec_eval, single-threaded,
on one core) and writes the speed-up over one thread. cranfield runs with ``CRANFIELD_THREADS``
set to its thread count, and, when confined to fewer cores than the machine has,
``OMP_NUM_THREADS`` too (the size of Arrow's thread pool, which ignores the affinity).

trec_eval is compiled from ``../shared/reference/trec_eval-9.0.8`` (relative to the repository
root) into ``benchmarks/_out/trec_eval-O3`` (git-ignored) with ``-O3`` and nothing else changed.
Data comes from ``make_data.py`` (N queries × 1000 lines). Each tool runs as a fresh process,
in turn (trec_eval, then cranfield with each thread count, repeated), so both see the same
machine load; the table keeps the best wall time of the repeats, with that run's user + system
CPU time and peak resident memory (``os.wait4``). Every cranfield output is compared byte for
byte with trec_eval's: differences are counted and reported, never hidden.

Writes ``docs/benchmarks/trec_eval.md``.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import make_data  # noqa: E402
from _machine import cpu, ensure_bytecode, version  # noqa: E402

OUT_DIR = HERE / "_out"
BUILD_DIR = OUT_DIR / "trec_eval-O3"
SOURCE = ROOT.parent / "shared" / "reference" / "trec_eval-9.0.8"
DOC = ROOT / "docs" / "benchmarks" / "trec_eval.md"

FIVE = ["-m", "map", "-m", "P.10", "-m", "ndcg_cut.10", "-m", "recip_rank", "-m", "recall.1000"]
CASES = {"-q -m all_trec": ["-q", "-m", "all_trec"], "-m all_trec": ["-m", "all_trec"], "5 measures": FIVE}


def build_trec_eval() -> Path:
    """trec_eval 9.0.8 compiled with -O3 (rebuilt only when missing)."""
    binary = BUILD_DIR / "trec_eval"
    if binary.exists():
        return binary
    if not SOURCE.is_dir():
        sys.exit(f"trec_eval sources not found at {SOURCE}")
    shutil.rmtree(BUILD_DIR, ignore_errors=True)
    shutil.copytree(SOURCE, BUILD_DIR)
    subprocess.run(["make", "-s", "CFLAGS=-I. -O3 -DVERSIONID=\\\"9.0.8\\\""], cwd=BUILD_DIR, check=True,
                   stdout=subprocess.DEVNULL)
    return binary


def run_once(command: list[str], out_path: Path, env: dict | None = None, cores: int | None = None) -> dict:
    """Run ``command`` with stdout to ``out_path``: wall time, CPU time and peak memory.

    Measured by GNU time when installed: the peak memory ``os.wait4`` reports for a child of this
    process counts the pages it shared with this (large) Python process before ``exec``.
    """
    timer = shutil.which("time") or ("/usr/bin/time" if Path("/usr/bin/time").exists() else None)
    report = OUT_DIR / "time.txt"
    full = [timer, "-f", "%e %U %S %M", "-o", str(report), *command] if timer else command
    with open(out_path, "wb") as out:
        start = time.perf_counter()
        confine = None if cores is None else (lambda: os.sched_setaffinity(0, _first_cores(cores)))
        process = subprocess.Popen(full, stdout=out, stderr=subprocess.PIPE, env=env, preexec_fn=confine)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
    error = process.stderr.read().decode(errors="replace")
    process.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {error.strip()[-500:]}")
    if timer:
        _, user, system, peak_kb = report.read_text().split()[-4:]
        return {"wall": wall, "cpu": float(user) + float(system), "rss": int(peak_kb) * 1024}
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss": usage.ru_maxrss * 1024}


def _first_cores(n: int) -> list[int]:
    """The first ``n`` cores this process may run on."""
    return sorted(os.sched_getaffinity(0))[:n]


def _cranfield_env(threads: int, confined: bool = False) -> dict:
    """cranfield's environment: ``CRANFIELD_THREADS``; when confined to fewer cores than the machine
    has, also ``OMP_NUM_THREADS`` (Arrow sizes its pool by the machine's cores, not the affinity)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""),
               CRANFIELD_THREADS=str(threads))
    if confined:
        env["OMP_NUM_THREADS"] = str(threads)
    return env


def compare(reference: Path, candidate: Path) -> str:
    """'identical', or how many lines differ and in which measures."""
    a, b = reference.read_bytes(), candidate.read_bytes()
    if a == b:
        return "identical"
    lines_a, lines_b = a.splitlines(), b.splitlines()
    if len(lines_a) != len(lines_b):
        return f"DIFFERENT: {len(lines_a)} vs {len(lines_b)} lines"
    bad = [(x, y) for x, y in zip(lines_a, lines_b) if x != y]
    names = sorted({x.split(b"\t")[0].strip().decode() for x, _ in bad})
    return f"DIFFERENT: {len(bad)} lines ({', '.join(names)})"


def best(runs: list[dict]) -> dict:
    return min(runs, key=lambda r: r["wall"])


def data(queries: int, data_dir: Path = make_data.DATA_DIR) -> tuple[str, str]:
    """(qrels, run) paths of ``queries`` × 1000 lines; above 10M lines the data are written in chunks of
    1M lines (bench_scale.write_text: the generator never holds more than one chunk)."""
    if queries <= 10_000:
        return tuple(str(p) for p in make_data.ensure(queries, data_dir=data_dir))
    import bench_scale

    data_dir.mkdir(parents=True, exist_ok=True)
    return tuple(str(p) for p in bench_scale.write_text(queries, data_dir))


def bench(queries: int, case: str, threads: list[int], repeat: int, binary: Path,
          data_dir: Path = make_data.DATA_DIR) -> dict:
    qrels, run = data(queries, data_dir)
    args = CASES[case]
    OUT_DIR.mkdir(exist_ok=True)
    te_out = OUT_DIR / "trec_eval.out"
    runs: dict[str, list[dict]] = {"trec_eval": []}
    load = os.getloadavg()[0]
    checks = {}
    for _ in range(repeat):
        runs["trec_eval"].append(run_once([str(binary), *args, qrels, run], te_out))
        for t in threads:
            cf_out = OUT_DIR / f"cranfield_{t}.out"
            result = run_once([sys.executable, "-m", "cranfield", "trec_eval", *args, qrels, run], cf_out,
                              _cranfield_env(t, confined=len(os.sched_getaffinity(0)) < (os.cpu_count() or 1)))
            runs.setdefault(f"cranfield {t}", []).append(result)
            checks[t] = compare(te_out, cf_out)
    return {"runs": {k: best(v) for k, v in runs.items()}, "checks": checks, "load": load}


def startup(repeat: int) -> dict:
    """The floor: interpreter start, numpy + pyarrow, `cranfield --version`, and `cranfield trec_eval`
    and `cranfield evaluate` on a one-line run (best of ``repeat`` and at least 5)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    OUT_DIR.mkdir(exist_ok=True)
    qrels, run = OUT_DIR / "one.qrels", OUT_DIR / "one.run"
    qrels.write_text("1 0 d1 1\n")
    run.write_text("1 Q0 d1 1 1.0 tag\n")
    cli = [sys.executable, "-m", "cranfield"]
    commands = {"python -c pass": [sys.executable, "-c", "pass"],
                "python -c 'import numpy, pyarrow'": [sys.executable, "-c", "import numpy, pyarrow"],
                "cranfield --version": [*cli, "--version"],
                "cranfield trec_eval (1 line)": [*cli, "trec_eval", str(qrels), str(run)],
                "cranfield evaluate (1 line)": [*cli, "evaluate", str(qrels), str(run)]}
    return {name: best([run_once(cmd, Path(os.devnull), env) for _ in range(max(repeat, 5))])
            for name, cmd in commands.items()}


def table(results: dict, threads: list[int]) -> list[str]:
    head = "| lines | call | trec_eval -O3 | " + " | ".join(f"cranfield, {t} thread{'s' * (t > 1)}" for t in threads)
    head += " | " + " | ".join(f"ratio ({t})" for t in threads) + " | peak memory te / cf | output | load |"
    rows = [head, "|" + "---|" * (3 + 2 * len(threads) + 3)]
    for (queries, case), result in results.items():
        r = result["runs"]
        te = r["trec_eval"]
        cells = [f"{queries * 1000 // 1_000_000}M", f"`{case}`",
                 f"{te['wall']:.2f} s ({te['cpu']:.2f} cpu)"]
        cells += [f"{r[f'cranfield {t}']['wall']:.2f} s ({r[f'cranfield {t}']['cpu']:.2f} cpu)" for t in threads]
        cells += [f"**{te['wall'] / r[f'cranfield {t}']['wall']:.2f}×**" for t in threads]
        cells.append(f"{te['rss'] / 1e6:.0f} MB / " + " / ".join(f"{r[f'cranfield {t}']['rss'] / 1e6:.0f} MB"
                                                                 for t in threads))
        cells.append("; ".join(f"{t}: {result['checks'][t]}" for t in threads))
        cells.append(f"{result['load']:.1f}")
        rows.append("| " + " | ".join(cells) + " |")
    return rows


def scaling(queries: int, threads: list[int], repeat: int, binary: Path) -> list[str]:
    """Rows of the cores curve: each call with T threads on T cores, speed-up over 1 thread."""
    qrels, run = data(queries)
    OUT_DIR.mkdir(exist_ok=True)
    rows = ["| call | trec_eval (1 core) | " + " | ".join(f"{t} core{'s' * (t > 1)}" for t in threads)
            + " | speed-up " + "/".join(map(str, threads)) + " | ratio to trec_eval at " + str(max(threads))
            + " | output |",
            "|" + "---|" * (len(threads) + 5)]
    for case, args in CASES.items():
        te_out = OUT_DIR / "trec_eval.out"
        te = best([run_once([str(binary), *args, qrels, run], te_out, cores=1) for _ in range(repeat)])
        results, checks = {}, set()
        for t in threads:
            cf_out = OUT_DIR / f"cranfield_{t}.out"
            results[t] = best([run_once([sys.executable, "-m", "cranfield", "trec_eval", *args, qrels, run], cf_out,
                                        _cranfield_env(t, confined=True), cores=t) for _ in range(repeat)])
            checks.add(compare(te_out, cf_out))
        base = results[threads[0]]["wall"]
        row = [f"`{case}`", f"{te['wall']:.2f} s"] + [f"{results[t]['wall']:.2f} s" for t in threads]
        row.append(" / ".join(f"{base / results[t]['wall']:.2f}×" for t in threads))
        row.append(f"{te['wall'] / results[threads[-1]]['wall']:.1f}×")
        row.append("; ".join(sorted(checks)))
        rows.append("| " + " | ".join(row) + " |")
        print(rows[-1], flush=True)
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--lines", type=int, nargs="+", default=None,
                        help="instead of --queries: run sizes in lines (multiples of 1000), e.g. 100000000 "
                             "(written to --data-dir in chunks; cranfield reads a run over 1 GiB block-wise)")
    parser.add_argument("--data-dir", type=Path, default=make_data.DATA_DIR,
                        help="where the data are generated (default %(default)s); delete large ones afterwards")
    parser.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    parser.add_argument("--threads", type=int, nargs="+", default=[2], help="cranfield thread counts to time")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-output", action="store_true", help="print only, do not write the report")
    parser.add_argument("--cores", type=int, default=None, help="confine everything to the first N cores")
    parser.add_argument("--scaling", type=int, nargs="+", default=None, metavar="T",
                        help="instead: the cores curve of cranfield at --queries[0] with these thread counts")
    parser.add_argument("--doc", type=Path, default=DOC, help=f"report file (default {DOC.relative_to(ROOT)})")
    args = parser.parse_args(argv)
    if args.lines:
        args.queries = [max(1, n // 1000) for n in args.lines]
    if args.cores is not None:
        os.sched_setaffinity(0, _first_cores(args.cores))
    binary = build_trec_eval()
    ensure_bytecode("numpy", "pyarrow")  # as installed: no per-start compile (see _machine)
    command = "python benchmarks/bench_trec_eval.py " + " ".join(argv if argv is not None else sys.argv[1:])
    if args.scaling:
        rows = scaling(args.queries[0], args.scaling, args.repeat, binary)
        text = "\n".join([f"# cranfield trec_eval: threads and cores ({args.queries[0] * 1000:,} run lines)", "",
                          f"`{command.strip()}` — {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {cpu()}, "
                          f"{len(os.sched_getaffinity(0))} cores; Python {platform.python_version()}, "
                          f"numpy {version('numpy')}, pyarrow {version('pyarrow')}.", "",
                          "cranfield with T threads confined to T cores (`CRANFIELD_THREADS` = `OMP_NUM_THREADS` = T), "
                          "trec_eval 9.0.8 -O3 on one core; best wall time of "
                          f"{args.repeat}. Speed-up = cranfield's wall time on {args.scaling[0]} core(s) ÷ on T cores.",
                          "", *rows]) + "\n"
        print(text)
        if not args.no_output:
            args.doc.write_text(text)
        return
    load = os.getloadavg()[0]
    results = {}
    for queries in args.queries:
        for case in args.cases:
            results[(queries, case)] = bench(queries, case, args.threads, args.repeat, binary, args.data_dir)
            print("\n".join(table({(queries, case): results[(queries, case)]}, args.threads)[2:]), flush=True)
    starts = startup(args.repeat)
    lines = ["# cranfield trec_eval vs trec_eval 9.0.8 (-O3)", "",
             f"`{command.strip()}` — {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {cpu()}, "
             f"{len(os.sched_getaffinity(0))} cores, load {load:.1f} at the start; Python {platform.python_version()}, "
             f"numpy {version('numpy')}, pyarrow {version('pyarrow')}.", "",
             "Each tool a fresh process, alternating, best wall time of "
             f"{args.repeat} (with that run's user + system CPU seconds and peak RSS). Ratio = trec_eval ÷ "
             "cranfield wall time. `load`: the 1-minute load average when the case started (2 cores: "
             "above 2, the tools wait for a core and wall times grow). Data: `benchmarks/make_data.py` "
             "(N queries × 1000 lines, graded judgments, "
             "20 % of queries with tied scores). `output`: cranfield's stdout compared byte for byte with "
             "trec_eval's.", "", *table(results, args.threads), "",
             "Start-up (best of 5 or more): " + "; ".join(f"{name}: {r['wall']:.2f} s, {r['rss'] / 1e6:.0f} MB"
                                                                for name, r in starts.items()) + "."]
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_output:
        args.doc.write_text(text)
        print(f"wrote {args.doc}")


if __name__ == "__main__":
    main()
