"""Curves: :func:`plot_lines`, a kernel regression's fit (:func:`plot_regression`) and
kernel shapes (:func:`plot_kernels`)."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from attnlib.domains import Bool, Int, declare
from attnlib.plotting._figure import (
    FIGSIZE,
    NARROW_WIDTH,
    OPTIONAL_TEXT,
    TEXT,
    _check_1d,
    _check_figsize,
    _check_finite,
    _check_mapping,
    _drawn,
    _finish,
    _labelled_curves,
    _new_figure,
    _styles,
    _to_numpy,
    data,
    names_its_refusals,
)

__all__ = ["plot_lines", "plot_regression", "plot_kernels"]


def _xy_pair(value, label: str, x, name: str):
    """Resolve one entry of a ``ys``/``fits`` dict into 1-D ``(x, y)`` arrays."""
    if isinstance(value, tuple) and len(value) == 2:
        xs = _to_numpy(value[0], f"{name}[{label!r}][0]")
        ys = _to_numpy(value[1], f"{name}[{label!r}][1]")
        _check_1d(xs, f"{name}[{label!r}][0]")
        _check_1d(ys, f"{name}[{label!r}][1]", xs.shape[0], f"{name}[{label!r}][0]")
        return xs, ys
    ys = _to_numpy(value, f"{name}[{label!r}]")
    if x is None:
        raise ValueError(
            f"{name}[{label!r}] is a bare y array but x is None; pass x or an (x, y) pair"
        )
    _check_1d(ys, f"{name}[{label!r}]", x.shape[0], "x")
    return x, ys


@declare(
    x=data("x values (n,)"),
    ys=data("a dict label -> y values (n,) or an (x, y) pair"),
    xlabel=TEXT,
    ylabel=TEXT,
    title=OPTIONAL_TEXT,
    scatter=data("(x_points, y_points, label), or None"),
    bands=data("a dict label -> (low, high) curves, or None"),
    logx=Bool(),
    logy=Bool(),
    figsize=FIGSIZE,
)
@names_its_refusals
def plot_lines(
    x,
    ys,
    *,
    xlabel: str,
    ylabel: str,
    title: str | None = None,
    scatter=None,
    bands=None,
    logx: bool = False,
    logy: bool = False,
    figsize: tuple[float, float] = (4, 3),
) -> Figure:
    r"""Draw several labelled curves on one axes, with an optional scatter of points and
    optional shaded bands around curves (a spread: min to max over runs, say).

    Reference::

        for label, y in ys.items():
            ax.plot(x, y, label=label)
            if label in bands:
                ax.fill_between(x, *bands[label], alpha=0.2)

    Args:
        x: shared x values, shape ``(n,)``; may be ``None`` if every entry of ``ys`` is an
            ``(x, y)`` pair.
        ys: dict label -> y values of shape ``(n,)``, or label -> ``(x_i, y_i)`` pair of
            equal-length 1-D arrays (curves with their own x values).
        xlabel, ylabel: axis labels (required).
        title: optional axes title.
        scatter: optional ``(x_points, y_points, label)`` drawn as points, shapes ``(m,)``.
        bands: optional dict label -> ``(low, high)``, for labels of ``ys``: a band shaded
            in that curve's colour from ``low`` to ``high``, each of the curve's shape
            ``(n,)``, finite, with ``low <= high`` everywhere.
        logx, logy: logarithmic x / y axis.
        figsize: figure size in inches.

    Returns:
        The :class:`~matplotlib.figure.Figure` (one axes, with a legend).

    Example::

        >>> import torch
        >>> x = torch.linspace(0, 1, 5)
        >>> fig = plot_lines(x, {"x": x, "x squared": x ** 2}, xlabel="x", ylabel="y")
        >>> [line.get_label() for line in fig.axes[0].get_lines()]
        ['x', 'x squared']
    """
    _check_mapping(ys, "ys", "y values or (x, y) pair")
    xs = None
    if x is not None:
        xs = _to_numpy(x, "x")
        _check_1d(xs, "x")
    for name, value in (("xlabel", xlabel), ("ylabel", ylabel)):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a str, got {type(value).__name__}")
    figsize = _check_figsize(figsize, "plot_lines")
    curves = [(str(label), *_xy_pair(value, label, xs, "ys")) for label, value in ys.items()]
    points = None
    if scatter is not None:
        if not (isinstance(scatter, (tuple, list)) and len(scatter) == 3):
            raise TypeError("scatter must be a tuple (x_points, y_points, label)")
        px = _to_numpy(scatter[0], "scatter[0]")
        py = _to_numpy(scatter[1], "scatter[1]")
        _check_1d(px, "scatter[0]")
        _check_1d(py, "scatter[1]", px.shape[0], "scatter[0]")
        points = (px, py, str(scatter[2]))
    shaded = _bands(bands, curves)

    def draw(theme, narrow, managed):
        fig, ax = _single_axes(figsize, narrow, managed)
        for (label, cx, cy), (color, style) in zip(curves, _styles(theme)):
            ax.plot(cx, cy, color=color, linestyle=style, linewidth=1.8, label=label)
            if label in shaded:
                ax.fill_between(cx, *shaded[label], color=color, alpha=0.2, linewidth=0)
        if points is not None:
            ax.scatter(
                points[0],
                points[1],
                s=14,
                color=theme.points,
                marker="o",
                alpha=0.8,
                label=points[2],
                zorder=3,
            )
        if logx:
            ax.set_xscale("log")
            _log_ticks(ax.xaxis, np.concatenate([cx for _, cx, _ in curves]))
        if logy:
            ax.set_yscale("log")
            _log_ticks(ax.yaxis, None, np.concatenate([cy for _, _, cy in curves]))
        if not logx:
            _discrete_ticks(ax.xaxis, [cx for _, cx, _ in curves])
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        if title is not None:
            ax.set_title(title)
        ax.grid(True, color=theme.grid, linewidth=0.6)
        _legend(fig, ax, narrow and figsize[0] > NARROW_WIDTH)
        _finish(fig, theme)
        return fig

    return _drawn(draw)


def _bands(bands, curves) -> dict:
    """Check ``plot_lines``' ``bands`` against its curves: label -> (low, high) arrays."""
    if bands is None:
        return {}
    _check_mapping(bands, "bands", "(low, high) pair")
    lengths = {label: cx.shape[0] for label, cx, _ in curves}
    out = {}
    for label, pair in bands.items():
        where = f"bands[{label!r}]"
        if str(label) not in lengths:
            raise ValueError(f"{where}: no curve of ys has this label; ys has {list(lengths)}")
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
            raise TypeError(f"{where} must be a pair (low, high); got {type(pair).__name__}")
        lo = _to_numpy(pair[0], f"{where}[0]")
        hi = _to_numpy(pair[1], f"{where}[1]")
        _check_1d(lo, f"{where}[0]", lengths[str(label)], f"the curve {label!r}")
        _check_1d(hi, f"{where}[1]", lengths[str(label)], f"the curve {label!r}")
        _check_finite(lo, f"{where}[0]")
        _check_finite(hi, f"{where}[1]")
        if (lo > hi).any():
            i = int((lo > hi).nonzero()[0][0])
            raise ValueError(f"{where}: low must be <= high; at index {i}: {lo[i]} > {hi[i]}")
        out[str(label)] = (lo, hi)
    return out


