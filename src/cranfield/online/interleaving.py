"""Interleaved comparison of rankers: build one result list from two (or more) runs, show it,
and credit each click to the run it came from.

Methods (``method=``):

* ``"team_draft"`` (Radlinski, Kurup & Joachims 2008): in each round the runs, in a random
  order, each add their highest-ranked document not yet shown; a document's *team* is the run
  that added it; a click credits its team.
* ``"balanced"`` (Joachims 2003): a coin decides which run leads; the run whose pointer lags
  (the leader on ties) adds its next document if not yet shown. Credit: with ``l`` the lowest
  clicked position and ``k = min(rank of its document in A, rank in B)``, run X gets the
  clicked documents among its top ``k``.
* ``"probabilistic"`` (Hofmann, Whiteson & de Rijke 2011): each position draws a run by a coin
  and a document from that run's softmax ``P(rank r) ∝ r^−τ`` over documents not yet shown.
  Credit is the *expected* outcome over all team assignments that could have produced the list
  (the posterior of each position's team factorises, so it is computed exactly).
* ``"multileave"`` (team-draft multileaving, Schuth et al. 2014): team draft for any number of
  runs (with two runs it is team draft).

A run that has no unseen document left is skipped; the others go on until the list has
``length`` documents (default: the depth of the lists) or all are exhausted.

**Outcome** (Chapelle, Joachims, Radlinski & Yue 2012): per impression (or per query, the sign
of its impressions' outcomes summed), A wins if it got more credit, loses if less, ties
otherwise; ``Δ_AB = (wins + ties/2) / n − 1/2`` (> 0: A preferred), with a percentile bootstrap
interval (the counts of wins, ties and losses are resampled multinomially, i.e. impressions
with replacement) and a two-sided sign test of wins against losses (ties dropped; binomial,
p = 1/2).

**Vectorisation.** All impressions are interleaved at once: the loop runs over the positions of
the interleaved list (≤ ``length`` · number of runs steps), each step an array operation over
impressions (cost O(impressions · depth) per step).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._params import as_generator, check_choice, check_count, check_fraction
from ..errors import InputError, UsageError
from ._clicklog import as_array
from ..retrieval.run import read_run

__all__ = [
    "METHODS",
    "Interleaving",
    "RankedLists",
    "interleave",
    "interleaving_credit",
    "interleaving_outcome",
    "multileaving_preferences",
    "ranked_lists",
    "sign_test_pvalue",
]

METHODS = ("team_draft", "balanced", "probabilistic", "multileave")


@dataclass(frozen=True)
class RankedLists:
    """Top-``depth`` documents of ``m`` runs for the same ``n`` queries: ``docs`` (m, n, depth)
    codes into ``doc_ids`` in rank order, -1 where a run has fewer documents."""

    docs: np.ndarray
    query_ids: np.ndarray
    doc_ids: np.ndarray
    names: tuple

    def take(self, rows: np.ndarray) -> RankedLists:
        """The lists of queries ``rows`` (indices, repeats allowed: one row per impression)."""
        rows = np.asarray(rows, dtype=np.int64)
        return RankedLists(self.docs[:, rows], self.query_ids[rows], self.doc_ids, self.names)


@dataclass(frozen=True)
class Interleaving:
    """Interleaved lists, one row per impression: ``docs`` (n, length) codes into ``doc_ids``
    (-1: empty), ``teams`` (n, length) the run that contributed each document (-1: empty),
    ``ranks`` (m, n, length) the document's rank in each run (0: absent), and for the
    probabilistic method ``team_probability`` (n, length) = P(team A | list)."""

    method: str
    docs: np.ndarray
    teams: np.ndarray
    ranks: np.ndarray
    query_ids: np.ndarray
    doc_ids: np.ndarray
    names: tuple
    team_probability: np.ndarray | None = None
    settings: dict = field(default_factory=dict)


def _run_columns(run):
    run = read_run(run)
    return (run.qid.to_numpy().astype(str) if hasattr(run.qid, "to_numpy") else np.asarray(run.qid).astype(str),
            run.docno.to_numpy().astype(str) if hasattr(run.docno, "to_numpy") else np.asarray(run.docno).astype(str),
            np.asarray(run.values, dtype=np.float64), run.name)


def ranked_lists(runs, *, depth: int = 10, queries=None) -> RankedLists:
    """The top ``depth`` documents of each run (paths, dicts, frames or ``Run`` objects) per
    query, ranked as trec_eval ranks them (score descending, ties by docno descending).
    ``queries``: the query ids to keep (default: every query of any run); rows are sorted by id."""
    depth = check_count(depth, "depth", high=10**4)
    if isinstance(runs, (str, bytes, dict)) or not hasattr(runs, "__len__") or len(runs) < 1:
        raise UsageError("runs: expected a list of runs")
    read = [_run_columns(run) for run in runs]
    names = tuple(name or f"run{i + 1}" for i, (_, _, _, name) in enumerate(read))
    all_q = np.concatenate([q for q, _, _, _ in read])
    query_ids = np.unique(all_q if queries is None else as_array(queries, "queries").astype(str).reshape(-1))
    doc_ids = np.unique(np.concatenate([d for _, d, _, _ in read]))
    out = np.full((len(read), len(query_ids), depth), -1, dtype=np.int64)
    q_order = np.argsort(query_ids)
    for i, (qid, docno, score, _) in enumerate(read):  # a loop over runs, not queries
        at = np.searchsorted(query_ids, qid, sorter=q_order) if len(query_ids) else np.zeros(len(qid), np.int64)
        at = np.minimum(at, max(len(query_ids) - 1, 0))
        keep = (query_ids[q_order[at]] == qid) if len(query_ids) else np.zeros(len(qid), bool)
        q, d, s = q_order[at][keep], np.searchsorted(doc_ids, docno[keep]), score[keep]
        order = np.lexsort((-d, -s, q))
        q, d = q[order], d[order]
        starts = np.r_[0, np.flatnonzero(q[1:] != q[:-1]) + 1] if len(q) else np.zeros(0, np.int64)
        rank = np.arange(len(q)) - np.repeat(starts, np.diff(np.r_[starts, len(q)]))
        top = rank < depth
        out[i, q[top], rank[top]] = d[top]
    return RankedLists(out, query_ids, doc_ids, names)


def _check_lists(lists) -> RankedLists:
    if not isinstance(lists, RankedLists):
        raise UsageError(f"lists: expected RankedLists (see ranked_lists), found {type(lists).__name__}")
    return lists


def interleave(lists: RankedLists, *, method: str = "team_draft", length: int | None = None, seed=0,
               tau: float = 3.0) -> Interleaving:
    """Interleave the runs of ``lists`` for each of its rows (queries or impressions). Seeded
    and reproducible: the same ``seed`` gives the same lists. ``tau``: the softmax exponent of
    probabilistic interleaving (3 in Hofmann et al. 2011). See the module's documentation."""
    lists = _check_lists(lists)
    check_choice(method, "method", METHODS)
    m, n, depth = lists.docs.shape
    if method != "multileave" and m != 2:
        raise UsageError(f"method {method!r} interleaves two runs, found {m}; use method='multileave'")
    length = depth if length is None else check_count(length, "length", high=10**4)
    if isinstance(tau, bool) or not isinstance(tau, (int, float)) or not 0 < tau < 1e3:
        raise UsageError(f"tau: expected a positive number, found {tau!r}")
    rng = as_generator(seed, "seed")
    docs = np.full((n, length), -1, dtype=np.int64)
    teams = np.full((n, length), -1, dtype=np.int64)
    probability = None
    if method in ("team_draft", "multileave"):
        _team_draft(lists.docs, docs, teams, rng)
    elif method == "balanced":
        _balanced(lists.docs, docs, teams, rng)
    else:
        probability = _probabilistic(lists.docs, docs, teams, rng, float(tau))
    ranks = _shown_ranks(docs, lists.docs)
    return Interleaving(method, docs, teams, ranks, lists.query_ids, lists.doc_ids, lists.names, probability,
                        {"method": method, "length": length, "seed": seed if not isinstance(seed, np.random.Generator)
                         else "generator", "tau": tau if method == "probabilistic" else None})


