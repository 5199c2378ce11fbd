"""Cross-path differential test (issue 19, item 2): the same bytes, every way of reading them.

Hypothesis writes adversarial TREC runs and qrels (blanks of every kind anywhere, past the first
block too; CR, CRLF, lone CR; Unicode spaces in and around ids; every spelling of a number; huge
values; comments, blank lines and bad lines at random depths; a BOM) and reads each through
every path, with block sizes forced tiny so that the block-wise paths cross many block edges:

* text: the whole-file reader (one block), the same with tiny blocks, the reference parser only,
  the block-wise iterator (``iter_run_blocks``) and the block-wise evaluation (``evaluate_large``);
* when the text parses: Parquet written from the same rows (read whole and block-wise), pandas
  and Arrow frames, and dicts built from them.

Every path must give identical ``Results`` (``==`` on every per-query value and aggregate), or
the identical error (class, message, line, field), with no path excused.
"""

from __future__ import annotations

import contextlib

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import cranfield
import cranfield.io.trec as trec
import cranfield.retrieval.large as large
from cranfield.errors import CranfieldError
from cranfield.io.blocks import iter_run_blocks
from cranfield.io.trec import iter_parsed, read_trec_columns
from cranfield.io.trec_grammar import DIALECTS

MEASURES = ["AP", "P@5", "nDCG@10", "RR", "NumRet", "NumRel", "NumRelRet", "bpref"]

# ids: plain, '#'-led, with Unicode spaces (U+00A0, U+2003, U+3000) in and around them
QIDS = ["q1", "q2", "10", "#q3", "q\u00a04", "\u3000q5", "q6\u2003", "\u00e9", "\u3000"]
DOCS = ["d1", "d2", "d3", "D4", "d\u00a05", "\u2003d6", "#d7", "d8\u3000", "0x10", "\u00a0"]
GOOD_SCORES = ["1", "2.5", "-3", "0.25", "1e3", "1E-2", "+1", "-0", "007", "1.", ".5", "+.5", "-.5e-3", "1e-400",
               "12345678901234567890", "4.9e-324"]
BAD_SCORES = ["nan", "NaN", "inf", "-inf", "Infinity", "1e400", "0x10", "0x1p3", "1,5", "1_0", "e3", ".", "+", "abc",
              "1e", "\u0661"]
GOOD_RELS = ["0", "1", "2", "-1", "+1", "-0", "007", "9223372036854775807", "-9223372036854775808", "+3"]
BAD_RELS = ["0x10", "1.5", "1e3", "1.", ".5", "9223372036854775808", "18446744073709551615", "nan", "abc", "--1",
            "+-1", "\u0661"]
SEPARATORS = [" "] * 6 + ["\t"] * 3 + ["  ", " \t ", "\t\t", "\v", "\f"]
BAD_SEPARATORS = ["\u00a0", "\u3000", "\u2003", "\r", " \r "]  # Unicode spaces join fields; a lone CR
LEADING = [""] * 8 + [" ", "\t", "  \t", "\f"]  # used in a third of the files (trec_eval-9 refuses them in runs)
TRAILING = [""] * 8 + [" ", "\t", "\v", "\f", " \t"]
ENDINGS = ["\n"] * 8 + ["\r\n"] * 2
TAGS = ["tag"] * 4 + ["t extra words", "t\u00a0x", "#t", "\u00ff"]
RANKS = ["1"] * 4 + ["0", "x", "1.5", "-1"]
EXTRA_LINES = ["", " ", "\t", " \t ", "\f", "#", "# a comment", "#q1 Q0 d1 1 1 t", "  # indented", "#q1 0 d1 1"]

# qrels judging every id above (graded, some negative), the partner of the generated runs, and a
# run for the generated qrels: TREC text files (dicts cannot hold every id, see UNICODE_SPACE_ID)
_QRELS_ROWS = [f"{q} 0 {d} {(i + 2 * j) % 4 - 1}\n" for i, q in enumerate(QIDS) for j, d in enumerate(DOCS)
               if (i + j) % 3]
