"""Diversity qrels (``qid subtopic docno rel``) and their evaluation: ndeval's measures, and any
other measure on the document-level judgments.

The file grammar is the TREC qrels grammar with its 2nd field kept as the subtopic (intent) id
(:data:`cranfield.io.trec_grammar.DIVERSITY_QRELS`); a (query, subtopic, document) judged twice
is an error naming both lines. Documents are ranked by trec_eval's rule (score descending, then
docno descending): ndeval's ``-traditional`` order.

Ordinary measures (AP, nDCG@10, …) see one judgment per document: its highest judgment over
the subtopics (ndeval's "relevant to any subtopic"). Diversity measures (see
:mod:`cranfield.measures.diversity`) see the intents.

>>> qrels = DiversityQrels.from_dict({"q1": {"1": {"d1": 1, "d2": 0}, "2": {"d2": 1}}})
>>> r = evaluate_diversity(qrels, {"q1": {"d1": 2.0, "d2": 1.0}}, ["strec@1", "P-IA@2", "alpha-nDCG@2"])
>>> r.mean["strec@1"], r.mean["P-IA@2"], r.mean["alpha-nDCG@2"]
(0.5, 0.5, 1.0)
"""

from __future__ import annotations

import math
import os
from typing import Mapping, Sequence

import numpy as np

from .._params import check_count, check_flag, check_probability, usage_error
from .._arrow import indices as _indices_array
from .._arrow import to_numpy as _np
from ..errors import InputError, UsageError
from ..io.trec import read_trec_columns
from ..io.trec_grammar import check_dialect
from ..io.values import id_column, nested_columns, value_column
from ..measures.base import Measure, parse_measure
from ..measures.diversity import KEY, DiversityRanking, IntentTable
from ._columns import columns_from_frame, to_chunked_strings
from ._table import TrecTable
from .evaluate import Evaluator, evaluate_runs, mapped_columns
from .qrels import Qrels
from .ranked import RankedView, _indices, check_relevance_level, prepare_qrels
from .run import read_run

__all__ = ["DiversityQrels", "read_diversity_qrels", "DiversityEvaluator", "evaluate_diversity", "NDEVAL_MEASURES"]

#: what ndeval prints, in its order
NDEVAL_MEASURES = ("ERR-IA@5", "ERR-IA@10", "ERR-IA@20", "nERR-IA@5", "nERR-IA@10", "nERR-IA@20",
                   "alpha-DCG@5", "alpha-DCG@10", "alpha-DCG@20", "alpha-nDCG@5", "alpha-nDCG@10", "alpha-nDCG@20",
                   "NRBP", "nNRBP", "MAP-IA", "P-IA@5", "P-IA@10", "P-IA@20", "strec@5", "strec@10", "strec@20")


