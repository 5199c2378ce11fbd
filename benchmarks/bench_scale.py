"""Scale benchmark: a very large run on one machine, and runs of 10M-100M lines on a Dask LocalCluster.

    python benchmarks/bench_scale.py --data-dir /tmp/scale --single 50000 --dask 10000 50000 100000

* ``--single N``: writes a TREC text run of N queries x 1000 lines (and its qrels), then times
  ``cranfield evaluate --low-memory`` on it under ``/usr/bin/time -v`` (wall time, peak resident
  memory of the whole process).
* ``--dask N...``: writes each run as a Parquet dataset (one file per 1000 queries: 1M rows, a
  partition holding whole queries), then evaluates it with ``cranfield.dask.evaluate`` on a
  LocalCluster of 2 worker processes (1 thread each), and records the time and the peak resident
  memory of each worker (``ru_maxrss``, read from the workers after the run; each size gets a
  fresh cluster). The results are checked against the in-memory path up to 10M lines.

Data come from ``make_data.generate`` in chunks of 1000 queries (query ids renumbered), so that
generating 100M lines never holds more than one chunk. The text run of 100M lines (3.7 GB) is not
written: the Dask runs are generated as Parquet directly. Results go to docs/benchmarks/scale.md.
Delete the data directory afterwards (the 50M text run is 1.9 GB).
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_data  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CHUNK = 1000  # queries per generated chunk (1M run lines)
MEASURES = ["AP", "nDCG@10", "P@10", "R@1000", "RR", "RPrec"]


def _chunks(n_queries: int):
    """(qrels table, run table) per chunk of CHUNK queries, query ids renumbered 1..n_queries."""
    for start in range(0, n_queries, CHUNK):
        size = min(CHUNK, n_queries - start)
        qrels, run = make_data.generate(size, seed=start // CHUNK)
        for columns in (qrels, run):
            number = pc.add(pc.cast(columns["qid"], pa.int64()), start)
            columns["qid"] = pc.cast(number, pa.string())
        yield pa.table(qrels), pa.table(run)


def write_text(n_queries: int, data_dir: Path) -> tuple[Path, Path]:
    qrels_path, run_path = data_dir / f"qrels_{n_queries}.txt", data_dir / f"run_{n_queries}.txt"
    if qrels_path.exists() and run_path.exists():
        return qrels_path, run_path
    options = pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    with open(qrels_path.with_suffix(".tmp"), "wb") as qf, open(run_path.with_suffix(".tmp"), "wb") as rf:
        for qrels, run in _chunks(n_queries):
            pacsv.write_csv(qrels, qf, write_options=options)
            pacsv.write_csv(run, rf, write_options=options)
    qrels_path.with_suffix(".tmp").replace(qrels_path)
    run_path.with_suffix(".tmp").replace(run_path)
    return qrels_path, run_path


def write_parquet(n_queries: int, data_dir: Path) -> tuple[Path, Path]:
    """A Parquet dataset (one file per chunk) and the qrels as one Parquet file."""
    qrels_path, run_dir = data_dir / f"qrels_{n_queries}.parquet", data_dir / f"run_{n_queries}.parquet.d"
    if qrels_path.exists() and run_dir.exists():
        return qrels_path, run_dir
    run_dir.mkdir(parents=True, exist_ok=True)
    qrels_parts = []
    for i, (qrels, run) in enumerate(_chunks(n_queries)):
        run = run.select(["qid", "docno", "score"]).set_column(2, "score", pc.cast(run["score"], pa.float64()))
        pq.write_table(run, run_dir / f"part-{i:05d}.parquet", compression="zstd")
        qrels_parts.append(qrels.select(["qid", "docno", "rel"]).set_column(2, "rel", pc.cast(qrels["rel"], pa.int64())))
    pq.write_table(pa.concat_tables(qrels_parts), qrels_path)
    return qrels_path, run_dir


def bench_single(n_queries: int, data_dir: Path) -> dict:
    qrels_path, run_path = write_text(n_queries, data_dir)
    lines = n_queries * make_data.DEPTH
    command = ["/usr/bin/time", "-v", sys.executable, "-m", "cranfield", "evaluate", str(qrels_path), str(run_path),
               "--low-memory", *sum((["-m", m] for m in MEASURES), []), "-f", "json"]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", done.stderr)
    hours, minutes, seconds = (float(g) if g else 0.0 for g in wall.groups())
    peak_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr).group(1))
    return {"lines": lines, "size_gb": run_path.stat().st_size / 1e9, "seconds": hours * 3600 + minutes * 60 + seconds,
            "peak_gb": peak_kb / 1e6, "command": " ".join(command[2:]).replace(sys.executable, "python")}


def bench_dask(n_queries: int, data_dir: Path, check: bool) -> dict:
    import logging

    import distributed

    import cranfield
    import cranfield.dask

    qrels_path, run_dir = write_parquet(n_queries, data_dir)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  silence_logs=logging.ERROR) as cluster, distributed.Client(cluster) as client:
        start = time.perf_counter()
        results = cranfield.dask.evaluate(str(qrels_path), str(run_dir), MEASURES, partitioned="auto")
        seconds = time.perf_counter() - start
        peaks = client.run(_peak_rss_gb)
    agree = None
    if check:
        expected = cranfield.evaluate(str(qrels_path), str(run_dir), MEASURES)
        agree = expected.mean == results.mean and all(np.array_equal(expected.per_query[m], results.per_query[m])
                                                      for m in expected.per_query)
    return {"lines": n_queries * make_data.DEPTH, "queries": n_queries, "seconds": seconds,
            "worker_peak_gb": sorted(peaks.values()), "parquet_gb": _size(run_dir) / 1e9, "identical": agree,
            "partitions": len(list(run_dir.glob("*.parquet")))}


def _peak_rss_gb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6


def _size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def render(single: list[dict], dask: list[dict]) -> str:
    load = os.getloadavg()
    out = ["# Scale benchmark", "",
           f"Machine: {platform.machine()}, {os.cpu_count()} cores (shared; load average {load[0]:.1f} at the end), "
           f"Python {platform.python_version()}. Produced by `benchmarks/bench_scale.py`; data from "
           "`benchmarks/make_data.py` (1000 lines per query, graded judgments, 20 % of queries with tied scores).",
           f"Measures: {', '.join(MEASURES)}.", ""]
    if single:
        out += ["## One machine, block-wise (`cranfield evaluate --low-memory`)", "",
                "| run lines | text size | wall time | peak memory (whole process) |", "|---:|---:|---:|---:|"]
        out += [f"| {r['lines'] / 1e6:.0f}M | {r['size_gb']:.2f} GB | {r['seconds']:.1f} s | {r['peak_gb']:.2f} GB |"
                for r in single]
        out += ["", "Command (under `/usr/bin/time -v`): `" + single[0]["command"] + "`", ""]
    if dask:
        out += ["## Dask LocalCluster (2 worker processes × 1 thread), `cranfield.dask.evaluate`", "",
                "Runs as Parquet datasets, one file of 1000 queries (1M lines) per partition, qrels broadcast.", "",
                "| run lines | partitions | Parquet size | wall time | s per 10M lines | peak memory per worker | "
                "identical to in-memory |", "|---:|---:|---:|---:|---:|---:|:---|"]
        for r in dask:
            per = r["seconds"] / r["lines"] * 1e7
            peaks = " / ".join(f"{p:.2f} GB" for p in r["worker_peak_gb"])
            same = {True: "yes", False: "NO", None: "not checked"}[r["identical"]]
            out.append(f"| {r['lines'] / 1e6:.0f}M | {r['partitions']} | {r['parquet_gb']:.2f} GB | {r['seconds']:.1f} s "
                       f"| {per:.1f} s | {peaks} | {same} |")
        if len(dask) > 1:
            x = np.array([r["lines"] for r in dask], dtype=float)
            y = np.array([r["seconds"] for r in dask])
            slope, intercept = np.polyfit(x, y, 1)
            out += ["", f"Time grows linearly: least-squares fit t ≈ {intercept:.1f} s + {slope * 1e7:.2f} s per 10M "
                    f"lines (ratio of times {dask[-1]['seconds'] / dask[0]['seconds']:.1f} for "
                    f"{dask[-1]['lines'] / dask[0]['lines']:.0f}× the lines)."]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=Path("/tmp/cranfield-scale"))
    parser.add_argument("--single", type=int, nargs="*", default=[50000], help="queries of the one-machine runs")
    parser.add_argument("--dask", type=int, nargs="*", default=[10000, 50000, 100000], help="queries of the Dask runs")
    parser.add_argument("--output", type=Path, default=ROOT / "docs" / "benchmarks" / "scale.md")
    args = parser.parse_args(argv)
    args.data_dir.mkdir(parents=True, exist_ok=True)
    single = []
    for n in args.single:
        single.append(bench_single(n, args.data_dir))
        print(single[-1], flush=True)
    dask = []
    for n in args.dask:
        dask.append(bench_dask(n, args.data_dir, check=n <= 10000))
        print(dask[-1], flush=True)
    text = render(single, dask)
    from cranfield.io.atomic import atomic_write

    args.output.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(args.output) as handle:
        handle.write(text)
    print(text)


if __name__ == "__main__":
    main()
