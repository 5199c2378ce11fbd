"""A PyTerrier-style results table: one row per system, a column per measure, and, against a
baseline, how many queries went up or down, the paired t test's p-value and whether it rejects.

:func:`experiment` is :func:`~cranfield.stats.compare.compare` (the same evaluation, paired
test and corrections) laid out as ``pt.Experiment(..., baseline=, correction=)`` lays it out.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..errors import UsageError
from ..measures.base import parse_measure
from ..retrieval.results import aggregate
from .compare import compare

__all__ = ["experiment", "STATSMODELS_CORRECTIONS"]

# statsmodels' multipletests names (PyTerrier passes them through) -> cranfield's
STATSMODELS_CORRECTIONS = {"b": "bonferroni", "s": "sidak", "h": "holm", "hs": "holm-sidak", "sh": "hochberg",
                           "simes-hochberg": "hochberg", "ho": "hommel", "fdr_bh": "bh", "fdr_i": "bh",
                           "fdr_by": "by", "fdr_n": "by"}


def experiment(qrels, runs, measures, baseline=None, correction=None, *, alpha: float = 0.05,
               test: str = "t", missing: str = "error", evaluate_options: Mapping | None = None):
    """The wide pandas table of ``pt.Experiment``: a ``name`` column, then one column per measure
    (named as asked: ``"map"`` stays ``"map"``) holding its aggregate over the queries, the
    value :func:`cranfield.evaluate` gives (trec_eval's).

    ``runs``: a list of runs (named by ``run.name``) or a mapping name -> run (any form
    :func:`cranfield.read_run` takes). With ``baseline`` (a system's name or its position in
    ``runs``), each measure ``m`` also gets ``m +`` and ``m -`` (queries where the system is
    higher / lower than the baseline), ``m p-value`` (the two-sided paired ``test``, Student t
    by default: :func:`~cranfield.stats.paired.paired_pvalues`) and ``m reject`` (p ≤ ``alpha``
    after the ``correction`` over the systems compared with the baseline on that measure); with a
    ``correction`` (cranfield's names or statsmodels': ``"holm"``, ``"bonferroni"``, ``"fdr_bh"``,
    ``"hs"`` …), also ``m p-value corrected``
    (:func:`~cranfield.stats.corrections.adjust_pvalues`). The baseline's own row holds NaN
    there. ``missing`` and ``evaluate_options`` are :func:`~cranfield.stats.compare.compare`'s.

    >>> import cranfield
    >>> qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}, "q3": {"d1": 1}}
    >>> good = {"q1": {"d1": 2, "d2": 1}, "q2": {"d2": 2, "d1": 1}, "q3": {"d1": 2, "d2": 1}}
    >>> bad = {"q1": {"d2": 2, "d1": 1}, "q2": {"d1": 2, "d2": 1}, "q3": {"d1": 2, "d2": 1}}
    >>> experiment(qrels, {"bad": bad, "good": good}, ["map"], baseline="bad")
       name       map  map +  map -  map p-value map reject
    0   bad  0.666667    NaN    NaN          NaN       None
    1  good  1.000000    2.0    0.0     0.183503      False
    """
    import pandas as pd

    asked = [measures] if isinstance(measures, str) or not isinstance(measures, (list, tuple)) else list(measures)
    keys = [str(parse_measure(m)) for m in asked]
    labels = [str(m) for m in asked]
    method = "none" if correction is None else STATSMODELS_CORRECTIONS.get(str(correction), str(correction))
    names = [str(n) for n in runs] if isinstance(runs, Mapping) else [
        str(getattr(r, "name", None) or f"run{i + 1}") for i, r in enumerate(runs)]
    if baseline is not None and not isinstance(baseline, str):
        if isinstance(baseline, bool) or not isinstance(baseline, (int, np.integer)) or not 0 <= baseline < len(names):
            raise UsageError(f"baseline: expected a system's name or its position 0..{len(names) - 1}, found {baseline!r}")
        baseline = names[int(baseline)]
    c = compare(qrels, runs, keys, test=test, correction=method, baseline=baseline, alpha=alpha, missing=missing,
                evaluate_options=evaluate_options)
    frame = pd.DataFrame({"name": list(c.systems)})
    for key, label in zip(keys, labels):  # trec_eval's aggregate, as cranfield.evaluate's mean
        how = parse_measure(key).family.aggregate
        frame[label] = [aggregate(row, how) for row in c.values(key)]
    if baseline is None:
        return frame
    for key, label in zip(keys, labels):
        pairs = {p.a: p for p in c.pairs if p.measure == key}  # the baseline has none
        ordered = [pairs.get(system) for system in c.systems]
        frame[f"{label} +"] = [np.nan if p is None else p.wins for p in ordered]
        frame[f"{label} -"] = [np.nan if p is None else p.losses for p in ordered]
        frame[f"{label} p-value"] = [np.nan if p is None else p.p_value for p in ordered]
        frame[f"{label} reject"] = pd.array([None if p is None else p.significant for p in ordered], dtype="object")
        if correction is not None:
            frame[f"{label} p-value corrected"] = [np.nan if p is None else p.p_adjusted for p in ordered]
    return frame
