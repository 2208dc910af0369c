"""Checkers for the book's exercises: they say precisely what is wrong with an answer.

Each checker compares a learner's answer with attnlib's reference implementation on
fixed, seeded inputs and returns a :class:`CheckResult`: truthy if the answer is right,
with a message that names the failing case, the position (batch, query, key) and the
value found versus the value expected, and, for the classic slips, their likely cause
(forgetting the :math:`1/\\sqrt d`, transposed scores, d2l's in-place ``-1e6`` fill, the
triangular kernel written for the Epanechnikov one, ...).

A wrong answer never raises: even a function that crashes gets a ``❌`` result quoting
the exception. Only input the checker cannot use at all raises: ``TypeError`` (e.g. not
callable, not numbers) or ``ValueError`` (an unknown kernel or scoring ``kind``).

Inputs are drawn from a local :class:`torch.Generator`; the global random state is never
touched, so calling a checker does not change what a notebook's later cells draw.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import torch
from torch import Tensor

from attnlib._checks import check_valid_lens, fmt_shape

__all__ = [
    "CheckResult",
    "check_weights",
    "check_masked_softmax",
    "check_kernel",
    "check_scores",
    "KERNEL_FORMULAS",
    "SCORE_KINDS",
]

#: The kernels as formulas, quoted in the messages of :func:`check_kernel`.
KERNEL_FORMULAS = {
    "gaussian": "K(u) = exp(−u²/2)/√(2π)",
    "boxcar": "K(u) = ½ for |u| ≤ 1, else 0",
    "constant": "K(u) = 1",
    "epanechnikov": "K(u) = ¾(1 − u²) for |u| ≤ 1, else 0",
    "triangular": "K(u) = 1 − |u| for |u| ≤ 1, else 0",
}

#: Scoring functions :func:`check_scores` knows: kind -> (attnlib function name, call, formula).
SCORE_KINDS = {
    "dot_product": ("dot_product_scores", "fn(queries, keys)", "q·k/√d"),
    "additive": ("additive_scores", "fn(queries, keys, W_q, W_k, w_v)", "w_vᵀ tanh(W_q q + W_k k)"),
    "bilinear": ("bilinear_scores", "fn(queries, keys, M)", "qᵀ M k"),
    "gaussian": ("gaussian_scores", "fn(queries, keys, sigma)", "−‖q − k‖²/(2σ²)"),
}

_MD_SPECIAL = "\\`*_[]<>|#"


@dataclass(frozen=True, repr=False)
class CheckResult:
    """Outcome of a check: ``ok`` and a message for the learner.

    Truthy iff ``ok``. Its repr is ``"✅ <message>"`` or ``"❌ <message>"``, so leaving a
    check as the last expression of a notebook cell shows the verdict.

    Example::

        >>> CheckResult(False, "row 1 of batch 0 sums to 0.70")
        ❌ row 1 of batch 0 sums to 0.70
        >>> bool(CheckResult(True, "fine"))
        True
    """

    ok: bool
    message: str

    def __bool__(self) -> bool:
        return bool(self.ok)

    def __repr__(self) -> str:
        return f"{'✅' if self.ok else '❌'} {self.message}"

    __str__ = __repr__

    def _repr_markdown_(self) -> str:
        text = "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in self.message)
        return f"{'✅' if self.ok else '❌'} {text}"


def _pass(message: str) -> CheckResult:
    return CheckResult(True, message)


def _fail(message: str) -> CheckResult:
    return CheckResult(False, message)


# --------------------------------------------------------------------------- formatting
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
        raise TypeError(f"{fn}: {name} must be a tensor or array of numbers; got {type(x).__name__}")
    try:
        return torch.as_tensor(x)
    except (TypeError, ValueError, RuntimeError) as err:
        raise TypeError(f"{fn}: {name} must be a tensor or array of numbers; got "
                        f"{type(x).__name__} ({err})") from None


def _as_answer(x: object) -> Tensor | str:
    """A learner's returned value as a tensor, or a description of why it is not one."""
    if isinstance(x, Tensor) and (x.is_complex() or x.dtype == torch.bool):
        return (f"a tensor of dtype {x.dtype} (attention scores, weights and kernel values "
                f"are real numbers: return a real floating-point tensor)")
    if isinstance(x, Tensor):
        return x
    if isinstance(x, tuple):
        return (f"a tuple of {len(x)} items (return only the tensor, not e.g. "
                f"(output, weights))")
    try:
        t = torch.as_tensor(x)
    except (TypeError, ValueError, RuntimeError):
        return f"an object of type {type(x).__name__}"
    if not (t.is_floating_point() or t.dtype in (torch.int32, torch.int64)):
        return f"an object of type {type(x).__name__} with dtype {t.dtype}"
    return t


def _require_callable(fn: object, checker: str) -> None:
    if not callable(fn):
        raise TypeError(f"{checker}: fn must be a function (callable); got an object of type "
                        f"{type(fn).__name__}. Pass the function itself, not its result")


