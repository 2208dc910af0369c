"""Chapter 2's kernel-regression explorer, computed in the page
(attnlib.widgets.live.LiveKernelRegression).

The page's numbers are compared with attnlib's in
tests/browser/explorers/test_kernel_explorer.py; here: the reference update function against a
plain NumPy Nadaraya-Watson written in this file, every position of its grid, the declaration and
its errors."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest
import torch

from attnlib import nadaraya_watson
from attnlib.widgets import (
    Choice,
    Declaration,
    ExplorerError,
    Handle,
    Heatmap,
    Lines,
    Series,
    Slider,
)
from attnlib.widgets.live import WINDOW_U, LiveKernelRegression
from scoringbook.ch02_attention_pooling import (
    kernel_regression_declaration,
    kernel_regression_explorer,
)
from scoringbook.registry import compute

SQRT_2PI = np.sqrt(2 * np.pi)


def kernel(name: str, u: np.ndarray) -> np.ndarray:
    """K(u) from the textbook formulas (not attnlib's log-kernels)."""
    a = np.abs(u)
    return {
        "gaussian": np.exp(-u * u / 2) / SQRT_2PI,
        "boxcar": np.where(a <= 1, 0.5, 0.0),
        "constant": np.ones_like(u),
        "epanechnikov": np.where(a < 1, 0.75 * (1 - u * u), 0.0),
        "triangular": np.where(a < 1, 1 - a, 0.0),
    }[name]


def nw_weights(x_train: np.ndarray, q: np.ndarray, name: str, h: float) -> np.ndarray:
    """(n_queries, n_train): K / sum K; the Gaussian with the nearest distance factored out
    (so a narrow window does not underflow); an empty window -> 1 on the nearest point."""
    d = q[:, None] - x_train[None, :]  # (n_queries, n_train)
    if name == "gaussian":
        k = np.exp(-(d * d - (d * d).min(1, keepdims=True)) / (2 * h * h))
    else:
        k = kernel(name, d / h)
    z = k.sum(1, keepdims=True)
    nearest = np.eye(len(x_train))[np.abs(d).argmin(1)]  # (n_queries, n_train)
    return np.where(z > 0, k / np.where(z > 0, z, 1), nearest)


@pytest.fixture(scope="module")
def decl():
    return kernel_regression_declaration()


def test_nothing_is_precomputed_and_the_state_is_small():
    ex = kernel_regression_explorer()
    assert ex.frames == [] and ex.data == {}
    assert [len(p["values"]) for p in ex.spec["params"]] == [
        5,
        25,
        101,
    ]  # 12 625 positions, none stored
    gz = len(gzip.compress(json.dumps(ex.get_state()).encode(), 9))
    # the module grew 1.1 kB gzip in issue 26 (presets), 14 bytes for Lines(xticks) (issue 37),
    # 91 for a notice that says when the controls have moved off its preset (issue 37), 423
    # for spoken.js and the speed menu's label (issue 39's cold read of chapters 9 and 10), 166
    # for the colour bars' words on their value^0.6 scale (issue 39), about 65 for every named
    # row labelled (issue 39), and the phone's paired controls: 28.0 kB measured with all of them;
    # 28.85 kB with stop 44's read-outs (shares in words, the outlined fixed query named, a
    # declared read row) and pictures in either mode
    assert gz < 29_000, f"{gz} bytes gzip"
    live = ex.spec["live"]
    assert (
        live["kind"] == "kernel_regression"
        and len(live["x_train"]) == 40
        and len(live["window_u"]) == 161
    )
    fit = next(p for p in ex.spec["panels"] if p["name"] == "fit")
    assert fit["handle"] == {"x": "query", "y": None, "label": "query", "color": "#D55E00"}
    assert [s["linked_rows"] for s in fit["series"]] == [False, False, True]
    window = next(p for p in ex.spec["panels"] if p["name"] == "window")
    assert [t["top"] for t in window["ytops"]] == [0.125, 0.25, 0.5, 1.0]


def test_compute_is_nadaraya_watson_at_random_positions(decl):
    """compute() against the NumPy reference: fit, prediction at the query, the heatmap's rows
    and their points, the query's bars and the kernel window."""
    m = decl.meta
    xt, yt = m["x_train"].numpy(), m["y_train"].numpy()
    xf, xh = m["x_fit"].numpy(), m["x_heat"].numpy()
    rng = np.random.default_rng(0)
    kernels, hs, qs = (p.values if isinstance(p, Slider) else p.options for p in decl.params)
    for _ in range(60):
        name, h, q = str(rng.choice(kernels)), float(rng.choice(hs)), float(rng.choice(qs))
        got = compute("kernel_regression", kernel=name, bandwidth=h, query=q)
        where = f"{name}, h={h}, query={q}"
        np.testing.assert_allclose(
            got["fit"]["Nadaraya-Watson"],
            nw_weights(xt, xf, name, h) @ yt,
            atol=1e-9,
            err_msg=where,
        )
        w_q = nw_weights(xt, np.array([q]), name, h)[0]  # (40,)
        np.testing.assert_allclose(
            got["window"]["weight on each training point"], w_q, atol=1e-9, err_msg=where
        )
        np.testing.assert_allclose(
            got["fit"]["prediction"], [[q], [w_q @ yt]], atol=1e-9, err_msg=where
        )
        w_h = nw_weights(xt, xh, name, h)
        np.testing.assert_allclose(got["weights"], w_h, atol=1e-9, err_msg=where)
        np.testing.assert_allclose(
            got["fit"]["queries of the heatmap"], [xh, w_h @ yt], atol=1e-9, err_msg=where
        )
        t, y = got["window"]["kernel window"]  # (161,) each
        want_t = np.linspace(0, 5, 161) if name == "constant" else q + h * WINDOW_U
        np.testing.assert_allclose(t, want_t, atol=1e-12, err_msg=where)
        k_t = kernel(name, (t - q) / h)
        z = kernel(name, (q - xt) / h).sum()
        if name == "gaussian":  # relative to the nearest point, as above
            d2 = (q - xt) ** 2
            want_y = (
                np.exp(-((t - q) ** 2 - d2.min()) / (2 * h * h))
                / np.exp(-(d2 - d2.min()) / (2 * h * h)).sum()
            )
        else:
            want_y = np.where(k_t > 0, k_t / z if z > 0 else 1.0, 0.0)
        np.testing.assert_allclose(y, np.minimum(1, want_y), atol=1e-9, err_msg=where)


def test_kernel_regression_over_its_whole_input_range(decl):
    """Every kernel, bandwidth and query position (12 625): weights finite, >= 0, rows sum to 1;
    the fit inside the range of the targets; the bars sit on the window curve (the window at a
    training input is that input's weight, up to the cap at 1); a narrow window keeps only the
    nearest training input."""
    m = decl.meta
    xt, yt = m["x_train"].numpy(), m["y_train"].numpy()
    kernels, hs, qs = (p.values if isinstance(p, Slider) else p.options for p in decl.params)
    q = np.array(qs)  # (101,)
    for name in kernels:
        for h in hs:  # all 101 queries at once, through the function the update calls
            y_hat, w = (
                a.numpy()
                for a in nadaraya_watson(m["x_train"], m["y_train"], torch.tensor(q), name, h)
            )
            np.testing.assert_allclose(
                w, nw_weights(xt, q, name, h), atol=1e-9, err_msg=f"{name}, h={h}"
            )
            np.testing.assert_allclose(y_hat, w @ yt, atol=1e-9)
            assert np.isfinite(w).all() and (w >= 0).all()
            np.testing.assert_allclose(w.sum(1), 1, atol=1e-12)
            fit = w @ yt
            assert fit.min() >= yt.min() - 1e-9 and fit.max() <= yt.max() + 1e-9
            if name == "gaussian" and h == hs[0]:
                assert (w.argmax(1) == np.abs(q[:, None] - xt).argmin(1)).all()
    # the same through attnlib at a spread of positions, window included (compute is slower)
    for name in kernels:
        for h in list(hs[::4]) + [hs[-1]]:
            for qq in qs[::25]:
                got = compute("kernel_regression", kernel=name, bandwidth=h, query=qq)
                bars = got["window"]["weight on each training point"]
                t, y = got["window"]["kernel window"]
                assert np.isfinite(y).all() and (y >= 0).all() and (y <= 1).all()
                inside = (xt > t.min()) & (xt < t.max())
                if name != "gaussian":  # away from a compact kernel's edges, where the curve jumps
                    inside &= np.abs(np.abs(xt - qq) / h - 1) > 0.06
                if (
                    name != "constant" and bars.max() < 1 and inside.any()
                ):  # training points in the window
                    on_curve = np.interp(xt[inside], t, y)
                    # the bars touch the curve (linear interpolation between 161 samples)
                    assert (
                        np.abs(on_curve - bars[inside]).max()
                        <= 0.02 * max(bars.max(), 1e-12) + 1e-6
                    ), (name, h, qq)


def test_the_narrow_boxcar_uses_the_empty_window_rule():
    got = compute("kernel_regression", kernel="boxcar", bandwidth=0.01, query=2.5)
    bars = got["window"]["weight on each training point"]
    x_train = kernel_regression_declaration().meta["x_train"].numpy()
    j = int(np.abs(2.5 - x_train).argmin())
    assert (
        bars[j] == 1 and bars.sum() == 1
    )  # no point within 0.01 of 2.5: the nearest takes it all
    t, y = got["window"]["kernel window"]
    assert set(np.unique(y)) == {0.0, 1.0} and np.all(y[np.abs(t - 2.5) <= 0.01] == 1)


# ----------------------------------------------------------------------------- declarations


def _parts():
    x = [0.0, 1.0, 2.0]
    params = [
        Choice("kernel", ["gaussian", "boxcar"]),
        Slider("h", [0.5, 1.0]),
        Slider("q", [0.0, 1.0, 2.0]),
    ]
    panels = [
        Lines(
            "fit",
            x=[0.0, 1.0, 2.0],
            series=["fit", Series("at", xy=True, style="points")],
            xlim=(0, 2),
            ylim=(0, 3),
            handle=Handle("q", None, label="query"),
        ),
        Lines(
            "w",
            x=x,
            series=[Series("bars", style="bars"), Series("win", xy=True)],
            xlim=(0, 2),
            ylim=(0, 1),
        ),
        Heatmap("weights"),
    ]
    live = dict(
        x_train=x,
        y_train=[0.0, 1.0, 3.0],
        query="q",
        kernel="kernel",
        bandwidth="h",
        fit=("fit", "fit"),
        marker=("fit", "at"),
        bars=("w", "bars"),
        window=("w", "win"),
        weights="weights",
        heat_x=[0.5, 1.5],
    )
    return params, panels, live


def _update(kernel, h, q):
    return {
        "fit": {"fit": np.zeros(3), "at": np.zeros((2, 1))},
        "w": {"bars": np.zeros(3), "win": np.zeros((2, 5))},
        "weights": np.full((2, 3), 1 / 3),
    }


def test_a_well_formed_toy_declares():
    params, panels, live = _parts()
    d = Declaration(
        "toy", update=_update, params=params, panels=panels, live=LiveKernelRegression(**live)
    )
    assert d.live.spec()["kind"] == "kernel_regression"


@pytest.mark.parametrize(
    "change, match",
    [
        ({"query": "h2"}, r"query 'h2' is not a Slider"),
        ({"kernel": "h"}, r"kernel 'h' must be a Choice among"),
        ({"bandwidth": "kernel"}, r"bandwidth 'kernel' must be a Slider of positive values"),
        ({"weights": "fit"}, r"weights 'fit' is not a Heatmap panel"),
        (
            {"marker": ("fit", "fit")},
            r"marker \('fit', 'fit'\) must name an xy series of a Lines panel",
        ),
        ({"bars": ("w", "win")}, r"bars \('w', 'win'\) must name a series of a Lines panel"),
        ({"x_train": [0.0, 1.0, 2.5]}, r"the bars panel 'w' must have x = x_train"),
    ],
)
def test_bad_live_kernel_declarations_say_what_is_wrong(change, match):
    params, panels, live = _parts()
    with pytest.raises(
        ExplorerError, match=r"explorer 'toy' \(live kernel regression\): " + match
    ):
        Declaration(
            "toy",
            update=_update,
            params=params,
            panels=panels,
            live=LiveKernelRegression(**{**live, **change}),
        )


def test_a_series_the_page_does_not_compute_or_axes_from_one_frame_are_errors():
    params, panels, live = _parts()
    extra = Lines(
        "w",
        x=[0.0, 1.0, 2.0],
        series=[Series("bars", style="bars"), Series("win", xy=True), "other"],
        xlim=(0, 2),
        ylim=(0, 1),
    )
    with pytest.raises(
        ExplorerError,
        match=r"series 'other' of panel 'w' changes, but the browser does not compute it",
    ):
        Declaration(
            "toy",
            update=_update,
            params=params,
            panels=[panels[0], extra, panels[2]],
            live=LiveKernelRegression(**live),
        )
    loose = Lines(
        "w", x=[0.0, 1.0, 2.0], series=[Series("bars", style="bars"), Series("win", xy=True)]
    )
    with pytest.raises(ExplorerError, match=r"panel 'w' needs xlim and ylim"):
        Declaration(
            "toy",
            update=_update,
            params=params,
            panels=[panels[0], loose, panels[2]],
            live=LiveKernelRegression(**live),
        )
    with pytest.raises(
        ExplorerError,
        match=r"x_train and y_train must have shape "
        r"\(n_train,\)",
    ):
        LiveKernelRegression(**{**live, "y_train": [1.0]})


def test_a_one_dimensional_handle_needs_only_its_x_range():
    params = [Slider("q", [0.0, 1.0, 2.0])]
    d = Declaration(
        "toy",
        update=lambda q: {"p": {"a": np.zeros(2)}},
        params=params,
        panels=[Lines("p", x=[0.0, 1.0], series=["a"], xlim=(0, 2), handle=Handle("q", None))],
    )
    assert d.panels[0].handle.y is None
    with pytest.raises(
        ExplorerError,
        match=r"control 'q': its values run from 0 to 2, outside panel 'p''s "
        r"xlim",
    ):
        Declaration(
            "toy",
            update=lambda q: {},
            params=params,
            panels=[Lines("p", x=[0.0, 1.0], series=["a"], xlim=(0, 1), handle=Handle("q", None))],
        )


def test_sigma_is_read_out_at_two_decimals_and_small_ones_at_two_figures():
    """The book reads a bandwidth out at two decimals; below 0.1 at two significant figures, so
    a log-spaced slider's neighbours (0.01 and 0.013) are not both "0.01"."""
    from scoringbook.ch02_attention_pooling import sigma_text

    cases = {0.486: "0.49", 5.0: "5.00", 1.0: "1.00", 0.103: "0.10", 0.0995: "0.10",
             0.0994: "0.099", 0.0613: "0.061", 0.013: "0.013", 0.01: "0.01", 0.0084: "0.0084",
             0.25: "0.25", 2.98: "2.98"}  # fmt: skip
    assert {s: sigma_text(s) for s in cases} == cases
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="sigma_text: sigma must be (a finite number )?> 0"):
            sigma_text(bad)


