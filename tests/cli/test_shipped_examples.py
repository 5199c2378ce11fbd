"""The shipped example files (issue 27, item 6): ``cranfield datasets`` lists clicks,
crowd-labels, diversity-qrels and multiclass, each with ``--path NAME``, and every block marked
``<!-- shipped-example -->`` in docs/*.md runs as written (``$(cranfield datasets --path NAME)``
expanded as the shell would)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from cranfield import datasets
from cranfield.cli import main

DOCS = Path(__file__).resolve().parents[2] / "docs"
NAMES = ("clicks", "crowd-labels", "diversity-qrels", "multiclass")
MARK = "<!-- shipped-example -->"


def _blocks():
    for path in sorted(DOCS.glob("*.md")):
        text = path.read_text(encoding="utf-8")
        for match in re.finditer(re.escape(MARK) + r"\s*```bash\n(.*?)```", text, re.DOTALL):
            yield pytest.param(match.group(1), id=f"{path.name}:{text[:match.start()].count(chr(10)) + 1}")


BLOCKS = list(_blocks())


def _expand(line: str) -> list[str]:
    line = re.sub(r"\$\(cranfield datasets --path ([\w-]+)\)", lambda m: str(datasets.files()[m.group(1)][0]), line)
    return shlex.split(line, comments=True)


@pytest.mark.parametrize("name", NAMES)
def test_listed_with_path(name, capsys):
    assert main(["datasets", "--path", name]) == 0
    path = Path(capsys.readouterr().out.strip())
    assert path.is_file() and path.stat().st_size > 1000
    assert main(["datasets"]) == 0
    assert name in capsys.readouterr().out


def test_every_docs_page_has_a_shipped_example():
    pages = {block.id.split(":")[0] for block in BLOCKS}
    assert {"online.md", "judgments.md", "judgments-agreement.md", "diversity.md", "classification.md"} <= pages


@pytest.mark.parametrize("block", BLOCKS)
def test_block_runs_as_written(block, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for line in block.replace("\\\n", " ").splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        args = _expand(line)
        assert args[0] == "cranfield"
        status = main(args[1:])
        _, err = capsys.readouterr()
        assert status == 0, f"{line}\n{err}"
        assert "error" not in err


def test_multiclass_example_is_right_by_name():
    """The shipped class scores, in the cultivars' (unsorted) order, give scikit-learn's numbers."""
    pd = pytest.importorskip("pandas")
    metrics = pytest.importorskip("sklearn.metrics")
    from cranfield.classification.file_report import classify_file

    path = datasets.examples()["multiclass"]
    frame = pd.read_csv(path)
    columns = ["lr_barolo", "lr_grignolino", "lr_barbera"]
    report = classify_file(str(path), truth="cultivar", class_scores=columns)
    classes = sorted(set(frame["cultivar"]))
    proba = frame[[f"lr_{c}" for c in classes]].to_numpy()
    assert report["roc_auc"] == metrics.roc_auc_score(frame["cultivar"], proba, multi_class="ovr", labels=classes)
    assert report["top_1_accuracy"] == metrics.accuracy_score(frame["cultivar"],
                                                              [classes[i] for i in proba.argmax(axis=1)])
