"""TREC readers: accepted variants and clear errors (file, line, field, found, expected)."""

from __future__ import annotations

import gzip
import subprocess
import sys

import numpy as np
import pytest

import cranfield
import cranfield.cli
from cranfield import InputError

RUN = "q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 1.5 tag\nq2 Q0 d1 1 0.5 tag\n"
QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 2\n"


def write(tmp_path, name, content, mode="w"):
    path = tmp_path / name
    if mode == "wb":
        path.write_bytes(content)
    else:
        path.write_text(content)
    return path


def test_plain_tabs_mixed_blanks_crlf_bom_comments_agree(tmp_path):
    variants = {
        "plain": RUN,
        "tabs": RUN.replace(" ", "\t"),
        "mixed": "q1 \t Q0\td1   1 2.5\t tag\nq1 Q0 d2 2 1.5 tag\n\nq2 Q0 d1 1 0.5 tag\n",
        "crlf": RUN.replace("\n", "\r\n"),
        "bom": "\ufeff" + RUN,
        "comments": "# a comment\n" + RUN + "# trailing comment line\n",
        "extra fields ignored": RUN.replace("tag\n", "tag more junk\n"),
    }
    qrels = cranfield.Qrels.from_dict({"q1": {"d1": 1, "d2": 0}, "q2": {"d1": 2}})
    expected = cranfield.evaluate(qrels, cranfield.Run.from_dict({"q1": {"d1": 2.5, "d2": 1.5}, "q2": {"d1": 0.5}}),
                                  ["AP", "P@1", "NumRet"]).mean
    for name, text in variants.items():
        run = cranfield.read_run(write(tmp_path, "run.txt", text))
        assert run.name == "tag", name
        assert cranfield.evaluate(qrels, run, ["AP", "P@1", "NumRet"]).mean == expected, name


