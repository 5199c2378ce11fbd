"""Which score column belongs to which class: by name, never by position alone.

A multiclass score table has one column per class. Pairing the columns with the classes by
position (the sorted class names) silently gives a wrong number when the columns come in
another order (``p_barolo, p_grignolino, p_barbera`` against the sorted ``barbera, barolo,
grignolino``), so cranfield pairs them by name. The rule, for each column:

1. ``CLASS=COLUMN`` (command line) names the class explicitly (``CLASS`` read as the truth
   column's type);
2. a bare column whose name *is* a class name belongs to that class;
3. otherwise, a bare column whose name ends with a separator (``_ - . : /`` or a space) followed
   by a class name belongs to that class: ``p_barolo`` → ``barolo``, ``proba-1`` → ``1``; the
   separator makes ``p_11`` the score of ``11``, not of ``1``. When two classes fit (``x_a_b``
   with classes ``b`` and ``a_b``), the longest class name wins only if it is unique.

Anything else is an error naming the option: a column that matches no class, two columns for one
class, a class without a column. One exception keeps an explicit order working: when *no* bare
column matches any class and the classes were listed explicitly (``--labels`` / ``labels=``), the
bare columns pair with the listed classes in order (scikit-learn's ``labels=`` meaning).

In Python, a ``y_score`` frame (pandas, polars) whose column names are strings is read through
the same rule (columns reordered to the class order); a frame with default integer column names,
or an array, is taken in column order (the classes' order: sorted, or ``labels=``).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from ..errors import UsageError

__all__ = ["match_class_columns", "order_frame_columns"]

SEPARATORS = "_-.:/ "


def _text(label: Hashable) -> str:
    return str(label.item() if hasattr(label, "item") else label)


def _class_of(column: str, texts: dict[str, Hashable]) -> list:
    """The classes a bare column name fits by the rule (exact name first, then longest suffix)."""
    if column in texts:
        return [texts[column]]
    fits = [text for text in texts if len(column) > len(text) and column.endswith(text)
            and column[-len(text) - 1] in SEPARATORS]
    if not fits:
        return []
    longest = max(map(len, fits))
    return [texts[t] for t in fits if len(t) == longest]


def match_class_columns(specs: Sequence[str], classes: Sequence[Hashable], *, columns: Sequence[str] | None = None,
                        explicit_order: bool = False, parse: Any = None, option: str = "--class-score",
                        hint: str | None = None) -> list[str]:
    """The score column of each class of ``classes``, in the order of ``classes``.

    ``specs``: ``CLASS=COLUMN`` or bare column names (see the module's rule). ``columns``: the
    table's column names, so that a column whose own name holds ``=`` stays a bare name.
    ``parse``: reads a ``CLASS`` text as a class value (default: the text itself, or the class
    whose text it is). ``explicit_order``: the classes were listed by the user (``--labels``).
    ``hint``: how to fix an error (default: the command line's ``CLASS=COLUMN``).

    >>> match_class_columns(["p_barolo", "p_grignolino", "p_barbera"], ["barbera", "barolo", "grignolino"])
    ['p_barbera', 'p_barolo', 'p_grignolino']
    >>> match_class_columns(["cat=a", "dog=b"], ["cat", "dog"])
    ['a', 'b']
    """
    classes = list(classes)
    texts = {_text(c): c for c in classes}
    known = set(columns) if columns is not None else None
    pairs: dict = {}
    bare: list[str] = []
    for spec in specs:
        label_text, sep, column = str(spec).partition("=")
        if sep and (known is None or spec not in known):
            if not label_text or not column:
                raise UsageError(f"{option} {spec!r}: expected CLASS=COLUMN or a column name")
            label = parse(label_text) if parse is not None else texts.get(label_text, label_text)
            if label not in classes:
                raise UsageError(f"{option} {spec!r}: {label_text!r} is not one of the classes "
                                 f"{', '.join(texts)}")
            _pair(pairs, label, column, option)
        else:
            bare.append(str(spec))
    fits = {column: _class_of(column, texts) for column in bare}
    if bare and explicit_order and not any(fits.values()) and len(bare) + len(pairs) == len(classes):
        free = [c for c in classes if c not in pairs]
        for label, column in zip(free, bare):
            _pair(pairs, label, column, option)
        bare = []
    for column in bare:
        found = fits[column]
        if len(found) != 1:
            why = ("fits several classes: " + ", ".join(map(_text, found)) if found else
                   "is not a class name and does not end with _CLASS for a class "
                   f"({', '.join(texts)})")
            raise UsageError(f"{option} {column}: cannot tell which class this column scores: its name {why}; "
                             + (hint or f"write {option} CLASS={column}"))
        _pair(pairs, found[0], column, option)
    missing = [_text(c) for c in classes if c not in pairs]
    if missing:
        raise UsageError(f"{option}: no score column for the class{'es' if len(missing) > 1 else ''} "
                         f"{', '.join(missing)}; "
                         + (hint or f"give {option} CLASS=COLUMN for each class"
                            + (" (or drop it from --labels)" if explicit_order else "")))
    return [pairs[c] for c in classes]


def _pair(pairs: dict, label: Hashable, column: str, option: str) -> None:
    if label in pairs and pairs[label] != column:
        raise UsageError(f"{option}: two columns for the class {_text(label)}: {pairs[label]} and {column}")
    pairs[label] = column


def frame_columns(values: Any) -> list[str] | None:
    """The column names of a pandas/polars frame when they are all strings, else ``None``."""
    columns = getattr(values, "columns", None)
    if columns is None or isinstance(values, np.ndarray):
        return None
    names = list(columns)
    return names if names and all(isinstance(name, str) for name in names) else None


def order_frame_columns(y_score: Any, classes: Sequence[Hashable], *, explicit_order: bool,
                        name: str = "y_score") -> Any:
    """``y_score`` with its columns in the order of ``classes`` when it is a frame with string
    column names (matched by the module's rule, errors naming ``name``); else ``y_score``."""
    names = frame_columns(y_score)
    if names is None:
        return y_score
    ordered = match_class_columns(names, classes, columns=names, explicit_order=explicit_order, option=name,
                                  hint="name each column after its class (e.g. p_CLASS), or pass an array "
                                       "with labels= in column order")
    if len(ordered) != len(names):
        raise UsageError(f"{name} has {len(names)} columns for {len(ordered)} classes")
    return y_score[ordered]
