"""Tests for attnlib.plotting: pyplot-managed figures (as d2l), data drawn unchanged."""

from __future__ import annotations

import copy

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch
from matplotlib.colors import to_hex
from matplotlib.figure import Figure

from attnlib import plotting
from attnlib.plotting import (
    plot_histograms,
    plot_kernels,
    plot_lines,
    plot_regression,
    show_heatmaps,
)


def _legend_texts(fig, ax):
    """The entries of the one legend: above the axes (a figure legend, off the data: issue 39)
    or inside them at a corner the caller chose."""
    legends = [*fig.legends, *([ax.get_legend()] if ax.get_legend() else [])]
    assert len(legends) == 1, f"{len(legends)} legends"
    return [t.get_text() for t in legends[0].get_texts()]


def _gen(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _panels(fig: Figure):
    """Heatmap panels (axes holding an image), in the order they were created."""
    return [ax for ax in fig.axes if ax.images]


def _colorbar_axes(fig: Figure):
    return [ax for ax in fig.axes if not ax.images]


def _rc_snapshot():
    return copy.deepcopy(dict(matplotlib.rcParams))


# --------------------------------------------------------------------------- show_heatmaps
def test_heatmap_grid_axes_labels_titles():
    weights = torch.rand(2, 3, 4, 5, generator=_gen())  # (rows, cols, n_queries, n_keys)
    fig = show_heatmaps(weights, "keys", "queries", titles=["a", "b", "c"])
    assert isinstance(fig, Figure)
    panels = _panels(fig)
    assert len(panels) == 6 and len(fig.axes) == 7  # six panels + colour bar
    # several panels a row: the x label once under them (one per panel would collide)
    assert fig.get_supxlabel() == "keys"
    for k, ax in enumerate(panels):
        i, j = divmod(k, 3)
        assert ax.get_xlabel() == ""
        assert ax.get_ylabel() == ("queries" if j == 0 else "")
        assert ax.get_title() == "abc"[j]
    (cbar,) = _colorbar_axes(fig)
    # the weights' scale is a power law (gamma 0.6): the bar says so under its name (issue 39)
    assert cbar.get_ylabel() == "attention weight\n(colour ∝ value^0.6: small values stand out)"


def test_heatmap_images_hold_the_input_exactly():
    weights = torch.rand(2, 3, 4, 5, generator=_gen(1), dtype=torch.float64)
    fig = show_heatmaps(weights, "keys", "queries")
    for k, ax in enumerate(_panels(fig)):
        i, j = divmod(k, 3)
        shown = np.asarray(ax.images[0].get_array())
        np.testing.assert_array_equal(shown, weights[i, j].numpy())


def test_heatmap_queries_are_rows_keys_are_columns():
    weights = torch.rand(2, 7, generator=_gen(2))  # (n_queries, n_keys)
    fig = show_heatmaps(weights, "keys", "queries")
    (ax,) = _panels(fig)
    assert ax.images[0].get_array().shape == (2, 7)
    assert ax.get_xlim() == pytest.approx((-0.5, 6.5))  # 7 keys across
    assert ax.get_ylim() == pytest.approx((1.5, -0.5))  # 2 queries down, query 0 on top
    assert list(ax.get_xticks()) == list(range(7))  # every key index for small matrices
    assert list(ax.get_yticks()) == [0, 1]


def test_heatmap_large_matrix_gets_integer_ticks():
    fig = show_heatmaps(torch.rand(50, 40, generator=_gen(8)), "keys", "queries", figsize=(4, 4))
    (ax,) = _panels(fig)
    fig.canvas.draw()  # let the locator pick ticks for the final layout
    for ticks, n in ((ax.get_xticks(), 40), (ax.get_yticks(), 50)):
        visible = [t for t in ticks if -0.5 <= t <= n - 0.5]
        assert 3 <= len(visible) < n
        assert all(float(t).is_integer() for t in visible)


def test_heatmap_tick_labels_name_keys_and_queries():
    words = ["Hello", "world", "<pad>", "<pad>"]
    fig = show_heatmaps(
        torch.rand(2, 3, 4, generator=_gen(9)),
        "keys",
        "queries",
        xticklabels=words,
        yticklabels=["q0", "q1", "q2"],
    )
    panels = _panels(fig)
    for ax in panels:  # one row of panels: every one shows the key names
        assert [t.get_text() for t in ax.get_xticklabels()] == words
    # the y axis is shared: the first column names the queries
    assert [t.get_text() for t in panels[0].get_yticklabels()] == ["q0", "q1", "q2"]


@pytest.mark.parametrize(
    "shape, n_panels",
    [((3, 4), 1), ((5, 3, 4), 5), ((1, 1, 3, 4), 1), ((2, 2, 3, 4), 4)],
)
def test_heatmap_promotes_2d_and_3d(shape, n_panels):
    data = torch.rand(*shape, generator=_gen(3))
    fig = show_heatmaps(data, "keys", "queries")
    panels = _panels(fig)
    assert len(panels) == n_panels
    flat = data.reshape(-1, 3, 4)  # (rows * cols, n_queries, n_keys)
    for k, ax in enumerate(panels):
        np.testing.assert_allclose(ax.images[0].get_array(), flat[k].numpy())
    if len(shape) == 3:  # one row of panels: one x label under the row, one y label
        assert fig.get_supxlabel() == "keys" and all(ax.get_xlabel() == "" for ax in panels)
        assert [ax.get_ylabel() for ax in panels] == ["queries"] + [""] * (n_panels - 1)
    if n_panels == 1:
        assert panels[0].get_xlabel() == "keys"


def test_heatmap_accepts_grad_tensor_and_numpy():
    x = torch.rand(1, 2, 3, 3, generator=_gen(4), requires_grad=True)
    weights = torch.softmax(x, dim=-1)  # non-leaf, requires grad
    fig = show_heatmaps(weights, "keys", "queries")
    np.testing.assert_allclose(
        _panels(fig)[1].images[0].get_array(), weights[0, 1].detach().numpy()
    )
    fig2 = show_heatmaps(x, "keys", "queries")  # leaf that requires grad
    assert len(_panels(fig2)) == 2
    assert x.grad is None and x.requires_grad
    arr = np.arange(6.0).reshape(2, 3)
    fig3 = show_heatmaps(arr, "k", "q")
    np.testing.assert_array_equal(_panels(fig3)[0].images[0].get_array(), arr)


def test_heatmap_shared_colour_scale_defaults_and_overrides():
    a = torch.tensor([[0.1, 0.2], [0.3, 0.4]])
    b = torch.tensor([[0.5, 0.6], [0.7, 0.8]])
    fig = show_heatmaps(torch.stack([a, b]), "k", "q")  # (2, 2, 2): nonnegative data
    for ax in _panels(fig):
        assert ax.images[0].get_clim() == pytest.approx((0.0, 0.8))
    scores = torch.tensor([[-2.0, 1.0], [0.5, 3.0]])
    fig = show_heatmaps(scores, "k", "q", cmap="viridis", colorbar_label="score")
    assert _panels(fig)[0].images[0].get_clim() == pytest.approx((-2.0, 3.0))
    assert _panels(fig)[0].images[0].get_cmap().name == "viridis"
    assert _colorbar_axes(fig)[0].get_ylabel() == "score"
    fig = show_heatmaps(a, "k", "q", vmin=0.0, vmax=1.0)
    assert _panels(fig)[0].images[0].get_clim() == pytest.approx((0.0, 1.0))
    fig = show_heatmaps(torch.zeros(2, 2), "k", "q")  # constant matrix: a usable scale
    assert _panels(fig)[0].images[0].get_clim() == pytest.approx((0.0, 1.0))


def test_heatmap_figsize_and_text_repr():
    fig = show_heatmaps(torch.eye(3), "keys", "queries")
    assert tuple(fig.get_size_inches()) == pytest.approx((2.5, 2.5))
    assert repr(fig) == "<Figure size 250x250 with 2 Axes>"
    png = fig._repr_png_()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")


@pytest.mark.parametrize(
    "kwargs, exc, words",
    [
        (
            dict(matrices=torch.rand(5)),
            ValueError,
            ["matrices", "(5,)", "(rows, cols, n_queries, n_keys)"],
        ),
        (dict(matrices=torch.rand(1, 1, 1, 2, 2)), ValueError, ["matrices", "(1, 1, 1, 2, 2)"]),
        (dict(matrices="weights"), TypeError, ["matrices", "str"]),
        (dict(matrices=None), TypeError, ["matrices"]),
        (dict(matrices=torch.zeros(2, 0)), ValueError, ["matrices", "empty"]),
        (
            dict(matrices=torch.tensor([[0.5, float("nan")]])),
            ValueError,
            ["matrices", "NaN", "(0, 0, 0, 1)"],
        ),
        (
            dict(matrices=torch.rand(2, 3, 2, 2), titles=["a", "b"]),
            ValueError,
            ["titles", "expected 3", "got 2", "(2, 3, 2, 2)"],
        ),
        (dict(matrices=torch.rand(2, 2), titles="ab"), TypeError, ["titles"]),
        (dict(matrices=torch.rand(2, 2), xlabel=3), TypeError, ["xlabel"]),
        (dict(matrices=torch.rand(2, 2), vmin=1.0, vmax=0.0), ValueError, ["vmax", "vmin"]),
        (dict(matrices=torch.rand(2, 2), figsize=(2,)), ValueError, ["figsize"]),
        (
            dict(matrices=torch.rand(2, 2, dtype=torch.complex64)),
            TypeError,
            ["matrices", "complex"],
        ),
        (
            dict(matrices=torch.rand(2, 3), xticklabels=["a", "b"]),
            ValueError,
            ["xticklabels", "expected 3", "got 2"],
        ),
        (dict(matrices=torch.rand(2, 3), yticklabels="ab"), TypeError, ["yticklabels"]),
    ],
)
def test_heatmap_bad_inputs_name_the_argument(kwargs, exc, words):
    args = dict(xlabel="keys", ylabel="queries")
    args.update(kwargs)
    with pytest.raises(exc) as info:
        show_heatmaps(**args)
    for word in words:
        assert word in str(info.value)


# --------------------------------------------------------------------------- other plots
def _line_styles(ax):
    return [(to_hex(line.get_color()), str(line.get_linestyle())) for line in ax.get_lines()]


def test_plot_lines_labels_data_and_distinct_styles():
    x = torch.linspace(0.1, 2, 20)
    ys = {"linear": x, "square": x**2, "cube": x**3, "own x": (x[:5], -x[:5])}
    fig = plot_lines(
        x, ys, xlabel="d", ylabel="variance", title="t", scatter=(x, x, "measured"), logy=True
    )
    (ax,) = fig.axes
    assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_title()) == ("d", "variance", "t")
    assert ax.get_yscale() == "log" and ax.get_xscale() == "linear"
    lines = ax.get_lines()
    assert [line.get_label() for line in lines] == list(ys)
    np.testing.assert_allclose(lines[1].get_ydata(), (x**2).numpy())
    np.testing.assert_allclose(lines[3].get_xdata(), x[:5].numpy())
    styles = _line_styles(ax)
    assert len({c for c, _ in styles}) == 4 and len({s for _, s in styles}) == 4
    assert all(c.upper() in plotting.OKABE_ITO for c, _ in styles)
    np.testing.assert_allclose(ax.collections[0].get_offsets(), np.stack([x, x], 1))
    assert _legend_texts(fig, ax) == list(ys) + ["measured"]


