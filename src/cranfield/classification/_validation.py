"""The classification inputs, specified once: labels, scores, predictions and sample weights.

Every way of giving them — lists, NumPy arrays, pandas/polars/pyarrow columns, the columns of a
CSV/TSV/Parquet file read by ``cranfield classify``, Dask partitions — goes through these checks,
which raise :class:`cranfield.errors.InputError` (bad data) or :class:`cranfield.errors.UsageError`
(options that do not fit) naming the argument (or file, line and column), what was found and
what was expected. The rules (also in ``docs/classification.md``, "Input rules"):

- **labels** (``y_true``, ``y_pred``): one kind per column — all numbers (ints and floats compare
  by value), all strings, all booleans, all bytes, or all of one other type; ``[0, 1, '1']`` is an
  error naming the first element whose kind differs from the first one. ``y_true`` and ``y_pred``
  hold the same kind (booleans and numbers may meet: ``True == 1``). Missing values (None, NaN,
  ``pd.NA``, ``NaT``, nulls of pandas nullable, polars or Arrow columns) are errors naming the first.
  At most :data:`MAX_CLASSES` classes.
- **scores**: finite real numbers (text, None, NaN, ±inf are errors). Integers beyond 2**53 are
  accepted when float64 keeps them apart (rounding is monotone, so every comparison is then that of
  the integers); two distinct integers that round to the same float64 are an error naming both.
- **weights**: finite, ≥ 0, not all 0. Weighted sums are computed on the weights times a power of
  two (exact) that brings the largest one into [½, 1): results do not depend on the weights' scale
  and sums cannot overflow or underflow.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any, Hashable, Sequence

import numpy as np

from .._params import check_flag  # noqa: F401  (re-exported: the classification modules import it here)
from ..errors import InputError, UsageError
from ..io.classification_table import EXACT_INTEGERS  # every integer of magnitude <= 2**53 is a float64

__all__ = [
    "MAX_CLASSES",
    "UndefinedMeasureWarning",
    "as_1d",
    "check_lengths",
    "check_labels",
    "check_same_kind",
    "check_scores",
    "check_weights",
    "check_class_count",
    "label_kind",
    "normalize_weights",
    "encode_labels",
    "resolve_pos_label",
    "binary_truth",
    "warn_undefined",
]

MAX_CLASSES = 1000  # classes of a confusion matrix (k² cells); more is almost always a score column


class UndefinedMeasureWarning(UserWarning):
    """A measure was 0/0 and was replaced by its ``zero_division`` value (as scikit-learn's
    ``UndefinedMetricWarning``)."""


def warn_undefined(message: str, stacklevel: int = 3) -> None:
    warnings.warn(message, UndefinedMeasureWarning, stacklevel=stacklevel)


def _fail(message: str, i: int, name: str, source: str | None = None, first_line: int | None = None):
    """An InputError about element ``i``: 'at index i' for arrays, or the file's line."""
    if first_line is None:
        raise InputError(f"{message} at index {i}", source=source, field=name)
    raise InputError(message, source=source, line=int(i) + first_line, field=name)


def _show(value: Any) -> str:
    """repr of a value without NumPy's wrapper (``np.str_('a')`` → ``'a'``)."""
    if isinstance(value, (np.datetime64, np.timedelta64)) and np.isnat(value):
        return "NaT"
    return repr(value.item() if isinstance(value, np.generic) else value)


def _missing_shown(values: Any, i: int) -> str:
    """How the missing element ``i`` of a pandas/polars/Arrow column is written (NA, NaN, NaT, null)."""
    try:
        return f" ({_show(values.iloc[i])})" if hasattr(values, "iloc") else " (null)"
    except Exception:  # pragma: no cover - display only
        return ""


def _container_missing(values: Any) -> np.ndarray | None:
    """The null mask of a pandas, polars or pyarrow column (None for other inputs)."""
    if isinstance(values, (np.ndarray, list, tuple)):
        return None
    try:
        if hasattr(values, "isna"):  # pandas Series, Index, extension arrays (NA, NaN, NaT)
            return np.asarray(values.isna(), dtype=bool).reshape(-1)
        if hasattr(values, "is_null"):  # polars Series, pyarrow Array / ChunkedArray
            mask = values.is_null()
            mask = mask.to_numpy(zero_copy_only=False) if "pyarrow" in type(mask).__module__ else mask.to_numpy()
            return np.asarray(mask, dtype=bool).reshape(-1)
    except (TypeError, ValueError, AttributeError):
        return None
    return None


