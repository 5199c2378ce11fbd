"""Peak memory of reading TREC qrels and runs, per byte of (uncompressed) input (issue 19, item 4).

    python benchmarks/bench_reading_memory.py                       # 1M, 5M, 20M lines; writes the report
    python benchmarks/bench_reading_memory.py --lines 1000000 --no-output   # quick look

For each kind (qrels, run), size (lines) and form (plain text, gzip), a fresh Python process
imports cranfield, records its peak resident set (``VmHWM`` of ``/proc/self/status``: this
process's own; ``ru_maxrss`` starts at the parent's resident set, inherited at fork), then reads
the file and records the peak again; the difference, divided by the size of the uncompressed text, is the figure
("× input"). Two steps are measured, each in its own process:

* ``read``: ``cranfield.read_qrels`` / ``cranfield.read_run`` (the reader and the container);
* ``read+prepare``: qrels read and prepared for evaluation (``cranfield.Evaluator(qrels, ["AP"])``:
  query codes, duplicate check), the work ``cranfield evaluate`` does with qrels before the run;
* ``open_input+csv``: :func:`cranfield.io.sources.open_input` feeding Arrow's typed CSV reader
  with the three columns the TREC fast path keeps: what reading costs once ``io/trec.py`` opens its
  input through ``open_input`` (streamed gzip instead of ``gzip.decompress`` of the whole file).

The target (issue 19): reading takes at most 3× the uncompressed input. The data are written by
generators in the style of ``make_data.py`` (same ids and value formats: ``qid`` the decimal query
number, ``doc<n>`` docnos, graded relevance, 6-decimal scores), sized in lines rather than
queries: 20M qrels lines would otherwise come with 100M run lines. Wall times are printed for
information only; memory is the subject.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from make_data import _fixed6, _write  # noqa: E402  (the generators' writers and number format)

DATA_DIR = HERE / "data"
REPORT = HERE.parent / "docs" / "benchmarks" / "reading_memory.md"
SRC = HERE.parent / "src"
TARGET = 3.0
NOTES_MARKER = "<!-- findings: written by hand, kept when the table is regenerated -->"
DOCS_PER_QUERY = {"qrels": 200, "run": 1000}


# ---------------------------------------------------------------------------------------- data
def generate(kind: str, n_lines: int, seed: int = 0) -> dict[str, pa.Array]:
    """``n_lines`` qrels or run lines, ``DOCS_PER_QUERY`` per query, in the style of make_data.py."""
    rng = np.random.default_rng(seed + n_lines)
    per_query = DOCS_PER_QUERY[kind]
    query = np.arange(n_lines) // per_query + 1
    docnum = rng.integers(1, 999_983, size=n_lines)  # duplicates within a query are possible ...
    docnum = (docnum // per_query) * per_query + np.arange(n_lines) % per_query  # ... not any more
    qid = pc.cast(pa.array(query), pa.string())
    docno = pc.binary_join_element_wise("doc", pc.cast(pa.array(docnum), pa.string()), "")
    if kind == "qrels":
        rel = np.digitize(rng.random(n_lines), [0.85, 0.93, 0.97]).astype(np.int8)
        return {"qid": qid, "iter": pa.array(np.zeros(n_lines, dtype=np.int8)), "docno": docno, "rel": pa.array(rel)}
    micro = np.rint(rng.uniform(0.001, 7.999, n_lines) * 1e6).astype(np.int64)
    rank = (np.arange(n_lines) % per_query + 1).astype(np.int32)
    return {"qid": qid, "q0": pa.array(np.full(n_lines, "Q0")), "docno": docno, "rank": pa.array(rank),
            "score": _fixed6(micro), "tag": pa.array(np.full(n_lines, "bench"))}


def ensure(kind: str, n_lines: int, gzipped: bool, data_dir: Path = DATA_DIR) -> tuple[Path, int]:
    """(path, uncompressed bytes) of the file, written if missing."""
    data_dir.mkdir(parents=True, exist_ok=True)
    plain = data_dir / f"mem_{kind}_{n_lines}.txt"
    if not plain.exists():
        _write(plain, generate(kind, n_lines))
    size = plain.stat().st_size
    if not gzipped:
        return plain, size
    packed = plain.with_suffix(".txt.gz")
    if not packed.exists():
        tmp = packed.with_suffix(".tmp")
        gzip_tool = shutil.which("pigz") or shutil.which("gzip")
        if gzip_tool:
            with open(tmp, "wb") as out:
                subprocess.run([gzip_tool, "-1", "-c", str(plain)], stdout=out, check=True)
        else:  # pragma: no cover - no gzip binary
            import gzip

            with open(plain, "rb") as src, gzip.open(tmp, "wb", compresslevel=1) as dst:
                shutil.copyfileobj(src, dst, 1 << 24)
        tmp.replace(packed)
    return packed, size


# ---------------------------------------------------------------------------------------- measuring
_CHILD = textwrap.dedent("""
    import json, resource, sys, time
    sys.path.insert(0, {src!r})
    import numpy, pyarrow, pyarrow.csv, pyarrow.compute, pyarrow.dataset
    import cranfield
    from cranfield.retrieval import ranked  # everything imported before the baseline
    def kb():  # this process's own high-water mark (ru_maxrss would count the parent's, inherited at fork)
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    base = kb()
    t0 = time.perf_counter()
    if {step!r} == "open_input+csv":  # the typed fast path of io/trec.py fed by io/sources.open_input
        import pyarrow as pa, pyarrow.csv as csv
        from cranfield.io.sources import open_input
        run = {kind!r} == "run"
        names = ["f%d" % i for i in range(6 if run else 4)]
        value = "f4" if run else "f3"
        table = csv.read_csv(open_input({path!r}),
            read_options=csv.ReadOptions(column_names=names, block_size=1 << 22),
            parse_options=csv.ParseOptions(delimiter=" ", quote_char=False),
            convert_options=csv.ConvertOptions(column_types={{"f0": pa.string(), "f2": pa.string(),
                                                              value: pa.float64() if run else pa.int64()}},
                                               include_columns=["f0", "f2", value]))
    elif {kind!r} == "qrels":
        table = cranfield.read_qrels({path!r})
        if {step!r} == "read+prepare":
            cranfield.Evaluator(table, ["AP"])
    else:
        table = cranfield.read_run({path!r})
    seconds = time.perf_counter() - t0
    print(json.dumps({{"base_kb": base, "peak_kb": kb(), "rows": len(table), "seconds": seconds}}))
