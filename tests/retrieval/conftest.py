"""Fixtures of the retrieval tests: the trec_eval 9.0.8 binary, built from the reference sources.

The sources live outside the project, in ``../shared/reference/trec_eval-9.0.8`` (the environment
variable ``CRANFIELD_TREC_EVAL_SOURCE`` may name another folder). They are copied into a
temporary folder and built there with ``make``: nothing of trec_eval enters the project. Where
the sources, ``make`` or a C compiler are missing the tests that need the binary are skipped with
the reason, except in CI (``CI`` set), where a missing oracle is a failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_SOURCE = ROOT.parent / "shared" / "reference" / "trec_eval-9.0.8"


def _unavailable(reason: str):
    if os.environ.get("CI"):
        pytest.fail(f"trec_eval 9.0.8 oracle unavailable in CI: {reason}", pytrace=False)
    pytest.skip(f"trec_eval 9.0.8 oracle unavailable: {reason}")


@pytest.fixture(scope="session")
def trec_eval_binary(tmp_path_factory) -> Path:
    """Path of a trec_eval 9.0.8 executable built from the reference sources."""
    source = Path(os.environ.get("CRANFIELD_TREC_EVAL_SOURCE", DEFAULT_SOURCE))
    if not (source / "trec_eval.c").is_file():
        _unavailable(f"no trec_eval sources at {source}")
    for tool in ("make", "gcc"):
        if shutil.which(tool) is None:
            _unavailable(f"{tool} not found on PATH")
    # One build per test session, shared by the xdist workers (their temporary folders have a
    # common parent); a lock makes the others wait for the first.
    import fcntl

    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):  # a worker's folder is inside the session's
        shared = shared.parent
    build = shared / "trec_eval-9.0.8-build"
    binary = build / "trec_eval"
    with open(shared / "trec_eval-9.0.8-build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not binary.is_file():
            shutil.rmtree(build, ignore_errors=True)
            shutil.copytree(source, build, ignore=shutil.ignore_patterns("trec_eval", "*.o"))
            done = subprocess.run(["make", "-C", str(build)], capture_output=True, text=True)
            if done.returncode != 0 or not binary.is_file():
                _unavailable(f"make failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    return binary
