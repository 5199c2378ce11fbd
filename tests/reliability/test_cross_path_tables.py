"""Cross-path differential test for the long-table formats (issue 24): click logs, crowd labels,
classification tables and diversity qrels, as ``test_cross_path.py`` does for runs and qrels.

Hypothesis draws typed rows with at most one semantic fault (a duplicate, a gap, an id with a
blank or a NUL, a negative dwell, a click before its impression, a fraction where an integer
belongs...) and writes them as text with meaning-preserving decorations (blank lines, CRLF, a
BOM, quoted fields, ``true``/``false``, ISO 8601 times), then reads the same rows through every
path: CSV, TSV, gzip, a stream; Parquet; pandas, polars and Arrow frames; dicts; Dask. Every path
must give the same rows, or the same error: class, field and message, and the same line once a
row number is mapped to the line the text holds it on.
"""

from __future__ import annotations

import datetime as dt
import gzip
import io
import re

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from cranfield.errors import CranfieldError
from cranfield.io.labels import read_labels
from cranfield.online import ClickLog, read_click_log
from cranfield.retrieval.diversity import DiversityQrels, read_diversity_qrels

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
IDS = ["a", "b", "q1", "\u00e9t\u00e9", "#x", "7", "d\u00a0", "x,y", 'q"1']
BAD_IDS = ["a b", "\u0000z", "", "t\tu"]
EPOCH = dt.datetime(2026, 3, 2, 8, 0, 0, tzinfo=dt.timezone.utc)


def _outcome(function):
    try:
        return ("ok", function())
    except Exception as error:  # noqa: BLE001 - every exception is compared (and must be a CranfieldError)
        assert isinstance(error, CranfieldError), f"{type(error).__name__}: {error}"
        assert "\n" not in str(error)
        return ("error", type(error).__name__, error.field, error.line, error.message)


def _mapped(outcome, lines):
    """A typed path's error with its row numbers (in the line and in the message) turned into the
    lines the text holds those rows on."""
    if outcome[0] != "error" or lines is None:
        return outcome
    kind, name, field, line, message = outcome
    message = re.sub(r"line (\d+)", lambda m: f"line {lines[int(m.group(1)) - 1]}", message)
    return (kind, name, field, None if line is None else int(lines[line - 1]), message)


def _text_lines(n_rows: int, blanks: list[int]) -> list[int]:
    """The line of each row when blank lines are inserted before the rows listed in ``blanks``."""
    lines, line = [], 1
    for row in range(n_rows):
        line += 1 + blanks.count(row)
        lines.append(line)
    return lines


def _render(header: list[str], rows: list[list[str]], *, sep: str, blanks: list[int], ending: str, bom: bool,
            quote: bool) -> bytes:
    def cell(text: str) -> str:
        if quote or sep in text or '"' in text:
            return '"' + text.replace('"', '""') + '"'
        return text

    out = [sep.join(header)]
    for i, row in enumerate(rows):
        out += [""] * blanks.count(i)
        out.append(sep.join(cell(c) for c in row))
    text = ending.join(out) + ending
    return (("\ufeff" if bom else "") + text).encode("utf-8")


@st.composite
def decorations(draw, n_rows: int):
    return {"sep": draw(st.sampled_from([",", "\t"])),
            "blanks": draw(st.lists(st.integers(0, max(n_rows - 1, 0)), max_size=3)) if n_rows else [],
            "ending": draw(st.sampled_from(["\n", "\r\n"])), "bom": draw(st.booleans()), "quote": draw(st.booleans())}


def _text_paths(tmp_path, data: bytes, sep: str, read):
    name = "t.tsv" if sep == "\t" else "t.csv"
    (tmp_path / name).write_bytes(data)
    (tmp_path / (name + ".gz")).write_bytes(gzip.compress(data, mtime=0))
    stream = io.BytesIO(data)
    stream.name = str(tmp_path / name)
    return {"text": lambda: read(str(tmp_path / name)), "gzip": lambda: read(str(tmp_path / (name + ".gz"))),
            "stream": lambda: read(stream)}


