"""Chapter 7's architecture picture: Bahdanau's encoder-decoder at one decoding step.

Bottom, the encoder: the input characters, each with its state :math:`\\mathbf h_t` (a key
and a value), and above them the step's attention weights as bars. Top, the decoder: its
previous state :math:`\\mathbf s_{t'-1}`, the query, is scored against every key; the
softmax of the scores gives the weights; their weighted sum of the values, the context
:math:`\\mathbf c_{t'}`, feeds the GRU with the previous character and the previous state;
the new state :math:`\\mathbf s_{t'}` goes to a dense layer and a softmax, which write the
next character.

An attnlib figure (see :mod:`attnlib.plotting.variants`): drawn for a light page, and again
for a dark one and for a phone's column (PHONE_WIDTH, 3.6 in wide, the parts stacked in two
columns, its text at PT_PHONE = 10 pt: 13.1 CSS px on a 390-px phone, over 0.8 of the body text).
The wide layout (WIDE, 7 x 4.9 in, its notes at PT_WIDE = 10 pt) reads at 13.2 CSS px in a
1280-px page's 684-px column. Both layouts are drawn in inches on one axes filling the figure,
every text at 10 pt or more, and no arrow crosses a text.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import torch

from attnlib.domains import Anything, Str, as_str, declare, describe

__all__ = ["draw_encoder_decoder"]

FN = "draw_encoder_decoder"
PT = 9.5  # the pen's default size (each layout passes its own)
BOX_PT = 10.0  # the boxes' names
#: The wide layout's notes and characters (pt). Its content is about 6.4 in wide (662 CSS px
#: with the PNG's padding), so 10 pt reads at 13.9 CSS px in a 1280-px page's 684-px column,
#: over 0.8 of the 16-px body text (issue 39; tests/book/test_diagrams.py)
PT_WIDE = 10.0
#: The wide layout is designed on this canvas (in); a figure of another size stretches it.
WIDE = (7.0, 4.9)
#: The wide layout's encoder: its first and last character (in).
ENC_WIDE = (1.1, 4.2)
#: Below this width (in) a figure gets the stacked (phone) layout, whatever its figsize.
MIN_WIDE_WIDTH = 6.0
#: The phone layout's width (in): attnlib's NARROW_WIDTH, the book's 358-px column on a 390-px
#: phone (3.8 in with the PNG's padding).
PHONE_WIDTH = 3.6
#: The phone layout's text (pt): 10 pt in a 3.8-in PNG shown 358 px wide is 13.1 CSS px, over
#: 0.8 of the 16-px body text (issue 39; tests/book/test_diagrams.py)
PT_PHONE = 10.0
TITLE_H = 0.35  # room for a title (in)
ROW_H = 1.35  # one row of the encoder: characters, states, bars (in)
MIN_PITCH = 0.11  # a 9-pt monospace character is 0.075 in wide: with a gap, this much (in)


def _colours(theme) -> dict:
    from attnlib.plotting.kit import OKABE_ITO, series_colour

    return {
        "text": theme.foreground,
        "muted": theme.muted,
        "encoder": series_colour(OKABE_ITO[0], theme),  # blue: states, keys, values
        "attention": series_colour(OKABE_ITO[1], theme),  # vermillion: scores, weights, context
        "query": series_colour(OKABE_ITO[2], theme),  # green: the decoder's state
        "bar_alpha": 0.75 if theme.name == "light" else 0.9,
    }


def _checked(source, written, weights, next_char, title, figsize):
    from attnlib.plotting.kit import FIGSIZE

    if not isinstance(source, str):
        raise TypeError(f"{FN}: source must be a non-empty string; got {describe(source)}")
    if not source:
        raise ValueError(f"{FN}: source must be a non-empty string; got {source!r}")
    if not isinstance(written, str):
        raise TypeError(f"{FN}: written must be a string; got {type(written).__name__}")
    next_char = as_str(next_char, "next_char", FN, optional=True)
    title = as_str(title, "title", FN, optional=True)
    figsize = None if figsize is None else FIGSIZE(figsize, FN, "figsize", {})
    n = len(source)
    if isinstance(weights, torch.Tensor):
        weights = weights.detach().cpu().double()
    if isinstance(weights, (str, bytes)) or weights is None:
        raise TypeError(
            f"{FN}: weights must be numbers, one per input character; got {describe(weights)}"
        )
    try:
        w = np.asarray(weights, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(
            f"{FN}: weights must be numbers, one per input character; got {type(weights).__name__}"
        ) from None
    if w.shape != (n,):
        raise ValueError(
            f"{FN}: weights must have shape ({n},), one per character of {source!r}; got {w.shape}"
        )
    if not np.all(np.isfinite(w)) or (w < 0).any() or abs(w.sum() - 1) > 1e-3:
        raise ValueError(
            f"{FN}: weights must be finite, nonnegative and sum to 1; got sum {w.sum():.4g}, "
            f"min {w.min():.4g}"
        )
    return w, next_char, title, figsize


@declare(
    source=Str(nonempty=True),
    written=Str(),
    weights=Anything("(len(written), len(source)) weights, finite, rows in [0, 1]: checked"),
    next_char=Str(optional=True),
    title=Str(optional=True),
    figsize=Anything("a figure size (width, height), or None: checked by the plotting rules"),
)
def draw_encoder_decoder(
    source: str,
    written: str,
    weights,
    *,
    next_char: str | None = None,
    title: str | None = None,
    figsize=None,
):
    r"""Draw Bahdanau's encoder-decoder at one decoding step, with that step's weights.

    Bottom: the input characters, each with its encoder state :math:`\mathbf h_t` (the keys
    and the values), and above them the step's attention weights as bars. Top: the
    decoder's previous state :math:`\mathbf s_{t'-1}`, the query, is scored against every
    key; the softmax gives the weights, whose weighted sum of the values, the context
    :math:`\mathbf c_{t'}`, feeds the GRU with the previous character and the previous
    state; the new state :math:`\mathbf s_{t'}` goes to the output layer. The decoder
    starts from :math:`\mathbf s_0`, the encoder's final states.

    Its narrow variant (for a phone, see :mod:`attnlib.plotting.variants`) stacks the
    decoder's boxes in two columns over the encoder, PHONE_WIDTH (3.6 in) wide, its text at
    10 pt.

    Args:
        source: the input characters (one encoder state each).
        written: the output written so far; the step drawn writes the next character.
        weights: ``(len(source),)``, the step's attention weights (one row of a weight
            matrix): finite, nonnegative, summing to 1 (within 1e-3).
        next_char: the character this step writes, optional.
        title: optional title.
        figsize: the wide figure's size in inches; default (and at least) 7 x 4.9, plus
            0.35 for a title and 1.35 for each further row of characters (a row holds 29).
            A larger figure stretches the layout (its text keeps its size); a figure
            narrower than 6 in gets the narrow layout instead.

    Returns:
        The pyplot-managed :class:`matplotlib.figure.Figure` (an attnlib figure: the book
        shows its dark and narrow variants too).
    """
    from attnlib.plotting.kit import drawn_figure

    w, next_char, title, figsize = _checked(source, written, weights, next_char, title, figsize)
    step = {
        "source": source,
        "weights": w,
        "previous": _plain(repr(written[-1])) if written else "<bos>",
        "writes": "writes the next character"
        if next_char is None
        else f"writes {_plain(repr(next_char))}",
        "title": title,
    }

    def draw(theme, narrow, managed):
        if narrow or (figsize is not None and figsize[0] < MIN_WIDE_WIDTH):
            return _narrow(step, theme, managed)
        return _wide(step, figsize, theme, managed)

    return drawn_figure(draw)


# ----------------------------------------------------------------------------- drawing
class _Box(NamedTuple):
    """Where a box's sides are (in)."""

    left: float
    right: float
    bottom: float
    top: float


