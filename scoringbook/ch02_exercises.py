"""Chapter 2's checker: :func:`check_kernel`, is this function the named kernel K(u)?

``KERNEL_FORMULAS`` are the formulas its messages quote.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import Tensor

from attnlib.domains import Str, declare, fmt_shape
from scoringbook._checking import (
    ANSWER,
    CheckResult,
    _as_answer,
    _constant_ratio,
    _exc,
    _fail,
    _first,
    _num,
    _pair,
    _pass,
    _require_callable,
    checker,
)

__all__ = [
    "check_kernel",
    "KERNEL_FORMULAS",
]


#: The kernels as formulas, quoted in the messages of :func:`check_kernel`.
KERNEL_FORMULAS = {
    "gaussian": "K(u) = exp(−u²/2)/√(2π)",
    "boxcar": "K(u) = ½ for |u| ≤ 1, else 0",
    "constant": "K(u) = 1",
    "epanechnikov": "K(u) = ¾(1 − u²) for |u| ≤ 1, else 0",
    "triangular": "K(u) = 1 − |u| for |u| ≤ 1, else 0",
}


def _kernel_grid() -> Tensor:
    """u in [-3, 3] in steps of 0.01 (±1 and ±0.5 exactly), plus points just off ±1."""
    grid = torch.arange(-300, 301, dtype=torch.float64) / 100  # (601,)
    near = torch.tensor([-1 - 1e-9, -1 + 1e-9, 1 - 1e-9, 1 + 1e-9], dtype=torch.float64)  # (4,)
    return torch.sort(torch.cat([grid, near])).values  # (605,)


def _check_kernel_2d(
    fn: Callable, name: str, u: Tensor, want: Tensor, formula: str
) -> CheckResult:
    """The second call of :func:`check_kernel`: the same points as a 2-D ``u``."""
    u2 = u.reshape(5, 121)  # (5, 121): 605 points in 5 rows
    try:
        out = fn(u2.clone())
    except Exception as err:
        return _fail(
            f"your kernel is right on a 1-D u, but calling it on a 2-D u of shape "
            f"{fmt_shape(u2.shape)} raised {_exc(err)}; K must work elementwise on a tensor "
            f"of any shape (use torch functions on the whole tensor, not a loop over its "
            f"entries)"
        )
    got = _as_answer(out)
    if isinstance(got, str) or tuple(got.shape) != tuple(u2.shape):
        what = got if isinstance(got, str) else f"shape {fmt_shape(got.shape)}"
        return _fail(
            f"your kernel is right on a 1-D u, but for a 2-D u of shape {fmt_shape(u2.shape)} "
            f"it returned {what}; K must keep u's shape (one value per entry, any shape)"
        )
    got = got.detach().to(torch.float64)
    if not torch.allclose(got, want.reshape(5, 121), rtol=1e-5, atol=1e-7, equal_nan=False):
        return _fail(
            f"your kernel is right on a 1-D u, but on the same points as a 2-D u of shape "
            f"{fmt_shape(u2.shape)} its values differ; K must work elementwise, whatever "
            f"the shape ({formula})"
        )
    return _pass(
        f"your {name} kernel matches attnlib.kernels.{name} at all {u.numel()} points "
        f"u in [-3, 3], window edges included, as a 1-D and as a 2-D tensor ({formula})"
    )


@declare(fn=ANSWER, name=Str())  # the kernel names: in the body (a spelling hint)
@checker
def check_kernel(fn: Callable, name: str) -> CheckResult:
    r"""Check a learner's kernel ``K(u)`` against ``attnlib.kernels.KERNELS[name]``.

    The learner's function is called on a float64 tensor ``u`` of shape ``(605,)``:
    ``-3, -2.99, ..., 3`` (so ``±1`` and ``±0.5`` exactly) plus points ``1e-9`` inside and
    outside the window edges ``±1``, then, if right, on the same points as a 2-D tensor of
    shape ``(5, 121)`` (the exercise asks for any shape: a loop over entries, which breaks on
    a 2-D ``u``, is refused). The kernels (``u = (query − key) / bandwidth``):

    - gaussian: ``exp(−u²/2)/√(2π)``; boxcar: ``½`` on ``|u| ≤ 1``; constant: ``1``;
    - epanechnikov: ``¾(1 − u²)`` on ``|u| ≤ 1``; triangular: ``1 − |u|`` on ``|u| ≤ 1``.

    Diagnosed slips: the triangular kernel written for the Epanechnikov one (as in d2l,
    issue 2440), a missing normalising constant (a constant factor; it cancels in the
    Nadaraya-Watson weights but ``K(u)`` differs), a window edge excluded (``<`` for
    ``≤``), a kernel not set to 0 outside its window, and NaN values.

    Reference::

        u = torch.arange(-300, 301, dtype=torch.float64) / 100
        torch.allclose(fn(u), attnlib.kernels.KERNELS[name](u))

    Args:
        fn: the learner's ``K(u)``, elementwise on a tensor ``u`` of any shape.
        name: one of ``"gaussian"``, ``"boxcar"``, ``"constant"``, ``"epanechnikov"``,
            ``"triangular"``.

    Returns:
        :class:`CheckResult`. Raises TypeError if ``fn`` is not callable, ValueError for an
        unknown ``name``.

    Example::

        >>> triangular = lambda u: torch.clamp(1 - u.abs(), min=0)
        >>> check_kernel(triangular, "epanechnikov")  # doctest: +ELLIPSIS
        Not yet: your "epanechnikov" kernel is the triangular kernel 1 − |u| ...
        >>> bool(check_kernel(lambda u: 0.75 * torch.clamp(1 - u ** 2, min=0), "epanechnikov"))
        True
    """
    _require_callable(fn, "check_kernel")
    from attnlib.kernels import KERNELS

    if not isinstance(name, str) or name not in KERNELS:
        hint = ""
        if name in ("epanechikov", "epanechikov_kernel"):
            hint = (
                " (the kernel's name is spelt epanechnikov; d2l's 'epanechikov' is the "
                "triangular one)"
            )
        raise ValueError(
            f"check_kernel: name must be one of {sorted(KERNELS)}; got {name!r}{hint}"
        )
    formula = KERNEL_FORMULAS.get(name, f"attnlib.kernels.{name}")
    u = _kernel_grid()
    want = KERNELS[name](u)
    u_in = u.clone()
    try:
        out = fn(u_in)
    except Exception as err:
        return _fail(
            f"calling your kernel on a float64 tensor u of shape {fmt_shape(u.shape)} raised "
            f"{_exc(err)}; K must work elementwise on a tensor (use torch functions, "
            f"not math or if/else on single numbers)"
        )
    if not torch.equal(u, u_in):
        return _fail("your kernel wrote into its input u; compute K(u) into a new tensor")
    got = _as_answer(out)
    if isinstance(got, str):
        return _fail(
            f"your kernel returned {got}; expected a tensor of the shape of u {fmt_shape(u.shape)}"
        )
    if tuple(got.shape) != tuple(u.shape):
        return _fail(
            f"your kernel returned shape {fmt_shape(got.shape)} for u of shape "
            f"{fmt_shape(u.shape)}; K must work elementwise (one value per u)"
        )
    dtype = got.dtype
    got = got.detach().to(torch.float64)
    if not torch.isfinite(got).all():
        (k,) = _first(~torch.isfinite(got))
        return _fail(
            f"your K(u) is {_num(got[k])} at u = {_num(u[k])}; expected "
            f"{_num(want[k], 4)} ({formula})"
        )
    close = torch.isclose(got, want, rtol=1e-5, atol=1e-7)
    if not close.all() and dtype in (torch.float16, torch.bfloat16):
        eps = torch.finfo(dtype).eps
        if torch.allclose(got, want, rtol=2 * eps, atol=1e-7):  # right, up to rounding
            return _fail(
                f"your kernel returned dtype {dtype} for a float64 u: its values are right up "
                f"to {dtype}'s rounding ({eps:.1g}), but K(u) must keep u's dtype (compute in "
                f"u's dtype; do not convert with .half() or .to(...))"
            )
    if close.all():
        return _check_kernel_2d(fn, name, u, want, formula)

    if name == "epanechnikov" and torch.allclose(
        got, KERNELS["triangular"](u), rtol=1e-5, atol=1e-7
    ):
        return _fail(
            'your "epanechnikov" kernel is the triangular kernel 1 − |u| on |u| ≤ 1 '
            "(the mix-up in d2l's code, issue 2440); the Epanechnikov kernel is "
            "¾(1 − u²) on |u| ≤ 1, else 0"
        )
    c = _constant_ratio(got, want)
    if c is not None:
        known = {
            ("gaussian", math.sqrt(2 * math.pi)): "you left out the normalising factor 1/√(2π)",
            ("epanechnikov", 4 / 3): "you left out the factor ¾",
            (
                "boxcar",
                2.0,
            ): "you left out the factor ½ (the boxcar is ½ on |u| ≤ 1, so it integrates to 1)",
        }
        reason = next(
            (
                text
                for (k, v), text in known.items()
                if k == name and math.isclose(c, v, rel_tol=1e-4)
            ),
            "",
        )
        return _fail(
            f"your K(u) is {c:.4g} times attnlib's {name} kernel everywhere"
            + (f": {reason}" if reason else "")
            + f" ({formula}). A constant factor cancels in the Nadaraya-Watson weights, "
            f"but K(u) itself should match"
        )
    bad = ~close
    n_bad = int(bad.sum())
    (k,) = _first(bad)
    got_s, want_s = _pair(got[k], want[k])
    edge = (u.abs() - 1).abs() <= 1e-8
    if bool((bad <= edge).all()):
        outside = bad & (u.abs() > 1) & (got != 0)
        if bool(outside.any()):  # the window reaches past |u| = 1 (e.g. |u| <= 1.0001)
            (k,) = _first(outside)
            return _fail(
                f"your K(u) differs only just outside the window: at u = "
                f"{_num(u[k], 9)} (|u| > 1) you give {_num(got[k])}, expected 0. Your "
                f"window is too wide: the kernel is 0 for every |u| > 1, so test "
                f"|u| <= 1 exactly, with no tolerance ({formula})"
            )
        return _fail(
            f"your K(u) differs only at the window edges |u| = 1: at u = {_num(u[k], 9)} "
            f"you give {got_s}, expected {want_s}. The window includes its edges: use "
            f"|u| <= 1, not < 1 ({formula})"
        )
    if float(want[k]) == 0.0 and abs(float(u[k])) > 1:
        return _fail(
            f"at u = {_num(u[k])} your K(u) is {got_s}, expected 0: outside the window "
            f"|u| ≤ 1 the kernel is 0 (set it to zero there, e.g. with torch.clamp or "
            f"torch.where) ({formula}); {n_bad} of {u.numel()} points differ"
        )
    return _fail(
        f"your K(u) differs from attnlib's {name} kernel at {n_bad} of {u.numel()} points, "
        f"first at u = {_num(u[k])}: you give {got_s}, expected {want_s} ({formula})"
    )
