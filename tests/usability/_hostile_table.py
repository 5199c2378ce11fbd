"""The table of hostile inputs of tests/usability/test_hostile_inputs.py (issue 24, round 3).

Each row is a :class:`Case`: the files it writes (name -> bytes or text), the command line (or a
library call for the frame paths) and the expected outcome: :func:`refused` (exit 2, one line that
names the file:line and field, or the option as the user typed it) or :func:`accepted` (exit 0 and
a check of the number against an independent reference: scikit-learn, scipy, statsmodels,
krippendorff, exact rationals).
"""

from __future__ import annotations

import gzip
import io
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from scipy import stats
from sklearn import metrics as skm


@dataclass(frozen=True)
class Expect:
    status: int
    fragments: tuple = ()  # each in the one line of the error
    check: Callable[[Any], None] | None = None  # on the JSON output (or the library's result)


def refused(*fragments: str) -> Expect:
    return Expect(2, fragments)


def accepted(check: Callable[[Any], None]) -> Expect:
    return Expect(0, check=check)


@dataclass(frozen=True)
class Case:
    id: str
    argv: tuple | Callable  # a command line, or a library call taking the test's folder
    files: dict = field(default_factory=dict)
    expect: Expect = field(default_factory=lambda: refused())
    env: dict = field(default_factory=dict)
    cause: int = 0  # the root cause of issue 24 the row exercises (0: none in particular)


# --------------------------------------------------------------------------------- click logs

LOG_FIELDS = ["impression", "query", "rank", "doc", "clicked", "dwell", "timestamp", "variant", "user"]
LOG_ROWS = [
    ["i1", "q1", "1", "d1", "1", "40", "100", "A", "u1"],
    ["i1", "q1", "2", "d2", "0", "", "90", "A", "u1"],
    ["i2", "q1", "1", "d1", "0", "", "200", "B", "u2"],
    ["i2", "q1", "2", "d3", "1", "5", "210", "B", "u2"],
    ["i3", "q2", "1", "d1", "1", "31", "300", "A", "u3"],
    ["i3", "q2", "2", "d4", "0", "", "290", "A", "u3"],
    ["i4", "q2", "1", "d2", "0", "", "400", "B", "u4"],
    ["i5", "q1", "1", "d1", "1", "12", "505", "B", "u5"],
    ["i5", "q1", "2", "d2", "0", "", "500", "B", "u5"],
    ["i6", "q3", "1", "d5", "0", "", "600", "A", "u6"],
]


def click_log(rows=None, *, sep: str = ",", fields=LOG_FIELDS, change: tuple | None = None,
              newline: str = "\n") -> str:
    """The log as text; ``change=(row, field, value)`` replaces one cell (row 0 is line 2)."""
    rows = [list(r) for r in (LOG_ROWS if rows is None else rows)]
    if change is not None:
        row, name, value = change
        rows[row][LOG_FIELDS.index(name)] = value
    return newline.join([sep.join(fields), *(sep.join(r) for r in rows)]) + newline


def _rows_of(text_rows=LOG_ROWS):
    return [dict(zip(LOG_FIELDS, r)) for r in text_rows]


def ctr_reference(rows=LOG_ROWS) -> dict:
    """CTR per variant as exact rationals: clicks over results shown."""
    out: dict = {}
    for r in _rows_of(rows):
        clicks, shown = out.get(r["variant"], (0, 0))
        out[r["variant"]] = (clicks + int(r["clicked"]), shown + 1)
    return {v: Fraction(c, n) for v, (c, n) in out.items()}


def check_metric(metric: str, reference: dict) -> Callable:
    def check(document):
        got = {row["group"]: row["estimate"] for row in document["rows"] if row["metric"] == metric}
        assert got == {k: float(v) for k, v in reference.items()}, (got, reference)
    return check


def sat_reference(rows=LOG_ROWS, threshold: float = 30.0) -> dict:
    per: dict = {}
    for r in _rows_of(rows):
        imps, sat = per.setdefault(r["variant"], (set(), [0]))
        imps.add(r["impression"])
        dwell = float(r["dwell"]) if r["dwell"] else math.nan
        sat[0] += int(r["clicked"] == "1" and dwell >= threshold)
    return {v: Fraction(s[0], len(i)) for v, (i, s) in per.items()}


def ttfc_reference(rows=LOG_ROWS) -> dict:
    """Time to first click: earliest click time minus the time shown (rows not clicked), mean per
    variant over the impressions where it is defined; times as integers of seconds."""
    imps: dict = {}
    for r in _rows_of(rows):
        imps.setdefault(r["impression"], []).append(r)
    per: dict = {}
    for rs in imps.values():
        clicks = [int(r["timestamp"]) for r in rs if r["clicked"] == "1"]
        shown = [int(r["timestamp"]) for r in rs if r["clicked"] == "0"]
        if clicks and shown:
            per.setdefault(rs[0]["variant"], []).append(min(clicks) - min(shown))
    return {v: Fraction(sum(x), len(x)) for v, x in per.items()}


def _iso(seconds: str) -> str:
    return pd.Timestamp(int(seconds), unit="s", tz="UTC").isoformat().replace("+00:00", "Z")


def iso_rows(rows=LOG_ROWS, zone: str = "Z"):
    out = []
    for r in rows:
        r = list(r)
        r[6] = _iso(r[6]).replace("Z", zone)
        out.append(r)
    return out


def _gzip_bomb() -> bytes:
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=9) as handle:
        handle.write(click_log().encode())
        handle.write(b"i9,q9,1,d9,0,,1,A,u9\n" * 200_000)  # 4 MB decompressed, 10 KB compressed
    return buffer.getvalue()


def _parquet(columns: dict) -> bytes:
    buffer = io.BytesIO()
    pq.write_table(pa.table(columns), buffer)
    return buffer.getvalue()


def _log_frame(**changes) -> pd.DataFrame:
    frame = pd.DataFrame(LOG_ROWS, columns=LOG_FIELDS)
    frame["rank"] = frame["rank"].astype(int)
    frame["clicked"] = frame["clicked"].astype(int)
    frame["dwell"] = pd.to_numeric(frame["dwell"])
    frame["timestamp"] = pd.to_datetime(frame["timestamp"].astype(int), unit="s")
    for name, (row, value) in changes.items():
        frame.loc[row, name] = value
    return frame


def _metrics(frame_or_path, metric="ctr"):
    from cranfield.online import impression_metrics, read_click_log, summarize

    summary = summarize(impression_metrics(read_click_log(frame_or_path), metrics=[metric]))
    return {row[0]: row[2] for row in summary.rows if row[1] == metric}


def _log_call(make, metric="ctr"):
    return lambda folder: _metrics(make(folder), metric)


def _check_dict(reference: dict) -> Callable:
    def check(got):
        assert got == {k: float(v) for k, v in reference.items()}, (got, reference)
    return check