class _Pen:
    """Draws on one axes whose data units are inches of the layout."""

    def __init__(self, ax, col, pt=PT):
        self.ax, self.col, self.pt = ax, col, pt  # pt: the notes' size (the boxes' is larger)

    def text(self, x, y, s, size=None, colour=None, **kw):
        kw.setdefault("ha", "center")
        kw.setdefault("va", "center")
        size = self.pt if size is None else size
        return self.ax.text(x, y, s, fontsize=size, color=colour or self.col["text"], **kw)

    def box(self, x, y, width, height, s, edge):
        """A rounded box centred at (x, y) with ``s`` in it (its lines one under another)."""
        from matplotlib.patches import FancyBboxPatch

        pad = 0.04
        self.ax.add_patch(
            FancyBboxPatch(
                (x - width / 2 + pad, y - height / 2 + pad),
                width - 2 * pad,
                height - 2 * pad,
                boxstyle=f"round,pad={pad}",
                fc="none",
                ec=edge,
                lw=1.4,
            )
        )
        lines = s.split("\n")  # placed one by one: maths lines need more room than text
        for i, line in enumerate(lines):
            self.text(x, y + 0.125 * (len(lines) - 1) - 0.25 * i, line, size=max(BOX_PT, self.pt))
        return _Box(x - width / 2, x + width / 2, y - height / 2, y + height / 2)

    def arrow(self, a, b, colour, bend=False):
        """An arrow from ``a`` to ``b``; ``bend=True``: across first, then up or down."""
        from matplotlib.patches import FancyArrowPatch

        style = "angle,angleA=0,angleB=90,rad=0" if bend else "arc3"
        self.ax.add_patch(
            FancyArrowPatch(
                a,
                b,
                arrowstyle="-|>",
                mutation_scale=11,
                color=colour,
                lw=1.2,
                connectionstyle=style,
                shrinkA=0,
                shrinkB=0,
            )
        )


