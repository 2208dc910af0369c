"""The book's pipeline picture: query -> scoring function -> softmax -> weighted sum.

One figure, drawn with the numbers of a small example, so a reader can follow a query
through every stage of attention pooling (d2l §11.1, Fig. 11.1.1 tells the same story in
a schematic; this one is the book's own, with real values):

    scores  a(q, k_i)          one number per key
    weights alpha_i = softmax  nonnegative, summing to 1
    output  sum_i alpha_i v_i  a weighted average of the values

The function only draws: callers compute the numbers with attnlib (see
:func:`pipeline_example`), and the figure shows them rounded to two decimals.
"""

from __future__ import annotations

import numpy as np
import torch

__all__ = ["draw_pipeline", "pipeline_example"]


def pipeline_example(scoring: str = "dot_product", *, valid_len: int | None = None) -> dict:
    """A fixed small example computed with attnlib: one 2-D query, four keys, 2-D values.

    ``scoring`` is ``"dot_product"`` (scaled), ``"gaussian"`` or ``"additive"`` (fixed,
    seeded parameters); ``valid_len`` masks the keys from that index on (chapter 3).
    Returns a dict of tensors: query ``(d,)``, keys ``(n, d)``, values ``(n, d_v)``, scores
    ``(n,)``, weights ``(n,)``, output ``(d_v,)``, and the scoring's name.
    """
    from attnlib import additive_scores, attention_pool, dot_product_scores, gaussian_scores

    q = torch.tensor([[[1.0, 0.5]]])  # (batch, n_queries, d)
    k = torch.tensor([[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.0]]])  # (batch, n_keys, d)
    v = torch.tensor([[[1.0, 0.0], [0.0, 1.0], [2.0, 2.0], [-1.0, -1.0]]])  # (batch, n_keys, d_v)
    if scoring == "dot_product":
        s, name = dot_product_scores(q, k), r"$\mathbf{q}^\top\mathbf{k}_i/\sqrt{d}$"
    elif scoring == "gaussian":
        s, name = gaussian_scores(q, k, sigma=1.0), r"$-\Vert\mathbf{q}-\mathbf{k}_i\Vert^2/2$"
    elif scoring == "additive":
        g = torch.Generator().manual_seed(0)
        W_q, W_k = torch.randn(8, 2, generator=g), torch.randn(8, 2, generator=g)
        w_v = torch.randn(8, generator=g)
        s = additive_scores(q, k, W_q, W_k, w_v)
        name = r"$\mathbf{w}_v^\top\tanh(\mathbf{W}_q\mathbf{q}+\mathbf{W}_k\mathbf{k}_i)$"
    else:
        raise ValueError(
            f"pipeline_example: scoring must be 'dot_product', 'gaussian' or "
            f"'additive'; got {scoring!r}"
        )
    lens = None if valid_len is None else torch.tensor([valid_len])
    out, w = attention_pool(s, v, lens)
    return {
        "query": q[0, 0],
        "keys": k[0],
        "values": v[0],
        "scores": s[0, 0],
        "weights": w[0, 0],
        "output": out[0, 0],
        "scoring": name,
        "valid_len": valid_len,
    }


def _fmt(vec) -> str:
    return "(" + ", ".join(f"{x:.2f}" for x in np.asarray(vec, dtype=float).ravel()) + ")"


