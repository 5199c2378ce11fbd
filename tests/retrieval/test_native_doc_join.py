"""The compiled run ⋈ qrels join (``cranfield._native.doc_join``) against the pure paths.

``NativeDocs`` joins a file run's docnos with the judgments on their bytes and orders tied rows
in C; forcing the core off (``doc_join._native = None``) runs ``PackedDocs`` / ``DictionaryDocs``,
the reference. Every input must give the same per-query values (``==``) or the same error (type,
text, line): a repeated docno is only detected by the core, the pure path words the error.
"""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cranfield
from cranfield.retrieval import doc_join

MEASURES = ["AP", "nDCG@10", "P@5", "R@100", "RR", "bpref", "RPrec", "NumRet", "NumRelRet", "ERR@20"]
OPTIONS = [{}, {"complete": True}, {"max_results": 3}, {"judged_only": True}, {"relevance_level": 2}]

needs_core = pytest.mark.skipif(doc_join._native is None, reason="the compiled core is not built")

# ASCII and not, prefixes of each other (byte-wise order), longer than one and than four 64-bit words
# (the packed path's limit is 32 bytes), a control character
LONG = "x" * 40
IDS = ["d", "d1", "d10", "d2", "D", "a", "é", "e\u0301", "日本", "ß", "x\x01", "zz", "0", "😀", "abcdefgh",
       "abcdefghi", "abcdefgh" * 2, LONG, LONG + "a", LONG[:-1] + "é", "WSJ870101-0001", "WSJ870101-0002"]
QIDS = ["q1", "q2", "q10", "é", "7", "absent"]
SCORES = ["0", "1", "2.5", "-3", "0.1", "1e308", "-0", "7"]


@contextlib.contextmanager
def pure_path():
    core = doc_join._native
    doc_join._native = None
    try:
        yield
    finally:
        doc_join._native = core


def _outcome(qrels: str, run: str, options: dict):
    try:
        result = cranfield.Evaluator(qrels, MEASURES, **options).evaluate(run)
    except Exception as error:  # noqa: BLE001 - the error itself is compared
        return type(error), str(error), getattr(error, "line", None)
    return list(result.query_ids), {m: result.per_query[m].tolist() for m in MEASURES}, dict(result.mean)


def both(qrels_lines: list[str], run_lines: list[str], options: dict):
    with tempfile.TemporaryDirectory() as folder:
        qrels, run = Path(folder) / "qrels", Path(folder) / "run"
        qrels.write_text("".join(qrels_lines), encoding="utf-8")
        run.write_text("".join(run_lines), encoding="utf-8")
        native = _outcome(str(qrels), str(run), options)
        with pure_path():
            pure = _outcome(str(qrels), str(run), options)
    return native, pure


judgments = st.lists(st.tuples(st.sampled_from(QIDS[:-1]), st.sampled_from(IDS), st.integers(-1, 3)),
                     min_size=1, max_size=30)
rows = st.lists(st.tuples(st.sampled_from(QIDS), st.sampled_from(IDS), st.sampled_from(SCORES)), min_size=1,
                max_size=40)


@needs_core
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(qrels=judgments, run=rows, options=st.sampled_from(OPTIONS), grouped=st.booleans())
def test_random_runs_same_values_or_errors(qrels, run, options, grouped):
    """Ties (few distinct scores), unicode and long docnos, queries absent from the qrels, a query's
    rows together or scattered, repeated docnos in the run or the qrels: the same values or error."""
    if grouped:
        run = sorted(run, key=lambda row: QIDS.index(row[0]))
    qrels_lines = [f"{q} 0 {d} {r}\n" for q, d, r in qrels]
    run_lines = [f"{q} Q0 {d} {i} {s} tag\n" for i, (q, d, s) in enumerate(run)]
    native, pure = both(qrels_lines, run_lines, options)
    assert native == pure


def _unique(seq):
    return list(dict.fromkeys(seq))


