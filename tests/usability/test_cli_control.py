"""The command line for people (issue 13, items 1 and 6): one query-set policy with per-run
query counts and hints in CLI flags, the tidy per-query table, --name, shared evaluation options,
curves --only/--pair, collision-free figure names, `cranfield datasets`, progress with totals."""

import io
import json

import pandas as pd
import pytest

import cranfield
from cranfield import datasets
from cranfield.cli import main
from cranfield.cli._options import run_specs
from cranfield.retrieval.inputs import unique_names
from cranfield.cli.curves_cmd import unique_stems
from cranfield.errors import UsageError

DATA = datasets.cranfield()
QRELS = str(DATA["qrels"])
BM25, TFIDF = str(DATA["runs"]["bm25"]), str(DATA["runs"]["tfidf"])


def run(argv, capsys):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def first20(tmp_path_factory):
    """The BM25 run on its first 20 queries only."""
    path = tmp_path_factory.mktemp("runs") / "bm25_20.run"
    lines = [line for line in open(BM25) if int(line.split()[0]) <= 20]
    path.write_text("".join(lines))
    return str(path)


# ------------------------------------------------------------------------------ query-set policy

@pytest.mark.parametrize("order", ["20 first", "225 first"])
def test_evaluate_gives_each_runs_query_count_whatever_the_order(first20, capsys, order):
    runs = [first20, TFIDF] if order == "20 first" else [TFIDF, first20]
    code, out, err = run(["evaluate", QRELS, *runs, "-m", "AP", "-f", "csv"], capsys)
    assert code == 0, err
    frame = pd.read_csv(io.StringIO(out)).set_index("run")
    assert frame.loc["bm25s_stem", "queries"] == 20 and frame.loc["tfidf_cosine", "queries"] == 225
    assert "runs cover different queries (" in err and "-c evaluates every run" in err
    code, out, _ = run(["evaluate", QRELS, *runs, "-m", "AP"], capsys)
    assert "Warning: the runs cover different queries" in out


def test_evaluate_complete_makes_the_query_sets_equal(first20, capsys):
    code, out, err = run(["evaluate", QRELS, first20, TFIDF, "-m", "AP", "-c", "-f", "csv"], capsys)
    assert code == 0 and err == ""
    frame = pd.read_csv(io.StringIO(out))
    assert frame["queries"].tolist() == [225, 225]
    full = cranfield.evaluate(QRELS, first20, ["AP"], complete=True)
    assert frame.loc[0, "AP"] == pytest.approx(full.mean["AP"], abs=0)


def test_compare_refuses_different_query_sets_with_cli_flags(first20, capsys):
    code, _, err = run(["compare", QRELS, first20, TFIDF, "-m", "AP"], capsys)
    assert code == 2 and err.count("\n") == 1
    assert "runs cover different queries (bm25s_stem: 20, tfidf_cosine: 225" in err
    assert "--missing intersect" in err and "--missing zero" in err and "-c" in err
    assert "missing='" not in err and "evaluate_options" not in err  # no Python arguments on the CLI


def test_the_same_refusal_in_python_names_keyword_arguments(first20):
    with pytest.raises(cranfield.InputError, match=r"missing='intersect'.*missing='zero'.*evaluate_options=\{'complete': True\}"):
        cranfield.compare(QRELS, [cranfield.read_run(first20), cranfield.read_run(TFIDF)], ["AP"])


def test_compare_intersect_notes_each_runs_own_count(first20, capsys):
    code, out, err = run(["compare", QRELS, first20, TFIDF, "-m", "AP", "--missing", "intersect"], capsys)
    assert code == 0, err
    text = " ".join(out.split())  # notes are wrapped to the terminal's width
    assert "Queries of each run: bm25s_stem 20, tfidf_cosine 225; compared on 20 (the common queries" in text


def test_report_follows_the_same_policy(first20, tmp_path, capsys):
    target = tmp_path / "r.html"
    code, _, err = run(["report", QRELS, first20, TFIDF, "--test", "t", "-o", target, "-q"], capsys)
    assert code == 2 and "--missing intersect" in err and not target.exists()
    code, _, err = run(["report", QRELS, first20, TFIDF, "--test", "t", "-o", target, "-q", "--missing", "zero"], capsys)
    assert code == 0, err
    assert "Queries of each run: bm25s_stem 20, tfidf_cosine 225; compared on 225" in target.read_text()


# ------------------------------------------------------------------------------ tidy per-query output

