"""Argument domains, declared once where a function is defined, and checked on every call.

A public function says what each of its parameters may be with :func:`declare`::

    @declare(
        queries=FloatTensor("batch n_queries d"),
        keys=FloatTensor("batch n_keys d"),
        sigma=Real(gt=0, tensor=True),
    )
    def gaussian_scores(queries, keys, sigma=1.0): ...

and every call is checked against it before the body runs. A refusal is a ``TypeError``
(the wrong kind of object or dtype) or a ``ValueError`` (a wrong shape or value) whose
message names the function, the argument, what was expected and what was received::

    gaussian_scores: keys must have the same feature size d as queries (d = 4); got keys of
    shape (2, 5, 3)

The same declarations are read by the contract harness (``tests/contract``): it perturbs
each argument at its declared edges (just outside a range, another dtype family, a named
dimension that disagrees with its partner, a name outside a choice, ...) and requires each
refusal to name the function and the argument.

Kinds of domain (each takes ``optional=True``: ``None`` is accepted too):

=================== =========================================================================
:class:`Int`        an integer (numpy integer, 0-d integer tensor), not a bool, in a range
:class:`Real`       a finite real number (numpy scalar, 0-d tensor), not a bool, in a range
:class:`Bool`       ``True`` or ``False``
:class:`Str`        a string; :class:`Choice` one of a set of names
:class:`StrList`    a sequence of strings (a bare string is refused)
:class:`Pair`       two finite numbers ``(lo, hi)`` with ``lo < hi``
``FloatTensor``     a floating-point tensor with named dimensions (``"batch n_queries d"``)
``Lengths``         ``valid_lens``: ``(batch,)`` or ``(batch, n_queries)`` integer lengths
``Mask``            a boolean mask broadcastable to named dimensions
:class:`Generator`  a :class:`torch.Generator`; :class:`Seed` an int a generator takes
:class:`Instance`   an object of given classes; :class:`Func` a callable
:class:`Anything`   no constraint, with the reason recorded
:class:`Checked`    checked by a function ``check(value, name, fn)`` of the caller's own
=================== =========================================================================

The three tensor kinds and the shape vocabulary (``QK``, ``QK_SIZES``, ``KV``, ``DIM_WORDS``)
are defined in :mod:`attnlib.tensor_domains`, one layer above this module: import them from
there.

Why not a library: jaxtyping + beartype were tried (benchmarks/README.md): their refusals
never say which dimension disagreed with which argument, and they check types only.
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import torch
from torch import Tensor

from attnlib._checks import check_mask, check_valid_lens, fmt_shape
from attnlib._rng import isolated_global_rng, seed_from
from attnlib._validate import (
    _scalar,
    as_bool,
    as_int,
    as_items,
    as_pair,
    as_real,
    as_seed,
    as_str,
    as_str_list,
    check_generator,
    check_mapping,
    describe,
)

# fmt: off
__all__ = [
    "declare", "declared", "Domain", "Int", "Real", "Bool", "Str", "Choice", "StrList", "Pair",
    "Seq", "Tup", "Dict", "Generator", "Seed", "Instance", "Func", "Anything", "Checked",
    # the checks themselves, for code that validates inside a body (one vocabulary)
    "as_int", "as_real", "as_bool", "as_str", "as_str_list", "as_pair", "as_seed",
    "check_generator", "check_mapping", "check_valid_lens", "check_mask", "describe",
    "fmt_shape", "scalar", "isolated_global_rng", "seed_from",
]
# fmt: on

#: a numpy scalar, 0-d array or 0-d tensor as a Python number (other values unchanged)
scalar = _scalar

#: dtypes of each family, for messages and for the harness's "another family" values
FAMILIES = {
    "float": (torch.float16, torch.bfloat16, torch.float32, torch.float64),
    "int": (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8),
    "bool": (torch.bool,),
    "complex": (torch.complex64, torch.complex128),
}


class Domain:
    """What one parameter may be. ``check`` returns the value to use (numbers come back as
    plain Python numbers) or raises naming ``fn`` and ``name``; ``dims`` holds the sizes of
    the named dimensions seen so far in this call (shared between arguments)."""

    kind = "value"
    #: checked after the other arguments, whose named dimensions it reads (valid lengths, masks)
    checked_late = False

    def __init__(self, *, optional: bool = False, doc: str = "") -> None:
        self.optional = optional
        self.doc = doc

    def __call__(self, value: Any, fn: str, name: str, dims: dict) -> Any:
        if value is None and self.optional:
            return None
        return self.check(value, fn, name, dims)

    def check(self, value: Any, fn: str, name: str, dims: dict) -> Any:  # pragma: no cover
        raise NotImplementedError

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if v not in (None, False, ""))
        return f"{type(self).__name__}({args})"


class Int(Domain):
    """An integer in ``[ge, le]`` (either end optional); numpy integers and 0-d integer
    tensors are accepted and returned as ``int``; bools and floats (``2.0``) are refused."""

    kind = "int"

    def __init__(
        self, ge: int | None = None, le: int | None = None, *, dim: str | None = None, **kw
    ) -> None:
        super().__init__(**kw)
        self.ge, self.le, self.dim = ge, le, dim

    def check(self, value, fn, name, dims):
        v = as_int(value, name, fn, min=self.ge, max=self.le)
        if self.dim is not None:  # a size other arguments' dimensions are measured by
            dims[self.dim] = (v, name, None)
        return v


class Real(Domain):
    """A finite real number in a range: ``gt``/``ge`` below, ``lt``/``le`` above. Numpy
    scalars and 0-d tensors are accepted and returned as ``float``; with ``tensor=True`` a
    single-element floating tensor is checked and returned unchanged (it may require grad)."""

    kind = "real"

    def __init__(
        self,
        gt: float | None = None,
        ge: float | None = None,
        lt: float | None = None,
        le: float | None = None,
        *,
        tensor: bool = False,
        **kw,
    ) -> None:
        super().__init__(**kw)
        self.gt, self.ge, self.lt, self.le, self.tensor = gt, ge, lt, le, tensor

    def range_text(self) -> str:
        if self.ge is not None and self.le is not None:  # a closed interval: [0, 1]
            return f"in [{self.ge:g}, {self.le:g}]"
        parts = []
        if self.gt is not None:
            parts.append(f"> {self.gt:g}")
        if self.ge is not None:
            parts.append(f">= {self.ge:g}")
        if self.lt is not None:
            parts.append(f"< {self.lt:g}")
        if self.le is not None:
            parts.append(f"<= {self.le:g}")
        return " and ".join(parts)

    def check(self, value, fn, name, dims):
        keep = None
        if self.tensor and isinstance(value, Tensor) and value.dim() > 0:
            if value.numel() != 1:
                raise ValueError(
                    f"{fn}: {name} must be a single number; got a tensor of shape "
                    f"{fmt_shape(value.shape)}"
                )
            keep = value
        if isinstance(value, Tensor) and not (value.is_floating_point() or _int_tensor(value)):
            raise TypeError(
                f"{fn}: {name} must be a real number; got a tensor of dtype {value.dtype}"
            )
        if self.tensor and isinstance(value, Tensor):
            keep = value
            v = float(value.detach().reshape(()))
        else:
            v = _scalar(value)
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
                raise TypeError(f"{fn}: {name} must be a real number; got {describe(value)}")
            v = float(v)
        if not math.isfinite(v):
            where = f" {self.range_text()}" if self.range_text() else ""
            raise ValueError(f"{fn}: {name} must be a finite number{where}; got {v}")
        bad = (
            (self.gt is not None and not v > self.gt)
            or (self.ge is not None and not v >= self.ge)
            or (self.lt is not None and not v < self.lt)
            or (self.le is not None and not v <= self.le)
        )
        if bad:
            raise ValueError(f"{fn}: {name} must be {self.range_text()}; got {v}")
        return keep if keep is not None else v


def _int_tensor(t: Tensor) -> bool:
    return t.dtype in FAMILIES["int"]


class Bool(Domain):
    """``True`` or ``False`` (a numpy bool too); ``0``, ``1`` and strings are refused."""

    kind = "bool"

    def check(self, value, fn, name, dims):
        return as_bool(value, name, fn)


class Str(Domain):
    """A string; ``nonempty`` refuses ``""``; ``what`` says what the string names in the
    messages (``"a slider's name (str)"``)."""

    kind = "str"

    def __init__(self, *, nonempty: bool = False, what: str = "", **kw) -> None:
        super().__init__(**kw)
        self.nonempty = nonempty
        self.what = what or ("a non-empty string (str)" if nonempty else "")

    def check(self, value, fn, name, dims):
        return as_str(value, name, fn, nonempty=self.nonempty, what=self.what)


class Choice(Domain):
    """One of a set of names (exact spelling)."""

    kind = "choice"

    def __init__(self, *names: str, or_callable: bool = False, **kw) -> None:
        super().__init__(**kw)
        self.names = tuple(names)
        self.or_callable = or_callable

    def check(self, value, fn, name, dims):
        what = f"one of {list(self.names)}" + (" or a callable" if self.or_callable else "")
        if self.or_callable and callable(value) and not isinstance(value, str):
            return value
        if not isinstance(value, str):
            raise TypeError(f"{fn}: {name} must be {what}; got {describe(value)}")
        if value not in self.names:
            raise ValueError(f"{fn}: {name} must be {what}; got {value!r}")
        return value


class StrList(Domain):
    """A sequence of strings, returned as a tuple (a bare ``str`` is refused); ``what`` says
    what the list is in the messages (default ``"a list of strings"``)."""

    kind = "strlist"

    def __init__(self, *, nonempty: bool = False, what: str = "", **kw) -> None:
        super().__init__(**kw)
        self.nonempty = nonempty
        self.what = what

    def check(self, value, fn, name, dims):
        kw = {"what": self.what} if self.what else {}
        return as_str_list(value, name, fn, nonempty=self.nonempty, **kw)


class Pair(Domain):
    """Two finite numbers ``(lo, hi)`` with ``lo < hi``, returned as a tuple of floats."""

    kind = "pair"

    def check(self, value, fn, name, dims):
        return as_pair(value, name, fn)


class Seed(Domain):
    """An int that :meth:`torch.Generator.manual_seed` takes."""

    kind = "seed"

    def check(self, value, fn, name, dims):
        return as_seed(value, name, fn)


class Generator(Domain):
    """A :class:`torch.Generator` (never the global one)."""

    kind = "generator"

    def check(self, value, fn, name, dims):
        return check_generator(value, name, fn)


class Instance(Domain):
    """An instance of one of ``classes`` (``what`` names it in messages)."""

    kind = "instance"

    def __init__(self, *classes: type, what: str = "", **kw) -> None:
        super().__init__(**kw)
        self.classes = classes
        self.what = what or " or ".join(c.__name__ for c in classes)

    def check(self, value, fn, name, dims):
        if not isinstance(value, self.classes):
            raise TypeError(f"{fn}: {name} must be {self.what}; got {describe(value)}")
        return value


class Func(Domain):
    """A callable."""

    kind = "callable"

    def check(self, value, fn, name, dims):
        if not callable(value):
            raise TypeError(f"{fn}: {name} must be a callable; got {describe(value)}")
        return value


class Anything(Domain):
    """No constraint; ``reason`` records why (it counts as a declaration)."""

    kind = "anything"

    def __init__(self, reason: str, **kw) -> None:
        super().__init__(**kw)
        self.reason = reason

    def check(self, value, fn, name, dims):
        return value


class Checked(Domain):
    """A value checked by a function ``check(value, name, fn)`` that raises naming ``fn`` and
    ``name`` and returns the value to use: a domain a helper already states, with its own
    messages (chapter 7's dates and texts, a checker's learner function)."""

    kind = "checked"

    def __init__(self, check: Callable, **kw) -> None:
        super().__init__(**kw)
        self.by = check

    def check(self, value, fn, name, dims):
        return self.by(value, name, fn)


class Seq(Domain):
    """A list or tuple (not a string, not a mapping) whose items are each in ``item``
    (checked as ``name[i]``), of ``min_len`` items or more (and ``max_len`` at most); returned
    as a list of the checked items."""

    kind = "seq"

    def __init__(
        self,
        item: Domain,
        *,
        min_len: int = 0,
        max_len: int | None = None,
        what: str = "a list",
        **kw,
    ) -> None:
        super().__init__(**kw)
        self.item, self.min_len, self.max_len, self.what = item, min_len, max_len, what

    def check(self, value, fn, name, dims):
        what, lo, hi = self.what, self.min_len, self.max_len
        items = as_items(value, name, fn, what=what, min_len=lo, max_len=hi)
        return [self.item(v, fn, f"{name}[{i}]", dims) for i, v in enumerate(items)]


class Tup(Domain):
    """A fixed-length list or tuple whose i-th item is in ``items[i]``; returned as a tuple.
    ``what`` says what the tuple is in the messages (``"(lines panel, series)"``)."""

    kind = "tuple"

    def __init__(self, *items: Domain, what: str = "", **kw) -> None:
        super().__init__(**kw)
        self.items = items
        self.what = what or f"a tuple of {len(items)} items"

    def check(self, value, fn, name, dims):
        items = as_items(value, name, fn, what=self.what, n=len(self.items))
        return tuple(
            d(v, fn, f"{name}[{i}]", dims) for i, (d, v) in enumerate(zip(self.items, items))
        )


class Dict(Domain):
    """A mapping with string keys; ``required`` keys must be there, and every value is in
    ``value`` (checked as ``name[key]``). Returned as a dict of the checked values."""

    kind = "dict"

    def __init__(self, value: Domain, *, required: Sequence[str] = (), **kw) -> None:
        super().__init__(**kw)
        self.value, self.required = value, tuple(required)

    def check(self, value, fn, name, dims):
        if not isinstance(value, Mapping):
            raise TypeError(f"{fn}: {name} must be a dict; got {describe(value)}")
        missing = [k for k in self.required if k not in value]
        if missing:
            raise ValueError(
                f"{fn}: {name} must have the keys {list(self.required)}; missing {missing} "
                f"(got {sorted(map(str, value))})"
            )
        return {k: self.value(v, fn, f"{name}[{k!r}]", dims) for k, v in value.items()}


# ------------------------------------------------------------------------------ declare


def declare(
    _name: str | None = None,
    *,
    differentiable: Sequence[str] = (),
    error: type[Exception] | None = None,
    named_by: str | None = None,
    **domains: Domain,
) -> Callable:
    """Declare the domains of a function's parameters; the returned wrapper checks every
    call (positional or keyword) before the body runs, in the order of the signature, and
    passes the checked values on (numbers as plain Python numbers). On a class (a dataclass
    too), the domains are those of its ``__init__``, which is wrapped in place.

    Args:
        _name: the name messages use (default: the function's; for a method, its class's:
            ``DotProductAttention: ...``).
        differentiable: the tensor arguments the function is differentiable in (the
            harness checks their gradients are finite, at ties too).
        error: the exception class a refusal is raised as (its message unchanged), for a
            family whose every refusal has one type (the widget toolkit's ExplorerError, a
            ValueError); default: TypeError or ValueError as the domain raises it.
        named_by: a parameter whose value, when it is a string, follows the name in every
            message: ``declare(named_by="name")`` on a widget record gives
            ``Slider 'temperature': label must be ...``, naming which of a page's controls.
        **domains: ``parameter=Domain`` for each parameter (``self`` excluded). Only
            parameters the signature has may be named, unless it takes ``**kwargs``.

    A declared parameter's default is not checked (it is the author's, and valid). The
    wrapper's ``__domains__``, ``__declared_name__`` and ``__differentiable__`` are what the
    contract harness reads.
    """

    def wrap(fn: Callable) -> Callable:
        if isinstance(fn, type):  # a class: its __init__ (or its own __new__) is what is called
            if "__new__" in vars(fn) and "__init__" not in vars(fn):
                fn.__new__ = staticmethod(wrap(fn.__new__))
            else:
                fn.__init__ = wrap(fn.__init__)
            return fn
        sig = inspect.signature(fn)
        params = list(sig.parameters.values())
        takes_kwargs = any(p.kind is p.VAR_KEYWORD for p in params)
        unknown = [n for n in domains if n not in sig.parameters]
        if unknown and not takes_kwargs:
            raise TypeError(f"declare: {fn.__qualname__} has no parameter(s) {unknown}")
        if named_by is not None and named_by not in sig.parameters:
            raise TypeError(f"declare: {fn.__qualname__} has no parameter {named_by!r} (named_by)")
        for n, d in domains.items():
            if not isinstance(d, Domain):
                raise TypeError(f"declare: {fn.__qualname__}'s {n} must be a Domain; got {d!r}")
        if _name is not None:
            display = _name
        elif fn.__name__ in ("__init__", "forward", "__call__") or "." in fn.__qualname__:
            display = fn.__qualname__.split(".")[-2]
        else:
            display = fn.__name__
        positional = [
            p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        order = {n: i for i, n in enumerate(sig.parameters)}
        pos_of = {n: i for i, n in enumerate(positional)}
        # (name, domain, position or a large number) in signature order: a later argument's
        # named dimensions are compared with those an earlier one set
        plan = tuple(
            (n, domains[n], pos_of.get(n, 1 << 30))
            for n in sorted(
                domains,
                key=lambda n: (domains[n].checked_late, order.get(n, len(order))),
            )
        )

        # a method names the class of the object it was called on (a subclass's own name)
        method = _name is None and bool(positional) and positional[0] == "self"

        @functools.wraps(fn)
        def checked(*args, **kwargs):
            dims: dict = {}
            n_args = len(args)
            if n_args:
                args = list(args)
            where = type(args[0]).__name__ if method and n_args else display
            if named_by is not None:
                i = pos_of.get(named_by, 1 << 30)
                label = args[i] if i < n_args else kwargs.get(named_by)
                if isinstance(label, str):
                    where = f"{where} {label!r}"
            try:
                for name, dom, i in plan:
                    if i < n_args:
                        args[i] = dom(args[i], where, name, dims)
                    elif name in kwargs:
                        kwargs[name] = dom(kwargs[name], where, name, dims)
            except (TypeError, ValueError) as exc:
                if error is None or isinstance(exc, error):
                    raise
                raise error(str(exc)) from None
            return fn(*args, **kwargs)

        checked.__domains__ = dict(domains)
        checked.__declared_name__ = display
        checked.__differentiable__ = tuple(differentiable)
        return checked

    return wrap


def declared(obj: Any) -> tuple[str, dict[str, Domain], tuple[str, ...]] | None:
    """``(name used in messages, {parameter: Domain}, differentiable)`` of a declared
    function, or of a class whose ``__init__`` is declared; ``None`` if not declared."""
    target = obj
    if isinstance(obj, type):
        target = obj.__new__ if hasattr(obj.__new__, "__domains__") else obj.__init__
    doms = getattr(target, "__domains__", None)
    if doms is None:
        return None
    return target.__declared_name__, doms, target.__differentiable__
