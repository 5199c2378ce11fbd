"""Beyond-accuracy measures of recommendation lists: catalog coverage, novelty, Gini index of
exposure, average recommendation popularity (ARP) and average percentage of long-tail items (APLT).

The lists are a run: each query is a user, its top ``k`` documents (trec_eval's order: score
descending, ties by docno descending) the items recommended to them. Item popularity comes from
the training interactions, given as qrels (``user 0 item rel``, a file, dict or frame): the
popularity φ(i) of an item is the number of users with an interaction rel > 0 with it, |U| the
number of users in those qrels. These are measures of the whole set of lists, not per query:
plain functions, not registry measures (the registry's measures are per query).

* coverage = |items recommended to someone| / |catalog|, the catalog being the items of the
  interactions (any rel) and the recommended ones, or ``catalog_size`` items;
* novelty = mean over recommended (user, item) pairs of −log2(φ(i)/|U|) (Castells & Vargas'
  self-information; Microsoft recommenders' ``novelty``); recommended items without interactions
  have no finite self-information: they are left out, and ``unseen`` gives their share of the pairs;
* gini = Σ_{j=1}^{n} (2j − n − 1) c_(j) / (n Σ c), c_(1) ≤ … ≤ c_(n) the number of lists that hold
  each of the n catalog items (0 for those never recommended; RecBole's GiniIndex), 0 without any;
* ARP = mean over users of the mean φ(i) of their list (Abdollahpouri et al. 2019);
* APLT = mean over users of the share of their list in the long tail Γ: the items outside the
  short head, the most popular items (popularity descending, ties by docno) that together hold
  ``head_share`` (20%) of the interactions — the first item that reaches the share included.
  Items without interactions are in the tail.

Everything is computed with array operations over all lists at once (no loop over users or items).

References: Castells, Hurley & Vargas, "Novelty and diversity in recommender systems",
Recommender Systems Handbook 2015 (novelty as self-information); Abdollahpouri, Burke & Mobasher,
"Managing popularity bias in recommender systems with personalized re-ranking", FLAIRS 2019 (ARP,
APLT, the 20% head); Zhao et al., RecBole 2021 (GiniIndex, ItemCoverage).

    >>> train = {"u1": {"a": 1, "b": 1}, "u2": {"a": 1, "c": 0}}
    >>> lists = {"u1": {"a": 2.0, "c": 1.0}, "u2": {"b": 1.0}}
    >>> r = beyond_accuracy(lists, train, k=2)
    >>> r["coverage"], r["arp"], r["aplt"], r["unseen"]
    (1.0, 1.0, 0.75, 0.3333333333333333)
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .._params import check_count, check_fraction
from .._arrow import query_block_starts
from ..errors import UsageError
from .inputs import read_runs
from .qrels import read_qrels
from .run import read_run

__all__ = ["BEYOND_ACCURACY", "beyond_accuracy", "beyond_accuracy_of_runs"]

BEYOND_ACCURACY = ("coverage", "novelty", "gini", "arp", "aplt")


def _top_k(run, k: int) -> tuple[np.ndarray, pa.ChunkedArray]:
    """(list number, item) of the top k rows of each query, in trec_eval's order."""
    table = pa.table({"qid": run.qid, "score": run.score, "docno": run.docno})
    order = pc.sort_indices(table, sort_keys=[("qid", "ascending"), ("score", "descending"), ("docno", "descending")])
    table = table.take(order)
    starts = query_block_starts(table.column("qid"))
    lengths = np.diff(np.append(starts, table.num_rows))
    user = np.repeat(np.arange(starts.size), lengths)
    rank = np.arange(table.num_rows) - np.repeat(starts, lengths)
    keep = np.flatnonzero(rank < k)
    return user[keep], table.column("docno").take(pa.array(keep))


def beyond_accuracy(run, interactions, *, k: int = 10, head_share: float = 0.2,
                    catalog_size: int | None = None) -> dict:
    """Coverage, novelty, Gini, ARP and APLT of the top-``k`` lists of ``run`` given the training
    ``interactions`` (qrels form); also ``lists``, ``k``, ``catalog`` and ``unseen`` (the share of
    recommended pairs whose item has no interaction). See the module's text for the definitions."""
    k = check_count(k, "k")
    check_fraction(head_share, "head_share")
    run, train = read_run(run), read_qrels(interactions)
    user, items = _top_k(run, int(k))
    # one code per distinct item of the interactions and the lists
    encoded = pa.chunked_array([*train.docno.chunks, *items.chunks], pa.string()).unique()
    train_code = pc.index_in(train.docno, value_set=encoded).to_numpy(zero_copy_only=False).astype(np.int64)
    item_code = pc.index_in(items, value_set=encoded).to_numpy(zero_copy_only=False).astype(np.int64)
    positive = train.rel > 0
    popularity = np.bincount(train_code[positive], minlength=len(encoded)).astype(np.float64)
    n_users = len(pc.unique(train.qid))
    n_catalog = len(encoded) if catalog_size is None else int(catalog_size)
    if n_catalog < len(np.unique(item_code)):
        raise UsageError(f"catalog_size={catalog_size} is below the {len(np.unique(item_code))} items recommended")
    n_lists = int(user.max()) + 1 if user.size else 0
    list_len = np.bincount(user, minlength=n_lists).astype(np.float64)
    phi = popularity[item_code]
    exposure = np.bincount(item_code, minlength=len(encoded)).astype(np.float64)
    counts = np.sort(np.concatenate((exposure, np.zeros(n_catalog - len(encoded))))) if n_catalog >= len(encoded) \
        else np.sort(exposure[exposure > 0])
    j = np.arange(1, counts.size + 1)
    gini = float(((2 * j - counts.size - 1) * counts).sum() / (counts.size * counts.sum())) if counts.sum() else 0.0
    seen = phi > 0
    novelty = float(np.mean(-np.log2(phi[seen] / n_users))) if seen.any() else 0.0
    tail = ~_head(popularity, encoded, head_share)[item_code]
    return {
        "coverage": float(np.unique(item_code).size / n_catalog),
        "novelty": novelty,
        "gini": gini,
        "arp": float(np.mean(np.bincount(user, weights=phi, minlength=n_lists) / list_len)),
        "aplt": float(np.mean(np.bincount(user, weights=tail, minlength=n_lists) / list_len)),
        "lists": n_lists, "k": int(k), "catalog": n_catalog,
        "unseen": float((~seen).mean()) if seen.size else 0.0,
    }


def _head(popularity: np.ndarray, names: pa.Array, head_share: float) -> np.ndarray:
    """Whether each item is in the short head: popularity descending, ties by docno ascending,
    until ``head_share`` of the interactions are reached (that item included)."""
    total = popularity.sum()
    head = np.zeros(popularity.size, dtype=bool)
    if total == 0:
        return head
    by_name = np.asarray(pc.sort_indices(names).to_numpy())
    order = by_name[np.argsort(-popularity[by_name], kind="stable")]
    share = np.cumsum(popularity[order]) / total
    n_head = int(np.searchsorted(share, head_share, side="left")) + 1
    head[order[:n_head]] = True
    return head


def beyond_accuracy_of_runs(specs, interactions, *, k: int = 10, head_share: float = 0.2,
                            catalog_size: int | None = None) -> dict:
    """``{name: figures}``: :func:`beyond_accuracy` of each run of ``specs`` (``(path, label or
    None)``, named as :func:`cranfield.retrieval.inputs.read_runs` names them)."""
    return {name: beyond_accuracy(run, interactions, k=k, head_share=head_share, catalog_size=catalog_size)
            for name, run in read_runs(specs).items()}
