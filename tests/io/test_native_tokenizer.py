"""The compiled TREC tokenizer (``cranfield._native.trec_tokenizer``) against the reference grammar.

The contract: on a block of whole lines it returns exactly the rows of
:func:`cranfield.io.trec_grammar.parse_lines` (same ids, bitwise-equal values, same lines, query
starts and tag), or None (declined) — then the reference parser runs and raises the error. So:

* a hypothesis differential test writes hostile blocks (random fields and separators, blank and
  comment lines, CR, NUL, non-UTF-8 and overlong ids, numbers of every spelling) and compares the
  tokenizer with ``parse_lines`` for every format and dialect;
* scores are checked against an independent reference too: Python's ``float`` (correctly rounded);
* the public readers give identical columns, or the identical error text, with the tokenizer on
  and off;
* in CI (``CI`` set) the extension must be built, so the compiled path is what the tests run.
"""

from __future__ import annotations

import os
import random
import struct

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import cranfield
from cranfield._arrow import query_block_starts
from cranfield.errors import CranfieldError
from cranfield.io import trec, trec_fast
from cranfield.io.trec_grammar import DIALECTS, DIVERSITY_QRELS, QRELS, RUN, SAMPLED_RUN, parse_lines

FORMATS = [RUN, QRELS, DIVERSITY_QRELS, SAMPLED_RUN]
built = pytest.mark.skipif(trec_fast._native is None, reason="cranfield._native.trec_tokenizer is not built")


def test_the_compiled_tokenizer_is_built_in_ci():
    """CI installs the package with its compiled core: the tokenizer must import there."""
    if trec_fast._native is None and not os.environ.get("CI"):
        pytest.skip("the extension is not built here (CI requires it)")
    import cranfield._native.trec_tokenizer as module

    assert module.tokenize is trec_fast._native.tokenize


# ------------------------------------------------------------------------------ the hostile blocks
IDS = [b"q1", b"q2", b"10", b"d1", b"D2", b"#q", b"q#", b"\xc3\xa9", b"\xe2\x80\x83x", b"\xe3\x80\x80",
       b"\xf0\x9f\x98\x80", b"\xef\xbb\xbfq"]
BAD_IDS = [b"\xed\xa0\x80", b"\xc0\xaf", b"\xff", b"\xf4\x90\x80\x80", b"\xe0\x80\x80", b"\xc3", b"a\xc3(",
           b"\xf0\x9f\x98", b"\x80", b"\xc2\x7f", b"\xf5\x80\x80\x80", b"\xe2\x28\xa1"]
GOOD_SCORES = [b"1", b"0", b"-0", b"2.5", b".5", b"5.", b"-.5e-3", b"1e3", b"1E-2", b"007", b"0.1",
               b"0.30000000000000004", b"9007199254740993", b"1e22", b"1e23", b"123456789012345678901234567890",
               b"00000000000000000000000001.5", b"2.2250738585072014e-308", b"1.7976931348623157e308", b"-0e999",
               b"0e99999999999999999999", b"123456789.123456789e-5", b"0.000001", b"1e0001", b"-1e-307"]
GOOD_RELS = [b"0", b"1", b"-1", b"2", b"-0", b"007", b"9223372036854775807", b"-9223372036854775808",
             b"0000000000000000000000000000042"]
# wrong in the grammar, or (a '+', an underflow) declined by the tokenizer: the reference decides
BAD_NUMBERS = [b"+1", b"+.5", b"1e400", b"1e-400", b"4.9e-324", b"2.2250738585072011e-308", b"1.7976931348623159e308",
               b"1e99999999999999999999", b"9223372036854775808", b"-9223372036854775809", b"18446744073709551616",
               b"0x10", b"0X1p3", b"nan", b"inf", b"-Infinity", b"1e", b"1e+", b".", b"+", b"-", b"1_0", b"1,5",
               b"\xd9\xa1", b"e5", b"--1", b"+-1", b"1.5.2", b"1e5.0", b"\xff", b"2.5", b"1e3"]