# --------------------------------------------------------------------------- check_weights
def check_weights(weights, valid_lens=None, *, scores=None, expected=None) -> CheckResult:
    r"""Check that ``weights`` are attention weights: what softmax over valid keys gives.

    Requirements, checked in this order (the message reports the first that fails, with
    its position and value):

    1. every weight is finite (no NaN, no inf);
    2. every weight is nonnegative;
    3. a row (query) with no valid key is all zeros;
    4. masked keys (``j >= valid_lens``) have weight exactly 0;
    5. each other row sums to 1 over its valid keys (tolerance
       ``max(1e-6, 4 · n_keys · eps(dtype))``);
    6. with ``scores=``: the weights are the (masked) softmax of those scores, i.e. the
       conversion itself is checked, not only the result's form (a uniform row or
       ``|s| / sum |s|`` is valid-looking but wrong, and the message says which slip it is);
    7. with ``expected=``: the weights equal the expected weights (e.g. a module's
       ``.attention_weights``) within ``1e-5``.

    Reference::

        mask = valid_lens_to_mask(valid_lens, n_queries, n_keys)
        ok = (w >= 0).all() and (w[~mask] == 0).all() and
             torch.allclose(w.sum(-1), mask.any(-1).to(w.dtype))

    Args:
        weights: ``(batch, n_queries, n_keys)`` or ``(n_queries, n_keys)``, tensor or array
            (a tensor that requires grad is fine).
        valid_lens: ``None`` (every key valid); for 3-D weights ``(batch,)`` or
            ``(batch, n_queries)``; for 2-D weights an int or ``(n_queries,)``.
        scores: optional scores of the weights' shape that the weights must be the masked
            softmax of (keyword only).
        expected: optional weights of the same shape that the answer must equal (keyword
            only).

    Returns:
        :class:`CheckResult`. Weights of the wrong shape give a failed result (the shape is
        part of the answer); ``valid_lens`` that do not fit the weights raise ValueError.

    Shape legend: ``batch`` sequences, ``n_queries`` queries (rows), ``n_keys`` keys.

    Example::

        >>> check_weights(torch.tensor([[0.5, 0.5, 0.0], [0.2, 0.5, 0.0]]), valid_lens=2)
        ❌ row 1 sums to 0.70; weights must sum to 1 over the valid keys (keys 0..1)
        >>> bool(check_weights(torch.tensor([[[0.25, 0.75], [1.0, 0.0]]])))
        True
    """
    fn = "check_weights"
    W = _as_input_tensor(weights, "weights", fn)
    if W.is_complex():
        raise TypeError(f"{fn}: weights must be real numbers; got dtype {W.dtype}")
    eps = torch.finfo(W.dtype).eps if W.is_floating_point() else 0.0
    W = W.to(torch.float64)
    two_d = W.dim() == 2
    if two_d:
        W = W.unsqueeze(0)  # (n_queries, n_keys) -> (1, n_queries, n_keys)
    if W.dim() != 3:
        return _fail(f"weights must have shape (batch, n_queries, n_keys) or (n_queries, n_keys); "
                     f"got shape {fmt_shape(W.shape)}")
    batch, n_queries, n_keys = W.shape
    if W.numel() == 0:
        return _fail(f"weights are empty: shape (batch, n_queries, n_keys) = {fmt_shape(W.shape)}")

    lens = None
    if valid_lens is not None:
        lens = _as_input_tensor(valid_lens, "valid_lens", fn)
        if two_d:
            if lens.dim() == 0:
                lens = lens.reshape(1)  # () -> (1,)
            elif lens.dim() == 1 and lens.shape[0] == n_queries and n_queries != 1:
                lens = lens.unsqueeze(0)  # (n_queries,) -> (1, n_queries)
            elif not (lens.dim() == 1 and lens.shape[0] == 1):
                raise ValueError(f"{fn}: for 2-D weights of shape {fmt_shape(W.shape[1:])}, "
                                 f"valid_lens must be an int or have shape ({n_queries},) "
                                 f"(n_queries,); got shape {fmt_shape(lens.shape)}")
        lens = check_valid_lens(lens, batch, n_queries, n_keys, fn)
        row_lens = lens.reshape(batch, -1).expand(batch, n_queries)  # (batch, n_queries)
    else:
        row_lens = torch.full((batch, n_queries), n_keys)  # (batch, n_queries)
    keep = torch.arange(n_keys) < row_lens.unsqueeze(-1)  # (batch, n_queries, n_keys)

    def row(b: int, i: int) -> str:
        return f"row {i}" if two_d else f"row {i} of batch {b}"

    def length_note(b: int, i: int) -> str:
        return "" if lens is None else f" (valid length {int(row_lens[b, i])})"

    bad = ~torch.isfinite(W)
    if bad.any():
        b, i, j = _first(bad)
        note = ""
        if int(row_lens[b, i]) == 0:
            note = ("; this row has no valid key, so it must be all zeros (a softmax over no "
                    "keys divides 0 by 0: set such rows to zero)")
        return _fail(f"the weight at {row(b, i)}, key {j} is {_num(W[b, i, j])}; weights must be "
                     f"finite{note}" + (f" ({int(bad.sum())} entries are not finite)" if bad.sum() > 1 else ""))

    neg = W < 0
    if neg.any():
        b, i, j = _first(neg)
        return _fail(f"the weight at {row(b, i)}, key {j} is {_num(W[b, i, j])}; weights must be "
                     f"nonnegative")

    empty_rows = row_lens == 0  # (batch, n_queries)
    nonzero_empty = empty_rows & (W != 0).any(-1)
    if nonzero_empty.any():
        b, i = _first(nonzero_empty)
        r = W[b, i]
        if torch.allclose(r, torch.full_like(r, 1.0 / n_keys)):
            what = f"are uniform ({_num(1.0 / n_keys)} each)"
        else:
            what = f"sum to {_num(r.sum())}"
        return _fail(f"{row(b, i)} has no valid key (valid length 0) but its weights {what}; a "
                     f"row with no valid key must be all zeros (a large negative fill followed "
                     f"by softmax leaves it uniform: zero it after the softmax)")

    leak = ~keep & (W != 0)
    if leak.any():
        b, i, j = _first(leak)
        return _fail(f"the weight at {row(b, i)}, key {j} is {_num(W[b, i, j], 3)} but key {j} is "
                     f"masked{length_note(b, i)}; masked weights must be exactly 0"
                     + (f" ({int(leak.sum())} masked entries are nonzero)" if leak.sum() > 1 else ""))

    tol = max(1e-6, 4 * n_keys * eps)
    sums = W.sum(-1)  # (batch, n_queries)
    off = ~empty_rows & ((sums - 1).abs() > tol)
    if off.any():
        b, i = _first(off)
        got, want = _pair(sums[b, i], 1.0)
        last = int(row_lens[b, i]) - 1
        keys = f" (keys 0..{last})" if lens is not None else ""
        return _fail(f"{row(b, i)} sums to {got}; weights must sum to 1 over the valid keys{keys}"
                     + (f"; {int(off.sum())} rows are off" if off.sum() > 1 else ""))

    def like_weights(x: object, name: str) -> Tensor:
        t = _as_input_tensor(x, name, fn).to(torch.float64)
        t = t.unsqueeze(0) if t.dim() == 2 else t  # (n_queries, n_keys) -> (1, ., .)
        if t.shape != W.shape:
            raise ValueError(f"{fn}: {name} must have the weights' shape "
                             f"{fmt_shape(W.shape)}; got {fmt_shape(t.shape)}")
        return t

    if scores is not None:
        from attnlib.masking import masked_softmax

        S = like_weights(scores, "scores")
        want = masked_softmax(S, None if lens is None else row_lens)
        result = _compare_to(W, want, row, "the softmax of the scores gives", S, keep)
        if result is not None:
            return result
    if expected is not None:
        E = like_weights(expected, "expected")
        result = _compare_to(W, E, row, "the expected weight there is", None, keep)
        if result is not None:
            return result

    n_rows = batch * n_queries
    n_empty = int(empty_rows.sum())
    parts = [f"all {n_rows} rows are valid attention weights: finite, nonnegative"]
    if lens is not None:
        parts.append("masked keys exactly 0")
    parts.append("each row sums to 1 over its valid keys")
    if n_empty:
        parts.append(f"the {n_empty} row(s) with no valid key are all zeros")
    if scores is not None:
        parts.append("and they are the softmax of the scores")
    if expected is not None:
        parts.append("and they equal the expected weights")
    return _pass(", ".join(parts))


