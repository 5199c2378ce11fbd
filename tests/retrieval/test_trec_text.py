"""trec_text formats exactly as C's printf: %6.4f (Python's % operator is the oracle: it rounds
the exact binary value, halfway cases to even, as glibc does), %ld and %s, in trec_eval's order."""

import numpy as np
import pytest

from cranfield.retrieval import trec_text


def _c(value: float) -> str:
    if value != value:
        return "  -nan" if np.signbit(value) else "   nan"
    return "%6.4f" % value


def _values(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    ties = (2 * rng.integers(-10**6, 10**6, 20_000) + 1) / 20_000.0  # halfway at the 5th decimal (mostly inexact)
    exact_ties = np.array([k / 32.0 for k in range(-64, 65)] + [0.03125, 0.09375, 1.00005, 2.5e-05])
    near = np.concatenate([np.nextafter(ties, np.inf), np.nextafter(ties, -np.inf)])
    ratios = rng.integers(0, 1000, 20_000) / rng.integers(1, 1000, 20_000)  # P, R, AP-like values
    wide = rng.normal(0, 1, 20_000) * 10.0 ** rng.integers(-8, 12, 20_000)
    special = np.array([0.0, -0.0, -1e-5, -4.9e-5, -5e-5, 5e-5, np.inf, -np.inf, np.nan, -np.nan,
                        np.float64(0.0) / np.float64(1.0), 1e300, -1e300, 123456.78905, 2.0**30 / 1e4])
    with np.errstate(invalid="ignore"):
        special = np.concatenate([special, [np.float64(0.0) / np.float64(0.0)]])
    return np.concatenate([ties, exact_ties, near, ratios, wide, special])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fixed4_matches_printf(seed):
    values = _values(seed)
    got = trec_text.fixed4(values).to_pylist()
    expected = [_c(v) + "\n" for v in values.tolist()]
    wrong = [(v, g, e) for v, g, e in zip(values.tolist(), got, expected) if g != e]
    assert not wrong, wrong[:10]


def test_nan_sign_follows_the_sign_bit():
    with np.errstate(invalid="ignore"):
        negative = np.float64(0.0) / np.float64(0.0)  # x86: the default NaN has its sign bit set
    values = np.array([np.copysign(np.nan, 1.0), np.copysign(np.nan, -1.0)])
    assert trec_text.fixed4(values).to_pylist() == ["   nan\n", "  -nan\n"]
    assert trec_text.fixed4(np.array([negative])).to_pylist() == [_c(negative) + "\n"]


def test_integers_and_texts():
    assert trec_text.integers(np.array([0.0, 7.0, 1e12])).to_pylist() == ["0\n", "7\n", "1000000000000\n"]
    fixed = np.array([b"'12'", b"''", b"'-.>'"], dtype="S6")
    assert trec_text.texts(fixed).to_pylist() == ["'12'\n", "''\n", "'-.>'\n"]
    assert trec_text.texts(["run1"]).to_pylist() == ["run1\n"]


@pytest.mark.parametrize("threads", [1, 2])
def test_lines_in_trec_eval_order(threads, monkeypatch):
    monkeypatch.setattr(trec_text, "BLOCK_LINES", 5)  # several blocks
    rng = np.random.default_rng(3)
    qids = np.array(["1", "10", "2", "q\u00e9"], dtype=object)
    names = ["map", "num_ret", "relstring", "a_very_long_measure_name_over_22"]
    ap = rng.random(4)
    ret = np.array([1000.0, 3.0, 0.0, 12.0])
    rs = np.array([b"'1'", b"''", b"'0-'", b"'.'"], dtype="S4")
    other = rng.normal(size=4)
    text = trec_text.lines(names, qids, [trec_text.fixed4(ap), trec_text.integers(ret), trec_text.texts(rs),
                                         trec_text.fixed4(other)], threads=threads)
    expected = "".join(
        f"{'map':<22}\t{q}\t{ap[i]:6.4f}\n{'num_ret':<22}\t{q}\t{int(ret[i])}\n"
        f"{'relstring':<22}\t{q}\t{rs[i].decode()}\n{names[3]:<22}\t{q}\t{other[i]:6.4f}\n"
        for i, q in enumerate(qids))
    assert text == expected
    assert trec_text.lines(names, [], [trec_text.fixed4(np.zeros(0))] * 4) == ""


@pytest.mark.parametrize("threads", [1, 2])
def test_formatted_by_kind(threads, monkeypatch):
    monkeypatch.setattr(trec_text, "BLOCK_LINES", 3)  # several pieces
    rng = np.random.default_rng(4)
    floats, counts = rng.random(10), rng.integers(0, 100, 10).astype(np.float64)
    rs = np.array([b"'1'"] * 10, dtype="S3")
    got = trec_text.formatted([floats, counts, rs, -floats], ["f", "d", "s", "f"], threads=threads)
    assert [a.to_pylist() for a in got] == [
        [_c(v) + "\n" for v in floats.tolist()], [f"{int(v)}\n" for v in counts.tolist()], ["'1'\n"] * 10,
        [_c(-v) + "\n" for v in floats.tolist()]]
