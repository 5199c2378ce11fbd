"""Data sets shipped inside the package (offline): the Cranfield collection and a detection task.

>>> paths = cranfield()
>>> sorted(paths["runs"])
['bm25', 'coord_title', 'tfidf']
>>> detection().name
'scores.csv'
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["cranfield", "detection", "DETECTION_SYSTEMS"]

# columns of the detection scores file: the truth, then one score per model
DETECTION_TRUTH = "malignant"
DETECTION_SYSTEMS = ("logistic_regression", "random_forest", "naive_bayes")


def _data(*parts: str) -> Path:
    # the package is installed as plain files (a wheel or an editable install), so a Path is stable
    return Path(str(resources.files("cranfield").joinpath("data", *parts)))


def cranfield() -> dict:
    """Paths of the Cranfield 1400 judgments and of three real runs (see the data's NOTICE.md):
    ``{"qrels": graded qrels, "qrels_raw": raw codes, "runs": {"bm25": …, "tfidf": …,
    "coord_title": …}, "readme": …, "notice": …}``. The graded qrels (higher = more relevant)
    suit both binary and graded measures."""
    root = _data("cranfield")
    runs = {path.stem: path for path in sorted((root / "runs").glob("*.run"))}
    return {"qrels": root / "qrels.graded.trec", "qrels_raw": root / "qrels.raw.trec", "runs": runs,
            "readme": root / "README.md", "notice": root / "NOTICE.md"}


def detection() -> Path:
    """Path of a CSV of real detection scores: breast-cancer diagnosis (Wisconsin Diagnostic
    Breast Cancer data, 569 samples) with column ``malignant`` (1 = malignant, the positive
    class) and the out-of-fold probability of malignancy of three scikit-learn models
    (:data:`DETECTION_SYSTEMS`); made by ``scripts/make_detection_demo.py`` (see NOTICE.md)."""
    return _data("detection", "scores.csv")