def test_plot_lines_rejects_mismatched_lengths():
    x = torch.arange(5.0)
    with pytest.raises(ValueError, match=r"ys\['b'\].*\(5,\).*\(4,\)"):
        plot_lines(x, {"a": x, "b": x[:4]}, xlabel="x", ylabel="y")
    with pytest.raises(TypeError, match="ys must be a dict"):
        plot_lines(x, [x], xlabel="x", ylabel="y")
    with pytest.raises(ValueError, match="x is None"):
        plot_lines(None, {"a": x}, xlabel="x", ylabel="y")


def test_plot_regression_draws_points_truth_and_fits():
    g = _gen(5)
    x_train = torch.rand(30, generator=g) * 5
    y_train = torch.sin(x_train)
    x_query = torch.linspace(0, 5, 40)
    fits = {"gaussian": torch.cos(x_query), "boxcar": torch.sin(x_query) * 0.5}
    fig = plot_regression(x_train, y_train, x_query, fits, truth=torch.sin(x_query), title="fit")
    (ax,) = fig.axes
    assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_title()) == ("x", "y", "fit")
    np.testing.assert_allclose(
        ax.collections[0].get_offsets(), np.stack([x_train, y_train], 1), rtol=1e-6
    )
    lines = ax.get_lines()
    assert [line.get_label() for line in lines] == ["truth", "gaussian", "boxcar"]
    assert to_hex(lines[0].get_color()) == "#000000" and lines[0].get_linestyle() == "--"
    np.testing.assert_allclose(lines[1].get_ydata(), fits["gaussian"].numpy())
    assert lines[1].get_color() != lines[2].get_color()
    assert lines[1].get_linestyle() != lines[2].get_linestyle()
    with pytest.raises(ValueError, match=r"fits\['gaussian'\].*x_query.*\(40,\).*\(39,\)"):
        plot_regression(x_train, y_train, x_query, {"gaussian": x_query[1:]})
    with pytest.raises(ValueError, match=r"y_train.*\(30,\).*\(29,\)"):
        plot_regression(x_train, y_train[1:], x_query, fits)


