"""Chapter 2, attention pooling by similarity (Nadaraya-Watson kernel regression).

- :func:`kernel_regression_explorer`: drag the query x; the kernel's weights and the fit
  (computed in the page, :class:`attnlib.widgets.live.LiveKernelRegression`).
- :func:`bandwidth_training_explorer`: playback of learning the bandwidth by gradient descent.
- :func:`check_kernel`: is this function the named kernel K(u)? (``KERNEL_FORMULAS`` are
  the formulas its messages quote.)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from torch import Tensor

from attnlib._checks import fmt_shape
from attnlib.kernels import KERNELS, NadarayaWatson, nadaraya_watson
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
from scoringbook._checking import (
    CheckResult,
    _as_answer,
    _constant_ratio,
    _exc,
    _fail,
    _first,
    _num,
    _pair,
    _pass,
    _require_callable,
    checker,
)
from scoringbook._common import (
    _count,
    _distinct_presets,
    _generator,
    _log_grid,
    _nearest,
    _np,
    _real,
    _seed,
)

__all__ = [
    "kernel_regression_explorer",
    "kernel_regression_declaration",
    "bandwidth_training_explorer",
    "bandwidth_training_declaration",
    "check_kernel",
    "KERNEL_FORMULAS",
]

#: The kernels as formulas, quoted in the messages of :func:`check_kernel`.
KERNEL_FORMULAS = {
    "gaussian": "K(u) = exp(−u²/2)/√(2π)",
    "boxcar": "K(u) = ½ for |u| ≤ 1, else 0",
    "constant": "K(u) = 1",
    "epanechnikov": "K(u) = ¾(1 − u²) for |u| ≤ 1, else 0",
    "triangular": "K(u) = 1 − |u| for |u| ≤ 1, else 0",
}


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
            "σ = 5: the mean",
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
                value_labels=[f"σ = {b:g}" for b in bandwidths],
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
            "Notice: the runs have parted; the leave-one-out run has come back and settled, "
            "the other keeps shrinking σ.",
            {"step": 60},
        ),
        Preset(
            "Step 100",
            "Notice: without leave-one-out the fit is a staircase through every training "
            "point, and its training loss heads to zero.",
            {"step": steps},
        ),
    )


def bandwidth_training_declaration(
    *, seed: int = 0, n_train: int = 50, steps: int = 100, lr: float = 0.1
) -> Declaration:
    """Declaration of :func:`bandwidth_training_explorer` (trains twice, about 0.3 s, cached)."""
    fn = "bandwidth_training_declaration"
    seed, steps = _seed(seed, fn), _count(steps, "steps", fn, min=0)
    n_train = _count(n_train, "n_train", fn, min=2)  # leave-one-out needs another point
    lr = _real(lr, "lr", fn, min=0.0, min_open=True)
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

    labels = [f"{k} (σ = {loo[0][k]:.3f} and {naive[0][k]:.3f})" for k in range(steps + 1)]
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


def bandwidth_training_explorer(**kwargs: Any) -> Explorer:
    """Playback of chapter 2's training of :class:`attnlib.NadarayaWatson` (Gaussian kernel,
    σ = 1 at step 0, 100 steps of Adam, learning rate 0.1), with and without leave-one-out.

    The slider (with Play) picks the step; the panels show both loss curves with the current
    step marked, and both fits at new queries with the bandwidth reached at that step. The
    step's label gives both bandwidths. Data: the chapter's 50 noisy points (same seed).

    Keyword args (optional): ``seed``, ``n_train``, ``steps``, ``lr``.
    """
    return Explorer(bandwidth_training_declaration(**kwargs))


# ----------------------------------------------------------------------------- checker


def _kernel_grid() -> Tensor:
    """u in [-3, 3] in steps of 0.01 (±1 and ±0.5 exactly), plus points just off ±1."""
    grid = torch.arange(-300, 301, dtype=torch.float64) / 100  # (601,)
    near = torch.tensor([-1 - 1e-9, -1 + 1e-9, 1 - 1e-9, 1 + 1e-9], dtype=torch.float64)  # (4,)
    return torch.sort(torch.cat([grid, near])).values  # (605,)


def _check_kernel_2d(
    fn: Callable, name: str, u: Tensor, want: Tensor, formula: str
) -> CheckResult:
    """The second call of :func:`check_kernel`: the same points as a 2-D ``u``."""
    u2 = u.reshape(5, 121)  # (5, 121): 605 points in 5 rows
    try:
        out = fn(u2.clone())
    except Exception as err:
        return _fail(
            f"your kernel is right on a 1-D u, but calling it on a 2-D u of shape "
            f"{fmt_shape(u2.shape)} raised {_exc(err)}; K must work elementwise on a tensor "
            f"of any shape (use torch functions on the whole tensor, not a loop over its "
            f"entries)"
        )
    got = _as_answer(out)
    if isinstance(got, str) or tuple(got.shape) != tuple(u2.shape):
        what = got if isinstance(got, str) else f"shape {fmt_shape(got.shape)}"
        return _fail(
            f"your kernel is right on a 1-D u, but for a 2-D u of shape {fmt_shape(u2.shape)} "
            f"it returned {what}; K must keep u's shape (one value per entry, any shape)"
        )
    got = got.detach().to(torch.float64)
    if not torch.allclose(got, want.reshape(5, 121), rtol=1e-5, atol=1e-7, equal_nan=False):
        return _fail(
            f"your kernel is right on a 1-D u, but on the same points as a 2-D u of shape "
            f"{fmt_shape(u2.shape)} its values differ; K must work elementwise, whatever "
            f"the shape ({formula})"
        )
    return _pass(
        f"your {name} kernel matches attnlib.kernels.{name} at all {u.numel()} points "
        f"u in [-3, 3], window edges included, as a 1-D and as a 2-D tensor ({formula})"
    )


@checker
def check_kernel(fn: Callable, name: str) -> CheckResult:
    r"""Check a learner's kernel ``K(u)`` against ``attnlib.kernels.KERNELS[name]``.

    The learner's function is called on a float64 tensor ``u`` of shape ``(605,)``:
    ``-3, -2.99, ..., 3`` (so ``±1`` and ``±0.5`` exactly) plus points ``1e-9`` inside and
    outside the window edges ``±1``, then, if right, on the same points as a 2-D tensor of
    shape ``(5, 121)`` (the exercise asks for any shape: a loop over entries, which breaks on
    a 2-D ``u``, is refused). The kernels (``u = (query − key) / bandwidth``):

    - gaussian: ``exp(−u²/2)/√(2π)``; boxcar: ``½`` on ``|u| ≤ 1``; constant: ``1``;
    - epanechnikov: ``¾(1 − u²)`` on ``|u| ≤ 1``; triangular: ``1 − |u|`` on ``|u| ≤ 1``.

    Diagnosed slips: the triangular kernel written for the Epanechnikov one (as in d2l,
    issue 2440), a missing normalising constant (a constant factor; it cancels in the
    Nadaraya-Watson weights but ``K(u)`` differs), a window edge excluded (``<`` for
    ``≤``), a kernel not set to 0 outside its window, and NaN values.

    Reference::

        u = torch.arange(-300, 301, dtype=torch.float64) / 100
        torch.allclose(fn(u), attnlib.kernels.KERNELS[name](u))

    Args:
        fn: the learner's ``K(u)``, elementwise on a tensor ``u`` of any shape.
        name: one of ``"gaussian"``, ``"boxcar"``, ``"constant"``, ``"epanechnikov"``,
            ``"triangular"``.

    Returns:
        :class:`CheckResult`. Raises TypeError if ``fn`` is not callable, ValueError for an
        unknown ``name``.

    Example::

        >>> triangular = lambda u: torch.clamp(1 - u.abs(), min=0)
        >>> check_kernel(triangular, "epanechnikov")  # doctest: +ELLIPSIS
        Not yet: your "epanechnikov" kernel is the triangular kernel 1 − |u| ...
        >>> bool(check_kernel(lambda u: 0.75 * torch.clamp(1 - u ** 2, min=0), "epanechnikov"))
        True
    """
    _require_callable(fn, "check_kernel")
    from attnlib.kernels import KERNELS

    if not isinstance(name, str) or name not in KERNELS:
        hint = ""
        if name in ("epanechikov", "epanechikov_kernel"):
            hint = (
                " (the kernel's name is spelt epanechnikov; d2l's 'epanechikov' is the "
                "triangular one)"
            )
        raise ValueError(
            f"check_kernel: name must be one of {sorted(KERNELS)}; got {name!r}{hint}"
        )
    formula = KERNEL_FORMULAS.get(name, f"attnlib.kernels.{name}")
    u = _kernel_grid()
    want = KERNELS[name](u)
    u_in = u.clone()
    try:
        out = fn(u_in)
    except Exception as err:
        return _fail(
            f"calling your kernel on a float64 tensor u of shape {fmt_shape(u.shape)} raised "
            f"{_exc(err)}; K must work elementwise on a tensor (use torch functions, "
            f"not math or if/else on single numbers)"
        )
    if not torch.equal(u, u_in):
        return _fail("your kernel wrote into its input u; compute K(u) into a new tensor")
    got = _as_answer(out)
    if isinstance(got, str):
        return _fail(
            f"your kernel returned {got}; expected a tensor of the shape of u {fmt_shape(u.shape)}"
        )
    if tuple(got.shape) != tuple(u.shape):
        return _fail(
            f"your kernel returned shape {fmt_shape(got.shape)} for u of shape "
            f"{fmt_shape(u.shape)}; K must work elementwise (one value per u)"
        )
    dtype = got.dtype
    got = got.detach().to(torch.float64)
    if not torch.isfinite(got).all():
        (k,) = _first(~torch.isfinite(got))
        return _fail(
            f"your K(u) is {_num(got[k])} at u = {_num(u[k])}; expected "
            f"{_num(want[k], 4)} ({formula})"
        )
    close = torch.isclose(got, want, rtol=1e-5, atol=1e-7)
    if not close.all() and dtype in (torch.float16, torch.bfloat16):
        eps = torch.finfo(dtype).eps
        if torch.allclose(got, want, rtol=2 * eps, atol=1e-7):  # right, up to rounding
            return _fail(
                f"your kernel returned dtype {dtype} for a float64 u: its values are right up "
                f"to {dtype}'s rounding ({eps:.1g}), but K(u) must keep u's dtype (compute in "
                f"u's dtype; do not convert with .half() or .to(...))"
            )
    if close.all():
        return _check_kernel_2d(fn, name, u, want, formula)

    if name == "epanechnikov" and torch.allclose(
        got, KERNELS["triangular"](u), rtol=1e-5, atol=1e-7
    ):
        return _fail(
            'your "epanechnikov" kernel is the triangular kernel 1 − |u| on |u| ≤ 1 '
            "(the mix-up in d2l's code, issue 2440); the Epanechnikov kernel is "
            "¾(1 − u²) on |u| ≤ 1, else 0"
        )
    c = _constant_ratio(got, want)
    if c is not None:
        known = {
            ("gaussian", math.sqrt(2 * math.pi)): "you left out the normalising factor 1/√(2π)",
            ("epanechnikov", 4 / 3): "you left out the factor ¾",
            (
                "boxcar",
                2.0,
            ): "you left out the factor ½ (the boxcar is ½ on |u| ≤ 1, so it integrates to 1)",
        }
        reason = next(
            (
                text
                for (k, v), text in known.items()
                if k == name and math.isclose(c, v, rel_tol=1e-4)
            ),
            "",
        )
        return _fail(
            f"your K(u) is {c:.4g} times attnlib's {name} kernel everywhere"
            + (f": {reason}" if reason else "")
            + f" ({formula}). A constant factor cancels in the Nadaraya-Watson weights, "
            f"but K(u) itself should match"
        )
    bad = ~close
    n_bad = int(bad.sum())
    (k,) = _first(bad)
    got_s, want_s = _pair(got[k], want[k])
    edge = (u.abs() - 1).abs() <= 1e-8
    if bool((bad <= edge).all()):
        outside = bad & (u.abs() > 1) & (got != 0)
        if bool(outside.any()):  # the window reaches past |u| = 1 (e.g. |u| <= 1.0001)
            (k,) = _first(outside)
            return _fail(
                f"your K(u) differs only just outside the window: at u = "
                f"{_num(u[k], 9)} (|u| > 1) you give {_num(got[k])}, expected 0. Your "
                f"window is too wide: the kernel is 0 for every |u| > 1, so test "
                f"|u| <= 1 exactly, with no tolerance ({formula})"
            )
        return _fail(
            f"your K(u) differs only at the window edges |u| = 1: at u = {_num(u[k], 9)} "
            f"you give {got_s}, expected {want_s}. The window includes its edges: use "
            f"|u| <= 1, not < 1 ({formula})"
        )
    if float(want[k]) == 0.0 and abs(float(u[k])) > 1:
        return _fail(
            f"at u = {_num(u[k])} your K(u) is {got_s}, expected 0: outside the window "
            f"|u| ≤ 1 the kernel is 0 (set it to zero there, e.g. with torch.clamp or "
            f"torch.where) ({formula}); {n_bad} of {u.numel()} points differ"
        )
    return _fail(
        f"your K(u) differs from attnlib's {name} kernel at {n_bad} of {u.numel()} points, "
        f"first at u = {_num(u[k])}: you give {got_s}, expected {want_s} ({formula})"
    )