def click_log_cases() -> list:
    metrics = ("online", "metrics", "c.csv", "-m", "ctr", "-m", "sat_clicks", "-m", "ttfc", "-f", "json")
    cases = [
        Case("log-valid", metrics, {"c.csv": click_log()}, accepted(check_metric("ctr", ctr_reference()))),
        Case("log-valid-ttfc", metrics, {"c.csv": click_log()}, accepted(check_metric("ttfc", ttfc_reference()))),
        Case("log-tsv", ("online", "metrics", "c.tsv", "-m", "ctr", "-f", "json"), {"c.tsv": click_log(sep="\t")},
             accepted(check_metric("ctr", ctr_reference()))),
        Case("log-crlf", metrics, {"c.csv": click_log(newline="\r\n")}, accepted(check_metric("ctr", ctr_reference()))),
        Case("log-gzip", ("online", "metrics", "c.csv", "-m", "ctr", "-f", "json"),
             {"c.csv": gzip.compress(click_log().encode())}, accepted(check_metric("ctr", ctr_reference()))),
        Case("log-dwell-nan-is-unknown", metrics, {"c.csv": click_log(change=(0, "dwell", "nan"))},
             accepted(check_metric("sat_clicks", sat_reference([["i1", "q1", "1", "d1", "1", "", "100", "A", "u1"],
                                                                *LOG_ROWS[1:]]))), cause=1),
        Case("log-iso-8601", metrics, {"c.csv": click_log(iso_rows())},
             accepted(check_metric("ttfc", ttfc_reference())), cause=1),
        Case("log-iso-8601-zone", metrics, {"c.csv": click_log(iso_rows(zone="+01:00"))},
             accepted(check_metric("ttfc", ttfc_reference())), cause=1),
        Case("log-iso-mixed-with-seconds", metrics,
             {"c.csv": click_log(iso_rows()[:3] + LOG_ROWS[3:])}, refused("c.csv:5: field timestamp"), cause=1),
        Case("log-iso-garbage", metrics, {"c.csv": click_log(iso_rows(), change=(2, "timestamp", "2026-13-45T99:00"))},
             refused("c.csv:4: field timestamp"), cause=1),
        Case("log-leading-blank-line", metrics, {"c.csv": "\n" + click_log()}, refused("c.csv:1", "blank", "header"),
             cause=5),
        Case("log-blank-lines-inside", metrics,
             {"c.csv": click_log().replace("\ni2,", "\n\n\ni2,")}, accepted(check_metric("ctr", ctr_reference())),
             cause=5),
        Case("log-ragged-short", metrics, {"c.csv": click_log().replace("i2,q1,1,d1,0,,200,B,u2", "i2,q1,1,d1,0")},
             refused("c.csv:4"), cause=1),
        Case("log-ragged-long", metrics, {"c.csv": click_log(change=(5, "user", "u3,extra"))},
             refused("c.csv:7"), cause=1),
        Case("log-invalid-utf8", metrics, {"c.csv": click_log().encode().replace(b"d3", b"d\xff3")},
             refused("c.csv:5", "UTF-8"), cause=1),
        Case("log-utf16", metrics, {"c.csv": click_log().encode("utf-16")}, refused("c.csv", "UTF-16", "UTF-8"),
             cause=7),
        Case("log-utf16le-no-bom", metrics, {"c.csv": click_log().encode("utf-16-le")}, refused("c.csv", "UTF-16"),
             cause=7),
        Case("log-duplicated-header", metrics, {"c.csv": click_log(fields=[*LOG_FIELDS[:8], "impression"])},
             refused("c.csv:1", "impression"), cause=1),
        Case("log-misspelt-header", metrics, {"c.csv": click_log(fields=[*LOG_FIELDS[:5], "dwel", *LOG_FIELDS[6:]])},
             refused("c.csv: field dwel"), cause=1),
        Case("log-header-only", metrics, {"c.csv": ",".join(LOG_FIELDS) + "\n"}, refused("c.csv", "no rows"), cause=1),
        Case("log-empty-file", metrics, {"c.csv": ""}, refused("c.csv"), cause=1),
        Case("log-bom", metrics, {"c.csv": "\ufeff" + click_log()}, accepted(check_metric("ctr", ctr_reference()))),
        Case("log-control-char-in-doc", metrics, {"c.csv": click_log(change=(1, "doc", "d\x01x"))},
             accepted(check_metric("ctr", ctr_reference())), cause=5),  # an id character, as on every path
        Case("log-nul-in-query", metrics, {"c.csv": click_log(change=(1, "query", "q\x001"))},
             refused("c.csv:3"), cause=5),
        Case("log-directory", ("online", "metrics", "logs", "-f", "json"), {"logs/sub/x.csv": click_log()},
             refused("logs"), cause=7),
        Case("log-dev-zero", ("online", "metrics", "/dev/zero", "-f", "json"), {}, refused("/dev/zero", "CRANFIELD_MAX"),
             env={"CRANFIELD_MAX_LINE_BYTES": "1000000"}, cause=6),
        Case("log-gzip-bomb", ("online", "metrics", "c.csv", "-f", "json"), {"c.csv": _gzip_bomb()},
             refused("c.csv", "CRANFIELD_MAX_INPUT_BYTES"), env={"CRANFIELD_MAX_INPUT_BYTES": "1000000"}, cause=6),
    ]
    for name, row in (("dwell", 0), ("timestamp", 1), ("rank", 1)):
        for value in ("1e400", "inf", "-inf", "nan", "-1e400"):
            if name == "dwell" and value == "nan":
                continue
            cases.append(Case(f"log-{name}-{value}", metrics, {"c.csv": click_log(change=(row, name, value))},
                              refused(f"c.csv:{row + 2}: field {name}"), cause=1))
    for name, value in (("rank", "1.0"), ("rank", "9223372036854775808"), ("rank", "0"), ("clicked", "2"),
                        ("clicked", "nan"), ("dwell", "-1"), ("timestamp", "1e16x")):
        cases.append(Case(f"log-{name}-{value}", metrics, {"c.csv": click_log(change=(3, name, value))},
                          refused(f"c.csv:5: field {name}"), cause=1))
    # Parquet and frames: the same grammar
    frame = _log_frame()
    cases += [
        Case("log-parquet", ("online", "metrics", "c.parquet", "-m", "ctr", "-f", "json"),
             {"c.parquet": _parquet({k: frame[k].to_numpy() for k in frame})},
             accepted(check_metric("ctr", ctr_reference()))),
        Case("log-parquet-inf-dwell", ("online", "metrics", "c.parquet", "-f", "json"),
             {"c.parquet": _parquet({**{k: frame[k].to_numpy() for k in frame},
                                     "dwell": np.array([np.inf, *frame["dwell"][1:]])})},
             refused("c.parquet:1: field dwell"), cause=1),
        Case("log-parquet-nat", ("online", "metrics", "c.parquet", "-f", "json"),
             {"c.parquet": _parquet({**{k: frame[k].to_numpy() for k in frame},
                                     "timestamp": pa.array([*frame["timestamp"][:4], None, *frame["timestamp"][5:]],
                                                           pa.timestamp("ns"))})},
             refused("c.parquet:5: field timestamp"), cause=1),
        Case("log-frame", _log_call(lambda _: _log_frame()), {}, accepted(_check_dict(ctr_reference()))),
        Case("log-frame-nat", _log_call(lambda _: _log_frame(timestamp=(6, pd.NaT))), {},
             refused("DataFrame:7: field timestamp"), cause=1),
        Case("log-frame-inf-dwell", _log_call(lambda _: _log_frame(dwell=(4, np.inf))), {},
             refused("DataFrame:5: field dwell"), cause=1),
        Case("log-frame-header-only", _log_call(lambda _: _log_frame().iloc[:0]), {}, refused("no rows"), cause=1),
        Case("log-polars-frame", _log_call(lambda _: __import__("polars").from_pandas(_log_frame())), {},
             accepted(_check_dict(ctr_reference()))),
    ]
    return cases


