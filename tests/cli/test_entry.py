"""The console script's entry (``cranfield``, ``python -m cranfield``): one BLAS thread unless the
user chose a number, set before numpy is imported (the library itself leaves BLAS alone)."""

from __future__ import annotations

import os
import subprocess
import sys

from cranfield.cli import single_threaded_blas

PROBE = ("import cranfield.cli as c; c.single_threaded_blas(); import numpy, os; "
         "print(os.environ['OPENBLAS_NUM_THREADS'], len(os.listdir('/proc/self/task')) if os.path.isdir('/proc/self/task') else 1)")


def test_one_blas_thread_unless_the_user_chose():
    environ: dict = {}
    single_threaded_blas(environ)
    assert environ == {"OPENBLAS_NUM_THREADS": "1"}
    environ = {"OPENBLAS_NUM_THREADS": "4"}
    single_threaded_blas(environ)
    assert environ == {"OPENBLAS_NUM_THREADS": "4"}


def test_numpy_starts_no_blas_worker_under_the_console_script():
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True).stdout
    value, threads = out.split()
    assert value == "1" and int(threads) == 1  # only the main thread: no OpenBLAS worker
    out = subprocess.run([sys.executable, "-m", "cranfield", "--version"], env=env, capture_output=True, text=True,
                         check=True).stdout
    assert out.startswith("cranfield")


# --------------------------------------------------------------------------- the end of the process
ENDING = """
import atexit, sys, threading, time
import cranfield.cli as c
atexit.register(lambda: open(sys.argv[1], "w").write("atexit ran"))
sys.stdout.write("x" * 200000 + "\\n")
sys.stdout.write("tail\\n")  # small: still in the buffer, which the end flushes
if sys.argv[2] == "thread":  # a thread of the program's own still running: the usual ending waits for it
    threading.Thread(target=lambda: (time.sleep(0.3), sys.stdout.write("thread done\\n"))).start()
c.end(int(sys.argv[3]))
"""


def _ending(tmp_path, thread: str, status: int):
    marker = tmp_path / "marker"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # buffered, as by default
    done = subprocess.run([sys.executable, "-c", ENDING, str(marker), thread, str(status)], capture_output=True,
                          text=True, env=env)
    return done, marker.read_text() if marker.exists() else None


def test_the_end_flushes_runs_atexit_and_keeps_the_status(tmp_path):
    """The console script ends without tearing the interpreter down (cli.end): its buffered output
    is all written, atexit functions run, and the status is the command's."""
    for status in (0, 2):
        done, marker = _ending(tmp_path, "none", status)
        assert done.returncode == status and done.stdout == "x" * 200000 + "\ntail\n" and marker == "atexit ran"
        assert done.stderr == ""


def test_the_end_waits_for_a_running_thread(tmp_path):
    done, marker = _ending(tmp_path, "thread", 0)
    assert done.returncode == 0 and done.stdout.endswith("thread done\n") and marker == "atexit ran"


def test_a_command_ends_with_its_output_whole(tmp_path):
    """A large output through a pipe and into a file, then the fast end: every byte is there."""
    data = os.path.join(os.path.dirname(__file__), "..", "data", "trec_eval")
    args = [sys.executable, "-m", "cranfield", "trec_eval", "-q", "-m", "all_trec",
            os.path.join(data, "qrels.test"), os.path.join(data, "results.test")]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    piped = subprocess.run(args, capture_output=True, check=True, env=env).stdout
    with open(tmp_path / "out", "wb") as handle:
        subprocess.run(args, stdout=handle, check=True, env=env)
    assert piped == (tmp_path / "out").read_bytes() and piped.count(b"\n") == 367
    bad = subprocess.run(args[:5] + [str(tmp_path / "missing"), args[-1]], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.startswith("cranfield: error:")


# --------------------------------------------------------------------------- the garbage collector
def test_the_console_script_collects_cyclic_garbage_less_often(monkeypatch):
    """The console script raises the collector's thresholds before the command runs (and its
    imports); the library's callers keep theirs."""
    import gc

    from cranfield import cli

    seen = []
    original_main = cli.main
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "1")  # run() sets it by default: restored after the test
    monkeypatch.setattr(cli, "main", lambda: seen.append(gc.get_threshold()) or 0)
    monkeypatch.setattr(cli, "end", lambda status: seen.append(status))
    previous = gc.get_threshold()
    try:
        cli.run()
    finally:
        gc.set_threshold(*previous)
    assert seen == [cli.COMMAND_GC_THRESHOLDS, 0]
    assert cli.COMMAND_GC_THRESHOLDS[0] > previous[0]
    original_main(["--version"])  # in-process, as the tests and the library call it: thresholds untouched
    assert gc.get_threshold() == previous
