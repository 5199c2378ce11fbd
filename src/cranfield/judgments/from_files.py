"""The judgment commands' analyses from the files they name (``cranfield pool``,
``reusability``, ``judges``, ``agreement``, ``aggregate-labels``): read the runs, qrels, groups
and labels through their readers, run the analysis; the commands only render the results."""

from __future__ import annotations

from ..io.labels import read_labels
from ..io.run_groups import read_run_groups
from ..retrieval.inputs import read_qrels_file, read_runs
from .agreement import assessor_agreement, ranking_agreement
from .crowd import aggregate_labels
from .judges import judge_agreement, merge_judgments
from .pooling import build_pool
from .reusability import groups_by_prefix, leave_one_out

__all__ = ["pool_from_files", "reusability_from_files", "judges_from_files", "agreement_from_files",
           "aggregate_label_file"]


def pool_from_files(specs, *, run_columns: str | None = None, qrels: str | None = None,
                    qrels_columns: str | None = None, **options):
    """The pool of the runs of ``specs`` (``(path, label or None)``) by :func:`build_pool`
    (``options``: method, depth, budget, p, rrf_k, relevance_level), with the qrels at ``qrels``
    for MTF."""
    named = read_runs(specs, run_columns=run_columns)
    judgments = read_qrels_file(qrels, qrels_columns) if qrels is not None else None
    return build_pool(named, qrels=judgments, **options)


def reusability_from_files(qrels, specs, measures=None, *, depth: int | None = None, groups: str | None = None,
                           group_by: str = "run", prefix_length: int | None = None, relevance_level: int = 1,
                           qrels_columns: str | None = None, run_columns: str | None = None,
                           with_pool: bool = False):
    """``(Reusability, Pool or None)``: :func:`leave_one_out` of the runs of ``specs`` (measures
    default AP), the runs grouped by the ``groups`` file, by name prefix (``group_by="prefix"``)
    or one by one; with ``with_pool`` also the depth pool of all the runs (for the HTML page)."""
    named = read_runs(specs, run_columns=run_columns)
    mapping = None
    if groups is not None:
        mapping = read_run_groups(groups)
    elif group_by == "prefix":
        mapping = groups_by_prefix(list(named), length=prefix_length)
    result = leave_one_out(read_qrels_file(qrels, qrels_columns), named, list(measures or ()) or ["AP"], depth=depth,
                           groups=mapping, relevance_level=relevance_level)
    return result, (build_pool(named, method="depth", depth=depth) if with_pool else None)


def judges_from_files(human, model, specs=(), *, policy: str | None = None, **options):
    """``(JudgeAgreement, merged Qrels or None)``: :func:`judge_agreement` of the ``model``
    judgments with the ``human`` ones (files), systems from the runs of ``specs``; with
    ``policy``, the two sets merged by :func:`merge_judgments`."""
    named = read_runs(specs) if specs else {}
    result = judge_agreement(read_qrels_file(human), read_qrels_file(model), list(named.values()), **options)
    merged = merge_judgments(read_qrels_file(human), read_qrels_file(model), policy=policy) if policy else None
    return result, merged


def agreement_from_files(qrels, runs=(), *, names=None, measure: str = "AP", relevance_level: int = 1, **options):
    """``(Agreement, RankingAgreement or None)``: :func:`assessor_agreement` of the qrels files
    (``options``: missing, n_resamples, confidence, random_state) and, with ``runs``, the system
    rankings under each set (:func:`ranking_agreement`)."""
    result = assessor_agreement(list(qrels), names=names, relevance_level=relevance_level, **options)
    ranking = ranking_agreement(list(qrels), list(runs), measure=measure, names=result.names,
                                relevance_level=relevance_level) if runs else None
    return result, ranking


def aggregate_label_file(labels, *, columns: dict | None = None, delimiter: str | None = None, **options):
    """The crowd labels at ``labels`` merged into qrels by :func:`aggregate_labels`
    (``options``: method, ties, max_iter, tol)."""
    return aggregate_labels(read_labels(labels, columns=columns, delimiter=delimiter), **options)
