"""Every code block of docs/measures.md runs as written (Python blocks in-process, shell lines
through bash with this interpreter's ``cranfield``)."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "measures.md"
BLOCKS = re.findall(r"```(\w*)\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


@pytest.mark.parametrize("code", [code for lang, code in BLOCKS if lang == "python"])
def test_python_blocks_run(code, capsys):
    exec(compile(code, str(DOC), "exec"), {})


@pytest.mark.parametrize("line", [line.split("  #")[0].strip() for lang, code in BLOCKS if lang == ""
                                  for line in code.strip().splitlines() if line.startswith("cranfield ")])
def test_shell_lines_run(line, tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "cranfield").write_text(f"#!/bin/sh\nexec {sys.executable} -m cranfield \"$@\"\n")
    (bin_dir / "cranfield").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["bash", "-c", line], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