_RUN_ROWS = [f"{q} Q0 {d} 1 {(i * 7 + j * 3) % 5} partner\n" for i, q in enumerate(QIDS) for j, d in enumerate(DOCS)
             if (i * j) % 4 != 1]


@pytest.fixture(scope="module")
def partners(tmp_path_factory):
    folder = tmp_path_factory.mktemp("partners")
    (folder / "qrels.txt").write_text("".join(_QRELS_ROWS), encoding="utf-8")
    (folder / "run.txt").write_text("".join(_RUN_ROWS), encoding="utf-8")
    return str(folder / "qrels.txt"), str(folder / "run.txt")


@st.composite
def _line(draw, kind: str, qid: str, docno: str, bad: "str | None" = None, indent: bool = False):
    """One line of a TREC file (without its ending); ``bad``: what to break."""
    if kind == "run":
        value = draw(st.sampled_from(BAD_SCORES if bad == "value" else GOOD_SCORES))
        fields = [qid, draw(st.sampled_from(["Q0", "0", "q0"])), docno, draw(st.sampled_from(RANKS)), value,
                  draw(st.sampled_from(TAGS))]
    else:
        value = draw(st.sampled_from(BAD_RELS if bad == "value" else GOOD_RELS))
        fields = [qid, draw(st.sampled_from(["0", "Q0", "iter"])), docno, value]
    if bad == "short":
        fields = fields[:draw(st.integers(1, len(fields) - 1))]
    if bad == "long":
        fields = fields + ["extra"]
    gaps = [draw(st.sampled_from(SEPARATORS)) for _ in fields[1:]]
    if bad == "separator":
        gaps[draw(st.integers(0, len(gaps) - 1))] = draw(st.sampled_from(BAD_SEPARATORS))
    text = fields[0] + "".join(g + f for g, f in zip(gaps, fields[1:]))
    return (draw(st.sampled_from(LEADING)) if indent else "") + text + draw(st.sampled_from(TRAILING))


@st.composite
def trec_file(draw, kind: str) -> bytes:
    """Distinct (qid, docno) rows, grouped by query or not, with blank/comment lines and at most
    one bad line (a wrong value, field count or separator, a duplicate, a lone CR) at any depth."""
    pairs = draw(st.lists(st.tuples(st.sampled_from(QIDS), st.sampled_from(DOCS)), min_size=1, max_size=40,
                          unique=True))
    if draw(st.booleans()):
        pairs.sort(key=lambda p: p[0])
    indent = draw(st.integers(0, 2)) == 0
    lines = [draw(_line(kind, q, d, indent=indent)) for q, d in pairs]
    for _ in range(draw(st.sampled_from([0, 0, 0, 1, 2, 3]))):
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(EXTRA_LINES)))
    endings = [draw(st.sampled_from(ENDINGS)) for _ in lines]
    bad = draw(st.sampled_from([None] * 6 + ["value", "short", "long", "separator", "duplicate", "lone CR"]))
    if bad is not None:
        at = draw(st.integers(0, len(lines) - 1))
        if bad == "lone CR":
            endings[at] = "\r"
        elif bad == "duplicate":
            lines.insert(at, draw(_line(kind, *pairs[draw(st.integers(0, len(pairs) - 1))], indent=indent)))
            endings.insert(at, "\n")
        else:
            q, d = draw(st.sampled_from(QIDS)), draw(st.sampled_from(DOCS))
            lines[at] = draw(_line(kind, q, d, bad, indent=indent))
    text = "".join(line + ending for line, ending in zip(lines, endings))
    if draw(st.booleans()):  # the last line without its line end
        text = text.rstrip("\n")
    if draw(st.integers(0, 9)) == 0:
        text = "\ufeff" + text
    return text.encode("utf-8")


# ------------------------------------------------------------------------------ outcomes
def _error(error: Exception):
    assert isinstance(error, CranfieldError), f"{type(error).__name__}: {error}"
    assert "\n" not in str(error)
    return ("error", type(error).__name__, str(error), getattr(error, "line", None), getattr(error, "field", None))


def _outcome(function):
    try:
        return ("ok", function())
    except Exception as error:  # noqa: BLE001 - every exception is compared (and must be a CranfieldError)
        return _error(error)


