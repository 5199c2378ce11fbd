"""Scoring an interleaving experiment that really ran: the interleaved lists users saw, read
from a click log, with their clicks.

The log is a click log (:mod:`cranfield.io.clicklog`: ``impression``, ``query``, ``rank``,
``doc``, ``clicked``, …) whose rows are the interleaved lists as shown, plus, for team-based
methods, the ``team`` column: the run credited with each shown document.
:func:`interleaving_from_log` turns it into the :class:`~cranfield.online.interleaving.Interleaving`
that :func:`~cranfield.online.interleaving.interleave` would have produced for those lists, and
the clicked matrix, so that :func:`~cranfield.online.interleaving.interleaving_credit`,
:func:`~cranfield.online.interleaving.interleaving_outcome` and
:func:`~cranfield.online.interleaving.multileaving_preferences` score it unchanged:

* ``team_draft`` (Radlinski, Kurup & Joachims 2008) and ``multileave`` (Schuth et al. 2014): a
  click credits the run in the ``team`` column of its row. ``runs`` is optional; given, it fixes
  the order of the runs (names = the runs' names, which the team values must be) and each
  credited document must be in its team's top ``depth``.
* ``balanced`` (Joachims 2003; Chapelle, Joachims, Radlinski & Yue 2012): credit depends only on
  the rank of each shown document in each run, so ``runs`` (two) is required and the ``team``
  column optional.
* ``probabilistic`` (Hofmann, Whiteson & de Rijke 2011): credit is the expectation over the team
  assignments that could have produced the list. Position ``j`` shows document ``d``; run ``t``
  would have picked it with probability ``P_t(d) = r_t(d)^−τ / Σ r_t(d')^−τ`` (the sum over
  the documents of run ``t``'s top ``depth`` not shown above ``j``; 0 when ``t`` does not list
  ``d``), and both runs are equally likely to pick each position, so
  ``P(team A | list) = P_A(d) / (P_A(d) + P_B(d))`` position by position. ``runs`` (two) and
  ``tau`` must be those of the experiment. The arithmetic is the generator's own
  (:func:`~cranfield.online.interleaving.interleave` records the same number while drawing).

Every shown document of ``balanced`` and ``probabilistic`` must be in one of the runs' top
``depth`` (a list the method cannot have produced is an error, not a silent zero).

**Vectorisation.** The log's rows fill (impressions × positions) matrices by their ranks; the
only Python loops run over list positions and runs.
"""

from __future__ import annotations

import numpy as np

from .._params import check_choice, check_count
from ..errors import InputError, UsageError
from ..io.clicklog import parse_click_table, read_click_table
from .interleaving import (
    METHODS,
    Interleaving,
    RankedLists,
    _pick_probability,
    _shown_ranks,
    _team_posterior,
    ranked_lists,
)

__all__ = ["interleaving_from_log"]

TEAM_METHODS = ("team_draft", "multileave")


