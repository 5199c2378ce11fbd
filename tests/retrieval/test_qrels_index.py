"""The whole-qrels judgment index: not built for qrels whose pairs are distinct by construction (a
dict taken by the compiled core), kept by the block-wise path where it is the compiled one, else
released (the pieces then rank against their own judgments), rebuilt on demand; the duplicate check and every value unchanged."""

from __future__ import annotations

import numpy as np
import pytest

import cranfield
from cranfield.errors import InputError
from cranfield.retrieval import _table
from cranfield.retrieval.large import evaluate_path
from cranfield.retrieval.qrels import Qrels

MEASURES = ["AP", "nDCG@10", "P@5", "RR", "bpref", "NumRel"]


def _data(seed=3, n_queries=30):
    rng = np.random.default_rng(seed)
    qrels = {f"q{q}": {f"d{d}": int(rng.integers(-1, 3)) for d in rng.choice(200, 15, replace=False)}
             for q in range(n_queries)}
    run = {f"q{q}": {f"d{d}": float(rng.integers(0, 20)) for d in rng.choice(200, 40, replace=False)}
           for q in range(0, n_queries, 2)}
    return qrels, run


def _indexed(prepared) -> bool:
    """Whether a whole-qrels judgment index is built: the compiled one or the packed one."""
    return bool(prepared._packed) or "native_index" in prepared._exact


def _values(results):
    return list(results.query_ids), {m: results.per_query[m].tolist() for m in MEASURES}, dict(results.mean)


@pytest.mark.skipif(_table._dict_columns is None, reason="the compiled core is not built")
def test_dict_qrels_skip_the_index():
    """Dict qrels from the core: distinct pairs, no packed index built by the duplicate check, the
    same values as the same qrels read from a file (which builds and checks it)."""
    qrels, run = _data()
    evaluator = cranfield.Evaluator(qrels, MEASURES)
    assert evaluator.qrels.distinct_pairs and not _indexed(evaluator._prepared)
    assert evaluator.qrels.docno_objects == evaluator.qrels.docno.to_pylist()
    reference = cranfield.Evaluator(Qrels(evaluator.qrels.qid, evaluator.qrels.docno, evaluator.qrels.rel), MEASURES)
    assert not reference.qrels.distinct_pairs and _indexed(reference._prepared)
    assert _values(evaluator.evaluate(run)) == _values(reference.evaluate(run))
    part = evaluator.qrels.slice(3, 20)
    assert part.docno_objects == part.docno.to_pylist()


def test_dict_duplicates_still_raise():
    """An int key and its text are one id: the Python path builds those columns and the check
    still names the duplicate."""
    with pytest.raises(InputError, match="duplicate judgment for query 'q', document '1'"):
        cranfield.Evaluator({"q": {1: 1, "1": 0}}, ["AP"])
    assert not Qrels.from_dict({"q": {1: 1, "2": 0}}).distinct_pairs


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled-index", "own-judgments"])
@pytest.mark.parametrize("grouped", [True, False])
def test_block_wise_path_index(tmp_path, monkeypatch, grouped, compiled):
    """evaluate_path ranks its pieces against the whole-qrels compiled index where it is built (kept);
    otherwise each against its own queries' judgments, the whole-qrels indexes dropped. Either way the
    in-memory values, and the evaluator still evaluates in memory afterwards (index rebuilt)."""
    from cranfield.retrieval import doc_join, large

    if not compiled:
        monkeypatch.setattr(large, "native_index", lambda prepared: None)
    qrels, run = _data(seed=5)
    path = tmp_path / "run.txt"
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    if not grouped:
        rows = rows[1::2] + rows[::2]
    path.write_text("".join(f"{q} Q0 {d} 0 {s!r} r\n" for q, d, s in rows))
    qrels_path = tmp_path / "qrels.txt"
    qrels_path.write_text("".join(f"{q} 0 {d} {r}\n" for q, docs in qrels.items() for d, r in docs.items()))
    evaluator = cranfield.Evaluator(str(qrels_path), MEASURES)
    assert _indexed(evaluator._prepared)  # built by the duplicate check of a file's qrels
    expected = _values(evaluator.evaluate(str(path)))
    assert _values(evaluate_path(evaluator, str(path), batch_rows=37)) == expected
    assert _indexed(evaluator._prepared) == (compiled and doc_join._native is not None)
    assert _values(evaluator.evaluate(str(path))) == expected
    assert _values(evaluator.evaluate(run)) == expected