def _rows(parts):
    """(qid, docno, value, line) lists of parsed blocks or columns."""
    qid, docno, value, line = [], [], [], []
    for p in parts:
        qid += p[0].to_pylist()
        docno += p[1].to_pylist()
        value += np.asarray(p[2]).tolist()
        line += np.asarray(p[3]).tolist()
    return qid, docno, value, line


def _columns_rows(cols):
    lines = cols.line if cols.line is not None else np.arange(1, len(cols.value) + 1)
    return _rows([(cols.qid, cols.docno, cols.value, lines)]) + (cols.tag,)


def _parsed_rows(parts):
    parts = list(parts)
    rows = _rows([(p.qid, p.docno, p.value, p.lines if p.lines is not None else
                   np.arange(p.first, p.first + len(p))) for p in parts])
    return rows + (parts[0].tag if parts else None,)


def _block_rows(blocks):
    blocks = list(blocks)
    return _rows([(b.qid, b.docno, b.score, b.line_numbers()) for b in blocks]) + (blocks[0].tag,)


def _results(results):
    """Everything a Results holds, comparable with ==."""
    return (results.run_name, list(results.query_ids),
            {k: v.tolist() for k, v in results.per_query.items()}, dict(results.mean),
            None if results.in_run is None else results.in_run.tolist())


@contextlib.contextmanager
def _tiny_blocks(chunk: int):
    saved = trec.CHUNK_BYTES, large.MIN_BLOCK_BYTES
    trec.CHUNK_BYTES, large.MIN_BLOCK_BYTES = chunk, 1
    try:
        yield
    finally:
        trec.CHUNK_BYTES, large.MIN_BLOCK_BYTES = saved


def _same_error_modulo_rows(text_error, other, text_lines_contiguous: bool):
    """A frame/dict/Parquet error against the text one: same class, field and message up to the
    source; the same line where rows are lines (no comment or blank line skipped)."""
    assert other[0] == "error", other
    assert other[1] == text_error[1] and other[4] == text_error[4], (text_error, other)
    if text_lines_contiguous:
        assert other[3] == text_error[3], (text_error, other)


def _assert_text_paths_agree(path, kind: str, dialect: str, reference) -> None:
    """With the current (tiny) blocks: the whole-file reader, the reference parser alone, and the
    fast path with 1 and 3 threads parsing blocks ahead give the reference rows, lines or error;
    the file (mapped) and the same bytes as a stream (a file object) too."""
    assert _outcome(lambda: _columns_rows(read_trec_columns(path, kind=kind, dialect=dialect))) == reference
    with open(path, "rb") as handle:  # not mapped: read as a stream, cut into blocks as it comes
        assert _outcome(lambda: _columns_rows(read_trec_columns(handle, kind=kind, dialect=dialect))) == reference
    assert _outcome(lambda: _parsed_rows(iter_parsed(path, kind, dialect=dialect, general=True))) == reference
    for threads in (1, 3):
        assert _outcome(lambda: _parsed_rows(iter_parsed(path, kind, dialect=dialect, threads=threads))) == reference


# ------------------------------------------------------------------------------ the tests
SETTINGS = settings(max_examples=60, deadline=None, derandomize=False,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                           HealthCheck.data_too_large])


