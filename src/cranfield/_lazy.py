"""Lazy package attributes (PEP 562): a package lists ``name -> submodule`` and imports on use."""

from __future__ import annotations

import importlib
from typing import Any, Callable


def lazy_attributes(package: str, mapping: dict[str, str], namespace: dict,
                    fallback: Callable[[str], Any] | None = None):
    """Return ``(__getattr__, __dir__)`` for ``package`` whose public names live in submodules.

    ``mapping`` maps a public name to the submodule (relative to ``package``) that defines it;
    ``fallback(name)`` may resolve other names (or raise AttributeError).
    """
    public = sorted(mapping)

    def __getattr__(name: str) -> Any:
        module = mapping.get(name)
        if module is None:
            if fallback is not None:
                return fallback(name)
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return public

    return __getattr__, __dir__
