"""The harness's reading of the declarations (:mod:`attnlib.domains`): the values just outside
each declared domain, and the gradient check of differentiable callables.

``edge_values(domains, name, value, siblings)`` gives ``[(label, bad value, expectation)]``
for one argument, from its declared domain and its valid example value; expectation
"refuse" (a TypeError/ValueError naming the function and the argument) or "accept" (a
finite result). ``siblings`` holds the other arguments' domains, for the named dimensions
two arguments share."""

from __future__ import annotations

import math

import numpy as np
import torch

from attnlib import domains as D
from attnlib import tensor_domains as T

#: integer dtypes narrower than int64, each tried where an integer tensor is declared
NARROW_INTS = (torch.int8, torch.int16, torch.int32, torch.uint8)


def _below(x: float) -> float:
    return math.nextafter(float(x), -math.inf)


def _above(x: float) -> float:
    return math.nextafter(float(x), math.inf)


def shared_dims(domains: dict) -> dict[str, list[str]]:
    """{dimension name: [arguments declaring it]} for names declared by two arguments or
    more (tensor dimensions, and ints declared as a dimension's size)."""
    where: dict[str, list[str]] = {}
    for arg, dom in domains.items():
        dims = ()
        if isinstance(dom, T.FloatTensor) and dom.dims != ("...",):
            dims = dom.dims
        elif isinstance(dom, D.Int) and dom.dim:
            dims = (dom.dim,)
        for dim in dims:
            where.setdefault(dim, []).append(arg)
    return {d: args for d, args in where.items() if len(args) > 1}


def edge_values(domains: dict, name: str, value, fn_name: str) -> list[tuple[str, object, str]]:
    dom = domains[name]
    out: list[tuple[str, object, str]] = []
    if value is None:
        return out
    if isinstance(dom, D.Int) and not isinstance(value, bool):
        if dom.ge is not None:
            out.append((f"just below {dom.ge} (declared >= {dom.ge})", dom.ge - 1, "refuse"))
        if dom.le is not None:
            out.append((f"just above {dom.le} (declared <= {dom.le})", dom.le + 1, "refuse"))
        out.append(("bool False", False, "refuse"))
        if isinstance(value, int):
            out.append(("numpy int32 scalar", np.int32(value), "accept"))
            out.append(("0-d int32 tensor", torch.tensor(value, dtype=torch.int32), "accept"))
            out.append(("whole float", float(value), "refuse"))
    elif isinstance(dom, D.Real) and not isinstance(value, bool):
        for bound, label, bad in (
            (dom.gt, "at the open lower bound", lambda b: b),
            (dom.ge, "just below the lower bound", _below),
            (dom.lt, "at the open upper bound", lambda b: b),
            (dom.le, "just above the upper bound", _above),
        ):
            if bound is not None:
                out.append((f"{label} {bound:g}", bad(bound), "refuse"))
        out += [("nan", math.nan, "refuse"), ("+inf", math.inf, "refuse")]
        out.append(("bool True", True, "refuse"))
        if isinstance(value, (int, float)):
            out.append(("numpy float32 scalar", np.float32(value), "accept"))
            out.append(("0-d float32 tensor", torch.tensor(float(value)), "accept"))
        if not dom.tensor:
            out.append(("complex", complex(value, 1.0), "refuse"))
    elif isinstance(dom, D.Choice):
        out.append(("a name outside the set", "no-such-name", "refuse"))
        if isinstance(value, str) and value.upper() != value and value.upper() not in dom.names:
            out.append(("the name in capitals", value.upper(), "refuse"))
        out.append(("bytes of a name", dom.names[0].encode(), "refuse"))
    elif isinstance(dom, D.Bool):
        out += [("int 1", 1, "refuse"), ("str 'True'", "True", "refuse")]
    elif isinstance(dom, D.StrList):
        out.append(("a bare string", "abc", "refuse"))
    elif isinstance(dom, T.FloatTensor) and isinstance(value, torch.Tensor):
        out.append(("int64 tensor (another dtype family)", value.to(torch.int64), "refuse"))
        out.append(("bool tensor (another dtype family)", value != 0, "refuse"))
        out.append(("complex tensor", value.to(torch.complex64), "refuse"))
        if dom.finite and value.numel():
            v = value.clone()
            v.view(-1)[0] = math.nan
            out.append(("nan entry (declared finite)", v, "refuse"))
        shared = shared_dims(domains)
        for axis, dim in enumerate(dom.dims):
            if dim in shared and dim != "...":
                grown = torch.cat([value, value.narrow(axis, 0, 1)], dim=axis)
                out.append((f"{dim} disagrees with {'/'.join(shared[dim])}", grown, "refuse"))
        if dom.same_dtype_as and value.dtype != torch.float16:
            out.append((f"another float dtype than {dom.same_dtype_as}", value.half(), "refuse"))
    elif isinstance(dom, T.Lengths) and isinstance(value, torch.Tensor):
        for dt in NARROW_INTS:
            out.append((f"{dt} lengths", value.to(dt), "accept"))
        big = value.clone()
        big.view(-1)[0] = 10**6
        out.append(("a length past n_keys", big, "refuse"))
    return out


# ------------------------------------------------------------------------------ gradients


def tensors_of(args: tuple, kwargs: dict, names) -> dict:
    return {n: v for n, v in {**dict(enumerate(args)), **kwargs}.items() if n in names}


def gradient_problem(fn, args: tuple, kwargs: dict, differentiable, tie: bool) -> str | None:
    """Call ``fn`` with the differentiable tensors as float64 leaves (with ``tie``, keys equal
    to queries where both are declared and have one shape), backpropagate the sum of every
    floating output, and return what is wrong (a gradient missing or not finite), or None."""
    import inspect

    bound = inspect.signature(fn).bind(*args, **kwargs)
    leaves = {}
    for n in differentiable:
        v = bound.arguments.get(n)
        if isinstance(v, torch.Tensor) and v.is_floating_point():
            leaves[n] = v.detach().double().requires_grad_(True)
    if tie and "queries" in leaves and "keys" in leaves:
        q, k = leaves["queries"], leaves["keys"]
        if q.shape == k.shape:
            leaves["keys"] = q.detach().clone().requires_grad_(True)
        elif q.shape[0] == k.shape[0] and q.shape[-1] == k.shape[-1]:
            # every key equal to the first query: each query ties with one row of ties
            k2 = q.detach()[:, :1].expand_as(k).clone()
            leaves["keys"] = k2.requires_grad_(True)
        else:
            return None
    for n, v in bound.arguments.items():
        if isinstance(v, torch.Tensor) and v.is_floating_point() and n not in leaves:
            bound.arguments[n] = v.double()
    for n, leaf in leaves.items():
        bound.arguments[n] = leaf
    out = fn(*bound.args, **bound.kwargs)
    outs = out if isinstance(out, tuple) else (out,)
    total = sum(o.sum() for o in outs if isinstance(o, torch.Tensor) and o.is_floating_point())
    if not isinstance(total, torch.Tensor) or not total.requires_grad:
        return "no output depends on the differentiable arguments"
    if not torch.isfinite(total):
        return f"the output is not finite ({float(total)})"
    total.backward()
    for n, leaf in leaves.items():
        if leaf.grad is None:
            return f"no gradient reaches {n}"
        if not torch.isfinite(leaf.grad).all():
            where = " at a tie (keys = queries)" if tie else ""
            return f"the gradient of {n} holds NaN/inf{where}"
    return None