# ------------------------------------------------------------------------------------ click logs
@st.composite
def click_logs(draw):
    n = draw(st.integers(1, 4))
    rows = []  # impression, query, rank, doc, clicked, dwell, seconds after EPOCH
    for i in range(n):
        depth = draw(st.integers(1, 3))
        shown = draw(st.integers(0, 10**6))
        query = draw(st.sampled_from(IDS))
        for rank in range(1, depth + 1):
            clicked = draw(st.booleans())
            rows.append([f"i{i}", query, rank, draw(st.sampled_from(IDS)), clicked,
                         draw(st.sampled_from([1.5, 30.0, 0.0])) if clicked else None,
                         shown + (draw(st.integers(0, 60)) if clicked else 0)])
    fault = draw(st.sampled_from([None] * 4 + ["duplicate", "gap", "bad id", "negative dwell", "early click",
                                               "two queries", "rank 0"]))
    at = draw(st.integers(0, len(rows) - 1))
    if fault == "duplicate":
        rows.insert(at, list(rows[at]))
    elif fault == "gap":
        rows[at][2] += 1
    elif fault == "bad id":
        rows[at][draw(st.sampled_from([0, 1, 3]))] = draw(st.sampled_from(BAD_IDS))
    elif fault == "negative dwell":
        rows[at][4], rows[at][5] = True, -1.0
    elif fault == "early click":
        rows[at][4], rows[at][6] = True, rows[at][6] - 100
    elif fault == "two queries":
        rows[at][1] = rows[at][1] + "2"
    elif fault == "rank 0":
        rows[at][2] = 0
    draw(st.randoms()).shuffle(rows) if draw(st.booleans()) else None
    return rows, draw(decorations(len(rows))), draw(st.booleans()), draw(st.sampled_from(["1/0", "true/false"]))


CLICK_HEADER = ["impression", "query", "rank", "doc", "clicked", "dwell", "timestamp"]


def _click_columns(rows, iso: bool) -> dict:
    times = [EPOCH + dt.timedelta(seconds=r[6]) for r in rows]
    return {"impression": [r[0] for r in rows], "query": [r[1] for r in rows], "rank": [r[2] for r in rows],
            "doc": [r[3] for r in rows], "clicked": [r[4] for r in rows],
            "dwell": [np.nan if r[5] is None else r[5] for r in rows],
            "timestamp": times if iso else [float(r[6]) for r in rows]}


@SETTINGS
@given(case=click_logs())
def test_click_log_every_path(tmp_path_factory, case):
    rows, style, iso, spelling = case
    folder = tmp_path_factory.mktemp("clicks")
    yes, no = spelling.split("/")
    cells = [[r[0], r[1], str(r[2]), r[3], yes if r[4] else no, "" if r[5] is None else repr(r[5]),
              (EPOCH + dt.timedelta(seconds=r[6])).strftime("%Y-%m-%dT%H:%M:%SZ") if iso else str(r[6])]
             for r in rows]
    data = _render(CLICK_HEADER, cells, **style)
    outcomes = _text_paths(folder, data, style["sep"], read_click_log)
    outcomes = {label: _outcome(function) for label, function in outcomes.items()}
    lines = _text_lines(len(rows), style["blanks"])
    columns = _click_columns(rows, iso)
    frame = pd.DataFrame(columns)
    if iso:
        frame["timestamp"] = pd.to_datetime(frame["timestamp"], utc=True)
    typed = {"dict": lambda: read_click_log(dict(columns)), "arrays": lambda: ClickLog.from_columns(**columns),
             "pandas": lambda: read_click_log(frame), "arrow": lambda: read_click_log(pa.Table.from_pandas(frame)),
             "polars": lambda: read_click_log(pl.from_pandas(frame))}
    try:
        frame.to_parquet(folder / "log.parquet", index=False)
        typed["parquet"] = lambda: read_click_log(str(folder / "log.parquet"))
    except (pa.ArrowInvalid, pa.ArrowTypeError):  # pragma: no cover
        pass
    for label, function in typed.items():
        outcomes[label] = _mapped(_outcome(function), lines)
    _same_outcomes(outcomes, lambda a, b: a.equals(b))


def _same_outcomes(outcomes: dict, equal) -> None:
    reference = outcomes.pop("text")
    event(f"{reference[0]} {reference[2] if reference[0] == 'error' else ''}")
    for label, got in outcomes.items():
        if reference[0] == "ok":
            assert got[0] == "ok", (label, reference, got)
            assert equal(got[1], reference[1]), label
        else:
            assert got[:3] == reference[:3] and got[3:] == reference[3:], (label, reference, got)


