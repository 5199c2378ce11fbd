"""Retrieval-augmented generation: nugget-based scores of generated answers (the TREC 2024 RAG
track), and citation support.

**Nuggets** (Pradeep, Thakur, Upadhyay, Campos, Craswell & Lin, "Initial nugget evaluation results
for the TREC 2024 RAG Track with the AutoNuggetizer Framework", 2024): each query has nuggets, the
facts a good answer holds, each ``vital`` or ``okay``; each nugget is assigned to each answer as
``support``, ``partial_support`` or ``not_support`` (by people or by a model). Per answer:

* ``all_strict`` (A_strict): the share of the query's nuggets the answer fully supports;
* ``vital_strict`` (V_strict): the same over the vital nuggets;
* ``all`` and ``vital``: with half credit for partial support (support 1, partial 0.5, not 0);
* ``weighted`` and ``weighted_strict``: Σ wᵢ sᵢ / Σ wᵢ over all nuggets with weight 1 for vital
  and 0.5 for okay nuggets (sᵢ the credit, with or without partial credit).

A query without nuggets (or without vital nuggets, for the vital scores) scores 0, as the track's
scorer does; the summary says how many answers that concerns. A run's score is the mean over the
queries it answers.

**Citation support** (after Thakur et al., "Support evaluation for the TREC 2024 RAG Track", 2025):
each sentence of an answer cites documents and each citation is judged ``full_support``,
``partial_support`` or ``no_support`` (credit 1, 0.5, 0). Per answer: ``support_precision`` = mean
credit over its citations (0 without citations), ``support_recall`` = mean over its sentences of the
best credit of the sentence's citations (a sentence without citation: 0), and ``cited_sentences``
= the share of sentences with a citation.

No model is called here: the assignments are data (:mod:`cranfield.io.nuggets`). Every score is a
bincount over nugget or citation rows: no loop over answers or nuggets.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import UsageError
from .io.nuggets import NuggetTable, SupportTable, read_nugget_assignments, read_support

__all__ = ["NUGGET_SCORES", "SUPPORT_SCORES", "AnswerScores", "nugget_scores", "support_scores", "joined_scores",
           "scores_of_files"]

NUGGET_SCORES = ("vital_strict", "all_strict", "vital", "all", "weighted_strict", "weighted")
SUPPORT_SCORES = ("support_precision", "support_recall", "cited_sentences")
_CREDIT = np.array([1.0, 0.5, 0.0])  # support, partial_support, not_support (and full/partial/no support)
_WEIGHT = np.array([1.0, 0.5])  # vital, okay


@dataclass(frozen=True)
class AnswerScores:
    """Scores per answer (``runs[i]``, ``qids[i]``, ``scores[name][i]``) and their means per run."""

    runs: list
    qids: list
    scores: dict  # name -> np.ndarray over answers
    notes: dict  # name -> number of answers scored 0 for want of nuggets (or citations)

    @property
    def run_names(self) -> list:
        return list(dict.fromkeys(self.runs))

    def mean(self) -> dict:
        """``{run: {score: mean over the run's answers}}``."""
        names = self.run_names
        code = np.array([names.index(r) for r in self.runs]) if self.runs else np.zeros(0, dtype=np.int64)
        counts = np.bincount(code, minlength=len(names))
        return {run: {"queries": int(counts[i]), **{s: float(np.bincount(code, weights=v, minlength=len(names))[i]
                                                            / counts[i]) for s, v in self.scores.items()}}
                for i, run in enumerate(names)}

    def rows(self) -> list[dict]:
        """One dict per answer: run, qid and every score."""
        return [{"run": r, "qid": q, **{s: float(v[i]) for s, v in self.scores.items()}}
                for i, (r, q) in enumerate(zip(self.runs, self.qids))]


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    numerator = np.asarray(numerator, dtype=np.float64)  # bincount of no rows is an int array
    return np.divide(numerator, denominator, out=np.zeros_like(numerator), where=denominator > 0)


def nugget_scores(assignments) -> AnswerScores:
    """The TREC 2024 RAG nugget scores of every answer in ``assignments`` (a JSONL path or stream as
    :func:`cranfield.io.nuggets.read_nugget_assignments` reads it, or its :class:`NuggetTable`).

    >>> import io, json
    >>> line = {"qid": "q1", "run_id": "r", "nuggets": [
    ...     {"importance": "vital", "assignment": "support"}, {"importance": "vital", "assignment": "partial_support"},
    ...     {"importance": "okay", "assignment": "support"}, {"importance": "okay", "assignment": "not_support"}]}
    >>> s = nugget_scores(io.BytesIO(json.dumps(line).encode()))
    >>> s.mean()["r"]["vital"], s.mean()["r"]["all_strict"], s.mean()["r"]["weighted"]
    (0.75, 0.5, 0.6666666666666666)
    """
    table = assignments if isinstance(assignments, NuggetTable) else read_nugget_assignments(assignments)
    n = len(table.runs)
    credit = _CREDIT[table.assignment]
    strict = (table.assignment == 0).astype(np.float64)
    vital = table.importance == 0
    weight = _WEIGHT[table.importance]

    def total(values, mask=None):
        return np.bincount(table.answer[mask] if mask is not None else table.answer,
                           weights=(values[mask] if mask is not None else values), minlength=n)

    nuggets, vitals = total(np.ones(credit.size)), total(np.ones(credit.size), vital)
    weights = total(weight)
    scores = {"vital_strict": _ratio(total(strict, vital), vitals), "all_strict": _ratio(total(strict), nuggets),
              "vital": _ratio(total(credit, vital), vitals), "all": _ratio(total(credit), nuggets),
              "weighted_strict": _ratio(total(weight * strict), weights), "weighted": _ratio(total(weight * credit), weights)}
    notes = {"answers without nuggets": int((nuggets == 0).sum()),
             "answers without vital nuggets": int((vitals == 0).sum())}
    return AnswerScores(table.runs, table.qids, scores, notes)


def support_scores(judgments) -> AnswerScores:
    """Citation support of every answer in ``judgments`` (a JSONL path or stream as
    :func:`cranfield.io.nuggets.read_support` reads it, or its :class:`SupportTable`)."""
    table = judgments if isinstance(judgments, SupportTable) else read_support(judgments)
    n, n_sentences = len(table.runs), table.sentence_answer.size
    credit = _CREDIT[table.support]
    citation_answer = table.sentence_answer[table.citation_sentence]
    citations = np.bincount(citation_answer, minlength=n).astype(np.float64)
    best = np.zeros(n_sentences)
    np.maximum.at(best, table.citation_sentence, credit)
    cited = np.bincount(table.citation_sentence, minlength=n_sentences) > 0
    sentences = np.bincount(table.sentence_answer, minlength=n).astype(np.float64)
    scores = {"support_precision": _ratio(np.bincount(citation_answer, weights=credit, minlength=n), citations),
              "support_recall": _ratio(np.bincount(table.sentence_answer, weights=best, minlength=n), sentences),
              "cited_sentences": _ratio(np.bincount(table.sentence_answer, weights=cited.astype(np.float64),
                                                    minlength=n), sentences)}
    notes = {"answers without citations": int((citations == 0).sum()),
             "answers without sentences": int((sentences == 0).sum())}
    return AnswerScores(table.runs, table.qids, scores, notes)


def joined_scores(results: list[AnswerScores]) -> AnswerScores:
    """One result from several files' results; a (run, query) answered in two of them is an error."""
    if len(results) == 1:
        return results[0]
    runs = [r for res in results for r in res.runs]
    qids = [q for res in results for q in res.qids]
    seen = set()
    for key in zip(runs, qids):
        if key in seen:
            raise UsageError(f"run {key[0]!r} answers query {key[1]!r} in two files")
        seen.add(key)
    scores = {name: np.concatenate([res.scores[name] for res in results]) for name in results[0].scores}
    notes = {k: sum(res.notes[k] for res in results) for k in results[0].notes}
    return AnswerScores(runs, qids, scores, notes)


def scores_of_files(assignments=(), support=()) -> list[tuple[tuple, AnswerScores]]:
    """``[(score names, AnswerScores)]``: the nugget scores of the ``assignments`` files and the
    citation support scores of the ``support`` files, each joined over its files."""
    if not assignments and not support:
        raise UsageError("expected at least one ASSIGNMENTS file (or --support FILE)")
    parts = [(NUGGET_SCORES, joined_scores([nugget_scores(path) for path in assignments]))] if assignments else []
    if support:
        parts.append((SUPPORT_SCORES, joined_scores([support_scores(path) for path in support])))
    return parts
