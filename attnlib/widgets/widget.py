"""The anywidget :class:`Explorer`: computes and syncs the frames (see :mod:`attnlib.widgets`)."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import anywidget
import numpy as np
import traitlets

from attnlib._validate import as_int
from attnlib.domains import Instance, declare
from attnlib.widgets.caption import Caption, LabelledMatrix, text_table
from attnlib.widgets.controls import ExplorerError
from attnlib.widgets.declaration import Declaration, on_grid
from attnlib.widgets.encoding import decode_frames, encode_frames
from attnlib.widgets.panels import Lines

_STATIC = pathlib.Path(__file__).resolve().parents[1] / "static"


# ----------------------------------------------------------------------------- widget


@declare(declaration=Instance(Declaration, what="an attnlib.widgets.Declaration"))
class Explorer(anywidget.AnyWidget):
    """An explorer: every frame computed here, or, for a live declaration, none stored (the
    page computes each; see the module docs).

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
    texts = traitlets.Dict(value_trait=traitlets.Unicode()).tag(sync=True)

    def __init__(self, declaration: Declaration, **kwargs: Any) -> None:
        if not isinstance(declaration, Declaration):
            raise TypeError(
                f"Explorer: declaration must be an attnlib.widgets.Declaration; "
                f"got {type(declaration).__name__}"
            )
        decl = declaration
        frames, shapes = [], {}
        if decl.live is not None:  # computed in the browser: one frame here, for the shapes
            grid = [(0, decl.defaults())]
        else:
            grid = decl.grid()
        for _, params in grid:
            frame = decl._normalise(decl.run_update(params), params)
            for p in decl.panels:
                shp = p.shape_of(frame[p.name])
                if p.name not in shapes:
                    shapes[p.name] = shp
                elif shapes[p.name] != shp:
                    raise ExplorerError(
                        f"explorer {decl.name!r} at {params}: panel {p.name!r} has "
                        f"shape {shp}, but {shapes[p.name]} in the first frame; "
                        "every frame must have the same shape"
                    )
            frames.append(frame)
        data, panel_specs = {}, []
        for p in decl.panels:
            flat = np.stack([p.flatten(fr[p.name]) for fr in frames])  # (n_frames, n)
            if decl.live is None and isinstance(p, Caption):
                data[p.name] = text_table([fr[p.name] for fr in frames])
            elif decl.live is None:
                data[p.name] = encode_frames(flat, f"explorer {decl.name!r}, panel {p.name!r}")
                if getattr(p, "labels_per_frame", False):
                    labels = [(fr[p.name].row_labels, fr[p.name].col_labels) for fr in frames]
                    data[p.name]["labels"] = text_table(labels)
            if isinstance(p, Lines):
                panel_specs.append(p.spec(shapes[p.name], flat))
            else:
                panel_specs.append(p.spec(shapes[p.name]))
        param_specs = []
        for p in decl.params:
            param_specs.append(
                {
                    "name": p.name,
                    "kind": p.kind,
                    "label": p.label or p.name,
                    "values": list(p.values),
                    "labels": p.labels(),
                    "play": bool(getattr(p, "play", False)),
                }
            )
        spec = {
            "title": decl.title,
            "params": param_specs,
            "panels": panel_specs,
            "strides": _strides([len(p.values) for p in decl.params]),
            "texts": [
                {
                    "name": t.name,
                    "label": t.label or t.name,
                    "suggestions": list(t.suggestions),
                    "max_length": t.max_length,
                }
                for t in decl.texts
            ],
        }
        if decl.presets:  # only when declared: the saved state of other explorers stays as it was
            spec["presets"] = [_preset_spec(pr, decl) for pr in decl.presets]
        if decl.live is not None:
            spec["live"] = decl.live.spec()
            frames = []  # nothing precomputed: see frame() for any position
        super().__init__(
            name=decl.name,
            spec=spec,
            data=data,
            indices=[p.default_index() for p in decl.params],
            texts={t.name: t.default for t in decl.texts},
            **kwargs,
        )
        self.declaration = decl
        self.frames = frames
        self._shapes = shapes

    # -- Python-side helpers
    @property
    def params(self) -> dict[str, Any]:
        """Current parameter values (and typed texts)."""
        return {
            **{p.name: p.values[i] for p, i in zip(self.declaration.params, self.indices)},
            **{t.name: self.texts.get(t.name, t.default) for t in self.declaration.texts},
        }

    # -- every route that sets the state is checked: set(), and `indices` / `texts` written
    # directly (by Python, or by the page when the reader moves a slider or types)
    @traitlets.validate("indices")
    def _valid_indices(self, proposal) -> list[int]:
        value = list(proposal["value"])
        decl = getattr(self, "declaration", None)
        if decl is None:  # during __init__: the declaration's own defaults
            return value
        where = f"explorer {decl.name!r}"
        if len(value) != len(decl.params):
            raise ExplorerError(
                f"{where}: indices must have {len(decl.params)} entries, one per parameter "
                f"{[p.name for p in decl.params]}; got {len(value)}: {value}"
            )
        for p, i in zip(decl.params, value):
            if not 0 <= i < len(p.values):
                raise ExplorerError(
                    f"{where}: indices of {p.name!r} must be in 0 .. {len(p.values) - 1}; got {i}"
                )
        return value

    @traitlets.validate("texts")
    def _valid_texts(self, proposal) -> dict[str, str]:
        value = dict(proposal["value"])
        decl = getattr(self, "declaration", None)
        if decl is None:
            return value
        where = f"explorer {decl.name!r}"
        fields = {t.name: t for t in decl.texts}
        unknown = sorted(set(value) - set(fields))
        if unknown:
            raise ExplorerError(
                f"{where}: unknown text field(s) {unknown}; fields: {sorted(fields)}"
            )
        for k, v in value.items():
            try:
                fields[k].check(v, where)
            except (TypeError, ValueError) as err:
                raise ExplorerError(str(err)) from None
        return value

    def set(self, **params: Any) -> None:
        """Move sliders to the given values (each must be on its grid: numpy scalars and 0-d
        tensors are fine, a bool is refused); put text in text fields."""
        where = f"explorer {self.name!r}"
        idx = list(self.indices)
        texts = {t.name: t for t in self.declaration.texts}
        new_texts = dict(self.texts)
        pos = [p.name for p in self.declaration.params]
        for k, v in params.items():
            if k in texts:
                new_texts[k] = texts[k].check(v, where)
                continue
            if k not in pos:
                raise TypeError(f"{where}: unknown parameter {k!r}; expected {pos + list(texts)}")
            p = self.declaration.params[pos.index(k)]
            idx[pos.index(k)] = p.values.index(on_grid(p, v, where))
        with self.hold_sync():  # one message: the page never draws new sliders with old texts
            self.indices = idx
            if new_texts != self.texts:
                self.texts = new_texts

    def frame_index(self, **params: Any) -> int:
        """Index of the frame for the given parameter values (defaults for missing ones)."""
        where = f"explorer {self.name!r}"
        names = [p.name for p in self.declaration.params]
        unknown = sorted(set(params) - set(names))
        if unknown:
            raise TypeError(f"{where}: unknown parameter(s) {unknown}; expected {names}")
        full = self.declaration.defaults()
        for p in self.declaration.params:
            if p.name in params:
                full[p.name] = on_grid(p, params[p.name], where)
        strides = self.spec["strides"]
        return sum(
            p.values.index(full[p.name]) * s for p, s in zip(self.declaration.params, strides)
        )

    def decoded(self, frame: int) -> dict[str, Any]:
        """The frame as the browser sees it (decoded from the synced state); ``frame`` is an
        index ``0 <= frame < n_frames`` (see :meth:`frame_index`)."""
        where = f"explorer {self.name!r}"
        if self.declaration.live is not None:
            raise ExplorerError(
                f"{where} computes its frames in the browser; nothing is "
                "encoded (use declaration.compute(**params) for attnlib's frame)"
            )
        n = self.declaration.n_frames
        frame = as_int(frame, "frame", where)
        if not 0 <= frame < n:
            raise ValueError(f"{where}: frame must be 0 <= frame < {n}; got {frame}")
        out = {}
        for p in self.declaration.panels:
            enc = self.data[p.name]
            if isinstance(p, Caption):
                out[p.name] = enc["strings"][enc["index"][frame]]
                continue
            out[p.name] = p.unflatten(decode_frames(enc)[frame], self._shapes[p.name])
            if "labels" in enc:
                rows, cols = enc["labels"]["strings"][enc["labels"]["index"][frame]]
                out[p.name] = LabelledMatrix(out[p.name], rows, cols)
        return out

    def state_size(self) -> tuple[int, int]:
        """(raw bytes, gzip bytes) of the synced state as JSON (what a page embeds)."""
        import gzip

        state = {
            "name": self.name,
            "spec": self.spec,
            "data": self.data,
            "indices": self.indices,
            "texts": self.texts,
            "_esm": str(self._esm),
            "_css": str(self._css),
        }
        raw = json.dumps(state, separators=(",", ":")).encode()
        return len(raw), len(gzip.compress(raw, 9))

    def __repr__(self) -> str:
        decl = self.declaration if hasattr(self, "declaration") else None
        if decl is None:
            return "Explorer(<uninitialised>)"
        params = ", ".join(
            [f"{p.name} ×{len(p.values)}" for p in decl.params]
            + [f"{t.name} (text)" for t in decl.texts]
        )
        panels = ", ".join(p.describe(self._shapes[p.name]) for p in decl.panels)
        return f"Explorer({decl.name!r}: {params} → {panels})"


def _preset_spec(preset, decl: Declaration) -> dict:
    """A preset for the page: its label, its notice, the index of each slider or choice it
    sets and the text of each field it fills."""
    fields = {t.name for t in decl.texts}
    where = f"explorer {decl.name!r}, preset {preset.label!r}"
    params = {p.name: p for p in decl.params}
    return {
        "label": preset.label,
        "notice": preset.notice,
        "indices": {
            k: params[k].values.index(on_grid(params[k], v, where))
            for k, v in preset.values.items()
            if k not in fields
        },
        "texts": {k: v for k, v in preset.values.items() if k in fields},
    }


def _strides(sizes: list[int]) -> list[int]:
    strides, acc = [], 1
    for s in reversed(sizes):
        strides.append(acc)
        acc *= s
    return strides[::-1]
