"""Validation of plain arguments (numbers, counts, strings, lists of strings, seeds) shared by
the book's modules, with the same kind of message as :mod:`attnlib._checks`::

    random_dates: n must be an int >= 0; got -1

Every helper returns the value as a plain Python object (``int``, ``float``, ``str``,
``tuple``), so a numpy scalar or a 0-d tensor never travels further than the check.

Decisions shared by every caller:

- numbers: ``int``/``float``, numpy scalars and 0-d arrays, and 0-d tensors are accepted;
  ``bool`` is refused wherever a number is expected (``True`` is an int to Python, never a
  count or a probability to a reader);
- counts: integers only (``2.0`` is refused: a count that arrives as a float is usually a
  computation gone wrong);
- lists of strings: any sequence of ``str``; a bare ``str`` is refused (it is a sequence of
  one-character strings, so it would silently become one item per character).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch

__all__ = [
    "describe",
    "as_int",
    "as_real",
    "as_bool",
    "as_str",
    "as_str_list",
    "as_items",
    "as_pair",
    "as_seed",
    "check_generator",
    "check_mapping",
]


def describe(x: object) -> str:
    """``x`` for a message: its repr when short, its type always (``'0.1' (str)``)."""
    if isinstance(x, torch.Tensor):
        return f"a tensor of dtype {x.dtype} and shape {tuple(x.shape)}"
    if isinstance(x, np.ndarray) and x.ndim:
        return f"an array of dtype {x.dtype} and shape {x.shape}"
    text = repr(x)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(x).__name__})"


def _scalar(value: object) -> object:
    """A numpy scalar, 0-d array or 0-d tensor as a Python number (other values unchanged)."""
    if isinstance(value, torch.Tensor):
        if value.dim() != 0:
            return value
        if value.dtype == torch.bool or value.is_complex():
            return value
        return value.item()
    if isinstance(value, np.ndarray):
        if value.ndim != 0:
            return value
        value = value[()]
    if isinstance(value, np.generic) and not isinstance(value, (np.bool_, np.complexfloating)):
        return value.item()
    return value


def as_int(
    value: object, name: str, fn: str, *, min: int | None = None, max: int | None = None
) -> int:
    """An integer (int, numpy integer, 0-d integer tensor), not a bool, in [min, max]."""
    v = _scalar(value)
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Integral):
        raise TypeError(f"{fn}: {name} must be an int; got {describe(value)}")
    v = int(v)
    _check_range(v, name, fn, min, max)
    return v


def as_real(
    value: object,
    name: str,
    fn: str,
    *,
    min: float | None = None,
    max: float | None = None,
    min_open: bool = False,
) -> float:
    """A finite real number (int, float, numpy scalar, 0-d tensor), not a bool, in the range:
    ``[min, max]``, or ``(min, max]`` with ``min_open``."""
    v = _scalar(value)
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
        raise TypeError(f"{fn}: {name} must be a real number; got {describe(value)}")
    v = float(v)
    if not math.isfinite(v):
        raise ValueError(f"{fn}: {name} must be a finite number; got {v}")
    if min is not None and (v <= min if min_open else v < min):
        raise ValueError(f"{fn}: {name} must be {'>' if min_open else '>='} {min:g}; got {v:g}")
    if max is not None and v > max:
        raise ValueError(f"{fn}: {name} must be <= {max:g}; got {v:g}")
    return v


def _check_range(v: int, name: str, fn: str, lo: int | None, hi: int | None) -> None:
    if lo is not None and v < lo:
        what = "a positive int (>= 1)" if lo == 1 else f"an int >= {lo}"
        raise ValueError(f"{fn}: {name} must be {what}; got {v}")
    if hi is not None and v > hi:
        raise ValueError(f"{fn}: {name} must be an int <= {hi}; got {v}")


def as_bool(value: object, name: str, fn: str) -> bool:
    """``True`` or ``False`` (or a numpy bool); ``0``, ``1`` and strings are refused."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError(f"{fn}: {name} must be a bool (True or False); got {describe(value)}")


