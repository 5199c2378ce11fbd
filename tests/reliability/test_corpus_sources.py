"""Bad-input corpus for the typed inputs (issue 19): Parquet (whole and batch-wise, files and
datasets), Arrow tables, pandas and polars frames, dicts, and the command line.

Every case is one table of values; the same values go through every path, which must give the
same rows or the same error: exact class, message fragment, 1-based row and field (DESIGN
principle 11: a cross-path differential test). Cases are built in ``tmp_path`` (the file corpus of
``test_corpus.py`` stays as it is: every file there belongs to one of its cases).

Classes fixed by issue 19 that these cases pin down: a NaN / inf score read from Parquet (it gave
AP 1.0), uint64 2⁶⁴−1 relevance (it became −1), Python ints beyond int64, fractional float
relevance, booleans taken for numbers, nulls (``pd.NA``, None), mixed-type object columns
(ArrowInvalid / OverflowError escaped), ids with blanks or empty ids from typed inputs, a query id
starting with ``#``, and row numbers that restarted in each batch of a Parquet dataset.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import cranfield
import cranfield.cli
from cranfield.errors import InputError
from cranfield.io.parquet import iter_parquet_batches

from .test_corpus import GOOD_QRELS, GOOD_RUN

N = 6  # rows per case: q1 d1..d3, q2 d4..d6


def _ids():
    return ["q1", "q1", "q1", "q2", "q2", "q2"], [f"d{i}" for i in range(1, N + 1)]


@dataclass
class Case:
    id: str
    kind: str  # run | qrels
    columns: dict  # qid, docno, score/rel as Arrow arrays (or Python lists)
    fragment: str | None = None  # None: accepted
    line: int | None = None
    field: str | None = None
    expect: dict | None = None  # accepted: the dict the container gives back
    frames: bool = True  # the pandas / polars paths apply (some Arrow types have no pandas twin)

    @property
    def value_field(self) -> str:
        return "score" if self.kind == "run" else "rel"

    def table(self) -> pa.Table:
        return pa.table({k: (v if isinstance(v, (pa.Array, pa.ChunkedArray)) else pa.array(v))
                         for k, v in self.columns.items()})


def _run(name, score, fragment=None, line=None, field="score", qid=None, docno=None, **kw):
    qids, docnos = _ids()
    return Case(name, "run", {"qid": qid if qid is not None else qids, "docno": docno if docno is not None else docnos,
                              "score": score}, fragment, line, field if fragment else None, **kw)


def _qrels(name, rel, fragment=None, line=None, field="rel", qid=None, docno=None, **kw):
    qids, docnos = _ids()
    return Case(name, "qrels", {"qid": qid if qid is not None else qids,
                                "docno": docno if docno is not None else docnos, "rel": rel},
                fragment, line, field if fragment else None, **kw)


SCORES = [3.0, 2.0, 1.0, 3.0, 2.0, 1.0]
RELS = [1, 0, 2, 0, 1, 1]

CASES = [
    # ------------------------------------------------------------------ scores
    _run("score NaN", [3.0, 2.0, float("nan"), 3.0, 2.0, 1.0], "expected a finite number, found nan", 3,
         frames=False),  # pandas takes NaN for a missing value: its own case below
    _run("score +inf", [3.0, 2.0, 1.0, 3.0, float("inf"), 1.0], "expected a finite number, found inf", 5),
    _run("score -inf float32", pa.array([3.0, 2.0, 1.0, 3.0, 2.0, -np.inf], pa.float32()),
         "expected a finite number, found -inf", 6),
    _run("score null", pa.array([3.0, None, 1.0, 3.0, 2.0, 1.0]), "missing value (null)", 2),
    _run("score boolean", [True, False, True, False, True, False], "found a boolean (True/False) column"),
    _run("score text column", ["3", "2", "1", "3", "2", "1"], "expected finite numbers, found a text column"),
    _run("score uint64 max is a number", pa.array([2**64 - 1, 2, 1, 3, 2, 1], pa.uint64()),
         expect={"q1": {"d1": float(2**64 - 1), "d2": 2.0, "d3": 1.0}, "q2": {"d4": 3.0, "d5": 2.0, "d6": 1.0}}),
    _run("score int8", pa.array([3, 2, 1, 3, 2, 1], pa.int8()),
         expect={"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d4": 3.0, "d5": 2.0, "d6": 1.0}}),
    # ------------------------------------------------------------------ relevance
    _qrels("rel uint64 2^64-1", pa.array([1, 0, 2, 2**64 - 1, 1, 1], pa.uint64()),
           "expected an integer relevance (within int64), found 18446744073709551615", 4),
    _qrels("rel fraction", [1.0, 0.0, 2.5, 0.0, 1.0, 1.0], "expected an integer relevance, found 2.5", 3),
    _qrels("rel NaN", pa.array([1.0, 0.0, 2.0, float("nan"), 1.0, 1.0]), "expected an integer relevance, found nan", 4,
           frames=False),
    _qrels("rel beyond int64 as float", [1.0, 0.0, 2.0, 0.0, 1e19, 1.0], "expected an integer relevance, found 1e+19",
           5),
    _qrels("rel null", pa.array([1, 0, None, 0, 1, 1], pa.int64()), "missing value (null)", 3),
    _qrels("rel boolean", [True, False, True, False, True, True], "found a boolean (True/False) column"),
    _qrels("rel text column", ["1", "0", "2", "0", "1", "1"], "expected integer relevances, found a text column"),
    _qrels("rel whole floats", [1.0, 0.0, 2.0, 0.0, 1.0, -1.0],
           expect={"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 0, "d5": 1, "d6": -1}}),
    _qrels("rel uint8", pa.array([1, 0, 2, 0, 1, 1], pa.uint8()),
           expect={"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 0, "d5": 1, "d6": 1}}),
    _qrels("rel int64 max", pa.array([1, 0, 2, 0, 1, 2**63 - 1], pa.int64()),
           expect={"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 0, "d5": 1, "d6": 2**63 - 1}}),
    # ------------------------------------------------------------------ ids
    _run("docno null", SCORES, "missing id (null)", 4, "docno", docno=["d1", "d2", "d3", None, "d5", "d6"]),
    _run("docno empty", SCORES, "empty id", 2, "docno", docno=["d1", "", "d3", "d4", "d5", "d6"]),
    _run("docno with a space", SCORES, "id 'd 5' contains whitespace, which TREC files cannot hold", 5, "docno",
         docno=["d1", "d2", "d3", "d4", "d 5", "d6"]),
    _qrels("qid with a tab", RELS, "id 'q\\t2' contains whitespace", 4, "qid",
           qid=["q1", "q1", "q1", "q\t2", "q2", "q2"]),
    _qrels("qid with a vertical tab", RELS, "contains whitespace", 1, "qid",
           qid=["q\x0b1", "q1", "q1", "q2", "q2", "q2"]),
    _run("qid null", SCORES, "missing id (null)", 1, "qid", qid=[None, "q1", "q1", "q2", "q2", "q2"]),
    _run("integer qids are their decimal text", SCORES, qid=pa.array([1, 1, 1, 20, 20, 20]),
         expect={"1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "20": {"d4": 3.0, "d5": 2.0, "d6": 1.0}}),
    _run("no-break space inside an id is kept (as in TREC text)", SCORES,
         docno=["d1", "d2", "d3", "d4", "d\u00a05", "d6"],
         expect={"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d4": 3.0, "d\u00a05": 2.0, "d6": 1.0}}),
]
IDS = [f"{c.kind}: {c.id}" for c in CASES]


def _check(error: InputError, case: Case, source: str) -> None:
    assert isinstance(error, InputError), f"{type(error).__name__}: {error}"
    text = str(error)
    assert case.fragment in text, text
    assert error.source == source, (error.source, source)
    assert error.line == case.line, (error.line, case.line, text)
    assert error.field == (case.field or case.value_field)
    where = f"{source}:{case.line}: " if case.line is not None else f"{source}: "
    assert text.startswith(where), text
    assert "\n" not in text


def _container(kind: str):
    return cranfield.Run if kind == "run" else cranfield.Qrels


def _reader(kind: str):
    return cranfield.read_run if kind == "run" else cranfield.read_qrels


def _frames(case: Case) -> dict:
    table = case.table()
    frames = {"arrow": table}
    if case.frames:
        frames["pandas"] = table.to_pandas()
        pl = pytest.importorskip("polars")
        frames["polars"] = pl.from_arrow(table)
    return frames


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_frames(case: Case):
    """Arrow tables, pandas and polars frames: the same error, row and field (or the same rows)."""
    for flavour, frame in _frames(case).items():
        if case.fragment is None:
            got = _container(case.kind).from_frame(frame)
            assert got.to_dict() == case.expect, flavour
            continue
        with pytest.raises(InputError) as info:
            _container(case.kind).from_frame(frame)
        _check(info.value, case, f"{case.kind} frame")


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_parquet_whole_and_batches(case: Case, tmp_path):
    """One Parquet file, read whole and batch by batch (2 rows a batch: the bad row is not in the
    first batch, so a row number that restarts per batch would be wrong)."""
    path = tmp_path / f"{case.kind}.parquet"
    pq.write_table(case.table(), path, row_group_size=2)
    if case.fragment is None:
        assert _reader(case.kind)(path).to_dict() == case.expect
        rows = sum(len(b[2]) for b in iter_parquet_batches(path, kind=case.kind, batch_rows=2))
        assert rows == N
        return
    with pytest.raises(InputError) as info:
        _reader(case.kind)(path)
    _check(info.value, case, str(path))
    with pytest.raises(InputError) as info:
        for _ in iter_parquet_batches(path, kind=case.kind, batch_rows=2):
            pass
    _check(info.value, case, str(path))


@pytest.mark.parametrize("case", [c for c in CASES if c.fragment is not None], ids=[i for c, i in zip(CASES, IDS)
                                                                                   if c.fragment is not None])
def test_parquet_dataset_rows_are_global(case: Case, tmp_path):
    """The same rows split over three files of a dataset (two rows each): the error names the row
    of the whole dataset."""
    folder = tmp_path / "dataset"
    folder.mkdir()
    table = case.table()
    for i in range(3):
        pq.write_table(table.slice(2 * i, 2), folder / f"part-{i}.parquet")
    with pytest.raises(InputError) as info:
        _reader(case.kind)(folder)
    _check(info.value, case, str(folder))
    with pytest.raises(InputError) as info:
        for _ in iter_parquet_batches(folder, kind=case.kind, batch_rows=1):
            pass
    _check(info.value, case, str(folder))


@pytest.mark.parametrize("case", [c for c in CASES if c.fragment is not None and "column" not in c.fragment],
                         ids=[i for c, i in zip(CASES, IDS) if c.fragment is not None and "column" not in c.fragment])
def test_command_line_parquet(case: Case, tmp_path, capsys):
    """``cranfield evaluate`` on the Parquet file: exit 2, one line naming the file and row."""
    path = tmp_path / f"{case.kind}.parquet"
    pq.write_table(case.table(), path)
    argv = ["evaluate", str(GOOD_QRELS), str(path)] if case.kind == "run" else ["evaluate", str(path), str(GOOD_RUN)]
    status = cranfield.cli.main(argv + ["-m", "AP"])
    out, err = capsys.readouterr()
    assert status == 2 and "Traceback" not in out + err
    lines = err.strip("\n").split("\n")
    assert len(lines) == 1, err
    assert lines[0].startswith(f"cranfield: error: {path}:{case.line}: ") and case.fragment in lines[0]


# ------------------------------------------------------------------------------ dicts
DICT_CASES = [
    ("run", {"q1": {"d1": 1.0, "d2": float("inf")}}, "query 'q1', document 'd2': expected a finite number, found inf",
     2, "score"),
    ("run", {"q1": {"d1": 1.0}, "q2": {"d2": "high"}}, "query 'q2', document 'd2': expected a number, found 'high'",
     2, "score"),
    ("run", {"q1": {"d1": 1.0, "d2": None}}, "query 'q1', document 'd2': missing value (null)", 2, "score"),
    ("run", {"q1": {"d1": 1.0, "d2": True}}, "query 'q1', document 'd2': expected a number, found True", 2, "score"),
    ("run", {"q1": {"d1": 1.0}, None: {"d2": 1.0}}, "query None, document 'd2': missing id (null)", 2, "qid"),
    ("run", {"q1": {"d1": 1.0, 2.5: 1.0}}, "document 2.5: expected a text id, found float 2.5", 2, "docno"),
    ("run", {"q1": {"d1": 1.0, "": 1.0}}, "query 'q1', document '': empty id", 2, "docno"),
    ("qrels", {"q1": {"d1": 1, "d2": 2**64 - 1}}, "expected an integer relevance (within int64), found "
     "18446744073709551615", 2, "rel"),
    ("qrels", {"q1": {"d1": 1}, "q2": {"d2": 2**70}}, "expected an integer relevance (within int64)", 2, "rel"),
    ("qrels", {"q1": {"d1": 1, "d2": np.float64(0.5)}}, "expected an integer relevance, found 0.5", 2, "rel"),
    ("qrels", {"q1": {"d1": 1, "d2": True}}, "expected a number, found True", 2, "rel"),
    ("qrels", {"q1": {"d1": 1, "d2": "2"}}, "expected a number, found '2'", 2, "rel"),
    ("qrels", {"q1": {"d1": 1, "d2": None}}, "missing value (null)", 2, "rel"),
]


@pytest.mark.parametrize("kind, mapping, fragment, line, field", DICT_CASES,
                         ids=[f"{c[0]} dict: {c[2][:40]}" for c in DICT_CASES])
def test_dicts(kind, mapping, fragment, line, field):
    with pytest.raises(InputError) as info:
        _container(kind).from_dict(mapping)
    error = info.value
    assert fragment in str(error) and "\n" not in str(error)
    assert (error.source, error.line, error.field) == (f"{kind} dict", line, field)


def test_dict_accepts_integer_keys_and_numpy_numbers():
    run = cranfield.Run.from_dict({1: {2: np.float32(0.5), "d3": np.int64(4)}})
    assert run.to_dict() == {"1": {"2": 0.5, "d3": 4.0}}
    qrels = cranfield.Qrels.from_dict({"q": {"d": np.uint64(3), "e": 2.0}})
    assert qrels.to_dict() == {"q": {"d": 3, "e": 2}}


def test_mixed_object_columns_in_pandas():
    """Object columns that Arrow cannot type (ArrowInvalid / OverflowError escaped before)."""
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"qid": ["q1", "q1", "q2"], "docno": ["d1", "d2", "d3"], "rel": [1, 2**70, 0]})
    with pytest.raises(InputError, match=r"qrels frame:2: field rel: expected an integer relevance \(within int64\)"):
        cranfield.Qrels.from_frame(frame)
    frame["rel"] = pd.Series([1, "x", 0], dtype=object)
    with pytest.raises(InputError, match=r"qrels frame:2: field rel: expected a number, found 'x'"):
        cranfield.Qrels.from_frame(frame)
    frame["rel"] = [1, 0, 0]
    frame["docno"] = pd.Series(["d1", 2.5, "d3"], dtype=object)
    with pytest.raises(InputError, match=r"qrels frame:2: field docno: expected a text id, found float 2.5"):
        cranfield.Qrels.from_frame(frame)
    frame["docno"] = pd.Series(["d1", pd.NA, "d3"], dtype="string")
    with pytest.raises(InputError, match=r"qrels frame:2: field docno: missing id \(null\)"):
        cranfield.Qrels.from_frame(frame)
    frame["docno"] = ["d1", "d2", "d3"]
    frame["rel"] = pd.array([1, pd.NA, 0], dtype="Int64")
    with pytest.raises(InputError, match=r"qrels frame:2: field rel: missing value \(null\)"):
        cranfield.Qrels.from_frame(frame)
    frame["rel"] = np.array([1, 2**64 - 1, 0], dtype=np.uint64)
    with pytest.raises(InputError, match="found 18446744073709551615"):
        cranfield.Qrels.from_frame(frame)


def test_pandas_nan_score_is_a_missing_value():
    """pandas spells a missing value NaN: an error naming the row, like a null."""
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"qid": ["q1", "q1"], "docno": ["d1", "d2"], "score": [1.0, float("nan")]})
    with pytest.raises(InputError, match=r"run frame:2: field score: missing value \(null\)"):
        cranfield.Run.from_frame(frame)


def test_inputs_are_not_modified():
    """Integer ids are turned into text in a copy, never in the caller's array."""
    qids = np.array([1, 1, 2], dtype=object)
    before = qids.copy()
    cranfield.Run.from_frame(pa.table({"qid": pa.array(["1", "1", "2"]), "docno": ["a", "b", "c"],
                                       "score": [1.0, 2.0, 3.0]}))
    from cranfield.io.values import id_column

    assert id_column(qids, source="x", field="qid").to_pylist() == ["1", "1", "2"]
    assert qids.tolist() == before.tolist() and all(isinstance(v, int) for v in qids)


def test_nan_parquet_score_no_longer_gives_ap_one(tmp_path):
    """The issue's example: a NaN score read from Parquet gave AP 1.0; now it is an error."""
    path = tmp_path / "run.parquet"
    pq.write_table(pa.table({"qid": ["q1", "q1"], "docno": ["d1", "d2"], "score": [float("nan"), 1.0]}), path)
    with pytest.raises(InputError, match=r"run.parquet:1: field score: expected a finite number, found nan"):
        cranfield.evaluate({"q1": {"d1": 1}}, path, ["AP"])


def test_query_ids_starting_with_hash_are_data_in_dicts_and_frames():
    """A '#' id is an ordinary query id outside cranfield's text dialect (trec_eval 9.0.8 reads it
    as data): dicts and frames keep it."""
    import cranfield

    qrels = cranfield.read_qrels({"#q": {"d1": 1, "d2": 0}})
    run = cranfield.read_run({"#q": {"d1": 2.0, "d2": 1.0}})
    assert list(qrels.query_ids) == ["#q"]
    assert cranfield.evaluate(qrels, run, ["AP"]).mean["AP"] == 1.0