# --------------------------------------------------------------------------------- A/B tests

def _unit_ctr(rows=LOG_ROWS) -> dict:
    imps: dict = {}
    for r in _rows_of(rows):
        imps.setdefault((r["variant"], r["impression"]), []).append(int(r["clicked"]))
    out: dict = {}
    for (variant, _), clicks in sorted(imps.items()):
        out.setdefault(variant, []).append(sum(clicks) / len(clicks))
    return out


def _check_ab(reference: Callable) -> Callable:
    def check(document):
        (test,) = document["tests"]
        statistic, p = reference(_unit_ctr())
        assert test["p_value"] == float(p), (test["p_value"], p)
        if statistic is not None:
            assert test["statistic"] == float(statistic), (test["statistic"], statistic)
    return check


def _welch(x):
    result = stats.ttest_ind(x["B"], x["A"], equal_var=False)
    return result.statistic, result.pvalue


def _mann_whitney(x):
    return None, stats.mannwhitneyu(x["B"], x["A"], alternative="two-sided").pvalue


def _check_bootstrap_two(document):
    (test,) = document["tests"]
    assert test["n_resamples"] == 2 and test["p_value"] >= Fraction(2, 3)  # add-one rule: never below 2/(B+1)
    assert test["lift_low"] <= test["lift"] <= test["lift_high"] or test["p_value"] == 1.0


def _check_srm(document):
    observed = document["srm"]["observed"]
    reference = stats.chisquare(observed)
    assert document["srm"]["p_value"] == reference.pvalue and document["srm"]["statistic"] == reference.statistic


def ab_cases() -> list:
    ab = ("online", "ab", "c.csv", "-m", "ctr", "-f", "json")
    log = {"c.csv": click_log()}
    cases = [
        Case("ab-welch", (*ab, "--test", "welch"), log, accepted(_check_ab(_welch))),
        Case("ab-mannwhitney", (*ab, "--test", "mannwhitney"), log, accepted(_check_ab(_mann_whitney))),
        Case("ab-srm", ab, log, accepted(_check_srm)),
        Case("ab-bootstrap-2", (*ab, "--test", "bootstrap", "--resamples", "2"), log, accepted(_check_bootstrap_two),
             cause=4),
        Case("ab-bootstrap-1", (*ab, "--test", "bootstrap", "--resamples", "1"), log, refused("--resamples"), cause=4),
        Case("ab-bootstrap-0", (*ab, "--test", "bootstrap", "--resamples", "0"), log, refused("--resamples"), cause=4),
        Case("ab-bootstrap-float", (*ab, "--test", "bootstrap", "--resamples", "2.5"), log, refused("--resamples"),
             cause=4),
        Case("ab-control-missing", (*ab, "--control", "Z"), log, refused("--control"), cause=4),
        Case("ab-split-missing-variant", (*ab, "--split", "A=0.5,C=0.5"), log, refused("c.csv", "variant"), cause=4),
        Case("ab-quantile-1.5", ("online", "ab", "c.csv", "-m", "ttfc", "--quantile", "1.5"), log,
             refused("--quantile"), cause=4),
        Case("ab-quantile-nan", ("online", "ab", "c.csv", "-m", "ttfc", "--quantile", "nan"), log,
             refused("--quantile"), cause=4),
        Case("ab-min-units-0", (*ab, "--sequential", "--min-units", "0"), log, refused("--min-units"), cause=4),
        Case("ab-covariate-inf", (*ab, "--covariate", "pre.csv", "--test", "welch"),
             {**log, "pre.csv": "impression,covariate\ni1,1\ni2,inf\ni3,2\ni4,1\ni5,0\ni6,1\n"},
             refused("pre.csv:3", "covariate"), cause=1),
        Case("ab-covariate-1e400", (*ab, "--covariate", "pre.csv", "--test", "welch"),
             {**log, "pre.csv": "impression,covariate\ni1,1\ni2,1e400\ni3,2\ni4,1\ni5,0\ni6,1\n"},
             refused("pre.csv:3", "covariate"), cause=1),
        Case("ab-covariate-ragged", (*ab, "--covariate", "pre.csv", "--test", "welch"),
             {**log, "pre.csv": "impression,covariate\ni1,1\ni2\ni3,2\ni4,1\ni5,0\ni6,1\n"},
             refused("pre.csv:3"), cause=1),
        Case("ab-covariate-utf16", (*ab, "--covariate", "pre.csv", "--test", "welch"),
             {**log, "pre.csv": "impression,covariate\ni1,1\n".encode("utf-16")}, refused("pre.csv", "UTF-16"),
             cause=7),
    ]
    for option in ("--alpha", "--srm-alpha"):
        for value in ("nan", "inf", "0", "1", "1e400"):
            cases.append(Case(f"ab{option}-{value}", (*ab, option, value), log, refused(option), cause=4))
    cases.append(Case("ab-split-A=1", (*ab, "--split", "A=1"), log, refused("c.csv:4: field variant", "'B'"), cause=4))
    for value in ("A=nan,B=0.5", "A=inf,B=0.5", "A=1e400,B=1", "A=-1,B=2"):
        cases.append(Case(f"ab-split-{value}", (*ab, "--split", value), log, refused("--split"), cause=4))
    for value in ("0", "-1", "nan", "inf"):
        cases.append(Case(f"ab-tau-{value}", (*ab, "--sequential", "--tau", value), log, refused("--tau"), cause=4))
    return cases


# --------------------------------------------------------------------------------- crowd labels

LABEL_ROWS = [("q1", "d1", "w1", 1), ("q1", "d1", "w2", 2), ("q1", "d1", "w3", 2), ("q1", "d2", "w1", 0),
              ("q1", "d2", "w2", 0), ("q2", "d1", "w1", 3), ("q2", "d1", "w3", 1)]


CONTROL_ROWS = [*LABEL_ROWS[:2], ("q1", "d1", "w\x013", 1)]  # a control character is an id character


def labels_text(rows=LABEL_ROWS, *, header="query,document,worker,label", sep=",") -> str:
    return "\n".join([header, *(sep.join(str(x) for x in r) for r in rows)]) + "\n"


def _qrels_of(text: str) -> dict:
    return {(q, d): int(rel) for q, _, d, rel in (line.split() for line in text.splitlines())}


