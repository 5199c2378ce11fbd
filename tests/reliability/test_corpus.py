"""The bad-input corpus (issue 9): every reader, hostile files and values, exact outcomes.

Each row of CASES is one input. A rejected input asserts the exact error class, a message
fragment, and the file, line and field where they exist (in the message and on the exception);
an accepted one (BOM, CRLF, mixed blanks, Unicode ids...) asserts the numbers, computed from
equivalent dicts. Every case also goes through the command line (in process: exit 2, one line
``cranfield: error: ...``, no traceback; exit 0 for accepted ones), and a few through a real
subprocess. Files live in corpus/ (written by make_corpus.py).
"""

from __future__ import annotations

import math
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import click
import numpy as np
import pytest

import cranfield
import cranfield.classification.measures
import cranfield.cli
from cranfield.errors import InputError, MeasureError, UsageError

CORPUS = Path(__file__).resolve().parent / "corpus"
GOOD_QRELS = CORPUS / "good.qrels"
GOOD_RUN = CORPUS / "good.run"
MEASURES = ["AP", "P@1", "NumRet", "NumRel"]
QRELS_DICT = {"q1": {"d1": 1, "d2": 0}, "q2": {"d1": 2}}
RUN_DICT = {"q1": {"d1": 2.5, "d2": 1.5}, "q2": {"d1": 0.5}}
UNICODE_QRELS = {"q\u00fc": {"d\u00f6c-\u2460": 1, "\u6587\u66f8": 0}}
UNICODE_RUN = {"q\u00fc": {"d\u00f6c-\u2460": 2.5, "\u6587\u66f8": 1.5}}
BIG_ID = "d" * 100_000


@dataclass
class Case:
    id: str
    kind: str  # run | qrels | classify | zscore | measure | call | cli
    target: object  # corpus file name, measure text, callable (call) or argv (cli)
    error: type | None = None  # None: accepted
    fragment: str = ""
    line: int | None = None
    field: str | None = None
    args: tuple = ()  # extra CLI arguments (classify)
    partner: object = None  # qrels for a run, run for a qrels (path or dict)
    expect: object = None  # accepted: (qrels dict, run dict) oracle, or {measure: value}
    names_file: bool = True


def _run(name, error=None, fragment="", line=None, field=None, **kw):
    return Case(name, "run", name, error, fragment, line, field, **kw)


def _qrels(name, error=None, fragment="", line=None, field=None, **kw):
    return Case(name, "qrels", name, error, fragment, line, field, **kw)


def _cls(name, error=None, fragment="", line=None, field=None, **kw):
    return Case(name, "classify", name, error, fragment, line, field, **kw)


def _z(name, fragment, line=None):
    return Case(name, "zscore", name, InputError, fragment, line)


def _measure(text, fragment, error=MeasureError):
    return Case(f"measure {text}", "measure", text, error, fragment, names_file=False)


def _call(name, function, error, fragment, line=None, field=None):
    return Case(name, "call", function, error, fragment, line, field, names_file=False)


def _cli(name, argv, error, fragment):
    return Case(name, "cli", argv, error, fragment, names_file=False)


def _frame_with_null_score():
    import pyarrow as pa

    return pa.table({"qid": ["q1", "q1"], "docno": ["d1", "d2"], "score": [1.0, None]})


