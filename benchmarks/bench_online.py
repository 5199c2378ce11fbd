"""Online evaluation at scale: read a click log, compute every metric, run an A/B test (issue 15).

    python benchmarks/bench_online.py                      # 10M rows (Parquet and CSV)
    python benchmarks/bench_online.py --rows 1000000 --no-csv

A log of ``--rows`` rows (about 10 results per impression, 20 impressions per user, users
randomised into two variants, dwell and timestamps) is generated with numpy, written once as
Parquet (and CSV), then each step is timed in this process, best of ``--repeat``:

* ``read parquet`` / ``read csv``: :func:`cranfield.online.read_click_log` — the whole grammar
  (ids coded, types checked, one variant per impression and session, no duplicate or missing rank,
  timestamps consistent, rows sorted);
* ``metrics``: :func:`cranfield.online.impression_metrics` with all eight metrics;
* ``summarize``: per variant with delta-method intervals clustered by user;
* ``ab test``: the sample-ratio check and the delta-method test of each metric, unit user.

Peak memory is the process's peak resident set (``VmHWM``) after each step, minus the one
before the first read (generation and writing excluded: they free their arrays first).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "src"))
from _machine import cpu, version  # noqa: E402

METRICS = ["ctr", "ctr@3", "abandonment", "rr", "clicks", "sat_clicks", "ttfc", "skips"]


def peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def reset_peak() -> None:
    try:
        Path("/proc/self/clear_refs").write_text("5")  # resets VmHWM to the current resident set
    except OSError:
        pass


def make_log(rows: int, seed: int = 0):
    """A pyarrow Table of about ``rows`` rows (a whole number of impressions)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    rng = np.random.default_rng(seed)
    n_imp = max(1, rows // 10)
    depth = np.full(n_imp, 10, dtype=np.int64)
    depth[: rows - 10 * n_imp] += 1
    n_users = max(2, n_imp // 20)
    imp_user = rng.integers(0, n_users, n_imp)
    user_variant = rng.integers(0, 2, n_users)
    imp_variant = user_variant[imp_user]
    imp_session = imp_user * 4 + rng.integers(0, 4, n_imp)
    n = int(depth.sum())
    row_imp = np.repeat(np.arange(n_imp), depth)
    rank = np.arange(n) - np.repeat(np.cumsum(depth) - depth, depth) + 1
    clicked = rng.random(n) < np.clip(0.4 / rank + 0.02 * imp_variant[row_imp], 0, 1)
    dwell = np.where(clicked, np.round(rng.exponential(40, n), 1), np.nan)
    shown = np.repeat(np.round(rng.uniform(0, 86_400, n_imp), 3), depth)
    timestamp = np.where(clicked, shown + np.round(rng.exponential(5, n), 3), shown)

    def ids(prefix, codes):
        return pc.binary_join_element_wise(prefix, pa.array(codes).cast(pa.string()), "")

    table = pa.table({
        "impression": ids("i", row_imp), "query": ids("q", rng.integers(0, 100_000, n_imp)[row_imp]),
        "rank": rank, "doc": ids("d", rng.integers(0, 2_000_000, n)), "clicked": clicked, "dwell": dwell,
        "timestamp": timestamp, "variant": pa.array(np.array(["A", "B"])[imp_variant[row_imp]]),
        "user": ids("u", imp_user[row_imp]), "session": ids("s", imp_session[row_imp]),
    })
    return table


def timed(label, fn, repeat, results):
    """Best wall time of ``repeat`` runs, with the CPU time of that run (all threads): on a shared
    machine the CPU time says what the work costs, the wall time what waiting for it cost."""
    best, cpu_time, value = float("inf"), float("nan"), None
    for _ in range(repeat):
        value = None
        gc.collect()
        start, start_cpu = time.perf_counter(), time.process_time()
        value = fn()
        wall = time.perf_counter() - start
        if wall < best:
            best, cpu_time = wall, time.process_time() - start_cpu
    results.append((label, best, peak_rss_mb()))
    print(f"{label:<16} {best:8.2f} s wall {cpu_time:8.2f} s CPU   peak RSS {peak_rss_mb():8.0f} MB", flush=True)
    return value


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--no-csv", action="store_true", help="skip writing and reading the CSV file")
    parser.add_argument("--dir", default=None, help="where to write the data (default: a temporary folder)")
    args = parser.parse_args(argv)

    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    from cranfield.online import ab_test, impression_metrics, read_click_log, summarize

    folder = Path(args.dir or tempfile.mkdtemp(prefix="cranfield-online-"))
    folder.mkdir(parents=True, exist_ok=True)
    table = make_log(args.rows)
    parquet, csv_path = folder / "clicks.parquet", folder / "clicks.csv"
    pq.write_table(table, parquet)
    if not args.no_csv:
        pcsv.write_csv(table, csv_path)
    n_rows = table.num_rows
    del table
    gc.collect()
    print(f"cranfield online benchmark: {n_rows:,} rows; {cpu()}, {os.cpu_count()} CPUs; numpy {version('numpy')}, "
          f"pyarrow {version('pyarrow')}; Parquet {parquet.stat().st_size / 2**20:.0f} MB"
          + ("" if args.no_csv else f", CSV {csv_path.stat().st_size / 2**20:.0f} MB"))
    small = make_log(2000, seed=1)  # warm-up: imports (scipy, Arrow's readers) are not timed
    ab_test(impression_metrics(read_click_log(small), metrics=METRICS), unit="user")
    del small
    gc.collect()
    reset_peak()
    base = peak_rss_mb()
    print(f"resident before reading: {base:.0f} MB")
    results = []
    if not args.no_csv:
        log = timed("read csv", lambda: read_click_log(str(csv_path)), args.repeat, results)
        del log
        gc.collect()
    log = timed("read parquet", lambda: read_click_log(str(parquet)), args.repeat, results)
    stats = timed("metrics (8)", lambda: impression_metrics(log, metrics=METRICS), args.repeat, results)
    timed("summarize", lambda: summarize(stats, by="variant", unit="user"), args.repeat, results)
    result = timed("ab test", lambda: ab_test(stats, unit="user"), args.repeat, results)
    print(f"{log.n_impressions:,} impressions, {len(log.user_ids):,} users; SRM p = {result.srm.p_value:.3g}; "
          f"ctr lift {result.tests[0].lift:+.5f} [{result.tests[0].lift_low:+.5f}, {result.tests[0].lift_high:+.5f}]")
    total = sum(t for label, t, _ in results if label != "read csv")
    print(f"Parquet read + metrics + summary + A/B: {total:.2f} s; peak RSS above the start "
          f"{max(p for _, _, p in results) - base:.0f} MB ({(max(p for _, _, p in results) - base) * 2**20 / n_rows:.0f} "
          f"bytes per row)")


if __name__ == "__main__":
    main()