def _compare_to(W: Tensor, want: Tensor, row, what: str, S: Tensor | None,
                     keep: Tensor) -> CheckResult | None:
    """None if W equals want (atol 1e-5), else a failed result naming the first difference
    and, when the scores are known, the slip that explains it."""
    diff = (W - want).abs() > 1e-5
    if not diff.any():
        return None
    b, i, j = _first(diff)
    slip = ""
    if S is not None:
        r, k = W[b, i], keep[b, i]
        s = S[b, i]
        n = int(k.sum())
        if n and torch.allclose(r[k], torch.full((n,), 1.0 / n, dtype=r.dtype), atol=1e-6):
            slip = "; the row is uniform: it ignores the scores"
        elif n and torch.allclose(r[k], s[k].abs() / s[k].abs().sum(), atol=1e-6):
            slip = ("; it is |s| / sum |s|: that keeps the form of weights but not their order "
                    "(a very negative score gets a large weight). Exponentiate instead")
        elif n and (s[k].sum() != 0) and torch.allclose(r[k], s[k] / s[k].sum(), atol=1e-6):
            slip = "; it is s / sum s, not a softmax"
        elif n and torch.allclose(r[k], s[k].clamp_min(0) / s[k].clamp_min(0).sum(), atol=1e-6):
            slip = "; it clips negative scores to 0 and divides by the sum: not a softmax"
    return _fail(f"the weight at {row(b, i)}, key {j} is {_num(W[b, i, j])} but {what} "
                 f"{_num(want[b, i, j])}{slip}"
                 + (f" ({int(diff.sum())} entries differ)" if diff.sum() > 1 else ""))


