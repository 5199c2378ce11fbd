"""Query performance prediction evaluation: cranfield.correlation.qpp_evaluation, the predictions
grammar (io.predictions) and ``cranfield qpp``."""

from __future__ import annotations

import io
import random
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

from cranfield import datasets, evaluate
from cranfield.correlation import qpp_evaluation
from cranfield.errors import InputError, UsageError
from cranfield.io.predictions import read_predictions


def smare_by_hand(predicted: dict, actual: dict) -> float:
    """Faggioli et al. (ICTIR 2021): mean |rank by prediction − rank by effectiveness| / n, ties
    given their average rank, counted one query at a time."""
    qids = list(predicted)
    n = len(qids)

    def rank(values, q):
        below = sum(values[o] < values[q] for o in qids)
        equal = sum(values[o] == values[q] for o in qids)
        return below + (equal + 1) / 2

    return sum(abs(rank(predicted, q) - rank(actual, q)) / n for q in qids) / n


def test_worked_example():
    e = qpp_evaluation({"q1": 0.9, "q2": 0.5, "q3": 0.1}, {"q1": 0.8, "q2": 0.2, "q3": 0.3})
    assert e.smare == pytest.approx(2 / 9, rel=1e-15) and e.n == 3  # ranks (3,2,1) vs (3,1,2)


@pytest.mark.parametrize("seed", range(5))
def test_against_scipy_and_the_definition(seed):
    rng = random.Random(seed)
    qids = [f"q{i}" for i in range(rng.randint(3, 60))]
    actual = {q: rng.choice([0.0, 0.1, 0.25, rng.random()]) for q in qids}  # ties
    predicted = {q: rng.choice([1.0, 2.0, rng.random()]) for q in reversed(qids)}  # another order
    e = qpp_evaluation(predicted, actual)
    qids = sorted(qids)  # the library's order (the sums do not depend on the mappings' orders)
    x = np.array([predicted[q] for q in qids])
    y = np.array([actual[q] for q in qids])
    if np.all(x == x[0]) or np.all(y == y[0]):
        return
    assert (e.pearson, e.pearson_p) == tuple(stats.pearsonr(x, y))
    assert (e.kendall, e.kendall_p) == tuple(stats.kendalltau(x, y))
    assert e.smare == pytest.approx(smare_by_hand(predicted, actual), rel=1e-14)


@pytest.mark.parametrize("predicted, actual, message", [
    ({"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 2, "d": 3}, "same queries"),
    ({"a": 1, "b": 2}, {"a": 1, "b": 2}, "at least 3 queries"),
    ({"a": 1, "b": 1, "c": 1}, {"a": 1, "b": 2, "c": 3}, "same prediction"),
    ({"a": 1, "b": float("nan"), "c": 3}, {"a": 1, "b": 2, "c": 3}, "not a finite number"),
])
def test_errors(predicted, actual, message):
    with pytest.raises(UsageError, match=message):
        qpp_evaluation(predicted, actual)


@pytest.mark.parametrize("text, message", [
    (b"1 0.5\n\n2 0.3\n", r"<bytes>:2: blank line|:2: blank line"),
    (b"1 0.5 x\n", ":1: expected 2 fields"),
    (b"1 nan\n", ":1: field value: expected a finite number"),
    (b"1 0.5\n1 0.6\n", ":2: field qid: query '1' listed twice"),
    (b"1 0.5\n2 abc\n", ":2: field value: expected a number"),
    (b"\xff\xfe1\n", "expected UTF-8"),
    (b"", "no query listed"),
])
def test_predictions_grammar_errors(text, message):
    with pytest.raises(InputError, match=message):
        read_predictions(io.BytesIO(text))


def test_predictions_grammar():
    assert read_predictions(io.BytesIO(b"qid\tvalue\r\n10 -1e-3\r\n2  7\n")) == {"10": -0.001, "2": 7.0}


def test_cli_equals_the_library(tmp_path):
    data = datasets.cranfield()
    ap = evaluate(data["qrels"], data["runs"]["bm25"], ["AP"]).per_query["AP"].to_dict()
    rng = random.Random(1)
    predicted = {q: v + rng.gauss(0, 0.2) for q, v in ap.items()}
    path = tmp_path / "pred.txt"
    path.write_text("".join(f"{q} {v!r}\n" for q, v in predicted.items()))
    done = subprocess.run([sys.executable, "-m", "cranfield", "qpp", str(path), str(data["qrels"]),
                           str(data["runs"]["bm25"]), "-f", "csv"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    header, row = done.stdout.splitlines()
    expected = qpp_evaluation(predicted, ap).to_dict()
    assert header == "measure,queries,pearson,pearson_p,kendall,kendall_p,smare"
    assert row.split(",")[1:] == [str(expected["queries"])] + [repr(expected[k]) for k in
                                                               ("pearson", "pearson_p", "kendall", "kendall_p", "smare")]
    path.write_text("".join(f"{q} {v!r}\n" for q, v in list(predicted.items())[:-1]))
    done = subprocess.run([sys.executable, "-m", "cranfield", "qpp", str(path), str(data["qrels"]),
                           str(data["runs"]["bm25"])], capture_output=True, text=True)
    assert done.returncode == 2 and "same queries" in done.stderr and "Traceback" not in done.stderr
