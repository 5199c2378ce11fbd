"""``cranfield classify`` with --class-score, --labels, --average and --multi-class (issue 16,
item 9): the report equals the library functions on the same columns; bad input exits 2 with
one line naming the file, line and column."""

import json

import numpy as np
import pytest

import cranfield.classification as cc
from cranfield.cli import main

CLASSES = ["cat", "dog", "eel"]


@pytest.fixture
def probs(tmp_path):
    rng = np.random.default_rng(0)
    y = np.array(CLASSES)[rng.integers(0, 3, 40)]
    p = rng.dirichlet(np.ones(3), 40).round(4)
    path = tmp_path / "probs.csv"
    rows = [f"{a},{r[0]},{r[1]},{r[2]},{CLASSES[int(r.argmax())]}" for a, r in zip(y, p)]
    path.write_text("animal,p_cat,p_dog,p_eel,pred\n" + "\n".join(rows) + "\n")
    return path, y, p


def run_json(args, capsys):
    assert main(args + ["--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


SCORES = ["--class-score", "p_cat", "--class-score", "p_dog", "--class-score", "p_eel"]


def test_class_scores_report_equals_library(probs, capsys):
    path, y, p = probs
    report = run_json(["classify", str(path), "--truth", "animal", *SCORES], capsys)
    assert report["map"] == cc.average_precision_multiclass(y, p)
    assert report["roc_auc"] == cc.roc_auc_multiclass(y, p)
    assert report["top_2_accuracy"] == cc.top_k_accuracy(y, p, k=2)
    assert report["metrics"]["accuracy"] == cc.top_k_accuracy(y, p, k=1)
    assert report["class_scores"] == {"cat": "p_cat", "dog": "p_dog", "eel": "p_eel"}
    report = run_json(["classify", str(path), "--truth", "animal", *SCORES, "--average", "none"], capsys)
    assert report["roc_auc"] == cc.roc_auc_multiclass(y, p, average=None).tolist()
    assert report["metrics"]["recall"] == cc.recall(y, np.array(CLASSES)[p.argmax(1)], average=None).tolist()
    report = run_json(["classify", str(path), "--truth", "animal", "--labels", "eel,dog,cat", "--class-score", "p_eel",
                       "--class-score", "p_dog", "--class-score", "p_cat", "--multi-class", "ovo",
                       "--average", "weighted"], capsys)
    assert report["roc_auc"] == cc.roc_auc_multiclass(y, p[:, ::-1], multi_class="ovo", average="weighted",
                                                      labels=["eel", "dog", "cat"])
    assert report["confusion_matrix"]["labels"] == ["eel", "dog", "cat"]
    for fmt in ("table", "csv", "markdown"):
        assert main(["classify", str(path), "--truth", "animal", *SCORES, "--average", "none", "--format", fmt]) == 0
        assert "roc_auc (dog)" in capsys.readouterr().out


def test_pred_with_average_and_labels(probs, capsys):
    path, y, p = probs
    pred = np.array(CLASSES)[p.argmax(1)]
    report = run_json(["classify", str(path), "--truth", "animal", "--pred", "pred", "--average", "weighted"], capsys)
    assert report["average"] == "weighted"
    assert report["metrics"]["f1"] == cc.f1(y, pred, average="weighted")
    # a listed class that never occurs: its 0/0 rates are 0 with a warning (scikit-learn's policy)
    report = run_json(["classify", str(path), "--truth", "animal", "--pred", "pred", "--labels", "cat,dog,eel,fox",
                       "--average", "none"], capsys)
    assert report["metrics"]["recall"][3] == 0.0 and report["confusion_matrix"]["labels"][3] == "fox"


@pytest.mark.parametrize(("args", "message"), [
    (["--labels", "eel,dog", "--pred", "pred"], r"probs.csv:\d+: field animal: 'cat' is not one of --labels"),
    (["--class-score", "p_cat", "--class-score", "p_dog"], "--class-score: no score column for the class eel"),
    ([*SCORES, "--multi-class", "ovo", "--average", "micro"], "ovo averages over pairs"),
    ([*SCORES, "--score", "p_cat"], "exclude each other"),
    ([*SCORES, "--labels", "cat,dog,eel,fox"], "no score column for the class fox"),
    (["--class-score", "p_cat", "--class-score", "p_dog", "--class-score", "animal"], "truth column"),
    (["--class-score", "p_cat", "--class-score", "p_dog", "--class-score", "eel=pred"], "expected a number"),
])
def test_bad_input_exits_2(probs, capsys, args, message):
    import re

    path, _, _ = probs
    assert main(["classify", str(path), "--truth", "animal", *args]) == 2
    err = capsys.readouterr().err
    assert re.search(message, err) and "Traceback" not in err