BLANKS = [b" "] * 6 + [b"\t"] * 3 + [b"  ", b" \t ", b"\v", b"\f", b"\r"]
ENDINGS = [b"\n"] * 10 + [b"\r\n"] * 3 + [b"\r", b"\r\r\n", b"\n\r"]
EXTRA_LINES = [b"", b" ", b"\t", b"\f \v", b"#", b"# a comment", b"#q1 Q0 d1 1 1 t", b"  # indented", b"#q1 0 d1 1",
               b"\xff# not UTF-8", b"#\xff", b"q1 \x00 d1", b"\x00"]


@st.composite
def _token(draw, position: int, fmt, hostile: float) -> bytes:
    if position == fmt.value:
        if fmt.is_run:
            floats = st.floats(allow_nan=False, allow_infinity=False, allow_subnormal=hostile > 0)
            good = draw(st.one_of(st.sampled_from(GOOD_SCORES), floats.map(lambda x: repr(x).encode())))
        else:
            good = draw(st.one_of(st.sampled_from(GOOD_RELS), st.integers(-2**63, 2**63 - 1).map(lambda i: b"%d" % i)))
        return draw(st.sampled_from(BAD_NUMBERS)) if draw(st.floats(0, 1)) < hostile else good
    if position in fmt.ids:
        return draw(st.sampled_from(BAD_IDS)) if draw(st.floats(0, 1)) < hostile / 2 else draw(st.sampled_from(IDS))
    return draw(st.sampled_from([b"Q0", b"0", b"1", b"tag", b"\xff", b"#", b"x\xc3"]))


@st.composite
def _line(draw, fmt, hostile: float) -> bytes:
    count = len(fmt.fields)
    if draw(st.floats(0, 1)) < hostile:
        count = draw(st.integers(1, count + 3))
    elif fmt.is_run and draw(st.booleans()):
        count += draw(st.integers(0, 2))  # text after a run's 6th field is ignored
    fields = [draw(_token(min(j, count), fmt, hostile)) for j in range(count)]
    gaps = [draw(st.sampled_from(BLANKS if hostile else BLANKS[:-1])) for _ in fields]
    leading = draw(st.sampled_from([b""] * 6 + [b" ", b"\t"] + ([b"\r"] if hostile else [])))
    text = leading + b"".join(field + gap for field, gap in zip(fields, gaps))
    return text if draw(st.booleans()) else text.rstrip(b" \t\v\f\r")


@st.composite
def hostile_block(draw, fmt) -> bytes:
    """Lines of the format, mostly well-formed (so both outcomes are exercised), with blank and
    comment lines, bad tokens, field counts, CRs and NULs at random places."""
    hostile = draw(st.sampled_from([0.0, 0.0, 0.02, 0.1, 0.4]))
    lines = draw(st.lists(_line(fmt, hostile), min_size=0, max_size=25))
    extra = EXTRA_LINES if hostile else EXTRA_LINES[:-4]
    for _ in range(draw(st.sampled_from([0, 0, 1, 3]))):
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(extra)))
    clean = not hostile or draw(st.booleans())
    endings = [b"\n" if clean else draw(st.sampled_from(ENDINGS)) for _ in lines]
    block = b"".join(line + ending for line, ending in zip(lines, endings))
    if draw(st.booleans()):
        block = block.rstrip(b"\n")
    return block or b"q1"


# ------------------------------------------------------------------------------ comparison
def _reference(data: bytes, start: int, end: int, fmt, dialect: str, first: int):
    try:
        return parse_lines(data, start, end, fmt, dialect, first, "block")
    except CranfieldError as error:
        return error


def _assert_same(native, reference) -> None:
    """The tokenizer's Parsed equals the reference's, bitwise."""
    assert not isinstance(reference, Exception), f"the tokenizer read a block the grammar refuses: {reference}"
    assert native.qid.to_pylist() == reference.qid.to_pylist()
    assert native.docno.to_pylist() == reference.docno.to_pylist()
    assert (native.subtopic is None) == (reference.subtopic is None)
    if native.subtopic is not None:
        assert native.subtopic.to_pylist() == reference.subtopic.to_pylist()
    assert native.value.dtype == reference.value.dtype
    assert native.value.tobytes() == reference.value.tobytes()  # -0.0 and every bit of every double
    if reference.lines is None:
        assert native.lines is None
    else:
        assert native.lines.tolist() == reference.lines.tolist()
    assert (native.first, native.n_lines, native.tag) == (reference.first, reference.n_lines, reference.tag)
    if len(reference):
        assert native.query_starts.tolist() == query_block_starts(reference.qid).tolist()
        assert native.longest_docno == max(len(d.encode()) for d in reference.docno.to_pylist())
    native.qid.validate(full=True)
    native.docno.validate(full=True)