def test_block_wise_duplicate_judgment_still_raised(tmp_path):
    qrels_path = tmp_path / "qrels.txt"
    qrels_path.write_text("q1 0 d1 1\nq2 0 d1 1\nq1 0 d2 0\nq1 0 d1 0\n")
    run_path = tmp_path / "run.txt"
    run_path.write_text("q1 Q0 d1 1 2.0 r\nq2 Q0 d1 1 1.0 r\n")
    with pytest.raises(InputError, match=r"qrels.txt:4: field docno: duplicate judgment .*line 1"):
        cranfield.evaluate_large(str(qrels_path), str(run_path), ["AP"], batch_rows=1)


@pytest.mark.skipif(_table._dict_columns is None, reason="the compiled core is not built")
def test_core_string_buffers_are_valid_arrow():
    """The qid and docno columns the core writes as Arrow buffers are valid string arrays equal to
    pyarrow's own conversion; the fallback (text beyond int32 offsets) builds the same."""
    import pyarrow as pa

    mapping = {"q1": {"d": 1, "日本": 2, "e\u0301": 0}, "é": {"x\x01": -3}, "q0": {}, "😀": {"😀": 7}}
    table = Qrels.from_dict(mapping)
    for column in (table.qid, table.docno):
        column.validate(full=True)
    assert table.qid.to_pylist() == ["q1", "q1", "q1", "é", "😀"]
    assert table.docno.to_pylist() == ["d", "日本", "e\u0301", "x\x01", "😀"]
    fallback = _table._strings(None, 5, ["q1", "é", "😀"], np.array([3, 1, 1]))
    assert fallback.equals(pa.chunked_array([table.qid.chunk(0)]).chunk(0))


@pytest.mark.skipif(_table._dict_columns is None, reason="the compiled core is not built")
@pytest.mark.parametrize("seed", range(5))
def test_dict_query_codes_as_the_encoded_columns(seed):
    """prepare_qrels of dict qrels (query codes from the dict's queries, sorted as str) == that of
    the same columns encoded by Arrow (byte-wise sort): non-ASCII ids, prefixes, astral characters."""
    from cranfield.retrieval.ranked import prepare_qrels

    rng = np.random.default_rng(seed)
    ids = ["q", "q1", "q10", "q2", "Q", "é", "e\u0301", "日本", "😀", "\uffff", "\U0010ffff", "z", "0", "ß", "\x7f"]
    chosen = rng.choice(len(ids), size=int(rng.integers(1, len(ids))), replace=False)
    mapping = {ids[i]: {f"d{d}": int(rng.integers(-1, 3)) for d in rng.choice(9, int(rng.integers(0, 4)), replace=False)}
               for i in chosen}
    if not any(mapping.values()):
        mapping[ids[chosen[0]]] = {"d": 1}
    table = Qrels.from_dict(mapping)
    assert table.sorted_query_codes() is not None
    native = prepare_qrels(table)
    encoded = prepare_qrels(Qrels(table.qid, table.docno, table.rel, source="qrels dict"))
    assert native.query_ids.tolist() == encoded.query_ids.tolist()
    assert native.q.tolist() == encoded.q.tolist() and native.q.dtype == encoded.q.dtype
    assert native.query_index.equals(encoded.query_index)
    assert table.slice(0, 1).sorted_query_codes() is None
