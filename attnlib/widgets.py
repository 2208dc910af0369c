"""Slider explorers: every frame computed in Python, the browser only selects and draws.

An explorer is declared once, from

- a pure Python *update function* ``update(**params) -> {panel name: data}`` that computes
  what the panels show with :mod:`attnlib`,
- a list of parameters: :class:`Slider` (a numeric slider over an explicit list of values)
  or :class:`Choice` (a choice among string options),
- a list of panels: :class:`Heatmap` (a matrix, queries are rows) or :class:`Lines`
  (line/point series over a shared x axis, plus fixed series such as training points).

:class:`Explorer` (an `anywidget <https://anywidget.dev>`_ widget) evaluates the update
function on every point of the product of the parameter grids, validates every frame
(finite, right shapes, optional "rows sum to 1" check) and syncs all frames to the browser
in a compact form: values quantised to 16-bit (or 32-bit) integers with an error below
``1e-4``, identical frames stored once, data shared by all frames (axes, ticks, fixed
series) stored once. The ES module ``attnlib/static/explorer.js`` only picks the frame of
the current slider positions and redraws an SVG; it does no maths beyond colour mapping
and layout. The same widget therefore works live in JupyterLab and in the static HTML
book, which renders widgets from their saved state with no kernel, and the numbers it
shows are attnlib's numbers.

Example::

    >>> import torch
    >>> from attnlib import masked_softmax
    >>> scores = torch.tensor([[[1.0, 2.0, 3.0]]])  # (1, 1, 3)
    >>> def update(temperature):
    ...     return {"weights": masked_softmax(scores / temperature)[0]}
    >>> decl = Declaration(
    ...     name="demo",
    ...     update=update,
    ...     params=[Slider("temperature", [0.5, 1.0, 2.0], default=1.0)],
    ...     panels=[Heatmap("weights", xlabel="keys", ylabel="queries")],
    ... )
    >>> Explorer(decl)
    Explorer('demo': temperature ×3 → heatmap 'weights' 1×3)
"""
from __future__ import annotations

import base64
import hashlib
import itertools
import json
import math
import pathlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import anywidget
import numpy as np
import traitlets

from attnlib.plotting import OKABE_ITO  # colour-blind-safe line colours, shared with the figures

__all__ = [
    "Slider",
    "Choice",
    "Heatmap",
    "Lines",
    "Series",
    "FixedSeries",
    "Declaration",
    "Explorer",
    "encode_frames",
    "decode_frames",
    "ExplorerError",
    "standalone_html",
]

_STATIC = pathlib.Path(__file__).parent / "static"

#: Largest error allowed between a value as stored for the browser and attnlib's value.
MAX_ENCODING_ERROR = 1e-4



class ExplorerError(ValueError):
    """A declaration is invalid or an update function returned unusable data."""


# ----------------------------------------------------------------------------- parameters


def _format_number(v: float) -> str:
    """Short label for a slider value, e.g. 0.05, 1.5, 20, 512."""
    if float(v).is_integer() and abs(v) < 1e6:
        return str(int(v))
    return f"{v:.3g}"


@dataclass(frozen=True)
class Slider:
    """A numeric parameter: a slider over an explicit list of values.

    Args:
        name: keyword passed to the update function.
        values: the values the slider can take, in slider order (non-empty, finite,
            distinct). Integers stay ints, so ``update`` may use them as lengths.
        label: text shown before the slider (default: ``name``).
        default: initial value (must be one of ``values``; default: the middle one).
        value_labels: optional text shown for each value (default: a short number).
    """

    name: str
    values: Sequence[float]
    label: str | None = None
    default: float | None = None
    value_labels: Sequence[str] | None = None

    kind = "slider"

    def __post_init__(self) -> None:
        _check_name(self.name, "Slider")
        vals = list(self.values) if self.values is not None else []
        if not vals:
            raise ExplorerError(f"Slider {self.name!r}: values must be a non-empty list; got {self.values!r}")
        clean = []
        for v in vals:
            if hasattr(v, "item"):
                v = v.item()
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise ExplorerError(f"Slider {self.name!r}: every value must be a finite number; got {v!r}")
            clean.append(v)
        if len(set(clean)) != len(clean):
            raise ExplorerError(f"Slider {self.name!r}: values must be distinct; got {clean!r}")
        object.__setattr__(self, "values", tuple(clean))
        if self.value_labels is not None and len(self.value_labels) != len(clean):
            raise ExplorerError(f"Slider {self.name!r}: value_labels has {len(self.value_labels)} "
                                f"entries, expected one per value ({len(clean)})")
        if self.default is not None and self.default not in clean:
            raise ExplorerError(f"Slider {self.name!r}: default {self.default!r} is not one of the values")

    @property
    def options(self) -> tuple:
        return self.values

    def labels(self) -> list[str]:
        if self.value_labels is not None:
            return [str(s) for s in self.value_labels]
        return [_format_number(v) for v in self.values]

    def default_index(self) -> int:
        if self.default is None:
            return (len(self.values) - 1) // 2
        return self.values.index(self.default)


