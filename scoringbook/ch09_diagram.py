"""Chapter 9's pictures: multi-head attention's split into heads and concatenation, drawn
from a real :class:`attnlib.MultiHeadAttention` and its input (:func:`draw_heads`), and
boolean masks drawn as what they do, allowed or blocked (:func:`draw_masks`).

Every block is drawn to scale, one small square per number: the input :math:`\\mathbf X`
``(n, d)``; the queries, keys and values ``(n, d)`` each, their columns coloured by the head
they go to (``d / H`` columns per head); each head's own ``(n, n)`` weights (the module's
``attention_weights`` for the first sequence, in the book's weight colours) and its output
``(n, d / H)``; the outputs side by side again, ``(n, d)``; and :math:`\\mathbf W_O`'s output.
Under each block, its shape as the code has it.

An attnlib figure (see :mod:`attnlib.plotting.variants`): drawn for a light page, and again
for a dark one and for a phone's column (3.6 in wide, the stages in three rows, its text at
10 pt: 13.1 CSS px on a 390-px phone, over 0.8 of the body text). The wide picture draws its
text at PT_WIDE = 10 pt and is at most WIDE_MAX = 6.9 in wide, its squares smaller where d or n
would make it wider, so its text reads at >= 13.4 CSS px in a 1280-px page's 684-px column.
Names and shapes stand on two lines under the blocks; the split's shape over the heads.
"""

from __future__ import annotations

import torch
from torch import nn

from attnlib.domains import Checked, Instance, StrList, declare, describe
from attnlib.tensor_domains import FloatTensor, Lengths
from attnlib.transformer import MultiHeadAttention

__all__ = ["draw_heads", "draw_masks"]

FN = "draw_heads"
PT = 9.5
#: The phone layout: attnlib's NARROW_WIDTH (in), the book's 358-px column on a 390-px phone,
#: and its text (pt): 10 pt in the 3.8-in PNG (with its padding) shown 358 px wide is 13.1 CSS
#: px, over 0.8 of the 16-px body text (issue 39; tests/book/test_diagrams.py)
PHONE_WIDTH, PT_PHONE = 3.6, 10.0
#: draw_masks' T/F letters on a phone (pt): 11 pt in the 3.9-in picture shown 358 px wide is a
#: capital 9.9 CSS px tall (tests/book/test_figure_letters.py: at least 9.33)
LETTER_PT_PHONE = 11.0
#: The wide layout: its text (pt), and its width (in) at most: 10 pt in a PNG at most 7.1 in
#: wide (with its padding) shown 684 px wide, a 1280-px page's column, is >= 13.4 CSS px, over
#: 0.8 of the 16-px body text (issue 39; tests/book/test_diagrams.py)
PT_WIDE, WIDE_MAX = 10.0, 6.9
MARGIN = 0.1  # the wide layout's margin, left and right (in)
U_WIDE = 0.05  # inches per number in the wide layout, at most (less where d is large)
U_MIN = 0.01  # ... and at least
DECK_STEP = 0.09  # how far each of Q, K, V's blocks stands behind the one before (in)
U_NARROW = 0.045  # ... in the narrow one, at most (less where d is large)
ARROW = 0.4  # the narrow layout's downward arrows (in)


def _colours(theme, H: int) -> dict:
    from attnlib.plotting.kit import OKABE_ITO, series_colour

    return {
        "text": theme.foreground,
        "muted": theme.muted,
        "plain": theme.points,
        "background": theme.background,
        "heads": [series_colour(OKABE_ITO[h % len(OKABE_ITO)], theme) for h in range(H)],
        "alpha": 0.55 if theme.name == "light" else 0.75,
    }