def test_gzip_and_stdin(tmp_path):
    path = write(tmp_path, "run.txt.gz", gzip.compress(RUN.encode()), "wb")
    assert len(cranfield.read_run(path)) == 3
    code = ("import sys, cranfield; r = cranfield.read_run('-'); print(len(r), r.name)")
    out = subprocess.run([sys.executable, "-c", code], input=RUN, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["3", "tag"]


@pytest.mark.parametrize("content,message", [
    ("q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2.5 tag\n", 'run.txt:2: expected 6 fields "qid Q0 docno rank score tag", found 5'),
    ("q1 Q0 d1 1 abc tag\n", "run.txt:1: field score: expected a number, found 'abc'"),
    ("q1 Q0 d1 1 nan tag\n", "run.txt:1: field score: expected a finite number, found 'nan'"),
    ("q1 Q0 d1 1 inf tag\n", "run.txt:1: field score: expected a finite number, found 'inf'"),
    ("", "run.txt: empty file"),
    ("# only a comment\n\n", "run.txt: no run lines (only comments or blank lines)"),
    ("q1 Q0 d1 1 1.0 t\nq1 Q0 d1 2 0.5 t\n", "run.txt:2: field docno: document 'd1' retrieved twice for query 'q1' (also on line 1)"),
])
def test_run_errors(tmp_path, content, message):
    path = write(tmp_path, "run.txt", content)
    qrels = cranfield.Qrels.from_dict({"q1": {"d1": 1}})
    with pytest.raises(InputError) as info:
        cranfield.evaluate(qrels, cranfield.read_run(path), ["AP"])
    assert str(info.value).endswith(message) or message in str(info.value)
    assert str(path.name) in str(info.value)


@pytest.mark.parametrize("content,message", [
    ("q1 0 d1\n", 'qrels.txt:1: expected 4 fields "qid iter docno rel", found 3'),
    ("q1 0 d1 1\nq1 0 d2 high\n", "qrels.txt:2: field rel: expected an integer relevance, found 'high'"),
    ("q1 0 d1 1\nq1 0 d1 0\n", "qrels.txt:2: field docno: duplicate judgment for query 'q1', document 'd1' (also on line 1)"),
])
def test_qrels_errors(tmp_path, content, message):
    path = write(tmp_path, "qrels.txt", content)
    with pytest.raises(InputError) as info:
        cranfield.Evaluator(cranfield.read_qrels(path), ["AP"])
    assert message in str(info.value)


def test_binary_and_bad_encoding(tmp_path):
    path = write(tmp_path, "run.bin", b"q1 Q0 d1 1 1.0 t\nq1 Q0 d\xff\xfe 2 0.5 t\n", "wb")
    with pytest.raises(InputError, match=r"run.bin:2: field docno: invalid UTF-8 byte 0xff"):
        cranfield.read_run(path)


def test_truncated_gzip(tmp_path):
    data = gzip.compress(RUN.encode() * 100)
    path = write(tmp_path, "run.txt.gz", data[: len(data) // 2], "wb")
    with pytest.raises(InputError, match="corrupt or truncated gzip"):
        cranfield.read_run(path)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        cranfield.read_run(tmp_path / "nope.txt")
    with pytest.raises(InputError, match="is a directory"):
        cranfield.read_run(tmp_path)


def test_no_common_query_is_reported(tmp_path):
    qrels = cranfield.Qrels.from_dict({"a": {"d1": 1}})
    run = cranfield.Run.from_dict({"b": {"d1": 1.0}})
    with pytest.raises(InputError, match="no query in common"):
        cranfield.evaluate(qrels, run, ["AP"])


def test_dict_and_frame_inputs_agree(tmp_path):
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    qrels_path = write(tmp_path, "qrels.txt", QRELS)
    run_path = write(tmp_path, "run.txt", RUN)
    from_files = cranfield.evaluate(qrels_path, run_path, ["AP", "nDCG"]).mean
    run_frame = pd.DataFrame({"qid": ["q1", "q1", "q2"], "docno": ["d1", "d2", "d1"], "score": [2.5, 1.5, 0.5]})
    qrels_frame = pd.DataFrame({"qid": ["q1", "q1", "q2"], "docno": ["d1", "d2", "d1"], "rel": [1, 0, 2]})
    assert cranfield.evaluate(qrels_frame, run_frame, ["AP", "nDCG"]).mean == from_files
    assert cranfield.evaluate(pl.from_pandas(qrels_frame), pl.from_pandas(run_frame), ["AP", "nDCG"]).mean == from_files
    import pyarrow as pa
    assert cranfield.evaluate(pa.Table.from_pandas(qrels_frame), pa.Table.from_pandas(run_frame),
                              ["AP", "nDCG"]).mean == from_files


def test_frame_errors_name_row_and_column():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"qid": ["q1", "q1"], "docno": ["d1", "d2"], "score": [1.0, float("nan")]})
    with pytest.raises(InputError, match=r"run frame:2: field score: missing value"):
        cranfield.Run.from_frame(frame)
    with pytest.raises(InputError, match=r"no column 'score'"):
        cranfield.Run.from_frame(frame.rename(columns={"score": "s"}))
    with pytest.raises(InputError, match=r"contains whitespace"):
        cranfield.Run.from_dict({"q 1": {"d": 1.0}})


def test_write_round_trip(tmp_path):
    run = cranfield.read_run(write(tmp_path, "run.txt", RUN))
    run.to_trec(tmp_path / "out.run")
    again = cranfield.read_run(tmp_path / "out.run")
    assert again.to_dict() == run.to_dict()
    qrels = cranfield.read_qrels(write(tmp_path, "qrels.txt", QRELS))
    qrels.to_trec(tmp_path / "out.qrels")
    assert cranfield.read_qrels(tmp_path / "out.qrels").to_dict() == qrels.to_dict()


def test_reading_does_not_modify_inputs():
    data = {"q1": {"d1": 2.0, "d2": 1.0}}
    snapshot = {"q1": dict(data["q1"])}
    cranfield.evaluate({"q1": {"d1": 1}}, data, ["AP"])
    assert data == snapshot


def test_float64_ties_not_float32(tmp_path):
    """Scores equal in float32 but not in float64 are not tied (trec_eval 9.0.8 reads doubles)."""
    a, b = 1.0000000001, 1.0000000002  # same float32, different float64
    assert np.float32(a) == np.float32(b) and a != b
    qrels = {"q": {"x": 1, "y": 0}}
    # y has the higher double score: ranked first although "y" > "x" would also win a tie
    run = {"q": {"x": a, "y": b}}
    assert cranfield.evaluate(qrels, run, ["RR"]).mean["RR"] == 0.5
    run = {"q": {"x": b, "y": a}}
    assert cranfield.evaluate(qrels, run, ["RR"]).mean["RR"] == 1.0


def test_cli_bad_input_exit_2_no_traceback(tmp_path):
    bad = write(tmp_path, "run.txt", "q1 Q0 d1 1\n")
    qrels = write(tmp_path, "qrels.txt", QRELS)
    done = subprocess.run([sys.executable, "-m", "cranfield", "evaluate", str(qrels), str(bad)],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.strip() == f'cranfield: error: {bad}:1: expected 6 fields "qid Q0 docno rank score tag", found 4 ' \
        '(a qrels line: are the QRELS and RUN arguments swapped?)'


def test_output_is_atomic_on_error(tmp_path):
    qrels = write(tmp_path, "qrels.txt", QRELS)
    out = tmp_path / "out.json"
    out.write_text("previous content")
    status = cranfield.cli.main(["evaluate", str(qrels), str(tmp_path / "missing.run"), "-o", str(out)])
    assert status == 2
    assert out.read_text() == "previous content"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out.json")] == []


def test_dialect_keyword_on_every_reader(tmp_path):
    """`dialect=` on read_qrels/read_run/from_file and the block-wise iterator: '#' is a comment
    in cranfield's dialect, an id character in trec_eval 9.0.8's."""
    from cranfield.io.blocks import iter_run_blocks

    run = write(tmp_path, "run.txt", "#q0 Q0 d1 1 2.5 tag\n" + RUN)
    qrels = write(tmp_path, "qrels.txt", "#q0 0 d1 1\n" + QRELS)
    assert cranfield.read_run(run).query_ids == ["q1", "q2"]
    assert cranfield.read_run(run, dialect="trec_eval-9").query_ids == ["#q0", "q1", "q2"]
    assert cranfield.Run.from_file(run, dialect="trec_eval-10").query_ids == ["q1", "q2"]
    assert cranfield.read_qrels(qrels, dialect="trec_eval-9").query_ids == ["#q0", "q1", "q2"]
    assert cranfield.Qrels.from_file(qrels, dialect="cranfield").query_ids == ["q1", "q2"]
    blocks = list(iter_run_blocks(run, block_bytes=16, dialect="trec_eval-9"))
    assert sum(len(b) for b in blocks) == 4 and blocks[0].qid.to_pylist() == ["#q0"]
    assert [int(x) for b in blocks for x in b.line_numbers()] == [1, 2, 3, 4]


def test_line_numbers_after_skipped_lines_and_across_blocks(tmp_path, monkeypatch):
    """Rows keep their file line numbers (comments, blank lines and block edges in between)."""
    import cranfield.io.trec as trec

    text = "# c\n\nq1 Q0 d1 1 2.5 tag\n  \nq1 Q0 d2 2 1.5 tag\r\n# x\nq2 Q0 d1 1 0.5 tag"
    path = write(tmp_path, "run.txt", text)
    for chunk in (1 << 20, 1, 5, 19):
        monkeypatch.setattr(trec, "CHUNK_BYTES", chunk)
        run = cranfield.read_run(path)
        assert run.lines.tolist() == [3, 5, 7] and run.to_dict() == {"q1": {"d1": 2.5, "d2": 1.5}, "q2": {"d1": 0.5}}
        assert run.name == "tag"


def test_file_objects_and_gzip_stream(tmp_path):
    import io

    assert len(cranfield.Run.from_file(io.BytesIO(RUN.encode()))) == 3
    data = gzip.compress(("\ufeff" + RUN * 1000).encode())  # decompressed as a stream, BOM dropped
    path = write(tmp_path, "run.gz", data, "wb")
    run = cranfield.read_run(path, dialect="trec_eval-9")
    assert len(run) == 3000 and run.query_ids == ["q1", "q2"]
