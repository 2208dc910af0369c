"""Figures for the book: attention-weight heatmaps, curves, regressions, histograms, kernels.

Every function here draws on a figure that pyplot manages, as d2l's ``show_heatmaps``
does (``plt.figure``): in Jupyter the inline backend shows it when the cell ends, also
inside a loop or after a trailing ``;``, and in a script ``plt.savefig``/``plt.gcf``
see it. The figure is also returned, for ``fig.savefig(path)`` or further drawing. So,
as with any pyplot figure, do not end a cell with the figure itself (``fig``): Jupyter
would show it twice (once as the cell's value, once by the inline backend). Nothing here
calls ``plt.show()`` or changes the global ``rcParams``; pyplot itself is imported on
first use only, so ``import attnlib`` does not load matplotlib.

The functions draw only; they do no arithmetic on the data. Callers pass values already
computed (for example with :func:`attnlib.masked_softmax`). Tensors may live on any
device and may require grad: they are only detached, moved to the CPU and converted to
NumPy.

Colours: sequential ``"Reds"`` for weights (light = small, dark = large) and the
Okabe-Ito palette, which stays distinguishable under the common colour-vision
deficiencies, for lines. Lines also differ in line style, so the figures still read in
greyscale.
"""
from __future__ import annotations

import itertools
import numbers
from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

__all__ = [
    "NotebookFigure",
    "OKABE_ITO",
    "LINESTYLES",
    "show_heatmaps",
    "plot_lines",
    "plot_regression",
    "plot_histograms",
    "plot_kernels",
]

#: Okabe-Ito colours in the order lines get them (yellow and black come last: yellow is
#: faint on white and black is kept for ground truth).
OKABE_ITO = (
    "#0072B2",  # blue
    "#D55E00",  # vermillion
    "#009E73",  # bluish green
    "#CC79A7",  # reddish purple
    "#E69F00",  # orange
    "#56B4E9",  # sky blue
    "#F0E442",  # yellow
    "#000000",  # black
)

#: Line styles cycled together with :data:`OKABE_ITO`, a second cue besides colour.
LINESTYLES = ("-", "--", "-.", ":", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 3)), (0, (8, 2)), "-")


class NotebookFigure(Figure):
    """The :class:`matplotlib.figure.Figure` subclass of attnlib's figures.

    A plain pyplot figure (created with ``plt.figure(FigureClass=NotebookFigure)``) with a
    text repr that does not depend on the backend's DPI, ``<Figure size 250x250 with 2
    Axes>``, so notebook outputs compare equal everywhere, and a ``_repr_png_`` for
    front ends that have no figure formatter.
    """

    def __repr__(self) -> str:
        width, height = self.bbox.size
        return f"<Figure size {width:g}x{height:g} with {len(self.axes)} Axes>"

    def _repr_png_(self) -> bytes:
        import io

        buffer = io.BytesIO()
        self.savefig(buffer, format="png", bbox_inches="tight")
        return buffer.getvalue()


#: Dots per inch of every figure built here: fixed per figure (not read from rcParams,
#: which the inline backend changes), so text reprs like ``<Figure size 250x250 ...>`` are
#: the same in every environment.
DPI = 100


def _new_figure(figsize) -> NotebookFigure:
    """A new pyplot-managed figure (what ``plt.figure`` makes; d2l draws on pyplot too)."""
    import matplotlib.pyplot as plt  # on first use: importing attnlib loads no matplotlib

    return plt.figure(figsize=_check_figsize(figsize), dpi=DPI, layout="constrained",
                      FigureClass=NotebookFigure)


def _styles():
    """Endless (colour, linestyle) pairs: Okabe-Ito colours, each with its own line style."""
    return itertools.cycle(zip(OKABE_ITO, LINESTYLES))