# ------------------------------------------------------------------------------------ crowd labels
@st.composite
def crowd_labels(draw):
    keys = draw(st.lists(st.tuples(st.sampled_from(IDS), st.sampled_from(IDS), st.sampled_from(["w1", "w2", "7"])),
                         min_size=1, max_size=8, unique=True))
    rows = [[q, d, w, draw(st.integers(-1, 3))] for q, d, w in keys]
    fault = draw(st.sampled_from([None] * 3 + ["duplicate", "bad id", "huge"]))
    at = draw(st.integers(0, len(rows) - 1))
    if fault == "duplicate":
        rows.insert(draw(st.integers(0, len(rows))), list(rows[at]))
    elif fault == "bad id":
        rows[at][draw(st.integers(0, 2))] = draw(st.sampled_from(BAD_IDS))
    elif fault == "huge":
        rows[at][3] = 2**63 - 1
    return rows, draw(decorations(len(rows)))


def _labels_equal(a, b) -> bool:
    return a.to_arrow().equals(b.to_arrow())


@SETTINGS
@given(case=crowd_labels())
def test_crowd_labels_every_path(tmp_path_factory, case):
    rows, style = case
    folder = tmp_path_factory.mktemp("labels")
    data = _render(["query", "document", "worker", "label"], [[q, d, w, str(v)] for q, d, w, v in rows], **style)
    outcomes = {label: _outcome(f) for label, f in _text_paths(folder, data, style["sep"], read_labels).items()}
    lines = _text_lines(len(rows), style["blanks"])
    columns = {"query": [r[0] for r in rows], "document": [r[1] for r in rows], "worker": [r[2] for r in rows],
               "label": np.array([r[3] for r in rows], dtype=np.int64)}
    frame = pd.DataFrame(columns)
    frame.to_parquet(folder / "labels.parquet", index=False)
    typed = {"dict": lambda: read_labels(dict(columns)), "pandas": lambda: read_labels(frame),
             "arrow": lambda: read_labels(pa.Table.from_pandas(frame)), "polars": lambda: read_labels(pl.from_pandas(frame)),
             "parquet": lambda: read_labels(str(folder / "labels.parquet"))}
    for label, function in typed.items():
        outcomes[label] = _mapped(_outcome(function), lines)
    if outcomes["text"][0] == "ok":
        nested: dict = {}
        for q, d, w, v in rows:
            nested.setdefault(q, {}).setdefault(d, {})[w] = v
        got = _outcome(lambda: read_labels(nested))
        assert got[0] == "ok" and sorted(map(tuple, got[1].to_arrow().to_pylist())) == \
            sorted(map(tuple, outcomes["text"][1].to_arrow().to_pylist()))
    _same_outcomes(outcomes, _labels_equal)


# ------------------------------------------------------------------------------------ classification tables
@st.composite
def classification_tables(draw):
    n = draw(st.integers(1, 10))
    truth = draw(st.lists(st.sampled_from([0, 1]), min_size=n, max_size=n))
    score = draw(st.lists(st.sampled_from([0.25, 0.5, -3.0, 1e300, 7.0, 2.0**60]), min_size=n, max_size=n))
    fault = draw(st.sampled_from([None] * 3 + ["nan score", "text score", "third class", "missing truth"]))
    at = draw(st.integers(0, n - 1))
    if fault == "nan score":
        score[at] = float("nan")
    elif fault == "text score":
        score[at] = "high"
    elif fault == "third class":
        truth[at] = 2
    elif fault == "missing truth":
        truth[at] = None
    return truth, score, draw(st.sampled_from([",", "\t"])), draw(st.sampled_from(["\n", "\r\n"]))


def _classification(path):
    from cranfield.classification.table import label_column, number_column, read_table

    table, first = read_table(path)
    truth = label_column(table, "y", path, first)
    return truth.tolist(), number_column(table, "s", path, first).tolist()


