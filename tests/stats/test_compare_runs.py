"""cranfield.compare (runs evaluated by the retrieval core) and the ``cranfield compare`` CLI."""

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import cranfield
from cranfield.cli import main
from cranfield.errors import InputError

DATA = Path(__file__).resolve().parent.parent / "data" / "cranfield"

QRELS = {"q1": {"d1": 1, "d3": 1}, "q2": {"d2": 1}, "q3": {"d1": 1}, "q4": {"d3": 2}}
RUN_A = {"q1": {"d1": 3, "d3": 2, "d2": 1}, "q2": {"d2": 3, "d1": 2}, "q3": {"d1": 2, "d2": 1}, "q4": {"d3": 2, "d1": 1}}
RUN_B = {"q1": {"d2": 3, "d1": 2, "d3": 1}, "q2": {"d1": 3, "d2": 2}, "q3": {"d2": 2, "d1": 1}, "q4": {"d1": 2, "d3": 1}}


def _runs():
    return [cranfield.Run.from_dict(RUN_A, name="A"), cranfield.Run.from_dict(RUN_B, name="B")]


def test_compare_evaluates_runs_and_equals_compare_values():
    qrels = cranfield.Qrels.from_dict(QRELS)
    c = cranfield.compare(qrels, _runs(), ["AP", "P@1"])
    # AP by hand: A ranks every relevant document first (AP 1 on all 4 queries); B puts one
    # non-relevant document first: q1 (1/2 + 2/3) / 2 = 7/12, q2 1/2, q3 1/2, q4 1/2
    assert c.summary("AP", "A").mean == pytest.approx(1.0)
    assert c.summary("AP", "B").mean == pytest.approx((7 / 12 + 1.5) / 4)
    assert c.pair("P@1", "A", "B").diff == pytest.approx(1.0)
    per = {r.run_name: r for r in (cranfield.evaluate(qrels, run, ["AP", "P@1"]) for run in _runs())}
    values = {name: {m: dict(r.per_query[m]) for m in r.per_query} for name, r in per.items()}
    # the numbers are the same; the settings differ only by each run's own query count (compare only)
    assert c.to_dict()["measures"] == cranfield.compare_values(values).to_dict()["measures"]
    named = cranfield.compare(qrels, {"first": _runs()[0], "second": _runs()[1]}, "AP")
    assert named.systems == ("first", "second") and named.measures == ("AP",)


def test_compare_rejects_runs_with_the_same_name():
    qrels = cranfield.Qrels.from_dict(QRELS)
    runs = [cranfield.Run.from_dict(RUN_A, name="X"), cranfield.Run.from_dict(RUN_B, name="X")]
    with pytest.raises(InputError, match="several runs are named 'X'"):
        cranfield.compare(qrels, runs, ["AP"])


def _write(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 {d} {r}\n" for q, docs in QRELS.items() for d, r in docs.items()))
    paths = []
    for name, run in (("A", RUN_A), ("B", RUN_B)):
        path = tmp_path / f"{name.lower()}.run"
        lines = []
        for q, docs in run.items():
            for rank, (d, s) in enumerate(sorted(docs.items(), key=lambda x: -x[1]), 1):
                lines.append(f"{q} Q0 {d} {rank} {s} {name}\n")
        path.write_text("".join(lines))
        paths.append(str(path))
    return str(qrels), paths


def test_cli_json_and_output_file(tmp_path, capsys):
    qrels, runs = _write(tmp_path)
    out = tmp_path / "cmp.json"
    assert main(["compare", qrels, *runs, "-m", "AP", "-m", "P@1", "--format", "json", "--output", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert set(doc["measures"]) == {"AP", "P@1"}
    assert doc["measures"]["AP"]["systems"]["A"]["mean"] == pytest.approx(1.0)
    assert doc["measures"]["AP"]["pairs"][0]["a"] == "A"
    assert main(["compare", qrels, *runs, "--baseline", "b.run", "--test", "sign", "--format", "markdown"]) == 0
    text = capsys.readouterr().out
    assert "(baseline)" in text and "sign test" in text


def test_cli_errors_are_one_line(tmp_path, capsys):
    qrels, runs = _write(tmp_path)
    assert main(["compare", qrels, runs[0]]) == 2
    assert "expected at least 2 runs" in capsys.readouterr().err
    assert main(["compare", qrels, *runs, "--baseline", "zzz"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cranfield: error: --baseline 'zzz'") and "Traceback" not in err
    assert main(["compare", qrels, *runs, "--test", "anova"]) == 2


@pytest.mark.skipif(not DATA.is_dir(), reason="tests/data/cranfield not copied yet")
def test_cranfield_runs():
    qrels = cranfield.read_qrels(next(DATA.rglob("qrels.raw.trec")))
    runs = {name: cranfield.read_run(next(DATA.rglob(f"{name}.run"))) for name in ("bm25", "tfidf", "coord_title")}
    c = cranfield.compare(qrels, runs, ["AP", "P@10"], test="t", correction="holm")
    # means as trec_eval 9.0.8 prints them (data/cranfield/README.md): map 0.2997 / 0.2827 / 0.2034
    for name, ap, p10 in (("bm25", 0.2997, 0.2338), ("tfidf", 0.2827, 0.2262), ("coord_title", 0.2034, 0.1560)):
        assert c.summary("AP", name).mean == pytest.approx(ap, abs=5e-5)
        assert c.summary("P@10", name).mean == pytest.approx(p10, abs=5e-5)
    assert len(c.query_ids) == 225
    for p in c.pairs:
        x, y = c.values(p.measure)[[c.systems.index(p.a), c.systems.index(p.b)]]
        assert p.p_value == pytest.approx(stats.ttest_rel(x, y).pvalue, rel=1e-10)
    assert c.pair("AP", "bm25", "coord_title").significant
    r = cranfield.compare(qrels, runs, ["AP"], test="randomization", n_permutations=2000)
    assert np.all([0 < p.p_value <= 1 for p in r.pairs])


def test_runs_missing_queries_error_or_complete():
    qrels = cranfield.Qrels.from_dict(QRELS)
    partial = cranfield.Run.from_dict({q: docs for q, docs in RUN_B.items() if q != "q4"}, name="B")
    runs = [cranfield.Run.from_dict(RUN_A, name="A"), partial]
    with pytest.raises(InputError, match=r"runs cover different queries \(A: 4, B: 3; 'B' lacks 1 of the 4: 'q4'\).*missing='intersect'.*complete': True"):
        cranfield.compare(qrels, runs, ["AP"])
    c = cranfield.compare(qrels, runs, ["AP"], evaluate_options={"complete": True})  # trec_eval -c: q4 scores 0
    assert c.summary("AP", "B").mean == pytest.approx((7 / 12 + 0.5 + 0.5 + 0) / 4)
    inter = cranfield.compare(qrels, runs, ["AP"], missing="intersect")
    assert list(inter.query_ids) == ["q1", "q2", "q3"]
