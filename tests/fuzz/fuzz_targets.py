"""Fuzz targets: any input gives a result or a CranfieldError, never another exception.

Each target is a hypothesis strategy of hostile inputs and a function that feeds one input to a
parser or reader of cranfield. ``tests/fuzz/test_fuzz.py`` runs each briefly inside the normal
suite; ``scripts/fuzz.py --seconds N`` runs them for a bounded time (the CI job). RuntimeWarnings
raised inside cranfield are errors too (a silent NaN in the making), as in the test suite.
"""

from __future__ import annotations

import gzip
import io
import os
import tempfile
import warnings
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from hypothesis import strategies as st

from cranfield.errors import CranfieldError

__all__ = ["TARGETS", "Target", "check"]


@dataclass(frozen=True)
class Target:
    name: str
    strategy: Any  # hypothesis strategy of one input
    function: Callable[[Any], Any]


def check(target: Target, value: Any) -> None:
    """Run one input: return normally on a result or a CranfieldError; anything else propagates."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warnings.filterwarnings("error", category=RuntimeWarning, module=r"cranfield\..*")
        try:
            target.function(value)
        except CranfieldError as error:
            text = str(error)
            assert text and "\n" not in text, f"error message is not one line: {text!r}"


# ----------------------------------------------------------------------------- byte strategies

_TOKENS = [b"q1", b"q2", b"Q0", b"d1", b"d2", b"0", b"1", b"2", b"-1", b"2.5", b"1e400", b"nan", b"-inf", b"#",
           b"#c", b"tag", b"\xef\xbb\xbf", b"\xff\xfe", b"\x00", b"\x1f", "\u00fc".encode(), "\u00a0".encode(),
           b"0x1A", b"", b"+1", b"-0", b"1.5", b"99999999999999999999", b"\"", b",", b"y", b"s"]
_SEPARATORS = [b" ", b"\t", b"  ", b" \t ", b"\x0b", b"\x0c", b",", "\u00a0".encode()]
_ENDS = [b"\n", b"\r\n", b"\r", b"\n\n"]

token = st.one_of(st.sampled_from(_TOKENS), st.binary(max_size=3))
field_line = st.lists(st.tuples(token, st.sampled_from(_SEPARATORS)), max_size=8).map(
    lambda parts: b"".join(t + s for t, s in parts))


def _run_line(q, d, score, tail):
    return b"q%d Q0 d%d 1 %s tag%s" % (q, d, score, tail)


def _qrels_line(q, d, rel, tail):
    return b"q%d 0 d%d %s%s" % (q, d, rel, tail)


_numbers = st.sampled_from([b"1", b"0", b"2", b"-1", b"2.5", b"0.5", b"1e3", b"nan", b"inf", b"x", b"1e400"])
_tails = st.sampled_from([b"", b" ", b"\t", b" extra"])
run_line = st.one_of(st.builds(_run_line, st.integers(1, 3), st.integers(1, 4), _numbers, _tails), field_line)
qrels_line = st.one_of(st.builds(_qrels_line, st.integers(1, 3), st.integers(1, 4), _numbers, _tails), field_line)


def _file(lines, ends, wrap):
    data = b"".join(line + end for line, end in zip(lines, ends * (len(lines) // max(len(ends), 1) + 1)))
    if wrap == "gzip":
        return gzip.compress(data, mtime=0)
    if wrap == "truncated gzip":
        packed = gzip.compress(data, mtime=0)
        return packed[: len(packed) // 2]
    if wrap == "bom":
        return b"\xef\xbb\xbf" + data
    return data


def files_of(line_strategy):
    return st.builds(_file, st.lists(line_strategy, max_size=12), st.lists(st.sampled_from(_ENDS), min_size=1,
                                                                          max_size=3),
                     st.sampled_from(["plain", "plain", "plain", "gzip", "truncated gzip", "bom"]))


any_bytes = st.one_of(st.binary(max_size=200), files_of(run_line), files_of(qrels_line))

# ----------------------------------------------------------------------------- the targets

_QRELS = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d1": 1}, "q3": {"d4": -1, "d2": 1}}
_RUN = {"q1": {"d1": 1.0, "d2": 2.0}, "q2": {"d3": 0.5}, "q3": {"d2": 1.0, "d4": 1.0}}
_MEASURES = ["AP", "nDCG@10", "P@5", "RR", "Bpref", "RPrec", "ERR@10", "RBP(p=0.8)", "infAP", "NumRet"]


def _read_run(data: bytes):
    import cranfield

    run = cranfield.Run.from_file(io.BytesIO(data))
    return cranfield.evaluate(_QRELS, run, _MEASURES)


def _read_qrels(data: bytes):
    import cranfield

    qrels = cranfield.Qrels.from_file(io.BytesIO(data))
    return cranfield.evaluate(qrels, _RUN, _MEASURES)


def _with_file(data: bytes, suffix: str, function):
    handle, name = tempfile.mkstemp(suffix=suffix, prefix="cranfield-fuzz-")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        return function(name)
    finally:
        os.unlink(name)


def _read_run_file(data: bytes):
    import cranfield

    return _with_file(data, ".run", lambda name: cranfield.evaluate(_QRELS, name, ["AP", "P@5"]))


_ALPHABET = list("APRnDCGpbrefmaxlu@()=,.[]{}:-+0123456789eE_ ") + ["map", "ndcg_cut", "P_", "set_F", "judged_only",
                                                                    "true", "gains", "rel", "iprec_at_recall",
                                                                    "RBP", "ERR", "1e400", "nan", "\u00fc", "\x00",
                                                                    "ndcg", "Rndcg", "gain=exp", "1.5="]
measure_text = st.one_of(st.lists(st.sampled_from(_ALPHABET), max_size=10).map("".join), st.text(max_size=12))


def _measure(text: str):
    import cranfield
    from cranfield.measures.base import parse_measures

    measures = parse_measures(text)
    for measure in measures:
        assert str(measure) and parse_measures(str(measure)) == [measure], measure  # canonical form round-trips
    return cranfield.evaluate(_QRELS, _RUN, measures, collection_size=100)


_CELLS = [b"1", b"0", b"-1", b"0.5", b"0.9", b"", b"nan", b"inf", b"abc", b"true", b"NA", b"\xe9", b"\"", b"1e400",
          "\u00fc".encode(), b"y", b"s"]
csv_line = st.lists(st.sampled_from(_CELLS), min_size=1, max_size=4).map(lambda cells: b",".join(cells))
csv_file = st.one_of(
    st.builds(lambda header, lines, end: header + end + end.join(lines) + end,
              st.sampled_from([b"y,s", b"y,s,p", b"s,y", b"y,y,s", b"y", b"\xef\xbb\xbfy,s", b""]),
              st.lists(csv_line, max_size=10), st.sampled_from([b"\n", b"\r\n"])),
    st.binary(max_size=100))


def _classify(data: bytes):
    from cranfield.classification.file_report import classify_file as evaluate_file

    def run(name):
        evaluate_file(name, truth="y", score="s")
        evaluate_file(name, truth="y", score="s", optimize="f1")
        return evaluate_file(name, truth="y", pred="s")

    return _with_file(data, ".csv", run)


zscore_file = st.builds(lambda lines: b"\n".join(lines), st.lists(st.one_of(
    st.builds(lambda q, m, a, b: b"%s %s %s %s" % (q, m, a, b), st.sampled_from([b"q1", b"q2", b"\xff"]),
              st.sampled_from([b"P_5", b"map", b"x"]), _numbers, _numbers), field_line), max_size=6))


def _zscores(data: bytes):
    from cranfield.retrieval.trec_eval import TrecEvalOptions, trec_eval

    return _with_file(data, ".z", lambda name: trec_eval(_QRELS, _RUN, TrecEvalOptions(measures=("P.5", "map"),
                                                                                         zscores=name, query=True)))


_LABELS = st.one_of(st.integers(-1, 2), st.sampled_from([0.0, 1.0, float("nan"), None, "a", "b", True, False]))
_SCORES = st.one_of(st.floats(allow_nan=True, allow_infinity=True, width=64), st.integers(-3, 3),
                    st.sampled_from([None, "x", 1e308, -1e308, 5e-324]))
arrays = st.tuples(st.lists(_LABELS, max_size=12), st.lists(_SCORES, max_size=12),
                   st.one_of(st.none(), st.lists(st.one_of(st.integers(-1, 3), st.floats(allow_nan=True)),
                                                 max_size=12)))


def _classification(args):
    import cranfield
    from cranfield.classification import measures as registry

    y, s, w = args
    y_true = np.array(y, dtype=object) if any(isinstance(v, str) or v is None for v in y) else np.array(y)
    y_score = np.array(s, dtype=object) if any(v is None or isinstance(v, str) for v in s) else np.array(s)
    results = []
    for name in ("roc_auc", "average_precision", "eer", "precision", "mcc", "brier_score", "log_loss"):
        info = registry.get_measure(name)
        try:
            other = y_score if info.needs != "labels" else y_true[::-1]
            results.append(info.function(y_true, other, sample_weight=w))
        except CranfieldError:
            continue
    cranfield.classification.ConfusionMatrix.from_labels(y_true, y_true[::-1], sample_weight=w)
    return results


_IDS = st.one_of(st.sampled_from(["q1", "d1", "", " ", "q 1", "q1 ", "\u00fc", "#", "\x00"]), st.text(max_size=4),
                 st.integers(-2, 2))
_VALUES = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-3, 3),
                    st.sampled_from(["1", "x", None, True, 1e308]))
nested = st.dictionaries(_IDS, st.one_of(st.dictionaries(_IDS, _VALUES, max_size=4), _VALUES), max_size=4)


def _dicts(mapping):
    import cranfield

    cranfield.evaluate(_QRELS, mapping, _MEASURES)
    return cranfield.evaluate(mapping, _RUN, _MEASURES)


TARGETS: list[Target] = [
    Target("trec_run", any_bytes, _read_run),
    Target("trec_qrels", any_bytes, _read_qrels),
    Target("trec_run_file", files_of(run_line), _read_run_file),
    Target("measure_names", measure_text, _measure),
    Target("classify_csv", csv_file, _classify),
    Target("zscore_file", zscore_file, _zscores),
    Target("classification_arrays", arrays, _classification),
    Target("qrels_run_dicts", nested, _dicts),
]


# ----------------------------------------------------------------------------- long tables (issue 24)
_TABLE_CELLS = [b"1", b"0", b"2", b"-1", b"1.5", b"1e400", b"-1e400", b"nan", b"inf", b"", b"true", b"yes", b"q1",
                b"d1", b"i1", b"w1", b"a b", b"\x00", b"\xff", b"\"", b"\"q,1\"", b"2026-03-02T08:00:33",
                b"2026-03-02T08:00:33+01:00", b"2026-02-30T00:00:00Z", b"9999999999999999999999", "\u00a0".encode()]
_CLICK_HEADERS = [b"impression,query,rank,doc,clicked", b"impression,query,rank,doc,clicked,dwell,timestamp",
                  b"session,query,rank,doc,clicked,variant", b"impression,query,rank,doc,clicked,impression",
                  b"impression,query,rank,doc", b"\xef\xbb\xbfimpression,query,rank,doc,clicked,team", b"", b"\xff\xfe"]
_LABEL_HEADERS = [b"query,document,worker,label", b"query,document,worker,label,extra", b"query,query,worker,label",
                  b"document,worker,label", b"\xef\xbb\xbfquery,document,worker,label", b""]


def _table_file(headers):
    line = st.lists(st.sampled_from(_TABLE_CELLS), min_size=0, max_size=8).map(lambda cells: b",".join(cells))
    return st.one_of(
        st.builds(lambda header, lines, end, wrap: _file([header, *lines], [end], wrap), st.sampled_from(headers),
                  st.lists(line, max_size=10), st.sampled_from(_ENDS),
                  st.sampled_from(["plain", "plain", "plain", "gzip", "truncated gzip", "bom"])),
        st.binary(max_size=200))


def _click_log(data: bytes):
    from cranfield.online import read_click_log
    from cranfield.online.metrics import impression_metrics, summarize

    log = read_click_log(io.BytesIO(data))
    metrics = impression_metrics(log, metrics=("ctr", "ctr@3", "abandonment", "rr", "clicks", "skips", "sat_clicks",
                                               "ttfc"))
    return summarize(metrics)


def _labels(data: bytes):
    from cranfield.io.labels import read_labels

    return read_labels(io.BytesIO(data))


_CLASSIFICATION_HEADERS = [b"y,s", b"s,y", b"y,y,s", b"y", b"\xef\xbb\xbfy,s", b"", b"y,s,extra"]


def _classification_table(data: bytes):
    from cranfield.classification.table import label_column, number_column, read_table

    def run(name):
        table, first = read_table(name)
        return label_column(table, "y", name, first), number_column(table, "s", name, first)

    return _with_file(data, ".csv", run)


def _diversity(data: bytes):
    from cranfield.retrieval.diversity import evaluate_diversity, read_diversity_qrels

    qrels = _with_file(data, ".txt", read_diversity_qrels)
    return evaluate_diversity(qrels, _RUN)


_COVARIATE_HEADERS = [b"user,covariate", b"covariate,user", b"user,covariate,user", b"user", b"\xef\xbb\xbfuser,covariate",
                      b"", b"user,covariate,extra"]
_GROUP_HEADERS = [b"run,group", b"", b"\xef\xbb\xbfrun,group", b"run", b"run,group,extra"]


def _covariates(data: bytes):
    from cranfield.io.clicklog import read_covariate_table

    return read_covariate_table(io.BytesIO(data), unit="user")


def _run_groups(data: bytes):
    from cranfield.io.run_groups import read_run_groups

    return read_run_groups(io.BytesIO(data))


TARGETS += [
    Target("covariate_csv", _table_file(_COVARIATE_HEADERS), _covariates),
    Target("run_groups_csv", _table_file(_GROUP_HEADERS), _run_groups),
    Target("click_log_csv", _table_file(_CLICK_HEADERS), _click_log),
    Target("crowd_labels_csv", _table_file(_LABEL_HEADERS), _labels),
    Target("classification_table", _table_file(_CLASSIFICATION_HEADERS), _classification_table),
    Target("diversity_qrels", any_bytes, _diversity),
]