CASES: list[Case] = [
    # ------------------------------------------------------------------ runs: rejected
    _run("run_5_fields.txt", InputError, 'expected 6 fields "qid Q0 docno rank score tag", found 5', 2),
    _run("run_score_text.txt", InputError, "expected a number, found 'high'", 2, "score"),
    _run("run_score_nan.txt", InputError, "expected a finite number, found 'NaN'", 2, "score"),
    _run("run_score_minus_inf.txt", InputError, "expected a finite number, found '-inf'", 1, "score"),
    _run("run_score_overflow.txt", InputError, "expected a finite number, found '1e400'", 2, "score"),
    _run("run_score_decimal_comma.txt", InputError, "expected a number, found '2,5'", 1, "score"),
    _run("run_score_hex.txt", InputError, "expected a number, found '0x1A'", 1, "score"),
    _run("run_duplicate_doc.txt", InputError, "document 'd1' retrieved twice for query 'q1' (also on line 1)", 3,
         "docno"),
    _run("run_duplicate_doc_ws_variant.txt", InputError, "document 'd1' retrieved twice for query 'q1'", 2, "docno"),
    _run("run_empty.txt", InputError, "empty file"),
    _run("run_only_comments.txt", InputError, "no run lines (only comments or blank lines)"),
    _run("run_only_blank_lines.txt", InputError, "no run lines (only comments or blank lines)"),
    _run("run_latin1.txt", InputError, "invalid UTF-8 byte 0xe9", 2),
    _run("run_utf16.txt", InputError, "this file is UTF-16 (or UTF-32) text; convert it to UTF-8"),
    _run("run_binary.bin", InputError, "expected a text file"),
    _run("run_truncated.gz", InputError, "corrupt or truncated gzip data"),
    _run("run_gzip_garbage.gz", InputError, "corrupt or truncated gzip data"),
    _run("run_empty.gz", InputError, "empty file"),
    _run("does_not_exist.run", InputError, "no such file"),
    # ------------------------------------------------------------------ runs: accepted
    _run("run_bom.txt", expect=(QRELS_DICT, RUN_DICT)),
    _run("run_crlf.txt", expect=(QRELS_DICT, RUN_DICT)),
    _run("run_mixed_whitespace.txt", expect=(QRELS_DICT, RUN_DICT)),
    _run("run_extra_fields.txt", expect=(QRELS_DICT, RUN_DICT)),
    _run("run_gzip_ok.gz", expect=(QRELS_DICT, RUN_DICT)),
    _run("run_unicode_ids.txt", partner=CORPUS / "qrels_unicode_ids.txt", expect=(UNICODE_QRELS, UNICODE_RUN)),
    _run("run_nbsp_inside_id.txt", partner={"q1": {"d\u00a01": 1}},
         expect=({"q1": {"d\u00a01": 1}}, {"q1": {"d\u00a01": 2.5}})),
    _run("run_enormous_id.txt", partner={"q1": {BIG_ID: 1, "d1": 0}},
         expect=({"q1": {BIG_ID: 1, "d1": 0}}, {"q1": {BIG_ID: 2.5, "d1": 1.5}})),
    # ------------------------------------------------------------------ qrels
    _qrels("qrels_3_fields.txt", InputError, 'expected 4 fields "qid iter docno rel", found 3', 2),
    _qrels("qrels_5_fields.txt", InputError, 'expected 4 fields "qid iter docno rel", found 5', 1),
    _qrels("qrels_rel_text.txt", InputError, "expected an integer relevance, found 'relevant'", 2, "rel"),
    _qrels("qrels_rel_fraction.txt", InputError, "expected an integer relevance, found '1.5'", 1, "rel"),
    _qrels("qrels_rel_nan.txt", InputError, "expected an integer relevance, found 'nan'", 2, "rel"),
    _qrels("qrels_rel_huge.txt", InputError, "expected an integer relevance, found '99999999999999999999'", 1, "rel"),
    _qrels("qrels_duplicate.txt", InputError, "duplicate judgment for query 'q1', document 'd1' (also on line 1)", 3,
           "docno"),
    _qrels("qrels_duplicate_ws_variant.txt", InputError, "duplicate judgment for query 'q1', document 'd1'", 2,
           "docno"),
    _qrels("qrels_empty.txt", InputError, "empty file"),
    _qrels("qrels_only_comments.txt", InputError, "no qrels lines"),
    _qrels("qrels_latin1.txt", InputError, "invalid UTF-8 byte 0xe9", 1),
    _qrels("qrels_truncated.gz", InputError, "corrupt or truncated gzip data"),
    _qrels("qrels_bom_crlf.txt", expect=(QRELS_DICT, RUN_DICT)),
    _qrels("qrels_unicode_ids.txt", partner=CORPUS / "run_unicode_ids.txt", expect=(UNICODE_QRELS, UNICODE_RUN)),
    _qrels("qrels_negative_rel.txt", expect=({"q1": {"d1": 1, "d2": -1}, "q2": {"d1": 2}}, RUN_DICT)),
    # ------------------------------------------------------------------ classification files
    _cls("cls_score_text.csv", InputError, "expected a number, found 'abc'", 3, "s"),
    _cls("cls_score_missing.csv", InputError, "expected a value, found an empty or missing one", 3, "s"),
    _cls("cls_score_inf.csv", InputError, "expected a finite number, found inf", 4, "s"),
    _cls("cls_nan_score.parquet", InputError, "expected a value, found an empty or missing one", 2, "s"),  # as text nan
    _cls("cls_truth_missing.csv", InputError, "expected a value, found an empty or missing one", 3, "y"),
    _cls("cls_duplicate_column.csv", InputError, "column 'y' appears 2 times", None, "y"),
    _cls("cls_latin1.csv", InputError, "invalid UTF-8 bytes", 4, "y", args=("--positive", "ja")),
    _cls("cls_binary.csv", InputError, "expected 1 fields as in the header, found 2", 3),
    _cls("cls_header_latin1.csv", InputError, "invalid UTF-8 byte 0xe9 in the header", 1),  # fuzz crash
    _cls("cls_header_newline.csv", InputError, "no column 'y'; the columns are 'y\\nx', 's'"),  # fuzz crash
    _cls("cls_ragged.csv", InputError, "expected 2 fields as in the header, found 3", 3),
    _cls("cls_empty.csv", InputError, "cannot read the file: Empty CSV file"),
    _cls("cls_header_only.csv", InputError, "no rows"),
    _cls("cls_one_class.csv", InputError, "a score needs two classes in the truth column, found [1]", None, "y"),
    _cls("cls_three_classes.csv", UsageError, "cannot tell which label is positive among ['a', 'b', 'c']",
         names_file=False),
    _cls("cls_ok.parquet", UsageError, "--positive 'yes': the truth column holds integers", args=("--positive", "yes"),
         names_file=False),
    _cls("cls_ok.parquet", InputError, "no column 'score'; the columns are 'y', 's'", args=("--truth", "y", "--score", "score")),
    _cls("cls_truncated.csv.gz", InputError, "corrupt or truncated gzip data"),  # the one opener's words, as for runs
    _cls("cls_not_parquet.parquet", InputError, "cannot read the file"),
    _cls("cls_bom_crlf.csv", expect={"roc_auc": 0.75, "n": 4}),
    _cls("cls_unicode_labels.tsv", expect={"roc_auc": 0.75, "n": 4}, args=("--positive", "j\u00e4")),
    # ------------------------------------------------------------------ z-score files (trec_eval -Z)
    _z("zscore_3_fields.txt", 'expected 4 fields "qid measure mean stddev", found 3', 2),
    _z("zscore_nan.txt", "expected finite numbers for mean and stddev, found '0.5' 'nan'", 1),
    _z("zscore_latin1.txt", "invalid UTF-8 byte 0xe9", 2),
    _z("zscore_text.txt", "expected finite numbers for mean and stddev, found 'mean' 'sd'", 1),
    # ------------------------------------------------------------------ measure names
    _measure("nDCG@-1", "nDCG: cut-off must be a whole number ≥ 1, found @-1"),
    _measure("P@abc", "malformed measure 'P@abc': expected a number, found 'abc'"),
    _measure("RBP(p=2)", "RBP: parameter p=2: the persistence p must lie in (0, 1)"),
    _measure("nDCGG@10", "unknown measure 'nDCGG'; did you mean nDCG"),
    _measure("mapp", "unknown measure 'mapp'; did you mean map"),
    _measure("ndcg_cutt.10", "unknown measure 'ndcg_cutt'; did you mean ndcg_cut"),
    _measure("P@1e30", "P: cut-off must be at most 10^18"),
    _measure("P.1e400", "P.1e400: parameters must be numbers separated by commas"),
    _measure("nDCG(gains={1e400:1})", "is not a valid gain map"),
    _measure("ndcg_cut.0", "ndcg_cut.0: cut-offs must be positive"),
    _measure("IPrec", "IPrec needs a cut-off, e.g. IPrec@0.5"),
    _measure("RBP(p=0.5", "malformed measure 'RBP(p=0.5': unexpected end"),
    # ------------------------------------------------------------------ library inputs (no file)
    _call("roc_auc lengths", lambda: cranfield.roc_auc([0, 1, 1], [0.1, 0.2]), InputError,
          "inconsistent numbers of samples: y_true has 3, y_score has 2"),
    _call("roc_auc negative weight", lambda: cranfield.roc_auc([0, 1], [0.1, 0.2], sample_weight=[1, -1]),
          InputError, "expected non-negative weights, found -1.0 at index 1", field="sample_weight"),
    _call("roc_auc one class", lambda: cranfield.roc_auc([1, 1], [0.1, 0.2]), InputError,
          "ROC AUC is undefined when y_true has only one class", field="y_true"),
    _call("average_precision NaN score", lambda: cranfield.average_precision([0, 1], [float("nan"), 0.2]),
          InputError, "expected finite numbers, found nan at index 0", field="y_score"),
    _call("precision label outside declared set",
          lambda: cranfield.classification.measures.precision([0, 1, 2], [0, 1, 1], labels=[0, 1]), InputError,
          "label 2 at index 2 is not one of the declared labels [0, 1]", field="y_true"),
    Case("mcc with a huge weight", "call", lambda: cranfield.classification.measures.mcc(
        [0, 1, 1, 0], [0, 1, 0, 0], sample_weight=[1.3e154, 1.3e154, 1.3e154, 1.3e154]), expect=1 / math.sqrt(3),
        names_file=False),  # found by scripts/fuzz.py: overflow → NaN
    _call("classification measure unknown", lambda: cranfield.classification.measures.get_measure("f_1"),
          MeasureError, "unknown classification measure 'f_1'"),
    _call("run dict qid with whitespace", lambda: cranfield.Run.from_dict({"q1 ": {"d1": 1.0}}), InputError,
          "id 'q1 ' contains whitespace", line=1, field="qid"),
    _call("run dict NaN score", lambda: cranfield.Run.from_dict({"q1": {"d1": float("nan")}}), InputError,
          "query 'q1', document 'd1': expected a finite number", field="score"),
    _call("qrels dict text relevance", lambda: cranfield.Qrels.from_dict({"q1": {"d1": "high"}}), InputError,
          "expected a number, found 'high'", field="rel"),
    _call("qrels dict fractional relevance", lambda: cranfield.Qrels.from_dict({"q1": {"d1": 1.5}}), InputError,
          "expected an integer relevance, found 1.5", line=1, field="rel"),
    _call("qrels dict relevance beyond int64", lambda: cranfield.Qrels.from_dict({"q1": {"d1": 9.3e18}}), InputError,
          "expected an integer relevance, found 9.3e+18", line=1, field="rel"),  # found by scripts/fuzz.py
    _call("run frame null score", lambda: cranfield.Run.from_frame(_frame_with_null_score()), InputError,
          "missing value (null)", line=2, field="score"),
    _call("compare_values NaN", lambda: cranfield.compare_values({"a": {"AP": {"q1": float("nan"), "q2": 0.5}},
                                                                 "b": {"AP": {"q1": 0.1, "q2": 0.5}}}),
          InputError, "query 'q1': expected a finite number, found nan", field="value"),
    # ------------------------------------------------------------------ command-line options
    _cli("evaluate -o into a missing folder", ["evaluate", GOOD_QRELS, GOOD_RUN, "-o", "/nonexistent/dir/out.txt"],
         UsageError, "/nonexistent/dir/out.txt: cannot write the output: No such file or directory"),
    _cli("evaluate -o a folder", ["evaluate", GOOD_QRELS, GOOD_RUN, "-o", CORPUS],
         UsageError, "cannot write the output: is a folder"),
    _cli("evaluate --digits -1", ["evaluate", GOOD_QRELS, GOOD_RUN, "--digits", "-1"], UsageError,
         "digits: expected a whole number from 0 to 100, found -1"),
    _cli("evaluate -M -5", ["evaluate", GOOD_QRELS, GOOD_RUN, "-M", "-5"], UsageError, "expected a whole number >= 0, found -5"),
    _cli("classify --threshold nan", ["classify", CORPUS / "cls_bom_crlf.csv", "--truth", "y", "--score", "s",
                                      "--threshold", "nan"], UsageError, "--threshold nan: expected a number"),
    _cli("classify --pred with --optimize", ["classify", CORPUS / "cls_bom_crlf.csv", "--truth", "y", "--score",
                                             "s", "--pred", "y", "--optimize", "f1"], UsageError,
         "do not give --pred with them"),
    _cli("compare --alpha 2", ["compare", GOOD_QRELS, GOOD_RUN, CORPUS / "run_crlf.txt", "--alpha", "2"],
         UsageError, "alpha: expected a number strictly between 0 and 1, found 2.0"),
    _cli("compare one run", ["compare", GOOD_QRELS, GOOD_RUN], UsageError, "expected at least 2 runs to compare"),
]


