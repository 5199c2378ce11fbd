"""Interleaving: team-draft properties, credit by hand, outcome statistics against scipy."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest

from cranfield.errors import InputError, UsageError
from cranfield.online.interleaving import (
    Interleaving,
    RankedLists,
    interleave,
    interleaving_credit,
    interleaving_outcome,
    multileaving_preferences,
    ranked_lists,
    sign_test_pvalue,
)


def _lists(*rankings, n_docs=None) -> RankedLists:
    """RankedLists for one query from lists of document codes (one list per run)."""
    depth = max(len(r) for r in rankings)
    docs = np.full((len(rankings), 1, depth), -1, dtype=np.int64)
    for i, r in enumerate(rankings):
        docs[i, 0, :len(r)] = r
    n_docs = n_docs or int(docs.max()) + 1
    return RankedLists(docs, np.array(["q"]), np.array([f"d{i}" for i in range(n_docs)]),
                       tuple(f"r{i}" for i in range(len(rankings))))


def _random_lists(seed: int, m: int = 2, n: int = 40, depth: int = 8, pool: int = 14) -> RankedLists:
    """n queries; each run ranks ``depth`` distinct documents out of ``pool`` (some lists shorter)."""
    rng = np.random.default_rng(seed)
    docs = np.argsort(rng.random((m, n, pool)), axis=2)[:, :, :depth].astype(np.int64)
    short = rng.random((m, n)) < 0.2
    docs[:, :, depth // 2:][short] = -1
    return RankedLists(docs, np.array([f"q{i}" for i in range(n)]), np.array([f"d{i}" for i in range(pool)]),
                       tuple(f"r{i}" for i in range(m)))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("m", [2, 3])
def test_team_draft_properties(seed, m):
    lists = _random_lists(seed, m=m)
    il = interleave(lists, method="team_draft" if m == 2 else "multileave", seed=seed)
    for q in range(lists.docs.shape[1]):
        docs, teams = il.docs[q], il.teams[q]
        shown = docs[docs >= 0]
        assert len(shown) == len(set(shown.tolist()))  # no duplicates
        assert np.all(docs[len(shown):] == -1) and np.all(teams[:len(shown)] >= 0)
        union = set(lists.docs[:, q][lists.docs[:, q] >= 0].tolist())
        assert len(shown) == min(il.docs.shape[1], len(union))
        for t in range(m):
            ranking = [d for d in lists.docs[t, q].tolist() if d >= 0]
            for j in np.flatnonzero(teams == t):
                # prefix property: team t's pick is its best document not shown above
                assert docs[j] == next(d for d in ranking if d not in set(docs[:j].tolist()))
        # runs contribute alternately: in every round each run with documents left picks once
        counts = np.zeros(m, int)
        for j, t in enumerate(teams[:len(shown)]):
            counts[t] += 1
            alive = [t2 for t2 in range(m)
                     if any(d >= 0 and d not in set(docs[:j].tolist()) for d in lists.docs[t2, q].tolist())]
            assert counts[t] - 1 <= min(counts[a] for a in alive if a != t) if len(alive) > 1 else True


def test_team_draft_is_seeded_and_fair():
    lists = _random_lists(0, n=400)
    a = interleave(lists, seed=7)
    assert np.array_equal(a.docs, interleave(lists, seed=7).docs)
    assert not np.array_equal(a.teams, interleave(lists, seed=8).teams)
    first = a.teams[:, 0]
    # run A leads in about half of the impressions: 400 fair coins, 5 standard errors (10)
    assert abs((first == 0).sum() - 200) <= 5 * np.sqrt(400 * 0.25)


def _balanced_a_first(lists):
    for seed in range(100):
        il = interleave(lists, method="balanced", seed=seed, length=6)
        if il.teams[0, 0] == 0:
            return il
    raise AssertionError("no seed lets A lead")


def test_balanced_by_hand():
    a, b, c, d, e, f = range(6)
    lists = _lists([a, b, c, d], [b, e, a, f])
    il = _balanced_a_first(lists)
    assert il.docs[0].tolist() == [a, b, e, c, d, f]
    # a click on e (position 3): k = min(absent in A, rank 2 in B) = 2; A's top 2 {a, b}: 0 clicks, B's {b, e}: 1
    assert interleaving_credit(il, [[0, 0, 1, 0, 0, 0]]).tolist() == [[0.0, 1.0]]
    # clicks on a and c: lowest is c, k = 3; A's top 3 {a, b, c}: 2 clicks; B's top 3 {b, e, a}: 1
    assert interleaving_credit(il, [[1, 0, 0, 1, 0, 0]]).tolist() == [[2.0, 1.0]]


def test_team_draft_credit_by_hand():
    il = interleave(_lists([0, 1, 2], [3, 1, 4]), seed=0)
    teams = il.teams[0]
    clicks = np.array([[1, 1, 0, 1, 0, 0][:il.docs.shape[1]]])
    expected = [float(((teams == t) & (clicks[0] == 1)).sum()) for t in (0, 1)]
    assert interleaving_credit(il, clicks)[0].tolist() == expected
    assert sorted(il.docs[0].tolist()) == [0, 1, 2, 3, 4][:len(il.docs[0])] or len(set(il.docs[0].tolist())) == 3


def test_probabilistic_credit_by_hand():
    docs = np.array([[0, 1, 2]])
    il = Interleaving("probabilistic", docs, np.array([[0, 1, 0]]), np.zeros((2, 1, 3), np.int64), np.array(["q"]),
                      np.array(["a", "b", "c"]), ("A", "B"), team_probability=np.array([[0.8, 0.5, 0.3]]))
    # clicks at positions 1 and 3: both A 0.8·0.3 = 0.24 (A wins); both B 0.2·0.7 = 0.14 (B wins); else a tie
    assert np.allclose(interleaving_credit(il, [[1, 0, 1]]), [[0.24, 0.14]], rtol=0, atol=1e-15)


def test_probabilistic_team_probability():
    lists = _lists([0, 1, 2, 3], [4, 5, 6, 7])  # disjoint: each document's team is certain
    il = interleave(lists, method="probabilistic", seed=3)
    assert np.array_equal(il.team_probability[0], (il.teams[0] == 0).astype(float))
    same = interleave(_lists([0, 1, 2], [0, 1, 2]), method="probabilistic", seed=1)
    assert np.allclose(same.team_probability, 0.5)  # identical runs: every assignment equally likely


def test_sign_test_equals_scipy():
    worst = 0.0
    for n in (*range(12), 25, 40, 79):
        for w in range(n + 1):
            mine = sign_test_pvalue(w, n - w)
            ref = binomtest(w, n).pvalue if n else 1.0
            worst = max(worst, abs(mine - ref) / ref)
    # same value summed in another order (scipy adds both tails; here 2·cdf by symmetry): a few ulps
    assert worst < 1e-13
    assert np.allclose(sign_test_pvalue(np.array([3, 10]), np.array([10, 3])), binomtest(3, 13).pvalue, rtol=1e-13)


def test_outcome_counts_delta_and_interval():
    credit = np.array([[1, 0]] * 30 + [[0, 0]] * 10 + [[0, 2]] * 20, dtype=float)
    out = interleaving_outcome(credit, seed=1, n_bootstrap=2000)
    assert (out["wins"], out["ties"], out["losses"], out["n"]) == (30, 10, 20, 60)
    assert out["delta"] == (30 + 5) / 60 - 0.5
    assert out["p_value"] == pytest.approx(binomtest(30, 50).pvalue, rel=1e-13)
    assert out["ci_low"] < out["delta"] < out["ci_high"]
    assert out == interleaving_outcome(credit, seed=1, n_bootstrap=2000)  # reproducible
    grouped = interleaving_outcome(credit, groups=np.r_[np.zeros(30), np.arange(1, 31)], n_bootstrap=100)
    assert grouped["n"] == 31 and grouped["settings"]["unit"] == "group"


def test_multileaving_preferences():
    credit = np.array([[2, 1, 0], [0, 1, 1], [1, 1, 1]], dtype=float)
    p = multileaving_preferences(credit)
    assert np.allclose(p, -p.T) and p[0, 1] == (1 + 0.5) / 3 - 0.5


def test_ranked_lists_follow_trec_eval_order(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 a 1 1.0 t\nq1 Q0 c 2 2.0 t\nq1 Q0 b 3 1.0 t\nq2 Q0 a 1 5 t\n")
    lists = ranked_lists([str(path)], depth=2)
    ids = lists.doc_ids
    assert [ids[d] for d in lists.docs[0, 0]] == ["c", "b"]  # score desc, then docno desc
    assert lists.docs[0, 1, 1] == -1


def test_bad_arguments():
    lists = _random_lists(0)
    with pytest.raises(UsageError):
        interleave(lists, method="nope")
    with pytest.raises(UsageError):
        interleave(_random_lists(0, m=3), method="team_draft")
    with pytest.raises(UsageError):
        interleave(lists, seed=-1)
    il = interleave(lists, seed=0)
    with pytest.raises(InputError):
        interleaving_credit(il, np.zeros((2, 2)))
    clicks = np.zeros(il.docs.shape, bool)
    clicks[il.docs < 0] = True
    if clicks.any():
        with pytest.raises(InputError, match="shows no document"):
            interleaving_credit(il, clicks)
    with pytest.raises(InputError):
        interleaving_outcome(np.zeros((0, 2)))


def test_interleave_command(tmp_path):
    import json

    from click.testing import CliRunner

    from cranfield import datasets
    from cranfield.cli import _registering_inputs
    from cranfield.cli.online_models_cmd import interleave as command

    runs = datasets.cranfield()["runs"]
    runner = CliRunner()
    result = runner.invoke(_registering_inputs(command), [str(runs["bm25"]), str(runs["tfidf"]), "--depth", "3",
                                                          "-f", "json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    lists = ranked_lists([runs["bm25"], runs["tfidf"]], depth=3)
    expected = interleave(lists, seed=0)
    assert [row["doc"] for row in document["lists"][:3]] == expected.doc_ids[expected.docs[0]].tolist()
    out = tmp_path / "outcome.json"
    result = runner.invoke(_registering_inputs(command), [
        str(runs["bm25"]), str(runs["coord_title"]), "--qrels", str(datasets.cranfield()["qrels"]),
        "--impressions", "2000", "-f", "json", "-o", str(out), "--plot", str(tmp_path / "o.svg")])
    assert result.exit_code == 0, result.output
    outcome = json.loads(out.read_text())
    assert outcome["wins"] > outcome["losses"] and outcome["settings"]["click_model"] == "cascade"
    assert (tmp_path / "o.svg").stat().st_size > 0
