"""A figure as the book shows it: for a light or a dark page, on a desktop or a phone.

An attnlib figure remembers how it was drawn, so it can be drawn again:

- for a **dark page**, with the explorers' dark card and dark weight scale
  (:data:`attnlib.plotting._theme.DARK`), so a page in dark mode does not glare with white
  figures, and one quantity keeps one colour scale across the page's figures and explorers;
- for a **narrow column** (a phone), 3.6 in wide (NARROW_WIDTH) with its panels re-laid (fewer
  per row, a colour bar or legend under the picture), so its text stays >= 10.5 CSS px on a
  390-px screen (a 358-px column).
  Only figures wider than that get one.

:func:`book_figures` makes Jupyter show attnlib's figures as 2x PNGs (as
``%config InlineBackend.figure_formats = ["retina"]`` does) and put these variants in the
output's metadata, ``metadata["image/png"]["attnlib"]``, where the book's Sphinx extension
(web/book_ext.py) finds them; front ends ignore them. Each PNG comes with its *label scale*:
the size of its smallest text in CSS px per CSS px of the picture's width (the browser tests
multiply it by the width the picture is shown at), and its *glyph scales*: the same for the
glyphs of its *letters*, the texts of one or two characters with a letter in them, whose
shapes are what the reader reads: their capital height (the ink of an "H" in their font at
their size), not their font size; ``tick_glyph_scale`` for tick labels (a token named on an
axis), ``glyph_scale`` for other text (the ``T``/``F`` in a mask's cells).
tests/book/test_figure_letters.py holds every chapter figure's letters to a phone.

A figure someone drew on after attnlib did (``fig.axes[0].set_title(...)``) gets no
variants: a redrawn copy would lack the change. Pass such things to attnlib's function
instead (``titles=``, ``suptitle=``).
"""

from __future__ import annotations

import base64
import io

from matplotlib.figure import Figure

from attnlib.domains import Anything, Instance, declare
from attnlib.plotting._figure import NotebookFigure, _fingerprint
from attnlib.plotting._theme import DARK, LIGHT

__all__ = ["figure_variants", "render_png", "book_figures"]

#: Pixels per CSS px of the PNGs (2x: crisp on high-DPI screens).
SCALE = 2


def _is_letters(text: str) -> bool:
    """Whether a drawn text is *letters*: one or two characters, a letter among them (a token
    on an axis, ``T``/``F`` in a cell), read by their shapes, not as a word."""
    text = str(text).strip()
    return 0 < len(text) <= 2 and any(ch.isalpha() for ch in text)


_CAP_HEIGHTS: dict = {}


def _cap_height_pt(size_pt: float, prop) -> float:
    """The capital height (pt) of ``prop``'s font at ``size_pt``: the ink of an "H" drawn in
    it (about 0.73 of the font size in DejaVu Sans)."""
    from matplotlib.textpath import TextPath

    key = (float(size_pt), hash(prop))
    if key not in _CAP_HEIGHTS:
        font = prop.copy()
        font.set_size(size_pt)
        _CAP_HEIGHTS[key] = TextPath((0, 0), "H", size=size_pt, prop=font).get_extents().height
    return _CAP_HEIGHTS[key]