def _path(case: Case) -> Path:
    return CORPUS / str(case.target)


def _argv(case: Case) -> list[str]:
    if case.kind == "run":
        partner = case.partner if isinstance(case.partner, Path) else GOOD_QRELS
        return ["evaluate", str(partner), str(_path(case)), "-m", "AP", "-f", "json"]
    if case.kind == "qrels":
        partner = case.partner if isinstance(case.partner, Path) else GOOD_RUN
        return ["evaluate", str(_path(case)), str(partner), "-m", "AP", "-f", "json"]
    if case.kind == "classify":
        args = list(case.args)
        if "--truth" in args:
            return ["classify", str(_path(case)), *args]
        return ["classify", str(_path(case)), "--truth", "y", "--score", "s", *args, "--format", "json"]
    if case.kind == "zscore":
        return ["trec_eval", "-Z", str(_path(case)), "-m", "P.5", str(GOOD_QRELS), str(GOOD_RUN)]
    if case.kind == "measure":
        return ["evaluate", str(GOOD_QRELS), str(GOOD_RUN), "-m", str(case.target)]
    if case.kind == "cli":
        return [str(a) for a in case.target]
    raise AssertionError(case.kind)


def _library(case: Case):
    """The case through the library (or, for CLI options, through click without the shell)."""
    if case.kind == "run":
        partner = case.partner if case.partner is not None else GOOD_QRELS
        return cranfield.evaluate(partner, cranfield.read_run(str(_path(case))), MEASURES).mean
    if case.kind == "qrels":
        partner = case.partner if case.partner is not None else GOOD_RUN
        return cranfield.evaluate(cranfield.read_qrels(str(_path(case))), partner, MEASURES).mean
    if case.kind == "classify":
        from cranfield.classification.file_report import classify_file as evaluate_file

        args = dict(zip(case.args[::2], case.args[1::2]))
        options = {"truth": args.pop("--truth", "y"), "score": args.pop("--score", "s")}
        if "--positive" in args:
            options["positive"] = args.pop("--positive")
        assert not args
        return evaluate_file(str(_path(case)), **options)
    if case.kind == "zscore":
        from cranfield.retrieval.trec_eval import TrecEvalOptions, trec_eval

        return trec_eval(str(GOOD_QRELS), str(GOOD_RUN), TrecEvalOptions(measures=("P.5",), zscores=str(_path(case))))
    if case.kind == "measure":
        return cranfield.evaluate(GOOD_QRELS, GOOD_RUN, [case.target])
    if case.kind == "call":
        return case.target()
    if case.kind == "cli":
        return cranfield.cli.cli.main(args=_argv(case), prog_name="cranfield", standalone_mode=False)
    raise AssertionError(case.kind)


