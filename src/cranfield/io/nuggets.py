"""Nugget assignments of generated answers (the TREC 2024 RAG track's JSONL, as the AutoNuggetizer
framework and nuggetizer write it), and citation-support judgments.

**Assignments** — one JSON object per line, one per (run, query) answer:

``{"qid": "2024-145979", "run_id": "my-rag", "nuggets": [{"text": "…", "importance": "vital",
"assignment": "support"}, …]}``

* ``qid`` (or ``topic_id``): a string or an integer (kept as its decimal text), not empty;
* ``run_id`` (optional): the run; default the file name without its extension; other fields
  (``query``, ``answer_text``, ``response_length``, ``trace``…) are ignored;
* ``nuggets``: a list (may be empty) of objects with ``importance`` ``"vital"`` or ``"okay"`` and
  ``assignment`` ``"support"``, ``"partial_support"`` or ``"not_support"`` (``text`` optional);
* a (run, query) answered twice is an error naming both lines; blank lines are errors except at
  the end; UTF-8; compressed files are read as every source (:mod:`cranfield.io.sources`).

**Support** — one JSON object per line, one per (run, query) answer, its sentences and the
judgment of each citation of each sentence:

``{"qid": "…", "run_id": "…", "sentences": [{"text": "…", "citations": [{"docid": "…",
"support": "full_support"}, …]}, …]}`` with ``support`` one of ``"full_support"``,
``"partial_support"``, ``"no_support"``; a sentence may have no citation.

Errors name the file, the line and the field (``nuggets[3].assignment``). A file holds one line
per answer (thousands), so it is read line by line; the scores are computed column-wise.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import InputError
from .sources import display_name_of, read_text_lines

__all__ = ["IMPORTANCE", "ASSIGNMENT", "SUPPORT", "NuggetTable", "SupportTable", "read_nugget_assignments",
           "read_support"]

IMPORTANCE = ("vital", "okay")
ASSIGNMENT = ("support", "partial_support", "not_support")
SUPPORT = ("full_support", "partial_support", "no_support")


@dataclass(frozen=True)
class NuggetTable:
    """One row per nugget: the answer it belongs to (``answer``: index into ``runs``/``qids``), its
    importance (index into :data:`IMPORTANCE`) and assignment (index into :data:`ASSIGNMENT`)."""

    runs: list  # per answer
    qids: list  # per answer
    answer: np.ndarray
    importance: np.ndarray
    assignment: np.ndarray
    source: str


@dataclass(frozen=True)
class SupportTable:
    """One row per citation and one per sentence: the answer, the sentence, the judgment."""

    runs: list
    qids: list
    sentence_answer: np.ndarray  # per sentence: its answer
    citation_sentence: np.ndarray  # per citation: its sentence
    support: np.ndarray  # per citation: index into SUPPORT
    source: str


def _records(source):
    name, lines = read_text_lines(source)
    default_run = Path(name).name.split(".")[0] if name not in ("<stdin>", "<stream>") else "run"
    seen: dict = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            raise InputError("blank line; expected one JSON object per line", source=name, line=number)
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise InputError(f"not JSON: {error.msg} (column {error.colno})", source=name, line=number) from None
        if not isinstance(record, dict):
            raise InputError(f"expected a JSON object, found {type(record).__name__}", source=name, line=number)
        qid = record.get("qid", record.get("topic_id"))
        if isinstance(qid, bool) or not isinstance(qid, (str, int)) or str(qid).strip() == "":
            raise InputError(f"expected a query id (text or integer), found {qid!r}", source=name, line=number,
                             field="qid")
        run = record.get("run_id", default_run)
        if not isinstance(run, str) or not run.strip():
            raise InputError(f"expected a run name, found {run!r}", source=name, line=number, field="run_id")
        key = (run, str(qid))
        if key in seen:
            raise InputError(f"run {run!r} answers query {str(qid)!r} twice (also on line {seen[key]})", source=name,
                             line=number, field="qid")
        seen[key] = number
        yield number, run, str(qid), record, name
    if not seen:
        raise InputError("no answer listed; expected one JSON object per line", source=name)


def _list(record, key, name, number, where=""):
    value = record.get(key)
    if not isinstance(value, list):
        raise InputError(f"expected a list, found {type(value).__name__ if key in record else 'nothing'}",
                         source=name, line=number, field=f"{where}{key}")
    return value


def _code(item, key, choices, name, number, where) -> int:
    value = item.get(key) if isinstance(item, dict) else None
    if not isinstance(item, dict):
        raise InputError(f"expected an object, found {type(item).__name__}", source=name, line=number, field=where)
    if value not in choices:
        raise InputError(f"expected one of {', '.join(choices)}, found {value!r}", source=name, line=number,
                         field=f"{where}.{key}")
    return choices.index(value)


def read_nugget_assignments(source) -> NuggetTable:
    """The nugget assignments of a JSONL file (see the module's grammar)."""
    runs, qids, answer, importance, assignment = [], [], [], [], []
    name = display_name_of(source)
    for number, run, qid, record, name in _records(source):
        nuggets = _list(record, "nuggets", name, number)
        index = len(runs)
        runs.append(run)
        qids.append(qid)
        for k, nugget in enumerate(nuggets):
            where = f"nuggets[{k}]"
            importance.append(_code(nugget, "importance", IMPORTANCE, name, number, where))
            assignment.append(_code(nugget, "assignment", ASSIGNMENT, name, number, where))
            answer.append(index)
    return NuggetTable(runs, qids, np.asarray(answer, dtype=np.int64), np.asarray(importance, dtype=np.int8),
                       np.asarray(assignment, dtype=np.int8), name)


def read_support(source) -> SupportTable:
    """The citation-support judgments of a JSONL file (see the module's grammar)."""
    runs, qids, sentence_answer, citation_sentence, support = [], [], [], [], []
    name = display_name_of(source)
    for number, run, qid, record, name in _records(source):
        sentences = _list(record, "sentences", name, number)
        index = len(runs)
        runs.append(run)
        qids.append(qid)
        for i, sentence in enumerate(sentences):
            if not isinstance(sentence, dict):
                raise InputError(f"expected an object, found {type(sentence).__name__}", source=name, line=number,
                                 field=f"sentences[{i}]")
            citations = _list(sentence, "citations", name, number, where=f"sentences[{i}].")
            sentence_answer.append(index)
            for k, citation in enumerate(citations):
                support.append(_code(citation, "support", SUPPORT, name, number, f"sentences[{i}].citations[{k}]"))
                citation_sentence.append(len(sentence_answer) - 1)
    return SupportTable(runs, qids, np.asarray(sentence_answer, dtype=np.int64),
                        np.asarray(citation_sentence, dtype=np.int64), np.asarray(support, dtype=np.int8), name)
