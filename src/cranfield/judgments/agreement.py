"""Agreement between assessors: two or more sets of judgments (qrels) of the same (query, document)
pairs, and the effect of their disagreement on the conclusions (system rankings).

Statistics (each per query, pooled over all queries, and with a bootstrap interval over queries):

* **percentage agreement** p_o: the share of pairs given the same label (pairwise; and, for three
  sets or more, the share where every set agrees);
* **Cohen's κ** (Cohen 1960), unweighted, and weighted (Cohen 1968) with linear or quadratic
  disagreement weights: κ_w = 1 − Σ w_ij o_ij / Σ w_ij e_ij, o the observed table of counts, e_ij =
  r_i c_j / n the table expected from the margins, w_ij = [i ≠ j], |i − j| or (i − j)² with i, j the
  positions of the labels among the distinct labels in increasing order (scikit-learn's
  ``cohen_kappa_score`` convention). Pairwise;
* **Fleiss' κ** (Fleiss 1971) over all sets: (P̄ − P̄_e)/(1 − P̄_e), P̄ the mean share of agreeing
  rater pairs per item, P̄_e = Σ_j p_j² (statsmodels' ``fleiss_kappa``); items judged by every set;
* **Krippendorff's α** (Krippendorff 2004, 2011) over all sets, nominal, ordinal or interval:
  α = 1 − (n − 1) Σ o_ck δ²_ck / Σ n_c n_k δ²_ck, o the coincidence matrix (each pair of values of a
  unit counted 1/(m_u − 1)), n_c its margins, δ² the metric (nominal: [c ≠ k]; interval: (c − k)²
  on the label values; ordinal: (Σ_{g=c..k} n_g − (n_c + n_k)/2)²). Missing values are allowed:
  units with one value do not count (the ``krippendorff`` package's definition);
* **overlap of the relevant sets** |A ∩ B| / |A ∪ B| (Voorhees 2000; relevant: label ≥
  ``relevance_level``), pairwise, and over all sets (relevant in every set / in any set).

Every statistic is a function of per-query counts that add up over queries (contingency tables,
coincidence matrices, category totals), so the pooled value, the per-query values and every
bootstrap resample (queries drawn with replacement; the resample's counts are one matrix product)
come from the same vectorised kernel (bincount, no loop over queries or documents).

Pairs judged by only some sets (``missing=``):

* ``"intersect"`` (default): only the pairs judged by every set are compared;
* ``"nonrelevant"``: a pair missing from a set counts as judged 0 there (trec_eval's reading of an
  unjudged document);
* ``"keep"``: every pair is kept; each pairwise statistic uses the pairs both sets judged, Fleiss'
  κ the pairs every set judged, α every pair judged at least twice.

Undefined values are NaN, by a documented rule: κ when the expected disagreement is 0 (both sets give
one same label to every pair), α when the data hold a single value, an overlap when neither set
holds a relevant document, any statistic of a query without compared pairs. Tables print
"undefined", JSON ``null``. Bootstrap percentiles are taken over the resamples where the statistic is
defined (NaN when none is).

References: J. Cohen (1960), Educ. Psychol. Meas. 20(1) 37–46; J. Cohen (1968), Psychol. Bull.
70(4) 213–220; J. L. Fleiss (1971), Psychol. Bull. 76(5) 378–382; K. Krippendorff (2004), Content
Analysis, 2nd ed., ch. 11, and (2011) "Computing Krippendorff's alpha-reliability"; E. M. Voorhees
(2000), Inf. Process. Manag. 36(5) 697–716.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._exact import snap_ties
from .._params import check_choice, check_fraction, display_name
from .._arrow import to_numpy
from ..correlation import kendall_tau, tau_ap
from ..errors import InputError, UsageError
from ..retrieval.evaluate import Evaluator
from ..retrieval.qrels import read_qrels
from ..retrieval.run import read_run
from ..stats._resample import as_generator, bootstrap_counts, check_count

__all__ = ["assessor_agreement", "Agreement", "AgreementFigure", "cohen_kappa", "fleiss_kappa", "krippendorff_alpha",
           "ranking_agreement", "RankingAgreement", "MISSING_POLICIES", "KAPPA_WEIGHTS", "ALPHA_LEVELS"]

MISSING_POLICIES = ("intersect", "nonrelevant", "keep")
KAPPA_WEIGHTS = (None, "linear", "quadratic")
ALPHA_LEVELS = ("nominal", "ordinal", "interval")
MAX_TABLE_CELLS = 1 << 25  # queries × labels² per pair of sets (256 MiB of int64): a label limit


# ----------------------------------------------------------------------------------- kernels
def _kappa(tables: np.ndarray, weights: str | None) -> np.ndarray:
    """κ of every table of ``tables`` (..., K, K) of counts; NaN where undefined."""
    k = tables.shape[-1]
    index = np.arange(k, dtype=np.float64)
    w = (index[:, None] != index[None, :]).astype(np.float64) if weights is None else \
        np.abs(index[:, None] - index[None, :]) if weights == "linear" else (index[:, None] - index[None, :]) ** 2
    tables = tables.astype(np.float64)
    n = tables.sum(axis=(-2, -1))
    rows, cols = tables.sum(axis=-1), tables.sum(axis=-2)
    observed = np.einsum("...ij,ij->...", tables, w)
    expected = np.einsum("...i,ij,...j->...", rows, w, cols)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(expected > 0, 1.0 - n * observed / np.where(expected > 0, expected, 1.0), np.nan)


def _fleiss(stats: np.ndarray, m: int) -> np.ndarray:
    """Fleiss' κ from (..., 2 + K) sums: Σ_items Σ_j n_ij², items, category totals (m raters)."""
    squares, items, totals = stats[..., 0], stats[..., 1], stats[..., 2:]
    with np.errstate(invalid="ignore", divide="ignore"):
        p_bar = (squares - items * m) / (items * m * (m - 1))
        p = totals / (items * m)[..., None]
        p_e = (p * p).sum(axis=-1)
        return np.where((items > 0) & (p_e < 1), (p_bar - p_e) / (1 - p_e), np.nan)


