"""Chapter 1, queries, keys and values: its explorers.

- :func:`soft_lookup_explorer`: the reader drags the query; the output moves inside the
  values' convex hull (computed in the page, :class:`attnlib.widgets.live.LiveAttention`).
- :func:`softmax_temperature_explorer`: softmax(scores / T), from one-hot to uniform.

The chapter's checker, :func:`~scoringbook.ch01_exercises.check_weights`, is in
:mod:`scoringbook.ch01_exercises`.

Each explorer has a ``*_declaration`` (cheap, computes no frame) and a ``*_explorer``
(the anywidget), both seeded with a local :class:`torch.Generator`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from attnlib.attention import attention_pool
from attnlib.domains import declare
from attnlib.masking import masked_softmax
from attnlib.scoring import dot_product_scores, gaussian_scores
from attnlib.widgets import (
    Choice,
    Declaration,
    Explorer,
    FixedSeries,
    Handle,
    Heatmap,
    Lines,
    Preset,
    Series,
    Slider,
    Spokes,
)
from attnlib.widgets.live import LiveAttention
from scoringbook._common import (
    COUNT,
    SEED,
    _count,
    _generator,
    _log_grid,
    _nearest,
    _np,
    _query_sliders,
    _read_out,
    _seed,
)

#: the builders' arguments, declared once for the declaration and its explorer
TEMPERATURE_ARGS = dict(seed=SEED, n_queries=COUNT, n_keys=COUNT, n_temperatures=COUNT)
LOOKUP_ARGS = dict(seed=SEED, n_keys=COUNT)

__all__ = [
    "soft_lookup_explorer",
    "soft_lookup_declaration",
    "softmax_temperature_explorer",
    "softmax_temperature_declaration",
]


@declare(**TEMPERATURE_ARGS)
def softmax_temperature_declaration(
    *, seed: int = 0, n_queries: int = 4, n_keys: int = 8, n_temperatures: int = 41
) -> Declaration:
    """Declaration of :func:`softmax_temperature_explorer` (no frame computed)."""
    fn = "softmax_temperature_declaration"
    seed = _seed(seed, fn)
    n_queries, n_keys = _count(n_queries, "n_queries", fn), _count(n_keys, "n_keys", fn)
    n_temperatures = _count(n_temperatures, "n_temperatures", fn)
    scores = 2.0 * torch.randn(
        1, n_queries, n_keys, generator=_generator(seed)
    )  # (1, n_queries, n_keys)
    temperatures = _log_grid(0.05, 20.0, n_temperatures, "n_temperatures", fn)
    keys = np.arange(n_keys, dtype=np.float64)
    top = int(torch.argmax(scores[0, 0]))

    def update(temperature: float) -> dict[str, Any]:
        weights = masked_softmax(scores / temperature)[0]  # (n_queries, n_keys)
        return {"weights": _np(weights), "query_0": {"query 0": _np(weights[0])}}

    one_hot = np.zeros(n_keys)
    one_hot[top] = 1.0
    # the third preset, from the frame it sets: query 0 (the line panel, the outlined row)
    # still gives its second-best key a visible share, while the surest other row is already
    # nearly one-hot
    split_t = _nearest(temperatures, 0.193)
    split = update(split_t)["weights"]  # (n_queries, n_keys)
    first, second = np.argsort(-split[0], kind="stable")[:2]
    sure = 1 + int(np.argmax(split[1:].max(axis=1)))
    split_notice = (
        f"Notice: query 0 (the stems, the outlined row) still gives key {second} "
        f"{split[0, second]:.2f} of its weight, next to key {first}'s {split[0, first]:.2f}: "
        f"their scores are close ({scores[0, 0, second]:.2f} and {scores[0, 0, first]:.2f}); "
        f"query {sure}'s row is already nearly one-hot on key {int(np.argmax(split[sure]))} "
        f"({split[sure].max():.2f})."
    )
    return Declaration(
        name="softmax_temperature",
        update=update,
        params=[
            Slider(
                "temperature",
                temperatures,
                label="temperature",
                value_labels=[f"T = {_read_out(t)}" for t in temperatures],
                default=min(temperatures, key=lambda t: abs(t - 1.0)),
            )
        ],
        panels=[
            Heatmap(
                "weights",
                xlabel="keys",
                ylabel="queries",
                rows_sum_to_one=True,
                title="softmax(scores / T)",
            ),
            Lines(
                "query_0",
                x=keys,
                series=[Series("query 0", style="bars")],  # one stem per key: keys are discrete
                discrete_x=True,  # a tick labelled at every key (the notices cite key 5)
                xlabel="key",
                ylabel="weight",
                title="weights of query 0",
                ylim=(0.0, 1.05),
                fixed=[
                    FixedSeries(
                        "uniform (T → ∞)",
                        keys,
                        np.full(n_keys, 1.0 / n_keys),
                        dash="5 4",
                        color="#999999",
                    ),
                    FixedSeries("one-hot (T → 0)", keys, one_hot, style="points", color="#000000"),
                ],
            ),
        ],
        title="Softmax temperature: from a hard lookup (T → 0) to average pooling (T → ∞)",
        presets=[
            Preset(
                "T = 0.05: a hard lookup",
                "Notice: each row collapses onto its largest score, one strong cell per row, "
                "and query 0's stems reach the one-hot points.",
                {"temperature": _nearest(temperatures, 0.05)},
            ),
            Preset(
                "T = 20: nearly average pooling",
                "Notice: every row evens out to nearly one colour, close to 1/8 per key; query "
                "0's stems even out towards the dashed uniform line.",
                {"temperature": _nearest(temperatures, 20.0)},
            ),
            Preset(
                f"T = {_read_out(split_t)}: query 0 against query {sure}",
                split_notice,
                {"temperature": split_t},
            ),
            Preset(
                "T = 1: the order stays",
                "Notice: move T either way; the order of the weights within a row never "
                "changes, T only sharpens or flattens it.",
                {"temperature": _nearest(temperatures, 1.0)},
            ),
        ],
        meta={"scores": scores},
    )


@declare(**TEMPERATURE_ARGS)
def softmax_temperature_explorer(**kwargs: Any) -> Explorer:
    """Softmax of fixed scores at temperature T (chapter 1, queries, keys and values).

    Fixed seeded scores for 4 queries × 8 keys; the slider sets the temperature ``T`` on a
    log grid from 0.05 to 20 (41 values). The heatmap shows
    ``masked_softmax(scores / T)`` (queries are rows); the line panel shows query 0's
    weights. As ``T → 0`` every row becomes one-hot on its largest score (a database
    lookup); as ``T → ∞`` every row becomes uniform, ``1 / n_keys`` (average pooling).

    Keyword args (optional): ``seed``, ``n_queries``, ``n_keys``, ``n_temperatures``.
    """
    return Explorer(softmax_temperature_declaration(**kwargs))


@declare(**LOOKUP_ARGS)
def soft_lookup_declaration(*, seed: int = 0, n_keys: int = 7) -> Declaration:
    """Declaration of :func:`soft_lookup_explorer` (the page computes its frames)."""
    fn = "soft_lookup_declaration"
    seed, n_keys = _seed(seed, fn), _count(n_keys, "n_keys", fn)
    g = _generator(seed)
    keys = 3.6 * torch.rand(n_keys, 2, generator=g, dtype=torch.float64) - 1.8  # (n_keys, 2)
    # values on a circle, in a shuffled order: every value is a corner of their convex hull
    angles = (
        2
        * math.pi
        * (
            torch.arange(n_keys, dtype=torch.float64)
            + 0.3 * torch.rand(n_keys, generator=g, dtype=torch.float64)
        )
        / n_keys
    )
    order = torch.randperm(n_keys, generator=g)
    values = 1.6 * torch.stack([torch.cos(angles), torch.sin(angles)], dim=1)[order]  # (n_keys, 2)
    hull = values[
        torch.argsort(torch.atan2(values[:, 1], values[:, 0]))
    ]  # (n_keys, 2): corners in turn
    hull = torch.cat([hull, hull[:1]])  # (n_keys + 1, 2): closed
    temperatures = [0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 1000]
    names = [str(j) for j in range(n_keys)]

    def update(score: str, temperature: float, query_x: float, query_y: float) -> dict[str, Any]:
        q = torch.tensor([[[query_x, query_y]]], dtype=torch.float64)  # (1, 1, 2)
        k = keys[None]  # (1, n_keys, 2)
        s = (
            gaussian_scores(q, k) if score == "gaussian" else dot_product_scores(q, k)
        )  # (1, 1, n_keys)
        out, w = attention_pool(s / temperature, values[None])  # (1, 1, 2), (1, 1, n_keys)
        return {
            "weights": _np(w[0]),
            "keys": {},
            "values": {"output": _np(out[0].T)},
        }  # output (2, 1)

    kv = _np(keys)
    vv = _np(values)
    return Declaration(
        name="soft_lookup",
        update=update,
        params=[
            Choice(
                "score",
                ["gaussian", "scaled_dot"],
                label="scoring function",
                option_labels=[
                    "Gaussian: -|q - k|\u00b2 / 2",
                    "scaled dot product: q\u00b7k / \u221a2",
                ],
            ),
            Slider(
                "temperature",
                temperatures,
                label="temperature",
                default=1,
                value_labels=[f"T = {t:g}" for t in temperatures],
            ),
            *_query_sliders(0.5, -0.5),
        ],
        # the dragged query and the output it moves side by side (one row on a wide screen,
        # one above the other on a phone), the weights under them
        panels=[
            Lines(
                "keys",
                xlabel="feature 1",
                ylabel="feature 2",
                title="drag the query among the keys",
                fixed=[
                    FixedSeries(
                        "keys", kv[:, 0], kv[:, 1], style="points", color="#0072B2", labels=names
                    )
                ],
                xlim=(-2.6, 2.6),
                ylim=(-2.6, 2.6),
                equal_aspect=True,
                handle=Handle("query_x", "query_y", label="query"),
                spokes=Spokes("keys", "weights"),
            ),
            Lines(
                "values",
                series=[Series("output", style="points", xy=True, color="#D55E00")],
                xlabel="value 1",
                ylabel="value 2",
                title="output: weighted average",  # one line at 390 px
                fixed=[
                    FixedSeries(
                        "convex hull of the values",
                        _np(hull[:, 0]),
                        _np(hull[:, 1]),
                        dash="4 3",
                        color="#888888",
                    ),
                    FixedSeries(
                        "values", vv[:, 0], vv[:, 1], style="points", color="#009E73", labels=names
                    ),
                ],
                xlim=(-2, 2),
                ylim=(-2, 2),
                equal_aspect=True,
            ),
            Heatmap(
                "weights",
                xlabel="keys",
                ylabel="query",
                rows_sum_to_one=True,
                title="attention weights",
            ),
        ],
        # two lines beside Reset on a 390 px phone (three made the explorer 1.19 windows tall)
        title="Soft lookup: the output stays in the values' convex hull",
        presets=[
            Preset(
                "Start: Gaussian, T = 1",
                "Notice: the nearest key, 4, gets the most weight, and the output sits inside "
                "the hull.",
                {"score": "gaussian", "temperature": 1, "query_x": 0.5, "query_y": -0.5},
            ),
            Preset(
                "T = 0.02: an exact lookup",
                "Notice: the row is one-hot on the nearest key and the output is its value, a "
                "corner of the hull; drag the query and the output hops from corner to corner.",
                {"temperature": 0.02},
            ),
            Preset(
                "T = 1000: average pooling",
                "Notice: every weight is 1/7 and the output stays at the centroid of the "
                "values, wherever the query goes.",
                {"temperature": 1000},
            ),
            Preset(
                "Between keys 4 and 5",
                "Notice: keys 4 and 5 share the weight, and the output lies on the hull's edge "
                "between values 4 and 5.",
                {"score": "gaussian", "temperature": 0.2, "query_x": 0.05, "query_y": -0.95},
            ),
            Preset(
                "On key 6, Gaussian",
                "Notice: the Gaussian score gives the nearest key, 6, all the weight.",
                {"score": "gaussian", "temperature": 0.05, "query_x": -0.5, "query_y": 0.45},
            ),
            Preset(
                "On key 6, dot product",
                "Notice: now key 1 takes almost all the weight: the dot product rewards keys "
                "that are long and point the query's way, not keys that are near.",
                {"score": "scaled_dot", "temperature": 0.05, "query_x": -0.5, "query_y": 0.45},
            ),
        ],
        live=LiveAttention(
            keys=kv,
            values=vv,
            query=("query_x", "query_y"),
            weights="weights",
            output=("values", "output"),
            score=None,
            score_param="score",
            temperature="temperature",
        ),
        meta={"keys": keys, "values": values},
    )


@declare(**LOOKUP_ARGS)
def soft_lookup_explorer(**kwargs: Any) -> Explorer:
    """Attention as a soft lookup (chapter 1): the reader drags the query.

    Seven seeded keys in the plane and seven 2-D values on a circle (all corners of their
    convex hull). The query is a point the reader drags (or moves with the arrow keys, or
    with its two sliders); the weights show as lines from the query to each key, with
    opacity equal to the weight, and as a heatmap row; the output, the weighted average of
    the values, moves inside their convex hull. Low temperature: one-hot, the output sits
    on a corner; high temperature: uniform, the output sits at the centroid. The page
    computes each frame itself (:mod:`attnlib.widgets.live`); :func:`scoringbook.compute`
    gives attnlib's.

    Keyword args (optional): ``seed``, ``n_keys``.
    """
    return Explorer(soft_lookup_declaration(**kwargs))