@SETTINGS
@given(data=trec_file("run"), dialect=st.sampled_from(DIALECTS), chunk=st.integers(1, 96), batch=st.integers(1, 7))
def test_run_every_path(tmp_path_factory, partners, data, dialect, chunk, batch):
    QRELS = partners[0]
    folder = tmp_path_factory.mktemp("run")
    path = folder / "run.txt"
    path.write_bytes(data)
    reference = _outcome(lambda: _columns_rows(read_trec_columns(path, kind="run", dialect=dialect)))
    event(f"text: {reference[0]} {reference[4] if reference[0] == 'error' else ''}")
    with _tiny_blocks(chunk):
        _assert_text_paths_agree(path, "run", dialect, reference)
        blocks = _outcome(lambda: _block_rows(iter_run_blocks(path, block_bytes=chunk, dialect=dialect)))
        assert blocks == reference
        # evaluation: in memory vs block-wise (tiny blocks, grouped or partitioned)
        expected = _outcome(lambda: _results(cranfield.evaluate(QRELS, cranfield.read_run(path, dialect=dialect),
                                                                 MEASURES)))
        if reference[0] == "error":
            assert expected == reference
        assert _outcome(lambda: _results(large.evaluate_large(QRELS, path, MEASURES, batch_rows=batch,
                                                              dialect=dialect))) == expected
    event(f"evaluation: {expected[0]}")
    if reference[0] == "error":
        return
    qid, docno, score, lines, tag = reference[1]
    contiguous = lines == list(range(1, len(lines) + 1))
    table = pa.table({"qid": pa.array(qid, pa.string()), "docno": pa.array(docno, pa.string()),
                      "score": pa.array(score, pa.float64())})
    others = {}
    parquet = folder / "run.parquet"
    pq.write_table(table.replace_schema_metadata({b"cranfield.name": tag.encode()}), parquet)
    others["parquet"] = lambda: _results(cranfield.evaluate(QRELS, cranfield.read_run(parquet), MEASURES))
    others["parquet blocks"] = lambda: _results(large.evaluate_large(QRELS, parquet, MEASURES, batch_rows=batch))
    others["arrow frame"] = lambda: _results(cranfield.evaluate(QRELS, cranfield.Run.from_frame(table, name=tag),
                                                                MEASURES))
    others["pandas frame"] = lambda: _results(cranfield.evaluate(
        QRELS, cranfield.Run.from_frame(table.to_pandas(), name=tag), MEASURES))
    if expected[0] == "ok":  # a dict cannot hold a document twice
        mapping: dict = {}
        for q, d, s in zip(qid, docno, score):
            mapping.setdefault(q, {})[d] = s
        others["dict"] = lambda: _results(cranfield.evaluate(QRELS, cranfield.Run.from_dict(mapping, name=tag),
                                                             MEASURES))
    for label, function in others.items():
        got = _outcome(function)
        if expected[0] == "ok":
            assert got == expected, label
        else:
            _same_error_modulo_rows(expected, got, contiguous)


@SETTINGS
@given(data=trec_file("qrels"), dialect=st.sampled_from(DIALECTS), chunk=st.integers(1, 96))
def test_qrels_every_path(tmp_path_factory, partners, data, dialect, chunk):
    RUN = partners[1]
    folder = tmp_path_factory.mktemp("qrels")
    path = folder / "qrels.txt"
    path.write_bytes(data)
    reference = _outcome(lambda: _columns_rows(read_trec_columns(path, kind="qrels", dialect=dialect)))
    event(f"text: {reference[0]} {reference[4] if reference[0] == 'error' else ''}")
    with _tiny_blocks(chunk):
        _assert_text_paths_agree(path, "qrels", dialect, reference)
    expected = _outcome(lambda: _results(cranfield.evaluate(cranfield.read_qrels(path, dialect=dialect), RUN,
                                                             MEASURES)))
    if reference[0] == "error":
        assert expected == reference
        return
    qid, docno, rel, lines, _ = reference[1]
    contiguous = lines == list(range(1, len(lines) + 1))
    table = pa.table({"qid": pa.array(qid, pa.string()), "docno": pa.array(docno, pa.string()),
                      "rel": pa.array(rel, pa.int64())})
    parquet = folder / "qrels.parquet"
    pq.write_table(table, parquet)
    others = {
        "parquet": lambda: _results(cranfield.evaluate(cranfield.read_qrels(parquet), RUN, MEASURES)),
        "arrow frame": lambda: _results(cranfield.evaluate(cranfield.Qrels.from_frame(table), RUN, MEASURES)),
        "pandas frame": lambda: _results(cranfield.evaluate(cranfield.Qrels.from_frame(table.to_pandas()), RUN,
                                                            MEASURES)),
    }
    if expected[0] == "ok":
        mapping: dict = {}
        for q, d, r in zip(qid, docno, rel):
            mapping.setdefault(q, {})[d] = r
        others["dict"] = lambda: _results(cranfield.evaluate(cranfield.Qrels.from_dict(mapping), RUN, MEASURES))
    for label, function in others.items():
        got = _outcome(function)
        if expected[0] == "ok":
            assert got == expected, label
        else:
            _same_error_modulo_rows(expected, got, contiguous)