def _assert_same_heads(heads, rows) -> None:
    """The block read keeping one query id per run of equal ids: the rows' ids at their starts, and
    the rest as when every row's id is kept."""
    assert heads is not None and heads.qid is None
    heads.qid_heads.validate(full=True)
    assert heads.qid_heads.to_pylist() == [rows.qid[int(i)].as_py() for i in rows.query_starts]
    assert heads.query_starts.tolist() == rows.query_starts.tolist()
    assert heads.docno.to_pylist() == rows.docno.to_pylist() and heads.value.tobytes() == rows.value.tobytes()
    assert (heads.lines is None) == (rows.lines is None) and (heads.first, heads.n_lines, heads.tag) == \
        (rows.first, rows.n_lines, rows.tag)


def _compare(block: bytes, fmt, dialect: str, *, pad: bytes = b"", first: int = 1) -> bool:
    """Tokenizer vs reference on the block (inside padding); whether the tokenizer read it."""
    data = pad + block + pad
    start, end = len(pad), len(pad) + len(block)
    native = trec_fast.parse_native(data, start, end, fmt, dialect, first)
    reference = _reference(data, start, end, fmt, dialect, first)
    if native is not None:
        _assert_same(native, reference)
        _assert_same_heads(trec_fast.parse_native(data, start, end, fmt, dialect, first, heads=True), native)
    else:
        assert trec_fast.parse_native(data, start, end, fmt, dialect, first, heads=True) is None
    if native is None and not isinstance(reference, Exception):  # declined a good block: only for a '+' score or an underflow
        tiny = np.abs(reference.value) < 2.2250738585072014e-308
        assert fmt.is_run and (b"+" in block or tiny.any()), "declined a block the grammar reads"
    return native is not None


SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                              HealthCheck.data_too_large])


@built
@SETTINGS
@given(data=st.data(), fmt=st.sampled_from(FORMATS), dialect=st.sampled_from(DIALECTS),
       pad=st.sampled_from([b"", b"x\n", b"\x00\r\xff"]), first=st.integers(1, 1000))
def test_the_tokenizer_reads_what_the_grammar_reads_or_declines(data, fmt, dialect, pad, first):
    block = data.draw(hostile_block(fmt))
    read = _compare(block, fmt, dialect, pad=pad, first=first)
    event("read" if read else "declined")


@built
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), fmt=st.sampled_from(FORMATS), dialect=st.sampled_from(DIALECTS))
def test_wide_offsets_give_the_same_rows(data, fmt, dialect, monkeypatch):
    """Every block as if it were over 2 GiB: int64 offsets, large_string cast to string."""
    block = data.draw(hostile_block(fmt))
    with monkeypatch.context() as patch:
        patch.setattr(trec_fast, "WIDE_BYTES", 0)
        _compare(block, fmt, dialect)


# ------------------------------------------------------------------------------ deliberate cases
CLEAN = {
    RUN: b"q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 -0 tag\nq2 Q0 d1 1 1e3 tag extra\n",
    QRELS: b"q1 0 d1 1\nq1 0 d2 -3\nq2 0 d1 9223372036854775807\n",
    DIVERSITY_QRELS: b"q1 1 d1 1\nq1 2 d1 0\nq2 1 d3 2\n",
    SAMPLED_RUN: b"q1 s1 d1 1 0.5 t\nq1 s2 d2 1 .5 t\n",
}