def _single_axes(figsize, narrow: bool, managed: bool):
    """A figure with one axes: at ``figsize``, or, narrow, NARROW_WIDTH (3.6 in) wide and at
    most 3.2 in tall scaled as for a 4.2-in phone figure (plus room for the legend under it):
    a phone's figures keep the shape they had when NARROW_WIDTH was 4.2, so that a chapter
    does not grow by a fifth on a phone."""
    if narrow and figsize[0] > NARROW_WIDTH:
        figsize = (NARROW_WIDTH, min(figsize[1], 3.2) * NARROW_WIDTH / 4.2 + 0.5)
    fig = _new_figure(figsize, managed)
    return fig, fig.add_subplot()


def _legend_columns(labels, width_in: float) -> int:
    """Up to three columns, as many as fit the figure's width: a wider legend would widen the
    saved picture past its figure (a phone then shows every text of it smaller). Estimated
    from the labels' lengths at the legend's 9 pt (about 0.55 em a character) plus the line
    sample and gap (0.6 in)."""
    for n in range(min(3, max(1, len(labels))), 1, -1):
        cols = [labels[i::n] for i in range(n)]  # matplotlib fills rows first: entry i in i % n
        need = sum(0.6 + 0.55 * 9 / 72 * max(len(str(t)) for t in col) for col in cols)
        if need <= width_in:
            return n
    return 1


