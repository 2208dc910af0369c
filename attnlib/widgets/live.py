"""Explorers whose frames the browser computes: one query, dragged by the reader, against
fixed keys and values, or a fixed query and one key the reader drags (:class:`LiveAttention`,
``moving_key``), one query x against training points
(:class:`LiveKernelRegression`, Nadaraya-Watson), or self-attention over sentences the
reader types, padded and masked (:class:`LiveMasking`).

A precomputed explorer (:mod:`attnlib.widgets`) stores a frame for every point of its
sliders' grid, so a point dragged in the plane (two fine grids) times a temperature would
store tens of thousands of frames. A *live* explorer stores none: the page computes each
frame with one small implementation of attention's primitives in
``attnlib/static/src/primitives.js`` (scores, softmax, weighted average; no per-explorer code),
and the declaration's ``update`` function, written with attnlib, stays the reference the
browser tests compare it with at random positions (within 1e-4).

The primitives, for a query :math:`q` (the handle), keys :math:`k_j` and values :math:`v_j`::

    scores  s_j = a(q, k_j) / temperature     a: one of LIVE_SCORES (attnlib.widgets.live_scores):
                                                 dot, scaled_dot, gaussian, additive, cosine,
                                                 general, ..., each with its attnlib reference
                                                 and its function in primitives.js
    weights w   = softmax(s)                  (the largest score subtracted first)
    output  o   = sum_j w_j v_j               (inside the convex hull of the values)

Shapes: keys ``(n_keys, d)``, values ``(n_keys, d_v)``, weights ``(1, n_keys)`` (one query,
a row), output ``(2, 1)`` as an ``xy`` series (``d_v = 2``). With ``compare``, the weights
are ``(n_scorings, n_keys)``: the same query scored by each function, one row each.

Nadaraya-Watson (:class:`LiveKernelRegression`), with attnlib's rules
(:func:`attnlib.nadaraya_watson`)::

    u_j     = (x - x_j) / h, and 0 where x = x_j
    logits  = log K(u_j)                      -inf outside a compact kernel's support:
                                              boxcar |u| <= 1, epanechnikov and triangular |u| < 1
    weights = softmax(logits)                 a row with no finite logit: weight 1 on the
                                              nearest training point (the first on a tie)
    y_hat   = sum_j w_j y_j
    window  = min(1, K((t - x) / h) / sum_j K(u_j)) at t = x + h * WINDOW_U
              (the whole x range for the constant kernel): the bars sit on this curve

Masked self-attention over typed sentences (:class:`LiveMasking`)::

    tokens  = the text split at ASCII whitespace, the first max_tokens kept,
              then <pad> up to max_tokens
    q(w), k(w) = word_vector("q " + w), word_vector("k " + w)    (d numbers in [-1, 1): the same
                                        word, A-Z lower-cased, always gets the same vectors)
    scores  = q(w_i) . k(w_j) / sqrt(d)           (max_tokens, max_tokens) per sentence
    weights = masked_softmax(scores, valid_lens)  keys past the sentence's length get 0; the
              "masking" choice picks valid_lens: one per query, (batch, n_queries) (a <pad>
              query has no valid key: an all-zero row), one per sentence, (batch,) (a <pad>
              query attends to the sentence's words), or none (a plain softmax)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from attnlib import _validate
from attnlib import domains as D
from attnlib.kernels import KERNELS, log_kernel
from attnlib.widgets.controls import (
    OPTIONAL_TEXT,
    TEXT,
    Choice,
    ExplorerError,
    Slider,
    checked_later,
    record,
)
from attnlib.widgets.live_scores import LIVE_SCORES
from attnlib.widgets.panels import Heatmap, Lines, _round_list, _to_array

__all__ = [
    "LiveAttention",
    "LiveKernelRegression",
    "LiveMasking",
    "SCORINGS",
    "WINDOW_U",
    "kernel_window",
    "tokens",
    "fold",
    "word_vector",
]

# The scoring functions the page implements: the names of attnlib.widgets.live_scores.LIVE_SCORES.
SCORINGS = tuple(LIVE_SCORES)
# Where the kernel window is drawn, in units of the bandwidth around the query: covers a
# compact kernel's support (|u| <= 1, both edges on the grid) and the Gaussian's bulk.
WINDOW_U = np.linspace(-4.0, 4.0, 161)  # (161,)


def _names(value: object, attr: str, where: str, what: str, optional: bool = False):
    """A pair of names, e.g. ``(lines panel, series)`` or the query's two sliders."""
    if value is None and optional:
        return None
    if (
        isinstance(value, (str, bytes))
        or not isinstance(value, (tuple, list))
        or len(value) != 2
        or not all(isinstance(v, str) for v in value)
    ):
        raise ExplorerError(f"{where}: {attr} must be {what}, two names; got {value!r}")
    return tuple(value)