@SETTINGS
@given(case=classification_tables())
def test_classification_table_every_path(tmp_path_factory, case):
    truth, score, sep, ending = case
    folder = tmp_path_factory.mktemp("table")
    name = "t.tsv" if sep == "\t" else "t.csv"

    def show(v):
        return "" if v is None else repr(v) if isinstance(v, float) else str(v)

    text = ending.join([sep.join(["y", "s"])] + [sep.join([show(t), show(s)]) for t, s in zip(truth, score)]) + ending
    (folder / name).write_bytes(text.encode())
    (folder / (name + ".gz")).write_bytes(gzip.compress(text.encode(), mtime=0))
    outcomes = {"text": _outcome(lambda: _classification(str(folder / name))),
                "gzip": _outcome(lambda: _classification(str(folder / (name + ".gz"))))}
    if not any(isinstance(s, str) for s in score):  # Parquet holds one type per column
        pq.write_table(pa.table({"y": pa.array(truth, pa.int64()), "s": pa.array(score, pa.float64())}),
                       folder / "t.parquet")
        outcomes["parquet"] = _mapped(_outcome(lambda: _classification(str(folder / "t.parquet"))),
                                      list(range(2, len(truth) + 2)))
    reference = outcomes.pop("text")
    event(f"{reference[0]}")
    for label, got in outcomes.items():
        if reference[0] == "ok":
            assert got == reference, label
        else:  # the source names differ; everything else is the same
            assert got[1:4] == reference[1:4] and got[4] == reference[4], (label, reference, got)


# ------------------------------------------------------------------------------------ diversity qrels
@st.composite
def diversity_rows(draw):
    keys = draw(st.lists(st.tuples(st.sampled_from(["q1", "q2", "7"]), st.sampled_from(["1", "2", "s"]),
                                   st.sampled_from(IDS[:6])), min_size=1, max_size=8, unique=True))
    rows = [[q, s, d, draw(st.integers(-1, 2))] for q, s, d in keys]
    fault = draw(st.sampled_from([None] * 3 + ["bad id", "duplicate"]))
    at = draw(st.integers(0, len(rows) - 1))
    if fault == "bad id":
        rows[at][draw(st.sampled_from([0, 2]))] = draw(st.sampled_from(["a\u00a0b", "\u3000"]))  # ids in text
    elif fault == "duplicate":
        rows.insert(at, list(rows[at]))
    return rows


def _diversity_rows(qrels: DiversityQrels):
    return sorted(zip(qrels.qid.to_pylist(), qrels.subtopic.to_pylist(), qrels.docno.to_pylist(),
                      qrels.values.tolist()))


@SETTINGS
@given(rows=diversity_rows())
def test_diversity_qrels_every_path(tmp_path_factory, rows):
    folder = tmp_path_factory.mktemp("diversity")
    text = "".join(f"{q} {s} {d} {r}\n" for q, s, d, r in rows).encode()
    (folder / "d.txt").write_bytes(text)
    reference = _outcome(lambda: _diversity_rows(read_diversity_qrels(str(folder / "d.txt"))))
    table = pa.table({"qid": [r[0] for r in rows], "subtopic": [r[1] for r in rows], "docno": [r[2] for r in rows],
                      "rel": pa.array([r[3] for r in rows], pa.int64())})
    outcomes = {"arrow": _outcome(lambda: _diversity_rows(read_diversity_qrels(table))),
                "pandas": _outcome(lambda: _diversity_rows(read_diversity_qrels(table.to_pandas())))}
    event(f"{reference[0]}")
    for label, got in outcomes.items():
        if reference[0] == "ok":
            assert got == reference, label
        else:
            assert got[1:] == reference[1:], (label, reference, got)
    if reference[0] == "ok" and len({tuple(r[:3]) for r in rows}) == len(rows):  # a dict holds a key once
        nested: dict = {}
        for q, s, d, r in rows:
            nested.setdefault(q, {}).setdefault(s, {})[d] = r
        assert _outcome(lambda: _diversity_rows(read_diversity_qrels(nested))) == reference


def test_dask_click_log_partitions_agree(tmp_path):
    """A Dask DataFrame of a click log (several partitions) reads as the pandas one, errors
    naming the same row."""
    dd = pytest.importorskip("dask.dataframe")
    n = 40
    frame = pd.DataFrame({"impression": np.repeat(np.arange(10), 4), "query": np.repeat(["q1", "q2"], 20),
                          "rank": np.tile(np.arange(1, 5), 10), "doc": [f"d{i % 7}" for i in range(n)],
                          "clicked": np.arange(n) % 3 == 0, "dwell": np.where(np.arange(n) % 3 == 0, 5.0, np.nan)})
    assert read_click_log(dd.from_pandas(frame, npartitions=3)).equals(read_click_log(frame))
    bad = frame.copy()
    bad.loc[len(bad) - 2, "dwell"] = -1.0
    bad.loc[len(bad) - 2, "clicked"] = True
    expected = _outcome(lambda: read_click_log(bad))
    got = _outcome(lambda: read_click_log(dd.from_pandas(bad, npartitions=3)))
    assert expected[0] == "error" and got[1:4] == expected[1:4]
