"""Data sets shipped inside the package (offline): the Cranfield collection and a detection task.

>>> paths = cranfield()
>>> sorted(paths["runs"])
['bm25', 'coord_title', 'tfidf']
>>> detection().name
'scores.csv'
>>> files()["qrels"][0].name
'qrels.graded.trec'
>>> examples()["multiclass"].name
'multiclass.csv'
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["DETECTION_SYSTEMS", "cranfield", "detection", "examples", "files"]

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
            "readme": root / "README.md", "notice": root / "NOTICE.md",
            "documents": root / "cran.all.1400.gz", "topics": root / "cran.qry"}  # for `cranfield demo --judge`


def detection() -> Path:
    """Path of a CSV of real detection scores: breast-cancer diagnosis (Wisconsin Diagnostic
    Breast Cancer data, 569 samples) with column ``malignant`` (1 = malignant, the positive
    class) and the out-of-fold probability of malignancy of three scikit-learn models
    (:data:`DETECTION_SYSTEMS`); made by ``scripts/make_detection_demo.py`` (see NOTICE.md)."""
    return _data("detection", "scores.csv")


# the example files of the online, crowd, diversity and multiclass docs (scripts/make_example_data.py)
EXAMPLES = {
    "clicks": ("clicks.csv", ("A/B click log on Cranfield: 700 impressions, variants control (TF-IDF) and treatment "
                              "(BM25) by user, clicks, dwell, timestamps (seconds), users, sessions")),
    "crowd-labels": ("crowd-labels.csv", ("crowd labels 0/1/2 of 600 Cranfield pairs by 16 workers (query, document, "
                                          "worker, label)")),
    "diversity-qrels": ("diversity-qrels.txt", ("diversity qrels (qid subtopic docno rel) for 50 Cranfield queries, "
                                                "synthetic subtopics")),
    "multiclass": ("multiclass.csv", ("wine cultivars (barolo, grignolino, barbera): truth column cultivar, class "
                                      "probabilities lr_CLASS, rf_CLASS, nb_CLASS of three models")),
}


def examples() -> dict:
    """Paths of the example files by short name (``clicks``, ``crowd-labels``, ``diversity-qrels``,
    ``multiclass``); see ``cranfield/data/examples/NOTICE.md``."""
    return {name: _data("examples", file) for name, (file, _) in EXAMPLES.items()}


def files() -> dict:
    """Every shipped file by a short name, as ``{name: (path, description)}`` (what ``cranfield
    datasets`` prints; ``cranfield datasets --path NAME`` prints one path)."""
    data = cranfield()
    run_about = {"bm25": "BM25 run (tag bm25s_stem)", "tfidf": "TF-IDF cosine run (tag tfidf_cosine)",
                 "coord_title": "title term-overlap run (tag coord_title)"}
    out = {"qrels": (data["qrels"], "Cranfield 1400 judgments, graded 0-4 (225 queries)"),
           "qrels_raw": (data["qrels_raw"], "Cranfield 1400 judgments, the original codes")}
    for name, path in data["runs"].items():
        out[name] = (path, run_about.get(name, "run"))
    out["documents"] = (data["documents"], "Cranfield 1400 documents, the Cranfield format (gzip)")
    out["topics"] = (data["topics"], "Cranfield 1400 queries (numbered 1-225 as the judgments number them)")
    out["detection"] = (detection(), "breast-cancer diagnosis: truth column " + DETECTION_TRUTH
                        + ", scores " + ", ".join(DETECTION_SYSTEMS))
    out.update({name: (path, EXAMPLES[name][1]) for name, path in examples().items()})
    out["rag-nuggets"] = (_data("rag", "assignments.jsonl"), "RAG nugget assignments, 3 simulated systems x 8 queries")
    out["rag-support"] = (_data("rag", "support.jsonl"), "RAG citation-support judgments (simulated)")
    return out
