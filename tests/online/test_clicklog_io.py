"""The click-log grammar: every path (CSV, TSV, gzip, Parquet, pandas, polars, Arrow, dict) gives
the same ClickLog or the same error (field, row, message)."""

from __future__ import annotations

import gzip
import io

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cranfield.errors import InputError, UsageError
from cranfield.io.clicklog import read_covariate_table
from cranfield.online import ClickLog, read_click_log

from .clicklog_factory import random_log_columns


def _frame(columns: dict) -> pd.DataFrame:
    return pd.DataFrame({k: (list(v) if not isinstance(v, np.ndarray) else v) for k, v in columns.items()})


def _paths(columns: dict, tmp_path):
    """name -> (thunk giving a ClickLog, first line of the data)."""
    frame = _frame(columns)
    csv_text = frame.to_csv(index=False)
    tsv_text = frame.to_csv(index=False, sep="\t")
    (tmp_path / "log.csv").write_text(csv_text)
    (tmp_path / "log.tsv").write_text(tsv_text)
    (tmp_path / "log.csv.gz").write_bytes(gzip.compress(csv_text.encode()))
    parquet = None
    try:
        frame.to_parquet(tmp_path / "log.parquet", index=False)
        parquet = str(tmp_path / "log.parquet")
    except (pa.ArrowInvalid, pa.ArrowTypeError):  # mixed object columns: Parquet cannot hold them
        pass
    paths = {
        "csv": (lambda: read_click_log(str(tmp_path / "log.csv")), 2),
        "tsv": (lambda: read_click_log(str(tmp_path / "log.tsv")), 2),
        "gzip": (lambda: read_click_log(str(tmp_path / "log.csv.gz")), 2),
        "stream": (lambda: read_click_log(io.BytesIO(csv_text.encode())), 2),
        "dict": (lambda: ClickLog.from_columns(**{k: list(v) for k, v in columns.items()}), 1),
        "arrays": (lambda: ClickLog.from_columns(**columns), 1),
    }
    if parquet:
        paths["parquet"] = (lambda: read_click_log(parquet), 1)
        paths["pandas"] = (lambda: read_click_log(frame), 1)
        paths["polars"] = (lambda: read_click_log(pl.from_pandas(frame)), 1)
        paths["arrow"] = (lambda: read_click_log(pa.Table.from_pandas(frame, preserve_index=False)), 1)
    return paths


def _outcome(thunk, first):
    try:
        return "ok", thunk()
    except InputError as error:
        return "error", (error.field, None if error.line is None else error.line - first, error.message[:25])


def _same_everywhere(columns, tmp_path):
    outcomes = {name: _outcome(thunk, first) for name, (thunk, first) in _paths(columns, tmp_path).items()}
    kinds = {name: o[0] for name, o in outcomes.items()}
    assert len(set(kinds.values())) == 1, outcomes
    if kinds["csv"] == "ok":
        reference = outcomes["csv"][1]
        for name, (_, log) in outcomes.items():
            assert log.equals(reference), name
        return reference
    errors = {name: o[1] for name, o in outcomes.items()}
    assert len(set(errors.values())) == 1, errors
    return errors["csv"]


def test_every_path_gives_the_same_log(tmp_path):
    columns = random_log_columns(0, n_users=8)
    log = _same_everywhere(columns, tmp_path)
    assert log.n_rows == len(columns["rank"])
    # canonical: sorted by impression then rank, ranks 1..n in each impression
    starts = log.impression_offsets
    assert np.all(np.diff(log.impression) >= 0)
    for i in range(log.n_impressions):  # test only: a loop is fine
        assert log.rank[starts[i]:starts[i + 1]].tolist() == list(range(1, starts[i + 1] - starts[i] + 1))
    assert list(log.impression_ids) == sorted(set(columns["impression"]))
    # the row order of the input changes nothing
    order = np.random.default_rng(1).permutation(len(columns["rank"]))
    shuffled = ClickLog.from_columns(**{k: np.asarray(v)[order] for k, v in columns.items()})
    assert shuffled.equals(log)
    assert log.line.min() == 2 and sorted(log.line.tolist()) == list(range(2, log.n_rows + 2))