def as_1d(values: Any, name: str) -> np.ndarray:
    """``values`` as a one-dimensional array (pandas/polars/pyarrow columns and lists accepted)."""
    if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):
        try:
            values = values.to_numpy()
        except TypeError:  # pyarrow: zero_copy_only defaults to True
            values = values.to_numpy(zero_copy_only=False)
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


# ---------------------------------------------------------------------------------------- labels
_MISSING_TYPES = frozenset({"NoneType", "NAType", "NaTType"})
_DTYPE_KINDS = {"b": "bool", "i": "number", "u": "number", "f": "number", "U": "string", "S": "bytes",
                "M": "datetime", "m": "timedelta", "c": "complex number"}


def _kind_of_type(t: type) -> str:
    if issubclass(t, (bool, np.bool_)):
        return "bool"
    if issubclass(t, (str, np.str_)):
        return "string"
    if issubclass(t, (bytes, np.bytes_)):
        return "bytes"
    if issubclass(t, np.datetime64):
        return "datetime"
    if issubclass(t, np.timedelta64):
        return "timedelta"
    if issubclass(t, numbers.Real):
        return "number"
    return t.__name__


def _is_missing_value(v: Any) -> bool:
    if v is None or type(v).__name__ in _MISSING_TYPES:
        return True
    try:
        return bool(v != v)  # NaN (float, NumPy, Decimal), NaT
    except (TypeError, ValueError):
        return False


def _object_labels(array: np.ndarray, name: str, source: str | None, first_line: int | None) -> np.ndarray:
    """One kind and no missing value in an object array: a Python pass over the types, NaN found
    vectorised; the array as int64, float64 or bool when it holds one such type (sorts faster)."""
    types = list(map(type, array.tolist()))
    distinct = set(types)
    kinds = {t: _kind_of_type(t) for t in distinct}
    unhashable = [t for t in distinct if t.__hash__ is None]
    if unhashable:
        i = types.index(unhashable[0])
        _fail(f"expected a label, found {_show(array[i])} ({unhashable[0].__name__}: a label must be hashable)", i,
              name, source, first_line)
    floats = None
    clean = len(set(kinds.values())) <= 1 and not any(t.__name__ in _MISSING_TYPES for t in distinct)
    if clean and kinds and next(iter(kinds.values())) == "number":
        try:
            floats = array.astype(np.float64)
            clean = not np.isnan(floats).any()
        except (OverflowError, TypeError, ValueError):  # Python ints beyond float64, odd numbers: look at each
            clean = False
    elif clean and kinds and next(iter(kinds.values())) in ("datetime", "timedelta"):
        clean = False
    if not clean:  # the first row that is missing or of another kind than the first one
        first = None
        for i, v in enumerate(array.tolist()):
            if _is_missing_value(v):
                _fail(f"expected a label, found a missing value ({_show(v)})", i, name, source, first_line)
            kind = kinds[types[i]]
            first = kind if first is None else first
            if kind != first:
                _fail(f"expected labels of one type ({first}, as the first one, {_show(array[0])}), found {_show(v)} "
                      f"({kind})", i, name, source, first_line)
    if len(distinct) == 1:
        only = next(iter(distinct))
        try:
            if issubclass(only, (bool, np.bool_)):
                return array.astype(np.bool_)
            if issubclass(only, (int, np.integer)):
                return array.astype(np.int64)
            if issubclass(only, (float, np.floating)) and floats is not None:
                return floats
        except OverflowError:  # Python ints beyond int64 stay objects
            pass
    return array


_PLAIN = frozenset({int, float, bool, np.int64, np.int32, np.float64, np.bool_})


def check_labels(values: Any, name: str = "y_true", *, source: str | None = None,
                 first_line: int | None = None) -> np.ndarray:
    """Labels as a 1-D array: one kind, no missing value (see the module docstring).

    Lists and tuples are read element by element (``np.asarray([0, 1, '1'])`` would silently make
    them all strings). ``first_line``: report the file line ``index + first_line`` instead of the index.
    """
    mask = _container_missing(values)
    if mask is not None and mask.any():
        i = _first_bad(mask)
        _fail(f"expected a label, found a missing value{_missing_shown(values, i)}", i, name, source, first_line)
    if isinstance(values, (list, tuple)):
        distinct = set(map(type, values))
        if len(distinct) == 1 and distinct <= _PLAIN or distinct == {int, float}:  # NumPy keeps these apart
            array = as_1d(values, name)
        else:  # np.asarray would turn [0, 1, '1'] into strings, [0, 1, True] into ints: element by element
            array = np.empty(len(values), dtype=object)
            try:
                array[:] = values
            except ValueError:
                raise InputError("expected a one-dimensional sequence of labels", source=source, field=name) from None
    else:
        array = as_1d(values, name)
    kind = array.dtype.kind
    if kind == "O":
        array = _object_labels(array, name, source, first_line)
    elif kind == "f":
        missing = np.isnan(array)
        if missing.any():
            i = _first_bad(missing)
            _fail(f"expected a label, found a missing value ({_show(array[i])})", i, name, source, first_line)
    elif kind in "mM":
        missing = np.isnat(array)
        if missing.any():
            _fail("expected a label, found a missing value (NaT)", _first_bad(missing), name, source, first_line)
    return array


