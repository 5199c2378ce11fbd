"""The crowd-labels grammar (cranfield.io.labels): every reading path gives the same columns or the
same error (line and field) on the same data; errors name file, line and field."""

from __future__ import annotations

import gzip
import io

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cranfield.errors import InputError, UsageError
from cranfield.io.labels import read_labels

HEADER = "query,document,worker,label"
FIELDS = ("query", "document", "worker", "label")


def _rows(seed: int, n: int = 40):
    rng = np.random.default_rng(seed)
    seen, rows = set(), []
    while len(rows) < n:
        row = (f"q{rng.integers(5)}", f"d{rng.integers(9)}", f"w{rng.integers(6)}", int(rng.integers(-1, 4)))
        if row[:3] not in seen:
            seen.add(row[:3])
            rows.append(row)
    return rows


def _csv(rows, sep=",") -> str:
    return sep.join(FIELDS) + "\n" + "".join(sep.join("" if v is None else str(v) for v in r) + "\n" for r in rows)


def _paths(rows, tmp_path):
    """Every reading path of the same rows: (name, source, line of the first row)."""
    text = _csv(rows)
    (tmp_path / "l.csv").write_text(text)
    (tmp_path / "l.tsv").write_text(_csv(rows, "\t"))
    (tmp_path / "l.csv.gz").write_bytes(gzip.compress(text.encode()))
    frame = pd.DataFrame(rows, columns=list(FIELDS))
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), tmp_path / "l.parquet")
    columnar = {f: [r[i] for r in rows] for i, f in enumerate(FIELDS)}
    return [("csv", str(tmp_path / "l.csv"), 2), ("tsv", str(tmp_path / "l.tsv"), 2),
            ("gzip", str(tmp_path / "l.csv.gz"), 2), ("stream", io.StringIO(text), 2),
            ("parquet", str(tmp_path / "l.parquet"), 1), ("pandas", frame, 1),
            ("polars", pl.from_pandas(frame), 1), ("arrow", pa.Table.from_pandas(frame, preserve_index=False), 1),
            ("columnar dict", columnar, 1)]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_path_gives_the_same_columns(seed, tmp_path):
    rows = _rows(seed)
    nested: dict = {}
    for q, d, w, label in rows:
        nested.setdefault(q, {}).setdefault(d, {})[w] = label
    expected = sorted(rows)
    for name, source, first in _paths(rows, tmp_path):
        got = read_labels(source)
        back = list(zip(got.query.to_pylist(), got.document.to_pylist(), got.worker.to_pylist(), got.label.tolist()))
        assert back == rows, name
        assert got.line.tolist() == list(range(first, first + len(rows))), name
        assert got.label.dtype == np.int64
    got = read_labels(nested)
    assert sorted(zip(got.query.to_pylist(), got.document.to_pylist(), got.worker.to_pylist(),
                      got.label.tolist())) == expected


