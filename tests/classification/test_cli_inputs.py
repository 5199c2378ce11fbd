"""``cranfield classify``: several --score columns, --pred rules, threshold notes, input rules of files."""

import csv
import io
import json

import numpy as np
import pytest

import cranfield
from cranfield.classification.file_report import classify_file as evaluate_file
from cranfield.cli import main
from cranfield.errors import InputError, UsageError

Y = [1, 0, 1, 0, 1, 1, 0, 0]
A = [0.9, 0.8, 0.7, 0.6, 0.55, 0.4, 0.2, 0.1]
B = [0.3, 0.1, 0.8, 0.7, 0.9, 0.2, 0.5, 0.4]


@pytest.fixture
def scores_csv(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text("y,a,b\n" + "".join(f"{y},{a},{b}\n" for y, a, b in zip(Y, A, B)))
    return path


def run(args, capsys, status=0):
    assert main(args) == status
    return capsys.readouterr()


def test_every_score_is_evaluated_and_named(scores_csv, capsys):
    """Issue 13: before, --score a --score b evaluated only b and named no system."""
    out = run(["classify", str(scores_csv), "--truth", "y", "--score", "a", "--score", "b", "--format", "json"],
              capsys).out
    report = json.loads(out)
    assert list(report["systems"]) == ["a", "b"] and report["n"] == 8 and report["truth"] == "y"
    for name, scores in (("a", A), ("b", B)):
        system = report["systems"][name]
        assert system["system"] == name
        assert system["roc_auc"] == cranfield.roc_auc(Y, scores)
        assert system["average_precision"] == cranfield.average_precision(Y, scores)
        alone = json.loads(run(["classify", str(scores_csv), "--truth", "y", "--score", name, "--format", "json"],
                               capsys).out)
        assert alone == system  # each system's report is the one it gets alone
    assert report["systems"]["a"]["roc_auc"] != report["systems"]["b"]["roc_auc"]


def test_several_scores_in_tables_have_a_system_column(scores_csv, capsys):
    out = run(["classify", str(scores_csv), "--truth", "y", "--score", "a", "--score", "b", "--format", "csv"],
              capsys).out
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["system", "measure", "value"]
    auc = {r[0]: float(r[2]) for r in rows[1:] if r[1] == "roc_auc"}
    assert auc == {"a": cranfield.roc_auc(Y, A), "b": cranfield.roc_auc(Y, B)}
    out = run(["classify", str(scores_csv), "--truth", "y", "--score", "a", "--score", "b", "--optimize", "f1",
               "--format", "markdown"], capsys).out
    assert "confusion matrix of a" in out and "confusion matrix of b" in out and "| system |" in out
    thresholds = {r[0]: r[2] for r in rows[1:] if r[1] == "threshold"}
    assert set(thresholds) == {"a", "b"}
    # a repeated column is evaluated once; the truth column cannot be a score
    report = evaluate_file(str(scores_csv), truth="y", score=["a", "a"])
    assert report["system"] == "a" and "systems" not in report
    with pytest.raises(UsageError, match="the truth column 'y' cannot also be a --score"):
        evaluate_file(str(scores_csv), truth="y", score=["a", "y"])


def test_pred_with_several_scores_is_a_usage_error(scores_csv, capsys):
    err = run(["classify", str(scores_csv), "--truth", "y", "--score", "a", "--score", "b", "--pred", "y"],
              capsys, status=2).err
    assert err.startswith("cranfield: error: --pred gives one system's classes") and err.count("\n") == 1


@pytest.mark.parametrize("threshold, note, matrix", [
    ("-inf", "the threshold is -inf (null in JSON): every sample is predicted positive", [[0, 4], [0, 4]]),
    ("inf", "the threshold is +inf (null in JSON): no sample is predicted positive", [[4, 0], [4, 0]]),
])
def test_infinite_threshold_notes(scores_csv, capsys, threshold, note, matrix):
    """Before: --threshold -inf said 'nothing is predicted positive' while everything was."""
    report = json.loads(run(["classify", str(scores_csv), "--truth", "y", "--score", "a", "--threshold", threshold,
                             "--format", "json"], capsys).out)
    assert report["threshold"] is None and report["notes"] == [note]
    assert report["confusion_matrix"]["matrix"] == matrix


def test_pred_refuses_scores(tmp_path, capsys):
    """Before: --pred on a score column built a matrix with one class per distinct score."""
    path = tmp_path / "p.csv"
    path.write_text("y,s,p\n1,0.9,1.0\n0,0.25,0.0\n1,0.7,1.0\n")
    err = run(["classify", str(path), "--truth", "y", "--pred", "s"], capsys, status=2).err
    assert err == (f"cranfield: error: {path}:2: field s: expected a predicted class, found the number 0.9: --pred "
                   "takes class labels; for scores use --score s\n")
    report = json.loads(run(["classify", str(path), "--truth", "y", "--pred", "p", "--format", "json"], capsys).out)
    assert report["confusion_matrix"]["labels"] == [0, 1] and report["confusion_matrix"]["matrix"] == [[1, 0], [0, 2]]


def test_pred_with_too_many_classes(tmp_path, capsys):
    path = tmp_path / "many.csv"
    path.write_text("y,p\n" + "".join(f"{i % 2},{i}\n" for i in range(1001)))
    err = run(["classify", str(path), "--truth", "y", "--pred", "p"], capsys, status=2).err
    assert ("field p: expected at most 1000 predicted classes, found 1001 distinct values; for scores use --score p"
            in err)
    err = run(["classify", str(path), "--truth", "p", "--pred", "y"], capsys, status=2).err
    assert "field p: found 1001 distinct labels; at most 1000 classes are supported" in err


def test_truth_and_pred_of_different_types(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("y,p\nspam,1\nham,0\n")
    err = run(["classify", str(path), "--truth", "y", "--pred", "p"], capsys, status=2).err
    assert err == (f"cranfield: error: {path}:2: field p: expected labels of the same type as y (string, e.g. 'spam'), "
                   "found 1 (number)\n")


def test_integers_beyond_2_53_in_files(tmp_path, capsys):
    """Integer scores that float64 would tie: an error naming both lines, whether Arrow reads the
    column as int64 or (with a value beyond int64) as doubles; Parquet int64 too."""
    big = 2**53
    csv_path = tmp_path / "int.csv"
    csv_path.write_text(f"y,s\n1,{big + 1}\n0,{big}\n")
    with pytest.raises(InputError) as info:
        evaluate_file(str(csv_path), truth="y", score="s")
    assert info.value.line == 3 and info.value.field == "s" and "(line 2)" in str(info.value)
    huge = tmp_path / "huge.csv"
    huge.write_text(f"y,s\n1,{big + 1}\n0,{big}\n1,{2**64}\n")
    with pytest.raises(InputError, match="would tie as float64: 9007199254740992 and 9007199254740993 .line 2."):
        evaluate_file(str(huge), truth="y", score="s")
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"y": [1, 0, 1], "s": pa.array([big + 1, 3, big], pa.int64())}), tmp_path / "i.parquet")
    with pytest.raises(InputError) as info:
        evaluate_file(str(tmp_path / "i.parquet"), truth="y", score="s")
    assert info.value.line == 3 and "(line 1)" in str(info.value)
    # integers that float64 keeps apart: exact ordering, accepted
    exact = tmp_path / "exact.csv"
    exact.write_text(f"y,s\n1,{2**60 + 512}\n0,{2**60}\n1,{2**60 + 256}\n0,{2**60 - 256}\n")
    assert evaluate_file(str(exact), truth="y", score="s")["roc_auc"] == 1.0


