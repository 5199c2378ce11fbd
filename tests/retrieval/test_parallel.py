"""Evaluation split over threads gives exactly the single-threaded numbers."""

from __future__ import annotations

import numpy as np
import pytest

import cranfield
from cranfield.retrieval import parallel


@pytest.mark.parametrize("run_file", ["bm25.run", "coord_title.run"])
@pytest.mark.parametrize("threads", [2, 3, 7])
def test_threads_give_identical_values(cranfield_dir, monkeypatch, run_file, threads):
    monkeypatch.setattr(parallel, "MIN_ROWS", 0)
    measures = ["AP", "nDCG@10", "P@10", "RR", "Bpref", "infAP", "IPrec@0.3", "RnDCG", "G", "NumRet", "GMAP"]
    evaluator = cranfield.Evaluator(cranfield_dir / "qrels.graded.trec", measures)
    run = cranfield.read_run(cranfield_dir / "runs" / run_file)
    single = evaluator.evaluate(run, threads=1)
    split = evaluator.evaluate(run, threads=threads)
    assert list(split.query_ids) == list(single.query_ids)
    for name in single.per_query:
        np.testing.assert_array_equal(split.per_query[name], single.per_query[name], err_msg=name)
        assert split.mean[name] == single.mean[name]


def test_split_needs_grouped_queries():
    run = cranfield.Run.from_frame(__import__("pyarrow").table(
        {"qid": ["a", "b", "a", "b"], "docno": ["x", "y", "z", "w"], "score": [1.0, 2.0, 3.0, 4.0]}))
    assert parallel.split_run(run, 2) is None
    grouped = cranfield.Run.from_dict({"a": {"x": 1.0, "z": 3.0}, "b": {"y": 2.0, "w": 4.0}})
    parts = parallel.split_run(grouped, 2)
    assert [len(p) for p in parts] == [2, 2]
    assert [p.query_ids for p in parts] == [["a"], ["b"]]
    assert [p.query_ids for p in parallel.split_run(grouped, 5)] == [["a"], ["b"]]  # at most one part a query


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_parts_without_a_judged_query_add_nothing(monkeypatch, threads):
    """A part whose queries are all absent from the qrels is skipped: a run of over a million
    rows whose first parts held only unjudged queries failed with "no query in common" (trec_eval
    printed its values). With no judged query at all, the error of the run in one piece."""
    run = cranfield.Run.from_dict({f"{p}{q}": {f"d{d}": float(10 - d) for d in range(6)} for p in "ab"
                                   for q in range(6)})
    evaluator = cranfield.Evaluator({f"b{q}": {"d1": 1, "d4": 2, "d9": q % 2} for q in range(6)},
                                    ["AP", "nDCG@10", "P@5", "RR", "Bpref"])
    whole = evaluator.evaluate(run, threads=threads)  # under MIN_ROWS: one piece
    monkeypatch.setattr(parallel, "MIN_ROWS", 0)
    split = evaluator.evaluate(run, threads=threads)
    assert list(split.query_ids) == list(whole.query_ids) == [f"b{q}" for q in range(6)]
    for name in whole.per_query:
        np.testing.assert_array_equal(split.per_query[name], whole.per_query[name], err_msg=name)
        assert split.mean[name] == whole.mean[name]
    unjudged = cranfield.Evaluator({"c1": {"d1": 1}}, ["AP"])
    with pytest.raises(cranfield.InputError) as in_parts:
        unjudged.evaluate(run, threads=threads)
    monkeypatch.setattr(parallel, "MIN_ROWS", 10**9)
    with pytest.raises(cranfield.InputError) as in_one_piece:
        unjudged.evaluate(run, threads=threads)
    assert str(in_parts.value) == str(in_one_piece.value) and "no query in common" in str(in_parts.value)


def test_duplicate_in_a_slice_names_the_right_lines(tmp_path, monkeypatch):
    monkeypatch.setattr(parallel, "MIN_ROWS", 0)
    lines = [f"q{i} Q0 d{j} {j} {10 - j} t" for i in range(4) for j in range(3)]
    lines.append("q3 Q0 d0 9 0.5 t")  # line 13 repeats line 10's document
    path = tmp_path / "run.txt"
    path.write_text("\n".join(lines) + "\n")
    qrels = {f"q{i}": {"d0": 1} for i in range(4)}
    with pytest.raises(cranfield.InputError, match=r"run.txt:13: field docno: .*'d0'.*also on line 10"):
        cranfield.Evaluator(qrels, ["AP"]).evaluate(path, threads=2)
