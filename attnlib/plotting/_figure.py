"""What every figure shares: pyplot-managed :class:`NotebookFigure`, colours, input checks."""

from __future__ import annotations

import itertools
import numbers
from collections.abc import Mapping

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

__all__ = ["NotebookFigure", "OKABE_ITO", "LINESTYLES", "DPI"]

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

    return plt.figure(
        figsize=_check_figsize(figsize), dpi=DPI, layout="constrained", FigureClass=NotebookFigure
    )


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
        raise TypeError(
            f"{name} must be a tensor or array of numbers, got {type(x).__name__}"
        ) from err
    if arr.dtype == object or not (
        np.issubdtype(arr.dtype, np.number) or np.issubdtype(arr.dtype, np.bool_)
    ):
        raise TypeError(
            f"{name} must be a tensor or array of numbers, got {type(x).__name__} of dtype "
            f"{arr.dtype}"
        )
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
            f"{name} must have the same length as {length_of} ({length},), got shape "
            f"{tuple(arr.shape)}"
        )


def _check_mapping(obj, name: str, what: str) -> None:
    if not isinstance(obj, Mapping):
        raise TypeError(f"{name} must be a dict mapping label -> {what}, got {type(obj).__name__}")
    if len(obj) == 0:
        raise ValueError(f"{name} must not be empty (a dict mapping label -> {what})")


def _labelled_curves(obj, name: str, what: str, n: int, ref: str) -> list[tuple[str, np.ndarray]]:
    """Validate a dict label -> 1-D values of length ``n`` (that of ``ref``).

    Returns the (label, array) pairs.
    """
    _check_mapping(obj, name, what)
    curves = []
    for label, value in obj.items():
        arr = _to_numpy(value, f"{name}[{label!r}]")
        _check_1d(arr, f"{name}[{label!r}]", n, ref)
        curves.append((str(label), arr))
    return curves


#: Largest figure side in inches: a figure is drawn at twice its DPI (retina PNGs), and a
#: side beyond this is far past any screen or page (and close to the renderer's limits).
MAX_FIGURE_INCHES = 100.0


def _check_figsize(figsize, fn: str = "figure") -> tuple[float, float]:
    """``(width, height)`` in inches: two finite numbers in ``(0, MAX_FIGURE_INCHES]`` (numpy
    scalars and 0-d tensors too; not bools), as floats."""
    from attnlib._validate import _scalar, describe

    expected = (
        f"{fn}: figsize must be a pair of positive numbers (width, height) in inches, "
        f"at most {MAX_FIGURE_INCHES:g} each"
    )
    if isinstance(figsize, (str, bytes)) or not hasattr(figsize, "__len__"):
        raise TypeError(f"{expected}; got {describe(figsize)}")
    if len(figsize) != 2:
        raise ValueError(f"{expected}; got {len(figsize)} values: {figsize!r}")
    out = []
    for v in figsize:
        x = _scalar(v)
        if isinstance(x, bool) or not isinstance(x, numbers.Real):
            raise TypeError(f"{expected}; got {describe(v)} in {figsize!r}")
        x = float(x)
        if not (0 < x <= MAX_FIGURE_INCHES):  # NaN fails too
            raise ValueError(f"{expected}; got {x:g} in {figsize!r}")
        out.append(x)
    return out[0], out[1]


def _integer_ticks(axis, n: int) -> None:
    """Every index as a tick for up to 10 rows/columns, else a readable integer subset."""
    if n <= 10:
        axis.set_ticks(range(n))
    else:
        axis.set_major_locator(MaxNLocator(nbins="auto", integer=True))
