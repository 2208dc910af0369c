"""What every figure shares: pyplot-managed :class:`NotebookFigure`, colours, input checks."""

from __future__ import annotations

import functools
import itertools
import numbers
from collections.abc import Mapping

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from attnlib import domains as D
from attnlib.domains import declare

__all__ = ["NotebookFigure", "OKABE_ITO", "LINESTYLES", "DPI"]

#: Okabe-Ito colours in the order lines get them (yellow and black come last: yellow is
#: faint on white and black is kept for ground truth).
OKABE_ITO = (
    "#0072B2",  # blue
    "#D55E00",  # vermillion
    "#009E73",  # bluish green
    "#CC79A7",  # reddish purple
    "#E69F00",  # orange
    "#56B4E9",  # sky blue
    "#F0E442",  # yellow
    "#000000",  # black
)

#: Line styles cycled together with :data:`OKABE_ITO`, a second cue besides colour.
LINESTYLES = ("-", "--", "-.", ":", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 3)), (0, (8, 2)), "-")


class NotebookFigure(Figure):
    """The :class:`matplotlib.figure.Figure` subclass of attnlib's figures.

    A plain pyplot figure (created with ``plt.figure(FigureClass=NotebookFigure)``) with a
    text repr that does not depend on the backend's DPI, ``<Figure size 250x250 with 2
    Axes>``, so notebook outputs compare equal everywhere, and a ``_repr_png_`` for
    front ends that have no figure formatter.

    A figure drawn by attnlib also remembers how it was drawn, so
    :func:`attnlib.plotting.variants.figure_variants` can draw it again for a dark page and
    for a narrow column.
    """

    #: ``draw(theme, narrow, managed) -> NotebookFigure``: how attnlib drew this figure.
    _attnlib_redraw = None
    #: What the figure held when attnlib finished it (see ``_fingerprint``).
    _attnlib_fingerprint = None

    def __init__(self, *args, **kwargs) -> None:
        # a figure size matplotlib would refuse with its own words (or take as NaN inches)
        # is refused here, naming the class and the argument
        if kwargs.get("figsize") is not None:
            kwargs["figsize"] = _check_figsize(kwargs["figsize"], "NotebookFigure")
        elif args and args[0] is not None:
            args = (_check_figsize(args[0], "NotebookFigure"), *args[1:])
        super().__init__(*args, **kwargs)

    def __repr__(self) -> str:
        width, height = self.bbox.size
        return f"<Figure size {width:g}x{height:g} with {len(self.axes)} Axes>"

    def _repr_png_(self) -> bytes:
        import io

        buffer = io.BytesIO()
        self.savefig(buffer, format="png", bbox_inches="tight")
        return buffer.getvalue()


#: Dots per inch of every figure built here: fixed per figure (not read from rcParams,
#: which the inline backend changes), so text reprs like ``<Figure size 250x250 ...>`` are
#: the same in every environment.
DPI = 100


#: Width (in) of a figure's narrow variant, drawn for a phone's column: a phone 390 px wide
#: has a 358 CSS px column (measured in the built book; figures take all of it there), and
#: 3.6 in at 100 dpi is a PNG of about 372 px (matplotlib's tight box adds about 12 px; a
#: label that sticks out, up to 47 px more), so 9-pt text (12.5 px drawn) shows at about
#: 12 px, and at >= 10.5 px in the widest (4.2 in, drawn before, showed it at 9.2-9.9 px).
NARROW_WIDTH = 3.6