def _file_name(case: Case) -> str | None:
    if not case.names_file or case.kind not in ("run", "qrels", "classify", "zscore"):
        return None
    return str(_path(case))


@pytest.mark.parametrize("case", CASES, ids=[f"{c.kind}:{c.id}" for c in CASES])
def test_library(case: Case):
    if case.error is None:
        result = _library(case)
        if isinstance(case.expect, float):
            assert result == pytest.approx(case.expect, rel=1e-12)
        elif isinstance(case.expect, tuple):
            expected = cranfield.evaluate(case.expect[0], case.expect[1], MEASURES).mean
            assert result == expected and result["NumRet"] > 0
        else:
            for key, value in case.expect.items():
                assert result[key] == pytest.approx(value), key
        return
    with pytest.raises(Exception) as info:
        _library(case)
    error = info.value
    assert type(error) is case.error, f"{type(error).__name__}: {error}"
    text = str(error)
    assert case.fragment in text
    name = _file_name(case)
    if name is not None:
        where = f"{name}:{case.line}: " if case.line is not None else f"{name}: "
        assert text.startswith(where), text
        assert error.source == name and error.line == case.line
    elif case.line is not None:
        assert error.line == case.line and f":{case.line}: " in text or text.startswith(f"line {case.line}: ")
    if case.field is not None:
        assert error.field == case.field and f"field {case.field}: " in text
    assert "\n" not in text


