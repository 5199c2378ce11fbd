"""``cranfield classify``: formats, JSON keys, input errors (exit 2, no traceback)."""

import json
import subprocess
import sys

import numpy as np
import pytest

import cranfield
from cranfield.cli import main

Y = [1, 0, 1, 0, 1, 1, 0, 0]
S = [0.9, 0.8, 0.7, 0.6, 0.55, 0.4, 0.2, 0.1]


@pytest.fixture
def csv_file(tmp_path):
    path = tmp_path / "scores.csv"
    lines = ["y,s,pred,name"] + [f"{y},{s},{int(s >= 0.5)},item{i}" for i, (y, s) in enumerate(zip(Y, S))]
    path.write_text("\n".join(lines) + "\n")
    return path


def run_json(args, capsys):
    assert main(args + ["--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_keys_and_values(csv_file, capsys):
    report = run_json([ "classify", str(csv_file), "--truth", "y", "--score", "s", "--threshold", "0.5"], capsys)
    assert report["threshold"] == 0.5
    assert report["confusion_matrix"]["labels"] == [0, 1]
    # at 0.5: predicted positive = scores ≥ 0.5 → TP 3 (0.9, 0.7, 0.55), FP 2 (0.8, 0.6), FN 1, TN 2
    assert report["confusion_matrix"]["matrix"] == [[2, 2], [1, 3]]
    for key in ("precision", "recall", "specificity", "npv", "fpr", "fnr", "fdr", "for", "accuracy",
                "balanced_accuracy", "f1", "mcc", "kappa"):
        assert key in report["metrics"]
    assert report["metrics"]["precision"] == pytest.approx(3 / 5)
    assert report["metrics"]["for"] == pytest.approx(1 / 3)
    assert report["roc_auc"] == pytest.approx(cranfield.roc_auc(Y, S))
    assert report["average_precision"] == pytest.approx(cranfield.average_precision(Y, S))
    assert report["eer"] == pytest.approx(cranfield.equal_error_rate(Y, S))
    assert report["baselines"]["majority_accuracy"] == 0.5


def test_optimize_and_pred_and_formats(csv_file, tmp_path, capsys):
    report = run_json(["classify", str(csv_file), "--truth", "y", "--score", "s", "--optimize", "cost",
                       "--cost-fn", "4"], capsys)
    expected = cranfield.best_threshold(Y, S, criterion="cost", cost_fn=4)
    assert report["threshold"] == expected.threshold and report["criterion"]["value"] == pytest.approx(expected.value)
    report = run_json(["classify", str(csv_file), "--truth", "y", "--pred", "pred"], capsys)
    assert report["threshold"] is None and "roc_auc" not in report
    assert report["confusion_matrix"]["matrix"] == [[2, 2], [1, 3]]
    for fmt in ("table", "csv", "tsv", "markdown", "latex"):
        assert main(["classify", str(csv_file), "--truth", "y", "--score", "s", "--format", fmt]) == 0
        out = capsys.readouterr().out
        assert "precision" in out
    out_file = tmp_path / "out.md"
    assert main(["classify", str(csv_file), "--truth", "y", "--pred", "pred", "--format", "markdown",
                 "-o", str(out_file)]) == 0
    assert "| precision |" in out_file.read_text()


def test_tsv_parquet_strings_and_multiclass(tmp_path, capsys):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    table = pa.table({"gold": ["spam", "ham", "spam", "ham"], "p": [0.9, 0.2, 0.4, 0.6]})
    pq.write_table(table, tmp_path / "x.parquet")
    report = run_json(["classify", str(tmp_path / "x.parquet"), "--truth", "gold", "--score", "p",
                       "--positive", "spam"], capsys)
    assert report["confusion_matrix"]["positive"] == "spam" and report["roc_auc"] == 0.75
    assert main(["classify", str(tmp_path / "x.parquet"), "--truth", "gold", "--score", "p"]) == 2
    assert "--positive" in capsys.readouterr().err
    tsv = tmp_path / "m.tsv"
    tsv.write_text("t\tp\na\ta\nb\tc\nc\tc\na\tb\n")
    report = run_json(["classify", str(tsv), "--truth", "t", "--pred", "p"], capsys)
    assert report["average"] == "macro" and report["metrics"]["accuracy"] == 0.5
    assert np.array(report["confusion_matrix"]["matrix"]).shape == (3, 3)


@pytest.mark.parametrize("content, args, message", [
    ("y,s\n1,0.5\n0,abc\n", ["--score", "s"], ":3: field s: expected a number, found 'abc'"),
    ("y,s\n1,0.5\n0,nan\n", ["--score", "s"], ":3: field s: expected a value, found an empty or missing one"),
    ("y,s\n1,0.5\n,0.2\n", ["--score", "s"], ":3: field y: expected a value"),
    ("y,s\n1,0.5\n0,inf\n", ["--score", "s"], ":3: field s: expected a finite number, found inf"),
    ("y,s\n1,0.5\n0,0.2\n", ["--score", "q"], "no column 'q'"),
    ("y,s\n1,0.5\n0,0.2\n", [], "give --score COL, --pred COL or both"),
    ("y,s\n1,0.5\n0,0.2\n", ["--score", "s", "--threshold", "1", "--optimize", "f1"], "exclude each other"),
    ("y,s\n1,0.5\n0,0.2,7\n", ["--score", "s"], ":3: expected 2 fields as in the header, found 3"),
])
def test_errors_exit_2_without_traceback(tmp_path, content, args, message):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    out = subprocess.run([sys.executable, "-m", "cranfield", "classify", str(path), "--truth", "y", *args],
                         capture_output=True, text=True)
    assert out.returncode == 2
    assert message in out.stderr and "Traceback" not in out.stderr
    assert out.stderr.startswith("cranfield: error:")


def test_missing_file(capsys):
    assert main(["classify", "/nonexistent/file.csv", "--truth", "y", "--score", "s"]) == 2
    assert "no such file" in capsys.readouterr().err
