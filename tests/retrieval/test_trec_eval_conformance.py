"""Byte-for-byte conformance with trec_eval's own test suite (expected outputs of trec_eval
9.0.8 and 10.0, copied from NIST's distribution into tests/data/trec_eval)."""

from __future__ import annotations

import shlex
import subprocess
import sys

import pytest

from cranfield.cli import main

CASES = [
    ("out.test", "qrels.test results.test"),
    ("out.test.a", "-m all_trec qrels.test results.test"),
    ("out.test.aq", "-m all_trec -q qrels.test results.test"),
    ("out.test.aqc", "-m all_trec -q -c qrels.test results.trunc"),
    ("out.test.aqcM", "-m all_trec -q -c -M100 qrels.test results.trunc"),
    ("out.test.aql", "-m all_trec -mrelstring.20 -q -l2 qrels.rel_level results.test"),
    ("out.test.meas_params",
     "-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 -m Rprec_mult.5.0,0.2,0.35 "
     "-mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 -mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20 "
     "qrels.test results.test"),
]
EXTRA_10 = [
    ("out.test", "qrels.test.with-comments results.test"),
    ("out.comment.test", "qrels.comment.test results.comment.test"),
]


def _run(trec_dir, args: str, version: str, capsys, monkeypatch) -> str:
    monkeypatch.chdir(trec_dir)
    status = main(["trec_eval", "--trec-eval-version", version, *shlex.split(args)])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    return captured.out


@pytest.mark.parametrize("version,folder", [("9", "expected-9.0.8"), ("10", "expected-10.0")])
@pytest.mark.parametrize("expected,args", CASES)
def test_identical_to_trec_eval(trec_dir, capsys, monkeypatch, version, folder, expected, args):
    output = _run(trec_dir, args, version, capsys, monkeypatch)
    assert output == (trec_dir / folder / expected).read_text()


@pytest.mark.parametrize("expected,args", EXTRA_10)
def test_comments_and_hash_in_docnos(trec_dir, capsys, monkeypatch, expected, args):
    output = _run(trec_dir, args, "10", capsys, monkeypatch)
    assert output == (trec_dir / "expected-10.0" / expected).read_text()


def test_versions_differ_where_documented(trec_dir, capsys, monkeypatch):
    nine = _run(trec_dir, "-m iprec_at_recall qrels.test results.test", "9", capsys, monkeypatch)
    ten = _run(trec_dir, "-m iprec_at_recall qrels.test results.test", "10", capsys, monkeypatch)
    assert "0.0822" in nine and "0.0858" in ten


def test_console_script_reads_stdin(trec_dir):
    with open(trec_dir / "results.test", "rb") as handle:
        done = subprocess.run([sys.executable, "-m", "cranfield", "trec_eval", str(trec_dir / "qrels.test"), "-"],
                              stdin=handle, capture_output=True, check=True)
    assert done.stdout.decode() == (trec_dir / "expected-9.0.8" / "out.test").read_text()


def test_illegal_measure_exits_2_without_traceback(trec_dir):
    done = subprocess.run([sys.executable, "-m", "cranfield", "trec_eval", "-m", "mapp",
                           str(trec_dir / "qrels.test"), str(trec_dir / "results.test")], capture_output=True, text=True)
    assert done.returncode == 2
    assert "illegal measure 'mapp'" in done.stderr and "map" in done.stderr
    assert "Traceback" not in done.stderr
