"""Issue 24, root cause 5: a leading blank line read the same by the block-wise (low-memory) path
and the in-memory path.

A run file that starts with "\\n", "\\r\\n", " \\n", "\\t\\n", a BOM and "\\n", or blank lines only,
in every dialect: :func:`cranfield.evaluate_large` (blocks of 1, 2 and 1000 rows) gives the same
per-query values as the in-memory reader, or the same error; the command line gives the same
output with and without ``--low-memory``.
"""

from __future__ import annotations

import pytest

import cranfield.cli
from cranfield import Evaluator
from cranfield.errors import CranfieldError
from cranfield.io.trec_grammar import DIALECTS
from cranfield.retrieval.large import evaluate_large
from cranfield.retrieval.run import read_run

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 2\nq2 0 d3 1\n"
RUN = "q1 Q0 d2 1 3 t\nq1 Q0 d1 2 2 t\nq2 Q0 d3 1 5 t\nq2 Q0 d1 2 4 t\nq2 Q0 d9 3 1 t\n"
PREFIXES = ["\n", "\r\n", " \n", "\t\n", "\ufeff\n", "\n\n", "\ufeff", " \r\n", "\n \n"]
MEASURES = ["AP", "nDCG@2", "P@1"]


def _values(results) -> dict:
    return {m: dict(results.per_query[m].items()) for m in MEASURES}


def _outcome(function):
    try:
        return "ok", _values(function())
    except CranfieldError as error:
        return type(error).__name__, str(error)


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("prefix", PREFIXES, ids=repr)
def test_block_wise_and_in_memory_read_a_leading_blank_line_alike(tmp_path, prefix, dialect):
    (tmp_path / "qrels").write_text(QRELS)
    run = tmp_path / "run"
    run.write_bytes((prefix + RUN).encode())
    evaluator = Evaluator(str(tmp_path / "qrels"), MEASURES)
    in_memory = _outcome(lambda: evaluator.evaluate(read_run(str(run), dialect=dialect)))
    for batch_rows in (1, 2, 1000):
        blocks = _outcome(lambda rows=batch_rows: evaluate_large(str(tmp_path / "qrels"), str(run), MEASURES,
                                                                 batch_rows=rows, dialect=dialect))
        assert blocks == in_memory, (batch_rows, blocks, in_memory)
    if dialect == "cranfield":  # blank lines are skipped: the values of the run without them
        plain = tmp_path / "plain"
        plain.write_text(RUN)
        assert in_memory == ("ok", _values(evaluator.evaluate(read_run(str(plain)))))


@pytest.mark.parametrize("prefix", PREFIXES, ids=repr)
def test_low_memory_command_line_prints_the_same(tmp_path, prefix, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_bytes((prefix + RUN).encode())
    outputs = []
    for extra in ([], ["--low-memory"]):
        status = cranfield.cli.main(["evaluate", "qrels", "run", "-q", "-f", "csv", *(m for x in MEASURES
                                                                                  for m in ("-m", x)), *extra])
        outputs.append((status, *capsys.readouterr()))
    assert outputs[0] == outputs[1] and outputs[0][0] == 0, outputs
