"""The columns of a classification table, validated: scores, labels, predicted classes and the
positive label. The table's grammar (how CSV, TSV and Parquet files are read) is in
:mod:`cranfield.io.classification_table`; :func:`read_table` is re-exported here, so the names of
this module keep working. Used by ``cranfield classify`` and the detection report alike; errors
name the file, the line (CSV counts the header as line 1) and the column."""

from __future__ import annotations

import numpy as np

from ..classification._validation import MAX_CLASSES, check_labels, check_scores, resolve_pos_label
from ..errors import InputError, UsageError
from ..io.classification_table import integer_texts_of, read_table, table_column

__all__ = ["read_table", "label_column", "number_column", "prediction_column", "parse_label", "positive_label"]


def number_column(table, name: str, path: str, first_line: int) -> np.ndarray:
    """A score column as finite float64 (the rules of :func:`cranfield.classification._validation.check_scores`)."""
    column = table_column(table, name, path, first_line)
    import pyarrow as pa

    if not (pa.types.is_integer(column.type) or pa.types.is_floating(column.type)):
        values = column.to_numpy(zero_copy_only=False)
        for i, value in enumerate(values):  # error path only: find the first bad value
            try:
                float(value)
            except (TypeError, ValueError):
                raise InputError(f"expected a number, found {value!r}", source=path, line=i + first_line,
                                 field=name) from None
        values = values.astype(np.float64)
    else:
        values = column.to_numpy()
    scores = check_scores(values, name, source=path, first_line=first_line)
    texts = integer_texts_of(table, name)
    if texts:  # CSV: Arrow read integers beyond 2**53 as doubles; as integers they must stay distinct
        exact = np.empty(len(scores), dtype=object)
        exact[:] = scores.tolist()
        for row, text in texts:  # the few rows beyond 2**53 (error path)
            exact[row] = int(text)
        check_scores(exact, name, source=path, first_line=first_line)
    return scores


def label_column(table, name: str, path: str, first_line: int) -> np.ndarray:
    """A label column (one type, no missing value: the rules of ``check_labels``)."""
    values = table_column(table, name, path, first_line).to_numpy(zero_copy_only=False)
    return check_labels(values, name, source=path, first_line=first_line)


def prediction_column(table, name: str, path: str, first_line: int) -> np.ndarray:
    """The ``--pred`` column: classes, not scores — whole numbers if numeric, at most MAX_CLASSES."""
    values = label_column(table, name, path, first_line)
    if values.dtype.kind == "f":
        fractional = values != np.round(values)
        if fractional.any():
            i = int(np.flatnonzero(fractional)[0])
            raise InputError(f"expected a predicted class, found the number {values[i].item()!r}: --pred takes class labels; "
                             f"for scores use --score {name}", source=path, line=i + first_line, field=name)
        if np.abs(values).max(initial=0) < 2**63:
            values = values.astype(np.int64)  # 1.0 and 1 are the same class; shown as 1
    n_classes = len(np.unique(values))
    if n_classes > MAX_CLASSES:
        raise InputError(f"expected at most {MAX_CLASSES} predicted classes, found {n_classes} distinct values; "
                         f"for scores use --score {name}", source=path, field=name)
    return values


def parse_label(text: str, values: np.ndarray):
    """``--positive`` read as the type of the truth column."""
    if values.dtype.kind == "b":
        lowered = text.lower()
        if lowered not in ("true", "false", "1", "0"):
            raise UsageError(f"--positive {text!r}: the truth column is boolean; expected true or false")
        return lowered in ("true", "1")
    if values.dtype.kind in "iu":
        try:
            return int(text)
        except ValueError:
            raise UsageError(f"--positive {text!r}: the truth column holds integers") from None
    if values.dtype.kind == "f":
        try:
            return float(text)
        except ValueError:
            raise UsageError(f"--positive {text!r}: the truth column holds numbers") from None
    return text


def positive_label(truth: np.ndarray, others: list[np.ndarray], positive_text: str | None, needed: bool):
    if positive_text is not None:
        return parse_label(positive_text, truth)
    classes = sorted(set(np.unique(truth).tolist()).union(*[np.unique(o).tolist() for o in others]))
    if len(classes) > 2 and not needed:
        return None
    try:
        return resolve_pos_label(classes, None) if len(classes) == 2 or needed else None
    except UsageError:
        raise UsageError(f"cannot tell which label is positive among {classes!r}; pass --positive LABEL") from None
