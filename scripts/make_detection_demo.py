"""Make the detection demo data: real model scores on the breast-cancer data bundled with scikit-learn.

Run once (needs scikit-learn; no network): ``python scripts/make_detection_demo.py``. Writes
``src/cranfield/data/detection/scores.csv``: one row per sample of the Wisconsin Diagnostic
Breast Cancer data (569 fine-needle aspirates), the truth ``malignant`` (1 = malignant, the
positive class; scikit-learn's target is 1 = benign, so it is flipped), and each model's
out-of-fold probability of malignancy from 5-fold stratified cross-validation (seed 0), so that
every score comes from a model that did not see the sample. Three models of decreasing skill:
logistic regression (standardised features), a random forest and Gaussian naive Bayes on two
features only (mean texture and mean smoothness), so that the curves are told apart.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import numpy as np
import sklearn
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

OUT = Path(__file__).resolve().parents[1] / "src" / "cranfield" / "data" / "detection" / "scores.csv"


def main() -> int:
    data = load_breast_cancer()
    x, malignant = data.data, (data.target == 0).astype(int)
    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
    weak = [list(data.feature_names).index(name) for name in ("mean texture", "mean smoothness")]
    models = {
        "logistic_regression": (make_pipeline(StandardScaler(), LogisticRegression(C=0.05, max_iter=1000)), x),
        "random_forest": (RandomForestClassifier(n_estimators=200, min_samples_leaf=3, random_state=0), x),
        "naive_bayes": (GaussianNB(), x[:, weak]),
    }
    scores = {name: cross_val_predict(model, features, malignant, cv=folds, method="predict_proba")[:, 1]
              for name, (model, features) in models.items()}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["sample", "malignant", *scores])
        for i in range(len(malignant)):
            writer.writerow([i, malignant[i], *[f"{scores[name][i]:.6f}" for name in scores]])
    print(f"wrote {OUT} ({len(malignant)} rows, {int(malignant.sum())} malignant) with scikit-learn "
          f"{sklearn.__version__}, numpy {np.__version__}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
