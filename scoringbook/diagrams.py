"""The book's pipeline picture: query -> scoring function -> softmax -> weighted sum.

One figure, drawn with the numbers of a small example, so a reader can follow a query
through every stage of attention pooling (d2l §11.1, Fig. 11.1.1 tells the same story in
a schematic; this one is the book's own, with real values):

    scores  a(q, k_i)          one number per key
    weights alpha_i = softmax  nonnegative, summing to 1
    output  sum_i alpha_i v_i  a weighted average of the values

The function only draws: callers compute the numbers with attnlib (see
:func:`pipeline_example`), and the figure shows them rounded to two decimals.

Chapter 7's encoder-decoder picture, :func:`draw_encoder_decoder`, lives in
:mod:`scoringbook.diagram_seq2seq` and is re-exported here.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import torch

from attnlib._validate import as_int, as_str, describe
from scoringbook.diagram_seq2seq import draw_encoder_decoder  # re-exported: chapter 7's picture

__all__ = ["draw_pipeline", "pipeline_example", "draw_encoder_decoder"]


def pipeline_example(scoring: str = "dot_product", *, valid_len: int | None = None) -> dict:
    """A fixed small example computed with attnlib: one 2-D query, four keys, 2-D values.

    ``scoring`` is ``"dot_product"`` (scaled), ``"gaussian"`` or ``"additive"`` (fixed,
    seeded parameters); ``valid_len`` (``None`` or an int in ``0 .. 4``; numpy ints and 0-d
    tensors too) masks the keys from that index on (chapter 3).
    Returns a dict of tensors: query ``(d,)``, keys ``(n, d)``, values ``(n, d_v)``, scores
    ``(n,)``, weights ``(n,)``, output ``(d_v,)``, and the scoring's name.
    """
    from attnlib import additive_scores, attention_pool, dot_product_scores, gaussian_scores

    fn = "pipeline_example"
    if not isinstance(scoring, str):
        raise TypeError(
            f"{fn}: scoring must be 'dot_product', 'gaussian' or 'additive'; got "
            f"{describe(scoring)}"
        )
    if valid_len is not None:
        valid_len = _valid_len(valid_len, 4, "valid_len", fn)

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

    The stages run left to right, one row per key. Its narrow variant (for a phone, see
    :mod:`attnlib.plotting.variants`) runs them top to bottom, one column per key.

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
    from attnlib.plotting._figure import NARROW_WIDTH, _check_figsize, _drawn

    fn = "draw_pipeline"
    title = as_str(title, "title", fn, optional=True)
    figsize = _check_figsize(figsize, fn)
    checked = _checked_example(example, fn)
    n = checked["keys"].shape[0]
    ex = {
        "query": _fmt(checked["query"]),
        "output": _fmt(checked["output"]),
        "keys": [_fmt(k) for k in checked["keys"]],
        "values": [_fmt(v) for v in checked["values"]],
        "scores": [f"{s:.2f}" for s in checked["scores"]],
        "weights": checked["weights"],
        "scoring": checked["scoring"],
        "valid": checked["valid_len"],
        "n": n,
    }

    def draw(theme, narrow, managed):
        if narrow and figsize[0] > NARROW_WIDTH:
            return _pipeline_down(ex, title, theme, managed)
        return _pipeline_across(ex, title, figsize, theme, managed)

    return _drawn(draw)


def _pipeline_colours(theme) -> dict:
    from attnlib.plotting._figure import OKABE_ITO
    from attnlib.plotting._theme import series_colour

    return {
        "text": theme.foreground,
        "masked": theme.muted,
        "arrow": theme.muted,
        "query": series_colour(OKABE_ITO[1], theme),
        "output": series_colour(OKABE_ITO[2], theme),
        "bar": series_colour(OKABE_ITO[0], theme),
        "bar_alpha": 0.55 if theme.name == "light" else 0.9,
    }


HEADS = {
    "query": "query $\\mathbf{q}$",
    "keys": "keys $\\mathbf{k}_i$",
    "scores": "scores $a(\\mathbf{q},\\mathbf{k}_i)$",
    "weights": "weights $\\alpha_i$",
    "values": "values $\\mathbf{v}_i$",
    "output": "output $\\sum_i\\alpha_i\\mathbf{v}_i$",
}
PT = 9.5  # every text of the diagram: half a point over attnlib's smallest size, so it
# stays over 9 CSS px where the book shows the wide picture smallest (1280 px: 9.9 px)


def _pipeline_across(ex, title, figsize, theme, managed):
    """Stages left to right, one row per key (the desktop figure)."""
    from matplotlib.patches import FancyArrowPatch, Rectangle

    from attnlib.plotting._figure import _finish, _new_figure

    col = _pipeline_colours(theme)
    n, valid, weights = ex["n"], ex["valid"], ex["weights"]
    fig = _new_figure(figsize, managed)
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
    for key, x in cols.items():
        ax.text(
            x,
            head,
            HEADS[key],
            ha="center",
            va="center",
            fontsize=PT,
            fontweight="bold",
            color=col["text"],
        )
    mid = (n - 1) / 2 + 0.2
    for key in ("query", "output"):
        ax.text(
            cols[key],
            mid,
            ex[key],
            ha="center",
            va="center",
            fontsize=PT,
            color=col["text"],
            bbox=dict(boxstyle="round", fc="none", ec=col[key]),
        )
    for i, y in enumerate(rows):
        masked = i >= valid
        colour = col["masked"] if masked else col["text"]
        ax.text(
            cols["keys"], y, ex["keys"][i], ha="center", va="center", fontsize=PT, color=colour
        )
        ax.text(
            cols["scores"],
            y,
            ex["scores"][i] + ("  (masked)" if masked else ""),
            ha="center",
            va="center",
            fontsize=PT,
            color=colour,
        )
        ax.add_patch(
            Rectangle(
                (cols["weights"] - 0.05, y - 0.18),
                0.8 * weights[i],
                0.36,
                color=col["bar"],
                alpha=col["bar_alpha"],
                lw=0,
            )
        )
        ax.text(
            cols["weights"] - 0.15,
            y,
            f"{weights[i]:.2f}",
            ha="right",
            va="center",
            fontsize=PT,
            color=col["text"],
        )
        ax.text(
            (cols["weights"] + cols["values"]) / 2 + 0.05,
            y,
            "×",
            ha="center",
            va="center",
            fontsize=PT,
            color=col["arrow"],
        )
        ax.text(
            cols["values"], y, ex["values"][i], ha="center", va="center", fontsize=PT, color=colour
        )

    def arrow(x0, x1, label=None):
        ax.add_patch(
            FancyArrowPatch(
                (x0, mid), (x1, mid), arrowstyle="-|>", mutation_scale=10, color=col["arrow"], lw=1
            )
        )
        if label:
            ax.text(
                (x0 + x1) / 2,
                -0.35,
                label,
                ha="center",
                va="center",
                fontsize=PT,
                color=col["arrow"],
            )

    arrow(cols["query"] + 0.6, cols["keys"] - 0.75, label="compare with\nevery key")
    arrow(cols["keys"] + 0.75, cols["scores"] - 0.75, label=ex["scoring"])
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
        fontsize=PT,
        color=col["arrow"],
    )
    _finish(fig, theme)
    return fig


def _pipeline_down(ex, title, theme, managed):
    """Stages top to bottom, one column per key (the phone figure, 4.2 in wide)."""
    from matplotlib.patches import FancyArrowPatch, Rectangle

    from attnlib.plotting._figure import NARROW_WIDTH, _finish, _new_figure

    col = _pipeline_colours(theme)
    n, valid, weights = ex["n"], ex["valid"], ex["weights"]
    # from the top: each stage is a bold head line and a line of values (0.62 in); between
    # stages an arrow with its label (0.42 in)
    stage_h, arrow_h = 0.62, 0.42
    height = 6 * stage_h + 4 * arrow_h + 0.3 + (0.3 if title else 0)
    fig = _new_figure((NARROW_WIDTH, height), managed)
    fig.set_layout_engine("none")  # one axes filling the figure: nothing to lay out
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, NARROW_WIDTH)
    ax.set_ylim(-height, 0)
    ax.axis("off")
    left = 0.12
    xs = [left + (NARROW_WIDTH - left) * (i + 0.5) / n for i in range(n)]  # a column per key
    y = -0.15
    if title:
        ax.text(
            NARROW_WIDTH / 2,
            y - 0.1,
            title,
            ha="center",
            va="center",
            fontsize=10.5,
            color=col["text"],
        )
        y -= 0.3

    def head(key, extra=None):
        nonlocal y
        ax.text(
            left,
            y - 0.12,
            HEADS[key],
            ha="left",
            va="center",
            fontsize=PT,
            fontweight="bold",
            color=col["text"],
        )
        if extra:
            ax.text(
                NARROW_WIDTH - 0.1,
                y - 0.12,
                extra,
                ha="right",
                va="center",
                fontsize=PT,
                color=col["arrow"],
            )
        return y - 0.4  # the values' line

    def arrow(label):
        nonlocal y
        x = left + 0.25
        ax.add_patch(
            FancyArrowPatch(
                (x, y - 0.04),
                (x, y - arrow_h + 0.04),
                arrowstyle="-|>",
                mutation_scale=10,
                color=col["arrow"],
                lw=1,
            )
        )
        ax.text(
            x + 0.2,
            y - arrow_h / 2,
            label,
            ha="left",
            va="center",
            fontsize=PT,
            color=col["arrow"],
        )
        y -= arrow_h

    yv = head("query")
    ax.text(
        NARROW_WIDTH / 2,
        yv,
        ex["query"],
        ha="center",
        va="center",
        fontsize=PT,
        color=col["text"],
        bbox=dict(boxstyle="round", fc="none", ec=col["query"]),
    )
    y -= stage_h
    arrow("compare with every key")
    yv = head("keys")
    for i, x in enumerate(xs):
        ax.text(
            x,
            yv,
            ex["keys"][i],
            ha="center",
            va="center",
            fontsize=PT,
            color=col["masked"] if i >= valid else col["text"],
        )
    y -= stage_h
    arrow(ex["scoring"])
    yv = head("scores")
    for i, x in enumerate(xs):
        masked = i >= valid
        ax.text(
            x,
            yv,
            ex["scores"][i] + (" (masked)" if masked else ""),
            ha="center",
            va="center",
            fontsize=PT,
            color=col["masked"] if masked else col["text"],
        )
    y -= stage_h
    arrow("softmax" + (" over the valid keys" if valid < n else ""))
    yv = head("weights", extra=f"sum = {weights.sum():.2f}")
    span = (NARROW_WIDTH - left) / n * 0.45  # a bar's length at weight 1
    for i, x in enumerate(xs):
        ax.add_patch(
            Rectangle(
                (x + 0.02, yv - 0.1),
                span * weights[i],
                0.2,
                color=col["bar"],
                alpha=col["bar_alpha"],
                lw=0,
            )
        )
        ax.text(
            x - 0.02,
            yv,
            f"{weights[i]:.2f}",
            ha="right",
            va="center",
            fontsize=PT,
            color=col["text"],
        )
    y -= stage_h
    ax.text(
        left + 0.25,
        y - arrow_h / 2 + 0.05,
        "× each weight times its value",
        ha="left",
        va="center",
        fontsize=PT,
        color=col["arrow"],
    )
    y -= arrow_h - 0.1
    yv = head("values")
    for i, x in enumerate(xs):
        ax.text(
            x,
            yv,
            ex["values"][i],
            ha="center",
            va="center",
            fontsize=PT,
            color=col["masked"] if i >= valid else col["text"],
        )
    y -= stage_h
    arrow("weighted sum of the values")
    yv = head("output")
    ax.text(
        NARROW_WIDTH / 2,
        yv,
        ex["output"],
        ha="center",
        va="center",
        fontsize=PT,
        color=col["text"],
        bbox=dict(boxstyle="round", fc="none", ec=col["output"]),
    )
    _finish(fig, theme)
    return fig


def _valid_len(value: object, n: int, name: str, fn: str) -> int:
    v = as_int(value, name, fn)
    if not 0 <= v <= n:
        raise ValueError(f"{fn}: {name} must be an int in 0 .. {n} (the number of keys); got {v}")
    return v


_REQUIRED = {
    "query": "(d,)",
    "keys": "(n, d)",
    "values": "(n, d_v)",
    "scores": "(n,)",
    "weights": "(n,)",
    "output": "(d_v,)",
}


def _checked_example(example: object, fn: str) -> dict:
    """The example's numbers as float64 arrays, consistent with each other: the weights are
    the softmax of the scores over the valid keys (0 on masked keys) and the output is their
    weighted average of the values, each within 1e-4 (the figure shows two decimals)."""
    if not isinstance(example, Mapping):
        raise TypeError(
            f"{fn}: example must be a dict as pipeline_example returns; got {describe(example)}"
        )
    missing = [k for k in _REQUIRED if k not in example]
    if missing:
        raise ValueError(
            f"{fn}: example is missing {', '.join(map(repr, missing))} (needs {list(_REQUIRED)})"
        )
    ex = {}
    for k in _REQUIRED:
        v = example[k]
        v = v.detach().cpu().double() if isinstance(v, torch.Tensor) else v
        try:
            ex[k] = np.asarray(v, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                f"{fn}: example[{k!r}] must be numbers {_REQUIRED[k]}; got {describe(v)}"
            ) from None
    keys = ex["keys"]
    if keys.ndim != 2:
        raise ValueError(f"{fn}: example['keys'] must have shape (n, d); got {keys.shape}")
    n, d = keys.shape
    if n == 0 or d == 0:
        raise ValueError(
            f"{fn}: example['keys'] must hold at least one key of d >= 1; got {keys.shape}"
        )
    d_v = ex["output"].shape[0] if ex["output"].ndim == 1 else -1
    shapes = {"query": (d,), "values": (n, d_v), "scores": (n,), "weights": (n,), "output": (d_v,)}
    for k, shape in shapes.items():
        if ex[k].shape != shape or d_v < 1:
            want = _REQUIRED[k].replace("n", str(n), 1) if k != "output" else _REQUIRED[k]
            raise ValueError(f"{fn}: example[{k!r}] must have shape {want}; got {ex[k].shape}")
    for k in _REQUIRED:
        if not np.isfinite(ex[k]).all():
            raise ValueError(f"{fn}: example[{k!r}] must be finite numbers; got {ex[k].tolist()}")
    label = example.get("scoring", "score")
    ex["scoring"] = as_str(label, "example['scoring']", fn)
    valid = example.get("valid_len")
    ex["valid_len"] = n if valid is None else _valid_len(valid, n, "example['valid_len']", fn)
    w, s, m = ex["weights"], ex["scores"], ex["valid_len"]
    if (w < 0).any():
        raise ValueError(f"{fn}: example['weights'] must be nonnegative; got {w.tolist()}")
    if (w[m:] != 0).any():
        j = m + int(np.flatnonzero(w[m:])[0])
        raise ValueError(
            f"{fn}: example['weights'] of masked keys (from {m} on) must be 0; key {j} has "
            f"{w[j]:.4g}"
        )
    total = w.sum()
    if abs(total - (1.0 if m else 0.0)) > 1e-4:
        raise ValueError(
            f"{fn}: example['weights'] must sum to 1 over the valid keys; they sum to {total:.2f}"
        )
    want = np.zeros(n)
    if m:
        e = np.exp(s[:m] - s[:m].max())
        want[:m] = e / e.sum()
    if np.abs(w - want).max() > 1e-4:
        raise ValueError(
            f"{fn}: example['weights'] {np.round(w, 4).tolist()} are not the softmax of the "
            f"scores over the valid keys {np.round(want, 4).tolist()}"
        )
    if np.abs(w @ ex["values"] - ex["output"]).max() > 1e-4:
        raise ValueError(
            f"{fn}: example['output'] {ex['output'].tolist()} is not the weighted average of "
            f"the values, sum_i weights_i values_i = {(w @ ex['values']).tolist()}"
        )
    return ex
