"""Chapter 6, the family of scoring functions: its two explorers.

- :func:`long_key_explorer`: the reader drags one key (its length and its direction) against a
  fixed query and watches the weights of the dot product, the scaled dot product and cosine
  similarity side by side (computed in the page, :class:`attnlib.widgets.live.LiveAttention`
  with ``moving_key``).
- :func:`scaling_d_explorer`: a slider for the feature size ``d``; one row of random scores
  softmaxed under the factors 1, 1/sqrt(d) and 1/d, and the rows' mean entropy against d.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from attnlib.domains import Int, Real, Seed, Seq, declare
from attnlib.masking import masked_softmax
from attnlib.widgets import (
    Declaration,
    Explorer,
    FixedSeries,
    Handle,
    Heatmap,
    Lines,
    Preset,
    Series,
    Slider,
)
from attnlib.widgets.live import LiveAttention
from attnlib.widgets.live_scores import LIVE_SCORES
from scoringbook._common import (
    _compare_panels,
    _count,
    _distinct_presets,
    _generator,
    _ints,
    _np,
    _real,
    _seed,
)
from scoringbook.ch06_scoring_family import SCALINGS, row_entropy

__all__ = [
    "D_TICKS",
    "LONG_KEY_ROWS",
    "long_key_declaration",
    "long_key_explorer",
    "scaling_d_declaration",
    "scaling_d_explorer",
]

#: The long-key explorer's rows: the three scoring functions it compares.
LONG_KEY_ROWS = ("dot", "scaled_dot", "cosine")
_GRID = [round(-3.0 + 0.05 * i, 2) for i in range(121)]  # a dragged key's x and y
_LONG_KEY = dict(temperature=Real(gt=0, le=100), radius=Real(gt=0, le=2.5))
_SCALING_D = dict(
    seed=Seed(),
    n_keys=Int(ge=2, le=4096),
    n_rows=Int(ge=1, le=100_000),
    dims=Seq(Int(ge=1, le=65_536), min_len=1, max_len=64),
)


@declare(**_LONG_KEY)
def long_key_declaration(*, temperature: float = 0.25, radius: float = 1.2) -> Declaration:
    """Declaration of :func:`long_key_explorer` (computed in the browser)."""
    fn = "long_key_declaration"
    temperature = _real(temperature, "temperature", fn, min=0.0, min_open=True)
    radius = _real(radius, "radius", fn, min=0.0, min_open=True)
    query = (2.0, 0.0)  # beyond key 0 on its line: both visible, apart
    angles = torch.tensor([0.0, 53.0, 140.0, 250.0], dtype=torch.float64) * math.pi / 180
    keys = radius * torch.stack([torch.cos(angles), torch.sin(angles)], dim=1)  # (4, 2)
    start = (round(float(keys[1, 0]) * 20) / 20, round(float(keys[1, 1]) * 20) / 20)
    kv = _np(keys)
    live = LiveAttention(
        keys=kv,
        values=kv,
        query=query,
        weights="weights",
        compare=LONG_KEY_ROWS,
        score=None,
        score_kwargs={"cosine": {"temperature": temperature}},
        moving_key=(1, "key_x", "key_y"),
    )

    def update(key_x: float, key_y: float) -> dict[str, Any]:
        q = torch.tensor([[query]], dtype=torch.float64)  # (1, 1, 2)
        k = keys.clone()
        k[1] = torch.tensor([key_x, key_y], dtype=torch.float64)
        rows = [LIVE_SCORES[n].scores(q, k[None], live.score_kwargs[n]) for n in LONG_KEY_ROWS]
        w = masked_softmax(torch.cat(rows, dim=1))  # (1, 3, 4): one row per scoring function
        return {"weights": _np(w[0]), "plane": {}}

    others = [0, 2, 3]
    return Declaration(
        name="long_key",
        update=update,
        params=[
            Slider(
                f"key_{axis}",
                _GRID,
                label=f"key 1's {axis}",
                default=v,
                value_labels=[f"{g:.2f}" for g in _GRID],
            )
            for axis, v in (("x", start[0]), ("y", start[1]))
        ],
        panels=_compare_panels(
            plane="plane",
            title="drag key 1: its length and direction",
            radius=radius,
            circle=f"length {radius:g}",
            points=[
                FixedSeries(
                    "query q",
                    np.array([query[0]]),
                    np.array([query[1]]),
                    style="points",
                    color="#009E73",
                    labels=["q"],
                ),
                FixedSeries(
                    "other keys",
                    kv[others, 0],
                    kv[others, 1],
                    style="points",
                    color="#0072B2",
                    labels=[str(j) for j in others],
                ),
            ],
            lim=3.0,
            handle=Handle("key_x", "key_y", label="key 1"),
            rows=LONG_KEY_ROWS,
            score_kwargs=live.score_kwargs,
            ylabel="scoring function",
        ),
        title="Drag a key: does its length buy it weight?",
        presets=[
            Preset(
                "Start: all keys as long",
                "Notice: every row puts the most weight on key 0, the key that points the "
                "query's way.",
                {"key_x": start[0], "key_y": start[1]},
            ),
            Preset(
                "Key 1 twice as long",
                "Notice: both dot-product rows now favour key 1 over key 0; the cosine row has "
                "not changed at all.",
                {"key_x": 1.4, "key_y": 1.9},
            ),
            Preset(
                "Key 1 short, on the query's line",
                "Notice: cosine splits its weight evenly between keys 0 and 1 (same direction); "
                "the dot products prefer the longer key 0.",
                {"key_x": 0.3, "key_y": 0.0},
            ),
            Preset(
                "Key 1 long, opposite the query",
                "Notice: pointing away, length hurts: the dot products give key 1 almost "
                "nothing, and cosine gives it as little at any length on that side.",
                {"key_x": -2.5, "key_y": 0.0},
            ),
        ],
        live=live,
        meta={"query": query, "keys": keys},
    )


@declare(**_LONG_KEY)
def long_key_explorer(**kwargs: Any) -> Explorer:
    """A long key against cosine similarity (chapter 6): the reader drags key 1.

    A fixed query q = (2, 0) and four keys of length 1.2 (by default) at 0°, 53°, 140° and
    250°; the reader drags key 1 (the sliders "key 1's x" and "key 1's y", -3 to 3 in steps of
    0.05, or the point itself). Three rows of weights: the softmax over the keys of the dot
    product q·k, the scaled dot product q·k/√2 and cosine similarity cos(q, k)/T (T = 0.25 by
    default), each from :data:`attnlib.widgets.live_scores.LIVE_SCORES`. Computed in the page;
    :func:`scoringbook.compute` gives attnlib's numbers.

    Keyword args (optional): ``temperature`` (> 0), ``radius`` (the fixed keys' length,
    0 < radius <= 2.5).
    """
    return Explorer(long_key_declaration(**kwargs))


@declare(**_SCALING_D)
def scaling_d_declaration(
    *,
    seed: int = 0,
    n_keys: int = 16,
    n_rows: int = 400,
    dims: tuple[int, ...] = (2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048),
) -> Declaration:
    """Declaration of :func:`scaling_d_explorer` (no frame computed)."""
    fn = "scaling_d_declaration"
    seed = _seed(seed, fn)
    n_keys, n_rows = _count(n_keys, "n_keys", fn), _count(n_rows, "n_rows", fn)
    dims = _ints(dims, "dims", fn)
    if list(dims) != sorted(set(dims)):
        raise ValueError(f"{fn}: dims must be increasing and distinct; got {dims!r}")
    entropy = row_entropy(dims, n_keys=n_keys, n_rows=n_rows, seed=seed)  # {scaling: [per d]}
    x = np.log2(np.asarray(dims, dtype=np.float64))  # (n_dims,): the axis is log2 d
    names = list(SCALINGS)
    colours = {"1": "#D55E00", "1/√d": "#0072B2", "1/d": "#009E73"}

    def update(d: int) -> dict[str, Any]:
        g = _generator(seed * 100_003 + d)
        q = torch.randn(1, 1, d, generator=g, dtype=torch.float64)  # (1, 1, d)
        k = torch.randn(1, n_keys, d, generator=g, dtype=torch.float64)  # (1, n_keys, d)
        s = torch.bmm(q, k.transpose(1, 2))  # (1, 1, n_keys): q·k
        rows = torch.cat([masked_softmax(c(d) * s) for c in SCALINGS.values()], dim=1)
        i = dims.index(d)
        at = np.array([[x[i]] * len(names), [entropy[n][i] for n in names]])  # (2, 3)
        return {"weights": _np(rows[0]), "entropy": {"mean entropy at this d": at}}

    return Declaration(
        name="scaling_d",
        update=update,
        params=[
            Slider(
                "d",
                list(dims),
                label="feature size",
                value_labels=[f"d = {d}" for d in dims],
                default=dims[0],
            )
        ],
        panels=[
            Heatmap(
                "weights",
                xlabel="keys",
                ylabel="scaling",
                rows_sum_to_one=True,
                title=f"one query's weights over {n_keys} keys",
                row_labels=[f"× {n}" for n in names],
                read_row=names.index("1/√d"),  # the scaling the chapter argues for
            ),
            Lines(
                "entropy",
                x=x,
                series=[
                    Series("mean entropy at this d", style="points", xy=True, color="#CC79A7")
                ],
                xlabel="feature size d (log scale)",
                ylabel="row entropy (nats)",
                title=f"mean entropy of {n_rows} rows",
                fixed=[
                    *(
                        FixedSeries(f"× {n}", x, np.asarray(entropy[n]), color=colours[n])
                        for n in names
                    ),
                    FixedSeries(
                        f"uniform row (log {n_keys})",
                        x[[0, -1]],
                        np.full(2, math.log(n_keys)),
                        dash="4 3",
                        color="#777777",
                    ),
                ],
                xlim=(float(x[0]) - 0.5, float(x[-1]) + 0.5),
                # ticked in d, not in log2 d: the d the slider and the prose name
                xticks=[(math.log2(d), f"{d}") for d in _d_ticks(dims)],
                ylim=(0.0, math.log(n_keys) * 1.1),
            ),
        ],
        title="Why √d: the same scores under three scalings",
        presets=_distinct_presets(
            Preset(
                f"d = {dims[0]}",
                "Notice: the three rows differ only mildly, and the three points sit close "
                "together.",
                {"d": dims[0]},
            ),
            Preset(
                f"d = {dims[len(dims) // 2]}",
                "Notice: the × 1 row has narrowed to a few cells; the × 1/d row has paled "
                "towards uniform.",
                {"d": dims[len(dims) // 2]},
            ),
            Preset(
                f"d = {dims[-1]}: the two extremes",
                "Notice: × 1 is one strong cell (entropy near 0), × 1/d is flat (on the dashed "
                "uniform line); × 1/√d keeps its shades.",
                {"d": dims[-1]},
            ),
        ),
        meta={"entropy": entropy, "dims": dims},
    )


#: Where the entropy panel's d axis is ticked (those of ``dims`` it holds): the chapter's
#: d = 16, 128 and 512, the ends, and steps of at least 2 in log2 d, so no labels collide.
D_TICKS = (2, 16, 128, 512, 2048)


def _d_ticks(dims: tuple[int, ...]) -> list[int]:
    """The d to tick: :data:`D_TICKS` among ``dims``, else ``dims``' first and last."""
    ticks = [d for d in dims if d in D_TICKS]
    return ticks if ticks else sorted({dims[0], dims[-1]})


@declare(**_SCALING_D)
def scaling_d_explorer(**kwargs: Any) -> Explorer:
    """Why sqrt(d), and not d or 1 (chapter 6): a slider for the feature size ``d``.

    For each ``d`` of ``dims`` (2 to 2048), one seeded query and ``n_keys`` keys (16) with
    independent standard-normal entries: the heatmap shows the softmax of ``c·q·k`` over the
    keys for ``c`` = 1, 1/sqrt(d) and 1/d (:data:`scoringbook.ch06_scoring_family.SCALINGS`),
    one row each. The line panel shows the mean entropy of such rows (``n_rows`` of them,
    :func:`scoringbook.ch06_scoring_family.row_entropy`) against d on a log2 axis, ticked
    in d (:data:`D_TICKS`), and the current d as three points: falling to 0 (one-hot)
    unscaled, rising to log n_keys (uniform) with 1/d, flat with 1/sqrt(d).

    Keyword args (optional): ``seed``, ``n_keys`` (>= 2), ``n_rows``, ``dims``.
    """
    return Explorer(scaling_d_declaration(**kwargs))