@needs_core
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(qrels=judgments, run=rows, options=st.sampled_from(OPTIONS))
def test_random_runs_without_repeats_give_values(qrels, run, options):
    """Without repeated (query, docno) pairs the join succeeds on both paths, with equal values."""
    qrels = _unique([(q, d) for q, d, _ in qrels])
    run = _unique([(q, d) for q, d, _ in run])
    qrels_lines = [f"{q} 0 {d} {i % 4 - 1}\n" for i, (q, d) in enumerate(qrels)]
    run_lines = [f"{q} Q0 {d} {i} {SCORES[i % 3]} tag\n" for i, (q, d) in enumerate(run)]
    native, pure = both(qrels_lines, run_lines, options)
    assert native == pure
    if not isinstance(native[0], type):
        assert isinstance(native[0], list)


@needs_core
@pytest.mark.parametrize("kind", ["run", "qrels", "run scattered", "run long"])
def test_repeated_docno_same_error(kind):
    docno = LONG if kind == "run long" else "d7"
    qrels = [f"1 0 d{i} 1\n" for i in range(20)] + [f"2 0 d{i} 1\n" for i in range(5)]
    run = [f"1 Q0 d{i} {i} {-i} t\n" for i in range(20)] + [f"2 Q0 d{i} {i} 1 t\n" for i in range(5)]
    if kind == "qrels":
        qrels.append("1 0 d7 0\n")
    elif kind == "run scattered":
        run.append(f"1 Q0 {docno} 9 -9 t\n")  # query 1 again, after query 2
    else:
        run.insert(20, f"1 Q0 {docno} 9 -9 t\n")
        run.insert(3, f"1 Q0 {docno} 9 -9 t\n")
    native, pure = both(qrels, run, {})
    assert native == pure
    assert native[0] is cranfield.InputError and docno in native[1]


@needs_core
def test_the_core_joins_and_orders_ties():
    """The compiled path is the one taken (not a silent decline), and its tie order is byte-wise
    descending within each block."""
    ids = pa.array(["b", "a", LONG, "é", "aa", "z", "y"])
    offsets, data = ids.buffers()[1:]
    order = np.frombuffer(doc_join._native.tie_order(((offsets, data, 0, len(ids)),), False,
                                                     np.arange(7, dtype=np.int64),
                                                     np.array([1, 1, 1, 1, 1, 2, 2], dtype=np.int64)), np.int64)
    assert order.tolist() == [3, 2, 0, 4, 1, 5, 6]  # é (0xC3) > x... > b > aa > a; then z > y
    large = pa.array(["b", "a", LONG, "é", "aa", "z", "y"], pa.large_string())
    again = doc_join._native.tie_order(((*large.buffers()[1:], 0, 7),), True, np.arange(7, dtype=np.int64),
                                       np.array([1, 1, 1, 1, 1, 2, 2], dtype=np.int64))
    assert np.frombuffer(again, np.int64).tolist() == order.tolist()
    evaluator = cranfield.Evaluator(cranfield.Qrels.from_dict({"q": {"a": 1, LONG: 2}}), ["AP"])
    assert doc_join.native_index(evaluator._prepared) is not None


@needs_core
def test_sliced_and_chunked_columns():
    """Runs cut into parts (Arrow slices with an offset, several chunks) join as the whole."""
    qrels = cranfield.Qrels.from_dict({"q": {f"d{i}": i % 3 for i in range(0, 60, 2)}})
    evaluator = cranfield.Evaluator(qrels, ["AP"])
    index, duplicate = doc_join.native_index(evaluator._prepared)
    assert not duplicate
    ids = pa.chunked_array([[f"d{i}" for i in range(30)], [f"d{i}" for i in range(30, 60)]]).slice(5, 50)
    rel, repeated = doc_join._native.join(index, np.zeros(50, np.int64), None, *doc_join._string_buffers(ids))
    expected = [(i % 3) if i % 2 == 0 else -1 for i in range(5, 55)]
    assert np.frombuffer(rel, np.int64).tolist() == expected and not repeated


def _chunked(values, cuts, large=False):
    """``values`` as an Arrow chunked array cut at ``cuts`` (empty chunks where cuts repeat), each
    chunk a slice of a longer array (a non-zero Arrow offset)."""
    kind = pa.large_string() if large else pa.string()
    bounds = [0, *sorted(min(c, len(values)) for c in cuts), len(values)]
    return pa.chunked_array([pa.array(["pad", *values[a:b], "pad"], kind).slice(1, b - a)
                             for a, b in zip(bounds, bounds[1:])], kind)


