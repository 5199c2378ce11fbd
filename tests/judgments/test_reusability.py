"""Reusability (leave-one-run-out / leave-one-group-out): against pytrec_eval on qrels reduced by
an independent oracle, scipy's Kendall tau, properties, the run-groups grammar, the CLI, and
``cranfield evaluate --unjudged``."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cranfield import datasets
from cranfield.cli import main
from cranfield.errors import InputError, UsageError
from cranfield.io.run_groups import read_run_groups
from cranfield.judgments import groups_by_prefix, leave_one_out

pytrec_eval = pytest.importorskip("pytrec_eval")
scipy_stats = pytest.importorskip("scipy.stats")


def top(docs: dict, depth: int) -> list:
    by_docno = sorted(docs, key=lambda d: d.encode(), reverse=True)
    return sorted(by_docno, key=lambda d: -docs[d])[:depth]


def oracle_left_out(qrels: dict, runs: dict, groups: dict, depth: int, measure: str) -> dict:
    """{run: score with the judgments only its group pooled removed}, by pytrec_eval (the
    module's policy: a query left with no judgment keeps its removed ones as grade 0)."""
    pooled_by: dict = {}
    for name, run in runs.items():
        for qid, docs in run.items():
            for doc in top(docs, depth):
                pooled_by.setdefault((qid, doc), set()).add(groups[name])
    out = {}
    for name, run in runs.items():
        reduced = {}
        for qid, judged in qrels.items():
            kept = {d: r for d, r in judged.items() if pooled_by.get((qid, d), set()) != {groups[name]}}
            reduced[qid] = kept if kept else {d: 0 for d in judged}
        scores = pytrec_eval.RelevanceEvaluator(reduced, {measure}).evaluate(run)
        out[name] = float(np.mean([scores[q][measure] for q in scores])) if scores else 0.0
    return out


QRELS = {"q1": {"a": 1, "b": 1, "c": 0, "e": 2}, "q2": {"a": 1, "z": 1}}
RUNS = {"x": {"q1": {"a": 3.0, "c": 2.0, "e": 1.0}, "q2": {"a": 1.0, "z": 0.5}},
        "y": {"q1": {"b": 3.0, "c": 2.0}, "q2": {"z": 2.0}},
        "w": {"q1": {"c": 3.0}, "q2": {"a": 1.0}}}


def test_by_hand():
    result = leave_one_out(QRELS, RUNS, ["P@2"], depth=2)
    # depth 2 pools: x {q1: a, c; q2: a, z}, y {q1: b, c; q2: z}, w {q1: c; q2: a}
    # unique: x → q1 a; y → q1 b; w → nothing
    assert result.removed.tolist() == [1, 1, 0]
    # P@2: x (q1 a c, q2 a z) = (1/2 + 1)/2; y (q1 b c, q2 z) = (1/2 + 1/2)/2; w (c; a) = (0 + 1/2)/2
    assert result.score[:, 0].tolist() == [0.75, 0.5, 0.25]
    assert result.left_out[:, 0].tolist() == [0.5, 0.25, 0.25]  # x loses q1 a, y loses q1 b
    assert result.rank[:, 0].tolist() == [1, 2, 3]
    assert result.left_out_rank[:, 0].tolist() == [1, 2, 3]  # x: 0.5 among {0.5, 0.25}: none above
    assert result.rank_change[:, 0].tolist() == [0, 0, 0]
    result = leave_one_out(QRELS, RUNS, ["P@1"], depth=1)
    # depth 1: x pools q1 a, q2 a (shared with w); y pools q1 b, q2 z; w pools q1 c
    assert result.score[:, 0].tolist() == [1.0, 1.0, 0.5]
    assert result.left_out[:, 0].tolist() == [0.5, 0.0, 0.5]
    assert result.left_out_rank[:, 0].tolist() == [2, 3, 3]
    assert result.rank_change[:, 0].tolist() == [1, 2, 0]


@settings(max_examples=15, deadline=None)
@given(st.data())
def test_matches_pytrec_eval_on_random_collections(data):
    docs = ["a", "b", "c", "d", "e", "f"]
    qids = ["q1", "q2"]
    qrels = {q: data.draw(st.dictionaries(st.sampled_from(docs), st.integers(0, 2), min_size=1, max_size=5))
             for q in qids}
    run = st.dictionaries(st.sampled_from(docs), st.sampled_from([1.0, 2.0, 3.0, 0.5]), min_size=1, max_size=6)
    runs = {f"r{i}": {q: data.draw(run) for q in qids} for i in range(data.draw(st.integers(2, 4)))}
    depth = data.draw(st.integers(1, 4))
    by_prefix = data.draw(st.booleans())
    groups = {name: ("g0" if i < 2 else "g1") for i, name in enumerate(runs)} if by_prefix and len(runs) > 2 else None
    group_of = groups or {name: name for name in runs}
    for measure, trec in (("AP", "map"), ("P@2", "P_2")):
        result = leave_one_out(qrels, runs, [measure], depth=depth, groups=groups)
        expected = oracle_left_out(qrels, runs, group_of, depth, trec)
        # pytrec_eval sums per-query values in another order than cranfield: a few ulps apart
        np.testing.assert_allclose(result.left_out[:, 0], [expected[n] for n in runs], rtol=1e-12, atol=1e-15)


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 3))
def test_run_without_unique_documents_is_unchanged(depth):
    # w retrieves only documents that x or y also pool: leaving it out changes nothing
    runs = {**RUNS, "w": {"q1": {"a": 1.0}, "q2": {"z": 1.0}}}
    result = leave_one_out(QRELS, runs, ["AP", "nDCG@10"], depth=depth)
    w = result.run_names.index("w")
    assert result.removed[w] == 0
    assert result.left_out[w].tolist() == result.score[w].tolist()
    assert result.rank_change[w].tolist() == [0, 0]