def test_the_bandwidth_read_out_says_what_the_presets_say(decl):
    """Issue 39's cold read: chapter 2's presets said "σ ≈ 0.49" while the slider read out
    "σ = 0.486". Every preset that names a σ ("σ ≈ 0.49", "σ = 5.00") names the slider's own
    read-out at the bandwidth it sets; the read-outs are distinct and have two decimals, or two
    significant figures below 0.1."""
    import re

    (slider,) = [p for p in decl.params if p.name == "bandwidth"]
    said = dict(zip(slider.values, slider.value_labels))
    assert len(set(said.values())) == len(said), f"two bandwidths read out alike: {said}"
    for value, text in said.items():
        number = re.fullmatch(r"σ = (\d+\.\d+)", text)
        assert number, f"bandwidth {value} reads {text!r}"
        digits = number.group(1).split(".")[1]
        assert len(digits) == 2 or (value < 0.1 and len(digits.lstrip("0")) <= 2), text
        assert abs(float(number.group(1)) - value) <= 0.5 * 10 ** -len(digits) + 1e-12, text
    named = 0
    for p in decl.presets:
        m = re.search(r"σ [≈=] (\d+(?:\.\d+)?)", p.label)
        if m:
            named += 1
            assert said[p.values["bandwidth"]] == f"σ = {m.group(1)}", (
                f"preset {p.label!r} sets σ = {p.values['bandwidth']}, read out as "
                f"{said[p.values['bandwidth']]!r}"
            )
    assert named >= 4, f"only {named} presets name a σ"
