"""The packed-docno join: hash table lookups, byte-wise packing, and the exact fallback when
keys collide (forced here with a deliberately weak hash)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cranfield
from cranfield.retrieval import doc_join, doc_keys
from cranfield.retrieval.doc_keys import KeyTable, ordered, packed_words


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(-2**40, 2**40)), min_size=1, max_size=300, unique=True),
       st.lists(st.tuples(st.integers(0, 6), st.integers(-2**40, 2**40)), max_size=300))
def test_key_table_finds_exactly_the_stored_keys(stored, probes):
    group = np.array([g for g, _ in stored], dtype=np.intp)
    keys = np.array([k for _, k in stored], dtype=np.int64)
    table = KeyTable(keys, group, 7)
    probe_group = np.array([g for g, _ in probes] + [g for g, _ in stored], dtype=np.intp)
    probe_keys = np.array([k for _, k in probes] + [k for _, k in stored], dtype=np.int64)
    rows, positions = table.lookup(probe_keys, probe_group)
    where = {(g, k): i for i, (g, k) in enumerate(stored)}
    expected = {r: where[(int(g), int(k))] for r, (g, k) in enumerate(zip(probe_group, probe_keys))
                if (int(g), int(k)) in where}
    assert dict(zip(rows.tolist(), positions.tolist())) == expected
    by_group = np.argsort(probe_group, kind="stable")  # grouped probes, as a run gives them
    rows, positions = table.lookup(probe_keys[by_group], probe_group[by_group])
    assert dict(zip(by_group[rows].tolist(), positions.tolist())) == expected


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 20)), min_size=1, max_size=200))
def test_key_table_reports_every_repeated_key(items):
    group = np.array([g for g, _ in items], dtype=np.intp)
    keys = np.array([(g << 40) | k for g, k in items], dtype=np.int64)  # as mix: the group in the high bits
    table = KeyTable(keys, group, 4)
    stored, repeat = table.repeats
    assert (keys[stored] == keys[repeat]).all()
    assert len(set(repeat.tolist())) == repeat.size == len(items) - len(set(keys.tolist()))
    assert not set(stored.tolist()) & set(repeat.tolist())
    rows, positions = table.lookup(keys, group)
    assert sorted(rows.tolist()) == list(range(len(items))) and (keys[positions] == keys[rows]).all()


def test_packing_is_byte_wise_for_any_utf8():
    ids = pa.chunked_array([["b", "a\u00e9", "a", "\u65e5\u672c", "ab", "a\x7f"]])
    words = packed_words(ids, 1)
    order = np.lexsort(tuple(ordered(words)[:, j] for j in reversed(range(words.shape[1]))))
    by_bytes = sorted(range(len(ids)), key=lambda i: ids[i].as_py().encode())
    assert order.tolist() == by_bytes
    assert packed_words(pa.chunked_array([["a\x00b"]])) is None  # a NUL byte cannot be padded apart


def test_colliding_keys_fall_back_to_the_exact_join(cranfield_dir, monkeypatch):
    measures = ["AP", "nDCG@10", "P@10", "RR", "Bpref", "NumRelRet", "infAP"]
    qrels = cranfield_dir / "qrels.graded.trec"
    run = cranfield_dir / "runs" / "coord_title.run"  # many tied scores: the docno order matters
    exact = cranfield.evaluate(qrels, run, measures)
    monkeypatch.setattr(doc_join, "_native", None)  # the packed path (the compiled one hashes its own way)
    monkeypatch.setattr(doc_keys, "mix", _weak_mix)
    keys = _weak_mix(np.zeros(64, np.intp), np.arange(64, dtype=np.uint64).reshape(64, 1), 10)
    assert np.unique(keys).size <= 8  # the weak hash does collide
    collided = cranfield.evaluate(qrels, run, measures)
    for name in exact.per_query:
        np.testing.assert_array_equal(collided.per_query[name], exact.per_query[name], err_msg=name)


@pytest.mark.parametrize("kind", ["qrels", "run"])
def test_duplicates_are_found_despite_collisions(tmp_path, monkeypatch, kind):
    monkeypatch.setattr(doc_join, "_native", None)
    monkeypatch.setattr(doc_keys, "mix", _weak_mix)
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("".join(f"1 0 d{i} 1\n" for i in range(50)) + ("1 0 d7 0\n" if kind == "qrels" else ""))
    run.write_text("".join(f"1 Q0 d{i} {i} {-i} t\n" for i in range(50)) + ("1 Q0 d7 9 -9 t\n" if kind == "run" else ""))
    with pytest.raises(cranfield.InputError) as error:
        cranfield.evaluate(str(qrels), str(run), ["AP"])
    assert error.value.line == 51 and "d7" in str(error.value) and "also on line 8" in str(error.value)


def _weak_mix(query, words, n_queries):
    """The real key with all but 3 bits of its hash cleared: ids of one query collide."""
    hash_bits = 63 - max(1, int(n_queries).bit_length())
    return doc_keys.__dict__["_real_mix"](query, words, n_queries) & ~np.int64(((1 << hash_bits) - 1) ^ 7)


doc_keys.__dict__.setdefault("_real_mix", doc_keys.mix)