def _right_end(ax, text) -> float:
    """Where ``text`` ends on the right, in data units (in)."""
    box = text.get_window_extent(ax.figure.canvas.get_renderer())
    return float(ax.transData.inverted().transform((box.x1, box.y1))[0])


def _canvas(size, limits, theme, managed, pt=PT):
    """A figure of ``size`` in, one axes filling it with data limits ``limits`` (in); its pen
    writes notes at ``pt``."""
    from attnlib.plotting.kit import new_figure

    fig = new_figure(size, managed)
    fig.set_layout_engine("none")  # one axes filling the figure: nothing to lay out
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, limits[0])
    ax.set_ylim(0, limits[1])
    ax.axis("off")
    return fig, _Pen(ax, _colours(theme), pt)


def _plain(text: str) -> str:
    """``text`` drawn as it is (a ``$`` starts no maths)."""
    return text.replace("$", r"\$")


def _glyph(c: str) -> str:
    """How an input character is drawn: a space as ␣, an unprintable one escaped (\\n)."""
    if c == " ":
        return "␣"
    return _plain(c if c.isprintable() else repr(c)[1:-1])


def _rows(n: int, span: float) -> tuple[int, int]:
    """How many of ``n`` characters a row ``span`` in wide holds, and how many rows."""
    per_row = min(n, 1 + int(span / MIN_PITCH))
    return per_row, math.ceil(n / per_row)


def _encoder(pen, step, left, right, base):
    """The encoder's characters at height ``base``, their states above, the weights' bars
    above those, between ``left`` and ``right`` (in); rows of characters wrap when they would
    be closer than MIN_PITCH. Returns ((x, y) of the first row's first and last state, the
    top of the first row's bars, the height used)."""
    from matplotlib.patches import Rectangle

    source, w = step["source"], step["weights"]
    n, span = len(source), right - left
    per_row, rows = _rows(n, span)
    pitch = min(0.36, span / max(per_row - 1, 1))
    size = min(0.24, 0.8 * pitch)  # a state's box
    bar_h, row_h = 0.6, ROW_H  # the tallest bar (weight 1); one row of characters
    top = int(np.argmax(w))
    ends = None
    for r in range(rows):
        y_char = base + (rows - 1 - r) * row_h
        y_state = y_char + 0.32
        y_bar = y_state + size / 2 + 0.06
        chunk = source[r * per_row : (r + 1) * per_row]
        width = pitch * (len(chunk) - 1)
        x0 = left + (span - pitch * (per_row - 1)) / 2 if rows == 1 else left
        for j, c in enumerate(chunk):
            x, k = x0 + j * pitch, r * per_row + j
            pen.text(x, y_char, _glyph(c), family="monospace")
            pen.ax.add_patch(
                Rectangle(
                    (x - size / 2, y_state - size / 2),
                    size,
                    size,
                    fc="none",
                    ec=pen.col["encoder"],
                    lw=1.1,
                )
            )
            if w[k] > 0:
                pen.ax.add_patch(
                    Rectangle(
                        (x - size / 2, y_bar),
                        size,
                        bar_h * w[k],
                        fc=pen.col["attention"],
                        alpha=pen.col["bar_alpha"],
                        lw=0,
                    )
                )
            if k == top:
                pen.text(x, y_bar + bar_h * w[k] + 0.04, f"{w[k]:.2f}", va="bottom")
        if r == 0:
            ends = ((x0, y_state), (x0 + width, y_state), y_bar + bar_h + 0.3)
    return ends[0], ends[1], ends[2], rows * row_h


