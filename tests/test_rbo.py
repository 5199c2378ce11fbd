"""Rank-biased overlap (cranfield.correlation.rbo) against the definitions and reference values."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cranfield.correlation import RBO, rbo
from cranfield.errors import UsageError

# (a, b, p) -> {ties: (ext, min, max)}: computed with Corsi & Urbano's reference implementation
# (github.com/julian-urbano/sigir2024-rbo, rbo/Python/rbo.py at 0338fd9), printed with repr.
REFERENCE = [
    (["a", "b", "c", "d"], ["b", "a", "c", "e"], 0.9,
     {t: (0.71775, 0.42252836433134844, 0.881775) for t in "abw"}),
    (["a", "b", "c"], ["a", "b", "c", "d", "e"], 0.9,
     {t: (0.9999999999999999, 0.5225283643313484, 0.9999999999999999) for t in "abw"}),
    (["a", {"b", "c"}, "d"], ["b", "a", "c", "e", "f"], 0.9,
     {"a": (0.6952499999999999, 0.4000283643313484, 0.846153),
      "b": (0.7056922863405996, 0.41047065067194793, 0.8565952863405996),
      "w": (0.69975, 0.4045283643313484, 0.850653)}),
    ([{"a", "b", "c"}, "d", "e", "f"], ["f", "e", {"d", "c"}, "b"], 0.8,
     {"a": (0.45482666666666677, 0.32661339054262517, 0.46574933333333346),
      "b": (0.4568628291202205, 0.32864955299617893, 0.4677854957868872),
      "w": (0.470064761904762, 0.3418514857807204, 0.4809874285714287)}),
    (["d1", "d2", "d3", "d4", "d5", "d6"], ["d9", "d8", "d7"], 0.95,
     {t: (0.0, 0.0, 0.7665778057386997) for t in "abw"}),
    ([{"x", "y"}, {"z", "w"}, "v"], ["v", "w", {"z", "x", "y"}], 0.5,
     {"a": (0.16493055555555555, 0.15670812502194895, 0.16493055555555555),
      "b": (0.18285554570034473, 0.17463311516673813, 0.18285554570034473),
      "w": (0.22916666666666666, 0.22094423613306005, 0.22916666666666666)}),
]


@pytest.mark.parametrize("a, b, p, expected", REFERENCE)
def test_reference_values(a, b, p, expected):
    """Within 2e-15 relative of the authors' implementation (the sums are taken in another order)."""
    for ties, values in expected.items():
        got = rbo(a, b, p, ties=ties)
        np.testing.assert_allclose([got.ext, got.min, got.max], values, rtol=2e-15, atol=1e-16)
        assert float(got) == got.ext and got.res == got.max - got.min


def _plain_overlaps(short, long):
    return [len(set(short[:d]) & set(long[:d])) for d in range(1, len(long) + 1)]


def plain_ext(short, long, p):
    """Webber, Moffat & Zobel (2010), eq. 32, one depth at a time."""
    s, l = len(short), len(long)
    x = _plain_overlaps(short, long)
    total = sum(x[d - 1] / d * p ** d for d in range(1, l + 1))
    total += sum(x[s - 1] * (d - s) / (s * d) * p ** d for d in range(s + 1, l + 1))
    return (1 - p) / p * total + ((x[l - 1] - x[s - 1]) / l + x[s - 1] / s) * p ** l


def plain_bounds(short, long, p, depth=4000):
    """min and max as the series of the definition, summed to ``depth``: the unseen parts share
    nothing more (min), or as much as they can (max: each list continues with the other's ids,
    then with the same new ids)."""
    fresh = [f"new{k}" for k in range(depth)]
    worst_s, worst_l = short + [f"s{k}" for k in range(depth)], long + [f"l{k}" for k in range(depth)]
    best_s = short + [i for i in long if i not in short] + fresh
    best_l = long + [i for i in short if i not in long] + fresh
    out = []
    for x, y in ((worst_s, worst_l), (best_s, best_l)):
        seen_x, seen_y, overlap, total = set(), set(), 0, 0.0
        for d in range(1, depth + 1):
            a, b = x[d - 1], y[d - 1]
            overlap += (a in seen_y) + (b in seen_x) + (a == b)
            seen_x.add(a)
            seen_y.add(b)
            total += overlap / d * p ** d
        out.append((1 - p) / p * total)
    return out


