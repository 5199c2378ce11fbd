"""The file stems of a set of figures: safe for every file system and distinct (light: no
matplotlib, no numpy)."""

from __future__ import annotations

import re

__all__ = ["unique_stems"]


def unique_stems(figures: dict) -> dict:
    """The figures under file stems that are safe (letters, digits, ``_.-``) and distinct: two
    names that sanitise alike (``a/b`` and ``a_b``) get ``a_b`` and ``a_b_2`` instead of one
    overwriting the other."""
    out: dict = {}
    taken: set[str] = set()
    for stem, value in figures.items():
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", stem)
        candidate, k = safe, 1
        while candidate.lower() in taken:  # case-insensitive file systems too
            k += 1
            candidate = f"{safe}_{k}"
        taken.add(candidate.lower())
        out[candidate] = value
    return out
