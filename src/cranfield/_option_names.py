"""Which name the user knows a library parameter by: the command line's option while a command
runs (``--bootstrap`` for ``n_resamples``), the parameter's own name otherwise. Kept apart from
:mod:`cranfield._params` so that the command line can install its resolver without loading numpy
(``cranfield --version`` and ``--help`` stay light)."""

from __future__ import annotations

import contextlib
from contextvars import ContextVar
from typing import Callable, Iterator

from . import errors

__all__ = ["option_names", "set_option_resolver", "display_name"]

_NAMES: ContextVar[dict | None] = ContextVar("cranfield_option_names", default=None)
_RESOLVER: ContextVar[Callable[[str], str | None] | None] = ContextVar("cranfield_option_resolver", default=None)


@contextlib.contextmanager
def option_names(**names: str) -> Iterator[None]:
    """Within the block, errors about the library parameter ``key`` name ``names[key]`` instead
    (the command line's option, e.g. ``option_names(p1="--baseline")``)."""
    merged = dict(_NAMES.get() or {})
    merged.update(names)
    token = _NAMES.set(merged)
    try:
        yield
    finally:
        _NAMES.reset(token)


def set_option_resolver(resolver: Callable[[str], str | None] | None):
    """Install ``resolver(name) -> option name or None`` (the command line's: the running
    command's options); returns a token for ``_RESOLVER.reset``."""
    return _RESOLVER.set(resolver)


def display_name(name: str) -> str:
    """The name the user knows parameter ``name`` by (see :func:`option_names`)."""
    names = _NAMES.get()
    if names and name in names:
        return names[name]
    resolver = _RESOLVER.get()
    if resolver is not None:
        found = resolver(name)
        if found:
            return found
    return name


errors.set_display_name(display_name)  # hand-written UsageErrors name the user's option too
