"""Read a TREC run (text, gzip or Parquet) block by block, in bounded memory.

Each block is ``(qid, docno, score, lines)``: Arrow string arrays, float64 scores and the 1-based
line number of each row (None when row ``i`` of the block is line ``first + i``, see
:class:`Block`). Text goes through the same loop as the whole-file reader
(:func:`cranfield.io.trec.iter_parsed`), so it follows the one grammar of
:mod:`cranfield.io.trec_grammar` (per block: the verified fast path or the reference parser)
and gives the same rows or the same error, whatever the block size.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import numpy as np

from ..errors import InputError
from .parquet import count_rows, is_parquet, iter_parquet_batches
from .trec import iter_parsed
from .trec_grammar import check_dialect

__all__ = ["Block", "iter_run_blocks", "input_size"]


@dataclass
class Block:
    """Rows of a run: ``lines`` is the line number of each row, or None for ``first, first+1, …``."""

    qid: object  # pyarrow string Array
    docno: object
    score: np.ndarray
    lines: np.ndarray | None
    first: int
    position: int  # bytes (text) or rows (Parquet) consumed so far, for progress
    tag: str | None = None  # run tag of the block's first row (text)
    query_starts: np.ndarray | None = None  # first row of each run of equal query ids, if known

    def __len__(self) -> int:
        return len(self.score)

    def line_numbers(self) -> np.ndarray:
        if self.lines is not None:
            return self.lines
        return np.arange(self.first, self.first + len(self.score), dtype=np.int64)


def input_size(path: "str | os.PathLike") -> tuple[int, str]:
    """(total, unit) of the input for progress: bytes of a text file, rows of a Parquet dataset."""
    if is_parquet(path):
        return count_rows(path, kind="run"), "rows"
    return Path(path).stat().st_size, "bytes"


def iter_run_blocks(path: "str | os.PathLike", *, block_bytes: int = 1 << 26, batch_rows: int = 1 << 20,
                    general: bool = False, dialect: str = "cranfield") -> Iterator[Block]:
    """Yield the blocks of a run file (TREC text, gzip, or Parquet file/dataset) in file order.

    Text: blocks of about ``block_bytes`` bytes of whole lines, read with ``dialect``
    (see :mod:`cranfield.io.trec_grammar`); ``general=True`` uses the reference parser only
    (the same rows). Parquet: about ``batch_rows`` rows per block.
    """
    check_dialect(dialect)
    file_path = Path(path)
    if is_parquet(path):
        import pyarrow as pa

        for qid, docno, score, first in iter_parquet_batches(path, kind="run", batch_rows=batch_rows):
            qid = qid if isinstance(qid, pa.Array) else qid.combine_chunks()
            score = score.astype(np.float64, copy=False)
            finite = np.isfinite(score)
            if not finite.all():  # as the whole-file Parquet reader (Run's check): no NaN/inf score
                index = int(np.flatnonzero(~finite)[0])
                raise InputError(f"expected a finite number, found {score[index].item()!r}", source=str(path),
                                 line=first + index, field="score")
            yield Block(qid, docno, score, None, first, first - 1 + len(score))
        return
    if file_path.is_dir():
        raise InputError("is a directory, expected a file or a Parquet dataset", source=str(path))
    positions: list[int] = []
    for parsed in iter_parsed(path, "run", dialect=dialect, chunk_bytes=block_bytes, general=general,
                              positions=positions):
        yield Block(_array(parsed.qid), _array(parsed.docno), parsed.value, parsed.lines, parsed.first,
                    positions[-1], parsed.tag, parsed.query_starts)


def _array(values):
    import pyarrow as pa

    if isinstance(values, pa.ChunkedArray):
        return values.combine_chunks() if values.num_chunks != 1 else values.chunk(0)
    return values
