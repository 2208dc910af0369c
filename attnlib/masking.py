"""Masked softmax: attention weights that ignore padding keys.

Follows the treatment of masked softmax in d2l (Zhang et al., *Dive into Deep Learning*,
https://d2l.ai, section 11.3) and fixes its known defects: nothing is written into the
input, no magic fill value such as ``-1e6`` (which overflows float16), and a query with no
valid key gets all-zero weights instead of a uniform row or NaN.

Shape legend: ``batch`` sequences, ``n_queries`` queries (rows), ``n_keys`` keys (columns).
"""

from __future__ import annotations

import functools
import math

import torch
from torch import Tensor

from attnlib._checks import (
    _is_batched,
    check_float_tensor,
    check_mask,
    check_valid_lens,
    is_tracing,
)
from attnlib.domains import Int, declare
from attnlib.tensor_domains import FloatTensor, Lengths, Mask

__all__ = ["masked_softmax", "valid_lens_to_mask"]

_SCORES = "(batch, n_queries, n_keys)"


def _lens_to_ignore(valid_lens: Tensor, n_keys: int, device: torch.device) -> Tensor:
    """Boolean "ignore" mask (True = masked out) built by broadcasting, not materialised.

    Returns (batch, 1, n_keys) for 1-D ``valid_lens`` and (batch, n_queries, n_keys) for 2-D.
    """
    keys = torch.arange(n_keys, device=device)  # (n_keys,)
    if valid_lens.dim() == 1:
        lens = valid_lens.to(device).view(-1, 1, 1)  # (batch, 1, 1)
    else:
        lens = valid_lens.to(device).unsqueeze(-1)  # (batch, n_queries, 1)
    return keys >= lens  # (batch, 1 or n_queries, n_keys)


@functools.lru_cache(maxsize=8)
def _bias_table(n_keys: int, dtype: torch.dtype, device: torch.device) -> Tensor:
    """(n_keys + 1, n_keys) table whose row ``l`` is 0 on the first ``l`` keys, -inf after.

    Cached (it depends only on its arguments and is never written into).
    """
    keys = torch.arange(n_keys, device=device)  # (n_keys,)
    lengths = torch.arange(n_keys + 1, device=device).unsqueeze(1)  # (n_keys + 1, 1)
    table = torch.zeros(n_keys + 1, n_keys, dtype=dtype, device=device)
    return table.masked_fill_(keys >= lengths, -math.inf)  # (n_keys + 1, n_keys)


def _lens_bias(
    valid_lens: Tensor, n_keys: int, dtype: torch.dtype, device: torch.device
) -> Tensor:
    """Additive bias: ``0`` where a key is valid, ``-inf`` where it is masked out.

    A fresh tensor, (batch, 1, n_keys) for 1-D ``valid_lens`` and (batch, n_queries, n_keys)
    for 2-D. For 2-D ``valid_lens`` each row is looked up in a ``(n_keys + 1, n_keys)``
    table of the possible rows (one gather is cheaper than comparing every position),
    unless that table would be larger than the bias itself or than 2**18 elements (the
    cache keeps at most 8 tables, so at most 16 MiB).
    """
    lens = valid_lens.to(device)
    if lens.dim() == 2 and n_keys + 1 <= lens.numel() and (n_keys + 1) * n_keys <= 2**18:
        table = _bias_table(n_keys, dtype, device)  # (n_keys + 1, n_keys)
        return torch.nn.functional.embedding(lens, table)  # (batch, n_queries, n_keys)
    keys = torch.arange(n_keys, device=device)  # (n_keys,)
    if lens.dim() == 1:
        lens = lens.view(-1, 1)  # (batch, 1)
    ignore = keys >= lens.unsqueeze(-1)  # (batch, 1 or n_queries, n_keys)
    return torch.zeros(ignore.shape, dtype=dtype, device=device).masked_fill_(ignore, -math.inf)


