"""The compiled measure kernels (``cranfield._native.measure_kernels``) against the numpy kernels.

The contract: a family's kernel gives bit-identical values (same bytes, NaN and zero conventions
included) with the compiled pass on and off (``cranfield.measures._compiled.ENABLED``). A
hypothesis differential test draws ranked views directly (several levels incl. 0, levels beyond
the dense lookup table, unjudged and negatively judged documents, ties of gain, empty queries,
queries without relevant documents, long rankings) and evaluates every family with a compiled
pass under many parameters (gain maps with negative and fractional gains, gain=exp, trec_eval's
ideal, rel=, judged_only, cut-offs below and above the small-cut-off path). The byte-identical
trec_eval tests (tests/retrieval/test_trec_eval_binary.py) cover the compiled path end to end.
In CI (``CI`` set) the extension must be built.
"""

from __future__ import annotations

import itertools
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cranfield.errors import MeasureError
from cranfield.measures import _compiled
from cranfield.measures._running import RunningSums
from cranfield.measures.base import Measure, parse_measure
from cranfield.measures.condensed import view_for
from cranfield.measures.view import NONPOOL, UNJUDGED, RankedView

built = pytest.mark.skipif(_compiled._module is None, reason="cranfield._native.measure_kernels is not built")

MEASURES = [
    "G", "G(gains={0:1,1:-2,2:0.5,3:7})", "G(ideal=trec_eval)", "G(gains={1:0,2:3},ideal=trec_eval)",
    "BinG", "BinG(rel=2)", "BinG(rel=0)",
    "nDCG", "nDCG@3", "nDCG@40", "nDCG@1000", "nDCG(gain=exp)", "nDCG(gains={1:-1,2:2.5})@50",
    "nDCG(ideal=trec_eval,gains={0:2,3:1})", "DCG", "DCG@5", "DCG@100",
    "nDCGRel", "nDCGRel(gains={0:1,1:-2,2:0.5,3:7})", "nDCGRel(ideal=trec_eval)",
    "RnDCG", "RnDCG(gains={0:1,1:-2,2:0.5,3:7})", "RnDCG(gains={1:3,2:3,3:1})", "RnDCG(ideal=trec_eval)",
    "infAP", "infAP(rel=2)", "infAP(rel=0)", "Bpref", "Bpref(rel=3)", "GMBpref",
    "IPrec@0", "IPrec@0.3", "IPrec@1", "IPrec(rel=2)@0.5", "IPrec(rounding=nearest)@0.5", "IPrec11",
    "NumRelRet", "NumRelRet(rel=2)", "NumNonRelJudgedRet", "NumNonRelJudgedRet(rel=0)",
]
# every measure also on the condensed list (unjudged documents removed)
ALL = [parse_measure(m) for m in MEASURES] + [Measure(parse_measure(m).name, {**dict(parse_measure(m).params),
                                                                         "judged_only": True},
                                                      parse_measure(m).cutoff) for m in MEASURES[::3]]
LEVELS = [0, 1, 2, 3, 5, 700, 5000]  # 5000: beyond the dense lookup table (binary search)


@st.composite
def views(draw):
    n_q = draw(st.integers(0, 5))
    levels = sorted(draw(st.sets(st.sampled_from(LEVELS), min_size=1, max_size=4)))
    long_list = draw(st.integers(0, 9)) == 0
    offsets, rel, counts = [0], [], np.zeros((n_q, len(levels)), dtype=np.int64)
    for q in range(n_q):
        judged = draw(st.lists(st.sampled_from(levels), max_size=12))
        for level in judged:
            counts[q, levels.index(level)] += 1
        retrieved = [level for level in judged if draw(st.booleans())]
        extra = draw(st.lists(st.sampled_from([NONPOOL, UNJUDGED]), max_size=6))
        if long_list:
            extra += [NONPOOL] * draw(st.integers(0, 1300))
        ranking = draw(st.permutations(retrieved + extra))
        rel += ranking
        offsets.append(len(rel))
    return (np.array([f"q{i}" for i in range(n_q)], dtype=object), np.array(offsets, dtype=np.int64),
            np.array(rel, dtype=np.int64), np.array(levels, dtype=np.int64), counts,
            draw(st.sampled_from([0, 1, 1, 2])))