def _to_numpy(x, name: str) -> np.ndarray:
    """Convert a tensor, array, list or number to a float64 NumPy array (no arithmetic).

    Tensors are detached and moved to the CPU first, so tensors that require grad or live
    on a GPU are fine. Raises TypeError naming ``name`` for anything not numeric.
    """
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is a dependency of attnlib
        torch = None
    if torch is not None and isinstance(x, torch.Tensor):
        if x.is_complex():
            raise TypeError(f"{name} must hold real numbers, got a complex tensor ({x.dtype})")
        x = x.detach().cpu().to(torch.float64).numpy()
    elif isinstance(x, (str, bytes)) or x is None:
        raise TypeError(f"{name} must be a tensor or array of numbers, got {type(x).__name__}")
    try:
        arr = np.asarray(x)
    except Exception as err:  # ragged lists and the like
        raise TypeError(f"{name} must be a tensor or array of numbers, got {type(x).__name__}") from err
    if arr.dtype == object or not (
        np.issubdtype(arr.dtype, np.number) or np.issubdtype(arr.dtype, np.bool_)
    ):
        raise TypeError(f"{name} must be a tensor or array of numbers, got {type(x).__name__} of dtype {arr.dtype}")
    if np.issubdtype(arr.dtype, np.complexfloating):
        raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
    return arr.astype(np.float64)


def _check_finite(arr: np.ndarray, name: str) -> None:
    """Raise ValueError if ``arr`` holds NaN or infinity (never drawn as if it were data)."""
    bad = ~np.isfinite(arr)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"{name} must be finite, but it holds {int(bad.sum())} NaN/inf value(s), "
            f"the first at index {where}: {arr[where]}"
        )


def _check_1d(arr: np.ndarray, name: str, length: int | None = None, length_of: str = "") -> None:
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D (n,), got shape {tuple(arr.shape)}")
    if length is not None and arr.shape[0] != length:
        raise ValueError(
            f"{name} must have the same length as {length_of} ({length},), got shape {tuple(arr.shape)}"
        )


def _check_mapping(obj, name: str, what: str) -> None:
    if not isinstance(obj, Mapping):
        raise TypeError(f"{name} must be a dict mapping label -> {what}, got {type(obj).__name__}")
    if len(obj) == 0:
        raise ValueError(f"{name} must not be empty (a dict mapping label -> {what})")


def _labelled_curves(obj, name: str, what: str, n: int, ref: str) -> list[tuple[str, np.ndarray]]:
    """Validate a dict label -> 1-D values of length ``n`` (that of ``ref``); return (label, array) pairs."""
    _check_mapping(obj, name, what)
    curves = []
    for label, value in obj.items():
        arr = _to_numpy(value, f"{name}[{label!r}]")
        _check_1d(arr, f"{name}[{label!r}]", n, ref)
        curves.append((str(label), arr))
    return curves


def _check_figsize(figsize) -> tuple[float, float]:
    if (
        not isinstance(figsize, Sequence)
        or isinstance(figsize, str)
        or len(figsize) != 2
        or not all(isinstance(v, numbers.Real) and v > 0 for v in figsize)
    ):
        raise ValueError(f"figsize must be a pair of positive numbers (width, height) in inches, got {figsize!r}")
    return (float(figsize[0]), float(figsize[1]))


def _integer_ticks(axis, n: int) -> None:
    """Every index as a tick for up to 10 rows/columns, else a readable integer subset."""
    if n <= 10:
        axis.set_ticks(range(n))
    else:
        axis.set_major_locator(MaxNLocator(nbins="auto", integer=True))