@declare(
    valid_lens=Lengths(batch="-"),
    n_queries=Int(ge=0, le=2**24, dim="n_queries"),
    n_keys=Int(ge=0, le=2**24, dim="n_keys"),
)
def valid_lens_to_mask(valid_lens: Tensor, n_queries: int, n_keys: int) -> Tensor:
    r"""Boolean attention mask from valid lengths (True = attend).

    .. math::
        \text{mask}[b, i, j] = (j < \text{valid\_lens}[b]) \quad\text{or}\quad
        (j < \text{valid\_lens}[b, i])

    Plain-code reference::

        keys = torch.arange(n_keys)
        lens = valid_lens.view(-1, 1, 1) if valid_lens.dim() == 1 else valid_lens[..., None]
        mask = (keys < lens).expand(batch, n_queries, n_keys)

    The result is the ``attn_mask`` that
    :func:`torch.nn.functional.scaled_dot_product_attention` expects (same convention).

    Args:
        valid_lens: lengths of shape ``(batch,)`` (one length per sequence) or
            ``(batch, n_queries)`` (one length per query), entries in ``[0, n_keys]``; as
            in :func:`masked_softmax` (any integer dtype, whole floats, list, numpy).
        n_queries: number of queries (rows).
        n_keys: number of keys (columns).

    Returns:
        Boolean tensor of shape ``(batch, n_queries, n_keys)``; ``True`` where the key
        may be attended to. (An expanded view for 1-D ``valid_lens``: clone it before
        writing into it.)

    Shape legend: ``batch`` sequences, ``n_queries`` queries, ``n_keys`` keys.

    Example::

        >>> valid_lens_to_mask(torch.tensor([1, 3]), n_queries=2, n_keys=3)
        tensor([[[ True, False, False],
                 [ True, False, False]],
        <BLANKLINE>
                [[ True,  True,  True],
                 [ True,  True,  True]]])
    """
    fn = "valid_lens_to_mask"
    for name, v in (("n_queries", n_queries), ("n_keys", n_keys)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise TypeError(f"{fn}: {name} must be a non-negative int; got {v!r}")
    if valid_lens is None:
        raise TypeError(
            f"{fn}: valid_lens must be a tensor, list or numpy array of lengths; got None"
        )
    valid_lens = check_valid_lens(valid_lens, None, n_queries, n_keys, fn)
    ignore = _lens_to_ignore(valid_lens, n_keys, valid_lens.device)
    return (~ignore).expand(valid_lens.shape[0], n_queries, n_keys)  # (batch, n_queries, n_keys)


@declare(
    X=FloatTensor("batch n_queries n_keys"),
    valid_lens=Lengths(),
    mask=Mask(),
    differentiable=("X",),
)
def masked_softmax(
    X: Tensor, valid_lens: Tensor | None = None, *, mask: Tensor | None = None
) -> Tensor:
    r"""Softmax over the last axis that gives masked keys a weight of exactly zero.

    .. math::
        \text{out}[b, i, j] = \frac{m_{bij}\,\exp(X_{bij})}{\sum_{j'} m_{bij'}\,\exp(X_{bij'})},
        \qquad m_{bij} = [\,j < \text{valid\_lens}\,] \wedge \text{mask}[b, i, j]

    and ``out[b, i, :] = 0`` for a row where no key is valid (instead of the 0/0 = NaN of
    the formula, or the uniform row that d2l's ``-1e6`` fill produces).

    Plain-code reference (what this computes)::

        keep = valid_lens_to_mask(valid_lens, n_queries, n_keys) & mask
        filled = torch.where(keep, X, torch.finfo(X.dtype).min)   # a copy, X untouched
        out = torch.where(keep, torch.softmax(filled, dim=-1), 0.0)

    ``valid_lens`` and ``mask`` may be given together: they are combined with a logical
    AND (a key is attended to only if both allow it). Filling with ``finfo(dtype).min``
    (rather than a fixed ``-1e6``/``-1e9``) is representable in every float dtype, so
    float16 and bfloat16 scores as large as ``±1e4`` give finite weights. Gradients flow to
    ``X`` (a leaf tensor that requires grad works too); masked positions get zero gradient,
    and gradients stay finite for fully masked rows.

    Implementation: when every row has at least one valid key the masked scores are sent
    to ``-inf`` instead (``exp(-inf - max) = 0`` exactly, so no second pass is needed; the
    fast path that ``benchmarks/bench_attention.py`` times). Masked positions are replaced,
    never added to, so their values never matter: a NaN or ``+inf`` score at a masked
    position leaves its row finite, with ``valid_lens`` and ``mask=`` alike (the behaviour
    of SDPA's boolean ``attn_mask``). A NaN or ``+inf`` at a *valid* position still makes
    its row NaN: non-finite scores are a bug upstream, and they are not hidden.

    Under ``torch.compile`` (``fullgraph=True`` works) and ``torch.func.vmap`` the lengths'
    range is not checked (that needs a data-dependent read) and the branch-free path is
    taken; out-of-range lengths then act as clamped to ``[0, n_keys]``.

    Args:
        X: attention scores, floating point, shape ``(batch, n_queries, n_keys)``.
        valid_lens: optional lengths of shape ``(batch,)`` (all queries of sequence
            ``b`` see the first ``valid_lens[b]`` keys) or ``(batch, n_queries)`` (query
            ``i`` of sequence ``b`` sees the first ``valid_lens[b, i]`` keys). Entries in
            ``[0, n_keys]``. A tensor of any integer dtype, or of a float dtype holding
            whole numbers (as d2l's BERT passes), a list, or a numpy array.
        mask: optional boolean tensor broadcastable to ``(batch, n_queries, n_keys)``;
            ``True`` = attend (the convention of
            :func:`torch.nn.functional.scaled_dot_product_attention`).

    Returns:
        Weights of the same shape and dtype as ``X``; every row sums to 1 over its valid
        keys, or is all zeros if it has none.

    Shape legend: ``batch`` sequences, ``n_queries`` queries (rows), ``n_keys`` keys.

    Example::

        >>> X = torch.tensor([[[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]]])  # (1, 2, 3)
        >>> masked_softmax(X, torch.tensor([[2, 0]]))
        tensor([[[0.2689, 0.7311, 0.0000],
                 [0.0000, 0.0000, 0.0000]]])
    """
    return _masked_softmax(X, valid_lens, mask, "masked_softmax", "X")


def _masked_softmax(
    X: Tensor, valid_lens: Tensor | None, mask: Tensor | None, fn: str, x_name: str
) -> Tensor:
    """:func:`masked_softmax`, with error messages naming the caller ``fn`` and ``x_name``."""
    X = check_float_tensor(X, x_name, fn, ndim=3, layout=_SCORES)
    batch, n_queries, n_keys = X.shape
    valid_lens, min_len = check_valid_lens(
        valid_lens, batch, n_queries, n_keys, fn, return_min=True
    )
    mask = check_mask(mask, X.shape, fn)
    traced = (
        is_tracing()
        or _is_batched(X)
        or X.device.type == "meta"
        or (valid_lens is not None and _is_batched(valid_lens))
    )
    if valid_lens is None and mask is None:
        out = torch.softmax(X, dim=-1)
        # A row whose every score is -inf (e.g. Gaussian scores with a tiny bandwidth) has
        # no key with positive weight: like a row with no valid key it gets zeros, not the
        # 0/0 = NaN of the formula.
        if not traced and X.numel() and bool(torch.isneginf(X.amax(dim=-1)).any()):
            out = out.masked_fill(torch.isneginf(X.amax(dim=-1, keepdim=True)), 0.0)
        return out
    if X.numel() == 0:  # an empty batch, no queries or no keys: nothing to weigh
        return torch.softmax(X, dim=-1)
    if not traced and mask is None and min_len > 0:
        # Fast path (valid_lens only, every row has a valid key): add a 0/-inf bias looked
        # up per row; exp(-inf - max) is exactly 0 and the add's backward is free. Adding
        # cannot hide a NaN or +inf at a masked position (NaN + -inf = NaN), so the row
        # maxima are checked (cheap: one value per row); only then the replacing path below.
        biased = _lens_bias(valid_lens, n_keys, X.dtype, X.device)  # a fresh tensor
        biased = biased.add_(X) if biased.shape == X.shape else biased + X  # never into X
        if not bool(biased.amax(dim=-1).isnan().any()):
            return torch.softmax(biased, dim=-1)
    ignore = None  # True = masked out, broadcastable to X
    if valid_lens is not None:
        ignore = _lens_to_ignore(valid_lens, n_keys, X.device)
    if mask is not None:
        mask_ignore = ~mask.to(X.device)
        ignore = mask_ignore if ignore is None else (ignore | mask_ignore)
    # Masked positions are replaced (a new tensor; X is never written into), so their
    # values never matter, NaN and +-inf included, with valid_lens and mask= alike (as
    # with SDPA's boolean attn_mask).
    if not traced and not bool(ignore.all(dim=-1).any()):
        # every row keeps a valid key, so a finite maximum: exp(-inf - max) is exactly 0
        return torch.softmax(X.masked_fill(ignore, -math.inf), dim=-1)
    # A row with no valid key: fill with finfo.min instead (finite, so that row becomes a
    # uniform softmax of equal values with finite gradients, never NaN), then zero the
    # masked positions, which turns the empty rows into all-zero rows.
    filled = torch.where(ignore, torch.finfo(X.dtype).min, X)  # (batch, n_queries, n_keys)
    return torch.where(ignore, 0.0, torch.softmax(filled, dim=-1))
