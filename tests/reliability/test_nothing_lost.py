"""Nothing lost (issue 9): outputs are written atomically, an interrupted write (exception,
KeyboardInterrupt, a real SIGINT to the command line) leaves no partial file, and reading
never modifies inputs (files' bytes and mtimes, dicts, frames, arrays)."""

from __future__ import annotations

import copy
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import cranfield
import cranfield.cli
from cranfield.io.atomic import atomic_write, write_text_output

CORPUS = Path(__file__).resolve().parent / "corpus"
QRELS = {"q1": {"d1": 1, "d2": 0}, "q2": {"d1": 2, "d3": 1}}
RUN = {"q1": {"d1": 2.5, "d2": 1.5}, "q2": {"d1": 0.5, "d3": 0.7}}


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


# ----------------------------------------------------------------------------- interrupted writes


@pytest.mark.parametrize("interruption", [RuntimeError, KeyboardInterrupt])
@pytest.mark.parametrize("existing", [True, False])
def test_atomic_write_interrupted_mid_write(tmp_path, interruption, existing):
    target = tmp_path / "out.txt"
    if existing:
        target.write_text("previous content")
    with pytest.raises(interruption):
        with atomic_write(target) as handle:
            handle.write("x" * 100_000)
            handle.flush()
            assert _leftovers(tmp_path)  # the partial data is in a temporary file, not in the target
            raise interruption()
    assert (target.read_text() == "previous content") if existing else not target.exists()
    assert _leftovers(tmp_path) == []