@built
@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.kind)
@pytest.mark.parametrize("dialect", DIALECTS)
def test_clean_blocks_are_read_not_declined(fmt, dialect):
    block = CLEAN[fmt]
    assert _compare(block, fmt, dialect)
    assert _compare(block.replace(b" ", b"\t"), fmt, dialect)
    assert _compare(block.replace(b"\n", b"\r\n"), fmt, dialect)
    assert _compare(block.rstrip(b"\n"), fmt, dialect)
    assert _compare(block.replace(b" ", b" \v\f "), fmt, dialect)


@built
@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("extra", [b"", b"   ", b"# comment", b"  # indented", b"#q9 Q0 d9 1 1 t"])
def test_blank_and_comment_lines_per_dialect(dialect, extra):
    """Skipped where the dialect skips them (the rows keep their line numbers), declined where it
    refuses them, read as data where it reads them as data."""
    for fmt in FORMATS:
        block = CLEAN[fmt]
        lines = block.split(b"\n")
        mixed = b"\n".join([lines[0], extra, *lines[1:]])
        _compare(mixed, fmt, dialect)


@built
@pytest.mark.parametrize("fault", [b"q1 Q0 d1 1 2.5 t\x00", b"q1 Q0 d1 1 2.5 t\rq2 Q0 d1 1 1 t",
                                   b"q1 Q0 d1 1 2.5", b"q1 Q0 \xff 1 2.5 t", b"q1 Q0 d1 1 nan t",
                                   b"q1 Q0 d1 1 1e400 t", b"q1 Q0 d1 1 0x10 t", b"\xc0\xaf Q0 d1 1 1 t"])
def test_each_fault_declines_the_block(fault):
    block = CLEAN[RUN] + fault + b"\n"
    assert trec_fast.parse_native(block, 0, len(block), RUN, "cranfield", 1) is None
    assert isinstance(_reference(block, 0, len(block), RUN, "cranfield", 1), CranfieldError)


@built
def test_a_lone_cr_is_a_blank_in_the_trec_eval_dialects():
    block = b"q1 Q0 d1 1 2.5 t\rx\nq1 Q0 d2 1 1 t\r\r\n"
    assert _compare(block, RUN, "trec_eval-9")
    assert not _compare(block, RUN, "cranfield")


# ------------------------------------------------------------------------------ numbers
def _score(token: bytes):
    block = b"q Q0 d 1 " + token + b" t\n"
    parsed = trec_fast.parse_native(block, 0, len(block), RUN, "cranfield", 1)
    return None if parsed is None else parsed.value[0]


def _bits(value: float) -> bytes:
    return struct.pack("<d", value)


@built
@settings(max_examples=500, deadline=None)
@given(value=st.floats(allow_nan=False, allow_infinity=False),
       spelling=st.sampled_from(["{!r}", "{:.17g}", "{:e}", "{:.3f}", "{:.25e}", "{:.0f}", "{:.30f}"]))
def test_scores_equal_python_float_bitwise(value, spelling):
    token = spelling.format(value).encode()
    read = _score(token)
    if read is None:  # only an underflow or a '+' is declined among finite spellings
        assert abs(float(token)) < 2.2250738585072014e-308 and float(token) != 0 or token.startswith(b"+")
        return
    assert _bits(read) == _bits(float(token))


@built
@settings(max_examples=500, deadline=None)
@given(token=st.from_regex(r"\A-?[0-9]{0,30}(\.[0-9]{0,30})?([eE][+-]?[0-9]{1,5})?\Z"))
def test_decimal_spellings_equal_python_float_and_the_reference(token):
    token = token.encode()
    read = _score(token)
    block = b"q Q0 d 1 " + token + b" t\n"
    reference = _reference(block, 0, len(block), RUN, "cranfield", 1)
    if read is None:
        event("declined")
        return
    assert _bits(read) == _bits(float(token)) == _bits(reference.value[0])


