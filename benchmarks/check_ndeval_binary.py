"""Compare ``cranfield ndeval`` with NIST's ndeval program byte for byte on random inputs.

ndeval is not shipped: build it from ndeval.c (TREC Web track, e.g. the trec-web/trec-web-2014
repository, src/eval/ndeval.c) in a temporary directory, ``gcc -O2 -o ndeval ndeval.c -lm``, then::

    python benchmarks/check_ndeval_binary.py /tmp/ndeval [cases]

Runs ndeval with ``-traditional`` (score, then docno order: cranfield's) and cranfield with
``--ndeval-nan`` (ndeval's -nan for topics without relevant subtopics); random alpha, beta, -c, -M.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile

from cranfield.retrieval.diversity import ndeval_text


def case(rnd: random.Random, directory: str) -> tuple[str, str, list[str], dict]:
    qrels, seen = [], set()
    topics = rnd.sample(range(1, 60), rnd.randint(1, 6))
    for q in topics:
        for _ in range(rnd.randint(1, 40)):
            key = (q, rnd.randint(1, 6), f"doc{rnd.randint(0, 30)}")
            if key not in seen:
                seen.add(key)
                qrels.append(f"{key[0]} {key[1]} {key[2]} {rnd.choice([0, 0, 1, 1, 2])}\n")
    run = []
    # at least one topic in common (cranfield refuses a run without one; ndeval prints -nan means)
    for q in {topics[0], *rnd.sample(range(1, 60), rnd.randint(0, 5))}:
        docs = rnd.sample(range(45), rnd.randint(1, 30))
        for rank, d in enumerate(docs):
            score = rnd.choice([1.0, 2.0, 3.0]) if rnd.random() < 0.3 else round(rnd.uniform(0, 10), 3)
            run.append(f"{q} Q0 doc{d} {rank + 1} {score} runX\n")
    rnd.shuffle(qrels)
    paths = []
    for name, lines in (("qrels", qrels), ("run", run)):
        path = os.path.join(directory, name)
        with open(path, "w") as handle:
            handle.writelines(lines)
        paths.append(path)
    options = dict(alpha=rnd.choice([0.5, 0.3, 0.77, 0.0, 1.0]), beta=rnd.choice([0.5, 0.9, 0.13, 1.0]),
                   complete=rnd.random() < 0.3, max_results=rnd.choice([None, None, 3, 15]))
    flags = ["-traditional", "-alpha", repr(options["alpha"]), "-beta", repr(options["beta"])]
    if options["complete"]:
        flags.append("-c")
    if options["max_results"]:
        flags += ["-M", str(options["max_results"])]
    return paths[0], paths[1], flags, options


def main() -> None:
    binary = sys.argv[1]
    cases = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    rnd = random.Random(2014)
    differ = 0
    with tempfile.TemporaryDirectory() as directory:
        for index in range(cases):
            qrels, run, flags, options = case(rnd, directory)
            expected = subprocess.run([binary, *flags, qrels, run], capture_output=True, text=True, check=True).stdout
            got = ndeval_text(qrels, run, ndeval_nan=True, **options)
            if got != expected:
                differ += 1
                print(f"case {index} differs ({' '.join(flags)})")
    print(f"{cases - differ}/{cases} outputs byte-identical")


if __name__ == "__main__":
    main()