def interleaving_from_log(log, *, method: str = "team_draft", runs=None, depth: int = 10,
                          tau: float = 3.0) -> tuple[Interleaving, np.ndarray]:
    """``(interleaving, clicked)`` of a logged interleaving experiment: one row per impression
    (in impression-id order, whatever the order of the log's rows), positions = ranks.

    ``log``: a click log as :func:`cranfield.io.clicklog.read_click_table` reads it (CSV/TSV or
    Parquet path, file object, pandas/polars DataFrame, Arrow table, dict of columns), with a
    ``team`` column for ``team_draft`` / ``multileave``. ``runs``: the interleaved runs (paths,
    dicts, frames, ``Run`` objects; ranked to ``depth`` as trec_eval ranks) or a
    :class:`RankedLists` (one row per query, unique query ids); required by ``balanced`` and
    ``probabilistic``. ``tau``: the softmax exponent of probabilistic interleaving.

    ``interleaving.teams`` is the ``team`` column as run indices (-1 where empty, or everywhere
    when the log has no team column); ``ranks`` is 0 everywhere without ``runs``. See the module
    documentation for the methods and references.

    >>> from cranfield.online.interleaving import interleaving_credit
    >>> il, clicked = interleaving_from_log({"impression": [1, 1, 2, 2], "query": ["q", "q", "q", "q"],
    ...     "rank": [1, 2, 1, 2], "doc": ["a", "b", "b", "a"], "clicked": [1, 0, 0, 1],
    ...     "team": ["bm25", "tfidf", "tfidf", "bm25"]})
    >>> il.names, interleaving_credit(il, clicked).tolist()
    (('bm25', 'tfidf'), [[1.0, 0.0], [1.0, 0.0]])
    """
    check_choice(method, "method", METHODS)
    depth = check_count(depth, "depth", high=10**4)
    if isinstance(tau, bool) or not isinstance(tau, (int, float)) or not 0 < tau < 1e3:
        raise UsageError(f"tau: expected a positive number, found {tau!r}")
    if runs is None and method not in TEAM_METHODS:
        raise UsageError(f"method {method!r} credits clicks by each document's rank in the runs: give the two "
                         "runs of the experiment (runs=; on the command line RUN_A RUN_B)")
    columns, name, first = read_click_table(log)
    t = parse_click_table(columns, source=name, first_line=first, with_team=True)
    if t["team"] is None and method in TEAM_METHODS:
        raise InputError(f"method {method!r} credits each click to the run in the 'team' column; the log has no "
                         "team column", source=name, field="team")
    offsets = t["impression_offsets"]
    n = len(offsets) - 1
    if n == 0:
        raise InputError("the click log has no rows; expected the interleaved lists shown", source=name)
    counts = np.diff(offsets)
    length = int(counts.max())
    row, col = np.repeat(np.arange(n), counts), t["rank"] - 1  # ranks run 1, 2, … per impression (the grammar)
    docs = np.full((n, length), -1, dtype=np.int64)
    docs[row, col] = t["doc"]
    clicked = np.zeros((n, length), dtype=bool)
    clicked[row, col] = t["clicked"]
    line = np.zeros((n, length), dtype=np.int64)
    line[row, col] = t["line"]
    doc_ids = np.asarray(t["doc_ids"]).astype(str)
    query_ids = np.asarray(t["query_ids"]).astype(str)[t["query"][offsets[:-1]]]
    _no_repeats(docs, line, doc_ids, name)

    lists = None if runs is None else _lists(runs, depth, query_ids)
    names = lists.names if lists is not None else tuple(np.asarray(t["team_ids"]).astype(str).tolist())
    teams = np.full((n, length), -1, dtype=np.int64)
    if t["team"] is not None:
        teams[row, col] = _team_index(t, names, name, lists is not None)
    _check_count_of_runs(method, names, name, from_runs=lists is not None)
    m = len(names)
    ranks, posterior = np.zeros((m, n, length), dtype=np.int64), None
    if lists is not None:
        run_docs, shown_codes = _rows_of_runs(lists, query_ids, docs, doc_ids, line, name)
        ranks = _shown_ranks(shown_codes, run_docs)
        _check_consistent(method, docs, teams, ranks, line, doc_ids, query_ids, names, run_docs.shape[2], name)
        if method == "probabilistic":
            posterior = _posterior(run_docs, shown_codes, float(tau))
    settings = {"method": method, "log": name, "impressions": n, "length": length, "runs": list(names),
                "depth": None if lists is None else int(lists.docs.shape[2]),
                "tau": tau if method == "probabilistic" else None, "team_column": t["team"] is not None}
    return Interleaving(method, docs, teams, ranks, query_ids, doc_ids, names, posterior, settings), clicked


def _lists(runs, depth: int, query_ids: np.ndarray) -> RankedLists:
    if isinstance(runs, RankedLists):
        ids = np.asarray(runs.query_ids).astype(str)
        if len(np.unique(ids)) != len(ids):
            raise UsageError("runs: expected RankedLists with one row per query (unique query ids)")
        return RankedLists(runs.docs, ids, np.asarray(runs.doc_ids).astype(str), tuple(map(str, runs.names)))
    return ranked_lists(runs, depth=depth, queries=np.unique(query_ids))


def _no_repeats(docs, line, doc_ids, source) -> None:
    """An interleaved list shows each document once."""
    order = np.argsort(docs, axis=1, kind="stable")
    ordered = np.take_along_axis(docs, order, axis=1)
    twice = (ordered[:, 1:] == ordered[:, :-1]) & (ordered[:, 1:] >= 0)
    if twice.any():
        lines = np.take_along_axis(line, order, axis=1)
        later = np.maximum(lines[:, 1:], lines[:, :-1])
        at = np.argwhere(twice)[np.argmin(later[twice])]
        d = int(ordered[at[0], at[1] + 1])
        lines = sorted(int(v) for v in line[at[0]][docs[at[0]] == d])
        raise InputError(f"document {str(doc_ids[d])!r} is shown twice in one impression (also on line {lines[0]}); an "
                         "interleaved list shows each document once", source=source, line=lines[-1], field="doc")


def _team_index(t: dict, names: tuple, source: str, from_runs: bool) -> np.ndarray:
    """Run index of each row's team (rows in canonical order)."""
    ids = np.asarray(t["team_ids"]).astype(str)
    if not from_runs:
        return t["team"]
    if len(set(names)) != len(names):
        raise UsageError(f"runs: two runs are named alike ({', '.join(names)}); the team column cannot tell them "
                         "apart (give each run its own tag)")
    position = {run: i for i, run in enumerate(names)}
    index = np.array([position.get(team, -1) for team in ids.tolist()], dtype=np.int64)  # one per distinct team
    per_row = index[t["team"]]
    unknown = per_row < 0
    if unknown.any():
        rows = np.flatnonzero(unknown)
        i = int(rows[np.argmin(t["line"][rows])])
        raise InputError(f"team {str(ids[t['team'][i]])!r} is not one of the runs ({', '.join(names)})", source=source,
                         line=int(t["line"][i]), field="team")
    return per_row