# --------------------------------------------------------------------------- masked softmax
def _softmax_cases() -> list[tuple[str, Tensor, Tensor | None]]:
    """(description, X, valid_lens) for check_masked_softmax, from a local generator."""
    g = torch.Generator().manual_seed(2024)
    x32 = lambda: torch.randn(2, 2, 4, generator=g)  # noqa: E731  (batch, n_queries, n_keys)
    big = torch.randn(2, 2, 4, generator=g) + torch.tensor([1e4, -1e4]).view(1, 2, 1)  # (2, 2, 4)
    big = big.to(torch.float16)
    return [
        ("valid_lens=[2, 3] (one length per sequence)", x32(), torch.tensor([2, 3])),
        ("2-D valid_lens=[[1, 3], [2, 4]] (one length per query)", x32(), torch.tensor([[1, 3], [2, 4]])),
        ("valid_lens=None (no masking)", x32(), None),
        ("valid_lens=[0, 3] (the queries of batch 0 have no valid key)", x32(), torch.tensor([0, 3])),
        ("2-D valid_lens=[[2, 0], [4, 1]] (query 1 of batch 0 has no valid key)", x32(),
         torch.tensor([[2, 0], [4, 1]])),
        ("float16 scores of about ±1e4 and valid_lens=[2, 3]", big, torch.tensor([2, 3])),
        ("float16 scores of about ±1e4 and valid_lens=[0, 3] (rows with no valid key)", big.clone(),
         torch.tensor([0, 3])),
    ]


def _compare_weights(desc: str, got: Tensor, want: Tensor, lens: Tensor | None,
                     float16: bool) -> str | None:
    """None if ``got`` matches ``want``; otherwise a message naming what differs."""
    batch, n_queries, n_keys = want.shape
    if tuple(got.shape) != tuple(want.shape):
        return (f"with {desc}, your weights have shape {fmt_shape(got.shape)}, expected "
                f"(batch, n_queries, n_keys) = {fmt_shape(want.shape)}")
    g = got.detach().to(torch.float64)
    w = want.detach().to(torch.float64)
    if lens is None:
        row_lens = torch.full((batch, n_queries), n_keys)
    else:
        row_lens = lens.reshape(batch, -1).expand(batch, n_queries)  # (batch, n_queries)
    empty = row_lens == 0  # (batch, n_queries)
    nan_rows = torch.isnan(g).any(-1)  # (batch, n_queries)
    if (nan_rows & empty).any():
        b, i = _first(nan_rows & empty)
        hint = (" (in float16 a fill like -1e6 or -1e9 overflows to -inf, and softmax of a row "
                "of -inf is 0/0)") if float16 else ""
        return (f"with {desc}, a row with no valid key (batch {b}, query {i}) gave NaN weights; "
                f"expected zeros{hint}")
    uniform = torch.full((n_keys,), 1.0 / n_keys, dtype=torch.float64)
    for b, i in torch.nonzero(empty).tolist():
        if torch.allclose(g[b, i], uniform, atol=1e-3):
            return (f"with {desc}, a row with no valid key (batch {b}, query {i}) gave uniform "
                    f"weights ({_num(1.0 / n_keys)} each); expected zeros (a large negative "
                    f"fill makes every score of that row equal: set the row to zero after the "
                    f"softmax)")
    atol, rtol = (2e-3, 1e-2) if float16 else (1e-5, 1e-4)
    close = torch.isclose(g, w, atol=atol, rtol=rtol)
    if not close.all():
        masked_keys = torch.arange(n_keys) >= row_lens.unsqueeze(-1)  # (batch, n_queries, n_keys)
        leaks = ~close & masked_keys  # report a masked key that got weight first
        b, i, j = _first(leaks if leaks.any() else ~close)
        got_s, want_s = _pair(g[b, i, j], w[b, i, j])
        masked = bool(masked_keys[b, i, j])
        note = " (masked)" if masked else ""
        hint = ""
        if float16:
            hint = (" (in float16, exp(1e4) overflows to inf and exp(-1e4) underflows to 0: "
                    "subtract each row's maximum before exp, or use torch.softmax)")
        return (f"with {desc}, your weights at batch {b}, query {i}, key {j} are {got_s}, "
                f"expected {want_s}{note}{hint}"
                + (f"; {int((~close).sum())} entries differ" if (~close).sum() > 1 else ""))
    if got.dtype != want.dtype:
        return (f"with {desc}, your weights have dtype {got.dtype}, expected {want.dtype} "
                f"(the dtype of X)")
    return None


def _changed(before: Tensor, after: Tensor) -> str:
    diff = ~((before == after) | (torch.isnan(before) & torch.isnan(after)))
    if not diff.any():
        return ""
    idx = _first(diff)
    where = ", ".join(str(k) for k in idx)
    return f"X[{where}] changed from {_num(before[idx], 3)} to {_num(after[idx], 3)}"


