"""A run or qrels read from a TREC file holds one query id per run of equal ids (issue 25): the
column of the rows' ids is made only when asked for, from those heads, and evaluating never asks.

Every way of looking at the ids must be the one of a table that holds them per row: the rows'
ids, the heads, the starts, and the same of every slice (the parts of a parallel evaluation).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cranfield
from cranfield.io import trec
from cranfield.retrieval import _table, parallel
from cranfield.retrieval.trec_eval import TrecEvalOptions, trec_eval

QIDS = ["q1", "q2", "10", "\u00e9", "q\u00a04", "a"]


@st.composite
def run_text(draw):
    """Runs of equal ids (grouped, or a query coming back later), a row or many each."""
    lines = []
    for block, qid in enumerate(draw(st.lists(st.sampled_from(QIDS), min_size=1, max_size=8))):
        for d in range(draw(st.integers(1, 5))):
            lines.append(f"{qid} Q0 d{block}x{d} {d} {draw(st.integers(-3, 3))} t\n")
    return "".join(lines).encode()


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=run_text(), chunk=st.sampled_from([None, 1, 30]), cuts=st.lists(st.integers(0, 40), max_size=4))
def test_heads_give_the_rows_ids_of_the_table_and_its_slices(tmp_path_factory, text, chunk, cuts):
    path = tmp_path_factory.mktemp("heads") / "run.txt"
    path.write_bytes(text)
    saved = trec.CHUNK_BYTES
    trec.CHUNK_BYTES = chunk or saved
    try:
        lazy = cranfield.read_run(path)
    finally:
        trec.CHUNK_BYTES = saved
    rows = [line.split(" ")[0] for line in text.decode().split("\n")[:-1]]  # (U+00A0 is no blank here)
    whole = cranfield.Run(rows, lazy.docno, lazy.values)  # the same table with its rows' ids
    assert lazy.holds_query_heads and not whole.holds_query_heads
    n = len(rows)
    for start, stop in [(0, n)] + [tuple(sorted((a % (n + 1), b % (n + 1)))) for a, b in zip(cuts, cuts[1:])]:
        part, reference = lazy.slice(start, stop), whole.slice(start, stop)
        assert part.query_starts().tolist() == reference.query_starts().tolist()
        assert part.query_heads().to_pylist() == reference.query_heads().to_pylist()
        assert part.holds_query_heads
        assert part.qid.to_pylist() == rows[start:stop] == reference.qid.to_pylist()
        assert not part.holds_query_heads
    assert lazy.holds_query_heads  # a slice made its own rows' ids, not the table's
    assert lazy.qid.to_pylist() == rows
    lazy.qid.validate(full=True)


@pytest.mark.parametrize("threads", [1, 2])
def test_evaluating_a_file_never_makes_the_rows_ids(tmp_path, monkeypatch, threads):
    """The library (in parts and in one piece) and trec_eval read the run and the qrels and evaluate
    them without the column of one query id per row (10M run lines: 80 MB)."""
    made = []
    original = _table._rows_of_heads
    monkeypatch.setattr(_table, "_rows_of_heads", lambda *args: made.append(len(args[0])) or original(*args))
    qrels_path, run_path = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels_path.write_text("".join(f"q{q} 0 d{d} {d % 3}\n" for q in range(12) for d in range(0, 30, 4)))
    run_path.write_text("".join(f"q{q} Q0 d{d} {d} {30 - d} t\n" for q in range(15) for d in range(25)))
    qrels, run = cranfield.read_qrels(qrels_path), cranfield.read_run(run_path)
    evaluator = cranfield.Evaluator(qrels, ["AP", "nDCG@10", "P@5", "RR", "Bpref"])
    one_piece = evaluator.evaluate(run, threads=threads)
    monkeypatch.setattr(parallel, "MIN_ROWS", 0)
    in_parts = evaluator.evaluate(run, threads=threads)
    text = trec_eval(str(qrels_path), str(run_path), TrecEvalOptions(measures=("all_trec",), query=True))
    assert made == [] and run.holds_query_heads and qrels.holds_query_heads
    for name in one_piece.per_query:
        assert np.array_equal(in_parts.per_query[name], one_piece.per_query[name])
    assert "q11" in text and "q12" not in text