def _shown_ranks(docs: np.ndarray, lists: np.ndarray) -> np.ndarray:
    """(m, n, length): the rank of each shown document (``docs`` (n, length), -1 empty) in each
    run of ``lists`` (m, n, depth); 0 where the run does not list it."""
    m, n, length = lists.shape[0], docs.shape[0], docs.shape[1]
    ranks = np.zeros((m, n, length), dtype=np.int64)
    for i in range(m):  # a loop over runs
        hit = (docs[:, :, None] == lists[i][:, None, :]) & (docs[:, :, None] >= 0)
        ranks[i] = np.where(hit.any(axis=2), hit.argmax(axis=2) + 1, 0)
    return ranks


def _team_draft(lists, docs, teams, rng) -> None:
    m, n, _ = lists.shape
    filled = np.zeros(n, dtype=np.int64)
    rows = np.arange(n)
    length = docs.shape[1]
    free = lists >= 0  # (m, n, depth): listed and not yet shown
    while True:
        order = np.argsort(rng.random((n, m)), axis=1)  # this round's picking order per impression
        for j in range(m):
            team = order[:, j]
            mine = free[team, rows]
            column, found = mine.argmax(axis=1), mine.any(axis=1)
            take = found & (filled < length)
            doc = np.where(take, lists[team, rows, column], -1)
            docs[rows[take], filled[take]] = doc[take]
            teams[rows[take], filled[take]] = team[take]
            filled += take
            free &= lists != doc[None, :, None]
        if not np.any((filled < length) & free.any(axis=(0, 2))):
            return