def test_shipped_runs_tau_against_scipy():
    data = datasets.cranfield()
    result = leave_one_out(data["qrels"], data["runs"], ["AP", "P@10"], depth=10)
    for j in range(2):
        expected = scipy_stats.kendalltau(result.score[:, j], result.left_out[:, j]).statistic
        assert result.tau[j] == pytest.approx(expected, abs=1e-15)  # both exact on 3 items
    assert (result.delta <= 0).all()  # at depth 10 each run loses relevant documents it found
    assert result.settings["depth"] == 10


def test_groups():
    assert groups_by_prefix(["uva-bm25", "uva_rm3", "cmu.x", "solo"]) == {
        "uva-bm25": "uva", "uva_rm3": "uva", "cmu.x": "cmu", "solo": "solo"}
    assert groups_by_prefix(["abc1", "abd2"], length=2) == {"abc1": "ab", "abd2": "ab"}
    result = leave_one_out(QRELS, RUNS, ["AP"], depth=2, groups={"x": "g", "y": "g", "w": "h"})
    # x and y alone pool q1 a, q1 b and q2 z (w pools q1 c and q2 a too): 3 judgments removed
    assert result.groups == ("g", "g", "h") and result.removed.tolist() == [3, 3, 0]
    with pytest.raises(UsageError, match="no group for run"):
        leave_one_out(QRELS, RUNS, ["AP"], groups={"x": "g"})
    with pytest.raises(UsageError, match="at least 2 groups"):
        leave_one_out(QRELS, RUNS, ["AP"], groups={"x": "g", "y": "g", "w": "g"})
    with pytest.raises(UsageError, match="at least 2 runs"):
        leave_one_out(QRELS, {"x": RUNS["x"]}, ["AP"])
    with pytest.raises(UsageError, match="depth"):
        leave_one_out(QRELS, RUNS, ["AP"], depth=0)


