"""attnlib.plotting.plot_bars: small bar charts that replace number-dense sentences (chapters 7
and 8). The bars hold the values unchanged, each labelled with its value; bad input is refused,
naming the argument."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch

from attnlib.plotting import plot_bars


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def test_bars_hold_the_values_in_order_labelled_with_them():
    fig = plot_bars(
        ["a", "b", "c"],
        {"x": torch.tensor([0.25, 0.5, 1.0]), "y": np.array([0.1, 0.2, 0.3])},
        xlabel="row",
        ylabel="share",
    )
    ax = fig.axes[0]
    heights = [round(p.get_height(), 6) for p in ax.patches]
    assert heights == [0.25, 0.5, 1.0, 0.1, 0.2, 0.3]  # series by series
    # the two bars of a category sit either side of its tick, series in order
    xs = [p.get_x() + p.get_width() / 2 for p in ax.patches]
    assert xs[0] < 0 < xs[3] and xs[1] < 1 < xs[4]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b", "c"]
    labels = [t.get_text() for t in ax.texts]
    assert labels == ["0.25", "0.50", "1.00", "0.10", "0.20", "0.30"]
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["x", "y"]
    assert ax.get_xlabel() == "row" and ax.get_ylabel() == "share"


def test_one_series_has_no_legend_and_the_format_and_limits_apply():
    fig = plot_bars(
        ["1", "2"],
        {"n": [3, 950]},
        xlabel="k",
        ylabel="count",
        value_format="{:.0f}",
        ylim=(0, 1100),
    )
    ax = fig.axes[0]
    assert ax.get_legend() is None and not fig.legends
    assert [t.get_text() for t in ax.texts] == ["3", "950"]
    assert ax.get_ylim() == (0, 1100)
    assert min(t.get_fontsize() for t in ax.texts) >= 9  # attnlib's smallest text


def test_negative_values_extend_the_axis_below_zero():
    fig = plot_bars(["a", "b"], {"d": [-0.5, 0.5]}, xlabel="k", ylabel="change")
    assert fig.axes[0].get_ylim()[0] <= -0.5


def test_the_tallest_bars_label_stays_inside_the_axes():
    # chapter 8's first chart had the tallest bars' labels on the frame: room is left above
    fig = plot_bars(["a", "b"], {"n": [5, 8]}, xlabel="k", ylabel="digit", value_format="{:.0f}")
    ax = fig.axes[0]
    fig.canvas.draw()
    top = ax.get_window_extent().y1
    assert all(t.get_window_extent().y1 <= top for t in ax.texts)


@pytest.mark.parametrize("narrow", [False, True], ids=["page", "phone"])
def test_neighbouring_bars_labels_never_touch_and_stay_inside(narrow):
    # chapter 6's phone figure printed "0.030.03": two series' labels wider than their bars
    from attnlib.plotting._theme import LIGHT

    groups = {"soft weights": [0.64, 0.24, 0.09, 0.03], "hard: share": [0.64, 0.23, 0.09, 0.03]}
    fig = plot_bars(["0", "1", "2", "3"], groups, xlabel="key", ylabel="w", figsize=(4.2, 2.6))
    fig = fig._attnlib_redraw(LIGHT, narrow, False)
    ax = fig.axes[0]
    fig.canvas.draw()
    boxes = [(t.get_text(), t.get_window_extent()) for t in ax.texts]
    assert sorted(t for t, _ in boxes) == sorted(f"{v:.2f}" for vs in groups.values() for v in vs)
    for i, (ta, a) in enumerate(boxes):
        assert a.y1 <= ax.get_window_extent().y1, ta
        for tb, b in boxes[i + 1 :]:
            side = max(b.x0 - a.x1, a.x0 - b.x1)  # px between them side by side
            same_line = min(a.y1, b.y1) - max(a.y0, b.y0) > 0
            assert not (same_line and side < 3), (ta, tb, side)


@pytest.mark.parametrize(
    "args, kwargs, error, match",
    [
        (
            "ab",
            {"s": [1, 2]},
            TypeError,
            r"categories must be a list of strings; got a str \('ab'\)",
        ),
        ([], {"s": []}, ValueError, "categories must hold at least one string; got an empty list"),
        (
            ["a", 1],
            {"s": [1, 2]},
            TypeError,
            r"categories must be strings; categories\[1\] is 1 \(int\)",
        ),
        (["a", "b"], [1, 2], TypeError, "groups"),
        (["a", "b"], {"s": [1, 2, 3]}, ValueError, "groups\\['s'\\]"),
        (["a", "b"], {"s": [[1, 2]]}, ValueError, "groups\\['s'\\]"),
        (["a", "b"], {"s": [1, float("nan")]}, ValueError, "groups\\['s'\\]"),
    ],
)
def test_bad_data_is_refused_naming_the_argument(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        plot_bars(args, kwargs, xlabel="x", ylabel="y")


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"xlabel": 1}, TypeError, "xlabel must be a str"),
        (
            {"ylim": (1, 0)},
            ValueError,
            r"ylim must be \(lo, hi\) with finite lo < hi; got \(1, 0\)",
        ),
        ({"ylim": 1}, TypeError, "ylim must be a pair"),
        ({"value_format": 3}, TypeError, "value_format must be a str"),
        ({"value_format": "{:q}"}, ValueError, "value_format must format one number"),
        ({"value_format": "{0} {1}"}, ValueError, "value_format must format one number"),
        ({"figsize": (0, 2)}, ValueError, "figsize"),
    ],
)
def test_bad_options_are_refused_naming_the_argument(kwargs, error, match):
    args = {"xlabel": "x", "ylabel": "y", **kwargs}
    with pytest.raises(error, match=match):
        plot_bars(["a"], {"s": [1.0]}, **args)
