from pathlib import Path

import numpy as np
import pytest

from cranfield import datasets


@pytest.fixture(scope="session")
def shipped():
    return datasets.cranfield()


@pytest.fixture(scope="session")
def retrieval_study(shipped):
    """The Cranfield runs compared with a fast test (the demo's full settings are tested in test_demo)."""
    from cranfield.report.retrieval import retrieval_study as study

    runs = [shipped["runs"][name] for name in ("bm25", "tfidf", "coord_title")]
    return study(shipped["qrels"], runs, test="t")


@pytest.fixture(scope="session")
def detection_study():
    from cranfield.report.detection import detection_study as study

    return study(datasets.detection(), truth=datasets.DETECTION_TRUTH, scores=datasets.DETECTION_SYSTEMS)


@pytest.fixture()
def small_files(tmp_path) -> dict:
    """A tiny qrels, two runs and a classifier CSV in a fresh folder."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{q} 0 d{d} {int((q + d) % 3 == 0)}\n" for q in range(1, 6) for d in range(1, 9)))
    runs = []
    for name, shift in (("a", 0), ("b", 3)):
        run = tmp_path / f"{name}.run"
        run.write_text("".join(f"q{q} Q0 d{(d + shift) % 8 + 1} {d + 1} {10 - d} {name}\n"
                               for q in range(1, 6) for d in range(8)))
        runs.append(run)
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 60)
    scores = tmp_path / "scores.csv"
    scores.write_text("label,good,poor\n" + "".join(f"{t},{t * 0.6 + rng.random() * 0.5:.4f},{rng.random():.4f}\n"
                                                     for t in y))
    return {"qrels": qrels, "runs": runs, "scores": scores, "dir": tmp_path}


def leftovers(folder: Path) -> list[str]:
    """Temporary files left by an interrupted atomic write."""
    return sorted(p.name for p in folder.rglob(".*.tmp"))


def require_tool(command: str, package: str) -> str:
    """The path of ``command``; the test is skipped when it is missing, and fails when CI is set."""
    import os
    import shutil

    path = shutil.which(command)
    if path is None:
        reason = f"{command} is not installed (apt-get install {package})"
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but {reason}")
        pytest.skip(reason)
    return path