def _alpha(coincidence: np.ndarray, level: str, values: np.ndarray) -> np.ndarray:
    """Krippendorff's α of every coincidence matrix (..., K, K); NaN where undefined."""
    n_c = coincidence.sum(axis=-1)
    n = n_c.sum(axis=-1)
    if level == "nominal":
        k = values.size
        delta = np.broadcast_to(1.0 - np.eye(k), coincidence.shape)
    elif level == "interval":
        delta = np.broadcast_to((values[:, None] - values[None, :]) ** 2, coincidence.shape)
    else:  # ordinal: (mid_k - mid_c)^2 with mid = cumulative count - half the count
        mid = np.cumsum(n_c, axis=-1) - n_c / 2.0
        delta = (mid[..., None, :] - mid[..., :, None]) ** 2
    observed = (coincidence * delta).sum(axis=(-2, -1))
    expected = np.einsum("...c,...ck,...k->...", n_c, delta, n_c)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(expected > 0, 1.0 - (n - 1) * observed / np.where(expected > 0, expected, 1.0), np.nan)


def _ratio(stats: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(stats[..., 1] > 0, stats[..., 0] / np.where(stats[..., 1] > 0, stats[..., 1], 1), np.nan)


# ----------------------------------------------------------------------------------- array API
def _labels(values, name: str) -> np.ndarray:
    if isinstance(values, (str, bytes)) or values is None:
        raise InputError(f"expected an array of integer labels, found {type(values).__name__}", field=name)
    try:
        array = np.asarray(values)
    except (TypeError, ValueError) as error:
        raise InputError(f"expected an array of integer labels ({' '.join(str(error).split())[:120]})",
                         field=name) from None
    if array.dtype.kind == "f":
        if not np.isfinite(array).all() or (array != np.round(array)).any():
            raise InputError("expected integer labels, found a fraction, NaN or infinity", field=name)
        array = array.astype(np.int64)
    if array.dtype.kind not in "iu" or array.dtype.kind == "b":
        raise InputError(f"expected integer labels, found values of type {array.dtype}", field=name)
    return array.astype(np.int64)


def cohen_kappa(a, b, *, weights: str | None = None) -> float:
    """Cohen's κ between two equally long arrays of integer labels (``weights``: None, "linear",
    "quadratic"; see the module documentation). NaN when undefined.

    >>> cohen_kappa([0, 1, 1, 0], [0, 1, 0, 0])
    0.5
    """
    _check_choice(weights, KAPPA_WEIGHTS, "weights")
    a, b = _labels(a, "a"), _labels(b, "b")
    if a.ndim != 1 or a.shape != b.shape:
        raise InputError(f"expected two flat arrays of the same length, found shapes {a.shape} and {b.shape}")
    categories, inverse = np.unique(np.concatenate((a, b)), return_inverse=True)
    k = categories.size
    inverse = inverse.reshape(-1)
    table = np.bincount(inverse[:a.size] * k + inverse[a.size:], minlength=k * k).reshape(k, k)
    return float(_kappa(table, weights))


def fleiss_kappa(ratings) -> float:
    """Fleiss' κ of an (items × raters) array of integer labels, every item rated by every rater.

    >>> round(fleiss_kappa([[1, 1, 1], [0, 0, 1], [0, 0, 0], [1, 0, 1]]), 6)
    0.333333
    """
    r = _labels(ratings, "ratings")
    if r.ndim != 2 or r.shape[1] < 2 or r.shape[0] < 1:
        raise InputError(f"expected an items × raters array with at least 2 raters, found shape {r.shape}",
                         field="ratings")
    categories, inverse = np.unique(r, return_inverse=True)
    k = categories.size
    counts = np.bincount(np.repeat(np.arange(r.shape[0]), r.shape[1]) * k + inverse.reshape(-1),
                         minlength=r.shape[0] * k).reshape(r.shape[0], k)
    stats = np.concatenate(([float((counts.astype(np.float64) ** 2).sum()), float(r.shape[0])],
                            counts.sum(axis=0).astype(np.float64)))
    return float(_fleiss(stats, r.shape[1]))


def krippendorff_alpha(reliability_data, *, level: str = "nominal") -> float:
    """Krippendorff's α of a (raters × units) array of numbers, NaN for a missing value (the
    ``krippendorff`` package's layout). ``level``: "nominal", "ordinal" or "interval".

    >>> round(krippendorff_alpha([[1, 2, 3, 3], [1, 2, 3, 4]], level="interval"), 6)
    0.888889
    """
    _check_choice(level, ALPHA_LEVELS, "level")
    if isinstance(reliability_data, (str, bytes)) or reliability_data is None:
        raise InputError("expected a raters × units array of numbers", field="reliability_data")
    try:
        data = np.asarray(reliability_data, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise InputError(f"expected a raters × units array of numbers ({' '.join(str(error).split())[:120]})",
                         field="reliability_data") from None
    if data.ndim != 2 or data.shape[0] < 2:
        raise InputError(f"expected a raters × units array with at least 2 raters, found shape {data.shape}",
                         field="reliability_data")
    if np.isinf(data).any():
        raise InputError("expected finite numbers or NaN (missing), found infinity", field="reliability_data")
    present = ~np.isnan(data)
    values, inverse = np.unique(data[present], return_inverse=True)
    cat = np.full(data.shape, -1, dtype=np.int64)
    cat[present] = inverse.reshape(-1)
    unit = np.zeros(data.shape[1], dtype=np.int64)
    coincidence = _coincidence(cat.T, unit, 1, values.size)[0]
    return float(_alpha(coincidence, level, values))


def _check_choice(value, choices, name: str) -> None:
    check_choice(value, name, choices)


# ----------------------------------------------------------------------------------- counts
def _pair_tables(cat: np.ndarray, query: np.ndarray, n_queries: int, k: int, a: int, b: int) -> np.ndarray:
    both = (cat[:, a] >= 0) & (cat[:, b] >= 0)
    keys = (query[both] * k + cat[both, a]) * k + cat[both, b]
    return np.bincount(keys, minlength=n_queries * k * k).reshape(n_queries, k, k)


def _coincidence(cat: np.ndarray, query: np.ndarray, n_queries: int, k: int) -> np.ndarray:
    """Per-query coincidence matrices (Q, K, K) of units × raters category codes (−1 missing)."""
    present = cat >= 0
    m = present.sum(axis=1)
    weight = np.where(m >= 2, 1.0 / np.maximum(m - 1, 1), 0.0)
    out = np.zeros(n_queries * k * k, dtype=np.float64)
    raters = cat.shape[1]
    for a in range(raters):  # loops over the sets of judgments (a handful), not over data
        for b in range(raters):
            if a == b:
                continue
            both = present[:, a] & present[:, b]
            keys = (query[both] * k + cat[both, a]) * k + cat[both, b]
            out += np.bincount(keys, weights=weight[both], minlength=n_queries * k * k)
    return out.reshape(n_queries, k, k)


# ----------------------------------------------------------------------------------- qrels API
@dataclass(frozen=True)
class AgreementFigure:
    """One statistic between some sets: pooled value, bootstrap interval, per-query values."""

    statistic: str
    sets: tuple
    overall: float
    low: float
    high: float
    mean_per_query: float
    pairs: int
    per_query: np.ndarray = field(repr=False)


@dataclass
class Agreement:
    """Result of :func:`assessor_agreement`: one :class:`AgreementFigure` per statistic and sets; settings."""

    names: list
    query_ids: list
    figures: list
    settings: dict

    def figure(self, statistic: str, sets: tuple | None = None) -> AgreementFigure:
        """The figure of ``statistic`` between ``sets`` (names; default: the first two, or all)."""
        for f in self.figures:
            if f.statistic == statistic and (sets is None or tuple(sets) == f.sets):
                return f
        raise UsageError(f"no figure {statistic!r} for sets {sets!r}; the statistics are "
                         f"{', '.join(sorted({f.statistic for f in self.figures}))}")

    def to_dict(self) -> dict:
        """A JSON-ready dict: settings, and per figure its values (NaN as None) and per-query values."""
        def num(x):
            return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)

        return {"settings": dict(self.settings), "sets": list(self.names), "queries": list(self.query_ids),
                "figures": [{"statistic": f.statistic, "sets": list(f.sets), "overall": num(f.overall),
                             "ci_low": num(f.low), "ci_high": num(f.high), "mean_per_query": num(f.mean_per_query),
                             "pairs": f.pairs, "per_query": [num(v) for v in f.per_query.tolist()]}
                            for f in self.figures]}


def _qrels_list(qrels, names):
    if isinstance(qrels, (str, bytes, dict)) or not hasattr(qrels, "__len__"):
        raise UsageError("qrels: expected a list of two or more qrels (paths, dicts, frames or Qrels)")
    items = list(qrels)
    if len(items) < 2:
        raise UsageError(f"qrels: agreement needs at least two sets of judgments, found {len(items)}")
    if names is None:
        import os

        names = [os.path.basename(os.fspath(q)) if isinstance(q, (str, os.PathLike)) else
                 (getattr(q, "name", None) or f"qrels{i + 1}") for i, q in enumerate(items)]
        if len(set(names)) < len(names):
            names = [f"{n}#{i + 1}" for i, n in enumerate(names)]
    else:
        names = [str(n) for n in names]
        if len(names) != len(items) or len(set(names)) != len(names):
            raise UsageError(f"names: expected {len(items)} distinct names, found {names!r}")
    return [read_qrels(q) for q in items], names


def _aligned(qrels: list, missing: str):
    """(units × sets label matrix, present mask, unit query index, query ids)."""
    import pyarrow as pa

    qid = pa.chunked_array([c for q in qrels for c in q.qid.chunks], pa.string())
    doc = pa.chunked_array([c for q in qrels for c in q.docno.chunks], pa.string())
    sizes = np.array([len(q) for q in qrels], dtype=np.int64)
    q_enc = qid.combine_chunks().dictionary_encode() if qid.num_chunks else pa.array([], pa.string()).dictionary_encode()
    d_enc = doc.combine_chunks().dictionary_encode() if doc.num_chunks else pa.array([], pa.string()).dictionary_encode()
    qc = to_numpy(q_enc.indices).astype(np.int64)
    dc = to_numpy(d_enc.indices).astype(np.int64)
    key = qc * max(len(d_enc.dictionary), 1) + dc
    encoded = pa.array(key).dictionary_encode()  # hash-based grouping: no sort of the pairs
    units = to_numpy(encoded.dictionary).astype(np.int64)
    unit = to_numpy(encoded.indices).astype(np.int64)
    which = np.repeat(np.arange(len(qrels)), sizes)
    labels = np.zeros((units.size, len(qrels)), dtype=np.int64)
    present = np.zeros((units.size, len(qrels)), dtype=bool)
    slot = unit * len(qrels) + which
    counts = np.bincount(slot, minlength=units.size * len(qrels))
    if (counts > 1).any():
        order = np.lexsort((np.arange(slot.size), slot))
        repeated = order[1:][slot[order][1:] == slot[order][:-1]]
        bad = int(repeated.min())
        s = int(which[bad])
        row = bad - int(sizes[:s].sum())
        raise InputError(f"query {qid[bad].as_py()!r}, document {doc[bad].as_py()!r} is judged twice; expected one "
                         "judgment per pair", source=qrels[s].source, line=qrels[s].line_of(row), field="docno")
    labels.reshape(-1)[slot] = np.concatenate([q.values for q in qrels]) if len(qid) else labels.reshape(-1)[:0]
    present.reshape(-1)[slot] = True
    if missing == "intersect":
        keep = present.all(axis=1)
        labels, present, units = labels[keep], present[keep], units[keep]
    elif missing == "nonrelevant":
        present[:] = True
    query_codes = units // max(len(d_enc.dictionary), 1)
    query_names = q_enc.dictionary.to_pylist()
    seen = np.bincount(query_codes, minlength=len(q_enc.dictionary)) > 0
    used = np.flatnonzero(seen)
    dense = np.cumsum(seen) - 1
    query = dense[query_codes]
    ids = [query_names[i] for i in used.tolist()]
    order = sorted(range(len(ids)), key=lambda i: ids[i].encode("utf-8"))  # byte-wise, as trec_eval
    rank = np.empty(len(ids), dtype=np.int64)
    rank[order] = np.arange(len(ids))
    return labels, present, rank[query.reshape(-1)] if len(ids) else query.reshape(-1), [ids[i] for i in order]


def assessor_agreement(qrels, *, names=None, missing: str = "intersect", relevance_level: int = 1,
              alpha_levels=ALPHA_LEVELS, n_resamples: int = 1000, confidence: float = 0.95,
              random_state=0) -> Agreement:
    """Agreement between two or more sets of judgments of the same pairs (see the module
    documentation for the statistics, the ``missing`` policy and undefined values).

    ``qrels``: a list of qrels (paths, ``{qid: {docno: rel}}`` dicts, frames or :class:`Qrels`);
    ``names``: their names (default: file names). ``relevance_level``: the least relevant label
    for the overlap of relevant sets. Bootstrap: ``n_resamples`` resamples of the queries (0: no
    interval), percentile interval at ``confidence``, seeded by ``random_state``.

    >>> a = assessor_agreement([{"q1": {"d1": 1, "d2": 0, "d3": 1}}, {"q1": {"d1": 1, "d2": 1, "d3": 1}}],
    ...               names=["A", "B"], n_resamples=0)
    >>> a.figure("overlap").overall, round(a.figure("percent_agreement").overall, 4)
    (0.6666666666666666, 0.6667)
    """
    _check_choice(missing, MISSING_POLICIES, "missing")
    if isinstance(relevance_level, bool) or not isinstance(relevance_level, (int, np.integer)):
        raise UsageError(f"relevance_level: expected an integer, found {relevance_level!r}")
    levels = (alpha_levels,) if isinstance(alpha_levels, str) else tuple(alpha_levels)
    for level in levels:
        _check_choice(level, ALPHA_LEVELS, "alpha_levels")
    n_resamples = 0 if n_resamples == 0 and not isinstance(n_resamples, bool) else \
        check_count(n_resamples, "n_resamples", 2)
    confidence = check_fraction(confidence, "confidence")
    rng = as_generator(random_state)
    qrels, names = _qrels_list(qrels, names)
    labels, present, query, query_ids = _aligned(qrels, missing)
    n_queries = len(query_ids)
    if n_queries == 0:
        raise InputError("no (query, document) pair is judged by every set; nothing to compare (try missing='keep')",
                         source=", ".join(names))
    if n_resamples and n_queries < 2:  # every resample would be the one query: a zero-width interval
        raise UsageError(f"{display_name('n_resamples')}: a bootstrap interval over queries needs at least 2 "
                         f"queries, found {n_queries}; use 0 resamples (no interval)")
    values, inverse = np.unique(labels[present], return_inverse=True)
    k = values.size
    if n_queries * k * k > MAX_TABLE_CELLS:
        raise UsageError(f"{k} distinct labels over {n_queries} queries: per-query tables of {n_queries * k * k:,} "
                         f"cells exceed the limit of {MAX_TABLE_CELLS:,}; agreement is meant for relevance grades")
    cat = np.full(labels.shape, -1, dtype=np.int64)
    cat[present] = inverse.reshape(-1)
    relevant = values >= relevance_level
    stats = (_pairwise_statistics(cat, query, n_queries, k, names, relevant)
             + _all_sets_statistics(cat, query, n_queries, k, names, relevant, values, levels))
    draws = list(bootstrap_counts(n_queries, n_resamples, rng)) if n_resamples else []
    figures = _figures(stats, names, cat, draws, confidence)
    settings = {"missing": missing, "relevance_level": int(relevance_level), "n_resamples": n_resamples,
                "confidence": confidence, "random_state": random_state if isinstance(random_state, (int, type(None)))
                else repr(random_state), "labels": values.tolist(), "interval": "bootstrap percentile over queries"}
    return Agreement(names=names, query_ids=query_ids, figures=figures, settings=settings)


def _pairwise_statistics(cat: np.ndarray, query: np.ndarray, n_queries: int, k: int, names: list,
                         relevant: np.ndarray) -> list:
    """``(statistic, sets, per-query counts, kernel)`` of each pair of sets: percent agreement, Cohen's
    kappas, overlap of the relevant sets."""
    n_sets = cat.shape[1]
    stats: list[tuple[str, tuple, np.ndarray, object]] = []
    for a in range(n_sets):
        for b in range(a + 1, n_sets):
            tables = _pair_tables(cat, query, n_queries, k, a, b)
            flat = tables.reshape(n_queries, k * k).astype(np.float64)
            sets = (names[a], names[b])
            n_pairs = tables.sum(axis=(1, 2)).astype(np.float64)
            agree = np.trace(tables, axis1=1, axis2=2).astype(np.float64)
            stats.append(("percent_agreement", sets, np.stack((agree, n_pairs), 1), _ratio))
            for weights in KAPPA_WEIGHTS:
                name = "cohen_kappa" if weights is None else f"cohen_kappa_{weights}"
                stats.append((name, sets, flat, lambda s, w=weights: _kappa(s.reshape(*s.shape[:-1], k, k), w)))
            both = tables[:, relevant][:, :, relevant].sum(axis=(1, 2))
            union = tables[:, relevant].sum(axis=(1, 2)) + tables[:, :, relevant].sum(axis=(1, 2)) - both
            stats.append(("overlap", sets, np.stack((both, union), 1).astype(np.float64), _ratio))
    return stats


def _all_sets_statistics(cat: np.ndarray, query: np.ndarray, n_queries: int, k: int, names: list,
                         relevant: np.ndarray, values: np.ndarray, levels: tuple) -> list:
    """The statistics of all the sets together: percent agreement and overlap (more than two sets),
    Fleiss' kappa, Krippendorff's alphas (at each of ``levels``)."""
    n_sets = cat.shape[1]
    stats: list[tuple[str, tuple, np.ndarray, object]] = []
    complete = (cat >= 0).all(axis=1)
    n_all = np.bincount(query[complete], minlength=n_queries).astype(np.float64)
    if n_sets > 2:
        same = complete & (cat == cat[:, :1]).all(axis=1)
        stats.append(("percent_agreement", tuple(names), np.stack(
            (np.bincount(query[same], minlength=n_queries).astype(np.float64), n_all), 1), _ratio))
        rel = relevant[np.maximum(cat, 0)] & (cat >= 0)
        all_rel, any_rel = complete & rel.all(axis=1), complete & rel.any(axis=1)
        stats.append(("overlap", tuple(names), np.stack((np.bincount(query[all_rel], minlength=n_queries),
                                                         np.bincount(query[any_rel], minlength=n_queries)),
                                                        1).astype(np.float64), _ratio))
    unit_counts = np.zeros((int(complete.sum()), k), dtype=np.float64)
    rows = np.repeat(np.arange(unit_counts.shape[0]), n_sets)
    np.add.at(unit_counts, (rows, cat[complete].reshape(-1)), 1.0)
    fleiss_stats = np.concatenate((np.bincount(query[complete], weights=(unit_counts ** 2).sum(axis=1),
                                               minlength=n_queries)[:, None], n_all[:, None],
                                   np.stack([np.bincount(query[complete], weights=unit_counts[:, j],
                                                         minlength=n_queries) for j in range(k)], 1)
                                   if k else np.zeros((n_queries, 0))), axis=1)
    stats.append(("fleiss_kappa", tuple(names), fleiss_stats, lambda s: _fleiss(s, n_sets)))
    coincidence = _coincidence(cat, query, n_queries, k).reshape(n_queries, k * k)
    for level in levels:
        stats.append((f"krippendorff_alpha_{level}", tuple(names), coincidence,
                      lambda s, lv=level: _alpha(s.reshape(*s.shape[:-1], k, k), lv, values.astype(np.float64))))
    return stats


def _figures(stats: list, names: list, cat: np.ndarray, draws: list, confidence: float) -> list:
    """One :class:`AgreementFigure` per statistic: overall, per-query mean, bootstrap interval."""
    figures = []
    tail = (1.0 - confidence) / 2.0
    for statistic, sets, per_query, kernel in stats:
        overall = float(kernel(per_query.sum(axis=0)))
        by_query = np.asarray(kernel(per_query), dtype=np.float64)
        low = high = math.nan
        if draws:
            resampled = np.concatenate([kernel(counts @ per_query) for counts in draws])
            finite = resampled[~np.isnan(resampled)]
            if finite.size:
                low, high = (float(x) for x in np.quantile(finite, [tail, 1.0 - tail]))
        defined = by_query[~np.isnan(by_query)]
        mean = float(defined.mean()) if defined.size else math.nan
        pairs = _pairs_of(statistic, sets, names, cat)
        figures.append(AgreementFigure(statistic, sets, overall, low, high, mean, pairs, by_query))
    return figures


def _pairs_of(statistic: str, sets: tuple, names: list, cat: np.ndarray) -> int:
    """Number of (query, document) pairs a figure compares."""
    columns = [names.index(s) for s in sets]
    judged = (cat[:, columns] >= 0)
    if statistic.startswith("krippendorff"):
        return int((judged.sum(axis=1) >= 2).sum())
    return int(judged.all(axis=1).sum())


# ----------------------------------------------------------------------------------- conclusions
@dataclass
class RankingAgreement:
    """System rankings under each set of judgments and their rank correlations (Voorhees 2000)."""

    names: list
    runs: list
    measure: str
    scores: np.ndarray  # (sets, runs) mean of the measure
    kendall_tau: np.ndarray  # (sets, sets)
    tau_ap: np.ndarray  # (sets, sets): row = reference ranking, column = compared ranking; NaN on ties
    settings: dict

    def to_dict(self) -> dict:
        def clean(m):
            return [[None if math.isnan(x) else float(x) for x in row] for row in np.asarray(m).tolist()]

        return {"measure": self.measure, "sets": self.names, "runs": self.runs, "scores": clean(self.scores),
                "kendall_tau": clean(self.kendall_tau), "tau_ap": clean(self.tau_ap), "settings": self.settings}


def ranking_agreement(qrels, runs, *, measure: str = "AP", names=None, relevance_level: int = 1) -> RankingAgreement:
    """Evaluate every run under every set of judgments (:class:`cranfield.Evaluator`, the mean of
    ``measure`` over each set's queries), rank the systems, and correlate the rankings pairwise:
    Kendall's τ-b and τ_AP (:mod:`cranfield.correlation`; τ_AP of the column set's ranking against
    the row set's as reference, NaN when tied scores make it undefined), as in Voorhees (2000).
    """
    if isinstance(runs, (str, bytes, dict)) or not hasattr(runs, "__len__"):
        raise UsageError("runs: expected a list of two or more runs")
    runs = [read_run(r) for r in runs]
    if len(runs) < 2:
        raise UsageError(f"runs: ranking systems needs at least two runs, found {len(runs)}")
    run_names = [r.name or f"run{i + 1}" for i, r in enumerate(runs)]
    if len(set(run_names)) < len(run_names):
        run_names = [f"{n}#{i + 1}" for i, n in enumerate(run_names)]
    qrels, names = _qrels_list(qrels, names)
    scores = np.zeros((len(qrels), len(runs)))
    label = None
    for i, q in enumerate(qrels):  # one evaluator per set of judgments; runs evaluated by the engine
        evaluator = Evaluator(q, [measure], relevance_level=relevance_level)
        for j, run in enumerate(runs):
            result = evaluator.evaluate(run, name=run_names[j])
            label = label or next(iter(result.mean))
            scores[i, j] = float(result.mean[label])
    tied = snap_ties(scores, axis=1)  # per set of judgments: means equal as rationals are tied
    n = len(qrels)
    tau = np.ones((n, n))
    tap = np.ones((n, n))
    for i in range(n):
        for j in range(n):
            a, b = dict(zip(run_names, tied[i])), dict(zip(run_names, tied[j]))
            if i != j:
                try:
                    tau[i, j] = kendall_tau(b, a)
                except UsageError:
                    tau[i, j] = math.nan
            try:
                tap[i, j] = tau_ap(b, a)
            except UsageError:  # ties: τ_AP undefined
                tap[i, j] = math.nan
    return RankingAgreement(names=names, runs=run_names, measure=str(label), scores=scores, kendall_tau=tau,
                            tau_ap=tap, settings={"measure": str(label), "relevance_level": int(relevance_level),
                                                  "ranking": "mean over each set's queries, higher first"})