def _new_figure(figsize, managed: bool = True) -> NotebookFigure:
    """A new figure: pyplot-managed (what ``plt.figure`` makes; d2l draws on pyplot too),
    or, for a variant drawn only to be saved, a figure pyplot does not know about (so
    Jupyter's inline backend does not show it)."""
    if managed:
        import matplotlib.pyplot as plt  # on first use: importing attnlib loads no matplotlib

        return plt.figure(
            figsize=_check_figsize(figsize),
            dpi=DPI,
            layout="constrained",
            FigureClass=NotebookFigure,
        )
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = NotebookFigure(figsize=_check_figsize(figsize), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _drawn(draw) -> NotebookFigure:
    """Draw a figure for a light page at its own size, on pyplot, and remember how.

    ``draw(theme, narrow, managed)`` builds the whole figure; attnlib's figure functions
    check their inputs, then hand such a function (closing over the checked data) here.
    """
    from attnlib.plotting._theme import LIGHT

    fig = draw(LIGHT, False, True)
    fig._attnlib_redraw = draw
    fig._attnlib_fingerprint = _fingerprint(fig)
    return fig


def _fingerprint(fig) -> tuple:
    """What a figure holds: axes, their artists, labels, limits and the figure's texts. If
    it differs when the figure is shown, someone drew on it after attnlib did, and a
    redrawn variant would lack that: no variants then."""
    axes = tuple(
        (
            len(ax.lines),
            len(ax.collections),
            len(ax.images),
            len(ax.patches),
            len(ax.texts),
            ax.get_title(),
            ax.get_title("left"),
            ax.get_title("right"),
            ax.get_xlabel(),
            ax.get_ylabel(),
            ax.get_xscale(),
            ax.get_yscale(),
            tuple(ax.get_xlim()),
            tuple(ax.get_ylim()),
            _legend_print(ax.get_legend()),
        )
        for ax in fig.axes
    )
    texts = tuple(t.get_text() for t in fig.texts)
    sup = tuple(
        t.get_text() if t is not None else None
        for t in (fig._suptitle, fig._supxlabel, fig._supylabel)
    )
    return (axes, texts, sup, len(fig.legends), tuple(fig.get_size_inches()))


def _legend_print(legend):
    """A legend's place, columns and entries (None without one)."""
    if legend is None:
        return None
    return (legend._loc, legend._ncols, tuple(t.get_text() for t in legend.get_texts()))


def _styles(theme=None):
    """Endless (colour, linestyle) pairs: Okabe-Ito colours, each with its own line style,
    as drawn in ``theme`` (default: light; see :func:`attnlib.plotting._theme.series_colour`)."""
    from attnlib.plotting._theme import LIGHT, series_colour

    theme = theme or LIGHT
    return itertools.cycle((series_colour(c, theme), s) for c, s in zip(OKABE_ITO, LINESTYLES))


def _wrap_long_labels(fig, t) -> None:
    """In a figure no wider than a phone's (NARROW_WIDTH), an x label or a title longer than
    the figure is wide goes onto two lines or more: one line would stick out past the figure,
    widen the saved picture and so shrink all its text in the phone's column (chapter 7's
    "the row made uniform (Y: year, ...)" made its phone figure 442 px wide). Estimated at
    0.55 em a character; maths ($...$) is left as it is."""
    import textwrap

    for ax in fig.axes:
        for label, size in ((ax.xaxis.label, t.LABEL_PT), (ax.title, t.TITLE_PT)):
            text = label.get_text()
            fit = int(fig.get_figwidth() / (0.55 * size / 72))
            if "$" in text or "\n" in text or len(text) <= fit:
                continue
            label.set_text(textwrap.fill(text, width=fit))


def _finish(fig, theme) -> None:
    """Give a drawn figure the theme's colours and attnlib's text sizes (nothing under 9 pt)."""
    from attnlib.plotting import _theme as t

    fg = theme.foreground
    fig.set_facecolor(theme.background)
    if fig.get_figwidth() <= NARROW_WIDTH + 1e-9:
        _wrap_long_labels(fig, t)
    for ax in fig.axes:
        ax.set_facecolor(theme.background)
        for spine in ax.spines.values():
            spine.set_edgecolor(fg)
        ax.tick_params(which="both", colors=fg, labelsize=t.TICK_PT)
        for label in (ax.xaxis.label, ax.yaxis.label):
            label.set(color=fg, fontsize=t.LABEL_PT)
        for title in (ax.title, ax._left_title, ax._right_title):
            title.set(color=fg, fontsize=max(t.SMALLEST_PT, min(title.get_fontsize(), t.TITLE_PT)))
        legend = ax.get_legend()
        if legend is not None:
            for text in legend.get_texts():
                text.set(color=fg, fontsize=t.LEGEND_PT)
    for legend in fig.legends:
        for text in legend.get_texts():
            text.set(color=fg, fontsize=t.LEGEND_PT)
    for text, size in (
        (fig._suptitle, t.SUPTITLE_PT),
        (fig._supxlabel, t.LABEL_PT),
        (fig._supylabel, t.LABEL_PT),
    ):
        if text is not None:
            text.set(color=fg, fontsize=size)


def _to_numpy(x, name: str) -> np.ndarray:
    """Convert a tensor, array, list or number to a float64 NumPy array (no arithmetic).

    Tensors are detached and moved to the CPU first, so tensors that require grad or live
    on a GPU are fine. Raises TypeError naming ``name`` for anything not numeric.
    """
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is a dependency of attnlib
        torch = None
    if torch is not None and isinstance(x, torch.Tensor):
        if x.is_complex():
            raise TypeError(f"{name} must hold real numbers, got a complex tensor ({x.dtype})")
        x = x.detach().cpu().to(torch.float64).numpy()
    elif isinstance(x, (str, bytes)) or x is None:
        raise TypeError(f"{name} must be a tensor or array of numbers, got {type(x).__name__}")
    try:
        arr = np.asarray(x)
    except Exception as err:  # ragged lists and the like
        raise TypeError(
            f"{name} must be a tensor or array of numbers, got {type(x).__name__}"
        ) from err
    if arr.dtype == object or not (
        np.issubdtype(arr.dtype, np.number) or np.issubdtype(arr.dtype, np.bool_)
    ):
        raise TypeError(
            f"{name} must be a tensor or array of numbers, got {type(x).__name__} of dtype "
            f"{arr.dtype}"
        )
    if np.issubdtype(arr.dtype, np.complexfloating):
        raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
    return arr.astype(np.float64)


def _check_finite(arr: np.ndarray, name: str) -> None:
    """Raise ValueError if ``arr`` holds NaN or infinity (never drawn as if it were data)."""
    bad = ~np.isfinite(arr)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"{name} must be finite, but it holds {int(bad.sum())} NaN/inf value(s), "
            f"the first at index {where}: {arr[where]}"
        )