def check_masked_softmax(fn: Callable) -> CheckResult:
    r"""Check a learner's ``fn(X, valid_lens)`` against :func:`attnlib.masked_softmax`.

    The cases, in order (the message reports the first that fails and what differs):

    - ``valid_lens`` of shape ``(batch,)`` and ``(batch, n_queries)``, and ``None``;
    - rows with no valid key (expected: all zeros, not NaN, not uniform);
    - float16 scores of about ``±1e4`` (a naive ``exp`` overflows; a ``-1e6`` fill becomes
      ``-inf``), with and without rows that have no valid key;
    - the input ``X`` must come back unchanged (no in-place fill) in every case;
    - a leaf tensor ``X`` that requires grad: the call must work, the weights must carry
      gradients and the gradient with respect to ``X`` must match attnlib's.

    Reference::

        for desc, X, valid_lens in cases:
            assert torch.allclose(fn(X.clone(), valid_lens), masked_softmax(X, valid_lens))

    Args:
        fn: the learner's function ``fn(X, valid_lens) -> weights``, with ``X`` of shape
            ``(batch, n_queries, n_keys)`` and ``valid_lens`` ``None``, ``(batch,)`` or
            ``(batch, n_queries)``.

    Returns:
        :class:`CheckResult`. Raises TypeError only if ``fn`` is not callable.

    Example::

        >>> from attnlib import masked_softmax
        >>> check_masked_softmax(masked_softmax).ok
        True
        >>> check_masked_softmax(lambda X, valid_lens: torch.softmax(X, dim=-1))  # doctest: +ELLIPSIS
        ❌ with valid_lens=[2, 3] (one length per sequence), your weights at batch 0, query 0, key 2 are 0.34, expected 0 (masked); ...
    """
    _require_callable(fn, "check_masked_softmax")
    from attnlib.masking import masked_softmax

    cases = _softmax_cases()
    for desc, X, lens in cases:
        float16 = X.dtype == torch.float16
        want = masked_softmax(X, lens)
        X_in = X.clone()
        lens_in = None if lens is None else lens.clone()
        try:
            out = fn(X_in, lens_in)
        except Exception as err:  # a wrong answer: report it, never raise
            hint = ""
            if float16 and "overflow" in str(err):
                hint = ("; a fill like -1e6 or -1e9 does not fit in float16 (largest magnitude "
                        "65504): fill with torch.finfo(X.dtype).min, or avoid fills altogether")
            return _fail(f"with {desc}, your function raised {_exc(err)}{hint}")
        change = _changed(X, X_in)
        if change:
            return _fail(f"with {desc}, your function wrote into its input X ({change}); leave the "
                         f"caller's scores intact: build a masked copy, e.g. "
                         f"X.masked_fill(~mask, value), instead of X[~mask] = value")
        if lens is not None and not torch.equal(lens, lens_in):
            return _fail(f"with {desc}, your function changed valid_lens to {lens_in.tolist()}; "
                         f"leave its inputs unchanged")
        got = _as_answer(out)
        if isinstance(got, str):
            return _fail(f"with {desc}, your function returned {got}; expected a tensor of shape "
                         f"(batch, n_queries, n_keys) = {fmt_shape(want.shape)}")
        problem = _compare_weights(desc, got, want, lens, float16)
        if problem:
            return _fail(problem)

    # A leaf tensor that requires grad: d2l's in-place fill raises here.
    g = torch.Generator().manual_seed(7)
    X0 = torch.randn(2, 3, 5, generator=g)  # (batch, n_queries, n_keys)
    lens = torch.tensor([2, 4])
    upstream = torch.randn(2, 3, 5, generator=g)  # (batch, n_queries, n_keys)
    desc = "a leaf tensor X that requires grad and valid_lens=[2, 4]"
    X_ref = X0.clone().requires_grad_(True)
    want = masked_softmax(X_ref, lens)
    (want * upstream).sum().backward()
    X_in = X0.clone().requires_grad_(True)
    try:
        out = fn(X_in, lens.clone())
    except Exception as err:
        hint = ""
        if isinstance(err, RuntimeError) and ("in-place" in str(err) or "leaf" in str(err)):
            hint = ("; your function writes into X in place (like X[~mask] = -1e6): use "
                    "X.masked_fill(~mask, value), which returns a new tensor")
        return _fail(f"with {desc}, your function raised {_exc(err)}{hint}")
    change = _changed(X0, X_in.detach())
    if change:
        return _fail(f"with {desc}, your function wrote into its input X ({change})")
    got = _as_answer(out)
    if isinstance(got, str):
        return _fail(f"with {desc}, your function returned {got}; expected a tensor")
    problem = _compare_weights(desc, got, want, lens, False)
    if problem:
        return _fail(problem)
    if not got.requires_grad:
        return _fail(f"with {desc}, your weights do not carry gradients (requires_grad is False): "
                     f"do not use .detach(), .data, .numpy() or torch.no_grad() inside the function")
    try:
        (got * upstream).sum().backward()
    except Exception as err:
        return _fail(f"with {desc}, backpropagating through your weights raised {_exc(err)}")
    if X_in.grad is None:
        return _fail(f"with {desc}, no gradient reached X: the weights must be computed from X")
    close = torch.isclose(X_in.grad, X_ref.grad, atol=1e-5, rtol=1e-4)
    if not close.all():
        b, i, j = _first(~close)
        got_s, want_s = _pair(X_in.grad[b, i, j], X_ref.grad[b, i, j])
        return _fail(f"with {desc}, the gradient with respect to X at batch {b}, query {i}, key {j} "
                     f"is {got_s}, expected {want_s}")
    return _pass(f"your masked softmax matches attnlib.masked_softmax in all {len(cases) + 1} cases: "
                 f"1-D, 2-D and no valid_lens, rows with no valid key (all zeros), float16 scores "
                 f"of ±1e4, a leaf tensor that requires grad (gradients match); X was never "
                 f"modified")


