"""Chapter 10's head scores: how much of a head's weight lands where a named head would look.

Pure functions of a weight tensor ``(batch, H, n, n)`` (queries are rows) and, for sequences
whose random part of ``k`` tokens is repeated once (``scoringbook.ch10_model``), the repeat
length of each sequence:

- :func:`previous_token_score`: weight on the previous token (the diagonal just below the
  main one);
- :func:`induction_score`: from a query in the repeat, weight on the token after the earlier
  occurrence of the query's token, ``k - 1`` places back for a repeat of ``k``;
- :func:`offset_score`: weight a fixed distance back from the repeat's queries, the contrast
  that tells an induction head from a head that only looks a fixed distance back.
"""

from __future__ import annotations

import torch
from torch import Tensor

from attnlib import domains as D
from attnlib import tensor_domains as T
from attnlib.domains import as_int, describe

__all__ = ["previous_token_score", "induction_score", "offset_score"]


def check_k(k: object, tokens_or_batch: int, n: int, fn: str) -> Tensor:
    """Repeat lengths ``(batch,)``: ``None`` (every sequence a full repeat, ``k = n // 2``), an
    int, or an integer tensor ``(batch,)``, each in ``2 .. n // 2``."""
    batch = tokens_or_batch
    if k is None:
        return torch.full((batch,), n // 2, dtype=torch.long)
    if isinstance(k, int) and not isinstance(k, bool):
        k = torch.full((batch,), k, dtype=torch.long)
    if (
        not isinstance(k, Tensor)
        or k.is_floating_point()
        or k.is_complex()
        or k.dtype == torch.bool
        or k.shape != (batch,)
    ):
        raise TypeError(
            f"{fn}: k must be None, an int or an integer tensor of shape ({batch},) (one "
            f"repeat length per sequence); got {describe(k)}"
        )
    if bool(((k < 2) | (k > n // 2)).any()):
        raise ValueError(
            f"{fn}: k must hold repeat lengths in 2 .. {n // 2} (n = {n}); got "
            f"{k.min().item()} .. {k.max().item()}"
        )
    return k


def _check_weights4(weights: object, fn: str) -> Tensor:
    """Weights ``(batch, H, n, n)``: a floating tensor, square in its last two dimensions."""
    if not isinstance(weights, Tensor) or not weights.is_floating_point():
        raise TypeError(
            f"{fn}: weights must be a floating-point tensor (batch, H, n, n); got "
            f"{describe(weights)}"
        )
    if (
        weights.dim() != 4
        or weights.shape[-1] != weights.shape[-2]
        or weights.shape[-1] < 2
        or weights.numel() == 0
    ):
        raise ValueError(
            f"{fn}: weights must have shape (batch, H, n, n) with n >= 2, batch, H >= 1; got "
            f"{tuple(weights.shape)}"
        )
    return weights


#: the head scores' arguments: weights (batch, H, n, n) (n >= 2: checked in the body), and
#: the repeat's start k, an int or one per sequence, or None (checked by check_k)
WEIGHTS4 = T.FloatTensor("batch H n n")
K = D.Anything("the repeat's start: an int, (batch,) ints or None: checked by check_k")


@D.declare(weights=WEIGHTS4)
def previous_token_score(weights: Tensor) -> Tensor:
    """Mean weight a head puts on the previous position (the diagonal at offset -1), over
    queries ``1 .. n - 1`` and the batch. ``weights``: ``(batch, H, n, n)`` -> ``(H,)``."""
    weights = _check_weights4(weights, "previous_token_score")
    diag = torch.diagonal(weights, offset=-1, dim1=-2, dim2=-1)  # (batch, H, n - 1)
    return diag.mean(dim=(0, 2))


def _repeat_cells(k: Tensor, n: int, back: Tensor) -> Tensor:
    """``(batch, n, n)`` bool: query ``i`` of the repeat (``k .. 2k - 1``) on key ``i - back``
    (``back`` ``(batch,)``), where that key exists."""
    i = torch.arange(n)
    query = (i >= k[:, None]) & (i < 2 * k[:, None])  # (batch, n)
    key = i[:, None] - back[:, None, None]  # (batch, n, 1)
    cells = (i[None, None, :] == key) & query[:, :, None]  # (batch, n, n)
    return cells


def _mean_on(weights: Tensor, cells: Tensor) -> Tensor:
    """Mean of each head's weights over ``cells`` ``(batch, n, n)`` -> ``(H,)``."""
    c = cells.unsqueeze(1)  # (batch, 1, n, n)
    count = cells.sum()
    # where, not a product: a weight outside the cells (even NaN) does not count
    return torch.where(c, weights, 0).sum(dim=(0, 2, 3)) / count.clamp(min=1)


@D.declare(weights=WEIGHTS4, k=K)
def induction_score(weights: Tensor, k: Tensor | int | None = None) -> Tensor:
    """Mean weight a head puts, from a query in the repeat, on the token *after* the earlier
    occurrence of the query's token: for a repeat of ``k`` tokens, query ``i`` in
    ``k .. 2k - 1`` on key ``i - k + 1`` (``k - 1`` places back), averaged over every such
    (sequence, query) pair. ``weights``: ``(batch, H, n, n)`` -> ``(H,)``; ``k``: the repeat
    length of each sequence, ``(batch,)``, an int, or ``None`` (full repeats, ``k = n // 2``).
    """
    fn = "induction_score"
    weights = _check_weights4(weights, fn)
    batch, n = weights.shape[0], weights.shape[-1]
    k = check_k(k, batch, n, fn)
    return _mean_on(weights, _repeat_cells(k, n, k - 1))


@D.declare(weights=WEIGHTS4, back=D.Int(ge=0), k=K)
def offset_score(weights: Tensor, back: int, k: Tensor | int | None = None) -> Tensor:
    """Mean weight a head puts, from a query in the repeat (``k .. 2k - 1``), on the key a
    fixed ``back`` places before it (queries with no such key are left out). With
    ``back = k - 1`` for every sequence it is :func:`induction_score`; with ``back = HALF - 1``
    on shorter repeats it is what a head that only "looks 9 back" would score.
    ``weights``: ``(batch, H, n, n)`` -> ``(H,)``."""
    fn = "offset_score"
    weights = _check_weights4(weights, fn)
    batch, n = weights.shape[0], weights.shape[-1]
    back = as_int(back, "back", fn, min=0, max=n - 1)
    k = check_k(k, batch, n, fn)
    return _mean_on(weights, _repeat_cells(k, n, torch.full((batch,), back)))