def show_heatmaps(
    matrices,
    xlabel: str,
    ylabel: str,
    titles: Sequence[str] | None = None,
    figsize: tuple[float, float] = (2.5, 2.5),
    cmap: str = "Reds",
    *,
    vmin: float | None = None,
    vmax: float | None = None,
    colorbar_label: str = "attention weight",
    xticklabels: Sequence[str] | None = None,
    yticklabels: Sequence[str] | None = None,
) -> Figure:
    r"""Draw a grid of matrices (usually attention weights) as heatmaps with one colour bar.

    Panel ``(i, j)`` shows ``matrices[i, j]``, an ``(n_queries, n_keys)`` matrix with
    queries as rows (y axis, query 0 at the top) and keys as columns (x axis), as in every
    weight matrix of the book. All panels share one colour scale and one labelled colour
    bar, so equal colours mean equal values across panels. Ticks are integer indices
    (every index up to 10 rows or columns, a readable subset beyond).

    Reference (what is drawn, in plain code)::

        for i, j in product(range(rows), range(cols)):
            axes[i, j].imshow(matrices[i, j], cmap=cmap, vmin=vmin, vmax=vmax)

    Args:
        matrices: tensor or array, 2-D, 3-D or 4-D (d2l's layout):

            - ``(rows, cols, n_queries, n_keys)``: a ``rows x cols`` grid of panels;
            - ``(cols, n_queries, n_keys)``: one row of panels, one per leading index
              (e.g. a batch of weights ``(batch, n_queries, n_keys)`` side by side);
            - ``(n_queries, n_keys)``: a single panel.

            Tensors that require grad are fine (they are detached). Values must be finite.
        xlabel: label of the x axis (keys), written under the bottom row of panels.
        ylabel: label of the y axis (queries), written left of the first column.
        titles: optional panel titles, one per column (``len(titles) == cols``); every row
            of a column shares its title.
        figsize: size of the whole figure in inches ``(width, height)``.
        cmap: a matplotlib colour map name; the default ``"Reds"`` is sequential.
        vmin, vmax: ends of the shared colour scale. By default ``vmin`` is 0 when no value
            is negative (weights: white means "no attention") and otherwise the smallest
            value; ``vmax`` is the largest value over all panels. If the two coincide
            (a constant matrix) ``vmax = vmin + 1``.
        colorbar_label: label of the colour bar.
        xticklabels: optional names of the keys (e.g. the tokens of a sentence), one per
            column (``len(xticklabels) == n_keys``); default: the indices.
        yticklabels: optional names of the queries, one per row
            (``len(yticklabels) == n_queries``); default: the indices.

    Shape legend: ``rows`` and ``cols`` are the panel grid, ``n_queries`` the rows and
    ``n_keys`` the columns of each matrix.

    Returns:
        The :class:`~matplotlib.figure.Figure` (its axes: the panels row by row, then the
        colour bar).

    Example::

        >>> import torch
        >>> fig = show_heatmaps(torch.eye(3).reshape(1, 1, 3, 3), "keys", "queries")  # (rows, cols, n_queries, n_keys)
        >>> len(fig.axes)  # one panel and the colour bar
        2
        >>> fig.axes[1].get_ylabel()
        'attention weight'
    """
    data = _to_numpy(matrices, "matrices")
    if data.ndim == 2:
        data = data[None, None]  # (n_queries, n_keys) -> (1, 1, n_queries, n_keys)
    elif data.ndim == 3:
        data = data[None]  # (cols, n_queries, n_keys) -> (1, cols, n_queries, n_keys)
    elif data.ndim != 4:
        raise ValueError(
            "matrices must be 4-D (rows, cols, n_queries, n_keys), 3-D (cols, n_queries, n_keys) "
            f"or 2-D (n_queries, n_keys), got shape {tuple(data.shape)}"
        )
    if data.size == 0:
        raise ValueError(
            f"matrices must not be empty: (rows, cols, n_queries, n_keys) = {tuple(data.shape)} has a zero"
        )
    _check_finite(data, "matrices")
    rows, cols, n_queries, n_keys = data.shape
    for name, value in (("xlabel", xlabel), ("ylabel", ylabel), ("colorbar_label", colorbar_label)):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a str, got {type(value).__name__}")
    for name, labels, n, what in (("titles", titles, cols, "column of panels"),
                                  ("xticklabels", xticklabels, n_keys, "key (n_keys)"),
                                  ("yticklabels", yticklabels, n_queries, "query (n_queries)")):
        if labels is None:
            continue
        if isinstance(labels, str) or not isinstance(labels, Sequence):
            raise TypeError(f"{name} must be a list of str, one per {what} ({n}), got {type(labels).__name__}")
        if len(labels) != n:
            raise ValueError(
                f"{name} must have one entry per {what}: expected {n} "
                f"(matrices has shape (rows, cols, n_queries, n_keys) = {tuple(data.shape)}), got {len(labels)}"
            )
    figsize = _check_figsize(figsize)
    for name, value in (("vmin", vmin), ("vmax", vmax)):
        if value is not None and not (isinstance(value, numbers.Real) and np.isfinite(value)):
            raise TypeError(f"{name} must be a finite number or None, got {value!r}")
    lo = float(data.min())
    hi = float(data.max())
    if vmin is None:
        vmin = 0.0 if lo >= 0 else lo
    if vmax is None:
        vmax = hi if hi > vmin else vmin + 1.0
    if not vmax > vmin:
        raise ValueError(f"vmax must be greater than vmin, got vmin={vmin}, vmax={vmax}")

    fig = _new_figure(figsize)
    axes = fig.subplots(rows, cols, sharex=True, sharey=True, squeeze=False)
    image = None
    for i in range(rows):
        for j in range(cols):
            ax = axes[i, j]
            image = ax.imshow(
                data[i, j], cmap=cmap, vmin=vmin, vmax=vmax, interpolation="nearest", aspect="auto"
            )
            _integer_ticks(ax.xaxis, n_keys)
            _integer_ticks(ax.yaxis, n_queries)
            if xticklabels is not None:
                ax.set_xticks(range(n_keys), [str(t) for t in xticklabels], rotation=90)
            if yticklabels is not None:
                ax.set_yticks(range(n_queries), [str(t) for t in yticklabels])
            if i == rows - 1:
                ax.set_xlabel(xlabel)
            if j == 0:
                ax.set_ylabel(ylabel)
            if titles is not None:
                ax.set_title(str(titles[j]))
    colorbar = fig.colorbar(image, ax=axes.ravel().tolist(), shrink=0.8)
    colorbar.set_label(colorbar_label)
    return fig


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
        raise ValueError(f"{name}[{label!r}] is a bare y array but x is None; pass x or an (x, y) pair")
    _check_1d(ys, f"{name}[{label!r}]", x.shape[0], "x")
    return x, ys