@dataclass(frozen=True)
class Choice:
    """A parameter chosen among string options (a drop-down list).

    Args:
        name: keyword passed to the update function.
        options: the strings the update function accepts (non-empty, distinct).
        label: text shown before the list (default: ``name``).
        default: initial option (default: the first).
        option_labels: optional text shown for each option (default: the option itself).
    """

    name: str
    options: Sequence[str]
    label: str | None = None
    default: str | None = None
    option_labels: Sequence[str] | None = None

    kind = "choice"

    def __post_init__(self) -> None:
        _check_name(self.name, "Choice")
        opts = list(self.options) if self.options is not None else []
        if not opts:
            raise ExplorerError(f"Choice {self.name!r}: options must be a non-empty list; got {self.options!r}")
        if not all(isinstance(o, str) for o in opts):
            raise ExplorerError(f"Choice {self.name!r}: options must be strings; got {opts!r}")
        if len(set(opts)) != len(opts):
            raise ExplorerError(f"Choice {self.name!r}: options must be distinct; got {opts!r}")
        object.__setattr__(self, "options", tuple(opts))
        if self.option_labels is not None and len(self.option_labels) != len(opts):
            raise ExplorerError(f"Choice {self.name!r}: option_labels has {len(self.option_labels)} "
                                f"entries, expected one per option ({len(opts)})")
        if self.default is not None and self.default not in opts:
            raise ExplorerError(f"Choice {self.name!r}: default {self.default!r} is not one of {opts!r}")

    @property
    def values(self) -> tuple:
        return self.options

    def labels(self) -> list[str]:
        if self.option_labels is not None:
            return [str(s) for s in self.option_labels]
        return list(self.options)

    def default_index(self) -> int:
        return 0 if self.default is None else self.options.index(self.default)


def _check_name(name: object, what: str) -> None:
    if not isinstance(name, str) or not name.isidentifier():
        raise ExplorerError(f"{what}: name must be a Python identifier string; got {name!r}")


# ----------------------------------------------------------------------------- panels


