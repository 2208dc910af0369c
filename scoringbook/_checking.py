"""What the book's checkers share: :class:`CheckResult` and the helpers that word messages.

Each chapter's checker (``check_weights`` in chapter 1, ``check_kernel`` in chapter 2,
``check_masked_softmax`` in chapter 3, ``check_scores`` in chapter 4, ``check_alignment``
and ``check_attention_module`` in chapter 7, ``check_heads``, ``check_sinusoidal``,
``check_relative_offset`` and ``check_causal_masks`` in chapter 9, ``check_head_score`` in
chapter 10) compares a learner's answer with attnlib's
reference implementation on fixed, seeded inputs and returns a :class:`CheckResult`: truthy
if the answer is right, with a message that names the failing case, the position (batch,
query, key) and the value found versus the value expected, and, for the classic slips,
their likely cause (forgetting the :math:`1/\\sqrt d`, transposed scores, d2l's in-place
``-1e6`` fill, the triangular kernel written for the Epanechnikov one, ...).

A wrong answer never raises: even a function that crashes gets a ``Not yet:`` result quoting
the exception. Only input the checker cannot use at all raises: ``TypeError`` (e.g. not
callable, not numbers) or ``ValueError`` (an unknown kernel or scoring ``kind``).

Each checker that calls a learner's function calls it on two or three seeded inputs that
differ in every size (batch, queries, keys, feature sizes), so an answer that hard-codes a
size fails; the verdict names the case. Tolerances follow the answer's dtype
(:func:`tolerance`): the checkers pass float32 inputs (chapter 2's kernels float64), compare a
float32 or float64 answer at rtol 1e-4, atol 1e-5, and a float16 or bfloat16 answer at its
own precision, saying so (:func:`precision_note`), also when precision is or is not the cause
of a failure.

Inputs are drawn from a local :class:`torch.Generator`; the global random state is never
touched, so calling a checker does not change what a notebook's later cells draw. Every
checker is wrapped in :func:`checker`: it runs with gradients on (a notebook may have
switched them off with ``torch.no_grad()`` or ``torch.inference_mode()``) and on forked global
generators (torch's, NumPy's and Python's), so even a learner's code that draws random numbers
leaves the reader's generators as they were. ``KeyboardInterrupt`` and ``SystemExit`` are not
verdicts: they stop the cell.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import Tensor

from attnlib.domains import Func, isolated_global_rng

__all__ = [
    "CheckResult",
    "checker",
    "tolerance",
    "answers_close",
    "precision_note",
]

# what Markdown (MyST, Jupyter's renderer) would read as markup: emphasis, code, links, HTML,
# tables, headings, maths ($), entities (&), images (!), roles' braces
_MD_SPECIAL = "\\`*_[]<>|#$&!{}"


@dataclass(frozen=True, repr=False)
class CheckResult:
    """Outcome of a check: ``ok`` and a message for the learner.

    Truthy iff ``ok``. Its repr is ``"Correct: <message>"`` or ``"Not yet: <message>"``
    (words, not emoji: a colour emoji shows as an empty box where no emoji font is
    installed), so leaving a
    check as the last expression of a notebook cell shows the verdict.

    Example::

        >>> CheckResult(False, "row 1 of batch 0 sums to 0.70")
        Not yet: row 1 of batch 0 sums to 0.70
        >>> bool(CheckResult(True, "fine"))
        True
    """

    ok: bool
    message: str

    def __bool__(self) -> bool:
        return bool(self.ok)

    def __repr__(self) -> str:
        return f"{'Correct:' if self.ok else 'Not yet:'} {self.message}"

    __str__ = __repr__

    def _repr_markdown_(self) -> str:
        text = "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in self.message)
        text = text.replace("~~", "\\~\\~")  # strikethrough; a single ~ is plain text
        return f"{'**Correct:**' if self.ok else '**Not yet:**'} {text}"


def _pass(message: str) -> CheckResult:
    return CheckResult(True, message)


def _fail(message: str) -> CheckResult:
    return CheckResult(False, message)


def _num(v: float, decimals: int = 2) -> str:
    """A number for a message: 0.70, 0, 1, NaN, -inf, 3e-08."""
    v = float(v)
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v == 0:
        return "0"
    if v.is_integer() and abs(v) < 1e7:
        return str(int(v))
    if abs(v) < 10 ** (-decimals) or abs(v) >= 1e5:
        return f"{v:.{decimals}g}" if decimals > 1 else f"{v:.2g}"
    return f"{v:.{decimals}f}"


def _pair(got: float, expected: float) -> tuple[str, str]:
    """Format two numbers with just enough decimals that they print differently."""
    for decimals in range(2, 10):
        a, b = _num(got, decimals), _num(expected, decimals)
        if a != b:
            return a, b
    return repr(float(got)), repr(float(expected))


def _lens_text(valid_lens: Tensor | None) -> str:
    return "None" if valid_lens is None else str(valid_lens.tolist())


def _first(mask: Tensor) -> tuple[int, ...]:
    return tuple(int(i) for i in torch.nonzero(mask)[0])


def _exc(err: BaseException) -> str:
    text = str(err).strip().splitlines()[0] if str(err).strip() else ""
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


def _as_input_tensor(x: object, name: str, fn: str) -> Tensor:
    """The checker's own inputs (not an answer): a tensor, array or nested list of numbers."""
    if isinstance(x, Tensor):
        return x.detach()
    if isinstance(x, (str, bytes)) or x is None or callable(x):
        raise TypeError(
            f"{fn}: {name} must be a tensor or array of numbers; got {type(x).__name__}"
        )
    try:
        return torch.as_tensor(x)
    except (TypeError, ValueError, RuntimeError) as err:
        raise TypeError(
            f"{fn}: {name} must be a tensor or array of numbers; got {type(x).__name__} ({err})"
        ) from None


