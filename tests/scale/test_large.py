"""Block-wise evaluation of large run files and Parquet I/O: identical to the in-memory path."""

from __future__ import annotations

import gzip

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import cranfield
from cranfield.errors import InputError
from cranfield.retrieval.large import evaluate_large

from .conftest import MEASURES, assert_same, random_data


def _write_text(path, table, *, sep=" ", gz=False, comment=False):
    lines = [f"{q}{sep}Q0{sep}{d}{sep}{i}{sep}{s!r}{sep}tag\n" for i, (q, d, s) in
             enumerate(zip(*(table.column(c).to_pylist() for c in ("qid", "docno", "score"))))]
    if comment:
        lines.insert(len(lines) // 2, "# a comment in the middle\n\n")
    data = "".join(lines).encode("utf-8")
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


def _shuffle(table, seed=0):
    return table.take(pa.array(np.random.default_rng(seed).permutation(table.num_rows)))


@pytest.mark.parametrize("options", [{}, {"complete": True}, {"max_results": 7, "judged_only": True},
                                     {"relevance_level": 2}])
@pytest.mark.parametrize("layout", ["grouped", "shuffled", "gzip", "irregular", "parquet"])
def test_equal_to_in_memory(tmp_path, data, layout, options):
    qrels_table, run_table = data
    qrels = cranfield.Qrels.from_frame(qrels_table)
    expected = cranfield.evaluate(qrels, cranfield.Run.from_frame(run_table, name="tag"), MEASURES, **options)
    table = _shuffle(run_table) if layout == "shuffled" else run_table
    if layout == "parquet":
        path = tmp_path / "run.parquet"
        pq.write_table(table, path, row_group_size=97)
    else:
        path = _write_text(tmp_path / "run.txt", table, sep="  " if layout == "irregular" else " ",
                           gz=layout == "gzip", comment=layout == "irregular")
    for batch_rows in (10, 100_000):  # many small blocks (64 KiB of text) / one block
        got = evaluate_large(qrels, path, MEASURES, batch_rows=batch_rows, **options)
        assert_same(expected, got)


def test_micro_aggregate(tmp_path, data):
    qrels_table, run_table = data
    measures = ["SetP", "SetR", "F@10", "SetF", "NumRet"]
    expected = cranfield.evaluate(qrels_table, run_table, measures, aggregate="micro")
    path = _write_text(tmp_path / "run.txt", _shuffle(run_table, 3))
    assert_same(expected, evaluate_large(qrels_table, path, measures, batch_rows=10, aggregate="micro"))


def test_many_blocks_and_long_query(tmp_path):
    """A query longer than a block is carried over several blocks."""
    qrels_table, run_table = random_data(5, n_queries=3, depth=2, n_docs=30_000)
    rng = np.random.default_rng(1)
    long = pa.table({"qid": ["long"] * 20_000, "docno": [f"d{i}" for i in rng.permutation(20_000)],
                     "score": rng.normal(size=20_000).round(2)})
    run_table = pa.concat_tables([run_table.slice(0, 3), long, run_table.slice(3)])
    qrels_table = pa.concat_tables([qrels_table, pa.table({"qid": ["long"] * 3, "docno": ["d1", "d2", "d19999"],
                                                           "rel": np.array([1, 2, 1])})])
    expected = cranfield.evaluate(qrels_table, run_table, MEASURES)
    path = _write_text(tmp_path / "run.txt", run_table)
    assert_same(expected, evaluate_large(qrels_table, path, MEASURES, batch_rows=10))


def test_errors_name_the_line(tmp_path, data):
    qrels_table, run_table = data
    rows = run_table.num_rows
    duplicated = pa.concat_tables([run_table, run_table.slice(rows - 1, 1)])  # last row twice
    path = _write_text(tmp_path / "run.txt", duplicated)
    with pytest.raises(InputError) as memory:
        cranfield.evaluate(qrels_table, str(path), ["AP"])
    with pytest.raises(InputError) as large:
        evaluate_large(qrels_table, path, ["AP"], batch_rows=10)
    assert str(large.value) == str(memory.value)
    assert f":{rows + 1}:" in str(large.value)
    bad = tmp_path / "bad.txt"
    bad.write_text("q1 Q0 d1 1 1.5 t\nq1 Q0 d2 2 x t\n")
    with pytest.raises(InputError, match=":2:"):
        evaluate_large(qrels_table, bad, ["AP"])
    with pytest.raises(InputError, match="no such file"):
        evaluate_large(qrels_table, tmp_path / "absent.txt", ["AP"])


def test_no_query_in_common(tmp_path, data):
    qrels_table, _ = data
    path = tmp_path / "run.txt"
    path.write_text("other Q0 d1 1 1.5 t\n")
    with pytest.raises(InputError, match="no query in common"):
        evaluate_large(qrels_table, path, ["AP"])


def test_parquet_round_trip(tmp_path, data):
    qrels_table, run_table = data
    run = cranfield.Run.from_frame(run_table, name="mine")
    qrels = cranfield.Qrels.from_frame(qrels_table)
    run.to_parquet(tmp_path / "run.parquet")
    qrels.to_parquet(tmp_path / "qrels.parquet")
    back = cranfield.read_run(str(tmp_path / "run.parquet"))
    assert back.name == "mine"
    assert back.qid.to_pylist() == run.qid.to_pylist() and np.array_equal(back.score, run.score)
    back_qrels = cranfield.read_qrels(tmp_path / "qrels.parquet")
    assert np.array_equal(back_qrels.rel, qrels.rel)
    assert_same(cranfield.evaluate(qrels, run, MEASURES), cranfield.evaluate(back_qrels, back, MEASURES))


def test_parquet_dataset_directory(tmp_path, data):
    """A directory of Parquet files (hive-partitioned by query here) reads as one run."""
    import pyarrow.dataset as ds

    qrels_table, run_table = data
    ds.write_dataset(run_table, tmp_path / "runs", format="parquet", partitioning=["qid"],
                     partitioning_flavor="hive")
    run = cranfield.read_run(tmp_path / "runs")
    expected = cranfield.evaluate(qrels_table, run_table, MEASURES)
    assert_same(expected, cranfield.evaluate(qrels_table, run, MEASURES))
    assert_same(expected, evaluate_large(qrels_table, tmp_path / "runs", MEASURES, batch_rows=50))


def test_parquet_errors(tmp_path):
    pq.write_table(pa.table({"qid": ["q1"], "doc": ["d1"], "score": [1.0]}), tmp_path / "x.parquet")
    with pytest.raises(InputError, match="no column 'docno'"):
        cranfield.read_run(tmp_path / "x.parquet")
    pq.write_table(pa.table({"qid": ["q1"], "docno": ["d 1"], "score": [1.0]}), tmp_path / "y.parquet")
    with pytest.raises(InputError, match="whitespace"):
        cranfield.read_run(tmp_path / "y.parquet")
    pq.write_table(pa.table({"qid": ["q1", "q2"], "docno": ["d1", "d2"], "score": [1.0, None]}),
                   tmp_path / "z.parquet")
    with pytest.raises(InputError, match="null"):
        cranfield.read_run(tmp_path / "z.parquet")


def test_cli_low_memory(tmp_path, data):
    from click.testing import CliRunner

    from cranfield.cli import cli

    qrels_table, run_table = data
    cranfield.Qrels.from_frame(qrels_table).to_trec(tmp_path / "qrels")
    path = _write_text(tmp_path / "run.txt", _shuffle(run_table))
    args = ["evaluate", str(tmp_path / "qrels"), str(path), "-m", "AP", "-m", "nDCG@10", "-q", "-f", "json"]
    plain = CliRunner().invoke(cli, args)
    low = CliRunner().invoke(cli, [*args, "--low-memory"])
    assert plain.exit_code == 0 and low.exit_code == 0, low.output
    assert plain.output == low.output


def test_low_memory_threshold(tmp_path, monkeypatch):
    from cranfield.retrieval import large

    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 1.0 t\n")
    assert not large.use_low_memory(path) and large.use_low_memory(path, True) and not large.use_low_memory("-", True)
    monkeypatch.setattr(large, "LOW_MEMORY_BYTES", 4)
    assert large.use_low_memory(path)


def test_block_wise_reads_like_the_whole_file(tmp_path, monkeypatch):
    """The block-wise reader is the whole-file grammar: Unicode spaces stay inside ids, leading
    blanks are not fields, '#' lines are comments, whatever the block size (it used to split on
    Unicode whitespace and keep leading blanks: queries lost)."""
    import cranfield.retrieval.large as large

    lines = []
    for i in range(400):
        q = f"q\u00a0{i % 40}" if i % 3 else f"q{i % 40}"
        lines.append(f"{'  ' if i % 7 == 0 else ''}{q}\tQ0 d\u3000{i} {i} {1 / (i + 1)!r} tag\n")
        if i % 50 == 0:
            lines.append("# comment\n\n")
    path = tmp_path / "run.txt"
    path.write_text("".join(sorted(lines, key=lambda line: line.split()[0] if line[0] != "#" else "")),
                    encoding="utf-8")
    qrels = {(f"q\u00a0{i % 40}" if i % 3 else f"q{i % 40}"): {f"d\u3000{i}": 1} for i in range(0, 400, 9)}
    expected = cranfield.evaluate(qrels, cranfield.read_run(path), MEASURES)
    monkeypatch.setattr(large, "MIN_BLOCK_BYTES", 1)
    for batch_rows in (1, 7, 1000):
        assert_same(evaluate_large(qrels, path, MEASURES, batch_rows=batch_rows), expected)
    assert len(expected.query_ids) == len(qrels)
