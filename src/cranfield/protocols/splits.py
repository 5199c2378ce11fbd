"""Splitters: which samples (or queries) train a model and which evaluate it.

Labelled data (indices into ``y``, scikit-learn's splitters underneath):

* :func:`holdout` — one train/test split (2/3 – 1/3 by default), stratified on request;
* :func:`train_validation_test` — three parts (70/15/15 by default);
* :func:`kfold` — k folds, stratified on request, ``repeats`` times with new shuffles;
* :func:`group_kfold` — k folds that never split a group (e.g. all samples of one patient).

Query sets (retrieval): :func:`query_holdout` and :func:`query_kfold` split query ids, at random
or stratified by a query attribute (e.g. :func:`relevant_counts`), and :func:`subset_queries`
slices a :class:`~cranfield.Qrels` or :class:`~cranfield.Run` to a set of queries.

Every split is a :class:`Fold` (``repeat``, ``fold``, ``train``, ``test`` as sorted int64
arrays) that unpacks as ``train, test`` — a list of folds can be passed as ``cv=`` to
scikit-learn. Stratified folds put ⌊n_c/k⌋ or ⌈n_c/k⌉ samples of each class c in each fold.
The same ``random_state`` gives the same splits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, Sequence

import numpy as np

from .._params import check_fraction, check_seed
from ..errors import InputError, UsageError
from ..retrieval.qrels import read_qrels
from ..stats._resample import as_generator

__all__ = ["Fold", "holdout", "train_validation_test", "kfold", "group_kfold", "folds_from_cv",
           "query_holdout", "query_kfold", "relevant_counts", "subset_queries", "sklearn_module"]

INSTALL_HINT = "pip install 'cranfield[sklearn]'"


def sklearn_module(name: str = "model_selection"):
    """``sklearn.<name>``, or a :class:`UsageError` with the install hint."""
    import importlib

    try:
        return importlib.import_module(f"sklearn.{name}")
    except ImportError:  # pragma: no cover - sklearn is a test dependency
        raise UsageError(f"this needs scikit-learn: {INSTALL_HINT}") from None


@dataclass(frozen=True, eq=False)
class Fold:
    """One split: ``train`` and ``test`` indices (sorted int64), the repeat and fold numbers.

    ``train, test = fold`` unpacks it, as scikit-learn's splitters yield pairs.
    """

    repeat: int
    fold: int
    train: np.ndarray
    test: np.ndarray

    def __iter__(self) -> Iterator[np.ndarray]:
        return iter((self.train, self.test))

    def __repr__(self) -> str:
        return f"Fold(repeat={self.repeat}, fold={self.fold}, train={len(self.train)}, test={len(self.test)})"


def _fold(repeat: int, fold: int, train, test) -> Fold:
    train = np.sort(np.asarray(train, dtype=np.int64))
    test = np.sort(np.asarray(test, dtype=np.int64))
    train.setflags(write=False)
    test.setflags(write=False)
    return Fold(int(repeat), int(fold), train, test)


def _labels(y: Any, name: str = "y") -> np.ndarray:
    """``y`` as a 1-D array; an int n stands for n unlabelled samples."""
    if isinstance(y, (int, np.integer)) and not isinstance(y, bool):
        if y < 2:
            raise InputError(f"expected at least 2 samples, found {y}", field=name)
        return np.zeros(int(y), dtype=np.int64)
    array = np.asarray(y)
    if array.ndim != 1:
        raise InputError(f"expected a 1-D array of labels (or a number of samples), found shape {array.shape}", field=name)
    if len(array) < 2:
        raise InputError(f"expected at least 2 samples, found {len(array)}", field=name)
    return array


def _check_fraction(value: float, name: str) -> float:
    return check_fraction(value, name)


def _check_int(value: int, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise UsageError(f"{name}: expected an integer ≥ {minimum}, found {value!r}")
    return int(value)


def _seed(random_state) -> int | None:
    """An int seed for scikit-learn (which does not take numpy Generators)."""
    return check_seed(random_state, "random_state")


def _check_strata(y: np.ndarray, n_splits: int) -> None:
    values, counts = np.unique(y, return_counts=True)
    if counts.max() < n_splits:
        raise InputError(f"cannot stratify into {n_splits} folds: every class has fewer than {n_splits} samples "
                         f"(largest: {values[counts.argmax()]!r} with {counts.max()})", field="y")


def holdout(y: Any, *, test_size: float = 1 / 3, stratify: bool = False, random_state=None) -> Fold:
    """One random train/test split of ``len(y)`` samples (``y`` may be a number of samples).

    ``test_size`` is the test fraction (the test part has ⌈n · test_size⌉ samples, as
    scikit-learn's ``train_test_split``); ``stratify=True`` keeps the class proportions of ``y``
    in both parts (each class within one sample of proportional).
    """
    labels = _labels(y)
    n_test = int(np.ceil(len(labels) * _check_fraction(test_size, "test_size")))
    return _holdout(labels, n_test, stratify, _seed(random_state))


def _holdout(labels: np.ndarray, n_test: int, stratify: bool, seed: int | None) -> Fold:
    if not 0 < n_test < len(labels):
        raise UsageError(f"a split of {len(labels)} samples with {n_test} test samples leaves a part empty")
    if stratify and np.unique(labels, return_counts=True)[1].min() < 2:
        raise InputError("cannot stratify: a class has only one sample", field="y")
    train, test = sklearn_module().train_test_split(np.arange(len(labels)), test_size=n_test, random_state=seed,
                                                    stratify=labels if stratify else None)
    return _fold(0, 0, train, test)


def train_validation_test(y: Any, *, sizes: Sequence[float] = (0.7, 0.15, 0.15), stratify: bool = False,
                          random_state=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Three disjoint index arrays (train, validation, test) covering all samples.

    ``sizes`` are the three fractions (they must sum to 1). The test part is split off first
    (holdout with ``sizes[2]``), then the validation part from the rest, both stratified on
    request. Tune on validation, report once on test. The parts have round(n · size) samples
    (the training part takes the rest).
    """
    labels = _labels(y)
    if len(sizes) != 3 or any(not 0 < s < 1 for s in sizes) or abs(sum(sizes) - 1) > 1e-9:
        raise UsageError(f"sizes: expected three fractions in (0, 1) summing to 1, found {tuple(sizes)!r}")
    seed = _seed(random_state)
    n = len(labels)
    n_test, n_validation = max(1, round(n * sizes[2])), max(1, round(n * sizes[1]))
    outer = _holdout(labels, n_test, stratify, seed)
    inner = _holdout(labels[outer.train], n_validation, stratify, None if seed is None else seed + 1)
    train, validation = outer.train[inner.train], outer.train[inner.test]
    return np.sort(train), np.sort(validation), outer.test


def kfold(y: Any, *, n_splits: int = 10, repeats: int = 1, stratify: bool = False, shuffle: bool = True,
          random_state=None) -> list[Fold]:
    """k-fold cross-validation splits, ``repeats`` times (each repeat a new shuffle).

    Every sample is in exactly one test fold per repeat. ``stratify=True`` uses scikit-learn's
    ``StratifiedKFold`` (each class spread as evenly as possible: ⌊n_c/k⌋ or ⌈n_c/k⌉ per fold),
    otherwise ``KFold``; ``repeats > 1`` needs ``shuffle``. Ten-fold cross-validation repeated ten
    times is the usual choice for small data sets (Kohavi 1995; Bouckaert & Frank 2004).
    """
    labels = _labels(y)
    n_splits = _check_int(n_splits, "n_splits", 2)
    repeats = _check_int(repeats, "repeats", 1)
    if n_splits > len(labels):
        raise UsageError(f"n_splits={n_splits} is larger than the number of samples ({len(labels)})")
    if repeats > 1 and not shuffle:
        raise UsageError("repeats > 1 needs shuffle=True (otherwise every repeat is the same)")
    if stratify:
        _check_strata(labels, n_splits)
    ms = sklearn_module()
    seed = _seed(random_state)
    if repeats == 1:
        cls = ms.StratifiedKFold if stratify else ms.KFold
        splitter = cls(n_splits=n_splits, shuffle=shuffle, random_state=seed if shuffle else None)
    else:
        cls = ms.RepeatedStratifiedKFold if stratify else ms.RepeatedKFold
        splitter = cls(n_splits=n_splits, n_repeats=repeats, random_state=seed)
    import warnings

    with warnings.catch_warnings():  # "the least populated class has only m members": our docs say so
        warnings.filterwarnings("ignore", message=".*least populated class.*")
        pairs = list(splitter.split(np.zeros((len(labels), 1)), labels))
    return [_fold(i // n_splits, i % n_splits, train, test) for i, (train, test) in enumerate(pairs)]


def group_kfold(groups: Any, *, n_splits: int = 5) -> list[Fold]:
    """k folds in which no group is split between train and test (scikit-learn's ``GroupKFold``:
    groups are dealt to folds so that fold sizes are as equal as possible; deterministic)."""
    labels = _labels(groups, "groups")
    n_splits = _check_int(n_splits, "n_splits", 2)
    n_groups = len(np.unique(labels))
    if n_splits > n_groups:
        raise UsageError(f"n_splits={n_splits} is larger than the number of groups ({n_groups})")
    ms = sklearn_module()
    pairs = ms.GroupKFold(n_splits=n_splits).split(np.zeros((len(labels), 1)), None, labels)
    return [_fold(0, i, train, test) for i, (train, test) in enumerate(pairs)]


def folds_from_cv(cv: Any, y: np.ndarray, *, repeats: int = 1, stratify: bool = True, groups: Any = None,
                  random_state=None) -> list[Fold]:
    """The folds meant by a ``cv=`` option: an int k (k-fold, stratified when ``stratify`` and
    the target is discrete, ``repeats`` times; group k-fold when ``groups`` is given), a
    scikit-learn splitter (anything with ``split(X, y, groups)``), or an iterable of
    ``(train, test)`` index pairs / :class:`Fold`."""
    n = len(y)
    if isinstance(cv, (int, np.integer)) and not isinstance(cv, bool):
        if groups is not None:
            if repeats != 1:
                raise UsageError("repeats > 1 cannot be combined with groups (group k-fold is deterministic)")
            return group_kfold(groups, n_splits=int(cv))
        discrete = sklearn_module("utils.multiclass").type_of_target(y) in ("binary", "multiclass")
        return kfold(y, n_splits=int(cv), repeats=repeats, stratify=stratify and discrete, random_state=random_state)
    if repeats != 1:
        raise UsageError("repeats applies to cv=<number of folds>; give a repeated splitter instead")
    if hasattr(cv, "split"):
        pairs = list(cv.split(np.zeros((n, 1)), y, groups))
        n_per_repeat = max(1, len(pairs) // int(getattr(cv, "n_repeats", 1) or 1))
    else:
        pairs = [tuple(pair) for pair in cv]
        n_per_repeat = len(pairs)
    if not pairs:
        raise UsageError("cv gave no splits")
    folds = []
    for i, pair in enumerate(pairs):
        if isinstance(pair, Fold):
            folds.append(pair)
            continue
        if len(pair) != 2:
            raise UsageError(f"cv: split {i} is not a (train, test) pair")
        train, test = (np.asarray(part) for part in pair)
        for part, what in ((train, "train"), (test, "test")):
            if part.dtype.kind == "b":
                raise UsageError(f"cv: split {i}: expected {what} indices, found a boolean mask")
            if part.size and (part.min() < 0 or part.max() >= n):
                raise UsageError(f"cv: split {i}: {what} index out of range for {n} samples")
        if np.intersect1d(train, test).size:
            raise UsageError(f"cv: split {i}: an index is in both train and test")
        folds.append(_fold(i // n_per_repeat, i % n_per_repeat, train, test))
    return folds


# --------------------------------------------------------------------------- query sets
def _query_ids(query_ids: Any) -> np.ndarray:
    ids = np.asarray(list(query_ids.query_ids) if hasattr(query_ids, "query_ids") else list(query_ids), dtype=object)
    if len(ids) < 2:
        raise InputError(f"expected at least 2 queries, found {len(ids)}", field="query_ids")
    if len(set(ids.tolist())) != len(ids):
        raise InputError("query ids are not unique", field="query_ids")
    return ids


def _strata(ids: np.ndarray, strata: Any, n_bins: int) -> np.ndarray:
    """A stratum code per query. ``strata``: None, a mapping qid → attribute, or a sequence aligned
    with the ids. A numeric attribute with more than ``n_bins`` values is cut at its quantiles."""
    if strata is None:
        return np.zeros(len(ids), dtype=np.int64)
    if hasattr(strata, "get") and not isinstance(strata, np.ndarray):
        missing = [q for q in ids.tolist() if q not in strata]
        if missing:
            raise InputError(f"no stratum for queries {missing[:5]!r}", field="strata")
        values = np.asarray([strata[q] for q in ids.tolist()])
    else:
        values = np.asarray(strata)
        if values.shape != ids.shape:
            raise InputError(f"expected one stratum per query ({len(ids)}), found {values.shape}", field="strata")
    distinct = np.unique(values)
    if values.dtype.kind in "iuf" and len(distinct) > n_bins:
        edges = np.quantile(values, np.linspace(0, 1, n_bins + 1)[1:-1])
        return np.searchsorted(np.unique(edges), values, side="right")
    return np.unique(values, return_inverse=True)[1].reshape(-1)


def _deal(ids: np.ndarray, codes: np.ndarray, n_splits: int, rng: np.random.Generator) -> np.ndarray:
    """Fold number of each query: shuffle, order by stratum, deal round-robin. Each fold then
    holds ⌊n_s/k⌋ or ⌈n_s/k⌉ queries of each stratum s, and the folds' sizes differ by ≤ 1."""
    order = np.lexsort((rng.permutation(len(ids)), codes))
    start = int(rng.integers(n_splits))  # so that small strata do not always fill fold 0 first
    folds = np.empty(len(ids), dtype=np.int64)
    folds[order] = (np.arange(len(ids)) + start) % n_splits
    return folds


def query_kfold(query_ids: Any, *, n_splits: int = 5, repeats: int = 1, strata: Any = None, n_bins: int = 4,
                random_state=None) -> list[tuple[np.ndarray, np.ndarray]]:
    """k-fold over queries: ``(train_ids, test_ids)`` arrays of query ids per fold.

    ``query_ids``: a sequence of ids, or a :class:`~cranfield.Qrels` (its queries). ``strata``
    stratifies (a mapping qid → attribute such as :func:`relevant_counts`, or an aligned
    sequence); numeric attributes with many values are cut into ``n_bins`` quantile bins.
    """
    ids = _query_ids(query_ids)
    n_splits = _check_int(n_splits, "n_splits", 2)
    repeats = _check_int(repeats, "repeats", 1)
    if n_splits > len(ids):
        raise UsageError(f"n_splits={n_splits} is larger than the number of queries ({len(ids)})")
    codes = _strata(ids, strata, _check_int(n_bins, "n_bins", 1))
    rng = as_generator(random_state)
    result = []
    for _ in range(repeats):
        fold_of = _deal(ids, codes, n_splits, rng)
        for f in range(n_splits):
            result.append((ids[fold_of != f], ids[fold_of == f]))
    return result


def query_holdout(query_ids: Any, *, test_size: float = 0.5, strata: Any = None, n_bins: int = 4,
                  random_state=None) -> tuple[np.ndarray, np.ndarray]:
    """One split of the queries into ``(train_ids, test_ids)``; ⌈n · test_size⌉ test queries,
    stratified by ``strata`` (as :func:`query_kfold`): each stratum within one query of its share."""
    ids = _query_ids(query_ids)
    test_size = _check_fraction(test_size, "test_size")
    codes = _strata(ids, strata, _check_int(n_bins, "n_bins", 1))
    rng = as_generator(random_state)
    n_test = int(np.ceil(len(ids) * test_size))
    if n_test >= len(ids):
        raise UsageError(f"test_size={test_size} leaves no training query out of {len(ids)}")
    # systematic sampling over the stratum-ordered shuffle: every stratum gets its share ± 1
    order = np.lexsort((rng.permutation(len(ids)), codes))
    positions = np.floor((np.arange(n_test) + rng.random()) * len(ids) / n_test).astype(np.int64)
    is_test = np.zeros(len(ids), dtype=bool)
    is_test[order[positions]] = True
    return ids[~is_test], ids[is_test]


def relevant_counts(qrels, *, relevance_level: int = 1) -> dict[str, int]:
    """Number of judged-relevant documents (rel ≥ ``relevance_level``) per query of ``qrels`` —
    the usual attribute to stratify query splits by."""
    import pyarrow as pa

    qrels = read_qrels(qrels)
    table = pa.table({"qid": qrels.qid, "relevant": (qrels.values >= relevance_level).astype(np.int64)})
    grouped = table.group_by("qid").aggregate([("relevant", "sum")])
    return dict(zip(grouped.column("qid").to_pylist(), grouped.column("relevant_sum").to_pylist()))


def subset_queries(table, query_ids: Any):
    """A new :class:`~cranfield.Qrels` or :class:`~cranfield.Run` with the rows of ``query_ids``
    only (vectorised: one Arrow ``is_in`` mask). The input is not changed."""
    import pyarrow as pa
    import pyarrow.compute as pc

    wanted = pa.array([str(q) for q in query_ids], type=pa.string())
    mask = pc.is_in(table.qid, value_set=wanted).to_numpy(zero_copy_only=False)
    keep = np.flatnonzero(mask)
    return type(table)(table.qid.take(keep), table.docno.take(keep), table.values[keep],
                       source=table.source, lines=table.lines[keep], name=table.name)
