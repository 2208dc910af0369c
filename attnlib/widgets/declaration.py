"""An explorer's :class:`Declaration`: update function, controls, panels.

See :mod:`attnlib.widgets`.
"""

from __future__ import annotations

import inspect
import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from attnlib import domains as D
from attnlib._validate import _scalar
from attnlib.widgets.controls import (
    NAME,
    OPTIONAL_TEXT,
    Choice,
    ExplorerError,
    Preset,
    Slider,
    Text,
    _check_name,
    _label,
    checked_later,
    record,
)
from attnlib.widgets.panels import Heatmap, _as_panel

# ----------------------------------------------------------------------------- declaration


@record(
    "explorer",  # what its messages name: "explorer 'soft_lookup': ..."
    name=NAME,
    update=D.Func(),
    params=checked_later("Sliders and Choices"),
    panels=checked_later("panels (Heatmap, Lines, Caption), at least one"),
    title=OPTIONAL_TEXT,
    meta=checked_later("a dict"),
    live=checked_later("what the page computes (LiveAttention, ...), or None"),
    texts=checked_later("Text fields"),
    presets=checked_later("Presets"),
)
@dataclass(frozen=True)
class Declaration:
    """Everything that defines an explorer; cheap to build (computes no frame).

    Args:
        name: short identifier (e.g. ``"softmax_temperature"``).
        update: pure function ``update(**params) -> {panel name: data}``.
        params: :class:`Slider` / :class:`Choice` parameters, in display order.
        panels: :class:`Heatmap` / :class:`Lines` panels (or dicts with a ``"kind"``).
        title: optional caption shown above the controls.
        texts: :class:`Text` fields (typed by the reader), shown before the other controls;
            only with ``live=`` (nothing can be precomputed for a typed text).
        live: optional :class:`attnlib.widgets.live.LiveAttention`: the browser computes each frame
            itself, with one small implementation of attention's primitives, instead of
            receiving precomputed frames; ``update`` stays the reference it is tested
            against (so the grids may be fine: nothing is precomputed).
        presets: :class:`Preset` buttons ("things to try"), drawn in the explorer's frame
            with the line each says to notice; each names controls of this explorer and
            values on their grids (a ``ValueError`` names the first that is not).
    """

    name: str
    update: Callable[..., Mapping[str, Any]]
    params: Sequence[Slider | Choice]
    panels: Sequence[Any]
    title: str | None = None
    meta: dict = field(default_factory=dict)
    live: Any = None
    texts: Sequence[Text] = ()
    presets: Sequence[Preset] = ()

    def __post_init__(self) -> None:
        _check_name(self.name, "Declaration")
        if not callable(self.update):
            raise ExplorerError(
                f"explorer {self.name!r}: update must be callable; got "
                f"{type(self.update).__name__}"
            )
        where = f"explorer {self.name!r}"
        params = _items(self.params, "params", where, "Slider or Choice parameters")
        texts = _items(self.texts, "texts", where, "Text fields")
        object.__setattr__(self, "title", _label(self.title, "title", where))
        if not isinstance(self.meta, dict):
            raise ExplorerError(f"{where}: meta must be a dict; got {self.meta!r}")
        live = self.live
        if live is not None and not (
            callable(getattr(live, "check", None)) and callable(getattr(live, "spec", None))
        ):
            raise ExplorerError(
                f"{where}: live must be a LiveAttention, LiveKernelRegression or LiveMasking "
                f"(an object with check() and spec()); got {type(live).__name__}"
            )
        if not params and not texts:
            raise ExplorerError(
                f"explorer {self.name!r}: params must declare at least one parameter"
            )
        for t in texts:
            if not isinstance(t, Text):
                raise ExplorerError(
                    f"explorer {self.name!r}: texts must be Text fields; got {type(t).__name__}"
                )
        if texts and self.live is None:
            raise ExplorerError(
                f"explorer {self.name!r}: Text fields need live= (the page computes each "
                "frame; a typed text has no grid to precompute)"
            )
        object.__setattr__(self, "texts", texts)
        for p in params:
            if not isinstance(p, (Slider, Choice)):
                raise ExplorerError(
                    f"explorer {self.name!r}: params must be Slider or Choice parameters; "
                    f"got {type(p).__name__}"
                )
        names = [p.name for p in params] + [t.name for t in texts]
        if len(set(names)) != len(names):
            raise ExplorerError(
                f"explorer {self.name!r}: parameter names must be distinct; got {names!r}"
            )
        object.__setattr__(self, "params", params)
        panels = tuple(_as_panel(p, where) for p in _items(self.panels, "panels", where, "panels"))
        if not panels:
            raise ExplorerError(f"explorer {self.name!r}: panels must declare at least one panel")
        pnames = [p.name for p in panels]
        if len(set(pnames)) != len(pnames):
            raise ExplorerError(
                f"explorer {self.name!r}: panel names must be distinct; got {pnames!r}"
            )
        object.__setattr__(self, "panels", panels)
        byname = {p.name: p for p in params}
        for panel in panels:
            h = getattr(panel, "handle", None)
            if h is not None and h.circle is not None:  # an angle: the circle must fit the plot
                if not isinstance(byname.get(h.x), Slider):
                    raise ExplorerError(
                        f"explorer {self.name!r}: the handle of panel {panel.name!r} is bound "
                        f"to {h.x!r}, which is not a Slider of this explorer"
                    )
                cx, cy, r = h.circle
                if panel.xlim is None or panel.ylim is None:
                    raise ExplorerError(
                        f"explorer {self.name!r}: panel {panel.name!r} has a handle on a circle; "
                        "give its xlim and ylim so the plot does not move while the point is "
                        "dragged"
                    )
                if (
                    cx - r < panel.xlim[0]
                    or cx + r > panel.xlim[1]
                    or cy - r < panel.ylim[0]
                    or cy + r > panel.ylim[1]
                ):
                    raise ExplorerError(
                        f"explorer {self.name!r}: the handle's circle {h.circle} leaves panel "
                        f"{panel.name!r}'s xlim ({panel.xlim[0]:g}, {panel.xlim[1]:g}) / ylim "
                        f"({panel.ylim[0]:g}, {panel.ylim[1]:g})"
                    )
                continue
            axes = (
                [(h.x, panel.xlim, "xlim")]
                + ([(h.y, panel.ylim, "ylim")] if h.y is not None else [])
                if h
                else []
            )
            for axis, lim, which in axes:
                if not isinstance(byname.get(axis), Slider):
                    raise ExplorerError(
                        f"explorer {self.name!r}: the handle of panel {panel.name!r} is bound "
                        f"to {axis!r}, which is not a Slider of this explorer"
                    )
                if lim is None:
                    raise ExplorerError(
                        f"explorer {self.name!r}: panel {panel.name!r} has a handle; give its "
                        f"{which} so the plot does not move while the point is dragged"
                    )
                vals = byname[axis].values
                if min(vals) < lim[0] or max(vals) > lim[1]:
                    raise ExplorerError(
                        f"explorer {self.name!r}, control {axis!r}: its values run from "
                        f"{min(vals):g} to {max(vals):g}, outside panel {panel.name!r}'s "
                        f"{which} ({lim[0]:g}, {lim[1]:g}); the point could leave the plot"
                    )
            sp = getattr(panel, "spokes", None)
            if sp and not any(isinstance(q, Heatmap) and q.name == sp.weights for q in panels):
                raise ExplorerError(
                    f"explorer {self.name!r}: spokes of panel {panel.name!r} take their "
                    f"weights from {sp.weights!r}, which is not a Heatmap panel"
                )
        _check_update(self.update, [p.name for p in params] + [t.name for t in texts], where)
        object.__setattr__(self, "presets", _check_presets(self.presets, params, texts, where))
        if self.live is not None:
            for panel in panels:
                if panel.kind == "caption" or getattr(panel, "labels_per_frame", False):
                    raise ExplorerError(
                        f"explorer {self.name!r}: panel {panel.name!r} holds text per frame, "
                        "which only a precomputed explorer stores; the page computes a live "
                        "explorer's frames"
                    )
            self.live.check(self)

    @property
    def n_frames(self) -> int:
        return math.prod(len(p.values) for p in self.params)

    def defaults(self) -> dict[str, Any]:
        return {
            **{p.name: p.values[p.default_index()] for p in self.params},
            **{t.name: t.default for t in self.texts},
        }

    def grid(self):
        """Yield ``(frame index, params dict)`` over the product grid (first parameter slowest)."""
        for i, combo in enumerate(itertools.product(*(p.values for p in self.params))):
            yield i, dict(zip((p.name for p in self.params), combo))

    def compute(self, **params: Any) -> dict[str, Any]:
        """One frame, validated: ``{panel: 2-D ndarray | {series: ndarray}}``.

        Missing parameters take their default; unknown ones raise ``TypeError``.
        """
        where = f"explorer {self.name!r}"
        known = {p.name for p in self.params} | {t.name for t in self.texts}
        unknown = set(params) - known
        if unknown:
            raise TypeError(
                f"{where}: unknown parameter(s) {sorted(unknown)}; "
                f"expected {[p.name for p in self.params] + [t.name for t in self.texts]}"
            )
        for t in self.texts:
            if t.name in params:
                t.check(params[t.name], where)
        values = dict(params)
        for p in self.params:
            if p.name in params:
                values[p.name] = on_grid(p, params[p.name], where)
        full = {**self.defaults(), **values}
        return self._normalise(self.run_update(full), full)

    def run_update(self, params: dict[str, Any]) -> Any:
        """``update(**params)``; an exception it raises becomes an ExplorerError naming the
        parameters (the point of the grid where the update function fails)."""
        try:
            return self.update(**params)
        except Exception as err:
            raise ExplorerError(
                f"explorer {self.name!r} at {params}: update raised {type(err).__name__}: {err}"
            ) from err

    def _normalise(self, result: Any, params: dict) -> dict[str, Any]:
        where = f"explorer {self.name!r} at {params}"
        if not isinstance(result, Mapping):
            raise ExplorerError(
                f"{where}: update must return a dict panel -> data; got {type(result).__name__}"
            )
        want = [p.name for p in self.panels]
        if set(result) != set(want):
            raise ExplorerError(
                f"{where}: update returned panels {sorted(result)!r}; declared {want!r}"
            )
        frame = {p.name: p.normalise(result[p.name], where) for p in self.panels}
        for p in self.panels:  # spokes: one weight per point they run to
            sp = getattr(p, "spokes", None)
            if sp is None:
                continue
            n_points = next(f for f in p.fixed if f.name == sp.to).x.shape[0]
            n_weights = frame[sp.weights].shape[-1]
            if n_weights != n_points:
                raise ExplorerError(
                    f"{where}: spokes of panel {p.name!r} run to the {n_points} points of "
                    f"{sp.to!r} but take {n_weights} weights (columns of {sp.weights!r}); "
                    "give one weight per point"
                )
        if self.live is not None and hasattr(self.live, "check_frame"):
            self.live.check_frame(frame, where)  # the reference frame has the page's shapes
        return frame


