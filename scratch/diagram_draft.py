"""Draft of attnlib.book.diagrams.draw_encoder_decoder (to move in after i19's merge)."""
from __future__ import annotations

import numpy as np


def draw_encoder_decoder(source: str, written: str, weights, *, next_char: str | None = None,
                         title: str | None = None, figsize=(9.0, 4.4)):
    """Draw Bahdanau's encoder-decoder at one decoding step, with the step's real weights.

    Args:
        source: the input characters (one encoder state each: the keys and the values).
        written: the output written so far; the step shown writes the next character.
        weights: ``(len(source),)`` the attention weights of this step (a row of the
            model's weight matrix), drawn as bars over the encoder states.
        next_char: the character this step writes (shown as the output), optional.
        title: optional title.
        figsize: figure size in inches.

    Returns:
        The pyplot-managed figure.
    """
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Rectangle

    from attnlib.plotting import OKABE_ITO, _new_figure

    w = np.asarray(weights, dtype=float).ravel()
    n = len(source)
    if not isinstance(source, str) or n == 0:
        raise ValueError("draw_encoder_decoder: source must be a non-empty string")
    if w.shape != (n,):
        raise ValueError(f"draw_encoder_decoder: weights must have shape ({n},) (one per input "
                         f"character); got {w.shape}")
    if not np.all(np.isfinite(w)) or (w < 0).any() or abs(w.sum() - 1) > 1e-3:
        raise ValueError("draw_encoder_decoder: weights must be finite, nonnegative and sum to 1")
    fig = _new_figure(figsize)
    ax = fig.add_subplot()
    ax.set_xlim(-0.2, 12.2)
    ax.set_ylim(-0.5, 6.3)
    ax.axis("off")
    if title:
        ax.set_title(title)
    x0, x1 = 0.5, 6.9
    xs = np.linspace(x0, x1, n) if n > 1 else np.array([(x0 + x1) / 2])
    cw = min(0.42, (x1 - x0) / max(n - 1, 1) * 0.8)
    ink, grey = "0.15", "0.45"
    blue, red, green = OKABE_ITO[0], OKABE_ITO[1], OKABE_ITO[2]

    def box(x, y, text, colour, width=1.9, height=0.6, size="small"):
        ax.add_patch(FancyBboxPatch((x - width / 2, y - height / 2), width, height,
                                    boxstyle="round,pad=0.05", fc="none", ec=colour, lw=1.3))
        ax.text(x, y, text, ha="center", va="center", fontsize=size, color=ink)

    def arrow(a, b, colour=grey, style="-|>", lw=1.0, ls="-", rad=0.0):
        ax.add_patch(FancyArrowPatch(a, b, arrowstyle=style, mutation_scale=10, color=colour,
                                     lw=lw, ls=ls, connectionstyle=f"arc3,rad={rad}"))

    # encoder: characters, states, weights as bars
    y_char, y_state, y_bar = 0.0, 0.8, 1.25
    for j, (x, c) in enumerate(zip(xs, source)):
        ax.text(x, y_char, c if c != " " else "␣", ha="center", va="center",
                fontsize="small", family="monospace", color=ink)
        ax.add_patch(Rectangle((x - cw / 2, y_state - cw / 2), cw, cw, fc="none", ec=blue, lw=1.0))
        ax.add_patch(Rectangle((x - cw / 2, y_bar), cw, 1.6 * w[j], fc=red, alpha=0.6, lw=0))
    ax.annotate("", xy=(x1 + 0.35, y_state), xytext=(x0 - 0.35, y_state),
                arrowprops=dict(arrowstyle="<|-|>", color=blue, lw=0.8, alpha=0.5))
    ax.text((x0 + x1) / 2, -0.45,
            r"encoder: a GRU reads the characters both ways; one state $\mathbf{h}_j$ each "
            r"= the keys and the values", ha="center", va="center", fontsize="x-small", color=ink)
    j_top = int(np.argmax(w))
    ax.text(xs[j_top], y_bar + 1.6 * w[j_top] + 0.18, f"{w[j_top]:.2f}", ha="center",
            va="bottom", fontsize="x-small", color=red)
    ax.text((x0 + x1) / 2 + 0.4, y_bar + 1.85, r"weights $\alpha_{t,j}$ of this step",
            ha="left", va="center", fontsize="x-small", color=red)

    # decoder step t
    y_dec = 5.3
    xq, xg, xo = 1.9, 8.6, 11.0
    box(xq, y_dec, r"query $\mathbf{s}_{t-1}$", green, width=2.0)
    ax.text(xq - 1.0, y_dec + 0.45, r"at the start, $\mathbf{s}_0$ = the encoder's final states",
            ha="left", va="bottom", fontsize="x-small", color=ink)
    box(xg, y_dec, "GRU", ink, width=1.2)
    box(xo, y_dec, "dense + softmax", ink, width=2.1)
    arrow((xq + 1.05, y_dec), (xg - 0.65, y_dec), colour=green)
    arrow((xg + 0.65, y_dec), (xo - 1.1, y_dec))
    ax.text((xg + xo) / 2 - 0.3, y_dec + 0.12, r"$\mathbf{s}_t$", ha="center", va="bottom",
            fontsize="small", color=ink)
    out = f"writes {next_char!r}" if next_char is not None else "writes the next character"
    ax.text(xo, y_dec - 0.45, out, ha="center", va="top", fontsize="x-small", color=ink)
    prev = repr(written[-1]) if written else "<bos>"
    ax.text(xg, y_dec + 0.95, f"previous character {prev}", ha="center", va="center",
            fontsize="x-small", color=ink)
    arrow((xg, y_dec + 0.8), (xg, y_dec + 0.35))
    # attention: the query scored against every key; the context, a weighted sum of values
    xa, ya = 3.3, 3.75
    box(xa, ya, r"scores $a(\mathbf{s}_{t-1}, \mathbf{h}_j)$, softmax", red, width=3.6)
    arrow((xq, y_dec - 0.35), (xq, ya + 0.35), colour=green)
    arrow((x0 - 0.45, y_state), (xa - 1.6, ya - 0.35), colour=blue, rad=-0.25)
    ax.text(x0 - 0.2, 2.3, "keys", ha="right", va="center", fontsize="x-small", color=blue)
    arrow((xa + 0.4, ya - 0.35), (xa + 0.4, y_bar + 1.6), colour=red)
    xc = 8.6
    box(xc, ya, r"context $\mathbf{c}_t = \sum_j \alpha_{t,j}\mathbf{h}_j$", red, width=3.0)
    arrow((x1 + 0.45, y_state), (xc - 0.6, ya - 0.35), colour=blue, rad=0.2)
    ax.text(x1 + 1.3, 1.3, "values", ha="left", va="center", fontsize="x-small", color=blue)
    arrow((x1 + 0.3, y_bar + 0.5), (xc - 1.2, ya - 0.35), colour=red)
    arrow((xc, ya + 0.35), (xg, y_dec - 0.35), colour=red)
    return fig
