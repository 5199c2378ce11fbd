"""trec_eval's per-query lines: the compiled writer (``cranfield._native.trec_lines``) against the
Arrow formatter of ``trec_text`` and against C's own ``%6.4f`` (Python's ``%`` operator, which
rounds the exact binary value as glibc's printf does; NaN's sign as glibc writes it).

* hypothesis: random measure names, query ids (any Unicode but NUL), values at the edges of the
  rounding rule (exact halfway points, products near 2^30, -0.0, tiny negatives, NaN of both signs,
  infinities, 1e300), counts up to ±2^62, relstrings: the same text, byte for byte;
* counts beyond int64 (NaN, 2^63): the Arrow path prints them, as before;
* in CI (``CI`` set) the extension must be built.
"""

from __future__ import annotations

import math
import os
import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cranfield.retrieval import trec_text

NEEDS_CORE = pytest.mark.skipif(trec_text._lines is None, reason="the compiled core is not built")
NEG_NAN = struct.unpack("<d", struct.pack("<Q", 0xFFF8000000000000))[0]

EDGES = [0.0, -0.0, 1.0, -1.0, 0.03125, -0.03125, 0.00005, 0.00015, 2.5e-5, -2.5e-5, 1e-9, -1e-9,
         (2**30 - 1) / 1e4, 2**30 / 1e4, -(2**30) / 1e4, 107374.18235, 1e5, 1e15, 1e40, -1e300, 1.7e308,
         math.inf, -math.inf, math.nan, NEG_NAN, 0.99995, 0.49995, 123.45675, 5e-324]
values = st.one_of(st.sampled_from(EDGES), st.floats(allow_nan=True, allow_infinity=True),
                   st.floats(-2.0, 2.0), st.integers(-10**6, 10**6).map(lambda i: i / 2**11))
counts = st.one_of(st.integers(-2**62, 2**62), st.integers(-5, 1000)).map(float)
ident = st.text(st.characters(blacklist_characters="\0\t\n", blacklist_categories=("Cs",)), min_size=1,
                max_size=8)


def _arrow(names, qids, columns, kinds):
    return "".join(trec_text.iter_lines(names, qids, trec_text.formatted(columns, kinds, threads=2), threads=2))


def _reference(names, qids, columns, kinds):
    """The lines, one by one with Python's formatting (the independent reference)."""
    out = []
    for q, qid in enumerate(qids):
        for name, column, kind in zip(names, columns, kinds):
            v = column[q]
            text = {"f": lambda: trec_text.c_fixed4(float(v)), "d": lambda: "%d" % int(v),
                    "s": lambda: v.rstrip(b"\0").decode()}[kind]()
            out.append(f"{name:<22}\t{qid}\t{text}\n")
    return "".join(out)


@NEEDS_CORE
@settings(max_examples=300, deadline=None)
@given(st.data())
def test_compiled_lines_are_the_arrow_lines_and_printf(data):
    n = data.draw(st.integers(1, 12))
    kinds = data.draw(st.lists(st.sampled_from("fds"), min_size=1, max_size=6))
    names = data.draw(st.lists(ident, min_size=len(kinds), max_size=len(kinds)))
    qids = np.array(data.draw(st.lists(ident, min_size=n, max_size=n)), dtype=object)
    columns = []
    for kind in kinds:
        if kind == "f":
            columns.append(np.array(data.draw(st.lists(values, min_size=n, max_size=n)), dtype=np.float64))
        elif kind == "d":
            columns.append(np.array(data.draw(st.lists(counts, min_size=n, max_size=n)), dtype=np.float64))
        else:
            texts = data.draw(st.lists(st.text("0123456789-.>'", max_size=12), min_size=n, max_size=n))
            columns.append(np.array([t.encode() for t in texts], dtype="S13"))
    compiled = "".join(trec_text.iter_value_lines(names, qids, columns, kinds, threads=data.draw(st.sampled_from([1, 2]))))
    assert compiled == _arrow(names, qids, columns, kinds)
    assert compiled == _reference(names, qids, columns, kinds)


@NEEDS_CORE
def test_many_blocks_written_by_threads_in_order(monkeypatch):
    monkeypatch.setattr(trec_text, "BLOCK_LINES", 7)
    rng = np.random.default_rng(3)
    qids = np.array([f"q{i}" for i in range(500)], dtype=object)
    columns = [rng.random(500), np.round(rng.random(500) * 1e4) / 1e4, rng.integers(0, 1000, 500).astype(float)]
    names, kinds = ["map", "P_5", "num_ret"], ["f", "f", "d"]
    pieces = list(trec_text.iter_value_lines(names, qids, columns, kinds, threads=3))
    assert len(pieces) > 1
    assert "".join(pieces) == _arrow(names, qids, columns, kinds) == _reference(names, qids, columns, kinds)


@pytest.mark.parametrize("bad", [math.nan, 2.0**63, -math.inf])
def test_counts_beyond_int64_take_the_arrow_path(bad):
    qids = np.array(["1", "2"], dtype=object)
    columns = [np.array([1.0, bad]), np.array([0.5, 0.25])]
    names, kinds = ["num_ret", "map"], ["d", "f"]
    with np.errstate(invalid="ignore"):  # what the Arrow path prints for them (numpy's cast) is unchanged
        assert "".join(trec_text.iter_value_lines(names, qids, columns, kinds)) == _arrow(names, qids, columns, kinds)


@NEEDS_CORE
def test_the_writer_refuses_mismatched_input():
    lines = trec_text._lines.lines
    heads, qids = np.array([b"map"]), np.array([b"1", b"2"])
    with pytest.raises(ValueError):
        lines(heads, 1, qids, 2, [np.zeros(3)], b"f", 0, 2)  # a column of the wrong length
    with pytest.raises(ValueError):
        lines(heads, 1, qids, 2, [np.zeros(2, dtype=np.int64)], b"f", 0, 2)  # not float64
    with pytest.raises(ValueError):
        lines(heads, 1, qids, 2, [np.zeros(2)], b"f", 0, 3)  # past the last query
    with pytest.raises(ValueError):
        lines(heads, 1, np.array([1, 2]), 2, [np.zeros(2)], b"f", 0, 2)  # ids that are not bytes
    assert lines(heads, 1, qids, 2, [np.array([1.0, math.nan])], b"d", 0, 2) is None
    assert lines(heads, 1, qids, 2, [np.array([1.0, 2.0])], b"d", 0, 2) == b"map\t1\t1\nmap\t2\t2\n"


def test_the_compiled_writer_is_built_in_ci():
    """CI installs the package with its compiled core: the writer must import there."""
    if trec_text._lines is None and not os.environ.get("CI"):
        pytest.skip("the extension is not built here (CI requires it)")
    import cranfield._native.trec_lines as module

    assert module.lines is trec_text._lines.lines