def _check_presets(presets: object, params: tuple, texts: tuple, where: str) -> tuple:
    """The presets, each naming controls of this explorer with values they can take (a
    slider's grid value, a choice's option, a text its field holds)."""
    presets = _items(presets, "presets", where, "Preset buttons")
    controls = {p.name: p for p in params}
    fields = {t.name: t for t in texts}
    labels = []
    for pr in presets:
        if not isinstance(pr, Preset):
            raise ExplorerError(
                f"{where}: presets must be Preset objects; got {type(pr).__name__}"
            )
        at = f"{where}, preset {pr.label!r}"
        for name, value in pr.values.items():
            if name in fields:
                try:
                    fields[name].check(value, at)
                except (TypeError, ValueError) as err:
                    raise ExplorerError(str(err)) from None
            elif name in controls:
                try:
                    on_grid(controls[name], value, at)
                except (TypeError, ValueError) as err:
                    raise ExplorerError(str(err)) from None
            else:
                raise ExplorerError(
                    f"{at}: {name!r} is not a control of this explorer; controls: "
                    f"{list(controls) + list(fields)}"
                )
        labels.append(pr.label)
    if len(set(labels)) != len(labels):
        raise ExplorerError(f"{where}: preset labels must be distinct; got {labels!r}")
    return presets


