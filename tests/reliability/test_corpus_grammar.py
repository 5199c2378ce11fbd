"""Corpus cases for the one TREC text grammar (issue 19): the classes of input that were misread,
each with its exact outcome, through every text path (whole file, tiny blocks, block-wise
evaluation) and the command line.

Each case is bytes (written to a temporary file), a dialect, and either the expected error
(class, message fragment, line, field) or the dicts it must equal. The bad lines sit past the
64 KiB the old reader sampled where that was the bug.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

import cranfield
import cranfield.cli
import cranfield.io.trec as trec
import cranfield.retrieval.large as large
from cranfield.errors import InputError, UsageError

MEASURES = ["AP", "P@1", "NumRet", "NumRel", "NumRelRet"]
FILLER = 3000  # rows before a deep line: ~80 KB, past the old 64 KiB sample
QRELS = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d1": 1}, "#q1": {"d1": 1}}
RUN = {"q1": {"d1": 2.5, "d2": 1.5, "d3": 0.5}, "q2": {"d1": 1.0}, "#q1": {"d1": 1.0}}


def _filler_run(sep: str = " ") -> str:
    return "".join(f"q9{sep}Q0{sep}f{i}{sep}{i}{sep}{1 / (i + 1)!r}{sep}tag\n" for i in range(FILLER))


def _filler_qrels(sep: str = " ") -> str:
    return "".join(f"q9{sep}0{sep}f{i}{sep}{i % 3}\n" for i in range(FILLER))


@dataclass
class Case:
    id: str
    kind: str  # run | qrels
    text: "str | bytes"
    dialect: str = "cranfield"
    error: "type | None" = None
    fragment: str = ""
    line: "int | None" = None
    field: "str | None" = None
    expect: "dict | None" = None  # accepted: the equivalent {qid: {docno: value}}


def _run(id, text, expect=None, **kw):
    return Case(id, "run", text, expect=expect, **kw)


def _qrels(id, text, expect=None, **kw):
    return Case(id, "qrels", text, expect=expect, **kw)


DEEP = FILLER + 1  # line number of a line after the filler
CASES = [
    # ------------------------------------------------------------------ runs: blanks, decided per line
    _run("tab-led line deep in a space-separated run", _filler_run() + "\tq1 Q0 d1 1 2.5 tag\n",
         {"q1": {"d1": 2.5}}),
    _run("space inside a docno deep in a TAB-separated run (7 fields: docno 'd')",
         _filler_run("\t") + "q1\tQ0\td 1\t1\t2.5\ttag\n", {"q1": {"d": 1.0}}),
    _run("a VT and FF between fields", "q1\vQ0\fd1 1 2.5 tag\n", {"q1": {"d1": 2.5}}),
    _run("CRLF deep", _filler_run() + "q1 Q0 d1 1 2.5 tag\r\n", {"q1": {"d1": 2.5}}),
    _run("lone CR deep", _filler_run() + "q1 Q0 d1 1 2.5 tag\rq1 Q0 d2 1 2.5 tag\n", error=InputError,
         fragment="a carriage return (CR) that does not end the line", line=DEEP),
    _run("lone CR read as a blank by trec_eval-10 (extra fields ignored)",
         "q1 Q0 d1 1 2.5 tag\rq1 Q0 d2 1 2.5 tag\n", {"q1": {"d1": 2.5}}, dialect="trec_eval-10"),
    _run("no-break space between fields joins them", "q1\u00a0Q0 d1 1 2.5 tag\n", error=InputError,
         fragment='expected 6 fields "qid Q0 docno rank score tag", found 5', line=1),
    _run("ideographic space inside an id", "q1 Q0 d\u30001 1 2.5 tag\n", {"q1": {"d\u30001": 2.5}}),
    _run("5 fields deep", _filler_run() + "q1 Q0 d1 1 2.5\n", error=InputError,
         fragment='expected 6 fields "qid Q0 docno rank score tag", found 5', line=DEEP),
    _run("NUL byte deep", _filler_run() + "q1 Q0 d\x001 1 2.5 tag\n", error=InputError,
         fragment=f"binary data (a NUL byte on line {DEEP}); expected a text file"),
    _run("invalid UTF-8 in a docno deep", _filler_run().encode() + b"q1 Q0 d\xe91 1 2.5 tag\n", error=InputError,
         fragment="invalid UTF-8 byte 0xe9", line=DEEP, field="docno"),
    _run("invalid UTF-8 in the tag is not decoded", b"q1 Q0 d1 1 2.5 t\xe9g\n", {"q1": {"d1": 2.5}}),
    # ------------------------------------------------------------------ runs: numbers
    _run("score +1 on line 3", "q1 Q0 d1 1 2 t\nq1 Q0 d2 2 1.5 t\nq1 Q0 d3 3 +1 t\n",
         {"q1": {"d1": 2.0, "d2": 1.5, "d3": 1.0}}),
    _run("score spellings 1. .5 1e-2 -0", "q1 Q0 d1 1 1. t\nq1 Q0 d2 2 .5 t\nq1 Q0 d3 3 1e-2 t\nq2 Q0 d1 1 -0 t\n",
         {"q1": {"d1": 1.0, "d2": 0.5, "d3": 0.01}, "q2": {"d1": 0.0}}),
    _run("score hex float", "q1 Q0 d1 1 0x1p3 t\n", error=InputError, fragment="expected a number, found '0x1p3'",
         line=1, field="score"),
    _run("score Infinity deep", _filler_run() + "q1 Q0 d1 1 Infinity t\n", error=InputError,
         fragment="expected a finite number, found 'Infinity'", line=DEEP, field="score"),
    _run("score NaN deep, TAB-separated", _filler_run("\t") + "q1\tQ0\td1\t1\tnan\tt\n", error=InputError,
         fragment="expected a finite number, found 'nan'", line=DEEP, field="score"),
    # ------------------------------------------------------------------ runs: dialects
    _run("trec_eval-9: '#' starts an id", "#q1 Q0 d1 1 2.5 tag\n", {"#q1": {"d1": 2.5}}, dialect="trec_eval-9"),
    _run("cranfield: '#' starts a comment", "#q1 Q0 d9 1 2.5 tag\nq1 Q0 d1 1 2.5 tag\n", {"q1": {"d1": 2.5}}),
    _run("trec_eval-9: blank run lines skipped (get_trec_results.c)", "q1 Q0 d1 1 2.5 tag\n \t\nq1 Q0 d2 2 1.5 tag\n",
         {"q1": {"d1": 2.5, "d2": 1.5}}, dialect="trec_eval-9"),
    _run("trec_eval-9: blanks before a run line's query id", "q1 Q0 d1 1 2.5 tag\n q1 Q0 d2 2 1.5 tag\n",
         {"q1": {"d1": 2.5, "d2": 1.5}}, dialect="trec_eval-9"),
    _qrels("trec_eval-9: blank qrels line", "q1 0 d1 1\n\nq1 0 d2 0\n", dialect="trec_eval-9",
           error=InputError, fragment="blank line", line=2),
    _run("trec_eval-10: blank lines and indented comments skipped", "\n  # c\nq1 Q0 d1 1 2.5 tag\n \t\n",
         {"q1": {"d1": 2.5}}, dialect="trec_eval-10"),
    # ------------------------------------------------------------------ qrels: numbers
    _qrels("relevance +1 on line 3 (not blamed on line 1)", "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 +1\n",
           {"q1": {"d1": 1, "d2": 0, "d3": 1}}),
    _qrels("relevance 007 and -0", "q1 0 d1 007\nq1 0 d2 -0\n", {"q1": {"d1": 7, "d2": 0}}),
    _qrels("relevance 0x10 (atol: 0; Arrow: 16)", "q1 0 d1 1\nq1 0 d2 0x10\n", error=InputError,
           fragment="expected an integer relevance, found '0x10'", line=2, field="rel"),
    _qrels("relevance 1e3", "q1 0 d1 1e3\n", error=InputError, fragment="found '1e3'", line=1, field="rel"),
    _qrels("relevance 1.", "q1 0 d1 1.\n", error=InputError, fragment="found '1.'", line=1, field="rel"),
    _qrels("relevance 2^64-1 deep (used to wrap to -1)", _filler_qrels() + "q1 0 d1 18446744073709551615\n",
           error=InputError, fragment="found '18446744073709551615' (beyond the 64-bit range)", line=DEEP,
           field="rel"),
    _qrels("relevance 2^63-1 kept exact", "q1 0 d1 9223372036854775807\n", {"q1": {"d1": 9223372036854775807}}),
    _qrels("relevance ++1", "q1 0 d1 ++1\n", error=InputError, fragment="found '++1'", line=1, field="rel"),
    # ------------------------------------------------------------------ qrels: blanks and dialects
    _qrels("TAB-led line deep in a space-separated qrels", _filler_qrels() + "\tq1 0 d1 1\n", {"q1": {"d1": 1}}),
    _qrels("5 fields deep", _filler_qrels() + "q1 0 d1 1 x\n", error=InputError,
           fragment='expected 4 fields "qid iter docno rel", found 5', line=DEEP),
    _qrels("trec_eval-9: '#' starts an id", "#q1 0 d1 1\n", {"#q1": {"d1": 1}}, dialect="trec_eval-9"),
    _qrels("trec_eval-10: '#' first is a comment", "#q1 0 d9 1\nq1 0 d1 1\n", {"q1": {"d1": 1}},
           dialect="trec_eval-10"),
    _qrels("trec_eval-10: '#' after a blank is an id", " #q1 0 d1 1\n", {"#q1": {"d1": 1}}, dialect="trec_eval-10"),
    _qrels("trec_eval-10: blank line", "q1 0 d1 1\n\n", error=InputError, fragment="blank line", line=2,
           dialect="trec_eval-10"),
]


def _read(case: Case, path):
    if case.kind == "run":
        return cranfield.evaluate(QRELS, cranfield.read_run(path, dialect=case.dialect), MEASURES).mean
    return cranfield.evaluate(cranfield.read_qrels(path, dialect=case.dialect), RUN, MEASURES).mean


def _expected(case: Case):
    if case.kind == "run":
        return cranfield.evaluate(QRELS, case.expect, MEASURES).mean
    return cranfield.evaluate(case.expect, RUN, MEASURES).mean


def _write(tmp_path, case: Case):
    path = tmp_path / f"{case.kind}.txt"
    path.write_bytes(case.text if isinstance(case.text, bytes) else case.text.encode("utf-8"))
    return path


@pytest.mark.parametrize("chunk", [None, 7])
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_library(tmp_path, monkeypatch, case: Case, chunk):
    path = _write(tmp_path, case)
    deep = len(case.text) > 10_000
    if chunk is not None:  # tiny blocks: every line of a short case in a block of its own; ~30 for a deep one
        monkeypatch.setattr(trec, "CHUNK_BYTES", chunk * 431 if deep else chunk)
        monkeypatch.setattr(large, "MIN_BLOCK_BYTES", 1)
    readers = [lambda: _read(case, path)]
    if case.kind == "run":
        readers.append(lambda: large.evaluate_large(QRELS, path, MEASURES, batch_rows=100 if deep else 3,
                                                    dialect=case.dialect).mean)
    for read in readers:
        if case.error is None:
            result = read()
            assert result == _expected(case) and result["NumRet"] > 0
            continue
        with pytest.raises(case.error) as info:
            read()
        error = info.value
        text = str(error)
        assert case.fragment in text and "\n" not in text
        assert text.startswith(f"{path}:{case.line}: " if case.line is not None else f"{path}: "), text
        assert error.line == case.line and error.field == case.field, (error.line, error.field)
        if case.field is not None:
            assert f"field {case.field}: " in text


CLI_CASES = [c for c in CASES if c.dialect == "cranfield"]


@pytest.mark.parametrize("case", CLI_CASES, ids=[c.id for c in CLI_CASES])
def test_command_line(tmp_path, capsys, case: Case):
    path = _write(tmp_path, case)
    partner = tmp_path / "partner.txt"
    if case.kind == "run":
        cranfield.Qrels.from_dict({q: d for q, d in QRELS.items() if not q.startswith("#")}).to_trec(partner)
        argv = ["evaluate", str(partner), str(path), "-m", "AP"]
    else:
        cranfield.Run.from_dict(RUN).to_trec(partner)
        argv = ["evaluate", str(path), str(partner), "-m", "AP"]
    status = cranfield.cli.main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    if case.error is None:
        assert status == 0, err
        return
    assert status == 2
    lines = err.strip("\n").split("\n")
    assert len(lines) == 1 and lines[0].startswith(f"cranfield: error: {path}") and case.fragment in lines[0]


@pytest.mark.parametrize("level", [-1, -2])
def test_negative_relevance_level_refused(level):
    """``-l -2`` with negative judgments: trec_eval 9.0.8 prints AP > 1 and NumRelRet > NumRel;
    cranfield refuses a negative level (UsageError); level 0 is consistent."""
    qrels = {"q": {"a": 1, "b": -1, "c": 0}}
    run = {"q": {"x": 3.0, "b": 2.0, "a": 1.0, "c": 0.5}}
    with pytest.raises(UsageError, match=r"relevance_level \(-l\) must be ≥ 0"):
        cranfield.evaluate(qrels, run, ["AP"], relevance_level=level)
    zero = cranfield.evaluate(qrels, run, ["AP", "NumRel", "NumRelRet"], relevance_level=0).mean
    assert zero["AP"] <= 1 and zero["NumRelRet"] <= zero["NumRel"] == 2


def test_unknown_dialect_is_a_usage_error(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 2.5 tag\n")
    for call in (lambda: cranfield.read_run(path, dialect="trec_eval"),
                 lambda: cranfield.read_qrels(path, dialect="9.0.8"),
                 lambda: large.evaluate_large(QRELS, path, ["AP"], dialect="x")):
        with pytest.raises(UsageError, match="unknown TREC dialect"):
            call()
