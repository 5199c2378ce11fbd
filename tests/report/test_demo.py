"""``cranfield demo``: runs offline on the shipped data, prints the table, writes plots and the report."""

import json

from cranfield.cli import main


def test_demo_retrieval_in_current_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["demo", "--permutations", "2000"]) == 0
    out, err = capsys.readouterr()
    folder = tmp_path / "cranfield-demo"
    names = sorted(p.name for p in folder.iterdir())
    assert "report.html" in names and "recall_precision.png" in names and "forest.png" in names
    assert sum(name.endswith(".png") for name in names) == 8
    # the table: the three systems, the five measures, CIs and the test
    for text in ("bm25s_stem", "tfidf_cosine", "coord_title", "AP", "nDCG@10", "P@10", "RR", "RPrec", "95% CI",
                 "randomization test, Holm correction", "0.2997", "0.3695"):
        assert text in out
    assert (folder / "summary.txt").read_text() == out
    assert "wrote 14 files to cranfield-demo/" in err and "report.html" in err
    doc = json.loads((folder / "comparison.json").read_text())
    assert round(doc["measures"]["AP"]["systems"]["bm25s_stem"]["mean"], 4) == 0.2997


def test_demo_detection_with_output_dir(tmp_path, capsys):
    folder = tmp_path / "det"
    assert main(["demo", "--detection", "--output-dir", str(folder), "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert {"roc.png", "pr.png", "det.png", "report.html", "summary.md"} <= {p.name for p in folder.iterdir()}
    assert "logistic_regression" in out and "ROC AUC" in out and "DeLong" in out and "569 samples" in out


def test_demo_output_dir_that_is_a_file_is_an_error(tmp_path, capsys):
    blocker = tmp_path / "taken"
    blocker.write_text("x")
    assert main(["demo", "--detection", "--output-dir", str(blocker)]) == 2
    assert "is not a folder" in capsys.readouterr().err
    assert blocker.read_text() == "x"