def test_plot_histograms_shared_bins_and_legend_order():
    g = _gen(6)
    samples = {
        "q·k": torch.randn(500, generator=g) * 8,
        "q·k/√d": torch.randn(2, 250, generator=g),
    }
    fig = plot_histograms(samples, xlabel="score", bins=25, title="h")
    (ax,) = fig.axes
    assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_title()) == ("score", "count", "h")
    assert _legend_texts(fig, ax) == list(samples)
    step_paths = [p for p in ax.patches]
    assert len(step_paths) == 2
    # Same bin edges: the x coordinates of both step outlines coincide.
    xs = [np.unique(p.get_xy()[:, 0]) for p in step_paths]
    np.testing.assert_allclose(xs[0], xs[1])
    assert len(xs[0]) == 26
    assert step_paths[0].get_linestyle() != step_paths[1].get_linestyle()
    fig = plot_histograms({"a": torch.randn(50, generator=g)}, xlabel="v", density=True)
    assert fig.axes[0].get_ylabel() == "density"
    with pytest.raises(ValueError, match=r"samples\['a'\].*NaN"):
        plot_histograms({"a": torch.tensor([1.0, float("nan")])}, xlabel="v")


def test_plot_kernels_one_panel_per_kernel():
    u = torch.linspace(-2, 2, 41)
    values = {"boxcar": (u.abs() <= 1).double() / 2, "triangular": (1 - u.abs()).clamp(min=0)}
    fig = plot_kernels(u, values)
    assert [ax.get_title() for ax in fig.axes] == ["boxcar", "triangular"]
    assert [ax.get_ylabel() for ax in fig.axes] == ["K(u)", ""]
    assert all(ax.get_xlabel() == "u" for ax in fig.axes)
    np.testing.assert_allclose(
        fig.axes[1].get_lines()[0].get_ydata(), values["triangular"].numpy()
    )
    with pytest.raises(ValueError, match=r"values\['boxcar'\].*\(41,\)"):
        plot_kernels(u, {"boxcar": u[:3]})


