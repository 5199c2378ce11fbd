"""A system's ranked answers (a run): ``qid Q0 docno rank score tag``."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from .._arrow import query_block_starts
from ..io.ecosystem import run_source
from ..io.trec_grammar import check_dialect
from ._table import TrecTable

__all__ = ["Run", "read_run", "drop_self"]


class Run(TrecTable):
    """Retrieved documents with scores. The rank column of TREC files is ignored: documents
    are ordered by score (descending) and ties by docno (descending, byte-wise), as trec_eval."""

    value_field = "score"
    value_dtype = np.float64
    default_source = "run"
    #: the run tag of the last row of the TREC file it was read from (trec_eval's runid), else None
    last_tag: "str | None" = None

    @property
    def score(self) -> np.ndarray:
        return self.values

    @classmethod
    def from_file(cls, path: "str | os.PathLike", *, name: str | None = None, dialect: str = "cranfield") -> "Run":
        """Read a TREC run file. The name defaults to the tag of its first line. ``dialect``:
        ``"cranfield"``, ``"trec_eval-9"`` or ``"trec_eval-10"`` (see :mod:`cranfield.io.trec_grammar`)."""
        run, cols = cls._from_file(path, "run", dialect=dialect)
        run.name = name or (cols.tag if cols is not None else None) or (Path(str(path)).name if str(path) != "-" else "run")
        run.last_tag = getattr(cols, "last_tag", None)
        return run

    @classmethod
    def from_frame(cls, frame, *, qid: str = "qid", docno: str = "docno", value: str | None = None,
                   name: str | None = None) -> "Run":
        run = super().from_frame(frame, qid=qid, docno=docno, value=value, name=name)
        run.name = name or "run"
        return run

    @classmethod
    def from_dict(cls, mapping: dict, *, name: str | None = None) -> "Run":
        """From ``{qid: {docno: score}}``: its columns built by the compiled core when it takes the
        dict, else by the checks of :mod:`cranfield.io.values` (see :meth:`TrecTable.from_dict`)."""
        run = super().from_dict(mapping, name=name)
        run.name = name or "run"
        return run

    def to_trec(self, path: "str | os.PathLike", *, tag: str | None = None) -> None:
        """Write as a TREC run (ranks by trec_eval's order), atomically."""
        import pyarrow as pa
        import pyarrow.compute as pc

        table = pa.table({"qid": self.qid, "score": self.values, "docno": self.docno})
        order = pc.sort_indices(table, sort_keys=[("qid", "ascending"), ("score", "descending"), ("docno", "descending")])
        table = table.take(order)
        n = table.num_rows
        starts = query_block_starts(table.column("qid"))
        ranks = np.arange(n) - np.repeat(starts, np.diff(np.r_[starts, n])) + 1
        label = tag or self.name or "cranfield"
        self._write_lines(path, (f"{q} Q0 {d} {r} {s!r} {label}\n" for q, d, r, s in
                                 zip(table.column("qid").to_pylist(), table.column("docno").to_pylist(),
                                     ranks.tolist(), table.column("score").to_pylist())))

def read_run(source, *, name: str | None = None, dialect: str = "cranfield") -> Run:
    """A run from a file path, '-', a ``{qid: {docno: score}}`` dict, a DataFrame or Arrow
    table, or an existing :class:`Run`; other tools' forms are converted by :mod:`cranfield.io.ecosystem`.
    ``dialect`` applies to TREC text files (see :mod:`cranfield.io.trec_grammar`)."""
    check_dialect(dialect)
    source, name = run_source(source, name=name)
    if isinstance(source, Run):
        return source
    if isinstance(source, dict):
        return Run.from_dict(source, name=name)
    if isinstance(source, (str, os.PathLike)):
        return Run.from_file(source, name=name, dialect=dialect)
    return Run.from_frame(source, name=name)


def drop_self(run: Run) -> Run:
    """``run`` without the rows whose docno equals their query id (``ignore_self``), or ``run``
    itself when there is none: one Arrow comparison of the two columns, no loop over rows.

    BEIR's practice for ArguAna and Quora, where each query is also a document of the corpus
    (terrierteam/ir_measures#47): only the run's rows are dropped; the qrels are left as they are,
    so a judged query document still counts in R (BEIR's evaluator does the same).

    >>> run = Run.from_dict({"q1": {"q1": 9.0, "d1": 1.0}, "q2": {"d2": 1.0}})
    >>> drop_self(run).to_dict()
    {'q1': {'d1': 1.0}, 'q2': {'d2': 1.0}}
    """
    import pyarrow.compute as pc

    same = pc.equal(run.qid, run.docno)
    if not pc.any(same).as_py():
        return run
    keep = np.flatnonzero(~np.asarray(same.to_numpy(zero_copy_only=False), dtype=bool))
    out = Run(run.qid.take(keep), run.docno.take(keep), run.values[keep], source=run.source,
              lines=run.lines[keep], name=run.name, _trusted=True)
    return out
