"""Diversity and novelty measures over the intents (subtopics) of a query: NIST ndeval's set.

Diversity qrels judge each document per intent (``qid subtopic docno rel``, TREC Web track
2009–2014). A document is relevant to intent j when its judgment for j is ≥ the relevance
level (1 by default); ndeval's judgments are binary. S is the number of intents of the query
with at least one relevant document (ndeval's ``actualSubtopics``); intents never judged
relevant are ignored. c_j(i) is the number of documents above rank i relevant to intent j.
Ranks i are 0-based below; every sum is taken in rank order, and within a rank in intent order,
as ndeval does, so the values are ndeval's to the last bit (intents are ordered numerically
when every subtopic id is an integer, as ndeval's are, else byte-wise).

The gain of the document at rank i is g_i = Σ_{j relevant} (1 − α)^{c_j(i)} (novelty: each
document already seen for intent j discounts the next by 1 − α). Then, with k the cut-off::

    alpha-DCG@k  = Σ_{i<k} g_i / log2(i + 2)          / II_DCG@k
    ERR-IA@k     = Σ_{i<k} g_i / (i + 1)              / II_ERR@k
    alpha-nDCG@k = alpha-DCG@k(run) / alpha-DCG@k(ideal ranking)
    nERR-IA@k    = ERR-IA@k(run) / ERR-IA@k(ideal ranking)
    NRBP         = (1 − (1 − α)β) / S · Σ_i g_i β^i  (the whole ranking)
    nNRBP        = NRBP(run) / NRBP(ideal ranking)
    P-IA@k       = Σ_{i<k} |{j : d_i relevant to j}| / (k · S)
    strec@k      = |{j : some d_i, i < k, relevant to j}| / S          (subtopic recall)
    MAP-IA       = (1/S) Σ_j AP_j,  AP_j = Σ_{i: d_i rel. to j} (c_j(i) + 1)/(i + 1) / R_j

II (the "ideal ideal") is the same sum for a ranking in which every document is relevant to all
S intents (gains S(1 − α)^i): ndeval's collection-independent normalisation. As in ndeval it is
applied for k ≥ 2 only: ``alpha-DCG@1`` and ``ERR-IA@1`` are the raw gain of the first document
(up to S). ERR-IA so normalised is Chapelle et al.'s intent-aware ERR with stop probability α for
a relevant document, divided by the ERR-IA of the ideal-ideal ranking. The ideal ranking is
ndeval's greedy one: at each rank the judged document of largest gain given those above it,
ties to the larger docno (byte-wise); a run may beat it (computing the best ranking is
NP-hard), so alpha-nDCG, nERR-IA and nNRBP can exceed 1.

Intent weights (Agrawal et al.'s P(j | q)) multiply each intent's gain by w_j·S (1 for uniform
weights, the default, which keeps ndeval's numbers exact).

Policies: a query without relevant intents (S = 0) scores 0 on every measure (ndeval prints
``nan`` for its nNRBP, which makes its mean ``nan``). On ordinary qrels (no subtopic field) each
query has one intent (its relevant documents).

References: Clarke et al., "Novelty and diversity in information retrieval evaluation", SIGIR
2008 (α-nDCG); Agrawal et al., "Diversifying search results", WSDM 2009 (intent-aware
measures); Chapelle et al., CIKM 2009 (ERR, ERR-IA); Clarke, Kolla & Vechtomova, "An
effectiveness measure for ambiguous and underspecified queries", ICTIR 2009 (NRBP); Zhai, Cohen &
Lafferty, SIGIR 2003 (subtopic recall); NIST ndeval 4.5 (TREC Web track).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from ..errors import UsageError
from .base import Family, Param, register

__all__ = ["IntentTable", "DiversityRanking", "DIVERSITY_FAMILIES", "diversity_ranking"]

KEY = ("diversity",)  # the cache key of a view's DiversityRanking
# the families normalised by ndeval's greedy ideal ranking (IntentTable.ideal)
IDEAL_NORMALISED = frozenset({"alpha-nDCG", "nERR-IA", "nNRBP"})


@dataclass
class IntentTable:
    """Judged documents and the intents each is relevant to, per query (prepared once per qrels).

    Documents are numbered 0..n-1; document d's relevant intents are
    ``pair_intent[pair_start[d]:pair_start[d + 1]]`` in intent order. Intents are numbered by
    (query, intent order).
    """

    doc_query: np.ndarray  # int64 query of each judged document
    doc_order: np.ndarray  # int64 byte-wise rank of the docno within its query (ideal tie-break)
    pair_start: np.ndarray  # int64, n_docs + 1
    pair_intent: np.ndarray  # int64
    intent_query: np.ndarray  # int64, ascending
    intent_nrel: np.ndarray  # int64 relevant documents of each intent (R_j)
    intent_gain: np.ndarray  # float64 w_j·S (1.0 for uniform weights)
    n_queries: int
    _ideal: dict = field(default_factory=dict, repr=False)

    @property
    def n_intents(self) -> np.ndarray:
        """S of each query."""
        return np.bincount(self.intent_query, minlength=self.n_queries).astype(np.int64)

    def ideal(self, alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The positive gains of ndeval's greedy ideal ranking: (query, 0-based rank, gain),
        sorted by query then rank. Vectorised over queries: one step per rank."""
        if alpha not in self._ideal:
            self._ideal[alpha] = self._greedy(alpha)
        return self._ideal[alpha]

    def build_ideals(self, measures) -> None:
        """Build, once, the ideal rankings that ``measures`` need (one per α): before the threads."""
        for measure in measures:
            if measure.name in IDEAL_NORMALISED:
                self.ideal(measure.param("alpha"))

    def normalisers(self, alpha: float, k: int, kind: str) -> tuple[np.ndarray, np.ndarray]:
        """Per query: the ideal ranking's ``kind`` ("dcg"/"err") sum at k, normalised as ndeval
        does, and the "ideal ideal" sum II@k it is normalised by."""
        key = ("normalisers", alpha, k, kind)
        if key not in self._ideal:
            iq, it, ig = self.ideal(alpha)
            top = it < k
            ideal = np.bincount(iq[top], weights=_TERMS[kind](ig[top], it[top]), minlength=self.n_queries)
            ii = _ideal_ideal(self.n_intents, alpha, k, _TERMS[kind])
            self._ideal[key] = (_ratio(ideal, ii) if k >= 2 else ideal), ii
        return self._ideal[key]

    def _classes(self):
        """Documents with relevant intents grouped by their set of intents (hence by query):
        members of a class have the same gain at every step, bit for bit, so the greedy works
        on classes, each taking its members in docno-descending order. Returns the class pairs
        (class, intent), each class's query, the members (documents, by class then docno
        descending) and each class's first member."""
        if "classes" not in self._ideal:
            n_pairs = np.diff(self.pair_start)
            docs = np.flatnonzero(n_pairs > 0)
            lengths = n_pairs[docs]
            intents = self.pair_intent[_expand(self.pair_start[docs], lengths)]
            first_intent = np.searchsorted(self.intent_query, np.arange(self.n_queries))
            local = intents - first_intent[self.intent_query[intents]]  # intent number within its query
            widest = int(self.n_intents.max(initial=0))
            doc_q = self.doc_query[docs]
            if docs.size and widest <= 62:  # the set of intents as a bit mask: exact
                mask = np.bitwise_or.reduceat(np.left_shift(np.int64(1), local), np.cumsum(lengths) - lengths)
                if (self.n_queries << widest) < 2**62:
                    _, klass = np.unique((doc_q << widest) | mask, return_inverse=True)
                else:  # pragma: no cover - very many queries and intents
                    order = np.lexsort((mask, doc_q))
                    opens = np.ones(docs.size, dtype=bool)
                    opens[1:] = (doc_q[order][1:] != doc_q[order][:-1]) | (mask[order][1:] != mask[order][:-1])
                    klass = np.empty(docs.size, dtype=np.int64)
                    klass[order] = np.cumsum(opens) - 1
                klass = klass.reshape(-1)
            else:  # over 62 intents in a query: one class per document
                klass = np.empty(docs.size, dtype=np.int64)
                klass[np.lexsort((np.arange(docs.size), doc_q))] = np.arange(docs.size)
            n_classes = int(klass.max(initial=-1)) + 1
            members = docs[np.lexsort((-self.doc_order[docs], klass))]
            sizes = np.bincount(klass, minlength=n_classes)
            first = (np.cumsum(sizes) - sizes).astype(np.int64)
            representative = members[first]
            sizes = n_pairs[representative]
            pairs = (np.repeat(np.arange(n_classes), sizes), self.pair_intent[_expand(self.pair_start[representative],
                                                                                      sizes)])
            self._ideal["classes"] = (pairs, self.doc_query[representative], members, first)
        return self._ideal["classes"]

    def _greedy(self, alpha: float):
        """ndeval's greedy ideal ranking, all queries at once: at each step every query takes its
        document of largest gain (gains recomputed in full, in intent order, so that they are
        ndeval's to the bit), ties to the larger docno; documents with the same intents form one
        class (:meth:`_classes`). Spent classes and finished queries are masked, and dropped from
        the arrays when they make up half of them."""
        powers = _powers(1.0 - alpha, int(self.intent_nrel.max(initial=0)) + 1)
        uniform = bool((self.intent_gain == 1.0).all())
        (p_class, p_intent), c_query, members, head = self._classes()
        head = head.copy()
        end = np.append(head[1:], members.size)
        member_rank = self.doc_order[members]
        p_gain = self.intent_gain[p_intent]
        seen = np.zeros(self.intent_query.size, dtype=np.int64)
        out_q, out_t, out_g = [], [], []
        t = 0
        while c_query.size:
            opens = np.ones(c_query.size, dtype=bool)
            opens[1:] = c_query[1:] != c_query[:-1]
            starts = np.flatnonzero(opens)
            seg = np.cumsum(opens) - 1
            done = np.zeros(c_query.size, dtype=bool)  # spent classes, classes of finished queries
            alive = np.ones(starts.size, dtype=bool)  # queries still taking documents
            taken = np.zeros(c_query.size, dtype=bool)
            while alive.any() and np.count_nonzero(done) * 2 <= done.size:
                weights = powers[seen[p_intent]]
                if not uniform:
                    weights = weights * p_gain
                gain = np.bincount(p_class, weights=weights, minlength=c_query.size)
                gain[done] = -1.0
                best = np.maximum.reduceat(gain, starts)
                rank = np.where((gain == best[seg]) & ~done, member_rank[np.minimum(head, members.size - 1)], -1)
                top_rank = np.maximum.reduceat(rank, starts)
                going = alive & (best > 0)
                picked = np.flatnonzero((rank == top_rank[seg]) & going[seg] & (rank >= 0))  # one per query
                out_q.append(c_query[picked])
                out_t.append(np.full(picked.size, t, dtype=np.int64))
                out_g.append(gain[picked])
                taken[picked] = True
                seen[p_intent[taken[p_class]]] += 1  # a class lists an intent once
                taken[picked] = False
                head[picked] += 1
                done[picked[head[picked] == end[picked]]] = True
                finished = alive & ~going
                if finished.any():
                    done |= finished[seg]
                    alive = going
                t += 1
            if not alive.any():
                break
            keep = ~done
            new_index = np.cumsum(keep) - 1
            p_keep = keep[p_class]
            p_class, p_intent, p_gain = new_index[p_class[p_keep]], p_intent[p_keep], p_gain[p_keep]
            c_query, head, end = c_query[keep], head[keep], end[keep]
        q = np.concatenate(out_q) if out_q else np.zeros(0, dtype=np.int64)
        order = np.argsort(q, kind="stable")
        return (q[order], np.concatenate(out_t)[order] if out_t else q,
                np.concatenate(out_g)[order] if out_g else np.zeros(0))


