"""The compiled dict-run path (``cranfield._native.dict_run``) against the Python path.

``Evaluator.evaluate`` ranks a ``{qid: {docno: score}}`` dict with the compiled core when it is
built; forcing it off (``_dict_run`` in ranked and ``_dict_columns`` in _table set to None) runs ``Run.from_dict`` + ``rank``, the
reference. On every input both must give the same per-query values (``==``) and aggregates, or
the same error (type and text): the core declines whatever it does not take as is, so the Python
path raises its own error.
"""

from __future__ import annotations

import collections
import contextlib
import importlib
import math
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cranfield
from cranfield.retrieval import _table, ranked
from cranfield.retrieval.qrels import Qrels
from cranfield.retrieval.run import Run

MEASURES = ["AP", "nDCG@10", "P@5", "P@10", "R@100", "RR", "bpref", "RPrec", "NumRet", "NumRelRet", "NumRel",
            "Success@3", "ERR@20"]
OPTIONS = [{}, {"complete": True}, {"max_results": 3}, {"judged_only": True}, {"relevance_level": 2},
           {"max_results": 0}, {"complete": True, "judged_only": True, "max_results": 5}]

needs_core = pytest.mark.skipif(ranked._dict_run is None, reason="the compiled core is not built")

# ids: ASCII and not, prefixes of each other (byte-wise order), a non-ASCII blank (an id character)
# and a control character other than the blanks (an id character too)
IDS = ["d", "d1", "d10", "d2", "D", "a", "é", "e\u0301", "日本", "ß", "a\u00a0b", "x\x01", "zz", "0", "😀"]
QIDS = ["q1", "q2", "q10", "Q", "é", "7"]
SCORES = [0.0, -0.0, 1.0, 2.5, -3.0, 5e-324, -5e-324, 1e308, -1e308, 0.1, 7, -2, 2**53 + 1, 2**63 - 1, -2**63]


def _outcome(evaluator, run):
    try:
        result = evaluator.evaluate(run)
    except Exception as error:  # noqa: BLE001 - the error itself is compared
        return type(error), str(error)
    return (list(result.query_ids), {m: result.per_query[m].tolist() for m in MEASURES},
            {m: result.mean[m] for m in MEASURES}, None if result.in_run is None else result.in_run.tolist(),
            result.run_name)


def both(qrels, run, **options):
    """(compiled, Python) outcome of ``Evaluator(qrels, MEASURES, **options).evaluate(run)``."""
    evaluator = cranfield.Evaluator(qrels, MEASURES, **options)
    native = _outcome(evaluator, run)
    with python_path():
        python = _outcome(evaluator, run)
    return native, python


@contextlib.contextmanager
def python_path():
    """The compiled core off (ranking and the dict columns of Run.from_dict and Qrels.from_dict), without a function fixture
    (hypothesis)."""
    cores = ranked._dict_run, _table._dict_columns
    ranked._dict_run = _table._dict_columns = None
    try:
        yield
    finally:
        ranked._dict_run, _table._dict_columns = cores


def assert_same(qrels, run, **options):
    native, python = both(qrels, run, **options)
    assert native == python
    return native


scores = st.one_of(st.sampled_from(SCORES), st.floats(allow_nan=False, allow_infinity=False),
                   st.integers(-2**63, 2**63 - 1))
runs = st.dictionaries(st.sampled_from(QIDS + ["absent"]), st.dictionaries(st.sampled_from(IDS), scores, max_size=12),
                       max_size=5)
qrels_dicts = st.dictionaries(st.sampled_from(QIDS), st.dictionaries(st.sampled_from(IDS), st.integers(-2, 3),
                                                                      min_size=1, max_size=10),
                              min_size=1, max_size=5)


@needs_core
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(qrels=qrels_dicts, run=runs, options=st.sampled_from(OPTIONS))
def test_random_dicts_same_values_or_errors(qrels, run, options):
    """Ties (few distinct scores), unicode docnos, docnos and queries absent from the qrels, empty
    queries, -0.0, subnormal and huge scores, int scores: the same values, or the same error (an
    empty run, no query in common)."""
    outcome = assert_same(qrels, run, **options)
    if isinstance(outcome[0], list):  # values: the core ranked the run itself (it did not decline)
        prepared = cranfield.Evaluator(qrels, ["AP"])._prepared
        view = ranked.rank_dict(prepared, run, **options)
        assert view is not None
        assert_judged_rows(view)


def assert_judged_rows(view):
    """The core's positions of the judged rows are those a scan of the ranking finds (ascending,
    whatever order the run dict lists its queries in), and the relevant rows found through them
    are those found by the scan, at every level."""
    import dataclasses

    if view.judged_rows is None:
        return
    assert view.judged_rows.tolist() == np.flatnonzero(view.rel != -1).tolist()
    for level in (0, 1, 2, 3):
        hinted = view.at_level(level).relevant
        scanned = dataclasses.replace(view, judged_rows=None, relevance_level=level, _cache={}).relevant
        assert all(a.tolist() == b.tolist() for a, b in zip(hinted, scanned))


