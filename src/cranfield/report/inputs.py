"""Deprecated home of the command line's readers: they moved to :mod:`cranfield.retrieval.inputs`
(building runs and qrels) and :func:`cranfield.io.ecosystem.tabular_input` (which reader a file
takes), so that no reader sits above its users. The names stay importable from here."""

from __future__ import annotations

from ..retrieval.inputs import (baseline_name, read_qrels_file, read_run_file, read_runs, tabular_input,
                                unique_names)

__all__ = ["unique_names", "read_runs", "read_run_file", "read_qrels_file", "tabular_input", "baseline_name"]
