"""What a :class:`~attnlib.widgets.Lines` panel holds: its :class:`Series` (one per frame) and
:class:`FixedSeries` (drawn once), the point the reader drags (:class:`Handle`) and the lines
from it to the keys (:class:`Spokes`); and the array helpers every panel uses."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from attnlib import _validate
from attnlib import domains as D
from attnlib.widgets.controls import (
    FLAG,
    OPTIONAL_TEXT,
    TEXT,
    TEXTS,
    ExplorerError,
    _declared,
    _flag,
    _labels,
    checked_later,
    record,
)
from attnlib.widgets.encoding import MAX_ENCODING_ERROR

__all__ = ["Series", "FixedSeries", "Handle", "Spokes"]


@record(
    name=TEXT,
    style=TEXT,
    xy=FLAG,
    color=OPTIONAL_TEXT,
    dash=OPTIONAL_TEXT,
    width=D.Real(),
    linked_rows=FLAG,
)
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
        where = f"Series {self.name!r}"
        if self.style not in ("line", "points", "bars"):
            raise ExplorerError(
                f"{where}: style must be 'line', 'points' or 'bars'; got {self.style!r}"
            )
        object.__setattr__(self, "xy", _flag(self.xy, "xy", where))
        object.__setattr__(self, "linked_rows", _flag(self.linked_rows, "linked_rows", where))
        _style(self, where)
        if self.linked_rows and self.style != "points":
            raise ExplorerError(
                f"Series {self.name!r}: linked_rows needs style='points' (one point per row)"
            )


@record(
    name=D.Str(nonempty=True),
    x=checked_later("x values (n,)"),
    y=checked_later("y values (n,)"),
    style=TEXT,
    color=OPTIONAL_TEXT,
    dash=OPTIONAL_TEXT,
    width=D.Real(),
    labels=TEXTS,
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
        if not isinstance(self.name, str) or not self.name:
            raise ExplorerError(f"FixedSeries: name must be a non-empty string; got {self.name!r}")
        where = f"FixedSeries {self.name!r}"
        x = _to_array(self.x, f"{where}: x")
        y = _to_array(self.y, f"{where}: y")
        if x.ndim != 1 or y.shape != x.shape:
            raise ExplorerError(
                f"{where}: x and y must be 1-D of equal length; "
                f"got shapes {tuple(x.shape)} and {tuple(y.shape)}"
            )
        if x.size == 0:
            raise ExplorerError(f"{where}: needs at least one point; got x and y of length 0")
        _style(self, where)
        if self.style not in ("line", "points"):
            raise ExplorerError(
                f"FixedSeries {self.name!r}: style must be 'line' or 'points'; got {self.style!r}"
            )
        object.__setattr__(self, "x", x)
        object.__setattr__(self, "y", y)
        object.__setattr__(self, "labels", _labels(self.labels, "labels", where, x.size, "point"))


@record(
    x=D.Str(what="a slider name (str)"),
    y=D.Str(optional=True, what="a slider name (str) or None"),
    label=TEXT,
    color=TEXT,
    circle=checked_later("(cx, cy, r) or None"),
)
@dataclass(frozen=True)
class Handle:
    """A point on a :class:`Lines` panel that the reader drags (mouse, touch) or moves with
    the arrow keys; it is bound to two :class:`Slider` parameters, its x and its y, or, with
    ``y=None``, to one: a position along the x axis (drawn on the axis, with a line across
    the plot), or, with ``circle=(cx, cy, r)``, an angle in degrees: the point runs round that
    circle, at ``(cx + r cos a, cy + r sin a)``.

    Dragging snaps to the sliders' grids (the nearest value of each; round a circle, the
    nearest angle, 359° being next to 0°), so the explorer's parameters stay on the declared
    grid and ``compute`` can check every position. A finger drags the point only when it
    lands on it; elsewhere on the plot a swipe scrolls the page and a tap puts the point there.

    Args:
        x, y: names of the sliders holding the point's coordinates (``y=None``: x only, or
            the angle with ``circle``).
        label: what the point is, in words (e.g. ``"query"``); used in its accessible name
            and in the position it announces ("query at x = 0.5, y = -1", "query at
            x = 0.5", or "query at angle 40°").
        color: CSS colour.
        circle: ``(cx, cy, r)`` in the plot's units, ``r > 0``; needs ``y=None``.
    """

    x: str
    y: str | None
    label: str = "point"
    color: str = "#D55E00"
    circle: tuple[float, float, float] | None = None

    def __post_init__(self) -> None:
        where = "Handle"
        for attr in ("x", "y"):
            v = getattr(self, attr)
            if not (isinstance(v, str) or (attr == "y" and v is None)):
                raise ExplorerError(
                    f"{where}: {attr} must be a slider name (str)"
                    + (" or None" if attr == "y" else "")
                    + f"; got {v!r}"
                )
        if not isinstance(self.label, str) or not self.label:
            raise ExplorerError(f"{where}: label must be a non-empty string; got {self.label!r}")
        _check_colour(self.color, "color", where, optional=False)
        if self.circle is None:
            return
        try:
            c = tuple(float(v) for v in self.circle)
        except (TypeError, ValueError):
            raise ExplorerError(
                f"Handle {self.x!r}: circle must be (cx, cy, r) numbers; got {self.circle!r}"
            ) from None
        if len(c) != 3 or not all(math.isfinite(v) for v in c) or c[2] <= 0:
            raise ExplorerError(
                f"Handle {self.x!r}: circle must be three finite numbers (cx, cy, r) "
                f"with r > 0; got {self.circle!r}"
            )
        if self.y is not None:
            raise ExplorerError(
                f"Handle {self.x!r}: a handle on a circle is bound to one slider (its angle); "
                f"got y={self.y!r}"
            )
        object.__setattr__(self, "circle", c)

    def spec(self) -> dict:
        out = {"x": self.x, "y": self.y, "label": self.label, "color": self.color}
        if self.circle is not None:
            out["circle"] = list(self.circle)
        return out


@record(to=TEXT, weights=TEXT)
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

    def __post_init__(self) -> None:
        for attr in ("to", "weights"):
            if not isinstance(getattr(self, attr), str):
                raise ExplorerError(
                    f"Spokes: {attr} must be a name (str); got {getattr(self, attr)!r}"
                )

    def spec(self) -> dict:
        return {"to": self.to, "weights": self.weights}


# CSS colours a series may take: hex (#rgb, #rgba, #rrggbb, #rrggbbaa), a named colour, or
# rgb()/rgba()/hsl()/hsla() of numbers; anything else would be drawn as no colour at all.
_HEX = re.compile(r"#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})")
_FUNCTION = re.compile(
    r"(?:rgba?|hsla?)\(\s*[0-9.+\-%]+(?:deg)?(?:\s*[,/\s]\s*[0-9.+\-%]+){2,3}\s*\)"
)
_DASH = re.compile(r"\s*[0-9]+(?:\.[0-9]+)?(?:\s*[,\s]\s*[0-9]+(?:\.[0-9]+)?)*\s*")


def _css_names() -> frozenset[str]:
    from matplotlib.colors import CSS4_COLORS

    return frozenset(CSS4_COLORS) | {"transparent", "currentcolor"}


def _check_colour(value: object, name: str, where: str, optional: bool = True) -> None:
    if value is None and optional:
        return
    if not isinstance(value, str):
        raise ExplorerError(f"{where}: {name} must be a CSS colour string; got {value!r}")
    if not (_HEX.fullmatch(value) or _FUNCTION.fullmatch(value) or value.lower() in _css_names()):
        raise ExplorerError(
            f"{where}: {name} must be a CSS colour ('#d55e00', 'black', 'rgb(0, 114, 178)'); "
            f"got {value!r}"
        )


def _style(series: Any, where: str) -> None:
    """Colour, dash pattern and width of a series, checked (they go to SVG attributes)."""
    _check_colour(series.color, "color", where)
    dash = series.dash
    if dash is not None:
        if not isinstance(dash, str) or not _DASH.fullmatch(dash):
            raise ExplorerError(
                f"{where}: dash must be an SVG dash pattern, numbers >= 0 separated by spaces "
                f"or commas (e.g. '4 3'); got {dash!r}"
            )
        if not any(float(v) > 0 for v in re.split(r"[,\s]+", dash.strip())):
            raise ExplorerError(f"{where}: dash {dash!r} draws nothing: give a length > 0")
    width = _declared(_validate.as_real, series.width, "width", where, min=0.0, min_open=True)
    object.__setattr__(series, "width", width)


def _to_array(value: Any, where: str) -> np.ndarray:
    if hasattr(value, "detach"):  # torch tensor
        value = value.detach().cpu()
        if value.is_complex():
            raise ExplorerError(f"{where}: expected real numbers; got a complex tensor")
        value = value.double().numpy() if value.is_floating_point() else value.numpy()
    if np.iscomplexobj(value):
        raise ExplorerError(f"{where}: expected real numbers; got complex values")
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


def _ticks(ticks: object, xlim, where: str, discrete: bool = False) -> tuple:
    """``xticks`` checked: (position, one-line label) pairs, positions increasing inside
    ``xlim`` (which must be given: ticks chosen by hand go with a range chosen by hand)."""
    if ticks is None:
        return None
    if discrete:
        raise ExplorerError(f"{where}: give xticks or discrete_x, not both")
    if isinstance(ticks, (str, bytes)) or not isinstance(ticks, Sequence) or not ticks:
        raise ExplorerError(
            f"{where}: xticks must be a non-empty list of (position, label) pairs; got "
            f"{type(ticks).__name__} {ticks!r}"
        )
    if xlim is None:
        raise ExplorerError(f"{where}: xticks needs xlim (the range the ticks are placed in)")
    out = []
    for i, pair in enumerate(ticks):
        if isinstance(pair, (str, bytes)) or not isinstance(pair, Sequence) or len(pair) != 2:
            raise ExplorerError(
                f"{where}: xticks[{i}] must be a (position, label) pair; got {pair!r}"
            )
        pos = _declared(_validate.as_real, pair[0], f"xticks[{i}] position", where)
        label = pair[1]
        if not isinstance(label, str) or not label.strip() or "\n" in label:
            raise ExplorerError(
                f"{where}: xticks[{i}] label must be a non-empty one-line string; got {label!r}"
            )
        if not xlim[0] <= pos <= xlim[1]:
            raise ExplorerError(
                f"{where}: xticks[{i}] position {pos:g} is outside xlim {tuple(xlim)!r}"
            )
        if out and pos <= out[-1][0]:
            raise ExplorerError(
                f"{where}: xticks positions must increase; got {pos:g} after {out[-1][0]:g}"
            )
        out.append((float(pos), label))
    return tuple(out)


def _nice_ticks(lo: float, hi: float, target: int = 5) -> list[float]:
    """About ``target`` round tick positions within [lo, hi] (1, 2, 2.5, 5 × 10^k steps).

    The positions are k × step for whole k (no sum of steps that could drift or stall)."""
    span = hi - lo
    raw = span / max(target - 1, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step - 1e-9)
    last = math.floor(hi / step + 1e-9)
    return [float(round(k * step, 10)) for k in range(first, last + 1)]


def _x_ticks(xticks, discrete_x: bool, x, xlim) -> dict:
    """A lines panel's x ticks in its spec: placed by hand (with their labels), one per
    discrete ``x``, or evenly spaced over ``xlim``."""
    if xticks:
        return {"xticks": [p for p, _ in xticks], "xtick_labels": [t for _, t in xticks]}
    return {"xticks": _round_list(np.unique(x)) if discrete_x else _nice_ticks(*xlim)}


#: The narrowest range a panel's axis may span: the frames are stored within
#: MAX_ENCODING_ERROR, so a narrower axis would show the encoding's steps (and ticks closer
#: than the doubles near the limits can tell apart would collapse).
MIN_SPAN = 10 * MAX_ENCODING_ERROR


def _min_span(lo: float, hi: float) -> float:
    return max(MIN_SPAN, 1e-9 * max(abs(lo), abs(hi)))


def _padded_range(a: np.ndarray, pad: float) -> tuple[float, float]:
    if a.size == 0:  # nothing drawn on this axis (a panel with only a 1-D handle): 0 to 1
        return 0.0, 1.0
    lo, hi = float(np.min(a)), float(np.max(a))
    if hi - lo < _min_span(lo, hi):  # constant (or nearly) data: a readable range around it
        mid, half = (lo + hi) / 2, max(0.5, _min_span(lo, hi))
        lo, hi = mid - half, mid + half
    span = hi - lo
    return lo - pad * span, hi + pad * span
