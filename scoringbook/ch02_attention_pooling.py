"""Chapter 2, attention pooling by similarity (Nadaraya-Watson kernel regression): its explorers.

- :func:`kernel_regression_explorer`: drag the query x; the kernel's weights and the fit
  (computed in the page, :class:`attnlib.widgets.live.LiveKernelRegression`).
- :func:`bandwidth_training_explorer`: playback of learning the bandwidth by gradient descent.

The chapter's checker, :func:`~scoringbook.ch02_exercises.check_kernel`, is in
:mod:`scoringbook.ch02_exercises`.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
import torch

from attnlib import domains as D
from attnlib.kernel_regression import NadarayaWatson, nadaraya_watson
from attnlib.kernels import KERNELS
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
)
from attnlib.widgets.live import LiveKernelRegression, kernel_window
from scoringbook._common import (
    COUNT,
    COUNT0,
    SEED,
    _count,
    _distinct_presets,
    _generator,
    _log_grid,
    _nearest,
    _np,
    _read_out,
    _real,
    _seed,
)

#: the builders' arguments, declared once for the declaration and its explorer
REGRESSION_ARGS = dict(
    seed=SEED, n_train=COUNT, n_heat_queries=COUNT, n_bandwidths=COUNT, noise=D.Real(ge=0)
)
#: leave-one-out needs another point; a larger lr only diverges
TRAINING_ARGS = dict(
    seed=SEED, n_train=D.Int(ge=2, le=COUNT.le), steps=COUNT0, lr=D.Real(gt=0, le=100)
)

__all__ = [
    "kernel_regression_explorer",
    "kernel_regression_declaration",
    "bandwidth_training_explorer",
    "bandwidth_training_declaration",
    "sigma_text",
]


@D.declare(sigma=D.Real(gt=0))
def sigma_text(sigma: float) -> str:
    """A bandwidth as the book reads it out: two decimals ("0.49", "5.00"), as the presets and
    notices say it; below 0.1, two significant figures ("0.061", "0.013"), so that neighbouring
    values of a log-spaced slider stay apart (0.01 and 0.013 are both "0.01" at two decimals).

    Args:
        sigma: the bandwidth, a finite number > 0.
    """
    return _read_out(sigma)


def _truth(x: np.ndarray | torch.Tensor):
    return 2 * np.sin(x) + x if isinstance(x, np.ndarray) else 2 * torch.sin(x) + x


def _kernel_presets(bandwidths: list[float]) -> list[Preset]:
    """Chapter 2's things to try with the kernel regression explorer."""
    mid = _nearest(bandwidths, 0.486)
    shapes = [
        ("boxcar", "the nearest inputs share the weight equally: flat bars"),
        ("epanechnikov", "the same inputs, weighted as a parabola"),
        ("triangular", "the same inputs, weighted as a tent"),
    ]
    return _distinct_presets(
        Preset(
            "Start: Gaussian, σ ≈ 0.49",
            "Notice: the tallest bar stands on the nearest training input; drag the query and "
            "the bell travels with it.",
            {"kernel": "gaussian", "bandwidth": mid, "query": 1.5},
        ),
        Preset(
            "σ = 0.01: a staircase",
            "Notice: one bar of height 1 on the nearest training input; the prediction is that "
            "point's target, and the fit turns into a staircase.",
            {"bandwidth": _nearest(bandwidths, 0.01)},
        ),
        Preset(
            "σ = 5.00: the mean",
            "Notice: every bar is close to 1/40, and the prediction stays near the mean of the "
            "targets wherever the query goes.",
            {"bandwidth": _nearest(bandwidths, 5.0)},
        ),
        Preset(
            "Boxcar, an empty window",
            "Notice: no training input is within σ of the query; the empty-window rule puts "
            "weight 1 on the nearest input instead of dividing 0 by 0.",
            {"kernel": "boxcar", "bandwidth": _nearest(bandwidths, 0.0613), "query": 2.5},
        ),
        *[
            Preset(
                f"{name.capitalize()}, σ ≈ 0.49",
                f"Notice: {what}; compare with the other kernels at this σ.",
                {"kernel": name, "bandwidth": mid, "query": 1.5},
            )
            for name, what in shapes
        ],
    )


