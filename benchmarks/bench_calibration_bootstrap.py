"""Calibration bootstrap: the vectorised path against one statistic per resample (the old loop).

    python benchmarks/bench_calibration_bootstrap.py                  # 5,000 rows x 10,000 resamples
    python benchmarks/bench_calibration_bootstrap.py --resamples 1000 # quick
    python benchmarks/bench_calibration_bootstrap.py --cli            # also `cranfield calibration --bootstrap`

Times (wall and CPU, best of ``--repeat``, same process) ``calibration_bootstrap`` for ECE
(10 uniform bins) and the calibration slope, vectorised and as the old per-resample loop (the
loop is timed on ``--loop-resamples`` resamples and scaled up: it is linear in the resamples),
and prints the largest relative difference of the interval ends. Prints a Markdown table;
writes nothing.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from _machine import cpu as _cpu
from _machine import version as _version

from cranfield.classification import calibration as cal


def _timed(fn, repeat: int):
    best = (float("inf"), float("inf"), None)
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        result = fn()
        best = min(best, (time.perf_counter() - wall, time.process_time() - cpu, result), key=lambda t: t[0])
    return best


def _loop(y, p, statistic, resamples, options):
    vectorised = cal._vectorised
    cal._vectorised = lambda *args, **kwargs: None  # the old path: one statistic per resample
    try:
        return cal.calibration_bootstrap(y, p, statistic=statistic, n_resamples=resamples, **options)
    finally:
        cal._vectorised = vectorised


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--loop-resamples", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--cli", action="store_true", help="also time the command end to end")
    args = parser.parse_args(argv)

    rng = np.random.default_rng(0)
    p = rng.random(args.rows)
    y = (rng.random(args.rows) < p).astype(int)
    print(f"{args.rows} rows, {args.resamples} resamples; {_cpu()}; numpy {_version('numpy')}\n")
    print("| statistic | vectorised wall s | vectorised CPU s | loop wall s (scaled) | ratio | max rel. diff |")
    print("|---|---|---|---|---|---|")
    for statistic, options in (("ece", {"n_bins": 10}), ("slope", {})):
        def fast(statistic=statistic, options=options):
            return cal.calibration_bootstrap(y, p, statistic=statistic, n_resamples=args.resamples, **options)

        def slow(statistic=statistic, options=options):
            return _loop(y, p, statistic, args.loop_resamples, options)

        wall, cpu, _ = _timed(fast, args.repeat)
        loop_wall, _, _ = _timed(slow, 1)
        scaled = loop_wall * args.resamples / args.loop_resamples
        small = cal.calibration_bootstrap(y, p, statistic=statistic, n_resamples=args.loop_resamples, **options)
        old = _loop(y, p, statistic, args.loop_resamples, options)
        diff = max(abs(small.low - old.low) / abs(old.low), abs(small.high - old.high) / abs(old.high))
        print(f"| {statistic} | {wall:.2f} | {cpu:.2f} | {scaled:.1f} | {scaled / wall:.0f}x | {diff:.1e} |")
    if args.cli:
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "preds.csv")
            np.savetxt(path, np.column_stack([y, p]), delimiter=",", header="y,prob", comments="", fmt=["%d", "%.17g"])
            command = [sys.executable, "-m", "cranfield", "calibration", path, "--truth", "y", "--score", "prob",
                       "--bootstrap", str(args.resamples), "-f", "json"]
            start = time.perf_counter()
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
            print(f"\n`cranfield calibration --bootstrap {args.resamples}` on {args.rows} rows: "
                  f"{time.perf_counter() - start:.2f} s wall (fresh process)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
