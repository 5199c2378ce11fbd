"""Make the shipped example files of ``cranfield datasets``: clicks, crowd-labels,
diversity-qrels and multiclass.

Run once (needs scikit-learn; no network): ``python scripts/make_example_data.py``. Writes under
``src/cranfield/data/examples/`` (see NOTICE.md there):

* ``clicks.csv`` — an A/B click log on the Cranfield collection: 700 impressions of the top 10
  results, users randomised into two arms: TF-IDF run (variant ``control``) or BM25
  (``treatment``); queries drawn uniformly, 120 users in sessions; clicks simulated by a dynamic Bayesian network user
  (attractiveness and satisfaction rising with the graded judgment), dwell times log-normal
  with a mean rising with the grade, timestamps in seconds (Unix epoch, Nov 2023).
* ``crowd-labels.csv`` — crowd labels (0 not, 1 partly, 2 highly relevant) of 600 (query,
  document) pairs of 40 Cranfield queries, 5 labels each from 15 workers of accuracy 0.55-0.95
  and one spammer who always answers 1; the truth is the Cranfield grade (0 -> 0, 1-2 -> 1, 3-4 -> 2).
* ``diversity-qrels.txt`` — ndeval-style diversity qrels (``qid subtopic docno rel``) for 50
  Cranfield queries: every relevant document of a query is assigned to one to three of the
  query's two to four subtopics (synthetic subtopics over real judgments).
* ``multiclass.csv`` — the UCI wine data (178 wines, three cultivars: barolo, grignolino,
  barbera) with three models' out-of-fold class probabilities (5-fold stratified CV, seed 0):
  logistic regression (``lr_*``), a random forest (``rf_*``) and Gaussian naive Bayes on two
  features (``nb_*``), one column per class, named ``MODEL_CLASS``, in the cultivars' order (not
  the sorted one: the columns are matched to classes by name).
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import numpy as np
import sklearn
from sklearn.datasets import load_wine
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

ROOT = Path(__file__).resolve().parents[1] / "src" / "cranfield" / "data"
OUT = ROOT / "examples"
CULTIVARS = ("barolo", "grignolino", "barbera")  # the wine data's classes 0, 1, 2


def _qrels() -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    for line in (ROOT / "cranfield" / "qrels.graded.trec").read_text().splitlines():
        qid, _, docno, rel = line.split()
        qrels.setdefault(qid, {})[docno] = int(rel)
    return qrels


def _run(name: str, depth: int = 10) -> dict[str, list[str]]:
    ranked: dict[str, list[tuple[float, str]]] = {}
    for line in (ROOT / "cranfield" / "runs" / f"{name}.run").read_text().splitlines():
        qid, _, docno, _rank, score, _tag = line.split()
        ranked.setdefault(qid, []).append((-float(score), docno))
    return {q: [d for _, d in sorted(v, key=lambda t: (t[0], [-b for b in t[1].encode()]))][:depth]
            for q, v in ranked.items()}


def clicks(rng: np.random.Generator) -> list[list]:
    qrels, runs = _qrels(), {"control": _run("tfidf"), "treatment": _run("bm25")}
    queries = sorted(set(runs["control"]) & set(runs["treatment"]), key=int)
    attract = np.array([0.08, 0.35, 0.5, 0.65, 0.8])
    satisfy = np.array([0.0, 0.2, 0.35, 0.5, 0.7])
    rows, clock = [], 1_700_000_000.0
    users = [f"u{i:03d}" for i in range(1, 121)]
    session_of: dict[str, tuple[int, float]] = {}
    sessions = 0
    for impression in range(1, 701):
        clock += float(rng.exponential(60.0))
        user = users[int(rng.integers(len(users)))]
        last = session_of.get(user)
        if last is None or clock - last[1] > 1800:  # a new session after 30 minutes idle
            sessions += 1
            last = (sessions, clock)
        session_of[user] = (last[0], clock)
        variant = "control" if int(user[1:]) % 2 else "treatment"  # users are randomised, not impressions
        query = queries[int(rng.integers(len(queries)))]
        shown, t, examining = runs[variant][query], clock, True
        for rank, doc in enumerate(shown, start=1):
            grade = qrels.get(query, {}).get(doc, 0)
            clicked = examining and rng.random() < attract[grade]
            dwell = ""
            if clicked:
                t += float(rng.uniform(2, 8))
                seconds = float(np.exp(rng.normal(np.log(8 + 14 * grade), 0.6)))
                dwell = f"{seconds:.1f}"
                rows.append([impression, query, rank, doc, 1, f"{t:.1f}", dwell, variant, user, f"s{last[0]:04d}"])
                t += seconds
                examining = rng.random() >= satisfy[grade]
            else:
                rows.append([impression, query, rank, doc, 0, f"{clock:.1f}", "", variant, user, f"s{last[0]:04d}"])
            examining = examining and rng.random() < 0.9
    return rows


def crowd_labels(rng: np.random.Generator) -> list[list]:
    qrels, run = _qrels(), _run("bm25", depth=30)
    queries = [q for q in sorted(qrels, key=int) if q in run][:40]
    accuracy = np.linspace(0.55, 0.95, 15)
    workers = [f"w{i:02d}" for i in range(1, 17)]  # w16: the spammer
    rows = []
    for query in queries:
        judged = sorted(qrels[query], key=lambda d: (-qrels[query][d], d.encode()))[:10]
        unjudged = [d for d in run[query] if d not in qrels[query]][: 15 - len(judged)]
        for doc in judged + unjudged:
            grade = qrels[query].get(doc, 0)
            truth = 0 if grade == 0 else (1 if grade <= 2 else 2)
            for w in sorted(rng.choice(len(workers), size=5, replace=False).tolist()):
                if w == 15:
                    label = 1
                elif rng.random() < accuracy[w]:
                    label = truth
                else:
                    label = int(rng.choice([c for c in (0, 1, 2) if c != truth]))
                rows.append([query, doc, workers[w], label])
    return rows


def diversity_qrels(rng: np.random.Generator) -> list[list]:
    qrels, run = _qrels(), _run("bm25", depth=100)
    queries = [q for q in sorted(qrels, key=int) if q in run and sum(r > 0 for r in qrels[q].values()) >= 4][:50]
    rows = []
    for query in queries:
        n_sub = int(rng.integers(2, 5))
        for doc, grade in sorted(qrels[query].items(), key=lambda t: t[0].encode()):
            if grade <= 0:
                continue
            subtopics = sorted(rng.choice(n_sub, size=int(rng.integers(1, min(3, n_sub) + 1)), replace=False).tolist())
            rows += [[query, s + 1, doc, 1] for s in subtopics]
    rows.sort(key=lambda r: (int(r[0]), r[1], r[2].encode()))
    return rows


def multiclass() -> tuple[list[str], list[list]]:
    X, y = load_wine(return_X_y=True)
    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
    models = {
        "lr": make_pipeline(StandardScaler(), LogisticRegression(C=0.05, max_iter=1000)),
        "rf": RandomForestClassifier(n_estimators=200, min_samples_leaf=3, random_state=0),
        "nb": GaussianNB(),
    }
    columns = {"nb": [0, 1]}  # naive Bayes sees alcohol and malic acid only: a weak model
    header, probabilities = ["wine", "cultivar"], []
    for name, model in models.items():
        features = X[:, columns[name]] if name in columns else X
        probabilities.append(cross_val_predict(model, features, y, cv=folds, method="predict_proba"))
        header += [f"{name}_{c}" for c in CULTIVARS]
    rows = [[i, CULTIVARS[y[i]], *[repr(float(p[i, c])) for p in probabilities for c in range(3)]]
            for i in range(len(y))]
    return header, rows


def _write(path: Path, header: list[str] | None, rows: list[list], delimiter: str = ",") -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, delimiter=delimiter, lineterminator="\n")
        if header:
            writer.writerow(header)
        writer.writerows(rows)


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    _write(OUT / "clicks.csv", ["impression", "query", "rank", "doc", "clicked", "timestamp", "dwell", "variant",
                                "user", "session"], clicks(np.random.default_rng(20231114)))
    _write(OUT / "crowd-labels.csv", ["query", "document", "worker", "label"], crowd_labels(np.random.default_rng(7)))
    _write(OUT / "diversity-qrels.txt", None, diversity_qrels(np.random.default_rng(11)), delimiter=" ")
    header, rows = multiclass()
    _write(OUT / "multiclass.csv", header, rows)
    print(f"wrote {OUT} with scikit-learn {sklearn.__version__}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