def _exact_mean_label(rows, ties="lowest") -> dict:
    """The mean label of each pair as an exact rational, rounded to the nearest integer level,
    halves to the lower (ties lowest) or higher level."""
    groups: dict = {}
    for q, d, _, label in rows:
        groups.setdefault((q, d), []).append(int(label))
    out = {}
    for key, labels in groups.items():
        mean = Fraction(sum(labels), len(labels))
        low = math.floor(mean)
        frac = mean - low
        out[key] = low + (frac > Fraction(1, 2) or (frac == Fraction(1, 2) and ties == "highest"))
    return out


def _majority(rows) -> dict:
    groups: dict = {}
    for q, d, _, label in rows:
        groups.setdefault((q, d), []).append(int(label))
    out = {}
    for key, labels in groups.items():
        counts = {x: labels.count(x) for x in labels}
        top = max(counts.values())
        out[key] = min(x for x, c in counts.items() if c == top)
    return out


def _check_qrels(reference: dict) -> Callable:
    def check(text):
        assert _qrels_of(text) == reference, (text, reference)
    return check


def label_cases() -> list:
    agg = ("aggregate-labels", "l.csv", "-o", "-")
    big = [("q1", "d1", "w1", 2**63 - 1), ("q1", "d1", "w2", 2**63 - 2), ("q1", "d2", "w1", -(2**63)),
           ("q1", "d2", "w2", -(2**63) + 1), ("q1", "d2", "w3", -(2**63) + 1)]
    near53 = [("q1", "d1", "w1", 2**53 + 1), ("q1", "d1", "w2", 2**53 + 1), ("q1", "d1", "w3", 2**53 + 3),
              ("q2", "d1", "w1", 2**53 + 1), ("q2", "d1", "w2", 2**53 + 2)]
    cases = [
        Case("labels-majority", agg, {"l.csv": labels_text()}, accepted(_check_qrels(_majority(LABEL_ROWS)))),
        Case("labels-mean", (*agg, "--method", "mean"), {"l.csv": labels_text()},
             accepted(_check_qrels(_exact_mean_label(LABEL_ROWS)))),
        Case("labels-mean-near-2**63", (*agg, "--method", "mean"), {"l.csv": labels_text(big)},
             accepted(_check_qrels(_exact_mean_label(big))), cause=2),
        Case("labels-mean-near-2**63-highest", (*agg, "--method", "mean", "--ties", "highest"),
             {"l.csv": labels_text(big)}, accepted(_check_qrels(_exact_mean_label(big, "highest"))), cause=2),
        Case("labels-mean-2**53+1", (*agg, "--method", "mean"), {"l.csv": labels_text(near53)},
             accepted(_check_qrels(_exact_mean_label(near53))), cause=2),
        Case("labels-majority-2**53+1", agg, {"l.csv": labels_text(near53)},
             accepted(_check_qrels(_majority(near53))), cause=2),
        Case("labels-tsv", ("aggregate-labels", "l.tsv", "-o", "-"), {"l.tsv": labels_text(sep="\t").replace(",", "\t")},
             accepted(_check_qrels(_majority(LABEL_ROWS)))),
        Case("labels-2**63", agg, {"l.csv": labels_text([("q1", "d1", "w1", 2**63)])}, refused("l.csv:2", "label"),
             cause=2),
        Case("labels-ragged", agg, {"l.csv": labels_text() + "q3,d1,w1\n"}, refused("l.csv:9"), cause=1),
        Case("labels-invalid-utf8", agg, {"l.csv": labels_text().encode().replace(b"w3", b"w\xfe3")},
             refused("l.csv:4", "UTF-8"), cause=1),
        Case("labels-utf16", agg, {"l.csv": labels_text().encode("utf-16")}, refused("l.csv", "UTF-16"), cause=7),
        Case("labels-duplicated-header", agg, {"l.csv": labels_text(header="query,document,worker,query")},
             refused("l.csv:1", "query"), cause=1),
        Case("labels-header-only", agg, {"l.csv": "query,document,worker,label\n"}, refused("l.csv"), cause=1),
        Case("labels-twice-by-a-worker", agg, {"l.csv": labels_text([*LABEL_ROWS, ("q1", "d1", "w1", 2)])},
             refused("l.csv:9", "w1"), cause=0),
        Case("labels-control-char-worker", agg, {"l.csv": labels_text(CONTROL_ROWS)},
             accepted(_check_qrels(_majority(CONTROL_ROWS))), cause=5),
        Case("labels-missing-column", (*agg, "--columns", "label=grade"), {"l.csv": labels_text()},
             refused("grade"), cause=4),
        Case("labels-max-iter-0", (*agg, "--method", "dawid-skene", "--max-iter", "0"), {"l.csv": labels_text()},
             refused("--max-iter"), cause=4),
        Case("labels-delimiter-2-chars", (*agg, "--delimiter", "ab"), {"l.csv": labels_text()},
             refused("--delimiter"), cause=4),
    ]
    for value in ("1e400", "inf", "nan", "1.5", "-inf", "0x10"):
        cases.append(Case(f"labels-label-{value}", agg, {"l.csv": labels_text([*LABEL_ROWS[:3], ("q1", "d2", "w1",
                                                                                                 value)])},
                          refused("l.csv:5", "label"), cause=1))
    for value in ("nan", "inf", "-1"):
        cases.append(Case(f"labels-tol-{value}", (*agg, "--method", "dawid-skene", "--tol", value),
                          {"l.csv": labels_text()}, refused("--tol"), cause=4))
    return cases


# --------------------------------------------------------------------------------- agreement

QRELS_A = "1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n2 0 d1 2\n2 0 d3 1\n2 0 d4 0\n3 0 d1 0\n3 0 d2 1\n"
QRELS_B = "1 0 d1 1\n1 0 d2 1\n1 0 d3 2\n2 0 d1 2\n2 0 d3 0\n2 0 d4 0\n3 0 d1 0\n3 0 d2 2\n"
QRELS_C = "1 0 d1 0\n1 0 d2 1\n1 0 d3 2\n2 0 d1 1\n2 0 d3 0\n2 0 d4 0\n3 0 d1 0\n3 0 d2 2\n"


def _labels_of(text):
    return [int(line.split()[3]) for line in text.splitlines()]


def _figure(document, statistic, sets=None):
    for figure in document["figures"]:
        if figure["statistic"] == statistic:
            return figure["overall"]
    raise AssertionError(f"no {statistic} in {[f['statistic'] for f in document['figures']]}")


def _check_agreement(statistic, reference) -> Callable:
    def check(document):
        assert _figure(document, statistic) == reference, (_figure(document, statistic), reference)
    return check


def _krippendorff(level, *texts):
    import krippendorff

    return krippendorff.alpha(reliability_data=[_labels_of(t) for t in texts], level_of_measurement=level)


def _fleiss(*texts) -> float:
    """Fleiss' kappa as an exact rational (statsmodels' fleiss_kappa gives the same formula in
    floats, 2 ulp away on this table), rounded once."""
    rows = list(zip(*(_labels_of(t) for t in texts)))
    categories, raters = sorted({x for r in rows for x in r}), len(texts)
    agreement = sum(Fraction(sum(r.count(c) * (r.count(c) - 1) for c in categories), raters * (raters - 1))
                    for r in rows) / len(rows)
    chance = sum(Fraction(sum(r.count(c) for r in rows), len(rows) * raters) ** 2 for c in categories)
    return float((agreement - chance) / (1 - chance))