def _checked(mha, x, valid_lens):  # the types and shapes are declared (draw_heads)
    if min(x.shape) < 1:
        raise ValueError(
            f"{FN}: x must hold at least one sequence of one token; got {tuple(x.shape)}"
        )
    w_q = mha.W_q.weight
    if not isinstance(w_q, nn.parameter.UninitializedParameter) and x.shape[-1] != w_q.shape[1]:
        raise ValueError(
            f"{FN}: x must have mha's input width {w_q.shape[1]} on its last axis; got shape "
            f"{tuple(x.shape)}"
        )
    d, H = mha.num_hiddens, mha.num_heads
    if H > 6 or x.shape[1] > 40 or d > 64:
        raise ValueError(
            f"{FN}: the picture draws one square per number: at most 6 heads, 40 tokens and "
            f"64 features; got {H} heads, {x.shape[1]} tokens, {d} features"
        )
    with torch.no_grad():
        mha(x, x, x, valid_lens)
    w = mha.attention_weights[0].detach().double().numpy()  # (H, n, n), first sequence
    return {"batch": x.shape[0], "n": x.shape[1], "d": d, "H": H, "weights": w}


@declare(
    mha=Instance(MultiHeadAttention, what="an attnlib.MultiHeadAttention"),
    x=FloatTensor("batch n d_in"),
    valid_lens=Lengths(rows="n", cols="n"),
)
def draw_heads(mha, x: torch.Tensor, valid_lens: torch.Tensor | None = None):
    r"""Draw multi-head self-attention on ``x``: the split into heads and the concatenation.

    Runs ``mha(x, x, x, valid_lens)`` and draws, to scale, what it computed for the first
    sequence: :math:`\mathbf X` ``(n, d)`` -> queries, keys and values ``(n, d)`` each,
    columns coloured by head -> per head its weights ``(n, n)`` and output ``(n, d/H)`` ->
    the outputs concatenated ``(n, d)`` -> :math:`\mathbf W_O`'s output ``(n, d)``; under
    each block its shape with the batch, as the code holds it (the split one as
    ``(batch * H, n, d/H)``).

    Args:
        mha: an :class:`attnlib.MultiHeadAttention` (at most 6 heads and 64 features).
        x: ``(batch, n, d_in)``, at most 40 tokens.
        valid_lens: optional, as ``mha`` takes it (e.g. ``causal_valid_lens(batch, n)``).

    Returns:
        The pyplot-managed :class:`matplotlib.figure.Figure` (an attnlib figure: the book
        shows its dark and narrow variants too).
    """
    from attnlib.plotting.kit import drawn_figure

    s = _checked(mha, x, valid_lens)

    def draw(theme, narrow, managed):
        return _draw(s, theme, narrow, managed)

    return drawn_figure(draw)


