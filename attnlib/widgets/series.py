"""What a :class:`~attnlib.widgets.Lines` panel holds: its :class:`Series` (one per frame) and
:class:`FixedSeries` (drawn once), the point the reader drags (:class:`Handle`) and the lines
from it to the keys (:class:`Spokes`); and the array helpers every panel uses."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from attnlib.widgets.controls import ExplorerError

__all__ = ["Series", "FixedSeries", "Handle", "Spokes"]


@dataclass(frozen=True)
class Series:
    """A series of a :class:`Lines` panel that changes with the parameters.

    Args:
        name: key in the update function's dict for this panel (also the legend label).
        style: ``"line"``, ``"points"`` or ``"bars"`` (a vertical bar from 0 to each y).
        xy: if False (default) the update returns y values on the panel's shared ``x``;
            if True it returns a ``(2, n)`` array of (x, y) coordinates.
        color: CSS colour (default: the next Okabe-Ito colour).
        dash: SVG dash pattern, e.g. ``"4 3"``.
        width: line width in px (bar width for ``"bars"``).
        linked_rows: for points: point ``i`` stands for row ``i`` of the explorer's heatmaps
            (e.g. the queries of a weight matrix); reading a row rings the point, pointing
            at the point reads the row (linked views).
    """

    name: str
    style: str = "line"
    xy: bool = False
    color: str | None = None
    dash: str | None = None
    width: float = 2.0
    linked_rows: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ExplorerError(f"Series: name must be a non-empty string; got {self.name!r}")
        if self.style not in ("line", "points", "bars"):
            raise ExplorerError(
                f"Series {self.name!r}: style must be 'line', 'points' or 'bars'; got "
                f"{self.style!r}"
            )
        if self.linked_rows and self.style != "points":
            raise ExplorerError(
                f"Series {self.name!r}: linked_rows needs style='points' (one point per row)"
            )


@dataclass(frozen=True)
class FixedSeries:
    """Data drawn on a :class:`Lines` panel in every frame (e.g. training points, truth).

    Args:
        name: legend label.
        x, y: 1-D coordinates of equal length.
        style, color, dash, width: as for :class:`Series`.
        labels: optional text written next to each point (one per point).
    """

    name: str
    x: Any
    y: Any
    style: str = "line"
    color: str | None = None
    dash: str | None = None
    width: float = 1.5
    labels: Sequence[str] | None = None

    def __post_init__(self) -> None:
        x = _to_array(self.x, f"FixedSeries {self.name!r}: x")
        y = _to_array(self.y, f"FixedSeries {self.name!r}: y")
        if x.ndim != 1 or y.shape != x.shape:
            raise ExplorerError(
                f"FixedSeries {self.name!r}: x and y must be 1-D of equal length; "
                f"got shapes {tuple(x.shape)} and {tuple(y.shape)}"
            )
        if self.style not in ("line", "points"):
            raise ExplorerError(
                f"FixedSeries {self.name!r}: style must be 'line' or 'points'; got {self.style!r}"
            )
        object.__setattr__(self, "x", x)
        object.__setattr__(self, "y", y)
        if self.labels is not None and len(self.labels) != x.size:
            raise ExplorerError(
                f"FixedSeries {self.name!r}: labels has {len(self.labels)} entries, "
                f"expected one per point ({x.size})"
            )


@dataclass(frozen=True)
class Handle:
    """A point on a :class:`Lines` panel that the reader drags (mouse, touch) or moves with
    the arrow keys; it is bound to two :class:`Slider` parameters, its x and its y, or, with
    ``y=None``, to one: a position along the x axis (drawn on the axis, with a line across
    the plot).

    Dragging snaps to the sliders' grids (the nearest value of each), so the explorer's
    parameters stay on the declared grid and ``compute`` can check every position.

    Args:
        x, y: names of the sliders holding the point's coordinates (``y=None``: x only).
        label: what the point is, in words (e.g. ``"query"``); used in its accessible name
            and in the position it announces ("query at x = 0.5, y = -1", or "query at
            x = 0.5").
        color: CSS colour.
    """

    x: str
    y: str | None
    label: str = "point"
    color: str = "#D55E00"

    def spec(self) -> dict:
        return {"x": self.x, "y": self.y, "label": self.label, "color": self.color}


@dataclass(frozen=True)
class Spokes:
    """Lines from a panel's :class:`Handle` to each point of one of its fixed series, drawn
    with opacity and width proportional to a weight (Distill's attention lines).

    Args:
        to: name of the :class:`FixedSeries` (style ``"points"``) the lines run to.
        weights: name of the :class:`Heatmap` panel whose first row gives one weight per
            point of ``to``.
    """

    to: str
    weights: str

    def spec(self) -> dict:
        return {"to": self.to, "weights": self.weights}


def _to_array(value: Any, where: str) -> np.ndarray:
    if hasattr(value, "detach"):  # torch tensor
        value = value.detach().cpu().numpy()
    try:
        a = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ExplorerError(
            f"{where}: expected numbers; got {type(value).__name__} ({exc})"
        ) from None
    if not np.all(np.isfinite(a)):
        raise ExplorerError(f"{where}: contains NaN or infinite values")
    return a


def _round_list(a: np.ndarray, decimals: int = 6) -> list[float]:
    return [float(v) for v in np.round(np.asarray(a, dtype=np.float64), decimals)]