# runs whose AP means are equal as rationals (x: 1 + 1/2 + 1/6, y: 1 + 1/3 + 1/3, both 5/9) but
# whose float sums differ in the last bit; z below them; one relevant document 'r' per query
def _run(tag: str, ranks) -> str:
    lines = []
    for q, rank in enumerate(ranks, 1):
        docs = [f"n{i}" for i in range(1, 7)]
        docs.insert(rank - 1, "r")
        lines += [f"{q} Q0 {d} {i} {10 - i} {tag}" for i, d in enumerate(docs[:6], 1)]
    return "\n".join(lines) + "\n"


QRELS_TIE = "1 0 r 1\n2 0 r 1\n3 0 r 1\n"
QRELS_TIE2 = "1 0 r 1\n2 0 r 1\n2 0 n1 1\n3 0 r 1\n3 0 n5 1\n"
RUN_X, RUN_Y, RUN_Z = _run("x", (1, 2, 6)), _run("y", (1, 3, 3)), _run("z", (2, 2, 2))


def _exact_ranks(qrels: str) -> list:
    """Competition ranks (1 = best) of x, y, z by their exact AP means."""
    means = [_ap(qrels, run) for run in (RUN_X, RUN_Y, RUN_Z)]
    return [1 + sum(m > mine for m in means) for mine in means]


def _ap(qrels: str, run: str) -> Fraction:
    relevant: dict = {}
    for q, _, d, rel in (line.split() for line in qrels.splitlines()):
        if int(rel) >= 1:
            relevant.setdefault(q, set()).add(d)
    ranked: dict = {}
    for q, _, d, _, score, _ in (line.split() for line in run.splitlines()):
        ranked.setdefault(q, []).append((-float(score), d))
    total = Fraction(0)
    for q, judged in relevant.items():
        hits, ap = 0, Fraction(0)
        for i, (_, d) in enumerate(sorted(ranked.get(q, [])), 1):
            if d in judged:
                hits += 1
                ap += Fraction(hits, i)
        total += ap / len(judged)
    return total / len(relevant)


def _check_tied_ranks(document):
    ranking = document["rankings"]
    assert ranking["runs"] == ["x", "y", "z"]
    first, second = _exact_ranks(QRELS_TIE), _exact_ranks(QRELS_TIE2)
    assert first[0] == first[1]  # the tie the floats do not see
    assert len(set(second)) == 3
    pairs = [(i, j) for i in range(3) for j in range(i + 1, 3)]
    score = sum((first[i] - first[j]) * (second[i] - second[j]) for i, j in pairs)
    concordance = sum(int(math.copysign(1, (first[i] - first[j]) * (second[i] - second[j])))
                      for i, j in pairs if (first[i] - first[j]) * (second[i] - second[j]) != 0)
    untied = sum(first[i] != first[j] for i, j in pairs)
    reference = concordance / math.sqrt(untied * len(pairs))  # tau-b: (C - D) / sqrt((n0 - n1) n0)
    assert score != 0 and math.isclose(ranking["kendall_tau"][0][1], reference, rel_tol=1e-15), \
        (ranking["kendall_tau"], reference)  # a tolerance for the one irrational square root only


def agreement_cases() -> list:
    two = ("agreement", "a.qrels", "b.qrels", "--resamples", "0", "-f", "json")
    files = {"a.qrels": QRELS_A, "b.qrels": QRELS_B}
    cases = [
        Case("agreement-cohen", two, files, accepted(_check_agreement(
            "cohen_kappa", skm.cohen_kappa_score(_labels_of(QRELS_A), _labels_of(QRELS_B))))),
        Case("agreement-cohen-quadratic", two, files, accepted(_check_agreement(
            "cohen_kappa_quadratic", skm.cohen_kappa_score(_labels_of(QRELS_A), _labels_of(QRELS_B),
                                                           weights="quadratic")))),
        Case("agreement-krippendorff-ordinal", two, files,
             accepted(_check_agreement("krippendorff_alpha_ordinal", _krippendorff("ordinal", QRELS_A, QRELS_B)))),
        Case("agreement-fleiss-3", ("agreement", "a.qrels", "b.qrels", "c.qrels", "--resamples", "0", "-f", "json"),
             {**files, "c.qrels": QRELS_C},
             accepted(_check_agreement("fleiss_kappa", _fleiss(QRELS_A, QRELS_B, QRELS_C)))),
        Case("agreement-runs-tied-rationals",
             ("agreement", "t.qrels", "t2.qrels", "--runs", "x.run", "--runs", "y.run", "--runs", "z.run",
              "--resamples", "0", "--missing", "keep", "-f", "json"),
             {"t.qrels": QRELS_TIE, "t2.qrels": QRELS_TIE2, "x.run": RUN_X, "y.run": RUN_Y, "z.run": RUN_Z},
             accepted(_check_tied_ranks), cause=2),
        Case("agreement-one-query-bootstrap", ("agreement", "a1.qrels", "b1.qrels"),
             {"a1.qrels": "1 0 d1 1\n1 0 d2 0\n", "b1.qrels": "1 0 d1 0\n1 0 d2 1\n"}, refused("--resamples"),
             cause=4),
        Case("agreement-resamples-1", (*two[:3], "--resamples", "1"), files, refused("--resamples"), cause=4),
        Case("agreement-confidence-nan", (*two, "--confidence", "nan"), files, refused("--confidence"), cause=4),
        Case("agreement-confidence-1", (*two, "--confidence", "1"), files, refused("--confidence"), cause=4),
        Case("agreement-level-float", (*two, "-l", "1.5"), files, refused("-l"), cause=4),
        Case("agreement-utf16", two, {**files, "b.qrels": QRELS_B.encode("utf-16")}, refused("b.qrels", "UTF-16"),
             cause=7),
        Case("agreement-directory", ("agreement", "a.qrels", "dir", "--resamples", "0"),
             {**files, "dir/sub/x.qrels": QRELS_B}, refused("dir"), cause=7),
        Case("agreement-run-as-qrels", two, {**files, "b.qrels": RUN_X}, refused("b.qrels:1", "swapped"), cause=7),
        Case("agreement-control-char", two, {**files, "b.qrels": QRELS_B.replace("1 0 d2 1", "1 0 d\x012 1")},
             accepted(_check_agreement("cohen_kappa", skm.cohen_kappa_score(
                 [x for i, x in enumerate(_labels_of(QRELS_A)) if i != 1],
                 [x for i, x in enumerate(_labels_of(QRELS_B)) if i != 1]))), cause=5),
        Case("agreement-invalid-utf8", two, {**files, "b.qrels": QRELS_B.encode().replace(b"d4", b"d\xff")},
             refused("b.qrels:6", "UTF-8"), cause=7),
    ]
    for value in ("1e400", "inf", "nan", "1.5"):
        cases.append(Case(f"agreement-rel-{value}", two, {**files, "b.qrels": QRELS_B.replace("2 0 d3 0", f"2 0 d3 {value}")},
                          refused("b.qrels:5"), cause=1))
    return cases


