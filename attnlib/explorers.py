"""The book's explorers, each declared once with :mod:`attnlib.widgets`.

A precomputed explorer's frames are computed here with attnlib over the whole grid of its
sliders, and the browser only selects and draws them. A live explorer (:mod:`attnlib.live`:
a query the reader drags, sentences the reader types) stores no frame: the page computes
each one with the same rules, and the declaration's update function, written with attnlib,
is the reference the tests compare the page with. Both kinds work in JupyterLab and in the
static book alike. Builders take no required argument and use a local, seeded
:class:`torch.Generator` (never the global seed).

==================================== ======= ============================================
builder                              chapter shows
==================================== ======= ============================================
:func:`soft_lookup_explorer`         1       drag the query; the output inside the hull (live)
:func:`softmax_temperature_explorer` 1       softmax(scores / T): one-hot ... uniform
:func:`kernel_regression_explorer`   2       drag the query x: Nadaraya-Watson weights (live)
:func:`bandwidth_training_explorer`  2       playback of learning the bandwidth
:func:`masking_explorer`             3       masked softmax of typed sentences (live)
:func:`additive_attention_explorer`  4       additive attention weights as a query moves
:func:`scaling_explorer`             5       why scaled dot-product divides by sqrt(d)
:func:`scoring_comparison_explorer`  5       one dragged query, four scoring functions (live)
==================================== ======= ============================================

Chapter 6's playback of its training run is built by :mod:`attnlib.seq2seq_explorer`.

``EXPLORERS`` maps each explorer's name to its builder, and ``compute(name, **params)``
returns one frame (``{panel: data}``) computed directly by attnlib, e.g.::

    >>> w = compute("softmax_temperature", temperature=1.0)["weights"]
    >>> w.shape
    (4, 8)
"""
from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from attnlib.attention import attention_pool
from attnlib.kernels import KERNELS, NadarayaWatson, nadaraya_watson
from attnlib.live import LiveAttention, LiveKernelRegression, LiveMasking, kernel_window
from attnlib.masking import masked_softmax
from attnlib.scoring import additive_scores, bilinear_scores, dot_product_scores, gaussian_scores
from attnlib.widgets import (
    Choice,
    Declaration,
    Explorer,
    FixedSeries,
    Handle,
    Heatmap,
    Lines,
    Series,
    Slider,
    Spokes,
    Text,
)

__all__ = [
    "soft_lookup_explorer",
    "softmax_temperature_explorer",
    "kernel_regression_explorer",
    "bandwidth_training_explorer",
    "masking_explorer",
    "additive_attention_explorer",
    "scaling_explorer",
    "scoring_comparison_explorer",
    "EXPLORERS",
    "DECLARATIONS",
    "compute",
]