# ----------------------------------------------------------------------------- drawing
class _Pen:
    def __init__(self, ax, col, theme, u, pt=PT):
        self.ax, self.col, self.theme, self.u, self.pt = ax, col, theme, u, pt
        self.z = 1.0  # each block drawn over the ones before it, grid lines included

    def text(self, x, y, s, colour=None, **kw):
        kw.setdefault("ha", "center")
        kw.setdefault("va", "top")
        return self.ax.text(x, y, s, fontsize=self.pt, color=colour or self.col["text"], **kw)

    def block(self, x0, y0, cols, rows, groups=None, gid=None):
        """A ``rows x cols`` grid of numbers with its bottom-left at (x0, y0) (in); ``groups``:
        (first column, columns, head) runs coloured by head, the rest plain; ``gid`` names
        its background (tests find a head's output by it)."""
        from matplotlib.patches import Rectangle

        u, c = self.u, self.col
        self.z += 1
        z = self.z
        self.ax.add_patch(
            Rectangle((x0, y0), cols * u, rows * u, fc=c["background"], lw=0, zorder=z, gid=gid)
        )
        for first, width, head in groups or [(0, cols, None)]:
            colour = c["plain"] if head is None else c["heads"][head]
            self.ax.add_patch(
                Rectangle(
                    (x0 + first * u, y0),
                    width * u,
                    rows * u,
                    fc=colour,
                    alpha=c["alpha"],
                    lw=0,
                    zorder=z,
                )
            )
        for i in range(cols + 1):  # the grid: one square per number
            lw = 1.2 if i in (0, cols) else 0.3
            self.ax.plot([x0 + i * u] * 2, [y0, y0 + rows * u], color=c["text"], lw=lw, zorder=z)
        for j in range(rows + 1):
            lw = 1.2 if j in (0, rows) else 0.3
            self.ax.plot([x0, x0 + cols * u], [y0 + j * u] * 2, color=c["text"], lw=lw, zorder=z)
        return x0 + cols * u / 2  # its centre

    def heat(self, x0, y0, w, gid=None):
        from matplotlib.patches import Rectangle

        n = w.shape[0]
        self.ax.imshow(
            w,
            gid=gid,
            cmap=self.theme.weights_cmap(),
            norm=self.theme.weights_norm(0.0, max(float(w.max()), 1e-9)),
            extent=(x0, x0 + n * self.u, y0, y0 + n * self.u),
            interpolation="nearest",
            zorder=2,
        )
        self.ax.add_patch(
            Rectangle(
                (x0, y0), n * self.u, n * self.u, fc="none", ec=self.col["text"], lw=1.2, zorder=3
            )
        )

    def arrow(self, a, b, label=None, side="above", gid=None, via=()):
        """An arrow from a to b (in), through the corners ``via`` (a bent one) if given."""
        from matplotlib.patches import FancyArrowPatch
        from matplotlib.path import Path

        style = {"arrowstyle": "-|>", "mutation_scale": 11, "color": self.col["muted"]}
        if via:
            patch = FancyArrowPatch(path=Path([a, *via, b]), lw=1.2, gid=gid, **style)
        else:
            patch = FancyArrowPatch(a, b, lw=1.2, gid=gid, **style)
        self.ax.add_patch(patch)
        if label:
            mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
            if side == "above":
                self.text(mx, my + 0.06, label, colour=self.col["muted"], va="bottom")
            else:  # right of a downward arrow
                self.text(mx + 0.1, my, label, colour=self.col["muted"], ha="left", va="center")


def _canvas(size, theme, managed, u, H, pt=PT):
    from attnlib.plotting.kit import new_figure

    fig = new_figure(size, managed)
    fig.set_layout_engine("none")
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, size[0])
    ax.set_ylim(0, size[1])
    ax.set_aspect("equal")
    ax.axis("off")
    return fig, _Pen(ax, _colours(theme, H), theme, u, pt)


def _shape(*dims) -> str:
    return "(" + ", ".join(str(v) for v in dims) + ")"


def _qkv(pen, x0, y0, n, d, H):
    """Q, K, V as a deck of three blocks, columns coloured by head; returns (left, right)."""
    dh, step = d // H, DECK_STEP
    groups = [(h * dh, dh, h) for h in range(H)]
    for k in (2, 1, 0):  # V at the back, Q in front
        pen.block(x0 + k * step, y0 + k * step, d, n, groups)
    return x0, x0 + d * pen.u + 2 * step


def _text_width(text: str, pt: float) -> float:
    """How wide ``text`` (its widest line) draws at ``pt``, in inches."""
    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.font_manager import FontProperties

    renderer, prop = RendererAgg(8, 8, 72), FontProperties(size=pt)
    widths = [
        renderer.get_text_width_height_descent(line, prop, ismath="$" in line)[0]
        for line in text.split("\n")
    ]
    return max(widths) / 72


