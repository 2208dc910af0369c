"""The book's pipeline picture: query -> scoring function -> softmax -> weighted sum.

One figure, drawn with the numbers of a small example, so a reader can follow a query
through every stage of attention pooling (d2l §11.1, Fig. 11.1.1 tells the same story in
a schematic; this one is the book's own, with real values):

    scores  a(q, k_i)          one number per key
    weights alpha_i = softmax  nonnegative, summing to 1
    output  sum_i alpha_i v_i  a weighted average of the values

The function only draws: callers compute the numbers with attnlib (see
:func:`pipeline_example`), and the figure shows them rounded to two decimals.

This module holds what the figure shows (the example's numbers and their checks) and
:func:`draw_pipeline`; the two layouts that place the stages (across for a page, down for a
phone) are in :mod:`scoringbook._pipeline_layouts`. Chapter 7's encoder-decoder picture is
:mod:`scoringbook.ch07_diagram`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import torch

from attnlib.domains import Anything, Checked, Choice, Str, as_int, as_str, declare, describe
from scoringbook._pipeline_layouts import pipeline_across, pipeline_down

__all__ = ["draw_pipeline", "pipeline_example"]


@declare(
    scoring=Choice("dot_product", "gaussian", "additive"),
    valid_len=Checked(lambda v, name, fn: _valid_len(v, 4, name, fn), optional=True),
)
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


@declare(
    example=Checked(lambda v, name, fn: _checked_example(v, fn)),
    title=Str(optional=True),
    figsize=Anything("a figure size (width, height): checked by the plotting rules"),
)
def draw_pipeline(example: dict, *, title: str | None = None, figsize=(9.0, 4.3)):
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
    from attnlib.plotting.kit import FIGSIZE, NARROW_WIDTH, drawn_figure

    fn = "draw_pipeline"
    title = as_str(title, "title", fn, optional=True)
    figsize = FIGSIZE(figsize, fn, "figsize", {})
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
            return pipeline_down(ex, title, theme, managed)
        return pipeline_across(ex, title, figsize, theme, managed)

    return drawn_figure(draw)


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