@D.declare(**REGRESSION_ARGS)
def kernel_regression_declaration(
    *,
    seed: int = 0,
    n_train: int = 40,
    n_heat_queries: int = 20,
    n_bandwidths: int = 25,
    noise: float = 0.5,
) -> Declaration:
    """Declaration of :func:`kernel_regression_explorer` (the page computes its frames)."""
    fn = "kernel_regression_declaration"
    seed, n_train = _seed(seed, fn), _count(n_train, "n_train", fn)
    n_heat_queries = _count(n_heat_queries, "n_heat_queries", fn)
    n_bandwidths = _count(n_bandwidths, "n_bandwidths", fn)
    noise = _real(noise, "noise", fn, min=0.0)
    g = _generator(seed)
    x_train, _ = torch.sort(
        5.0 * torch.rand(n_train, generator=g, dtype=torch.float64)
    )  # (n_train,)
    y_train = _truth(x_train) + noise * torch.randn(
        n_train, generator=g, dtype=torch.float64
    )  # (n_train,)
    x_fit = torch.linspace(0.0, 5.0, 101, dtype=torch.float64)  # (101,)
    x_heat = torch.linspace(0.0, 5.0, n_heat_queries, dtype=torch.float64)  # (n_heat_queries,)
    bandwidths = _log_grid(0.01, 5.0, n_bandwidths, "n_bandwidths", fn)
    queries = [
        round(0.05 * i, 2) for i in range(101)
    ]  # the dragged query x: [0, 5] in steps of 0.05
    span = (0.0, 5.0)

    def update(kernel: str, bandwidth: float, query: float) -> dict[str, Any]:
        x_all = torch.cat(
            [x_fit, x_heat, torch.tensor([query], dtype=torch.float64)]
        )  # (101 + n_heat + 1,)
        y_hat, weights = nadaraya_watson(
            x_train, y_train, x_all, kernel=kernel, bandwidth=bandwidth
        )
        fit, at_heat, at_query = y_hat[:101], y_hat[101:-1], y_hat[-1:]  # (101,), (n_heat,), (1,)
        return {
            "fit": {
                "Nadaraya-Watson": _np(fit),
                "prediction": np.stack([[query], _np(at_query)]),  # (2, 1)
                "queries of the heatmap": np.stack([_np(x_heat), _np(at_heat)]),
            },  # (2, n_heat)
            "window": {
                "weight on each training point": _np(weights[-1]),  # (n_train,)
                "kernel window": kernel_window(x_train, query, kernel, bandwidth, span),
            },  # (2, 161)
            "weights": _np(weights[101:-1]),
        }  # (n_heat, n_train)

    xf, xt, yt = _np(x_fit), _np(x_train), _np(y_train)
    truth = _truth(xf)
    lo, hi = min(float(yt.min()), float(truth.min())), max(float(yt.max()), float(truth.max()))
    ylim = (lo - 0.06 * (hi - lo), hi + 0.06 * (hi - lo))  # the data and the whole truth curve
    return Declaration(
        name="kernel_regression",
        update=update,
        params=[
            Choice("kernel", list(KERNELS), default="gaussian"),
            Slider(
                "bandwidth",
                bandwidths,
                label="bandwidth",
                value_labels=[f"σ = {sigma_text(b)}" for b in bandwidths],
                default=min(bandwidths, key=lambda b: abs(b - 0.5)),
            ),
            Slider(
                "query",
                queries,
                label="query x",
                default=1.5,
                value_labels=[f"{q:.2f}" for q in queries],
            ),
        ],
        panels=[
            Lines(
                "fit",
                x=xf,
                xlabel="x",
                ylabel="y",
                title="drag the query along x",
                series=[
                    Series("Nadaraya-Watson", color="#D55E00"),
                    Series("prediction", style="points", xy=True, color="#000000"),
                    Series(
                        "queries of the heatmap",
                        style="points",
                        xy=True,
                        color="#999999",
                        linked_rows=True,
                    ),
                ],
                fixed=[
                    FixedSeries("truth", xf, truth, dash="5 4", color="#0072B2"),
                    FixedSeries("training data", xt, yt, style="points", color="#555555"),
                ],
                xlim=span,
                ylim=ylim,
                handle=Handle("query", None, label="query"),
            ),
            Lines(
                "window",
                x=xt,
                xlabel="training input x",
                ylabel="weight",
                title="the query's weights",
                series=[
                    Series(
                        "weight on each training point", style="bars", width=3, color="#000000"
                    ),
                    Series("kernel window", xy=True, color="#D55E00", width=1.5),
                ],
                xlim=span,
                ylim=(0.0, 1.0),
                ytops=(0.125, 0.25, 0.5, 1.0),
            ),
            Heatmap(
                "weights",
                xlabel="training inputs (keys)",
                ylabel="queries",
                rows_sum_to_one=True,
                title="attention weights",
                # weights of 40 training inputs stay small (about 0.1 at h = 0.5): a fixed
                # range up to 0.25 shows their band; larger ones (narrow windows) saturate
                vmax=0.25,
                saturate=True,
                row_labels=[f"{v:.2f}" for v in _np(x_heat)],
                col_labels=[f"{v:.2f}" for v in xt],
            ),
        ],
        # short: on a phone a title of 3 lines (and a legend of 3) put the explorer at 1.21
        # windows, within 5 % of its limit
        title="Kernel regression: drag the query, choose kernel and bandwidth",
        presets=_kernel_presets(bandwidths),
        live=LiveKernelRegression(
            x_train=xt,
            y_train=yt,
            query="query",
            kernel="kernel",
            bandwidth="bandwidth",
            fit=("fit", "Nadaraya-Watson"),
            marker=("fit", "prediction"),
            heat_points=("fit", "queries of the heatmap"),
            bars=("window", "weight on each training point"),
            window=("window", "kernel window"),
            weights="weights",
            heat_x=_np(x_heat),
        ),
        meta={"x_train": x_train, "y_train": y_train, "x_fit": x_fit, "x_heat": x_heat},
    )


