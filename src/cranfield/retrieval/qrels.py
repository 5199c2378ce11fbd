"""Relevance judgments (qrels): ``qid iter docno rel``."""

from __future__ import annotations

import os

import numpy as np

from ..io.ecosystem import qrels_source
from ..io.trec_grammar import check_dialect
from ._table import TrecTable

__all__ = ["Qrels", "read_qrels"]


class Qrels(TrecTable):
    """Relevance judgments. ``rel`` is an integer; rel ≥ ``relevance_level`` is relevant, a
    negative rel means "in the pool but not judged" (trec_eval's convention)."""

    value_field = "rel"
    value_dtype = np.int64
    default_source = "qrels"

    @property
    def rel(self) -> np.ndarray:
        return self.values

    @classmethod
    def from_file(cls, path: "str | os.PathLike", *, dialect: str = "cranfield") -> "Qrels":
        """Read a TREC qrels file (plain, .gz, or '-' for standard input). ``dialect``:
        ``"cranfield"``, ``"trec_eval-9"`` or ``"trec_eval-10"`` (comments and blank lines; see
        :mod:`cranfield.io.trec_grammar`)."""
        qrels, _ = cls._from_file(path, "qrels", dialect=dialect)
        return qrels

    def to_trec(self, path: "str | os.PathLike") -> None:
        """Write as TREC qrels text (``qid 0 docno rel``), atomically."""
        self._write_lines(path, (f"{q} 0 {d} {r}\n" for q, d, r in
                                 zip(self.qid.to_pylist(), self.docno.to_pylist(), self.values.tolist())))


def read_qrels(source, *, dialect: str = "cranfield") -> Qrels:
    """Qrels from a file path, '-', a ``{qid: {docno: rel}}`` dict, a DataFrame or Arrow table,
    or an existing :class:`Qrels`; other tools' forms are converted by :mod:`cranfield.io.ecosystem`.
    ``dialect`` applies to TREC text files (see :mod:`cranfield.io.trec_grammar`)."""
    check_dialect(dialect)
    source = qrels_source(source)
    if isinstance(source, Qrels):
        return source
    if isinstance(source, dict):
        return Qrels.from_dict(source)
    if isinstance(source, (str, os.PathLike)):
        return Qrels.from_file(source, dialect=dialect)
    return Qrels.from_frame(source)
