"""Clustering, calibration and bias–variance against their references: time and agreement.

    .venv/bin/python benchmarks/bench_ml.py               # silhouette on 20 000 points, ...
    .venv/bin/python benchmarks/bench_ml.py --points 5000 # quick

Times (best of ``--repeat``, same process, after a warm-up) cranfield and scikit-learn /
mlxtend on the same inputs and prints the largest absolute difference of their results.
Prints a Markdown table; writes nothing.
"""

from __future__ import annotations

from _machine import best_of
from _machine import cpu as _cpu
from _machine import version as _version

import argparse

import numpy as np


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=20_000, help="samples for the silhouette")
    parser.add_argument("--labels", type=int, default=1_000_000, help="samples for the external scores")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args(argv)

    import sklearn.metrics as skm
    from sklearn.calibration import calibration_curve as sk_curve

    from cranfield.classification import calibration as cal
    from cranfield.classification import clustering as cl

    rng = np.random.default_rng(0)
    X = rng.normal(size=(args.points, 10))
    km = rng.integers(0, 8, args.points)
    t, p = rng.integers(0, 50, args.labels), rng.integers(0, 50, args.labels)
    y = rng.integers(0, 2, args.labels)
    prob = rng.random(args.labels)
    cases = [
        (f"silhouette_samples, {args.points} × 10, 8 clusters", lambda: cl.silhouette_samples(X, km),
         lambda: skm.silhouette_samples(X, km)),
        (f"davies_bouldin_score, {args.points} × 10", lambda: cl.davies_bouldin_score(X, km),
         lambda: skm.davies_bouldin_score(X, km)),
        (f"calinski_harabasz_score, {args.points} × 10", lambda: cl.calinski_harabasz_score(X, km),
         lambda: skm.calinski_harabasz_score(X, km)),
        (f"adjusted_rand_score, {args.labels} labels, 50 × 50", lambda: cl.adjusted_rand_score(t, p),
         lambda: skm.adjusted_rand_score(t, p)),
        (f"v_measure_score, {args.labels} labels, 50 × 50", lambda: cl.v_measure_score(t, p),
         lambda: skm.v_measure_score(t, p)),
        (f"adjusted_mutual_info_score, {args.labels} labels, 50 × 50", lambda: cl.adjusted_mutual_info_score(t, p),
         lambda: skm.adjusted_mutual_info_score(t, p)),
        (f"calibration_curve (quantile, 10 bins), {args.labels} samples",
         lambda: np.concatenate(cal.calibration_curve(y, prob, n_bins=10, strategy="quantile")),
         lambda: np.concatenate(sk_curve(y, prob, n_bins=10, strategy="quantile"))),
    ]
    print(f"{_cpu()}; scikit-learn {_version('scikit-learn')}, numpy {_version('numpy')}\n")
    print("| case | cranfield s | reference s | max abs difference |")
    print("|---|---:|---:|---:|")
    for name, ours, theirs in cases:
        ours()
        t_ours, a = best_of(ours, args.repeat)
        t_theirs, b = best_of(theirs, args.repeat)
        diff = float(np.max(np.abs(np.asarray(a, dtype=float) - np.asarray(b, dtype=float))))
        print(f"| {name} | {t_ours:.3f} | {t_theirs:.3f} | {diff:.3g} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