# --------------------------------------------------------------------------------- reusability

def _check_reusability_ties(document):
    rows = [r for r in document["runs"] if r["measure"] == "AP"]
    assert [r["run"] for r in rows] == ["x", "y", "z"]
    assert [r["rank"] for r in rows] == _exact_ranks(QRELS_TIE), rows  # x and y tie: both rank 1


def reusability_cases() -> list:
    base = ("reusability", "t.qrels", "x.run", "y.run", "z.run", "-f", "json")
    files = {"t.qrels": QRELS_TIE, "x.run": RUN_X, "y.run": RUN_Y, "z.run": RUN_Z}
    cases = [
        Case("reusability-tied-rationals", base, files, accepted(_check_reusability_ties), cause=2),
        Case("reusability-run-directory", ("reusability", "t.qrels", "x.run", "runs"),
             {**files, "runs/sub/a.run": RUN_Y}, refused("runs"), cause=7),
        Case("reusability-swapped", ("reusability", "x.run", "t.qrels", "y.run"), files,
             refused("t.qrels:1", "swapped"), cause=7),
        Case("reusability-gain-key-fraction", (*base, "-m", "nDCG(gains={1.5:3})"), files,
             refused("gains={1.5:3}"), cause=4),
        Case("reusability-trec-gain-fraction", (*base, "-m", "ndcg.1.5=3"), files, refused("ndcg.1.5=3"), cause=4),
        Case("reusability-groups-ragged", (*base, "--groups", "g.csv"), {**files, "g.csv": "x,A\ny\nz,B\n"},
             refused("g.csv:2"), cause=1),
        Case("reusability-groups-lone-cr", (*base, "--groups", "g.csv"), {**files, "g.csv": "x,A\ny\r\r,A\nz,B\n"},
             refused("g.csv:2", "carriage return"), cause=7),  # found by scripts/fuzz.py (run_groups_csv)
        Case("reusability-groups-utf16", (*base, "--groups", "g.csv"),
             {**files, "g.csv": "x,A\ny,A\nz,B\n".encode("utf-16")}, refused("g.csv", "UTF-16"), cause=7),
    ]
    for option, value in (("--depth", "0"), ("--depth", "-1"), ("--depth", "1.5"), ("-l", "nan"),
                          ("--prefix-length", "0")):
        extra = ("--group-by", "prefix") if option == "--prefix-length" else ()
        cases.append(Case(f"reusability{option}-{value}", (*base, *extra, option, value), files, refused(option),
                          cause=4))
    return cases


# --------------------------------------------------------------------------------- tables

def table_text(columns: dict, *, sep=",") -> str:
    names = list(columns)
    rows = zip(*(columns[n] for n in names))
    return "\n".join([sep.join(names), *(sep.join(str(x) for x in r) for r in rows)]) + "\n"


CLUSTER = {"y": ["a", "a", "a", "b", "b", "b", "c", "c"], "k": [1, 1, 2, 2, 2, 3, 3, 3],
           "x1": [0.1, 0.3, 1.9, 2.2, 2.1, 5.0, 5.2, 4.9], "x2": [1.0, 1.2, 0.8, 3.1, 2.9, 0.2, 0.1, 0.4]}


def _scaled(columns, factor: float) -> dict:
    return {**columns, "x1": [repr(x * factor) for x in columns["x1"]], "x2": [repr(x * factor) for x in columns["x2"]]}


def _check_clustering(document):
    x = np.column_stack([CLUSTER["x1"], CLUSTER["x2"]])
    assert document["external"]["adjusted_rand"] == skm.adjusted_rand_score(CLUSTER["y"], CLUSTER["k"])
    assert document["external"]["v_measure"] == skm.v_measure_score(CLUSTER["y"], CLUSTER["k"])
    assert document["internal"]["silhouette"] == skm.silhouette_score(x, CLUSTER["k"])
    assert document["internal"]["calinski_harabasz"] == skm.calinski_harabasz_score(x, CLUSTER["k"])


def _check_clustering_scale_free(document):
    """At 2^±600 the value equals scikit-learn's at scale 1 (to the last bits of the rescaling)."""
    x = np.column_stack([CLUSTER["x1"], CLUSTER["x2"]])
    for name, function in (("silhouette", skm.silhouette_score), ("davies_bouldin", skm.davies_bouldin_score),
                           ("calinski_harabasz", skm.calinski_harabasz_score)):
        # a documented float reordering: the scaled sums round differently (relative 1e-12)
        assert math.isclose(document["internal"][name], function(x, CLUSTER["k"]), rel_tol=1e-12), name


REGRESSION = {"y": [3.0, -0.5, 2.0, 7.0, 4.25], "p": [2.5, 0.0, 2.0, 8.0, 4.0]}


def _check_regression(factor=1.0):
    def check(document):
        y, p = np.array(REGRESSION["y"]), np.array(REGRESSION["p"])
        m = document["measures"]
        assert m["r2"] == skm.r2_score(y, p) or (factor != 1 and math.isclose(m["r2"], skm.r2_score(y, p),
                                                                                rel_tol=1e-12)), m["r2"]
        assert math.isclose(m["explained_variance"], skm.explained_variance_score(y, p), rel_tol=1e-12)
        # the errors scale by the factor (a power of two: exact), their squares by its square
        assert m["mae"] == skm.mean_absolute_error(y, p) * factor and m["max_error"] == skm.max_error(y, p) * factor
        assert m["rmse"] == skm.root_mean_squared_error(y, p) * factor
        if factor > 1:  # the MSE itself is beyond the float64 range: said, not printed as inf or 0
            assert m["mse"] is None and "mse is beyond the float64 range: left out" in document["notes"]
        else:
            assert m["mse"] == skm.mean_squared_error(y, p) * factor * factor
    return check


CALIBRATION = {"y": [1, 0, 1, 0, 1, 0, 1, 1], "s": [0.9, 0.2, 0.7, 0.4, 0.3, 0.6, 0.8, 0.55]}


def _check_calibration(document):
    m = document["measures"]
    assert m["brier"] == skm.brier_score_loss(CALIBRATION["y"], CALIBRATION["s"])
    # ECE with 10 equal-width bins closed on the right (scikit-learn's calibration_curve: 0.6 is
    # in (0.5, 0.6]), as exact rationals of the decimal scores
    y = CALIBRATION["y"]
    s = [Fraction(str(v)) for v in CALIBRATION["s"]]
    bins: dict = {}
    for label, score in zip(y, s):
        bins.setdefault(max(math.ceil(score * 10) - 1, 0), []).append((label, score))
    ece = sum(abs(sum(Fraction(lab) for lab, _ in b) - sum(sc for _, sc in b)) for b in bins.values()) / len(y)
    assert math.isclose(m["ece"], float(ece), rel_tol=1e-15), (m["ece"], float(ece))


CLASSIFY = {"y": [1, 0, 1, 0, 1, 0, 1, 1, 0], "s": [0.9, 0.2, 0.7, 0.4, 0.3, 0.6, 0.8, 0.6, 0.6]}


