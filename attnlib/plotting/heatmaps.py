"""Heatmaps of attention weights: :func:`show_heatmaps` (d2l's name and call)."""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from attnlib.plotting._figure import (
    _check_figsize,
    _check_finite,
    _integer_ticks,
    _new_figure,
    _to_numpy,
)

__all__ = ["show_heatmaps"]


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
        >>> m = torch.eye(3).reshape(1, 1, 3, 3)  # (rows, cols, n_queries, n_keys)
        >>> fig = show_heatmaps(m, "keys", "queries")
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
            "matrices must be 4-D (rows, cols, n_queries, n_keys), 3-D (cols, n_queries, "
            "n_keys) "
            f"or 2-D (n_queries, n_keys), got shape {tuple(data.shape)}"
        )
    if data.size == 0:
        raise ValueError(
            "matrices must not be empty: (rows, cols, n_queries, n_keys) = "
            f"{tuple(data.shape)} has a zero"
        )
    _check_finite(data, "matrices")
    rows, cols, n_queries, n_keys = data.shape
    for name, value in (
        ("xlabel", xlabel),
        ("ylabel", ylabel),
        ("colorbar_label", colorbar_label),
    ):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a str, got {type(value).__name__}")
    for name, labels, n, what in (
        ("titles", titles, cols, "column of panels"),
        ("xticklabels", xticklabels, n_keys, "key (n_keys)"),
        ("yticklabels", yticklabels, n_queries, "query (n_queries)"),
    ):
        if labels is None:
            continue
        if isinstance(labels, str) or not isinstance(labels, Sequence):
            raise TypeError(
                f"{name} must be a list of str, one per {what} ({n}), got {type(labels).__name__}"
            )
        if len(labels) != n:
            raise ValueError(
                f"{name} must have one entry per {what}: expected {n} "
                "(matrices has shape (rows, cols, n_queries, n_keys) = "
                f"{tuple(data.shape)}), got {len(labels)}"
            )
    figsize = _check_figsize(figsize, "show_heatmaps")
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
