"""The IR ecosystem's data as it comes: other tools' objects and column names → cranfield's form.

:func:`qrels_source` and :func:`run_source` turn what ir_measures, ir_datasets, PyTerrier, ranx,
pytrec_eval and pandas/polars users hold into what :func:`cranfield.read_qrels` /
:func:`cranfield.read_run` read (a ``{qid: {docno: value}}`` dict or an Arrow table with
columns ``qid, docno, rel`` / ``qid, docno, score``); anything else passes through unchanged.
Both readers call them first, so every entry point (``evaluate``, ``compare``, ``Evaluator``,
the readers) accepts:

* ir_measures ``Qrel`` / ``ScoredDoc`` namedtuples and ir_datasets ``TrecQrel`` /
  ``GenericScoredDoc`` records: any iterable (a list, a generator) of namedtuples with fields
  ``query_id, doc_id`` and ``relevance`` (qrels) or ``score`` (run);
* an ir_datasets dataset (its ``qrels_iter()`` / ``scoreddocs_iter()``) or the text
  ``"irds:<dataset id>"`` (loaded through the ``ir_datasets`` package, which must be installed);
* ranx ``Qrels`` / ``Run`` objects (a run keeps its name);
* pandas / polars DataFrames and Arrow tables in any of these column conventions (the first
  name present wins, per field):

  =========  ======================================================
  field      accepted column names
  =========  ======================================================
  qid        ``qid`` (cranfield, PyTerrier), ``query_id`` (ir_measures,
             ir_datasets), ``q_id`` (ranx)
  docno      ``docno`` (cranfield, PyTerrier), ``doc_id`` (ir_measures,
             ir_datasets, ranx)
  rel        ``rel``, ``relevance`` (ir_measures, ir_datasets), ``label``
             (PyTerrier), ``score`` (ranx qrels frames; qrels only)
  score      ``score``
  =========  ======================================================

* a frame with other names, mapped explicitly: :func:`with_columns` (``with_columns(frame,
  qid="topic", docno="doc", score="sim")``) in Python, ``--qrels-columns`` / ``--run-columns``
  on the command line (``qid=topic,docno=doc,score=sim``) for CSV, TSV and Parquet files
  (:func:`read_table_file`).

>>> import ir_measures
>>> qrels_source([ir_measures.Qrel("q1", "d1", 1)])
{'q1': {'d1': 1}}
>>> run_source((ir_measures.ScoredDoc("q1", "d1", 2.5) for _ in range(1)))
({'q1': {'d1': 2.5}}, None)
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Mapping

from ..errors import InputError, UsageError

__all__ = ["CONVENTIONS", "qrels_source", "run_source", "with_columns", "read_table_file", "parse_columns",
           "Columns", "tabular_input"]

IRDS_PREFIX = "irds:"
IRDS_HINT = "install it with: python -m pip install ir_datasets"

# canonical field -> accepted column names, in order of preference (the first present wins)
CONVENTIONS: dict[str, tuple[str, ...]] = {
    "qid": ("qid", "query_id", "q_id"),
    "docno": ("docno", "doc_id"),
    "rel": ("rel", "relevance", "label", "score"),
    "score": ("score",),
}
FIELDS = {"qrels": ("qid", "docno", "rel"), "run": ("qid", "docno", "score")}
# namedtuple fields of ir_measures / ir_datasets records
RECORD_FIELDS = {"qrels": ("query_id", "doc_id", "relevance"), "run": ("query_id", "doc_id", "score")}


class Columns:
    """A frame with an explicit column mapping (see :func:`with_columns`)."""

    def __init__(self, frame, mapping: Mapping[str, str]) -> None:
        self.frame, self.mapping = frame, dict(mapping)

    def __repr__(self) -> str:
        return f"<Columns {self.mapping} of a {type(self.frame).__name__}>"


def with_columns(frame, *, qid: str | None = None, docno: str | None = None, rel: str | None = None,
                 score: str | None = None) -> Columns:
    """``frame`` with the names of its qid, docno and rel (qrels) or score (run) columns, for
    any cranfield function that takes qrels or a run (``evaluate``, ``compare``, the readers).
    Fields not given are found by the usual conventions.

    >>> import pandas as pd, cranfield
    >>> qrels = pd.DataFrame({"topic": ["q1", "q1"], "doc": ["d1", "d2"], "grade": [1, 0]})
    >>> run = pd.DataFrame({"topic": ["q1", "q1"], "doc": ["d1", "d2"], "sim": [0.5, 0.9]})
    >>> r = cranfield.evaluate(with_columns(qrels, qid="topic", docno="doc", rel="grade"),
    ...                        with_columns(run, qid="topic", docno="doc", score="sim"), ["AP"])
    >>> r.mean["AP"]
    0.5
    """
    mapping = {key: value for key, value in dict(qid=qid, docno=docno, rel=rel, score=score).items() if value}
    return Columns(frame, mapping)


def parse_columns(text: str | None, *, option: str = "columns") -> dict[str, str]:
    """``"qid=query_id,docno=doc_id,rel=relevance"`` → ``{"qid": "query_id", ...}``."""
    if not text:
        return {}
    mapping: dict[str, str] = {}
    for part in text.split(","):
        field, sep, column = part.partition("=")
        field, column = field.strip(), column.strip()
        if not sep or not column or field not in CONVENTIONS:
            raise UsageError(f"{option}: expected FIELD=COLUMN pairs separated by commas, FIELD one of "
                             f"qid, docno, rel, score (e.g. qid=query_id,docno=doc_id), found {part!r}")
        mapping[field] = column
    return mapping


# ---------------------------------------------------------------------------------------- dispatch

def qrels_source(source):
    """``source`` as a form :func:`cranfield.read_qrels` reads, or ``source`` itself."""
    converted, _ = _convert(source, "qrels")
    return converted


def run_source(source, *, name: str | None = None):
    """``(source as a form cranfield.read_run reads, name)``; a ranx Run lends its name."""
    return _convert(source, "run", name)


def _convert(source, kind: str, name: str | None = None):
    if isinstance(source, (dict, bytes, os.PathLike)) or source is None:
        return source, name
    if isinstance(source, str):
        if source.startswith(IRDS_PREFIX):
            return _from_records(_irds_records(_load_irds(source[len(IRDS_PREFIX):]), kind), kind, source), name
        return source, name
    if isinstance(source, Columns):
        return _from_frame(source.frame, kind, source.mapping), name
    module = type(source).__module__.split(".")[0]
    if module == "cranfield":  # Qrels, Run
        return source, name
    if module == "ranx" and type(source).__name__ in ("Qrels", "Run"):
        return _from_ranx(source), name or (getattr(source, "name", None) if kind == "run" else None)
    if module == "ir_datasets" or hasattr(source, "qrels_iter") or hasattr(source, "scoreddocs_iter"):
        return _from_records(_irds_records(source, kind), kind, "ir_datasets dataset"), name
    if _is_frame(source):
        return _from_frame(source, kind, {}), name
    if isinstance(source, Iterable) and not isinstance(source, Mapping):
        return _from_records(source, kind, f"{kind} records"), name
    return source, name


def _is_frame(obj) -> bool:
    import sys

    if "pyarrow" in sys.modules and isinstance(obj, sys.modules["pyarrow"].Table):
        return True
    return type(obj).__name__ == "DataFrame" and hasattr(obj, "columns")


# ------------------------------------------------------------------------------------------ frames

def _column_names(frame) -> list[str]:
    names = getattr(frame, "column_names", None)  # Arrow
    return list(names) if names is not None else [str(c) for c in frame.columns]


def _choose(present: list[str], kind: str, mapping: Mapping[str, str], source: str) -> dict[str, str]:
    """canonical field -> column of the frame."""
    extra = sorted(set(mapping) - set(FIELDS[kind]))
    if extra:
        raise UsageError(f"{source}: field {extra[0]!r} does not apply to {kind}; expected "
                         f"{', '.join(FIELDS[kind])}")
    chosen = {}
    for field in FIELDS[kind]:
        if field in mapping:
            if mapping[field] not in present:
                raise InputError(f"no column {mapping[field]!r} (named for {field}); found columns "
                                 f"{', '.join(present)}", source=source)
            chosen[field] = mapping[field]
            continue
        taken = set(chosen.values()) | set(mapping.values())
        found = next((c for c in CONVENTIONS[field] if c in present and c not in taken), None)
        if found is None:
            accepted = " or ".join(repr(c) for c in CONVENTIONS[field] if field != "rel" or c != "score" or kind == "qrels")
            raise InputError(f"no {field} column (expected {accepted}); found columns {', '.join(present)}; "
                             f"name it with cranfield.with_columns(frame, {field}='COLUMN') in Python or "
                             f"--{kind}-columns {field}=COLUMN on the command line", source=source)
        chosen[field] = found
    return chosen


def _from_frame(frame, kind: str, mapping: Mapping[str, str]):
    import pyarrow as pa

    source = f"{kind} frame"
    if not _is_frame(frame):
        raise InputError(f"expected a pandas or polars DataFrame or an Arrow table, found {type(frame).__name__}",
                         source=source)
    present = _column_names(frame)
    chosen = _choose(present, kind, mapping, source)
    if all(chosen[f] == f for f in chosen):
        return frame  # already canonical: the reader takes it as it is
    columns = [chosen[f] for f in FIELDS[kind]]
    if isinstance(frame, pa.Table):
        table = frame.select(columns)
    elif hasattr(frame, "to_arrow"):  # polars
        table = frame.select(columns).to_arrow()
    else:  # pandas
        table = pa.Table.from_pandas(frame[columns], preserve_index=False)
    return table.rename_columns(list(FIELDS[kind]))


def read_table_file(path: str | os.PathLike, *, kind: str, columns: Mapping[str, str] | None = None):
    """A CSV, TSV or Parquet file of qrels or a run, its columns named by ``columns`` or found by
    the conventions, as an Arrow table with the canonical columns."""
    import pyarrow as pa

    text = str(path)
    lower = text.lower()
    try:
        if lower.endswith((".parquet", ".pq")) or os.path.isdir(text):
            import pyarrow.parquet as pq

            table = pq.read_table(text)
        elif lower.endswith((".csv", ".tsv", ".csv.gz", ".tsv.gz")):
            import pyarrow.csv as pacsv

            delimiter = "\t" if ".tsv" in lower else ","
            # ids stay text ("007" is not 7): every column that may hold qids or docnos is read as text
            ids = set(CONVENTIONS["qid"] + CONVENTIONS["docno"])
            ids |= {c for f, c in (columns or {}).items() if f in ("qid", "docno")}
            types = {c: pa.string() for c in _csv_header(text, delimiter) if c in ids}
            table = pacsv.read_csv(text, parse_options=pacsv.ParseOptions(delimiter=delimiter),
                                   convert_options=pacsv.ConvertOptions(column_types=types))
        else:
            raise UsageError(f"{text}: column names apply to CSV, TSV or Parquet files (.csv, .tsv, .parquet); "
                             "a TREC file has fixed columns")
    except (pa.ArrowInvalid, OSError) as error:
        raise InputError(str(error).splitlines()[0], source=text) from None
    return _from_frame(table, kind, dict(columns or {}))


def tabular_input(path) -> bool:
    """Whether the file at ``path`` is read through the column conventions: CSV/TSV, or a Parquet
    file whose columns are not cranfield's (qid, docno, ...). Decided by the name, and for Parquet
    by the schema (the rows are never read)."""
    lower = str(path).lower()
    if lower.endswith((".csv", ".tsv", ".csv.gz", ".tsv.gz")):
        return True
    if lower.endswith((".parquet", ".pq")) and os.path.isfile(path):
        import pyarrow.parquet as pq  # lazy: optional at this layer, and `import cranfield` stays light

        try:
            return "qid" not in pq.read_schema(path).names
        except Exception:  # not readable as Parquet: the usual reader says why
            return False
    return False


def _csv_header(path: str, delimiter: str) -> list[str]:
    import gzip

    opener = gzip.open if path.lower().endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return [c.strip() for c in handle.readline().rstrip("\r\n").split(delimiter)]


# ----------------------------------------------------------------------------- records and objects

def _from_records(records, kind: str, source: str) -> dict:
    """Namedtuples with ``query_id, doc_id`` and ``relevance`` / ``score`` → a dict."""
    iterator = iter(records)
    first = next(iterator, None)
    if first is None:
        return {}
    fields = getattr(first, "_fields", None)
    qid_f, doc_f, value_f = RECORD_FIELDS[kind]
    if fields is None or qid_f not in fields or doc_f not in fields or value_f not in fields:
        found = f"records with fields {', '.join(fields)}" if fields else f"items of type {type(first).__name__}"
        raise InputError(f"expected {kind} as a dict {{qid: {{docno: value}}}}, a DataFrame, a file, or "
                         f"namedtuples with fields {qid_f}, {doc_f}, {value_f} (ir_measures, ir_datasets); "
                         f"found {found}", source=source)
    out: dict = {}
    for record in itertools.chain([first], iterator):
        out.setdefault(str(getattr(record, qid_f)), {})[str(getattr(record, doc_f))] = getattr(record, value_f)
    return out


def _from_ranx(obj) -> dict:
    mapping = obj.to_dict() if hasattr(obj, "to_dict") else dict(obj)
    return {str(q): {str(d): v for d, v in docs.items()} for q, docs in mapping.items()}


def _load_irds(dataset_id: str):
    try:
        import ir_datasets
    except ImportError:
        raise UsageError(f"reading {IRDS_PREFIX}{dataset_id} needs the ir_datasets package; {IRDS_HINT}") from None
    try:
        return ir_datasets.load(dataset_id)
    except KeyError:
        raise InputError(f"ir_datasets has no dataset {dataset_id!r} (see ir_datasets' catalogue)",
                         source=f"{IRDS_PREFIX}{dataset_id}") from None


def _irds_records(dataset, kind: str):
    method = "qrels_iter" if kind == "qrels" else "scoreddocs_iter"
    has = getattr(dataset, f"has_{method[:-5]}", None)
    if not hasattr(dataset, method) or (has is not None and not has()):
        what = "relevance judgments (qrels)" if kind == "qrels" else "scored documents (a run)"
        raise InputError(f"this ir_datasets dataset has no {what}", source="ir_datasets dataset")
    return getattr(dataset, method)()
