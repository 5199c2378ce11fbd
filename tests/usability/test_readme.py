"""Every command README.md shows runs as written: each ```bash block runs as one script (so that
its variables carry from line to line) and each ```python block as one program, in an empty
folder, on the data shipped with cranfield; only `pip install` lines are skipped."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import cranfield

README = Path(__file__).resolve().parents[2] / "README.md"
BLOCK = re.compile(r"^```(bash|python)\n(.*?)^```", re.S | re.M)


def blocks(language: str) -> list[str]:
    found = [body for lang, body in BLOCK.findall(README.read_text(encoding="utf-8")) if lang == language]
    if language == "bash":
        found = ["\n".join(line for line in body.splitlines() if "pip install" not in line) for body in found]
    return [body for body in found if body.strip()]


@pytest.fixture()
def shell(tmp_path):
    """An environment where ``cranfield`` is this checkout's command line."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "cranfield"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m cranfield "$@"\n')
    shim.chmod(0o755)
    work = tmp_path / "work"
    work.mkdir()
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", "MPLBACKEND": "Agg",
           "PYTHONPATH": str(Path(cranfield.__file__).resolve().parents[1])}
    return work, env


def test_the_readme_has_commands_to_check():
    assert len(blocks("bash")) >= 1 and len(blocks("python")) >= 1
    assert sum(body.count("cranfield ") for body in blocks("bash")) >= 10


@pytest.mark.slow  # the demos and reports: tens of seconds
@pytest.mark.parametrize("index", range(len(blocks("bash"))))
def test_readme_bash_block_runs_as_written(shell, index):
    work, env = shell
    script = "set -euo pipefail\n" + blocks("bash")[index]
    done = subprocess.run(["bash", "-c", script], cwd=work, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"block {index} failed:\n{done.stderr[-3000:]}"


@pytest.mark.slow
@pytest.mark.parametrize("index", range(len(blocks("python"))))
def test_readme_python_block_runs_as_written(shell, index):
    work, env = shell
    done = subprocess.run([sys.executable, "-c", blocks("python")[index]], cwd=work, env=env, capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, f"python block {index} failed:\n{done.stderr[-3000:]}"


@pytest.mark.slow  # the tour's evaluation of two runs: about 23 s in CI
def test_the_tour_writes_what_it_says(shell):
    """The tour's evaluate line: per-query CSV with two named runs over all 225 queries (-c)."""
    work, env = shell
    line = next(line for line in blocks("bash")[-1].splitlines() if "per_query.csv" in line)
    setup = "\n".join(line for line in blocks("bash")[-1].splitlines() if line.startswith(("QRELS=", "BM25=", "TFIDF=")))
    done = subprocess.run(["bash", "-c", f"set -euo pipefail\n{setup}\n{line}"], cwd=work, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    import pandas as pd

    frame = pd.read_csv(work / "per_query.csv", dtype={"qid": str})
    assert list(frame.columns) == ["run", "qid", "measure", "value"]
    assert frame.groupby("run").size().to_dict() == {"bm25": 225, "tfidf": 225}
    assert set(frame["measure"]) == {"AP"}