def _check_count_of_runs(method: str, names: tuple, source: str, *, from_runs: bool) -> None:
    m = len(names)
    if method != "multileave" and m != 2:
        message = f"method {method!r} compares two runs, found {m} ({', '.join(names)})"
        if from_runs:
            raise UsageError(f"{message}; use method='multileave'" if m > 2 else message)
        raise InputError(f"{message} in the team column" + ("; use method 'multileave'" if m > 2 else
                                                            "; give the runs to name both"), source=source,
                         field="team")
    if m < 2:
        message = f"multileaving compares two runs or more, found {m} ({', '.join(names)})"
        if from_runs:
            raise UsageError(message)
        raise InputError(f"{message} in the team column", source=source, field="team")


def _rows_of_runs(lists: RankedLists, query_ids, docs, doc_ids, line, source):
    """The runs' lists per impression (m, n, depth) and the shown documents as codes into the
    runs' document ids (-1 empty, -2 listed by no run)."""
    q_order = np.argsort(lists.query_ids)
    at = np.minimum(np.searchsorted(lists.query_ids, query_ids, sorter=q_order), len(q_order) - 1)
    rows = q_order[at] if len(q_order) else np.zeros(len(query_ids), np.int64)
    missing = np.ones(len(query_ids), bool) if not len(q_order) else lists.query_ids[rows] != query_ids
    if missing.any():
        i = int(np.flatnonzero(missing)[np.argmin(line[missing, 0])])
        raise InputError(f"query {str(query_ids[i])!r} is not among the runs' queries", source=source, line=int(line[i, 0]),
                         field="query")
    d_order = np.argsort(lists.doc_ids)
    if len(d_order):
        spot = np.minimum(np.searchsorted(lists.doc_ids, doc_ids, sorter=d_order), len(d_order) - 1)
        code = np.where(lists.doc_ids[d_order[spot]] == doc_ids, d_order[spot], -2)
    else:
        code = np.full(len(doc_ids), -2, dtype=np.int64)
    shown = np.where(docs >= 0, code[np.maximum(docs, 0)], -1)
    return np.ascontiguousarray(lists.docs[:, rows]), shown


def _check_consistent(method, docs, teams, ranks, line, doc_ids, query_ids, names, depth, source) -> None:
    shown = docs >= 0
    bad = np.zeros(shown.shape, bool)
    field, what = "team", ""
    has_team = teams >= 0
    if has_team.any():
        own = ranks[np.maximum(teams, 0), np.arange(docs.shape[0])[:, None], np.arange(docs.shape[1])[None, :]]
        bad = has_team & (own == 0)
        what = "team {team!r} is credited with document {doc!r}, which run {team!r} does not rank in its top {depth} " \
               "for query {query!r}"
    if method in ("balanced", "probabilistic"):
        nowhere = shown & (ranks == 0).all(axis=0)
        if nowhere.any() and (not bad.any() or line[nowhere].min() <= line[bad].min()):
            bad, field = nowhere, "doc"
            what = "document {doc!r} is in neither run's top {depth} for query {query!r}"
    if bad.any():
        i, j = np.argwhere(bad)[np.argmin(line[bad])]
        team = names[teams[i, j]] if teams[i, j] >= 0 else None
        raise InputError(what.format(team=team, doc=str(doc_ids[docs[i, j]]), depth=depth, query=str(query_ids[i])) +
                         f"; the interleaved lists show only documents of the runs (are runs and depth={depth} those "
                         "of the experiment?)", source=source, line=int(line[i, j]), field=field)


def _posterior(run_docs: np.ndarray, shown: np.ndarray, tau: float) -> np.ndarray:
    """P(team A | list) per position: the generator's pick probabilities replayed on the shown
    lists (a loop over positions, vectorised over impressions)."""
    depth = run_docs.shape[2]
    n, length = shown.shape
    weight = np.arange(1, depth + 1, dtype=np.float64) ** -tau
    available = run_docs >= 0  # (2, n, depth): listed and not yet shown
    chosen = np.zeros((2, n, length))
    for position in range(length):
        mass = (weight * available).sum(axis=2)
        doc = shown[:, position]
        hit = (run_docs == doc[None, :, None]) & (doc >= 0)[None, :, None]
        chosen[:, :, position] = _pick_probability(hit, mass, weight)
        available &= ~hit
    return _team_posterior(chosen)