def label_kind(array: np.ndarray) -> str | None:
    """The kind of a checked label array ('number', 'string', 'bool', ...; None when empty)."""
    if array.dtype.kind != "O":
        return _DTYPE_KINDS.get(array.dtype.kind, array.dtype.name)
    return _kind_of_type(type(array[0])) if len(array) else None


def check_same_kind(*arrays: tuple[np.ndarray, str], source: str | None = None,
                    first_line: int | None = None) -> None:
    """Checked label arrays hold the same kind (booleans and numbers may meet: True == 1)."""
    seen = [(label_kind(a), a, name) for a, name in arrays if len(a)]
    if not seen:
        return
    first_kind, first_array, first_name = seen[0]
    for kind, array, name in seen[1:]:
        if kind != first_kind and {kind, first_kind} != {"bool", "number"}:
            _fail(f"expected labels of the same type as {first_name} ({first_kind}, e.g. {_show(first_array[0])}), "
                  f"found {_show(array[0])} ({kind})", 0, name, source, first_line)


def check_class_count(n_classes: int, name: str = "y_true", *, source: str | None = None) -> None:
    """At most :data:`MAX_CLASSES` classes (a confusion matrix has k² cells)."""
    if n_classes > MAX_CLASSES:
        raise InputError(f"found {n_classes} distinct labels; at most {MAX_CLASSES} classes are supported "
                         "(is this a score column? scores go to y_score / --score)", source=source, field=name)


# ---------------------------------------------------------------------------------------- scores
def _exact_integers(original: np.ndarray, scores: np.ndarray, name: str, source: str | None,
                    first_line: int | None) -> None:
    """Integers beyond 2**53 must stay distinct as float64 (rounding is monotone: order is kept)."""
    large = np.flatnonzero(np.abs(scores) >= EXACT_INTEGERS)
    if not len(large):
        return
    values = original[large]
    if values.dtype.kind == "O":  # Python ints of any size: sort them exactly
        order = np.array(sorted(range(len(values)), key=values.__getitem__), dtype=np.intp)
    else:
        order = np.argsort(values, kind="stable")
    ints, floats = values[order], scores[large][order]
    clash = (floats[1:] == floats[:-1]) & (ints[1:] != ints[:-1])
    if clash.any():
        j = _first_bad(clash)
        a, b = sorted((int(large[order[j]]), int(large[order[j + 1]])))
        other = f"index {a}" if first_line is None else f"line {a + first_line}"
        _fail(f"integer scores beyond 2**53 would tie as float64: {original[b]} and {original[a]} ({other}) both "
              f"become {float(scores[a])!r}; subtract an offset or rescale them", b, name, source, first_line)


def _check_numbers(values: Any, name: str, source: str | None, first_line: int | None, exact: bool) -> np.ndarray:
    mask = _container_missing(values)
    if mask is not None and mask.any():
        i = _first_bad(mask)
        _fail(f"expected a number, found a missing value{_missing_shown(values, i)}", i, name, source, first_line)
    original = as_1d(values, name)
    kind = original.dtype.kind
    if kind == "f":
        scores = original.astype(np.float64, copy=False)
    elif kind in "iub":
        scores = original.astype(np.float64)
        if exact and kind in "iu":
            _exact_integers(original, scores, name, source, first_line)
    elif kind == "O":
        items = original.tolist()
        for i, v in enumerate(items):
            if isinstance(v, (str, bytes)) or not isinstance(v, numbers.Real):
                _fail(f"expected a number, found {_show(v)}", i, name, source, first_line)
        try:
            scores = original.astype(np.float64)
        except OverflowError:  # a Python int beyond float64
            i = next(i for i, v in enumerate(items) if abs(v) > float(np.finfo(np.float64).max))
            _fail(f"expected a finite number, found {items[i]!r}", i, name, source, first_line)
        if exact and any(type(v) is int or isinstance(v, np.integer) for v in items):
            _exact_integers(original, scores, name, source, first_line)
    else:  # text, dates, complex numbers...
        if len(original):
            found = f"text {_show(original[0])}" if kind in "US" else f"{_show(original[0])} ({original.dtype})"
            _fail(f"expected a number, found {found}", 0, name, source, first_line)
        scores = np.empty(0, dtype=np.float64)
    finite = np.isfinite(scores)
    if not finite.all():
        i = _first_bad(~finite)
        what = "finite numbers" if first_line is None else "a finite number"  # an array, or a field of a line
        _fail(f"expected {what}, found {scores[i]}", i, name, source, first_line)
    return scores