def _check_classify(document):
    assert document["roc_auc"] == skm.roc_auc_score(CLASSIFY["y"], CLASSIFY["s"])
    assert document["average_precision"] == skm.average_precision_score(CLASSIFY["y"], CLASSIFY["s"])


def _check_big_labels(labels, positive):
    def check(document):
        assert document["confusion_matrix"]["positive"] == positive, document["confusion_matrix"]
        y = [int(v == positive) for v in labels]
        assert document["roc_auc"] == skm.roc_auc_score(y, CLASSIFY["s"])
    return check


def table_cases() -> list:
    cl = ("clustering", "t.csv", "--truth", "y", "--pred", "k", "--features", "x1,x2", "-f", "json")
    rg = ("regression", "r.csv", "--truth", "y", "--pred", "p", "-f", "json")
    ca = ("calibration", "c.csv", "--truth", "y", "--score", "s", "-f", "json")
    cf = ("classify", "f.csv", "--truth", "y", "--score", "s", "-f", "json")
    big = [2**63 - 1, 2**63 - 2] * 4 + [2**63 - 1]
    near53 = [2**53 + 1, 2**53] * 4 + [2**53 + 1]
    cases = [
        Case("clustering-sklearn", cl, {"t.csv": table_text(CLUSTER)}, accepted(_check_clustering)),
        Case("clustering-2**600", cl, {"t.csv": table_text(_scaled(CLUSTER, 2.0**600))},
             accepted(_check_clustering_scale_free), cause=3),
        Case("clustering-2**-600", cl, {"t.csv": table_text(_scaled(CLUSTER, 2.0**-600))},
             accepted(_check_clustering_scale_free), cause=3),
        Case("clustering-missing-feature", (*cl[:7], "x1,x3", "-f", "json"), {"t.csv": table_text(CLUSTER)},
             refused("x3"), cause=4),
        Case("clustering-ragged", cl, {"t.csv": table_text(CLUSTER) + "a,1,0.5\n"}, refused("t.csv:10"), cause=1),
        Case("clustering-duplicated-header", cl, {"t.csv": table_text(CLUSTER).replace("x2", "x1", 1)},
             refused("t.csv: field x1", "2 times"), cause=1),
        Case("clustering-header-only", cl, {"t.csv": "y,k,x1,x2\n"}, refused("t.csv"), cause=1),
        Case("clustering-utf16", cl, {"t.csv": table_text(CLUSTER).encode("utf-16")}, refused("t.csv", "UTF-16"),
             cause=7),
        Case("regression-sklearn", rg, {"r.csv": table_text(REGRESSION)}, accepted(_check_regression())),
        Case("regression-2**600", rg, {"r.csv": table_text({k: [repr(v * 2.0**600) for v in x]
                                                            for k, x in REGRESSION.items()})},
             accepted(_check_regression(2.0**600)), cause=3),
        Case("regression-2**-600", rg, {"r.csv": table_text({k: [repr(v * 2.0**-600) for v in x]
                                                             for k, x in REGRESSION.items()})},
             accepted(_check_regression(2.0**-600)), cause=3),
        Case("regression-missing-pred", ("regression", "r.csv", "--truth", "y", "--pred", "q"),
             {"r.csv": table_text(REGRESSION)}, refused("q"), cause=4),
        Case("regression-invalid-utf8", rg, {"r.csv": table_text(REGRESSION).encode().replace(b"7.0", b"7\xff")},
             refused("r.csv:5"), cause=1),
        Case("calibration-sklearn", ca, {"c.csv": table_text(CALIBRATION)}, accepted(_check_calibration)),
        Case("calibration-bootstrap-1", (*ca, "--bootstrap", "1"), {"c.csv": table_text(CALIBRATION)},
             refused("--bootstrap"), cause=4),
        Case("calibration-score-1.5", ca, {"c.csv": table_text({**CALIBRATION, "s": [1.5, *CALIBRATION["s"][1:]]})},
             refused("c.csv:2", "s"), cause=1),
        Case("calibration-three-classes", ca,
             {"c.csv": table_text({**CALIBRATION, "y": [2, *CALIBRATION["y"][1:]]})}, refused("--positive"), cause=1),
        Case("classify-sklearn", cf, {"f.csv": table_text(CLASSIFY)}, accepted(_check_classify)),
        Case("classify-parquet", ("classify", "f.parquet", "--truth", "y", "--score", "s", "-f", "json"),
             {"f.parquet": _parquet({k: np.array(v) for k, v in CLASSIFY.items()})}, accepted(_check_classify)),
        Case("classify-labels-near-2**63", (*cf, "--positive", str(2**63 - 1)),
             {"f.csv": table_text({"y": big, "s": CLASSIFY["s"]})}, accepted(_check_big_labels(big, 2**63 - 1)),
             cause=2),
        Case("classify-labels-2**53+1", (*cf, "--positive", str(2**53 + 1)),
             {"f.csv": table_text({"y": near53, "s": CLASSIFY["s"]})}, accepted(_check_big_labels(near53, 2**53 + 1)),
             cause=2),
        Case("classify-ragged", cf, {"f.csv": table_text(CLASSIFY).replace("0,0.2", "0")}, refused("f.csv:3"),
             cause=1),
        Case("classify-duplicated-header", cf, {"f.csv": table_text(CLASSIFY).replace("y,s", "y,y")},
             refused("f.csv: field y", "2 times"), cause=1),
        Case("classify-header-only", cf, {"f.csv": "y,s\n"}, refused("f.csv"), cause=1),
        Case("classify-utf16", cf, {"f.csv": table_text(CLASSIFY).encode("utf-16")}, refused("f.csv", "UTF-16"),
             cause=7),
        Case("classify-invalid-utf8", cf, {"f.csv": table_text(CLASSIFY).encode().replace(b"0.3", b"0.\xff")},
             refused("f.csv:6"), cause=1),
        Case("classify-parquet-nan", ("classify", "f.parquet", "--truth", "y", "--score", "s", "-f", "json"),
             {"f.parquet": _parquet({"y": np.array(CLASSIFY["y"]), "s": np.array([np.nan, *CLASSIFY["s"][1:]])})},
             refused("f.parquet", "s"), cause=1),
        Case("classify-directory", ("classify", "dir", "--truth", "y", "--score", "s"),
             {"dir/sub/f.csv": table_text(CLASSIFY)}, refused("dir"), cause=7),
    ]
    for value in ("1e400", "-1e400", "nan"):
        cases += [
            Case(f"clustering-feature-{value}", cl, {"t.csv": table_text({**CLUSTER, "x2": [value, *CLUSTER["x2"][1:]]})},
                 refused("t.csv:2", "x2"), cause=1),
            Case(f"regression-truth-{value}", rg, {"r.csv": table_text({**REGRESSION, "y": [*REGRESSION["y"][:2], value,
                                                                                           *REGRESSION["y"][3:]]})},
                 refused("r.csv:4", "y"), cause=1),
            Case(f"calibration-score-{value}", ca, {"c.csv": table_text({**CALIBRATION, "s": [value,
                                                                                            *CALIBRATION["s"][1:]]})},
                 refused("c.csv:2", "s"), cause=1),
            Case(f"classify-score-{value}", cf, {"f.csv": table_text({**CLASSIFY, "s": [*CLASSIFY["s"][:3], value,
                                                                                         *CLASSIFY["s"][4:]]})},
                 refused("f.csv:5", "s"), cause=1),
        ]
    for value in ("inf", "-inf"):
        cases += [
            Case(f"regression-pred-{value}", rg, {"r.csv": table_text({**REGRESSION, "p": [value, *REGRESSION["p"][1:]]})},
                 refused("r.csv:2", "p"), cause=1),
            Case(f"clustering-feature-{value}", cl, {"t.csv": table_text({**CLUSTER, "x1": [value, *CLUSTER["x1"][1:]]})},
                 refused("t.csv:2", "x1"), cause=1),
        ]
    for value in ("nan", "inf", "-inf", "0", "0.5", "1e400"):
        cases.append(Case(f"calibration-clip-{value}", (*ca, "--clip", value), {"c.csv": table_text(CALIBRATION)},
                          refused("--clip"), cause=4))
    for option, value in (("--threshold", "nan"), ("--cost-fn", "inf"), ("--cost-fp", "nan"), ("--cost-fn", "-1")):
        cases.append(Case(f"classify{option}-{value}", (*cf, option, value, *(("--optimize", "cost")
                                                                             if "cost" in option else ())),
                          {"f.csv": table_text(CLASSIFY)}, refused(option), cause=4))
    return cases