def as_str(
    value: object,
    name: str,
    fn: str,
    *,
    optional: bool = False,
    nonempty: bool = False,
    what: str = "",
) -> str | None:
    """A ``str`` (``None`` too with ``optional``); ``nonempty`` refuses ``""``; ``what`` says
    what the string is in the messages (``"a slider name (str)"``)."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        what = what or ("a string or None" if optional else "a string (str)")
        raise TypeError(f"{fn}: {name} must be {what}; got {describe(value)}")
    if nonempty and not value:
        raise ValueError(f"{fn}: {name} must be a non-empty string; got ''")
    return str(value)


def as_str_list(
    value: object, name: str, fn: str, *, nonempty: bool = False, what: str = "a list of strings"
) -> tuple[str, ...]:
    """A sequence of strings as a tuple; a bare ``str`` is refused (see the module docs).
    ``what`` names the list in the messages."""
    if isinstance(value, (str, bytes)):
        raise TypeError(
            f"{fn}: {name} must be {what}; got a {type(value).__name__} "
            f"({value!r}); wrap a single one in a list: [{value!r}]"
        )
    if isinstance(value, Mapping) or not isinstance(value, (Sequence, np.ndarray)):
        raise TypeError(f"{fn}: {name} must be {what}; got {describe(value)}")
    items = tuple(value)
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise TypeError(f"{fn}: {name} must be strings; {name}[{i}] is {describe(item)}")
    if nonempty and not items:
        raise ValueError(f"{fn}: {name} must hold at least one string; got an empty list")
    return tuple(str(s) for s in items)


def _items(n: int) -> str:
    """``one item`` (``at least one item``), ``3 items``."""
    return "one item" if n == 1 else f"{n} items"


def as_items(
    value: object,
    name: str,
    fn: str,
    *,
    what: str = "a list",
    n: int | None = None,
    min_len: int = 0,
    max_len: int | None = None,
) -> list:
    """The items of a list or tuple (array, tensor): ``n`` exactly, or ``min_len`` to
    ``max_len``; a string or a mapping is refused. ``what`` names the list in the messages."""
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(
        value, (Sequence, np.ndarray, torch.Tensor)
    ):
        raise TypeError(f"{fn}: {name} must be {what}; got {describe(value)}")
    items = list(value)
    if n is not None and len(items) != n:
        raise ValueError(f"{fn}: {name} must be {what}; got {_items(len(items))}: {value!r}")
    if len(items) < min_len:
        raise ValueError(f"{fn}: {name} must hold at least {_items(min_len)}; got {len(items)}")
    if max_len is not None and len(items) > max_len:
        raise ValueError(f"{fn}: {name} must hold at most {_items(max_len)}; got {len(items)}")
    return items


def as_pair(value: object, name: str, fn: str) -> tuple[float, float]:
    """Two finite real numbers ``(lo, hi)`` with ``lo < hi`` and a finite ``hi - lo``."""
    if isinstance(value, (str, bytes)) or not isinstance(
        value, (Sequence, np.ndarray, torch.Tensor)
    ):
        raise TypeError(f"{fn}: {name} must be a pair of numbers (lo, hi); got {describe(value)}")
    items = list(value)
    if len(items) != 2:
        raise ValueError(f"{fn}: {name} must be a pair of numbers (lo, hi); got {tuple(items)!r}")
    lo = as_real(items[0], f"{name}[0]", fn)
    hi = as_real(items[1], f"{name}[1]", fn)
    if not lo < hi or not math.isfinite(hi - lo):
        raise ValueError(
            f"{fn}: {name} must be (lo, hi) with finite lo < hi; got ({lo:g}, {hi:g})"
        )
    return lo, hi


def as_seed(value: object, name: str, fn: str) -> int:
    """A seed for :class:`torch.Generator`: an int (numpy ints and 0-d tensors too) that
    ``manual_seed`` takes, i.e. in ``[-2**63, 2**64)``."""
    return as_int(value, name, fn, min=-(2**63), max=2**64 - 1)


def check_generator(value: object, name: str, fn: str) -> torch.Generator:
    """A :class:`torch.Generator` (never ``None``: that would be the global generator)."""
    if not isinstance(value, torch.Generator):
        raise TypeError(
            f"{fn}: {name} must be a torch.Generator, e.g. "
            f"torch.Generator().manual_seed(0) (never the global generator); got "
            f"{describe(value)}"
        )
    return value


def check_mapping(value: object, name: str, fn: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise TypeError(f"{fn}: {name} must be a dict; got {describe(value)}")
    return value