class DiversityQrels(TrecTable):
    """Judgments per intent: columns ``qid``, ``subtopic``, ``docno`` (Arrow strings) and ``rel``."""

    value_field = "rel"
    value_dtype = np.int64
    default_source = "diversity qrels"

    @property
    def evaluator_class(self):
        """The evaluator :func:`~cranfield.retrieval.evaluate.evaluate` builds for these qrels."""
        return DiversityEvaluator

    def __init__(self, qid, subtopic, docno, rel, *, source: str | None = None, lines: np.ndarray | None = None,
                 _trusted: bool = False) -> None:
        super().__init__(qid, docno, rel, source=source, lines=lines, _trusted=_trusted)
        self.subtopic = to_chunked_strings(subtopic, source=self.source, field="subtopic", trusted=_trusted)
        if len(self.subtopic) != len(self.values):
            raise InputError(f"columns of different lengths: qid {len(self.qid)}, subtopic {len(self.subtopic)}",
                             source=self.source)

    @property
    def rel(self) -> np.ndarray:
        return self.values

    def slice(self, start: int, stop: int):  # pragma: no cover - not used on diversity qrels
        raise UsageError("diversity qrels cannot be sliced")

    @classmethod
    def from_file(cls, path: "str | os.PathLike", *, dialect: str = "cranfield") -> "DiversityQrels":
        """Read ``qid subtopic docno rel`` lines (plain, .gz, or '-' for standard input); the TREC
        qrels grammar and dialects (:mod:`cranfield.io.trec_grammar`)."""
        check_dialect(dialect)
        if isinstance(path, (str, os.PathLike)) and "\0" in str(os.fspath(path)):
            raise InputError("a file name cannot contain a NUL character", source=repr(os.fspath(path)))
        cols = read_trec_columns(path, kind="diversity qrels", dialect=dialect)
        return cls(cols.qid, cols.subtopic, cols.docno, cols.value, source=cols.source, lines=cols.line, _trusted=True)

    @classmethod
    def from_dict(cls, mapping: dict, *, name: str | None = None) -> "DiversityQrels":
        """From ``{qid: {subtopic: {docno: rel}}}``."""
        source = "diversity qrels dict"
        if not isinstance(mapping, dict):
            raise InputError(f"expected a dict {{qid: {{subtopic: {{docno: rel}}}}}}, found {type(mapping).__name__}",
                             source=source)
        *keys, rels = nested_columns(mapping, ("query", "subtopic", "docno"), "rel", source=source)
        columns = [*keys, rels]

        def where(index: int) -> str:
            return f"query {columns[0][index]!r}, subtopic {columns[1][index]!r}, document {columns[2][index]!r}: "

        ids = [id_column(columns[j], source=source, field=f, where=where)
               for j, f in ((0, "qid"), (1, "subtopic"), (2, "docno"))]
        rel = value_column(list(columns[3]), kind="qrels", source=source, field="rel", where=where)
        return cls(ids[0], ids[1], ids[2], rel, source=source)

    @classmethod
    def from_frame(cls, frame, *, qid: str = "qid", subtopic: str = "subtopic", docno: str = "docno",
                   rel: str = "rel", name: str | None = None) -> "DiversityQrels":
        """From a pandas or polars DataFrame or an Arrow table (column names are options)."""
        source = "diversity qrels frame"
        cols = columns_from_frame(frame, {"qid": qid, "subtopic": subtopic, "docno": docno, "rel": rel},
                                  source=source)
        return cls(cols["qid"], cols["subtopic"], cols["docno"], _np(cols["rel"]), source=source)

    def to_trec(self, path: "str | os.PathLike") -> None:
        """Write as ``qid subtopic docno rel`` lines, atomically."""
        self._write_lines(path, (f"{q} {s} {d} {r}\n" for q, s, d, r in
                                 zip(self.qid.to_pylist(), self.subtopic.to_pylist(), self.docno.to_pylist(),
                                     self.values.tolist())))

    def to_arrow(self):
        import pyarrow as pa

        return pa.table({"qid": self.qid, "subtopic": self.subtopic, "docno": self.docno, "rel": self.values})


def read_diversity_qrels(source, *, dialect: str = "cranfield") -> DiversityQrels:
    """Diversity qrels from a file path or '-', a ``{qid: {subtopic: {docno: rel}}}`` dict, a
    DataFrame / Arrow table with columns qid, subtopic, docno, rel, or a :class:`DiversityQrels`."""
    check_dialect(dialect)
    if isinstance(source, DiversityQrels):
        return source
    if isinstance(source, dict):
        return DiversityQrels.from_dict(source)
    if isinstance(source, (str, os.PathLike)):
        return DiversityQrels.from_file(source, dialect=dialect)
    if isinstance(source, (bytes, int, float, list, tuple, set)) or source is None:
        raise UsageError(f"diversity qrels: expected a path, a dict, a DataFrame or DiversityQrels, found "
                         f"{type(source).__name__}")
    return DiversityQrels.from_frame(source)


# ------------------------------------------------------------------------------ preparation
def _sorted_codes(array):
    """(code of each row, dictionary) with codes ranking the distinct values byte-wise."""
    import pyarrow.compute as pc

    encoded = array.dictionary_encode()
    chunks = [c for c in encoded.chunks]
    dictionary = chunks[0].dictionary if chunks else None
    if dictionary is None:
        return np.zeros(0, dtype=np.int64), None
    order = _np(pc.sort_indices(dictionary))
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    return rank[_indices(encoded)], dictionary.take(_indices_array(order))