def _as_answer(x: object) -> Tensor | str:
    """A learner's returned value as a tensor, or a description of why it is not one."""
    if isinstance(x, Tensor) and (x.is_complex() or x.dtype == torch.bool):
        return (
            f"a tensor of dtype {x.dtype} (attention scores, weights and kernel values "
            f"are real numbers: return a real floating-point tensor)"
        )
    if isinstance(x, Tensor):
        return x
    if isinstance(x, tuple):
        return f"a tuple of {len(x)} items (return only the tensor, not e.g. (output, weights))"
    try:
        t = torch.as_tensor(x)
    except (TypeError, ValueError, RuntimeError):
        return f"an object of type {type(x).__name__}"
    if not (t.is_floating_point() or t.dtype in (torch.int32, torch.int64)):
        return f"an object of type {type(x).__name__} with dtype {t.dtype}"
    return t


def _require_callable(fn: object, checker: str, name: str = "fn") -> None:
    if not callable(fn):
        raise TypeError(
            f"{checker}: {name} must be a function (callable); got an object of type "
            f"{type(fn).__name__}. Pass the function itself, not its result"
        )


class _Answer(Func):
    """A learner's function, the argument a checker is given (the message says to pass the
    function, not its result)."""

    def check(self, value, fn, name, dims):
        _require_callable(value, fn, name)
        return value


#: the domain of every checker's learner function (attnlib.domains.declare)
ANSWER = _Answer()


def _constant_ratio(got: Tensor, want: Tensor) -> float | None:
    """c if got ≈ c · want everywhere (c ≠ 1), else None."""
    denom = float((want * want).sum())
    if denom == 0:
        return None
    c = float((got * want).sum()) / denom
    if c == 0 or not math.isfinite(c) or math.isclose(c, 1.0, rel_tol=1e-6):
        return None
    if torch.allclose(got, c * want, rtol=1e-5, atol=1e-8 * max(1.0, abs(c))):
        return c
    return None


def checker(fn: Callable[..., CheckResult]) -> Callable[..., CheckResult]:
    """Run a checker with gradients enabled (whatever the caller switched off) and on forked
    global generators (restored afterwards): see the module docs."""

    @functools.wraps(fn)
    def run(*args, **kwargs) -> CheckResult:
        with isolated_global_rng(), torch.inference_mode(False), torch.enable_grad():
            return fn(*args, **kwargs)

    return run


# ------------------------------------------------------------------ precision of an answer

#: (rtol, atol) an answer of each floating dtype is compared with: float32 is the book's
#: default; half-precision answers get the rounding their 8 or 11 significant bits imply.
_TOLERANCE = {
    torch.float64: (1e-4, 1e-5),
    torch.float32: (1e-4, 1e-5),
    torch.float16: (2e-3, 1e-3),
    torch.bfloat16: (1.6e-2, 1e-2),
}


def tolerance(dtype: torch.dtype) -> tuple[float, float]:
    """``(rtol, atol)`` for an answer of ``dtype``, compared with a float64 reference.

    The rule the exercises state: the checker passes float32 inputs and compares an answer at
    float32's precision (rtol 1e-4, atol 1e-5); a float64 answer (e.g. computed in double) is
    accepted at the same tolerance; a float16 or bfloat16 answer is compared at its own,
    coarser precision, and the verdict says so. Other dtypes: float32's.
    """
    return _TOLERANCE.get(dtype, _TOLERANCE[torch.float32])


def answers_close(got: Tensor, want: Tensor, dtype: torch.dtype) -> bool:
    """``got`` (float64) matches ``want`` (float64) at the precision of ``dtype``."""
    rtol, atol = tolerance(dtype)
    return got.shape == want.shape and torch.allclose(got, want, rtol=rtol, atol=atol)


def precision_note(
    dtype: torch.dtype, got: Tensor | None = None, want: Tensor | None = None
) -> str:
    """A clause for a verdict on a half-precision answer: that it was compared at its own
    precision, and, when it failed, whether rounding to that dtype explains the difference
    (it does if ``want`` rounded to ``dtype`` is as far from ``got``). Empty for float32/64."""
    if dtype not in (torch.float16, torch.bfloat16):
        return ""
    rtol, atol = tolerance(dtype)
    name = str(dtype).replace("torch.", "")
    text = f" (your answer is {name}: compared at {name}'s precision, rtol={rtol:g}, atol={atol:g}"
    if got is None or want is None or got.shape != want.shape:
        return text + ")"
    err = (got - want).abs().max().item()
    rounding = (want.to(dtype).to(torch.float64) - want).abs().max().item()
    if err <= 4 * rounding + atol:
        return (
            text + f"; the difference, {err:.2g}, is about what rounding to {name} gives: "
            "compute in float32 and cast at the end, or return float32)"
        )
    return (
        text + f"; the difference, {err:.2g}, is far more than rounding to {name} gives "
        f"({rounding:.2g}): precision is not the cause)"
    )