@needs_core
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(judged=st.lists(st.tuples(st.integers(0, 2), st.sampled_from(IDS), st.integers(-1, 3)), max_size=40),
       run=st.lists(st.tuples(st.integers(0, 2), st.sampled_from(IDS)), min_size=1, max_size=40),
       qrels_cuts=st.lists(st.integers(0, 40), max_size=4), run_cuts=st.lists(st.integers(0, 40), max_size=4),
       large=st.booleans())
def test_chunked_columns_are_read_as_the_combined_one(judged, run, qrels_cuts, run_cuts, large):
    """The core reads a chunked column in place (no combined copy): the index of chunked judged
    docnos, the join of a chunked run column and the tie order give what the combined arrays give,
    whatever the cuts (empty chunks, chunks with an offset, 32- or 64-bit offsets)."""
    judged = list({(q, d): (q, d, r) for q, d, r in judged}.values())  # (query, docno) pairs distinct
    judged.sort(key=lambda t: t[0])
    q = np.array([t[0] for t in judged], np.int64)
    rel = np.array([t[2] for t in judged], np.int64)
    docnos = [t[1] for t in judged]
    kind = pa.large_string() if large else pa.string()
    whole = doc_join._string_buffers(pa.array(docnos, kind))
    parts = doc_join._string_buffers(_chunked(docnos, qrels_cuts, large))
    index_whole, _ = doc_join._native.index(q, rel.copy(), *whole, 3)
    index_parts, _ = doc_join._native.index(q, rel.copy(), *parts, 3)
    qi = np.array([t[0] for t in run], np.int64)
    ids = [t[1] for t in run]
    run_whole = doc_join._string_buffers(pa.array(ids, kind))
    run_parts = doc_join._string_buffers(_chunked(ids, run_cuts, large))
    expected = doc_join._native.join(index_whole, qi, None, *run_whole)
    assert doc_join._native.join(index_parts, qi, None, *run_parts) == expected
    assert doc_join._native.join(index_whole, qi, None, *run_parts) == expected
    rows = np.arange(len(ids), dtype=np.int64)[::-1].copy()
    assert doc_join._native.join(index_parts, qi[::-1].copy(), rows, *run_parts)[0] == \
        doc_join._native.join(index_whole, qi[::-1].copy(), rows, *run_whole)[0]
    block = np.sort(qi)
    order = np.argsort(qi, kind="stable").astype(np.int64)
    assert doc_join._native.tie_order(*run_parts, order, block) == doc_join._native.tie_order(*run_whole, order, block)


@needs_core
def test_bad_chunks_are_refused():
    """Chunks the core cannot read are a ValueError or TypeError, never a read out of bounds."""
    ids = pa.array(["a", "bb", "ccc"])
    offsets, data = ids.buffers()[1:]
    index, _ = doc_join._native.index(np.zeros(3, np.int64), np.ones(3, np.int64), ((offsets, data, 0, 3),), False, 1)
    qi = np.zeros(3, np.int64)
    with pytest.raises(ValueError, match="offsets buffer too short"):
        doc_join._native.join(index, qi, None, ((offsets, data, 1, 3),), False)
    with pytest.raises(ValueError, match="outside the data buffer"):
        doc_join._native.join(index, qi, None, ((offsets, data[:3], 0, 3),), False)
    with pytest.raises(TypeError, match="tuple"):
        doc_join._native.join(index, qi, None, ((offsets, data, 0),), False)
    with pytest.raises(ValueError, match="one item per kept row"):
        doc_join._native.join(index, qi, None, ((offsets, data, 0, 2),), False)