def _intent_order(dictionary) -> np.ndarray:
    """Rank of each (byte-wise sorted) subtopic id in intent order: numeric when every id is a
    decimal integer (ndeval's subtopics are numbers), else byte-wise."""
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(dictionary)
    if n and pc.all(pc.match_substring_regex(dictionary, r"^[0-9]{1,18}$")).as_py():
        numbers = _np(pc.cast(dictionary, pa.int64()))
        order = np.lexsort((np.arange(n), numbers))
        rank = np.empty(n, dtype=np.int64)
        rank[order] = np.arange(n)
        return rank
    return np.arange(n, dtype=np.int64)


class _Prepared:
    """Diversity qrels encoded once: the document-level qrels, the intent table, and the
    judged documents numbered for the ranking join."""

    def __init__(self, qrels: DiversityQrels, relevance_level: int, weights) -> None:
        if len(qrels) == 0:
            raise InputError("no judgments", source=qrels.source)
        q, query_ids = _sorted_codes(qrels.qid)
        d, docnos = _sorted_codes(qrels.docno)
        s, subtopics = _sorted_codes(qrels.subtopic)
        s = _intent_order(subtopics)[s]
        n_d, n_s = len(docnos), len(subtopics)
        if len(query_ids) * n_d * n_s < 2**62:  # one int64 key: one sort instead of three
            order = np.argsort((q * n_d + d) * n_s + s, kind="stable")
        else:  # pragma: no cover - astronomically many ids
            order = np.lexsort((s, d, q))
        q, d, s, rel = q[order], d[order], s[order], qrels.rel[order]
        same_doc = (q[1:] == q[:-1]) & (d[1:] == d[:-1])
        repeated = np.flatnonzero(same_doc & (s[1:] == s[:-1]))
        if repeated.size:
            i, j = sorted((int(order[repeated[0]]), int(order[repeated[0] + 1])))
            raise InputError(f"duplicate judgment for query {qrels.qid[i].as_py()!r}, subtopic "
                             f"{qrels.subtopic[i].as_py()!r}, document {qrels.docno[i].as_py()!r} (also on line "
                             f"{qrels.line_of(i)})", source=qrels.source, line=qrels.line_of(j), field="subtopic")
        doc_opens = np.concatenate(([True], ~same_doc))
        doc_starts = np.flatnonzero(doc_opens)
        doc_of_row = np.cumsum(doc_opens) - 1
        n_docs = doc_starts.size
        doc_rel = np.maximum.reduceat(rel, doc_starts) if rel.size else rel
        doc_query = q[doc_starts]
        relevant = rel >= relevance_level
        rq, rs = q[relevant], s[relevant]
        flat = rq * n_s + rs
        if len(query_ids) * n_s <= 4 * flat.size + 1024:  # intents numbered by counting, not sorting
            present = np.zeros(len(query_ids) * n_s, dtype=bool)
            present[flat] = True
            pair_intent = (np.cumsum(present) - 1)[flat].astype(np.int64)
            n_intents = int(np.count_nonzero(present))
        else:
            keys, inverse = np.unique(flat, return_inverse=True)
            pair_intent, n_intents = inverse.reshape(-1).astype(np.int64), keys.size
        intent_query = np.zeros(n_intents, dtype=np.int64)
        intent_query[pair_intent] = rq
        intent_subtopic = np.zeros(n_intents, dtype=np.int64)
        intent_subtopic[pair_intent] = order[relevant]  # a row of each intent, for its subtopic id
        counts = np.bincount(doc_of_row[relevant], minlength=n_docs)
        self.query_ids = np.asarray(query_ids.to_pylist(), dtype=object)
        gain = np.ones(n_intents)
        if weights is not None:
            gain = _intent_gains(weights, qrels, self.query_ids, intent_query, intent_subtopic)
        self.table = IntentTable(doc_query=doc_query, doc_order=d[doc_starts],
                                 pair_start=np.concatenate(([0], np.cumsum(counts))).astype(np.int64),
                                 pair_intent=pair_intent, intent_query=intent_query,
                                 intent_nrel=np.bincount(pair_intent, minlength=n_intents).astype(np.int64),
                                 intent_gain=gain, n_queries=len(query_ids))
        self.doc_rel = doc_rel
        first_row = order[doc_starts]
        self.documents = Qrels(query_ids.take(_indices_array(doc_query)), docnos.take(_indices_array(d[doc_starts])),
                               doc_rel, source=qrels.source, lines=np.asarray(qrels.lines)[first_row], _trusted=True)

    def numbered(self, documents_prepared):
        """The judged documents with their number as 'relevance': the ranking join then gives
        each ranked document's number. Level counts are the document-level ones."""
        codes = Qrels(self.documents.qid, self.documents.docno, np.arange(len(self.documents), dtype=np.int64),
                      source=self.documents.source, lines=self.documents.lines, _trusted=True)
        prepared = prepare_qrels(codes)
        prepared._exact["levels"] = documents_prepared.judged_levels()  # seeded: the documents' levels
        prepared._exact["counts"] = documents_prepared.level_counts()
        return prepared


