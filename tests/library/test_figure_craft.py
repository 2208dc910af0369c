"""Figure craft in attnlib.plotting (issue 39, item 6): readable log ticks at the measured
values, whole-number axes for whole-number data, legends off the data, and a colour bar that
says when its scale is not linear. Each check failed on the library before issue 39 (log axes
labelled their minor ticks "2x10^1 3x10^1 ...", an integer x axis was ticked at 0.5 steps, the
legend sat inside the axes at matplotlib's "best" spot, the power-law bar said only "attention
weight")."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest
import torch

from attnlib.plotting import plot_lines, show_heatmaps

matplotlib.use("Agg")


def _axes(fig):
    return [ax for ax in fig.axes if ax.get_label() != "<colorbar>"][0]


def _labels(fig, ax, which):
    fig.canvas.draw()
    axis = ax.xaxis if which == "x" else ax.yaxis
    major = [t.get_text() for t in axis.get_ticklabels() if t.get_visible() and t.get_text()]
    minor = [
        t.get_text() for t in axis.get_ticklabels(minor=True) if t.get_visible() and t.get_text()
    ]
    return major, minor


def test_a_log_x_axis_is_ticked_at_the_measured_values_as_plain_numbers():
    d = np.array([16.0, 32.0, 64.0, 128.0, 256.0])
    fig = plot_lines(d, {"variance": d * 1.01}, xlabel="d", ylabel="Var", logx=True, logy=True)
    ax = _axes(fig)
    major, minor = _labels(fig, ax, "x")
    visible = [t for t in major if ax.get_xlim()[0] <= float(t) <= ax.get_xlim()[1]]
    assert visible == ["16", "32", "64", "128", "256"], major
    assert minor == [], f"minor tick labels print over each other: {minor}"
    ymajor, yminor = _labels(fig, ax, "y")
    assert yminor == [], f"log y minor labels: {yminor}"
    assert all("10^" not in t and "times" not in t for t in ymajor), ymajor


def test_whole_number_x_data_gets_whole_number_ticks():
    keys = np.arange(3)  # three keys: matplotlib's own ticks are 0, 0.5, 1, 1.5, 2
    fig = plot_lines(keys, {"weight": np.array([0.1, 0.3, 0.6])}, xlabel="key", ylabel="weight")
    ax = _axes(fig)
    fig.canvas.draw()
    ticks = [t for t in ax.get_xticks() if ax.get_xlim()[0] <= t <= ax.get_xlim()[1]]
    assert ticks and all(float(t).is_integer() for t in ticks), f"ticks {ticks} (key 1.5?)"


@pytest.mark.parametrize("narrow", [False, True])
def test_a_vertical_marker_line_leaves_a_whole_number_axis_whole(narrow):
    """Chapter 8's phone figure was ticked 2.5, 5.0, 7.5 over digits 1 to 16: its "longest in
    training" line at 8.5 made the axis look continuous."""
    from attnlib.plotting._theme import LIGHT

    digits = np.arange(1, 17)
    curves = {"model": np.linspace(1, 0, 16), "longest in training": ([8.5, 8.5], [0.0, 1.0])}
    fig = plot_lines(digits, curves, xlabel="digits", ylabel="exact", figsize=(7, 3.2))
    fig = fig._attnlib_redraw(LIGHT, narrow, False)
    ax = _axes(fig)
    fig.canvas.draw()
    ticks = [t for t in ax.get_xticks() if ax.get_xlim()[0] <= t <= ax.get_xlim()[1]]
    assert ticks and all(float(t).is_integer() for t in ticks), f"ticks {ticks}"


