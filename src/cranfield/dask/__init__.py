"""Evaluation on a Dask cluster (optional extra: ``pip install 'cranfield[dask]'``).

Retrieval: :func:`evaluate` takes a run as a Dask DataFrame or a Parquet dataset (partitioned in
any way) and qrels in memory (broadcast to the workers) or as a Dask DataFrame (co-partitioned
with the run by query); each partition holding whole queries is evaluated by the same kernels as
the in-memory path and the per-query values are gathered: the :class:`~cranfield.Results` are
identical to :func:`cranfield.evaluate` on the whole data, and statistics and comparisons
(:func:`cranfield.compare_values`) work on them as usual.

Classification: :func:`score_stats` merges, by a tree reduction, the counts of positives and
negatives per distinct score of every partition into a :class:`ScoreStats`, from which the exact
ROC/PR/DET curves, AUC, AP and the confusion matrix at any threshold are derived; with ``bins``,
a bounded-memory approximation with an error bound (:class:`ScoreStats` too, ``exact=False``).

Dask is imported on first use only; ``import cranfield.dask`` alone needs nothing more.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "evaluate": "cranfield.dask.retrieval",
    "score_stats": "cranfield.dask.classification",
    "ScoreStats": "cranfield.dask.counts",
}

__all__ = list(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'cranfield.dask' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
