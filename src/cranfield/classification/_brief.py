"""How an argument is shown in an error message: its repr on one line, at most 80 characters."""

from __future__ import annotations

from typing import Any

__all__ = ["brief"]


def brief(value: Any) -> str:
    """``repr(value)`` on one line, cut to 80 characters (an array or a long text stays short)."""
    try:
        text = " ".join(repr(value).split())
    except Exception:  # noqa: BLE001 - a broken __repr__
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 80 else text[:79] + "…"
