"""The names of the run files a user gives: the paths in order, each labelled by a
``LABEL=PATH`` spec (the command line's ``--name``) naming it; ``a.run`` and ``./a.run`` are the
same run. Light (no numpy, no pyarrow): the command line's option parsing imports it."""

from __future__ import annotations

import os

from ..errors import UsageError

__all__ = ["run_specs"]


def run_specs(paths, names) -> list[tuple[str, str | None]]:
    """``[(path, label or None)]``: the RUN arguments in order, each labelled by a ``--name
    LABEL=PATH`` naming it; runs named only by ``--name`` follow."""
    labels: dict[str, str] = {}
    used: set[str] = set()
    for spec in names:
        label, sep, path = spec.partition("=")
        if not sep or not label or not path:
            raise UsageError(f"--name: expected LABEL=PATH, found {spec!r}")
        if label in used:
            raise UsageError(f"--name: the label {label!r} is given twice")
        if path in labels:
            raise UsageError(f"--name: the run {path} is named twice ({labels[path]!r} and {label!r})")
        used.add(label)
        labels[path] = label
    by_file = {_same_file(p): label for p, label in labels.items()}
    specs = [(str(p), by_file.get(_same_file(str(p)))) for p in paths]
    given = {_same_file(p) for p, _ in specs}
    specs += [(p, label) for p, label in labels.items() if _same_file(p) not in given]
    if not specs:
        raise UsageError("expected at least one RUN (or --name LABEL=PATH)")
    return specs


def _same_file(path: str) -> str:
    """A key under which ``a.run`` and ``./a.run`` are the same run."""
    return path if path == "-" or ":" in path.split(os.sep)[0] else os.path.realpath(path)