def _noting_canvas(fig):
    """An Agg canvas for ``fig`` whose renderer notes every non-blank string it is asked to
    draw (ticks, labels, legends, annotations, maths) as ``(size_pt, text artist)``: what the
    PNG shows, none skipped, noted while the PNG is drawn; and, in ``letters``, as
    ``(capital height in pt, text artist)``, each text that is letters (:func:`_is_letters`)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    class NotingCanvas(FigureCanvasAgg):
        sizes: list

        def get_renderer(self):
            renderer = super().get_renderer()
            if not getattr(renderer, "_attnlib_noting", False):
                draw_text = renderer.draw_text
                drawn, letters = self.drawn, self.letters

                def noting(gc, x, y, s, prop, angle, ismath=False, mtext=None):
                    if str(s).strip():
                        drawn.append((prop.get_size_in_points(), mtext))
                        if not ismath and _is_letters(s):
                            cap = _cap_height_pt(prop.get_size_in_points(), prop)
                            letters.append((cap, mtext))
                    return draw_text(gc, x, y, s, prop, angle, ismath=ismath, mtext=mtext)

                renderer.draw_text = noting
                renderer._attnlib_noting = True
            return renderer

    canvas = NotingCanvas(fig)
    canvas.drawn = []
    canvas.letters = []
    return canvas


def drawn_texts(fig) -> list:
    """The texts a figure draws, as ``(text, size_pt, extent in display px)``, from one draw
    of it (for checks such as "no two texts overlap"; tick labels off the axes are not
    drawn, so not listed)."""
    old = fig.canvas
    canvas = _noting_canvas(fig)
    try:
        canvas.draw()
        renderer = canvas.get_renderer()
        out = []
        for size, mtext in canvas.drawn:
            if mtext is not None:
                out.append((mtext.get_text(), size, mtext.get_window_extent(renderer)))
        return out
    finally:
        fig.set_canvas(old)


@declare(fig=Instance(Figure, what="a matplotlib Figure"))
def render_png(fig) -> dict:
    """``fig`` as the book stores it: a 2x PNG cropped to its content (``bbox_inches="tight"``,
    what Jupyter's inline backend does), its size in CSS px, and its label scale.

    Returns:
        dict with ``png`` (bytes), ``width`` and ``height`` (CSS px, the PNG's pixels / 2) and
        ``label_scale``: the smallest text's size in CSS px per CSS px of width, i.e.
        ``smallest_pt / 72 * DPI / width``, where ``smallest_pt`` is the smallest size the
        renderer drew a string at; ``glyph_scale`` and ``tick_glyph_scale``: the smallest
        capital height of the figure's letters (:func:`_is_letters`) in CSS px per CSS px of
        width, of those that are not tick labels and of those that are, or None when it draws
        none.

    Raises:
        TypeError: ``fig`` is not a matplotlib figure.
        ValueError: the figure draws no text (it has no smallest label).
    """
    if not isinstance(fig, Figure):
        raise TypeError(f"render_png: fig must be a matplotlib Figure; got {type(fig).__name__}")
    old = fig.canvas
    canvas = _noting_canvas(fig)  # attaches itself to fig
    buffer = io.BytesIO()
    try:
        fig.savefig(
            buffer,
            format="png",
            dpi=SCALE * fig.dpi,
            bbox_inches="tight",
            facecolor=fig.get_facecolor(),
        )
    finally:
        fig.set_canvas(old)
    if not canvas.drawn:
        raise ValueError("the figure draws no text, so it has no smallest label")
    png = buffer.getvalue()
    px_w = int.from_bytes(png[16:20], "big")  # PNG IHDR: width, height (big-endian)
    px_h = int.from_bytes(png[20:24], "big")
    width, height = round(px_w / SCALE), round(px_h / SCALE)  # what the page's <img> says
    return {
        "png": png,
        "width": width,
        "height": height,
        "label_scale": min(size for size, _ in canvas.drawn) / 72 * fig.dpi / width,
        **_glyph_scales(fig, canvas.letters, width),
    }


def _glyph_scales(fig, letters: list, width: int) -> dict:
    """``glyph_scale`` and ``tick_glyph_scale`` of :func:`render_png`, from the letters drawn."""
    ticks = {
        id(t)
        for ax in fig.axes
        for axis in (ax.xaxis, ax.yaxis)
        for tick in axis.get_major_ticks() + axis.get_minor_ticks()
        for t in (tick.label1, tick.label2)
    }
    out = {}
    for key, is_tick in (("glyph_scale", False), ("tick_glyph_scale", True)):
        caps = [cap for cap, text in letters if (id(text) in ticks) == is_tick]
        out[key] = min(caps) / 72 * fig.dpi / width if caps else None
    return out


@declare(fig=Instance(NotebookFigure, what="an attnlib figure (NotebookFigure)"))
def figure_variants(fig) -> list[dict]:
    """The variants of an attnlib figure besides itself (light, at its own size).

    Returns:
        A list of dicts, each :func:`render_png`'s plus ``theme`` (``"light"``/``"dark"``)
        and ``layout`` (``"wide"``/``"narrow"``): the dark figure at its own size, and, for a
        figure wider than :data:`~attnlib.plotting._figure.NARROW_WIDTH`, the light and the
        dark narrow figure. Empty for a figure attnlib did not draw, or one changed since.
    """
    from attnlib.plotting._figure import NARROW_WIDTH

    if not isinstance(fig, NotebookFigure):
        raise TypeError(
            f"fig must be a figure drawn by attnlib.plotting, got {type(fig).__name__}"
        )
    draw = fig._attnlib_redraw
    if draw is None or fig._attnlib_fingerprint != _fingerprint(fig):
        return []
    wanted = [(DARK, False)]
    if fig.get_figwidth() > NARROW_WIDTH + 1e-9:
        wanted += [(LIGHT, True), (DARK, True)]
    out = []
    for theme, narrow in wanted:
        variant = draw(theme, narrow, False)
        out.append(
            {**render_png(variant), "theme": theme.name, "layout": "narrow" if narrow else "wide"}
        )
    return out


def _palette_png(data: bytes) -> bytes:
    """A PNG as 256 colours when that is smaller and faithful (mean colour error <= 1,
    99.5th percentile <= 12 of 255 per channel: the book's own rule, web/optimize_images.py),
    else unchanged. Keeps the variants in a notebook's metadata about 3x smaller."""
    import numpy as np
    from PIL import Image

    rgb = Image.open(io.BytesIO(data)).convert("RGB")
    pal = rgb.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    err = np.abs(np.asarray(pal.convert("RGB"), dtype=np.int16) - np.asarray(rgb, dtype=np.int16))
    out = io.BytesIO()
    pal.save(out, format="PNG", optimize=True)
    small = out.getvalue()
    if len(small) < len(data) and err.mean() <= 1.0 and np.percentile(err, 99.5) <= 12:
        return small
    return data


def _book_png(fig):
    """The PNG formatter of :func:`book_figures`: (PNG bytes, metadata with the variants)."""
    main = render_png(fig)
    meta = {"width": main["width"], "height": main["height"]}
    variants = figure_variants(fig)
    if variants:
        meta["attnlib"] = {
            "label_scale": main["label_scale"],
            "glyph_scale": main["glyph_scale"],
            "tick_glyph_scale": main["tick_glyph_scale"],
            "variants": [
                {
                    **{
                        k: v[k]
                        for k in (
                            "theme",
                            "layout",
                            "width",
                            "height",
                            "label_scale",
                            "glyph_scale",
                            "tick_glyph_scale",
                        )
                    },
                    "png": base64.b64encode(_palette_png(v["png"])).decode("ascii"),
                }
                for v in variants
            ],
        }
    return main["png"], meta


@declare(shell=Anything("an IPython shell or None: checked in the body", optional=True))
def book_figures(shell=None) -> None:
    """Show attnlib's figures in Jupyter as 2x PNGs carrying their book variants.

    Registers a PNG formatter for :class:`NotebookFigure` with IPython's display system
    (only for attnlib's figures; other matplotlib figures keep the inline backend's).
    The book's chapters call it in their hidden set-up cell.

    Args:
        shell: the IPython shell; default: the running one.

    Raises:
        TypeError: ``shell`` is not an IPython shell.
        RuntimeError: outside IPython (no shell to register with).
    """
    if shell is not None and not hasattr(shell, "display_formatter"):
        raise TypeError(
            "book_figures: shell must be an IPython shell (with display_formatter) or None; "
            f"got {type(shell).__name__}"
        )
    if shell is None:
        try:
            from IPython import get_ipython
        except ImportError:  # pragma: no cover - Jupyter always has IPython
            get_ipython = lambda: None  # noqa: E731
        shell = get_ipython()
    if shell is None or not hasattr(shell, "display_formatter"):
        raise RuntimeError("book_figures() needs a running IPython shell (a notebook or IPython)")
    shell.display_formatter.formatters["image/png"].for_type(NotebookFigure, _book_png)
