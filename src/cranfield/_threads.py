"""How many threads cranfield's own work may use (reading blocks, evaluating parts, formatting).

A bottom-level helper: the readers in :mod:`cranfield.io` and the evaluator both ask it.
"""

from __future__ import annotations

import os

__all__ = ["available_threads", "MAX_DEFAULT_THREADS"]

#: the default is the cores this process may use, up to this many; ``CRANFIELD_THREADS`` may ask for more
MAX_DEFAULT_THREADS = 8


def available_threads() -> int:
    """Cores this process may use, at most :data:`MAX_DEFAULT_THREADS`; the environment variable
    ``CRANFIELD_THREADS`` (a positive integer) overrides."""
    override = os.environ.get("CRANFIELD_THREADS")
    if override and override.isdigit():
        return max(1, int(override))
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_DEFAULT_THREADS))
