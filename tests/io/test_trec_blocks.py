"""The whole-file TREC reader's assembly of its blocks (io/trec.py)."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield.io import trec


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_the_threaded_copy_of_the_blocks_values_is_concatenate(monkeypatch, threads):
    # over 16 MB in all: the copy is shared by the threads; blocks of unequal sizes, one empty
    monkeypatch.setattr(trec, "available_threads", lambda: threads)
    rng = np.random.default_rng(7)
    arrays = [rng.random(n) for n in (700_001, 0, 1_300_000, 3, 250_000)]
    assert sum(a.nbytes for a in arrays) >= 1 << 24
    out = trec._concatenate(arrays)
    assert out.dtype == np.float64 and np.array_equal(out, np.concatenate(arrays))
    ints = [rng.integers(-5, 5, size=n) for n in (1_500_000, 900_000)]
    assert np.array_equal(trec._concatenate(ints), np.concatenate(ints))
    assert trec._concatenate(ints).dtype == np.int64


def test_a_file_of_many_blocks_reads_as_one_block(tmp_path, monkeypatch):
    lines = "".join(f"{q} Q0 d{d} {d} {-d / 7!r} t\n" for q in range(30) for d in range(20))
    path = tmp_path / "run"
    path.write_text(lines)
    whole = trec.read_trec_columns(path, kind="run")
    monkeypatch.setattr(trec, "CHUNK_BYTES", 64)
    monkeypatch.setattr(trec, "THREADED_COPY_BYTES", 0)  # the blocks' values copied by the threads
    monkeypatch.setattr(trec, "available_threads", lambda: 2)
    cut = trec.read_trec_columns(path, kind="run")
    assert len(cut.docno.chunks) > 100
    assert np.array_equal(whole.value, cut.value) and whole.docno.to_pylist() == cut.docno.to_pylist()
    assert whole.value.tolist() == [-(i % 20) / 7 for i in range(600)]
    assert np.array_equal(whole.query_starts, cut.query_starts)