@built
@settings(max_examples=300, deadline=None)
@given(value=st.integers(-2**63, 2**63 - 1), zeros=st.integers(0, 30), plus=st.booleans())
def test_relevance_reads_every_int64(value, zeros, plus):
    sign = "-" if value < 0 else ("+" if plus else "")
    token = f"{sign}{'0' * zeros}{abs(value)}".encode()
    block = b"q 0 d " + token + b"\n"
    parsed = trec_fast.parse_native(block, 0, len(block), QRELS, "cranfield", 1)
    assert parsed.value.tolist() == [value]
    for beyond in (2**63, -2**63 - 1, 2**64):
        block = b"q 0 d " + str(beyond).encode() + b"\n"
        assert trec_fast.parse_native(block, 0, len(block), QRELS, "cranfield", 1) is None


@built
def test_bad_layouts_are_refused():
    with pytest.raises(ValueError):
        trec_fast._native.tokenize(b"x", 0, 1, 9, 1, 1, 0, 0, -1, 0, 0, 0, 0)
    with pytest.raises(ValueError):
        trec_fast._native.tokenize(b"x", 0, 5, 4, 1, 5, 3, 1, -1, 0, 0, 0, 0)


# ------------------------------------------------------------------------------ the public readers
BAD_FILES = [
    b"q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 1e400 t\n", b"q1 Q0 d1 1 2.5 t\nq1 Q0 d2\n", b"q1 Q0 d1 1 2.5 t\n\xff Q0 d2 1 1 t\n",
    b"q1 Q0 d1 1 2.5 t\x00\n", b"q1 Q0 d1 1 2.5 t\rq1 Q0 d2 1 1 t\n", b"# only a comment\n", b"",
    b"q1 0 d1 1\nq1 0 d2 0x10\n", b"q1 0 d1 1\n\nq1 0 d2 1\n", b"q1 0 d1 1 x\n", b"q1 0 d1 +-1\n",
    b"q1 0 d1 1\n\xef\xbb\xbfq2 0 d1 1\n",  # a BOM inside the file belongs to the id (Arrow drops one starting a block)
]


def _read(path, kind: str, dialect: str):
    try:
        table = (cranfield.Run if kind == "run" else cranfield.Qrels).from_file(path, dialect=dialect)
    except CranfieldError as error:
        return ("error", type(error).__name__, str(error))
    return ("ok", table.qid.to_pylist(), table.docno.to_pylist(), table.values.tobytes(), table.lines.tolist(),
            table._query_starts.tolist() if table._query_starts is not None else None, getattr(table, "name", None))


def _on_and_off(path, kind: str, dialect: str, monkeypatch):
    on = _read(path, kind, dialect)
    with monkeypatch.context() as patch:
        patch.setattr(trec_fast, "_native", None)
        off = _read(path, kind, dialect)
    return on, off


@built
@pytest.mark.parametrize("content", BAD_FILES + [CLEAN[RUN], CLEAN[QRELS], b"# c\n" + CLEAN[RUN] + b"\n \n",
                                                 b"\xef\xbb\xbf" + CLEAN[QRELS].replace(b"\n", b"\r\n")])
@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("chunk", [None, 20])
def test_readers_agree_with_the_tokenizer_on_and_off(tmp_path, monkeypatch, content, dialect, chunk):
    if chunk:
        monkeypatch.setattr(trec, "CHUNK_BYTES", chunk)
    path = tmp_path / "input.txt"
    path.write_bytes(content)
    for kind in ("run", "qrels"):
        on, off = _on_and_off(path, kind, dialect, monkeypatch)
        assert on == off


@built
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(data=st.data(), fmt=st.sampled_from([RUN, QRELS]), dialect=st.sampled_from(DIALECTS),
       chunk=st.sampled_from([None, 1, 40]))
def test_readers_agree_on_hostile_files(tmp_path, monkeypatch, data, fmt, dialect, chunk):
    content = data.draw(hostile_block(fmt))
    path = tmp_path / "hostile.txt"
    path.write_bytes(content)
    with monkeypatch.context() as patch:
        if chunk:
            patch.setattr(trec, "CHUNK_BYTES", chunk)
        on, off = _on_and_off(path, fmt.kind, dialect, monkeypatch)
    assert on == off
    event(on[0])


