"""Shared plumbing of the plots: lazy headless matplotlib, figure creation, saving, SVG text."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from .._params import check_choice, usage_error
from ..errors import UsageError
from ..io.atomic import atomic_write
from ._style import colors  # one palette for every figure: Okabe–Ito

__all__ = ["require_matplotlib", "new_axes", "save_figure", "save_figures", "figure_svg", "named_scores", "FORMATS", "colors"]

FORMATS = ("png", "svg", "pdf")
INSTALL_HINT = "plots need matplotlib: pip install 'cranfield[plots]'"


def require_matplotlib():
    """The ``matplotlib`` module, imported on first use; figures are made without pyplot (no
    GUI backend, no global state), so plotting works headless."""
    try:
        import matplotlib
    except ImportError:  # pragma: no cover - matplotlib is a dependency; kept for stripped installs
        raise UsageError(INSTALL_HINT) from None
    return matplotlib


def new_axes(ax=None, *, size: tuple[float, float] = (6.4, 4.8)):
    """``(figure, axes)``: the given axes and their figure, or a new figure of ``size`` inches
    in the cranfield style (:mod:`cranfield.plots._style`: drawn and saved with it)."""
    if ax is not None:
        return ax.figure, ax
    require_matplotlib()
    from ._style import StyledFigure, style  # optional dependency: StyledFigure subclasses matplotlib's Figure

    with style():
        figure = StyledFigure(figsize=size, layout="constrained")
        return figure, figure.add_subplot()


def _format_of(path: Path, fmt: str | None) -> str:
    if fmt is not None and not isinstance(fmt, str):
        check_choice(fmt, "format", FORMATS)
    fmt = (fmt or path.suffix.lstrip(".") or "png").lower()
    if fmt not in FORMATS:
        raise usage_error("format", f"one of {', '.join(FORMATS)} (the figure {path})", fmt)
    return fmt


# Limits (docs/reliability.md, "Limits"): a PNG is drawn in memory, 4 bytes per pixel.
MAX_DPI = 1200
MAX_PIXELS = 200 * 10**6


def check_dpi(dpi) -> float:
    """``dpi`` as a number from 1 to :data:`MAX_DPI`, or a :class:`UsageError`."""
    if isinstance(dpi, (bool, np.bool_)) or not isinstance(dpi, (int, float, np.integer, np.floating)) \
            or not 1 <= dpi <= MAX_DPI:
        raise UsageError(f"dpi: expected a number from 1 to {MAX_DPI} (a PNG is drawn in memory: 4 bytes per "
                         f"pixel, and the pixels grow with the square of dpi), found {dpi!r}")
    return float(dpi) if isinstance(dpi, (float, np.floating)) else int(dpi)


def save_figure(figure, path: str | os.PathLike, *, format: str | None = None, dpi: int = 150) -> Path:
    """Write ``figure`` to ``path`` atomically (PNG, SVG or PDF, from ``format`` or the suffix)."""
    if not isinstance(path, (str, os.PathLike)):
        raise UsageError(f"path: expected a file name, found {path!r:.80}")
    if not hasattr(figure, "savefig"):
        raise UsageError(f"figure: expected a matplotlib Figure, found {type(figure).__name__}")
    target = Path(path)
    fmt = _format_of(target, format)
    dpi = check_dpi(dpi)
    if fmt == "png":
        width, height = (float(v) * dpi for v in figure.get_size_inches()) if hasattr(figure, "get_size_inches") \
            else (0.0, 0.0)
        if width * height > MAX_PIXELS:
            raise UsageError(f"{target}: a {width:.0f} x {height:.0f} pixel image is over the limit of "
                             f"{MAX_PIXELS // 10**6} megapixels (memory); lower dpi ({dpi:g}) or write SVG or PDF")
    with atomic_write(target, mode="wb") as handle:
        figure.savefig(handle, format=fmt, dpi=dpi, metadata=_metadata(fmt))
    return target


def _metadata(fmt: str) -> dict:
    # no creation date: the same inputs give the same bytes
    return {"Date": None} if fmt == "svg" else ({"CreationDate": None} if fmt == "pdf" else {})


def figure_svg(figure, *, salt: str = "cranfield") -> str:
    """The figure as an ``<svg>`` element to inline in HTML (text kept as text, ids made unique by ``salt``)."""
    matplotlib = require_matplotlib()
    if not hasattr(figure, "savefig"):
        raise UsageError(f"figure: expected a matplotlib Figure, found {type(figure).__name__}")
    if not isinstance(salt, str):
        raise UsageError(f"salt: expected a string, found {salt!r:.80}")
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": salt}):
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg", metadata=_metadata("svg"))
    text = buffer.getvalue()
    return text[text.index("<svg"):]


def named_scores(y_score: Any) -> dict[str, np.ndarray]:
    """One score array, or a mapping name -> scores for several systems, as ``{name: array}``."""
    if isinstance(y_score, Mapping):
        if not y_score:
            raise UsageError("y_score: expected scores or a mapping name -> scores, found an empty mapping")
        return {str(name): np.asarray(values) for name, values in y_score.items()}
    return {"scores": np.asarray(y_score)}


def save_figures(figures: Mapping[str, Any], directory: str | os.PathLike, *, format: str = "png",
                 dpi: int = 150) -> list[Path]:
    """Write ``{stem: Figure or (Figure, caption)}`` as ``directory/stem.format`` (created if
    needed), each file atomically; returns the paths."""
    import re

    fmt = _format_of(Path(f"x.{format}"), format)
    check_dpi(dpi)  # before the folder is created
    if not isinstance(directory, (str, os.PathLike)) or not isinstance(figures, Mapping):
        raise UsageError(f"save_figures: expected a mapping name -> figure and a folder name, found "
                         f"{type(figures).__name__} and {directory!r:.80}")
    folder = Path(directory)
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"{folder} exists and is not a folder")
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for stem, value in figures.items():
        figure = value[0] if isinstance(value, tuple) else value
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", str(stem))
        written.append(save_figure(figure, folder / f"{safe}.{fmt}", format=fmt, dpi=dpi))
    return written