# --------------------------------------------------------------------------- kernels
def _kernel_grid() -> Tensor:
    """u in [-3, 3] in steps of 0.01 (±1 and ±0.5 exactly), plus points just off ±1."""
    grid = torch.arange(-300, 301, dtype=torch.float64) / 100  # (601,)
    near = torch.tensor([-1 - 1e-9, -1 + 1e-9, 1 - 1e-9, 1 + 1e-9], dtype=torch.float64)  # (4,)
    return torch.sort(torch.cat([grid, near])).values  # (605,)


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


def check_kernel(fn: Callable, name: str) -> CheckResult:
    r"""Check a learner's kernel ``K(u)`` against ``attnlib.kernels.KERNELS[name]``.

    The learner's function is called once on a float64 tensor ``u`` of shape ``(605,)``:
    ``-3, -2.99, ..., 3`` (so ``±1`` and ``±0.5`` exactly) plus points ``1e-9`` inside and
    outside the window edges ``±1``. The kernels (``u = (query − key) / bandwidth``):

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
        fn: the learner's ``K(u)``, elementwise on a tensor ``u`` of shape ``(n,)``.
        name: one of ``"gaussian"``, ``"boxcar"``, ``"constant"``, ``"epanechnikov"``,
            ``"triangular"``.

    Returns:
        :class:`CheckResult`. Raises TypeError if ``fn`` is not callable, ValueError for an
        unknown ``name``.

    Example::

        >>> check_kernel(lambda u: torch.clamp(1 - u.abs(), min=0), "epanechnikov")  # doctest: +ELLIPSIS
        ❌ your "epanechnikov" kernel is the triangular kernel 1 − |u| ...
        >>> bool(check_kernel(lambda u: 0.75 * torch.clamp(1 - u ** 2, min=0), "epanechnikov"))
        True
    """
    _require_callable(fn, "check_kernel")
    from attnlib.kernels import KERNELS

    if not isinstance(name, str) or name not in KERNELS:
        raise ValueError(f"check_kernel: name must be one of {sorted(KERNELS)}; got {name!r}")
    formula = KERNEL_FORMULAS.get(name, f"attnlib.kernels.{name}")
    u = _kernel_grid()
    want = KERNELS[name](u)
    u_in = u.clone()
    try:
        out = fn(u_in)
    except Exception as err:
        return _fail(f"calling your kernel on a float64 tensor u of shape {fmt_shape(u.shape)} raised "
                     f"{_exc(err)}; K must work elementwise on a tensor (use torch functions, "
                     f"not math or if/else on single numbers)")
    if not torch.equal(u, u_in):
        return _fail("your kernel wrote into its input u; compute K(u) into a new tensor")
    got = _as_answer(out)
    if isinstance(got, str):
        return _fail(f"your kernel returned {got}; expected a tensor of the shape of u "
                     f"{fmt_shape(u.shape)}")
    if tuple(got.shape) != tuple(u.shape):
        return _fail(f"your kernel returned shape {fmt_shape(got.shape)} for u of shape "
                     f"{fmt_shape(u.shape)}; K must work elementwise (one value per u)")
    got = got.detach().to(torch.float64)
    if not torch.isfinite(got).all():
        (k,) = _first(~torch.isfinite(got))
        return _fail(f"your K(u) is {_num(got[k])} at u = {_num(u[k])}; expected "
                     f"{_num(want[k], 4)} ({formula})")
    close = torch.isclose(got, want, rtol=1e-5, atol=1e-7)
    if close.all():
        return _pass(f"your {name} kernel matches attnlib.kernels.{name} at all {u.numel()} points "
                     f"u in [-3, 3], window edges included ({formula})")

    if name == "epanechnikov" and torch.allclose(got, KERNELS["triangular"](u), rtol=1e-5, atol=1e-7):
        return _fail('your "epanechnikov" kernel is the triangular kernel 1 − |u| on |u| ≤ 1 '
                     "(the mix-up in d2l's code, issue 2440); the Epanechnikov kernel is "
                     "¾(1 − u²) on |u| ≤ 1, else 0")
    c = _constant_ratio(got, want)
    if c is not None:
        known = {
            ("gaussian", math.sqrt(2 * math.pi)): "you left out the normalising factor 1/√(2π)",
            ("epanechnikov", 4 / 3): "you left out the factor ¾",
            ("boxcar", 2.0): "you left out the factor ½ (the boxcar is ½ on |u| ≤ 1, so it integrates to 1)",
        }
        reason = next((text for (k, v), text in known.items() if k == name and math.isclose(c, v, rel_tol=1e-4)), "")
        return _fail(f"your K(u) is {c:.4g} times attnlib's {name} kernel everywhere"
                     + (f": {reason}" if reason else "")
                     + f" ({formula}). A constant factor cancels in the Nadaraya-Watson weights, "
                     f"but K(u) itself should match")
    bad = ~close
    n_bad = int(bad.sum())
    (k,) = _first(bad)
    got_s, want_s = _pair(got[k], want[k])
    edge = (u.abs() - 1).abs() <= 1e-8
    if bool((bad <= edge).all()):
        outside = bad & (u.abs() > 1) & (got != 0)
        if bool(outside.any()):  # the window reaches past |u| = 1 (e.g. |u| <= 1.0001)
            (k,) = _first(outside)
            return _fail(f"your K(u) differs only just outside the window: at u = "
                         f"{_num(u[k], 9)} (|u| > 1) you give {_num(got[k])}, expected 0. Your "
                         f"window is too wide: the kernel is 0 for every |u| > 1, so test "
                         f"|u| <= 1 exactly, with no tolerance ({formula})")
        return _fail(f"your K(u) differs only at the window edges |u| = 1: at u = {_num(u[k], 9)} "
                     f"you give {got_s}, expected {want_s}. The window includes its edges: use "
                     f"|u| <= 1, not < 1 ({formula})")
    if float(want[k]) == 0.0 and abs(float(u[k])) > 1:
        return _fail(f"at u = {_num(u[k])} your K(u) is {got_s}, expected 0: outside the window "
                     f"|u| ≤ 1 the kernel is 0 (set it to zero there, e.g. with torch.clamp or "
                     f"torch.where) ({formula}); {n_bad} of {u.numel()} points differ")
    return _fail(f"your K(u) differs from attnlib's {name} kernel at {n_bad} of {u.numel()} points, "
                 f"first at u = {_num(u[k])}: you give {got_s}, expected {want_s} ({formula})")


