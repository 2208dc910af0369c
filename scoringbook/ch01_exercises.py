"""Chapter 1's checker: :func:`check_weights`, are these attention weights?

Rows sum to one over the valid keys, nothing past a valid length, and (given ``scores``) the
softmax of the scores. Chapters 3, 4 and 7 use it too (their modules re-export it).
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from attnlib.domains import Anything, check_valid_lens, declare, fmt_shape
from scoringbook._checking import (
    CheckResult,
    _as_input_tensor,
    _fail,
    _first,
    _num,
    _pair,
    _pass,
    checker,
    precision_note,
    tolerance,
)

__all__ = [
    "check_weights",
]


@declare(
    weights=Anything(
        "a learner's answer, 2-D or 3-D, tensor, array or lists: checked in the body"
    ),
    valid_lens=Anything("lengths that fit the weights, or None: checked in the body"),
    scores=Anything("scores of the weights' shape, or None: checked in the body"),
    expected=Anything("weights of the weights' shape, or None: checked in the body"),
)
@checker
def check_weights(weights, valid_lens=None, *, scores=None, expected=None) -> CheckResult:
    r"""Check that ``weights`` are attention weights: what softmax over valid keys gives.

    Requirements, checked in this order (the message reports the first that fails, with
    its position and value):

    1. every weight is finite (no NaN, no inf);
    2. every weight is nonnegative;
    3. a row (query) with no valid key is all zeros;
    4. masked keys (``j >= valid_lens``) have weight exactly 0;
    5. each other row sums to 1 over its valid keys (tolerance
       ``max(1e-6, 4 · n_keys · eps(dtype))``, ``dtype`` the answer's);
    6. with ``scores=``: the weights are the (masked) softmax of those scores, i.e. the
       conversion itself is checked, not only the result's form (a uniform row or
       ``|s| / sum |s|`` is valid-looking but wrong, and the message says which slip it is);
    7. with ``expected=``: the weights equal the expected weights (e.g. a module's
       ``.attention_weights``).

    Steps 6 and 7 compare at the answer's precision (:func:`scoringbook._checking.tolerance`:
    rtol 1e-4, atol 1e-5 for float32 and float64; coarser for float16 and bfloat16, and the
    verdict then says whether rounding to that dtype explains a difference).

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
        Not yet: row 1 sums to 0.70; weights must sum to 1 over the valid keys (keys 0..1)
        >>> bool(check_weights(torch.tensor([[[0.25, 0.75], [1.0, 0.0]]])))
        True
    """
    fn = "check_weights"
    W = _as_input_tensor(weights, "weights", fn)
    if W.is_complex():
        raise TypeError(f"{fn}: weights must be real numbers; got dtype {W.dtype}")
    dtype = W.dtype  # every tolerance below follows the answer's dtype
    eps = torch.finfo(dtype).eps if W.is_floating_point() else 0.0
    W = W.to(torch.float64)
    two_d = W.dim() == 2
    if two_d:
        W = W.unsqueeze(0)  # (n_queries, n_keys) -> (1, n_queries, n_keys)
    if W.dim() != 3:
        return _fail(
            f"weights must have shape (batch, n_queries, n_keys) or (n_queries, n_keys); "
            f"got shape {fmt_shape(W.shape)}"
        )
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
                raise ValueError(
                    f"{fn}: for 2-D weights of shape {fmt_shape(W.shape[1:])}, "
                    f"valid_lens must be an int or have shape ({n_queries},) "
                    f"(n_queries,); got shape {fmt_shape(lens.shape)}"
                )
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
            note = (
                "; this row has no valid key, so it must be all zeros (a softmax over no "
                "keys divides 0 by 0: set such rows to zero)"
            )
        return _fail(
            f"the weight at {row(b, i)}, key {j} is {_num(W[b, i, j])}; weights must be "
            f"finite{note}"
            + (f" ({int(bad.sum())} entries are not finite)" if bad.sum() > 1 else "")
        )

    neg = W < 0
    if neg.any():
        b, i, j = _first(neg)
        return _fail(
            f"the weight at {row(b, i)}, key {j} is {_num(W[b, i, j])}; weights must be "
            f"nonnegative"
        )

    empty_rows = row_lens == 0  # (batch, n_queries)
    nonzero_empty = empty_rows & (W != 0).any(-1)
    if nonzero_empty.any():
        b, i = _first(nonzero_empty)
        r = W[b, i]
        if torch.allclose(r, torch.full_like(r, 1.0 / n_keys)):
            what = f"are uniform ({_num(1.0 / n_keys)} each)"
        else:
            what = f"sum to {_num(r.sum())}"
        return _fail(
            f"{row(b, i)} has no valid key (valid length 0) but its weights {what}; a "
            f"row with no valid key must be all zeros (a large negative fill followed "
            f"by softmax leaves it uniform: zero it after the softmax)"
        )

    leak = ~keep & (W != 0)
    if leak.any():
        b, i, j = _first(leak)
        return _fail(
            f"the weight at {row(b, i)}, key {j} is {_num(W[b, i, j], 3)} but key {j} is "
            f"masked{length_note(b, i)}; masked weights must be exactly 0"
            + (f" ({int(leak.sum())} masked entries are nonzero)" if leak.sum() > 1 else "")
        )

    tol = max(1e-6, 4 * n_keys * eps)
    sums = W.sum(-1)  # (batch, n_queries)
    off = ~empty_rows & ((sums - 1).abs() > tol)
    if off.any():
        b, i = _first(off)
        got, want = _pair(sums[b, i], 1.0)
        last = int(row_lens[b, i]) - 1
        keys = f" (keys 0..{last})" if lens is not None else ""
        return _fail(
            f"{row(b, i)} sums to {got}; weights must sum to 1 over the valid keys{keys}"
            + (f"; {int(off.sum())} rows are off" if off.sum() > 1 else "")
        )

    def like_weights(x: object, name: str) -> Tensor:
        t = _as_input_tensor(x, name, fn)
        if t.is_complex():
            raise ValueError(f"{fn}: {name} must be real numbers; got dtype {t.dtype}")
        t = t.to(torch.float64)
        t = t.unsqueeze(0) if t.dim() == 2 else t  # (n_queries, n_keys) -> (1, ., .)
        if t.shape != W.shape:
            raise ValueError(
                f"{fn}: {name} must have the weights' shape "
                f"{fmt_shape(W.shape)}; got {fmt_shape(t.shape)}"
            )
        # The reference must be comparable: NaN (or +inf, whose softmax is NaN) would let
        # any answer pass. A score of -inf is fine: its key gets weight 0.
        bad = torch.isnan(t) | (t == math.inf) if name == "scores" else ~torch.isfinite(t)
        if bad.any():
            b, i, j = _first(bad)
            raise ValueError(
                f"{fn}: {name} must be finite numbers"
                + (" (or -inf)" if name == "scores" else "")
                + f" to compare the weights with; got {t[b, i, j].item()} at batch {b}, "
                f"query {i}, key {j}"
            )
        return t

    if scores is not None:
        from attnlib.masking import masked_softmax

        S = like_weights(scores, "scores")
        want = masked_softmax(S, None if lens is None else row_lens)
        result = _compare_to(W, want, row, "the softmax of the scores gives", S, keep, dtype)
        if result is not None:
            return result
    if expected is not None:
        E = like_weights(expected, "expected")
        result = _compare_to(W, E, row, "the expected weight there is", None, keep, dtype)
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
    note = precision_note(dtype) if scores is not None or expected is not None else ""
    return _pass(", ".join(parts) + note)


def _compare_to(
    W: Tensor,
    want: Tensor,
    row,
    what: str,
    S: Tensor | None,
    keep: Tensor,
    dtype: torch.dtype,
) -> CheckResult | None:
    """None if W equals want at the precision of ``dtype`` (the answer's, before W became
    float64), else a failed result naming the first difference, whether precision explains
    it (half precision) and, when the scores are known, the slip that explains it."""
    rtol, atol = tolerance(dtype)
    diff = ~torch.isclose(W, want, rtol=rtol, atol=atol)
    if not diff.any():
        return None
    near = max(1e-6, 4 * torch.finfo(dtype).eps) if dtype.is_floating_point else 1e-6
    b, i, j = _first(diff)
    slip = ""
    if S is not None:
        r, k = W[b, i], keep[b, i]
        s = S[b, i]
        n = int(k.sum())
        if n and torch.allclose(r[k], torch.full((n,), 1.0 / n, dtype=r.dtype), atol=near):
            slip = "; the row is uniform: it ignores the scores"
        elif n and torch.allclose(r[k], s[k].abs() / s[k].abs().sum(), atol=near):
            slip = (
                "; it is |s| / sum |s|: that keeps the form of weights but not their order "
                "(a very negative score gets a large weight). Exponentiate instead"
            )
        elif n and (s[k].sum() != 0) and torch.allclose(r[k], s[k] / s[k].sum(), atol=near):
            slip = "; it is s / sum s, not a softmax"
        elif n and torch.allclose(r[k], s[k].clamp_min(0) / s[k].clamp_min(0).sum(), atol=near):
            slip = "; it clips negative scores to 0 and divides by the sum: not a softmax"
    got_s, want_s = _pair(W[b, i, j], want[b, i, j])  # enough digits to tell them apart
    return _fail(
        f"the weight at {row(b, i)}, key {j} is {got_s} but {what} {want_s}{slip}"
        + (f" ({int(diff.sum())} entries differ)" if diff.sum() > 1 else "")
        + precision_note(dtype, W, want)
    )