def test_clicked_spellings_and_integer_ids(tmp_path):
    base = {"impression": [7, 7, 8], "query": ["q", "q", "r"], "rank": [1, 2, 1], "doc": [1, 2, 3]}
    a = ClickLog.from_columns(**base, clicked=["1", "FALSE", "true"])
    b = ClickLog.from_columns(**base, clicked=[True, False, True])
    c = ClickLog.from_columns(**base, clicked=[1.0, 0.0, 1.0])
    assert a.equals(b) and b.equals(c)
    assert a.impression_ids.tolist() == ["7", "8"] and a.doc_ids.tolist() == ["1", "2", "3"]
    assert a.variant_ids.tolist() == ["all"]


BAD = [
    # (change to a valid log, field, row (0-based), words of the message)
    ({"rank": [1, 3, 1, 2], "clicked": [0, 1, 1, 0], "timestamp": [10.0, 12.0, 4.0, 3.0],
      "dwell": [None, 5.0, 1.0, None]}, "rank", 1, "click on rank 3, which was not shown"),
    ({"rank": [1, 3, 1, 2]}, "rank", 1, "has no row for rank 2 (found rank 3)"),
    ({"rank": [1, 1, 1, 2]}, "rank", 1, "two rows for rank 1"),
    ({"dwell": [5.0, None, -1.0, None]}, "dwell", 2, "dwell time >= 0"),
    ({"dwell": [5.0, 3.0, 1.0, None]}, "dwell", 1, "on a row not clicked"),
    ({"variant": ["A", "B", "B", "B"]}, "variant", 1, "has variant 'B' here but 'A'"),
    ({"session": ["s1", "s1", "s1", "s1"], "variant": ["A", "A", "B", "B"]}, "variant", 2, "a session belongs"),
    ({"query": ["q", "r", "q", "q"]}, "query", 1, "has query 'r'"),
    ({"rank": [1, "x", 1, 2]}, "rank", 1, "expected a rank"),
    ({"rank": [1, 0, 1, 2]}, "rank", 1, "expected a rank"),
    ({"clicked": [1, "yes", 0, 1]}, "clicked", 1, "expected 1, 0, true or false"),
    ({"clicked": [1, 2, 0, 1]}, "clicked", 1, "expected 1, 0, true or false"),
    ({"doc": ["a", "", "b", "c"]}, "doc", 1, "empty id"),
    ({"timestamp": [10.0, 12.0, 4.0, 3.0]}, "timestamp", 0, "click at 10.0 before"),
    ({"timestamp": [12.0, 10.0, 4.0, 3.0], "clicked": [0, 0, 1, 0], "dwell": [None] * 4}, "timestamp", 1,
     "impression 'i1' shown at 10.0 here but at 12.0"),
    ({"dwell": [5.0, None, 1.0, "soon"]}, "dwell", 3, "expected a number of seconds"),
]


def _valid():
    return {"impression": ["i1", "i1", "i2", "i2"], "query": ["q", "q", "q", "q"], "rank": [1, 2, 1, 2],
            "doc": ["a", "b", "a", "b"], "clicked": [1, 0, 1, 0], "variant": ["A", "A", "B", "B"],
            "timestamp": [12.0, 10.0, 4.0, 3.0], "dwell": [5.0, None, 1.0, None]}


@pytest.mark.parametrize("change, field, row, words", BAD, ids=[b[3][:20] for b in BAD])
def test_bad_input_is_one_error_on_every_path(change, field, row, words, tmp_path):
    columns = {**_valid(), **change}
    with pytest.raises(InputError) as caught:
        ClickLog.from_columns(**columns)
    assert words in str(caught.value), str(caught.value)
    assert caught.value.field == field and caught.value.line == row + 1
    with pytest.raises(InputError) as caught:
        read_click_log(io.BytesIO(_frame(columns).to_csv(index=False).encode()))
    assert caught.value.line == row + 2 and caught.value.field == field
    assert str(caught.value).startswith(f"<stream>:{row + 2}: field {field}: ")
    _same_everywhere(columns, tmp_path)