def _intent_gains(weights, qrels: DiversityQrels, query_ids, intent_query, intent_subtopic) -> np.ndarray:
    """w_j·S per intent from ``{qid: {subtopic: weight}}`` (weights of a query normalised to sum 1
    over its intents with relevant documents; a query not listed: uniform)."""
    source = "intent weights"
    if not isinstance(weights, Mapping):
        raise UsageError(f"intent_weights: expected a dict {{qid: {{subtopic: weight}}}}, found {type(weights).__name__}")
    known: dict[str, set] = {}
    for qid, subtopic in zip(qrels.qid.to_pylist(), qrels.subtopic.to_pylist()):
        known.setdefault(qid, set()).add(subtopic)
    gain = np.ones(intent_query.size)
    subtopic_of_intent = [qrels.subtopic[int(i)].as_py() for i in intent_subtopic]
    for qid, table in weights.items():
        if qid not in known:
            raise InputError(f"query {qid!r} is not in the diversity qrels", source=source, field="qid")
        if not isinstance(table, Mapping):
            raise InputError(f"query {qid!r}: expected a dict {{subtopic: weight}}, found {type(table).__name__}",
                             source=source)
        for subtopic, weight in table.items():
            if str(subtopic) not in known[qid]:
                raise InputError(f"query {qid!r}: unknown subtopic {subtopic!r} (the qrels judge subtopics "
                                 f"{', '.join(sorted(known[qid]))})", source=source, field="subtopic")
            if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not math.isfinite(weight) \
                    or weight < 0:
                raise InputError(f"query {qid!r}, subtopic {subtopic!r}: expected a finite weight ≥ 0, found "
                                 f"{weight!r}", source=source, field="weight")
        q = int(np.searchsorted(query_ids, qid))
        mine = np.flatnonzero(intent_query == q)
        given = {str(k): float(v) for k, v in table.items()}
        missing = [subtopic_of_intent[i] for i in mine if subtopic_of_intent[i] not in given]
        if missing:
            raise InputError(f"query {qid!r}: no weight for subtopic {missing[0]!r}", source=source, field="subtopic")
        w = np.array([given[subtopic_of_intent[i]] for i in mine])
        if mine.size and w.sum() <= 0:
            raise InputError(f"query {qid!r}: the weights of its relevant subtopics sum to 0", source=source,
                             field="weight")
        gain[mine] = w * mine.size / w.sum()  # equal weights give exactly 1 (ndeval's numbers)
    return gain