def _items(value: object, name: str, where: str, what: str) -> tuple:
    """A list (or tuple) of declared objects; a single object or a string is refused."""
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence):
        raise ExplorerError(
            f"{where}: {name} must be a list of {what}; got {type(value).__name__}"
            + (" (wrap a single one in a list)" if not isinstance(value, (str, bytes)) else "")
        )
    return tuple(value)


def _check_update(update: Callable, names: list[str], where: str) -> None:
    """The update function can be called with the explorer's parameters as keywords."""
    try:
        signature = inspect.signature(update)
    except (TypeError, ValueError):  # a builtin or C function: nothing to read
        return
    try:
        signature.bind(**dict.fromkeys(names))
    except TypeError as err:
        raise ExplorerError(
            f"{where}: update must accept the parameters {names} as keywords; its signature "
            f"is {signature} ({err})"
        ) from None


def on_grid(p: Slider | Choice, value: object, where: str) -> Any:
    """The grid value of ``p`` equal to ``value`` (a slider takes numpy scalars and 0-d
    tensors; not a bool); ``TypeError``/``ValueError`` otherwise."""
    if isinstance(p, Choice):
        if not isinstance(value, str) or value not in p.options:
            raise ValueError(f"{where}: {p.name} must be one of {list(p.options)}; got {value!r}")
        return value
    v = _scalar(value)
    if isinstance(v, bool):
        raise TypeError(f"{where}: {p.name} is a number on its grid; got a bool ({value!r})")
    if isinstance(v, (int, float)) and v in p.values:
        return p.values[p.values.index(v)]
    raise ValueError(f"{where}: {p.name}={value!r} is not on its grid {list(p.values)}")