def _wide(step, figsize, theme, managed):
    """The desktop layout on a WIDE canvas (7 x 4.9 in), its notes at PT_WIDE: the decoder's
    boxes in two rows over the encoder, the scores and the context on two lines each, so the
    picture is narrow enough for its text to read at 13.9 CSS px in a 1280-px page's 684-px
    column (issue 39)."""
    from attnlib.plotting.kit import finish_figure

    left, right = ENC_WIDE  # the encoder's first and last character (in)
    _, rows = _rows(len(step["source"]), right - left)
    width = WIDE[0]
    height = WIDE[1] + (TITLE_H if step["title"] else 0.0) + (rows - 1) * ROW_H
    size = (width, height)
    if figsize is not None:  # larger: the layout stretches; smaller: it needs this much
        size = (max(figsize[0], width), max(figsize[1], height))
    fig, pen = _canvas(size, (width, height), theme, managed, PT_WIDE)
    col = pen.col
    # the encoder, bottom: characters, states, weights; its caption under them
    pen.text(
        (left + right) / 2,
        0.42,
        "encoder: a GRU reads the characters both ways;\n"
        r"its states $\mathbf{h}_t$ are the keys and the values,"
        "\n"
        r"its final states the decoder's first state $\mathbf{s}_0$",
        colour=col["muted"],
        linespacing=1.35,
    )
    base = 0.95
    first, last, bars_top, used = _encoder(pen, step, left, right, base)
    # the decoder, two rows of boxes over it: x_l over the keys, x_r over the values
    y_mid, y_top = base + used + 0.75, base + used + 1.75
    x_l, x_r, x_o = 1.45, 4.15, 5.95
    scores = pen.box(
        x_l,
        y_mid,
        2.0,
        0.7,
        r"scores $a(\mathbf{s}_{t'-1}, \mathbf{h}_t)$" "\nsoftmax",
        col["attention"],
    )
    context = pen.box(
        x_r,
        y_mid,
        1.3,
        0.7,
        "context\n" r"$\mathbf{c}_{t'} = \sum_t \alpha_t \mathbf{h}_t$",
        col["attention"],
    )
    query = pen.box(x_l, y_top, 1.3, 0.45, r"query $\mathbf{s}_{t'-1}$", col["query"])
    gru = pen.box(x_r, y_top, 0.8, 0.45, "GRU", col["text"])
    dense = pen.box(x_o, y_top, 1.5, 0.45, "dense + softmax", col["text"])
    pen.text(x_o, dense.bottom - 0.14, step["writes"], va="top")
    # the decoder's arrows
    pen.arrow((query.right, y_top), (gru.left, y_top), col["query"])
    pen.text(
        (query.right + gru.left) / 2,
        y_top + 0.06,
        "previous state",
        va="bottom",
        colour=col["muted"],
    )
    pen.arrow((gru.right, y_top), (dense.left, y_top), col["text"])
    pen.text((gru.right + dense.left) / 2, y_top + 0.06, r"$\mathbf{s}_{t'}$", va="bottom")
    pen.text(x_r, gru.top + 0.34, f"previous character {step['previous']}", va="bottom")
    pen.arrow((x_r, gru.top + 0.3), (x_r, gru.top), col["text"])
    pen.arrow((x_l, query.bottom), (x_l, scores.top), col["query"])
    pen.arrow((x_r, context.top), (x_r, gru.bottom), col["attention"])
    pen.arrow((scores.right, y_mid), (context.left, y_mid), col["attention"])
    pen.text(
        (scores.right + context.left) / 2,
        y_mid + 0.06,
        r"$\alpha_t$",
        va="bottom",
        colour=col["text"],
    )
    # attention's arrows: keys in, the weights down to their bars, values in
    x_w = 2.2
    pen.arrow((x_w, scores.bottom), (x_w, bars_top), col["attention"])
    pen.text(
        x_w + 0.1, (scores.bottom + bars_top) / 2, r"this step's weights $\alpha_t$", ha="left"
    )
    x_k = 0.7
    pen.arrow((first[0] - 0.2, first[1]), (x_k, scores.bottom), col["encoder"], bend=True)
    pen.text(x_k - 0.1, (first[1] + scores.bottom) / 2, "keys", ha="right")
    x_v = 4.6
    pen.arrow((last[0] + 0.2, last[1]), (x_v, context.bottom), col["encoder"], bend=True)
    pen.text(x_v + 0.1, (last[1] + context.bottom) / 2, "values", ha="left")
    if step["title"]:
        pen.text(width / 2, height - 0.2, step["title"], size=10.5)
    finish_figure(fig, theme)
    return fig