def values(parts, measure, compiled: bool):
    """The kernel's values on a fresh view (nothing shared between the two paths)."""
    view = RankedView(*parts[:5], relevance_level=parts[5])
    saved = _compiled.ENABLED
    _compiled.ENABLED = compiled
    try:
        return np.asarray(measure.family.kernel(view_for(view, measure), measure), dtype=np.float64)
    except (MeasureError, IndexError) as error:  # the same error on both paths: gain=exp of level 5000;
        return f"{type(error).__name__}: {error}"  # ideal=trec_eval of a query without judgments (numpy's IndexError)
    finally:
        _compiled.ENABLED = saved


def same(a, b) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    return a.shape == b.shape and a.tobytes() == b.tobytes()


@built
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(views())
def test_compiled_kernels_give_the_numpy_values_bit_for_bit(parts):
    for measure in ALL:
        compiled, reference = values(parts, measure, True), values(parts, measure, False)
        assert same(compiled, reference), (str(measure), compiled, reference)


@built
def test_measures_in_sequence_share_statistics_identically():
    """One view evaluated by every measure in turn (the caches shared as in an evaluation)."""
    rng = np.random.default_rng(7)
    n_q = 40
    lengths = rng.integers(0, 300, n_q)
    rel = rng.choice([NONPOOL, UNJUDGED, 0, 1, 2, 3], size=int(lengths.sum()), p=[.5, .05, .2, .1, .1, .05])
    offsets = np.concatenate(([0], np.cumsum(lengths)))
    levels = np.array([0, 1, 2, 3])
    counts = np.array([[np.count_nonzero(rel[a:b] == lv) + 2 for lv in levels] for a, b in itertools.pairwise(offsets)])
    parts = (np.array([f"q{i}" for i in range(n_q)], dtype=object), offsets, rel, levels, counts)
    results = {}
    for compiled in (True, False):
        view = RankedView(*parts)
        _compiled.ENABLED = compiled
        try:
            results[compiled] = [np.asarray(m.family.kernel(view_for(view, m), m)) for m in ALL]
        finally:
            _compiled.ENABLED = True
    for m, a, b in zip(ALL, results[True], results[False]):
        assert a.tobytes() == b.tobytes(), str(m)


@built
@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 70), max_size=12), st.data())
def test_compiled_running_sums_read_as_the_grids(lengths, data):
    """RunningSums over one flat compiled array gives the grids' sums at every k (scalar, per
    query, per item; beyond a query's end, 0 and below)."""
    lengths = np.array(lengths, dtype=np.int64)
    values = np.array(data.draw(st.lists(st.sampled_from([0.0, 1.0, -2.5, 1e-3, 3.0, 1e16, -7.25]),
                                         min_size=int(lengths.sum()), max_size=int(lengths.sum()))))
    k = np.array(data.draw(st.lists(st.integers(-2, 90), min_size=lengths.size, max_size=lengths.size)), np.int64)
    query = np.repeat(np.arange(lengths.size), 3)
    each = np.resize(k, query.size)
    sums = {}
    for compiled in (True, False):
        _compiled.ENABLED = compiled
        try:
            running = RunningSums(values, lengths)
        finally:
            _compiled.ENABLED = True
        assert (running.flat is not None) == compiled
        sums[compiled] = [running.at(5), running.at(0), running.at(10**18), running.at(k), running.at_each(query, each)]
    for a, b in zip(sums[True], sums[False]):
        assert a.tobytes() == b.tobytes()