# --------------------------------------------------------------------------- scoring functions
def _score_inputs(kind: str) -> dict[str, object]:
    """Seeded inputs for check_scores (a local generator; the global seed is untouched)."""
    g = torch.Generator().manual_seed(11)
    batch, n_queries, n_keys = 2, 3, 4  # n_queries != n_keys: a transpose shows in the shape
    if kind in ("dot_product", "gaussian"):
        d_q = d_k = 8
    else:
        d_q, d_k = 6, 8  # different sizes: swapped weight matrices show in the shapes
    args: dict[str, object] = {
        "queries": torch.randn(batch, n_queries, d_q, generator=g),
        "keys": torch.randn(batch, n_keys, d_k, generator=g),
    }
    h = 5
    if kind == "additive":
        args["W_q"] = torch.randn(h, d_q, generator=g) / math.sqrt(d_q)
        args["W_k"] = torch.randn(h, d_k, generator=g) / math.sqrt(d_k)
        args["w_v"] = torch.randn(h, generator=g)
    elif kind == "bilinear":
        args["M"] = torch.randn(d_q, d_k, generator=g) / math.sqrt(d_q)
    elif kind == "gaussian":
        args["sigma"] = 1.5
    return args


def _describe_args(args: dict[str, object]) -> str:
    parts = []
    for k, v in args.items():
        parts.append(f"{k} {fmt_shape(v.shape)}" if isinstance(v, Tensor) else f"{k}={v}")
    return ", ".join(parts)


def _score_slips(kind: str, args: dict[str, object], want: Tensor) -> list[tuple[str, Tensor]]:
    """(diagnosis, what that slip computes) for the common mistakes of each kind."""
    q, k = args["queries"], args["keys"]
    slips: list[tuple[str, Tensor]] = [
        ("the sign is flipped", -want),
    ]
    if kind == "dot_product":
        d = q.shape[-1]
        slips += [
            (f"you forgot to divide by √d: your scores are √d = {math.sqrt(d):.3g} times too large "
             f"(d = {d})", want * math.sqrt(d)),
            (f"you divided by d = {d} instead of √d = {math.sqrt(d):.3g}", want / math.sqrt(d)),
            ("the sign is flipped and the 1/√d is missing", -want * math.sqrt(d)),
        ]
    elif kind == "gaussian":
        s = float(args["sigma"])
        sq = -2 * s * s * want  # ‖q − k‖²
        slips += [
            ("the factor ½ is missing: divide by 2σ², not σ²", want * 2),
            (f"you forgot to divide by σ² (σ = {s})", want * s * s),
            (f"you forgot to divide by 2σ² (σ = {s})", want * 2 * s * s),
            ("you divided by 2σ instead of 2σ²", want * s),
            ("the sign is flipped: scores are −‖q − k‖²/(2σ²), largest for the nearest keys, and "
             "the distance is not divided by 2σ²", -sq),
            ("you used the distance ‖q − k‖ instead of its square ‖q − k‖²",
             -sq.clamp(min=0).sqrt() / (2 * s * s)),
        ]
    elif kind == "additive":
        W_q, W_k, w_v = args["W_q"], args["W_k"], args["w_v"]
        pre = (q @ W_q.T).unsqueeze(2) + (k @ W_k.T).unsqueeze(1)  # (batch, n_queries, n_keys, h)
        slips += [
            ("you left out the tanh, which goes between the sum W_q q + W_k k and w_v", pre @ w_v),
        ]
    return slips


