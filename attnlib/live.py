"""Explorers whose frames the browser computes: one query, dragged by the reader, against
fixed keys and values.

A precomputed explorer (:mod:`attnlib.widgets`) stores a frame for every point of its
sliders' grid, so a point dragged in the plane (two fine grids) times a temperature would
store tens of thousands of frames. A *live* explorer stores none: the page computes each
frame with one small implementation of attention's primitives in
``attnlib/static/explorer.js`` (scores, softmax, weighted average; no per-explorer code),
and the declaration's ``update`` function, written with attnlib, stays the reference the
browser tests compare it with at random positions (within 1e-4).

The primitives, for a query :math:`q` (the handle), keys :math:`k_j` and values :math:`v_j`::

    scores  s_j = a(q, k_j) / temperature     a: "gaussian"   -||q - k_j||^2 / 2
                                                 "scaled_dot" q . k_j / sqrt(d)
                                                 "dot"        q . k_j
                                                 "additive"   w_v . tanh(W_q q + W_k k_j)
    weights w   = softmax(s)                  (the largest score subtracted first)
    output  o   = sum_j w_j v_j               (inside the convex hull of the values)

Shapes: keys ``(n_keys, d)``, values ``(n_keys, d_v)``, weights ``(1, n_keys)`` (one query,
a row), output ``(2, 1)`` as an ``xy`` series (``d_v = 2``). With ``compare``, the weights
are ``(n_scorings, n_keys)``: the same query scored by each function, one row each.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from attnlib.widgets import Choice, ExplorerError, Heatmap, Lines, Slider
from attnlib.widgets.panels import _round_list, _to_array

__all__ = ["LiveAttention", "SCORINGS"]

# The scoring functions explorer.js implements (its `SCORES` table), by name.
SCORINGS = ("gaussian", "scaled_dot", "dot", "additive")


@dataclass(frozen=True)
class LiveAttention:
    """What the browser computes for a live explorer (see the module docs).

    Args:
        keys: ``(n_keys, 2)``: the keys, in the plane where the query moves.
        values: ``(n_keys, 2)``: one value per key, 2-D points.
        query: names of the two :class:`~attnlib.widgets.Slider` parameters holding the
            query's x and y (usually bound to a :class:`~attnlib.widgets.Handle`).
        weights: the :class:`~attnlib.widgets.Heatmap` panel that shows the weights
            ``(1, n_keys)``.
        output: ``(lines panel, series)``: where the weighted average goes, an ``xy``
            series of one point.
        score: a fixed scoring function (one of :data:`SCORINGS`), or
        score_param: the name of a :class:`~attnlib.widgets.Choice` whose options are
            scoring names.
        temperature: name of a Slider the scores are divided by (optional).
        compare: instead of one scoring function, several (names from :data:`SCORINGS`):
            the weights panel gets one row per function, and there is no output.
        additive: ``(W_q, W_k, w_v)`` of shapes ``(h, 2)``, ``(h, 2)``, ``(h,)``, needed by
            the ``"additive"`` scoring function.
    """

    keys: Any
    values: Any
    query: tuple[str, str]
    weights: str
    output: tuple[str, str] | None = None
    score: str | None = "gaussian"
    score_param: str | None = None
    temperature: str | None = None
    compare: tuple[str, ...] | None = None
    additive: tuple[Any, Any, Any] | None = None

    def __post_init__(self) -> None:
        keys = _to_array(self.keys, "LiveAttention: keys")
        values = _to_array(self.values, "LiveAttention: values")
        if keys.ndim != 2 or keys.shape[1] != 2 or keys.shape[0] == 0:
            raise ExplorerError(f"LiveAttention: keys must have shape (n_keys, 2), the plane the query "
                                f"moves in; got {tuple(keys.shape)}")
        if values.shape != keys.shape:
            raise ExplorerError(f"LiveAttention: values must have shape (n_keys, 2) = {tuple(keys.shape)}, "
                                f"one 2-D value per key; got {tuple(values.shape)}")
        object.__setattr__(self, "keys", keys)
        object.__setattr__(self, "values", values)
        if self.compare is not None:
            bad = [c for c in self.compare if c not in SCORINGS]
            if not self.compare or bad:
                raise ExplorerError(f"LiveAttention: compare must list scoring functions from {SCORINGS}; "
                                    f"got {self.compare!r}")
            object.__setattr__(self, "compare", tuple(self.compare))
        elif self.score_param is None and self.score not in SCORINGS:
            raise ExplorerError(f"LiveAttention: score must be one of {SCORINGS}; got {self.score!r}")
        if self.output is None and self.compare is None:
            raise ExplorerError("LiveAttention: give output=(lines panel, series) for the weighted average")
        if self.additive is not None:
            W_q, W_k, w_v = (_to_array(a, f"LiveAttention: additive {n}") for a, n in
                             zip(self.additive, ("W_q", "W_k", "w_v")))
            h = w_v.shape[0] if w_v.ndim == 1 else -1
            if W_q.shape != (h, 2) or W_k.shape != (h, 2):
                raise ExplorerError(f"LiveAttention: additive needs W_q (h, 2), W_k (h, 2), w_v (h,); got "
                                    f"{tuple(W_q.shape)}, {tuple(W_k.shape)}, {tuple(w_v.shape)}")
            object.__setattr__(self, "additive", (W_q, W_k, w_v))
        uses = set(self.compare or ()) | {self.score}
        if "additive" in uses and self.additive is None:
            raise ExplorerError("LiveAttention: the additive scoring function needs additive=(W_q, W_k, w_v)")

    def check(self, decl: Any) -> None:
        """Every name refers to a parameter or panel of the declaration, of the right kind."""
        where = f"explorer {decl.name!r} (live)"
        params = {p.name: p for p in decl.params}
        panels = {p.name: p for p in decl.panels}
        for axis in self.query:
            if not isinstance(params.get(axis), Slider):
                raise ExplorerError(f"{where}: query coordinate {axis!r} is not a Slider; sliders: "
                                    f"{sorted(n for n, p in params.items() if isinstance(p, Slider))}")
        if self.temperature is not None:
            t = params.get(self.temperature)
            if not isinstance(t, Slider) or min(t.values) <= 0:
                raise ExplorerError(f"{where}: temperature {self.temperature!r} must be a Slider of positive values")
        if self.score_param is not None:
            c = params.get(self.score_param)
            bad = [o for o in getattr(c, "options", ()) if o not in SCORINGS]
            if not isinstance(c, Choice) or bad:
                raise ExplorerError(f"{where}: score_param {self.score_param!r} must be a Choice among "
                                    f"{SCORINGS}; unknown options {bad!r}")
            if "additive" in c.options and self.additive is None:
                raise ExplorerError(f"{where}: the additive scoring function needs additive=(W_q, W_k, w_v)")
        if not isinstance(panels.get(self.weights), Heatmap):
            raise ExplorerError(f"{where}: weights {self.weights!r} is not a Heatmap panel")
        panel = None
        if self.output is not None:
            panel, series = self.output
            lines = panels.get(panel)
            if not isinstance(lines, Lines) or [(s.name, s.xy) for s in lines.series] != [(series, True)]:
                raise ExplorerError(f"{where}: output {self.output!r} must be the one xy series of a Lines panel")
        for p in decl.panels:
            if isinstance(p, Lines) and p.name != panel and p.series:
                raise ExplorerError(f"{where}: panel {p.name!r} has changing series the browser does not "
                                    "compute; only the output panel may")

    def spec(self) -> dict:
        add = None
        if self.additive is not None:
            W_q, W_k, w_v = self.additive
            add = {"W_q": [_round_list(r, 8) for r in W_q], "W_k": [_round_list(r, 8) for r in W_k],
                   "w_v": _round_list(w_v, 8)}
        return {"keys": [_round_list(k) for k in self.keys], "values": [_round_list(v) for v in self.values],
                "query": list(self.query), "weights": self.weights,
                "output": list(self.output) if self.output else None,
                "score": self.score, "score_param": self.score_param, "temperature": self.temperature,
                "compare": list(self.compare) if self.compare else None, "additive": add}
