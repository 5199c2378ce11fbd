"""The ecosystem's data as it comes (issue 13, item 4): ir_measures records, ir_datasets (through
the real package, from its local cache, no network), ranx objects, PyTerrier / ir_measures /
ranx frames, explicit column mappings; the PyTerrier-friendly entry point."""

import doctest
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import cranfield
from cranfield.errors import InputError, UsageError
from cranfield.io import ecosystem

QRELS = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d2": 1, "d4": 1}}
RUN = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d1": 2.0, "d4": 1.0, "d9": 0.5}}
MEASURES = ["AP", "nDCG@10", "P@2"]


def rows(mapping):
    return [(q, d, v) for q, docs in mapping.items() for d, v in docs.items()]


@pytest.fixture(scope="module")
def expected():
    return cranfield.evaluate(QRELS, RUN, MEASURES)


def same(result, expected):
    assert list(result.query_ids) == list(expected.query_ids)
    for m in MEASURES:
        assert result.mean[m] == expected.mean[m]
        np.testing.assert_array_equal(result.per_query[m], expected.per_query[m])


def test_ir_measures_namedtuples_lists_and_generators(expected):
    import ir_measures

    qrels = [ir_measures.Qrel(q, d, r) for q, d, r in rows(QRELS)]
    run = (ir_measures.ScoredDoc(q, d, s) for q, d, s in rows(RUN))  # a one-shot generator
    same(cranfield.evaluate(qrels, run, MEASURES), expected)
    # and the numbers agree with ir_measures itself
    ours = cranfield.evaluate(qrels, [ir_measures.ScoredDoc(q, d, s) for q, d, s in rows(RUN)], ["AP", "nDCG@10"])
    theirs = ir_measures.calc_aggregate([ir_measures.AP, ir_measures.nDCG @ 10], qrels,
                                        [ir_measures.ScoredDoc(q, d, s) for q, d, s in rows(RUN)])
    assert ours.mean["AP"] == pytest.approx(theirs[ir_measures.AP], abs=1e-12)
    assert ours.mean["nDCG@10"] == pytest.approx(theirs[ir_measures.nDCG @ 10], abs=1e-12)


@pytest.mark.parametrize("columns", [
    ("query_id", "doc_id", "relevance", "score"),   # ir_measures / ir_datasets
    ("qid", "docno", "label", "score"),             # PyTerrier
    ("q_id", "doc_id", "score", "score"),           # ranx frames (qrels' grade is "score")
], ids=["ir_measures", "pyterrier", "ranx"])
@pytest.mark.parametrize("library", ["pandas", "polars", "arrow"])
def test_frames_in_every_convention(expected, columns, library):
    qid, docno, rel, score = columns
    qrels = {qid: [r[0] for r in rows(QRELS)], docno: [r[1] for r in rows(QRELS)], rel: [r[2] for r in rows(QRELS)]}
    run = {qid: [r[0] for r in rows(RUN)], docno: [r[1] for r in rows(RUN)], score: [r[2] for r in rows(RUN)]}
    if columns[1] == "docno":  # a PyTerrier results frame also has docid, rank and query
        run.update(docid=list(range(len(run[qid]))), rank=list(range(len(run[qid]))), query=["x"] * len(run[qid]))
    make = {"pandas": pd.DataFrame, "polars": pl.DataFrame, "arrow": pa.table}[library]
    same(cranfield.evaluate(make(qrels), make(run), MEASURES), expected)
    comparison = cranfield.compare(make(qrels), {"a": make(run), "b": make(run)}, ["AP"])  # compare too
    assert comparison.summary("AP", "a").mean == expected.mean["AP"]


def test_explicit_column_mapping(expected):
    qrels = pd.DataFrame(rows(QRELS), columns=["topic", "doc", "grade"])
    run = pd.DataFrame(rows(RUN), columns=["topic", "doc", "sim"])
    same(cranfield.evaluate(cranfield.with_columns(qrels, qid="topic", docno="doc", rel="grade"),
                            cranfield.with_columns(run, qid="topic", docno="doc", score="sim"), MEASURES), expected)
    with pytest.raises(InputError, match=r"no qid column \(expected 'qid' or 'query_id' or 'q_id'\); found columns "
                                         r"topic, doc, sim; name it with cranfield.with_columns\(frame, qid='COLUMN'\)"):
        cranfield.read_run(run)
    with pytest.raises(InputError, match="no column 'nope' \\(named for docno\\)"):
        cranfield.read_run(cranfield.with_columns(run, qid="topic", docno="nope", score="sim"))
    with pytest.raises(UsageError, match="field 'rel' does not apply to run"):
        cranfield.read_run(cranfield.with_columns(run, qid="topic", docno="doc", rel="sim"))


@pytest.mark.slow  # importing ranx compiles its numba kernels (tens of seconds)
def test_ranx_objects(expected):
    ranx = pytest.importorskip("ranx")  # in the bench extra, not the test one (it brings numba)

    qrels, run = ranx.Qrels(QRELS), ranx.Run(RUN, name="ranx_run")
    result = cranfield.evaluate(qrels, run, MEASURES)
    same(result, expected)
    assert result.run_name == "ranx_run"


def test_records_of_the_wrong_kind_say_what_was_expected():
    with pytest.raises(InputError, match="namedtuples with fields query_id, doc_id, score"):
        cranfield.read_run([("q1", "d1", 1.0)])


