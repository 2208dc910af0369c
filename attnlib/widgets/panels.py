"""What is drawn: :class:`Heatmap` and :class:`Lines` panels (see :mod:`attnlib.widgets`).

A lines panel's series, dragged :class:`Handle` and :class:`Spokes` are declared in
:mod:`attnlib.widgets.series`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from attnlib import _validate
from attnlib import domains as D
from attnlib.plotting import OKABE_ITO  # colour-blind-safe line colours, shared with the figures
from attnlib.widgets.caption import Caption, LabelledMatrix, frame_labels
from attnlib.widgets.controls import (
    FLAG,
    NAME,
    OPTIONAL_TEXT,
    TEXT,
    TEXTS,
    ExplorerError,
    _declared,
    checked_later,
    record,
)
from attnlib.widgets.encoding import MAX_ENCODING_ERROR
from attnlib.widgets.series import (
    FixedSeries,
    Handle,
    Series,
    Spokes,
    _min_span,
    _nice_ticks,
    _padded_range,
    _round_list,
    _ticks,
    _to_array,
    _x_ticks,
)

# ----------------------------------------------------------------------------- panels


@record(
    name=NAME,
    xlabel=TEXT,
    ylabel=TEXT,
    colorbar_label=TEXT,
    vmin=D.Real(),
    vmax=D.Real(),
    row_labels=TEXTS,
    col_labels=TEXTS,
    title=OPTIONAL_TEXT,
    rows_sum_to_one=FLAG,
    allow_zero_rows=FLAG,
    saturate=FLAG,
    masked_zeros=FLAG,
    labels_per_frame=FLAG,
    read_row=D.Int(ge=0, optional=True),
)
@dataclass(frozen=True)
class Heatmap:
    """A matrix drawn as coloured cells (queries are rows, keys are columns).

    The update function returns a 2-D array (tensor, ndarray or nested list) of the same
    shape for every frame.

    Args:
        name: panel name (key of the update function's result).
        xlabel, ylabel: axis labels (columns, rows).
        colorbar_label: label of the colour bar (the page adds that colours follow value^0.6).
        vmin, vmax: values mapped to the ends of the colour scale; every value must lie
            in ``[vmin, vmax]`` (above ``vmax`` too with ``saturate``). The range is fixed
            for the explorer, never fitted per frame, so frames compare honestly.
        row_labels, col_labels: optional tick labels (e.g. words); default: indices.
        title: optional title above the panel.
        rows_sum_to_one: check that every row sums to 1 (attention weights).
        allow_zero_rows: with ``rows_sum_to_one``, also accept an all-zero row (a query
            with no valid key).
        masked_zeros: a weight of exactly 0 is a masked key: the page crosses its cell out
            (a masked cell is otherwise the colour of a very small weight).
        saturate: accept values above ``vmax`` and paint them in ``vmax``'s colour; the
            colour bar ends in an arrow and its last tick reads "≥ vmax". For weights that
            stay small in most frames (e.g. ``vmax=0.25``): the range shows their structure,
            and the rare large weight still reads as the strongest colour.
        labels_per_frame: the tick labels change with the frame (e.g. the characters of
            the input the sliders pick): the update returns ``{"values": 2-D array,
            "row_labels": [...], "col_labels": [...]}`` for this panel, one-line strings,
            one per row and per column (``""`` for a padding row or column); the page
            leaves room for labels of up to 10 characters.
        read_row: the row the explorer's spoken line reads until the reader points at,
            taps or focuses a cell (then that cell's row), e.g. the row the notices speak
            of; default: a row another panel outlines, else the last row.
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
    saturate: bool = False
    masked_zeros: bool = False
    labels_per_frame: bool = False
    read_row: int | None = None

    kind = "heatmap"

    def __post_init__(self) -> None:
        where = f"Heatmap {self.name!r}"  # each field's kind: declared (above)
        vmin, vmax = self.vmin, self.vmax
        if not vmin < vmax or vmax - vmin < _min_span(vmin, vmax):
            raise ExplorerError(
                f"{where}: need finite vmin < vmax, at least {_min_span(vmin, vmax):g} apart; "
                f"got {vmin}, {vmax}"
            )
        if self.allow_zero_rows and not self.rows_sum_to_one:
            raise ExplorerError(
                f"{where}: allow_zero_rows only relaxes rows_sum_to_one; set rows_sum_to_one=True "
                "too (or drop allow_zero_rows)"
            )
        if not isinstance(self.labels_per_frame, bool):
            raise ExplorerError(
                f"{where}: labels_per_frame must be True or False; got {self.labels_per_frame!r}"
            )
        if self.labels_per_frame and (self.row_labels is not None or self.col_labels is not None):
            raise ExplorerError(
                f"Heatmap {self.name!r}: labels_per_frame=True takes each frame's labels from "
                "the update function; do not also give row_labels or col_labels"
            )

    def describe(self, shape: tuple[int, ...]) -> str:
        return f"heatmap {self.name!r} {shape[0]}×{shape[1]}"

    def normalise(self, value: Any, where: str) -> np.ndarray:
        rows = cols = None
        if self.labels_per_frame:
            value, rows, cols = frame_labels(value, where, self.name)
        a = _to_array(value, f"{where}: heatmap {self.name!r}")
        if a.ndim != 2:
            raise ExplorerError(
                f"{where}: heatmap {self.name!r} must be 2-D (n_queries, n_keys); "
                f"got shape {tuple(a.shape)}"
            )
        if a.size == 0:
            raise ExplorerError(
                f"{where}: heatmap {self.name!r} must have at least one row and one column; "
                f"got shape {tuple(a.shape)}"
            )
        rows = self.row_labels if rows is None else rows
        cols = self.col_labels if cols is None else cols
        for n, labels, axis, arg in (
            (a.shape[0], rows, "rows", "row"),
            (a.shape[1], cols, "columns", "col"),
        ):
            if labels is not None and len(labels) != n:
                raise ExplorerError(
                    f"{where}: heatmap {self.name!r} has {n} {axis} but {len(labels)} {arg}_labels"
                )
        if self.read_row is not None and self.read_row >= a.shape[0]:
            raise ExplorerError(
                f"{where}: heatmap {self.name!r}: read_row {self.read_row} >= {a.shape[0]} rows"
            )
        tol = 1e-6
        if a.size and (
            a.min() < self.vmin - tol or (a.max() > self.vmax + tol and not self.saturate)
        ):
            raise ExplorerError(
                f"{where}: heatmap {self.name!r} has values in [{a.min():.4g}, "
                f"{a.max():.4g}], outside its colour range [{self.vmin}, {self.vmax}]"
                + (
                    " (saturate=True accepts values above vmax)"
                    if a.min() >= self.vmin - tol
                    else ""
                )
            )
        if self.rows_sum_to_one:
            sums = a.sum(axis=1)
            ok = np.abs(sums - 1.0) <= 1e-5
            if self.allow_zero_rows:
                ok |= np.all(a == 0.0, axis=1)
            if not ok.all():
                i = int(np.flatnonzero(~ok)[0])
                raise ExplorerError(
                    f"{where}: heatmap {self.name!r} row {i} sums to {sums[i]:.6f}; "
                    "rows must sum to 1" + (" (or be all zeros)" if self.allow_zero_rows else "")
                )
        return LabelledMatrix(a, rows, cols) if self.labels_per_frame else a

    def shape_of(self, a: np.ndarray) -> tuple:
        return tuple(a.shape)

    def flatten(self, a: np.ndarray) -> np.ndarray:
        return np.asarray(a).reshape(-1)  # (n_queries * n_keys,)

    def unflatten(self, flat: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        return flat.reshape(shape)  # (n_queries, n_keys)

    def spec(self, shape: tuple[int, ...]) -> dict:
        return {
            "kind": "heatmap",
            "name": self.name,
            "title": self.title,
            "xlabel": self.xlabel,
            "ylabel": self.ylabel,
            "colorbar_label": self.colorbar_label,
            "vmin": float(self.vmin),
            "vmax": float(self.vmax),
            "rows": int(shape[0]),
            "cols": int(shape[1]),
            "row_labels": list(self.row_labels) if self.row_labels is not None else None,
            "col_labels": list(self.col_labels) if self.col_labels is not None else None,
            "colorbar_ticks": _nice_ticks(self.vmin, self.vmax, 5),
            "saturate": bool(self.saturate),
            "labels_per_frame": bool(self.labels_per_frame),
            **({"masked_zeros": True} if self.masked_zeros else {}),
            **({"read_row": int(self.read_row)} if self.read_row is not None else {}),
        }


@record(
    name=NAME,
    x=checked_later("x values (n,), or None"),
    series=checked_later("Series or names of the update's outputs"),
    xlabel=TEXT,
    ylabel=TEXT,
    title=OPTIONAL_TEXT,
    fixed=checked_later("FixedSeries"),
    xlim=D.Pair(optional=True),
    ylim=D.Pair(optional=True),
    equal_aspect=FLAG,
    handle=D.Instance(Handle, optional=True),
    spokes=D.Instance(Spokes, optional=True),
    ytops=checked_later("a top of the y axis per frame, or None"),
    discrete_x=FLAG,
    xticks=checked_later("(position, label) pairs along x, or None"),
)
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
        handle: optional :class:`Handle`, a point the reader drags on this panel.
        spokes: optional :class:`Spokes` from the handle to a fixed series (needs ``handle``).
        ytops: optional increasing tops for the y axis, the last equal to ``ylim[1]``: each
            frame is drawn with the smallest top that holds its series (e.g. weights that are
            mostly below 0.1 but reach 1 for a narrow kernel); the ticks follow.
        discrete_x: ``x`` counts discrete things (places, keys): a tick labelled at every
            ``x`` (whole numbers, at most 30) and the axis half a step wider on each side.
        xticks: ``(position, label)`` pairs in ``xlim`` (then required), e.g. d on log2 d.
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
    handle: Handle | None = None
    spokes: Spokes | None = None
    ytops: Sequence[float] | None = None
    discrete_x: bool = False
    xticks: Sequence[tuple[float, str]] | None = None

    kind = "lines"

    def __post_init__(self) -> None:
        where = f"Lines {self.name!r}"  # each field's kind: declared (above)
        if isinstance(self.series, (str, bytes, Series)) or not isinstance(self.series, Sequence):
            raise ExplorerError(
                f"{where}: series must be a list of Series or names; got "
                f"{type(self.series).__name__} {self.series!r}"
            )
        for s in self.series:
            if not isinstance(s, (Series, str)):
                raise ExplorerError(
                    f"{where}: each of series must be a Series or a name; got {s!r}"
                )
        series = tuple(s if isinstance(s, Series) else Series(s) for s in self.series)
        if not series and self.handle is None:
            raise ExplorerError(f"{where}: declare at least one series (or a handle)")
        names = [s.name for s in series]
        if len(set(names)) != len(names):
            raise ExplorerError(f"{where}: series names must be distinct; got {names!r}")
        object.__setattr__(self, "series", series)
        for which in ("xlim", "ylim"):
            lim = getattr(self, which)
            if lim is not None:
                object.__setattr__(self, which, _limits(lim, which, where))
        if self.x is not None:
            x = _to_array(self.x, f"{where}: x")
            if x.ndim != 1 or x.size == 0:
                raise ExplorerError(
                    f"{where}: x must be a non-empty 1-D array; got shape {tuple(x.shape)}"
                )
            object.__setattr__(self, "x", x)
        elif any(not s.xy for s in series):
            raise ExplorerError(
                f"{where}: give x (shared x coordinates) for series without xy=True"
            )
        x = self.x
        if self.discrete_x and (x is None or x.size > 30 or np.any(x != np.round(x))):
            got = "no x" if x is None else f"x = {_round_list(x)[:40]}"
            raise ExplorerError(f"{where}: discrete_x needs at most 30 whole x; got {got}")
        if self.ytops is not None:
            if isinstance(self.ytops, (str, bytes)) or not isinstance(self.ytops, Sequence):
                raise ExplorerError(
                    f"{where}: ytops must be a list of numbers; got {type(self.ytops).__name__} "
                    f"{self.ytops!r}"
                )
            tops = tuple(
                _declared(_validate.as_real, t, f"ytops[{i}]", where)
                for i, t in enumerate(self.ytops)
            )
            if (
                not tops
                or self.ylim is None
                or any(b <= a for a, b in zip(tops, tops[1:]))
                or tops[0] <= self.ylim[0]
                or tops[-1] != self.ylim[1]
            ):
                raise ExplorerError(
                    f"{where}: ytops must increase, start above ylim[0] and end at ylim[1]; "
                    f"got ytops={self.ytops!r}, ylim={self.ylim!r}"
                )
            if self.handle is not None or self.fixed:
                raise ExplorerError(
                    f"{where}: ytops rescales the changing series only; a panel "
                    "with a handle or fixed series must keep one y range"
                )
            object.__setattr__(self, "ytops", tops)
        ticks = _ticks(self.xticks, self.xlim, where, self.discrete_x)  # None stays None
        object.__setattr__(self, "xticks", ticks)
        if isinstance(self.fixed, FixedSeries) or not isinstance(self.fixed, Sequence):
            raise ExplorerError(
                f"{where}: fixed must be a list of FixedSeries; got {type(self.fixed).__name__}"
                + (" (wrap a single one in a list)" if isinstance(self.fixed, FixedSeries) else "")
            )
        fixed = tuple(self.fixed)
        for f in fixed:
            if not isinstance(f, FixedSeries):
                raise ExplorerError(
                    f"Lines {self.name!r}: fixed must hold FixedSeries; got {type(f).__name__}"
                )
        object.__setattr__(self, "fixed", fixed)
        if self.handle is not None and not isinstance(self.handle, Handle):
            raise ExplorerError(
                f"Lines {self.name!r}: handle must be a Handle; got {type(self.handle).__name__}"
            )
        if self.spokes is not None:
            if not isinstance(self.spokes, Spokes):
                raise ExplorerError(
                    f"Lines {self.name!r}: spokes must be Spokes; got {type(self.spokes).__name__}"
                )
            if self.handle is None:
                raise ExplorerError(
                    f"Lines {self.name!r}: spokes run from the handle; declare handle=Handle(...)"
                )
            targets = {f.name: f for f in fixed}
            if self.spokes.to not in targets or targets[self.spokes.to].style != "points":
                raise ExplorerError(
                    f"Lines {self.name!r}: spokes.to={self.spokes.to!r} must name a fixed "
                    f"series of points; fixed series: {sorted(targets)!r}"
                )

    def describe(self, shape: tuple[int, ...]) -> str:
        return f"lines {self.name!r}"

    def normalise(self, value: Any, where: str) -> dict[str, np.ndarray]:
        if not isinstance(value, Mapping):
            raise ExplorerError(
                f"{where}: lines panel {self.name!r} needs a dict series -> y; "
                f"got {type(value).__name__}"
            )
        want = [s.name for s in self.series]
        if set(value) != set(want):
            raise ExplorerError(
                f"{where}: lines panel {self.name!r} returned series {sorted(value)!r}; "
                f"declared {want!r}"
            )
        out = {}
        for s in self.series:
            a = _to_array(value[s.name], f"{where}: series {s.name!r} of {self.name!r}")
            if s.xy:
                if a.ndim != 2 or a.shape[0] != 2:
                    raise ExplorerError(
                        f"{where}: series {s.name!r} of {self.name!r} is xy: expected "
                        f"shape (2, n); got {tuple(a.shape)}"
                    )
            elif a.shape != self.x.shape:
                raise ExplorerError(
                    f"{where}: series {s.name!r} of {self.name!r}: expected shape "
                    f"{tuple(self.x.shape)} (one y per x); got {tuple(a.shape)}"
                )
            out[s.name] = a
        return out

    def shape_of(self, value: dict[str, np.ndarray]) -> tuple:
        return tuple(tuple(value[s.name].shape) for s in self.series)

    def flatten(self, value: dict[str, np.ndarray]) -> np.ndarray:
        return np.concatenate(
            [np.zeros(0)] + [value[s.name].reshape(-1) for s in self.series]
        )  # (total,)

    def unflatten(self, flat: np.ndarray, shape: tuple) -> dict[str, np.ndarray]:
        out, start = {}, 0
        for s, shp in zip(self.series, shape):
            n = int(np.prod(shp))
            out[s.name] = flat[start : start + n].reshape(shp)  # series shape
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
            block = all_values[:, start : start + n]
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
        # a panel with no data on an axis (only a handle, say) takes that axis from its limit
        xlim = self.xlim or _padded_range(np.concatenate([np.zeros(0), *xs]), 0.02)
        if self.discrete_x:  # a tick per thing, half a step of room at each end
            gaps = np.diff(np.unique(self.x))
            step = float(gaps.min()) if gaps.size else 1.0
            xlim = self.xlim or (float(self.x.min()) - step / 2, float(self.x.max()) + step / 2)
        ylim = self.ylim or _padded_range(np.concatenate([np.zeros(0), *ys]), 0.05)
        colours = iter(list(OKABE_ITO) * 4)
        series_spec = []
        for s, shp in zip(self.series, shape):
            series_spec.append(
                {
                    "name": s.name,
                    "style": s.style,
                    "xy": s.xy,
                    "n": int(shp[-1]),
                    "color": s.color or next(colours),
                    "dash": s.dash,
                    "width": s.width,
                    "linked_rows": s.linked_rows,
                }
            )
        fixed_spec = [
            {"name": f.name, "style": f.style, "color": f.color or next(colours), "dash": f.dash,
             "width": f.width, "x": _round_list(f.x), "y": _round_list(f.y),
             "labels": [str(t) for t in f.labels] if f.labels is not None else None}
            for f in self.fixed
        ]  # fmt: skip
        return {
            "kind": "lines",
            "name": self.name,
            "title": self.title,
            "xlabel": self.xlabel,
            "ylabel": self.ylabel,
            "x": _round_list(self.x) if self.x is not None else None,
            "xlim": [float(xlim[0]), float(xlim[1])],
            "ylim": [float(ylim[0]), float(ylim[1])],
            **_x_ticks(self.xticks, self.discrete_x, self.x, xlim),
            "yticks": _nice_ticks(*ylim),
            "equal_aspect": bool(self.equal_aspect),
            "series": series_spec,
            "fixed": fixed_spec,
            "handle": self.handle.spec() if self.handle else None,
            "spokes": self.spokes.spec() if self.spokes else None,
            "ytops": [{"top": t, "ticks": _nice_ticks(ylim[0], t)} for t in self.ytops]
            if self.ytops
            else None,
        }


_PANEL_KINDS = {"heatmap": Heatmap, "lines": Lines, "caption": Caption}


def _limits(lim: object, which: str, where: str) -> tuple[float, float]:
    """``(lo, hi)``: finite numbers, lo < hi, spanning at least :func:`_min_span`."""
    lo, hi = _declared(_validate.as_pair, lim, which, where)
    if hi - lo < _min_span(lo, hi):
        raise ExplorerError(
            f"{where}: {which} ({lo:g}, {hi:g}) has a span of {hi - lo:.3g}; an axis must span "
            f"at least {_min_span(lo, hi):g} (the frames are stored within "
            f"{MAX_ENCODING_ERROR:g}, and the ticks need room)"
        )
    return lo, hi


def _as_panel(p: Any, where: str = "explorer") -> Heatmap | Lines | Caption:
    if isinstance(p, (Heatmap, Lines, Caption)):
        return p
    if isinstance(p, Mapping):
        kind = p.get("kind")
        if kind not in _PANEL_KINDS:
            raise ExplorerError(
                f"{where}: unknown panel kind {kind!r} for panel {p.get('name')!r}; "
                f"expected one of {sorted(_PANEL_KINDS)}"
            )
        try:
            return _PANEL_KINDS[kind](**{k: v for k, v in p.items() if k != "kind"})
        except TypeError as err:  # an unknown or missing field
            raise ExplorerError(f"{where}: panel {p.get('name')!r}: {err}") from None
    raise ExplorerError(
        f"{where}: unknown panel {p!r}: panels must be Heatmap, Lines, Caption or a dict with "
        f"'kind' in {sorted(_PANEL_KINDS)}"
    )
