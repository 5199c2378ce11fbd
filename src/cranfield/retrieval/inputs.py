"""Runs and qrels from the paths a user names (TREC text, Parquet, CSV/TSV through the column
conventions of :mod:`cranfield.io.ecosystem`, ``irds:<id>``), and the names of the runs: the
readers of the reports and of the command line, at the lowest layer that builds a
:class:`~cranfield.retrieval.run.Run` and :class:`~cranfield.retrieval.qrels.Qrels` (the file
grammars themselves are in :mod:`cranfield.io`)."""

from __future__ import annotations

from pathlib import Path

from ..errors import UsageError
from ..io.ecosystem import parse_columns, read_table_file, tabular_input
from .qrels import read_qrels
from .run import read_run

__all__ = ["unique_names", "read_runs", "read_run_file", "read_qrels_file", "tabular_input", "baseline_name"]


def unique_names(names: list[str]) -> list[str]:
    """Names made unique in order: a repeated name gets ``#2``, ``#3``, … (never clashing)."""
    taken = set(names)
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        if seen[name] == 1:
            out.append(name)
            continue
        k = seen[name]
        while f"{name}#{k}" in taken:
            k += 1
        seen[name] = k
        taken.add(f"{name}#{k}")
        out.append(f"{name}#{k}")
    return out


def read_runs(specs, *, run_columns: str | None = None) -> dict:
    """``{name: Run}`` for ``(path, label)`` specs: labels first, else the run's tag (else its
    file name), duplicates numbered."""
    runs = [read_run_file(path, run_columns) for path, _ in specs]
    names = [label or getattr(run, "name", None) or Path(path).name for (path, label), run in zip(specs, runs)]
    named = unique_names(names)
    for name, run in zip(named, runs):
        run.name = name
    return dict(zip(named, runs))


def read_run_file(path: str, run_columns: str | None = None):
    """A run file: TREC text or Parquet as usual; CSV/TSV (or any file given --run-columns) through
    the column conventions."""
    if run_columns or tabular_input(path):
        table = read_table_file(path, kind="run", columns=parse_columns(run_columns, option="--run-columns"))
        return read_run(table, name=Path(path).name)
    return read_run(path)


def read_qrels_file(path: str, qrels_columns: str | None = None):
    """Qrels: a path as usual (TREC text, Parquet, ``irds:<id>``); CSV/TSV or --qrels-columns through
    the column conventions."""
    if qrels_columns or tabular_input(path):
        return read_qrels(read_table_file(path, kind="qrels",
                                          columns=parse_columns(qrels_columns, option="--qrels-columns")))
    return read_qrels(path)


def baseline_name(baseline: str | None, named: dict, paths: list[str]) -> str | None:
    """``--baseline`` given as a run name, a file path or a file name."""
    if baseline is None or baseline in named:
        return baseline
    for name, path in zip(named, paths):
        if baseline in (path, Path(path).name, Path(path).stem):
            return name
    raise UsageError(f"--baseline {baseline!r} is none of the runs: {', '.join(named)} (run names or file names)")