def test_parse_columns():
    assert ecosystem.parse_columns("qid=query_id, docno=doc_id,rel=relevance") == {
        "qid": "query_id", "docno": "doc_id", "rel": "relevance"}
    with pytest.raises(UsageError, match="--run-columns: expected FIELD=COLUMN"):
        ecosystem.parse_columns("query=qid", option="--run-columns")


def test_read_table_file_csv_keeps_ids_as_text(tmp_path):
    path = tmp_path / "run.csv"
    path.write_text("query_id,doc_id,score\n007,0001,1.5\n007,0002,0.5\n")
    table = ecosystem.read_table_file(path, kind="run")
    assert table.column_names == ["qid", "docno", "score"] and table.column("qid").to_pylist() == ["007", "007"]
    assert table.column("docno").to_pylist() == ["0001", "0002"]


def test_pyterrier_entry_point(expected):
    from cranfield.pyterrier import evaluate_frame

    res = pd.DataFrame(rows(RUN), columns=["qid", "docno", "score"]).assign(query="text", rank=0, docid=1)
    qrels = pd.DataFrame(rows(QRELS), columns=["qid", "docno", "label"])
    per_query = evaluate_frame([res, res], qrels, ["map", "ndcg_cut_10"], names=["bm25", "bm25"])
    assert list(per_query.columns) == ["name", "qid", "measure", "value"]
    assert sorted(set(per_query["name"])) == ["bm25", "bm25#2"] and set(per_query["measure"]) == {"map", "ndcg_cut_10"}
    ap = per_query[(per_query.name == "bm25") & (per_query.measure == "map")].set_index("qid")["value"]
    assert ap.to_dict() == expected.per_query["AP"].to_dict()
    means = evaluate_frame({"bm25": res}, qrels, ["map"], perquery=False)
    assert means.loc[0, "map"] == expected.mean["AP"]
    import cranfield.pyterrier as module

    assert doctest.testmod(module).failed == 0


IRDS_SCRIPT = """
import sys, cranfield, ir_datasets
from cranfield.io.ecosystem import qrels_source
dataset = ir_datasets.load("cranfield")
a = cranfield.evaluate("irds:cranfield", sys.argv[1], ["AP", "nDCG@10"])
b = cranfield.evaluate(dataset, sys.argv[1], ["AP", "nDCG@10"])
c = cranfield.evaluate(sys.argv[2], sys.argv[1], ["AP", "nDCG@10"])
assert a.mean == b.mean == c.mean, (a.mean, b.mean, c.mean)
print(len(a.query_ids), a.mean["AP"])
"""


def test_ir_datasets_from_its_local_cache(tmp_path, cranfield_dir):
    """ir_datasets' own Cranfield loader reads a qrels file placed in its cache folder
    (IR_DATASETS_HOME/cranfield/qrels.txt), so nothing is downloaded; in a subprocess because
    ir_datasets fixes its home folder when imported."""
    pytest.importorskip("ir_datasets")
    home = tmp_path / "irds"
    (home / "cranfield").mkdir(parents=True)
    raw = cranfield_dir / "qrels.raw.trec"
    lines = [line.split() for line in raw.read_text().splitlines() if line.strip()]
    (home / "cranfield" / "qrels.txt").write_text("".join(f"{q} {d} {r}\n" for q, _, d, r in lines))
    env = {**os.environ, "IR_DATASETS_HOME": str(home), "PYTHONPATH": str(Path(cranfield.__file__).parents[1]),
           "HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9"}  # any download would fail
    run = cranfield_dir / "runs" / "bm25.run"
    done = subprocess.run([sys.executable, "-c", IRDS_SCRIPT, str(run), str(raw)], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == "225"
    cli = subprocess.run([sys.executable, "-m", "cranfield", "evaluate", "irds:cranfield", str(run), "-m", "AP",
                          "-f", "csv"], env=env, capture_output=True, text=True, timeout=300)
    assert cli.returncode == 0, cli.stderr
    assert cli.stdout.splitlines()[1].startswith("bm25s_stem,")


def test_irds_without_the_package_gives_an_install_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "ir_datasets", None)
    with pytest.raises(UsageError, match="needs the ir_datasets package; install it with: python -m pip install ir_datasets"):
        cranfield.read_qrels("irds:cranfield")


def test_column_mapping_keywords_on_evaluate_and_compare():
    """evaluate/compare take the frames' column names directly (issue 13: column mapping in
    evaluate/compare), with the same numbers as canonical frames."""
    import pandas as pd

    import cranfield

    qrels = pd.DataFrame({"topic": ["q1", "q1", "q2"], "doc": ["d1", "d2", "d1"], "grade": [1, 0, 1]})
    run = pd.DataFrame({"topic": ["q1", "q1", "q2"], "doc": ["d1", "d2", "d1"], "sim": [0.5, 0.9, 0.3]})
    names = {"qrels_columns": {"qid": "topic", "docno": "doc", "rel": "grade"},
             "run_columns": {"qid": "topic", "docno": "doc", "score": "sim"}}
    got = cranfield.evaluate(qrels, run, ["AP"], **names)
    expected = cranfield.evaluate({"q1": {"d1": 1, "d2": 0}, "q2": {"d1": 1}},
                                  {"q1": {"d1": 0.5, "d2": 0.9}, "q2": {"d1": 0.3}}, ["AP"])
    assert got.mean["AP"] == expected.mean["AP"] == 0.75
    comparison = cranfield.compare(qrels, {"a": run, "b": run}, ["AP"], **names)
    assert comparison.summary("AP", "a").mean == 0.75
    with pytest.raises(cranfield.UsageError):
        cranfield.evaluate(qrels, run, ["AP"], qrels_columns={"topic": "qid"})
