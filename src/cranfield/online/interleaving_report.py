"""The interleaving experiments of ``cranfield online interleave``: the interleaved lists of some
runs, their outcome with simulated users clicking by the judgments, or the outcome of a logged
experiment; the command only renders them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import UsageError
from .interleaving import (
    Interleaving,
    interleave,
    interleaving_credit,
    interleaving_outcome,
    multileaving_preferences,
    ranked_lists,
)
from .interleaving_log import interleaving_from_log
from .simulation import _grades, _lookup_grades, grade_attractiveness, simulate_clicks

__all__ = ["LIST_COLUMNS", "InterleavingReport", "interleaved_lists", "logged_interleaving", "simulated_interleaving"]

# the columns of a click log (docs/online-models.md), clicked 0 until users click: what
# `--clicks` reads back as written once the experiment fills in the clicks
LIST_COLUMNS = ("impression", "query", "rank", "doc", "team", "clicked")


def interleaved_lists(runs, *, method: str = "team_draft", depth: int = 10, length: int | None = None, seed=0,
                      tau: float = 3.0) -> dict:
    """The lists of ``runs`` interleaved query by query: ``{"names", "rows", "settings"}``, one
    row per shown document in :data:`LIST_COLUMNS` order (impression and rank from 1)."""
    il = interleave(ranked_lists(list(runs), depth=depth), method=method, length=length, seed=seed, tau=tau)
    q, pos = np.nonzero(il.docs >= 0)
    rows = [[int(i) + 1, a, int(b) + 1, c, d, 0]
            for i, a, b, c, d in zip(q.tolist(), il.query_ids[q].tolist(), pos.tolist(),
                                     il.doc_ids[il.docs[q, pos]].tolist(),
                                     np.asarray(il.names)[il.teams[q, pos]].tolist())]
    return {"names": list(il.names), "rows": rows,
            "settings": {**il.settings, "runs": list(il.names), "depth": depth}}


@dataclass
class InterleavingReport:
    """Wins, ties, losses and Δ of each pair of runs (``outcomes``, dicts with ``A`` and ``B``)
    and, for three runs or more, the multileaving preference matrix."""

    names: list
    outcomes: list
    preferences: np.ndarray | None
    settings: dict
    impressions: int

    def to_dict(self) -> dict:
        if self.preferences is not None:
            return {"preferences": self.preferences, "runs": self.names, "outcomes": self.outcomes,
                    "settings": self.settings}
        out = self.outcomes[0]
        return {**{k: v for k, v in out.items() if k not in ("A", "B")}, "runs": self.names,
                "settings": {**out["settings"], **self.settings}}


def _report(il: Interleaving, credit: np.ndarray, settings: dict, *, per: str, seed) -> InterleavingReport:
    groups = il.query_ids if per == "query" else None
    names = list(il.names)
    outcomes = [{"A": names[i], "B": names[j], **interleaving_outcome(credit[:, [i, j]], groups=groups, seed=seed)}
                for i in range(len(names)) for j in range(i + 1, len(names))]
    preferences = multileaving_preferences(credit) if len(names) > 2 else None
    return InterleavingReport(names, outcomes, preferences, {**settings, "per": per}, int(il.docs.shape[0]))


def simulated_interleaving(runs, qrels, *, method: str = "team_draft", depth: int = 10, length: int | None = None,
                           seed=0, tau: float = 3.0, model: str = "cascade", impressions: int | None = None,
                           per: str = "impression") -> InterleavingReport:
    """Interleave ``runs`` for ``impressions`` queries drawn uniformly (default: each query
    once) and let simulated ``model`` users click by the ``qrels`` grades."""
    lists = ranked_lists(list(runs), depth=depth)
    rng = np.random.default_rng(seed)
    n_q = len(lists.query_ids)
    rows = np.arange(n_q) if impressions is None else rng.integers(0, n_q, impressions)
    grades = _grades(qrels, lists)
    il = interleave(lists.take(rows), method=method, length=length, seed=rng, tau=tau)
    grade = np.where(il.docs >= 0, _lookup_grades(il, grades, rows), np.nan)
    clicked = simulate_clicks(grade_attractiveness(grade, max_grade=int(np.nanmax(grades, initial=1))), model=model,
                              seed=rng)
    settings = {**il.settings, "seed": seed, "runs": list(il.names), "click_model": model, "impressions": len(rows)}
    return _report(il, interleaving_credit(il, clicked), settings, per=per, seed=seed)


def logged_interleaving(clicks, runs=(), *, method: str = "team_draft", depth: int = 10, tau: float = 3.0,
                        per: str = "impression", seed=0) -> InterleavingReport:
    """The outcome of a logged experiment: the interleaved lists users saw and their clicks
    (``clicks``, a click log), with the ``runs`` of the experiment or none (team methods)."""
    if len(runs) == 1:
        raise UsageError("expected no run (team methods: the log's team column) or the runs of the experiment, "
                         "found one")
    il, clicked = interleaving_from_log(clicks, method=method, runs=list(runs) or None, depth=depth, tau=tau)
    return _report(il, interleaving_credit(il, clicked), {**il.settings, "seed": seed}, per=per, seed=seed)
