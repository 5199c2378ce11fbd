"""``cranfield report`` and ``cranfield curves``: outputs, exit codes, atomic output."""

import pytest

from cranfield.cli import main

from .conftest import leftovers


def run(argv, capsys):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_report_retrieval_writes_one_html_file(small_files, capsys):
    target = small_files["dir"] / "out" / "report.html"
    target.parent.mkdir()
    code, out, err = run(["report", str(small_files["qrels"]), *map(str, small_files["runs"]), "--test", "t",
                          "-o", str(target)], capsys)
    assert code == 0, err
    page = target.read_text()
    assert page.startswith("<!DOCTYPE html>") and "a.run" in page and "b.run" in page
    assert err.strip() == f"cranfield: wrote {target}"
    assert [p.name for p in target.parent.iterdir()] == ["report.html"]


def test_report_classifier_form(small_files, capsys):
    target = small_files["dir"] / "clf.html"
    code, _, err = run(["report", str(small_files["scores"]), "--truth", "label", "--score", "good", "--score", "poor",
                        "-o", str(target), "--quiet"], capsys)
    assert code == 0, err
    assert err == ""
    page = target.read_text()
    assert 'data-chart="roc"' in page and "good" in page and "poor" in page


@pytest.mark.parametrize("argv, message", [
    (["--truth", "label"], "needs --truth COL and at least one --score"),
    (["--truth", "label", "--score", "missing"], "no column 'missing'"),
    (["--truth", "label", "--score", "good", "--correction", "tukey"], "applies to retrieval runs"),
])
def test_report_classifier_errors_exit_2_without_output(small_files, capsys, argv, message):
    target = small_files["dir"] / "clf.html"
    code, _, err = run(["report", str(small_files["scores"]), *argv, "-o", str(target)], capsys)
    assert code == 2
    assert err.startswith("cranfield: error:") and message in err
    assert not target.exists() and leftovers(small_files["dir"]) == []


def test_report_error_leaves_existing_file_untouched(small_files, capsys):
    target = small_files["dir"] / "report.html"
    target.write_text("previous")
    bad = small_files["dir"] / "bad.run"
    bad.write_text("q1 Q0 d1 1 not-a-number tag\n")
    code, _, err = run(["report", str(small_files["qrels"]), str(bad), "-o", str(target)], capsys)
    assert code == 2 and "bad.run" in err
    assert target.read_text() == "previous" and leftovers(small_files["dir"]) == []


def test_report_needs_a_run(small_files, capsys):
    code, _, err = run(["report", str(small_files["qrels"]), "-o", str(small_files["dir"] / "r.html")], capsys)
    assert code == 2 and "at least one RUN" in err


def test_curves_retrieval(small_files, capsys):
    folder = small_files["dir"] / "plots"
    code, _, err = run(["curves", str(small_files["qrels"]), *map(str, small_files["runs"]), "--test", "t",
                        "--format", "svg", "-o", str(folder)], capsys)
    assert code == 0, err
    names = sorted(p.name for p in folder.iterdir())
    assert names == ["differences_a_vs_b.svg", "forest.svg", "per_query_pr_a.svg", "per_query_pr_b.svg",
                     "recall_precision.svg"]
    assert "wrote 5 figures" in err


def test_curves_classifier(small_files, capsys):
    folder = small_files["dir"] / "plots"
    code, _, err = run(["curves", str(small_files["scores"]), "--truth", "label", "--score", "good",
                        "-o", str(folder), "-q"], capsys)
    assert code == 0, err
    assert sorted(p.name for p in folder.iterdir()) == ["confusion_good.png", "confusion_good_normalised.png",
                                                       "det.png", "pr.png", "roc.png", "threshold_good.png"]


def test_curves_error_writes_nothing(small_files, capsys):
    folder = small_files["dir"] / "plots"
    code, _, err = run(["curves", str(small_files["qrels"]), str(small_files["dir"] / "missing.run"),
                        "-o", str(folder)], capsys)
    assert code == 2 and "missing.run" in err
    assert not folder.exists()


@pytest.mark.parametrize("name", ["report", "curves", "demo"])
def test_help_documents_examples_and_exit_codes(name, capsys):
    code, out, _ = run([name, "--help"], capsys)
    assert code == 0
    assert "Examples:" in out and "Exit status: 0 success; 2 bad input or usage" in out and "130 interrupted" in out
