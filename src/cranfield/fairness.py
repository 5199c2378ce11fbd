"""Fairness of exposure: expected exposure of documents and groups under stochastic rankings
(Diaz, Mitra, Ekstrand, Biega & Carterette, "Evaluating stochastic rankings with expected
exposure", CIKM 2020).

A stochastic ranker is given by several sampled rankings per query: several runs (one sample
each), a run whose second field (TREC's "iter") numbers the samples, or rankings sampled here from
a run's scores as Plackett–Luce logits (:func:`plackett_luce_samples`). Each sample is ranked as
trec_eval ranks a run (score descending, ties by docno descending).

* **Exposure** of rank i (1-based) under the browsing model: ``rbp``: p^(i − 1); ``gerr``:
  p^(i − 1) (1 − u)^(relevant documents above i) (relevant: grade ≥ ``relevance_level``).
* **Expected exposure** ε_d of a document: the mean of its exposure over the query's samples
  (a sample that does not retrieve it gives 0).
* **Target exposure** ε*_d: the expected exposure under the ideal stochastic ranker that puts
  the judged documents in decreasing grade and shuffles each grade uniformly: a grade of m
  documents below b better ones gets (p^b − p^(b+m)) / (m (1 − p)) each (``rbp``); with ``gerr``,
  relevant grades use pp = p (1 − u) in place of p, and non-relevant grades below the R relevant
  documents (1 − u)^R (p^b − p^(b+m)) / (m (1 − p)). Unjudged documents: 0.
* Per query, over the documents retrieved or judged: **disparity** Σ ε², **relevance** Σ ε ε*,
  **loss** Σ (ε − ε*)² (= disparity − 2 relevance + Σ ε*²); lower disparity spreads exposure,
  higher relevance puts it on relevant documents, lower loss is closer to the ideal.
* **Groups** (a groups file: documents → one or more groups): the exposure of a group is the sum
  over its relevant documents (grade ≥ ``relevance_level``) of their expected (and target)
  exposure; the same three figures over groups. And **AWRF**, attention-weighted rank fairness
  (Sapiezynski, Zeng, Robertson, Mislove & Wilson, WWW 2019; TREC Fair Ranking 2022): per sample,
  the share of the attention (the browsing model's exposure) each group gets, against the
  groups' share among the query's relevant documents; AWRF = 1 − their Jensen–Shannon distance
  (base 2), averaged over the samples (1: attention in proportion to relevant documents). A
  document with no group counts in a group ``(none)``; a query without relevant documents has the
  uniform target.

Queries evaluated: those both judged and sampled. Every figure is a bincount over the sampled
rows: no loop over queries, documents or samples (except splitting one file into its samples).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._arrow import indices, to_numpy
from ._params import check_choice, check_fraction
from .errors import UsageError
from .io.groups import groups_from_mapping, read_groups
from .io.trec import read_trec_columns
from .judgments.pooling import positive_int, ranked_lists
from .retrieval.inputs import read_qrels_file, read_runs
from .retrieval.qrels import read_qrels
from .retrieval.run import Run, read_run

__all__ = ["EXPOSURE_MODELS", "ExposureResult", "expected_exposure", "plackett_luce_samples", "read_sampled_run",
           "exposure_from_files"]

EXPOSURE_MODELS = ("rbp", "gerr")
FIGURES = ("disparity", "relevance", "loss")


@dataclass(frozen=True)
class ExposureResult:
    """Per query (``query_ids``) and their means: the individual figures and, with groups, the
    group figures; ``samples`` per query; the settings."""

    query_ids: list
    samples: np.ndarray
    per_query: dict  # "disparity", "relevance", "loss" (and "group_…") -> array over queries
    settings: dict

    @property
    def mean(self) -> dict:
        return {name: float(values.mean()) if values.size else math.nan for name, values in self.per_query.items()}

    def to_dict(self) -> dict:
        return {"settings": dict(self.settings), "mean": self.mean, "queries": list(self.query_ids),
                "samples": self.samples.tolist(), "per_query": {k: v.tolist() for k, v in self.per_query.items()}}


def read_sampled_run(source) -> list:
    """The samples of a run file whose second field numbers them (TREC "iter"): one
    :class:`~cranfield.Run` per sample, in the order the samples first appear."""
    import pyarrow.compute as pc

    cols = read_trec_columns(source, kind="sampled run")
    sample = cols.subtopic.combine_chunks() if hasattr(cols.subtopic, "combine_chunks") else cols.subtopic
    encoded = sample.dictionary_encode()
    codes = to_numpy(encoded.indices)
    runs = []
    for k, name in enumerate(encoded.dictionary.to_pylist()):  # one Run per sample (a few hundred at most)
        rows = np.flatnonzero(codes == k)
        run = Run(pc.take(cols.qid, indices(rows)), pc.take(cols.docno, indices(rows)), cols.value[rows],
                  source=cols.source, lines=rows + 1 if cols.line is None else cols.line[rows], _trusted=True)
        run.name = f"sample {name}"
        runs.append(run)
    return runs


def plackett_luce_samples(run: Any, n_samples: int, *, seed: int = 0) -> list:
    """``n_samples`` rankings drawn from the Plackett–Luce model whose log-weights are ``run``'s
    scores (a document is picked next with probability ∝ exp(score)), by the Gumbel-max trick:
    each sample ranks score + Gumbel noise."""
    n_samples = positive_int(n_samples, "n_samples", allow_none=False)
    run = read_run(run)
    rng = np.random.default_rng(seed)
    out = []
    for k in range(n_samples):  # one Run per sample
        noisy = Run(run.qid, run.docno, run.score + rng.gumbel(size=len(run)), source=run.source, _trusted=True)
        noisy.name = f"sample {k + 1}"
        out.append(noisy)
    return out


def expected_exposure(qrels, samples, *, p: float = 0.5, model: str = "rbp", u: float = 0.5, groups=None,
                      relevance_level: int = 1) -> ExposureResult:
    """Expected-exposure figures of a stochastic ranker (see the module documentation).

    ``samples``: a sequence of runs, one sampled ranking per query each (paths, dicts, frames,
    :class:`~cranfield.Run`); ``p``: the browsing model's patience; ``model``: ``"rbp"`` or
    ``"gerr"`` (with ``u``, the chance a relevant document satisfies the user); ``groups``: a
    groups file or mapping for the group figures.

    >>> qrels = {"q1": {"a": 1, "b": 1, "c": 0}}
    >>> fair = [{"q1": {"a": 2, "b": 1, "c": 0}}, {"q1": {"b": 2, "a": 1, "c": 0}}]
    >>> round(expected_exposure(qrels, fair).mean["loss"], 6)    # the ideal: a and b share the top
    0.0
    """
    check_choice(model, "model", EXPOSURE_MODELS)
    p, u = check_fraction(p, "p"), check_fraction(u, "u")
    if isinstance(samples, (str, bytes, dict)) or not hasattr(samples, "__iter__"):
        raise UsageError("samples: expected a sequence of runs (one sampled ranking per query each)")
    lists = ranked_lists(list(samples))
    judged = read_qrels(qrels)
    q, d, grade, dictionary = _judged_codes(lists, judged)
    n_docs = max(len(dictionary), 1)
    relevant_row = _row_relevance(lists, q, d, grade, relevance_level, n_docs)
    width = n_docs
    n_q = len(lists.query_index)
    # samples per query: the distinct (sample, query) pairs
    per_sample_query = np.unique(lists.r * n_q + lists.q)
    samples_of = np.bincount(per_sample_query % n_q, minlength=n_q).astype(np.float64)
    exposure = float(p) ** (lists.rank - 1.0)
    if model == "gerr":
        exposure = exposure * (1.0 - u) ** _relevant_above(lists, relevant_row)
    key = lists.q * width + lists.d
    target_key, target = _target(q, d, grade, width, float(p), model, float(u), relevance_level)
    keys = np.union1d(key, target_key)
    eps = np.bincount(np.searchsorted(keys, key), weights=exposure, minlength=keys.size)
    eps /= samples_of[keys // width]
    star = np.zeros(keys.size)
    star[np.searchsorted(keys, target_key)] = target
    query_of = keys // width
    sampled = samples_of > 0
    judged_query = np.bincount(q, minlength=n_q) > 0
    evaluated = np.flatnonzero(sampled & judged_query)
    if evaluated.size == 0:
        raise UsageError("no query is both judged (qrels) and ranked by a sample: nothing to evaluate")
    figures = _figures(query_of, eps, star, n_q)
    per_query = {name: values[evaluated] for name, values in figures.items()}
    if groups is not None:
        relevant_keys = np.unique(q[grade >= relevance_level] * width + d[grade >= relevance_level])
        mapping = groups_from_mapping(groups) if hasattr(groups, "items") else read_groups(groups)
        per_query.update(_group_figures(mapping, dictionary, keys, eps, star, np.isin(keys, relevant_keys), width,
                                        n_q, evaluated))
        per_query["awrf"] = _awrf(mapping, dictionary, lists, exposure, q[grade >= relevance_level],
                                  d[grade >= relevance_level], samples_of)[evaluated]
    settings = {"model": model, "p": float(p), **({"u": float(u)} if model == "gerr" else {}),
                "relevance_level": int(relevance_level), "samples": len(lists.run_names)}
    return ExposureResult(lists.query_index.take(indices(evaluated)).to_pylist(), samples_of[evaluated], per_query,
                          settings)


def _judged_codes(lists, judged):
    """(query code, document code, grade, dictionary of every code) of the judged pairs of the
    sampled queries; judged documents no sample retrieves get codes after the retrieved ones."""
    import pyarrow as pa
    import pyarrow.compute as pc

    qi = pc.index_in(judged.qid, value_set=lists.query_index)
    keep = to_numpy(pc.is_valid(qi))
    q = to_numpy(pc.fill_null(qi, -1)).astype(np.int64)[keep]
    docno = pc.filter(judged.docno, pa.array(keep))
    di = pc.index_in(docno, value_set=lists.doc_dictionary)
    d = to_numpy(pc.fill_null(di, -1)).astype(np.int64)
    missing = d < 0
    dictionary = lists.doc_dictionary
    if missing.any():
        extra = pc.filter(docno, pa.array(missing)).combine_chunks().dictionary_encode()
        d[missing] = len(lists.doc_dictionary) + to_numpy(extra.indices)
        dictionary = pa.concat_arrays([lists.doc_dictionary, extra.dictionary])
    return q, d, judged.values[keep], dictionary


def _row_relevance(lists, q, d, grade, level, width) -> np.ndarray:
    """Whether each sampled row's document is judged relevant (grade ≥ level) for its query."""
    judged_key = q * width + d
    order = np.argsort(judged_key)
    row_key = lists.q * width + lists.d
    at = np.clip(np.searchsorted(judged_key[order], row_key), 0, max(order.size - 1, 0))
    found = order.size > 0
    hit = judged_key[order][at] == row_key if found else np.zeros(row_key.size, dtype=bool)
    return hit & (grade[order][at] >= level) if found else hit


