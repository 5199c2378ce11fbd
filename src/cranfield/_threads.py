"""How many threads cranfield's own work may use (reading blocks, evaluating parts, formatting).

A bottom-level helper: the readers in :mod:`cranfield.io` and the evaluator both ask it.
"""

from __future__ import annotations

import os
from collections import deque
from typing import Callable, Iterable, Iterator

__all__ = ["available_threads", "in_order", "MAX_DEFAULT_THREADS"]

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


def in_order(pool, function: Callable, items: Iterable, ahead: int) -> Iterator[tuple]:
    """``(item, function(item))`` for each of ``items``, in their order, the calls run by ``pool``
    (an executor) up to ``ahead`` items ahead of the one taken: the next results are computed while
    the caller uses this one. The calls not taken yet are cancelled when the caller stops early (or
    ``items`` or a call raises)."""
    pending: deque = deque()
    try:
        for item in items:
            pending.append((item, pool.submit(function, item)))
            if len(pending) > ahead:
                item, future = pending.popleft()
                yield item, future.result()
        while pending:
            item, future = pending.popleft()
            yield item, future.result()
    finally:
        for _, future in pending:
            future.cancel()
