"""Fuzz cranfield's parsers and readers for a bounded time (the CI job of issue 9).

    python scripts/fuzz.py --seconds 60 [--target trec_run] [--seed 1]

Runs every target of tests/fuzz/fuzz_targets.py in turn, in batches of hypothesis examples with
fresh random seeds, until the time is spent. Any input must give a result or a CranfieldError:
another exception prints the (shrunk) input and the traceback and exits with status 1.
Prints the number of examples per target. A crash found becomes a case of
tests/reliability/corpus (and is fixed).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "fuzz"))

from hypothesis import HealthCheck, given, seed, settings  # noqa: E402

from fuzz_targets import TARGETS, check  # noqa: E402

BATCH = 200


def _runner(target, deadline: float, counts: dict):
    def run(value):
        if time.monotonic() >= deadline:
            return  # time is up: let hypothesis finish the batch at once
        counts[target.name] += 1
        check(target, value)

    return run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="time budget (default 60)")
    parser.add_argument("--target", action="append", help="only this target (repeatable)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the batches (default: random)")
    args = parser.parse_args(argv)
    targets = [t for t in TARGETS if not args.target or t.name in args.target]
    if not targets:
        parser.error(f"no such target; targets: {', '.join(t.name for t in TARGETS)}")
    rng = random.Random(args.seed)
    deadline = time.monotonic() + args.seconds
    counts = {t.name: 0 for t in targets}
    batch_settings = settings(max_examples=BATCH, deadline=None, database=None, print_blob=True,
                              suppress_health_check=list(HealthCheck))
    while time.monotonic() < deadline:
        for target in targets:
            if time.monotonic() >= deadline:
                break
            batch_seed = rng.getrandbits(64)
            run = seed(batch_seed)(batch_settings(given(target.strategy)(_runner(target, deadline, counts))))
            try:
                run()
            except Exception:  # noqa: BLE001 - report any crash
                traceback.print_exc()
                print(f"fuzz: CRASH in target {target.name} (batch seed {batch_seed}); "
                      "add the input above to tests/reliability/corpus and fix the bug", file=sys.stderr)
                return 1
    total = sum(counts.values())
    for name, count in counts.items():
        print(f"fuzz: {name:24s} {count:8d} examples")
    print(f"fuzz: {total} examples in {args.seconds:g} s, no crash")
    return 0


if __name__ == "__main__":
    sys.exit(main())