CLI_CASES = [c for c in CASES if c.kind != "call"]  # library inputs have no command line


@pytest.mark.parametrize("case", CLI_CASES, ids=[f"{c.kind}:{c.id}" for c in CLI_CASES])
def test_command_line(case: Case, capsys):
    status = cranfield.cli.main(_argv(case))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    if case.error is None:
        assert status == 0, err
        assert out.strip()
        return
    assert status == 2
    lines = err.strip("\n").split("\n")
    assert len(lines) == 1, err
    assert lines[0].startswith("cranfield: error: ") and case.fragment in lines[0]
    name = _file_name(case)
    if name is not None:
        assert lines[0].startswith(f"cranfield: error: {name}:")
        if case.line is not None:
            assert f"{name}:{case.line}: " in lines[0]


def test_corpus_size_and_files():
    """≥ 40 cases (issue 9); every corpus file is used by a case, every file case has its file."""
    assert len(CASES) >= 40
    used = {str(c.target) for c in CASES if c.kind in ("run", "qrels", "classify", "zscore")}
    used |= {Path(str(c.partner)).name for c in CASES if isinstance(c.partner, Path)}
    files = {p.name for p in CORPUS.iterdir()}
    assert files - used <= {"good.qrels", "good.run"}, sorted(files - used)
    assert used - files <= {"does_not_exist.run"}