def test_the_log2_table_is_numpys_log2_of_any_array():
    """The compiled kernels read log2(k + 2) from a table; the numpy kernels take np.log2 of
    arrays of any length and alignment: the values must be the same."""
    table = _compiled.log2_table(5000)
    rng = np.random.default_rng(1)
    for size in (1, 3, 7, 8, 9, 15, 16, 17, 33, 100, 1001):
        for start in (0, 1, 3):
            k = rng.integers(0, 5000, size + start)[start:]
            assert np.log2(k + 2.0).tobytes() == table[k].tobytes()


I = np.int64
GOOD_GAIN = (np.zeros(2, I), np.array([0, 2]), np.array([0, 1]), np.ones(2), np.ones(4), np.ones(1), np.array([1]),
             np.array([1]))
GOOD_BINARY = (np.zeros(3, I), np.array([0, 3]), 1, np.zeros(1, I), np.zeros(1, I), np.ones(4))


def _with(args, index, value):
    return args[:index] + (value,) + args[index + 1:]


@built
@pytest.mark.parametrize("call", [
    lambda m: m.binary_pass(*_with(GOOD_BINARY, 0, np.zeros(3, np.int32))),
    lambda m: m.binary_pass(*_with(GOOD_BINARY, 0, np.zeros(3))),
    lambda m: m.binary_pass(*_with(GOOD_BINARY, 0, np.zeros(6, I)[::2])),
    lambda m: m.binary_pass(*_with(GOOD_BINARY, 1, np.array([0, 4]))),
    lambda m: m.binary_pass(*_with(GOOD_BINARY, 1, np.array([2, 1]))),
    lambda m: m.binary_pass(*_with(GOOD_BINARY, 1, np.zeros(0, I))),
    lambda m: m.binary_pass(*_with(GOOD_BINARY, 3, np.zeros(2, I))),
    lambda m: m.binary_pass(*_with(GOOD_BINARY, 4, b"x")),
    lambda m: m.binary_pass(*_with(GOOD_BINARY, 5, np.ones(2))),
    lambda m: m.binary_pass(*GOOD_BINARY[:5]),
    lambda m: m.gain_pass(*_with(GOOD_GAIN, 0, np.array([5, 0]))),  # a code above every level
    lambda m: m.gain_pass(*_with(GOOD_GAIN, 2, np.array([1, 0]))),  # levels not ascending
    lambda m: m.gain_pass(*_with(GOOD_GAIN, 3, np.ones(3))),
    lambda m: m.gain_pass(*_with(GOOD_GAIN, 4, np.ones(1))),  # too few logarithms
    lambda m: m.gain_pass(*_with(GOOD_GAIN, 5, np.ones(1, np.float32))),
    lambda m: m.gain_pass(*_with(GOOD_GAIN, 6, np.array([2]))),  # ideal lengths do not sum up
    lambda m: m.gain_pass(*_with(GOOD_GAIN, 6, np.array([-1]))),
    lambda m: m.gain_pass(*_with(GOOD_GAIN, 7, np.array([1, 1]))),
    lambda m: m.segment_cumsum(np.zeros(3), np.array([2, 2])),
    lambda m: m.segment_cumsum(np.zeros(3), np.array([4, -1])),
])
def test_wrong_arrays_are_refused_with_an_exception(call):
    with pytest.raises((TypeError, ValueError, IndexError, BufferError)):
        call(_compiled._module)


@built
def test_good_arguments_are_accepted():
    """The refusals above are of the one changed argument: the unchanged call runs."""
    module = _compiled._module
    assert len(module.gain_pass(*GOOD_GAIN)) == 7 and len(module.binary_pass(*GOOD_BINARY)) == 6
    assert np.frombuffer(module.segment_cumsum(np.arange(3.0), np.array([2, 1]))).tolist() == [0, 0, 1, 2]


def test_the_compiled_kernels_are_built_in_ci():
    """CI installs the package with its compiled core: the kernels must import there."""
    if _compiled._module is None and not os.environ.get("CI"):
        pytest.skip("the extension is not built here (CI requires it)")
    import cranfield._native.measure_kernels as module

    assert _compiled.kernels() is module
