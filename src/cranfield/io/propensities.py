"""Propensity files: ``docno propensity`` per line, for the propensity-scored measures (PSP@k,
PSnDCG@k; Jain, Prabhu & Varma, KDD 2016).

Grammar (the one of every path: a text file, '-' for standard input, or a ``{docno: propensity}``
mapping): each non-blank line holds exactly two fields separated by ASCII whitespace, a docno
(the TREC id rules: no whitespace) and a propensity, a decimal number with 0 < p ≤ 1 (the
probability that a relevant document is observed, i.e. labelled). A docno given twice is an
error naming both lines. Blank lines are skipped. Errors name file:line:field.

The file is checked as a whole with array operations (fields per line counted by the positions
of the token starts), never line by line; only an error's line is looked for in a loop.

    >>> p = read_propensities({"d1": 0.5, "d2": 1})
    >>> p.docno.to_pylist(), p.value.tolist()
    (['d1', 'd2'], [0.5, 1.0])
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import InputError
from .values import WHITESPACE

__all__ = ["Propensities", "read_propensities"]

_SPACE = np.zeros(256, dtype=bool)
_SPACE[list(WHITESPACE)] = True


@dataclass(frozen=True)
class Propensities:
    """Propensity of each listed document (docno: Arrow strings, value: float64 in (0, 1])."""

    docno: pa.Array
    value: np.ndarray
    source: str = "propensities"

    def lookup(self, docno) -> np.ndarray:
        """The propensity of each of ``docno`` (Arrow strings), NaN where a document is not listed."""
        index = pc.index_in(docno, value_set=self.docno)
        found = index.is_valid().to_numpy(zero_copy_only=False)
        out = np.full(len(docno), np.nan)
        out[found] = self.value[index.drop_null().to_numpy()]
        return out


def read_propensities(source: str | os.PathLike | Mapping | Propensities) -> Propensities:
    """Read propensities from a file path ('-': standard input) or a ``{docno: propensity}`` mapping."""
    if isinstance(source, Propensities):
        return source
    if isinstance(source, Mapping):
        return _from_mapping(source)
    name = str(source)
    try:
        data = sys.stdin.buffer.read() if name == "-" else open(source, "rb").read()  # noqa: SIM115
    except OSError as exc:
        raise InputError(f"cannot read the propensity file: {exc.strerror}", source=name) from None
    return _from_bytes(data, name)


def _from_mapping(mapping: Mapping) -> Propensities:
    docnos = [str(d) for d in mapping]
    try:
        values = np.array([float(v) for v in mapping.values()], dtype=np.float64)
    except (TypeError, ValueError):
        bad = next(d for d, v in mapping.items() if not _is_number(v))
        raise InputError(f"docno {bad!r}: expected a propensity (a number), found {mapping[bad]!r}",
                         source="propensities", field="propensity") from None
    for index, docno in enumerate(docnos):  # error path only: the first bad id or value
        if not docno or any(c in docno for c in WHITESPACE.decode()):
            raise InputError(f"expected a docno without whitespace, found {docno!r}", source="propensities",
                             line=index + 1, field="docno")
    _check_values(values, "propensities", lambda i: f"docno {docnos[i]!r}: ", np.arange(1, values.size + 1))
    return Propensities(pa.array(docnos, pa.string()), values, "propensities")


def _is_number(value) -> bool:
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return not isinstance(value, bool)


def _from_bytes(data: bytes, source: str) -> Propensities:
    raw = np.frombuffer(data, dtype=np.uint8)
    space = _SPACE[raw] if raw.size else np.zeros(0, dtype=bool)
    starts = np.flatnonzero(~space & np.concatenate(([True], space[:-1])))  # first byte of each token
    line_of_byte = np.cumsum(raw == ord("\n")) + 1  # 1-based line of each byte
    token_line = line_of_byte[starts] if starts.size else np.zeros(0, dtype=np.int64)
    lines, fields = np.unique(token_line, return_counts=True)
    if (fields != 2).any():
        line = int(lines[np.argmax(fields != 2)])
        found = int(fields[np.argmax(fields != 2)])
        raise InputError(f"expected 2 fields (docno propensity), found {found}", source=source, line=line)
    tokens = data.split()
    try:
        docnos = pa.array(tokens[0::2], pa.binary()).cast(pa.string())
    except pa.ArrowInvalid:
        bad = next(i for i, t in enumerate(tokens[0::2]) if not _utf8(t))
        raise InputError("expected a docno in UTF-8", source=source, line=int(lines[bad]), field="docno") from None
    texts = tokens[1::2]
    try:
        values = np.array(texts, dtype=np.bytes_).astype(np.float64) if texts else np.zeros(0)
    except ValueError:
        bad = next(i for i, t in enumerate(texts) if not _is_number(t))
        raise InputError(f"expected a propensity (a number), found {texts[bad].decode(errors='replace')!r}",
                         source=source, line=int(lines[bad]), field="propensity") from None
    _check_values(values, source, None, lines)
    _check_unique(docnos, source, lines)
    return Propensities(docnos, values, source)


def _utf8(token: bytes) -> bool:
    try:
        token.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _check_values(values: np.ndarray, source: str, where, lines: np.ndarray) -> None:
    bad = ~(np.isfinite(values) & (values > 0) & (values <= 1))
    if bad.any():
        index = int(np.argmax(bad))
        prefix = where(index) if where else ""
        raise InputError(f"{prefix}expected a propensity p with 0 < p ≤ 1, found {float(values[index])!r}", source=source,
                         line=int(lines[index]), field="propensity")


def _check_unique(docnos: pa.Array, source: str, lines: np.ndarray) -> None:
    if len(docnos) < 2:
        return
    indices = pc.dictionary_encode(docnos).indices.to_numpy()
    first = np.full(indices.max() + 1, -1, dtype=np.int64)
    first[indices[::-1]] = np.arange(indices.size)[::-1]  # first occurrence of each docno
    repeated = first[indices] != np.arange(indices.size)
    if repeated.any():
        index = int(np.argmax(repeated))
        raise InputError(f"docno {docnos[index].as_py()!r} given twice (also on line {int(lines[first[indices[index]]])})",
                         source=source, line=int(lines[index]), field="docno")