@pytest.mark.parametrize("fmt", ["csv", "tsv", "json"])
def test_per_query_output_is_one_long_table(capsys, fmt):
    code, out, err = run(["evaluate", QRELS, BM25, TFIDF, "-m", "AP", "-m", "P@10", "-q", "-f", fmt], capsys)
    assert code == 0, err
    if fmt == "json":
        frame = pd.DataFrame(json.loads(out))
    else:
        frame = pd.read_csv(io.StringIO(out), sep="," if fmt == "csv" else "\t", dtype={"qid": str})
    assert list(frame.columns) == ["run", "qid", "measure", "value"]
    assert len(frame) == 2 * 2 * 225 and frame["value"].dtype == float
    wide = frame.pivot_table(index=["run", "qid"], columns="measure", values="value")
    expected = cranfield.evaluate(QRELS, TFIDF, ["AP"])
    assert wide.loc[("tfidf_cosine", "1"), "AP"] == expected.per_query["AP"]["1"]
    assert frame.groupby(["run", "measure"])["value"].mean()[("tfidf_cosine", "AP")] == pytest.approx(expected.mean["AP"])


# ------------------------------------------------------------------------------ naming

def test_name_labels_runs_and_duplicates_are_numbered(tmp_path, capsys):
    a, b = tmp_path / "a.run", tmp_path / "b.run"
    for path in (a, b):  # two different runs with the same tag
        path.write_text("".join(line.replace("bm25s_stem", "myrun") for line in open(BM25)))
    code, out, err = run(["evaluate", QRELS, a, b, "-m", "AP", "-f", "csv"], capsys)
    assert code == 0 and pd.read_csv(io.StringIO(out))["run"].tolist() == ["myrun", "myrun#2"]
    code, out, err = run(["evaluate", QRELS, "--name", f"first={a}", "--name", f"second={b}", "-m", "AP", "-f", "csv"],
                         capsys)
    assert code == 0 and pd.read_csv(io.StringIO(out))["run"].tolist() == ["first", "second"]
    code, out, err = run(["compare", QRELS, a, b, "--name", f"base={a}", "-m", "AP", "-f", "json", "--test", "t"], capsys)
    assert code == 0 and set(json.loads(out)["measures"]["AP"]["systems"]) == {"base", "myrun"}


def test_run_specs_and_unique_names():
    assert run_specs(["a.run", "b.run"], ["B=b.run", "C=c.run"]) == [("a.run", None), ("b.run", "B"), ("c.run", "C")]
    assert run_specs(["./a.run"], ["A=a.run"]) == [("./a.run", "A")]  # the same file, however spelt
    for bad, message in ((["nolabel"], "expected LABEL=PATH"), (["x=a", "x=b"], "given twice"),
                         (["x=a", "y=a"], "named twice")):
        with pytest.raises(UsageError, match=message):
            run_specs([], bad)
    assert unique_names(["r", "r", "r#2", "r"]) == ["r", "r#3", "r#2", "r#4"]


# ------------------------------------------------------------------------------ evaluation options everywhere

@pytest.mark.parametrize("command", ["evaluate", "compare", "report", "curves"])
def test_every_retrieval_command_has_the_trec_eval_options(command, capsys):
    code, out, _ = run([command, "--help"], capsys)
    assert code == 0
    for flag in ("-c, --complete", "-l, --relevance-level", "-M, --max-results", "-J, --judged-only",
                 "-N, --collection-size", "--name LABEL=PATH", "--qrels-columns", "--run-columns"):
        assert flag in out, (command, flag)
    if command != "evaluate":
        assert "--missing" in out


def test_compare_passes_the_options_to_the_evaluation(capsys):
    code, out, err = run(["compare", QRELS, BM25, TFIDF, "-m", "P@10", "-M", "5", "-J", "-l", "3", "-f", "json",
                          "--test", "t"], capsys)
    assert code == 0, err
    expected = cranfield.evaluate(QRELS, BM25, ["P@10"], max_results=5, judged_only=True, relevance_level=3)
    assert json.loads(out)["measures"]["P@10"]["systems"]["bm25s_stem"]["mean"] == pytest.approx(expected.mean["P@10"])


def test_column_mapping_on_the_command_line(tmp_path, capsys):
    qrels = cranfield.read_qrels(QRELS).to_pandas().rename(columns={"qid": "topic", "docno": "doc", "rel": "grade"})
    run_frame = cranfield.read_run(BM25).to_pandas().rename(columns={"qid": "query_id", "docno": "doc_id"})
    qrels.to_csv(tmp_path / "q.csv", index=False)
    run_frame.to_parquet(tmp_path / "r.parquet")
    code, out, err = run(["evaluate", tmp_path / "q.csv", tmp_path / "r.parquet", "-m", "AP", "-f", "csv",
                          "--qrels-columns", "qid=topic,docno=doc,rel=grade"], capsys)
    assert code == 0, err
    assert pd.read_csv(io.StringIO(out)).loc[0, "AP"] == pytest.approx(cranfield.evaluate(QRELS, BM25, ["AP"]).mean["AP"])
    code, _, err = run(["evaluate", tmp_path / "q.csv", BM25, "--qrels-columns", "query=topic"], capsys)
    assert code == 2 and "--qrels-columns: expected FIELD=COLUMN" in err
    code, _, err = run(["evaluate", tmp_path / "q.csv", BM25], capsys)
    assert code == 2 and "no qid column" in err and "--qrels-columns qid=COLUMN" in err


