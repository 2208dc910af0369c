"""Chapter 5, scaled dot-product attention: its explorers (and its checker).

- :func:`scaling_explorer`: why the dot product is divided by sqrt(d).
- :func:`scoring_comparison_explorer`: one dragged query, every live scoring function (computed
  in the page, :class:`attnlib.widgets.live.LiveAttention` with ``compare``).
- :func:`check_scores` (from chapter 4) is re-exported: the chapter's exercises use it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch

from attnlib.domains import declare
from attnlib.masking import masked_softmax
from attnlib.scoring import dot_product_scores
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
    COUNT,
    POSITIVE,
    SEED,
    SIZES,
    _compare_panels,
    _count,
    _distinct_presets,
    _generator,
    _ints,
    _np,
    _query_sliders,
    _real,
    _seed,
)
from scoringbook.ch04_additive_attention import check_scores

#: the builders' arguments, declared once for the declaration and its explorer
SCALING_ARGS = dict(
    seed=SEED,
    n_samples=COUNT,
    n_queries=COUNT,
    n_keys=COUNT,
    dims=SIZES,
    limit=POSITIVE,
    n_bins=COUNT,
)
COMPARISON_ARGS = dict(seed=SEED, num_hiddens=COUNT)

__all__ = [
    "scaling_explorer",
    "scaling_declaration",
    "scoring_comparison_explorer",
    "scoring_comparison_declaration",
    "check_scores",
    "SCORING_ROWS",
    "COSINE_TEMPERATURE",
]


@declare(**SCALING_ARGS)
def scaling_declaration(
    *,
    seed: int = 0,
    n_samples: int = 200,
    n_queries: int = 4,
    n_keys: int = 8,
    dims: tuple[int, ...] = (2, 4, 8, 16, 32, 64, 128, 256, 512),
    limit: float = 12.0,
    n_bins: int = 48,
) -> Declaration:
    """Declaration of :func:`scaling_explorer` (no frame computed)."""
    fn = "scaling_declaration"
    seed, n_samples = _seed(seed, fn), _count(n_samples, "n_samples", fn)
    n_queries, n_keys = _count(n_queries, "n_queries", fn), _count(n_keys, "n_keys", fn)
    if n_samples < max(n_queries, n_keys):
        raise ValueError(
            f"{fn}: n_samples must be >= n_queries and n_keys (the heatmaps show n_queries x "
            f"n_keys of the sampled pairs); got n_samples={n_samples}, n_queries={n_queries}, "
            f"n_keys={n_keys}"
        )
    dims = _ints(dims, "dims", fn)
    limit = _real(limit, "limit", fn, min=0.0, min_open=True)
    n_bins = _count(n_bins, "n_bins", fn)
    edges = np.linspace(-limit, limit, n_bins + 1)
    step_x = np.repeat(edges, 2)[1:-1]  # (2 * n_bins,) edges doubled for step lines
    normal = np.exp(-(edges**2) / 2) / math.sqrt(2 * math.pi)

    def data(d: int):
        g = _generator(seed * 100_003 + d)
        q = torch.randn(1, n_samples, d, generator=g)  # (1, n_samples, d)
        k = torch.randn(1, n_samples, d, generator=g)  # (1, n_samples, d)
        return q, k

    def density(v: np.ndarray) -> np.ndarray:
        counts, _ = np.histogram(v, bins=edges)
        return np.repeat(counts / (v.size * (edges[1] - edges[0])), 2)  # (2 * n_bins,)

    def update(d: int) -> dict[str, Any]:
        q, k = data(d)
        scaled = dot_product_scores(q, k)  # (1, n_samples, n_samples): q·k/√d
        raw = torch.bmm(q, k.transpose(1, 2))  # (1, n_samples, n_samples): q·k
        w_raw = masked_softmax(raw[:, :n_queries, :n_keys])  # (1, n_queries, n_keys)
        w_scaled = masked_softmax(scaled[:, :n_queries, :n_keys])  # (1, n_queries, n_keys)
        return {
            "spread": {"q·k": density(_np(raw).ravel()), "q·k/√d": density(_np(scaled).ravel())},
            "unscaled": _np(w_raw[0]),
            "scaled": _np(w_scaled[0]),
        }

    return Declaration(
        name="scaling",
        update=update,
        params=[
            Slider(
                "d",
                list(dims),
                label="feature size",
                value_labels=[f"d = {d}" for d in dims],
                default=dims[len(dims) // 2],
            )
        ],
        # the two maps to compare side by side (one row at 688 px), the scores under them
        panels=[
            Heatmap(
                "unscaled",
                xlabel="keys",
                ylabel="queries",
                rows_sum_to_one=True,
                title="softmax(q·k)",
            ),
            Heatmap(
                "scaled",
                xlabel="keys",
                ylabel="queries",
                rows_sum_to_one=True,
                title="softmax(q·k/√d)",
            ),
            Lines(
                "spread",
                x=step_x,
                series=[Series("q·k", color="#D55E00"), Series("q·k/√d", color="#0072B2")],
                xlabel=f"score (tails beyond ±{limit:g} not shown)",
                ylabel="density",
                title=f"scores of {n_samples}×{n_samples} pairs",
                fixed=[FixedSeries("N(0, 1)", edges, normal, dash="4 3", color="#777777")],
            ),
        ],
        title="Scaled dot-product attention: why divide by √d",
        presets=_distinct_presets(
            Preset(
                f"d = {min(dims)}",
                "Notice: the two curves differ only mildly, and so do the two heatmaps.",
                {"d": min(dims)},
            ),
            Preset(
                f"d = {dims[len(dims) // 2]}",
                "Notice: the q·k curve has flattened and widened (its spread is √d); the scaled "
                "one keeps its width on the dashed N(0, 1).",
                {"d": dims[len(dims) // 2]},
            ),
            Preset(
                f"d = {max(dims)}: one-hot rows",
                "Notice: each row of softmax(q·k) is a single strong cell; softmax(q·k/√d) "
                "keeps several shades in every row.",
                {"d": max(dims)},
            ),
            Preset(
                f"d = {max(dims)}: the same winners",
                "Notice: in every row the same key wins in both maps; dividing by √d keeps the "
                "ranking and only changes how decisively the softmax picks.",
                {"d": max(dims)},
            ),
        ),
        meta={"data": data, "edges": edges},
    )


@declare(**SCALING_ARGS)
def scaling_explorer(**kwargs: Any) -> Explorer:
    """Why scaled dot-product attention divides by sqrt(d) (chapter 5).

    Seeded queries and keys with independent unit-variance entries; the slider sets the
    feature size ``d`` (2, 4, ..., 512). The line panel shows the distribution (density
    histogram, step lines) of the dot products ``q·k``, whose variance is about ``d``, and
    of ``q·k/√d`` (:func:`attnlib.dot_product_scores`), which stays close to N(0, 1). The
    heatmaps show softmax weights of 4 queries × 8 keys without and with the scaling:
    unscaled, the rows turn one-hot as ``d`` grows (a saturated softmax, tiny gradients);
    scaled, they do not.

    Keyword args (optional): ``seed``, ``n_samples``, ``n_queries``, ``n_keys``, ``dims``,
    ``limit``, ``n_bins``.
    """
    return Explorer(scaling_declaration(**kwargs))


#: The comparison's rows: every scoring function the page computes, in the registry's order.
SCORING_ROWS = list(LIVE_SCORES)
#: The temperature of the comparison's cosine row: scores in [-4, 4], as sharp as the others.
COSINE_TEMPERATURE = 0.25


def _row_labels(score_kwargs: dict) -> list[str]:
    """Each row's label from the registry, with the comparison's arguments and d = 2."""
    return [LIVE_SCORES[n].row_label(score_kwargs[n], d=2) for n in SCORING_ROWS]


#: How the origin preset's notice names each row of the comparison.
ROW_WORDS = {
    "dot": "dot-product",
    "scaled_dot": "scaled dot-product",
    "gaussian": "Gaussian",
    "additive": "additive",
    "cosine": "cosine",
    "general": "general",
    "laplace": "Laplace",
}


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _origin_notice(weights: np.ndarray, keys: np.ndarray) -> str:
    """The origin preset's notice, read off its frame ``weights`` (n_rows, n_keys): which
    rows are uniform, which are not, and which of those give the farthest key the least."""
    w = np.asarray(weights, dtype=np.float64)
    flat = [n for n, row in zip(SCORING_ROWS, w) if np.ptp(row) < 1e-9]
    other = [n for n in SCORING_ROWS if n not in flat]
    far = int(np.argmax(np.linalg.norm(keys, axis=1)))
    least = [n for n in other if int(np.argmin(w[SCORING_ROWS.index(n)])) == far]
    words = [ROW_WORDS[n] for n in flat]
    text = f"Notice: the query is 0, so every dot product is 0: the {_and(words)} rows are "
    text += "uniform"
    if "cosine" in flat:
        text += (
            " (a zero query has no direction: its cosine is 0/0, which attnlib and the page"
            " take as 0)"
        )
    if other:
        text += f"; the {_and([ROW_WORDS[n] for n in other])} rows are not"
    if least:
        names = _and([ROW_WORDS[n] for n in least])
        text += f", and the {names} rows give the farthest key, {far}, the least"
    return text + "."


@declare(**COMPARISON_ARGS)
def scoring_comparison_declaration(*, seed: int = 0, num_hiddens: int = 8) -> Declaration:
    """Declaration of :func:`scoring_comparison_explorer` (computed in the browser)."""
    fn = "scoring_comparison_declaration"
    seed, num_hiddens = _seed(seed, fn), _count(num_hiddens, "num_hiddens", fn)
    angles = (
        torch.tensor([20.0, 95.0, 160.0, 230.0, 300.0, 50.0], dtype=torch.float64) * math.pi / 180
    )
    radii = torch.tensor([1.2, 1.2, 1.2, 1.2, 1.2, 2.6], dtype=torch.float64)  # key 5 is long
    keys = radii[:, None] * torch.stack([torch.cos(angles), torch.sin(angles)], dim=1)  # (6, 2)
    g = _generator(seed)
    W_q = torch.randn(num_hiddens, 2, generator=g, dtype=torch.float64)  # (h, 2)
    W_k = torch.randn(num_hiddens, 2, generator=g, dtype=torch.float64)  # (h, 2)
    w_v = torch.randn(num_hiddens, generator=g, dtype=torch.float64)  # (h,)
    W = torch.randn(2, 2, generator=g, dtype=torch.float64)  # (2, 2): general, drawn last
    kv = _np(keys)
    live = LiveAttention(
        keys=kv,
        values=kv,
        query=("query_x", "query_y"),
        weights="weights",
        compare=tuple(SCORING_ROWS),
        score=None,
        score_kwargs={
            "additive": {"W_q": W_q, "W_k": W_k, "w_v": w_v},
            "cosine": {"temperature": COSINE_TEMPERATURE},
            "general": {"M": W},  # q^T W k
        },
    )

    def update(query_x: float, query_y: float) -> dict[str, Any]:
        q = torch.tensor([[[query_x, query_y]]], dtype=torch.float64)  # (1, 1, 2)
        k = keys[None]  # (1, 6, 2)
        rows = [  # each (1, 1, 6): attnlib's function, the registry's reference
            LIVE_SCORES[n].scores(q, k, live.score_kwargs[n]) for n in SCORING_ROWS
        ]
        w = masked_softmax(torch.cat(rows, dim=1))  # (1, n_rows, 6): one row per function
        return {"weights": _np(w[0]), "keys": {}}

    kv = _np(keys)
    return Declaration(
        name="scoring_comparison",
        update=update,
        params=_query_sliders(0.8, 0.1),  # near key 0 (not on it), with key 5 in reach
        panels=_compare_panels(
            plane="keys",
            title="drag the query",
            radius=1.2,
            circle="circle of radius 1.2",
            points=[
                FixedSeries(
                    "keys",
                    kv[:, 0],
                    kv[:, 1],
                    style="points",
                    color="#0072B2",
                    labels=[str(j) for j in range(len(kv))],
                )
            ],
            lim=2.8,
            handle=Handle("query_x", "query_y", label="query"),
            rows=SCORING_ROWS,
            score_kwargs=live.score_kwargs,
            ylabel="scoring functions",
        ),
        title="One query, many scoring functions: where they agree and where they part",
        presets=[
            Preset(
                "Start: near key 0",
                "Notice: the dot product favours the long key 5 though key 0 is nearer; the "
                "Gaussian charges key 5 for its length.",
                {"query_x": 0.8, "query_y": 0.1},
            ),
            Preset(
                "Next to key 2",
                "Notice: the dot-product and Gaussian rows now nearly match; only key 5's "
                "share tells them apart.",
                {"query_x": -1.15, "query_y": 0.4},
            ),
            Preset(
                "At the origin",
                _origin_notice(update(0.0, 0.0)["weights"], _np(keys)),
                {"query_x": 0.0, "query_y": 0.0},
            ),
            Preset(
                "Far towards key 5",
                "Notice: the first three rows all pick key 5; the untrained additive row still "
                "spreads its weight.",
                {"query_x": 2.5, "query_y": 2.5},
            ),
        ],
        live=live,
        meta={"keys": keys, "W_q": W_q, "W_k": W_k, "w_v": w_v, "W": W},
    )


@declare(**COMPARISON_ARGS)
def scoring_comparison_explorer(**kwargs: Any) -> Explorer:
    """Every live scoring function side by side (chapter 5): the reader drags one query.

    Six keys: five on a circle of radius 1.2 and one long key (5, radius 2.6). Each row of
    the heatmap is the softmax of one scoring function of
    :data:`attnlib.widgets.live_scores.LIVE_SCORES` (:data:`SCORING_ROWS`) for the same
    query: among them the dot product q.k, the scaled dot product q.k/sqrt(2), the Gaussian
    -|q - k|^2/2, additive attention w_v.tanh(W_q q + W_k k) with fixed seeded weights (8
    hidden units), the cosine similarity cos(q, k)/0.25 (the long key gains nothing from its
    length) and Luong's general q^T W k with a fixed seeded W (2 x 2). Computed in the page
    (:mod:`attnlib.widgets.live`); :func:`scoringbook.compute` gives attnlib's numbers.

    Keyword args (optional): ``seed``, ``num_hiddens``.
    """
    return Explorer(scoring_comparison_declaration(**kwargs))
