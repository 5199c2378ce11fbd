"""Statistics benchmark: compare many systems on many queries with a randomization test.

    .venv/bin/python benchmarks/bench_stats.py                # the issue's case, writes the doc
    .venv/bin/python benchmarks/bench_stats.py --queries 1000 --no-write   # quick

The case from issue 5: 10 systems x 10 000 queries x 5 measures, all 45 pairs per measure
(225 tests), Fisher's randomization test with 10 000 permutations, Holm correction, CIs for
every mean and difference. ``cranfield.compare_values`` is timed end to end (best of
``--repeat`` runs, in this process, after one warm-up call that also loads scipy). For scale,
the same randomization test is timed on ``--peer-pairs`` pairs with the peers and extrapolated
to all 225 tests (linear in the number of tests): ``scipy.stats.permutation_test``
(vectorised, one pair per call) and ranx's ``fisher_randomization_test`` (numba, one pair per
call; its first call compiles, and is excluded). The peers' p-values are checked to agree with
cranfield's within Monte Carlo error. Writes ``docs/benchmarks/stats.md``.
"""

from __future__ import annotations

from _machine import best_of
from _machine import cpu as _cpu
from _machine import version as _version

import argparse
import os
import platform
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "benchmarks" / "stats.md"
MEASURES = ["AP", "nDCG@10", "P@10", "RR", "R@100"]


def make_values(n_systems: int, n_queries: int, n_measures: int, seed: int = 0) -> dict:
    """Per-query values with query difficulty shared by all systems and small system effects."""
    rng = np.random.default_rng(seed)
    qids = np.array([f"q{i}" for i in range(n_queries)])
    values = {}
    difficulty = rng.beta(2, 3, (n_measures, n_queries))
    for s in range(n_systems):
        effect = 0.004 * s
        values[f"sys{s:02d}"] = {
            MEASURES[m % len(MEASURES)] + ("" if m < len(MEASURES) else f"_{m}"):
            (qids, np.clip(difficulty[m] + effect + rng.normal(0, 0.15, n_queries), 0, 1).round(4))
            for m in range(n_measures)}
    return values






def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=10)
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--measures", type=int, default=5)
    parser.add_argument("--permutations", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--peer-pairs", type=int, default=2, help="pairs timed with each peer (0: no peers)")
    parser.add_argument("--no-write", action="store_true", help="print only; do not write docs/benchmarks/stats.md")
    args = parser.parse_args(argv)

    import cranfield
    from cranfield.stats import compare_values

    values = make_values(args.systems, args.queries, args.measures)
    n_tests = args.measures * args.systems * (args.systems - 1) // 2
    case = (f"{args.systems} systems x {args.queries} queries x {args.measures} measures, all pairs "
            f"({n_tests} tests), {args.permutations} permutations")
    print(case, flush=True)

    compare_values(make_values(3, 50, 1), test="randomization", n_permutations=100)  # warm-up: imports
    rows = []
    results = {}
    for test, label in [("randomization", f"randomization test, {args.permutations} permutations"),
                        ("t", "paired t test"),
                        ("bootstrap", f"paired bootstrap test, {args.permutations} resamples")]:
        seconds, comparison = best_of(lambda: compare_values(values, test=test, correction="holm",
                                                             n_permutations=args.permutations), args.repeat)
        results[test] = comparison
        rows.append((f"cranfield.compare_values ({label}, Holm, CIs)", n_tests, seconds, seconds))
        print(f"  cranfield {test:>13}: {seconds:8.3f} s", flush=True)

    checks = []
    if args.peer_pairs > 0:
        from scipy import stats

        ours = results["randomization"]
        measure = ours.measures[0]
        pairs = [p for p in ours.pairs if p.measure == measure][: args.peer_pairs]
        diffs = [ours.differences(measure, p.a, p.b) for p in pairs]

        def run_scipy():
            return [stats.permutation_test((d,), np.mean, permutation_type="samples", vectorized=True,
                                           n_resamples=args.permutations, rng=1).pvalue for d in diffs]

        seconds, scipy_p = best_of(run_scipy, 1)
        rows.append(("scipy.stats.permutation_test (one pair per call)", len(pairs), seconds, seconds / len(pairs) * n_tests))
        print(f"  scipy: {seconds:.3f} s for {len(pairs)} pairs", flush=True)
        checks.append(("scipy", scipy_p))
        try:
            from ranx.statistical_tests import fisher_randomization_test
        except ImportError:
            fisher_randomization_test = None
        if fisher_randomization_test is not None:
            mats = [ours.values(measure)[[ours.systems.index(p.a), ours.systems.index(p.b)]] for p in pairs]
            fisher_randomization_test(mats[0][0][:10].copy(), mats[0][1][:10].copy(), 10, 0.05, 42)  # compile

            def run_ranx():
                return [fisher_randomization_test(m[0].copy(), m[1].copy(), args.permutations, 0.05, 42)[0] for m in mats]

            seconds, ranx_p = best_of(run_ranx, 1)
            rows.append(("ranx fisher_randomization_test (numba, one pair per call)", len(pairs), seconds, seconds / len(pairs) * n_tests))
            print(f"  ranx: {seconds:.3f} s for {len(pairs)} pairs", flush=True)
            checks.append(("ranx", ranx_p))
        b = args.permutations
        for name, peer_p in checks:
            for p, q in zip(pairs, peer_p):
                se = np.sqrt(max(p.p_value * (1 - p.p_value), 1 / b) / b)
                ok = abs(p.p_value - q) <= 5 * np.sqrt(2) * se + 2 / b
                print(f"  p {p.a} vs {p.b}: cranfield {p.p_value:.4f}, {name} {q:.4f} {'ok' if ok else 'DISAGREE'}")
                if not ok:
                    print("error: p-values disagree beyond Monte Carlo error", file=sys.stderr)
                    return 1

    cranfield_s = rows[0][3]
    lines = [
        "# Statistics benchmark",
        "",
        f"Case (issue 5): {case}; Holm correction; normal CIs for every mean and difference.",
        "",
        "Command:",
        "",
        "```",
        " ".join([".venv/bin/python benchmarks/bench_stats.py", *(argv if argv is not None else sys.argv[1:])]),
        "```",
        "",
        f"Machine: {_cpu()}, {os.cpu_count()} CPUs visible (shared with other work while measured), "
        f"{platform.system()} {platform.release()}, Python {platform.python_version()}, numpy {np.__version__}, "
        f"scipy {_version('scipy')}, ranx {_version('ranx')}, cranfield {cranfield.__version__}.",
        "",
        "| what | tests timed | seconds | seconds for all tests (extrapolated for peers) | vs cranfield randomization |",
        "|---|---:|---:|---:|---:|",
    ]
    for what, n, seconds, total in rows:
        lines.append(f"| {what} | {n} | {seconds:.3f} | {total:.2f} | {total / cranfield_s:.1f}x |")
    lines += [
        "",
        "cranfield times are the best of "
        f"{args.repeat} in-process runs of `compare_values` (alignment by query id, the tests, Holm, CIs, "
        "effect sizes). All tests share one matrix of random sign flips per chunk, so the 225 tests are "
        "one matrix product per chunk of permutations. Peers are timed on a few pairs of the first "
        "measure and extrapolated linearly to all tests; their p-values agreed with cranfield's within "
        "Monte Carlo error (checked by the script)." if checks else "Peers were not run.",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        DOC.parent.mkdir(parents=True, exist_ok=True)
        from cranfield.io.atomic import atomic_write

        with atomic_write(DOC) as handle:
            handle.write(text)
        print(f"wrote {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