def plot_lines(
    x,
    ys,
    *,
    xlabel: str,
    ylabel: str,
    title: str | None = None,
    scatter=None,
    logx: bool = False,
    logy: bool = False,
    figsize: tuple[float, float] = (4, 3),
) -> Figure:
    r"""Draw several labelled curves on one axes, with an optional scatter of points.

    Reference::

        for label, y in ys.items():
            ax.plot(x, y, label=label)

    Args:
        x: shared x values, shape ``(n,)``; may be ``None`` if every entry of ``ys`` is an
            ``(x, y)`` pair.
        ys: dict label -> y values of shape ``(n,)``, or label -> ``(x_i, y_i)`` pair of
            equal-length 1-D arrays (curves with their own x values).
        xlabel, ylabel: axis labels (required).
        title: optional axes title.
        scatter: optional ``(x_points, y_points, label)`` drawn as points, shapes ``(m,)``.
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
    figsize = _check_figsize(figsize)
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

    fig = _new_figure(figsize)
    ax = fig.add_subplot()
    for (label, cx, cy), (color, style) in zip(curves, _styles()):
        ax.plot(cx, cy, color=color, linestyle=style, linewidth=1.8, label=label)
    if points is not None:
        ax.scatter(points[0], points[1], s=14, color="0.35", marker="o", alpha=0.7,
                   label=points[2], zorder=3)
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title is not None:
        ax.set_title(title)
    ax.grid(True, color="0.9", linewidth=0.6)
    ax.legend(frameon=False, fontsize="small")
    return fig


def plot_regression(
    x_train,
    y_train,
    x_query,
    fits,
    truth=None,
    title: str | None = None,
    figsize: tuple[float, float] = (4, 3),
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
            :func:`attnlib.kernels.nadaraya_watson`).
        truth: optional true function values at ``x_query``, shape ``(n_queries,)``, drawn as
            a black dashed line.
        title: optional axes title.
        figsize: figure size in inches.

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
    true_y = None
    if truth is not None:
        true_y = _to_numpy(truth, "truth")
        _check_1d(true_y, "truth", xq.shape[0], "x_query")
    figsize = _check_figsize(figsize)

    fig = _new_figure(figsize)
    ax = fig.add_subplot()
    ax.scatter(xt, yt, s=12, color="0.55", alpha=0.7, marker="o", label="training data", zorder=1)
    if true_y is not None:
        ax.plot(xq, true_y, color="black", linestyle="--", linewidth=1.5, label="truth", zorder=2)
    for (label, y_hat), (color, style) in zip(curves, _styles()):
        ax.plot(xq, y_hat, color=color, linestyle=style, linewidth=1.8, label=label, zorder=3)
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    if title is not None:
        ax.set_title(title)
    ax.legend(frameon=False, fontsize="small")
    return fig


def plot_histograms(
    samples,
    *,
    xlabel: str,
    bins: int = 40,
    title: str | None = None,
    figsize: tuple[float, float] = (5, 3),
    density: bool = False,
) -> Figure:
    r"""Overlay histograms of several samples, all on the same bin edges.

    Reference::

        ax.hist(list(samples.values()), bins=bins, histtype="step", label=list(samples))

    Args:
        samples: dict label -> values of any shape (flattened), e.g. ``q·k`` scores before
            and after dividing by ``√d``.
        xlabel: label of the x axis (required); the y axis is "count" (or "density").
        bins: number of bins, shared by all samples (matplotlib picks common edges over the
            joint range).
        title: optional axes title.
        figsize: figure size in inches.
        density: normalise each histogram to unit area (compare samples of different
            sizes).

    Returns:
        The :class:`~matplotlib.figure.Figure` (one axes with a legend).

    Example::

        >>> import torch
        >>> g = torch.Generator().manual_seed(0)
        >>> fig = plot_histograms({"a": torch.randn(100, generator=g)}, xlabel="score", bins=10)
        >>> fig.axes[0].get_ylabel()
        'count'
    """
    _check_mapping(samples, "samples", "values")
    if not isinstance(xlabel, str):
        raise TypeError(f"xlabel must be a str, got {type(xlabel).__name__}")
    if not (isinstance(bins, numbers.Integral) and bins >= 1):
        raise ValueError(f"bins must be a positive int, got {bins!r}")
    figsize = _check_figsize(figsize)
    labels, arrays = [], []
    for label, value in samples.items():
        arr = _to_numpy(value, f"samples[{label!r}]").ravel()  # (...) -> (n,)
        if arr.size == 0:
            raise ValueError(f"samples[{label!r}] must not be empty, got shape (0,)")
        _check_finite(arr, f"samples[{label!r}]")
        labels.append(str(label))
        arrays.append(arr)

    fig = _new_figure(figsize)
    ax = fig.add_subplot()
    styles = list(itertools.islice(_styles(), len(arrays)))
    _, _, patches = ax.hist(
        arrays, bins=int(bins), histtype="step", density=density, linewidth=1.6,
        color=[c for c, _ in styles], label=labels,
    )
    if len(arrays) == 1:
        patches = [patches]
    for group, (_, style) in zip(patches, styles):
        for patch in group:
            patch.set_linestyle(style)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("density" if density else "count")
    if title is not None:
        ax.set_title(title)
    handles, hist_labels = ax.get_legend_handles_labels()  # matplotlib lists hist entries reversed
    order = sorted(range(len(hist_labels)), key=lambda k: labels.index(hist_labels[k]))
    ax.legend([handles[k] for k in order], [hist_labels[k] for k in order], frameon=False, fontsize="small")
    return fig


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
        >>> fig = plot_kernels(u, {"boxcar": (u.abs() <= 1).float(), "gaussian": (-u ** 2 / 2).exp()})
        >>> [ax.get_title() for ax in fig.axes]
        ['boxcar', 'gaussian']
    """
    us = _to_numpy(u, "u")
    _check_1d(us, "u")
    curves = _labelled_curves(values, "values", "K(u) of shape (n,)", us.shape[0], "u")
    figsize = _check_figsize(figsize)

    fig = _new_figure(figsize)
    axes = fig.subplots(1, len(curves), sharex=True, sharey=True, squeeze=False)[0]
    for j, ((name, k), ax, (color, _)) in enumerate(zip(curves, axes, _styles())):
        ax.plot(us, k, color=color, linewidth=1.8)
        ax.set_title(name)
        ax.set_xlabel("u")
        if j == 0:
            ax.set_ylabel("K(u)")
        ax.grid(True, color="0.9", linewidth=0.6)
    return fig