def test_arrow_declines_a_block_that_starts_with_a_bom():
    """Arrow's CSV reader drops a BOM at the start of its buffer; the grammar drops only the file's
    first, so a block that starts with one (a line within the file) goes to the reference parser."""
    block = b"\xef\xbb\xbfq2 0 d1 1\n"
    assert trec_fast.parse_arrow(block, 0, len(block), QRELS, "cranfield", 1) is None
    assert parse_lines(block, 0, len(block), QRELS, "cranfield", 1, "block").qid.to_pylist() == ["\ufeffq2"]


@built
def test_the_reader_takes_the_compiled_path(tmp_path, monkeypatch):
    """A clean file is read by the tokenizer alone (neither Arrow nor the reference parser run)."""
    path = tmp_path / "run.txt"
    path.write_bytes(CLEAN[RUN] * 3)
    calls = []
    monkeypatch.setattr(trec_fast, "parse_arrow", lambda *a, **k: calls.append("arrow"))
    monkeypatch.setattr(trec, "parse_lines", lambda *a, **k: calls.append("reference"))
    run = cranfield.Run.from_file(path)
    assert calls == [] and len(run) == 9 and np.array_equal(run.values, [2.5, -0.0, 1e3] * 3)


# ------------------------------------------------------------------------------ the 64-byte chunks
# The tokenizer marks blanks, LF, CR, bytes >= 0x80 and control bytes 64 bytes at a time (AVX2 or
# SSE2) and splits lines under 64 bytes from those masks; the rest go byte by byte, as every line
# does with the classifier "c" (machines without SSE2).
CLASSIFIERS = trec_fast._native._use_classifier() if trec_fast._native is not None else []


@pytest.fixture(params=CLASSIFIERS)
def classifier(request):
    """Each byte classifier this CPU runs, in turn (the default one restored after)."""
    default = CLASSIFIERS[0]
    trec_fast._native._use_classifier(request.param)
    yield request.param
    trec_fast._native._use_classifier(default)


@built
def test_the_classifiers_are_listed_and_switched():
    names = trec_fast._native._use_classifier()
    assert "c" in names and names[0] == CLASSIFIERS[0]
    with pytest.raises(ValueError):
        trec_fast._native._use_classifier("no such classifier")
    assert trec_fast._native._use_classifier(names[-1])[0] == names[-1]
    assert trec_fast._native._use_classifier(names[0]) == names


@built
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data(), fmt=st.sampled_from(FORMATS), dialect=st.sampled_from(DIALECTS),
       pad=st.sampled_from([b"", b"x\n"]), name=st.sampled_from(CLASSIFIERS or ["c"]))
def test_every_classifier_reads_what_the_grammar_reads(data, fmt, dialect, pad, name):
    block = data.draw(hostile_block(fmt))
    trec_fast._native._use_classifier(name)
    try:
        _compare(block, fmt, dialect, pad=pad)
    finally:
        trec_fast._native._use_classifier(CLASSIFIERS[0])


def _run_line(qid: bytes, docno: bytes, score: bytes = b"1.5", tag: bytes = b"t") -> bytes:
    return b"%s Q0 %s 1 %s %s\n" % (qid, docno, score, tag)