ids = st.lists(st.sampled_from([f"d{i}" for i in range(15)]), min_size=1, max_size=12, unique=True)


@settings(max_examples=150, deadline=None)
@given(a=ids, b=ids, p=st.sampled_from([0.5, 0.8, 0.9, 0.95]))
def test_untied_rankings_follow_the_definitions(a, b, p):
    short, long = (a, b) if len(a) < len(b) else (b, a)
    if len(a) == len(b):
        short, long = b, a
    got = rbo(a, b, p)
    low, high = plain_bounds(short, long, p)
    assert math.isclose(got.ext, plain_ext(short, long, p), rel_tol=1e-13, abs_tol=1e-15)
    assert math.isclose(got.min, low, rel_tol=1e-12, abs_tol=1e-14)
    assert math.isclose(got.max, high, rel_tol=1e-12, abs_tol=1e-14)
    assert got.min <= got.ext + 1e-15 and got.ext <= got.max + 1e-15
    assert rbo(b, a, p) == got  # symmetric
    assert {t: rbo(a, b, p, ties=t) for t in "abw"} == {t: got for t in "abw"}  # no ties: one measure


@st.composite
def tied_pair(draw):
    """Two rankings of the same length with tie groups (small enough to enumerate the orders)."""
    n = draw(st.integers(2, 6))
    pool = [f"d{i}" for i in range(9)]
    out = []
    for _ in range(2):
        items = draw(st.permutations(pool))[:n]
        sizes, left = [], n
        while left:
            size = draw(st.integers(1, min(3, left)))
            sizes.append(size)
            left -= size
        groups, i = [], 0
        for size in sizes:
            groups.append(items[i] if size == 1 else set(items[i:i + size]))
            i += size
        out.append(groups)
    return out


def _orders(ranking):
    pieces = [list(itertools.permutations(sorted(g))) if isinstance(g, set) else [(g,)] for g in ranking]
    for choice in itertools.product(*pieces):
        yield [item for part in choice for item in part]


@settings(max_examples=60, deadline=None)
@given(pair=tied_pair(), p=st.sampled_from([0.5, 0.9]))
def test_ties_a_is_the_mean_over_the_orders_of_the_tied_ids(pair, p):
    """ties="a" (ties as uncertainty): for rankings of one length, the mean of the untied RBO over
    every order of the tied ids (Corsi & Urbano 2024, section 3)."""
    a, b = pair
    values = np.array([[rbo(x, y, p).ext, rbo(x, y, p).min, rbo(x, y, p).max]
                       for x in _orders(a) for y in _orders(b)])
    got = rbo(a, b, p, ties="a")
    np.testing.assert_allclose([got.ext, got.min, got.max], values.mean(axis=0), rtol=1e-12, atol=1e-15)


def test_mappings_tie_equal_scores():
    assert rbo({"a": 3.0, "b": 2.0, "c": 2.0}, ["c", "a", "b"], 0.9, ties="b") == \
        rbo(["a", {"b", "c"}], ["c", "a", "b"], 0.9, ties="b")


def test_identical_and_disjoint():
    same = rbo(list("abcdef"), list("abcdef"), 0.9)
    assert math.isclose(same, 1.0, rel_tol=1e-15) and math.isclose(same.max, 1.0, rel_tol=1e-15)
    assert math.isclose(same.min, plain_bounds(list("abcdef"), list("abcdef"), 0.9)[0], rel_tol=1e-12)
    apart = rbo(list("abc"), list("xyz"), 0.9)
    assert apart == 0.0 and apart.min == 0.0 and apart.max > 0
    assert isinstance(apart, RBO) and "ext=" in repr(apart)


@pytest.mark.parametrize("kwargs, message", [
    ({"p": 1.0}, "p: expected a number strictly between 0 and 1"),
    ({"p": float("nan")}, "p: expected a number strictly between 0 and 1"),
    ({"ties": "x"}, "ties: expected one of a, b, w"),
])
def test_errors(kwargs, message):
    with pytest.raises(UsageError, match=message):
        rbo(["a"], ["b"], **kwargs)
    with pytest.raises(UsageError, match="lists 'a' twice"):
        rbo(["a", "a"], ["b"])
    with pytest.raises(UsageError, match="at least one id"):
        rbo([], ["b"])
