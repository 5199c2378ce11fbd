"""Model judges against people: how far can relevance judgments made by a model (an LLM, a
classifier, a cheaper assessor) be trusted, and do they change the conclusions?

:func:`judge_agreement` compares a model's qrels with people's qrels of the same pairs:

* **agreement** — :func:`cranfield.judgments.agreement.assessor_agreement` between the two sets
  (percentage agreement, Cohen's κ unweighted / linear / quadratic, Krippendorff's α nominal /
  ordinal / interval, overlap of the relevant sets), pooled, per query and with bootstrap
  intervals over queries;
* **grade confusion** — the table of counts, human grade × model grade, over the pairs both judged;
* **leniency** — the mean grade shift (model − human) over those pairs, and per human grade the
  share of pairs the model grades lower, the same and higher (a lenient judge: positive shift, a
  large "higher" share for low grades);
* **system-ranking stability** (given runs) — every run evaluated with ``measure`` under each set
  of judgments, over the queries both sets judge (``complete``: a query a run lacks scores 0);
  the mean per run ranks the systems; Kendall's τ-b and τ_AP (human ranking as reference, NaN when
  ties make it undefined) between the two rankings, the number of discordant system pairs, the
  number of those that involve a system of the human top ``top_k``, and how many of the human top
  ``top_k`` systems leave the model's top ``top_k``; each with a percentile bootstrap interval over
  queries (``n_resamples`` resamples, queries drawn with replacement; one matrix product per
  chunk of resamples, τ vectorised over resamples).

:func:`merge_judgments` builds the qrels people would use: every human judgment, and the model's
judgment for the pairs no person judged (``policy="human-first"``), or the model's everywhere it
judged (``"model-first"``).

References: E. M. Voorhees (2000), "Variations in relevance judgments and the measurement of
retrieval effectiveness", IP&M 36(5); P. Thomas, S. Spielman, N. Craswell & B. Mitra (2024),
"Large language models can accurately predict searcher preferences", SIGIR; S. Upadhyay et al.
(2024), "UMBRELA: UMbrela is the (open-source reproduction of the) Bing RELevance Assessor";
E. Yilmaz, J. A. Aslam & S. Robertson (2008), "A new rank correlation coefficient for information
retrieval", SIGIR (τ_AP).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._params import check_choice
from ..errors import UsageError
from ..retrieval.evaluate import Evaluator
from ..retrieval.qrels import Qrels, read_qrels
from ..retrieval.run import read_run
from ..stats._resample import as_generator, bootstrap_counts, check_count
from .agreement import Agreement, _aligned, assessor_agreement

__all__ = ["judge_agreement", "JudgeAgreement", "RankingStability", "merge_judgments", "MERGE_POLICIES"]

MERGE_POLICIES = ("human-first", "model-first")


@dataclass(frozen=True)
class RankingStability:
    """The two system rankings and how they differ; each figure with its bootstrap interval."""

    runs: list
    measure: str
    human_scores: np.ndarray
    model_scores: np.ndarray
    figures: dict  # name -> (value, low, high)
    top_k: int
    queries: int

    def to_dict(self) -> dict:
        return {"measure": self.measure, "runs": list(self.runs), "queries": self.queries, "top_k": self.top_k,
                "human_scores": [float(v) for v in self.human_scores],
                "model_scores": [float(v) for v in self.model_scores],
                "figures": {k: {"value": _num(v), "ci_low": _num(lo), "ci_high": _num(hi)}
                            for k, (v, lo, hi) in self.figures.items()}}


@dataclass(frozen=True)
class JudgeAgreement:
    """Result of :func:`judge_agreement`."""

    agreement: Agreement
    grades: list
    confusion: np.ndarray  # human grade (rows) × model grade (columns)
    mean_shift: float
    grade_rates: dict  # human grade -> {"pairs", "lower", "same", "higher"}
    ranking: RankingStability | None
    settings: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"settings": dict(self.settings), "grades": list(self.grades),
                "confusion": self.confusion.tolist(), "mean_shift": _num(self.mean_shift),
                "grade_rates": {str(g): {k: _num(v) for k, v in r.items()} for g, r in self.grade_rates.items()},
                "agreement": self.agreement.to_dict(),
                "ranking": self.ranking.to_dict() if self.ranking is not None else None}


def _num(x):
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else (int(x) if isinstance(x, (int, np.integer))
                                                                              else float(x))


def judge_agreement(human, model, runs=(), *, measure: str = "AP", relevance_level: int = 1, top_k: int = 5,
                    n_resamples: int = 1000, confidence: float = 0.95, random_state=0) -> JudgeAgreement:
    """Compare a model's judgments with people's (see the module documentation).

    ``human``, ``model``: qrels (paths, ``{qid: {docno: rel}}`` dicts, frames or :class:`Qrels`);
    ``runs``: runs to rank under both (none, or at least two); ``measure`` ranks them;
    ``top_k``: the head of the ranking watched for changes. Bootstrap: ``n_resamples`` (0: no
    intervals), ``confidence``, ``random_state``.

    >>> human = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d1": 0, "d4": 1}}
    >>> model = {"q1": {"d1": 2, "d2": 1, "d3": 1}, "q2": {"d1": 1, "d4": 1}}
    >>> j = judge_agreement(human, model, n_resamples=0)
    >>> j.mean_shift, j.grade_rates[0]["higher"]
    (0.4, 1.0)
    """
    n_resamples = check_count(n_resamples, "n_resamples", minimum=0)
    top_k = check_count(top_k, "top_k", minimum=1)
    human_q, model_q = read_qrels(human), read_qrels(model)
    agreement = assessor_agreement([human_q, model_q], names=["human", "model"], relevance_level=relevance_level,
                                   n_resamples=n_resamples, confidence=confidence, random_state=random_state)
    labels, _, _, _ = _aligned([human_q, model_q], "intersect")
    grades = np.unique(labels)
    code = np.searchsorted(grades, labels)
    k = grades.size
    confusion = np.bincount(code[:, 0] * k + code[:, 1], minlength=k * k).reshape(k, k)
    shift = (labels[:, 1] - labels[:, 0]).astype(np.float64)
    rates = {}
    for i, grade in enumerate(grades.tolist()):  # one entry per grade of the scale
        row = confusion[i]
        n = int(row.sum())
        rates[grade] = {"pairs": n, "lower": float(row[:i].sum() / n) if n else None,  # None: no such pair
                        "same": float(row[i] / n) if n else None,
                        "higher": float(row[i + 1:].sum() / n) if n else None}
    runs = list(runs)
    if len(runs) == 1:
        raise UsageError("runs: ranking systems needs at least two runs, found 1")
    ranking = _stability(human_q, model_q, runs, measure, relevance_level, top_k, n_resamples, confidence,
                         random_state) if runs else None
    settings = {"measure": measure, "relevance_level": relevance_level, "top_k": top_k, "resamples": n_resamples,
                "confidence": confidence, "seed": random_state, "pairs": int(labels.shape[0])}
    return JudgeAgreement(agreement, grades.tolist(), confusion, float(shift.mean()) if shift.size else math.nan,
                          rates, ranking, settings)


def _per_query(qrels: Qrels, runs: list, measure: str, relevance_level: int, qids: list) -> tuple[np.ndarray, str]:
    """(runs × queries) scores of ``measure`` over ``qids`` (a query a run lacks scores 0)."""
    evaluator = Evaluator(qrels, [measure], relevance_level=relevance_level, complete=True)
    out = np.zeros((len(runs), len(qids)))
    label = measure
    for i, run in enumerate(runs):  # one evaluation per run; the queries are columns
        result = evaluator.evaluate(run)
        label = result.names[0]
        values = result.per_query[label].to_dict()
        out[i] = [values.get(q, 0.0) for q in qids]
    return out, label


def _stability(human, model, runs, measure, relevance_level, top_k, n_resamples, confidence, seed) -> RankingStability:
    runs = [read_run(r) for r in runs]
    names = [r.name or f"run{i + 1}" for i, r in enumerate(runs)]
    if len(set(names)) < len(names):
        names = [f"{n}#{i + 1}" for i, n in enumerate(names)]
    qids = sorted(set(human.query_ids) & set(model.query_ids), key=lambda q: q.encode())
    if not qids:
        raise UsageError("human and model judgments share no query: nothing to rank the systems on")
    h, label = _per_query(human, runs, measure, relevance_level, qids)
    m, _ = _per_query(model, runs, measure, relevance_level, qids)
    n_q = len(qids)
    point = _ranking_figures(h.mean(axis=1)[None], m.mean(axis=1)[None], top_k)
    figures = {name: (float(values[0]), math.nan, math.nan) for name, values in point.items()}
    if n_resamples:
        rng = as_generator(seed)
        parts = {name: [] for name in point}
        for counts in bootstrap_counts(n_q, n_resamples, rng):  # chunks of resamples: one product each
            chunk = _ranking_figures(counts @ h.T / n_q, counts @ m.T / n_q, top_k)
            for name in parts:
                parts[name].append(chunk[name])
        alpha = 1 - confidence
        for name, values in parts.items():
            v = np.concatenate(values)
            v = v[~np.isnan(v)]
            low, high = np.quantile(v, [alpha / 2, 1 - alpha / 2]) if v.size else (math.nan, math.nan)
            figures[name] = (figures[name][0], float(low), float(high))
    return RankingStability(names, label, h.mean(axis=1), m.mean(axis=1), figures, top_k, n_q)


def _ranking_figures(a: np.ndarray, b: np.ndarray, top_k: int) -> dict:
    """Per row (a resample): τ-b, τ_AP (a the reference), discordant pairs, discordant pairs with a
    system of a's top k, and a's top-k systems missing from b's top k. ``a``, ``b``: (rows, systems)."""
    n = a.shape[1]
    sa = np.sign(a[:, :, None] - a[:, None, :])
    sb = np.sign(b[:, :, None] - b[:, None, :])
    upper = np.triu(np.ones((n, n), dtype=bool), 1)
    prod = (sa * sb)[:, upper]
    concordant, discordant = (prod > 0).sum(axis=1), (prod < 0).sum(axis=1)
    pairs = n * (n - 1) / 2
    ties_a, ties_b = (sa[:, upper] == 0).sum(axis=1), (sb[:, upper] == 0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = (concordant - discordant) / np.sqrt((pairs - ties_a) * (pairs - ties_b))
    # τ_AP of b's ranking against a's: order by b; C(i) = items above i in b that a also ranks above i
    order = np.argsort(-b, axis=1, kind="stable")
    a_in_b_order = np.take_along_axis(a, order, axis=1)
    above = a_in_b_order[:, :, None] < a_in_b_order[:, None, :]  # [r, i, j]: a ranks j above i
    before = np.tril(np.ones((n, n), dtype=bool), -1)  # j placed before i by b
    c = (above & before).sum(axis=2)[:, 1:]
    with np.errstate(invalid="ignore", divide="ignore"):
        tap = 2.0 / (n - 1) * (c / np.arange(1, n)).sum(axis=1) - 1.0
    tap = np.where((ties_a > 0) | (ties_b > 0), np.nan, tap)
    k = min(top_k, n)
    rank_a = np.argsort(np.argsort(-a, axis=1, kind="stable"), axis=1)
    rank_b = np.argsort(np.argsort(-b, axis=1, kind="stable"), axis=1)
    top_a, top_b = rank_a < k, rank_b < k
    head = (top_a[:, :, None] | top_a[:, None, :])[:, upper]
    return {"kendall_tau": tau, "tau_ap": tap, "discordant_pairs": discordant.astype(np.float64),
            "top_k_discordant_pairs": ((prod < 0) & head).sum(axis=1).astype(np.float64),
            "top_k_changes": (top_a & ~top_b).sum(axis=1).astype(np.float64)}


def merge_judgments(human, model, *, policy: str = "human-first") -> Qrels:
    """Qrels from both sets: with ``"human-first"`` every human judgment, and the model's for the
    pairs no person judged; with ``"model-first"`` the reverse. Rows come out in query order."""
    check_choice(policy, "policy", MERGE_POLICIES)
    import pyarrow as pa
    import pyarrow.compute as pc

    first, second = (read_qrels(human), read_qrels(model))
    if policy == "model-first":
        first, second = second, first
    keys = [pc.binary_join_element_wise(q.qid, q.docno, "\x00") for q in (first, second)]
    new = pc.invert(pc.is_in(keys[1], value_set=keys[0].combine_chunks() if len(first) else pa.array([], pa.string())))
    qid = pa.chunked_array(first.qid.chunks + second.qid.filter(new).chunks, pa.string())
    docno = pa.chunked_array(first.docno.chunks + second.docno.filter(new).chunks, pa.string())
    values = np.concatenate([first.values, second.values[np.asarray(new, dtype=bool)]])
    table = pa.table({"qid": qid, "docno": docno, "rel": values})
    table = table.take(pc.sort_indices(table, sort_keys=[("qid", "ascending"), ("docno", "ascending")]))
    return Qrels(table.column("qid"), table.column("docno"), table.column("rel").to_numpy(), source="merged judgments")