@D.declare(**REGRESSION_ARGS)
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
    training inputs (columns). The page computes each frame itself (:mod:`attnlib.widgets.live`);
    :func:`scoringbook.compute` gives attnlib's.

    Keyword args (optional): ``seed``, ``n_train``, ``n_heat_queries``, ``n_bandwidths``,
    ``noise``.
    """
    return Explorer(kernel_regression_declaration(**kwargs))


@functools.lru_cache(maxsize=4)
def _bandwidth_runs(seed: int, n_train: int, steps: int, lr: float):
    """Chapter 2's two training runs of NadarayaWatson (Gaussian, σ = 1 at the start, Adam):
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
            h = model.bandwidth.item()
            if not (math.isfinite(h) and h > 0):
                raise ValueError(
                    f"bandwidth_training_declaration: the training diverged with lr={lr:g}: the "
                    f"bandwidth reached {h:g} after {step} steps; use a smaller lr"
                )
            loss = ((model(x_train, y_train, x_train) - y_train) ** 2).mean()
            hs.append(h)  # h after `step` updates, and its loss
            losses.append(loss.item())
            if step < steps:
                loss.backward()
                optimizer.step()
        runs[exclude_self] = (hs, losses)
    return x_train, y_train, runs


def _training_presets(steps: int) -> list[Preset]:
    """Chapter 2's things to try with the bandwidth training playback (or none, for a run of
    fewer than 100 steps)."""
    if steps < 100:
        return []
    return _distinct_presets(
        Preset(
            "Step 0",
            "Notice: both runs start at σ = 1, and both fits are the same smooth, too-flat curve.",
            {"step": 0},
        ),
        Preset(
            "Step 10",
            "Notice: the two runs still agree; both shrink the window, and both fits tighten "
            "towards the truth.",
            {"step": 10},
        ),
        Preset(
            "Step 60",
            "Notice: the runs have parted: the leave-one-out loss is flat, the other keeps "
            "falling as its σ (in the Adam step read-out) shrinks.",
            {"step": 60},
        ),
        Preset(
            "Step 100",
            "Notice: without leave-one-out the fit is a staircase through every training "
            "point, and its training loss heads to zero.",
            {"step": steps},
        ),
    )