@dataclass
class DiversityRanking:
    """A ranked view's documents as rows of an :class:`IntentTable`: ``codes[p]`` is the judged
    document at flat position p (-1: not judged); ``query[i]`` the table query of view query i."""

    table: IntentTable
    codes: np.ndarray
    query: np.ndarray

    def subset(self, keep: np.ndarray) -> "DiversityRanking":
        return DiversityRanking(self.table, self.codes[keep], self.query)


def diversity_ranking(view) -> DiversityRanking:
    """The view's intents: those attached by the diversity evaluator, else one intent per query
    (ordinary qrels: the relevant documents)."""
    return view.cached(KEY, lambda: _single_intent(view))


def _single_intent(view) -> DiversityRanking:
    num_rel = view.num_rel
    has = num_rel > 0
    intent_query = np.flatnonzero(has).astype(np.int64)
    n_docs = int(num_rel.sum())
    doc_query = np.repeat(np.arange(view.n_queries, dtype=np.int64), num_rel)
    first_doc = np.cumsum(num_rel) - num_rel
    intent_of_query = np.cumsum(has) - 1
    table = IntentTable(doc_query=doc_query, doc_order=np.arange(n_docs, dtype=np.int64),
                        pair_start=np.arange(n_docs + 1, dtype=np.int64), pair_intent=intent_of_query[doc_query],
                        intent_query=intent_query, intent_nrel=num_rel[has], intent_gain=np.ones(intent_query.size),
                        n_queries=view.n_queries)
    codes = np.full(view.rel.size, -1, dtype=np.int64)
    rel = view.is_rel
    codes[rel] = first_doc[view.seg[rel]] + view.cum_rel[rel] - 1  # the i-th relevant document retrieved
    return DiversityRanking(table, codes, np.arange(view.n_queries, dtype=np.int64))