@dataclass(frozen=True)
class Heatmap:
    """A matrix drawn as coloured cells (queries are rows, keys are columns).

    The update function returns a 2-D array (tensor, ndarray or nested list) of the same
    shape for every frame.

    Args:
        name: panel name (key of the update function's result).
        xlabel, ylabel: axis labels (columns, rows).
        colorbar_label: label of the colour bar.
        vmin, vmax: values mapped to the ends of the colour scale; every value must lie
            in ``[vmin, vmax]``.
        row_labels, col_labels: optional tick labels (e.g. words); default: indices.
        title: optional title above the panel.
        rows_sum_to_one: check that every row sums to 1 (attention weights).
        allow_zero_rows: with ``rows_sum_to_one``, also accept an all-zero row (a query
            with no valid key).
    """

    name: str
    xlabel: str = "keys"
    ylabel: str = "queries"
    colorbar_label: str = "attention weight"
    vmin: float = 0.0
    vmax: float = 1.0
    row_labels: Sequence[str] | None = None
    col_labels: Sequence[str] | None = None
    title: str | None = None
    rows_sum_to_one: bool = False
    allow_zero_rows: bool = False

    kind = "heatmap"

    def __post_init__(self) -> None:
        _check_name(self.name, "Heatmap")
        if not (math.isfinite(self.vmin) and math.isfinite(self.vmax) and self.vmin < self.vmax):
            raise ExplorerError(f"Heatmap {self.name!r}: need finite vmin < vmax; got {self.vmin}, {self.vmax}")
        for attr in ("row_labels", "col_labels"):
            v = getattr(self, attr)
            if v is not None:
                object.__setattr__(self, attr, tuple(str(s) for s in v))

    def describe(self, shape: tuple[int, ...]) -> str:
        return f"heatmap {self.name!r} {shape[0]}×{shape[1]}"

    def normalise(self, value: Any, where: str) -> np.ndarray:
        a = _to_array(value, f"{where}: heatmap {self.name!r}")
        if a.ndim != 2:
            raise ExplorerError(f"{where}: heatmap {self.name!r} must be 2-D (n_queries, n_keys); "
                                f"got shape {tuple(a.shape)}")
        if self.row_labels is not None and len(self.row_labels) != a.shape[0]:
            raise ExplorerError(f"{where}: heatmap {self.name!r} has {a.shape[0]} rows but "
                                f"{len(self.row_labels)} row_labels")
        if self.col_labels is not None and len(self.col_labels) != a.shape[1]:
            raise ExplorerError(f"{where}: heatmap {self.name!r} has {a.shape[1]} columns but "
                                f"{len(self.col_labels)} col_labels")
        tol = 1e-6
        if a.size and (a.min() < self.vmin - tol or a.max() > self.vmax + tol):
            raise ExplorerError(f"{where}: heatmap {self.name!r} has values in [{a.min():.4g}, "
                                f"{a.max():.4g}], outside its colour range [{self.vmin}, {self.vmax}]")
        if self.rows_sum_to_one:
            sums = a.sum(axis=1)
            ok = np.abs(sums - 1.0) <= 1e-5
            if self.allow_zero_rows:
                ok |= np.all(a == 0.0, axis=1)
            if not ok.all():
                i = int(np.flatnonzero(~ok)[0])
                raise ExplorerError(f"{where}: heatmap {self.name!r} row {i} sums to {sums[i]:.6f}; "
                                    "rows must sum to 1" + (" (or be all zeros)" if self.allow_zero_rows else ""))
        return a

    def flatten(self, a: np.ndarray) -> np.ndarray:
        return a.reshape(-1)  # (n_queries * n_keys,)

    def unflatten(self, flat: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        return flat.reshape(shape)  # (n_queries, n_keys)

    def spec(self, shape: tuple[int, ...]) -> dict:
        return {
            "kind": "heatmap", "name": self.name, "title": self.title,
            "xlabel": self.xlabel, "ylabel": self.ylabel, "colorbar_label": self.colorbar_label,
            "vmin": float(self.vmin), "vmax": float(self.vmax),
            "rows": int(shape[0]), "cols": int(shape[1]),
            "row_labels": list(self.row_labels) if self.row_labels is not None else None,
            "col_labels": list(self.col_labels) if self.col_labels is not None else None,
            "colorbar_ticks": _nice_ticks(self.vmin, self.vmax, 5),
        }


@dataclass(frozen=True)
class Series:
    """A series of a :class:`Lines` panel that changes with the parameters.

    Args:
        name: key in the update function's dict for this panel (also the legend label).
        style: ``"line"`` or ``"points"``.
        xy: if False (default) the update returns y values on the panel's shared ``x``;
            if True it returns a ``(2, n)`` array of (x, y) coordinates.
        color: CSS colour (default: the next Okabe-Ito colour).
        dash: SVG dash pattern, e.g. ``"4 3"``.
        width: line width in px.
    """

    name: str
    style: str = "line"
    xy: bool = False
    color: str | None = None
    dash: str | None = None
    width: float = 2.0

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ExplorerError(f"Series: name must be a non-empty string; got {self.name!r}")
        if self.style not in ("line", "points"):
            raise ExplorerError(f"Series {self.name!r}: style must be 'line' or 'points'; got {self.style!r}")


@dataclass(frozen=True)
class FixedSeries:
    """Data drawn on a :class:`Lines` panel in every frame (e.g. training points, truth).

    Args:
        name: legend label.
        x, y: 1-D coordinates of equal length.
        style, color, dash, width: as for :class:`Series`.
    """

    name: str
    x: Any
    y: Any
    style: str = "line"
    color: str | None = None
    dash: str | None = None
    width: float = 1.5

    def __post_init__(self) -> None:
        x = _to_array(self.x, f"FixedSeries {self.name!r}: x")
        y = _to_array(self.y, f"FixedSeries {self.name!r}: y")
        if x.ndim != 1 or y.shape != x.shape:
            raise ExplorerError(f"FixedSeries {self.name!r}: x and y must be 1-D of equal length; "
                                f"got shapes {tuple(x.shape)} and {tuple(y.shape)}")
        if self.style not in ("line", "points"):
            raise ExplorerError(f"FixedSeries {self.name!r}: style must be 'line' or 'points'; got {self.style!r}")
        object.__setattr__(self, "x", x)
        object.__setattr__(self, "y", y)


@dataclass(frozen=True)
class Lines:
    """Line (or point) series over a shared x axis.

    The update function returns ``{series name: y}`` with ``y`` 1-D of length ``len(x)``
    (or a ``(2, n)`` array of coordinates for a series declared with ``xy=True``, ``n``
    the same in every frame).

    Args:
        name: panel name.
        x: shared x coordinates of the series that are not ``xy`` (1-D).
        series: the changing series (:class:`Series` or plain names).
        xlabel, ylabel, title: labels.
        fixed: series drawn unchanged in every frame (:class:`FixedSeries`).
        xlim, ylim: axis ranges; default: the range of all frames and fixed data, so the
            axes do not jump when a slider moves.
        equal_aspect: draw x and y with the same scale (for 2-D geometry).
    """

    name: str
    x: Any = None
    series: Sequence[Series | str] = ()
    xlabel: str = "x"
    ylabel: str = "y"
    title: str | None = None
    fixed: Sequence[FixedSeries] = ()
    xlim: tuple[float, float] | None = None
    ylim: tuple[float, float] | None = None
    equal_aspect: bool = False

    kind = "lines"

    def __post_init__(self) -> None:
        _check_name(self.name, "Lines")
        series = tuple(s if isinstance(s, Series) else Series(s) for s in self.series)
        if not series:
            raise ExplorerError(f"Lines {self.name!r}: declare at least one series")
        names = [s.name for s in series]
        if len(set(names)) != len(names):
            raise ExplorerError(f"Lines {self.name!r}: series names must be distinct; got {names!r}")
        object.__setattr__(self, "series", series)
        if self.x is not None:
            x = _to_array(self.x, f"Lines {self.name!r}: x")
            if x.ndim != 1 or x.size == 0:
                raise ExplorerError(f"Lines {self.name!r}: x must be a non-empty 1-D array; got shape {tuple(x.shape)}")
            object.__setattr__(self, "x", x)
        elif any(not s.xy for s in series):
            raise ExplorerError(f"Lines {self.name!r}: give x (shared x coordinates) for series without xy=True")
        fixed = tuple(self.fixed)
        for f in fixed:
            if not isinstance(f, FixedSeries):
                raise ExplorerError(f"Lines {self.name!r}: fixed must hold FixedSeries; got {type(f).__name__}")
        object.__setattr__(self, "fixed", fixed)

    def describe(self, shape: tuple[int, ...]) -> str:
        return f"lines {self.name!r}"

    def normalise(self, value: Any, where: str) -> dict[str, np.ndarray]:
        if not isinstance(value, Mapping):
            raise ExplorerError(f"{where}: lines panel {self.name!r} needs a dict series -> y; "
                                f"got {type(value).__name__}")
        want = [s.name for s in self.series]
        if set(value) != set(want):
            raise ExplorerError(f"{where}: lines panel {self.name!r} returned series {sorted(value)!r}; "
                                f"declared {want!r}")
        out = {}
        for s in self.series:
            a = _to_array(value[s.name], f"{where}: series {s.name!r} of {self.name!r}")
            if s.xy:
                if a.ndim != 2 or a.shape[0] != 2:
                    raise ExplorerError(f"{where}: series {s.name!r} of {self.name!r} is xy: expected "
                                        f"shape (2, n); got {tuple(a.shape)}")
            elif a.shape != self.x.shape:
                raise ExplorerError(f"{where}: series {s.name!r} of {self.name!r}: expected shape "
                                    f"{tuple(self.x.shape)} (one y per x); got {tuple(a.shape)}")
            out[s.name] = a
        return out

    def shape_of(self, value: dict[str, np.ndarray]) -> tuple:
        return tuple(tuple(value[s.name].shape) for s in self.series)

    def flatten(self, value: dict[str, np.ndarray]) -> np.ndarray:
        return np.concatenate([value[s.name].reshape(-1) for s in self.series])  # (total,)

    def unflatten(self, flat: np.ndarray, shape: tuple) -> dict[str, np.ndarray]:
        out, start = {}, 0
        for s, shp in zip(self.series, shape):
            n = int(np.prod(shp))
            out[s.name] = flat[start:start + n].reshape(shp)  # series shape
            start += n
        return out

    def spec(self, shape: tuple, all_values: np.ndarray) -> dict:
        # all_values: (n_frames, total) flattened frames, used for default axis ranges.
        xs, ys = [], []
        if self.x is not None:
            xs.append(self.x)
        start = 0
        for s, shp in zip(self.series, shape):
            n = int(np.prod(shp))
            block = all_values[:, start:start + n]
            if s.xy:
                half = n // 2
                xs.append(block[:, :half].reshape(-1))
                ys.append(block[:, half:].reshape(-1))
            else:
                ys.append(block.reshape(-1))
            start += n
        for f in self.fixed:
            xs.append(f.x)
            ys.append(f.y)
        xlim = self.xlim or _padded_range(np.concatenate(xs), 0.02)
        ylim = self.ylim or _padded_range(np.concatenate(ys), 0.05)
        colours = iter(list(OKABE_ITO) * 4)
        series_spec = []
        for s, shp in zip(self.series, shape):
            series_spec.append({"name": s.name, "style": s.style, "xy": s.xy,
                                "n": int(shp[-1]), "color": s.color or next(colours),
                                "dash": s.dash, "width": s.width})
        fixed_spec = []
        for f in self.fixed:
            fixed_spec.append({"name": f.name, "style": f.style, "color": f.color or next(colours),
                               "dash": f.dash, "width": f.width,
                               "x": _round_list(f.x), "y": _round_list(f.y)})
        return {
            "kind": "lines", "name": self.name, "title": self.title,
            "xlabel": self.xlabel, "ylabel": self.ylabel,
            "x": _round_list(self.x) if self.x is not None else None,
            "xlim": [float(xlim[0]), float(xlim[1])], "ylim": [float(ylim[0]), float(ylim[1])],
            "xticks": _nice_ticks(*xlim), "yticks": _nice_ticks(*ylim),
            "equal_aspect": bool(self.equal_aspect),
            "series": series_spec, "fixed": fixed_spec,
        }


_PANEL_KINDS = {"heatmap": Heatmap, "lines": Lines}


def _to_array(value: Any, where: str) -> np.ndarray:
    if hasattr(value, "detach"):  # torch tensor
        value = value.detach().cpu().numpy()
    try:
        a = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ExplorerError(f"{where}: expected numbers; got {type(value).__name__} ({exc})") from None
    if not np.all(np.isfinite(a)):
        raise ExplorerError(f"{where}: contains NaN or infinite values")
    return a


def _round_list(a: np.ndarray, decimals: int = 6) -> list[float]:
    return [float(v) for v in np.round(np.asarray(a, dtype=np.float64), decimals)]


def _padded_range(a: np.ndarray, pad: float) -> tuple[float, float]:
    lo, hi = float(np.min(a)), float(np.max(a))
    if hi == lo:
        lo, hi = lo - 0.5, hi + 0.5
    span = hi - lo
    return lo - pad * span, hi + pad * span


def _nice_ticks(lo: float, hi: float, target: int = 5) -> list[float]:
    """About ``target`` round tick positions within [lo, hi] (1, 2, 2.5, 5 × 10^k steps)."""
    span = hi - lo
    raw = span / max(target - 1, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step - 1e-9) * step
    ticks = []
    t = first
    while t <= hi + 1e-9 * span:
        ticks.append(float(round(t, 10)))
        t += step
    return ticks


def _as_panel(p: Any) -> Heatmap | Lines:
    if isinstance(p, (Heatmap, Lines)):
        return p
    if isinstance(p, Mapping):
        kind = p.get("kind")
        if kind not in _PANEL_KINDS:
            raise ExplorerError(f"unknown panel kind {kind!r} for panel {p.get('name')!r}; "
                                f"expected one of {sorted(_PANEL_KINDS)}")
        return _PANEL_KINDS[kind](**{k: v for k, v in p.items() if k != "kind"})
    raise ExplorerError(f"unknown panel {p!r}: expected Heatmap, Lines or a dict with 'kind' in "
                        f"{sorted(_PANEL_KINDS)}")


# ----------------------------------------------------------------------------- declaration


@dataclass(frozen=True)
class Declaration:
    """Everything that defines an explorer; cheap to build (computes no frame).

    Args:
        name: short identifier (e.g. ``"softmax_temperature"``).
        update: pure function ``update(**params) -> {panel name: data}``.
        params: :class:`Slider` / :class:`Choice` parameters, in display order.
        panels: :class:`Heatmap` / :class:`Lines` panels (or dicts with a ``"kind"``).
        title: optional caption shown above the controls.
    """

    name: str
    update: Callable[..., Mapping[str, Any]]
    params: Sequence[Slider | Choice]
    panels: Sequence[Any]
    title: str | None = None
    meta: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        _check_name(self.name, "Declaration")
        if not callable(self.update):
            raise ExplorerError(f"explorer {self.name!r}: update must be callable; got {type(self.update).__name__}")
        params = tuple(self.params)
        if not params:
            raise ExplorerError(f"explorer {self.name!r}: declare at least one parameter")
        for p in params:
            if not isinstance(p, (Slider, Choice)):
                raise ExplorerError(f"explorer {self.name!r}: parameters must be Slider or Choice; "
                                    f"got {type(p).__name__}")
        names = [p.name for p in params]
        if len(set(names)) != len(names):
            raise ExplorerError(f"explorer {self.name!r}: parameter names must be distinct; got {names!r}")
        object.__setattr__(self, "params", params)
        panels = tuple(_as_panel(p) for p in self.panels)
        if not panels:
            raise ExplorerError(f"explorer {self.name!r}: declare at least one panel")
        pnames = [p.name for p in panels]
        if len(set(pnames)) != len(pnames):
            raise ExplorerError(f"explorer {self.name!r}: panel names must be distinct; got {pnames!r}")
        object.__setattr__(self, "panels", panels)

    @property
    def n_frames(self) -> int:
        return math.prod(len(p.values) for p in self.params)

    def defaults(self) -> dict[str, Any]:
        return {p.name: p.values[p.default_index()] for p in self.params}

    def grid(self):
        """Yield ``(frame index, params dict)`` over the product grid (first parameter slowest)."""
        for i, combo in enumerate(itertools.product(*(p.values for p in self.params))):
            yield i, dict(zip((p.name for p in self.params), combo))

    def compute(self, **params: Any) -> dict[str, Any]:
        """One frame, validated: ``{panel: 2-D ndarray | {series: ndarray}}``.

        Missing parameters take their default; unknown ones raise ``TypeError``.
        """
        known = {p.name for p in self.params}
        unknown = set(params) - known
        if unknown:
            raise TypeError(f"explorer {self.name!r}: unknown parameter(s) {sorted(unknown)}; "
                            f"expected {[p.name for p in self.params]}")
        for p in self.params:
            if isinstance(p, Choice) and p.name in params and params[p.name] not in p.options:
                raise ValueError(f"explorer {self.name!r}: {p.name} must be one of {list(p.options)}; "
                                 f"got {params[p.name]!r}")
        full = {**self.defaults(), **params}
        return self._normalise(self.update(**full), full)

    def _normalise(self, result: Any, params: dict) -> dict[str, Any]:
        where = f"explorer {self.name!r} at {params}"
        if not isinstance(result, Mapping):
            raise ExplorerError(f"{where}: update must return a dict panel -> data; got {type(result).__name__}")
        want = [p.name for p in self.panels]
        if set(result) != set(want):
            raise ExplorerError(f"{where}: update returned panels {sorted(result)!r}; declared {want!r}")
        return {p.name: p.normalise(result[p.name], where) for p in self.panels}


# ----------------------------------------------------------------------------- encoding


def encode_frames(values: np.ndarray, where: str = "") -> dict:
    """Compact, JSON-friendly encoding of ``values`` (n_frames, n) with error < 1e-4.

    ``where`` names the explorer and panel in error messages (e.g. ``"explorer 'x', panel
    'weights'"``). Values whose span (max - min) is too wide for 32-bit steps of 1e-4,
    about 4e5, raise :class:`ExplorerError`: rescale the panel (e.g. plot log values or
    divide by a unit) or split it.

    Values are quantised to unsigned integers, ``value ≈ offset + q * scale``: 16 bits when
    that keeps the error below ``MAX_ENCODING_ERROR / 2`` (always the case for weights in
    [0, 1]: error ≤ 7.7e-6), exactly for small integers (histogram counts), else 32 bits.
    Identical frames are stored once (``index`` maps frame -> stored frame). The integers
    are stored little-endian, split into byte planes (all low bytes, then all high bytes,
    which gzip compresses much better) and base64-encoded.
    """
    values = np.asarray(values, dtype=np.float64)
    n_frames, n = values.shape
    # Deduplicate identical frames.
    uniq: dict[bytes, int] = {}
    index = []
    rows = []
    for f in range(n_frames):
        key = hashlib.sha1(values[f].tobytes()).digest()
        if key not in uniq:
            uniq[key] = len(rows)
            rows.append(values[f])
        index.append(uniq[key])
    stored = np.stack(rows) if rows else values[:0]  # (n_stored, n)
    lo = float(stored.min()) if stored.size else 0.0
    hi = float(stored.max()) if stored.size else 0.0
    span = hi - lo
    if stored.size and np.all(stored == np.round(stored)) and span < 65536:
        bits, scale = 16, 1.0
    elif span == 0.0:
        bits, scale = 16, 1.0
    elif span / 65535 / 2 <= MAX_ENCODING_ERROR / 2:
        bits, scale = 16, span / 65535
    else:
        bits, scale = 32, span / 4294967295
        if not np.isfinite(span) or scale / 2 + abs(hi) * 2e-16 >= MAX_ENCODING_ERROR / 2:
            raise ExplorerError(
                f"{where or 'explorer'}: the values span {lo:.6g} .. {hi:.6g} (a range of "
                f"{span:.3g}); the frame encoding keeps every value within "
                f"{MAX_ENCODING_ERROR:g} with 32-bit steps, which holds a range of at most "
                f"{4294967295 * MAX_ENCODING_ERROR:.3g}. Fix: rescale this panel (plot "
                f"log values, or divide by a unit and say so in its label) or split it")
    q = np.round((stored - lo) / scale)
    dtype = np.dtype("<u2") if bits == 16 else np.dtype("<u4")
    q = np.clip(q, 0, np.iinfo(dtype).max).astype(dtype)  # (n_stored, n)
    planes = q.reshape(-1).view(np.uint8).reshape(-1, dtype.itemsize).T  # (bytes, n_stored*n)
    blob = base64.b64encode(np.ascontiguousarray(planes).tobytes()).decode("ascii")
    enc = {"bits": bits, "offset": lo, "scale": scale, "n": int(n), "n_stored": len(rows),
           "data": blob, "index": index if len(rows) < n_frames else None}
    err = float(np.max(np.abs(decode_frames(enc) - values))) if values.size else 0.0
    if not err < MAX_ENCODING_ERROR:  # pragma: no cover - guarded by the span check
        raise ExplorerError(f"{where or 'explorer'}: encoding error {err:.3g} exceeds "
                            f"{MAX_ENCODING_ERROR}; rescale this panel's values")
    return enc


def decode_frames(enc: Mapping) -> np.ndarray:
    """Inverse of :func:`encode_frames` (what explorer.js does): (n_frames, n) float64."""
    nbytes = enc["bits"] // 8
    raw = np.frombuffer(base64.b64decode(enc["data"]), dtype=np.uint8)
    n_stored, n = enc["n_stored"], enc["n"]
    planes = raw.reshape(nbytes, n_stored * n)  # (bytes, n_stored*n)
    q = np.zeros(n_stored * n, dtype=np.float64)
    for b in range(nbytes):
        q += planes[b].astype(np.float64) * (256.0 ** b)
    stored = (enc["offset"] + q * enc["scale"]).reshape(n_stored, n)  # (n_stored, n)
    index = enc["index"] if enc["index"] is not None else list(range(n_stored))
    return stored[np.asarray(index, dtype=np.int64)]


# ----------------------------------------------------------------------------- widget


class Explorer(anywidget.AnyWidget):
    """A slider explorer whose frames are all precomputed in Python (see module docs).

    Args:
        declaration: the explorer's :class:`Declaration`.

    Attributes:
        declaration: the declaration.
        frames: list of frames (dict panel -> validated data), in grid order.
        params: current parameter values (follows the sliders in a live kernel).

    Synced state: ``name``, ``spec`` (parameters, panel layout, shared data), ``data``
    (per panel: encoded frames, see :func:`encode_frames`) and ``indices`` (current index
    of each parameter; the browser writes it when a slider moves, Python may set it).
    """

    _esm = _STATIC / "explorer.js"
    _css = _STATIC / "explorer.css"

    name = traitlets.Unicode("").tag(sync=True)
    spec = traitlets.Dict().tag(sync=True)
    data = traitlets.Dict().tag(sync=True)
    indices = traitlets.List(traitlets.Int()).tag(sync=True)

    def __init__(self, declaration: Declaration, **kwargs: Any) -> None:
        if not isinstance(declaration, Declaration):
            raise TypeError(f"Explorer: declaration must be an attnlib.widgets.Declaration; "
                            f"got {type(declaration).__name__}")
        decl = declaration
        frames, shapes = [], {}
        for _, params in decl.grid():
            frame = decl._normalise(decl.update(**params), params)
            for p in decl.panels:
                shp = p.shape_of(frame[p.name]) if isinstance(p, Lines) else tuple(frame[p.name].shape)
                if p.name not in shapes:
                    shapes[p.name] = shp
                elif shapes[p.name] != shp:
                    raise ExplorerError(f"explorer {decl.name!r} at {params}: panel {p.name!r} has "
                                        f"shape {shp}, but {shapes[p.name]} in the first frame; "
                                        "every frame must have the same shape")
            frames.append(frame)
        data, panel_specs = {}, []
        for p in decl.panels:
            flat = np.stack([p.flatten(fr[p.name]) for fr in frames])  # (n_frames, n)
            data[p.name] = encode_frames(flat, f"explorer {decl.name!r}, panel {p.name!r}")
            if isinstance(p, Lines):
                panel_specs.append(p.spec(shapes[p.name], flat))
            else:
                panel_specs.append(p.spec(shapes[p.name]))
        param_specs = []
        for p in decl.params:
            param_specs.append({
                "name": p.name, "kind": p.kind, "label": p.label or p.name,
                "values": list(p.values), "labels": p.labels(),
            })
        spec = {"title": decl.title, "params": param_specs, "panels": panel_specs,
                "strides": _strides([len(p.values) for p in decl.params])}
        super().__init__(name=decl.name, spec=spec, data=data,
                         indices=[p.default_index() for p in decl.params], **kwargs)
        self.declaration = decl
        self.frames = frames
        self._shapes = shapes

    # -- Python-side helpers
    @property
    def params(self) -> dict[str, Any]:
        """Current parameter values."""
        return {p.name: p.values[i] for p, i in zip(self.declaration.params, self.indices)}

    def set(self, **params: Any) -> None:
        """Move sliders to the given values (each must be on its grid)."""
        idx = list(self.indices)
        for k, v in params.items():
            pos = [p.name for p in self.declaration.params]
            if k not in pos:
                raise TypeError(f"explorer {self.name!r}: unknown parameter {k!r}; expected {pos}")
            p = self.declaration.params[pos.index(k)]
            if v not in p.values:
                raise ValueError(f"explorer {self.name!r}: {k}={v!r} is not on its grid {list(p.values)}")
            idx[pos.index(k)] = p.values.index(v)
        self.indices = idx

    def frame_index(self, **params: Any) -> int:
        """Index of the frame for the given parameter values (defaults for missing ones)."""
        full = {**self.declaration.defaults(), **params}
        strides = self.spec["strides"]
        return sum(p.values.index(full[p.name]) * s for p, s in zip(self.declaration.params, strides))

    def decoded(self, frame: int) -> dict[str, Any]:
        """The frame as the browser sees it (decoded from the synced state)."""
        out = {}
        for p in self.declaration.panels:
            flat = decode_frames(self.data[p.name])[frame]
            out[p.name] = p.unflatten(flat, self._shapes[p.name])
        return out

    def state_size(self) -> tuple[int, int]:
        """(raw bytes, gzip bytes) of the synced state as JSON (what a page embeds)."""
        import gzip

        state = {"name": self.name, "spec": self.spec, "data": self.data, "indices": self.indices,
                 "_esm": str(self._esm), "_css": str(self._css)}
        raw = json.dumps(state, separators=(",", ":")).encode()
        return len(raw), len(gzip.compress(raw, 9))

    def __repr__(self) -> str:
        decl = self.declaration if hasattr(self, "declaration") else None
        if decl is None:
            return "Explorer(<uninitialised>)"
        params = ", ".join(f"{p.name} ×{len(p.values)}" for p in decl.params)
        panels = ", ".join(p.describe(self._shapes[p.name]) for p in decl.panels)
        return f"Explorer({decl.name!r}: {params} → {panels})"


def _strides(sizes: list[int]) -> list[int]:
    strides, acc = [], 1
    for s in reversed(sizes):
        strides.append(acc)
        acc *= s
    return strides[::-1]


# ----------------------------------------------------------------------------- standalone page

_SHIM = """
const state = JSON.parse(document.getElementById("attn-state").textContent);
const listeners = {};
let saves = 0;
const model = {
  get: (k) => state[k],
  set: (k, v) => { state[k] = v; (listeners["change:" + k] || []).slice().forEach((f) => f()); },
  on: (ev, f) => { (listeners[ev] = listeners[ev] || []).push(f); },
  off: (ev, f) => { if (listeners[ev]) listeners[ev] = listeners[ev].filter((g) => g !== f); },
  save_changes: () => { saves += 1; },
};
const url = URL.createObjectURL(new Blob([document.getElementById("attn-esm").textContent],
                                         { type: "text/javascript" }));
const mod = (await import(url)).default;
window.attnModel = model;
window.attnSaves = () => saves;
window.attnCleanup = mod.render({ model, el: document.getElementById("attn-host") });
"""


def standalone_html(explorer: Explorer) -> str:
    """A self-contained HTML page rendering ``explorer`` without Jupyter (no kernel, no network).

    The page embeds the ES module, the CSS and the synced state, and drives the module
    with a minimal stand-in for the anywidget model (``get``/``set``/``on``/``off``/
    ``save_changes``). Used by the tests and benchmarks; also handy for a quick preview.
    """
    def safe(text: str) -> str:
        return text.replace("</", "<\\/")

    state = {"name": explorer.name, "spec": explorer.spec, "data": explorer.data,
             "indices": list(explorer.indices)}
    esm = (_STATIC / "explorer.js").read_text(encoding="utf-8")
    css = (_STATIC / "explorer.css").read_text(encoding="utf-8")
    return ("<!doctype html>\n<html><head><meta charset=\"utf-8\">"
            f"<title>{explorer.name}</title><style>{css}</style></head><body>"
            "<div id=\"attn-host\"></div>"
            f"<script type=\"application/json\" id=\"attn-state\">{safe(json.dumps(state))}</script>"
            f"<script type=\"text/plain\" id=\"attn-esm\">{safe(esm)}</script>"
            f"<script type=\"module\">{_SHIM}</script></body></html>\n")