""")


_STAGES = textwrap.dedent("""
    import sys
    sys.path.insert(0, {src!r})
    import numpy as np, pyarrow as pa, pyarrow.compute as pc, cranfield
    from cranfield.retrieval import doc_keys
    from cranfield.retrieval.ranked import PreparedQrels, _indices, _indices_array

    def status(key):
        for line in open("/proc/self/status"):
            if line.startswith(key):
                return int(line.split()[1]) // 1024

    def stage(name, mark):
        print(f"| {{name}} | +{{status('VmHWM:') - mark}} MB | +{{status('VmRSS:') - mark}} MB |", flush=True)
        open("/proc/self/clear_refs", "w").write("5")  # reset the high-water mark
        return status("VmRSS:")

    mark = stage("(imports)", status("VmRSS:"))
    qrels = cranfield.read_qrels({path!r})
    mark = stage("read_qrels (qid, docno strings; rel int64)", mark)
    encoded = qrels.qid.dictionary_encode()
    mark = stage("qid.dictionary_encode()", mark)
    dictionary = encoded.chunk(0).dictionary
    order = np.asarray(pc.sort_indices(dictionary))
    rank_of_code = np.empty(len(order), dtype=np.int64)
    rank_of_code[order] = np.arange(len(order))
    q = rank_of_code[_indices(encoded)]
    query_index = dictionary.take(_indices_array(order))
    query_ids = np.asarray(query_index.to_pylist(), dtype=object)
    del encoded
    mark = stage("query codes q (int64)", mark)
    prepared = PreparedQrels(qrels=qrels, query_ids=query_ids, query_index=query_index, q=q, rel=qrels.rel)
    words = doc_keys.packed_words(qrels.docno, prepared.packed_width())
    mark = stage(f"packed_words (n x {{words.shape[1]}} uint64)", mark)
    keys = doc_keys.mix(q, words, len(query_ids))
    mark = stage("mix keys (int64)", mark)
    table = doc_keys.KeyTable(keys, q, len(query_ids))
    mark = stage("KeyTable", mark)
