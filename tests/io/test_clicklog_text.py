"""Issue 24, root cause 1: the click-log text reader is the grammar.

A valid CSV/TSV click log with one hostile change at a random line (a number beyond float64, a
ragged row, a byte that is not UTF-8, a duplicated header name, blank lines, an ISO 8601 time)
must give the same log as the clean text, or one InputError naming the file, the line and the
field; a NaT in a typed timestamp column names its own row; a log with no rows is an error on
every path. Each case below failed on the code before this change (a wrong number with exit 0, a
raw parser message without the line, or an empty success).
"""

from __future__ import annotations

import io
from fractions import Fraction

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cranfield.errors import InputError
from cranfield.online import ClickLog, read_click_log

HEADER = ["impression", "query", "rank", "doc", "clicked", "dwell", "timestamp"]


def _rows(n_impressions: int, depth: int) -> list[list[str]]:
    rows = []
    for i in range(n_impressions):
        for r in range(1, depth + 1):
            clicked = (i + r) % 3 == 0
            rows.append([f"i{i}", f"q{i % 2}", str(r), f"d{r}", "1" if clicked else "0",
                         "12.5" if clicked else "", str(100 * i + (5 if clicked else 0))])
    return rows


def _text(header, rows, sep=",") -> bytes:
    return ("\n".join(sep.join(cells) for cells in [header, *rows]) + "\n").encode()


def _read(data: bytes, name: str = "log.csv"):
    handle = io.BytesIO(data)
    handle.name = name
    return read_click_log(handle)


def _error(data: bytes, name: str = "log.csv") -> InputError:
    with pytest.raises(InputError) as caught:
        _read(data, name)
    assert "\n" not in str(caught.value)
    return caught.value


SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))


@SETTINGS
@given(n=st.integers(1, 6), depth=st.integers(1, 4), data=st.data(),
       change=st.sampled_from(["1e400 dwell", "1e400 timestamp", "-1e400 timestamp", "ragged", "long", "utf8",
                               "duplicate header"]))
def test_one_hostile_cell_is_named_by_line_and_field(n, depth, data, change):
    rows = _rows(n, depth)
    at = data.draw(st.integers(0, len(rows) - 1))
    header = list(HEADER)
    expected_line, expected_field = at + 2, None
    if change == "1e400 dwell":
        rows[at][4], rows[at][5] = "1", "1e400"
        expected_field = "dwell"
    elif change.endswith("timestamp"):
        rows[at][6] = change.split()[0]
        expected_field = "timestamp"
    elif change == "ragged":
        rows[at] = rows[at][:-1]
    elif change == "long":
        rows[at] = rows[at] + ["x"]
    elif change == "duplicate header":
        header[6] = data.draw(st.sampled_from(HEADER[:6]))
        expected_line, expected_field = 1, header[6]
    data_bytes = _text(header, rows)
    if change == "utf8":
        lines = data_bytes.split(b"\n")
        cells = lines[at + 1].split(b",")
        cells[3] = cells[3] + b"\xff"
        lines[at + 1] = b",".join(cells)
        data_bytes = b"\n".join(lines)
        expected_field = "doc"
    error = _error(data_bytes)
    assert (error.source, error.line, error.field) == ("log.csv", expected_line, expected_field), str(error)


@SETTINGS
@given(n=st.integers(1, 6), depth=st.integers(1, 4), data=st.data(), sep=st.sampled_from([",", "\t"]))
def test_blank_lines_keep_the_line_numbers(n, depth, data, sep):
    """Blank lines anywhere after the header are skipped and still counted: the log equals the
    clean one, and an error names the line as an editor shows it."""
    rows = _rows(n, depth)
    clean = _read(_text(HEADER, rows, sep), "log.tsv" if sep == "\t" else "log.csv")
    lines = [sep.join(HEADER)] + [sep.join(r) for r in rows]
    for _ in range(data.draw(st.integers(1, 3))):
        lines.insert(data.draw(st.integers(1, len(lines))), "")
    data_bytes = ("\n".join(lines) + "\n").encode()
    name = "log.tsv" if sep == "\t" else "log.csv"
    assert _read(data_bytes, name).equals(clean)
    # a rank turned to 0 on the last data row: named by its real line
    last = max(i for i, line in enumerate(lines) if line)
    cells = lines[last].split(sep)
    cells[2] = "0"
    lines[last] = sep.join(cells)
    error = _error(("\n".join(lines) + "\n").encode(), name)
    assert (error.line, error.field) == (last + 1, "rank")