def _narrow(step, theme, managed):
    """The phone layout, PHONE_WIDTH wide with its notes at PT_PHONE: the decoder in two
    columns (query and scores on the left; output, GRU and context on the right) over the
    encoder."""
    from attnlib.plotting.kit import finish_figure

    width = PHONE_WIDTH
    left, right = 0.8, 2.85  # the encoder's first and last character (in)
    _, rows = _rows(len(step["source"]), right - left)
    lo = 0.2
    caption = 3 * 0.2
    height = lo + caption + 0.25 + rows * ROW_H + 3.4 + (TITLE_H if step["title"] else 0.0)
    fig, pen = _canvas((width, height), (width, height), theme, managed, PT_PHONE)
    col = pen.col
    pen.text(
        width / 2,
        lo + caption / 2,
        "encoder: a GRU reads the input both ways;\n"
        r"its states $\mathbf{h}_t$ are the keys and the values,"
        "\n"
        r"its final states the decoder's first state $\mathbf{s}_0$",
        colour=col["muted"],
        linespacing=1.35,
    )
    first, last, bars_top, used = _encoder(pen, step, left, right, lo + caption + 0.25)
    base = lo + caption + 0.25 + used
    y_mid, y_q, y_out = base + 0.85, base + 1.95, base + 2.85
    xl, xr = 1.05, 2.7
    scores = pen.box(
        xl,
        y_mid,
        1.45,
        0.7,
        r"scores $a(\mathbf{s}_{t'-1}, \mathbf{h}_t)$" "\nsoftmax",
        col["attention"],
    )
    context = pen.box(
        xr,
        y_mid,
        1.15,
        0.7,
        "context\n" r"$\mathbf{c}_{t'} = \sum_t \alpha_t \mathbf{h}_t$",
        col["attention"],
    )
    query = pen.box(xl, y_q, 1.0, 0.42, r"query $\mathbf{s}_{t'-1}$", col["query"])
    gru = pen.box(xr, y_q, 0.7, 0.42, "GRU", col["text"])
    dense = pen.box(xr, y_out, 1.45, 0.42, "dense + softmax", col["text"])
    pen.text(xr, dense.top + 0.1, step["writes"], va="bottom")
    # the decoder's arrows
    pen.arrow((query.right, y_q), (gru.left, y_q), col["query"])
    pen.text(
        (query.right + gru.left) / 2,
        y_q - 0.06,
        "previous\nstate",
        va="top",
        colour=col["muted"],
        linespacing=1.2,
    )
    pen.arrow((xr + 0.15, gru.top), (xr + 0.15, dense.bottom), col["text"])
    pen.text(xr + 0.25, (gru.top + dense.bottom) / 2, r"$\mathbf{s}_{t'}$", ha="left")
    y_p = (gru.top + dense.bottom) / 2
    prev = pen.text(0.05, y_p, f"previous character {step['previous']}", ha="left")
    end = _right_end(pen.ax, prev)
    pen.arrow((end + 0.08, y_p), (xr - 0.2, gru.top), col["text"], bend=True)
    pen.arrow((xl, query.bottom), (xl, scores.top), col["query"])
    pen.arrow((xr, context.top), (xr, gru.bottom), col["attention"])
    pen.arrow((scores.right, y_mid), (context.left, y_mid), col["attention"])
    pen.text((scores.right + context.left) / 2, y_mid + 0.06, r"$\alpha_t$", va="bottom")
    # attention's arrows: keys in, the weights down to their bars, values in
    x_w = 1.3
    pen.arrow((x_w, scores.bottom), (x_w, bars_top), col["attention"])
    pen.text(
        x_w + 0.1, (scores.bottom + bars_top) / 2, r"this step's weights $\alpha_t$", ha="left"
    )
    x_k = 0.45
    pen.arrow((first[0] - 0.17, first[1]), (x_k, scores.bottom), col["encoder"], bend=True)
    pen.text(x_k - 0.1, (first[1] + scores.bottom) / 2, "keys", rotation=90, ha="right")
    x_v = 3.15
    pen.arrow((last[0] + 0.17, last[1]), (x_v, context.bottom), col["encoder"], bend=True)
    pen.text(x_v + 0.1, (last[1] + context.bottom) / 2, "values", rotation=90, ha="left")
    if step["title"]:
        pen.text(width / 2, height - 0.2, step["title"], size=10.5)
    finish_figure(fig, theme)
    return fig