def check_scores(y_score: Any, name: str = "y_score", *, source: str | None = None,
                 first_line: int | None = None, exact: bool = True) -> np.ndarray:
    """Scores as a finite float64 array (see the module docstring for integers beyond 2**53;
    ``exact=False`` for values whose order does not matter, e.g. regression targets)."""
    return _check_numbers(y_score, name, source, first_line, exact=exact)


def check_weights(sample_weight: Any, n: int, *, nonzero: bool = True, source: str | None = None,
                  first_line: int | None = None, name: str = "sample_weight") -> np.ndarray | None:
    """``None`` or a finite, non-negative float64 array of length ``n``, not all 0 (``nonzero``)."""
    if sample_weight is None:
        return None
    weights = _check_numbers(sample_weight, name, source, first_line, exact=False)
    if len(weights) != n:
        raise InputError(f"inconsistent numbers of samples: {name} has {len(weights)}, expected {n}", source=source)
    negative = weights < 0
    if negative.any():
        i = _first_bad(negative)
        _fail(f"expected non-negative weights, found {weights[i]}", i, name, source, first_line)
    if nonzero and n and not weights.any():
        raise InputError("all sample weights are 0", source=source, field=name)
    return weights


def normalize_weights(weights: np.ndarray) -> tuple[np.ndarray, int]:
    """``(weights · 2**-e, e)`` with the largest scaled weight in [½, 1): an exact rescaling (a power
    of two), so ratios of sums are bitwise those of the raw weights when these neither overflow nor
    underflow, and well defined when they would (weights of 1e-200 or 1e308)."""
    top = float(weights.max()) if len(weights) else 0.0
    if top == 0.0:
        return weights, 0
    exponent = int(np.frexp(top)[1])
    if exponent == 0:
        return weights, 0
    return np.ldexp(weights, -exponent), exponent


# ---------------------------------------------------------------------------------------- classes
def _unique_inverse(array: np.ndarray) -> tuple[list, np.ndarray]:
    """Sorted distinct values and the index of each element; falls back to first-seen order for
    values of one type that cannot be sorted (e.g. some enums)."""
    try:
        uniq, inverse = np.unique(array, return_inverse=True)
        return uniq.tolist(), inverse.reshape(-1)
    except TypeError:
        seen: dict = {}
        inverse = np.fromiter((seen.setdefault(v, len(seen)) for v in array.tolist()), dtype=np.intp,
                              count=len(array))
        return list(seen), inverse


def encode_labels(*arrays: tuple[Any, str], labels: Sequence[Hashable] | None = None
                  ) -> tuple[list, list[np.ndarray]]:
    """Map label arrays to integer codes 0..k-1 (each array checked by :func:`check_labels`, all of
    the same kind, at most :data:`MAX_CLASSES` classes).

    With ``labels=None`` the classes are the sorted union of the values found; otherwise every
    value must be one of ``labels`` (an ``InputError`` names the first one that is not).
    """
    checked = [(check_labels(array, name), name) for array, name in arrays]
    check_same_kind(*checked)
    pieces = [_unique_inverse(array) for array, _ in checked]
    if labels is None:
        union = []
        for uniq, _ in pieces:
            union.extend(uniq)
        try:
            classes = sorted(set(union))
        except TypeError:
            classes = list(dict.fromkeys(union))
        check_class_count(len(classes), checked[0][1] if checked else "y_true")
    else:
        classes = list(labels)
        if len(set(classes)) != len(classes):
            raise UsageError(f"labels contains duplicates: {classes!r}")
        if len(classes) > MAX_CLASSES:
            raise UsageError(f"labels has {len(classes)} classes; at most {MAX_CLASSES} are supported")
    index = {label: i for i, label in enumerate(classes)}
    codes = []
    for (uniq, inverse), (array, name) in zip(pieces, checked):
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


