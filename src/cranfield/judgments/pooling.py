"""Pooling: which documents to judge, from many runs, per query, and in which order.

Every method works per query on the ranks of the runs (trec_eval's ranking: score descending,
ties by docno descending byte-wise; the rank column of a file is ignored):

- ``depth`` (the TREC default; Spärck Jones & van Rijsbergen 1975, Harman 1993): the union of
  every run's top ``depth`` documents. Priority of a document: the number of runs that rank it
  in their top ``depth``.
- ``rbp`` (Moffat, Webber & Zobel, SIGIR 2007, "Strategic system comparisons via targeted
  relevance judgments"): priority Σ_runs (1 − p)·p^(r − 1), the rank-biased precision weight
  of the document's rank r in each run that retrieves it; the top ``budget`` are judged.
- ``rrf``: reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009): priority
  Σ_runs 1 / (k + r), k = ``rrf_k`` (60); the top ``budget`` are judged.
- ``mtf``: local Move-to-Front (Cormack, Palmer & Clarke, SIGIR 1998), in its queue form: the
  runs of a query wait in a queue (initially in the order given); the run at the front gives its
  best document not yet judged; if that document is relevant the run stays at the front,
  otherwise it moves to the back. It stops after ``budget`` documents or when every run is
  exhausted. MTF is adaptive: relevance comes from ``qrels`` (a simulation with existing
  judgments: rel ≥ ``relevance_level`` is relevant, anything else, unjudged included, is not).
  Without ``qrels`` every document counts as non-relevant and MTF becomes a round robin over
  the runs. MTF is sequential within a query: the implementation loops over judging steps, each
  step vectorised over all queries at once (about ``budget`` + number of runs steps); nothing
  loops over documents or queries.

``depth`` limits the ranks every method considers (a document below it is not a candidate);
``budget`` limits the documents judged per query (for ``depth``: the top ``budget`` by priority).

**Judging order** (stable and documented): per query, queries in byte-wise order of their ids;
within a query by priority descending, then by the document's best rank over the runs
ascending, then by docno ascending byte-wise. For ``mtf`` the order is the order of judgment.
Priorities are summed in a fixed order (ranks ascending), so documents at the same ranks in
different runs tie exactly and fall to the next key.

A run that lists a document twice for one query (within the ranks considered) is an error
naming the file and line, as in evaluation.
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._params import check_choice, check_fraction, check_interval, display_name
from .._arrow import index_in, indices, take_sorted, to_numpy
from ..errors import InputError, UsageError
from ..io.atomic import write_text_output
from ..retrieval._segments import run_starts
from ..retrieval.doc_keys import longest_bytes, ordered, packed_width, packed_words
from ..retrieval.qrels import read_qrels
from ..retrieval.ranked import _ranking_order, check_relevance_level, query_codes
from ..retrieval.run import Run, read_run

__all__ = ["POOLING_METHODS", "SHEET_FORMATS", "Pool", "build_pool", "ranked_lists"]

POOLING_METHODS = ("depth", "rbp", "mtf", "rrf")
SHEET_FORMATS = ("trec", "csv")


# ----------------------------------------------------------------------------- arguments


def positive_int(value: Any, name: str, *, allow_none: bool = True) -> int | None:
    """``value`` as an int ≥ 1 (None allowed when ``allow_none``), else a UsageError."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise UsageError(f"{display_name(name)}: expected a whole number ≥ 1, found {value!r}")
    if value < 1:
        raise UsageError(f"{display_name(name)}: expected a whole number ≥ 1, found {int(value)}")
    return int(value)