# --------------------------------------------------------------------------- global state
def test_figures_are_pyplot_figures_and_rcparams_unchanged(tmp_path):
    """Like d2l's show_heatmaps: pyplot knows every figure, plt.savefig sees the latest."""
    plt.close("all")
    before_rc = _rc_snapshot()
    x = torch.linspace(0, 1, 10, requires_grad=True)
    figs = [
        show_heatmaps(torch.rand(2, 2, 3, 3, generator=_gen(7)), "k", "q", titles=["a", "b"]),
        plot_lines(x, {"a": x * 2}, xlabel="x", ylabel="y", scatter=(x, x, "p"), logx=True),
        plot_regression(x, x, x, {"f": x}, truth=x),
        plot_histograms({"a": x}, xlabel="x"),
        plot_kernels(x, {"k": x}),
    ]
    assert plt.get_fignums() == [f.number for f in figs]  # registered, in order
    assert all(f.canvas.manager is not None for f in figs)
    assert plt.gcf() is figs[-1]
    path = tmp_path / "last.png"
    plt.savefig(path)  # what a d2l script does after show_heatmaps
    assert path.read_bytes().startswith(b"\x89PNG")
    for fig in figs:
        fig._repr_png_()  # rendering must not touch global state either
    after_rc = _rc_snapshot()
    changed = {k for k in before_rc if before_rc[k] != after_rc[k]}
    assert not changed
    plt.close("all")