@needs_core
def test_the_same_docnos_in_many_queries_are_no_repeat():
    """One join over many queries that list the same docnos, long queries before short ones: the
    per-query table of seen docnos is not emptied between queries (a slot of an earlier query's row
    counts as empty), so a docno of an earlier query is never taken for a repeat, and a real repeat
    in the last query is still found. The judgments' bit filter lets every judged docno through."""
    sizes = [300, 5, 1, 120, 40, 2, 260, 7]
    judged = {f"q{i:02d}": {f"d{k}": (k + i) % 4 for k in range(0, size, 3)} for i, size in enumerate(sizes)}
    evaluator = cranfield.Evaluator(cranfield.Qrels.from_dict(judged), ["AP"])
    index, duplicate = doc_join.native_index(evaluator._prepared)
    codes = {qid: code for code, qid in enumerate(evaluator._prepared.query_ids.tolist())}
    docnos = [f"d{k}" for size in sizes for k in range(size)]
    qi = np.array([codes[f"q{i:02d}"] for i, size in enumerate(sizes) for _ in range(size)], dtype=np.int64)
    rel, repeated = doc_join._native.join(index, qi, None, *doc_join._string_buffers(pa.array(docnos)))
    expected = [(k + i) % 4 if k % 3 == 0 else -1 for i, size in enumerate(sizes) for k in range(size)]
    assert np.frombuffer(rel, np.int64).tolist() == expected and not repeated
    again = docnos + ["d3"]  # the last query (7 rows) lists d3 twice
    rel, repeated = doc_join._native.join(index, np.append(qi, qi[-1]), None,
                                          *doc_join._string_buffers(pa.array(again)))
    assert repeated


@needs_core
def test_prepared_qrels_pickle_and_rebuild_their_index():
    """Prepared qrels travel to Dask workers by pickle: the compiled index (a capsule) is left
    behind and rebuilt there, with the same values."""
    import pickle

    qrels = cranfield.Qrels.from_dict({"q": {"a": 1, LONG: 2, "b": 0}})
    run = cranfield.Run.from_dict({"q": {"a": 1.0, LONG: 1.0, "c": 2.0}})
    evaluator = cranfield.Evaluator(qrels, ["AP", "nDCG@10"])
    assert doc_join.native_index(evaluator._prepared) is not None
    copy = pickle.loads(pickle.dumps(evaluator))
    expected, got = evaluator.evaluate(run).per_query, copy.evaluate(run).per_query
    assert {m: got[m].tolist() for m in got} == {m: expected[m].tolist() for m in expected}
    assert doc_join.native_index(copy._prepared) is not None


@needs_core
@pytest.mark.parametrize("size", [1, 2, 3, 4, 5, 7, 8, 13, 64, 100, 1000, 4097])
def test_every_region_size_finds_its_judgments(size):
    """A query's region of the judgment index is sized to its judgments (load <= 2/3, not a power of
    two; the first slot scales the hash): every judged docno is found with its grade, no other docno
    is, and a judgment given twice is seen, whatever the count; a query without judgments has an
    empty region."""
    judged = [f"doc-{i:05d}" for i in range(size)]
    grades = np.arange(size, dtype=np.int64) % 5 - 1  # -1 (pooled, not judged) to 3
    q = np.zeros(size, np.int64)
    index, duplicate = doc_join._native.index(q, grades.copy(), *doc_join._string_buffers(pa.array(judged)), 2)
    assert not duplicate
    run = judged[::-1] + [f"doc-{i:05d}" for i in range(size, 2 * size + 5)] + [d + "x" for d in judged]
    rel, repeated = doc_join._native.join(index, np.zeros(len(run), np.int64), None,
                                          *doc_join._string_buffers(pa.array(run)))
    expected = [int(g) if g >= 0 else -2 for g in grades[::-1]] + [-1] * (len(run) - size)
    assert np.frombuffer(rel, np.int64).tolist() == expected and not repeated
    few = judged[:3]
    rel, _ = doc_join._native.join(index, np.ones(len(few), np.int64), None, *doc_join._string_buffers(pa.array(few)))
    assert np.frombuffer(rel, np.int64).tolist() == [-1] * len(few)  # query 1: no judgments
    twice = judged + [judged[size // 2]]
    _, duplicate = doc_join._native.index(np.zeros(size + 1, np.int64), np.ones(size + 1, np.int64),
                                          *doc_join._string_buffers(pa.array(twice)), 1)
    assert duplicate