def test_examples_of_the_issue():
    head = "impression,query,rank,doc,clicked,dwell\n"
    error = _error((head + "1,q,1,d1,1,1e400\n").encode())  # was: an infinite dwell, a satisfied click
    assert (error.line, error.field) == (2, "dwell") and "1e400" in str(error)
    error = _error(b"impression,query,rank,doc,clicked\n1,q,1,d1\n")  # was: CSV parse error without the line
    assert error.line == 2 and "expected 5 fields as in the header, found 4" in str(error)
    error = _error(b"impression,query,rank,doc,clicked,impression\n1,q,1,d1,1,1\n")  # was: KeyError text
    assert (error.line, error.field) == (1, "impression") and "appears 2 times" in str(error)
    error = _error(b"impression,query,rank,doc,clicked\n1,q,1,d\xff,1\n")  # was: no line
    assert (error.line, error.field) == (2, "doc") and "0xff" in str(error)
    error = _error(b"impression,query,rank,doc,clicked\n")  # was: an empty ClickLog
    assert "no rows" in str(error)


def test_no_rows_is_an_error_on_every_path():
    empty = {c: [] for c in ("impression", "query", "rank", "doc", "clicked")}
    for source in (empty, pd.DataFrame(empty), pa.table({c: pa.array([], pa.string()) for c in empty})):
        with pytest.raises(InputError, match="no rows"):
            read_click_log(source)
    with pytest.raises(InputError, match="no rows"):
        ClickLog.from_columns(**empty)


def test_iso_8601_timestamps():
    """Text ISO 8601 times (what real logs hold) read as seconds since the epoch, UTC: the same
    numbers as the typed timestamp column of pandas."""
    texts = ["2026-03-02T08:00:33", "2026-03-02T09:00:40+01:00", "2026-03-02 08:00:41.250Z", "2026-03-02T08:01Z"]
    data = ("impression,query,rank,doc,clicked,timestamp\n1,q,1,a,0,%s\n2,q,1,b,1,%s\n3,q,1,c,1,%s\n4,q,1,d,0,%s\n"
            % tuple(texts)).encode()
    log = _read(data)
    nanoseconds = pd.to_datetime(texts, utc=True, format="ISO8601").as_unit("ns").asi8  # the reference: pandas
    assert log.timestamp.tolist() == [float(Fraction(int(t), 10**9)) for t in nanoseconds]
    frame = pd.DataFrame({"impression": [1, 2, 3, 4], "query": ["q"] * 4, "rank": [1] * 4, "doc": list("abcd"),
                          "clicked": [0, 1, 1, 0], "timestamp": pd.to_datetime(texts, utc=True, format="ISO8601")})
    assert read_click_log(frame).timestamp.tolist() == log.timestamp.tolist()
    error = _error(data.replace(b"2026-03-02T08:01Z", b"77"))  # numbers and times mixed
    assert (error.line, error.field) == (5, "timestamp")
    error = _error(data.replace(b"2026-03-02T08:01Z", b"2026-02-30T08:01Z"))  # no such day
    assert (error.line, error.field) == (5, "timestamp")


@pytest.mark.parametrize("path", ["numpy", "pandas", "dict of datetimes"])
def test_missing_timestamp_names_its_row(path):
    """NaT on row 3 is named as row 3 (numpy's NaT used to be read as -9.2e9 seconds, silently)."""
    times = np.array(["2026-01-01T00:00:00", "2026-01-01T00:00:00", "NaT"], dtype="datetime64[ns]")
    columns = {"impression": [1, 1, 2], "query": ["q"] * 3, "rank": [1, 2, 1], "doc": ["a", "b", "c"],
               "clicked": [0, 0, 1]}
    if path == "numpy":
        source = {**columns, "timestamp": times}
    elif path == "pandas":
        source = pd.DataFrame({**columns, "timestamp": times})
    else:
        source = {**columns, "timestamp": [pd.Timestamp(t).to_pydatetime() if not np.isnat(t) else None
                                           for t in times]}
    with pytest.raises(InputError) as caught:
        read_click_log(source)
    assert (caught.value.line, caught.value.field) == (3, "timestamp")