@pytest.mark.slow
def test_importing_attnlib_loads_no_matplotlib():
    import subprocess
    import sys

    code = (
        "import sys, attnlib\n"
        "assert 'matplotlib' not in sys.modules, 'import attnlib loaded matplotlib'\n"
        "attnlib.show_heatmaps  # lazily available\n"
        "assert 'matplotlib' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.slow
def test_notebook_shows_figures_like_d2l():
    """A real kernel: figures show in loops and after `;`, once each, never plt.show()."""
    import nbformat
    from nbclient import NotebookClient

    cells = [
        "import torch, attnlib\nattnlib.show_heatmaps(torch.eye(3).reshape(1, 1, 3, 3), "
        "'keys', 'queries');",
        "for i in range(3):\n    attnlib.show_heatmaps(torch.eye(3).reshape(1, 1, 3, 3), "
        "'keys', 'queries')",
        "from attnlib.plotting import plot_lines\nfig = plot_lines(torch.arange(3.0), {'a': "
        "torch.arange(3.0)}, xlabel='x', ylabel='y')\nx = 1",
        "import matplotlib.pyplot as plt\nplt.get_fignums()",  # the inline backend closed them
    ]
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    images = [[o for o in cell.outputs if "image/png" in o.get("data", {})] for cell in nb.cells]
    assert [len(i) for i in images] == [1, 3, 1, 0]
    assert images[0][0]["data"]["text/plain"] == "<Figure size 250x250 with 2 Axes>"
    assert nb.cells[3].outputs[0]["data"]["text/plain"] == "[]"


def test_plot_lines_bands_shade_the_curve_s_spread_in_its_colour():
    x = torch.arange(4.0)
    mean, lo, hi = x / 4, x / 4 - 0.1, x / 4 + 0.1
    fig = plotting.plot_lines(
        x, {"a": mean, "b": 1 - mean}, bands={"b": (lo, hi)}, xlabel="x", ylabel="y"
    )
    ax = fig.axes[0]
    (band,) = ax.collections  # one band, for "b" only
    verts = band.get_paths()[0].vertices  # the polygon: low edge, then high edge
    assert np.allclose(sorted(set(np.round(verts[:, 1], 6))), sorted(set(np.round(
        np.concatenate([lo.numpy(), hi.numpy()]), 6))))  # fmt: skip
    line_b = ax.get_lines()[1]
    assert to_hex(band.get_facecolor()[0], keep_alpha=False) == to_hex(line_b.get_color())
    plt.close(fig)


@pytest.mark.parametrize(
    "bands, error, match",
    [
        ({"c": ([0, 0], [1, 1])}, ValueError, "no curve of ys has this label"),
        ({"a": [0, 1, 2]}, TypeError, "must be a pair"),
        ({"a": [0, 1]}, ValueError, "must be 1-D"),
        ({"a": ([0, 0, 0], [1, 1, 1])}, ValueError, r"same length as the curve 'a' \(2,\)"),
        ({"a": ([0, 2], [1, 1])}, ValueError, "low must be <= high; at index 1"),
        ({"a": ([0, float("nan")], [1, 1])}, ValueError, "must be finite"),
        ({"a": ("ab", [1, 1])}, TypeError, "tensor or array of numbers"),
        ([("a", ([0, 0], [1, 1]))], TypeError, "must be a dict"),
    ],
)
def test_plot_lines_refuses_bands_it_cannot_draw(bands, error, match):
    with pytest.raises(error, match=match):
        plotting.plot_lines([0, 1], {"a": [0.5, 0.5]}, bands=bands, xlabel="x", ylabel="y")


def test_log_x_ticks_are_the_measured_values_in_plain_numbers():
    # issue 37: matplotlib's default log ticks labelled minor ticks "2×10¹3×10¹..." (they
    # overprint) and d = 16, 128, 512 could not be read off
    import matplotlib.pyplot as plt

    d = torch.tensor([16.0, 128.0, 512.0])
    fig = plot_lines(d, {"a": d.log()}, xlabel="d", ylabel="y", logx=True)
    ax = fig.axes[0]
    fig.canvas.draw()
    labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert labels == ["16", "128", "512"]
    assert not [t.get_text() for t in ax.get_xticklabels(minor=True) if t.get_text()]
    many = torch.logspace(0, 3, 20)
    fig2 = plot_lines(many, {"a": many}, xlabel="n", ylabel="y", logx=True)
    fig2.canvas.draw()
    labels = [t.get_text() for t in fig2.axes[0].get_xticklabels() if t.get_text()]
    assert {"1", "10", "100", "1000"} <= set(labels) and all("×" not in x for x in labels)
    plt.close(fig)
    plt.close(fig2)
