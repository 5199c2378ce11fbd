"""THE grammars of documents and topics, for the judging app (:mod:`cranfield.judge`).

Documents
    * **JSONL**: one JSON object per line with ``id`` (text, or an integer written as its decimal
      text; non-empty, no ASCII whitespace: the TREC id rule) and ``text`` (a string), optional
      ``title`` (a string); other keys are ignored. Blank lines are skipped.
    * **TSV** (the name ends ``.tsv``; MS MARCO's ``collection.tsv``): per line ``id<TAB>text`` or
      ``id<TAB>title<TAB>text``, no header; another number of fields is an error.
    * **TREC text** (first line ``<DOC>``): ``<DOC>`` … ``</DOC>`` records with one
      ``<DOCNO> id </DOCNO>``; the text is what the ``<TEXT>`` elements hold (every line of the
      record but the DOCNO when it has none), the title what ``<TITLE>`` or ``<HEADLINE>`` holds.
      Other tags are kept as text.
    * **Cranfield** (``cran.all.1400``): records opened by ``.I ID``; the fields ``.T`` (title),
      ``.A`` (authors), ``.B`` (source) and ``.W`` (text) each start a line and run to the next
      field; the title and text are kept, whitespace runs folded to one space.
Topics
    * **TREC** topics: ``<top>`` … ``</top>`` records with ``<num> Number: ID``, ``<title>``,
      ``<desc> Description:`` and ``<narr> Narrative:``, each field running to the next tag
      (the closing tags ``</title>`` etc. of newer tracks are accepted).
    * **JSONL**: ``id``, ``title``, optional ``description`` and ``narrative`` (strings).
    * **Cranfield** (``cran.qry``): ``.I`` and ``.W`` records; the queries are numbered **1, 2, …
      in file order**, as the Cranfield judgments number them (the ``.I`` numbers have gaps); the
      ``.W`` text is the title.
An ``irds:<dataset id>`` source reads the documents (from the dataset's docstore, only the ids
asked for) or the queries of an ir_datasets dataset, when that package is installed: a document's
``title`` and ``text`` (or ``body``) fields, a query's ``title`` or ``text`` and its ``description``
and ``narrative`` when it has them.
The format is chosen by the file name: ``.jsonl``/``.ndjson`` (before a compression suffix) is
JSONL, ``.tsv`` TSV; otherwise the first line decides (``.I`` for Cranfield, ``<DOC>`` for TREC
text, ``<top>`` for TREC topics), and
every line is then read by that format's grammar. Input is UTF-8, possibly compressed (gzip,
bz2, xz… by their magic bytes, :mod:`cranfield.io.sources`). A duplicate id is an error.
Errors are :class:`~cranfield.errors.InputError` naming the file, the line and the field.

    >>> import io
    >>> docs = read_documents(io.BytesIO(b".I 1\\n.T\\nwing flow .\\n.W\\nthe <b>wing</b>\\n"), name="cran")
    >>> docs["1"]
    Document(id='1', title='wing flow .', text='the <b>wing</b>')
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass

from ..errors import InputError
from .ecosystem import IRDS_PREFIX, _load_irds
from .sources import display_name_of, read_all

__all__ = ["Document", "Topic", "read_documents", "read_topics"]

_COMPRESSED = (".gz", ".bz2", ".xz", ".zst", ".lz4")
_WHITESPACE = re.compile(r"\s+")
_BAD_ID = re.compile(r"[ \t\r\n\v\f]")


@dataclass(frozen=True)
class Document:
    id: str
    title: str
    text: str


@dataclass(frozen=True)
class Topic:
    id: str
    title: str
    description: str = ""
    narrative: str = ""


def _lines(source, name: str | None) -> tuple[str, list[str]]:
    display = name if name is not None else display_name_of(source)
    data = read_all(source, display_name=display)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        raise InputError(f"expected UTF-8 text, found the byte 0x{data[error.start]:02x}", source=display,
                         line=line) from None
    return display, text.splitlines()


def _suffix_is(source, suffixes: tuple) -> bool:
    if not isinstance(source, (str, os.PathLike)):
        return False
    name = os.fsdecode(source).lower()
    for suffix in _COMPRESSED:
        name = name.removesuffix(suffix)
    return name.endswith(suffixes)


def _is_jsonl(source) -> bool:
    return _suffix_is(source, (".jsonl", ".ndjson"))


def _check_id(value, *, source: str, line: int, field: str = "id") -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise InputError(f"expected a text or integer id, found {type(value).__name__}", source=source, line=line,
                         field=field)
    text = str(value)
    if text == "" or _BAD_ID.search(text):
        raise InputError(f"expected a non-empty id without blanks, found {text!r}", source=source, line=line,
                         field=field)
    return text


def _json_records(display: str, lines: list[str]):
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise InputError(f"expected a JSON object ({error.msg} at column {error.colno})", source=display,
                             line=number) from None
        if not isinstance(record, dict):
            raise InputError(f"expected a JSON object, found {type(record).__name__}", source=display, line=number)
        yield number, record


def _text_field(record: dict, key: str, *, source: str, line: int, required: bool) -> str:
    if key not in record:
        if required:
            raise InputError(f"missing; expected a string {key!r}", source=source, line=line, field=key)
        return ""
    value = record[key]
    if not isinstance(value, str):
        raise InputError(f"expected a string, found {type(value).__name__}", source=source, line=line, field=key)
    return value


def _json_texts(display: str, lines: list[str], keys: tuple, *, required: tuple):
    """(line, id, [the string of each key]) of each JSONL record."""
    for number, record in _json_records(display, lines):
        if "id" not in record:
            raise InputError("missing; expected an 'id'", source=display, line=number, field="id")
        ident = _check_id(record["id"], source=display, line=number)
        yield number, ident, [_text_field(record, key, source=display, line=number, required=key in required)
                              for key in keys]


def _add(table: dict, key: str, value, seen: dict, *, source: str, line: int) -> None:
    if key in table:
        raise InputError(f"id {key!r} given twice (first at line {seen[key]})", source=source, line=line, field="id")
    table[key] = value
    seen[key] = line


def _dotted(display: str, lines: list[str], fields: str):
    """Records of the Cranfield format: (line of .I, id, {field letter: text})."""
    record = None
    current = None
    for number, line in enumerate(lines, 1):
        if line.startswith(".I"):
            if record is not None:
                yield record
            ident = line[2:].strip()
            if not line[2:3].isspace() or not ident:
                raise InputError("expected '.I ID'", source=display, line=number, field="I")
            record, current = (number, _check_id(ident, source=display, line=number, field="I"), {}), None
        elif len(line) >= 2 and line[0] == "." and line[1] in fields and line[2:].strip() == "":
            if record is None:
                raise InputError(f"field .{line[1]} before the first '.I' record", source=display, line=number,
                                 field=line[1])
            current = line[1]
            record[2].setdefault(current, [])
        elif len(line) >= 2 and line[0] == "." and line[1].isupper() and line[2:].strip() == "":
            raise InputError(f"unknown field .{line[1]} (expected {', '.join('.' + f for f in fields)})",
                             source=display, line=number, field=line[1])
        elif record is None:
            if line.strip():
                raise InputError("expected '.I ID' to open the first record", source=display, line=number,
                                 field="I")
        elif current is not None:
            record[2][current].append(line)
        elif line.strip():
            raise InputError(f"text outside a field (expected one of {', '.join('.' + f for f in fields)})",
                             source=display, line=number)
    if record is not None:
        yield record


def _fold(parts) -> str:
    return _WHITESPACE.sub(" ", " ".join(parts or ())).strip()


def read_documents(source, *, name: str | None = None, ids=None) -> dict[str, Document]:
    """Documents by id from JSONL or the Cranfield format (see the module's documentation).
    ``ids``: the documents needed (an ir_datasets docstore then fetches only those)."""
    if _is_irds(source):
        return _irds_documents(source, ids)
    display, lines = _lines(source, name)
    out: dict[str, Document] = {}
    seen: dict[str, int] = {}
    if _is_jsonl(source):
        for number, ident, (text, title) in _json_texts(display, lines, ("text", "title"), required=("text",)):
            _add(out, ident, Document(ident, title, text), seen, source=display, line=number)
        return out
    if _suffix_is(source, (".tsv",)):
        for number, ident, title, text in _tsv(display, lines):
            _add(out, ident, Document(ident, title, text), seen, source=display, line=number)
        return out
    first = next((line.strip() for line in lines if line.strip()), "")
    if first.upper().startswith("<DOC>"):
        for number, ident, title, text in _trec_text(display, lines):
            _add(out, ident, Document(ident, title, text), seen, source=display, line=number)
        return out
    _first_line(display, lines, ".I", "documents: JSONL (name ending .jsonl), TSV (.tsv), TREC text (<DOC>) or "
                                      "the Cranfield format (.I records)")
    for number, ident, fields in _dotted(display, lines, "TABW"):
        _add(out, ident, Document(ident, _fold(fields.get("T")), _fold(fields.get("W"))), seen, source=display,
             line=number)
    return out


def _tsv(display: str, lines: list[str]):
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) not in (2, 3):
            raise InputError(f"expected id<TAB>text or id<TAB>title<TAB>text, found {len(fields)} fields",
                             source=display, line=number)
        ident = _check_id(fields[0], source=display, line=number)
        yield number, ident, (fields[1] if len(fields) == 3 else ""), fields[-1]


_TREC_FIELD = re.compile(r"<(DOCNO|TEXT|TITLE|HEADLINE)>(.*?)</\1>", re.IGNORECASE | re.DOTALL)


def _trec_text(display: str, lines: list[str]):
    start, body = None, []
    for number, line in enumerate(lines, 1):
        tag = line.strip().upper()
        if tag == "<DOC>":
            if start is not None:
                raise InputError(f"<DOC> inside the document opened at line {start}", source=display, line=number,
                                 field="DOC")
            start, body = number, []
        elif tag == "</DOC>":
            if start is None:
                raise InputError("</DOC> without <DOC>", source=display, line=number, field="DOC")
            yield _trec_document(display, start, "\n".join(body))
            start = None
        elif start is not None:
            body.append(line)
        elif line.strip():
            raise InputError("text outside <DOC> … </DOC>", source=display, line=number)
    if start is not None:
        raise InputError(f"the document opened at line {start} has no </DOC>", source=display, line=len(lines),
                         field="DOC")


def _trec_document(display: str, start: int, body: str):
    fields: dict[str, list[str]] = {}
    for match in _TREC_FIELD.finditer(body):
        fields.setdefault(match.group(1).upper(), []).append(match.group(2))
    if len(fields.get("DOCNO", ())) != 1:
        raise InputError(f"expected one <DOCNO> … </DOCNO>, found {len(fields.get('DOCNO', ()))}", source=display,
                         line=start, field="DOCNO")
    ident = _check_id(fields["DOCNO"][0].strip(), source=display, line=start, field="DOCNO")
    title = _fold(fields.get("TITLE", []) + fields.get("HEADLINE", []))
    text = "\n".join(t.strip() for t in fields["TEXT"]) if "TEXT" in fields else \
        re.sub(r"<DOCNO>.*?</DOCNO>", "", body, flags=re.IGNORECASE | re.DOTALL).strip()
    return start, ident, title, text


def _first_line(display: str, lines: list[str], start: str, expected: str) -> None:
    for number, line in enumerate(lines, 1):
        if line.strip():
            if not line.lstrip().startswith(start):
                raise InputError(f"expected {expected}, found {line.strip()[:40]!r}", source=display, line=number)
            return


_TAG = re.compile(r"<(/?)(top|num|title|desc|narr)>", re.IGNORECASE)
_LABELS = {"num": "Number:", "desc": "Description:", "narr": "Narrative:"}


def read_topics(source, *, name: str | None = None) -> dict[str, Topic]:
    """Topics by id from TREC topics, JSONL or the Cranfield queries (see the module's documentation)."""
    if _is_irds(source):
        return _irds_topics(source)
    display, lines = _lines(source, name)
    out: dict[str, Topic] = {}
    seen: dict[str, int] = {}
    if _is_jsonl(source):
        keys = ("title", "description", "narrative")
        for number, ident, texts in _json_texts(display, lines, keys, required=("title",)):
            _add(out, ident, Topic(ident, *texts), seen, source=display, line=number)
        return out
    first = next((line.strip() for line in lines if line.strip()), "")
    if first.startswith(".I"):
        for count, (number, _, fields) in enumerate(_dotted(display, lines, "W"), 1):
            _add(out, str(count), Topic(str(count), _fold(fields.get("W"))), seen, source=display, line=number)
        return out
    _first_line(display, lines, "<top>", "topics: JSONL (name ending .jsonl), TREC topics (<top>) or the "
                                         "Cranfield queries (.I records)")
    for number, fields in _trec_records(display, lines):
        if "num" not in fields:
            raise InputError("topic without <num>", source=display, line=number, field="num")
        ident = _check_id(fields["num"], source=display, line=number, field="num")
        if not fields.get("title"):
            raise InputError("topic without a <title>", source=display, line=number, field="title")
        _add(out, ident, Topic(ident, fields["title"], fields.get("desc", ""), fields.get("narr", "")), seen,
             source=display, line=number)
    return out


def _trec_records(display: str, lines: list[str]):
    fields: dict | None = None
    current = None
    start = 0
    for number, line in enumerate(lines, 1):
        position = 0
        for match in _TAG.finditer(line):
            closing, tag = match.group(1) == "/", match.group(2).lower()
            if current is not None and fields is not None:
                fields[current].append(line[position:match.start()])
            position = match.end()
            if tag == "top":
                if closing:
                    if fields is None:
                        raise InputError("</top> without <top>", source=display, line=number, field="top")
                    yield start, {k: _field_text(k, v) for k, v in fields.items()}
                    fields, current = None, None
                elif fields is not None:
                    raise InputError(f"<top> inside the topic opened at line {start}", source=display, line=number,
                                     field="top")
                else:
                    fields, current, start = {}, None, number
            elif fields is None:
                raise InputError(f"<{tag}> outside <top>", source=display, line=number, field=tag)
            elif closing:
                current = None
            else:
                if tag in fields:
                    raise InputError(f"<{tag}> given twice in the topic opened at line {start}", source=display,
                                     line=number, field=tag)
                fields[tag], current = [], tag
        rest = line[position:]
        if current is not None and fields is not None:
            fields[current].append(rest)
        elif rest.strip() and fields is None:
            raise InputError("text outside <top> … </top>", source=display, line=number)
    if fields is not None:
        raise InputError(f"the topic opened at line {start} has no </top>", source=display, line=len(lines),
                         field="top")


def _field_text(tag: str, parts: list[str]) -> str:
    text = _fold(parts)
    label = _LABELS.get(tag)
    if label and text.lower().startswith(label.lower()):
        text = text[len(label):].strip()
    return text


def _is_irds(source) -> bool:
    return isinstance(source, str) and source.startswith(IRDS_PREFIX)


def _irds_text(record, *names: str) -> str:
    for field in names:
        value = getattr(record, field, None)
        if isinstance(value, str) and value:
            return _fold([value])
    return ""


def _irds_documents(source: str, ids) -> dict[str, Document]:
    """The documents of an ir_datasets dataset: those in ``ids`` from its docstore, else all."""
    dataset = _load_irds(source[len(IRDS_PREFIX):])
    if not (hasattr(dataset, "has_docs") and dataset.has_docs()):
        raise InputError("this ir_datasets dataset has no documents", source=source)
    records = dataset.docs_store().get_many(list(ids)).values() if ids is not None else dataset.docs_iter()
    out = {}
    for record in records:  # the dataset's documents, as ir_datasets yields them
        ident = str(record.doc_id)
        out[ident] = Document(ident, _irds_text(record, "title"), _irds_text(record, "text", "body", "abstract"))
    return out


def _irds_topics(source: str) -> dict[str, Topic]:
    dataset = _load_irds(source[len(IRDS_PREFIX):])
    if not (hasattr(dataset, "has_queries") and dataset.has_queries()):
        raise InputError("this ir_datasets dataset has no queries", source=source)
    out = {}
    for record in dataset.queries_iter():  # the dataset's queries
        ident = str(record.query_id)
        out[ident] = Topic(ident, _irds_text(record, "title", "text", "query"), _irds_text(record, "description"),
                           _irds_text(record, "narrative"))
    return out