# ------------------------------------------------------------------------------ evaluation
class DiversityEvaluator(Evaluator):
    """An :class:`~cranfield.Evaluator` over diversity qrels: ndeval's measures (by default) and
    any other measure, on the document-level judgments. ``intent_weights``:
    ``{qid: {subtopic: weight}}`` (default: uniform, ndeval's)."""

    def __init__(self, qrels, measures: "Sequence[str | Measure] | str" = NDEVAL_MEASURES, *,
                 relevance_level: int = 1, complete: bool = False, max_results: int | None = None,
                 judged_only: bool = False, collection_size: int | None = None, aggregate: str = "macro",
                 intent_weights: "Mapping | None" = None, ignore_self: bool = False, propensities=None) -> None:
        if isinstance(relevance_level, bool) or not isinstance(relevance_level, (int, np.integer)):
            raise usage_error("relevance_level", "an integer", relevance_level)
        check_relevance_level(relevance_level)
        self.diversity_qrels = read_diversity_qrels(qrels)
        prepared = _Prepared(self.diversity_qrels, int(relevance_level), intent_weights)
        super().__init__(prepared.documents, measures, relevance_level=relevance_level, complete=complete,
                         max_results=max_results, judged_only=judged_only, collection_size=collection_size,
                         aggregate=aggregate, ignore_self=ignore_self, propensities=propensities)
        self.intents = prepared.table
        self._doc_rel = prepared.doc_rel
        self._query_ids = prepared.query_ids
        self._prepared = prepared.numbered(self._prepared)

    def warm(self) -> None:
        """Build the shared indexes and the ideal rankings before any evaluation."""
        super().warm()
        self._ideals()

    def _ideals(self) -> None:
        """The greedy ideal rankings the measures need (one per α), built once, before the threads."""
        self.intents.build_ideals(self.measures)

    def evaluate(self, run, *, name: str | None = None, threads: int | None = None, extras=None):
        """:meth:`Evaluator.evaluate <cranfield.Evaluator.evaluate>`, the ideal rankings built first."""
        self._ideals()
        return super().evaluate(run, name=name, threads=threads, extras=extras)

    def view(self, run) -> RankedView:
        return self._with_intents(super().view(run))

    def results_from_view(self, view: RankedView, run_name: str, measures, *, extras=None):
        return super().results_from_view(self._with_intents(view), run_name, measures, extras=extras)

    def _with_intents(self, view: RankedView) -> RankedView:
        """The view of document numbers -> the document-level view, the intents attached."""
        if KEY in view._cache:
            return view
        codes = view.rel
        rel = np.where(codes >= 0, self._doc_rel[np.maximum(codes, 0)], codes)
        rel = np.where((codes >= 0) & (rel < 0), -2, rel)  # judged, but only by negative judgments: UNJUDGED
        offsets, propensity = view.offsets, view.propensity
        if self.options["judged_only"] and (rel < 0).any():
            keep = rel >= 0
            codes, rel = codes[keep], rel[keep]
            propensity = propensity if propensity is None else propensity[keep]
            counts = np.bincount(view.seg[keep], minlength=view.n_queries)
            offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        out = RankedView(query_ids=view.query_ids, offsets=offsets, rel=rel, level_values=view.level_values,
                         level_counts=view.level_counts, relevance_level=view.relevance_level, in_run=view.in_run,
                         collection_size=view.collection_size, propensity=propensity)
        query = np.searchsorted(self._query_ids, view.query_ids).astype(np.int64)
        out._cache[KEY] = DiversityRanking(self.intents, codes, query)
        return out


def evaluate_diversity(qrels, run, measures: "Sequence[str | Measure] | str" = NDEVAL_MEASURES, *,
                       relevance_level: int = 1, complete: bool = False, max_results: int | None = None,
                       judged_only: bool = False, aggregate: str = "macro", intent_weights: "Mapping | None" = None,
                       run_columns: "dict[str, str] | None" = None, dialect: str = "cranfield"):
    """Evaluate one run against diversity qrels (``qid subtopic docno rel``): per-query values and
    means, by default of ndeval's measures (:data:`NDEVAL_MEASURES`).

    ``qrels``: a path, ``{qid: {subtopic: {docno: rel}}}``, a frame with columns qid, subtopic,
    docno, rel, or :class:`DiversityQrels`; ``run`` as for :func:`cranfield.evaluate`. Queries are
    those of both (``complete=True``: every qrels query, 0 where the run has none). ``dialect``
    applies to a qrels file.
    """
    if run_columns is not None and not (isinstance(run_columns, Mapping) and
                                        all(isinstance(v, str) for v in (*run_columns, *run_columns.values()))):
        raise UsageError(f"run_columns: expected a mapping of roles to column names such as "
                         f"{{'qid': 'query_id'}}, found {run_columns!r:.80}")
    if not isinstance(qrels, DiversityQrels):
        if isinstance(qrels, (str, os.PathLike)):
            qrels = DiversityQrels.from_file(qrels, dialect=dialect)
        else:
            qrels = read_diversity_qrels(qrels)
    run = mapped_columns(run, run_columns)

    def make_evaluator():
        return DiversityEvaluator(qrels, measures, relevance_level=relevance_level, complete=complete,
                                  max_results=max_results, judged_only=judged_only, aggregate=aggregate,
                                  intent_weights=intent_weights)

    return evaluate_runs(make_evaluator, [run])[0]


# ------------------------------------------------------------------------------ ndeval's report
def _topic_order(ids: list[str]) -> list[str]:
    """ndeval's topic order: numeric when every id is a decimal integer, else byte-wise."""
    if ids and all(i.isascii() and i.isdigit() for i in ids):
        return sorted(ids, key=lambda i: (int(i), i))
    return sorted(ids, key=lambda i: i.encode("utf-8"))