def _wide_plan(s) -> dict:
    """The wide layout's inches per number and its columns' widths: u is U_WIDE, or less
    where that would make the picture wider than WIDE_MAX (large d, or many tokens)."""
    n, d, H, b = s["n"], s["d"], s["H"], s["batch"]
    dh, pt = d // H, PT_WIDE
    labels = {
        "x": _text_width(f"X\n{_shape(b, n, d)}", pt),
        "qkv": _text_width(f"Q, K, V\n{_shape(b, n, d)}", pt),
        "head": _text_width(f"head {H}\n{_shape(n, n)}", pt),
        "out": _text_width(_shape(n, dh), pt),
        "cat": _text_width(_shape(b, n, d), pt),
        "o": _text_width(f"output\n{_shape(b, n, d)}", pt),
        "split": _text_width(f"split {_shape(b * H, n, dh)}", pt),
    }
    # the arrows' gaps: W_Q, W_K, W_V over the first; the split, concat and W_O arrows
    gap_w = _text_width("$W_Q, W_K, W_V$", pt) + 0.2
    gaps = {"w": gap_w, "split": 0.45, "head": 0.35, "cat": 0.45, "o": 0.4}

    def columns(u):
        heat = max(n * u, labels["head"])
        out = max(dh * u, labels["out"])
        return {
            "x": max(d * u, labels["x"]),
            "qkv": max(d * u + 2 * DECK_STEP, labels["qkv"]),
            # the heads' column: each head's weights, an arrow, its output; the split's name
            "heads": max(heat + gaps["head"] + out, labels["split"]),
            "heat": heat,
            "out": out,
            "cat": max(d * u, labels["cat"]),
            "o": max(d * u, labels["o"]),
        }

    def width(u):
        c = columns(u)
        return (
            2 * MARGIN
            + sum(c[k] for k in ("x", "qkv", "heads", "cat", "o"))
            + sum(gaps[k] for k in ("w", "split", "cat", "o"))
        )

    u = U_WIDE
    while width(u) > WIDE_MAX and u > U_MIN:
        u = round(u - 0.0005, 4)
    return {"u": u, "width": width(u), "gaps": gaps, **columns(u)}


def _draw(s, theme, narrow, managed):
    n, d, H, b = s["n"], s["d"], s["H"], s["batch"]
    dh = d // H
    if not narrow:
        plan = _wide_plan(s)
        u, gaps, width = plan["u"], plan["gaps"], plan["width"]
        label_h = 0.4  # a two-line label under a block, and the gap to the next block
        head_h = n * u + label_h + 0.1
        height = max(H * head_h + 0.3, n * u + 0.3 + label_h) + 0.3
        fig, pen = _canvas((width, height), theme, managed, u, H, PT_WIDE)
        yc = height / 2 - 0.05
        y0 = yc - n * u / 2
        mid = "\n"
        x = MARGIN + (plan["x"] - d * u) / 2
        cx = pen.block(x, y0, d, n)
        pen.text(cx, y0 - 0.05, f"X{mid}{_shape(b, n, d)}")
        x1 = x + d * u
        qx0 = MARGIN + plan["x"] + gaps["w"] + (plan["qkv"] - d * u - 2 * DECK_STEP) / 2
        pen.arrow((x1 + 0.05, yc), (qx0 - 0.05, yc), "$W_Q, W_K, W_V$")
        left, right = _qkv(pen, qx0, y0, n, d, H)
        pen.text((left + right) / 2, y0 - 0.05, f"Q, K, V{mid}{_shape(b, n, d)}")
        hx0 = MARGIN + plan["x"] + gaps["w"] + plan["qkv"] + gaps["split"]
        ytop = yc + H * head_h / 2 - 0.15
        hright, mids = _heads_wide(pen, hx0, ytop, s, plan, head_h)
        pen.text(
            hx0 + plan["heads"] / 2,
            ytop + 0.08,
            f"split {_shape(b * H, n, dh)}",
            colour=pen.col["muted"],
            va="bottom",
        )
        for h, (hx, hy) in enumerate(mids):
            pen.arrow((right + 0.05, yc), (hx - 0.05, hy), gid=f"split-{h}")
        cx0 = hx0 + plan["heads"] + gaps["cat"] + (plan["cat"] - d * u) / 2
        hright = max(hright, hx0 + plan["heads"])  # clear of an output's wider label
        for h, (_hx, hy) in enumerate(mids):
            pen.arrow((hright + 0.05, hy), (cx0 - 0.05, yc), gid=f"concat-{h}")
        groups = [(h * dh, dh, h) for h in range(H)]
        cc = pen.block(cx0, y0, d, n, groups)
        pen.text(cc, y0 + n * u + 0.05, "concat", colour=pen.col["muted"], va="bottom")
        pen.text(cc, y0 - 0.05, _shape(b, n, d))
        ox0 = hx0 + plan["heads"] + gaps["cat"] + plan["cat"] + gaps["o"]
        ox0 += (plan["o"] - d * u) / 2
        pen.arrow((cx0 + d * u + 0.05, yc), (ox0 - 0.05, yc), "$W_O$")
        oc = pen.block(ox0, y0, d, n)
        pen.text(oc, y0 - 0.05, f"output{mid}{_shape(b, n, d)}")
    else:
        fig = _narrow(s, theme, managed)
    from attnlib.plotting.kit import finish_figure

    finish_figure(fig, theme)
    return fig


