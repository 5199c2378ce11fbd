"""Multiclass results reach every output (issue 27): ``report`` and ``curves`` with
``--class-score CLASS=COLUMN`` (or, with three or more classes and no --positive, bare --score
columns named after the classes), the plot functions with an n×C score matrix, and confusion
matrices under the user's class names."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics
from sklearn.preprocessing import label_binarize

import cranfield.cli

CLASSES = ["barbera", "barolo", "grignolino"]  # sorted, the study's order


@pytest.fixture(scope="module")
def wine(tmp_path_factory):
    """Three classes of wine scored by a noisy softmax; columns in an order unlike the classes'."""
    rng = np.random.default_rng(7)
    n = 150
    truth = np.array(CLASSES)[rng.integers(0, 3, n)]
    logits = rng.normal(0, 1, (n, 3)) + 2.0 * label_binarize(truth, classes=CLASSES)
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    frame = pd.DataFrame({"p_grignolino": np.round(p[:, 2], 6), "truth": truth, "p_barolo": np.round(p[:, 1], 6),
                          "p_barbera": np.round(p[:, 0], 6)})
    path = tmp_path_factory.mktemp("wine") / "wine.csv"
    frame.to_csv(path, index=False)
    scores = frame[["p_barbera", "p_barolo", "p_grignolino"]].to_numpy()
    return {"path": path, "truth": truth, "scores": scores}


SPECS = ["grignolino=p_grignolino", "p_barolo", "barbera=p_barbera"]


def test_the_study_equals_scikit_learn(wine):
    from cranfield.report.multiclass import multiclass_study

    study = multiclass_study(wine["path"], truth="truth", class_scores=SPECS)
    y, s = wine["truth"], wine["scores"]
    assert study.classes == CLASSES and study.columns == {c: f"p_{c}" for c in CLASSES}
    rows = {row[0]: row for row in study.summary.rows}
    per_class_auc = metrics.roc_auc_score(y, s, multi_class="ovr", average=None, labels=CLASSES)
    indicator = label_binarize(y, classes=CLASSES)
    predicted = np.array(CLASSES)[s.argmax(axis=1)]
    precision, recall, f1, support = metrics.precision_recall_fscore_support(y, predicted, labels=CLASSES,
                                                                            zero_division=0)
    for i, c in enumerate(CLASSES):
        assert rows[c][2] == support[i]
        assert rows[c][3] == per_class_auc[i]  # summation order differs
        # AP: cranfield sums the precision steps in another order than scikit-learn (1-ulp reordering)
        assert rows[c][4] == pytest.approx(metrics.average_precision_score(indicator[:, i], s[:, i]), rel=1e-15)
        assert rows[c][5:8] == [precision[i], recall[i], f1[i]]
    for avg in ("macro", "weighted"):
        assert rows[f"{avg} average"][3] == metrics.roc_auc_score(y, s, multi_class="ovr", average=avg, labels=CLASSES)
    assert rows["micro average"][3] == metrics.roc_auc_score(indicator, s, average="micro")
    assert rows["micro average"][4] == pytest.approx(metrics.average_precision_score(indicator, s, average="micro"),
                                                     rel=1e-15)
    overall = dict(study.overall.rows)
    assert overall["accuracy"] == metrics.accuracy_score(y, predicted)
    assert overall["top-2 accuracy"] == metrics.top_k_accuracy_score(y, s, k=2, labels=CLASSES)
    confusion = [row[1:] for row in study.confusion.rows]
    assert confusion == metrics.confusion_matrix(y, predicted, labels=CLASSES).tolist()
    assert study.confusion.columns[1:] == CLASSES and [r[0] for r in study.confusion.rows] == CLASSES


@pytest.mark.parametrize("specs,words", [
    (["p_barolo"], "no score column for class(es) barbera, grignolino"),
    (["p_bar", "p_barolo", "p_grignolino"], "matches no class"),
    (["wine=p_barolo", "p_barbera", "p_grignolino"], "'wine' is not a class"),
    (["barolo=p_barolo", "barolo=p_barbera", "p_grignolino"], "two columns"),
    (["barolo=nothing", "p_barbera", "p_grignolino"], "no column 'nothing'"),
])
def test_ambiguous_or_missing_class_columns_are_errors(specs, words):
    from cranfield.errors import UsageError
    from cranfield.report.multiclass import class_score_columns

    with pytest.raises(UsageError, match=words.replace("(", r"\(").replace(")", r"\)")):
        class_score_columns(specs, CLASSES, ["p_barbera", "p_barolo", "p_grignolino"])


def test_report_and_curves_from_the_command_line(wine, tmp_path, capsys):
    out = tmp_path / "wine.html"
    argv = ["report", str(wine["path"]), "--truth", "truth", *[x for s in SPECS for x in ("--class-score", s)],
            "-o", str(out), "-q"]
    assert cranfield.cli.main(argv) == 0, capsys.readouterr().err
    page = out.read_text()
    for c in CLASSES:
        assert f"<th scope=\"col\">{c}</th>" in page  # the confusion matrix's columns
    assert ">negative<" not in page and ">positive<" not in page
    assert page.count('<figure class="chart') == 4
    # several classes, no --positive: bare --score columns make the multiclass report, not an error
    out2 = tmp_path / "wine2.html"
    argv = ["report", str(wine["path"]), "--truth", "truth", "--score", "p_barolo", "--score", "p_barbera",
            "--score", "p_grignolino", "-o", str(out2), "-q"]
    assert cranfield.cli.main(argv) == 0, capsys.readouterr().err
    assert "Classes (each against the rest)" in out2.read_text()
    folder = tmp_path / "curves"
    argv = ["curves", str(wine["path"]), "--truth", "truth", *[x for s in SPECS for x in ("--class-score", s)],
            "-o", str(folder), "-q"]
    assert cranfield.cli.main(argv) == 0, capsys.readouterr().err
    assert sorted(p.name for p in folder.iterdir()) == ["confusion.png", "confusion_normalised.png", "pr.png",
                                                        "roc.png"]