def test_planned_split_and_columns():
    with pytest.raises(InputError, match="variant 'C' of the planned split"):
        ClickLog.from_columns(**_valid(), expected_variants=["A", "B", "C"])
    with pytest.raises(InputError, match="variant 'B' is not in the planned split"):
        ClickLog.from_columns(**_valid(), expected_variants=["A"])
    assert ClickLog.from_columns(**_valid(), expected_variants=["B", "A"]).n_rows == 4
    with pytest.raises(InputError, match="unknown column 'dwel'"):
        ClickLog.from_columns(**_valid(), dwel=[1, 2, 3, 4])
    columns = _valid()
    del columns["doc"]
    with pytest.raises(InputError, match="no column 'doc'"):
        ClickLog.from_columns(**columns)
    with pytest.raises(UsageError):
        read_click_log(42)
    session_only = {**_valid(), "session": _valid()["impression"]}
    del session_only["impression"]
    assert ClickLog.from_columns(**session_only).impression_ids.tolist() == ["i1", "i2"]


def test_parquet_types(tmp_path):
    frame = _frame(_valid())
    frame["rank"] = frame["rank"].astype(float)  # whole floats are ranks
    frame["timestamp"] = pd.to_datetime(frame["timestamp"], unit="s")
    log = read_click_log(frame)
    assert log.rank.dtype == np.int64 and log.timestamp.tolist() == [12.0, 10.0, 4.0, 3.0]
    frame.loc[1, "rank"] = 1.5
    with pytest.raises(InputError, match="whole number"):
        read_click_log(frame)


def test_covariate_table(tmp_path):
    path = tmp_path / "pre.csv"
    path.write_text("user,covariate\nu1,1.5\nu2,2\n")
    assert read_covariate_table(str(path), unit="user") == {"u1": 1.5, "u2": 2.0}
    path.write_text("user,covariate\nu1,1.5\nu1,2\n")
    with pytest.raises(InputError, match="appears twice") as caught:
        read_covariate_table(str(path), unit="user")
    assert caught.value.line == 3


rows = st.lists(st.tuples(st.integers(0, 3), st.integers(1, 4), st.booleans(), st.sampled_from(["A", "B"])),
                min_size=1, max_size=12)


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(rows)
def test_random_logs_same_outcome_on_every_path(tmp_path_factory, data):
    """Arbitrary rows (duplicates, gaps, two variants in an impression...): every path agrees."""
    columns = {"impression": [f"i{r[0]}" for r in data], "query": ["q"] * len(data), "rank": [r[1] for r in data],
               "doc": [f"d{r[1]}" for r in data], "clicked": [int(r[2]) for r in data],
               "variant": [r[3] for r in data]}
    _same_everywhere(columns, tmp_path_factory.mktemp("h"))


def test_ids_in_runs_are_coded_once_with_the_same_result():
    """Large Arrow inputs code runs of equal ids (an impression's rows) once: same log, same errors."""
    from cranfield.io import _clicklog_fields as clicklog

    columns = random_log_columns(3, n_users=150)
    table = pa.table(columns)
    assert len(table) >= 1024 and clicklog._runs(table.column("impression")) is not None
    assert read_click_log(table).equals(ClickLog.from_columns(**columns))  # numpy arrays: no runs
    bad = dict(columns)
    bad["user"] = bad["user"].copy()
    bad["user"][700:705] = "u 7"  # whitespace in an id, in the middle of a run
    errors = []
    for source in (pa.table(bad), {k: list(v) for k, v in bad.items()}):
        with pytest.raises(InputError) as caught:
            read_click_log(source)
        errors.append((caught.value.line, caught.value.field))
    assert errors[0] == errors[1] == (701, "user")
