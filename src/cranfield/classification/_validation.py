"""Input checks shared by the classification measures: validate once, at the boundary.

Every check raises :class:`cranfield.errors.InputError` (bad data) or
:class:`cranfield.errors.UsageError` (options that do not fit) with a message that names the
argument, says what was found and what was expected.
"""

from __future__ import annotations

import warnings
from typing import Any, Hashable, Sequence

import numpy as np

from ..errors import InputError, UsageError

__all__ = [
    "UndefinedMeasureWarning",
    "as_1d",
    "check_lengths",
    "check_scores",
    "check_weights",
    "encode_labels",
    "resolve_pos_label",
    "binary_truth",
    "warn_undefined",
]


class UndefinedMeasureWarning(UserWarning):
    """A measure was 0/0 and was replaced by its ``zero_division`` value (as scikit-learn's
    ``UndefinedMetricWarning``)."""


def warn_undefined(message: str, stacklevel: int = 3) -> None:
    warnings.warn(message, UndefinedMeasureWarning, stacklevel=stacklevel)


def as_1d(values: Any, name: str) -> np.ndarray:
    """``values`` as a one-dimensional array (pandas/polars/pyarrow columns and lists accepted)."""
    if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):
        values = values.to_numpy()
    array = np.asarray(values)
    if array.ndim == 2 and 1 in array.shape:
        array = array.reshape(-1)
    if array.ndim != 1:
        raise InputError(f"expected a one-dimensional array, found shape {array.shape}", field=name)
    return array


def check_lengths(**arrays: np.ndarray | None) -> int:
    """All given arrays have the same length; return it."""
    lengths = {name: len(a) for name, a in arrays.items() if a is not None}
    if len(set(lengths.values())) > 1:
        found = ", ".join(f"{name} has {n}" for name, n in lengths.items())
        raise InputError(f"inconsistent numbers of samples: {found}")
    return next(iter(lengths.values()), 0)