def binary_truth(y_true: Any, pos_label: Hashable | None = None, name: str = "y_true", *,
                 source: str | None = None, first_line: int | None = None) -> np.ndarray:
    """Ground truth as a boolean array ``y_true == positive label``; at most two classes allowed."""
    truth = check_labels(y_true, name, source=source, first_line=first_line)
    if pos_label is not None and len(truth):
        kind, pos_kind = label_kind(truth), _kind_of_type(type(pos_label))
        if kind != pos_kind and {kind, pos_kind} != {"bool", "number"}:
            raise UsageError(f"pos_label={pos_label!r} ({pos_kind}) is not of the type of the labels in {name} "
                             f"({kind}, e.g. {_show(truth[0])})")
    if truth.dtype == bool and pos_label in (None, True, 1):
        return truth
    classes, inverse = _unique_inverse(truth)
    if len(classes) > 2:
        raise InputError(f"expected two classes for a binary measure, found {len(classes)}: {classes[:10]!r}",
                         source=source, field=name)
    if pos_label is not None and pos_label not in classes and len(classes) < 2:
        positive = pos_label  # one class only, and it is the negative one
    elif pos_label is None and len(classes) == 1 and classes[0] in (0, 1, -1, True, False):
        positive = 1  # one class only: {0}, {1} or {-1} are read as {0, 1} / {-1, 1}
    else:
        positive = resolve_pos_label(classes, pos_label)
    if positive not in classes:
        return np.zeros(len(truth), dtype=bool)
    return inverse == classes.index(positive)


# ----------------------------------------------------------- score matrices and options (multiclass, multilabel)

AVERAGE_CHOICES = (None, "micro", "macro", "weighted", "samples")


def score_matrix(values: Any, name: str = "y_score") -> np.ndarray:
    """An n×C matrix of finite numbers; an error names the row and column of the first bad value."""
    rows = as_matrix(values, name)
    if rows.dtype.kind in "iub":
        return rows.astype(np.float64)
    if rows.dtype.kind != "f":
        for i, row in enumerate(rows.tolist()):
            for j, v in enumerate(row):
                if isinstance(v, (str, bytes)) or not isinstance(v, (int, float, np.integer, np.floating)):
                    raise InputError(f"expected a number, found {v!r} in row {i}, column {j}", field=name)
        rows = rows.astype(np.float64)
    finite = np.isfinite(rows)
    if not finite.all():
        i, j = np.argwhere(~finite)[0]
        raise InputError(f"expected finite numbers, found {_show(rows[i, j])} in row {i}, column {j}", field=name)
    return rows


def as_matrix(values: Any, name: str) -> np.ndarray:
    """A two-dimensional array; rows of different widths are an error naming the first such row."""
    if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):
        values = values.to_numpy()
    if isinstance(values, (list, tuple)):
        widths = [len(r) if isinstance(r, (list, tuple, np.ndarray)) else None for r in values]
        if widths and widths[0] is not None and any(w != widths[0] for w in widths):
            i = next(i for i, w in enumerate(widths) if w != widths[0])
            found = "a scalar" if widths[i] is None else f"{widths[i]} values"
            raise InputError(f"row {i} has {found}, expected {widths[0]} (as row 0): every row needs one value "
                             "per class", field=name)
    try:
        array = np.asarray(values)
    except (ValueError, TypeError):
        raise InputError("expected a two-dimensional array (rows of equal width)", field=name) from None
    if array.ndim != 2:
        raise InputError(f"expected an n×C matrix (one column per class), found shape {array.shape}", field=name)
    return array


def _indicator(y_true: np.ndarray, shape: tuple) -> np.ndarray:
    if y_true.shape != shape:
        raise InputError(f"y_true has shape {y_true.shape} but y_score has shape {shape}", field="y_true")
    if y_true.dtype.kind == "b":
        return y_true
    if y_true.dtype.kind not in "iuf" and y_true.dtype.kind != "O":
        raise InputError(f"a multilabel y_true holds 0/1 values, found {y_true.dtype}", field="y_true")
    bad = ~np.isin(y_true, [0, 1])
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise InputError(f"a multilabel y_true holds 0/1 values, found {_show(y_true[i, j])} in row {i}, column {j}",
                         field="y_true")
    return y_true.astype(bool)


def _is_matrix(values: Any) -> bool:
    if isinstance(values, (list, tuple)):
        return bool(values) and isinstance(values[0], (list, tuple, np.ndarray))
    return np.ndim(values) == 2 and np.shape(values)[1] > 1


def is_choice(value: Any, allowed: tuple) -> bool:
    """``value in allowed`` for a None, str or bool ``value`` (never an elementwise array comparison)."""
    return (value is None or isinstance(value, (str, bool))) and value in allowed