def _relevant_above(lists, relevant: np.ndarray) -> np.ndarray:
    """Relevant documents ranked above each row in its (sample, query) list."""
    order = np.lexsort((lists.rank, lists.q, lists.r))
    rel = relevant[order].astype(np.int64)
    opens = np.ones(order.size, dtype=bool)
    opens[1:] = (lists.r[order][1:] != lists.r[order][:-1]) | (lists.q[order][1:] != lists.q[order][:-1])
    cum = np.cumsum(rel)
    start = np.maximum.accumulate(np.where(opens, np.arange(order.size), 0))
    before = cum - rel - (cum[start] - rel[start])
    out = np.empty(order.size, dtype=np.float64)
    out[order] = before
    return out


def _target(q, d, grade, width, p, model, u, level):
    """Keys and target exposures of the judged documents (the ideal stochastic ranker)."""
    if q.size == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    order = np.lexsort((-grade, q))  # per query, grades descending
    qs, gs = q[order], grade[order]
    new_level = np.ones(order.size, dtype=bool)
    new_level[1:] = (qs[1:] != qs[:-1]) | (gs[1:] != gs[:-1])
    new_query = np.ones(order.size, dtype=bool)
    new_query[1:] = qs[1:] != qs[:-1]
    position = np.arange(order.size) - np.maximum.accumulate(np.where(new_query, np.arange(order.size), 0))
    level_start = np.flatnonzero(new_level)
    size = np.diff(np.append(level_start, order.size))
    b = np.repeat(position[level_start], size).astype(np.float64)
    m = np.repeat(size, size).astype(np.float64)
    relevant = gs >= level
    if model == "rbp":
        value = (p ** b - p ** (b + m)) / (m * (1 - p))
    else:
        r_count = np.bincount(qs, weights=relevant.astype(np.float64), minlength=int(qs.max()) + 1)[qs]
        pp = p * (1 - u)
        value = np.where(relevant, (pp ** b - pp ** (b + m)) / (m * (1 - pp)),
                         (1 - u) ** r_count * (p ** b - p ** (b + m)) / (m * (1 - p)))
    out = np.empty(order.size)
    out[order] = value
    return q * width + d, out


