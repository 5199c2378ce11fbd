"""``cranfield trec_eval`` block by block (out of core): the same bytes as in memory and as trec_eval.

``CRANFIELD_BLOCK_ROWS`` forces the block-wise path with that many rows evaluated at once (all
threads together); the text blocks are made tiny too (``MIN_BLOCK_BYTES``), so that queries cross
block edges. The runs are grouped by query or shuffled (the partitioned path), hold queries that
the qrels lack, miss queries of the qrels (``-c``), have a query longer than a block, ties, and
graded judgments.
"""

from __future__ import annotations

import contextlib
import io
import shlex
import subprocess

import numpy as np
import pytest

from cranfield.cli import main
from cranfield.retrieval import large

OPTIONS = [
    "-q -m all_trec",
    "-m all_trec",
    "-q -c -m all_trec",
    "-q -c -J -M 9 -l 2 -m all_trec -m relstring.7 -m Rndcg.2=1.5",
    "-c -n -m official -N 500",
]
KNOB = 12  # rows evaluated at once, all threads together


def _data(folder, *, shuffled: bool, seed: int = 7):
    """Qrels and run files: 30 judged queries, 24 of them in the run with 2–40 documents each (one
    with 90, longer than a block), 4 queries of the run without judgments."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(30):
        docs = rng.choice(200, size=25, replace=False)
        qrels += [f"{q} 0 d{d} {rng.integers(-1, 4)}\n" for d in docs[:15]]
    for q in [*range(3, 27), 40, 41, 42, 43]:
        n = 90 if q == 5 else int(rng.integers(2, 41))
        docs = rng.choice(200, size=n, replace=False)
        scores = np.round(rng.random(n), 1)  # ties
        run += [f"{q} Q0 d{d} {i} {s} tag{q % 3}\n" for i, (d, s) in enumerate(zip(docs, scores))]
    if shuffled:
        run = [run[i] for i in rng.permutation(len(run))]
    (folder / "qrels").write_text("".join(qrels))
    (folder / "run").write_text("".join(run))
    return ["qrels", "run"]


def _cranfield(args: list[str], folder, monkeypatch) -> bytes:
    out = io.StringIO()
    monkeypatch.chdir(folder)
    with contextlib.redirect_stdout(out):
        assert main(["trec_eval", *args]) == 0
    return out.getvalue().encode("utf-8")


@pytest.fixture(params=["compiled-index", "own-judgments"])
def pieces(request, monkeypatch):
    """The rows of each piece handed to the evaluator by the block-wise path; the pieces ranked
    against the whole qrels' compiled index (where built) or each against its own judgments."""
    sizes: list[int] = []
    add = large._Pieces.add

    def recording(self, run, codes=None):
        sizes.append(len(run))
        return add(self, run, codes)

    monkeypatch.setattr(large._Pieces, "add", recording)
    monkeypatch.setattr(large, "MIN_BLOCK_BYTES", 1)
    if request.param == "own-judgments":
        monkeypatch.setattr(large, "native_index", lambda prepared: None)
    return sizes


@pytest.mark.parametrize("shuffled", [False, True], ids=["grouped", "shuffled"])
@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize("threads", ["1", "2"])
def test_block_wise_same_bytes(tmp_path, monkeypatch, pieces, options, shuffled, threads):
    files = _data(tmp_path, shuffled=shuffled)
    args = [*shlex.split(options), *files]
    monkeypatch.setenv("CRANFIELD_THREADS", threads)
    monkeypatch.delenv("CRANFIELD_BLOCK_ROWS", raising=False)
    whole = _cranfield(args, tmp_path, monkeypatch)
    assert not pieces  # small files are read whole
    monkeypatch.setenv("CRANFIELD_BLOCK_ROWS", str(KNOB))
    assert _cranfield(args, tmp_path, monkeypatch) == whole
    assert len(pieces) > 5


@pytest.mark.parametrize("shuffled", [False, True], ids=["grouped", "shuffled"])
@pytest.mark.parametrize("options", OPTIONS + ["-q --trec-eval-version 10 -c -m all_trec"])
def test_block_wise_against_trec_eval(trec_eval_binary, tmp_path, monkeypatch, pieces, options, shuffled):
    files = _data(tmp_path, shuffled=shuffled, seed=11)
    args = [*shlex.split(options), *files]
    monkeypatch.setenv("CRANFIELD_BLOCK_ROWS", str(KNOB))
    got = _cranfield(args, tmp_path, monkeypatch)
    assert pieces
    if "--trec-eval-version" in options:  # no 10.0 binary: the in-memory path is the reference
        monkeypatch.delenv("CRANFIELD_BLOCK_ROWS")
        assert got == _cranfield(args, tmp_path, monkeypatch)
        return
    done = subprocess.run([str(trec_eval_binary), *args], cwd=tmp_path, capture_output=True, timeout=60, check=False)
    assert done.returncode == 0 and got == done.stdout


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_rows_held_are_bounded(tmp_path, monkeypatch, pieces, threads):
    """Each piece holds at most a thread's share of the knob plus one query (a query is never cut),
    and no more than ``threads`` pieces are evaluated at once: memory does not grow with the run."""
    files = _data(tmp_path, shuffled=False)
    monkeypatch.setenv("CRANFIELD_THREADS", str(threads))
    monkeypatch.setenv("CRANFIELD_BLOCK_ROWS", str(KNOB))
    _cranfield(["-q", "-m", "all_trec", *files], tmp_path, monkeypatch)
    longest = 90
    assert max(pieces) <= KNOB // threads + longest
    assert sorted(pieces)[-2] <= KNOB // threads + 40  # only the long query's piece is longer
    assert sum(pieces) == sum(1 for line in (tmp_path / "run").read_text().splitlines()
                              if int(line.split()[0]) < 30)  # every judged query's row, once


def test_chosen_by_the_size_of_the_run(tmp_path, monkeypatch, pieces):
    files = _data(tmp_path, shuffled=False)
    monkeypatch.delenv("CRANFIELD_BLOCK_ROWS", raising=False)
    whole = _cranfield(["-q", "-m", "all_trec", *files], tmp_path, monkeypatch)
    monkeypatch.setattr(large, "LOW_MEMORY_BYTES", 100)  # the run is larger: read block-wise
    assert _cranfield(["-q", "-m", "all_trec", *files], tmp_path, monkeypatch) == whole
    assert pieces


@pytest.mark.parametrize("options", [["-q", "-f", "csv"], ["-c", "-m", "AP", "-m", "nDCG@10", "-f", "json"]])
def test_evaluate_block_wise_same_text(tmp_path, monkeypatch, pieces, options):
    files = _data(tmp_path, shuffled=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CRANFIELD_BLOCK_ROWS", raising=False)

    def evaluate() -> str:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert main(["evaluate", *files, *options]) == 0
        return out.getvalue()

    whole = evaluate()
    monkeypatch.setenv("CRANFIELD_BLOCK_ROWS", str(KNOB))
    assert evaluate() == whole and pieces
