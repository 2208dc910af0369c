"""Chapter 9's exercises: their checkers. Each calls the learner's functions on three
seeded inputs that differ in every size and compares with a reference computed independently
(PyTorch's own modules where one exists), returning a
:class:`scoringbook._checking.CheckResult` whose message names the case, place and slip:

- :func:`check_heads`: ``split_heads`` / ``merge_heads``, run inside a causal multi-head
  self-attention and compared with ``torch.nn.MultiheadAttention`` given the same weights
  and its own mask convention;
- :func:`check_sinusoidal` and :func:`check_relative_offset`: the sinusoidal table, and the
  matrix that moves a row of it ``delta`` positions on (d2l §11.6.3.2);
- :func:`check_causal_masks`: the causal mask three ways (attnlib's valid lengths,
  ``F.scaled_dot_product_attention``'s ``attn_mask``, ``nn.MultiheadAttention``'s).

Chapter 10's head scores are checked in :mod:`scoringbook.ch10_exercises`.

Precision rule (stated in the exercises): :func:`scoringbook._checking.tolerance`.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from attnlib.attention import dot_product_attention
from attnlib.domains import declare
from scoringbook._checking import (
    ANSWER,
    CheckResult,
    _as_answer,
    _exc,
    _fail,
    _first,
    _pair,
    _pass,
    answers_close,
    checker,
    precision_note,
    tolerance,
)

__all__ = [
    "check_heads",
    "check_sinusoidal",
    "check_relative_offset",
    "check_causal_masks",
]


def _callable(fn: object, name: str, checker_name: str) -> None:
    if not callable(fn):
        raise TypeError(
            f"{checker_name}: {name} must be a function (callable); got an object of type "
            f"{type(fn).__name__}. Pass the function itself, not its result"
        )


def _gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _call(fn: Callable, args: tuple, what: str) -> tuple[Tensor | None, str]:
    """Call ``fn(*args)`` on copies; return ``(float64 tensor, "")`` or ``(None, why not)``."""
    copies = tuple(a.clone() if isinstance(a, Tensor) else a for a in args)
    try:
        out = fn(*copies)
    except Exception as err:
        return None, f"calling {what} raised {_exc(err)}"
    for a, c in zip(args, copies):
        if isinstance(a, Tensor) and not torch.equal(a, c):
            return None, f"{what} wrote into its input; compute into a new tensor"
    got = _as_answer(out)
    if isinstance(got, str):
        return None, f"{what} returned {got}"
    return got, ""


def _compare(
    got: Tensor,
    want: Tensor,
    what: str,
    where: Callable[[tuple], str],
    dtype: torch.dtype | None = None,
) -> str:
    """Empty if ``got`` matches ``want`` (float64) at the precision of ``dtype`` (default
    ``got``'s), else the verdict."""
    dtype = got.dtype if dtype is None else dtype
    if tuple(got.shape) != tuple(want.shape):
        return f"{what} has shape {tuple(got.shape)}; expected {tuple(want.shape)}"
    g = got.detach().to(torch.float64)
    if not torch.isfinite(g).all():
        idx = _first(~torch.isfinite(g))
        return f"{what} is {g[idx].item()} at {where(idx)}; expected {want[idx].item():.4g}"
    if answers_close(g, want, dtype):
        return ""
    rtol, atol = tolerance(dtype)
    bad = ~torch.isclose(g, want, rtol=rtol, atol=atol)
    idx = _first(bad)
    a, b = _pair(g[idx], want[idx])
    return (
        f"{what} differs at {int(bad.sum())} of {bad.numel()} entries, first at {where(idx)}: "
        f"you give {a}, expected {b}" + precision_note(dtype, g, want)
    )


def _passed(text: str, dtypes: set) -> CheckResult:
    """A pass, saying at which precision a half-precision answer was compared."""
    half = [dt for dt in (torch.bfloat16, torch.float16) if dt in dtypes]
    return _pass(text + (precision_note(half[0]) if half else ""))


# ------------------------------------------------------------------ 1. split and merge heads

#: (batch, n, d, H): every size differs between the cases
_HEAD_CASES = ((2, 5, 12, 3), (3, 7, 8, 2), (1, 4, 16, 4))


def _split_ref(x: Tensor, H: int) -> Tensor:
    b, n, d = x.shape
    return x.reshape(b, n, H, d // H).permute(0, 2, 1, 3).reshape(b * H, n, d // H)


@declare(split_heads=ANSWER, merge_heads=ANSWER)
@checker
def check_heads(split_heads: Callable, merge_heads: Callable) -> CheckResult:
    """Check ``split_heads(x, num_heads)`` ``(batch, n, d) -> (batch * H, n, d / H)`` (the
    heads of sequence 0 first, head ``j`` = columns ``j d/H .. (j+1) d/H - 1``) and
    ``merge_heads(x, num_heads)``, its inverse, then use them in causal multi-head
    self-attention and compare with ``torch.nn.MultiheadAttention(d, H, bias=False,
    batch_first=True)`` holding the same weights, called with ``attn_mask`` = the causal mask
    in its convention (``True`` = may *not* attend) and ``average_attn_weights=False``.

    Cases ``(batch, n, d, H)``: (2, 5, 12, 3), (3, 7, 8, 2), (1, 4, 16, 4).
    """
    _callable(split_heads, "split_heads", "check_heads")
    _callable(merge_heads, "merge_heads", "check_heads")
    dtypes: set = set()
    for c, (b, n, d, H) in enumerate(_HEAD_CASES):
        g = _gen(90 + c)
        x = torch.randn(b, n, d, generator=g)
        case = f"case {c + 1}: x of shape {(b, n, d)}, num_heads={H}"
        got, why = _call(split_heads, (x, H), "split_heads(x, num_heads)")
        if got is None:
            return _fail(f"{case}: {why}")
        dtypes.add(got.dtype)
        want = _split_ref(x, H).double()
        if tuple(got.shape) == tuple(want.shape) and not answers_close(
            got.double(), want, got.dtype
        ):
            if answers_close(got.double(), x.reshape(b * H, n, d // H).double(), got.dtype):
                return _fail(
                    f"{case}: split_heads reshapes (batch, n, d) straight to (batch * H, n, d/H), "
                    "which cuts across positions: reshape to (batch, n, H, d/H), move the head "
                    "before the positions with permute(0, 2, 1, 3), then reshape"
                )
            swapped = x.reshape(b, n, H, d // H).permute(2, 0, 1, 3).reshape(b * H, n, d // H)
            if b > 1 and answers_close(got.double(), swapped.double(), got.dtype):
                return _fail(
                    f"{case}: split_heads puts head 0 of every sequence first; the layout is "
                    "the heads of sequence 0 first (index b * H + j), as valid lengths "
                    "repeated with repeat_interleave expect"
                )
        verdict = _compare(
            got,
            want,
            "split_heads(x, num_heads)",
            lambda i: f"(row {i[0]}, position {i[1]}, column {i[2]})",
        )
        if verdict:
            return _fail(f"{case}: {verdict}")
        back, why = _call(merge_heads, (_split_ref(x, H), H), "merge_heads(heads, num_heads)")
        if back is None:
            return _fail(f"{case}: {why}")
        verdict = _compare(
            back,
            x.double(),
            "merge_heads(split, num_heads)",
            lambda i: f"(batch {i[0]}, position {i[1]}, column {i[2]})",
        )
        if verdict:
            return _fail(f"{case}: merge_heads does not undo the split: {verdict}")
        # causal multi-head self-attention from the learner's split and merge
        ref = nn.MultiheadAttention(d, H, bias=False, batch_first=True)
        with torch.no_grad():
            ref.in_proj_weight.copy_(torch.randn(3 * d, d, generator=g) / math.sqrt(d))
            ref.out_proj.weight.copy_(torch.randn(d, d, generator=g) / math.sqrt(d))
            blocked = torch.ones(n, n, dtype=torch.bool).triu(1)  # True = may not attend
            want_out, want_w = ref(x, x, x, attn_mask=blocked, average_attn_weights=False)
            W_q, W_k, W_v = ref.in_proj_weight.chunk(3)
            try:
                q, k, v = (split_heads(x @ W.T, H).float() for W in (W_q, W_k, W_v))
                lens = torch.arange(1, n + 1).repeat(b * H, 1)  # (b * H, n): causal
                heads, w = dot_product_attention(q, k, v, lens)
                out = merge_heads(heads, H).float() @ ref.out_proj.weight.T
            except Exception as err:
                return _fail(
                    f"{case}: running attention with your split and merge raised {_exc(err)}"
                )
        verdict = _compare(
            w.reshape(b, H, n, n),
            want_w.double(),
            "the heads' weights",
            lambda i: f"batch {i[0]}, head {i[1]}, query {i[2]}, key {i[3]}",
            min(dtypes, key=lambda t: torch.finfo(t).bits),
        ) or _compare(
            out,
            want_out.double(),
            "the attention's output",
            lambda i: f"batch {i[0]}, position {i[1]}, column {i[2]}",
            min(dtypes, key=lambda t: torch.finfo(t).bits),
        )
        if verdict:
            return _fail(f"{case}: against nn.MultiheadAttention, {verdict}")
    return _passed(
        "split_heads and merge_heads are right for all 3 cases, and with them causal multi-head "
        "self-attention equals nn.MultiheadAttention (attn_mask True = masked, weights per head)",
        dtypes,
    )


# ------------------------------------------------------------------ 2. sinusoidal positions

_SIN_CASES = ((6, 8), (11, 16), (9, 32))


def _table(n: int, d: int, two_j: bool = True, sin_first: bool = True) -> Tensor:
    i = torch.arange(n, dtype=torch.float64)[:, None]
    j = torch.arange(0, d, 2, dtype=torch.float64) if two_j else torch.arange(d // 2).double()
    ang = i / 10000 ** (j / d)  # (n, d/2)
    P = torch.empty(n, d, dtype=torch.float64)
    P[:, 0::2], P[:, 1::2] = (ang.sin(), ang.cos()) if sin_first else (ang.cos(), ang.sin())
    return P


@declare(fn=ANSWER)
@checker
def check_sinusoidal(fn: Callable) -> CheckResult:
    """Check ``fn(max_len, d)`` returns the sinusoidal table ``(max_len, d)``,
    ``P[i, 2j] = sin(i / 10000^(2j/d))``, ``P[i, 2j+1] = cos(...)``, for
    ``(max_len, d)`` = (6, 8), (11, 16), (9, 32); the reference is computed in float64."""
    dtypes: set = set()
    for c, (n, d) in enumerate(_SIN_CASES):
        case = f"case {c + 1}: max_len={n}, d={d}"
        got, why = _call(fn, (n, d), "your function(max_len, d)")
        if got is None:
            return _fail(f"{case}: {why}")
        dtypes.add(got.dtype)
        want = _table(n, d)
        if tuple(got.shape) == (n, d) and not answers_close(got.double(), want, got.dtype):
            g = got.double()
            half = torch.cat([want[:, 0::2], want[:, 1::2]], 1)
            for slip, t in (
                (
                    "sine and cosine are swapped: even columns take the sine",
                    _table(n, d, True, False),
                ),
                (
                    "the exponent is j/d for the j-th pair; it is 2j/d (the column index of the "
                    "pair's sine)",
                    _table(n, d, False),
                ),
                (
                    "the sines fill the first half and the cosines the second; Vaswani et al. "
                    "(and attnlib) interleave them, sine in even columns",
                    half,
                ),
            ):
                if answers_close(g, t, got.dtype):
                    return _fail(f"{case}: {slip}")
        verdict = _compare(got, want, "your table", lambda i: f"position {i[0]}, column {i[1]}")
        if verdict:
            return _fail(f"{case}: {verdict}")
    return _passed("your table equals the sinusoidal encoding for all 3 cases", dtypes)


_OFFSET_CASES = ((1, 8), (3, 16), (7, 6))


def _offset_ref(delta: int, d: int) -> Tensor:
    w = 1 / 10000 ** (torch.arange(0, d, 2, dtype=torch.float64) / d)  # (d/2,)
    M = torch.zeros(d, d, dtype=torch.float64)
    c, s = torch.cos(delta * w), torch.sin(delta * w)
    for j in range(d // 2):
        M[2 * j, 2 * j], M[2 * j, 2 * j + 1] = c[j], -s[j]
        M[2 * j + 1, 2 * j], M[2 * j + 1, 2 * j + 1] = s[j], c[j]
    return M


@declare(fn=ANSWER)
@checker
def check_relative_offset(fn: Callable) -> CheckResult:
    """Check ``fn(delta, d)`` returns a ``(d, d)`` matrix ``M``, the same for every position,
    with ``P[i + delta] = P[i] @ M`` for the rows of the sinusoidal table ``P`` (rows are
    positions, so ``M`` multiplies from the right). Cases ``(delta, d)``: (1, 8), (3, 16),
    (7, 6), on positions 0 .. 39."""
    dtypes: set = set()
    for c, (delta, d) in enumerate(_OFFSET_CASES):
        case = f"case {c + 1}: delta={delta}, d={d}"
        got, why = _call(fn, (delta, d), "your function(delta, d)")
        if got is None:
            return _fail(f"{case}: {why}")
        dtypes.add(got.dtype)
        if tuple(got.shape) != (d, d):
            return _fail(f"{case}: your matrix has shape {tuple(got.shape)}; expected ({d}, {d})")
        P = _table(40 + delta, d)
        moved = P[:40] @ got.double()  # (40, d)
        if not answers_close(moved, P[delta:], got.dtype):
            if answers_close(got.double(), _offset_ref(delta, d).T, got.dtype):
                return _fail(
                    f"{case}: your matrix is the transpose of the one needed: d2l writes each "
                    "2 x 2 block [[cos, sin], [-sin, cos]] for a column vector (p_2j, p_2j+1); "
                    "the table's rows are row vectors, P[i] @ M, so use the block "
                    "[[cos, -sin], [sin, cos]]"
                )
            verdict = _compare(
                moved, P[delta:], "P[i] @ M", lambda i: f"position {i[0]}, column {i[1]}"
            )
            return _fail(f"{case}: {verdict} (it should be P[i + delta])")
    return _passed(
        "P[i] @ M = P[i + delta] at every position, for all 3 cases: M depends only "
        "on the offset delta",
        dtypes,
    )


# ------------------------------------------------------------------ 3. the causal mask 3 ways


def _blocks_diagonal(mask: Tensor, may_attend: bool) -> Tensor:
    """``(n,)`` bool: which queries' own key the mask hides (bool ``mask`` in the convention
    ``True = may attend`` when ``may_attend`` else ``True = may not``; float: ``-inf`` or a
    large negative number added)."""
    diag = mask.diagonal()
    if mask.dtype == torch.bool:
        return ~diag if may_attend else diag
    return diag < -100


#: (batch, n, d): every size differs
_MASK_CASES = ((2, 5, 4), (3, 8, 6), (1, 3, 8))


@declare(valid_lens_fn=ANSWER, sdpa_mask_fn=ANSWER, mha_mask_fn=ANSWER)
@checker
def check_causal_masks(
    valid_lens_fn: Callable, sdpa_mask_fn: Callable, mha_mask_fn: Callable
) -> CheckResult:
    """Check the causal mask three ways, each through the interface it is for, against
    ``F.scaled_dot_product_attention(..., is_causal=True)``:

    - ``valid_lens_fn(batch, n)``: integer ``(batch, n)`` valid lengths for
      ``attnlib.dot_product_attention`` (query ``i`` sees keys ``0 .. i``);
    - ``sdpa_mask_fn(n)``: ``(n, n)`` ``attn_mask`` for ``F.scaled_dot_product_attention``,
      bool (``True`` = may attend) or float (added to the scores: 0 or ``-inf``);
    - ``mha_mask_fn(n)``: ``(n, n)`` ``attn_mask`` for ``nn.MultiheadAttention``, bool
      (``True`` = may *not* attend) or float (added).

    Cases ``(batch, n, d)``: (2, 5, 4), (3, 8, 6), (1, 3, 8).
    """
    for name, f in (
        ("valid_lens_fn", valid_lens_fn),
        ("sdpa_mask_fn", sdpa_mask_fn),
        ("mha_mask_fn", mha_mask_fn),
    ):
        _callable(f, name, "check_causal_masks")
    where = lambda i: f"batch {i[0]}, query {i[1]}, column {i[2]}"  # noqa: E731
    dtypes: set = set()
    for c, (b, n, d) in enumerate(_MASK_CASES):
        g = _gen(70 + c)
        q, k, v = (torch.randn(b, n, d, generator=g) for _ in range(3))
        want = F.scaled_dot_product_attention(q, k, v, is_causal=True).double()
        case = f"case {c + 1}: batch={b}, n={n}"
        # 1. valid lengths
        try:
            lens = valid_lens_fn(b, n)
            got, _ = dot_product_attention(q, k, v, lens)
        except Exception as err:
            return _fail(
                f"{case}: valid lengths: using valid_lens_fn({b}, {n}) with "
                f"attnlib.dot_product_attention raised {_exc(err)}"
            )
        verdict = _compare(got, want, "attention with your valid lengths", where)
        if verdict:
            hint = ""
            if isinstance(lens, Tensor) and lens.shape == (b, n) and bool((lens[:, 0] == 0).any()):
                hint = " (query i sees keys 0 .. i: that is i + 1 keys, not i)"
            elif isinstance(lens, Tensor) and lens.dim() == 1:
                hint = (
                    " (one length per sequence masks the same keys for every query; "
                    "the causal mask needs one per query: shape (batch, n))"
                )
            return _fail(f"{case}: valid lengths: {verdict}{hint}")
        # 2. SDPA's attn_mask, and 3. nn.MultiheadAttention's
        for label, mfn, conv in (
            ("F.scaled_dot_product_attention", sdpa_mask_fn, "True = may attend"),
            ("nn.MultiheadAttention", mha_mask_fn, "True = may NOT attend"),
        ):
            try:
                mask = mfn(n)
            except Exception as err:
                return _fail(f"{case}: {label}: your mask function raised {_exc(err)}")
            if not isinstance(mask, Tensor) or tuple(mask.shape) != (n, n):
                return _fail(
                    f"{case}: {label}: the mask must be an (n, n) = ({n}, {n}) tensor; "
                    f"got {type(mask).__name__} of shape "
                    f"{tuple(getattr(mask, 'shape', ()))}"
                )
            if mask.dtype != torch.bool and not mask.is_floating_point():
                return _fail(
                    f"{case}: {label}: the mask has dtype {mask.dtype}; it must be bool "
                    "or float (0 where allowed, -inf where masked)"
                )
            try:
                if label.startswith("F."):
                    got = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
                else:
                    mha = nn.MultiheadAttention(d, 1, bias=False, batch_first=True)
                    with torch.no_grad():
                        mha.in_proj_weight.copy_(torch.eye(d).repeat(3, 1))
                        mha.out_proj.weight.copy_(torch.eye(d))
                        # identity maps: the attention of q, k, v itself
                        got, _ = mha(q, k, v, attn_mask=mask, need_weights=False)
            except Exception as err:
                return _fail(f"{case}: {label}: calling it with your mask raised {_exc(err)}")
            verdict = _compare(got, want, f"{label} with your mask", where)
            if verdict:
                lower = torch.ones(n, n, dtype=torch.bool).tril()  # may attend
                mine = lower if label.startswith("F.") else ~lower  # this interface's mask
                slip = ""
                if mask.dtype == torch.bool and torch.equal(mask, ~mine):
                    slip = (
                        f"this is the causal mask in the other convention: for {label} a "
                        f"bool mask means {conv}; invert it with ~"
                    )
                elif bool(_blocks_diagonal(mask, may_attend=label.startswith("F.")).any()):
                    slip = (
                        "each token must see itself: your mask blocks the diagonal "
                        "(query i may look at keys 0 .. i, key i included)"
                    )
                elif mask.dtype == torch.bool:
                    slip = f"for {label} a bool mask means {conv}; {verdict}"
                elif bool(((mask != 0) & torch.isfinite(mask) & (mask.abs() < 100)).any()):
                    slip = (
                        "a float mask is added to the scores: 0 where a query may look, "
                        "-inf (or a large negative number) where it may not; 0/1 entries "
                        "barely change the scores"
                    )
                return _fail(f"{case}: {label}: " + (slip or verdict))
    return _passed(
        "all three masks give causal attention for all 3 cases: valid lengths "
        "(i + 1 for query i), SDPA's mask (True = may attend) and "
        "nn.MultiheadAttention's (True = masked)",
        dtypes,
    )