@needs_core
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(qrels=qrels_dicts, run=runs, bad=st.sampled_from(
    [math.nan, math.inf, -math.inf, None, "1", True, False, 2**63, -2**63 - 1, 2**70, np.float64(1.5), np.int64(3),
     1.5 + 0j, [1.0]]), where=st.integers(0, 50))
def test_bad_scores_same_error_or_values(qrels, run, bad, where):
    """A score the core does not take as is (NaN, inf, None, text, bool, an int beyond int64, numpy
    scalars): it declines, and the outcome is the Python path's (its error text, or its values)."""
    run = {**run, "q1": {**run.get("q1", {}), "dbad": 1.0}}
    keys = [(q, d) for q, docs in run.items() for d in docs]
    q, d = keys[where % len(keys)]
    run[q] = {**run[q], d: bad}
    assert_same(qrels, run)


class _Str(str):
    pass


@needs_core
@pytest.mark.parametrize("bad_id", ["", "a b", "a\tb", "a\nb", "a\rb", "a\x0bb", "a\x0cb", "a\x00b", "\ud800", 5,
                                    True, None, 1.5, _Str("d1"), b"d1"])
@pytest.mark.parametrize("where", ["qid", "docno"])
def test_bad_ids_same_error(bad_id, where):
    """Empty ids, ASCII blanks, NUL, lone surrogates, non-str ids (an int is taken as its text by
    the Python path), a str subclass: the Python path decides."""
    qrels = {"q1": {"d1": 1, "d2": 0}, "5": {"d1": 1}}
    run = {"q1": {"d1": 0.5, "d2": 0.7}, "q2": {"d9": 1.0}}
    if where == "qid":
        run[bad_id] = {"d1": 1.0}
    else:
        run["q1"] = {**run["q1"], bad_id: 0.1}
    assert_same(qrels, run)


@needs_core
@pytest.mark.parametrize("length", range(1, 20))
def test_blank_at_every_position(length):
    """The compiled id check reads ASCII ids 8 bytes at a time (overlapping loads, halves and
    single bytes for short ids): a blank or NUL at any position of an id of any length is found,
    a control byte that is no blank (an id character) is not, in either role."""
    for position in range(length):
        for byte in (" ", "\t", "\n", "\r", "\x0b", "\x0c", "\x00", "\x01", "\x1f", "!", "~"):
            bad = "d" * position + byte + "e" * (length - position - 1)
            assert_same({"q1": {"d1": 1, bad if byte > " " else "d2": 0}},
                        {"q1": {"d1": 0.5, bad: 0.7}, ("q" + bad) if length > 1 else "q1": {"d1": 1.0}})


@pytest.mark.parametrize("run", [
    {}, {"q1": {}}, {"zz": {"d1": 1.0}}, {"q1": [("d1", 1.0)]}, {"q1": collections.OrderedDict(d1=1.0)},
    collections.OrderedDict(q1={"d1": 1.0}), {"q1": {"d1": 1.0}, "": {}}, {5: {}, "q1": {"d1": 2.0}},
])
@needs_core
def test_shapes_same_outcome(run):
    """An empty run, an empty query (its id is not checked), no query in common, a non-dict
    query, dict subclasses: the same values or the same error."""
    assert_same({"q1": {"d1": 1, "d2": 0}}, run)


