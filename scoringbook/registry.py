"""The book's explorers by name: ``EXPLORERS``, ``DECLARATIONS`` and :func:`compute`.

Built from the chapter manifest (:mod:`scoringbook.manifest`, which lists each explorer once
with its chapter, kind and builders): nothing here names an explorer. A chapter's module is
imported on the first call of one of its builders, so importing the registry is cheap.

- ``EXPLORERS``: name -> builder of the widget (:class:`attnlib.widgets.Explorer`), for the
  stored and live explorers (the manifest's ``<name>_explorer`` of the chapter's module);
- ``DECLARATIONS``: name -> builder of the :class:`attnlib.widgets.Declaration` (cheap:
  computes no frame), for every explorer; a trained one trains its chapter's model once
  (then cached by the chapter's module).

``compute(name, **params)`` returns one frame (``{panel: data}``) computed directly by
attnlib, e.g.::

    >>> w = compute("softmax_temperature", temperature=1.0)["weights"]
    >>> w.shape
    (4, 8)
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from typing import Any

from attnlib.domains import Choice, declare
from attnlib.widgets import Declaration, Explorer
from scoringbook import manifest

__all__ = ["EXPLORERS", "DECLARATIONS", "compute"]


def _module(name: str):
    return importlib.import_module(f"scoringbook.{name}")


def _declaration_builder(entry: manifest.Explorer) -> Callable[..., Declaration]:
    def build(**kwargs: Any) -> Declaration:
        module = _module(entry.module)
        declare = getattr(module, entry.declaration)
        if entry.run:
            return declare(getattr(module, entry.run)(), **kwargs)
        return declare(**kwargs)

    build.__name__ = build.__qualname__ = f"{entry.name}_declaration"
    build.__doc__ = f"{entry.module}.{entry.declaration} ({entry.kind} explorer)"
    return build


def _explorer_builder(entry: manifest.Explorer) -> Callable[..., Explorer]:
    def build(**kwargs: Any) -> Explorer:
        return getattr(_module(entry.module), f"{entry.name}_explorer")(**kwargs)

    build.__name__ = build.__qualname__ = f"{entry.name}_explorer"
    build.__doc__ = f"{entry.module}.{entry.name}_explorer ({entry.kind} explorer)"
    return build


#: name -> builder returning an Explorer, for the stored and live explorers (the trained
#: ones need their chapter's training run: see DECLARATIONS).
EXPLORERS: dict[str, Callable[..., Explorer]] = {
    e.name: _explorer_builder(e) for e in manifest.explorers(manifest.STORED, manifest.LIVE)
}

#: name -> declaration builder, for every explorer of the book.
DECLARATIONS: dict[str, Callable[..., Declaration]] = {
    e.name: _declaration_builder(e) for e in manifest.explorers()
}


@declare(name=Choice(*DECLARATIONS))
def compute(name: str, **params: Any) -> dict[str, Any]:
    """One frame of explorer ``name`` for the given parameter values, computed by attnlib.

    Returns ``{panel: data}``: a heatmap is a 2-D ``numpy`` array (queries are rows), a
    lines panel a dict ``{series: 1-D array}`` (a ``(2, n)`` array of coordinates for a
    series of points with their own x). Missing parameters take the explorer's default.
    This is what the browser tests compare the rendered page against.

    The explorer's declaration (built with its defaults) is built once per process and kept:
    some precompute a whole experiment up front (chapter 6's ``scaling_d`` draws its random
    rows for every d), and a declaration is a pure function of its builder's arguments.
    """
    if name not in DECLARATIONS:
        raise KeyError(f"unknown explorer {name!r}; expected one of {sorted(DECLARATIONS)}")
    return _default_declaration(name).compute(**params)


@functools.cache
def _default_declaration(name: str) -> Declaration:
    """``DECLARATIONS[name]()``, built once per process (see :func:`compute`)."""
    return DECLARATIONS[name]()