def _figures(query_of, eps, star, n_q) -> dict:
    return {"disparity": np.bincount(query_of, weights=eps * eps, minlength=n_q),
            "relevance": np.bincount(query_of, weights=eps * star, minlength=n_q),
            "loss": np.bincount(query_of, weights=(eps - star) ** 2, minlength=n_q)}


def _group_figures(mapping, dictionary, keys, eps, star, relevant, width, n_q, evaluated) -> dict:
    """Group exposure per query: Σ over the relevant documents of each group (a document in
    several groups counts in each; one in no group counts in none)."""
    member_doc, member_group, n_groups = _memberships(mapping, dictionary)
    row, cell = _group_cells(keys % width, keys // width, member_doc, member_group, n_groups)
    weight = relevant[row] & (cell % n_groups != n_groups - 1)  # the group "(none)" stays empty
    exposure = np.bincount(cell, weights=eps[row] * weight, minlength=n_q * n_groups)
    target = np.bincount(cell, weights=star[row] * weight, minlength=n_q * n_groups)
    figures = _figures(np.repeat(np.arange(n_q), n_groups), exposure, target, n_q)
    return {f"group_{name}": values[evaluated] for name, values in figures.items()}


def _memberships(mapping, dictionary):
    """(document code, group code) of every membership, sorted by document, and the number of
    groups; a document with no group belongs to the extra group ``(none)``, numbered last."""
    import pyarrow as pa
    import pyarrow.compute as pc

    pair_doc = [docno for docno, names in mapping.items() for _ in names]  # the groups file's entries
    names, group = np.unique(np.array([g for gs in mapping.values() for g in gs], dtype=object).astype(str),
                             return_inverse=True)
    code = to_numpy(pc.fill_null(pc.index_in(pa.array(pair_doc, pa.string()), value_set=dictionary), -1))
    keep = code >= 0
    order = np.argsort(code[keep], kind="stable")
    return code[keep][order], group.reshape(-1)[keep][order], names.size + 1


def _group_cells(doc: np.ndarray, row_key: np.ndarray, member_doc, member_group, n_groups):
    """Each row expanded to one entry per group of its document: (row index, cell key × groups + group)."""
    lo = np.searchsorted(member_doc, doc, side="left")
    count = np.searchsorted(member_doc, doc, side="right") - lo
    none = count == 0
    count = np.where(none, 1, count)
    row = np.repeat(np.arange(doc.size), count)
    offset = np.arange(row.size) - np.repeat(np.cumsum(count) - count, count)
    at = np.minimum(lo[row] + offset, max(member_group.size - 1, 0))
    group = np.where(none[row], n_groups - 1, member_group[at] if member_group.size else 0)
    return row, row_key[row] * n_groups + group


def _awrf(mapping, dictionary, lists, attention, rel_q, rel_d, samples_of) -> np.ndarray:
    """Attention-weighted rank fairness per query: 1 − the Jensen–Shannon distance (base 2) between
    the share of attention each group gets in a sampled ranking and the groups' share among the
    query's relevant documents, averaged over the query's samples."""
    member_doc, member_group, n_groups = _memberships(mapping, dictionary)
    n_q = len(lists.query_index)
    n_cells = len(lists.run_names) * n_q
    row, cell = _group_cells(lists.d, lists.r * n_q + lists.q, member_doc, member_group, n_groups)
    got = np.bincount(cell, weights=attention[row], minlength=n_cells * n_groups).reshape(n_cells, n_groups)
    t_row, t_cell = _group_cells(rel_d, rel_q, member_doc, member_group, n_groups)
    want = np.bincount(t_cell, minlength=n_q * n_groups).reshape(n_q, n_groups).astype(np.float64)
    want[want.sum(axis=1) == 0] = 1.0  # no relevant document: the uniform target
    want /= want.sum(axis=1, keepdims=True)
    total = got.sum(axis=1, keepdims=True)
    present = total[:, 0] > 0
    share = np.divide(got, total, out=np.zeros_like(got), where=total > 0)
    target = np.tile(want, (len(lists.run_names), 1))
    middle = (share + target) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(share > 0, share * np.log2(share / middle), 0.0) + \
            np.where(target > 0, target * np.log2(target / middle), 0.0)
    fairness = 1.0 - np.sqrt(np.maximum(terms.sum(axis=1) / 2, 0.0))
    per_query = np.bincount(np.arange(n_cells) % n_q, weights=np.where(present, fairness, 0.0), minlength=n_q)
    return np.divide(per_query, samples_of, out=np.zeros(n_q), where=samples_of > 0)


def exposure_from_files(qrels, runs, *, samples: int | None = None, seed: int = 0, **options) -> ExposureResult:
    """:func:`expected_exposure` of the ranker whose samples are: the ``runs`` files (one sample
    each), one run file numbering its samples in field 2 (:func:`read_sampled_run`), or with
    ``samples``, that many Plackett–Luce draws from one run's scores (``options``: p, model, u,
    groups, relevance_level)."""
    if not runs:
        raise UsageError("expected at least one RUN")
    specs = [(path, None) for path in runs]
    if samples is not None:
        if len(runs) != 1:
            raise UsageError(f"--plackett-luce samples one RUN's scores; found {len(runs)} RUNs")
        drawn = plackett_luce_samples(next(iter(read_runs(specs).values())), samples, seed=seed)
    elif len(runs) == 1:
        drawn = read_sampled_run(runs[0])
    else:
        drawn = list(read_runs(specs).values())
    return expected_exposure(read_qrels_file(qrels), drawn, **options)