@D.declare(**TRAINING_ARGS)
def bandwidth_training_declaration(
    *, seed: int = 0, n_train: int = 50, steps: int = 100, lr: float = 0.1
) -> Declaration:
    """Declaration of :func:`bandwidth_training_explorer` (trains twice, about 0.3 s, cached)."""
    fn = "bandwidth_training_declaration"
    seed, steps = _seed(seed, fn), _count(steps, "steps", fn, min=0)
    n_train = _count(n_train, "n_train", fn, min=2)  # leave-one-out needs another point
    lr = _real(lr, "lr", fn, min=0.0, max=100.0, min_open=True)  # larger only diverges
    x_train, y_train, runs = _bandwidth_runs(seed, n_train, steps, lr)
    x_query = torch.linspace(0.0, 5.0, 51)  # (51,)
    loo, naive = runs[True], runs[False]

    def update(step: int) -> dict[str, Any]:
        fits = {}
        for name, (hs, _) in (("leave-one-out", loo), ("without leave-one-out", naive)):
            y_hat, _ = nadaraya_watson(
                x_train, y_train, x_query, kernel="gaussian", bandwidth=hs[step]
            )
            fits[name] = _np(y_hat)  # (51,)
        now = np.array(
            [[step, step], [loo[1][step], naive[1][step]]], dtype=np.float64
        )  # (2, 2): x row, y row
        return {"fit": fits, "loss": {"now": now}}

    labels = [
        f"{k} (σ = {sigma_text(h_loo)} and {sigma_text(h_naive)})"
        for k, (h_loo, h_naive) in enumerate(zip(loo[0], naive[0]))
    ]
    xs = np.arange(steps + 1, dtype=np.float64)
    xq = _np(x_query)
    return Declaration(
        name="bandwidth_training",
        update=update,
        params=[
            Slider(
                "step",
                list(range(steps + 1)),
                label="Adam step",
                default=0,
                value_labels=labels,
                play=True,
            )
        ],
        panels=[
            Lines(
                "loss",
                series=[Series("now", style="points", xy=True, color="#000000")],
                fixed=[
                    FixedSeries("leave-one-out loss", xs, np.array(loo[1]), color="#0072B2"),
                    FixedSeries(
                        "loss without leave-one-out", xs, np.array(naive[1]), color="#D55E00"
                    ),
                ],
                xlabel="Adam step",
                ylabel="training MSE",
                title="loss",
            ),
            Lines(
                "fit",
                x=xq,
                series=[
                    Series("leave-one-out", color="#0072B2"),
                    Series("without leave-one-out", color="#D55E00"),
                ],
                fixed=[
                    FixedSeries("truth 2 sin x + x", xq, _truth(xq), dash="5 4", color="#777777"),
                    FixedSeries(
                        "training data",
                        _np(x_train),
                        _np(y_train),
                        style="points",
                        color="#555555",
                    ),
                ],
                xlabel="x",
                ylabel="y",
                title="fit at new queries",
            ),
        ],
        title="Learning the bandwidth, step by step (σ with leave-one-out and without)",
        presets=_training_presets(steps),
        meta={"x_train": x_train, "y_train": y_train, "runs": runs},
    )


@D.declare(**TRAINING_ARGS)
def bandwidth_training_explorer(**kwargs: Any) -> Explorer:
    """Playback of chapter 2's training of :class:`attnlib.NadarayaWatson` (Gaussian kernel,
    σ = 1 at step 0, 100 steps of Adam, learning rate 0.1), with and without leave-one-out.

    The slider (with Play) picks the step; the panels show both loss curves with the current
    step marked, and both fits at new queries with the bandwidth reached at that step. The
    step's label gives both bandwidths. Data: the chapter's 50 noisy points (same seed).

    Keyword args (optional): ``seed``, ``n_train``, ``steps``, ``lr``.
    """
    return Explorer(bandwidth_training_declaration(**kwargs))