def test_completed_write_replaces_in_one_step(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("previous content")
    write_text_output("new content\n", target)
    assert target.read_text() == "new content\n" and _leftovers(tmp_path) == []


class _Interrupting(str):
    """A run tag that raises KeyboardInterrupt when the writer formats its 500th line."""

    calls = 0

    def __format__(self, spec):
        type(self).calls += 1
        if type(self).calls == 500:
            raise KeyboardInterrupt
        return str.__format__(self, spec)


def test_run_to_trec_interrupted_leaves_no_file(tmp_path):
    run = cranfield.Run.from_dict({f"q{q}": {f"d{d}": float(d) for d in range(100)} for q in range(10)})
    target = tmp_path / "out.run"
    _Interrupting.calls = 0
    with pytest.raises(KeyboardInterrupt):
        run.to_trec(target, tag=_Interrupting("tag"))
    assert _Interrupting.calls == 500
    assert not target.exists() and _leftovers(tmp_path) == []
    run.to_trec(target)  # and an uninterrupted write gives every line
    assert len(target.read_text().splitlines()) == 1000


def test_qrels_to_trec_interrupted_keeps_the_previous_file(tmp_path):
    qrels = cranfield.Qrels.from_dict(QRELS)
    target = tmp_path / "out.qrels"
    target.write_text("previous content")

    def lines(table):
        yield "q1 0 d1 1\n"
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        qrels._write_lines(target, lines(qrels))
    assert target.read_text() == "previous content" and _leftovers(tmp_path) == []


def test_figure_interrupted_leaves_no_file(tmp_path):
    pytest.importorskip("matplotlib")
    from cranfield.plots._base import save_figure

    class Figure:
        def savefig(self, handle, **kwargs):
            handle.write(b"\x89PNG partial")
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        save_figure(Figure(), tmp_path / "roc.png")
    assert list(tmp_path.iterdir()) == []


def test_cli_error_keeps_the_previous_output(tmp_path):
    out = tmp_path / "out.json"
    out.write_text("previous content")
    status = cranfield.cli.main(["evaluate", str(CORPUS / "good.qrels"), str(CORPUS / "run_score_nan.txt"), "-o",
                                 str(out)])
    assert status == 2 and out.read_text() == "previous content" and _leftovers(tmp_path) == []


# The child waits for the signal itself, for as long as it takes (no sleep tied to the machine's
# speed), and restores the default dispositions first: a test run started under nohup, in the
# background of a non-interactive shell or by a runner that ignores SIGHUP/SIGINT passes them on
# as SIG_IGN, and the command line rightly leaves an ignored signal ignored (issue 24, cause 9).
_PAUSE_IN_WRITE = """
import signal, sys, threading
import cranfield.io.atomic as atomic
from cranfield.cli import main

signal.signal(signal.SIGINT, signal.default_int_handler)
signal.signal(signal.SIGTERM, signal.SIG_DFL)
signal.signal(signal.SIGHUP, signal.SIG_DFL)

def fsync(fd):  # the output is written but not yet renamed: say so, and wait for the signal
    print("WRITING", file=sys.stderr, flush=True)
    threading.Event().wait()  # returns only by the exception the signal handler raises

atomic.os.fsync = fsync
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize("signum, status", [(signal.SIGINT, 130), (signal.SIGTERM, 128 + signal.SIGTERM),
                                             (signal.SIGHUP, 128 + signal.SIGHUP)])
def test_signal_while_the_cli_writes_leaves_no_partial_file(tmp_path, signum, status):
    """A real SIGINT, SIGTERM or SIGHUP delivered while `cranfield evaluate -o` is writing its
    output (the subprocess in its own session: the signal reaches it alone, under pytest -n)."""
    out = tmp_path / "out.json"
    out.write_text("previous content")
    process = subprocess.Popen([sys.executable, "-c", _PAUSE_IN_WRITE, "evaluate", str(CORPUS / "good.qrels"),
                                str(CORPUS / "good.run"), "-q", "-f", "json", "-o", str(out)],
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert process.stderr.readline().strip() == "WRITING"
        assert _leftovers(tmp_path)  # the temporary file is there, full, not yet renamed
        process.send_signal(signum)
        returned = process.wait(timeout=600)  # a safety net only: the child exits on the signal, at once
        err = process.stderr.read()
    finally:
        process.kill()
        process.stderr.close()
    expected = "cranfield: interrupted" + ("" if signum == signal.SIGINT else f" ({signal.Signals(signum).name})")
    assert returned == status and err.strip() == expected
    assert out.read_text() == "previous content" and _leftovers(tmp_path) == []


# the command line with Ctrl-C's default handler, even when the test run ignores SIGINT (see above)
_DEFAULT_SIGINT = """
import signal, sys
signal.signal(signal.SIGINT, signal.default_int_handler)
from cranfield.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_sigint_at_any_time_gives_no_or_a_complete_output(tmp_path):
    """SIGINT to a CLI evaluating a large run: the output is absent or complete, never partial."""
    run = tmp_path / "big.run"
    qrels = tmp_path / "big.qrels"
    with open(run, "w") as handle:
        for q in range(4000):
            handle.writelines(f"q{q} Q0 d{d} {d} {100 - d} tag\n" for d in range(25))
    with open(qrels, "w") as handle:
        handle.writelines(f"q{q} 0 d{q % 25} 1\n" for q in range(4000))
    out = tmp_path / "out.json"
    absent = 0
    for delay in (0.2, 0.5, 1.0, 3.0):
        process = subprocess.Popen([sys.executable, "-c", _DEFAULT_SIGINT, "evaluate", str(qrels), str(run), "-q",
                                    "-f", "json", "-o", str(out)], stderr=subprocess.PIPE, text=True,
                                   start_new_session=True)
        time.sleep(delay)
        process.send_signal(signal.SIGINT)
        status = process.wait(timeout=120)
        process.stderr.close()
        assert status in (0, 130, -signal.SIGINT), status
        if out.exists():  # finished before the signal: complete, valid JSON with every query
            document = json.loads(out.read_text())
            # -q JSON is the tidy long table: one record per run × measure × query
            assert len({row["qid"] for row in document if row["measure"] == "AP"}) == 4000
            out.unlink()
        else:
            assert status != 0
            absent += 1
        assert _leftovers(tmp_path) == []
    assert absent >= 1  # at least one run was really cut short


# ----------------------------------------------------------------------------- reading never modifies inputs


def _snapshot(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns


@pytest.mark.parametrize("name", ["good.qrels", "good.run", "run_gzip_ok.gz", "run_crlf.txt", "run_bom.txt",
                                  "cls_bom_crlf.csv", "cls_ok.parquet", "run_score_nan.txt"])
def test_reading_files_changes_neither_bytes_nor_mtime(tmp_path, name):
    path = tmp_path / name
    shutil.copyfile(CORPUS / name, path)
    os.utime(path, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))
    before = _snapshot(path)
    if name.startswith("cls_"):
        assert cranfield.cli.main(["classify", str(path), "--truth", "y", "--score", "s", "--format", "json"]) == 0
    elif name.endswith(".qrels"):
        cranfield.read_qrels(path)
        assert cranfield.cli.main(["trec_eval", str(path), str(CORPUS / "good.run")]) == 0
    else:
        status = cranfield.cli.main(["evaluate", str(CORPUS / "good.qrels"), str(path), "-m", "AP"])
        assert status == (2 if "nan" in name else 0)
    assert _snapshot(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


def test_dicts_and_frames_are_not_modified():
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    import pyarrow as pa

    qrels, run = copy.deepcopy(QRELS), copy.deepcopy(RUN)
    cranfield.evaluate(qrels, run, ["AP", "nDCG@10", "P@1"], complete=True)
    assert qrels == QRELS and run == RUN
    rows = [(q, d, s) for q, docs in RUN.items() for d, s in docs.items()]
    frame = pd.DataFrame(rows, columns=["qid", "docno", "score"])
    frame_copy = frame.copy(deep=True)
    polars_frame = pl.from_pandas(frame)
    arrow_table = pa.Table.from_pandas(frame)
    for source in (frame, polars_frame, arrow_table):
        cranfield.evaluate(qrels, source, ["AP"])
    assert frame.equals(frame_copy) and list(frame.columns) == ["qid", "docno", "score"]
    assert polars_frame.equals(pl.from_pandas(frame_copy))
    assert arrow_table.equals(pa.Table.from_pandas(frame_copy))
    values = {"a": {"AP": {"q1": 0.5, "q2": 0.25, "q3": 0.1}}, "b": {"AP": {"q1": 0.4, "q2": 0.3, "q3": 0.2}}}
    values_copy = copy.deepcopy(values)
    cranfield.compare_values(values, test="t")
    assert values == values_copy


def test_classification_functions_never_write_into_their_arrays():
    """Read-only arrays: an in-place write anywhere would raise ValueError."""
    from cranfield.classification import ConfusionMatrix
    from cranfield.classification.curves import det_curve, pr_curve, roc_curve
    from cranfield.classification.measures import MEASURES, measure_names
    from cranfield.classification.thresholds import best_threshold

    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 200)
    y[:2] = [0, 1]
    score = np.round(rng.random(200), 2)
    weights = rng.integers(1, 4, 200).astype(float)
    prob = np.clip(score, 0.01, 0.99)
    arrays = [y, score, weights, prob]
    copies = [a.copy() for a in arrays]
    for array in arrays:
        array.flags.writeable = False
    for name in measure_names():
        info = MEASURES[name]
        second = {"labels": y[::-1], "scores": score, "probabilities": prob, "values": score}[info.needs]
        first = score if info.needs == "values" else y
        if name == "roc_auc_multiclass":
            second = np.column_stack([1 - prob, prob])
            second.flags.writeable = False
        kwargs = {"zero_division": 0.0} if name in {r for r in MEASURES if MEASURES[r].needs == "labels"} else {}
        try:
            info.function(first, second, sample_weight=weights, **kwargs)
        except TypeError:  # measures without zero_division
            info.function(first, second, sample_weight=weights)
    for curve in (roc_curve, pr_curve, det_curve):
        curve(y, score, sample_weight=weights)
    ConfusionMatrix.from_labels(y, y[::-1], sample_weight=weights)
    best_threshold(y, score, criterion="f1", sample_weight=weights)
    for array, original in zip(arrays, copies):
        assert np.array_equal(array, original)