def test_parquet_label_columns(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"y": pa.array([1, 0, None]), "s": [0.1, 0.2, 0.3]}), tmp_path / "n.parquet")
    with pytest.raises(InputError) as info:
        evaluate_file(str(tmp_path / "n.parquet"), truth="y", score="s")
    assert info.value.line == 3 and info.value.field == "y"
    pq.write_table(pa.table({"y": [True, False, True], "p": [1, 0, 0]}), tmp_path / "b.parquet")
    report = evaluate_file(str(tmp_path / "b.parquet"), truth="y", pred="p")
    assert report["confusion_matrix"]["matrix"] == [[1, 0], [1, 1]]
    pq.write_table(pa.table({"y": ["1", "0"], "p": [1, 0]}), tmp_path / "m.parquet")
    with pytest.raises(InputError, match="expected labels of the same type as y"):
        evaluate_file(str(tmp_path / "m.parquet"), truth="y", pred="p")
    assert np.isfinite(evaluate_file(str(tmp_path / "b.parquet"), truth="y", score="p")["roc_auc"])


def test_tables_are_opened_like_every_other_input(scores_csv, tmp_path, capsys):
    """The table goes through the one opener (io.sources): compression by its magic bytes, not
    the file name, and a FIFO read once (before: 'no such file', and gzip bytes named .dat were
    read as text)."""
    import gzip
    import os
    import threading

    data = scores_csv.read_bytes()
    def roc_auc(path):
        return json.loads(run(["classify", str(path), "--truth", "y", "--score", "a", "--format", "json"],
                              capsys).out)["roc_auc"]

    expected = roc_auc(scores_csv)
    packed = tmp_path / "scores.dat"
    packed.write_bytes(gzip.compress(data))
    # ".dat" is not ".tsv/.tab/.txt": the comma separator, as for the CSV itself
    assert roc_auc(packed) == expected == cranfield.roc_auc(Y, A)
    fifo = tmp_path / "scores.csv.fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(data))
    writer.start()
    got = roc_auc(fifo)
    writer.join(timeout=20)
    assert not writer.is_alive() and got == expected


def test_integers_beyond_2_53_read_once_from_a_fifo_or_a_compressed_file(tmp_path):
    """The exact texts of integers beyond 2**53 come from the bytes read once, not a second read
    of the path (a FIFO is empty the second time; a gzip file without .gz is bytes Arrow cannot read)."""
    import gzip
    import os
    import threading

    big = 2**53
    text = f"y,s\n1,{big + 1}\n0,{big}\n1,{2**64}\n".encode()
    hidden = tmp_path / "scores.csv"  # gzip bytes under a .csv name: recognised by their magic bytes
    hidden.write_bytes(gzip.compress(text))
    with pytest.raises(InputError, match="would tie as float64: 9007199254740992 and 9007199254740993 .line 2."):
        evaluate_file(str(hidden), truth="y", score="s")
    if not hasattr(os, "mkfifo"):
        return
    fifo = tmp_path / "fifo.csv"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(text))
    writer.start()
    try:
        with pytest.raises(InputError, match="would tie as float64: 9007199254740992 and 9007199254740993 .line 2."):
            evaluate_file(str(fifo), truth="y", score="s")
    finally:
        writer.join(timeout=10)