def _balanced(lists, docs, teams, rng) -> None:
    _, n, depth = lists.shape
    rows = np.arange(n)
    a_first = rng.random(n) < 0.5
    pointer = np.zeros((n, 2), dtype=np.int64)
    filled = np.zeros(n, dtype=np.int64)
    length = docs.shape[1]
    for _ in range(2 * depth):
        left = (pointer < depth) & (lists[np.array([0, 1])[None, :], rows[:, None], np.minimum(pointer, depth - 1)] >= 0)
        prefer_a = (pointer[:, 0] < pointer[:, 1]) | ((pointer[:, 0] == pointer[:, 1]) & a_first)
        team = np.where(prefer_a, 0, 1)
        team = np.where(left[rows, team], team, 1 - team)
        active = left.any(axis=1) & (filled < length)
        doc = lists[team, rows, np.minimum(pointer[rows, team], depth - 1)]
        new = active & ~np.any(docs == doc[:, None], axis=1)
        docs[rows[new], filled[new]] = doc[new]
        teams[rows[new], filled[new]] = team[new]
        filled += new
        pointer[rows[active], team[active]] += 1
        if not active.any():
            return


def _probabilistic(lists, docs, teams, rng, tau) -> np.ndarray:
    _, n, depth = lists.shape
    rows = np.arange(n)
    weight = np.arange(1, depth + 1, dtype=np.float64) ** -tau
    available = lists >= 0  # (2, n, depth): not yet shown
    chosen = np.zeros((2, n, docs.shape[1]))  # P(doc at this position | team, list so far)
    for position in range(docs.shape[1]):
        mass = (weight * available).sum(axis=2)  # (2, n)
        team = np.where(rng.random(n) < 0.5, 0, 1)
        team = np.where(mass[team, rows] > 0, team, 1 - team)
        active = mass[team, rows] > 0
        if not active.any():
            break
        cumulative = np.cumsum(weight * available[team, rows], axis=1)
        u = rng.random(n) * cumulative[:, -1]
        column = np.minimum((cumulative <= u[:, None]).sum(axis=1), depth - 1)
        doc = np.where(active, lists[team, rows, column], -1)
        docs[active, position] = doc[active]
        teams[active, position] = team[active]
        hit = (lists == doc[None, :, None]) & active[None, :, None]
        chosen[:, :, position] = _pick_probability(hit, mass, weight)
        available &= ~hit
    return _team_posterior(chosen)


