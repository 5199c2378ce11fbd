"""One style for every figure, for papers: TrueType fonts, Okabe–Ito colours, one font scale.

The style is applied locally — while a plot function draws and whenever a figure it made is
drawn or saved — never by changing the user's global ``matplotlib.rcParams``:

* ``pdf.fonttype`` / ``ps.fonttype`` 42: fonts embedded as TrueType (Type 42), not Type 3,
  which the ACM and IEEE PDF checkers reject;
* the colour cycle is the Okabe–Ito palette (Okabe & Ito 2008), distinguishable with every
  common colour-vision deficiency; :data:`NEUTRALS` (black, greys) draw references;
* one font-size scale, :data:`FONT_SIZES` (points), for titles, labels, ticks and legends;
* constrained layout, long titles wrapped, legends outside the data (:func:`outside_legend`).
"""

from __future__ import annotations

import contextlib
import functools
import textwrap

# StyledFigure is made by __getattr__ on first use (matplotlib is imported lazily)
__all__ = ["PALETTE", "NEUTRALS", "FONT_SIZES", "RC", "style", "styled", "StyledFigure", "colors",  # noqa: F822
           "wrap_title", "outside_legend", "HIGHER", "LOWER"]

# Okabe & Ito (2008), "Color universal design": blue, orange, bluish green, vermillion,
# reddish purple, sky blue, yellow (light: last), black
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
NEUTRALS = ("#000000", "#404040", "#737373", "#8c8c8c", "#bfbfbf", "#ffffff")
HIGHER, LOWER = PALETTE[0], PALETTE[1]  # a pair that stays apart for every colour-vision type

FONT_SIZES = {"title": 11.0, "label": 10.0, "tick": 9.0, "legend": 9.0, "annotation": 9.0}

RC = {
    "pdf.fonttype": 42, "ps.fonttype": 42,
    "font.size": FONT_SIZES["label"],
    "axes.titlesize": FONT_SIZES["title"], "figure.titlesize": FONT_SIZES["title"],
    "axes.labelsize": FONT_SIZES["label"],
    "xtick.labelsize": FONT_SIZES["tick"], "ytick.labelsize": FONT_SIZES["tick"],
    "legend.fontsize": FONT_SIZES["legend"], "legend.title_fontsize": FONT_SIZES["legend"],
    "figure.constrained_layout.use": True,
}


@contextlib.contextmanager
def style():
    """The cranfield style as a ``matplotlib.rc_context`` (restored on exit)."""
    import matplotlib
    from cycler import cycler

    with matplotlib.rc_context({**RC, "axes.prop_cycle": cycler(color=list(PALETTE))}):
        yield


def styled(function):
    """Run a plot function inside :func:`style`."""
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        with style():
            return function(*args, **kwargs)

    return wrapper


def _figure_class():
    from matplotlib.figure import Figure

    class _Styled(Figure):
        """A Figure drawn and saved in the cranfield style, whatever the global rcParams say
        (tick labels are made at draw time, fonts are embedded at save time)."""

        def draw(self, renderer):
            with style():
                return super().draw(renderer)

        def savefig(self, *args, **kwargs):
            with style():
                return super().savefig(*args, **kwargs)

    _Styled.__name__ = _Styled.__qualname__ = "StyledFigure"
    _Styled.__module__ = __name__
    return _Styled


def __getattr__(name: str):
    if name == "StyledFigure":  # made on first use: matplotlib is imported lazily
        cls = _figure_class()
        globals()["StyledFigure"] = cls
        return cls
    raise AttributeError(name)


def colors(n: int) -> list[str]:
    """``n`` colours from :data:`PALETTE` (repeating after 8: tell lines apart by markers too)."""
    return [PALETTE[i % len(PALETTE)] for i in range(n)]


def wrap_title(ax, text: str, *, fontsize: float | None = None) -> None:
    """Set ``text`` as the title of ``ax``, wrapped to the figure's width (never clipped)."""
    size = fontsize or FONT_SIZES["title"]
    width_pt = ax.figure.get_figwidth() * 72 * 0.9
    chars = max(20, int(width_pt / (0.55 * size)))
    ax.set_title("\n".join(textwrap.fill(part, chars) for part in text.split("\n")), fontsize=size)


def outside_legend(figure, ax, *, loc_inside: str = "best", extra: tuple = (), title: str | None = None):
    """The legend of ``ax`` (and the ``extra`` handles) below the axes when ``ax`` is the
    figure's only axes (off the data, inside the figure: constrained layout makes room); else
    inside, at ``loc_inside``."""
    handles, labels = ax.get_legend_handles_labels()
    handles, labels = handles + [h for h in extra], labels + [h.get_label() for h in extra]
    if not handles:
        return None
    if title:
        chars = max(20, int(figure.get_figwidth() * 72 * 0.85 / (0.55 * FONT_SIZES["legend"])))
        title = textwrap.fill(title, chars)
    if len(figure.axes) == 1 and figure.axes[0] is ax and figure.get_layout_engine() is not None:
        longest = max(len(label) for label in labels)
        ncol = 2 if len(labels) > 2 and longest * 0.55 * FONT_SIZES["legend"] * 2 < figure.get_figwidth() * 60 else 1
        return figure.legend(handles, labels, loc="outside lower center", ncol=ncol, title=title)
    return ax.legend(handles, labels, loc=loc_inside, title=title)