def draw_pipeline(example: dict, *, title: str | None = None, figsize=(9.0, 3.2)):
    """Draw query -> scores -> softmax weights -> weighted sum, with the example's numbers.

    Args:
        example: what :func:`pipeline_example` returns (tensors or arrays): ``query``
            ``(d,)``, ``keys`` ``(n, d)``, ``values`` ``(n, d_v)``, ``scores`` ``(n,)``,
            ``weights`` ``(n,)``, ``output`` ``(d_v,)``, ``scoring`` (a label) and
            optionally ``valid_len``.
        title: optional title.
        figsize: figure size in inches.

    Returns:
        The pyplot-managed :class:`matplotlib.figure.Figure` (shown by Jupyter's inline
        backend at the end of the cell; also returned for ``savefig``).
    """
    from matplotlib.patches import FancyArrowPatch, Rectangle

    from attnlib.plotting._figure import OKABE_ITO, _new_figure

    keys = np.asarray(example["keys"], dtype=float)
    n = keys.shape[0]
    for name, shape in (("scores", (n,)), ("weights", (n,))):
        got = np.asarray(example[name], dtype=float).shape
        if got != shape:
            raise ValueError(
                f"draw_pipeline: example[{name!r}] must have shape {shape} "
                f"(one per key); got {got}"
            )
    scores = np.asarray(example["scores"], dtype=float)
    weights = np.asarray(example["weights"], dtype=float)
    values = np.asarray(example["values"], dtype=float)
    valid = example.get("valid_len")
    valid = n if valid is None else int(valid)

    fig = _new_figure(figsize)
    ax = fig.add_subplot()
    ax.set_xlim(0, 10)
    ax.set_ylim(-0.6, n + 0.9)
    ax.axis("off")
    if title:
        ax.set_title(title)
    rows = [n - 1 - i + 0.2 for i in range(n)]  # key i at height rows[i], top to bottom
    head = n + 0.45
    cols = {
        "query": 0.7,
        "keys": 2.25,
        "scores": 3.95,
        "weights": 5.75,
        "values": 7.65,
        "output": 9.3,
    }
    heads = {
        "query": "query $\\mathbf{q}$",
        "keys": "keys $\\mathbf{k}_i$",
        "scores": "scores $a(\\mathbf{q},\\mathbf{k}_i)$",
        "weights": "weights $\\alpha_i$",
        "values": "values $\\mathbf{v}_i$",
        "output": "output $\\sum_i\\alpha_i\\mathbf{v}_i$",
    }
    for key, x in cols.items():
        ax.text(x, head, heads[key], ha="center", va="center", fontsize="small", fontweight="bold")
    mid = (n - 1) / 2 + 0.2
    ax.text(
        cols["query"],
        mid,
        _fmt(example["query"]),
        ha="center",
        va="center",
        fontsize="small",
        bbox=dict(boxstyle="round", fc="none", ec=OKABE_ITO[1]),
    )
    ax.text(
        cols["output"],
        mid,
        _fmt(example["output"]),
        ha="center",
        va="center",
        fontsize="small",
        bbox=dict(boxstyle="round", fc="none", ec=OKABE_ITO[2]),
    )
    for i, y in enumerate(rows):
        masked = i >= valid
        colour = "0.6" if masked else "0.0"
        ax.text(
            cols["keys"],
            y,
            _fmt(keys[i]),
            ha="center",
            va="center",
            fontsize="small",
            color=colour,
        )
        ax.text(
            cols["scores"],
            y,
            f"{scores[i]:.2f}" + ("  (masked)" if masked else ""),
            ha="center",
            va="center",
            fontsize="small",
            color=colour,
        )
        bar = Rectangle(
            (cols["weights"] - 0.05, y - 0.18),
            0.8 * weights[i],
            0.36,
            color=OKABE_ITO[0],
            alpha=0.45,
            lw=0,
        )
        ax.add_patch(bar)
        ax.text(
            cols["weights"] - 0.15,
            y,
            f"{weights[i]:.2f}",
            ha="right",
            va="center",
            fontsize="small",
        )
        ax.text(
            (cols["weights"] + cols["values"]) / 2 + 0.05,
            y,
            "×",
            ha="center",
            va="center",
            fontsize="small",
            color="0.35",
        )
        ax.text(
            cols["values"],
            y,
            _fmt(values[i]),
            ha="center",
            va="center",
            fontsize="small",
            color=colour,
        )

    def arrow(x0, x1, y0=mid, y1=mid, label=None):
        ax.add_patch(
            FancyArrowPatch(
                (x0, y0), (x1, y1), arrowstyle="-|>", mutation_scale=10, color="0.35", lw=1
            )
        )
        if label:
            ax.text(
                (x0 + x1) / 2,
                -0.35,
                label,
                ha="center",
                va="center",
                fontsize="x-small",
                color="0.25",
            )

    arrow(cols["query"] + 0.6, cols["keys"] - 0.75, label="compare with\nevery key")
    arrow(cols["keys"] + 0.75, cols["scores"] - 0.75, label=example.get("scoring", "score"))
    arrow(
        cols["scores"] + 0.55,
        cols["weights"] - 0.75,
        label="softmax" + (" over the\nvalid keys" if valid < n else ""),
    )
    arrow(cols["values"] + 0.75, cols["output"] - 0.75, label="weighted sum\nof the values")
    ax.text(
        cols["weights"] + 0.3,
        -0.35,
        f"sum = {weights.sum():.2f}",
        ha="center",
        va="center",
        fontsize="x-small",
        color="0.25",
    )
    return fig
