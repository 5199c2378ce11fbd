"""Expected exposure (cranfield.fairness, ``cranfield exposure``) against its definition computed by
brute force: one sample, one document at a time; the target by averaging over every order of the
ideal ranking's ties; Plackett–Luce sampling against the exact expectation over all permutations."""

from __future__ import annotations

import itertools
import math
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cranfield.errors import UsageError
from cranfield.fairness import expected_exposure, plackett_luce_samples, read_sampled_run


def _order(scores: dict) -> list:
    return sorted(sorted(scores, key=str.encode, reverse=True), key=lambda d: -scores[d])


def _exposures(ranking: list, rel: dict, p: float, model: str, u: float, level: int) -> dict:
    out, above = {}, 0
    for i, doc in enumerate(ranking):
        out[doc] = p ** i * ((1 - u) ** above if model == "gerr" else 1.0)
        above += rel.get(doc, -math.inf) >= level
    return out


def brute_target(judged: dict, p: float, model: str, u: float, level: int) -> dict:
    """The ideal stochastic ranker's expected exposure: every order of the judged documents that
    keeps grades decreasing, equally likely."""
    grades = sorted(set(judged.values()), reverse=True)
    blocks = [[d for d in sorted(judged) if judged[d] == g] for g in grades]
    total, count = {d: 0.0 for d in judged}, 0
    for choice in itertools.product(*(itertools.permutations(b) for b in blocks)):
        ranking = [d for block in choice for d in block]
        for d, e in _exposures(ranking, judged, p, model, u, level).items():
            total[d] += e
        count += 1
    return {d: v / count for d, v in total.items()}


def brute(qrels: dict, samples: list, p=0.5, model="rbp", u=0.5, level=1, groups=None) -> dict:
    per_query = {k: [] for k in ("disparity", "relevance", "loss")}
    if groups:
        per_query.update({f"group_{k}": [] for k in ("disparity", "relevance", "loss")})
    for q in sorted(qrels, key=str.encode):
        lists = [s[q] for s in samples if q in s]
        if not lists:
            continue
        eps: dict = {}
        for scores in lists:
            for d, e in _exposures(_order(scores), qrels[q], p, model, u, level).items():
                eps[d] = eps.get(d, 0.0) + e / len(lists)
        star = brute_target(qrels[q], p, model, u, level)
        docs = set(eps) | set(star)
        per_query["disparity"].append(sum(eps.get(d, 0.0) ** 2 for d in docs))
        per_query["relevance"].append(sum(eps.get(d, 0.0) * star.get(d, 0.0) for d in docs))
        per_query["loss"].append(sum((eps.get(d, 0.0) - star.get(d, 0.0)) ** 2 for d in docs))
        if groups:
            names = sorted({g for gs in groups.values() for g in gs})
            relevant = {d for d, g in qrels[q].items() if g >= level}
            ge = {g: sum(eps.get(d, 0.0) for d in relevant if g in groups.get(d, ())) for g in names}
            gt = {g: sum(star.get(d, 0.0) for d in relevant if g in groups.get(d, ())) for g in names}
            per_query["group_disparity"].append(sum(v * v for v in ge.values()))
            per_query["group_relevance"].append(sum(ge[g] * gt[g] for g in names))
            per_query["group_loss"].append(sum((ge[g] - gt[g]) ** 2 for g in names))
    return per_query


docs = st.sampled_from(["a", "b", "c", "d", "e", "f"])


@st.composite
def cases(draw):
    qrels = {}
    for q in draw(st.lists(st.sampled_from(["q1", "q2", "q10"]), min_size=1, max_size=3, unique=True)):
        judged = draw(st.dictionaries(docs, st.integers(0, 2), min_size=1, max_size=5))
        qrels[q] = judged
    samples = []
    for _ in range(draw(st.integers(1, 4))):
        sample = {}
        for q in draw(st.lists(st.sampled_from(["q1", "q2", "q10"]), min_size=1, max_size=3, unique=True)):
            sample[q] = draw(st.dictionaries(docs, st.sampled_from([1.0, 2.0, 3.0, 0.5]), min_size=1, max_size=6))
        samples.append(sample)
    groups = {d: draw(st.lists(st.sampled_from(["g1", "g2", "g3"]), min_size=1, max_size=2, unique=True))
              for d in draw(st.lists(docs, max_size=6, unique=True))}
    return qrels, samples, groups