def relevance_level_of(value: Any) -> int:
    """``value`` as a relevance level (a whole number ≥ 0), else a UsageError."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise UsageError(f"relevance_level: expected a whole number ≥ 0, found {value!r}")
    check_relevance_level(int(value))
    return int(value)


def _unit_interval(value: Any, name: str) -> float:
    return check_fraction(value, name)


def named_runs(runs: Any) -> list:
    """The runs read (``read_run``) and named uniquely (a repeated name gets ``#2``, ``#3``, ...).
    ``runs``: a mapping ``{name: run}`` or a sequence of runs (paths, dicts, frames, Run)."""
    if isinstance(runs, (str, bytes, os.PathLike, Run)) or not hasattr(runs, "__iter__"):
        raise UsageError(f"runs: expected a sequence of runs or a mapping name -> run, found {type(runs).__name__}")
    if hasattr(runs, "items"):
        pairs = [(str(name), run) for name, run in runs.items()]
    else:
        pairs = [(None, run) for run in runs]
    if not pairs:
        raise UsageError("runs: expected at least one run, found none")
    read = [read_run(run, name=name) for name, run in pairs]
    names = [name or run.name or "run" for (name, _), run in zip(pairs, read)]
    seen: dict[str, int] = {}
    unique = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        unique.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    out = []
    for name, run in zip(unique, read):
        if run.name != name:  # never rename the caller's object
            run = run.slice(0, len(run))
            run.name = name
        out.append(run)
    return out


# ----------------------------------------------------------------------------- ranked lists


@dataclass
class RankedLists:
    """The candidate rows of several runs, columnar: run index, query code, document code and
    1-based rank of each considered row (rank ≤ depth), with its source line."""

    run_names: tuple
    query_index: Any  # pyarrow string array: sorted distinct query ids of all runs
    doc_dictionary: Any  # pyarrow string array: sorted distinct docnos (code order = byte order)
    r: np.ndarray
    q: np.ndarray
    d: np.ndarray
    rank: np.ndarray
    sources: tuple = ()
    score: np.ndarray | None = None  # each row's score in its run (fusion reads it)

    @property
    def n_docs(self) -> int:
        return len(self.doc_dictionary)

    @property
    def n_queries(self) -> int:
        return len(self.query_index)


def _sorted_unique(arrays) -> Any:
    import pyarrow as pa
    import pyarrow.compute as pc

    chunks = [c for a in arrays for c in (a.chunks if isinstance(a, pa.ChunkedArray) else [a])]
    if not chunks:
        return pa.array([], type=pa.string())
    unique = pc.unique(pa.chunked_array(chunks, type=chunks[0].type))
    return unique.take(pc.sort_indices(unique))


def ranked_lists(runs: Any, *, depth: int | None = None) -> RankedLists:
    """Every run's rows ranked as trec_eval ranks them, cut at ``depth``, with query and
    document codes shared by all runs (codes follow the byte-wise order of the ids).

    Only the documents within ``depth`` are encoded: as packed 64-bit words when every id fits
    in 32 bytes without NUL (:mod:`cranfield.retrieval.doc_keys`; a sort, no string hashing),
    else through Arrow's dictionary encoding. Tied scores are ordered by comparing the docnos
    of the tied rows only.
    """
    import pyarrow as pa

    depth = positive_int(depth, "depth")
    runs = named_runs(runs)
    query_index = _sorted_unique([run.qid for run in runs])
    parts, kept_docnos, scores = [], [], []
    for index, run in enumerate(runs):
        n = len(run)
        if n == 0:
            continue
        qi = query_codes(run.qid, query_index, run.query_starts()).astype(np.int64)
        order, ties = _ranking_order(qi, run.score, lambda rows, block, docno=run.docno: _tie_order(docno, rows, block))
        rows = np.arange(n, dtype=np.int64) if order is None else order
        if ties is not None:
            positions, sources = ties
            rows = rows.copy()
            rows[positions] = rows[sources]
        q_sorted = qi[rows]
        starts = run_starts(q_sorted)
        rank = np.arange(n, dtype=np.int64) - np.repeat(starts, np.diff(np.append(starts, n))) + 1
        if depth is not None:
            keep = rank <= depth
            rows, q_sorted, rank = rows[keep], q_sorted[keep], rank[keep]
        kept_docnos.append(_take(run.docno, rows))
        parts.append((index, rows, q_sorted, rank))
        scores.append(run.score[rows])
    empty = np.zeros(0, dtype=np.int64)
    if not parts:
        return RankedLists(tuple(run.name for run in runs), query_index, pa.array([], type=pa.string()), empty,
                           empty, empty, empty, tuple(run.source for run in runs), np.zeros(0))
    d_all, doc_dictionary = _encode_docnos(kept_docnos)
    bounds = np.cumsum([0] + [len(rows) for _, rows, _, _ in parts])
    for (index, rows, q_sorted, _), lo, hi in zip(parts, bounds[:-1], bounds[1:]):
        _check_duplicates(runs[index], rows, q_sorted, d_all[lo:hi], doc_dictionary)
    r = np.concatenate([np.full(rows.size, index, dtype=np.int64) for index, rows, _, _ in parts])
    q = np.concatenate([q_sorted for _, _, q_sorted, _ in parts])
    rank = np.concatenate([rank for _, _, _, rank in parts])
    return RankedLists(tuple(run.name for run in runs), query_index, doc_dictionary, r, q, d_all, rank,
                       tuple(run.source for run in runs), np.concatenate(scores))


def _take(strings, rows: np.ndarray):
    import pyarrow as pa

    array = strings.combine_chunks() if isinstance(strings, pa.ChunkedArray) else strings
    return array.take(indices(rows))


def _tie_order(docno, rows: np.ndarray, block: np.ndarray) -> np.ndarray:
    """Order of tied rows: by block, then docno descending byte-wise (only these rows compared)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    table = pa.table({"block": block, "docno": _take(docno, rows)})
    return to_numpy(pc.sort_indices(table, sort_keys=[("block", "ascending"), ("docno", "descending")]))


def _encode_docnos(pieces: list) -> tuple[np.ndarray, Any]:
    """(code of each id, the sorted distinct ids as an Arrow array) over the concatenated pieces;
    codes follow the byte-wise order of the ids."""
    import pyarrow as pa

    strings = pa.chunked_array(pieces, type=pa.string()) if pieces else pa.chunked_array([], type=pa.string())
    width = packed_width(longest_bytes(strings)) if len(strings) else None
    words = packed_words(strings, width) if width is not None else None
    if words is not None:  # big-endian words compare as the bytes do (NUL padding sorts first)
        keys = ordered(words)
        order = np.lexsort(keys.T[::-1]) if keys.shape[1] > 1 else np.argsort(keys[:, 0], kind="stable")
        sorted_keys = keys[order]
        opens = np.zeros(order.size, dtype=bool)
        opens[:1] = True
        for j in range(sorted_keys.shape[1]):  # column by column: no 2-D temporary
            opens[1:] |= sorted_keys[1:, j] != sorted_keys[:-1, j]
        codes = np.empty(order.size, dtype=np.int64)
        codes[order] = np.cumsum(opens) - 1
        first = order[opens]  # one row of each distinct id, in id order
        ascending = np.argsort(first, kind="stable")
        names = take_sorted(strings, first[ascending])  # chunk by chunk, no copy of every string
        names = names.combine_chunks() if isinstance(names, pa.ChunkedArray) else names
        position = np.empty(first.size, dtype=np.int64)
        position[ascending] = np.arange(first.size)
        return codes, names.take(indices(position))
    dictionary = _sorted_unique([strings])
    return index_in(strings, dictionary).astype(np.int64), dictionary  # every id is in the dictionary


def _check_duplicates(run, rows, q, d, doc_dictionary) -> None:
    if rows.size < 2:
        return
    key = q * len(doc_dictionary) + d
    order = np.argsort(key, kind="stable")
    same = np.flatnonzero(key[order][1:] == key[order][:-1])
    if same.size:
        first, second = sorted((int(rows[order[same[0]]]), int(rows[order[same[0] + 1]])))
        docno = doc_dictionary[int(d[order[same[0]]])].as_py()
        raise InputError(f"document {docno!r} retrieved twice for query {run.qid[first].as_py()!r} (also on line "
                         f"{run.line_of(first)})", source=run.source, line=run.line_of(second), field="docno")


# ----------------------------------------------------------------------------- the pool


@dataclass(eq=False)
class Pool:
    """A judging sheet and its statistics.

    Sheet rows (one per document to judge), grouped by query (byte-wise order), in judging
    order: ``qid``, ``docno``, ``order`` (1-based within the query), ``runs`` (how many runs
    retrieve it within the ranks considered) and ``weight`` (the method's priority: number of
    runs for ``depth`` and ``mtf``, summed RBP weight for ``rbp``, summed 1/(k + r) for ``rrf``).
    Statistics: per query (``query_ids``) the pool size and the candidates (distinct documents
    within the ranks considered); per run (``run_names``) the pooled documents it retrieves
    (``contributed``) and those no other run retrieves within the ranks considered (``unique``).
    ``members`` pairs each sheet row with each run that retrieves it: ``(sheet row, run index)``.
    """

    qid: np.ndarray
    docno: np.ndarray
    order: np.ndarray
    runs: np.ndarray
    weight: np.ndarray
    run_names: tuple
    query_ids: np.ndarray
    pool_size: np.ndarray
    candidates: np.ndarray
    contributed: np.ndarray
    unique: np.ndarray
    members: tuple
    method: str
    settings: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return int(self.order.size)

    def sheet_text(self, format: str = "trec") -> str:
        """The judging sheet as text. ``trec``: qrels lines ``qid 0 docno -1`` in judging order
        (-1: in the pool, not yet judged, trec_eval's convention; replace it with the grade);
        ``csv``: a header ``qid,docno,order,runs,weight,rel`` and one row per document, ``rel``
        -1 until judged (so that either sheet reads back as qrels, as written)."""
        check_choice(format, "format", SHEET_FORMATS)
        if format == "trec":
            return "".join(f"{q} 0 {d} -1\n" for q, d in zip(self.qid.tolist(), self.docno.tolist()))
        import csv
        import io

        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["qid", "docno", "order", "runs", "weight", "rel"])
        writer.writerows(zip(self.qid.tolist(), self.docno.tolist(), self.order.tolist(), self.runs.tolist(),
                             map(repr, self.weight.tolist()), itertools.repeat(-1)))
        return buffer.getvalue()

    def write(self, path: "str | os.PathLike", *, format: str = "trec") -> None:
        """Write the judging sheet atomically (see :meth:`sheet_text`)."""
        write_text_output(self.sheet_text(format), os.fspath(path))

    def stats_rows(self) -> list[list]:
        """Tidy statistics ``[kind, name, statistic, value]``: per query ``pool_size`` and
        ``candidates``, per run ``contributed`` and ``unique``."""
        rows = [["query", q, s, int(v)] for q, size, cand in zip(self.query_ids.tolist(), self.pool_size.tolist(),
                                                                 self.candidates.tolist())
                for s, v in (("pool_size", size), ("candidates", cand))]
        rows += [["run", r, s, int(v)] for r, c, u in zip(self.run_names, self.contributed.tolist(),
                                                          self.unique.tolist())
                 for s, v in (("contributed", c), ("unique", u))]
        return rows

    def stats_text(self) -> str:
        """:meth:`stats_rows` as CSV (header ``kind,name,statistic,value``), then the settings as
        rows of kind ``setting``."""
        import csv
        import io

        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["kind", "name", "statistic", "value"])
        writer.writerows(self.stats_rows())
        writer.writerows(["setting", key, "", value] for key, value in self.settings.items())
        return buffer.getvalue()


