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
    build = tmp_path_factory.mktemp("trec_eval_build") / "trec_eval-9.0.8"
    shutil.copytree(source, build, ignore=shutil.ignore_patterns("trec_eval", "*.o"))
    done = subprocess.run(["make", "-C", str(build)], capture_output=True, text=True)
    binary = build / "trec_eval"
    if done.returncode != 0 or not binary.is_file():
        _unavailable(f"make failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    return binary