def _first_bad(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def check_scores(y_score: Any, name: str = "y_score") -> np.ndarray:
    """Scores as a finite float64 array (NaN and ±inf are errors, with the first bad index)."""
    scores = as_1d(y_score, name)
    if scores.dtype.kind not in "fiub":
        try:
            scores = scores.astype(np.float64)
        except (TypeError, ValueError):
            raise InputError(f"expected numbers, found values of type {scores.dtype}", field=name) from None
    scores = scores.astype(np.float64, copy=False)
    finite = np.isfinite(scores)
    if not finite.all():
        i = _first_bad(~finite)
        raise InputError(f"expected finite numbers, found {scores[i]} at index {i}", field=name)
    return scores


def check_weights(sample_weight: Any, n: int) -> np.ndarray | None:
    """``None`` or a finite, non-negative float64 array of length ``n``."""
    if sample_weight is None:
        return None
    weights = check_scores(sample_weight, "sample_weight")
    if len(weights) != n:
        raise InputError(f"inconsistent numbers of samples: sample_weight has {len(weights)}, expected {n}")
    if (weights < 0).any():
        i = _first_bad(weights < 0)
        raise InputError(f"expected non-negative weights, found {weights[i]} at index {i}", field="sample_weight")
    return weights


def _is_missing(array: np.ndarray) -> np.ndarray:
    if array.dtype.kind == "f":
        return np.isnan(array)
    if array.dtype.kind == "O":
        return np.array([v is None or (isinstance(v, float) and v != v) for v in array], dtype=bool)
    return np.zeros(len(array), dtype=bool)


def _unique_inverse(array: np.ndarray) -> tuple[list, np.ndarray]:
    """Sorted distinct values and the index of each element; falls back to first-seen order for
    values that cannot be sorted together (e.g. a mix of strings and numbers)."""
    try:
        uniq, inverse = np.unique(array, return_inverse=True)
        return uniq.tolist(), inverse.reshape(-1)
    except TypeError:
        seen: dict = {}
        inverse = np.fromiter((seen.setdefault(v, len(seen)) for v in array.tolist()), dtype=np.intp,
                              count=len(array))
        return list(seen), inverse


def encode_labels(*arrays: tuple[np.ndarray, str], labels: Sequence[Hashable] | None = None
                  ) -> tuple[list, list[np.ndarray]]:
    """Map label arrays to integer codes 0..k-1.

    With ``labels=None`` the classes are the sorted union of the values found; otherwise every
    value must be one of ``labels`` (an ``InputError`` names the first one that is not).
    """
    for array, name in arrays:
        missing = _is_missing(array)
        if missing.any():
            i = _first_bad(missing)
            raise InputError(f"expected a label, found a missing value ({array[i]!r}) at index {i}", field=name)
    pieces = [_unique_inverse(array) for array, _ in arrays]
    if labels is None:
        union = []
        for uniq, _ in pieces:
            union.extend(uniq)
        try:
            classes = sorted(set(union))
        except TypeError:
            classes = list(dict.fromkeys(union))
    else:
        classes = list(labels)
        if len(set(classes)) != len(classes):
            raise UsageError(f"labels contains duplicates: {classes!r}")
    index = {label: i for i, label in enumerate(classes)}
    codes = []
    for (uniq, inverse), (array, name) in zip(pieces, arrays):
        mapping = np.empty(len(uniq), dtype=np.intp)
        for j, value in enumerate(uniq):
            if value not in index:
                i = int(np.flatnonzero(inverse == j)[0])
                raise InputError(f"label {value!r} at index {i} is not one of the declared labels {classes!r}",
                                 field=name)
            mapping[j] = index[value]
        codes.append(mapping[inverse])
    return classes, codes


def resolve_pos_label(classes: Sequence[Hashable], pos_label: Hashable | None, *, required: bool = True
                      ) -> Hashable | None:
    """The positive class: ``pos_label`` if given (it must be a class); else 1 when the classes
    are a subset of {0, 1} or {-1, 1} (as scikit-learn); else an error (or None if not required)."""
    if pos_label is not None:
        if pos_label not in list(classes):
            raise UsageError(f"pos_label={pos_label!r} is not one of the labels {list(classes)!r}")
        return pos_label
    numeric = all(isinstance(c, (int, float, np.integer, np.floating, bool, np.bool_)) for c in classes)
    if numeric and (set(classes) <= {0, 1} or set(classes) <= {-1, 1}):
        return True if any(isinstance(c, (bool, np.bool_)) for c in classes) else 1
    if required:
        raise UsageError(f"cannot tell which label is positive among {list(classes)!r}; pass pos_label=")
    return None


def binary_truth(y_true: Any, pos_label: Hashable | None = None, name: str = "y_true") -> np.ndarray:
    """Ground truth as a boolean array ``y_true == positive label``; at most two classes allowed."""
    truth = as_1d(y_true, name)
    if truth.dtype == bool and pos_label in (None, True, 1):
        return truth
    missing = _is_missing(truth)
    if missing.any():
        i = _first_bad(missing)
        raise InputError(f"expected a label, found a missing value ({truth[i]!r}) at index {i}", field=name)
    classes, inverse = _unique_inverse(truth)
    if len(classes) > 2:
        raise InputError(f"expected two classes for a binary measure, found {len(classes)}: {classes[:10]!r}",
                         field=name)
    if pos_label is not None and pos_label not in classes and len(classes) < 2:
        positive = pos_label  # one class only, and it is the negative one
    elif pos_label is None and len(classes) == 1 and classes[0] in (0, 1, -1, True, False):
        positive = 1  # one class only: {0}, {1} or {-1} are read as {0, 1} / {-1, 1}
    else:
        positive = resolve_pos_label(classes, pos_label)
    if positive not in classes:
        return np.zeros(len(truth), dtype=bool)
    return inverse == classes.index(positive)
