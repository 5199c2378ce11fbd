"""Every code block of docs/*.md runs as written (issue 27, item 6; README.md's are run by
test_readme.py).

Convention (docs/cli.md, "Code blocks in the documentation"): a ```python, ```bash or ```sh block
is a program to run; the blocks of one page run in order, in one fresh folder that holds the
shipped Cranfield data as ``qrels.txt``, ``bm25.run``, ``tfidf.run``, ``coord.run`` (also as
``a.run``, ``b.run``, ``c.run``) and the shipped detection scores as ``scores.csv`` (columns ``label``, ``model_a``, ``model_b``,
``model_c``; files
written by one block are there for the next), the python blocks in one namespace (as a notebook: a
later block uses the names an earlier one defined), each bash block as one script under
``set -euo pipefail`` with ``cranfield`` on the PATH being this checkout. Output samples are
```text (or ```console, or a bare fence); a block that cannot run here (it needs a server, the
network or a cluster) is preceded by a ``<!-- no-test: why -->`` comment. ``pip install`` lines
are skipped. A failure names the page, the block's number and its first line.
"""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from cranfield import datasets

from .test_readme import shell  # noqa: F401  (the fixture)

DOCS = Path(__file__).resolve().parents[2] / "docs"
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)
RUNNABLE = {"python": "python", "bash": "bash", "sh": "bash"}
NO_TEST = re.compile(r"<!--\s*no-test\b[^>]*-->\s*$")

# Runs inside a fresh interpreter in the page's folder: the blocks in order, python in one namespace.
DRIVER = r"""
import json, subprocess, sys, traceback
blocks = json.loads(sys.argv[1])
namespace = {"__name__": "__main__"}
for number, (language, line, body) in enumerate(blocks, 1):
    where = f"block {number} (line {line}, {language}): {body.strip().splitlines()[0]!r}"
    if language == "python":
        try:
            exec(compile(body, f"<{where}>", "exec"), namespace)
        except BaseException:
            print(f"FAILED {where}\n{traceback.format_exc()[-3000:]}", file=sys.stderr)
            sys.exit(1)
    else:
        done = subprocess.run(["bash", "-c", "set -euo pipefail\n" + body], capture_output=True, text=True)
        if done.returncode:
            print(f"FAILED {where}: exit {done.returncode}\n{done.stderr[-3000:]}", file=sys.stderr)
            sys.exit(1)
"""


def page_blocks(path: Path) -> list[tuple[str, int, str]]:
    """(language, line, body) of each runnable block of ``path``, in order."""
    text = path.read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        language = RUNNABLE.get(match.group(1))
        before = text[:match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        if language is None or NO_TEST.search(before):
            continue
        body = "\n".join(line for line in match.group(2).splitlines() if "pip install" not in line)
        if body.strip():
            found.append((language, text.count("\n", 0, match.start()) + 1, body))
    return found


_runs = datasets.cranfield()["runs"]
# the files every page's folder holds (see the module's documentation)
SHIPPED = {"qrels.txt": lambda: datasets.cranfield()["qrels"],
           **{name: (lambda run=run: _runs[run]) for name, run in (
               ("bm25.run", "bm25"), ("tfidf.run", "tfidf"), ("coord.run", "coord_title"),
               ("a.run", "bm25"), ("b.run", "tfidf"), ("c.run", "coord_title"))}}
PAGES = sorted(p.name for p in DOCS.glob("*.md") if page_blocks(p))


def test_the_convention_is_followed():
    """Runnable blocks exist; a no-test comment always says why."""
    assert sum(len(page_blocks(DOCS / name)) for name in PAGES) >= 30
    for path in DOCS.glob("*.md"):
        for comment in re.findall(r"<!--\s*no-test\b([^>]*)-->", path.read_text(encoding="utf-8")):
            assert comment.strip(" :"), f"{path.name}: a no-test comment must say why"


@pytest.mark.slow  # about a minute for all pages (evaluations, plots, bootstraps)
@pytest.mark.parametrize("page", PAGES)
def test_docs_page_blocks_run_as_written(shell, page):
    work, env = shell  # an empty folder; `cranfield` on the PATH is this checkout
    for name, shipped in SHIPPED.items():
        shutil.copyfile(shipped(), work / name)  # a copy: a block may write over it
    scores = pd.read_csv(datasets.detection()).drop(columns="sample")
    scores.columns = ["label", "model_a", "model_b", "model_c"]
    scores.to_csv(work / "scores.csv", index=False)
    blocks = page_blocks(DOCS / page)
    done = subprocess.run([sys.executable, "-c", DRIVER, json.dumps(blocks)], cwd=work, env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, f"docs/{page}: {done.stderr[-4000:]}"