def test_run_groups_grammar(tmp_path):
    good = tmp_path / "g.csv"
    good.write_text('run,group\nuva-bm25,uva\n"a,b",x\r\n')
    assert read_run_groups(str(good)) == {"uva-bm25": "uva", "a,b": "x"}
    tsv = tmp_path / "g.tsv"
    tsv.write_text("a\tg1\nb\tg2\n")
    assert read_run_groups(str(tsv)) == {"a": "g1", "b": "g2"}
    for text, line, message in (("a,g\na,h\n", 2, "listed twice"), ("a,g\n\nb,h\n", 2, "blank line"),
                                ("a,g,x\n", 1, "expected 2 fields"), ("a, \n", 1, "empty group"), ("", None, "no run")):
        bad = tmp_path / "bad.csv"
        bad.write_text(text)
        with pytest.raises(InputError, match=message) as error:
            read_run_groups(str(bad))
        assert error.value.line == line and "bad.csv" in str(error.value)


# ----------------------------------------------------------------------------- command line

SHIPPED = datasets.cranfield()
RUN_FILES = [str(p) for p in SHIPPED["runs"].values()]


def test_cli_reusability_json_and_html(tmp_path, capsys):
    groups = tmp_path / "groups.csv"
    groups.write_text("bm25s_stem,vector\ntfidf_cosine,vector\ncoord_title,overlap\n")
    out, page = tmp_path / "r.json", tmp_path / "r.html"
    assert main(["reusability", str(SHIPPED["qrels"]), *RUN_FILES, "-m", "AP", "--depth", "10", "--groups",
                 str(groups), "-f", "json", "-o", str(out), "--html", str(page)]) == 0
    doc = json.loads(out.read_text())
    assert doc["settings"]["groups"] == "mapping" and len(doc["runs"]) == 3
    assert {r["group"] for r in doc["runs"]} == {"vector", "overlap"}
    text = page.read_text()
    assert "Pool sizes" in text and "<svg" in text and "Leave-one-group-out" in text


def test_cli_reusability_table(capsys):
    assert main(["reusability", str(SHIPPED["qrels"]), *RUN_FILES, "-m", "AP", "-m", "P@10", "--depth", "10"]) == 0
    out = capsys.readouterr().out
    assert "Leave-one-run-out" in out and "tau_ap" in out and "bm25s_stem" in out


@pytest.mark.parametrize("args, message", [
    (["--depth", "0"], "--depth: expected a whole number >= 1, found 0"),
    (["--prefix-length", "2"], "--prefix-length needs --group-by prefix"),
    (["-m", "nonsense"], "nonsense"),
])
def test_cli_reusability_errors(args, message, capsys):
    assert main(["reusability", str(SHIPPED["qrels"]), *RUN_FILES, *args]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_evaluate_unjudged_columns(capsys):
    assert main(["evaluate", str(SHIPPED["qrels"]), RUN_FILES[0], "-m", "AP", "--unjudged", "-f", "csv"]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert header.split(",") == ["run", "queries", "AP", "Unjudged@10", "Unjudged@100", "Unjudged@1000"]
    assert main(["evaluate", str(SHIPPED["qrels"]), RUN_FILES[0], "-m", "AP", "-f", "csv"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "run,queries,AP"  # unchanged without the flag


def test_demo_tables_and_report_section():
    from cranfield.report.html import document
    from cranfield.report.judgments import add_section, demo_text, pools_at_depths

    pools, results = pools_at_depths(QRELS, RUNS, depths=(1, 2), measures=("P@1",))
    text = demo_text(pools, results, "markdown")
    assert "| depth 1 | x | P@1 | 1.0000 | 0.5000 | -0.5000 | 1 |" in text  # test_by_hand's depth-1 numbers
    page = add_section(document("t", [("a", "A", "<p>first</p>")]), "judgments", "Pools", "<p>pools</p>")
    assert page.index('href="#a"') < page.index('href="#judgments"') < page.index("</nav>")
    assert page.index("<p>first</p>") < page.index('<section id="judgments">') < page.index("</main>")
