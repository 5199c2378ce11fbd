"""Reusability of a test collection: would a run that did not contribute to the pool be scored
fairly? (Zobel, SIGIR 1998, "How reliable are the results of large-scale information retrieval
experiments?"; Voorhees & Harman 2005, ch. 3; Buckley, Dimmick, Soboroff & Voorhees 2007.)

Leave-one-run-out (or leave-one-group-out): the pool is rebuilt from the runs at ``depth``
(depth-k pooling, :func:`cranfield.judgments.build_pool`). For each group G (a run, or the runs
of one participant), the judgments of the pooled documents that *only* runs of G retrieve
within ``depth`` are removed from the qrels, and the runs of G are evaluated again with what is
left: as if G had not taken part in the pool. Judgments of documents that no given run pools
(contributed by runs not given) always stay.

Reported, per run and measure: the score with all judgments (``score``) and without its group's
unique judgments (``left_out``), their difference ``delta = left_out − score``, the run's rank
among all runs (1 = best; tied scores share the best rank) and the rank its left-out score would
take among the other runs' full scores (``rank_change = left_out_rank − rank``: positive means
the run drops). Per measure: Kendall's τ-b and τ_AP (Yilmaz, Aslam & Robertson 2008) between
the ranking of the runs by ``score`` (the reference) and by ``left_out`` (each run scored
without its own group's unique judgments), see :mod:`cranfield.correlation`. τ_AP needs
rankings without ties: tied scores are ordered by the order of the runs given (stated in the
settings). A correlation that is undefined (every run tied) is reported as None.

Policy for a query whose every judgment was unique to the left-out group: its removed
judgments are kept as non-relevant (grade 0), so the query stays in the evaluation (it has no
relevant document left, as when removed) and the run's query set does not change.

Each group is evaluated once through :class:`cranfield.Evaluator` (its reduced qrels prepared
once, every run of the group evaluated with it); the full qrels are prepared once for all runs.
A group that contributed no unique judgment keeps its scores exactly, without re-evaluation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from .._exact import snap_ties
from .._arrow import index_in, indices, to_numpy
from ..correlation import kendall_tau, tau_ap
from ..errors import UsageError
from ..measures.base import parse_measures
from ..retrieval.evaluate import Evaluator
from ..retrieval.qrels import Qrels, read_qrels
from .pooling import build_pool, named_runs, positive_int, relevance_level_of

__all__ = ["Reusability", "leave_one_out", "groups_by_prefix"]

SEPARATORS = "-_."


def groups_by_prefix(names: Sequence[str], *, length: int | None = None, separators: str = SEPARATORS) -> dict:
    """``{name: group}``: the group of a run is its name up to the first of ``separators``
    (the whole name when there is none), or its first ``length`` characters when given.

    >>> groups_by_prefix(["uva-bm25", "uva-rm3", "cmu_dfr"])
    {'uva-bm25': 'uva', 'uva-rm3': 'uva', 'cmu_dfr': 'cmu'}
    """
    if isinstance(names, (str, bytes)) or not hasattr(names, "__iter__"):
        raise UsageError(f"names: expected a sequence of run names, found {type(names).__name__}")
    names = list(names)
    if not all(isinstance(n, str) for n in names):
        raise UsageError("names: expected run names (strings)")
    length = positive_int(length, "length")
    if not isinstance(separators, str):
        raise UsageError(f"separators: expected a string of characters, found {separators!r}")
    out = {}
    for name in names:
        if length is not None:
            out[name] = name[:length]
            continue
        cuts = [name.find(s) for s in separators if name.find(s) > 0]
        out[name] = name[:min(cuts)] if cuts else name
    return out


@dataclass(eq=False)
class Reusability:
    """Leave-one-group-out results (see the module's documentation). Arrays are
    (runs × measures), in the order of ``run_names`` and ``measures``."""

    run_names: tuple
    groups: tuple
    measures: tuple
    score: np.ndarray
    left_out: np.ndarray
    rank: np.ndarray
    left_out_rank: np.ndarray
    removed: np.ndarray  # judgments removed for each run's group
    removed_relevant: np.ndarray
    tau: list
    tau_ap: list
    settings: dict = field(default_factory=dict)

    @property
    def delta(self) -> np.ndarray:
        return self.left_out - self.score

    @property
    def rank_change(self) -> np.ndarray:
        return self.left_out_rank - self.rank

    COLUMNS = ("run", "group", "measure", "score", "left_out", "delta", "rank", "left_out_rank", "rank_change",
               "removed", "removed_relevant")
    SUMMARY_COLUMNS = ("measure", "tau", "tau_ap", "max_abs_delta", "mean_delta", "max_rank_drop")

    def rows(self) -> list[list]:
        """One row per run × measure, columns :attr:`COLUMNS`."""
        out = []
        for i, (run, group) in enumerate(zip(self.run_names, self.groups)):
            for j, measure in enumerate(self.measures):
                out.append([run, group, measure, float(self.score[i, j]), float(self.left_out[i, j]),
                            float(self.delta[i, j]), int(self.rank[i, j]), int(self.left_out_rank[i, j]),
                            int(self.rank_change[i, j]), int(self.removed[i]), int(self.removed_relevant[i])])
        return out

    def summary_rows(self) -> list[list]:
        """One row per measure, columns :attr:`SUMMARY_COLUMNS`."""
        delta = self.delta
        return [[m, self.tau[j], self.tau_ap[j], float(np.abs(delta[:, j]).max()), float(delta[:, j].mean()),
                 int(max(0, self.rank_change[:, j].max()))] for j, m in enumerate(self.measures)]

    def to_dict(self) -> dict:
        return {"settings": dict(self.settings),
                "runs": [dict(zip(self.COLUMNS, row)) for row in self.rows()],
                "summary": [dict(zip(self.SUMMARY_COLUMNS, row)) for row in self.summary_rows()]}


def _run_groups(names: tuple, groups: Any) -> tuple:
    if groups is None:
        return names
    if isinstance(groups, str):
        if groups != "prefix":
            raise UsageError(f"groups: expected None, 'prefix' or a mapping run name -> group, found {groups!r}")
        mapping = groups_by_prefix(names)
    elif hasattr(groups, "items"):
        mapping = {str(k): v for k, v in groups.items()}
    else:
        raise UsageError(f"groups: expected None, 'prefix' or a mapping run name -> group, found "
                         f"{type(groups).__name__}")
    missing = [n for n in names if n not in mapping]
    if missing:
        raise UsageError(f"groups: no group for run(s) {', '.join(map(repr, missing[:5]))}; the mapping names "
                         f"{', '.join(map(repr, list(mapping)[:5]))}")
    return tuple(str(mapping[n]) for n in names)


def _competition_rank(reference: np.ndarray, values: np.ndarray, *, exclude_self: bool) -> np.ndarray:
    """1 + the number of reference scores above each value (per column); with ``exclude_self``
    row i's own reference score is left out."""
    above = reference[None, :, :] > values[:, None, :]  # (run i, other run j, measure)
    if exclude_self:
        n = reference.shape[0]
        above[np.arange(n), np.arange(n), :] = False
    return 1 + above.sum(axis=1)


def _correlations(names: tuple, reference: np.ndarray, other: np.ndarray) -> tuple[list, list]:
    taus, taps = [], []
    for j in range(reference.shape[1]):
        a = dict(zip(names, other[:, j].tolist()))
        b = dict(zip(names, reference[:, j].tolist()))
        try:
            taus.append(kendall_tau(a, b))
        except UsageError:  # every run tied: undefined
            taus.append(None)
        # τ_AP: no ties; tied scores in the order the runs were given
        index = np.arange(len(names))
        order_a = [names[i] for i in np.lexsort((index, -other[:, j]))]
        order_b = [names[i] for i in np.lexsort((index, -reference[:, j]))]
        taps.append(tau_ap(order_a, order_b))
    return taus, taps


def leave_one_out(qrels: Any, runs: Any, measures: "Sequence[str] | str" = ("AP",), *, depth: int = 100,
                groups: "Mapping | str | None" = None, relevance_level: int = 1) -> Reusability:
    """Leave-one-run-out (``groups=None``) or leave-one-group-out (``groups``: a mapping run name
    -> group, or ``"prefix"``: :func:`groups_by_prefix`) reusability of ``qrels`` for ``runs``
    (a sequence of runs or a mapping name -> run), pooled at ``depth``.

    >>> qrels = {"q1": {"a": 1, "b": 1, "c": 0}}
    >>> runs = {"x": {"q1": {"a": 2.0, "c": 1.0}}, "y": {"q1": {"b": 2.0, "c": 1.0}}}
    >>> r = leave_one_out(qrels, runs, ["P@1"], depth=1)
    >>> r.score[:, 0].tolist(), r.left_out[:, 0].tolist()
    ([1.0, 1.0], [0.0, 0.0])
    """
    depth = positive_int(depth, "depth", allow_none=False)
    relevance_level = relevance_level_of(relevance_level)
    if not isinstance(measures, str) and not (hasattr(measures, "__iter__") and not hasattr(measures, "items")):
        raise UsageError(f"measures: expected a measure name or a sequence of them, found {type(measures).__name__}")
    measure_list = parse_measures(list(measures) if not isinstance(measures, str) else [measures])
    if not measure_list:
        raise UsageError("measures: expected at least one measure")
    qrels = read_qrels(qrels)
    run_list = named_runs(runs)
    names = tuple(run.name for run in run_list)
    group_of = _run_groups(names, groups)
    group_names = tuple(dict.fromkeys(group_of))
    if len(run_list) < 2:
        raise UsageError(f"reusability needs at least 2 runs to rank, found {len(run_list)}")
    if len(group_names) < 2:
        raise UsageError(f"leave-one-group-out needs at least 2 groups, found 1 ({group_names[0]!r})")
    group_index = np.array([group_names.index(g) for g in group_of], dtype=np.int64)

    pool = build_pool(run_list, method="depth", depth=depth)
    owner = _unique_owner(pool, group_index, len(group_names))
    row_owner = _qrels_owner(qrels, pool, owner)

    keys = [str(m) for m in measure_list]
    evaluator = Evaluator(qrels, measure_list, relevance_level=relevance_level)
    full = [evaluator.evaluate(run) for run in run_list]
    score = np.array([[r.mean[k] for k in keys] for r in full], dtype=np.float64)
    left_out = score.copy()
    removed = np.zeros(len(run_list), dtype=np.int64)
    removed_relevant = np.zeros(len(run_list), dtype=np.int64)
    rel = qrels.rel
    for g in range(len(group_names)):
        drop = row_owner == g
        members = np.flatnonzero(group_index == g)
        removed[members] = int(drop.sum())
        removed_relevant[members] = int((drop & (rel >= relevance_level)).sum())
        if not drop.any():
            continue
        reduced = _reduced_qrels(qrels, drop, Qrels)
        reduced_evaluator = Evaluator(reduced, measure_list, relevance_level=relevance_level)
        for i in members:
            result = reduced_evaluator.evaluate(run_list[i])
            left_out[i] = [result.mean[k] for k in keys]
    # ties decided on exact values: means equal as rationals may differ in the last bit
    snapped = snap_ties(np.concatenate((score, left_out)), axis=0)
    tied_score, tied_left_out = snapped[:len(score)], snapped[len(score):]
    rank = _competition_rank(tied_score, tied_score, exclude_self=False)
    left_out_rank = _competition_rank(tied_score, tied_left_out, exclude_self=True)
    tau, tap = _correlations(names, tied_score, tied_left_out)
    settings = {"depth": depth, "groups": "runs" if groups is None else ("prefix" if groups == "prefix" else "mapping"),
                "relevance_level": int(relevance_level), "pooling": "depth",
                "tau_ap ties": "broken by the order of the runs given",
                "query left without judgments": "its removed judgments kept as grade 0"}
    return Reusability(run_names=names, groups=group_of, measures=tuple(keys), score=score, left_out=left_out,
                       rank=rank, left_out_rank=left_out_rank, removed=removed, removed_relevant=removed_relevant,
                       tau=tau, tau_ap=tap, settings=settings)


def _unique_owner(pool, group_index: np.ndarray, n_groups: int) -> np.ndarray:
    """Per sheet row of ``pool``: the only group whose runs retrieve it, or -1."""
    rows, runs = pool.members
    pairs = np.unique(rows * n_groups + group_index[runs])
    row_of_pair = pairs // n_groups
    counts = np.bincount(row_of_pair, minlength=len(pool))
    owner = np.full(len(pool), -1, dtype=np.int64)
    single = counts[row_of_pair] == 1
    owner[row_of_pair[single]] = pairs[single] % n_groups
    return owner


def _qrels_owner(qrels, pool, owner: np.ndarray) -> np.ndarray:
    """Per qrels row: the group that alone pooled its document, or -1."""
    import pyarrow as pa
    import pyarrow.compute as pc

    query_index = pa.array(pool.query_ids.tolist(), type=pa.string())
    docs = pa.array(pool.docno.tolist(), type=pa.string())
    doc_index = pc.unique(docs)
    q = index_in(qrels.qid, query_index).astype(np.int64)
    d = index_in(qrels.docno, doc_index).astype(np.int64)
    pool_q = index_in(pa.array(pool.qid.tolist(), type=pa.string()), query_index).astype(np.int64)  # all found
    pool_d = index_in(docs, doc_index).astype(np.int64)
    n_d = max(len(doc_index), 1)
    pool_keys = pool_q * n_d + pool_d
    sort = np.argsort(pool_keys)
    sorted_keys = pool_keys[sort]
    known = (q >= 0) & (d >= 0)
    keys = np.where(known, q * n_d + d, -1)
    slot = np.minimum(np.searchsorted(sorted_keys, keys), sorted_keys.size - 1)
    hit = known & (sorted_keys[slot] == keys)
    out = np.full(len(qrels), -1, dtype=np.int64)
    out[hit] = owner[sort[slot[hit]]]
    return out


def _reduced_qrels(qrels, drop: np.ndarray, Qrels):
    """``qrels`` without the rows in ``drop``; a query that would lose every row keeps them as
    grade 0 (see the module's policy)."""
    import pyarrow.compute as pc

    q_codes = to_numpy(pc.dictionary_encode(qrels.qid.combine_chunks() if hasattr(qrels.qid, "combine_chunks")
                                             else qrels.qid).indices).astype(np.int64)
    n = int(q_codes.max()) + 1 if q_codes.size else 0
    kept = np.bincount(q_codes[~drop], minlength=n)
    emptied = drop & (kept[q_codes] == 0)
    keep = ~drop | emptied
    rows = np.flatnonzero(keep)
    rel = np.where(emptied, 0, qrels.rel)[rows]
    return Qrels(qrels.qid.take(indices(rows)), qrels.docno.take(indices(rows)), rel,
                 source=f"{qrels.source} (leave-out)", lines=qrels.lines[rows], _trusted=True)
