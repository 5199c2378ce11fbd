"""Bad-input corpus, classification inputs (issue 19 item 5, issue 13): hostile tables and arrays.

Each case is one input, written to a temporary folder by the test (the shared corpus folder and its
CASES list are left alone). A rejected file asserts the exact error class, a message fragment and
the file, line and field, through the library (``evaluate_file``) and through the command line
(exit 2, one line ``cranfield: error: FILE:LINE: field F: ...``, no traceback); an accepted one
asserts numbers computed independently. Array cases go through the library functions.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from dataclasses import dataclass

import numpy as np
import pytest

import cranfield
from cranfield.classification.file_report import classify_file as evaluate_file
from cranfield.cli import main
from cranfield.errors import InputError, UsageError

BIG = 2**53
Y = [1, 0, 1, 0, 1, 0]
S = [0.1, 0.4, 0.35, 0.8, 0.9, 0.2]
W = np.array([0.2, 0.4, 0.6, 0.2, 0.4, 1.0])


def _csv(*lines: str) -> bytes:
    return ("\n".join(lines) + "\n").encode()


def _parquet(columns: dict) -> bytes:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(pa.table(columns), sink)
    return sink.getvalue().to_pybytes()


@dataclass
class FileCase:
    name: str
    content: object  # bytes, or a callable giving bytes (Parquet needs pyarrow)
    options: dict  # evaluate_file keywords (truth, score, pred, threshold)
    error: type | None = None
    fragment: str = ""
    line: int | None = None
    field: str | None = None
    expect: dict | None = None  # accepted: {json path: value}


FILE_CASES = [
    FileCase("pred_float.csv", _csv("y,s", "1,0.9", "0,0.25"), {"pred": "s"}, InputError,
             "expected a predicted class, found the number 0.9: --pred takes class labels; for scores use --score s",
             2, "s"),
    FileCase("pred_many.csv", _csv("y,p", *[f"{i % 2},{i}" for i in range(1001)]), {"pred": "p"}, InputError,
             "expected at most 1000 predicted classes, found 1001 distinct values; for scores use --score p", None, "p"),
    FileCase("truth_many.csv", _csv("y,s", *[f"{i},{i / 1001}" for i in range(1001)]), {"score": "s",
                                                                                         "positive": "3"},
             InputError, "found 1001 distinct labels; at most 1000 classes are supported", None, "y"),
    FileCase("int_tie.csv", _csv("y,s", f"1,{BIG + 1}", f"0,{BIG}"), {"score": "s"}, InputError,
             f"integer scores beyond 2**53 would tie as float64: {BIG} and {BIG + 1} (line 2)", 3, "s"),
    FileCase("int_tie_beyond_int64.csv", _csv("y,s", "0,1", f"1,{BIG + 1}", f"0,{BIG}", f"1,{2**64}"), {"score": "s"},
             InputError, f"would tie as float64: {BIG} and {BIG + 1} (line 3)", 4, "s"),
    FileCase("int_tie.parquet", lambda: _parquet({"y": [1, 0, 1], "s": [BIG + 1, 5, BIG]}), {"score": "s"},
             InputError, "would tie as float64", 3, "s"),
    FileCase("truth_pred_types.csv", _csv("y,p", "spam,1", "ham,0"), {"pred": "p"}, InputError,
             "expected labels of the same type as y (string, e.g. 'spam'), found 1 (number)", 2, "p"),
    FileCase("truth_null.parquet", lambda: _parquet({"y": [1, 0, None], "s": [0.1, 0.2, 0.3]}), {"score": "s"},
             InputError, "expected a value, found an empty or missing one", 3, "y"),
    FileCase("two_scores.csv", _csv("y,a,b", *[f"{y},{s},{1 - s}" for y, s in zip(Y, S)]), {"score": ["a", "b"]},
             expect={("systems", "a", "roc_auc"): cranfield.roc_auc(Y, S),
                     ("systems", "b", "roc_auc"): cranfield.roc_auc(Y, [1 - s for s in S]),
                     ("systems", "b", "system"): "b"}),
    FileCase("threshold_minus_inf.csv", _csv("y,s", "1,0.9", "0,0.25"), {"score": "s", "threshold": -math.inf},
             expect={("notes",): ["the threshold is -inf (null in JSON): every sample is predicted positive"],
                     ("confusion_matrix", "matrix"): [[0, 1], [0, 1]]}),
    FileCase("int_exact.csv", _csv("y,s", f"1,{2**60 + 512}", f"0,{2**60}", f"1,{2**60 + 256}"), {"score": "s"},
             expect={("roc_auc",): 1.0}),
    FileCase("bool_truth_int_pred.parquet", lambda: _parquet({"y": [True, False, True], "p": [1, 0, 0]}),
             {"pred": "p"}, expect={("confusion_matrix", "matrix"): [[1, 0], [1, 1]]}),
]


def _write(case: FileCase, folder) -> str:
    path = folder / case.name
    path.write_bytes(case.content() if callable(case.content) else case.content)
    return str(path)


def _argv(case: FileCase, path: str) -> list[str]:
    argv = ["classify", path, "--truth", case.options.get("truth", "y")]
    score = case.options.get("score")
    for name in ([score] if isinstance(score, str) else score or []):
        argv += ["--score", name]
    for key in ("pred", "threshold", "positive"):
        if key in case.options:
            argv += [f"--{key}", str(case.options[key])]
    return argv + ["--format", "json"]


@pytest.mark.parametrize("case", FILE_CASES, ids=[c.name for c in FILE_CASES])
def test_file_case_library(case: FileCase, tmp_path):
    path = _write(case, tmp_path)
    options = {"truth": "y", **case.options}
    if case.error is None:
        report = evaluate_file(path, **options)
        for keys, value in case.expect.items():
            found = report
            for key in keys:
                found = found[key]
            assert found == value, keys
        return
    with pytest.raises(Exception) as info:
        evaluate_file(path, **options)
    error = info.value
    assert type(error) is case.error, f"{type(error).__name__}: {error}"
    text = str(error)
    assert case.fragment in text and "\n" not in text
    assert error.source == path and error.line == case.line and error.field == case.field
    where = f"{path}:{case.line}: " if case.line is not None else f"{path}: "
    assert text.startswith(f"{where}field {case.field}: "), text


@pytest.mark.parametrize("case", FILE_CASES, ids=[c.name for c in FILE_CASES])
def test_file_case_command_line(case: FileCase, tmp_path, capsys):
    path = _write(case, tmp_path)
    status = main(_argv(case, path))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    if case.error is None:
        assert status == 0, err
        json.loads(out)
        return
    assert status == 2 and err.count("\n") == 1 and case.fragment in err
    where = f"{path}:{case.line}: " if case.line is not None else f"{path}: "
    assert err.startswith(f"cranfield: error: {where}field {case.field}: "), err


def test_real_subprocess(tmp_path):
    case = next(c for c in FILE_CASES if c.name == "pred_float.csv")
    path = _write(case, tmp_path)
    done = subprocess.run([sys.executable, "-m", "cranfield", *_argv(case, path)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr == f"cranfield: error: {path}:2: field s: {case.fragment}\n"


def _pandas():
    return pytest.importorskip("pandas")


# (id, call, error class or None, message fragment or expected value)
ARRAY_CASES = [
    ("roc_auc weights 1e-200", lambda: cranfield.roc_auc(Y, S, sample_weight=W * 1e-200), None,
     cranfield.roc_auc(Y, S, sample_weight=W)),  # was NaN
    ("roc_auc weights 1e308", lambda: cranfield.roc_auc(Y, S, sample_weight=W * 1e308), None,
     cranfield.roc_auc(Y, S, sample_weight=W)),  # was NaN
    ("eer weights 1e308", lambda: cranfield.equal_error_rate(Y, S, sample_weight=W * 1e308), None,
     cranfield.equal_error_rate(Y, S, sample_weight=W)),  # was 0.0
    ("roc_auc weights 2**-664", lambda: cranfield.roc_auc(Y, S, sample_weight=W * 2.0**-664), None,
     cranfield.roc_auc(Y, S, sample_weight=W)),
    ("eer weights 2**1022", lambda: cranfield.equal_error_rate(Y, S, sample_weight=W * 2.0**1022), None,
     cranfield.equal_error_rate(Y, S, sample_weight=W)),
    ("labels 0, 1, '1'", lambda: cranfield.ConfusionMatrix.from_labels([0, 1, "1"], [0, 1, 1]), InputError,
     "field y_true: expected labels of one type (number, as the first one, 0), found '1' (string) at index 2"),
    ("labels pd.NA", lambda: cranfield.ConfusionMatrix.from_labels(
        _pandas().Series([0, 1, _pandas().NA, 1], dtype=object), [0, 1, 1, 1]), InputError,
     "field y_true: expected a label, found a missing value (<NA>) at index 2"),
    ("labels NaT", lambda: cranfield.roc_auc(_pandas().Series([0, 1, _pandas().NaT, 1], dtype=object),
                                             [0.1, 0.2, 0.3, 0.4]), InputError,
     "field y_true: expected a label, found a missing value (NaT) at index 2"),
    ("labels Int64 NA", lambda: cranfield.average_precision(_pandas().Series([0, 1, None], dtype="Int64"),
                                                            [0.1, 0.2, 0.3]), InputError,
     "field y_true: expected a label, found a missing value (<NA>) at index 2"),
    ("scores 2**53 tie", lambda: cranfield.roc_auc([0, 1], [BIG, BIG + 1]), InputError,
     "field y_score: integer scores beyond 2**53 would tie as float64"),  # was 0.5
    ("weights all 0", lambda: cranfield.ConfusionMatrix.from_labels([0, 1], [0, 1], sample_weight=[0, 0]), InputError,
     "field sample_weight: all sample weights are 0"),
    ("pos_label of another type", lambda: cranfield.roc_auc(["0", "1"], [0.1, 0.2], pos_label=1), UsageError,
     "pos_label=1 (number) is not of the type of the labels in y_true (string, e.g. '0')"),
    ("classify --pred with two --score", lambda: evaluate_file("unused.csv", truth="y", score=["a", "b"], pred="p"),
     UsageError, "--pred gives one system's classes"),
]


@pytest.mark.parametrize("case", ARRAY_CASES, ids=[c[0] for c in ARRAY_CASES])
def test_array_case(case):
    _, call, error, expected = case
    if error is None:
        found = call()
        if "**" in case[0]:  # a power-of-two scale: the same numbers are added, bitwise equal
            assert found == expected
        else:  # 1e-200·w, 1e308·w are rounded inputs (½ ulp per weight): equal to a few ulps
            assert abs(found - expected) <= 4 * math.ulp(expected), (found, expected)
        return
    with pytest.raises(Exception) as info:
        call()
    assert type(info.value) is error and expected in str(info.value) and "\n" not in str(info.value)


def test_corpus_size():
    assert len(FILE_CASES) + len(ARRAY_CASES) >= 20
