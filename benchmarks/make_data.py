"""Generate synthetic TREC qrels and runs for the retrieval benchmarks (deterministic, seeded).

    python benchmarks/make_data.py --queries 1000 10000      # writes benchmarks/data/

For each size N it writes ``benchmarks/data/qrels_{N}.txt`` (``qid 0 docno rel``) and
``benchmarks/data/run_{N}.txt`` (``qid Q0 docno rank score tag``), N queries x 1000 results.

What the data looks like (and why):

* docnos are ``doc<n>`` with n in [1, 999983) and no zero padding, so byte order differs from
  numeric order (``doc99`` > ``doc100000`` byte-wise): a reader that sorts numerically is wrong;
* per query, 1000 retrieved documents plus 64 candidates that are not retrieved; documents are
  distinct within a query (an arithmetic progression modulo a prime, no rejection sampling);
* graded judgments 0..3; the top 80..250 ranks are judged (a pool), plus 2 % of deeper
  retrieved documents and about a third of the non-retrieved candidates, skewed towards
  relevant (relevant documents the run missed): about 100..300 judged documents per query;
* scores correlate with relevance; they have 6 decimals, so they are distinct in float32 too
  (pytrec_eval stores scores as float32); for 20 % of the queries they are rounded to 3
  decimals, which creates ties (broken by docno descending in trec_eval);
* the rank column follows the score order; readers that follow trec_eval ignore it.

Everything is vectorised with numpy and written with pyarrow (multi-threaded), so 10M run lines
take seconds, not minutes.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

DATA_DIR = Path(__file__).resolve().parent / "data"
DEPTH = 1000  # retrieved documents per query
EXTRA = 64  # non-retrieved candidate documents per query
PRIME = 999_983  # docno space; distinct docnos per query via an arithmetic progression mod PRIME
TIED_FRACTION = 0.2  # fraction of queries whose scores are rounded to 3 decimals


def _write(path: Path, columns: dict[str, pa.Array]) -> None:
    """Write the columns space-separated, no header, no quoting (TREC text format)."""
    table = pa.table(columns)
    options = pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    tmp = path.with_suffix(path.suffix + ".tmp")
    pacsv.write_csv(table, tmp, write_options=options)
    tmp.replace(path)


def _fixed6(micro: np.ndarray) -> pa.Array:
    """Format non-negative integers in millionths as fixed-point text with 6 decimals."""
    whole = pc.cast(pa.array(micro // 1_000_000), pa.string())
    frac = pc.utf8_lpad(pc.cast(pa.array(micro % 1_000_000), pa.string()), 6, "0")
    return pc.binary_join_element_wise(whole, frac, ".")


def generate(n_queries: int, seed: int = 0) -> tuple[dict[str, pa.Array], dict[str, pa.Array]]:
    """Return (qrels columns, run columns) for ``n_queries`` queries."""
    rng = np.random.default_rng(seed + n_queries)
    n_cand = DEPTH + EXTRA

    # Candidate docnos: start + stride * j (mod PRIME) are distinct for j < PRIME.
    start = rng.integers(0, PRIME, size=(n_queries, 1))
    stride = rng.integers(1, PRIME, size=(n_queries, 1))
    docnum = (start + stride * np.arange(n_cand)) % PRIME + 1  # 1 .. PRIME

    # Graded relevance: ~8 % grade 1, ~4 % grade 2, ~3 % grade 3 among the retrieved candidates;
    # the non-retrieved candidates are richer in relevant documents.
    latent = rng.random((n_queries, n_cand))
    latent[:, DEPTH:] = latent[:, DEPTH:] ** 0.5
    rel = np.digitize(latent, [0.85, 0.93, 0.97]).astype(np.int8)

    # Scores in (0, 8): relevance signal + noise, as integers in millionths.
    ret_rel = rel[:, :DEPTH]
    score = 4.0 + 0.6 * ret_rel + rng.normal(0.0, 1.0, size=(n_queries, DEPTH))
    micro = np.rint(np.clip(score, 0.001, 7.999) * 1e6).astype(np.int64)
    tied = rng.random(n_queries) < TIED_FRACTION
    micro[tied] = np.rint(micro[tied] / 1000.0).astype(np.int64) * 1000

    # Rank order: score descending (ties in any order: the rank column is ignored by trec_eval).
    order = np.argsort(-micro, axis=1, kind="stable")
    micro = np.take_along_axis(micro, order, axis=1)
    ret_doc = np.take_along_axis(docnum[:, :DEPTH], order, axis=1)
    ret_rel = np.take_along_axis(ret_rel, order, axis=1)

    # Judged: a pool of the top 80..250 ranks, 2 % of the deeper ones, ~1/3 of the non-retrieved.
    pool_depth = rng.integers(80, 251, size=(n_queries, 1))
    judged_ret = (np.arange(DEPTH) < pool_depth) | (rng.random((n_queries, DEPTH)) < 0.02)
    judged_extra = rng.random((n_queries, EXTRA)) < 0.35
    judged = np.concatenate([judged_ret, judged_extra], axis=1)
    j_doc = np.concatenate([ret_doc, docnum[:, DEPTH:]], axis=1)[judged]
    j_rel = np.concatenate([ret_rel, rel[:, DEPTH:]], axis=1)[judged]
    j_qidx = np.broadcast_to(np.arange(n_queries)[:, None], judged.shape)[judged]

    qids = pc.cast(pa.array(np.arange(1, n_queries + 1)), pa.string())  # "1", "2", ... "10", ...

    def docnos(nums: np.ndarray) -> pa.Array:
        return pc.binary_join_element_wise("doc", pc.cast(pa.array(nums.ravel()), pa.string()), "")

    qrels = {
        "qid": qids.take(pa.array(j_qidx)),
        "iter": pa.array(np.zeros(len(j_doc), dtype=np.int8)),
        "docno": docnos(j_doc),
        "rel": pa.array(j_rel),
    }
    run = {
        "qid": qids.take(pa.array(np.repeat(np.arange(n_queries), DEPTH))),
        "q0": pa.array(np.full(n_queries * DEPTH, "Q0")),
        "docno": docnos(ret_doc),
        "rank": pa.array(np.tile(np.arange(1, DEPTH + 1, dtype=np.int32), n_queries)),
        "score": _fixed6(micro.ravel()),
        "tag": pa.array(np.full(n_queries * DEPTH, "bench")),
    }
    return qrels, run


def paths(n_queries: int, data_dir: Path = DATA_DIR) -> tuple[Path, Path]:
    """Return (qrels path, run path) for ``n_queries``."""
    return data_dir / f"qrels_{n_queries}.txt", data_dir / f"run_{n_queries}.txt"


def ensure(n_queries: int, *, seed: int = 0, data_dir: Path = DATA_DIR, force: bool = False) -> tuple[Path, Path]:
    """Generate the files for ``n_queries`` unless they exist; return their paths."""
    qrels_path, run_path = paths(n_queries, data_dir)
    if force or not (qrels_path.exists() and run_path.exists()):
        data_dir.mkdir(parents=True, exist_ok=True)
        qrels, run = generate(n_queries, seed)
        _write(qrels_path, qrels)
        _write(run_path, run)
    return qrels_path, run_path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, nargs="+", default=[1000, 10000], help="query counts")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data-dir", type=Path, default=DATA_DIR)
    parser.add_argument("--force", action="store_true", help="regenerate existing files")
    args = parser.parse_args(argv)
    for n in args.queries:
        t0 = time.perf_counter()
        qrels_path, run_path = ensure(n, seed=args.seed, data_dir=args.data_dir, force=args.force)
        print(f"{n} queries: {run_path} ({run_path.stat().st_size / 1e6:.0f} MB), "
              f"{qrels_path} ({qrels_path.stat().st_size / 1e6:.0f} MB) in {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
