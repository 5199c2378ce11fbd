"""ranx's JSON qrels and run files: ``{"q1": {"d1": 1, "d2": 0}, ...}`` (``.json``).

The grammar: one JSON object (RFC 8259, UTF-8) whose keys are query ids and whose values are
objects mapping document ids to a number — an integer relevance grade for qrels, a finite
number for a run's score. Everything else is an error naming the file and where: a syntax
error by its line and column, a key repeated in one object (which JSON parsers silently reduce
to the last one) by its key path, ``NaN`` / ``Infinity`` (not JSON) by its line. The shape and
the values are then checked by the same code as the ``{qid: {docno: value}}`` dict backend
(:func:`cranfield.retrieval._columns.columns_from_dict`), with the file as the source, so an
error says ``run.json: query 'q1', document 'd3': ...``. :func:`write_json_mapping` writes the
same form, atomically, with scores as Python's shortest round-trip text (read back ``==``).
"""

from __future__ import annotations

import json
import os

from ..errors import InputError
from .atomic import atomic_write

__all__ = ["is_json_path", "read_json_mapping", "write_json_mapping"]


def is_json_path(path) -> bool:
    """Whether ``path`` names a JSON qrels/run file (by its ``.json`` suffix)."""
    return isinstance(path, (str, os.PathLike)) and str(path).lower().endswith(".json")


class _Object(dict):
    """A JSON object that remembers the keys it saw more than once (a plain parser keeps the last)."""

    repeated: tuple = ()


def _object(pairs: list) -> dict:
    out = _Object(pairs)
    if len(out) != len(pairs):
        seen: set = set()
        out.repeated = tuple(k for k, _ in pairs if k in seen or seen.add(k))
    return out


def _constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def read_json_mapping(path: str | os.PathLike) -> dict:
    """The ``{qid: {docno: value}}`` object of a JSON file, checked for syntax and duplicate keys."""
    source = str(path)
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise InputError(f"cannot read: {error.strerror or error}", source=source) from None
    try:
        mapping = json.loads(data.decode("utf-8"), object_pairs_hook=_object, parse_constant=_constant)
    except UnicodeDecodeError as error:
        raise InputError(f"not UTF-8 (byte {error.start + 1})", source=source) from None
    except json.JSONDecodeError as error:
        raise InputError(f"invalid JSON at column {error.colno}: {error.msg}", source=source, line=error.lineno) from None
    except ValueError as error:  # NaN, Infinity
        raise InputError(str(error), source=source) from None
    if isinstance(mapping, _Object):
        if mapping.repeated:
            raise InputError(f"query {mapping.repeated[0]!r} appears twice", source=source)
        for qid, docs in mapping.items():  # a loop over queries, as the dict backend's
            if isinstance(docs, _Object) and docs.repeated:
                raise InputError(f"query {qid!r}, document {docs.repeated[0]!r}: appears twice", source=source)
    return mapping


def write_json_mapping(mapping: dict, path: str | os.PathLike) -> None:
    """Write ``{qid: {docno: value}}`` as JSON, atomically (all or nothing)."""
    with atomic_write(path) as handle:
        json.dump(mapping, handle, ensure_ascii=False, allow_nan=False)
        handle.write("\n")
