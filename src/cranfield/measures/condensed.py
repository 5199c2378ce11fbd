"""Condensed lists: the ranking with its unjudged documents removed (Sakai 2007).

Any measure takes ``judged_only=true`` (``nDCG(judged_only=true)@10``, ``AP(judged_only=true)``):
it is then computed on the condensed list of each query, where documents without a judgment
(absent from the qrels, or judged < 0) are dropped and the judged ones move up, keeping their
order. Without it, unjudged documents count as non-relevant (trec_eval's policy). The
evaluation-wide option ``judged_only=True`` (trec_eval ``-J``) does the same for every measure.

Named forms (the canonical form, the column name, stays ``M(judged_only=true)``):

* Sakai's prime notation: ``AP'``, ``nDCG'@10``, ``P'@10`` (and ``M'`` for any measure M:
  ``RR'``, ``ERR'@20``, ``alpha-nDCG'@20``);
* ``condensed_`` before any measure name: ``condensed_AP``, ``condensed_nDCG@10``,
  ``condensed_P@10``, ``condensed_map`` (trec_eval names too).

They sit next to the other incomplete-judgment measures: ``Bpref`` (Buckley & Voorhees 2004)
and ``infAP`` (Yilmaz & Aslam 2006). Sakai found AP', nDCG' and Q' more robust to incomplete
judgments than bpref.

Reference: Sakai, "Alternatives to bpref", SIGIR 2007; ir_measures' ``judged_only`` parameter
of nDCG, AP, P and RR computes the same.
"""

from __future__ import annotations

import re

import numpy as np

from .base import Measure, parse_measure, register_resolver
from .view import RankedView

__all__ = ["condensed", "view_for", "condensed_name"]

_PRIME = re.compile(r"\s*(?P<name>[A-Za-z_][A-Za-z0-9_\-]*)'(?P<rest>[^']*)")
_PREFIX = re.compile(r"\s*condensed[_-](?P<inner>\S.*)", re.IGNORECASE)


def condensed_name(text: str):
    """The :class:`~cranfield.measures.base.Measure` named by ``AP'``/``condensed_AP`` forms (with
    ``judged_only=true``), or None if ``text`` is not such a name.

    >>> str(condensed_name("nDCG'@10")), str(condensed_name("condensed_P@5")), condensed_name("AP")
    ('nDCG(judged_only=true)@10', 'P(judged_only=true)@5', None)
    """
    match = _PRIME.fullmatch(text)
    inner = match["name"] + match["rest"] if match else None
    if inner is None:
        match = _PREFIX.fullmatch(text)
        inner = match["inner"] if match else None
    if inner is None:
        return None
    measure = parse_measure(inner)
    return Measure(measure.name, {**dict(measure.params), "judged_only": True}, measure.cutoff)


def condensed(view):
    """The view restricted to judged documents (cached on the view)."""

    def build():
        keep = view.rel >= 0
        counts = np.bincount(view.seg[keep], minlength=view.n_queries)
        offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        out = RankedView(query_ids=view.query_ids, offsets=offsets, rel=view.rel[keep],
                         level_values=view.level_values, level_counts=view.level_counts,
                         relevance_level=view.relevance_level, in_run=view.in_run,
                         collection_size=view.collection_size,
                         propensity=None if view.propensity is None else view.propensity[keep])
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


register_resolver("retrieval", condensed_name, lambda: ())  # AP', nDCG'@10, condensed_P@10 (Sakai 2007)