# ------------------------------------------------------------------------------ curves

def test_curves_only_one_difference_chart_for_a_chosen_pair(tmp_path, capsys):
    coord = DATA["runs"]["coord_title"]
    code, _, err = run(["curves", QRELS, BM25, TFIDF, coord, "--only", "differences", "--pair", "bm25.run,coord_title",
                        "-o", tmp_path], capsys)
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["differences_bm25s_stem_vs_coord_title.png"]
    code, _, err = run(["curves", QRELS, BM25, TFIDF, "--pair", "bm25.run,nothing", "-o", tmp_path], capsys)
    assert code == 2 and "--pair 'nothing' is none of the runs" in err
    code, _, err = run(["curves", QRELS, BM25, TFIDF, "--only", "roc", "-o", tmp_path], capsys)
    assert code == 2 and "--only: expected a figure of the retrieval form" in err


def test_curves_only_for_a_classifier(tmp_path, capsys):
    code, _, err = run(["curves", datasets.detection(), "--truth", "malignant", "--score", "naive_bayes", "--only", "roc",
                        "--only", "det", "-o", tmp_path], capsys)
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["det.png", "roc.png"]


def test_figures_whose_names_sanitise_alike_do_not_overwrite_each_other(tmp_path, capsys):
    assert list(unique_stems({"a/b": 1, "a_b": 2, "A_B": 3, "c": 4})) == ["a_b", "a_b_2", "A_B_3", "c"]
    code, _, err = run(["curves", QRELS, "--name", f"my/run={BM25}", "--name", f"my_run={TFIDF}",
                        "--only", "per_query_pr", "-o", tmp_path], capsys)
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["per_query_pr_my_run.png", "per_query_pr_my_run_2.png"]


# ------------------------------------------------------------------------------ datasets, progress

def test_datasets_lists_the_shipped_files(capsys):
    code, out, _ = run(["datasets"], capsys)
    assert code == 0
    for name, (path, _) in datasets.files().items():
        assert path.exists() and f"{name}" in out and str(path) in out
    code, out, _ = run(["datasets", "--path", "qrels"], capsys)
    assert out == f"{DATA['qrels']}\n"
    code, _, err = run(["datasets", "--path", "nope"], capsys)
    assert code == 2 and "expected one of qrels" in err


def test_progress_shows_percentage_and_time_left_when_the_total_is_known(monkeypatch):
    import sys

    from rich.console import Console

    from cranfield.report import progress

    buffer = io.StringIO()
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    monkeypatch.setattr("rich.console.Console", lambda **kw: Console(file=buffer, force_terminal=True, width=100))
    with progress.steps() as step:
        step("reading")
        advance = step("evaluating 4 runs", total=4)
        advance()
        advance()
        advance()
    text = buffer.getvalue()
    assert "evaluating 4 runs" in text and "75%" in text and "left" in text


def test_report_of_irds_judgments_asks_for_a_file(tmp_path, capsys):
    code, _, err = run(["report", "irds:cranfield", BM25, "-o", tmp_path / "r.html"], capsys)
    assert code == 2 and "to_trec('qrels.txt')" in err and not (tmp_path / "r.html").exists()


def test_report_takes_names_and_evaluation_options(tmp_path, capsys):
    target = tmp_path / "r.html"
    code, _, err = run(["report", QRELS, "--name", f"B={BM25}", "--name", f"T={TFIDF}", "-M", "10", "-J", "-m", "P@10",
                        "--test", "t", "-q", "-o", target], capsys)
    assert code == 0, err
    page = target.read_text()
    expected = cranfield.evaluate(QRELS, BM25, ["P@10"], max_results=10, judged_only=True).mean["P@10"]
    assert f"{expected:.4f}" in page and ">B<" in page and ">T<" in page


def test_option_errors_name_the_flags(capsys):
    code, _, err = run(["evaluate", QRELS, BM25, "--aggregate", "micro", "-m", "AP"], capsys)
    assert code == 2 and "--aggregate macro" in err and "aggregate='macro'" not in err
