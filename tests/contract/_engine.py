"""The contract harness's machinery: which bad values an argument's example value implies, how
one call is judged, and what counts as a finite result or an unchanged input.

Nothing here knows a module of attnlib: the examples (``examples.py``) say what to call."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import math
import random
import signal
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import torch
from torch.nn.parameter import is_lazy

#: a call that runs longer than this, or than SLOWER times the valid example, is a defect
#: ("hangs"): a huge count must be refused fast (the ratio keeps a busy machine from failing it)
TIMEOUT_S = 3.0
SLOWER = 20
HUGE_INT = 10**15
HUGE_FLOAT = 1e300
#: text that reaches a page: control characters, and markup that must stay text
CONTROL = "a\x00b\x07\u202e"
MARKUP = '<script>alert(1)</script><b>&amp;"x"</b>'


@dataclasses.dataclass
class Example:
    """One valid call of a public callable, and how to attack it.

    call:      ``() -> (args, kwargs)``, built afresh for every call (inputs are compared
               after the call, so they must not be shared between calls).
    check:     optional ``result -> None``: asserts the valid call's result is right.
    decisions: ``{(argument, label): (outcome, reason)}``; outcome "refuse" or "accept".
               A recorded decision overrides the generic rule for that perturbation (and is
               itself checked: a decided refusal must still name the argument).
    skip_args: arguments not perturbed, ``{argument: reason}`` (e.g. a trained model).
    text_args: string arguments whose text reaches a page (get control characters, markup).
    tie:       a scoring function's call at a tie (a query equal to a key), for its gradient.
    """

    call: Callable[[], tuple[tuple, dict]]
    check: Callable[[Any], None] | None = None
    decisions: dict = dataclasses.field(default_factory=dict)
    skip_args: dict = dataclasses.field(default_factory=dict)
    text_args: tuple = ()
    #: why this callable may draw from torch's global generator (a reason), or "" (it may not)
    torch_rng: str = ""
    #: arguments the callable changes by design, {argument: reason} (a model it trains)
    mutates: dict = dataclasses.field(default_factory=dict)
    #: why a NaN/inf entry in a tensor argument may come out as NaN/inf (a reason), or ""
    nonfinite_in_out: str = ""
    #: a scoring function's call where some query equals a key, ``() -> (args, kwargs)``: the
    #: gradient of the scores with respect to every floating tensor argument must be finite
    #: there (test_contract.py requires one for every ``attnlib.scoring.*_scores``)
    tie: Callable[[], tuple[tuple, dict]] | None = None


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def bad_values(value: Any, default: Any) -> list[tuple[str, Any, str]]:
    """``[(label, bad value, expectation)]`` for an argument whose example value is ``value``.

    expectation: "either" (refuse with a named TypeError/ValueError, or accept with a finite
    result), or "accept" (numpy scalars and 0-d tensors where a number is)."""
    out: list[tuple[str, Any, str]] = []
    if default is not None:
        out.append(("None", None, "either"))
    if isinstance(value, bool):
        out += [("str 'False'", "False", "either"), ("int 2", 2, "either")]
    elif _is_number(value):
        out += [("str", str(value), "either"), ("bool True", True, "either")]
        out += [("zero", type(value)(0), "either"), ("negative", -abs(value) - 1, "either")]
        if isinstance(value, int):
            out += [("huge", HUGE_INT, "either"), ("float", value + 0.5, "either")]
            out += [("numpy scalar", np.int64(value), "accept")]
            out += [("0-d tensor", torch.tensor(value), "accept")]
        else:
            out += [("nan", math.nan, "either"), ("+inf", math.inf, "either")]
            out += [("-inf", -math.inf, "either"), ("huge", HUGE_FLOAT, "either")]
            out += [("numpy scalar", np.float64(value), "accept")]
            out += [("0-d tensor", torch.tensor(value, dtype=torch.float64), "accept")]
    elif isinstance(value, str):
        out += [("int", 3, "either"), ("empty", "", "either"), ("bytes", value.encode(), "either")]
    elif isinstance(value, torch.Tensor):
        out += [("str", "abc", "either"), ("list", value.tolist(), "either")]
        if value.dim() > 0:
            out.append(("empty", value[:0], "either"))
            extra = torch.cat([value, value[..., :1]], dim=-1)  # one more along the last axis
            out.append(("longer last axis", extra, "either"))
        if value.is_floating_point() and value.numel():
            for label, x in (("nan", math.nan), ("+inf", math.inf), ("-inf", -math.inf)):
                v = value.clone()
                v.view(-1)[0] = x
                out.append((label, v, "either"))
        elif value.numel():
            v = value.clone()
            v.view(-1)[0] = -1
            out.append(("negative entry", v, "either"))
            out.append(("float dtype", value.double(), "either"))
    elif isinstance(value, np.ndarray):
        out += [("str", "abc", "either")]
        if value.ndim > 0:
            out.append(("empty", value[:0], "either"))
        if value.dtype.kind == "f" and value.size:
            v = value.copy()
            v.flat[0] = np.nan
            out.append(("nan", v, "either"))
    elif isinstance(value, (list, tuple)):
        out += [("str", "abc", "either"), ("empty", type(value)(), "either")]
        if len(value) > 1:
            out.append(("one shorter", type(value)(value[:-1]), "either"))
        if value and _is_number(value[0]):
            out.append(("nan entry", type(value)([math.nan, *value[1:]]), "either"))
            out.append(("bool entry", type(value)([True, *value[1:]]), "either"))
        if value and not isinstance(value[0], (list, tuple, str)):
            out.append(("None entry", type(value)([None, *value[1:]]), "either"))
    elif isinstance(value, Mapping):
        out += [("str", "abc", "either"), ("empty", {}, "either"), ("list", list(value), "either")]
    elif callable(value):
        out += [("str", "abc", "either"), ("int", 3, "either")]
    else:  # an object (a model, a log, a declaration): the wrong kind of object
        out += [("str", "abc", "either"), ("int", 3, "either")]
    return out


def text_values() -> list[tuple[str, Any, str]]:
    return [("control characters", CONTROL, "either"), ("markup", MARKUP, "either")]


# --------------------------------------------------------------------------- judging a call


class _Timeout(BaseException):
    pass


def _alarm(_signum, _frame):
    raise _Timeout


def _rng_states():
    return (torch.random.get_rng_state().clone(), np.random.get_state(), random.getstate())


def _rng_equal(a, b) -> bool:
    return (
        torch.equal(a[0], b[0])
        and a[1][0] == b[1][0]
        and np.array_equal(a[1][1], b[1][1])
        and a[1][2:] == b[1][2:]
        and a[2] == b[2]
    )


def nonfinite(x, depth: int = 0) -> str | None:
    """Where ``x`` holds a NaN or infinity (tensors, arrays, numbers, containers), or None."""
    if depth > 6:
        return None
    if isinstance(x, torch.Tensor):
        if is_lazy(x):  # a lazy layer's parameter, not sized yet: no values
            return None
        if (x.is_floating_point() or x.is_complex()) and not torch.isfinite(x).all():
            return "a tensor with NaN/inf"
    elif isinstance(x, np.ndarray):
        if x.dtype.kind in "fc" and not np.isfinite(x).all():
            return "an array with NaN/inf"
    elif isinstance(x, (float, np.floating)):
        if not math.isfinite(x):
            return f"the number {x}"
    elif isinstance(x, Mapping):
        for k, v in x.items():
            r = nonfinite(v, depth + 1)
            if r:
                return f"{r} at [{k!r}]"
    elif isinstance(x, (list, tuple)):
        for i, v in enumerate(x):
            r = nonfinite(v, depth + 1)
            if r:
                return f"{r} at [{i}]"
    elif isinstance(x, torch.nn.Module):
        for n, p in x.state_dict().items():
            r = nonfinite(p, depth + 1)
            if r:
                return f"{r} in {n}"
    elif dataclasses.is_dataclass(x) and not isinstance(x, type):
        for f in dataclasses.fields(x):
            r = nonfinite(getattr(x, f.name), depth + 1)
            if r:
                return f"{r} in .{f.name}"
    return None


def same(a, b, depth: int = 0) -> bool:
    """Equal values (NaN equal to NaN), for the check that a call left its inputs alone."""
    if depth > 8:
        return True
    if isinstance(a, torch.Tensor):
        if is_lazy(a) or is_lazy(b):
            return is_lazy(a) and is_lazy(b)
        return (
            isinstance(b, torch.Tensor)
            and a.shape == b.shape
            and a.dtype == b.dtype
            and torch.equal(torch.nan_to_num(a), torch.nan_to_num(b))
            and torch.equal(a.isnan(), b.isnan())
        )
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
    if isinstance(a, torch.nn.Module):
        sa, sb = a.state_dict(), b.state_dict()
        return sa.keys() == sb.keys() and all(same(sa[k], sb[k], depth + 1) for k in sa)
    if isinstance(a, Mapping):
        return (
            isinstance(b, Mapping)
            and a.keys() == b.keys()
            and all(same(a[k], b[k], depth + 1) for k in a)
        )
    if isinstance(a, (list, tuple)):
        return (
            type(a) is type(b)
            and len(a) == len(b)
            and all(same(x, y, depth + 1) for x, y in zip(a, b))
        )
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return all(
            same(getattr(a, f.name), getattr(b, f.name), depth + 1) for f in dataclasses.fields(a)
        )
    try:
        return bool(a == b) if type(a).__eq__ is not object.__eq__ else True
    except Exception:
        return True


def _copy(x):
    try:
        return copy.deepcopy(x)
    except Exception:
        return x


@dataclasses.dataclass
class Outcome:
    kind: str  # "accepted", "refused", or a defect: "wrong exception", "unnamed", ...
    detail: str = ""

    @property
    def defect(self) -> bool:
        return self.kind not in ("accepted", "refused")


def _without(fn, args: tuple, kwargs: dict, names) -> tuple:
    """(args, kwargs) as a dict of named arguments, without ``names``."""
    if not names:
        return args, kwargs
    b = bind(fn, args, kwargs)
    if b is None:
        return args, kwargs
    return {k: v for k, v in b.arguments.items() if k not in names}


def judge(
    fn,
    args: tuple,
    kwargs: dict,
    arg: str | None,
    *,
    check=None,
    torch_rng: bool = False,
    mutates=(),
    timeout: float = TIMEOUT_S,
    fname: str | None = None,
) -> Outcome:
    """Call ``fn(*args, **kwargs)`` and judge it against the contract, ``arg`` being the
    argument that was perturbed (None: the valid example itself, run without a time limit so
    that the modules it imports on first use are imported whole). ``torch_rng``: the callable
    may draw from torch's global generator (an ``nn.Module``'s initial parameters)."""
    before_inputs = _copy(_without(fn, args, kwargs, mutates))
    before_rng = _rng_states()
    timed = arg is not None
    if timed:
        old = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        try:
            result = fn(*args, **kwargs)
            if check is not None:
                check(result)
        finally:
            if timed:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, old)
    except _Timeout:
        return Outcome("hangs", f"ran over {timeout:.1f} s")
    except (TypeError, ValueError) as e:
        msg = str(e)
        if arg is not None and arg.lower() not in msg.lower():
            return Outcome("unnamed", f"{type(e).__name__}: {msg[:200]}")
        if arg is not None and fname and fname.lower() not in msg.lower():
            return Outcome("function unnamed", f"{type(e).__name__}: {msg[:200]}")
        outcome = Outcome("refused", f"{type(e).__name__}: {msg[:200]}")
    except AssertionError as e:
        if check is not None and arg is None:
            raise
        return Outcome("wrong exception", f"AssertionError: {str(e)[:200]}")
    except Exception as e:
        return Outcome("wrong exception", f"{type(e).__name__}: {str(e)[:200]}")
    else:
        bad = nonfinite(result)
        if bad:
            return Outcome("non-finite", f"accepted, returning {bad}")
        outcome = Outcome("accepted")
    after_rng = _rng_states()
    if torch_rng:
        after_rng = (before_rng[0], *after_rng[1:])
    if not _rng_equal(before_rng, after_rng):
        return Outcome("global rng", "a global random generator changed")
    now = _without(fn, args, kwargs, mutates)
    if before_inputs is not now and not same(before_inputs, now):
        return Outcome("mutated input", "an input changed")
    return outcome


def bind(fn, args: tuple, kwargs: dict) -> inspect.BoundArguments | None:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    try:
        return sig.bind(*args, **kwargs)
    except TypeError:
        return None


def function_name(fn) -> str:
    """The name a refusal must carry: the declared one, or an exempt callable's own name
    (_undeclared.exempt). A callable listed in _undeclared.py is held to naming the argument
    only, until it is declared."""
    from attnlib.domains import declared

    from ._undeclared import exempt

    d = declared(fn)
    if d:
        return d[0]
    name = f"{getattr(fn, '__module__', '')}.{getattr(fn, '__qualname__', '')}"
    return getattr(fn, "__name__", "") if exempt(name, fn) else ""


def perturbations(fn, example: Example):
    """Yield ``(argument, label, expectation, args, kwargs)`` for every one-argument change:
    the generic bad values of the example's type, then the declared domain's edges."""
    from attnlib.domains import declared

    from ._domains import edge_values

    args, kwargs = example.call()
    bound = bind(fn, args, kwargs)
    if bound is None:
        return
    decl = declared(fn)
    domains = decl[1] if decl else {}
    params = inspect.signature(fn).parameters
    for name, value in list(bound.arguments.items()):
        p = params[name]
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or name in example.skip_args:
            continue
        default = None if p.default is p.empty else p.default
        default = default if p.default is not p.empty else "<required>"
        bads = bad_values(value, default)
        if isinstance(value, str) and name in example.text_args:
            bads += text_values()
        if name in domains:
            bads += edge_values(domains, name, value, decl[0])
        for label, bad, expectation in bads:
            a, k = example.call()
            b = inspect.signature(fn).bind(*a, **k)
            b.arguments[name] = bad
            yield name, label, expectation, b.args, b.kwargs
