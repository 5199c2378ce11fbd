"""The compiled measure kernels (:mod:`cranfield._native.measure_kernels`), where the package was built.

Each family's registered kernel stays its one entry point: it asks :func:`kernels` and takes the
compiled pass when there is one, else its numpy code; the two give bit-identical values (the
compiled pass does the same float operations in the same order, and its logarithms come from
numpy: :func:`log2_table`). ``ENABLED`` lets the tests switch the compiled pass off to compare.
"""

from __future__ import annotations

import numpy as np

try:  # the compiled core (setup.py builds it); without it, the numpy kernels do the job
    from .._native import measure_kernels as _module
except ImportError:  # pragma: no cover - a source tree that was not built
    _module = None

__all__ = ["ENABLED", "binary_pass", "gain_pass", "kernels", "log2_table"]

ENABLED = True
_LOGS = np.zeros(0)


def kernels():
    """The compiled module, or None (not built, or switched off)."""
    return _module if ENABLED else None


def log2_table(size: int) -> np.ndarray:
    """At least ``size`` values log2(2 + k), k = 0, 1, …, computed by numpy (whose SIMD log2 may
    differ from libm's in the last bit): the discount of rank k + 1, shared by both paths."""
    global _LOGS
    table = _LOGS
    if table.size < size:
        table = np.log2(np.arange(2, max(size, 2 * table.size, 1024) + 2, dtype=np.float64))
        _LOGS = table  # replaced whole: a thread reading the old table still holds a valid one
    return table


def _ints(values) -> np.ndarray:
    return np.ascontiguousarray(values, dtype=np.int64)


_GAIN_PASS = ("dcg", "ndcg_rel", "rndcg", "g_args", "g_gains", "g_queries", "sum_ideal")
_BINARY_PASS = ("infap", "bpref", "bing", "num_rel_ret", "num_nonrel_judged_ret", "iprec")
_INTEGERS = ("g_queries", "num_rel_ret", "num_nonrel_judged_ret")


def _arrays(names, buffers) -> dict:
    return {name: np.frombuffer(buffer, dtype=np.int64 if name in _INTEGERS else np.float64)
            for name, buffer in zip(names, buffers)}


def gain_pass(view, gv) -> dict | None:
    """The statistics of the graded-gain measures of a view and its gain view ``gv``, from one
    compiled pass (memoised in ``gv``), or None without the compiled core: ``dcg`` (0, then the
    running DCG of each query: a :class:`~._running.RunningSums` flat array), ``ndcg_rel`` and
    ``rndcg`` (per query), ``g_args``, ``g_gains``, ``g_queries`` and ``sum_ideal`` (G, see
    gain.py)."""
    native = kernels()
    if native is None or view.offsets[0] != 0:
        return None
    if "compiled" not in gv.memo:
        ideal_len = _ints(gv.ideal_len)
        longest = max(int(view.num_ret.max(initial=0)), int(ideal_len.max(initial=0)))
        gv.memo["compiled"] = _arrays(_GAIN_PASS, native.gain_pass(
            _ints(view.rel), _ints(view.offsets), _ints(gv.level_values),
            np.ascontiguousarray(gv.level_gain, dtype=np.float64), log2_table(longest),
            np.ascontiguousarray(gv.ideal, dtype=np.float64), ideal_len, _ints(view.num_rel)))
    return gv.memo["compiled"]


def binary_pass(v) -> dict | None:
    """The statistics of the binary measures of view ``v`` (at its relevance level), from one compiled
    pass (memoised in the view), or None without the compiled core: per query ``infap``, ``bpref``,
    ``bing``, ``num_rel_ret`` and ``num_nonrel_judged_ret``; ``iprec``: per relevant document in rank
    order, the highest precision at or below it."""
    native = kernels()
    if native is None:
        return None
    return v.cached(("compiled-binary", v.relevance_level), lambda: _arrays(_BINARY_PASS, native.binary_pass(
        _ints(v.rel), _ints(v.offsets), v.relevance_level, _ints(v.num_rel), _ints(v.num_nonrel),
        log2_table(int(v.num_ret.max(initial=0))))))
