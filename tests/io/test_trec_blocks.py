"""The whole-file TREC reader's assembly of its blocks (io/trec.py)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cranfield.io import trec, value_chunks


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_the_threaded_copy_of_the_blocks_values_is_concatenate(monkeypatch, threads):
    # over 16 MB in all: the copy is shared by the threads; blocks of unequal sizes, one empty
    monkeypatch.setattr(value_chunks, "available_threads", lambda: threads)
    rng = np.random.default_rng(7)
    arrays = [rng.random(n) for n in (700_001, 0, 1_300_000, 3, 250_000)]
    assert sum(a.nbytes for a in arrays) >= 1 << 24
    out = value_chunks.concatenate(arrays)
    assert out.dtype == np.float64 and np.array_equal(out, np.concatenate(arrays))
    ints = [rng.integers(-5, 5, size=n) for n in (1_500_000, 900_000)]
    assert np.array_equal(value_chunks.concatenate(ints), np.concatenate(ints))
    assert value_chunks.concatenate(ints).dtype == np.int64


def test_a_file_of_many_blocks_reads_as_one_block(tmp_path, monkeypatch):
    lines = "".join(f"{q} Q0 d{d} {d} {-d / 7!r} t\n" for q in range(30) for d in range(20))
    path = tmp_path / "run"
    path.write_text(lines)
    whole = trec.read_trec_columns(path, kind="run")
    monkeypatch.setattr(trec, "CHUNK_BYTES", 64)
    monkeypatch.setattr(value_chunks, "THREADED_COPY_BYTES", 0)  # the blocks' values copied by the threads
    monkeypatch.setattr(value_chunks, "available_threads", lambda: 2)
    cut = trec.read_trec_columns(path, kind="run")
    assert len(cut.docno.chunks) > 100 and len(cut.chunks.chunks) > 100 and not cut.chunks.whole
    assert np.array_equal(whole.value, cut.value) and whole.docno.to_pylist() == cut.docno.to_pylist()
    assert whole.value.tolist() == [-(i % 20) / 7 for i in range(600)]
    assert np.array_equal(whole.query_starts, cut.query_starts)


def test_value_chunks_slices_and_whole():
    rng = np.random.default_rng(5)
    arrays = [rng.random(n) for n in (5, 0, 7, 1, 12)]
    chunks = value_chunks.ValueChunks(arrays)
    whole = np.concatenate(arrays)
    assert len(chunks) == whole.size and not chunks.whole
    for start in range(whole.size + 1):
        for stop in range(start, whole.size + 1):
            part = chunks.slice(start, stop)
            assert len(part) == stop - start and np.array_equal(part.array(), whole[start:stop])
    assert np.array_equal(chunks.array(), whole) and chunks.whole
    assert np.array_equal(chunks.slice(3, 9).array(), whole[3:9])  # after the whole array: a view of it


def test_a_run_read_in_blocks_keeps_its_scores_as_read(tmp_path, monkeypatch):
    """The run's parts copy only their own rows; the whole column is built when asked for; the same
    values either way, pickled (Dask) too."""
    import pickle

    from cranfield.retrieval.run import Run

    path = tmp_path / "run"
    path.write_text("".join(f"{q} Q0 d{d} {d} {(q * 31 + d) % 17 / 8!r} t\n" for q in range(40) for d in range(25)))
    whole = Run.from_file(path)
    monkeypatch.setattr(trec, "CHUNK_BYTES", 128)
    run = Run.from_file(path)
    assert run._values is None and len(run) == 1000
    part = run.slice(130, 777)
    assert part._values is None and np.array_equal(part.values, whole.values[130:777])
    assert np.array_equal(pickle.loads(pickle.dumps(run.slice(3, 500))).values, whole.values[3:500])
    assert run._values is None  # the parts did not build the whole column
    assert np.array_equal(run.values, whole.values) and run._values is not None


def test_the_blocks_are_let_go_once_the_whole_column_is_made(tmp_path, monkeypatch):
    """Once a table's values are made into one array, the table no longer holds its blocks (the
    column is not kept twice: 16 MB of relevances at 2M judgments); a slice taken before still
    reads its own rows, and slices and lengths taken after read the array."""
    import gc
    import weakref

    from cranfield.retrieval.qrels import Qrels

    path = tmp_path / "qrels"
    path.write_text("".join(f"q{q} 0 d{d} {(q + d) % 3}\n" for q in range(30) for d in range(20)))
    whole = Qrels.from_file(path)
    monkeypatch.setattr(trec, "CHUNK_BYTES", 100)
    qrels = Qrels.from_file(path)
    blocks = qrels._chunks
    assert blocks is not None and len(blocks.chunks) > 1
    before = qrels.slice(17, 401)
    first = weakref.ref(blocks.chunks[0])
    del blocks
    assert np.array_equal(qrels.rel, whole.rel) and qrels._chunks is None and len(qrels) == 600
    gc.collect()
    assert first() is None or first() is before._chunks.chunks[0].base  # freed, or held by the slice
    assert np.array_equal(before.rel, whole.rel[17:401])
    after = qrels.slice(5, 9)
    assert after._chunks is None and np.array_equal(after.rel, whole.rel[5:9])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(st.sampled_from(["q1 Q0 d1 1 1 a", "q2 Q0 d2 1 2 b c", "#q3 Q0 d3 1 1 h", "", "  ",
                                       "q4\tQ0\td4\t1\t1\tt\t", "# note"]), min_size=1, max_size=12),
       ending=st.sampled_from(["", "\n", "\n\n", " \n"]), chunk=st.sampled_from([None, 1, 16]),
       dialect=st.sampled_from(["cranfield", "trec_eval-9", "trec_eval-10"]))
def test_the_last_rows_tag_whatever_the_blocks(tmp_path_factory, monkeypatch, lines, ending, chunk, dialect):
    """The run tag of the last row (trec_eval's runid), found by the reader block by block and by
    the block-wise path on the end of the file: the tag of the last line that is not blank nor, but
    in trec_eval-9, a '#' comment."""
    from cranfield.errors import CranfieldError
    from cranfield.retrieval.run import Run
    from cranfield.retrieval.trec_eval import last_run_tag

    path = tmp_path_factory.mktemp("tag") / "run.txt"
    path.write_text("\n".join(lines) + ending)
    rows = [line.split() for line in lines if line.split()]
    rows = [fields for fields in rows if dialect == "trec_eval-9" or not fields[0].startswith("#")]
    monkeypatch.setattr(trec, "CHUNK_BYTES", chunk or trec.CHUNK_BYTES)
    try:
        run = Run.from_file(path, dialect=dialect)
    except CranfieldError:  # ("# note" is no row in trec_eval-9, "" no line of a row, ...)
        return
    assert run.last_tag == rows[-1][5]
    if dialect != "cranfield":
        assert last_run_tag(str(path), dialect[-2:].lstrip("-")) == rows[-1][5]


@pytest.mark.parametrize("version", ["9", "10"])
def test_the_last_rows_tag_of_a_long_file_end(tmp_path, version):
    """The block-wise path reads only the end of the file, longer until it holds the last row's
    line: a 200 KB tag, trailing comment lines (version 10) and blank lines after it."""
    from cranfield.retrieval.trec_eval import last_run_tag

    tag = "t" * 200_000
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 1 first\n" * 5000 + f"q1 Q0 d2 2 0.5 {tag}\n" +
                    ("# trailing comment x y z w v\n" * 4000 if version == "10" else "") + "\n \n")
    assert last_run_tag(str(path), version) == tag