@settings(max_examples=120, deadline=None)
@given(case=cases(), model=st.sampled_from(["rbp", "gerr"]), p=st.sampled_from([0.5, 0.8]))
def test_equals_the_brute_force_definition(case, model, p):
    qrels, samples, groups = case
    if not any(q in s for q in qrels for s in samples):
        with pytest.raises(Exception):
            expected_exposure(qrels, samples, p=p, model=model, groups=groups or None)
        return
    got = expected_exposure(qrels, samples, p=p, model=model, groups=groups or None)
    want = brute(qrels, samples, p=p, model=model, groups=groups or None)
    assert set(got.per_query) == set(want)
    for name, values in want.items():  # sums in another order: a few ulps
        np.testing.assert_allclose(got.per_query[name], values, rtol=1e-12, atol=1e-14, err_msg=name)


def test_the_ideal_ranker_has_no_loss():
    qrels = {"q1": {"a": 2, "b": 1, "c": 1, "d": 0}}
    ideal = [{"q1": {"a": 3, "b": 2, "c": 1.5, "d": 1}}, {"q1": {"a": 3, "c": 2, "b": 1.5, "d": 1}}]
    result = expected_exposure(qrels, ideal)
    assert result.per_query["loss"][0] == pytest.approx(0.0, abs=1e-16)
    assert result.per_query["relevance"][0] == pytest.approx(sum(v * v for v in brute_target(
        qrels["q1"], 0.5, "rbp", 0.5, 1).values()), rel=1e-15)


def test_plackett_luce_samples_converge_to_the_exact_expectation():
    scores = {"a": 1.0, "b": 0.3, "c": -0.5, "d": 0.0}
    weights = {d: math.exp(s) for d, s in scores.items()}
    exact = {d: 0.0 for d in scores}
    for perm in itertools.permutations(scores):
        prob, left = 1.0, sum(weights.values())
        for d in perm:
            prob *= weights[d] / left
            left -= weights[d]
        for i, d in enumerate(perm):
            exact[d] += prob * 0.5 ** i
    qrels = {"q1": {"a": 1}}
    result = expected_exposure(qrels, plackett_luce_samples({"q1": scores}, 20_000, seed=3))
    disparity = sum(v * v for v in exact.values())
    assert result.per_query["disparity"][0] == pytest.approx(disparity, abs=4e-3)  # Monte Carlo, 20,000 draws


def test_sampled_run_file_equals_separate_runs(tmp_path):
    path = tmp_path / "sampled.run"
    path.write_text("q1 1 a 1 3 s\nq1 1 b 2 2 s\nq1 2 b 1 3 s\nq1 2 c 2 2 s\nq2 2 a 1 1 s\n")
    samples = read_sampled_run(path)
    assert [r.name for r in samples] == ["sample 1", "sample 2"]
    qrels = {"q1": {"a": 1, "c": 1}, "q2": {"a": 1}}
    by_file = expected_exposure(qrels, samples)
    by_dicts = expected_exposure(qrels, [{"q1": {"a": 3, "b": 2}}, {"q1": {"b": 3, "c": 2}, "q2": {"a": 1}}])
    assert by_file.to_dict() == by_dicts.to_dict()
    assert by_file.samples.tolist() == [2.0, 1.0]


def test_errors():
    with pytest.raises(UsageError, match="model: expected one of rbp, gerr"):
        expected_exposure({"q": {"a": 1}}, [{"q": {"a": 1}}], model="dcg")
    with pytest.raises(UsageError, match="p: expected a number strictly between 0 and 1"):
        expected_exposure({"q": {"a": 1}}, [{"q": {"a": 1}}], p=1.0)


def test_cli(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 a 1\nq1 0 b 0\nq1 0 c 1\n")
    runs = []
    for k, order in enumerate(("a b c", "c a b")):
        path = tmp_path / f"s{k}.run"
        path.write_text("".join(f"q1 Q0 {d} {i + 1} {3 - i} s{k}\n" for i, d in enumerate(order.split())))
        runs.append(str(path))
    groups = tmp_path / "groups"
    groups.write_text("a g1\nb g1\nc g2\n")
    done = subprocess.run([sys.executable, "-m", "cranfield", "exposure", str(qrels), *runs, "--groups", str(groups),
                           "-f", "json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    import json

    out = json.loads(done.stdout)
    want = brute({"q1": {"a": 1, "b": 0, "c": 1}}, [{"q1": {"a": 3, "b": 2, "c": 1}}, {"q1": {"c": 3, "a": 2, "b": 1}}],
                 groups={"a": ["g1"], "b": ["g1"], "c": ["g2"]})
    for name, values in want.items():
        assert out["mean"][name] == pytest.approx(values[0], rel=1e-12)