def _generator(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _log_grid(lo: float, hi: float, n: int) -> list[float]:
    """``n`` log-spaced values from lo to hi, rounded to 3 significant digits (distinct)."""
    vals = [float(f"{v:.3g}") for v in np.geomspace(lo, hi, n)]
    if len(set(vals)) != len(vals):
        raise ValueError(f"grid {lo}..{hi} with {n} values is too dense for 3 digits")
    return vals


def _np(t: torch.Tensor) -> np.ndarray:
    return t.detach().cpu().numpy().astype(np.float64)


# ----------------------------------------------------------------------------- chapter 1


def softmax_temperature_declaration(*, seed: int = 0, n_queries: int = 4, n_keys: int = 8,
                                    n_temperatures: int = 41) -> Declaration:
    """Declaration of :func:`softmax_temperature_explorer` (no frame computed)."""
    scores = 2.0 * torch.randn(1, n_queries, n_keys, generator=_generator(seed))  # (1, n_queries, n_keys)
    temperatures = _log_grid(0.05, 20.0, n_temperatures)
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
        params=[Slider("temperature", temperatures, label="temperature",
                       value_labels=[f"T = {t:g}" for t in temperatures],
                       default=min(temperatures, key=lambda t: abs(t - 1.0)))],
        panels=[
            Heatmap("weights", xlabel="keys", ylabel="queries", rows_sum_to_one=True,
                    title="softmax(scores / T)"),
            Lines("query_0", x=keys, series=[Series("query 0", style="line")],
                  xlabel="key", ylabel="weight", title="weights of query 0", ylim=(0.0, 1.05),
                  fixed=[FixedSeries("uniform (T → ∞)", keys, np.full(n_keys, 1.0 / n_keys),
                                     dash="5 4", color="#999999"),
                         FixedSeries("one-hot (T → 0)", keys, one_hot, style="points",
                                     color="#000000")]),
        ],
        title="Softmax temperature: from a hard lookup (T → 0) to average pooling (T → ∞)",
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


def _query_sliders(x: float, y: float) -> list[Slider]:
    """The two sliders a dragged query is bound to: [-2.5, 2.5] in steps of 0.05 each."""
    grid = [round(-2.5 + 0.05 * i, 2) for i in range(101)]
    return [Slider(f"query_{axis}", grid, label=f"query {axis}", default=v, value_labels=[f"{g:.2f}" for g in grid])
            for axis, v in (("x", x), ("y", y))]


def soft_lookup_declaration(*, seed: int = 0, n_keys: int = 7) -> Declaration:
    """Declaration of :func:`soft_lookup_explorer` (computed in the browser, see attnlib.live)."""
    g = _generator(seed)
    keys = 3.6 * torch.rand(n_keys, 2, generator=g, dtype=torch.float64) - 1.8  # (n_keys, 2)
    # values on a circle, in a shuffled order: every value is a corner of their convex hull
    angles = 2 * math.pi * (torch.arange(n_keys, dtype=torch.float64) + 0.3 * torch.rand(n_keys, generator=g,
                                                                                          dtype=torch.float64)) / n_keys
    order = torch.randperm(n_keys, generator=g)
    values = 1.6 * torch.stack([torch.cos(angles), torch.sin(angles)], dim=1)[order]  # (n_keys, 2)
    hull = values[torch.argsort(torch.atan2(values[:, 1], values[:, 0]))]  # (n_keys, 2): corners in turn
    hull = torch.cat([hull, hull[:1]])  # (n_keys + 1, 2): closed
    temperatures = [0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 1000]
    names = [str(j) for j in range(n_keys)]

    def update(score: str, temperature: float, query_x: float, query_y: float) -> dict[str, Any]:
        q = torch.tensor([[[query_x, query_y]]], dtype=torch.float64)  # (1, 1, 2)
        k = keys[None]  # (1, n_keys, 2)
        s = gaussian_scores(q, k) if score == "gaussian" else dot_product_scores(q, k)  # (1, 1, n_keys)
        out, w = attention_pool(s / temperature, values[None])  # (1, 1, 2), (1, 1, n_keys)
        return {"weights": _np(w[0]), "keys": {}, "values": {"output": _np(out[0].T)}}  # output (2, 1)

    kv = _np(keys)
    vv = _np(values)
    return Declaration(
        name="soft_lookup",
        update=update,
        params=[Choice("score", ["gaussian", "scaled_dot"], label="scoring function",
                       option_labels=["Gaussian: -|q - k|\u00b2 / 2", "scaled dot product: q\u00b7k / \u221a2"]),
                Slider("temperature", temperatures, label="temperature", default=1,
                       value_labels=[f"T = {t:g}" for t in temperatures]),
                *_query_sliders(0.5, -0.5)],
        panels=[
            Lines("keys", xlabel="feature 1", ylabel="feature 2", title="drag the query among the keys",
                  fixed=[FixedSeries("keys", kv[:, 0], kv[:, 1], style="points", color="#0072B2", labels=names)],
                  xlim=(-2.6, 2.6), ylim=(-2.6, 2.6), equal_aspect=True,
                  handle=Handle("query_x", "query_y", label="query"), spokes=Spokes("keys", "weights")),
            Heatmap("weights", xlabel="keys", ylabel="query", rows_sum_to_one=True, title="attention weights"),
            Lines("values", series=[Series("output", style="points", xy=True, color="#D55E00")],
                  xlabel="value 1", ylabel="value 2", title="output: weighted average of values",
                  fixed=[FixedSeries("convex hull of the values", _np(hull[:, 0]), _np(hull[:, 1]),
                                     dash="4 3", color="#888888"),
                         FixedSeries("values", vv[:, 0], vv[:, 1], style="points", color="#009E73", labels=names)],
                  xlim=(-2, 2), ylim=(-2, 2), equal_aspect=True),
        ],
        title="Soft lookup: drag the query; the output moves inside the values' convex hull",
        live=LiveAttention(keys=kv, values=vv, query=("query_x", "query_y"), weights="weights",
                           output=("values", "output"), score=None, score_param="score",
                           temperature="temperature"),
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
    computes each frame itself (``attnlib.live``); :func:`compute` gives attnlib's.

    Keyword args (optional): ``seed``, ``n_keys``.
    """
    return Explorer(soft_lookup_declaration(**kwargs))


# ----------------------------------------------------------------------------- chapter 2


def _truth(x: np.ndarray | torch.Tensor):
    return 2 * np.sin(x) + x if isinstance(x, np.ndarray) else 2 * torch.sin(x) + x


def kernel_regression_declaration(*, seed: int = 0, n_train: int = 40, n_heat_queries: int = 20,
                                  n_bandwidths: int = 25, noise: float = 0.5) -> Declaration:
    """Declaration of :func:`kernel_regression_explorer` (computed in the browser, see attnlib.live)."""
    g = _generator(seed)
    x_train, _ = torch.sort(5.0 * torch.rand(n_train, generator=g, dtype=torch.float64))  # (n_train,)
    y_train = _truth(x_train) + noise * torch.randn(n_train, generator=g, dtype=torch.float64)  # (n_train,)
    x_fit = torch.linspace(0.0, 5.0, 101, dtype=torch.float64)  # (101,)
    x_heat = torch.linspace(0.0, 5.0, n_heat_queries, dtype=torch.float64)  # (n_heat_queries,)
    bandwidths = _log_grid(0.01, 5.0, n_bandwidths)
    queries = [round(0.05 * i, 2) for i in range(101)]  # the dragged query x: [0, 5] in steps of 0.05
    span = (0.0, 5.0)

    def update(kernel: str, bandwidth: float, query: float) -> dict[str, Any]:
        x_all = torch.cat([x_fit, x_heat, torch.tensor([query], dtype=torch.float64)])  # (101 + n_heat + 1,)
        y_hat, weights = nadaraya_watson(x_train, y_train, x_all, kernel=kernel, bandwidth=bandwidth)
        fit, at_heat, at_query = y_hat[:101], y_hat[101:-1], y_hat[-1:]  # (101,), (n_heat,), (1,)
        return {"fit": {"Nadaraya-Watson": _np(fit),
                        "prediction at the query": np.stack([[query], _np(at_query)]),  # (2, 1)
                        "queries of the heatmap": np.stack([_np(x_heat), _np(at_heat)])},  # (2, n_heat)
                "window": {"weight on each training point": _np(weights[-1]),  # (n_train,)
                           "kernel window": kernel_window(x_train, query, kernel, bandwidth, span)},  # (2, 161)
                "weights": _np(weights[101:-1])}  # (n_heat, n_train)

    xf, xt, yt = _np(x_fit), _np(x_train), _np(y_train)
    truth = _truth(xf)
    lo, hi = min(float(yt.min()), float(truth.min())), max(float(yt.max()), float(truth.max()))
    ylim = (lo - 0.06 * (hi - lo), hi + 0.06 * (hi - lo))  # the data and the whole truth curve
    return Declaration(
        name="kernel_regression",
        update=update,
        params=[Choice("kernel", list(KERNELS), default="gaussian"),
                Slider("bandwidth", bandwidths, label="bandwidth",
                       value_labels=[f"h = {b:g}" for b in bandwidths],
                       default=min(bandwidths, key=lambda b: abs(b - 0.5))),
                Slider("query", queries, label="query x", default=1.5,
                       value_labels=[f"{q:.2f}" for q in queries])],
        panels=[
            Lines("fit", x=xf, xlabel="x", ylabel="y", title="drag the query along x",
                  series=[Series("Nadaraya-Watson", color="#D55E00"),
                          Series("prediction at the query", style="points", xy=True, color="#000000"),
                          Series("queries of the heatmap", style="points", xy=True, color="#999999",
                                 linked_rows=True)],
                  fixed=[FixedSeries("truth 2 sin x + x", xf, truth, dash="5 4", color="#0072B2"),
                         FixedSeries("training data", xt, yt, style="points", color="#555555")],
                  xlim=span, ylim=ylim, handle=Handle("query", None, label="query")),
            Lines("window", x=xt, xlabel="training input x", ylabel="weight", title="the query's weights",
                  series=[Series("weight on each training point", style="bars", width=3, color="#000000"),
                          Series("kernel window", xy=True, color="#D55E00", width=1.5)],
                  xlim=span, ylim=(0.0, 1.0), ytops=(0.125, 0.25, 0.5, 1.0)),
            Heatmap("weights", xlabel="training inputs (keys)", ylabel="queries",
                    rows_sum_to_one=True, title="attention weights",
                    row_labels=[f"{v:.2f}" for v in _np(x_heat)],
                    col_labels=[f"{v:.2f}" for v in xt]),
        ],
        title="Nadaraya-Watson kernel regression: drag the query, choose the kernel and the bandwidth",
        live=LiveKernelRegression(
            x_train=xt, y_train=yt, query="query", kernel="kernel", bandwidth="bandwidth",
            fit=("fit", "Nadaraya-Watson"), marker=("fit", "prediction at the query"),
            heat_points=("fit", "queries of the heatmap"),
            bars=("window", "weight on each training point"), window=("window", "kernel window"),
            weights="weights", heat_x=_np(x_heat)),
        meta={"x_train": x_train, "y_train": y_train, "x_fit": x_fit, "x_heat": x_heat},
    )


def kernel_regression_explorer(**kwargs: Any) -> Explorer:
    """Nadaraya-Watson regression as attention pooling (chapter 2); the reader drags the query.

    Seeded data ``y = 2 sin x + x + noise`` at 40 sorted training inputs on [0, 5].
    The reader drags the query x along the axis (or moves it with the arrow keys, or its
    slider, [0, 5] in steps of 0.05), chooses the kernel (gaussian, boxcar, constant,
    epanechnikov, triangular) and the bandwidth on a log grid from 0.01 to 5 (25 values).
    Panels: the fit of :func:`attnlib.nadaraya_watson` on 101 points against the truth and
    the data, with the prediction at the query marked; the query's weights as bars under
    the training inputs, on the kernel window drawn around the query; the weight matrix of
    20 queries (rows, also marked on the fit: reading a row rings its query) by the
    training inputs (columns). The page computes each frame itself (``attnlib.live``);
    :func:`compute` gives attnlib's.

    Keyword args (optional): ``seed``, ``n_train``, ``n_heat_queries``, ``n_bandwidths``,
    ``noise``.
    """
    return Explorer(kernel_regression_declaration(**kwargs))


@functools.lru_cache(maxsize=4)
def _bandwidth_runs(seed: int, n_train: int, steps: int, lr: float):
    """Chapter 2's two training runs of NadarayaWatson (Gaussian, h = 1 at the start, Adam):
    with and without leave-one-out. The data are the chapter's (the same recipe and seed)."""
    g = _generator(seed)
    x_train, _ = torch.sort(torch.rand(n_train, generator=g) * 5)  # (n_train,)
    y_train = _truth(x_train) + 0.5 * torch.randn(n_train, generator=g)  # (n_train,)
    runs = {}
    for exclude_self in (True, False):
        model = NadarayaWatson("gaussian", 1.0, exclude_self=exclude_self)
        optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        hs, losses = [], []
        for step in range(steps + 1):
            optimizer.zero_grad()
            loss = ((model(x_train, y_train, x_train) - y_train) ** 2).mean()
            hs.append(model.bandwidth.item())  # h after `step` updates, and its loss
            losses.append(loss.item())
            if step < steps:
                loss.backward()
                optimizer.step()
        runs[exclude_self] = (hs, losses)
    return x_train, y_train, runs


def bandwidth_training_declaration(*, seed: int = 0, n_train: int = 50, steps: int = 100,
                                   lr: float = 0.1) -> Declaration:
    """Declaration of :func:`bandwidth_training_explorer` (trains twice, about 0.3 s, cached)."""
    x_train, y_train, runs = _bandwidth_runs(seed, n_train, steps, lr)
    x_query = torch.linspace(0.0, 5.0, 51)  # (51,)
    loo, naive = runs[True], runs[False]

    def update(step: int) -> dict[str, Any]:
        fits = {}
        for name, (hs, _) in (("leave-one-out", loo), ("without leave-one-out", naive)):
            y_hat, _ = nadaraya_watson(x_train, y_train, x_query, kernel="gaussian", bandwidth=hs[step])
            fits[name] = _np(y_hat)  # (51,)
        now = np.array([[step, step], [loo[1][step], naive[1][step]]], dtype=np.float64)  # (2, 2): x row, y row
        return {"fit": fits, "loss": {"now": now}}

    labels = [f"{k} (h = {loo[0][k]:.3f} and {naive[0][k]:.3f})" for k in range(steps + 1)]
    xs = np.arange(steps + 1, dtype=np.float64)
    xq = _np(x_query)
    return Declaration(
        name="bandwidth_training",
        update=update,
        params=[Slider("step", list(range(steps + 1)), label="Adam step", default=0, value_labels=labels,
                       play=True)],
        panels=[
            Lines("loss", series=[Series("now", style="points", xy=True, color="#000000")],
                  fixed=[FixedSeries("leave-one-out loss", xs, np.array(loo[1]), color="#0072B2"),
                         FixedSeries("loss without leave-one-out", xs, np.array(naive[1]), color="#D55E00")],
                  xlabel="Adam step", ylabel="training MSE", title="loss"),
            Lines("fit", x=xq, series=[Series("leave-one-out", color="#0072B2"),
                                       Series("without leave-one-out", color="#D55E00")],
                  fixed=[FixedSeries("truth 2 sin x + x", xq, _truth(xq), dash="5 4", color="#777777"),
                         FixedSeries("training data", _np(x_train), _np(y_train), style="points",
                                     color="#555555")],
                  xlabel="x", ylabel="y", title="fit at new queries"),
        ],
        title="Learning the bandwidth, step by step (h with leave-one-out and without)",
        meta={"x_train": x_train, "y_train": y_train, "runs": runs},
    )


def bandwidth_training_explorer(**kwargs: Any) -> Explorer:
    """Playback of chapter 2's training of :class:`attnlib.NadarayaWatson` (Gaussian kernel,
    h = 1 at step 0, 100 steps of Adam, learning rate 0.1), with and without leave-one-out.

    The slider (with Play) picks the step; the panels show both loss curves with the current
    step marked, and both fits at new queries with the bandwidth reached at that step. The
    step's label gives both bandwidths. Data: the chapter's 50 noisy points (same seed).

    Keyword args (optional): ``seed``, ``n_train``, ``steps``, ``lr``.
    """
    return Explorer(bandwidth_training_declaration(**kwargs))


# ----------------------------------------------------------------------------- chapter 3

SENTENCES = ["Dive into Deep Learning", "Learn to code", "Hello world"]
SUGGESTIONS = ["Dive into Deep Learning", "Learn to code", "Hello world", "Attention is all you need",
               "the cat sat on the mat", "a a a", "Queries keys and values", "pad"]
MAX_TOKENS = 6


def masking_declaration(*, max_tokens: int = MAX_TOKENS, d: int = 8) -> Declaration:
    """Declaration of :func:`masking_explorer` (computed in the browser, see attnlib.live)."""
    live = LiveMasking(sentences=("sentence_1", "sentence_2", "sentence_3"),
                       weights=("sentence_1", "sentence_2", "sentence_3"), max_tokens=max_tokens, d=d,
                       masking="masking")
    defaults = live.frame(SENTENCES)

    def update(masking: str, sentence_1: str, sentence_2: str, sentence_3: str) -> dict[str, Any]:
        frame = live.frame([sentence_1, sentence_2, sentence_3], masked=masking == "valid_lengths")
        return {f"sentence_{b + 1}": w for b, (_, w) in enumerate(frame)}  # (max_tokens, max_tokens) each

    return Declaration(
        name="masking",
        update=update,
        texts=[Text(f"sentence_{b + 1}", SENTENCES[b], label=f"sentence {b + 1}", suggestions=SUGGESTIONS)
               for b in range(3)],
        params=[Choice("masking", ["valid_lengths", "none"], label="masking",
                       option_labels=["by valid length (masked softmax)",
                                      f"none (plain softmax over all {max_tokens} tokens)"])],
        panels=[Heatmap(f"sentence_{b + 1}", xlabel="keys (tokens)", ylabel="queries (tokens)",
                        row_labels=toks, col_labels=toks, title=f"sentence {b + 1}", rows_sum_to_one=True,
                        allow_zero_rows=True)
                for b, (toks, _) in enumerate(defaults)],
        title=f"Masked softmax on your own sentences: each is cut or padded to {max_tokens} tokens",
        live=live,
        meta={"live": live},
    )


def masking_explorer(**kwargs: Any) -> Explorer:
    """Masked self-attention on sentences the reader types (chapter 3).

    Three text fields (with suggestions) hold the sentences; each is split at whitespace and
    cut or padded with ``<pad>`` to ``max_tokens`` = 6 tokens, so its valid length is its
    number of words (at most 6). Every token is a query and a key; a word's query and key
    vectors come from a hash of the word (:func:`attnlib.live.word_vector`, d = 8), so the
    same word always scores the same. Each heatmap is ``attnlib.masked_softmax`` of one
    sentence's scaled dot products with per-query valid lengths: the keys past the valid
    length get exactly 0, and the ``<pad>`` queries, which have no valid key, get all-zero
    rows. The "masking" choice switches to a plain softmax, the mistake masking prevents.
    The tokens label the heatmaps. Computed in the page (``attnlib.live``); :func:`compute`
    gives attnlib's.

    Keyword args (optional): ``max_tokens``, ``d``.
    """
    return Explorer(masking_declaration(**kwargs))


# ----------------------------------------------------------------------------- chapter 4


def additive_attention_declaration(*, seed: int = 0, n_keys: int = 8,
                                   hiddens: tuple[int, ...] = (2, 8, 32), n_angles: int = 36,
                                   radius: float = 1.5) -> Declaration:
    """Declaration of :func:`additive_attention_explorer` (no frame computed)."""
    g = _generator(seed)
    keys = 2.4 * torch.rand(1, n_keys, 2, generator=g) - 1.2  # (1, n_keys, 2) in [-1.2, 1.2]²
    h_max = max(hiddens)
    W_q_all = 1.5 * torch.randn(h_max, 2, generator=g)  # (h_max, 2)
    W_k_all = 1.5 * torch.randn(h_max, 2, generator=g)  # (h_max, 2)
    w_v_all = 2.0 * torch.randn(h_max, generator=g)  # (h_max,)
    angles = [float(a) for a in range(0, 360, 360 // n_angles)]
    circle = np.linspace(0, 2 * math.pi, 121)

    def weights_of(num_hiddens: int):
        # The first num_hiddens hidden units of one fixed seeded network.
        return W_q_all[:num_hiddens], W_k_all[:num_hiddens], w_v_all[:num_hiddens]

    def query_at(angle: float) -> torch.Tensor:
        a = math.radians(angle)
        return torch.tensor([[[radius * math.cos(a), radius * math.sin(a)]]])  # (1, 1, 2)

    def update(angle: float, valid_len: int, num_hiddens: int) -> dict[str, Any]:
        q = query_at(angle)
        W_q, W_k, w_v = weights_of(num_hiddens)
        scores = additive_scores(q, keys, W_q, W_k, w_v)  # (1, 1, n_keys)
        weights = masked_softmax(scores, torch.tensor([valid_len]))  # (1, 1, n_keys)
        return {"weights": _np(weights[0]),
                "scores": {"score a(q, k)": _np(scores[0, 0])},
                "plane": {"query": _np(q[0].T)}}  # (2, 1)

    k_np = _np(keys[0])
    return Declaration(
        name="additive_attention",
        update=update,
        params=[Slider("angle", angles, label="query angle",
                       value_labels=[f"{int(a)}°" for a in angles], default=angles[len(angles) // 8], play=True),
                Slider("valid_len", list(range(1, n_keys + 1)), label="valid length",
                       value_labels=[f"{n} of {n_keys} keys" for n in range(1, n_keys + 1)],
                       default=n_keys),
                Slider("num_hiddens", list(hiddens), label="hidden units",
                       value_labels=[f"h = {h}" for h in hiddens],
                       default=hiddens[len(hiddens) // 2])],
        panels=[
            Lines("plane", series=[Series("query", style="points", xy=True, color="#D55E00")],
                  xlabel="feature 1", ylabel="feature 2", title="query and keys",
                  equal_aspect=True, xlim=(-1.8, 1.8), ylim=(-1.8, 1.8),
                  fixed=[FixedSeries("query path", radius * np.cos(circle),
                                     radius * np.sin(circle), dash="3 3", color="#bbbbbb"),
                         FixedSeries("keys", k_np[:, 0], k_np[:, 1], style="points",
                                     color="#0072B2")]),
            Heatmap("weights", xlabel="keys", ylabel="queries", rows_sum_to_one=True,
                    title="attention weights"),
            Lines("scores", x=np.arange(n_keys, dtype=np.float64),
                  series=[Series("score a(q, k)", color="#009E73")],
                  xlabel="key", ylabel="score", title="additive scores (before masking)"),
        ],
        title="Additive attention: w_vᵀ tanh(W_q q + W_k k) as the query moves",
        meta={"keys": keys, "W_q": W_q_all, "W_k": W_k_all, "w_v": w_v_all, "radius": radius,
              "query_at": query_at},
    )


def additive_attention_explorer(**kwargs: Any) -> Explorer:
    """Additive attention weights as the query moves (chapter 4).

    Eight seeded 2-D keys and a fixed seeded additive scoring network
    ``a(q, k) = w_vᵀ tanh(W_q q + W_k k)`` (:func:`attnlib.additive_scores`; ``W_q`` and
    ``W_k`` are separate matrices, which is why queries and keys may have different
    sizes). Sliders: the query's angle on a circle of radius 1.5 (36 positions), the valid
    length (1 to 8: keys at or beyond it get weight exactly 0) and ``num_hiddens`` (2, 8,
    32: the first ``h`` hidden units of one network). Panels: the query and keys in the
    plane, the weights ``masked_softmax(scores, valid_len)`` and the raw scores.

    Keyword args (optional): ``seed``, ``n_keys``, ``hiddens``, ``n_angles``, ``radius``.
    """
    return Explorer(additive_attention_declaration(**kwargs))


# ----------------------------------------------------------------------------- chapter 5


def scaling_declaration(*, seed: int = 0, n_samples: int = 200, n_queries: int = 4,
                        n_keys: int = 8, dims: tuple[int, ...] = (2, 4, 8, 16, 32, 64, 128, 256, 512),
                        limit: float = 12.0, n_bins: int = 48) -> Declaration:
    """Declaration of :func:`scaling_explorer` (no frame computed)."""
    edges = np.linspace(-limit, limit, n_bins + 1)
    step_x = np.repeat(edges, 2)[1:-1]  # (2 * n_bins,) edges doubled for step lines
    normal = np.exp(-edges ** 2 / 2) / math.sqrt(2 * math.pi)

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
        return {"spread": {"q·k": density(_np(raw).ravel()),
                           "q·k/√d": density(_np(scaled).ravel())},
                "unscaled": _np(w_raw[0]), "scaled": _np(w_scaled[0])}

    return Declaration(
        name="scaling",
        update=update,
        params=[Slider("d", list(dims), label="feature size",
                       value_labels=[f"d = {d}" for d in dims], default=dims[len(dims) // 2])],
        panels=[
            Lines("spread", x=step_x, series=[Series("q·k", color="#D55E00"),
                                             Series("q·k/√d", color="#0072B2")],
                  xlabel=f"score (tails beyond ±{limit:g} not shown)", ylabel="density",
                  title=f"scores of {n_samples}×{n_samples} pairs",
                  fixed=[FixedSeries("N(0, 1)", edges, normal, dash="4 3", color="#777777")]),
            Heatmap("unscaled", xlabel="keys", ylabel="queries", rows_sum_to_one=True,
                    title="softmax(q·k)"),
            Heatmap("scaled", xlabel="keys", ylabel="queries", rows_sum_to_one=True,
                    title="softmax(q·k/√d)"),
        ],
        title="Scaled dot-product attention: why divide by √d",
        meta={"data": data, "edges": edges},
    )


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


# ----------------------------------------------------------------------------- registry

# ----------------------------------------------------------------------------- chapter 5, live

SCORING_ROWS = ["dot", "scaled_dot", "gaussian", "additive"]
SCORING_LABELS = ["dot q\u00b7k", "scaled q\u00b7k/\u221a2", "Gaussian", "additive"]


def scoring_comparison_declaration(*, seed: int = 0, num_hiddens: int = 8) -> Declaration:
    """Declaration of :func:`scoring_comparison_explorer` (computed in the browser)."""
    angles = torch.tensor([20.0, 95.0, 160.0, 230.0, 300.0, 50.0], dtype=torch.float64) * math.pi / 180
    radii = torch.tensor([1.2, 1.2, 1.2, 1.2, 1.2, 2.6], dtype=torch.float64)  # key 5 is long
    keys = radii[:, None] * torch.stack([torch.cos(angles), torch.sin(angles)], dim=1)  # (6, 2)
    g = _generator(seed)
    W_q = torch.randn(num_hiddens, 2, generator=g, dtype=torch.float64)  # (h, 2)
    W_k = torch.randn(num_hiddens, 2, generator=g, dtype=torch.float64)  # (h, 2)
    w_v = torch.randn(num_hiddens, generator=g, dtype=torch.float64)  # (h,)

    def update(query_x: float, query_y: float) -> dict[str, Any]:
        q = torch.tensor([[[query_x, query_y]]], dtype=torch.float64)  # (1, 1, 2)
        k = keys[None]  # (1, 6, 2)
        rows = [bilinear_scores(q, k, torch.eye(2, dtype=torch.float64)),  # q.k, (1, 1, 6)
                dot_product_scores(q, k),  # q.k / sqrt(2)
                gaussian_scores(q, k),  # -|q - k|^2 / 2
                additive_scores(q, k, W_q, W_k, w_v)]
        w = masked_softmax(torch.cat(rows, dim=1))  # (1, 4, 6): one row per scoring function
        return {"weights": _np(w[0]), "keys": {}}

    kv = _np(keys)
    return Declaration(
        name="scoring_comparison",
        update=update,
        params=_query_sliders(1.0, 0.5),
        panels=[
            Lines("keys", xlabel="feature 1", ylabel="feature 2", title="drag the query",
                  fixed=[FixedSeries("circle of radius 1.2", 1.2 * np.cos(np.linspace(0, 2 * np.pi, 61)),
                                     1.2 * np.sin(np.linspace(0, 2 * np.pi, 61)), dash="3 3", color="#888888"),
                         FixedSeries("keys", kv[:, 0], kv[:, 1], style="points", color="#0072B2",
                                     labels=[str(j) for j in range(len(kv))])],
                  xlim=(-2.8, 2.8), ylim=(-2.8, 2.8), equal_aspect=True,
                  handle=Handle("query_x", "query_y", label="query")),
            Heatmap("weights", xlabel="keys", ylabel="scoring functions", rows_sum_to_one=True,
                    title="weights of one query, four ways", row_labels=SCORING_LABELS),
        ],
        title="One query, four scoring functions: where they agree and where they part",
        live=LiveAttention(keys=kv, values=kv, query=("query_x", "query_y"), weights="weights",
                           compare=tuple(SCORING_ROWS), score=None, additive=(W_q, W_k, w_v)),
        meta={"keys": keys, "W_q": W_q, "W_k": W_k, "w_v": w_v},
    )


def scoring_comparison_explorer(**kwargs: Any) -> Explorer:
    """Four scoring functions side by side (chapter 5): the reader drags one query.

    Six keys: five on a circle of radius 1.2 and one long key (5, radius 2.6). Each row of
    the heatmap is the softmax of one scoring function for the same query: the dot product
    q.k, the scaled dot product q.k/sqrt(2), the Gaussian -|q - k|^2/2 and additive
    attention w_v.tanh(W_q q + W_k k) with fixed seeded weights (8 hidden units). Computed
    in the page (``attnlib.live``); :func:`compute` gives attnlib's numbers.

    Keyword args (optional): ``seed``, ``num_hiddens``.
    """
    return Explorer(scoring_comparison_declaration(**kwargs))


#: name -> builder (no arguments) returning an Explorer.
EXPLORERS: dict[str, Callable[..., Explorer]] = {
    "soft_lookup": soft_lookup_explorer,
    "softmax_temperature": softmax_temperature_explorer,
    "kernel_regression": kernel_regression_explorer,
    "bandwidth_training": bandwidth_training_explorer,
    "masking": masking_explorer,
    "additive_attention": additive_attention_explorer,
    "scaling": scaling_explorer,
    "scoring_comparison": scoring_comparison_explorer,
}

def _alignment_playback_declaration() -> Declaration:
    """Chapter 6's playback: trains the chapter's model once (about 10 s, then cached)."""
    from attnlib.seq2seq_explorer import chapter_playback_declaration

    return chapter_playback_declaration()


#: name -> declaration builder (cheap: computes no frame; chapter 6's trains its model once).
DECLARATIONS: dict[str, Callable[..., Declaration]] = {
    "soft_lookup": soft_lookup_declaration,
    "softmax_temperature": softmax_temperature_declaration,
    "kernel_regression": kernel_regression_declaration,
    "bandwidth_training": bandwidth_training_declaration,
    "masking": masking_declaration,
    "additive_attention": additive_attention_declaration,
    "scaling": scaling_declaration,
    "scoring_comparison": scoring_comparison_declaration,
    "alignment_playback": _alignment_playback_declaration,
}


def compute(name: str, **params: Any) -> dict[str, Any]:
    """One frame of explorer ``name`` for the given parameter values, computed by attnlib.

    Returns ``{panel: data}``: a heatmap is a 2-D ``numpy`` array (queries are rows), a
    lines panel a dict ``{series: 1-D array}`` (a ``(2, n)`` array of coordinates for a
    series of points with their own x). Missing parameters take the explorer's default.
    This is what the browser tests compare the rendered page against.
    """
    if name not in DECLARATIONS:
        raise KeyError(f"unknown explorer {name!r}; expected one of {sorted(DECLARATIONS)}")
    return DECLARATIONS[name]().compute(**params)