# ------------------------------------------------------------------------------ fixed adversarial cases
def _big_run(line: str, at: int, n: int = 3000) -> bytes:
    rows = [f"q{i // 100} Q0 d{i} {i} {1.0 / (i + 1)!r} tag" for i in range(n)]
    rows[at] = line
    return ("\n".join(rows) + "\n").encode()


@pytest.mark.parametrize("line,expected", [
    ("\tq29 Q0 d2950 1 0.5 tag", None),  # a TAB-led line in a space-separated file: read, not lost
    ("q29\tQ0\td 2950\t1\t0.5\ttag", None),  # a space inside a TAB-separated docno: 7 fields
    ("q29 Q0 d2950 1 +1 tag", None),
    ("q29 Q0 d2950 1 nan tag", ("score", "expected a finite number, found 'nan'")),
    ("q29 Q0 d2950 1 0.5", ("", 'expected 6 fields "qid Q0 docno rank score tag", found 5')),
    ("q29 Q0 d2950 1 0.5 tag\rq29 Q0 d2951 1 0.5 tag", ("", "a carriage return (CR) that does not end the line")),
])
@pytest.mark.parametrize("chunk", [1 << 25, 4096, 333])
def test_bad_line_far_past_the_first_block(tmp_path, line, expected, chunk, monkeypatch):
    """The line at depth 2950 of 3000 (past the 64 KiB the old reader sampled, and past many
    blocks): every path reads it the same way, or names line 2951."""
    path = tmp_path / "run.txt"
    path.write_bytes(_big_run(line, 2950))
    monkeypatch.setattr(trec, "CHUNK_BYTES", chunk)
    monkeypatch.setattr(large, "MIN_BLOCK_BYTES", 1)
    qrels = {f"q{i}": {f"d{i * 100 + 50}": 1} for i in range(30)}
    if expected is None:
        run = cranfield.read_run(path)
        assert len(run.query_ids) == 30  # no query lost or split
        whole = cranfield.evaluate(qrels, run, MEASURES)
        blocks = large.evaluate_large(qrels, path, MEASURES, batch_rows=50)
        assert _results(whole) == _results(blocks)
        assert whole.mean["NumRet"] == 3000
        return
    field, message = expected
    for read in (lambda: cranfield.read_run(path), lambda: large.evaluate_large(qrels, path, MEASURES, batch_rows=50)):
        with pytest.raises(cranfield.InputError) as info:
            read()
        assert info.value.line == 2951 and (info.value.field or "") == field and message in str(info.value)


@pytest.mark.parametrize("path", ["parquet", "arrow frame", "pandas frame", "dict"])
def test_unicode_space_id_every_path(tmp_path, path):
    """An id made only of a no-break space is an id in a TREC file; the other paths must agree."""
    text = tmp_path / "run.txt"
    text.write_text("q1 Q0 \u00a0 1 2.5 tag\nq1 Q0 d2 2 1.5 tag\n", encoding="utf-8")
    qrels = {"q1": {"\u00a0": 1, "d2": 0}}
    expected = _results(cranfield.evaluate(qrels, cranfield.read_run(text), MEASURES))
    table = pa.table({"qid": ["q1", "q1"], "docno": ["\u00a0", "d2"], "score": [2.5, 1.5]})
    if path == "parquet":
        pq.write_table(table.replace_schema_metadata({b"cranfield.name": b"tag"}), tmp_path / "run.parquet")
        run = cranfield.read_run(tmp_path / "run.parquet")
    elif path == "arrow frame":
        run = cranfield.Run.from_frame(table, name="tag")
    elif path == "pandas frame":
        run = cranfield.Run.from_frame(table.to_pandas(), name="tag")
    else:
        run = cranfield.Run.from_dict({"q1": {"\u00a0": 2.5, "d2": 1.5}}, name="tag")
    assert _results(cranfield.evaluate(qrels, run, MEASURES)) == expected


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_parquet_non_finite_score_same_error_whole_and_blocks(tmp_path, partners, bad):
    """A NaN score in a Parquet run: the block-wise path refuses it as the whole-file one does
    (it used to give AP 1.0)."""
    path = tmp_path / "run.parquet"
    pq.write_table(pa.table({"qid": ["q1"] * 4, "docno": ["d1", "d2", "d3", "D4"], "score": [3.0, 2.0, bad, 1.0]}),
                   path)
    whole = _outcome(lambda: _results(cranfield.evaluate(partners[0], cranfield.read_run(path), MEASURES)))
    blocks = _outcome(lambda: _results(large.evaluate_large(partners[0], path, MEASURES, batch_rows=2)))
    assert whole[0] == "error" and whole[3:] == (3, "score")
    assert blocks == whole


