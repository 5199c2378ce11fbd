"""Values as people write them, for every table, footer and report section.

:func:`setting_text` writes a setting (``None`` → ``none``, ``False`` → ``no``,
``9.999000099990002e-05`` → ``1e-4``, ``[]`` → ``none``, a dict → ``key=value, ...``);
:func:`settings_items` turns a settings mapping into (label, text) pairs; :func:`natural_key`
orders query ids as people count them.
"""

from __future__ import annotations

import math
import re
from pathlib import PurePath
from typing import Iterable, Mapping

__all__ = ["setting_text", "settings_items", "natural_key", "natural_sorted", "NONE_TEXT"]

NONE_TEXT = "none"


def _float_text(x: float) -> str:
    """A float in 3 significant digits, below 1e-3 and from 1e6 up with an unpadded exponent:
    0.05, 0.333, 1e-4, 2.5e6."""
    if not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    text = f"{x:.2e}" if abs(x) < 1e-3 or abs(x) >= 1e6 else f"{x:.3g}"
    mantissa, _, exponent = text.partition("e")
    if exponent:
        if "." in mantissa:
            mantissa = mantissa.rstrip("0").rstrip(".")
        text = f"{mantissa}e{int(exponent)}"
    return text


def setting_text(value) -> str:
    """``value`` as a person writes it: ``none``, ``yes``/``no``, ``0.05``, ``1e-4``, ``a, b``, ``k=v, ...``."""
    if hasattr(value, "item") and not isinstance(value, (list, tuple, dict, str)) and getattr(value, "ndim", 0) == 0:
        value = value.item()  # a numpy scalar
    if value is None:
        return NONE_TEXT
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float_text(value)
    if isinstance(value, PurePath):
        return str(value)
    if isinstance(value, Mapping):
        return ", ".join(f"{k}={setting_text(v)}" for k, v in value.items()) or NONE_TEXT
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=str) if isinstance(value, (set, frozenset)) else value
        return ", ".join(setting_text(v) for v in items) or NONE_TEXT
    text = str(value)
    return text if text else NONE_TEXT


def settings_items(settings: Mapping | Iterable[tuple[str, object]]) -> list[tuple[str, str]]:
    """(label, text) pairs: labels with spaces for underscores, values through :func:`setting_text`."""
    pairs = settings.items() if isinstance(settings, Mapping) else settings
    return [(str(k).replace("_", " "), setting_text(v)) for k, v in pairs]


_PIECES = re.compile(r"(\d+)")


def natural_key(qid) -> tuple:
    """Sort key of a query id in natural order: ids that are whole numbers first, by value
    (1, 2, 10, 100; ``007`` next to ``7``, before it); then every other id by its text, with the
    runs of digits inside it compared as numbers (``q2`` before ``q10``)."""
    text = str(qid)
    if text.isdigit():
        return (0, int(text), len(text), ())
    parts = tuple((0, int(p), len(p)) if p.isdigit() else (1, p, 0) for p in _PIECES.split(text) if p)
    return (1, 0, 0, parts)


def natural_sorted(qids: Iterable) -> list:
    """``qids`` in :func:`natural_key` order."""
    return sorted(qids, key=natural_key)
