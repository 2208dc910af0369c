"""The scoring functions a live explorer's page computes, each declared once.

A :class:`LiveScore` names one scoring function :math:`a(q, k)` and says everything the
toolkit needs to know about it:

- ``name``: what a declaration calls it (``LiveAttention(compare=(...))``, ``score=``, the
  options of a ``score_param`` Choice);
- ``reference``: attnlib's function, ``reference(queries, keys, **kwargs)`` with queries
  ``(batch, n_queries, d)`` and keys ``(batch, n_keys, d)``, returning scores
  ``(batch, n_queries, n_keys)``: what the explorer's update function and the parity test
  (``tests/widgets/test_live_parity.py``) compare the page with;
- ``js``: the name of its function in ``SCORES`` of ``attnlib/static/src/primitives.js``,
  called as ``SCORES[js](q, k, kwargs)`` for one query ``q`` and one key ``k`` (``(d,)``
  each), ``kwargs`` being this score's arguments as the spec carries them;
- ``args``: its arguments (:class:`ScoreArg`), passed by keyword to the reference and, with
  the same names, to the JS function. A declaration gives them in
  ``LiveAttention(score_kwargs={name: {arg: value}})``; an argument with a default may be
  left out;
- ``label``: a short row label for a comparison heatmap, formatted with the arguments and
  ``d`` (e.g. ``"cosine cos(q, k)/{temperature:g}"``).

:data:`LIVE_SCORES` holds them all, in the order chapter 5's comparison shows them. Adding a
scoring function to the page is one entry here, its reference in :mod:`attnlib.scoring`,
its JavaScript in ``primitives.js`` (then ``make explorer``), and its tests (see
ARCHITECTURE.md, "How to add a scoring function").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import Tensor

from attnlib import _validate
from attnlib import domains as D
from attnlib.scoring import (
    additive_scores,
    bilinear_scores,
    cosine_scores,
    dot_product_scores,
    gaussian_scores,
    laplace_scores,
)
from attnlib.widgets.controls import TEXT, ExplorerError, checked_later, record
from attnlib.widgets.series import _round_list, _to_array

__all__ = ["LIVE_SCORES", "LiveScore", "ScoreArg"]


def _shape(shape: tuple) -> str:
    """``("h", 2)`` as ``(h, 2)``, ``("h",)`` as ``(h,)``."""
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


@record(name=TEXT, shape=checked_later("sizes and dimension names"), default=D.Real(optional=True))
@dataclass(frozen=True)
class ScoreArg:
    """One argument of a live scoring function.

    Args:
        name: its keyword in the reference (and in the JS function's ``kwargs``).
        shape: ``()`` for a positive number; else the shape of an array, each entry a size
            (``2``: the plane the query moves in) or a letter shared by the score's arrays
            (``"h"``: additive attention's hidden size, the same in all three).
        default: a number used when the declaration gives none (numbers only), or None
            (required).
    """

    name: str
    shape: tuple[int | str, ...] = ()
    default: float | None = None

    def __post_init__(self) -> None:
        where = "ScoreArg"
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise ExplorerError(f"{where}: name must be a keyword (str); got {self.name!r}")
        shape = self.shape
        if not isinstance(shape, tuple) or not all(
            (isinstance(s, int) and not isinstance(s, bool) and s > 0)
            or (isinstance(s, str) and s.isidentifier())
            for s in shape
        ):
            raise ExplorerError(
                f"{where}: shape must be a tuple of sizes > 0 or letters, e.g. ('h', 2); got "
                f"{shape!r}"
            )
        if self.default is not None:
            if shape:
                raise ExplorerError(
                    f"{where}: default is for numbers only; {self.name} has shape {shape!r}"
                )
            d = _validate._scalar(self.default)
            if isinstance(d, bool) or not isinstance(d, (int, float)) or not 0 < d < math.inf:
                raise ExplorerError(
                    f"{where}: default of {self.name} must be a number > 0; got "
                    f"{self.default!r} ({type(self.default).__name__})"
                )
            object.__setattr__(self, "default", float(d))

    def value(self, given: object, where: str, sizes: dict[str, int]) -> float | np.ndarray:
        """``given`` checked against this argument: a float > 0, or a float64 array of the
        declared shape (letters bound in ``sizes``, shared with the score's other arrays)."""
        if not self.shape:
            v = _validate._scalar(given)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v < math.inf:
                raise ExplorerError(
                    f"{where}: {self.name} must be a number > 0; got {given!r} "
                    f"({type(given).__name__})"
                )
            return float(v)
        a = _to_array(given, f"{where}: {self.name}")
        bound = {s: sizes[s] for s in self.shape if isinstance(s, str) and s in sizes}
        want = tuple(
            sizes.setdefault(s, a.shape[i] if i < a.ndim else -1) if isinstance(s, str) else s
            for i, s in enumerate(self.shape)
        )
        if a.shape != want:
            also = "".join(
                f" with {s} = {n} (from the arguments before)" for s, n in bound.items()
            )
            raise ExplorerError(
                f"{where}: {self.name} must have shape {_shape(self.shape)}{also}; got "
                f"{tuple(a.shape)}"
            )
        return a


@record(
    name=TEXT,
    reference=D.Func(),
    js=TEXT,
    args=checked_later("ScoreArgs"),
    label=D.Str(),
)
@dataclass(frozen=True)
class LiveScore:
    """One scoring function the page computes (see the module docs for each field)."""

    name: str
    reference: Callable[..., Tensor]
    js: str
    args: tuple[ScoreArg, ...] = ()
    label: str = ""

    def __post_init__(self) -> None:
        where = "LiveScore"
        for attr in ("name", "js", "label"):
            if not isinstance(getattr(self, attr), str) or (
                attr != "label" and not getattr(self, attr).isidentifier()
            ):
                raise ExplorerError(
                    f"{where}: {attr} must be a{'n identifier' if attr != 'label' else ''} str; "
                    f"got {getattr(self, attr)!r}"
                )
        if not callable(self.reference):
            raise ExplorerError(
                f"{where}: reference must be attnlib's scoring function (a callable); got "
                f"{self.reference!r}"
            )
        args = self.args
        if not isinstance(args, tuple) or not all(isinstance(a, ScoreArg) for a in args):
            raise ExplorerError(f"{where}: args must be a tuple of ScoreArg; got {args!r}")
        if len({a.name for a in args}) != len(args):
            raise ExplorerError(f"{where}: args must have distinct names; got {args!r}")

    def kwargs(self, given: Mapping[str, Any] | None, where: str) -> dict[str, Any]:
        """This score's arguments from a declaration's ``given`` ones, checked, with the
        defaults filled in: ``{arg: float or array}``. Raises naming the missing or unknown
        argument and this score."""
        given = {} if given is None else given
        if not isinstance(given, Mapping):
            raise ExplorerError(
                f"{where}: score_kwargs[{self.name!r}] must be a dict of arguments; got "
                f"{type(given).__name__} ({given!r})"
            )
        names = [a.name for a in self.args]
        unknown = [k for k in given if k not in names]
        if unknown:
            raise ExplorerError(
                f"{where}: the {self.name} scoring function takes {names or 'no arguments'}; "
                f"unknown {unknown!r}"
            )
        missing = [a for a in self.args if a.name not in given and a.default is None]
        if missing:
            want = ", ".join(
                f"{a.name} {_shape(a.shape)}" if a.shape else f"{a.name} > 0" for a in missing
            )
            raise ExplorerError(
                f"{where}: the {self.name} scoring function needs "
                f"score_kwargs[{self.name!r}] = {{{want}}}"
            )
        sizes: dict[str, int] = {}
        return {
            a.name: a.value(given.get(a.name, a.default), f"{where}: {self.name}", sizes)
            for a in self.args
        }

    def spec(self, kwargs: Mapping[str, Any]) -> dict:
        """What the page receives: ``{"js": function name, "kwargs": {arg: JSON value}}``."""

        def plain(v):
            if isinstance(v, np.ndarray):
                return _round_list(v, 8) if v.ndim == 1 else [plain(r) for r in v]
            return v

        return {"js": self.js, "kwargs": {k: plain(v) for k, v in kwargs.items()}}

    def scores(self, queries: Tensor, keys: Tensor, kwargs: Mapping[str, Any]) -> Tensor:
        """``reference(queries, keys, **kwargs)``, arrays as tensors of the queries' dtype:
        ``(batch, n_queries, n_keys)``."""
        kw = {
            k: torch.as_tensor(v, dtype=queries.dtype) if isinstance(v, np.ndarray) else v
            for k, v in kwargs.items()
        }
        return self.reference(queries, keys, **kw)

    def row_label(self, kwargs: Mapping[str, Any], d: int) -> str:
        """``label`` with the arguments and ``d`` filled in."""
        return self.label.format(**kwargs, d=d)


def _dot(queries: Tensor, keys: Tensor) -> Tensor:
    """The unscaled dot product q . k, :func:`attnlib.bilinear_scores` with M = I."""
    return bilinear_scores(queries, keys, torch.eye(queries.shape[-1], dtype=queries.dtype))


_H2 = ("h", 2)
#: Every live scoring function, in the order of chapter 5's comparison.
LIVE_SCORES: dict[str, LiveScore] = {
    s.name: s
    for s in (
        LiveScore("dot", _dot, "dot", label="dot q\u00b7k"),
        LiveScore(
            "scaled_dot", dot_product_scores, "scaled_dot", label="scaled q\u00b7k/\u221a{d}"
        ),
        LiveScore(
            "gaussian",
            gaussian_scores,
            "gaussian",
            (ScoreArg("sigma", default=1.0),),
            label="Gaussian",
        ),
        LiveScore(
            "additive",
            additive_scores,
            "additive",
            (ScoreArg("W_q", _H2), ScoreArg("W_k", _H2), ScoreArg("w_v", ("h",))),
            label="additive",
        ),
        LiveScore(
            "cosine",
            cosine_scores,
            "cosine",
            (ScoreArg("temperature", default=1.0),),
            label="cosine cos(q, k)/{temperature:g}",
        ),
        LiveScore(
            "general",
            bilinear_scores,
            "general",
            (ScoreArg("M", (2, 2)),),
            label="general q\u1d40Wk",
        ),
        LiveScore(
            "laplace",
            laplace_scores,
            "laplace",
            (ScoreArg("sigma", default=1.0),),
            label="Laplace \u2212\u2016q\u2212k\u2016/{sigma:g}",
        ),
    )
}