BAD = {  # name: (rows with one bad row at index 2, field)
    "duplicate worker": ([("q1", "d1", "w1", 1), ("q1", "d2", "w1", 0), ("q1", "d1", "w1", 2)], "worker"),
    "empty query": ([("q1", "d1", "w1", 1), ("q1", "d2", "w1", 0), (None, "d1", "w2", 2)], "query"),
    "empty document": ([("q1", "d1", "w1", 1), ("q1", "d2", "w1", 0), ("q1", None, "w2", 2)], "document"),
    "empty worker": ([("q1", "d1", "w1", 1), ("q1", "d2", "w1", 0), ("q1", "d1", None, 2)], "worker"),
    "empty label": ([("q1", "d1", "w1", 1), ("q1", "d2", "w1", 0), ("q1", "d1", "w2", None)], "label"),
    "fractional label": ([("q1", "d1", "w1", 1), ("q1", "d2", "w1", 0), ("q1", "d1", "w2", 1.5)], "label"),
    "text label": ([("q1", "d1", "w1", 1), ("q1", "d2", "w1", 0), ("q1", "d1", "w2", "yes")], "label"),
    "blank in an id": ([("q1", "d1", "w1", 1), ("q1", "d2", "w1", 0), ("q1", "d 1", "w2", 1)], "document"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_every_path_gives_the_same_error(case, tmp_path):
    rows, field = BAD[case]
    text = _csv(rows)
    frame = pd.DataFrame(rows, columns=list(FIELDS))
    sources = [("csv", io.StringIO(text), 2), ("pandas", frame, 1), ("columnar dict", {f: [r[i] for r in rows]
                                                                                     for i, f in enumerate(FIELDS)}, 1)]
    try:
        table = pa.Table.from_pandas(frame, preserve_index=False)
    except (pa.ArrowException, TypeError, ValueError):
        table = None  # a mixed-type column Arrow cannot type (text label): the frame path covers it
    if table is not None:
        pq.write_table(table, tmp_path / "bad.parquet")
        sources += [("parquet", str(tmp_path / "bad.parquet"), 1), ("arrow", table, 1),
                    ("polars", pl.from_arrow(table), 1)]
    for name, source, first in sources:
        with pytest.raises(InputError) as info:
            read_labels(source, name="labels")
        assert (info.value.line, info.value.field) == (first + 2, field), (name, str(info.value))
        assert info.value.source == "labels"


def test_duplicate_names_both_lines():
    with pytest.raises(InputError, match=r"l.csv:4: field worker: worker 'w1' labels query 'q1', document 'd1' "
                                         r"twice \(first at line 2\)"):
        read_labels(io.StringIO(_csv([("q1", "d1", "w1", 1), ("q1", "d2", "w1", 1), ("q1", "d1", "w1", 1)])),
                    name="l.csv")


@pytest.mark.parametrize("label", ["1.0", "1e3", " 1", "0x1", "+", "", "99999999999999999999"])
def test_text_label_syntax(label):
    with pytest.raises(InputError) as info:
        read_labels(io.StringIO(f"{HEADER}\nq1,d1,w1,1\nq1,d1,w2,{label}\n"), name="l.csv")
    assert (info.value.line, info.value.field) == (3, "label")


@pytest.mark.parametrize("label, value", [("0", 0), ("-1", -1), ("+3", 3), ("007", 7), ("-9223372036854775808", -2**63)])
def test_text_integers(label, value):
    assert read_labels(io.StringIO(f"{HEADER}\nq1,d1,w1,{label}\n")).label.tolist() == [value]


def test_blank_lines_are_skipped_and_lines_counted():
    got = read_labels(io.StringIO(f"\ufeff{HEADER}\r\nq1,d1,w1,1\r\n\r\n,,,\nq1,\"d2\",w1,0\n\n"))
    assert got.line.tolist() == [2, 5] and got.document.to_pylist() == ["d1", "d2"]


def test_header_and_shape_errors(tmp_path):
    cases = [("query,document,worker\nq1,d1,w1\n", 1, "label"),
             ("query,document,worker,label,label\nq1,d1,w1,1,1\n", 1, "label"),
             (f"{HEADER}\nq1,d1,w1,1\nq1,d1,w2\n", 3, None),
             (f"{HEADER}\nq1,d1,w1,1,5\n", 2, None),
             ("", 1, None)]
    for text, line, field in cases:
        with pytest.raises(InputError) as info:
            read_labels(io.StringIO(text), name="l.csv")
        assert (info.value.line, info.value.field) == (line, field), text
    (tmp_path / "bad.csv").write_bytes(HEADER.encode() + b"\nq1,d\xff1,w1,1\n")
    with pytest.raises(InputError, match=r"bad.csv:2: field document: invalid UTF-8 byte 0xff"):
        read_labels(str(tmp_path / "bad.csv"))
    with pytest.raises(InputError, match="no such file"):
        read_labels(str(tmp_path / "missing.csv"))


def test_options():
    text = "topic;docid;annotator;grade\nq1;d1;w1;2\n"
    got = read_labels(io.StringIO(text), delimiter=";",
                      columns={"query": "topic", "document": "docid", "worker": "annotator", "label": "grade"})
    assert got.label.tolist() == [2]
    with pytest.raises(UsageError):
        read_labels(io.StringIO(text), columns={"topic": "query"})
    with pytest.raises(UsageError):
        read_labels(io.StringIO(text), delimiter=";;")
    with pytest.raises(InputError):
        read_labels(42)


def test_typed_rules_are_the_relevance_rules():
    frame = pd.DataFrame({"query": [1, 2], "document": ["d1", "d1"], "worker": ["w", "w"], "label": [1.0, 2.0]})
    got = read_labels(frame)  # integer ids become text; whole floats are integers
    assert got.query.to_pylist() == ["1", "2"] and got.label.tolist() == [1, 2]
    with pytest.raises(InputError, match="boolean"):
        read_labels(frame.assign(label=[True, False]))


from hypothesis import given, settings, strategies as st  # noqa: E402

_ids = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zs", "Zl", "Zp"), blacklist_characters="\x85"),
               min_size=1, max_size=6)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(_ids, _ids, _ids, st.integers(-2**63, 2**63 - 1)), min_size=1, max_size=12,
                unique_by=lambda r: r[:3]))
def test_text_and_frames_agree_on_any_ids(rows):
    import csv

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(FIELDS)
    writer.writerows(rows)
    text = read_labels(io.StringIO(buffer.getvalue()))
    frame = read_labels(pd.DataFrame(rows, columns=list(FIELDS)))
    for field in ("query", "document", "worker"):
        assert getattr(text, field).to_pylist() == getattr(frame, field).to_pylist() == [r[FIELDS.index(field)]
                                                                                          for r in rows]
    assert text.label.tolist() == frame.label.tolist() == [r[3] for r in rows]
    assert text.line.tolist() == [i + 2 for i in range(len(rows))]


@pytest.mark.parametrize("text", [HEADER + "\n", HEADER, HEADER + "\n\n\n"])
def test_a_header_without_labels_is_an_empty_table(text):
    assert len(read_labels(io.StringIO(text))) == 0