def _pick_probability(hit: np.ndarray, mass: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """(2, n): P(the document ``hit`` marks in each run's list | that run picks this position),
    the softmax weight of its rank over ``mass``, the weight of the run's documents not yet
    shown (0 when the run has none). Shared by the generator and by the scoring of logged lists
    (:mod:`.interleaving_log`) so that both compute the same floating-point numbers."""
    return np.where(mass > 0, (hit * weight).sum(axis=2) / np.where(mass > 0, mass, 1), 0)


def _team_posterior(chosen: np.ndarray) -> np.ndarray:
    """P(team A | list) per position from the pick probabilities ``chosen`` (2, n, length): the
    runs' coins are fair and independent per position, so the posterior factorises."""
    total = chosen[0] + chosen[1]
    return np.where(total > 0, chosen[0] / np.where(total > 0, total, 1), 0.0)


def _clicks(interleaving: Interleaving, clicked) -> np.ndarray:
    try:
        clicks = np.asarray(clicked)
    except (TypeError, ValueError):
        raise UsageError("clicked: expected a boolean matrix (impressions × positions)") from None
    if clicks.shape != interleaving.docs.shape:
        raise InputError(f"expected clicks of shape {interleaving.docs.shape} (impressions × positions), found "
                         f"{clicks.shape}", field="clicked")
    if clicks.dtype.kind not in "biu" or np.any((clicks != 0) & (clicks != 1)):
        raise InputError("expected 0/1 or booleans", field="clicked")
    clicks = clicks.astype(bool)
    shown = interleaving.docs >= 0
    if np.any(clicks & ~shown):
        i, j = np.argwhere(clicks & ~shown)[0]
        raise InputError(f"a click at position {j + 1} of impression {i + 1}, which shows no document", field="clicked")
    return clicks


def interleaving_credit(interleaving: Interleaving, clicked) -> np.ndarray:
    """Credit of each run per impression, (n, m), from ``clicked`` (n, length) on the shown
    lists: team methods count the clicks on each team's documents; balanced counts each run's
    clicked documents above ``k``; probabilistic gives ``[P(A wins), P(B wins)]`` under the
    posterior of team assignments. The run with more credit wins the impression."""
    if not isinstance(interleaving, Interleaving):
        raise UsageError(f"interleaving: expected an Interleaving, found {type(interleaving).__name__}")
    clicks = _clicks(interleaving, clicked)
    n, length = clicks.shape
    m = interleaving.ranks.shape[0]
    if interleaving.method in ("team_draft", "multileave"):
        team = np.where(clicks, interleaving.teams, m)
        return np.stack([(team == t).sum(axis=1) for t in range(m)], axis=1).astype(np.float64)
    if interleaving.method == "balanced":
        lowest = np.where(clicks.any(axis=1), length - 1 - clicks[:, ::-1].argmax(axis=1), 0)
        ranks = np.where(interleaving.ranks > 0, interleaving.ranks, np.iinfo(np.int64).max)
        k = np.minimum(ranks[0, np.arange(n), lowest], ranks[1, np.arange(n), lowest])
        return np.stack([(clicks & (ranks[t] <= k[:, None])).sum(axis=1) for t in range(2)], axis=1).astype(np.float64)
    pi = interleaving.team_probability
    spread = np.zeros((n, 2 * length + 1))
    spread[:, length] = 1.0  # distribution of (clicks for A − clicks for B)
    for position in range(length):  # a loop over list positions, vectorised over impressions
        c, p = clicks[:, position, None], pi[:, position, None]
        moved = p * np.roll(spread, 1, axis=1) + (1 - p) * np.roll(spread, -1, axis=1)
        spread = np.where(c, moved, spread)
    return np.stack([spread[:, length + 1:].sum(axis=1), spread[:, :length].sum(axis=1)], axis=1)


def sign_test_pvalue(wins, losses):
    """Two-sided sign test of ``wins`` against ``losses`` (binomial, p = 1/2, ties dropped):
    ``min(1, 2 · P(X ≤ min(wins, losses)))``, X ~ Binomial(wins + losses, 1/2); 1 when both are 0.
    Equal to ``scipy.stats.binomtest(wins, wins + losses).pvalue``; vectorised."""
    from scipy.special import bdtr

    w, l = as_array(wins, "wins"), as_array(losses, "losses")
    if w.dtype.kind not in "iuf" or l.dtype.kind not in "iuf" or np.any(~np.isfinite(w)) or np.any(~np.isfinite(l)) \
            or np.any(w < 0) or np.any(l < 0) or np.any(w != np.floor(w)) or np.any(l != np.floor(l)):
        raise UsageError("wins, losses: expected counts (non-negative integers)")
    total = w + l
    p = np.minimum(1.0, 2.0 * bdtr(np.minimum(w, l), total, 0.5))
    p = np.where((total == 0) | (w == l), 1.0, p)
    return float(p) if p.ndim == 0 else p


def interleaving_outcome(credit, *, groups=None, confidence: float = 0.95, n_bootstrap: int = 10_000,
                         seed=0) -> dict:
    """Wins, ties and losses of run A (column 0) against B (column 1) from per-impression
    ``credit`` (n, 2); with ``groups`` (a code per impression, e.g. the query) each group is one
    outcome, the sign of its impressions' outcomes summed. Returns the counts, ``delta``
    (Δ_AB = (wins + ties/2)/n − 1/2), its percentile bootstrap interval, the sign test's
    p-value and the settings."""
    try:
        values = np.asarray(credit, dtype=np.float64)
    except (TypeError, ValueError):
        raise UsageError("credit: expected a numeric matrix (impressions × 2)") from None
    if values.ndim != 2 or values.shape[1] != 2 or not np.all(np.isfinite(values)):
        raise InputError(f"expected finite credit of shape (n, 2), found shape {values.shape}", field="credit")
    confidence = check_fraction(confidence, "confidence")
    n_bootstrap = check_count(n_bootstrap, "n_bootstrap", low=2, high=10**6)
    rng = as_generator(seed, "seed")
    outcome = np.sign(values[:, 0] - values[:, 1])
    if groups is not None:
        codes = np.unique(as_array(groups, "groups"), return_inverse=True)[1].reshape(-1)
        if len(codes) != len(outcome):
            raise InputError(f"expected {len(outcome)} groups (one per impression), found {len(codes)}", field="groups")
        outcome = np.sign(np.bincount(codes, weights=outcome))
    n = len(outcome)
    if n == 0:
        raise InputError("no impressions to compare", field="credit")
    wins, ties, losses = int((outcome > 0).sum()), int((outcome == 0).sum()), int((outcome < 0).sum())
    draws = rng.multinomial(n, np.array([wins, ties, losses]) / n, size=n_bootstrap)
    boot = (draws[:, 0] + draws[:, 1] / 2) / n - 0.5
    tail = (1 - confidence) / 2
    low, high = np.quantile(boot, [tail, 1 - tail])
    return {"wins": wins, "ties": ties, "losses": losses, "n": n, "delta": (wins + ties / 2) / n - 0.5,
            "ci_low": float(low), "ci_high": float(high), "p_value": sign_test_pvalue(wins, losses),
            "settings": {"confidence": confidence, "n_bootstrap": n_bootstrap, "bootstrap": "percentile, multinomial",
                         "test": "two-sided sign test (binomial, p=1/2, ties dropped)", "unit": "group" if
                         groups is not None else "impression", "seed": seed if not isinstance(seed, np.random.Generator)
                         else "generator"}}


def multileaving_preferences(credit) -> np.ndarray:
    """Pairwise preference matrix of multileaving (Schuth et al. 2014): ``P[i, j]`` = (impressions
    where run i got more credit than j + ties/2) / n − 1/2 (antisymmetric; > 0: i preferred)."""
    try:
        values = np.asarray(credit, dtype=np.float64)
    except (TypeError, ValueError):
        raise UsageError("credit: expected a numeric matrix (impressions × runs)") from None
    if values.ndim != 2 or values.shape[0] == 0 or not np.all(np.isfinite(values)):
        raise InputError(f"expected finite credit of shape (n, m), found shape {values.shape}", field="credit")
    diff = values[:, :, None] - values[:, None, :]
    return ((diff > 0).sum(axis=0) + (diff == 0).sum(axis=0) / 2) / values.shape[0] - 0.5