# ------------------------------------------------------------------------------ shared pieces
def _powers(base: float, n: int) -> np.ndarray:
    """base^0 .. base^(n−1) by repeated multiplication (ndeval's running products)."""
    steps = np.full(max(n, 1), base, dtype=np.float64)
    steps[0] = 1.0
    return np.cumprod(steps)


def _expand(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """starts[i], starts[i]+1, …, starts[i]+lengths[i]−1, concatenated."""
    total = int(lengths.sum())
    return np.repeat(starts - (np.cumsum(lengths) - lengths), lengths) + np.arange(total, dtype=np.int64)


_DISCOUNTS = [np.zeros(0)]  # grown on demand, shared
MAX_CUTOFF = 10_000_000  # ndeval's normalisations sum k terms: beyond this, refused


def _discounts(n: int) -> np.ndarray:
    """ndeval's log(2)/log(i + 2) for i < n, with the C library's log (math.log, as ndeval.c)."""
    known = _DISCOUNTS[0]
    if known.size < n:
        log2 = math.log(2.0)
        more = [log2 / math.log(i + 2.0) for i in range(known.size, max(n, 2 * known.size))]
        _DISCOUNTS[0] = known = np.concatenate((known, np.array(more, dtype=np.float64)))
    return known[:n]


def _check_cutoff(measure) -> int:
    k = measure.cutoff
    if k > MAX_CUTOFF:
        raise UsageError(f"{measure}: the cut-off must be at most {MAX_CUTOFF:,} (ndeval's normalisation sums k terms)")
    return k


@dataclass
class _Pairs:
    """The ranked (document, intent) pairs of a view: position, query, rank, intent, c_j."""

    position: np.ndarray  # compact index of the ranked document (its rows share it)
    seg: np.ndarray  # view query of each ranked document with a pair (per compact position)
    rank: np.ndarray  # its 0-based rank
    p_position: np.ndarray  # compact position of each pair
    p_intent: np.ndarray
    p_seen: np.ndarray  # c_j: documents above it relevant to the same intent
    n_intents: np.ndarray  # S of each view query


def _pairs(view) -> _Pairs:
    def build():
        ranking = diversity_ranking(view)
        table = ranking.table
        codes = ranking.codes
        n_pairs = np.diff(table.pair_start)
        flat = np.flatnonzero(codes >= 0)
        lengths = n_pairs[codes[flat]]
        flat, lengths = flat[lengths > 0], lengths[lengths > 0]
        p_intent = table.pair_intent[_expand(table.pair_start[codes[flat]], lengths)]
        p_position = np.repeat(np.arange(flat.size, dtype=np.int64), lengths)
        order = np.argsort(p_intent, kind="stable")
        grouped = p_intent[order]
        opens = np.ones(grouped.size, dtype=bool)
        opens[1:] = grouped[1:] != grouped[:-1]
        group_start = np.flatnonzero(opens)
        seen = np.empty(grouped.size, dtype=np.int64)
        seen[order] = np.arange(grouped.size) - np.repeat(group_start, np.diff(np.append(group_start, grouped.size)))
        return _Pairs(position=flat, seg=view.seg[flat], rank=view.pos[flat], p_position=p_position,
                      p_intent=p_intent, p_seen=seen, n_intents=table.n_intents[ranking.query])

    return view.cached(("diversity-pairs",), build)


def _gains(view, alpha: float) -> np.ndarray:
    """g_i of each ranked document with a relevant intent (compact positions)."""
    def build():
        pairs = _pairs(view)
        table = diversity_ranking(view).table
        powers = _powers(1.0 - alpha, int(pairs.p_seen.max(initial=0)) + 1)
        weights = table.intent_gain[pairs.p_intent] * powers[pairs.p_seen]
        return np.bincount(pairs.p_position, weights=weights, minlength=pairs.position.size)

    return view.cached(("diversity-gains", alpha), build)


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    out = np.zeros(numerator.size, dtype=np.float64)
    ok = denominator > 0
    out[ok] = numerator[ok] / denominator[ok]
    return out


def _ideal_ideal(n_intents: np.ndarray, alpha: float, k: int, term) -> np.ndarray:
    """II@k per query: Σ_{i<k} G_i·term(i), G_0 = S, G_{i+1} = G_i(1 − α) (ndeval's loop)."""
    out = np.zeros(n_intents.size, dtype=np.float64)
    values, inverse = np.unique(n_intents, return_inverse=True)
    for index, s in enumerate(values.tolist()):  # a few distinct S: one short loop, not per query
        if s == 0:
            continue
        steps = np.full(k, 1.0 - alpha)
        steps[0] = float(s)
        out[inverse.reshape(-1) == index] = np.cumsum(term(np.cumprod(steps), np.arange(k)))[-1]
    return out


def _dcg_term(gain, rank):
    return gain * _discounts(int(rank.max(initial=-1)) + 1)[rank] if rank.size else gain


def _err_term(gain, rank):
    return gain / (rank + 1.0)


_TERMS = {"dcg": _dcg_term, "err": _err_term}


def _cumulative(view, alpha: float, k: int, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """(run, ideal) ndeval-normalised DCG or ERR sums at k per view query (shared by the
    normalised and unnormalised forms)."""

    def build():
        pairs = _pairs(view)
        top = pairs.rank < k
        terms = view.cached(("diversity-terms", kind, alpha),
                            lambda: _TERMS[kind](_gains(view, alpha), pairs.rank))
        run = np.bincount(pairs.seg[top], weights=terms[top], minlength=view.n_queries)
        ranking = diversity_ranking(view)
        ideal, ii = ranking.table.normalisers(alpha, k, kind)
        if k >= 2:  # ndeval leaves rank 1 unnormalised
            run = _ratio(run, ii[ranking.query])
        return run, ideal[ranking.query]

    return view.cached(("diversity-cumulative", kind, alpha, k), build)


# ------------------------------------------------------------------------------ kernels
def _alpha_dcg(view, measure):
    return _cumulative(view, measure.param("alpha"), _check_cutoff(measure), "dcg")[0]


def _alpha_ndcg(view, measure):
    run, ideal = _cumulative(view, measure.param("alpha"), _check_cutoff(measure), "dcg")
    return np.where(run != 0, _ratio(run, ideal), 0.0)


def _err_ia(view, measure):
    return _cumulative(view, measure.param("alpha"), _check_cutoff(measure), "err")[0]


def _nerr_ia(view, measure):
    alpha, k = measure.param("alpha"), _check_cutoff(measure)
    dcg, _ = _cumulative(view, alpha, k, "dcg")
    run, ideal = _cumulative(view, alpha, k, "err")
    return np.where(dcg != 0, _ratio(run, ideal), 0.0)


def _nrbp_sums(view, measure) -> tuple[np.ndarray, np.ndarray]:
    alpha, beta = measure.param("alpha"), measure.param("beta")
    pairs = _pairs(view)
    ranking = diversity_ranking(view)
    iq, it, ig = ranking.table.ideal(alpha)
    width = max(int(pairs.rank.max(initial=-1)), int(it.max(initial=-1))) + 1
    decay = _powers(beta, width)
    run = np.bincount(pairs.seg, weights=_gains(view, alpha) * decay[pairs.rank], minlength=view.n_queries)
    ideal = np.bincount(iq, weights=ig * decay[it], minlength=ranking.table.n_queries)[ranking.query]
    factor = _ratio(np.full(view.n_queries, 1.0 - (1.0 - alpha) * beta), pairs.n_intents.astype(np.float64))
    return run * factor, ideal * factor


def _nrbp(view, measure):
    return _nrbp_sums(view, measure)[0]


def _nnrbp(view, measure):
    run, ideal = _nrbp_sums(view, measure)
    return _ratio(run, ideal)


def _p_ia(view, measure):
    pairs = _pairs(view)
    k = measure.cutoff
    gain = diversity_ranking(view).table.intent_gain[pairs.p_intent]
    top = pairs.rank[pairs.p_position] < k
    count = np.bincount(pairs.seg[pairs.p_position[top]], weights=gain[top], minlength=view.n_queries)
    return _ratio(count, float(k) * pairs.n_intents)


def _strec(view, measure):
    pairs = _pairs(view)
    gain = diversity_ranking(view).table.intent_gain[pairs.p_intent]
    new = (pairs.p_seen == 0) & (pairs.rank[pairs.p_position] < measure.cutoff)
    covered = np.bincount(pairs.seg[pairs.p_position[new]], weights=gain[new], minlength=view.n_queries)
    return _ratio(covered, pairs.n_intents.astype(np.float64))


def _map_ia(view, measure):
    pairs = _pairs(view)
    ranking = diversity_ranking(view)
    table = ranking.table
    term = (pairs.p_seen + 1) / (pairs.rank[pairs.p_position] + 1.0)
    total = np.bincount(pairs.p_intent, weights=term, minlength=table.intent_query.size)
    ap = total / table.intent_nrel * table.intent_gain
    per_query = np.bincount(table.intent_query, weights=ap, minlength=table.n_queries)[ranking.query]
    return _ratio(per_query, pairs.n_intents.astype(np.float64))


# ------------------------------------------------------------------------------ registry
def _unit(value: float) -> str | None:
    return None if 0.0 <= value <= 1.0 else "must lie in [0, 1]"


ALPHA = Param("float", 0.5, "redundancy intolerance α: a document already seen for an intent discounts the next "
                            "by 1 − α", _unit)
BETA = Param("float", 0.5, "patience β of NRBP's rank-biased user", _unit)
_REF = "ndeval 4.5 (TREC Web track); "

DIVERSITY_FAMILIES = (
    Family("alpha-nDCG", _alpha_ndcg, "α-nDCG@k: novelty-discounted gain Σ g_i/log2(i+2), g_i = Σ_j (1−α)^{c_j(i)}, "
           "over the greedy ideal ranking's", _REF + "Clarke et al., SIGIR 2008", params={"alpha": ALPHA},
           cutoff="required", aliases=("alpha_nDCG",), bounds=(0.0, None)),
    Family("alpha-DCG", _alpha_dcg, "α-DCG@k over the 'ideal ideal' α-DCG@k (every document relevant to every "
           "intent); unnormalised at k = 1", _REF + "Clarke et al., SIGIR 2008", params={"alpha": ALPHA},
           cutoff="required", aliases=("alpha_DCG",), bounds=(0.0, None)),
    Family("ERR-IA", _err_ia, "Intent-aware ERR@k Σ g_i/(i+1), stop probability α, over the 'ideal ideal' "
           "ERR-IA@k; unnormalised at k = 1", _REF + "Chapelle et al., CIKM 2009; Agrawal et al., WSDM 2009",
           params={"alpha": ALPHA}, cutoff="required", aliases=("ERR_IA",), bounds=(0.0, None)),
    Family("nERR-IA", _nerr_ia, "ERR-IA@k over the greedy ideal ranking's ERR-IA@k",
           _REF + "Chapelle et al., CIKM 2009", params={"alpha": ALPHA}, cutoff="required", aliases=("nERR_IA",),
           bounds=(0.0, None)),
    Family("NRBP", _nrbp, "Novelty- and rank-biased precision (1 − (1−α)β)/S · Σ_i g_i β^i",
           _REF + "Clarke, Kolla & Vechtomova, ICTIR 2009", params={"alpha": ALPHA, "beta": BETA}),
    Family("nNRBP", _nnrbp, "NRBP over the greedy ideal ranking's NRBP", _REF + "Clarke et al., ICTIR 2009",
           params={"alpha": ALPHA, "beta": BETA}, bounds=(0.0, None)),
    Family("P-IA", _p_ia, "Intent-aware precision@k: (1/S) Σ_j P_j@k", _REF + "Agrawal et al., WSDM 2009",
           cutoff="required", aliases=("P_IA",)),
    Family("strec", _strec, "Subtopic recall@k: share of the S intents covered by the top k",
           _REF + "Zhai, Cohen & Lafferty, SIGIR 2003", cutoff="required",
           aliases=("S-recall", "S_recall", "StRecall")),
    Family("MAP-IA", _map_ia, "Intent-aware average precision: (1/S) Σ_j AP_j", _REF + "Agrawal et al., WSDM 2009",
           aliases=("AP-IA", "AP_IA", "MAP_IA")),
)

# Their kernels read the ranked lists with the intents' judgments (diversity qrels).
DIVERSITY_FAMILIES = tuple(replace(f, data="ranked lists with intent judgments") for f in DIVERSITY_FAMILIES)
for _family in DIVERSITY_FAMILIES:
    register(_family)
