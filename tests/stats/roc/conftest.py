"""The pROC oracles of the ROC tests, computed once per session (see _proc.py)."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

from .._r import run_r
from ._proc import DATA, R_SCRIPT, _rscript, _script


@pytest.fixture(scope="session")
def oracle(tmp_path_factory):
    rscript = _rscript()
    folder = tmp_path_factory.mktemp("proc")
    for name, (y, a, b) in DATA.items():
        lines = ["y,a,b"] + [f"{yi},{ai!r},{bi!r}" for yi, ai, bi in zip(y, a.tolist(), b.tolist())]
        (folder / f"{name}.csv").write_text("\n".join(lines) + "\n")
    script = folder / "oracle.R"
    script.write_text(R_SCRIPT)
    done = subprocess.run([rscript, str(script), str(folder)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    values = {}
    for line in done.stdout.splitlines():
        name, *numbers = line.split()
        values[name] = np.array([float(x) for x in numbers])
    return values


@pytest.fixture(scope="session")
def proc():
    return run_r(_script(), packages=("pROC",))
