"""Rank correlations: scipy.stats (kendalltau τ-b, spearmanr) as the oracle on random rankings
with ties and missing ids; τ_AP and the Kendall distance against brute-force definitions and
hand-worked examples."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

import cranfield
from cranfield.correlation import kendall_distance, kendall_tau, spearman_rho, tau_ap
from cranfield.errors import UsageError

IDS = [f"s{i}" for i in range(12)]
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def keys_by_convention(a, b):
    """Test-side statement of the missing-ids convention (brute force, O(n²)): rank keys of the
    union (ids of a, then ids only in b), lower = better, ties equal."""

    def key_map(x):
        if isinstance(x, dict):  # score: higher first; the key counts the strictly better ids
            return {i: sum(1 for s in x.values() if s > x[i]) for i in x}
        return {i: p for p, i in enumerate(x)}

    ka, kb = key_map(a), key_map(b)
    union = list(a) + [i for i in b if i not in ka]

    def extended(own, other):
        top = max(own.values(), default=-1) + 1
        return [own[i] if i in own else top + other[i] for i in union]

    return np.array(extended(ka, kb)), np.array(extended(kb, ka))


rankings = st.lists(st.sampled_from(IDS), min_size=0, max_size=len(IDS), unique=True)
scored = st.dictionaries(st.sampled_from(IDS), st.sampled_from([0.1, 0.2, 0.3, 0.5]), max_size=len(IDS))


@SETTINGS
@given(st.one_of(rankings, scored), st.one_of(rankings, scored))
def test_kendall_and_spearman_match_scipy(a, b):
    x, y = keys_by_convention(a, b)
    if x.size < 2 or np.unique(x).size < 2 or np.unique(y).size < 2:
        with pytest.raises(UsageError):
            kendall_tau(a, b)
        with pytest.raises(UsageError):
            spearman_rho(a, b)
        return
    assert kendall_tau(a, b) == pytest.approx(stats.kendalltau(x, y, variant="b").statistic, abs=1e-12)
    assert spearman_rho(a, b) == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)
    assert kendall_tau(a, b) == pytest.approx(kendall_tau(b, a), abs=1e-12)  # symmetric


def tau_ap_brute(a, b):
    """Yilmaz, Aslam & Robertson 2008, eq. (2), written literally."""
    x, y = keys_by_convention(a, b)
    order = np.argsort(x)
    ref = y[order]
    n = len(ref)
    total = Fraction(0)
    for i in range(1, n):
        correct = sum(1 for j in range(i) if ref[j] < ref[i])
        total += Fraction(correct, i)
    return float(Fraction(2, n - 1) * total - 1)


@SETTINGS
@given(rankings, rankings)
def test_tau_ap_matches_definition(a, b):
    if len(set(a) | set(b)) < 2:
        with pytest.raises(UsageError):
            tau_ap(a, b)
        return
    assert tau_ap(a, b) == pytest.approx(tau_ap_brute(a, b), abs=1e-12)


def test_tau_ap_properties():
    ids = [f"d{i}" for i in range(8)]
    assert tau_ap(ids, ids) == 1.0
    assert tau_ap(ids[::-1], ids) == pytest.approx(-1.0)
    # a swap at the top costs more than the same swap at the bottom (the point of τ_AP);
    # plain Kendall τ cannot tell them apart
    top = [ids[1], ids[0], *ids[2:]]
    bottom = [*ids[:-2], ids[-1], ids[-2]]
    assert tau_ap(top, ids) < tau_ap(bottom, ids)
    assert kendall_tau(top, ids) == kendall_tau(bottom, ids) == pytest.approx(1 - 2 * 1 / 28)  # one discordant pair of 28
    # for two items τ_AP = τ
    assert tau_ap(["a", "b"], ["b", "a"]) == kendall_tau(["a", "b"], ["b", "a"]) == -1.0
    with pytest.raises(UsageError, match="without ties"):
        tau_ap({"a": 1.0, "b": 1.0, "c": 0.5}, ["a", "b", "c"])


def test_missing_ids_convention_worked_example():
    # a = [x, y], b = [z, y, x]: a becomes [x, y, z] (z appended), b stays [z, y, x]:
    # every pair is reversed, τ = −1, ρ = −1.
    assert kendall_tau(["x", "y"], ["z", "y", "x"]) == pytest.approx(-1.0)
    assert spearman_rho(["x", "y"], ["z", "y", "x"]) == pytest.approx(-1.0)
    # ids missing from a keep b's order among themselves: a = [p], b = [q, r, p] -> a = [p, q, r]
    # pairs (p,q), (p,r) discordant, (q,r) concordant: τ = (1 − 2)/3
    assert kendall_tau(["p"], ["q", "r", "p"]) == pytest.approx(-1 / 3)


def kendall_distance_brute(ranking, judged):
    missing = sorted((d for d in judged if d not in ranking), key=lambda d: -judged[d])
    rel = [max(judged.get(d, 0), 0) for d in list(ranking) + missing]
    return sum(1 for i, j in itertools.combinations(range(len(rel)), 2) if rel[i] < rel[j])


@SETTINGS
@given(rankings, st.dictionaries(st.sampled_from(IDS), st.integers(-1, 3), max_size=len(IDS)))
def test_kendall_distance_matches_definition(ranking, judged):
    assert kendall_distance(ranking, judged) == kendall_distance_brute(ranking, judged)


def test_kendall_distance_worked_example():
    judged = {"a": 2, "b": 0, "c": 1, "d": 2}
    # ranking c, b, a, then the missing d appended: relevance 1, 0, 2, 2. Inversions (upper less
    # relevant than lower): (c,a), (c,d), (b,a), (b,d); (c,b) is in order and a, d tie -> 4
    assert kendall_distance(["c", "b", "a"], judged) == 4
    assert kendall_distance(["a", "d", "c", "b"], judged) == 0  # the ideal order
    assert kendall_distance({"a": 3.0, "d": 2.0, "c": 1.0, "b": 0.5}, judged) == 0  # scores work too
    with pytest.raises(UsageError, match="ties"):
        kendall_distance({"a": 1.0, "b": 1.0}, judged)


def test_errors_say_what_is_wrong():
    with pytest.raises(UsageError, match="'a' twice"):
        kendall_tau(["a", "b", "a"], ["a", "b"])
    with pytest.raises(UsageError, match="at least 2"):
        kendall_tau(["a"], ["a"])
    with pytest.raises(UsageError, match="ties every id"):
        kendall_tau({"a": 1.0, "b": 1.0}, ["a", "b"])
    with pytest.raises(UsageError, match="string"):
        spearman_rho("abc", ["a"])
    with pytest.raises(UsageError, match="finite"):
        spearman_rho({"a": float("nan"), "b": 1.0}, ["a", "b"])


def test_large_rankings_match_scipy():
    rng = np.random.default_rng(7)
    n = 5000
    a = {f"d{i}": float(v) for i, v in enumerate(rng.integers(0, 50, n))}  # many ties
    b = {f"d{i}": float(v) for i, v in enumerate(rng.normal(size=n))}
    x = np.array([-a[f"d{i}"] for i in range(n)])
    y = np.array([-b[f"d{i}"] for i in range(n)])
    assert kendall_tau(a, b) == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)
    assert spearman_rho(a, b) == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)


def test_meta_evaluation_of_the_cranfield_runs(cranfield_dir):
    """Systems ordered by MAP vs by nDCG@10 (graded) vs by P@10: the three Cranfield runs."""
    by = {}
    for run in ("bm25", "tfidf", "coord_title"):
        path = cranfield_dir / "runs" / f"{run}.run"
        raw = cranfield.evaluate(cranfield_dir / "qrels.raw.trec", path, ["AP", "P@10"]).mean
        graded = cranfield.evaluate(cranfield_dir / "qrels.graded.trec", path, ["nDCG@10"]).mean
        by.setdefault("AP", {})[run] = raw["AP"]
        by.setdefault("P@10", {})[run] = raw["P@10"]
        by.setdefault("nDCG@10", {})[run] = graded["nDCG@10"]
    # README figures: bm25 > tfidf > coord_title on all three measures
    assert kendall_tau(by["AP"], by["nDCG@10"]) == 1.0
    assert tau_ap(by["AP"], by["P@10"]) == 1.0
    # per query: the two best runs' document orderings for query 1 (top 20) are related but not equal
    view = {}
    for run in ("bm25", "tfidf"):
        docs = cranfield.read_run(cranfield_dir / "runs" / f"{run}.run").to_dict()["1"]
        view[run] = sorted(docs, key=lambda d: (docs[d], d), reverse=True)[:20]
    tau = kendall_tau(view["bm25"], view["tfidf"])
    x, y = keys_by_convention(view["bm25"], view["tfidf"])
    assert tau == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12) and -1 < tau < 1


def test_lazy_export():
    import subprocess
    import sys

    code = "import cranfield, sys; cranfield.correlation.kendall_tau([1, 2], [1, 2]); print('scipy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"  # numpy only