def build_pool(runs: Any, *, method: str = "depth", depth: int | None = None, budget: int | None = None,
               p: float = 0.8, rrf_k: float = 60.0, qrels: Any = None, relevance_level: int = 1) -> Pool:
    """Pool ``runs`` (a sequence of runs or a mapping name -> run) per query by ``method``
    (see the module's documentation for the methods and the judging order).

    ``depth``: ranks considered (required for ``depth``); ``budget``: documents per query
    (optional: default every candidate); ``p``: RBP persistence; ``rrf_k``: RRF's constant;
    ``qrels`` / ``relevance_level``: the judgments MTF simulates.

    >>> pool = build_pool({"a": {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}},
    ...                    "b": {"q1": {"d2": 3.0, "d4": 2.0}}}, method="depth", depth=2)
    >>> pool.docno.tolist(), pool.runs.tolist(), pool.unique.tolist()
    (['d2', 'd1', 'd4'], [2, 1, 1], [1, 1])
    """
    if not isinstance(method, str) or method not in POOLING_METHODS:
        check_choice(method, "method", POOLING_METHODS)
    depth = positive_int(depth, "depth")
    budget = positive_int(budget, "budget")
    if method == "depth" and depth is None:
        raise UsageError("depth pooling needs a depth (the number of top documents of each run to pool)")
    p = _unit_interval(p, "p")
    rrf_k = check_interval(rrf_k, "rrf_k", low=0)
    if method != "mtf" and qrels is not None:
        raise UsageError(f"qrels: only mtf pooling uses judgments (method={method!r})")
    relevance_level = relevance_level_of(relevance_level)
    lists = ranked_lists(runs, depth=depth)
    if lists.r.size == 0:
        raise InputError("the pool is empty: the runs retrieve no document"
                         + (f" (depth {depth})" if depth else ""), source=", ".join(map(str, lists.sources)))
    return _pool(lists, method=method, depth=depth, budget=budget, p=p, rrf_k=float(rrf_k), qrels=qrels,
                 relevance_level=int(relevance_level))


