"""Class scores are paired with classes by name, never by sorted position (issue 27, item 2).

Reference: scikit-learn's accuracy_score / roc_auc_score / average_precision on the wine data
(three classes; the class names in an order that is not the sorted one), compared with ``==``.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

from cranfield.classification.multiclass import (
    average_precision_multiclass,
    roc_auc_multiclass,
    top_k_accuracy,
)
from cranfield.classification.probabilistic import log_loss
from cranfield.cli import main
from cranfield.errors import UsageError

sklearn = pytest.importorskip("sklearn")
from sklearn.datasets import load_wine
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, roc_auc_score
from sklearn.metrics import log_loss as sk_log_loss
from sklearn.preprocessing import StandardScaler

NAMES = np.array(["barolo", "grignolino", "barbera"])  # the wine classes 0, 1, 2: not sorted
SCORES = ["p_barolo", "p_grignolino", "p_barbera"]


@pytest.fixture(scope="module")
def wine(tmp_path_factory):
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        proba = LogisticRegression(C=0.05, max_iter=1000).fit(X, y).predict_proba(X)
    frame = pd.DataFrame({"truth": NAMES[y], **{name: proba[:, j] for j, name in enumerate(SCORES)}})
    path = tmp_path_factory.mktemp("wine") / "multi.csv"
    frame.to_csv(path, index=False, float_format="%.17g")
    read = pd.read_csv(path)  # the numbers as the file holds them
    proba = read[SCORES].to_numpy()
    return path, y, proba, read


def _reference(y, proba):
    return accuracy_score(y, proba.argmax(axis=1)), roc_auc_score(y, proba, multi_class="ovr")


def test_issue_command_gives_scikit_learn_numbers(wine, capsys):
    path, y, proba, _ = wine
    args = ["classify", str(path), "--truth", "truth", "--format", "json"]
    for name in SCORES:
        args += ["--class-score", name]
    assert main(args) == 0
    report = json.loads(capsys.readouterr().out)
    accuracy, auc = _reference(y, proba)
    assert accuracy < 1.0 and auc > 0.9  # a case where a wrong pairing shows
    assert report["top_1_accuracy"] == accuracy
    assert report["roc_auc"] == auc
    assert report["metrics"]["accuracy"] == accuracy
    assert report["class_scores"] == {"barbera": "p_barbera", "barolo": "p_barolo", "grignolino": "p_grignolino"}


@pytest.mark.parametrize("specs", [
    ["barolo=p_barolo", "grignolino=p_grignolino", "barbera=p_barbera"],
    ["barbera=p_barbera", "p_barolo", "grignolino=p_grignolino"],
    ["p_grignolino", "p_barbera", "p_barolo"],
])
def test_class_equals_column_and_mixed(wine, specs):
    from cranfield.classification.file_report import classify_file

    path, y, proba, _ = wine
    report = classify_file(str(path), truth="truth", class_scores=specs)
    accuracy, auc = _reference(y, proba)
    assert report["top_1_accuracy"] == accuracy and report["roc_auc"] == auc


def test_labels_order_is_the_output_order_not_the_pairing(wine):
    from cranfield.classification.file_report import classify_file

    path, y, proba, _ = wine
    report = classify_file(str(path), truth="truth", class_scores=SCORES, labels=["grignolino,barbera,barolo"],
                           average="none")
    per_class = roc_auc_score(y, proba, multi_class="ovr", average=None)  # classes 0, 1, 2 = barolo, grignolino, barbera
    assert report["roc_auc"] == [per_class[1], per_class[2], per_class[0]]


@pytest.mark.parametrize(("specs", "message"), [
    (["p_barolo", "p_grignolino", "third"], "--class-score third: cannot tell which class"),
    (["p_barolo", "p_grignolino"], "no score column for the class barbera"),
    (["p_barolo", "barolo=p_grignolino", "p_barbera"], "two columns for the class barolo"),
    (["nebbiolo=p_barolo", "p_grignolino", "p_barbera"], "'nebbiolo' is not one of the classes"),
])
def test_unmatched_or_ambiguous_is_an_error_naming_the_option(wine, capsys, specs, message):
    path = wine[0]
    args = ["classify", str(path), "--truth", "truth"]
    for spec in specs:
        args += ["--class-score", spec]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_the_rule():
    from cranfield.classification.class_columns import match_class_columns

    assert match_class_columns(["p_11", "p_1"], [1, 11]) == ["p_1", "p_11"]  # a separator bounds the class name
    assert match_class_columns(["score-b", "a"], ["a", "b"]) == ["a", "score-b"]
    assert match_class_columns(["x_a_b", "x_b"], ["b", "a_b"]) == ["x_b", "x_a_b"]  # longest unique suffix
    assert match_class_columns(["c1", "c2"], ["x", "y"], explicit_order=True) == ["c1", "c2"]  # --labels order
    with pytest.raises(UsageError, match="cannot tell"):
        match_class_columns(["c1", "c2"], ["x", "y"])  # no order given: never by position
    with pytest.raises(UsageError, match="--class-score pa: cannot tell"):
        match_class_columns(["pa", "p_b"], ["a", "b"], explicit_order=True)  # partial match: no positional pairing
    assert match_class_columns(["q=r_a"], ["a"], columns=["q=r_a"]) == ["q=r_a"]  # a column named a=b stays a column


def test_python_frame_columns_by_name(wine):
    _, y, proba, frame = wine
    truth = frame["truth"]
    scores = frame[SCORES]  # class order barolo, grignolino, barbera: not the sorted one
    accuracy, auc = _reference(y, proba)
    assert roc_auc_multiclass(truth, scores) == auc
    assert top_k_accuracy(truth, scores, k=1) == accuracy
    assert log_loss(truth, scores) == sk_log_loss(y, proba)
    reversed_frame = frame[SCORES[::-1]]
    assert roc_auc_multiclass(truth, reversed_frame) == auc
    assert average_precision_multiclass(truth, scores) == average_precision_multiclass(truth, reversed_frame)
    # labels= orders the classes; the frame's columns still pair by name
    per_class = roc_auc_score(y, proba, multi_class="ovr", average=None)
    got = roc_auc_multiclass(truth, scores, labels=["barbera", "barolo", "grignolino"], average=None)
    assert got.tolist() == [per_class[2], per_class[0], per_class[1]]
    # an array (or a frame with default column names) is positional in the order of labels=
    assert roc_auc_multiclass(truth, proba, labels=list(NAMES)) == auc
    assert roc_auc_multiclass(truth, pd.DataFrame(proba), labels=list(NAMES)) == auc
    with pytest.raises(UsageError, match="y_prob x"):
        roc_auc_multiclass(truth, scores.rename(columns={"p_barolo": "x"}))


def test_deprecated_entry_point_still_works(wine):
    """The classify logic moved from the command line to the library (issue 23: a thin CLI)."""
    from cranfield.classification.file_report import classify_file
    from cranfield.cli.classify_cmd import evaluate_file

    path = str(wine[0])
    with pytest.warns(DeprecationWarning, match="classify_file"):
        old = evaluate_file(path, truth="truth", class_scores=SCORES)
    assert old == classify_file(path, truth="truth", class_scores=SCORES)