@needs_core
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("options", OPTIONS[:4])
def test_long_queries_sorted_path(seed, options):
    """Queries with many judged documents (the core sorts them instead of counting), with and
    without tied scores (ranked by docno, byte-wise), a run listed in score order or not."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(8):
        n = int(rng.integers(1, 400))
        docs = [f"d{i}" if i % 7 else f"文{i}" for i in rng.choice(2000, size=n, replace=False)]
        levels = rng.integers(-1, 3, size=n)
        judged = rng.random(n) < rng.random()
        qrels[f"q{q}"] = {d: int(r) for d, r, j in zip(docs, levels, judged) if j} or {"none": 1}
        values = rng.integers(0, int(rng.integers(1, 6)) * 4, size=n) / 4 if seed % 2 else rng.random(n)
        pairs = sorted(zip(docs, values.tolist()), key=lambda p: -p[1]) if seed % 3 == 0 else zip(docs, values.tolist())
        run[f"q{q}"] = dict(pairs)
    order = rng.permutation(8) if seed % 2 else range(8)  # the run's queries listed out of code order too
    run = {f"q{q}": run[f"q{q}"] for q in order}
    result = assert_same(qrels, run, **options)
    assert isinstance(result, tuple) and isinstance(result[0], list)
    assert_judged_rows(ranked.rank_dict(cranfield.Evaluator(qrels, ["AP"])._prepared, run, **options))


@needs_core
def test_the_core_ranks_dict_runs(monkeypatch):
    """With the core built, a dict run never becomes Run columns (Run.from_dict is not called)."""
    def refuse(*args, **kwargs):
        raise AssertionError("Run.from_dict called")

    evaluator = cranfield.Evaluator({"q1": {"b": 1, "a": 2}}, ["AP", "nDCG@10"])
    monkeypatch.setattr(Run, "from_dict", classmethod(refuse))
    result = evaluator.evaluate({"q1": {"a": 1.0, "b": 1.0, "c": 3.0}}, name="mine")
    # ties by docno descending: c (3.0), then b before a (both 1.0)
    assert result.per_query["AP"].tolist() == [(1 / 2 + 2 / 3) / 2]
    assert result.run_name == "mine"
    assert cranfield.evaluate({"q1": {"b": 1}}, {"q1": {"b": 0.5}}, ["P@1"]).mean["P@1"] == 1.0


@needs_core
def test_values_equal_pytrec_eval():
    """The compiled path against pytrec_eval (trec_eval's code) on a run with ties."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(3)
    qrels = {f"q{q}": {f"d{d}": int(rng.integers(0, 3)) for d in rng.choice(300, 30, replace=False)}
             for q in range(40)}
    run = {f"q{q}": {f"d{d}": float(rng.integers(0, 20)) for d in rng.choice(300, 100, replace=False)}
           for q in range(40)}
    ours = cranfield.Evaluator(qrels, ["AP", "nDCG@10", "P@10", "R@100", "RR"]).evaluate(run)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut_10", "P_10", "recall_100", "recip_rank"}) \
        .evaluate(run)
    for name, trec in (("AP", "map"), ("nDCG@10", "ndcg_cut_10"), ("P@10", "P_10"), ("R@100", "recall_100"),
                       ("RR", "recip_rank")):
        assert ours.per_query[name].to_dict() == {q: theirs[q][trec] for q in theirs}


def test_core_imports_in_ci():
    """CI builds the compiled core (pip install): there it must import, never fall back silently."""
    if not os.environ.get("CI"):
        pytest.skip("outside CI the core may be unbuilt (a source checkout)")
    module = importlib.import_module("cranfield._native.dict_run")
    assert hasattr(module, "rank") and hasattr(module, "index")
    assert hasattr(importlib.import_module("cranfield._native.dict_columns"), "columns")



@needs_core
def test_threads_share_an_evaluator():
    """The core ranks without the GIL: evaluations of one Evaluator in several threads (runs with
    and without ties) give each run's own values."""
    from concurrent.futures import ThreadPoolExecutor

    rng = np.random.default_rng(7)
    qrels = {f"q{q}": {f"d{d}": int(rng.integers(0, 3)) for d in rng.choice(500, 60, replace=False)}
             for q in range(50)}
    runs = [{f"q{q}": {f"d{d}": float(rng.integers(0, 4 + 40 * (i % 2))) for d in rng.choice(500, 200, replace=False)}
             for q in range(50)} for i in range(6)]
    evaluator = cranfield.Evaluator(qrels, MEASURES)
    alone = [_outcome(evaluator, run) for run in runs]
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda run: _outcome(evaluator, run), runs * 3))
    assert together == alone * 3


@needs_core
def test_core_does_not_change_the_run():
    """The run dict is read, never changed (and its objects' reference counts are restored)."""
    import copy
    import sys

    run = {"q1": {"b": 1.0, "a": 1.0, "c": 0.5}, "q2": {"x": 2.0}}
    before = copy.deepcopy(run)
    counts = [sys.getrefcount(docs) for docs in run.values()]
    cranfield.Evaluator({"q1": {"a": 1}}, ["AP"]).evaluate(run)
    assert run == before and [(q, list(d)) for q, d in run.items()] == [(q, list(d)) for q, d in before.items()]
    assert [sys.getrefcount(docs) for docs in run.values()] == counts


@needs_core
@pytest.mark.parametrize("options", OPTIONS[:4])
def test_diversity_evaluator_same_values(options):
    """DiversityEvaluator (document numbers as the judgments' codes) takes the compiled path too."""
    from cranfield.retrieval.diversity import DiversityEvaluator

    rng = np.random.default_rng(11)
    qrels = {f"q{q}": {f"s{s}": {f"d{d}": int(rng.integers(-1, 3)) for d in rng.choice(40, 8, replace=False)}
                       for s in range(3)} for q in range(5)}
    run = {f"q{q}": {f"d{d}": float(rng.integers(0, 5)) for d in rng.choice(40, 25, replace=False)} for q in range(5)}
    evaluator = DiversityEvaluator(qrels, ["alpha-nDCG@10", "ERR-IA@20", "AP", "P@5"], **options)
    assert ranked.rank_dict(evaluator._prepared, run, **evaluator.options) is not None
    native = evaluator.evaluate(run)
    with python_path():
        python = evaluator.evaluate(run)
    assert {m: v.tolist() for m, v in native.per_query.items()} == {m: v.tolist() for m, v in python.per_query.items()}


