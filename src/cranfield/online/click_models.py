"""Click models fitted on click logs (Chuklin, Markov & de Rijke 2015, *Click Models for Web Search*).

Every model explains a click on the document ``d`` shown at rank ``r`` for query ``q`` as
*examination* × *attractiveness*: ``P(C_r = 1) = P(E_r = 1) · α_qd``. They differ in what
decides examination:

==========  =================================================================  ==================
``pbm``     position-based: ``P(E_r) = γ_r`` (Craswell et al. 2008 name it)     EM
``cascade`` top-down until the first click (Craswell et al. 2008)               closed form (MLE)
``dcm``     dependent click: after a click, go on with ``λ_r``; after a skip,  EM (forward–
            always (Guo, Liu & Wang 2009)                                      backward)
``ubm``     user browsing: ``γ_{r,r'}``, ``r'`` the rank of the previous click   EM
            (Dupret & Piwowarski 2008)
``dbn``     dynamic Bayesian network: a click satisfies with ``σ_qd``; an        EM (forward–
            unsatisfied user goes on with ``γ`` (Chapelle & Zhang 2009)          backward)
==========  =================================================================  ==================

The book's closed-form DCM estimator (every click but the last is followed by examination,
nothing below the last click is examined) is biased whenever users may examine below their last
click; cranfield maximises the DCM likelihood itself by EM instead (the cascade model's closed
form is its exact maximum-likelihood estimate).

**Fitting** is vectorised over rows: E steps are array expressions (DBN: a forward–backward pass
over list positions, vectorised over impressions) and M steps are ``bincount`` sums; Python
loops run over EM iterations and list positions only.

**Exact merging.** The statistics an E step sums (expected counts per query–document pair and
per rank) are accumulated in fixed point — each value in [0, 1] is rounded to a multiple of
2⁻⁵⁶ and summed as integers — so they are associative: a log split into any partitions (Dask,
:func:`fit_click_model_dask`) gives bit-for-bit the same parameters as the whole log in memory.
The rounding (≤ 2⁻⁵⁷ per row) is far below the sampling error of any estimate.

**Policies.** Parameters are clipped to [10⁻⁶, 1 − 10⁻⁶] after each M step so that held-out
likelihoods stay finite; a query–document pair (or rank) absent from the training log gets
``prior`` (0.5 by default, also the EM starting value). The cascade model explains only rows
up to the first click of an impression (it predicts no later click), so it is fitted and
evaluated on those rows alone.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from .._params import check_choice, check_count, check_fraction
from ..dask._deps import compute, current_client, require_dask
from ..errors import InputError, UsageError
from ..io.atomic import atomic_write
from ._click_em import (
    _filter,
    _first_last_click,
    _fixed_value,
    _prepare,
    _previous_click_rank,
    _statistics,
    _sum_statistics,
)
from ._clicklog import log_columns, padded

__all__ = [
    "MODELS",
    "ClickModel",
    "ConvergenceWarning",
    "evaluate_click_model",
    "fit_click_model",
    "fit_click_model_dask",
    "inferred_relevance",
    "write_inferred_qrels",
]

MODELS = ("pbm", "cascade", "dcm", "ubm", "dbn")
_EPS = 1e-6


@dataclass(frozen=True, eq=False)
class ClickModel:
    """Fitted parameters. Per query–document pair (sorted by query code, then doc code):
    ``query``, ``doc`` (codes into ``query_ids`` / ``doc_ids``), ``attractiveness`` α and, for
    DBN, ``satisfaction`` σ. Per rank: ``examination`` — PBM γ_r and DCM λ_r indexed by rank
    (index 0 unused), UBM γ[r, r'] (r' = 0: no previous click); ``continuation`` γ for DBN.
    ``settings`` records how it was fitted (iterations, convergence, rows, prior)."""

    model: str
    query: np.ndarray
    doc: np.ndarray
    attractiveness: np.ndarray
    satisfaction: np.ndarray | None = None
    examination: np.ndarray | None = None
    continuation: float | None = None
    query_ids: np.ndarray | None = None
    doc_ids: np.ndarray | None = None
    settings: dict = field(default_factory=dict)

    @property
    def relevance(self) -> np.ndarray:
        """Inferred relevance per pair: α (DBN: α·σ, Chapelle & Zhang 2009)."""
        if self.satisfaction is not None:
            return self.attractiveness * self.satisfaction
        return self.attractiveness


def _ratio(numerator: np.ndarray, denominator: np.ndarray, prior: float) -> np.ndarray:
    out = np.full(np.shape(denominator), prior, dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=np.asarray(denominator) > 0)
    return np.clip(out, _EPS, 1 - _EPS)


def _m_step(model: str, stats: dict, params: dict, prior: float, n_ranks: int) -> dict:
    new = dict(params)
    attr = stats["clicks"] if model == "cascade" else _fixed_value(stats["attr"])
    new["attractiveness"] = _ratio(attr, stats["views"], prior)
    if model == "dcm":
        new["examination"] = _ratio(_fixed_value(stats["cont"]), stats["cont_views"], prior)
    if model in ("pbm", "ubm"):
        exam = _ratio(_fixed_value(stats["exam"]), stats["slot_views"], prior)
        new["examination"] = exam if model == "pbm" else exam.reshape(n_ranks, n_ranks)
    if model == "dbn":
        new["satisfaction"] = _ratio(_fixed_value(stats["sat"]), stats["clicks"], prior)
        new["continuation"] = _ratio(_fixed_value(stats["cont"]), _fixed_value(stats["cont_den"]), prior)
    return new


# ---------------------------------------------------------------- fitting

def _check_options(model, iterations, tol, prior, max_rank):
    check_choice(model, "model", MODELS)
    iterations = check_count(iterations, "iterations", high=10**6)
    if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not tol >= 0 or tol != tol:
        raise UsageError(f"tol: expected a number ≥ 0, found {tol!r}")
    prior = check_fraction(prior, "prior")
    if max_rank is not None:
        max_rank = check_count(max_rank, "max_rank")


def _initial(model: str, n_pairs: int, n_ranks: int, prior: float) -> dict:
    params = {"attractiveness": np.full(n_pairs, prior)}
    if model in ("pbm", "dcm"):
        params["examination"] = np.full(n_ranks, prior)
    if model == "ubm":
        params["examination"] = np.full((n_ranks, n_ranks), prior)
    if model == "dbn":
        params["satisfaction"] = np.full(n_pairs, prior)
        params["continuation"] = np.array([prior])
    return params


class ConvergenceWarning(UserWarning):
    """A click model's EM reached its iteration limit while its parameters still moved more than
    ``tol`` (its ``settings["converged"]`` is false)."""


def _iterate(model, compute_stats, sizes, prior, iterations, tol):
    """EM (or one closed-form pass): ``compute_stats(params)`` returns the summed statistics.
    Not converging within ``iterations`` is a :class:`ConvergenceWarning` (and ``converged``
    false in the settings)."""
    params = _initial(model, sizes["pairs"], sizes["ranks"], prior)
    closed = model == "cascade"
    done, change = 0, float("inf")
    for done in range(1, (1 if closed else iterations) + 1):
        new = _m_step(model, compute_stats(params), params, prior, sizes["ranks"])
        change = max((float(np.max(np.abs(new[k] - params[k]), initial=0.0)) for k in new), default=0.0)
        params = new
        if change <= tol:
            break
    converged = bool(closed or change <= tol)
    if not converged:
        warnings.warn(f"the {model} click model did not converge: after {done} EM iterations a parameter still moved "
                      f"by {change:.3g} > tol={tol:g}; raise iterations= (or tol=)", ConvergenceWarning, stacklevel=3)
    return params, {"iterations": done, "converged": converged, "last_change": change}


def _result(model, params, keys, n_docs, columns, settings) -> ClickModel:
    exam = params.get("examination")
    if exam is not None and model != "ubm":
        exam = exam.copy()
        exam[0] = np.nan  # rank 0 does not exist
    return ClickModel(model=model, query=keys // n_docs, doc=keys % n_docs, attractiveness=params["attractiveness"],
                      satisfaction=params.get("satisfaction"), examination=exam,
                      continuation=None if "continuation" not in params else float(params["continuation"][0]),
                      query_ids=columns.get("query_ids"), doc_ids=columns.get("doc_ids"),
                      settings={**settings, "n_docs": n_docs})


def fit_click_model(log, *, model: str = "pbm", iterations: int = 50, tol: float = 1e-6, prior: float = 0.5,
                    max_rank: int | None = None) -> ClickModel:
    """Fit click ``model`` (one of :data:`MODELS`) to ``log`` (a ``ClickLog`` or a dict of its
    columns) by EM (PBM, DCM, UBM, DBN: at most ``iterations`` steps, stopping when no parameter
    moves more than ``tol``) or in closed form (cascade). Rows below ``max_rank`` are
    ignored. See the module's documentation for the models and the policies.

    >>> log = {"impression": [0, 0, 1, 1], "query": [0, 0, 0, 0], "doc": [0, 1, 1, 0],
    ...        "rank": [1, 2, 1, 2], "clicked": [1, 0, 0, 1]}
    >>> fit_click_model(log, model="cascade").attractiveness.tolist()
    [0.5, 0.5]
    """
    _check_options(model, iterations, tol, prior, max_rank)
    columns = log_columns(log)
    n_docs = len(columns["doc_ids"]) if columns["doc_ids"] is not None else int(columns["doc"].max(initial=-1)) + 1
    rows = _prepare(columns, max_rank=max_rank, n_docs=max(n_docs, 1))
    if len(rows["rank"]) == 0:
        raise InputError("the click log has no rows to fit", source="click log")
    sizes = {"pairs": len(rows["keys"]), "ranks": int(rows["rank"].max()) + 1}
    params, info = _iterate(model, lambda p: _statistics(model, rows, p, sizes), sizes, prior, iterations, tol)
    settings = {"model": model, "prior": prior, "tol": tol, "max_iterations": iterations, "max_rank": max_rank,
                "rows": len(rows["rank"]), "impressions": rows["shape"][0], **info}
    return _result(model, params, rows["keys"], max(n_docs, 1), columns, settings)


def _partition_rows(frame, max_rank, n_docs, keys):
    columns = log_columns({name: frame[name].to_numpy() for name in ("impression", "query", "doc", "rank", "clicked")},
                          source="click log partition")
    return _prepare(columns, max_rank=max_rank, n_docs=n_docs, pairs=keys)


def _partition_summary(frame):
    imp = frame["impression"].to_numpy()
    return {"n": len(imp), "first": int(imp[0]) if len(imp) else -1, "last": int(imp[-1]) if len(imp) else -1,
            "docs": int(frame["doc"].max()) + 1 if len(imp) else 0}


def _partition_keys(frame, max_rank, n_docs):
    columns = {name: frame[name].to_numpy() for name in ("query", "doc", "rank")}
    keep = columns["rank"] <= max_rank if max_rank is not None else np.ones(len(columns["rank"]), bool)
    return np.unique(columns["query"][keep].astype(np.int64) * n_docs + columns["doc"][keep].astype(np.int64)), \
        int(columns["rank"][keep].max(initial=0)), int(keep.sum())


def fit_click_model_dask(frame, *, model: str = "pbm", iterations: int = 50, tol: float = 1e-6, prior: float = 0.5,
                         max_rank: int | None = None, query_ids=None, doc_ids=None, client=None) -> ClickModel:
    """:func:`fit_click_model` on a Dask DataFrame with the log's code columns (``impression``,
    ``query``, ``doc``, ``rank``, ``clicked``), each partition holding whole impressions sorted
    by rank. Every EM step sums the partitions' statistics (exact fixed-point integers), so the
    parameters equal the in-memory fit on the same rows bit for bit. ``client``: a
    ``distributed.Client`` (default: the running one, else Dask's default scheduler)."""
    _check_options(model, iterations, tol, prior, max_rank)
    missing = [name for name in ("impression", "query", "doc", "rank", "clicked")
               if name not in getattr(frame, "columns", ())]
    if not hasattr(frame, "to_delayed") or missing:
        raise UsageError("frame: expected a Dask DataFrame with the columns impression, query, doc, rank, clicked"
                         + (f" (missing: {', '.join(missing)})" if hasattr(frame, "to_delayed") else ""))
    dask = require_dask()
    client = current_client(client)
    parts = frame.to_delayed()
    delayed = dask.delayed
    summaries = compute([delayed(_partition_summary)(part) for part in parts], client)
    bounds = [s for s in summaries if s["n"]]
    for before, after in zip(bounds, bounds[1:]):
        if after["first"] <= before["last"]:
            raise InputError(f"impression {after['first']} is split across partitions or partitions are out of order; "
                             "each partition must hold whole impressions, in increasing order", source="click log",
                             field="impression")
    n_docs = len(doc_ids) if doc_ids is not None else max((s["docs"] for s in summaries), default=1)
    found = compute([delayed(_partition_keys)(part, max_rank, max(n_docs, 1)) for part in parts], client)
    keys = np.unique(np.concatenate([k for k, _, _ in found])) if found else np.zeros(0, np.int64)
    if len(keys) == 0:
        raise InputError("the click log has no rows to fit", source="click log")
    sizes = {"pairs": len(keys), "ranks": max(r for _, r, _ in found) + 1}
    prepared = [delayed(_partition_rows)(part, max_rank, max(n_docs, 1), keys) for part in parts]
    prepared = list(client.persist(prepared)) if client is not None else list(dask.persist(*prepared))

    def compute_stats(params):
        return _sum_statistics(compute([delayed(_statistics)(model, rows, params, sizes) for rows in prepared], client))

    params, info = _iterate(model, compute_stats, sizes, prior, iterations, tol)
    settings = {"model": model, "prior": prior, "tol": tol, "max_iterations": iterations, "max_rank": max_rank,
                "rows": sum(n for _, _, n in found), "partitions": len(parts), **info}
    ids = {"query_ids": None if query_ids is None else np.asarray(query_ids).astype(str),
           "doc_ids": None if doc_ids is None else np.asarray(doc_ids).astype(str)}
    return _result(model, params, keys, max(n_docs, 1), ids, settings)


# ---------------------------------------------------------------- prediction and evaluation

def _check_model(model) -> ClickModel:
    if not isinstance(model, ClickModel):
        raise UsageError(f"model: expected a fitted ClickModel, found {type(model).__name__}")
    return model


def _translate(codes: np.ndarray, ids_from, ids_to) -> np.ndarray:
    """Codes of one id list re-expressed in another (-1 where the id is absent)."""
    if ids_from is None or ids_to is None:
        return codes
    order = np.argsort(ids_to)
    sorted_ids = np.asarray(ids_to)[order]
    wanted = np.asarray(ids_from)[codes] if len(codes) else np.zeros(0, dtype=sorted_ids.dtype)
    at = np.clip(np.searchsorted(sorted_ids, wanted), 0, max(len(sorted_ids) - 1, 0))
    found = sorted_ids[at] == wanted if len(sorted_ids) else np.zeros(len(codes), bool)
    return np.where(found, order[at] if len(order) else 0, -1)


def _row_parameters(model: ClickModel, columns: dict, *, max_rank: int | None = None) -> dict:
    """The prepared rows of ``columns`` with each row's α (and σ) under ``model``: pairs the
    model has not seen get its prior. Codes are matched through the ids when both have them."""
    prior = model.settings.get("prior", 0.5)
    n_docs = model.settings.get("n_docs", 1)
    query = _translate(columns["query"], columns.get("query_ids"), model.query_ids)
    doc = _translate(columns["doc"], columns.get("doc_ids"), model.doc_ids)
    unknown = (query < 0) | (doc < 0) | (doc >= n_docs)
    keys = model.query * n_docs + model.doc
    aligned = {**columns, "query": np.where(unknown, 0, query), "doc": np.where(unknown, 0, doc)}
    rows = _prepare(aligned, max_rank=max_rank, n_docs=n_docs, pairs=keys)
    if max_rank is not None and len(columns["rank"]) and columns["rank"].max() > max_rank:
        unknown = unknown[columns["rank"] <= max_rank]
    known = rows["known"] & ~unknown
    rows["alpha"] = np.where(known, model.attractiveness[rows["pair"]] if len(keys) else prior, prior)
    if model.satisfaction is not None:
        rows["sigma"] = np.where(known, model.satisfaction[rows["pair"]], prior)
    return rows


def _exam(model: ClickModel, rank: np.ndarray, previous: np.ndarray | None = None) -> np.ndarray:
    prior = model.settings.get("prior", 0.5)
    table = model.examination
    if model.model == "ubm":
        inside = (rank < table.shape[0]) & (previous < table.shape[1])
        return np.where(inside, table[np.minimum(rank, table.shape[0] - 1), np.minimum(previous, table.shape[1] - 1)],
                        prior)
    inside = rank < len(table)
    return np.where(inside, table[np.minimum(rank, len(table) - 1)], prior)


def _chain_parameters(model: ClickModel, rows: dict) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the probability of going on after a click and after a skip (chain models)."""
    ones = np.ones(len(rows["rank"]))
    if model.model == "cascade":
        return 0 * ones, ones
    if model.model == "dcm":
        return _exam(model, rows["rank"]), ones
    g = model.continuation
    return (1 - rows["sigma"]) * g, g * ones


def _click_probabilities(model: ClickModel, rows: dict) -> tuple[np.ndarray, np.ndarray]:
    """Per row: P(C_r = 1 | clicks above) and P(C_r = 1)."""
    alpha, rank = rows["alpha"], rows["rank"]
    if model.model == "pbm":
        q = alpha * _exam(model, rank)
        return q, q
    owner, position, shape = rows["owner"], rows["position"], rows["shape"]
    if model.model == "ubm":
        conditional = alpha * _exam(model, rank, _previous_click_rank(rows))
        n, width = shape
        rank_matrix = padded(rank, owner, position, shape, 0)
        a = padded(alpha, owner, position, shape, 0.0)
        last = np.zeros((n, width + 1))  # P(previous click at position j - 1), j = 0: none
        last[:, 0] = 1.0
        marginal = np.zeros(shape)
        previous_rank = np.concatenate([np.zeros((n, 1), np.int64), rank_matrix], axis=1)
        for r in range(width):
            click = a[:, r, None] * _exam(model, np.repeat(rank_matrix[:, r, None], r + 1, 1), previous_rank[:, :r + 1])
            p = last[:, :r + 1] * click
            marginal[:, r] = p.sum(axis=1)
            last[:, :r + 1] -= p
            last[:, r + 1] = marginal[:, r]
        return conditional, marginal[owner, position]
    cont_click, cont_skip = _chain_parameters(model, rows)
    shape = shape[::-1]
    matrices = [padded(v, position, owner, shape, 0.0) for v in (alpha, cont_click, cont_skip)]
    c = padded(rows["clicked"], position, owner, shape, False)
    _, conditional, marginal = _filter(matrices[0], c, matrices[1], matrices[2])
    return conditional[position, owner], marginal[position, owner]


def evaluate_click_model(model: ClickModel, log, *, max_rank: int | None = None) -> dict:
    """Held-out evaluation of a fitted click model on ``log`` (Chuklin et al. 2015, ch. 5):

    * ``log_likelihood``: mean over impressions of ``ln P(C_1, …, C_n)`` (product of the
      conditional click probabilities);
    * ``perplexity_by_rank``: ``p_r = 2^(−(1/|S_r|) Σ_s [c log₂ q + (1 − c) log₂(1 − q)])`` with
      ``q = P(C_r = 1)`` the marginal click probability, over the impressions ``S_r`` showing
      rank ``r``; ``perplexity`` is their mean over ranks (1 is perfect, 2 a coin);
    * ``observed_ctr`` and ``predicted_ctr`` at ``ctr_ranks`` (mean clicks and mean
      ``P(C_r = 1)`` over every row of that rank).

    Cascade: rows after the first click are not evaluated (see the module's policies)."""
    model = _check_model(model)
    if max_rank is not None:
        max_rank = check_count(max_rank, "max_rank")
    columns = log_columns(log)
    rows = _row_parameters(model, columns, max_rank=max_rank)
    if len(rows["rank"]) == 0:
        raise InputError("the click log has no rows to evaluate", source="click log")
    conditional, marginal = _click_probabilities(model, rows)
    use = np.ones(len(rows["rank"]), bool)
    if model.model == "cascade":
        first, _ = _first_last_click(rows)
        use = rows["position"] <= first
    c = rows["clicked"]
    lo, hi = np.clip(conditional, 1e-300, 1.0), np.clip(1 - conditional, 1e-300, 1.0)
    ll_rows = np.where(c, np.log(lo), np.log(hi)) * use
    log_likelihood = float(np.bincount(rows["owner"], weights=ll_rows, minlength=rows["shape"][0]).mean())
    rank = rows["rank"][use]
    size = int(rows["rank"].max()) + 1
    q = np.clip(marginal[use], 1e-300, 1 - 1e-16)
    bits = np.where(c[use], np.log2(q), np.log2(1 - q))
    counts = np.bincount(rank, minlength=size)
    shown = np.flatnonzero(counts)
    by_rank = 2.0 ** (-np.bincount(rank, weights=bits, minlength=size)[shown] / counts[shown])
    all_counts = np.bincount(rows["rank"], minlength=size)
    listed = np.flatnonzero(all_counts)
    return {"model": model.model, "ranks": shown, "impressions_by_rank": counts[shown],
            "perplexity_by_rank": by_rank, "perplexity": float(by_rank.mean()), "log_likelihood": log_likelihood,
            "ctr_ranks": listed,
            "observed_ctr": np.bincount(rows["rank"], weights=c, minlength=size)[listed] / all_counts[listed],
            "predicted_ctr": np.bincount(rows["rank"], weights=marginal, minlength=size)[listed] / all_counts[listed],
            "impressions": rows["shape"][0], "rows": int(use.sum()), "max_rank": max_rank}


# ---------------------------------------------------------------- inferred relevance

def inferred_relevance(model: ClickModel, *, thresholds=None) -> dict:
    """The model's relevance per query–document pair — α, or α·σ for DBN — as ``{"query":
    ids, "doc": ids, "probability": values}``; with ``thresholds`` (increasing numbers in
    (0, 1)) also ``"grade"``: the number of thresholds ≤ the value (0 … len(thresholds))."""
    model = _check_model(model)
    value = model.relevance
    out = {"query": model.query_ids[model.query] if model.query_ids is not None else model.query.astype(str),
           "doc": model.doc_ids[model.doc] if model.doc_ids is not None else model.doc.astype(str),
           "probability": value}
    if thresholds is not None:
        try:
            cuts = np.asarray(thresholds, dtype=np.float64).reshape(-1)
        except (TypeError, ValueError, OverflowError):
            raise UsageError(f"thresholds: expected numbers in (0, 1), found {thresholds!r}") from None
        if not len(cuts) or np.any(~(cuts > 0) | ~(cuts < 1)) or np.any(np.diff(cuts) <= 0):
            raise UsageError(f"thresholds: expected increasing numbers in (0, 1), found {cuts.tolist()}")
        out["grade"] = np.searchsorted(cuts, value, side="right").astype(np.int64)
    return out


def write_inferred_qrels(model: ClickModel, path, *, thresholds=(0.25, 0.5, 0.75), probabilities: bool = False) -> int:
    """Write the inferred relevance as TREC qrels ``qid 0 docno rel`` (atomically), sorted by
    query then document id: graded by ``thresholds`` (readable by every cranfield reader), or
    with ``probabilities=True`` the value itself (``%.6f``: for tools taking real-valued
    judgments). Returns the number of lines."""
    table = inferred_relevance(model, thresholds=None if probabilities else thresholds)
    order = np.lexsort((table["doc"], table["query"]))
    values = table["probability"] if probabilities else table["grade"]
    text = [f"{q} 0 {d} {v:.6f}\n" if probabilities else f"{q} 0 {d} {v}\n"
            for q, d, v in zip(table["query"][order].tolist(), table["doc"][order].tolist(), values[order].tolist())]
    with atomic_write(path) as handle:
        handle.writelines(text)
    return len(text)
