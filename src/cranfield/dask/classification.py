"""Score statistics of classifiers over data spread across Dask workers (see :mod:`.counts`)."""

from __future__ import annotations

import re
from typing import Any, Hashable

import numpy as np

from .._params import check_count
from ..classification._validation import _unique_inverse, binary_truth, check_labels, check_scores, resolve_pos_label
from ..errors import InputError, UsageError
from ._deps import compute, current_client, require_dask
from .counts import ScoreStats

__all__ = ["score_stats"]


def score_stats(data: Any = None, *, y_true: Any = "y_true", y_score: Any = "y_score", sample_weight: Any = None,
                pos_label: Hashable | None = None, bins: int | None = None, range: tuple[float, float] | None = None,
                split_every: int = 8, client=None) -> ScoreStats:
    """Merge the per-partition :class:`ScoreStats` of distributed scores by a tree reduction.

    Either ``data`` is a Dask DataFrame and ``y_true``/``y_score``/``sample_weight`` name its
    columns, or ``data`` is None and they are Dask Series or Dask arrays with the same partitions.
    ``pos_label`` is needed unless the labels are booleans or 0/1 (−1/1): a partition may hold one
    class only. ``bins`` (with an optional ``range``, found by a first pass over the scores if not
    given): the bounded-memory approximation. ``split_every``: fan-in of the reduction tree.

    The result is identical to ``ScoreStats.from_arrays`` on all samples at once; its curves, AUC,
    AP and confusion matrices equal those of :mod:`cranfield.classification` on the whole data.
    """
    require_dask()
    import dask

    split_every = check_count(split_every, "split_every", 2)
    parts = _partitions(data, y_true, y_score, sample_weight)
    client = current_client(client)
    if bins is not None and range is None:
        lows_highs = compute([dask.delayed(_min_max)(p[1]) for p in parts], client)
        lows_highs = [v for v in lows_highs if v is not None]
        if not lows_highs:
            raise UsageError("no samples")
        range = (min(v[0] for v in lows_highs), max(v[1] for v in lows_highs))
    pos_label = _whole_data_pos_label(parts, pos_label, client)
    level = [dask.delayed(_stats)(t, s, w, pos_label, bins, range, index) for index, (t, s, w) in enumerate(parts)]
    while len(level) > 1:  # a tree of merges, split_every parts at a time
        level = [dask.delayed(_merge)(level[i:i + split_every]) for i in np.arange(0, len(level), split_every)]
    result = compute(level, client)[0]
    if isinstance(result, _Bad):
        raise _global_error(result, parts, client)
    return result


def _whole_data_pos_label(parts, pos_label, client):
    """The classes are judged over the whole data, as in memory (a partition holds some of them
    only): more than two classes, or no way to tell the positive one, is the in-memory error; else
    the positive label every partition uses. A partition with a bad label is left to its statistic,
    which names the sample."""
    import dask

    found = compute([dask.delayed(_classes)(p[0]) for p in parts], client)
    if any(f is None for f in found) or not found:
        return pos_label
    merged = [c for f in found for c in f]
    if not merged:
        return pos_label
    try:
        array = np.array(merged)
    except (TypeError, ValueError):  # pragma: no cover - mixed kinds: the partitions' merge reports them
        return pos_label
    binary_truth(array, pos_label)  # the in-memory errors: three classes, no positive label to be found
    classes = _unique_inverse(array)[0]
    if pos_label is not None or array.dtype == bool or (len(classes) == 1 and classes[0] in (0, 1, -1, True, False)):
        return pos_label
    return resolve_pos_label(classes, None)


def _classes(y_true):
    """The distinct labels of a partition, or None when one is not a label (its statistic says)."""
    try:
        return _unique_inverse(check_labels(y_true, "y_true"))[0]
    except InputError:
        return None


class _Bad:
    """An InputError of partition ``partition`` whose message names a partition-local ``index``."""

    def __init__(self, partition: int, index: int, error: InputError) -> None:
        self.partition, self.index, self.error = partition, index, error


_AT_INDEX = re.compile(r" at index (\d+)$")


def _merge(parts):
    bad = [p for p in parts if isinstance(p, _Bad)]
    if bad:  # the first bad sample of the whole data: lowest partition, then lowest index
        return min(bad, key=lambda b: (b.partition, b.index))
    return ScoreStats.merge(parts)


def _global_error(bad: _Bad, parts, client) -> InputError:
    """The partition's error with the index of the sample in the whole data (the lengths of the
    partitions before it are computed here, once, on this error path only)."""
    import dask

    offset = 0
    if bad.partition:
        lengths = compute([dask.delayed(len)(p[1]) for p in parts[:bad.partition]], client)
        offset = int(sum(lengths))
    error = bad.error
    message = _AT_INDEX.sub(f" at index {bad.index + offset}", error.message)
    return InputError(message, source=error.source, line=error.line, field=error.field)


def _partitions(data, y_true, y_score, sample_weight) -> list[tuple]:
    """Aligned (y_true, y_score, weight) delayed pieces."""
    if data is not None:
        if not hasattr(data, "to_delayed"):
            raise UsageError(f"expected a Dask DataFrame, found {type(data).__name__}")
        columns = [y_true, y_score] + ([sample_weight] if sample_weight is not None else [])
        missing = [c for c in columns if c not in data.columns]
        if missing:
            raise UsageError(f"no column {missing[0]!r} (columns: {', '.join(map(str, data.columns))})")
        import dask

        pieces = data[columns].to_delayed()
        return [(dask.delayed(_column)(p, y_true), dask.delayed(_column)(p, y_score),
                 dask.delayed(_column)(p, sample_weight) if sample_weight is not None else None) for p in pieces]
    arrays = [y_true, y_score] + ([sample_weight] if sample_weight is not None else [])
    if not all(hasattr(a, "to_delayed") for a in arrays):
        raise UsageError("without a DataFrame, y_true, y_score (and sample_weight) must be Dask Series or arrays")
    split = [np.ravel(a.to_delayed()).tolist() for a in arrays]
    if len({len(s) for s in split}) != 1:
        raise UsageError(f"y_true, y_score and sample_weight must have the same partitions, found "
                         f"{', '.join(str(len(s)) for s in split)}")
    weights = split[2] if sample_weight is not None else [None] * len(split[0])
    return list(zip(split[0], split[1], weights))


def _column(frame, name):
    return frame[name]  # the pandas Series: its nulls (NA, NaT, NaN) are checked as in memory


def _min_max(scores):
    try:
        values = check_scores(scores)
    except InputError:  # the statistics of the partition report it, with the sample's index
        return None
    return (float(values.min()), float(values.max())) if values.size else None


def _stats(y_true, y_score, weight, pos_label, bins, value_range, partition: int = 0):
    """The statistic of one partition, or the partition's first bad sample (reported by the driver
    with its index in the whole data). Columns are passed as they come (pandas Series keep their
    nulls; lists their element types)."""
    if len(y_score) == 0:
        return None
    try:
        return ScoreStats.from_arrays(y_true, y_score, sample_weight=weight, pos_label=pos_label, bins=bins,
                                      range=value_range)
    except InputError as error:
        found = _AT_INDEX.search(error.message)
        if found is None:  # not about one sample: the same error as on the whole data
            raise InputError(error.message, source=f"Dask partition {partition}", field=error.field) from None
        return _Bad(partition, int(found.group(1)), error)
