"""RAG nugget scores and citation support (cranfield.rag, io.nuggets, ``cranfield nuggets``) against
the TREC 2024 RAG definitions written one answer at a time, and a worked example."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cranfield import datasets
from cranfield.errors import InputError
from cranfield.rag import nugget_scores, support_scores

CREDIT = {"support": 1.0, "partial_support": 0.5, "not_support": 0.0,
          "full_support": 1.0, "no_support": 0.0}


def by_hand(record: dict) -> dict:
    """The track's scores of one answer, nugget by nugget."""
    nuggets = record["nuggets"]
    vital = [n for n in nuggets if n["importance"] == "vital"]

    def share(items, strict):
        total = 0.0
        for n in items:
            total += (n["assignment"] == "support") if strict else CREDIT[n["assignment"]]
        return total / len(items) if items else 0.0

    def weighted(strict):
        num = den = 0.0
        for n in nuggets:
            w = 1.0 if n["importance"] == "vital" else 0.5
            num += w * ((n["assignment"] == "support") if strict else CREDIT[n["assignment"]])
            den += w
        return num / den if den else 0.0

    return {"vital_strict": share(vital, True), "all_strict": share(nuggets, True), "vital": share(vital, False),
            "all": share(nuggets, False), "weighted_strict": weighted(True), "weighted": weighted(False)}


nugget = st.fixed_dictionaries({"importance": st.sampled_from(["vital", "okay"]),
                                "assignment": st.sampled_from(["support", "partial_support", "not_support"])})
answers = st.lists(st.tuples(st.sampled_from(["r1", "r2"]), st.sampled_from(["q1", "q2", "q3", "q10"]),
                             st.lists(nugget, max_size=12)), min_size=1, max_size=10, unique_by=lambda a: a[:2])


def _jsonl(records) -> io.BytesIO:
    return io.BytesIO("".join(json.dumps(r) + "\n" for r in records).encode())


@settings(max_examples=150, deadline=None)
@given(answers)
def test_nugget_scores_follow_the_definitions(items):
    records = [{"qid": q, "run_id": r, "nuggets": n} for r, q, n in items]
    result = nugget_scores(_jsonl(records))
    for i, record in enumerate(records):
        assert (result.runs[i], result.qids[i]) == (record["run_id"], record["qid"])
        assert {k: float(v[i]) for k, v in result.scores.items()} == by_hand(record)
    for run, means in result.mean().items():
        mine = [by_hand(r) for r in records if r["run_id"] == run]
        assert means["queries"] == len(mine)
        for k in mine[0]:
            assert means[k] == pytest.approx(sum(m[k] for m in mine) / len(mine), rel=1e-15)


def test_worked_example():
    """3 vital + 2 okay nuggets: support, partial, not (vital); support, partial (okay)."""
    record = {"qid": "2024-1", "run_id": "x", "nuggets": [
        {"importance": "vital", "assignment": "support"}, {"importance": "vital", "assignment": "partial_support"},
        {"importance": "vital", "assignment": "not_support"}, {"importance": "okay", "assignment": "support"},
        {"importance": "okay", "assignment": "partial_support"}]}
    s = {k: float(v[0]) for k, v in nugget_scores(_jsonl([record])).scores.items()}
    assert s["vital_strict"] == 1 / 3 and s["vital"] == 1.5 / 3
    assert s["all_strict"] == 2 / 5 and s["all"] == 3 / 5
    assert s["weighted_strict"] == 1.5 / 4 and s["weighted"] == pytest.approx(2.25 / 4, rel=1e-16)


def test_support_scores():
    record = {"qid": "q", "run_id": "x", "sentences": [
        {"citations": [{"docid": "a", "support": "full_support"}, {"docid": "b", "support": "no_support"}]},
        {"citations": [{"docid": "c", "support": "partial_support"}]},
        {"citations": []}]}
    s = {k: float(v[0]) for k, v in support_scores(_jsonl([record])).scores.items()}
    assert s == {"support_precision": 1.5 / 3, "support_recall": 1.5 / 3, "cited_sentences": 2 / 3}


@pytest.mark.parametrize("lines, message", [
    (['{"qid": "q", "nuggets": [{"importance": "vital", "assignment": "yes"}]}'],
     r":1: field nuggets\[0\].assignment: expected one of support"),
    (['{"qid": "q", "nuggets": [{"importance": "key", "assignment": "support"}]}'],
     r":1: field nuggets\[0\].importance: expected one of vital, okay"),
    (['{"qid": "q", "nuggets": []}', '{"qid": "q", "nuggets": []}'], r":2: field qid: run .* twice \(also on line 1\)"),
    (['{"qid": "q", "nuggets": []}', '', '{"qid": "r", "nuggets": []}'], ":2: blank line"),
    (['{"qid": "q", "nuggets": {}}'], ":1: field nuggets: expected a list"),
    (['{"nuggets": []}'], ":1: field qid: expected a query id"),
    (['{"qid": "q", "nuggets": [}'], ":1: not JSON"),
])
def test_grammar_errors(lines, message):
    with pytest.raises(InputError, match=message):
        nugget_scores(io.BytesIO(("\n".join(lines) + "\n").encode()))


def test_utf16_is_named():
    with pytest.raises(InputError, match="UTF-16"):
        nugget_scores(io.BytesIO('{"qid": "q", "nuggets": []}\n'.encode("utf-16")))


def test_cli_on_the_shipped_example():
    files = datasets.files()
    path, support = files["rag-nuggets"][0], files["rag-support"][0]
    done = subprocess.run([sys.executable, "-m", "cranfield", "nuggets", str(path), "--support", str(support),
                           "-f", "json", "-q"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    nuggets, supported = json.loads(done.stdout)
    expected = nugget_scores(path)
    assert nuggets["runs"] == expected.mean() and len(nuggets["per_query"]) == 24
    assert supported["runs"] == support_scores(support).mean()
    assert supported["runs"]["rag-closedbook"]["support_precision"] == 0.0