SUBPROCESS_CASES = ["run_score_nan.txt", "qrels_duplicate.txt", "cls_score_text.csv", "zscore_nan.txt",
                    "measure nDCGG@10", "evaluate -o into a missing folder", "run_crlf.txt"]


@pytest.mark.parametrize("case_id", SUBPROCESS_CASES)
def test_real_subprocess(case_id):
    """The installed entry point: exit 2 and one line on stderr, no traceback (0 when accepted)."""
    case = next(c for c in CASES if c.id == case_id)
    done = subprocess.run([sys.executable, "-m", "cranfield", *_argv(case)], capture_output=True, text=True,
                          timeout=120)
    assert "Traceback" not in done.stderr
    if case.error is None:
        assert done.returncode == 0 and done.stdout.strip()
        return
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("cranfield: error: ")
    assert case.fragment in done.stderr


def test_click_usage_errors_exit_2_without_traceback(capsys):
    """Bad option values are reported by click (usage line + one 'Error:' line), exit 2."""
    for argv in (["evaluate", str(GOOD_QRELS), str(GOOD_RUN), "-l", "abc"],
                 ["evaluate", str(GOOD_QRELS), str(GOOD_RUN), "--format", "yaml"],
                 ["classify", str(CORPUS / "cls_ok.parquet"), "--truth", "y", "--score", "s", "--optimize", "luck"],
                 ["nosuchcommand"]):
        with pytest.raises(click.exceptions.UsageError):
            cranfield.cli.cli.main(args=argv, prog_name="cranfield", standalone_mode=False)
        assert cranfield.cli.main(argv) == 2
        err = capsys.readouterr().err
        assert "Traceback" not in err and err.count("Error:") == 1


def test_accepted_variants_really_parse_the_ids():
    """The accepted oddities keep ids exactly (no stray BOM, CR, NBSP split or truncation)."""
    run = cranfield.read_run(CORPUS / "run_bom.txt")
    assert run.query_ids == ["q1", "q2"]
    assert cranfield.read_run(CORPUS / "run_crlf.txt").to_dict() == RUN_DICT
    assert cranfield.read_run(CORPUS / "run_nbsp_inside_id.txt").to_dict() == {"q1": {"d\u00a01": 2.5}}
    assert cranfield.read_run(CORPUS / "run_unicode_ids.txt").to_dict() == UNICODE_RUN
    assert max(map(len, cranfield.read_run(CORPUS / "run_enormous_id.txt").to_dict()["q1"])) == len(BIG_ID)
    assert np.array_equal(cranfield.read_qrels(CORPUS / "qrels_negative_rel.txt").rel, [1, -1, 2])