def check_scores(fn: Callable, kind: str) -> CheckResult:
    r"""Check a learner's scoring function against attnlib's on seeded random inputs.

    ``kind`` and the call made (the same arguments as attnlib's function):

    - ``"dot_product"``: ``fn(queries, keys)``, expected ``q·k/√d``
      (:func:`attnlib.dot_product_scores`);
    - ``"additive"``: ``fn(queries, keys, W_q, W_k, w_v)``, expected
      ``w_vᵀ tanh(W_q q + W_k k)`` (:func:`attnlib.additive_scores`);
    - ``"bilinear"``: ``fn(queries, keys, M)``, expected ``qᵀ M k``
      (:func:`attnlib.bilinear_scores`);
    - ``"gaussian"``: ``fn(queries, keys, sigma)``, expected ``−‖q − k‖²/(2σ²)``
      (:func:`attnlib.gaussian_scores`).

    Inputs: ``queries (2, 3, d_q)``, ``keys (2, 4, d_k)`` with ``d_q = d_k = 8`` (dot
    product, Gaussian) or ``d_q = 6, d_k = 8`` (additive, bilinear), ``h = 5``,
    ``sigma = 1.5``. Because ``n_queries ≠ n_keys`` and ``d_q ≠ d_k``, transposed scores
    and swapped weight matrices show in the shapes. The shape is checked first, then the
    values; diagnosed slips: forgot ``1/√d`` (or divided by ``d``), scores of shape
    ``(batch, n_keys, n_queries)``, wrong sign, missing ``½`` or ``σ²``, distance for
    squared distance, missing tanh.

    Reference::

        torch.allclose(fn(queries, keys), attnlib.dot_product_scores(queries, keys))

    Args:
        fn: the learner's scoring function, returning ``(batch, n_queries, n_keys)``.
        kind: ``"dot_product"``, ``"additive"``, ``"bilinear"`` or ``"gaussian"``.

    Returns:
        :class:`CheckResult`. Raises TypeError if ``fn`` is not callable, ValueError for an
        unknown ``kind``.

    Example::

        >>> check_scores(lambda q, k: q @ k.transpose(1, 2), "dot_product")  # doctest: +ELLIPSIS
        ❌ your dot_product scores are wrong: you forgot to divide by √d: ...
        >>> bool(check_scores(lambda q, k: q @ k.transpose(1, 2) / q.shape[-1] ** 0.5, "dot_product"))
        True
    """
    _require_callable(fn, "check_scores")
    if not isinstance(kind, str) or kind not in SCORE_KINDS:
        raise ValueError(f"check_scores: kind must be one of {sorted(SCORE_KINDS)}; got {kind!r}")
    import attnlib.scoring as scoring

    ref_name, call, formula = SCORE_KINDS[kind]
    args = _score_inputs(kind)
    want = getattr(scoring, ref_name)(*args.values())
    batch, n_queries, n_keys = want.shape
    called = f"{call} with {_describe_args(args)}"
    args_in = {k: (v.clone() if isinstance(v, Tensor) else v) for k, v in args.items()}
    try:
        out = fn(*args_in.values())
    except Exception as err:
        return _fail(f"calling your function as {called} raised {_exc(err)}")
    for k, v in args.items():
        if isinstance(v, Tensor) and not torch.equal(v, args_in[k]):
            return _fail(f"your function wrote into its input {k}; compute the scores into a new tensor")
    got = _as_answer(out)
    if isinstance(got, str):
        return _fail(f"your function returned {got}; expected scores of shape "
                     f"(batch, n_queries, n_keys) = {fmt_shape(want.shape)}")
    got = got.detach().to(torch.float64)
    want64 = want.detach().to(torch.float64)
    slips = [(text, t.detach().to(torch.float64)) for text, t in _score_slips(kind, args, want)]

    def matches(a: Tensor, b: Tensor) -> bool:
        return a.shape == b.shape and torch.allclose(a, b, rtol=1e-4, atol=1e-5)

    if tuple(got.shape) != tuple(want.shape):
        if tuple(got.shape) == (batch, n_keys, n_queries):
            gt = got.transpose(1, 2)  # (batch, n_keys, n_queries) -> (batch, n_queries, n_keys)
            extra = ""
            if not matches(gt, want64):
                extra = next((f"; also, {text}" for text, t in slips if matches(gt, t)),
                             "; the values differ too")
            return _fail(f"your scores have shape {fmt_shape(got.shape)} = (batch, n_keys, n_queries); "
                         f"queries must be the rows: expected (batch, n_queries, n_keys) = "
                         f"{fmt_shape(want.shape)} (e.g. queries @ keys.transpose(1, 2), not "
                         f"keys @ queries.transpose(1, 2)){extra}")
        return _fail(f"your scores have shape {fmt_shape(got.shape)}; expected (batch, n_queries, "
                     f"n_keys) = {fmt_shape(want.shape)} for {_describe_args(args)}")
    if not torch.isfinite(got).all():
        b, i, j = _first(~torch.isfinite(got))
        return _fail(f"your score at batch {b}, query {i}, key {j} is {_num(got[b, i, j])}; "
                     f"expected {_num(want64[b, i, j], 4)}")
    if matches(got, want64):
        return _pass(f"your {kind} scores ({formula}) match attnlib.{ref_name} for {called}")
    for text, t in slips:
        if matches(got, t):
            return _fail(f"your {kind} scores are wrong: {text} (expected {formula})")
    c = _constant_ratio(got.flatten(), want64.flatten())
    if c is not None:
        return _fail(f"your {kind} scores are {c:.4g} times the expected ones everywhere; check the "
                     f"constant factors (expected {formula})")
    close = torch.isclose(got, want64, rtol=1e-4, atol=1e-5)
    b, i, j = _first(~close)
    got_s, want_s = _pair(got[b, i, j], want64[b, i, j])
    return _fail(f"your {kind} scores differ from attnlib.{ref_name} at {int((~close).sum())} of "
                 f"{close.numel()} entries, first at batch {b}, query {i}, key {j}: you give "
                 f"{got_s}, expected {want_s} ({formula})")