DASK_TEXTS = [
    "q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 1.5 tag\n\tq2 Q0 d1 1 0.5 tag\n",
    "# comment\r\nq\u00a04\tQ0\t\u2003d6 1 +1 t\r\n\r\nq\u00a04 Q0 d1 2 .5 t\r\n#q3 Q0 d1 1 1 t\n",
    "\ufeffq2\vQ0\fd3  1  1e-2  tag extra words\nq1 Q0 D4 1 007 tag\nq2 Q0 0x10 2 -0 tag",
]


def test_dask_partitions_agree(tmp_path, partners):
    """Parquet written from parsed text rows, evaluated by cranfield.dask on a LocalCluster
    (threads): the same Results as the text path."""
    pytest.importorskip("dask")
    distributed = pytest.importorskip("distributed")
    from cranfield.dask import evaluate as dask_evaluate

    cases = []
    for i, text in enumerate(DASK_TEXTS):
        path = tmp_path / f"run{i}.txt"
        path.write_bytes(text.encode("utf-8"))
        run = cranfield.read_run(path)
        run.to_parquet(tmp_path / f"run{i}.parquet")
        cases.append((tmp_path / f"run{i}.parquet", _results(cranfield.evaluate(partners[0], run, MEASURES))))
    with distributed.LocalCluster(processes=False, n_workers=1, threads_per_worker=2,
                                  dashboard_address=None) as cluster, distributed.Client(cluster):
        for parquet, expected in cases:
            got = _results(dask_evaluate(partners[0], str(parquet), MEASURES))
            assert got[1:] == expected[1:]


@pytest.mark.parametrize("complete", [False, True])
@pytest.mark.parametrize("batch", [1, 2, 1 << 20])
def test_no_common_query_same_error_every_path(tmp_path, partners, batch, complete):
    """A run whose queries are all missing from the qrels: one error text from the in-memory,
    block-wise (grouped or partitioned) and Dask paths (found by hypothesis: a BOM before '#q3'),
    with -c too (the block-wise path once scored the qrels' queries as missing instead, found by
    the binary differential)."""
    path = tmp_path / "run.txt"
    path.write_bytes(b"\xef\xbb\xbf#q3 Q0 d1 1 1 tag\nzz Q0 d2 1 0.5 tag\n")
    run = cranfield.read_run(path, dialect="trec_eval-9")
    expected = _outcome(lambda: _results(cranfield.evaluate(partners[0], run, MEASURES, complete=complete)))
    assert expected[0] == "error" and "no query in common between the run and the qrels" in expected[2]
    with _tiny_blocks(7):
        got = _outcome(lambda: _results(large.evaluate_large(partners[0], path, MEASURES, batch_rows=batch,
                                                             dialect="trec_eval-9", complete=complete)))
    assert got == expected
    pytest.importorskip("dask")
    from cranfield.dask import evaluate as dask_evaluate

    run.to_parquet(tmp_path / "run.parquet")
    got = _outcome(lambda: _results(dask_evaluate(partners[0], str(tmp_path / "run.parquet"), MEASURES,
                                                  complete=complete)))
    assert got[:2] == expected[:2]
    assert got[2].split(": ", 1)[1] == expected[2].split(": ", 1)[1]
