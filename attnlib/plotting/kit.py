"""The figure kit: what attnlib's own figures are made of, for a figure drawn elsewhere.

A figure drawn with the kit behaves like attnlib's: it lives on pyplot (the inline backend
shows it), its text repr does not depend on the backend, its text is at least 9 pt, and it
carries a dark variant and a phone-width variant that the book shows in dark mode and on
narrow screens (:func:`attnlib.plotting.variants.figure_variants`). The book's diagrams
(``scoringbook.diagrams``, the pipeline and decoder pictures) are drawn with it.

The one idea: a figure is a function ``draw(theme, narrow, managed) -> NotebookFigure``
that builds the whole picture for a page mode (``theme``: :data:`LIGHT` or :data:`DARK`), a
column (``narrow``: draw at most :data:`NARROW_WIDTH` inches wide) and an owner (``managed``:
on pyplot, or a figure pyplot does not know about, drawn only to be saved)::

    from attnlib.plotting import kit

    def picture(theme, narrow, managed):
        fig = kit.new_figure((kit.NARROW_WIDTH if narrow else 6, 2), managed=managed)
        ax = fig.add_subplot()
        ax.plot([0, 1], [0, 1], color=kit.series_colour(kit.OKABE_ITO[1], theme))
        kit.finish_figure(fig, theme)
        return fig

    fig = kit.drawn_figure(picture)   # the light figure, on pyplot; variants redraw it

Colours: :data:`OKABE_ITO` for series, passed through :func:`series_colour` so each keeps
3:1 contrast on the theme's background.
"""

from __future__ import annotations

from attnlib.domains import Bool, Func, Instance, Real, Str, Tup, declare
from attnlib.plotting import _figure, _theme
from attnlib.plotting._figure import NARROW_WIDTH, OKABE_ITO, NotebookFigure
from attnlib.plotting._theme import DARK, LIGHT

__all__ = [
    "NotebookFigure",
    "LIGHT",
    "DARK",
    "OKABE_ITO",
    "NARROW_WIDTH",
    "series_colour",
    "new_figure",
    "finish_figure",
    "drawn_figure",
    "MAX_FIGURE_INCHES",
]

#: Largest figure side in inches (a figure is drawn at twice its DPI for sharp screens).
MAX_FIGURE_INCHES = _figure.MAX_FIGURE_INCHES
_INCHES = Real(gt=0, le=MAX_FIGURE_INCHES)
#: The domain of a figure size, ``(width, height)`` in inches, each in ``(0, 100]``: declare a
#: function's ``figsize`` with it (``@declare(figsize=kit.FIGSIZE)``), or check a value in
#: another function's name with ``kit.FIGSIZE(value, "my_function", "figsize", {})``. (A
#: domain, not a function: it stays out of ``__all__``, which lists what the contract harness
#: calls.)
FIGSIZE = Tup(_INCHES, _INCHES)


@declare(figsize=FIGSIZE, managed=Bool())
def new_figure(figsize, managed: bool = True) -> NotebookFigure:
    """A new, empty attnlib figure of ``figsize`` inches, constrained layout, 100 dpi.

    Args:
        figsize: ``(width, height)`` in inches, each in ``(0, 100]``.
        managed: on pyplot (``plt.figure``; Jupyter's inline backend shows it), or a figure
            pyplot does not know about, drawn only to be saved (a variant).
    """
    return _figure._new_figure(figsize, managed=managed)


@declare(
    fig=Instance(NotebookFigure, what="an attnlib figure (kit.new_figure)"),
    theme=Instance(_theme.Theme, what="a theme (kit.LIGHT or kit.DARK)"),
)
def finish_figure(fig: NotebookFigure, theme) -> None:
    """Give a drawn figure ``theme``'s colours and attnlib's text sizes (nothing under 9 pt):
    the last step of every ``draw``."""
    _figure._finish(fig, theme)


@declare(draw=Func())
def drawn_figure(draw) -> NotebookFigure:
    """Draw ``draw(LIGHT, False, True)`` (a light page, its own width, on pyplot) and
    remember ``draw``, so the figure's dark and narrow variants are drawn by calling it again.

    Args:
        draw: ``draw(theme, narrow, managed) -> NotebookFigure``, as in the module's example.
    """
    fig = _figure._drawn(draw)
    if not isinstance(fig, NotebookFigure):
        raise TypeError(
            f"drawn_figure: draw must return an attnlib figure (kit.new_figure); "
            f"got {type(fig).__name__}"
        )
    return fig


@declare(
    colour=Str(),
    theme=Instance(_theme.Theme, what="a theme (kit.LIGHT or kit.DARK)"),
    minimum=Real(ge=1, le=21),
)
def series_colour(colour, theme, minimum: float = 3.0) -> str:
    """``colour`` as drawn in ``theme``: black becomes the theme's text colour; any other colour
    is mixed towards the text colour just enough to reach ``minimum`` contrast (a WCAG ratio,
    1 to 21) against the theme's background, so its hue stays recognisable."""
    from matplotlib.colors import is_color_like

    if not is_color_like(colour):
        raise ValueError(
            f"series_colour: colour must be a colour matplotlib reads (a name such as "
            f"'tab:blue' or a hex code such as '#E69F00'); got {colour!r}"
        )
    return _theme.series_colour(colour, theme, minimum)