def _columns(run):
    try:
        table = Run.from_dict(run, name="r")
    except Exception as error:  # noqa: BLE001 - the error itself is compared
        return type(error), str(error)
    return (table.qid.to_pylist(), table.docno.to_pylist(), table.score.tolist(), table.lines.tolist(),
            table.query_starts().tolist(), table.name, table.source, len(table.qid.chunks), table.qid.type)


@needs_core
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(run=runs, bad=st.sampled_from([None, math.nan, True, "x", 2**64, np.float32(0.5), "a b", 7]),
       where=st.integers(0, 60), as_key=st.booleans(), spoil=st.booleans())
def test_run_from_dict_same_columns(run, bad, where, as_key, spoil):
    """Run.from_dict's columns from the core == the Python path's (ids, scores, line numbers, query
    blocks), or the same error."""
    keys = [(q, d) for q, docs in run.items() for d in docs]
    if spoil and keys:
        q, d = keys[where % len(keys)]
        run = {**run, q: ({**run[q], bad: 1.0} if as_key and not isinstance(bad, float) else {**run[q], d: bad})}
    native = _columns(run)
    with python_path():
        python = _columns(run)
    assert native == python
    if not spoil and keys:  # a good dict: the core built the columns itself
        assert _table._dict_columns.columns(run) is not None


class _Str(str):
    pass


class _Int(int):
    pass


# relevances: exact ints (near the int64 limits and beyond), and what the core must decline for
# the Python path to take or refuse (bools, whole and fractional floats, numpy ints, int subclasses,
# None, text)
RELS = st.one_of(st.integers(-3, 3), st.integers(2**63 - 3, 2**63 + 2), st.integers(-2**63 - 2, -2**63 + 2),
                 st.sampled_from([True, False, 1.0, -2.0, 0.5, math.nan, 2.0**63, np.int64(2), np.int32(-1),
                                  np.uint64(2**64 - 1), np.bool_(True), _Int(1), None, "1"]))
QREL_IDS = st.one_of(st.sampled_from(IDS), st.sampled_from(["", "a b", "x\x00", _Str("d"), 7, -1, 2.5, None, True]))


def _qrels_columns(qrels):
    try:
        table = Qrels.from_dict(qrels)
    except Exception as error:  # noqa: BLE001 - the error itself is compared
        return type(error), str(error)
    return (table.qid.to_pylist(), table.docno.to_pylist(), table.rel.tolist(), table.rel.dtype, table.lines.tolist(),
            table.query_starts().tolist(), table.name, table.source, len(table.qid.chunks), table.qid.type,
            table.docno.type)


@needs_core
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(qrels=st.dictionaries(st.one_of(st.sampled_from(QIDS), QREL_IDS),
                             st.dictionaries(st.one_of(st.sampled_from(IDS), st.sampled_from(IDS), QREL_IDS),
                                             st.one_of(st.integers(-2, 4), st.integers(-2, 4), RELS), max_size=6),
                             max_size=5))
def test_qrels_from_dict_same_columns(qrels):
    """Qrels.from_dict's columns from the core == the Python path's (ids, int64 relevances, rows,
    query blocks), or the same error text; bools, floats, numpy and subclassed values decline."""
    native = _qrels_columns(qrels)
    with python_path():
        python = _qrels_columns(qrels)
    assert native == python


@needs_core
def test_qrels_from_dict_takes_the_core():
    """A plain int dict is built by the core (int64 kept exact at both limits); a bool, a float or a
    numpy int declines (the Python path refuses the bool and keeps the others' values)."""
    good = {"q1": {"d1": 2**63 - 1, "d2": -2**63, "d3": 0}, "q2": {}, "q0": {"d9": -1}}
    assert _table._dict_columns.columns(good, True) is not None
    assert Qrels.from_dict(good).rel.tolist() == [2**63 - 1, -2**63, 0, -1]
    for bad in (True, 1.0, np.int64(1), _Int(1), 2**63, -2**63 - 1):
        assert _table._dict_columns.columns({"q": {"d": bad}}, True) is None
    assert _table._dict_columns.columns({"q": {"d": 1.5}}) is not None  # scores take floats
    with pytest.raises(cranfield.errors.InputError, match="True"):
        Qrels.from_dict({"q": {"d": True}})
