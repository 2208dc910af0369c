"""Histograms of several samples on shared bins: :func:`plot_histograms`."""

from __future__ import annotations

import itertools

from matplotlib.figure import Figure

from attnlib._validate import as_int
from attnlib.domains import Bool, Int, declare
from attnlib.plotting._figure import (
    FIGSIZE,
    NARROW_WIDTH,
    OPTIONAL_TEXT,
    TEXT,
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

__all__ = ["plot_histograms"]


@declare(
    samples=data("a dict label -> finite samples"),
    xlabel=TEXT,
    bins=Int(ge=1, le=10**5),
    title=OPTIONAL_TEXT,
    figsize=FIGSIZE,
    density=Bool(),
)
@names_its_refusals
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
    # an int (numpy ints and 0-d tensors too), 1 to 10**5 (more bins than that is a mistake)
    bins = as_int(bins, "bins", "plot_histograms", min=1, max=10**5)
    figsize = _check_figsize(figsize, "plot_histograms")
    labels, arrays = [], []
    for label, value in samples.items():
        arr = _to_numpy(value, f"samples[{label!r}]").ravel()  # (...) -> (n,)
        if arr.size == 0:
            raise ValueError(f"samples[{label!r}] must not be empty, got shape (0,)")
        _check_finite(arr, f"samples[{label!r}]")
        labels.append(str(label))
        arrays.append(arr)

    def draw(theme, narrow, managed):
        from attnlib.plotting.lines import _legend, _single_axes

        fig, ax = _single_axes(figsize, narrow, managed)
        styles = list(itertools.islice(_styles(theme), len(arrays)))
        _, _, patches = ax.hist(
            arrays,
            bins=int(bins),
            histtype="step",
            density=density,
            linewidth=1.6,
            color=[c for c, _ in styles],
            label=labels,
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
        handles, hist_labels = ax.get_legend_handles_labels()  # hist entries come reversed
        order = sorted(range(len(hist_labels)), key=lambda k: labels.index(hist_labels[k]))
        _legend(
            fig,
            ax,
            narrow and figsize[0] > NARROW_WIDTH,
            [handles[k] for k in order],
            [hist_labels[k] for k in order],
        )
        _finish(fig, theme)
        return fig

    return _drawn(draw)
