"""Small bar charts: a few numbers per category, each bar labelled with its value, so that a
sentence carrying four to eight numbers can become a picture (chapters 7 and 8)."""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure

from attnlib.domains import Pair, StrList, declare
from attnlib.plotting._figure import (
    FIGSIZE,
    OPTIONAL_TEXT,
    TEXT,
    _check_1d,
    _check_figsize,
    _check_finite,
    _check_mapping,
    _drawn,
    _finish,
    _styles,
    _to_numpy,
    data,
    names_its_refusals,
)
from attnlib.plotting.lines import _legend_columns, _single_axes

__all__ = ["plot_bars"]


@declare(
    categories=StrList(nonempty=True),
    groups=data("a dict label -> finite values, one per category"),
    xlabel=TEXT,
    ylabel=TEXT,
    title=OPTIONAL_TEXT,
    ylim=Pair(optional=True),
    value_format=TEXT,
    figsize=FIGSIZE,
)
@names_its_refusals
def plot_bars(
    categories: Sequence[str],
    groups,
    *,
    xlabel: str,
    ylabel: str,
    title: str | None = None,
    ylim: tuple[float, float] | None = None,
    value_format: str = "{:.2f}",
    figsize: tuple[float, float] = (6, 2.6),
) -> Figure:
    r"""Draw grouped vertical bars: one group of bars per category, one bar per series, each
    bar labelled with its value.

    Reference (what is drawn, in plain code)::

        width = 0.8 / len(groups)
        for s, (label, values) in enumerate(groups.items()):
            bars = ax.bar(arange(n) + (s - (len(groups) - 1) / 2) * width, values, width,
                          label=label)
            ax.bar_label(bars, [value_format.format(v) for v in values])

    Args:
        categories: the names under the groups, ``n`` strings.
        groups: dict label -> values of shape ``(n,)`` (tensor, array or list), finite; one
            series of bars per entry, in the Okabe-Ito colours of :func:`plot_lines`. With a
            single entry no legend is drawn (the axis labels say what the bars are).
        xlabel, ylabel: axis labels (required).
        title: optional axes title.
        ylim: optional ``(bottom, top)`` of the value axis, ``bottom < top``; default: from
            0 (or the smallest value) to 15 % above the largest, room for its label.
        value_format: format of the value written over each bar (``str.format``).
        figsize: figure size in inches.

    Returns:
        The :class:`~matplotlib.figure.Figure` (one axes).

    Example::

        >>> fig = plot_bars(["a", "b"], {"share": [0.25, 0.75]}, xlabel="row", ylabel="share")
        >>> [round(float(p.get_height()), 2) for p in fig.axes[0].patches]
        [0.25, 0.75]
    """
    if isinstance(categories, str) or not isinstance(categories, Sequence):
        raise TypeError(
            f"plot_bars: categories must be a sequence of str; got {type(categories).__name__}"
        )
    cats = list(categories)
    if not cats or not all(isinstance(c, str) for c in cats):
        raise TypeError(f"plot_bars: categories must be a non-empty sequence of str; got {cats!r}")
    _check_mapping(groups, "groups", "values")
    series = []
    for label, values in groups.items():
        arr = _to_numpy(values, f"groups[{label!r}]")
        _check_1d(arr, f"groups[{label!r}]", len(cats), "categories")
        _check_finite(arr, f"groups[{label!r}]")
        series.append((str(label), arr))
    for name, value in (("xlabel", xlabel), ("ylabel", ylabel)):
        if not isinstance(value, str):
            raise TypeError(f"plot_bars: {name} must be a str, got {type(value).__name__}")
    if ylim is not None:
        if not (isinstance(ylim, (tuple, list)) and len(ylim) == 2):
            raise TypeError(f"plot_bars: ylim must be a pair (bottom, top); got {ylim!r}")
        if not float(ylim[0]) < float(ylim[1]):
            raise ValueError(f"plot_bars: ylim must have bottom < top; got {tuple(ylim)}")
    if not isinstance(value_format, str):
        raise TypeError(
            f"plot_bars: value_format must be a str; got {type(value_format).__name__}"
        )
    try:  # a bad format fails here, before anything is drawn
        value_format.format(0.5)
    except (ValueError, IndexError, KeyError) as e:
        raise ValueError(
            f"plot_bars: value_format must format one number, as '{{:.2f}}'; got "
            f"{value_format!r} ({e})"
        ) from None
    figsize = _check_figsize(figsize, "plot_bars")
    import numpy as np

    n, k = len(cats), len(series)
    width = 0.8 / k

    def draw(theme, narrow, managed):
        fig, ax = _single_axes(figsize, narrow, managed)
        x = np.arange(n)
        labels = []  # per series, its bars' value labels
        for s, ((label, values), (color, _)) in enumerate(zip(series, _styles(theme))):
            bars = ax.bar(x + (s - (k - 1) / 2) * width, values, width, color=color, label=label)
            labels.append(
                ax.bar_label(
                    bars,
                    [value_format.format(v) for v in values],
                    fontsize=9,  # attnlib's smallest text
                    color=theme.foreground,
                    padding=1,
                )
            )
        ax.set_xticks(x, cats)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        if ylim is not None:
            ax.set_ylim(*ylim)
        else:  # from 0 (or the smallest value), with room above the tallest bar for its value
            low = min(0.0, *(float(v.min()) for _, v in series))
            high = max(0.0, *(float(v.max()) for _, v in series))
            ax.set_ylim(low, high + 0.15 * ((high - low) or 1.0))
        if title is not None:
            ax.set_title(title)
        ax.grid(True, axis="y", color=theme.grid, linewidth=0.6)
        ax.set_axisbelow(True)
        if k > 1:  # above the axes, where it covers no bar and no value; as many columns as
            # fit the figure's width (three widened chapter 8's phone figure to 442 px)
            ncols = _legend_columns([label for label, _ in series], fig.get_figwidth())
            fig.legend(loc="outside upper center", ncols=ncols, frameon=False)
        _finish(fig, theme)
        if k > 1:
            _lift_crowded_labels(fig, ax, labels)
        return fig

    return _drawn(draw)


def _lift_crowded_labels(fig, ax, labels) -> None:
    """Where two bars' value labels overprint or touch (bars narrower than their numbers:
    "0.030.03" on chapter 6's phone figure), every other series' labels go one line higher,
    with room for them under the axes' top."""
    fig.draw_without_rendering()  # lays the figure out, so the labels have their places
    boxes = [t.get_window_extent() for series in labels for t in series]
    crowded = any(  # closer than 3 px side by side, on one line
        min(a.x1, b.x1) - max(a.x0, b.x0) > -3 and min(a.y1, b.y1) - max(a.y0, b.y0) > 0
        for i, a in enumerate(boxes)
        for b in boxes[i + 1 :]
    )
    if not crowded:
        return
    line = 11.0  # pt: one line of the labels' 9-pt text and a gap
    for s, series in enumerate(labels):
        if s % 2:
            for t in series:
                dx, dy = t.xyann
                t.xyann = (dx, dy + line if dy >= 0 else dy - line)
    low, high = ax.get_ylim()
    per_pt = (high - low) / (ax.get_window_extent().height * 72 / fig.dpi)
    ax.set_ylim(low, high + line * per_pt)