def test_plot_functions_draw_a_score_matrix_per_class(wine):
    from cranfield.plots import class_pr_plot, pr_plot, roc_plot

    frame = pd.DataFrame(wine["scores"], columns=CLASSES)
    for figure in (roc_plot(wine["truth"], frame), pr_plot(wine["truth"], wine["scores"]),
                   class_pr_plot(wine["truth"], wine["scores"], labels=CLASSES)):
        legend = [t.get_text() for t in figure.legends[0].get_texts()] if figure.legends else \
            [t.get_text() for t in figure.axes[0].get_legend().get_texts()]
        for c in CLASSES:
            assert any(text.startswith(c + " (") for text in legend), legend
        assert any(text.startswith("micro-average") for text in legend)


def test_binary_confusion_matrix_uses_the_class_names(tmp_path):
    from cranfield.report.detection import detection_figures, detection_study

    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 80)
    path = tmp_path / "scores.csv"
    pd.DataFrame({"diagnosis": np.where(y == 1, "malignant", "benign"),
                  "model": np.round(y * 0.5 + rng.random(80), 4)}).to_csv(path, index=False)
    study = detection_study(path, truth="diagnosis", scores=["model"], positive="malignant")
    figure = detection_figures(study)["confusion_model"][0]
    ticks = [t.get_text() for t in figure.axes[0].get_xticklabels()]
    assert ticks == ["benign", "malignant"]


@pytest.fixture(scope="module")
def genres(tmp_path_factory):
    """Multilabel: three genres per film (0/1 columns) and a score per genre."""
    rng = np.random.default_rng(5)
    n = 120
    truth = (rng.random((n, 3)) < [0.3, 0.5, 0.2]).astype(int)
    scores = np.round(np.clip(truth * 0.4 + rng.random((n, 3)) * 0.6, 0, 1), 4)
    path = tmp_path_factory.mktemp("genres") / "genres.csv"
    pd.DataFrame({"is_drama": truth[:, 0], "is_comedy": truth[:, 1], "is_horror": truth[:, 2],
                  "s_drama": scores[:, 0], "s_comedy": scores[:, 1], "s_horror": scores[:, 2]}).to_csv(path, index=False)
    return {"path": path, "truth": truth, "scores": scores}


GENRE_ARGS = ["--class-truth", "drama=is_drama", "--class-truth", "comedy=is_comedy", "--class-truth",
              "horror=is_horror", "--class-score", "s_drama", "--class-score", "s_comedy", "--class-score", "s_horror"]


def test_the_multilabel_study_equals_scikit_learn(genres):
    from cranfield.report.multiclass import multilabel_study

    study = multilabel_study(genres["path"], class_truths=["drama=is_drama", "comedy=is_comedy", "horror=is_horror"],
                             class_scores=["s_drama", "s_comedy", "s_horror"])
    y, s = genres["truth"], genres["scores"]
    predicted = (s >= 0.5).astype(int)
    rows = {row[0]: row for row in study.summary.rows}
    precision, recall, f1, support = metrics.precision_recall_fscore_support(y, predicted, zero_division=0)
    auc = metrics.roc_auc_score(y, s, average=None)
    for i, c in enumerate(["drama", "comedy", "horror"]):
        assert rows[c][2] == support[i] and rows[c][3] == auc[i]
        assert rows[c][4] == pytest.approx(metrics.average_precision_score(y[:, i], s[:, i]), rel=1e-15)  # sum order
        assert rows[c][5:8] == [precision[i], recall[i], f1[i]]
    for avg in ("macro", "weighted", "micro"):
        # micro AUC: a trapezoid sum over the pooled curve in another order than scikit-learn's (1 ulp)
        assert rows[f"{avg} average"][3] == pytest.approx(metrics.roc_auc_score(y, s, average=avg), rel=1e-15)
        assert rows[f"{avg} average"][5:8] == pytest.approx(
            list(metrics.precision_recall_fscore_support(y, predicted, average=avg, zero_division=0)[:3]), rel=1e-15)
    overall = dict(study.overall.rows)
    assert overall["subset accuracy"] == metrics.accuracy_score(y, predicted)
    assert overall["Hamming loss"] == metrics.hamming_loss(y, predicted)
    assert [row[1:] for row in study.confusion.rows] == \
        metrics.multilabel_confusion_matrix(y, predicted).reshape(3, 4).tolist()


def test_multilabel_report_and_curves_from_the_command_line(genres, tmp_path, capsys):
    out = tmp_path / "genres.html"
    assert cranfield.cli.main(["report", str(genres["path"]), *GENRE_ARGS, "-o", str(out), "-q"]) == 0, \
        capsys.readouterr().err
    page = out.read_text()
    assert "Multilabel evaluation report" in page and page.count('<figure class="chart') == 2
    folder = tmp_path / "curves"
    assert cranfield.cli.main(["curves", str(genres["path"]), *GENRE_ARGS, "-o", str(folder), "-q"]) == 0
    assert sorted(p.name for p in folder.iterdir()) == ["pr.png", "roc.png"]
    assert cranfield.cli.main(["report", str(genres["path"]), "--class-truth", "drama=s_drama", "--class-truth",
                               "comedy=is_comedy", "--class-score", "s_drama", "--class-score", "s_comedy",
                               "-o", str(out)]) == 2
    assert "must hold 0 or 1" in capsys.readouterr().err