def ndeval_text(qrels, run, *, alpha: float = 0.5, beta: float = 0.5, complete: bool = False,
                max_results: int | None = None, relevance_level: int = 1, ndeval_nan: bool = False,
                dialect: str = "cranfield") -> str:
    """ndeval's CSV report: ``runid,topic,<21 measures>`` for each topic of the run, then
    ``runid,amean,...``, values printed ``%.6f``.

    As ndeval (``-traditional``): a run topic absent from the qrels gets a line of zeros and is
    left out of the mean; ``complete`` (``-c``) averages over every qrels topic; ``max_results``
    (``-M``) keeps the first N documents of each topic. Documents are ranked by score, then
    docno descending (ndeval without ``-traditional`` sorts by the rank field). A topic without
    relevant subtopics (or any topic when α = 0 and β = 1, where NRBP's factor 1 − (1 − α)β is 0)
    scores 0 where ndeval prints ``-nan`` for nNRBP (0/0), which makes its mean ``-nan`` too;
    ``ndeval_nan=True`` prints those bytes, as ndeval does.
    """
    for name, value in (("alpha", alpha), ("beta", beta)):
        check_probability(value, name)
    if max_results is not None:
        max_results = check_count(max_results, "max_results")
    check_flag(ndeval_nan, "ndeval_nan")
    measures = [_with_params(name, alpha, beta) for name in NDEVAL_MEASURES]
    run = read_run(run, dialect=dialect)
    if not isinstance(qrels, DiversityQrels):
        qrels = DiversityQrels.from_file(qrels, dialect=dialect) if isinstance(qrels, (str, os.PathLike)) \
            else read_diversity_qrels(qrels)
    evaluator = DiversityEvaluator(qrels, measures, relevance_level=relevance_level, complete=complete,
                                   max_results=max_results)
    results = evaluator.evaluate(run)
    runid = run.name or "run"
    topics = _topic_order(list(run.query_ids))
    evaluated = {q: i for i, q in enumerate(results.query_ids.tolist())}
    rows = np.array([evaluated.get(t, -1) for t in topics], dtype=np.int64)
    n_mean = results.query_ids.size
    no_intent = np.zeros(rows.size, dtype=bool)
    if ndeval_nan and rows.size:
        table_query = np.searchsorted(evaluator._query_ids, results.query_ids).astype(np.int64)
        no_intent = (rows >= 0) & (evaluator.intents.n_intents[table_query][np.maximum(rows, 0)] == 0)
        if 1.0 - (1.0 - alpha) * beta == 0.0:  # NRBP's factor is 0 (alpha 0, beta 1): every ideal NRBP is 0
            no_intent = rows >= 0
    columns, means = [], []
    for name, measure in zip(NDEVAL_MEASURES, measures):
        values = np.asarray(results.per_query[str(measure)], dtype=np.float64)
        shown = np.where(rows >= 0, values[np.maximum(rows, 0)], 0.0) if rows.size else np.zeros(0)
        mean = "%.6f" % (np.cumsum(shown)[-1] / n_mean if shown.size and n_mean else 0.0)  # ndeval's order
        column = np.char.mod("%.6f", shown) if shown.size else np.zeros(0, dtype=str)
        if name == "nNRBP" and no_intent.any():  # ndeval's 0/0
            column = np.where(no_intent, "-nan", column)
            mean = "-nan"
        columns.append(column)
        means.append(mean)
    header = "runid,topic," + ",".join(NDEVAL_MEASURES)
    prefix = np.char.add(f"{runid},", np.array(topics, dtype=str)) if topics else np.zeros(0, dtype=str)
    lines = prefix
    for column in columns:
        lines = np.char.add(np.char.add(lines, ","), column)
    body = "".join(line + "\n" for line in lines.tolist())
    return f"{header}\n{body}{runid},amean,{','.join(means)}\n"


def _with_params(name: str, alpha: float, beta: float) -> Measure:
    measure = parse_measure(name)
    params = {key: value for key, value in (("alpha", alpha), ("beta", beta)) if key in measure.family.params}
    return Measure(measure.name, params, measure.cutoff)