def _pool(lists: RankedLists, *, method, depth, budget, p, rrf_k, qrels, relevance_level) -> Pool:
    n_d, n_q, n_runs = lists.n_docs, lists.n_queries, len(lists.run_names)
    key = lists.q * n_d + lists.d
    top_rank = int(lists.rank.max()) + 1
    if n_q * max(n_d, 1) * top_rank < 1 << 62:  # by (query, document), then rank
        sort = np.argsort(key * top_rank + lists.rank, kind="stable")
    else:
        sort = np.lexsort((lists.rank, key))
    key_s, rank_s, r_s = key[sort], lists.rank[sort], lists.r[sort]
    opens = np.concatenate(([True], key_s[1:] != key_s[:-1]))
    pair = np.cumsum(opens) - 1  # candidate (query, document) of each row
    first = np.flatnonzero(opens)
    pair_q, pair_d = key_s[first] // n_d, key_s[first] % n_d
    best = rank_s[first]
    n_ret = np.diff(np.append(first, key_s.size))
    if method == "rbp":
        table = (1.0 - p) * p ** np.arange(top_rank, dtype=np.float64)  # weight of rank r at r - 1
        weight = np.bincount(pair, weights=table[rank_s - 1], minlength=first.size)
    elif method == "rrf":
        table = 1.0 / (rrf_k + np.arange(1, top_rank, dtype=np.float64))  # weight of rank r at r - 1
        weight = np.bincount(pair, weights=table[rank_s - 1], minlength=first.size)
    else:
        weight = n_ret.astype(np.float64)
    if method == "mtf":
        relevant = _relevant(qrels, relevance_level, lists, key_s[first])
        step = _move_to_front(lists, pair[np.argsort(sort)], relevant, budget, first.size)
        chosen = step >= 0
        order = np.lexsort((step, pair_q))
        order = order[chosen[order]]
    else:
        order = _judging_order(pair_q, weight, best, integral=method == "depth")
        if budget is not None:
            q_sorted = pair_q[order]
            starts = np.searchsorted(q_sorted, q_sorted, side="left")
            order = order[np.arange(order.size) - starts < budget]
    chosen = np.zeros(first.size, dtype=bool)
    chosen[order] = True
    sheet_row = np.full(first.size, -1, dtype=np.int64)
    sheet_row[order] = np.arange(order.size)
    q_sheet = pair_q[order]
    in_query = np.arange(order.size) - np.searchsorted(q_sheet, q_sheet, side="left") + 1
    in_pool = chosen[pair]
    contributed = np.bincount(r_s[in_pool], minlength=n_runs)
    unique = np.bincount(r_s[in_pool & (n_ret[pair] == 1)], minlength=n_runs)
    member_rows = np.flatnonzero(in_pool)
    members = (sheet_row[pair[member_rows]], r_s[member_rows])
    query_ids = np.asarray(lists.query_index.to_pylist(), dtype=object)
    settings = {"method": method, "depth": depth, "budget": budget, "runs": len(lists.run_names)}
    if method == "rbp":
        settings["p"] = p
    if method == "rrf":
        settings["rrf_k"] = rrf_k
    if method == "mtf":
        settings.update(judgments="qrels" if qrels is not None else "none (round robin)",
                        relevance_level=relevance_level)
    return Pool(qid=query_ids[q_sheet], docno=np.asarray(lists.doc_dictionary.take(indices(pair_d[order])).to_pylist(),
                                                         dtype=object),
                order=in_query.astype(np.int64), runs=n_ret[order].astype(np.int64), weight=weight[order],
                run_names=lists.run_names, query_ids=query_ids,
                pool_size=np.bincount(q_sheet, minlength=n_q).astype(np.int64),
                candidates=np.bincount(pair_q, minlength=n_q).astype(np.int64),
                contributed=contributed.astype(np.int64), unique=unique.astype(np.int64), members=members,
                method=method, settings=settings)


