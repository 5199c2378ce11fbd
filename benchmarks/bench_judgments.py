"""Judgments benchmark: crowd labels → qrels (read, majority, Dawid–Skene, mean, median) and
assessor agreement on large synthetic data, with crowd-kit's DawidSkene as the peer.

    .venv/bin/python benchmarks/bench_judgments.py                    # 1M labels, 2 x 1M judgments
    .venv/bin/python benchmarks/bench_judgments.py --labels 100000 --no-peer   # quick

Labels: ``--labels`` rows, 5 per (query, document) pair, 1000 workers of accuracy 0.3–0.95, 5
grades, written as CSV to a temporary folder and read back with ``cranfield.io.labels.read_labels``.
Dawid–Skene is timed to convergence (cranfield's rule), and crowd-kit's ``DawidSkene`` to its
own; the posteriors of the two after the same number of iterations are compared. Agreement: two
qrels of ``--pairs`` pairs over 10 000 queries (70% identical labels), every statistic with and
without 1000 bootstrap resamples. Prints a Markdown table (best of ``--repeat``).
"""

from __future__ import annotations

from _machine import best_of
from _machine import cpu as _cpu
from _machine import version as _version

import argparse
import tempfile
from pathlib import Path

import numpy as np


def make_labels(n_labels: int, folder: Path, seed: int = 0) -> Path:
    import pyarrow as pa
    import pyarrow.csv as csv

    rng = np.random.default_rng(seed)
    per, workers, k = 5, 1000, 5
    pairs = n_labels // per
    truth = rng.integers(0, k, pairs)
    skill = rng.uniform(0.3, 0.95, workers)
    start = rng.integers(0, workers, pairs)[:, None]
    step = rng.integers(1, workers // per, pairs)[:, None]
    who = (start + step * np.arange(per)) % workers  # 5 distinct workers per pair
    right = rng.random((pairs, per)) < skill[who]
    label = np.where(right, truth[:, None], rng.integers(0, k, (pairs, per)))
    pair = np.repeat(np.arange(pairs), per)
    table = pa.table({"query": pa.array((pair % 500).astype(str)), "document": pa.array(pair.astype(str)),
                      "worker": pa.array(np.char.add("w", who.ravel().astype(str))), "label": label.ravel()})
    path = folder / "labels.csv"
    csv.write_csv(table, path)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labels", type=int, default=1_000_000)
    parser.add_argument("--pairs", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--no-peer", action="store_true", help="Skip crowd-kit.")
    args = parser.parse_args(argv)

    import pyarrow as pa

    import cranfield
    from cranfield.io.labels import read_labels
    from cranfield.judgments import aggregate_labels, assessor_agreement

    rows = []
    with tempfile.TemporaryDirectory() as folder:
        path = make_labels(args.labels, Path(folder))
        seconds, labels = best_of(lambda: read_labels(str(path)), args.repeat)
        rows.append((f"read_labels, CSV of {args.labels:,} labels", seconds, ""))
    for method in ("majority", "dawid-skene", "mean", "median"):
        seconds, result = best_of(lambda: aggregate_labels(labels, method=method), args.repeat)
        note = f"{result.n_iter} iterations" if method == "dawid-skene" else ""
        rows.append((f"aggregate_labels {method}", seconds, note))
        if method == "dawid-skene":
            ours = result
    if not args.no_peer:
        from crowdkit.aggregation import DawidSkene
        import warnings

        frame = labels.to_arrow().to_pandas()
        frame["task"] = frame["query"] + "|" + frame["document"]
        data = frame[["task", "worker", "label"]]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            seconds, model = best_of(lambda: DawidSkene().fit(data), args.repeat)
        steps = len(model.loss_history_)
        same = aggregate_labels(labels, method="dawid-skene", max_iter=steps, tol=None)
        tasks = [f"{q}|{d}" for q, d in zip(same.query, same.document)]
        reference = model.probas_.loc[tasks][sorted(model.probas_.columns)].to_numpy()
        difference = float(np.abs(reference - same.posteriors).max())
        agree = float((model.labels_.loc[tasks].to_numpy() == ours.label).mean())
        rows.append((f"crowd-kit {_version('crowd-kit')} DawidSkene", seconds,
                     f"{steps} iterations; after {steps} iterations max |posterior difference| {difference:.1e}; "
                     f"converged labels equal on {agree:.2%} of pairs"))
    rng = np.random.default_rng(1)
    n = args.pairs
    queries = pa.array(rng.integers(0, 10_000, n).astype(str))
    documents = pa.array(np.arange(n).astype(str))
    a = rng.integers(0, 4, n)
    b = np.where(rng.random(n) < 0.7, a, rng.integers(0, 4, n))
    qrels = [cranfield.Qrels(queries, documents, a, source="A"), cranfield.Qrels(queries, documents, b, source="B")]
    for resamples in (0, 1000):
        seconds, result = best_of(lambda: assessor_agreement(qrels, names=["A", "B"], n_resamples=resamples),
                                  args.repeat)
        rows.append((f"assessor_agreement, 2 x {n:,} judgments, {resamples} resamples", seconds,
                     f"kappa {result.figure('cohen_kappa').overall:.4f}"))
    print(f"Machine: {_cpu()}; numpy {_version('numpy')}, pyarrow {_version('pyarrow')}\n")
    print("| task | seconds | notes |\n|---|---|---|")
    for name, seconds, note in rows:
        print(f"| {name} | {seconds:.2f} | {note} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