def _legend(fig, ax, below: bool, handles=None, labels=None, loc="best", ncols=1) -> None:
    """The legend, off the data: by default above the axes (in up to three columns); at a
    ``loc`` the caller chose inside the axes (a corner it knows is empty); in a narrow figure,
    under the axes in two columns where they fit its width, else in one (two columns of long
    labels widened chapter 2's, 4's and 5's phone figures to 444-480 px, shrinking their text
    in a 358-px column). (matplotlib's "best" spot inside the axes still covered curves and
    points: it only avoids the data when there is room.)"""
    if handles is None:
        handles, labels = ax.get_legend_handles_labels()
    if below:
        ncols = min(2, _legend_columns(labels, fig.get_figwidth()))
        fig.legend(handles, labels, loc="outside lower center", ncols=ncols, frameon=False)
    elif loc == "best":
        fig.legend(
            handles,
            labels,
            loc="outside upper center",
            ncols=_legend_columns(labels, fig.get_figwidth()),
            frameon=False,
        )
    else:
        ax.legend(handles, labels, loc=loc, ncols=ncols, frameon=False)


def _log_ticks(axis, measured, spanned=None) -> None:
    """Readable ticks on a log axis: at the measured values (``measured``, when there are at
    most 8 of them), else at 1, 2 and 5 times each power of ten, or, when the data
    (``spanned``) cover more than 3 powers of ten, at the powers of ten alone (1-2-5 over six
    decades is 19 labels packed a few px apart on a phone); labelled as plain numbers (16, 256,
    0.5; not 2x10^1 3x10^1 printed over each other by the minor ticks)."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter

    values = None if measured is None else np.unique(np.asarray(measured, dtype=float))
    if values is not None and 0 < values.size <= 8 and (values > 0).all():
        axis.set_major_locator(FixedLocator(values))
    else:
        subs = (1.0, 2.0, 5.0)
        if spanned is not None:
            pos = np.asarray(spanned, dtype=float)
            pos = pos[np.isfinite(pos) & (pos > 0)]
            if pos.size and np.log10(pos.max() / pos.min()) > 3:
                subs = (1.0,)
        axis.set_major_locator(LogLocator(base=10, subs=subs))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


def _discrete_ticks(axis, xs) -> None:
    """An axis over whole numbers (keys, positions, steps) gets whole-number ticks only:
    never "key 1.5". A vertical line (two or more points at one x, such as chapter 8's
    "longest in training" at 8.5) marks a place between the numbers and does not count."""
    from matplotlib.ticker import MaxNLocator

    data = [np.asarray(x, dtype=float) for x in xs]
    data = [x for x in data if x.size < 2 or not (x == x[0]).all()]  # vertical lines out
    values = np.concatenate(data) if data else np.array([])
    if values.size and np.isfinite(values).all() and (values == np.round(values)).all():
        axis.set_major_locator(MaxNLocator(nbins="auto", integer=True))


@declare(
    x_train=data("training inputs (n,)"),
    y_train=data("training targets (n,)"),
    x_query=data("query points (m,)"),
    fits=data("a dict label -> predictions (m,)"),
    truth=data("the true values at x_query (m,), or None"),
    title=OPTIONAL_TEXT,
    figsize=FIGSIZE,
    legend_loc=TEXT,
    legend_ncols=Int(ge=1, le=100),
)
@names_its_refusals
def plot_regression(
    x_train,
    y_train,
    x_query,
    fits,
    truth=None,
    title: str | None = None,
    figsize: tuple[float, float] = (4, 3),
    *,
    legend_loc: str = "best",
    legend_ncols: int = 1,
) -> Figure:
    r"""Draw training points, the true function (optional) and one or more fitted curves.

    Reference::

        ax.scatter(x_train, y_train); ax.plot(x_query, truth, "k--")
        for label, y_hat in fits.items():
            ax.plot(x_query, y_hat, label=label)

    Args:
        x_train: training inputs, shape ``(n_train,)``.
        y_train: training targets, shape ``(n_train,)``.
        x_query: query inputs where the fits are evaluated, shape ``(n_queries,)``.
        fits: dict label -> predictions ``y_hat`` of shape ``(n_queries,)`` (e.g. from
            :func:`attnlib.kernel_regression.nadaraya_watson`).
        truth: optional true function values at ``x_query``, shape ``(n_queries,)``, drawn as
            a black dashed line.
        title: optional axes title.
        figsize: figure size in inches.
        legend_loc, legend_ncols: where the legend goes in the axes (a matplotlib ``loc``,
            e.g. ``"lower right"``) and in how many columns. (A figure's narrow variant puts
            it under the axes, see :mod:`attnlib.plotting.variants`.)

    Returns:
        The :class:`~matplotlib.figure.Figure` (one axes labelled ``x`` and ``y``, with a
        legend).

    Example::

        >>> import torch
        >>> x = torch.linspace(0, 5, 8)
        >>> fig = plot_regression(x, x.sin(), x, {"fit": x.sin()}, truth=x.sin())
        >>> [line.get_label() for line in fig.axes[0].get_lines()]
        ['truth', 'fit']
    """
    xt = _to_numpy(x_train, "x_train")
    _check_1d(xt, "x_train")
    yt = _to_numpy(y_train, "y_train")
    _check_1d(yt, "y_train", xt.shape[0], "x_train")
    xq = _to_numpy(x_query, "x_query")
    _check_1d(xq, "x_query")
    curves = _labelled_curves(fits, "fits", "y_hat of shape (n_queries,)", xq.shape[0], "x_query")
    if not isinstance(legend_loc, str):
        raise TypeError(f"legend_loc must be a str such as 'lower right', got {legend_loc!r}")
    if isinstance(legend_ncols, bool) or not isinstance(legend_ncols, int) or legend_ncols < 1:
        raise ValueError(f"legend_ncols must be a positive int, got {legend_ncols!r}")
    true_y = None
    if truth is not None:
        true_y = _to_numpy(truth, "truth")
        _check_1d(true_y, "truth", xq.shape[0], "x_query")
    figsize = _check_figsize(figsize, "plot_regression")

    def draw(theme, narrow, managed):
        fig, ax = _single_axes(figsize, narrow, managed)
        ax.scatter(
            xt,
            yt,
            s=12,
            color=theme.points,
            alpha=0.8,
            marker="o",
            label="training data",
            zorder=1,
        )
        if true_y is not None:
            ax.plot(
                xq,
                true_y,
                color=theme.foreground,
                linestyle="--",
                linewidth=1.5,
                label="truth",
                zorder=2,
            )
        for (label, y_hat), (color, style) in zip(curves, _styles(theme)):
            ax.plot(xq, y_hat, color=color, linestyle=style, linewidth=1.8, label=label, zorder=3)
        ax.set_xlabel("x")
        ax.set_ylabel("y")
        if title is not None:
            ax.set_title(title)
        _legend(fig, ax, narrow and figsize[0] > NARROW_WIDTH, loc=legend_loc, ncols=legend_ncols)
        _finish(fig, theme)
        return fig

    return _drawn(draw)


@declare(u=data("a grid (n,)"), values=data("a dict name -> values (n,)"), figsize=FIGSIZE)
@names_its_refusals
def plot_kernels(u, values, figsize: tuple[float, float] = (8, 2)) -> Figure:
    r"""Draw kernel functions ``K(u)``, one small panel per kernel, sharing both axes.

    Reference::

        for ax, (name, k) in zip(axes, values.items()):
            ax.plot(u, k); ax.set_title(name)

    Args:
        u: points where the kernels were evaluated, ``u = (query - key) / bandwidth``,
            shape ``(n,)``.
        values: dict kernel name -> ``K(u)`` of shape ``(n,)`` (e.g.
            ``{name: k(u) for name, k in attnlib.kernels.KERNELS.items()}``).
        figsize: size of the whole figure in inches.

    Returns:
        The :class:`~matplotlib.figure.Figure` (one axes per kernel, titled by name).

    Example::

        >>> import torch
        >>> u = torch.linspace(-2, 2, 9)
        >>> shapes = {"boxcar": (u.abs() <= 1).float(), "gaussian": (-(u**2) / 2).exp()}
        >>> fig = plot_kernels(u, shapes)
        >>> [ax.get_title() for ax in fig.axes]
        ['boxcar', 'gaussian']
    """
    us = _to_numpy(u, "u")
    _check_1d(us, "u")
    curves = _labelled_curves(values, "values", "K(u) of shape (n,)", us.shape[0], "u")
    figsize = _check_figsize(figsize, "plot_kernels")

    def draw(theme, narrow, managed):
        n = len(curves)
        if narrow and figsize[0] > NARROW_WIDTH:  # three panels a row, as many rows as needed
            ncols = min(n, 3)
            nrows = -(-n // ncols)
            size = (NARROW_WIDTH, nrows * max(1.5, figsize[1] - 0.2) + 0.2)
        else:
            ncols, nrows, size = n, 1, figsize
        fig = _new_figure(size, managed)
        grid = fig.subplots(nrows, ncols, sharex=True, sharey=True, squeeze=False)
        for k in range(n, nrows * ncols):
            grid.flat[k].remove()
        for k, ((name, values_k), (color, _)) in enumerate(zip(curves, _styles(theme))):
            ax = grid.flat[k]
            ax.plot(us, values_k, color=color, linewidth=1.8)
            ax.set_title(name)
            if k + ncols >= n:  # nothing under it: the bottom of its column
                ax.set_xlabel("u")
                ax.xaxis.set_tick_params(labelbottom=True)
            if k % ncols == 0:
                ax.set_ylabel("K(u)")
            ax.grid(True, color=theme.grid, linewidth=0.6)
        _finish(fig, theme)
        return fig

    return _drawn(draw)
