"""Chapter 1, queries, keys and values: its explorers and its checker.

- :func:`soft_lookup_explorer`: the reader drags the query; the output moves inside the
  values' convex hull (computed in the page, :class:`attnlib.widgets.live.LiveAttention`).
- :func:`softmax_temperature_explorer`: softmax(scores / T), from one-hot to uniform.
- :func:`check_weights`: are these attention weights (rows sum to one over the valid keys,
  nothing past a valid length, the softmax of given scores)? Chapters 4 and 6 use it too.

Each explorer has a ``*_declaration`` (cheap, computes no frame) and a ``*_explorer``
(the anywidget), both seeded with a local :class:`torch.Generator`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
from torch import Tensor

from attnlib._checks import check_valid_lens, fmt_shape
from attnlib.attention import attention_pool
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
from scoringbook._checking import (
    CheckResult,
    _as_input_tensor,
    _fail,
    _first,
    _num,
    _pair,
    _pass,
    checker,
)
from scoringbook._common import (
    _count,
    _generator,
    _log_grid,
    _nearest,
    _np,
    _query_sliders,
    _seed,
)

__all__ = [
    "soft_lookup_explorer",
    "soft_lookup_declaration",
    "softmax_temperature_explorer",
    "softmax_temperature_declaration",
    "check_weights",
]


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
    return Declaration(
        name="softmax_temperature",
        update=update,
        params=[
            Slider(
                "temperature",
                temperatures,
                label="temperature",
                value_labels=[f"T = {t:g}" for t in temperatures],
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
                "and query 0's curve meets the one-hot points.",
                {"temperature": _nearest(temperatures, 0.05)},
            ),
            Preset(
                "T = 20: nearly average pooling",
                "Notice: every row evens out to nearly one colour, close to 1/8 per key; query "
                "0's curve flattens towards the dashed uniform line.",
                {"temperature": _nearest(temperatures, 20.0)},
            ),
            Preset(
                "T ≈ 0.2: query 1 against query 2",
                "Notice: query 2 is already nearly one-hot, while query 1 still splits its "
                "weight between keys 5 and 6, whose scores are close.",
                {"temperature": _nearest(temperatures, 0.193)},
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


# ----------------------------------------------------------------------------- checker


@checker
def check_weights(weights, valid_lens=None, *, scores=None, expected=None) -> CheckResult:
    r"""Check that ``weights`` are attention weights: what softmax over valid keys gives.

    Requirements, checked in this order (the message reports the first that fails, with
    its position and value):

    1. every weight is finite (no NaN, no inf);
    2. every weight is nonnegative;
    3. a row (query) with no valid key is all zeros;
    4. masked keys (``j >= valid_lens``) have weight exactly 0;
    5. each other row sums to 1 over its valid keys (tolerance
       ``max(1e-6, 4 · n_keys · eps(dtype))``);
    6. with ``scores=``: the weights are the (masked) softmax of those scores, i.e. the
       conversion itself is checked, not only the result's form (a uniform row or
       ``|s| / sum |s|`` is valid-looking but wrong, and the message says which slip it is);
    7. with ``expected=``: the weights equal the expected weights (e.g. a module's
       ``.attention_weights``) within ``1e-5``.

    Reference::

        mask = valid_lens_to_mask(valid_lens, n_queries, n_keys)
        ok = (w >= 0).all() and (w[~mask] == 0).all() and
             torch.allclose(w.sum(-1), mask.any(-1).to(w.dtype))

    Args:
        weights: ``(batch, n_queries, n_keys)`` or ``(n_queries, n_keys)``, tensor or array
            (a tensor that requires grad is fine).
        valid_lens: ``None`` (every key valid); for 3-D weights ``(batch,)`` or
            ``(batch, n_queries)``; for 2-D weights an int or ``(n_queries,)``.
        scores: optional scores of the weights' shape that the weights must be the masked
            softmax of (keyword only).
        expected: optional weights of the same shape that the answer must equal (keyword
            only).

    Returns:
        :class:`CheckResult`. Weights of the wrong shape give a failed result (the shape is
        part of the answer); ``valid_lens`` that do not fit the weights raise ValueError.

    Shape legend: ``batch`` sequences, ``n_queries`` queries (rows), ``n_keys`` keys.

    Example::

        >>> check_weights(torch.tensor([[0.5, 0.5, 0.0], [0.2, 0.5, 0.0]]), valid_lens=2)
        Not yet: row 1 sums to 0.70; weights must sum to 1 over the valid keys (keys 0..1)
        >>> bool(check_weights(torch.tensor([[[0.25, 0.75], [1.0, 0.0]]])))
        True
    """
    fn = "check_weights"
    W = _as_input_tensor(weights, "weights", fn)
    if W.is_complex():
        raise TypeError(f"{fn}: weights must be real numbers; got dtype {W.dtype}")
    eps = torch.finfo(W.dtype).eps if W.is_floating_point() else 0.0
    W = W.to(torch.float64)
    two_d = W.dim() == 2
    if two_d:
        W = W.unsqueeze(0)  # (n_queries, n_keys) -> (1, n_queries, n_keys)
    if W.dim() != 3:
        return _fail(
            f"weights must have shape (batch, n_queries, n_keys) or (n_queries, n_keys); "
            f"got shape {fmt_shape(W.shape)}"
        )
    batch, n_queries, n_keys = W.shape
    if W.numel() == 0:
        return _fail(f"weights are empty: shape (batch, n_queries, n_keys) = {fmt_shape(W.shape)}")

    lens = None
    if valid_lens is not None:
        lens = _as_input_tensor(valid_lens, "valid_lens", fn)
        if two_d:
            if lens.dim() == 0:
                lens = lens.reshape(1)  # () -> (1,)
            elif lens.dim() == 1 and lens.shape[0] == n_queries and n_queries != 1:
                lens = lens.unsqueeze(0)  # (n_queries,) -> (1, n_queries)
            elif not (lens.dim() == 1 and lens.shape[0] == 1):
                raise ValueError(
                    f"{fn}: for 2-D weights of shape {fmt_shape(W.shape[1:])}, "
                    f"valid_lens must be an int or have shape ({n_queries},) "
                    f"(n_queries,); got shape {fmt_shape(lens.shape)}"
                )
        lens = check_valid_lens(lens, batch, n_queries, n_keys, fn)
        row_lens = lens.reshape(batch, -1).expand(batch, n_queries)  # (batch, n_queries)
    else:
        row_lens = torch.full((batch, n_queries), n_keys)  # (batch, n_queries)
    keep = torch.arange(n_keys) < row_lens.unsqueeze(-1)  # (batch, n_queries, n_keys)

    def row(b: int, i: int) -> str:
        return f"row {i}" if two_d else f"row {i} of batch {b}"

    def length_note(b: int, i: int) -> str:
        return "" if lens is None else f" (valid length {int(row_lens[b, i])})"

    bad = ~torch.isfinite(W)
    if bad.any():
        b, i, j = _first(bad)
        note = ""
        if int(row_lens[b, i]) == 0:
            note = (
                "; this row has no valid key, so it must be all zeros (a softmax over no "
                "keys divides 0 by 0: set such rows to zero)"
            )
        return _fail(
            f"the weight at {row(b, i)}, key {j} is {_num(W[b, i, j])}; weights must be "
            f"finite{note}"
            + (f" ({int(bad.sum())} entries are not finite)" if bad.sum() > 1 else "")
        )

    neg = W < 0
    if neg.any():
        b, i, j = _first(neg)
        return _fail(
            f"the weight at {row(b, i)}, key {j} is {_num(W[b, i, j])}; weights must be "
            f"nonnegative"
        )

    empty_rows = row_lens == 0  # (batch, n_queries)
    nonzero_empty = empty_rows & (W != 0).any(-1)
    if nonzero_empty.any():
        b, i = _first(nonzero_empty)
        r = W[b, i]
        if torch.allclose(r, torch.full_like(r, 1.0 / n_keys)):
            what = f"are uniform ({_num(1.0 / n_keys)} each)"
        else:
            what = f"sum to {_num(r.sum())}"
        return _fail(
            f"{row(b, i)} has no valid key (valid length 0) but its weights {what}; a "
            f"row with no valid key must be all zeros (a large negative fill followed "
            f"by softmax leaves it uniform: zero it after the softmax)"
        )

    leak = ~keep & (W != 0)
    if leak.any():
        b, i, j = _first(leak)
        return _fail(
            f"the weight at {row(b, i)}, key {j} is {_num(W[b, i, j], 3)} but key {j} is "
            f"masked{length_note(b, i)}; masked weights must be exactly 0"
            + (f" ({int(leak.sum())} masked entries are nonzero)" if leak.sum() > 1 else "")
        )

    tol = max(1e-6, 4 * n_keys * eps)
    sums = W.sum(-1)  # (batch, n_queries)
    off = ~empty_rows & ((sums - 1).abs() > tol)
    if off.any():
        b, i = _first(off)
        got, want = _pair(sums[b, i], 1.0)
        last = int(row_lens[b, i]) - 1
        keys = f" (keys 0..{last})" if lens is not None else ""
        return _fail(
            f"{row(b, i)} sums to {got}; weights must sum to 1 over the valid keys{keys}"
            + (f"; {int(off.sum())} rows are off" if off.sum() > 1 else "")
        )

    def like_weights(x: object, name: str) -> Tensor:
        t = _as_input_tensor(x, name, fn)
        if t.is_complex():
            raise ValueError(f"{fn}: {name} must be real numbers; got dtype {t.dtype}")
        t = t.to(torch.float64)
        t = t.unsqueeze(0) if t.dim() == 2 else t  # (n_queries, n_keys) -> (1, ., .)
        if t.shape != W.shape:
            raise ValueError(
                f"{fn}: {name} must have the weights' shape "
                f"{fmt_shape(W.shape)}; got {fmt_shape(t.shape)}"
            )
        # The reference must be comparable: NaN (or +inf, whose softmax is NaN) would let
        # any answer pass. A score of -inf is fine: its key gets weight 0.
        bad = torch.isnan(t) | (t == math.inf) if name == "scores" else ~torch.isfinite(t)
        if bad.any():
            b, i, j = _first(bad)
            raise ValueError(
                f"{fn}: {name} must be finite numbers"
                + (" (or -inf)" if name == "scores" else "")
                + f" to compare the weights with; got {t[b, i, j].item()} at batch {b}, "
                f"query {i}, key {j}"
            )
        return t

    if scores is not None:
        from attnlib.masking import masked_softmax

        S = like_weights(scores, "scores")
        want = masked_softmax(S, None if lens is None else row_lens)
        result = _compare_to(W, want, row, "the softmax of the scores gives", S, keep)
        if result is not None:
            return result
    if expected is not None:
        E = like_weights(expected, "expected")
        result = _compare_to(W, E, row, "the expected weight there is", None, keep)
        if result is not None:
            return result

    n_rows = batch * n_queries
    n_empty = int(empty_rows.sum())
    parts = [f"all {n_rows} rows are valid attention weights: finite, nonnegative"]
    if lens is not None:
        parts.append("masked keys exactly 0")
    parts.append("each row sums to 1 over its valid keys")
    if n_empty:
        parts.append(f"the {n_empty} row(s) with no valid key are all zeros")
    if scores is not None:
        parts.append("and they are the softmax of the scores")
    if expected is not None:
        parts.append("and they equal the expected weights")
    return _pass(", ".join(parts))


def _compare_to(
    W: Tensor, want: Tensor, row, what: str, S: Tensor | None, keep: Tensor
) -> CheckResult | None:
    """None if W equals want (atol 1e-5), else a failed result naming the first difference
    and, when the scores are known, the slip that explains it."""
    diff = (W - want).abs() > 1e-5
    if not diff.any():
        return None
    b, i, j = _first(diff)
    slip = ""
    if S is not None:
        r, k = W[b, i], keep[b, i]
        s = S[b, i]
        n = int(k.sum())
        if n and torch.allclose(r[k], torch.full((n,), 1.0 / n, dtype=r.dtype), atol=1e-6):
            slip = "; the row is uniform: it ignores the scores"
        elif n and torch.allclose(r[k], s[k].abs() / s[k].abs().sum(), atol=1e-6):
            slip = (
                "; it is |s| / sum |s|: that keeps the form of weights but not their order "
                "(a very negative score gets a large weight). Exponentiate instead"
            )
        elif n and (s[k].sum() != 0) and torch.allclose(r[k], s[k] / s[k].sum(), atol=1e-6):
            slip = "; it is s / sum s, not a softmax"
        elif n and torch.allclose(r[k], s[k].clamp_min(0) / s[k].clamp_min(0).sum(), atol=1e-6):
            slip = "; it clips negative scores to 0 and divides by the sum: not a softmax"
    got_s, want_s = _pair(W[b, i, j], want[b, i, j])  # enough digits to tell them apart
    return _fail(
        f"the weight at {row(b, i)}, key {j} is {got_s} but {what} {want_s}{slip}"
        + (f" ({int(diff.sum())} entries differ)" if diff.sum() > 1 else "")
    )
