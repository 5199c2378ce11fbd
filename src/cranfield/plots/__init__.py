"""Plots (matplotlib, headless): each function returns a ``matplotlib.figure.Figure``.

Retrieval: :func:`recall_precision_plot`, :func:`per_query_pr_plot`, :func:`difference_plot`,
:func:`forest_plot`. Classification: :func:`roc_plot`, :func:`pr_plot`, :func:`det_plot`,
:func:`confusion_matrix_plot`, :func:`threshold_plot`. Output: :func:`save_figure` (PNG, SVG,
PDF, written atomically) and :func:`figure_svg` (an inline ``<svg>`` for HTML).
matplotlib is imported on first use; figures are made without pyplot, so no display is needed.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY: dict[str, str] = {
    "recall_precision_plot": "retrieval", "per_query_pr_plot": "retrieval", "difference_plot": "retrieval",
    "forest_plot": "retrieval", "ELEVEN_POINT_MEASURES": "retrieval", "RECALL_LEVELS": "retrieval",
    "roc_plot": "classification", "pr_plot": "classification", "det_plot": "classification",
    "confusion_matrix_plot": "classification", "threshold_plot": "classification", "DET_TICKS": "classification",
    "save_figure": "_base", "save_figures": "_base", "figure_svg": "_base", "FORMATS": "_base",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