@built
@pytest.mark.parametrize("dialect", DIALECTS)
def test_lines_across_every_chunk_offset(classifier, dialect):
    """Lines of 20 to 90 bytes starting at every offset of a 64-byte chunk (and crossing the
    16 KiB region of masks): read exactly as the grammar reads them, the last line with or without
    its LF."""
    lines = [_run_line(b"q%d" % (i // 7), b"d" + b"x" * (i % 70), b"%d.%d" % (i, i % 9)) for i in range(300)]
    block = b"".join(lines)
    for shift in range(70):
        shifted = _run_line(b"q", b"d" * (shift + 1)) + block
        assert _compare(shifted, RUN, dialect)
        assert _compare(shifted.rstrip(b"\n"), RUN, dialect)
    big = block * 60  # > 16 KiB: lines cross the end of the region of masks
    assert _compare(big, RUN, dialect) and _compare(big[:-1], RUN, dialect)


@built
@pytest.mark.parametrize("byte", [0x00, 0x0D, 0x0B, 0x01, 0xC3, 0xFF, 0x23, 0x0A])
def test_an_odd_byte_around_the_end_of_a_region_of_masks(classifier, byte):
    """The masks are built 16 KiB at a time (with 64 bytes more for the lines that cross the end):
    a byte that changes a line, anywhere around 16 KiB, is seen as the byte-wise split sees it."""
    block = b"".join(_run_line(b"q%d" % (i // 50), b"d%d" % i, b"0.%d" % i) for i in range(1200))
    for at in range(16384 - 70, 16384 + 70, 3):
        _compare(block[:at] + bytes([byte]) + block[at + 1:], RUN, "cranfield")


# bytes to put anywhere: blanks, LF, CR, NUL, control bytes, DEL, UTF-8 lead and continuation bytes, '#', '.'
ODD_BYTES = [0x00, 0x01, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x1F, 0x20, 0x23, 0x2E, 0x7F, 0x80, 0xA9,
             0xC3, 0xE2, 0xFF]


@built
@pytest.mark.parametrize("dialect", ["cranfield", "trec_eval-9"])
@pytest.mark.parametrize("fmt", [RUN, QRELS], ids=lambda f: f.kind)
def test_an_odd_byte_in_every_position(classifier, fmt, dialect):
    """Each byte of ODD_BYTES in each position of a block of short lines (about two chunks): the
    tokenizer reads what the grammar reads, or declines where the grammar refuses."""
    if fmt is RUN:
        block = _run_line(b"q1", b"\xc3\xa9d1", b"-2.25") + _run_line(b"q1", b"d22", b"0.5") + _run_line(b"q2", b"d3")
    else:
        block = b"q1 0 d1 1\nq1 0 \xc3\xa9d2 0\nq2 0 d1 2\nq2 0 d4 -1\nq3 0 d5 10\n"
    block += block.replace(b"q", b"Q")
    for i in range(len(block)):
        for byte in ODD_BYTES:
            _compare(block[:i] + bytes([byte]) + block[i + 1:], fmt, dialect)


@built
@pytest.mark.parametrize("ending", [b"\r\n", b"\n", b" \r\n", b"\t\v\f\n"])
def test_crlf_and_blanks_before_lf(classifier, ending):
    block = b"".join(_run_line(b"q%d" % i, b"d%d" % i) for i in range(40)).replace(b"\n", ending)
    for dialect in DIALECTS:
        assert _compare(block, RUN, dialect)
        assert _compare(block + b"q9 Q0 d9 1 1 t\r", RUN, dialect) == (dialect != "cranfield")  # a lone CR at the end


@built
@pytest.mark.parametrize("length", [1, 7, 8, 9, 15, 16, 17, 31, 63, 64, 65, 200, 5000])
def test_ids_of_every_length(classifier, length):
    """Ids around the word (8), move (16) and chunk (64) sizes, also as the block's last bytes."""
    qid, docno = b"Q" * length, b"\xc3\xa9" + b"D" * length
    block = _run_line(qid, docno) + _run_line(qid, b"d") + _run_line(b"q", docno) + _run_line(qid[:-1] + b"R", docno)
    for dialect in DIALECTS:
        assert _compare(block, RUN, dialect)
        assert _compare(block.rstrip(b"\n"), RUN, dialect)
        qrels = b"%s 0 %s 1\n%s 0 d 0\n%s 0 %s 2" % (qid, docno, qid, qid[:-1] + b"R", docno)
        assert _compare(qrels, QRELS, dialect)


@built
@pytest.mark.parametrize("negative", [False, True])
def test_score_spellings_by_digits_before_and_after_the_point(negative):
    """The word-wise score path (up to 7 digits before the point, 1 to 8 after) and its edges,
    bitwise against Python's float."""
    rng = random.Random(7)
    for before in range(10):
        for after in range(11):
            for _ in range(5):
                whole = "".join(rng.choice("0123456789") for _ in range(before))
                fraction = "".join(rng.choice("0123456789") for _ in range(after))
                for token in (f"{whole}.{fraction}", f"{whole}{fraction}"):
                    if not whole + fraction:
                        continue
                    token = ("-" if negative else "") + token
                    assert _bits(_score(token.encode())) == _bits(float(token)), token