def _check_1d(arr: np.ndarray, name: str, length: int | None = None, length_of: str = "") -> None:
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D (n,), got shape {tuple(arr.shape)}")
    if length is not None and arr.shape[0] != length:
        raise ValueError(
            f"{name} must have the same length as {length_of} ({length},), got shape "
            f"{tuple(arr.shape)}"
        )


def _check_mapping(obj, name: str, what: str) -> None:
    if not isinstance(obj, Mapping):
        raise TypeError(f"{name} must be a dict mapping label -> {what}, got {type(obj).__name__}")
    if len(obj) == 0:
        raise ValueError(f"{name} must not be empty (a dict mapping label -> {what})")


def _labelled_curves(obj, name: str, what: str, n: int, ref: str) -> list[tuple[str, np.ndarray]]:
    """Validate a dict label -> 1-D values of length ``n`` (that of ``ref``).

    Returns the (label, array) pairs.
    """
    _check_mapping(obj, name, what)
    curves = []
    for label, value in obj.items():
        arr = _to_numpy(value, f"{name}[{label!r}]")
        _check_1d(arr, f"{name}[{label!r}]", n, ref)
        curves.append((str(label), arr))
    return curves


#: Largest figure side in inches: a figure is drawn at twice its DPI (retina PNGs), and a
#: side beyond this is far past any screen or page (and close to the renderer's limits).
MAX_FIGURE_INCHES = 100.0


def _figsize_domain(value, name: str, fn: str) -> tuple[float, float]:
    return _check_figsize(value, fn)


def _check_figsize(figsize, fn: str = "figure") -> tuple[float, float]:
    """``(width, height)`` in inches: two finite numbers in ``(0, MAX_FIGURE_INCHES]`` (numpy
    scalars and 0-d tensors too; not bools), as floats."""
    from attnlib._validate import _scalar, describe

    expected = (
        f"{fn}: figsize must be a pair of positive numbers (width, height) in inches, "
        f"at most {MAX_FIGURE_INCHES:g} each"
    )
    if isinstance(figsize, (str, bytes)) or not hasattr(figsize, "__len__"):
        raise TypeError(f"{expected}; got {describe(figsize)}")
    if len(figsize) != 2:
        raise ValueError(f"{expected}; got {len(figsize)} values: {figsize!r}")
    out = []
    for v in figsize:
        x = _scalar(v)
        if isinstance(x, bool) or not isinstance(x, numbers.Real):
            raise TypeError(f"{expected}; got {describe(v)} in {figsize!r}")
        x = float(x)
        if not (0 < x <= MAX_FIGURE_INCHES):  # NaN fails too
            raise ValueError(f"{expected}; got {x:g} in {figsize!r}")
        out.append(x)
    return out[0], out[1]


def _integer_ticks(axis, n: int) -> None:
    """Every index as a tick for up to 10 rows/columns, else a readable integer subset."""
    if n <= 10:
        axis.set_ticks(range(n))
    else:
        axis.set_major_locator(MaxNLocator(nbins="auto", integer=True))


#: the domains plotting functions declare (attnlib.domains.declare): a figure size, a text
#: shown on the figure, an optional one, and data checked in the function's body
FIGSIZE = D.Checked(_figsize_domain)
TEXT = D.Str()
OPTIONAL_TEXT = D.Str(optional=True)


def names_its_refusals(fn):
    """A plotting function whose body's checks (shared by every plotting function, so written
    without its name) raise a TypeError/ValueError: raised again, same type, with the
    function's name in front (``plot_bars: groups must be a dict ...``)."""
    name = fn.__name__

    @functools.wraps(fn)
    def run(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (TypeError, ValueError) as exc:
            if str(exc).startswith(f"{name}:"):
                raise
            raise type(exc)(f"{name}: {exc}") from exc

    return run


def data(what: str) -> D.Anything:
    """The domain of a data argument the body checks (shapes against the other arguments,
    finite values): ``what`` says what it must be."""
    return D.Anything(f"{what}: checked in the body")


# a figure size matplotlib would refuse with its own words (or take as NaN inches) is refused
# naming the class and the argument (a positional size is checked in __init__)
declare(figsize=D.Checked(_figsize_domain, optional=True))(NotebookFigure)
