"""Qrels preparation on its fast paths against the general ones.

The query codes come from the first id of each run of equal ids (``ranked._codes_by_runs``), not
from encoding every row (``_codes_by_rows``, the general path); the compiled judgment index holds
the caller's buffers instead of copying them and finds repeated judgments; the level counts skip
copies when every judgment is ≥ 0. Forcing the core off (``doc_join._native = None``) gives the
pure duplicate check. Every qrels must give the same arrays (``==``, same dtypes), the same values
and the same error (type, text, line).
"""

from __future__ import annotations

import contextlib
import gc
import os
import tempfile
from pathlib import Path
from unittest import mock

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cranfield
from cranfield._arrow import query_block_starts, take_sorted
from cranfield.retrieval import doc_join, ranked
from cranfield.retrieval.qrels import Qrels

needs_core = pytest.mark.skipif(doc_join._native is None, reason="the compiled core is not built")

LONG = "x" * 40
IDS = ["d", "d1", "d10", "d2", "D", "é", "e\u0301", "日本", "😀", "abcdefgh", "abcdefghi", LONG, LONG + "é",
       "WSJ870101-0001"]
FEW_QIDS = ["q1", "q10", "q2", "é", "7", "Q"]
LEVELS = st.one_of(st.integers(-2, 3), st.sampled_from([-(2**40), 2**20, 2**40, 2**63 - 1]))
MEASURES = ["AP", "nDCG@10", "P@5", "RR", "bpref", "NumRel", "NumRelRet", "ERR@20"]


def pure_path():
    """The compiled core forced off: the pure duplicate check and joins."""
    return mock.patch.object(doc_join, "_native", None)


@contextlib.contextmanager
def parallel_fill(threads: int = 3):
    """The compiled index filled by ``threads`` threads whatever the number of judgments."""
    with mock.patch.object(doc_join, "PARALLEL_JUDGMENTS", 1), mock.patch.dict(os.environ, CRANFIELD_THREADS=str(threads)):
        yield


def _qids(many: bool):
    return st.integers(0, 400).map(str) if many else st.sampled_from(FEW_QIDS)


@st.composite
def judgment_lists(draw):
    """Judgments of few or many queries (grouped by query or not), unicode and long docnos,
    several levels (negative, beyond the counting limit), maybe a repeated (query, docno)."""
    many = draw(st.booleans())
    rows = draw(st.lists(st.tuples(_qids(many), st.one_of(st.sampled_from(IDS), st.integers(0, 99).map(str)),
                                   LEVELS), min_size=1, max_size=60))
    if draw(st.booleans()):
        rows = sorted(rows, key=lambda row: row[0].encode())
    elif draw(st.booleans()):  # a query's judgments together, queries in drawn order
        order = {q: i for i, q in enumerate(dict.fromkeys(q for q, _, _ in rows))}
        rows = sorted(rows, key=lambda row: order[row[0]])
    return rows


def _write(folder: str, rows) -> str:
    path = Path(folder) / "qrels"
    path.write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in rows), encoding="utf-8")
    return str(path)


def _prepared_outcome(qrels: Qrels):
    try:
        prepared = ranked.prepare_qrels(qrels)
    except cranfield.InputError as error:
        return type(error), str(error), error.line
    levels, code, q = prepared.judged_levels()
    return (prepared.query_ids.tolist(), prepared.query_index.to_pylist(), prepared.q.tolist(), prepared.q.dtype,
            levels.tolist(), code.tolist(), q.tolist(), prepared.level_counts().tolist())


def _old_levels(rel: np.ndarray, q: np.ndarray, n_queries: int):
    """Levels, codes, query of each judgment ≥ 0 and the counts, as computed before the fast path."""
    judged = rel >= 0
    kept = rel[judged]
    levels, code = np.unique(kept, return_inverse=True)
    flat = np.bincount(q[judged] * levels.size + code.reshape(-1), minlength=n_queries * levels.size)
    return levels.tolist(), code.reshape(-1).tolist(), q[judged].tolist(), \
        flat.reshape(n_queries, levels.size).tolist()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=judgment_lists())