#: two names: (a Lines panel, one of its series), (x slider, y slider), ...
NAME_PAIR = D.Tup(TEXT, TEXT, what="(lines panel, series), two names")
OPTIONAL_PAIR = D.Tup(TEXT, TEXT, what="(lines panel, series), two names, or None", optional=True)


@record(
    keys=checked_later("(n_keys, 2) finite points"),
    values=checked_later("(n_keys, 2) finite points"),
    query=checked_later("two slider names (x, y), or with moving_key two finite numbers"),
    weights=TEXT,
    output=OPTIONAL_PAIR,
    score=OPTIONAL_TEXT,
    score_param=OPTIONAL_TEXT,
    temperature=OPTIONAL_TEXT,
    compare=D.StrList(optional=True, what=f"a list of scoring functions from {SCORINGS}"),
    score_kwargs=checked_later("scoring name -> {argument: value}, or None"),
    moving_key=D.Tup(
        D.Int(ge=0), TEXT, TEXT, what="(key index, x slider, y slider)", optional=True
    ),
)
@dataclass(frozen=True)
class LiveAttention:
    """What the browser computes for a live explorer (see the module docs).

    Args:
        keys: ``(n_keys, 2)``: the keys, in the plane where the query moves.
        values: ``(n_keys, 2)``: one value per key, 2-D points.
        query: names of the two :class:`~attnlib.widgets.Slider` parameters holding the
            query's x and y (usually bound to a :class:`~attnlib.widgets.Handle`), or, with
            ``moving_key``, a fixed query: two finite numbers.
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
        score_kwargs: ``{scoring name: {argument: value}}``, the arguments of the scoring
            functions used that take some (:data:`attnlib.widgets.live_scores.LIVE_SCORES`
            declares them), e.g. ``{"cosine": {"temperature": 0.25}, "general": {"M": W}}``;
            an argument with a default may be left out.
        moving_key: ``(j, x slider, y slider)``: key ``j`` is not fixed but sits where the
            two sliders say (usually bound to a Handle: the reader drags the key; its row in
            ``keys`` is only its declared start). Needs ``compare``: its value would move too.
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
    score_kwargs: Any = None
    moving_key: Any = None

    def __post_init__(self) -> None:
        where = "LiveAttention"
        mk = self.moving_key  # declared: (key index, x slider, y slider) or None
        if mk is not None and self.compare is None:
            raise ExplorerError(f"{where}: moving_key needs compare (its value would move too)")
        fixed = (
            mk is not None
            and isinstance(self.query, (tuple, list))
            and len(self.query) == 2
            and all(
                isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                for v in self.query
            )
        )
        if fixed:
            object.__setattr__(self, "query", tuple(float(v) for v in self.query))
        else:
            what = "two slider names (x, y)" + (" or two finite numbers" if mk else "")
            object.__setattr__(self, "query", _names(self.query, "query", where, what))
        if self.score is not None and self.score not in SCORINGS:
            raise ExplorerError(f"{where}: score must be one of {SCORINGS}; got {self.score!r}")
        if self.compare is not None and len(set(self.compare)) != len(self.compare):
            raise ExplorerError(
                f"{where}: compare must list distinct scoring functions; got {self.compare!r}"
            )
        keys = _to_array(self.keys, "LiveAttention: keys")
        values = _to_array(self.values, "LiveAttention: values")
        if keys.ndim != 2 or keys.shape[1] != 2 or keys.shape[0] == 0:
            raise ExplorerError(
                f"LiveAttention: keys must have shape (n_keys, 2), the plane the query "
                f"moves in; got {tuple(keys.shape)}"
            )
        if values.shape != keys.shape:
            raise ExplorerError(
                f"LiveAttention: values must have shape (n_keys, 2) = {tuple(keys.shape)}, "
                f"one 2-D value per key; got {tuple(values.shape)}"
            )
        object.__setattr__(self, "keys", keys)
        object.__setattr__(self, "values", values)
        if mk is not None and not 0 <= mk[0] < keys.shape[0]:
            raise ExplorerError(
                f"{where}: moving_key's index must be a key, 0 to {keys.shape[0] - 1}; got {mk[0]}"
            )
        if self.compare is not None:
            bad = [c for c in self.compare if c not in SCORINGS]
            if not self.compare or bad:
                raise ExplorerError(
                    f"LiveAttention: compare must list scoring functions from {SCORINGS}; "
                    f"got {self.compare!r}"
                )
            object.__setattr__(self, "compare", tuple(self.compare))
        elif self.score_param is None and self.score not in SCORINGS:
            raise ExplorerError(
                f"LiveAttention: score must be one of {SCORINGS}; got {self.score!r}"
            )
        if self.output is None and self.compare is None:
            raise ExplorerError(
                "LiveAttention: give output=(lines panel, series) for the weighted average"
            )
        given = {} if self.score_kwargs is None else self.score_kwargs
        if not isinstance(given, Mapping) or not all(n in LIVE_SCORES for n in given):
            raise ExplorerError(
                f"{where}: score_kwargs must be a dict {{scoring function: {{argument: value}}}} "
                f"with names from {SCORINGS}; got {given!r}"
            )
        # every scoring function whose arguments are all given or have defaults
        resolved = {}
        for name, s in LIVE_SCORES.items():
            if name in given or all(a.default is not None for a in s.args):
                resolved[name] = s.kwargs(given.get(name), where)
        object.__setattr__(self, "score_kwargs", resolved)
        for name in (*(self.compare or ()), self.score):
            if name is not None and name not in resolved:
                LIVE_SCORES[name].kwargs(None, where)  # raises: names what is missing
        object.__setattr__(self, "_options", ())

    def check(self, decl: Any) -> None:
        """Every name refers to a parameter or panel of the declaration, of the right kind."""
        where = f"explorer {decl.name!r} (live)"
        params = {p.name: p for p in decl.params}
        panels = {p.name: p for p in decl.panels}
        axes = [("query coordinate", a) for a in self.query if isinstance(a, str)]
        axes += [("moving key coordinate", a) for a in (self.moving_key or ())[1:]]
        for what, axis in axes:
            if not isinstance(params.get(axis), Slider):
                raise ExplorerError(
                    f"{where}: {what} {axis!r} is not a Slider; sliders: "
                    f"{sorted(n for n, p in params.items() if isinstance(p, Slider))}"
                )
        if self.temperature is not None:
            t = params.get(self.temperature)
            if not isinstance(t, Slider) or min(t.values) <= 0:
                raise ExplorerError(
                    f"{where}: temperature {self.temperature!r} must be a Slider of positive "
                    "values"
                )
        if self.score_param is not None:
            c = params.get(self.score_param)
            bad = [o for o in getattr(c, "options", ()) if o not in SCORINGS]
            if not isinstance(c, Choice) or bad:
                raise ExplorerError(
                    f"{where}: score_param {self.score_param!r} must be a Choice among "
                    f"{SCORINGS}; unknown options {bad!r}"
                )
            for name in c.options:
                if name not in self.score_kwargs:
                    LIVE_SCORES[name].kwargs(None, where)  # raises: names what is missing
            object.__setattr__(self, "_options", tuple(c.options))  # what spec() sends
        if not isinstance(panels.get(self.weights), Heatmap):
            raise ExplorerError(f"{where}: weights {self.weights!r} is not a Heatmap panel")
        panel = None
        if self.output is not None:
            panel, series = self.output
            lines = panels.get(panel)
            if not isinstance(lines, Lines) or [(s.name, s.xy) for s in lines.series] != [
                (series, True)
            ]:
                raise ExplorerError(
                    f"{where}: output {self.output!r} must be the one xy series of a Lines panel"
                )
        for p in decl.panels:
            if isinstance(p, Lines) and p.name != panel and p.series:
                raise ExplorerError(
                    f"{where}: panel {p.name!r} has changing series the browser does not "
                    "compute; only the output panel may"
                )

    def check_frame(self, frame: dict, where: str) -> None:
        """The reference frame (``update``'s) has the weights the page computes: one row
        per scoring function compared (else one), one column per key."""
        rows = len(self.compare) if self.compare is not None else 1
        want = (rows, self.keys.shape[0])
        got = tuple(frame[self.weights].shape)
        if got != want:
            raise ExplorerError(
                f"{where} (live): weights {self.weights!r} must be {want} (rows: "
                f"{'scoring functions' if self.compare is not None else 'the query'}, "
                f"columns: the {want[1]} keys); update returned {got}"
            )

    def spec(self) -> dict:
        # the scoring functions the page may call: the compared ones, else the fixed one and
        # the options of score_param (recorded by check)
        used = self.compare or (*([self.score] if self.score else []), *self._options)
        spec = {
            "kind": "attention",
            "keys": [_round_list(k) for k in self.keys],
            "values": [_round_list(v) for v in self.values],
            "query": list(self.query),
            "weights": self.weights,
            "output": list(self.output) if self.output else None,
            "score": self.score,
            "score_param": self.score_param,
            "temperature": self.temperature,
            "compare": list(self.compare) if self.compare else None,
            # each scoring function used: its function in primitives.js and its arguments
            "scores": {n: LIVE_SCORES[n].spec(self.score_kwargs[n]) for n in dict.fromkeys(used)},
        }
        if self.moving_key is not None:  # only then: saved explorers without it stay as they were
            spec["moving_key"] = list(self.moving_key)
        return spec


@D.declare(
    x_train=D.Anything("(n_train,) finite inputs, tensor, array or list: checked in the body"),
    query=D.Real(),
    kernel=D.Choice(*sorted(KERNELS)),
    bandwidth=D.Real(gt=0),
    span=D.Pair(),
)
def kernel_window(
    x_train: torch.Tensor, query: float, kernel: str, bandwidth: float, span: tuple[float, float]
) -> np.ndarray:
    """The kernel window drawn around a query: ``(2, 161)``, rows x and y.

    ``y = min(1, K((t - query) / h) / sum_j K((x_j - query) / h))``: the weight a training
    point at ``t`` gets, so the query's weight bars sit on the curve; 1 inside the support
    when no training point is in the window (then any point there would take all the
    weight), 0 outside it. ``t = query + h * WINDOW_U``, or ``span`` for the constant kernel.
    Computed in float64 with :func:`attnlib.log_kernel` (sums of logs, no 0/0).

    ``x_train`` is ``(n_train,)``, ``n_train >= 1``, finite (a tensor of any floating dtype,
    an array or a list); ``query`` a finite number; ``kernel`` a name in
    :data:`attnlib.kernels.KERNELS`; ``bandwidth`` > 0; ``span`` ``(lo, hi)`` with lo < hi.
    """
    fn = "kernel_window"
    x_train = torch.from_numpy(_to_array(x_train, f"{fn}: x_train"))  # float64
    if x_train.dim() != 1 or x_train.numel() == 0:
        raise ValueError(
            f"{fn}: x_train must have shape (n_train,) with at least one point; got "
            f"{tuple(x_train.shape)}"
        )
    query = _validate.as_real(query, "query", fn)
    if not isinstance(kernel, str) or kernel not in KERNELS:
        raise ValueError(f"{fn}: kernel must be one of {sorted(KERNELS)}; got {kernel!r}")
    bandwidth = _validate.as_real(bandwidth, "bandwidth", fn, min=0.0, min_open=True)
    span = _validate.as_pair(span, "span", fn)
    u_grid = torch.as_tensor(WINDOW_U, dtype=torch.float64)  # (161,)
    if kernel == "constant":
        t = torch.linspace(span[0], span[1], len(WINDOW_U), dtype=torch.float64)  # (161,)
    else:
        t = query + bandwidth * u_grid  # (161,)
    diff = query - x_train.to(torch.float64)  # (n_train,)
    u = torch.where(diff == 0, torch.zeros_like(diff), diff / bandwidth)  # (n_train,)
    logits = log_kernel(u, kernel)  # (n_train,)
    m = logits.max()
    log_t = log_kernel((t - query) / bandwidth, kernel)  # (161,)
    if torch.isneginf(m):
        y = torch.where(torch.isneginf(log_t), 0.0, 1.0)
    else:
        log_z = m + torch.log(torch.exp(logits - m).sum())
        y = torch.exp(torch.clamp(log_t - log_z, max=0.0))  # min(1, K(t) / sum K)
    return np.stack([t.numpy(), y.numpy()])  # (2, 161)


@record(
    x_train=checked_later("(n_train,) finite inputs"),
    y_train=checked_later("(n_train,) finite targets"),
    **dict.fromkeys(("query", "kernel", "bandwidth", "weights"), TEXT),
    **dict.fromkeys(("fit", "marker", "bars", "window"), NAME_PAIR),
    heat_x=checked_later("the heatmap's query grid"),
    heat_points=OPTIONAL_PAIR,
)
@dataclass(frozen=True)
class LiveKernelRegression:
    """What the browser computes for Nadaraya-Watson regression with a dragged query x
    (see the module docs for the rules, which are :func:`attnlib.nadaraya_watson`'s).

    Args:
        x_train, y_train: ``(n_train,)``: the training inputs (keys) and targets (values).
        query: name of the Slider holding the query's x (usually bound to a 1-D
            :class:`~attnlib.widgets.Handle`).
        kernel: name of a :class:`~attnlib.widgets.Choice` among the kernels of
            :data:`attnlib.kernels.KERNELS`.
        bandwidth: name of a Slider of positive bandwidths.
        fit: ``(lines panel, series)``: the fit, one y per point of the panel's ``x``.
        marker: ``(lines panel, series)``: the fit at the query, an ``xy`` series of 1 point.
        bars: ``(lines panel, series)``: the query's weight on each training point; the
            panel's ``x`` must be ``x_train``.
        window: ``(lines panel, series)``: the kernel window, an ``xy`` series (see
            :func:`kernel_window`).
        weights: the :class:`~attnlib.widgets.Heatmap` of the weights of ``heat_x``
            ``(n_heat, n_train)``.
        heat_x: ``(n_heat,)``: the heatmap's queries (its rows).
        heat_points: optional ``(lines panel, series)``: the fit at ``heat_x``, an ``xy``
            series (linked to the heatmap's rows).
    """

    x_train: Any
    y_train: Any
    query: str
    kernel: str
    bandwidth: str
    fit: tuple[str, str]
    marker: tuple[str, str]
    bars: tuple[str, str]
    window: tuple[str, str]
    weights: str
    heat_x: Any
    heat_points: tuple[str, str] | None = None

    def __post_init__(self) -> None:
        x = _to_array(self.x_train, "LiveKernelRegression: x_train")
        y = _to_array(self.y_train, "LiveKernelRegression: y_train")
        hx = _to_array(self.heat_x, "LiveKernelRegression: heat_x")
        if x.ndim != 1 or x.size == 0 or y.shape != x.shape:
            raise ExplorerError(
                f"LiveKernelRegression: x_train and y_train must have shape (n_train,), "
                f"n_train >= 1; got {tuple(x.shape)} and {tuple(y.shape)}"
            )
        if hx.ndim != 1 or hx.size == 0:
            raise ExplorerError(
                f"LiveKernelRegression: heat_x must have shape (n_heat,); got {tuple(hx.shape)}"
            )
        for name, v in (("x_train", x), ("y_train", y), ("heat_x", hx)):
            object.__setattr__(self, name, v)

    def _series(self) -> dict[str, tuple[tuple[str, str], bool]]:
        """Every (panel, series) this computes, and whether it is an xy series."""
        out = {
            "fit": (self.fit, False),
            "marker": (self.marker, True),
            "bars": (self.bars, False),
            "window": (self.window, True),
        }
        if self.heat_points is not None:
            out["heat_points"] = (self.heat_points, True)
        return out

    def check(self, decl: Any) -> None:
        """Every name refers to a parameter or panel of the declaration, of the right kind, and
        the browser computes every changing series."""
        where = f"explorer {decl.name!r} (live kernel regression)"
        params = {p.name: p for p in decl.params}
        panels = {p.name: p for p in decl.panels}
        q = params.get(self.query)
        if not isinstance(q, Slider):
            raise ExplorerError(f"{where}: query {self.query!r} is not a Slider")
        b = params.get(self.bandwidth)
        if not isinstance(b, Slider) or min(b.values) <= 0:
            raise ExplorerError(
                f"{where}: bandwidth {self.bandwidth!r} must be a Slider of positive values"
            )
        k = params.get(self.kernel)
        bad = [o for o in getattr(k, "options", ()) if o not in KERNELS]
        if not isinstance(k, Choice) or bad:
            raise ExplorerError(
                f"{where}: kernel {self.kernel!r} must be a Choice among {sorted(KERNELS)}; "
                f"unknown options {bad!r}"
            )
        w = panels.get(self.weights)
        if not isinstance(w, Heatmap):
            raise ExplorerError(f"{where}: weights {self.weights!r} is not a Heatmap panel")
        computed = set()
        for role, ((panel, series), xy) in self._series().items():
            lines = panels.get(panel)
            found = [s for s in getattr(lines, "series", ()) if s.name == series]
            if not isinstance(lines, Lines) or not found or found[0].xy != xy:
                raise ExplorerError(
                    f"{where}: {role} {(panel, series)!r} must name a{'n xy' if xy else ''} "
                    f"series of a Lines panel"
                )
            if lines.xlim is None or lines.ylim is None:
                raise ExplorerError(
                    f"{where}: panel {panel!r} needs xlim and ylim (its axes must not "
                    "depend on the first frame)"
                )
            computed.add((panel, series))
        fit_x = panels[self.fit[0]].x
        if fit_x is None:
            raise ExplorerError(f"{where}: panel {self.fit[0]!r} needs x (where the fit is drawn)")
        bars_x = panels[self.bars[0]].x
        if (
            bars_x is None
            or bars_x.shape != self.x_train.shape
            or np.abs(bars_x - self.x_train).max() > 1e-9
        ):
            raise ExplorerError(f"{where}: the bars panel {self.bars[0]!r} must have x = x_train")
        for p in decl.panels:
            for s in getattr(p, "series", ()):
                if (p.name, s.name) not in computed:
                    raise ExplorerError(
                        f"{where}: series {s.name!r} of panel {p.name!r} changes, but the "
                        "browser does not compute it"
                    )

    def check_frame(self, frame: dict, where: str) -> None:
        """The reference frame's weights are ``(len(heat_x), len(x_train))``, as the page's."""
        want = (self.heat_x.shape[0], self.x_train.shape[0])
        got = tuple(frame[self.weights].shape)
        if got != want:
            raise ExplorerError(
                f"{where} (live kernel regression): weights {self.weights!r} must be {want} "
                f"(rows: the heatmap's queries heat_x, columns: the training points); "
                f"update returned {got}"
            )

    def spec(self) -> dict:
        return {
            "kind": "kernel_regression",
            "x_train": _round_list(self.x_train, 8),
            "y_train": _round_list(self.y_train, 8),
            "heat_x": _round_list(self.heat_x, 8),
            "query": self.query,
            "kernel": self.kernel,
            "bandwidth": self.bandwidth,
            "fit": list(self.fit),
            "marker": list(self.marker),
            "bars": list(self.bars),
            "window": list(self.window),
            "weights": self.weights,
            "heat_points": list(self.heat_points) if self.heat_points else None,
            "window_u": _round_list(WINDOW_U, 8),
        }


# chapter 3's typed sentences live in their own module; their names stay importable from here
from attnlib.widgets.live_masking import LiveMasking, fold, tokens, word_vector  # noqa: E402
