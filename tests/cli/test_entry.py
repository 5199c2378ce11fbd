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
