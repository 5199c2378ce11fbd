"""Running sums within each query, computed once and read at any rank: the sufficient statistic
that serves every cut-off of a measure (DCG@k and ideal DCG@k for all k from one pass).

Each query's values are added one by one in rank order starting from 0.0, as a sequential loop
does (and as ``np.bincount`` does over any prefix), so a value read at rank k is bit for bit the
sum of the first k terms; zeros added past a query's end leave it unchanged. Queries are laid out
in rows of 2-D grids (``np.add.accumulate`` along a row is sequential), grouped by length so that
padding costs at most as much as the values themselves. With the compiled core, the sums are one
flat array instead (:func:`cranfield._native.measure_kernels.segment_cumsum`, the same sequential
additions), read at ``start + k``; the only difference: a query's total read past its end is not
added to the padding zeros, which changes nothing but the sign of a total of -0.0.
"""

from __future__ import annotations

import numpy as np

from ._compiled import kernels

__all__ = ["RunningSums"]


class RunningSums:
    """Per-query running sums of ``values`` (concatenated over queries of ``lengths``)."""

    def __init__(self, values: np.ndarray | None, lengths: np.ndarray, flat: np.ndarray | None = None) -> None:
        """``flat`` (instead of values): 0.0, then the running sums of each query, queries in order."""
        lengths = np.asarray(lengths, dtype=np.int64)
        self.n = lengths.size
        self.lengths = lengths
        self.groups = []  # (query rows, grid of their running sums)
        native = kernels() if flat is None else None
        if native is not None:
            flat = np.frombuffer(native.segment_cumsum(np.ascontiguousarray(values, dtype=np.float64), lengths),
                                 dtype=np.float64)
        self.flat = flat
        if flat is not None:
            self.starts = np.cumsum(lengths) - lengths
            return
        if self.n == 0:
            return
        starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
        width = int(lengths.max())
        if self.n * width <= max(2 * values.size, 1 << 16):
            self.groups.append((None, self._grid(values, lengths, width)))
            return
        bucket = np.ceil(np.log2(np.maximum(lengths, 1))).astype(np.int64)  # lengths in (2^(b-1), 2^b]
        for b in np.flatnonzero(np.bincount(bucket)).tolist():  # at most 64 groups, each vectorised
            rows = np.flatnonzero(bucket == b)
            rows_lengths = lengths[rows]
            take = np.repeat(starts[rows] - (np.cumsum(rows_lengths) - rows_lengths), rows_lengths) \
                + np.arange(int(rows_lengths.sum()))
            self.groups.append((rows, self._grid(values[take], rows_lengths, int(rows_lengths.max()))))

    @staticmethod
    def _grid(values: np.ndarray, lengths: np.ndarray, width: int) -> np.ndarray:
        grid = np.zeros((lengths.size, max(width, 1)), dtype=np.float64)
        grid[np.arange(grid.shape[1]) < lengths[:, None]] = values
        np.add.accumulate(grid, axis=1, out=grid)
        return grid

    def at(self, k) -> np.ndarray:
        """Per query, the sum of its first ``k`` values (k scalar or per query; k ≤ 0 gives 0)."""
        k = np.asarray(k, dtype=np.int64)
        if self.flat is not None:
            m = np.minimum(k, self.lengths)
            return np.where(m > 0, self.flat[self.starts + np.maximum(m, 0)], 0.0)
        out = np.zeros(self.n, dtype=np.float64)
        for rows, grid in self.groups:
            kk = k if k.ndim == 0 else (k if rows is None else k[rows])
            last = np.minimum(kk, grid.shape[1]) - 1
            if kk.ndim == 0:
                values = grid[:, last] if last >= 0 else np.zeros(grid.shape[0])
            else:
                values = np.where(last >= 0, grid[np.arange(grid.shape[0]), np.maximum(last, 0)], 0.0)
            if rows is None:
                out[:] = values
            else:
                out[rows] = values
        return out

    def at_each(self, query: np.ndarray, k: np.ndarray) -> np.ndarray:
        """The sum of the first ``k[i]`` values of query ``query[i]``, for each i."""
        query = np.asarray(query, dtype=np.int64)
        k = np.asarray(k, dtype=np.int64)
        if self.flat is not None:
            m = np.minimum(k, self.lengths[query])
            return np.where(m > 0, self.flat[self.starts[query] + np.maximum(m, 0)], 0.0)
        out = np.zeros(query.size, dtype=np.float64)
        for rows, grid in self.groups:
            if rows is None:
                pick, local = slice(None), query
            else:
                where = np.full(self.n, -1, dtype=np.int64)
                where[rows] = np.arange(rows.size)
                local = where[query]
                pick = local >= 0
                local = local[pick]
            last = np.minimum(k[pick], grid.shape[1]) - 1
            out[pick] = np.where(last >= 0, grid[local, np.maximum(last, 0)], 0.0)
        return out
