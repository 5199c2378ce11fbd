"""Condensed lists: the ranking with its unjudged documents removed (Sakai 2007).

Any measure takes ``judged_only=true`` (``nDCG(judged_only=true)@10``, ``AP(judged_only=true)``):
it is then computed on the condensed list of each query, where documents without a judgment
(absent from the qrels, or judged < 0) are dropped and the judged ones move up, keeping their
order. Without it, unjudged documents count as non-relevant (trec_eval's policy). The
evaluation-wide option ``judged_only=True`` (trec_eval ``-J``) does the same for every measure.

Reference: Sakai, "Alternatives to bpref", SIGIR 2007; ir_measures' ``judged_only`` parameter
of nDCG and AP computes the same.
"""

from __future__ import annotations

import numpy as np

__all__ = ["condensed", "view_for"]


def condensed(view):
    """The view restricted to judged documents (cached on the view)."""

    def build():
        from ..retrieval.ranked import RankedView

        keep = view.rel >= 0
        counts = np.bincount(view.seg[keep], minlength=view.n_queries)
        offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        out = RankedView(query_ids=view.query_ids, offsets=offsets, rel=view.rel[keep],
                         level_values=view.level_values, level_counts=view.level_counts,
                         relevance_level=view.relevance_level, in_run=view.in_run,
                         collection_size=view.collection_size)
        intents = view._cache.get(("diversity",))  # diversity qrels' intents follow their documents
        if intents is not None:
            out._cache[("diversity",)] = intents.subset(keep)
        return out

    if not (view.rel < 0).any():
        return view
    return view.cached(("condensed",), build)


def view_for(view, measure):
    """The view a measure is computed on: condensed when it has ``judged_only=true``."""
    return condensed(view) if measure.param("judged_only") else view