def _heads_wide(pen, x0, ytop, s, plan, head_h):
    """The wide layout's heads, stacked downwards from ytop: each its weights (n, n), an
    arrow, its output (n, d/H), centred in their columns. Returns (the outputs' right edge,
    [(left, middle y) per head])."""
    n, d, H, u = s["n"], s["d"], s["H"], pen.u
    dh, mids = d // H, []
    xh = x0 + (plan["heat"] - n * u) / 2
    xo = x0 + plan["heat"] + plan["gaps"]["head"] + (plan["out"] - dh * u) / 2
    for h in range(H):
        yb = ytop - h * head_h - n * u
        pen.heat(xh, yb, s["weights"][h], gid=f"weights-{h}")
        pen.text(xh + n * u / 2, yb - 0.05, f"head {h + 1}\n{_shape(n, n)}")
        pen.arrow((xh + n * u + 0.05, yb + n * u / 2), (xo - 0.05, yb + n * u / 2))
        pen.block(xo, yb, dh, n, [(0, dh, h)], gid=f"output-{h}")
        pen.text(xo + dh * u / 2, yb - 0.05, _shape(n, dh))
        mids.append((xh, yb + n * u / 2))
    return xo + dh * u, mids


def _narrow(s, theme, managed):
    """The phone layout, PHONE_WIDTH wide with its text at PT_PHONE, in three rows: X -> Q, K,
    V; the heads, as many a row as fit; the concatenation -> W_O -> output. Every head gets a
    split arrow in (from under Q, K, V, along a bar over its row; rows after the first are
    reached down a lane at the left edge) and a concat arrow out (from under its output's
    label to its own columns of the concatenation; rows before the last go down a lane
    between the first two heads of a row)."""
    n, d, H, b = s["n"], s["d"], s["H"], s["batch"]
    dh = d // H
    # X, the arrow (1.0 in) and the deck of Q, K, V (d columns and 0.18 in) fit across
    u = min(U_NARROW, (PHONE_WIDTH - 0.15 - 1.38) / (2 * d))
    # a head's slot: its weights, an arrow, its output; each wide enough for the label under it
    heat_w, out_w = max(n * u, 0.55), max(dh * u, 0.6)
    slot, gap = heat_w + 0.4 + out_w, 0.25
    per_row = max(1, min(H, int((PHONE_WIDTH - 0.2 + gap) // (slot + gap))))
    head_rows = -(-H // per_row)
    # a row of heads and its labels; with more than one row, room under each for the concat
    # arrows' bar and the next row's split bar
    row = n * u + (0.5 if head_rows == 1 else 0.75)
    # from the top: 0.2 in, X; its label (0.3) and the split arrow (ARROW); the heads' rows;
    # their labels and the concat arrow; the output and its label (0.27 with the margin)
    height = 0.2 + 3 * n * u + (head_rows - 1) * row + 2 * (0.3 + ARROW) + 0.27
    fig, pen = _canvas((PHONE_WIDTH, height), theme, managed, u, H, PT_PHONE)
    top = height - 0.1
    # row 1: X -> Q, K, V
    y0 = top - 0.1 - n * u
    pen.block(0.2, y0, d, n)
    pen.text(0.2 + d * u / 2, y0 - 0.05, f"X {_shape(b, n, d)}")
    qx0 = 0.2 + d * u + 1.0
    pen.arrow(
        (0.2 + d * u + 0.05, y0 + n * u / 2), (qx0 - 0.05, y0 + n * u / 2), "$W_Q, W_K, W_V$"
    )
    left, right = _qkv(pen, qx0, y0, n, d, H)
    pen.text((left + right) / 2, y0 - 0.05, f"Q, K, V {_shape(b, n, d)}")
    # row 2: the heads
    ya = y0 - 0.3
    yh = ya - ARROW
    x_split = min((left + right) / 2, PHONE_WIDTH - 1.25)  # its label (about 1 in) fits
    split_bar = yh + 0.16
    label = {"colour": pen.col["muted"], "ha": "left", "va": "center"}
    pen.text(x_split + 0.1, (ya + split_bar) / 2 + 0.02, f"split {_shape(b * H, n, dh)}", **label)
    lane_split = 0.07  # rows after the first: down the left edge
    lane_cat = 0.15 + slot + gap / 2 if per_row > 1 else 0.15 + slot + 0.1
    ya3 = yh - (head_rows - 1) * row - n * u - 0.3  # under the last row's labels
    yb3 = ya3 - ARROW - n * u
    cat_bar = ya3 - 0.05
    cat_top = yb3 + n * u + 0.02
    for h in range(H):
        r, k = divmod(h, per_row)
        x = 0.15 + k * (slot + gap)
        yb = yh - r * row - n * u
        xh = x + (heat_w - n * u) / 2
        pen.heat(xh, yb, s["weights"][h], gid=f"weights-{h}")
        pen.text(xh + n * u / 2, yb - 0.05, f"head {h + 1}")
        xo = x + heat_w + 0.4 + (out_w - dh * u) / 2
        pen.arrow((xh + n * u + 0.04, yb + n * u / 2), (xo - 0.04, yb + n * u / 2))
        pen.block(xo, yb, dh, n, [(0, dh, h)], gid=f"output-{h}")
        pen.text(xo + dh * u / 2, yb - 0.05, _shape(n, dh))
        # split: from under Q, K, V down to the bar over this row, along it, down into the head
        xc, bar = xh + n * u / 2, yb + n * u + 0.16
        via = [(x_split, split_bar)]
        if r:
            via += [(lane_split, split_bar), (lane_split, bar)]
        pen.arrow((x_split, ya), (xc, yb + n * u + 0.02), gid=f"split-{h}", via=[*via, (xc, bar)])
        # concat: from under its output's label to its own columns of the concatenation
        xoc, x_land = xo + dh * u / 2, 0.2 + (h + 0.5) * dh * u
        start, below = (xoc, yb - 0.27), yb - 0.33
        if r < head_rows - 1:
            via = [(xoc, below), (lane_cat, below), (lane_cat, cat_bar), (x_land, cat_bar)]
        else:
            via = [(xoc, cat_bar), (x_land, cat_bar)]
        pen.arrow(start, (x_land, cat_top), gid=f"concat-{h}", via=via)
    # row 3: concatenated -> W_O -> output
    pen.text(0.2 + d * u + 0.1, (cat_bar + cat_top) / 2 - 0.02, "concat", **label)
    groups = [(h * dh, dh, h) for h in range(H)]
    pen.block(0.2, yb3, d, n, groups)
    pen.text(0.2 + d * u / 2, yb3 - 0.05, _shape(b, n, d))
    ox0 = 0.2 + d * u + 1.0
    pen.arrow((0.2 + d * u + 0.05, yb3 + n * u / 2), (ox0 - 0.05, yb3 + n * u / 2), "$W_O$")
    pen.block(ox0, yb3, d, n)
    pen.text(ox0 + d * u / 2, yb3 - 0.05, f"output {_shape(b, n, d)}")
    return fig


# ----------------------------------------------------------------------------- masks
def _bool_masks(masks, name, fn):
    if not isinstance(masks, torch.Tensor) or masks.dtype != torch.bool or masks.dim() != 3:
        raise TypeError(
            f"{fn}: {name} must be a bool tensor (panels, n_queries, n_keys); got "
            f"{describe(masks)}"
        )
    p, n, m = masks.shape
    if not 1 <= p <= 4 or not 1 <= n <= 12 or not 1 <= m <= 12:
        raise ValueError(
            f"{fn}: {name} must hold 1 to 4 masks of at most 12 x 12 (a letter per cell); "
            f"got shape {tuple(masks.shape)}"
        )
    return masks


def _meanings(value, name, fn):
    if not isinstance(value, (list, tuple)) or not all(v in ("allowed", "blocked") for v in value):
        raise ValueError(
            f"{fn}: {name} must say, per mask, what True means: 'allowed' or 'blocked'; "
            f"got {value!r}"
        )
    return list(value)


@declare(
    masks=Checked(_bool_masks),
    titles=StrList(),
    true_means=Checked(_meanings),
)
def draw_masks(masks: torch.Tensor, titles: list[str], true_means: list[str]):
    """Draw boolean masks side by side as what they do: each cell coloured *allowed* (the
    query may attend to the key) or *blocked*, by a two-entry legend (no colour bar: a mask
    has two values), and marked with the value the mask stores there, ``T`` or ``F``; a
    mask whose True means *blocked* (``nn.MultiheadAttention``'s convention) shows the same
    colours as its opposite with every letter flipped.

    Args:
        masks: ``(panels, n_queries, n_keys)`` bool, at most 4 masks of at most 12 x 12.
        titles: one title per mask.
        true_means: per mask, ``"allowed"`` or ``"blocked"``: what a stored True means.

    Returns:
        The pyplot-managed figure (an attnlib figure with its dark and narrow variants).
    """
    fn = "draw_masks"
    if len(titles) != masks.shape[0] or len(true_means) != masks.shape[0]:
        raise ValueError(
            f"{fn}: titles and true_means must have one entry per mask ({masks.shape[0]}); "
            f"got {len(titles)} and {len(true_means)}"
        )
    stored = masks.numpy()  # (p, n, m) bool
    allowed = [s if t == "allowed" else ~s for s, t in zip(stored, true_means)]
    from attnlib.plotting.kit import drawn_figure

    def draw(theme, narrow, managed):
        return _draw_masks(stored, allowed, list(titles), theme, narrow, managed)

    return drawn_figure(draw)


def _draw_masks(stored, allowed, titles, theme, narrow, managed):
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    from attnlib.plotting.kit import OKABE_ITO, finish_figure, new_figure, series_colour

    p, n, m = stored.shape
    fig = new_figure((3.9 if narrow else 5.6, 2.5 if narrow else 2.6), managed)
    # the letters are what a cell says: on a phone as tall as a 12.8-px text's capitals (body
    # x 0.8) in the 3.9-in picture shown 358 px wide (9.5 pt made 8.6 px); smaller where a
    # mask of more than 6 keys leaves smaller cells
    letter_pt = min(LETTER_PT_PHONE, LETTER_PT_PHONE * 6 / max(m, n)) if narrow else PT
    axes = fig.subplots(1, p, sharey=True, squeeze=False)[0]
    yes = series_colour(OKABE_ITO[0], theme)  # allowed: the accent blue
    no = "#d9d9d9" if theme.name == "light" else "#3a3a3a"  # blocked: a quiet grey
    for ax, s, a, title in zip(axes, stored, allowed, titles):
        ax.imshow(a.astype(float), cmap=ListedColormap([no, yes]), vmin=0, vmax=1)
        for i in range(n):
            for j in range(m):
                colour = "white" if a[i, j] else theme.foreground
                ax.text(j, i, "T" if s[i, j] else "F", ha="center", va="center",
                        fontsize=letter_pt, color=colour)  # fmt: skip
        ax.set_title(title)
        ax.set_xticks(range(m))
        ax.set_yticks(range(n))
        ax.set_xlabel("keys")
    axes[0].set_ylabel("queries")
    fig.legend(
        handles=[Patch(color=yes, label="allowed (may attend)"), Patch(color=no, label="blocked")],
        loc="outside lower center",
        ncols=2,
        frameon=False,
    )
    finish_figure(fig, theme)
    return fig
