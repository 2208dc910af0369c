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

Modules: :mod:`attnlib.plotting.heatmaps` (:func:`show_heatmaps`),
:mod:`attnlib.plotting.lines` (:func:`plot_lines`, :func:`plot_regression`,
:func:`plot_kernels`), :mod:`attnlib.plotting.histograms` (:func:`plot_histograms`),
:mod:`attnlib.plotting.bars` (:func:`plot_bars`); what
they share (the figure class, colours, input checks) is in ``attnlib.plotting._figure``, and
:mod:`attnlib.plotting.kit` offers its figure-making part to figures drawn elsewhere (the
book's diagrams), with the same dark and phone-width variants.
"""

from attnlib.plotting._figure import DPI, LINESTYLES, OKABE_ITO, NotebookFigure
from attnlib.plotting.bars import plot_bars
from attnlib.plotting.heatmaps import show_heatmaps
from attnlib.plotting.histograms import plot_histograms
from attnlib.plotting.lines import plot_kernels, plot_lines, plot_regression

__all__ = [
    "NotebookFigure",
    "OKABE_ITO",
    "LINESTYLES",
    "DPI",
    "show_heatmaps",
    "plot_lines",
    "plot_regression",
    "plot_histograms",
    "plot_kernels",
    "plot_bars",
]