def test_the_legend_is_off_the_data():
    x = np.linspace(0, 1, 50)
    fig = plot_lines(x, {"a": x, "b": 1 - x, "c": 0.5 + 0 * x}, xlabel="x", ylabel="y")
    ax = _axes(fig)
    fig.canvas.draw()
    legends = [*fig.legends, *([ax.get_legend()] if ax.get_legend() else [])]
    assert len(legends) == 1
    r = fig.canvas.get_renderer()
    box, area = legends[0].get_window_extent(r), ax.get_window_extent(r)
    overlap = box.x0 < area.x1 and area.x0 < box.x1 and box.y0 < area.y1 and area.y0 < box.y1
    assert not overlap, f"legend {box} lies over the axes {area}"


@pytest.mark.parametrize("power", [True, False])
def test_a_power_law_colour_bar_says_it_is_not_linear(power):
    w = np.array([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]])
    kwargs = {} if power else {"cmap": "viridis"}
    fig = show_heatmaps(w, xlabel="keys", ylabel="queries", **kwargs)
    (bar,) = [ax for ax in fig.axes if ax.get_label() == "<colorbar>"]
    label = bar.get_ylabel() or bar.get_xlabel()
    assert ("not linear" in label or "∝ value^" in label) == power, label


def test_a_legend_above_the_axes_never_widens_the_picture():
    """Three long labels over a 4-inch figure: the legend takes fewer columns rather than
    widen the saved picture past the figure (chapter 5's timing figure was saved 598 px wide
    for a 400 px figure, and a phone then showed its 9-pt text at 7 px)."""
    import io

    from PIL import Image

    lengths = [16, 32, 64, 128, 256]
    curves = {
        "additive": torch.linspace(1, 2, 5),
        "scaled dot product": torch.linspace(0.01, 0.1, 5),
        "additive works in blocks past n = 90": torch.linspace(0.5, 1.0, 5),
    }
    fig = plot_lines(lengths, curves, logx=True, xlabel="n", ylabel="time")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")
    width_px = Image.open(buf).size[0]
    assert width_px <= fig.get_figwidth() * fig.dpi * 1.05, (
        f"saved {width_px} px wide for a {fig.get_figwidth() * fig.dpi:.0f} px figure"
    )


def test_a_log_y_axis_over_six_decades_is_ticked_at_the_powers_of_ten_readably_on_a_phone():
    # chapter 9's cost plot: n^2 * 4 bytes in GiB for one and 32 heads, n = 1e3 .. 1e5 (about
    # 0.004 .. 1200 GiB). Ticked at 1, 2 and 5 per decade it printed 19 labels a few px apart.
    from attnlib.plotting import _theme
    from attnlib.plotting.variants import figure_variants

    n = torch.tensor([1e3, 3e3, 1e4, 3e4, 1e5])
    one = n**2 * 4 / 2**30
    kw = dict(xlabel="n", ylabel="GiB", logx=True, logy=True, figsize=(5.5, 2.8))
    fig = plot_lines(n, {"32 heads": 32 * one, "1 head": one}, **kw)
    narrow = fig._attnlib_redraw(_theme.LIGHT, True, False)
    ax = _axes(narrow)
    major, minor = _labels(narrow, ax, "y")
    lo, hi = ax.get_ylim()
    shown = [t for t in major if lo <= float(t) <= hi]
    assert minor == [], f"minor tick labels: {minor}"
    assert all(np.log10(float(t)).is_integer() for t in shown), shown
    assert 4 <= len(shown) <= 8, shown
    # readable on a 390-px phone: the narrow picture is shown at most 358 px wide
    (variant,) = [
        v for v in figure_variants(fig) if (v["layout"], v["theme"]) == ("narrow", "light")
    ]
    assert variant["label_scale"] * min(variant["width"], 358) >= 10.5, variant["label_scale"]
    # and no two tick labels touch
    renderer = narrow.canvas.get_renderer()
    boxes = sorted(
        (t.get_window_extent(renderer) for t in ax.yaxis.get_ticklabels()
         if t.get_visible() and t.get_text() and lo <= float(t.get_text()) <= hi),
        key=lambda b: b.y0,
    )  # fmt: skip
    gaps = [b.y0 - a.y1 for a, b in zip(boxes, boxes[1:])]
    assert min(gaps) > 2, gaps
