"""Shared per-query statistics give the per-measure values bit for bit.

Running sums (one pass serving every cut-off) against a sequential per-query loop; every
all_trec measure computed together with the others (caches shared on one ranked view) against
the same measure computed alone on a fresh view, ``==`` on the doubles, on random runs with tied
scores, unjudged documents and several relevance levels.
"""

import numpy as np
import pytest

from cranfield.measures import _compiled
from cranfield.measures._running import RunningSums
from cranfield.retrieval.evaluate import Evaluator
from cranfield.retrieval.ranked import segmented_accumulate
from cranfield.measures.trec_names import from_trec_name


def _sequential(values, lengths, k):
    out, start = [], 0
    for length, cut in zip(lengths.tolist(), k.tolist()):
        total = 0.0
        for x in values[start:start + min(length, max(cut, 0))].tolist():
            total += x
        out.append(total)
        start += length
    return np.array(out)


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("skewed", [False, True])
def test_running_sums_are_sequential_sums(skewed, compiled, monkeypatch):
    if compiled and _compiled.kernels() is None:
        pytest.skip("cranfield._native.measure_kernels is not built")
    monkeypatch.setattr(_compiled, "ENABLED", compiled)
    rng = np.random.default_rng(1)
    lengths = rng.integers(0, 40, 300)
    if skewed:  # one long query: the grid is split into groups of similar length
        lengths[7] = 50_000
    values = rng.normal(size=int(lengths.sum())) * 10.0 ** rng.integers(-3, 4, int(lengths.sum()))
    values[rng.random(values.size) < 0.3] = 0.0
    sums = RunningSums(values, lengths)
    assert (sums.flat is not None) == compiled  # the compiled path: one flat array, no grids
    assert (len(sums.groups) > 1) == (skewed and not compiled)
    for k in (0, 1, 5, 39, 10**6):
        assert sums.at(k).tobytes() == _sequential(values, lengths, np.full(lengths.size, k)).tobytes()
    per_query = rng.integers(-1, 60, lengths.size)
    assert sums.at(per_query).tobytes() == _sequential(values, lengths, per_query).tobytes()
    query = rng.integers(0, lengths.size, 500)
    k = rng.integers(0, 45, 500)
    expected = np.array([_sequential(values, lengths, np.where(np.arange(lengths.size) == q, c, 0))[q]
                         for q, c in zip(query.tolist(), k.tolist())])
    assert sums.at_each(query, k).tobytes() == expected.tobytes()


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("ufunc", [np.add, np.maximum])
def test_segmented_accumulate_is_sequential(ufunc, reverse):
    rng = np.random.default_rng(2)
    lengths = rng.integers(0, 30, 200)
    values = rng.random(int(lengths.sum()))
    got = segmented_accumulate(ufunc, values, lengths, reverse=reverse)
    expected, start = [], 0
    for length in lengths.tolist():
        part = values[start:start + length].tolist()
        acc, out = None, []
        for x in (reversed(part) if reverse else part):
            acc = x if acc is None else float(ufunc(acc, x))
            out.append(acc)
        expected.extend(reversed(out) if reverse else out)
        start += length
    assert got.tobytes() == np.array(expected, dtype=np.float64).tobytes()


def _random_case(seed):
    rng = np.random.default_rng(seed)
    qrels = {f"q{q}": {f"d{d}": int(rng.integers(-2, 4)) for d in rng.choice(300, rng.integers(1, 120), replace=False)}
             for q in range(40)}
    run = {f"q{q}": {f"d{d}": float(rng.integers(0, 15)) for d in rng.choice(400, rng.integers(1, 300), replace=False)}
           for q in range(40) if q % 7}
    return qrels, run


MEASURES = (from_trec_name("all_trec") + from_trec_name("ndcg_cut.1,3,7,2000") + from_trec_name("ndcg.0=1,1=2,2=-1")
            + from_trec_name("ndcg_rel.1=3,2=0") + from_trec_name("G.2=5"))


@pytest.mark.parametrize("seed", [0])
@pytest.mark.parametrize("level", [1, 2])
def test_measures_together_equal_measures_alone(seed, level):
    qrels, run = _random_case(seed)
    together = Evaluator(qrels, MEASURES, relevance_level=level).evaluate(run, threads=1)
    for measure in dict.fromkeys(MEASURES):
        alone = Evaluator(qrels, [measure], relevance_level=level).evaluate(run, threads=1)
        assert together.per_query[str(measure)].tobytes() == alone.per_query[str(measure)].tobytes(), measure


def test_small_cutoff_paths_agree():
    """nDCG@5 read from the top 5 rows (asked first) and from the running sums (asked after nDCG)."""
    qrels, run = _random_case(3)
    first = Evaluator(qrels, ["nDCG@5", "nDCG"]).evaluate(run, threads=1)
    after = Evaluator(qrels, ["nDCG", "nDCG@5"]).evaluate(run, threads=1)
    assert first.per_query["nDCG@5"].tobytes() == after.per_query["nDCG@5"].tobytes()