# --------------------------------------------------------------------------------- measure grammar

def _check_ndcg(gains) -> Callable:
    """nDCG of one query from its ranked gains, by the definition (log2 discounts)."""
    def check(text):
        dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains))
        ideal = sum(g / math.log2(i + 2) for i, g in enumerate(sorted(gains, reverse=True)))
        assert float(text.splitlines()[1].split(",")[-1]) == dcg / ideal, (text, dcg / ideal)
    return check


def measure_cases() -> list:
    ev = ("evaluate", "t.qrels", "x.run", "-f", "json")
    files = {"t.qrels": QRELS_TIE, "x.run": RUN_X}
    high = {"h.qrels": "1 0 d1 1100\n1 0 d2 3\n", "x.run": RUN_X}
    cases = [
        Case("measure-trec-gain-fraction", (*ev, "-m", "ndcg.1.5=3"), files, refused("ndcg.1.5=3"), cause=4),
        Case("measure-gain-key-fraction", (*ev, "-m", "nDCG(gains={1.5:3})"), files, refused("gains={1.5:3}"),
             cause=4),
        Case("measure-gain-exp-level-1100", ("evaluate", "h.qrels", "x.run", "-f", "json", "-m", "nDCG(gain=exp)"),
             high, refused("1100"), cause=3),
        Case("measure-gain-exp-level-1100-mapped",
             ("evaluate", "h.qrels", "g.run", "-f", "csv", "-m", "nDCG(gain=exp,gains={1100:5})"),
             {"h.qrels": "1 0 d1 1100\n1 0 d2 3\n", "g.run": "1 Q0 d3 1 3 x\n1 Q0 d1 2 2 x\n1 Q0 d2 3 1 x\n"},
             accepted(_check_ndcg([0, 5, 7])), cause=3),
        Case("measure-gain-exp-level-512",
             ("evaluate", "h.qrels", "g.run", "-f", "csv", "-m", "nDCG(gain=exp)"),
             {"h.qrels": "1 0 d1 512\n1 0 d2 3\n", "g.run": "1 Q0 d3 1 3 x\n1 Q0 d1 2 2 x\n1 Q0 d2 3 1 x\n"},
             accepted(_check_ndcg([0, 2.0**512 - 1, 7])), cause=3),
        Case("measure-rel-fraction", (*ev, "-m", "P(rel=1.5)@5"), files, refused("rel=1.5"), cause=4),
        Case("measure-max-results-float", (*ev, "-M", "2.5"), files, refused("-M"), cause=4),
        Case("measure-level-float", (*ev, "-l", "1.5"), files, refused("-l"), cause=4),
        Case("measure-rbp-p-nan", (*ev, "-m", "RBP(p=nan)"), files, refused("p=nan"), cause=4),
        Case("measure-k-huge", (*ev, "-m", f"P@{2**63}"), files, refused(f"@{2**63}"), cause=4),
    ]
    return cases


def _bomb(text: str, repeat: bytes) -> bytes:
    """A small gzip whose text expands past 1 MB (the limit the rows set): a valid table, then
    ``repeat`` over and over."""
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=9) as handle:
        handle.write(text.encode())
        handle.write(repeat * (2_000_000 // len(repeat)))
    return buffer.getvalue()


def endless_cases() -> list:
    """/dev/zero (one endless line) and gzip bombs on every reader: refused at the documented
    limits (CRANFIELD_MAX_LINE_BYTES, CRANFIELD_MAX_INPUT_BYTES), set small here."""
    line_cap = {"CRANFIELD_MAX_LINE_BYTES": "1000000"}
    input_cap = {"CRANFIELD_MAX_INPUT_BYTES": "1000000"}
    commands = {
        "labels": (("aggregate-labels", "{}", "-o", "-"), labels_text(), b"q9,d9,w9,1\n"),
        "agreement": (("agreement", "a.qrels", "{}", "--resamples", "0"), QRELS_B, b"9 0 d9 1\n"),
        "classify": (("classify", "{}", "--truth", "y", "--score", "s"), table_text(CLASSIFY), b"1,0.5\n"),
        "regression": (("regression", "{}", "--truth", "y", "--pred", "p"), table_text(REGRESSION), b"1,2\n"),
        "reusability": (("reusability", "t.qrels", "x.run", "{}"), RUN_Y, b"3 Q0 d9 1 1 y\n"),
        "covariate": (("online", "ab", "c.csv", "--covariate", "{}", "--test", "welch", "-m", "ctr"),
                      "impression,covariate\ni1,1\n", b"i1,1\n"),
    }
    files = {"a.qrels": QRELS_A, "t.qrels": QRELS_TIE, "x.run": RUN_X, "c.csv": click_log()}
    cases = []
    for name, (argv, text, repeat) in commands.items():
        cases.append(Case(f"{name}-dev-zero", tuple(a.replace("{}", "/dev/zero") for a in argv), files,
                          refused("/dev/zero", "CRANFIELD_MAX_LINE_BYTES"), env=line_cap, cause=6))
        cases.append(Case(f"{name}-gzip-bomb", tuple(a.replace("{}", "bomb.gz") for a in argv),
                          {**files, "bomb.gz": _bomb(text, repeat)}, refused("bomb.gz", "CRANFIELD_MAX_INPUT_BYTES"),
                          env=input_cap, cause=6))
    return cases


def all_cases() -> list:
    return [*click_log_cases(), *ab_cases(), *label_cases(), *agreement_cases(), *reusability_cases(),
            *table_cases(), *measure_cases(), *endless_cases()]