def _judging_order(pair_q: np.ndarray, weight: np.ndarray, best: np.ndarray, *, integral: bool) -> np.ndarray:
    """Order of the candidates, given sorted by (query, docno): by query, weight descending, best
    rank ascending, and (a stable sort) docno ascending. One sort of a combined integer key
    (weights replaced by their dense rank) when it fits in 62 bits, else a lexsort."""
    if integral:  # depth pooling: the weight is a count of runs
        top = int(weight.max()) if weight.size else 0
        weight_rank = top - weight.astype(np.int64)
        n_weights = top + 1
    else:
        distinct, weight_rank = np.unique(-weight, return_inverse=True)
        weight_rank, n_weights = weight_rank.reshape(-1).astype(np.int64), max(distinct.size, 1)
    n_best = int(best.max()) + 1 if best.size else 1
    n_queries = int(pair_q.max()) + 1 if pair_q.size else 1
    if n_queries * n_weights * n_best < 1 << 62:
        return np.argsort((pair_q * n_weights + weight_rank) * n_best + best, kind="stable")
    return np.lexsort((best, weight_rank, pair_q))


def _relevant(qrels, relevance_level: int, lists: RankedLists, pair_key: np.ndarray) -> np.ndarray:
    """Whether each candidate (query, document) is judged relevant in ``qrels`` (all False without)."""
    if qrels is None:
        return np.zeros(pair_key.size, dtype=bool)
    qrels = read_qrels(qrels)
    rel = qrels.rel >= relevance_level
    q = index_in(qrels.qid, lists.query_index)
    d = index_in(qrels.docno, lists.doc_dictionary)
    known = rel & (q >= 0) & (d >= 0)
    keys = np.sort(q[known].astype(np.int64) * lists.n_docs + d[known])
    slot = np.minimum(np.searchsorted(keys, pair_key), max(keys.size - 1, 0))
    return (keys.size > 0) & (keys[slot] == pair_key) if keys.size else np.zeros(pair_key.size, dtype=bool)


