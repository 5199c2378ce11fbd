"""Run fusion: one ranking per query from several runs.

Every method works on the runs as trec_eval ranks them (score descending, ties by docno
descending byte-wise; the rank column of a file is ignored), over the union of the runs'
queries and documents. ``depth`` limits the ranks of each run taken into account.

Rank-based methods (the scores only order the documents):

- ``rrf``: reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009): Σ_runs w / (k + r),
  k = ``rrf_k`` (60);
- ``rbc``: rank-biased centroids (Bailey, Moffat, Scholer & Thomas, SIGIR 2017):
  Σ_runs w · (1 − p) · p^(r − 1), p = ``p`` (0.8).

Score-based methods (Fox & Shaw, TREC-2 1993; Lee, SIGIR 1997) combine each run's scores after
the normalisation ``norm`` (per run and query); s is a document's normalised score in a run that
retrieves it, n the number of runs that retrieve it:

- ``combsum``: Σ w · s (with ``weights``, a weighted sum; ``wsum`` is the same method);
- ``combmnz``: n · Σ s;  ``combanz``: Σ s / n;
- ``combmax``, ``combmin``, ``combmed``: the largest, smallest and median s (the median of an
  even count is the mean of the two middle values).

Normalisations (per run and query, over the documents considered): ``minmax`` (the default of the
score-based methods) (s − min) / (max − min); ``zscore`` (s − mean) / sd with the population sd;
``sum`` (s − min) / Σ (s − min), computed as Σ s − n·min; ``rank`` 1 − (r − 1) / n for the
n documents of the list; ``none`` the scores as they are. A query whose scores are all equal
normalises to 0 (``minmax``, ``zscore``, ``sum``).

Sums over runs are taken in the order the runs are given, so the result is reproducible to the
last bit. Compared with ranx's ``fuse`` (the same formulas): ranx keeps only the first run's
queries and requires every run to have the same queries (cranfield takes the union); ranx floors
the min-max, z-score and sum denominators at 1e-9 (cranfield divides by the true value, so the two
differ only for a query whose scores span less than 1e-9); ranx orders tied scores by its sort's
internal order, which decides ``rrf``, ``rbc`` and ``rank`` among ties (cranfield uses trec_eval's
tie rule).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from ._arrow import indices
from ._params import check_choice, check_finite, check_interval, display_name
from .errors import UsageError
from .judgments.pooling import RankedLists, positive_int, ranked_lists
from .retrieval.inputs import read_runs
from .retrieval.run import Run

__all__ = ["FUSION_METHODS", "NORMALISATIONS", "fuse", "fuse_files", "fused_scores"]

RANK_METHODS = ("rrf", "rbc")
SCORE_METHODS = ("combsum", "combmnz", "combanz", "combmax", "combmin", "combmed")
FUSION_METHODS = RANK_METHODS + SCORE_METHODS + ("wsum",)
NORMALISATIONS = ("minmax", "zscore", "sum", "rank", "none")
_WEIGHTED = ("rrf", "rbc", "combsum")


@dataclass(frozen=True)
class FusionSettings:
    """What a fusion did, as a user would write it (``method``, ``norm``, ``weights``...)."""

    method: str
    norm: str
    weights: tuple
    rrf_k: float
    p: float
    depth: int | None

    def text(self) -> str:
        parts = [f"method={self.method}"]
        if self.method in RANK_METHODS:
            parts.append(f"rrf_k={self.rrf_k:g}" if self.method == "rrf" else f"p={self.p:g}")
        else:
            parts.append(f"norm={self.norm}")
        if any(w != 1.0 for w in self.weights):
            parts.append("weights=" + ",".join(f"{w:g}" for w in self.weights))
        if self.depth is not None:
            parts.append(f"depth={self.depth}")
        return " ".join(parts)


def fuse(runs: Any, *, method: str = "rrf", norm: str | None = None, weights: Any = None, rrf_k: float = 60.0,
         p: float = 0.8, depth: int | None = None, name: str | None = None) -> Run:
    """One run fused from ``runs`` (a sequence of runs, or a mapping ``{name: run}``; each a path,
    dict, frame, :class:`~cranfield.Run` or another tool's run, as :func:`cranfield.read_run` reads).

    ``method``: one of :data:`FUSION_METHODS` (default ``"rrf"``); ``norm``: one of
    :data:`NORMALISATIONS` for the score-based methods (default ``"minmax"``; the rank-based
    methods accept only ``None``/``"none"``); ``weights``: one number per run (a sequence in the
    runs' order or a mapping name -> weight; default 1 each) for ``rrf``, ``rbc`` and
    ``combsum``/``wsum``; ``rrf_k``: RRF's k; ``p``: RBC's persistence; ``depth``: ranks of each run
    considered (default all). The fused run is named ``name`` (default ``"fused"``) and carries
    ``settings`` (a :class:`FusionSettings`).

    >>> a = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
    >>> b = {"q1": {"d3": 0.9, "d1": 0.5}}
    >>> fuse([a, b], method="combsum").to_dict()  # min-max: a gives d1 1, d2 0.5, d3 0; b gives d3 1, d1 0
    {'q1': {'d1': 1.0, 'd2': 0.5, 'd3': 1.0}}
    """
    lists, settings = _prepared(runs, method, norm, weights, rrf_k, p, depth)
    qid, docno, score = fused_scores(lists, settings)
    run = Run(qid, docno, score, source="fused run", name=name or "fused", _trusted=True)
    run.settings = settings
    return run


def _prepared(runs, method, norm, weights, rrf_k, p, depth) -> tuple[RankedLists, FusionSettings]:
    method = "combsum" if check_choice(method, "method", FUSION_METHODS) == "wsum" else method
    if method in RANK_METHODS:
        if norm not in (None, "none"):
            raise UsageError(f"{display_name('norm')}: {method} fuses ranks, not scores; leave it out (found {norm!r})")
        norm = "none"
    elif norm is None:
        norm = "minmax"
    else:
        check_choice(norm, "norm", NORMALISATIONS)
    rrf_k = check_interval(rrf_k, "rrf_k", low=0.0)
    p = check_interval(p, "p", low=0.0, high=1.0, closed="left")
    depth = positive_int(depth, "depth")
    lists = ranked_lists(runs, depth=depth)
    if len(lists.run_names) < 2:
        raise UsageError(f"runs: fusion needs at least two runs, found {len(lists.run_names)}")
    vector = _weights(weights, lists.run_names)
    if weights is not None and method not in _WEIGHTED:
        raise UsageError(f"{display_name('weights')}: {method} takes no weights (weighted methods: rrf, rbc, combsum/wsum)")
    return lists, FusionSettings(method, norm, tuple(vector.tolist()), rrf_k, p, depth)


def _weights(weights: Any, names: tuple) -> np.ndarray:
    if weights is None:
        return np.ones(len(names))
    if isinstance(weights, Mapping):
        unknown = sorted(set(map(str, weights)) - set(names))
        missing = [n for n in names if n not in weights]
        if unknown or missing:
            raise UsageError(f"{display_name('weights')}: expected one weight per run ({', '.join(names)}); "
                             + (f"unknown {', '.join(unknown)}" if unknown else f"missing {', '.join(missing)}"))
        weights = [weights[n] for n in names]
    values = list(weights)
    if len(values) != len(names):
        raise UsageError(f"{display_name('weights')}: expected {len(names)} numbers (one per run), found {len(values)}")
    for value in values:
        check_finite(value, "weights")
    return np.asarray(values, dtype=np.float64)



def fuse_files(specs, *, run_columns: str | None = None, **options) -> Run:
    """:func:`fuse` of the run files of ``specs`` (``(path, label or None)``, at least two; CSV/TSV
    through ``run_columns``)."""
    if len(specs) < 2:
        raise UsageError(f"fuse needs at least two RUN files, found {len(specs)}")
    return fuse(read_runs(specs, run_columns=run_columns), **options)

def fused_scores(lists: RankedLists, settings: FusionSettings) -> tuple:
    """(qid, docno, score) of the fused run: Arrow string arrays and a float64 array, one row per
    (query, document) retrieved by any run within the ranks considered."""
    n_docs = max(len(lists.doc_dictionary), 1)
    key = lists.q * n_docs + lists.d
    pairs, pair = np.unique(key, return_inverse=True)
    pair = pair.reshape(-1)
    method = settings.method
    if method in RANK_METHODS:
        if method == "rrf":
            value = 1.0 / (settings.rrf_k + lists.rank.astype(np.float64))
        else:  # p ** (r − 1) from the C library's pow, once per rank (numpy's vector pow can differ by an ulp)
            top = int(lists.rank.max()) if lists.rank.size else 0
            powers = np.array([settings.p ** i for i in range(top)], dtype=np.float64)
            value = (1.0 - settings.p) * powers[lists.rank - 1]
    else:
        value = normalised(lists, settings.norm)
    if method in _WEIGHTED:
        weights = np.asarray(settings.weights)
        contribution = value if np.all(weights == 1.0) else weights[lists.r] * value
        score = np.bincount(pair, weights=contribution, minlength=pairs.size)  # run order: sequential sums
    else:
        score = _combined(pair, pairs.size, value, method)
    if not np.all(np.isfinite(score)):
        raise UsageError(f"the fused scores overflow (method {method}, norm {settings.norm}): normalise the "
                         "scores (norm minmax, zscore, sum or rank)")
    qid = lists.query_index.take(indices(pairs // n_docs))
    docno = lists.doc_dictionary.take(indices(pairs % n_docs))
    return qid, docno, score


def _combined(pair: np.ndarray, n_pairs: int, value: np.ndarray, method: str) -> np.ndarray:
    count = np.bincount(pair, minlength=n_pairs)
    if method in ("combmnz", "combanz"):
        total = np.bincount(pair, weights=value, minlength=n_pairs)
        return total * count if method == "combmnz" else total / count
    order = np.lexsort((value, pair))  # each pair's values ascending
    ordered = value[order]
    first = np.concatenate(([0], np.cumsum(count)[:-1]))
    if method == "combmin":
        return ordered[first]
    if method == "combmax":
        return ordered[first + count - 1]
    low, high = ordered[first + (count - 1) // 2], ordered[first + count // 2]
    return np.where(count % 2 == 1, low, (low + high) / 2)


def normalised(lists: RankedLists, norm: str) -> np.ndarray:
    """Each row's score normalised within its (run, query) list."""
    score = np.asarray(lists.score, dtype=np.float64)
    if norm == "none" or score.size == 0:
        return score
    opens = np.ones(score.size, dtype=bool)
    opens[1:] = (lists.r[1:] != lists.r[:-1]) | (lists.q[1:] != lists.q[:-1])
    starts = np.flatnonzero(opens)
    segment = np.cumsum(opens) - 1
    size = np.diff(np.append(starts, score.size))
    n = size[segment].astype(np.float64)
    if norm == "rank":
        return 1.0 - (lists.rank - 1) / n
    if norm == "zscore":
        mean = (np.bincount(segment, weights=score) / size)[segment]
        centred = score - mean
        sd = np.sqrt(np.bincount(segment, weights=centred * centred) / size)[segment]
        return np.divide(centred, sd, out=np.zeros_like(score), where=sd > 0)
    low = np.minimum.reduceat(score, starts)[segment]
    if norm == "minmax":
        spread = np.maximum.reduceat(score, starts)[segment] - low
    else:  # sum
        spread = np.bincount(segment, weights=score)[segment] - low * n
    return np.divide(score - low, spread, out=np.zeros_like(score), where=spread > 0)
