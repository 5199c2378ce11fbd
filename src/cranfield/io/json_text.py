"""JSON output: one writer for every command, valid JSON whatever the numbers.

JSON has no NaN or infinity (Python's ``json`` would write the invalid tokens ``NaN`` and
``Infinity``, or raise with ``allow_nan=False``): an undefined or non-finite number is written
``null``. numpy scalars and arrays become plain numbers and lists.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

__all__ = ["json_text", "plain"]


def plain(value: Any) -> Any:
    """``value`` with numpy scalars and arrays as Python ones, tuples as lists, and every
    non-finite float as None."""
    if isinstance(value, dict):
        return {key if isinstance(key, (str, int, float, bool)) else str(key): plain(item)
                for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if isinstance(value, np.ndarray):
        return plain(value.tolist())
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def json_text(document: Any, *, indent: int | None = 2, ensure_ascii: bool = False) -> str:
    """``document`` as JSON text ending with a newline (non-finite numbers as ``null``)."""
    return json.dumps(plain(document), indent=indent, ensure_ascii=ensure_ascii, allow_nan=False) + "\n"