def _move_to_front(lists: RankedLists, pair: np.ndarray, relevant: np.ndarray, budget: int | None,
                   n_pairs: int) -> np.ndarray:
    """Step (0-based, per query) at which local MTF judges each candidate, -1 if never.

    One loop iteration per judging step, vectorised over the queries still judging: each picks
    the run at the front of its queue (the smallest queue key among runs with documents left),
    skips that run's documents already judged, and judges the next one. The loop runs at most
    (largest pool) + (number of runs) times, plus the skips.
    """
    n_q, n_runs = lists.n_queries, len(lists.run_names)
    cell = lists.q * n_runs + lists.r
    order = np.argsort(cell * (int(lists.rank.max()) + 1) + lists.rank, kind="stable")
    flat = pair[order]  # candidates in rank order, by (query, run)
    length = np.bincount(cell, minlength=n_q * n_runs)
    start = np.concatenate(([0], np.cumsum(length)[:-1]))
    pointer = np.zeros(n_q * n_runs, dtype=np.int64)
    queue = np.tile(np.arange(n_runs, dtype=np.float64), n_q).reshape(n_q, n_runs)
    next_key = np.full(n_q, float(n_runs))
    judged = np.zeros(n_pairs, dtype=bool)
    step = np.full(n_pairs, -1, dtype=np.int64)
    count = np.zeros(n_q, dtype=np.int64)
    limit = budget if budget is not None else np.iinfo(np.int64).max
    last = max(flat.size - 1, 0)
    while True:
        left = (pointer < length).reshape(n_q, n_runs)
        active = np.flatnonzero((count < limit) & left.any(axis=1))
        if active.size == 0:
            return step
        runs = np.argmin(np.where(left[active], queue[active], np.inf), axis=1)
        cells = active * n_runs + runs
        while True:  # skip documents another run already had judged
            at_end = pointer[cells] >= length[cells]
            current = flat[np.minimum(start[cells] + pointer[cells], last)]
            skip = ~at_end & judged[current]
            if not skip.any():
                break
            pointer[cells[skip]] += 1
        ok = ~at_end
        cells, queries, current, runs = cells[ok], active[ok], current[ok], runs[ok]
        judged[current] = True
        step[current] = count[queries]
        count[queries] += 1
        pointer[cells] += 1
        miss = ~relevant[current]
        queue[queries[miss], runs[miss]] = next_key[queries[miss]]
        next_key[queries[miss]] += 1