""")


def stages(n_lines: int) -> None:
    """Print the peak and held memory of each stage of reading and preparing qrels (Linux)."""
    path, size = ensure("qrels", n_lines, False)
    print(f"qrels, {n_lines:,} lines, {size / 1e6:.1f} MB of text\n")
    print("| stage | peak over the previous stage | held after |\n|---|---:|---:|", flush=True)
    subprocess.run([sys.executable, "-c", _STAGES.format(src=str(SRC), path=str(path))], check=True)


def measure(kind: str, step: str, path: Path) -> dict:
    code = _CHILD.format(src=str(SRC), kind=kind, step=step, path=str(path))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"{kind} {step} {path}: {out.stderr.strip().splitlines()[-1:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def run(lines: list[int], kinds: list[str], forms: list[str]) -> list[dict]:
    rows = []
    for kind in kinds:
        steps = (["read", "read+prepare"] if kind == "qrels" else ["read"]) + ["open_input+csv"]
        for n in lines:
            for form in forms:
                path, size = ensure(kind, n, form == "gzip")
                for step in steps:
                    got = measure(kind, step, path)
                    grown = (got["peak_kb"] - got["base_kb"]) * 1024
                    row = {"kind": kind, "lines": n, "form": form, "step": step, "input_mb": size / 1e6,
                           "file_mb": path.stat().st_size / 1e6, "peak_mb": grown / 1e6, "ratio": grown / size,
                           "seconds": got["seconds"], "rows": got["rows"]}
                    rows.append(row)
                    print(f"{kind:5} {n:>10,} {form:5} {step:13} input {row['input_mb']:8.1f} MB  "
                          f"peak +{row['peak_mb']:8.1f} MB  = {row['ratio']:.2f}x  ({row['seconds']:.1f} s)",
                          flush=True)
    return rows


def report(rows: list[dict], command: str) -> str:
    import os as _os

    from _machine import cpu, version

    machine = f"{cpu()}, {_os.cpu_count()} cores; cranfield {version('cranfield')}, pyarrow {pa.__version__}, " \
              f"numpy {np.__version__}"
    lines = ["# Peak memory of reading qrels and runs", "",
             "Generated by `benchmarks/bench_reading_memory.py` (issue 19, item 4). Each figure is the growth "
             "of the peak resident set of a fresh process that has already imported cranfield, while it "
             "reads the file, divided by the size of the **uncompressed** text. Target: at most "
             f"**{TARGET:g}×**.", "", f"Command: `{command}`", "",
             f"Machine: {machine}", "",
             "| kind | lines | form | step | input (MB) | file (MB) | peak (MB) | × input | s |",
             "|---|---:|---|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        flag = "" if r["ratio"] <= TARGET else " ⚠"
        lines.append(f"| {r['kind']} | {r['lines']:,} | {r['form']} | {r['step']} | {r['input_mb']:.1f} | "
                     f"{r['file_mb']:.1f} | {r['peak_mb']:.1f} | {r['ratio']:.2f}{flag} | {r['seconds']:.1f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, nargs="+", default=[1_000_000, 5_000_000, 20_000_000])
    parser.add_argument("--kinds", nargs="+", default=["qrels", "run"], choices=["qrels", "run"])
    parser.add_argument("--forms", nargs="+", default=["plain", "gzip"], choices=["plain", "gzip"])
    parser.add_argument("--no-output", action="store_true", help="print only, do not write the report")
    parser.add_argument("--append", action="store_true", help="add the rows to the report's table")
    parser.add_argument("--stages", type=int, metavar="LINES", help="only print the stage breakdown of reading and "
                        "preparing qrels of LINES lines")
    args = parser.parse_args(argv)
    if args.stages:
        stages(args.stages)
        return
    start = time.perf_counter()
    rows = run(args.lines, args.kinds, args.forms)
    print(f"{time.perf_counter() - start:.0f} s")
    if not args.no_output:
        command = "python benchmarks/bench_reading_memory.py " + " ".join(argv if argv is not None else sys.argv[1:])
        REPORT.parent.mkdir(parents=True, exist_ok=True)
        notes = ""  # the hand-written findings below the marker survive a re-run
        if REPORT.exists() and NOTES_MARKER in REPORT.read_text(encoding="utf-8"):
            notes = REPORT.read_text(encoding="utf-8").split(NOTES_MARKER, 1)[1]
        REPORT.write_text(report(rows, command.strip()) + "\n" + NOTES_MARKER + notes, encoding="utf-8")
        print(f"wrote {REPORT}")


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "2")
    main()