def test_query_codes_by_runs_equal_by_rows(rows):
    """The codes from the runs' first ids are those of every row's id: the same sorted ids, the
    same int64 codes, whatever the order of the judgments."""
    qid = pa.chunked_array([[q for q, _, _ in rows[:len(rows) // 2]], [q for q, _, _ in rows[len(rows) // 2:]]],
                           pa.string())
    starts = query_block_starts(qid)
    by_runs, by_rows = ranked._codes_by_runs(take_sorted(qid, starts), starts, len(qid)), ranked._codes_by_rows(qid)
    assert by_runs[0].equals(by_rows[0]) and by_runs[0].type == by_rows[0].type
    assert by_runs[1].dtype == by_rows[1].dtype == np.int64
    assert by_runs[1].tolist() == by_rows[1].tolist()
    assert by_runs[0].to_pylist() == sorted({q for q, _, _ in rows}, key=str.encode)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=judgment_lists())
def test_prepared_qrels_same_on_every_path(rows):
    """A qrels file prepared with the core and without it, and the same columns without the
    reader's query starts: the same codes, levels and counts, or the same duplicate error."""
    with tempfile.TemporaryDirectory() as folder:
        qrels = cranfield.read_qrels(_write(folder, rows))
    outcome = _prepared_outcome(qrels)
    with pure_path():
        assert _prepared_outcome(qrels) == outcome
    with parallel_fill():
        assert _prepared_outcome(qrels) == outcome
    columns = Qrels(qrels.qid, qrels.docno, qrels.rel, source=qrels.source)  # starts computed, lines = rows
    assert _prepared_outcome(columns) == outcome
    if isinstance(outcome[0], type):
        assert outcome[0] is cranfield.InputError and "duplicate judgment" in outcome[1]
        return
    assert len({(q, d) for q, d, _ in rows}) == len(rows)
    query_ids, _, q = outcome[:3]
    assert outcome[4:] == _old_levels(qrels.rel, np.asarray(q, np.int64), len(query_ids))


@needs_core
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=judgment_lists(), run=st.lists(st.tuples(st.integers(0, 400).map(str) | st.sampled_from(FEW_QIDS),
                                                     st.sampled_from(IDS), st.integers(0, 5)), min_size=1))
def test_values_same_with_and_without_the_core(rows, run):
    """Evaluating a run against the prepared qrels: the same values (or error) on both paths."""
    run = sorted(run, key=lambda row: row[0].encode())
    with tempfile.TemporaryDirectory() as folder:
        qrels = _write(folder, rows)
        run_path = Path(folder) / "run"
        run_path.write_text("".join(f"{q} Q0 {d} {i} {s} t\n" for i, (q, d, s) in enumerate(run)), encoding="utf-8")

        def outcome():
            try:
                result = cranfield.Evaluator(qrels, MEASURES).evaluate(str(run_path))
            except Exception as error:  # noqa: BLE001 - the error itself is compared (levels beyond ERR's)
                return type(error), str(error), getattr(error, "line", None)
            return list(result.query_ids), {m: result.per_query[m].tolist() for m in MEASURES}

        native = outcome()
        with pure_path():
            assert outcome() == native
        with parallel_fill():
            assert outcome() == native


def test_grouped_qrels_encode_one_id_per_query(monkeypatch):
    """Qrels listing each query's judgments together take the runs' path (every row is not
    encoded); scattered ones encode every row."""
    grouped = cranfield.Qrels.from_dict({f"q{q}": {f"d{d}": d % 3 for d in range(8)} for q in range(5)})
    grouped = Qrels(grouped.qid, grouped.docno, grouped.rel)
    scattered = Qrels(pa.chunked_array([["a", "b"] * 8]), pa.chunked_array([[f"d{i}" for i in range(16)]]),
                      np.ones(16, np.int64))

    def refuse(qid):
        raise AssertionError("every row encoded")

    monkeypatch.setattr(ranked, "_codes_by_rows", refuse)
    assert ranked.prepare_qrels(grouped).query_ids.tolist() == [f"q{q}" for q in range(5)]
    with pytest.raises(AssertionError, match="every row encoded"):
        ranked.prepare_qrels(scattered)


@needs_core
@pytest.mark.parametrize("repeated", [False, True])
@pytest.mark.parametrize("threads", [2, 3, 8])
def test_parallel_fill_same_index(threads, repeated):
    """Judgments inserted by several threads (ranges of whole queries): the same relevance of every
    (query, docno) and the same duplicate flag as one thread; scattered queries take one thread."""
    rows = [(f"q{q}", f"d{(q * 7 + d) % 40}", (q + d) % 5 - 1) for q in range(9) for d in range(3 * q + 1)]
    if repeated:
        rows.insert(40, rows[38])
    qrels = Qrels(pa.chunked_array([[q for q, _, _ in rows]]), pa.chunked_array([[d for _, d, _ in rows]]),
                  np.array([r for _, _, r in rows], np.int64))
    run_q = np.repeat(np.arange(9, dtype=np.int64), 40)
    run = pa.array([f"d{d}" for _ in range(9) for d in range(40)])

    def joined():
        query_index, q = ranked._codes_by_rows(qrels.qid)
        prepared = ranked.PreparedQrels(qrels, np.asarray(query_index.to_pylist(), object), query_index, q, qrels.rel)
        index, duplicate = doc_join.native_index(prepared)
        rel = doc_join._native.join(index, run_q, None, *doc_join._string_buffers(run))[0]
        return np.frombuffer(rel, np.int64).tolist(), duplicate

    one = joined()
    assert one[1] is repeated
    with parallel_fill(threads):
        cuts = doc_join._query_cuts(qrels, 9, threads)
        assert 3 <= cuts.size <= threads + 1 and set(cuts[:-1]) <= set(qrels.query_starts().tolist())
        assert joined() == one
        scattered = Qrels(pa.chunked_array([["q1", "q2", "q1"]]), pa.chunked_array([["a", "b", "c"]]),
                          np.ones(3, np.int64))
        assert doc_join._query_cuts(scattered, 2, threads).tolist() == [0, 3]


@needs_core
def test_the_index_holds_its_buffers():
    """The compiled index reads the caller's docno and relevance buffers (no copy): they stay
    alive with it after every other reference is gone."""
    ids = pa.array([f"doc{i}" for i in range(50)] + ["é", LONG]).slice(2)
    q = np.repeat(np.arange(2, dtype=np.int64), 25)
    rel = np.arange(50, dtype=np.int64) % 5 - 1
    index, duplicate = doc_join._native.index(q, rel.copy(), *doc_join._string_buffers(ids), 2)
    del ids, rel
    gc.collect()
    assert not duplicate
    run = pa.array(["doc30", "é", "doc2", LONG, "nope", "doc3"])
    found, repeated = doc_join._native.join(index, np.array([1, 1, 0, 1, 0, 0], np.int64), None,
                                            *doc_join._string_buffers(run))
    assert np.frombuffer(found, np.int64).tolist() == [2, 2, -2, 3, -1, 0] and not repeated


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_codes_of_few_runs_among_many_queries_are_query_codes(data):
    """PreparedQrels.codes_of (a binary search of each run's first id when the qrels have many more
    queries) gives query_codes' codes, ids absent from the qrels -1, Unicode ids in byte order."""
    import pyarrow as pa

    from cranfield.retrieval.qrels import Qrels
    from cranfield.retrieval.ranked import prepare_qrels, query_codes

    alphabet = st.sampled_from(["a", "b", "é", "😀", "Z", "0", "9", "\u00e0", "\U0001f600"])
    ids = data.draw(st.lists(st.text(alphabet, min_size=1, max_size=4), min_size=40, max_size=120, unique=True))
    qrels = Qrels(ids, [f"d{i}" for i in range(len(ids))], np.ones(len(ids), dtype=np.int64))
    prepared = prepare_qrels(qrels)
    run_ids = data.draw(st.lists(st.sampled_from(ids + ["absent", "zz", "é"]), min_size=1, max_size=3))
    repeats = data.draw(st.lists(st.integers(1, 30), min_size=len(run_ids), max_size=len(run_ids)))
    qid = pa.chunked_array([pa.array([q for q, r in zip(run_ids, repeats) for _ in range(r)], pa.string())])
    expected = query_codes(qid, prepared.query_index)
    assert np.array_equal(prepared.codes_of(qid), expected)
    assert np.array_equal(prepared.codes_of(qid, None), expected)
