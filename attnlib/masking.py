"""Masked softmax: attention weights that ignore padding keys.

Follows the treatment of masked softmax in d2l (Zhang et al., *Dive into Deep Learning*,
https://d2l.ai, section 11.3) and fixes its known defects: nothing is written into the
input, no magic fill value such as ``-1e6`` (which overflows float16), and a query with no
valid key gets all-zero weights instead of a uniform row or NaN.

Shape legend: ``batch`` sequences, ``n_queries`` queries (rows), ``n_keys`` keys (columns).
"""
from __future__ import annotations

import torch
from torch import Tensor

from attnlib._checks import check_float_tensor, check_mask, check_valid_lens, check_tensor

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
        valid_lens: integer tensor of shape ``(batch,)`` (one length per sequence) or
            ``(batch, n_queries)`` (one length per query), entries in ``[0, n_keys]``.
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
    valid_lens = check_tensor(valid_lens, "valid_lens", fn)
    valid_lens = check_valid_lens(valid_lens, None, n_queries, n_keys, fn)
    ignore = _lens_to_ignore(valid_lens, n_keys, valid_lens.device)
    return (~ignore).expand(valid_lens.shape[0], n_queries, n_keys)  # (batch, n_queries, n_keys)


def masked_softmax(X: Tensor, valid_lens: Tensor | None = None, *,
                   mask: Tensor | None = None) -> Tensor:
    r"""Softmax over the last axis that gives masked keys a weight of exactly zero.

    .. math::
        \text{out}[b, i, j] = \frac{m_{bij}\,\exp(X_{bij})}{\sum_{j'} m_{bij'}\,\exp(X_{bij'})},
        \qquad m_{bij} = [\,j < \text{valid\_lens}\,] \wedge \text{mask}[b, i, j]

    and ``out[b, i, :] = 0`` for a row where no key is valid (instead of the 0/0 = NaN of
    the formula, or the uniform row that d2l's ``-1e6`` fill produces).

    Plain-code reference (what this computes; the implementation never builds ``-inf``
    into a fully masked row and so has finite gradients everywhere)::

        keep = valid_lens_to_mask(valid_lens, n_queries, n_keys) & mask
        filled = X.masked_fill(~keep, torch.finfo(X.dtype).min)   # a copy, X untouched
        out = torch.softmax(filled, dim=-1).masked_fill(~keep, 0.0)

    ``valid_lens`` and ``mask`` may be given together: they are combined with a logical
    AND (a key is attended to only if both allow it). Filling with ``finfo(dtype).min``
    (rather than a fixed ``-1e6``/``-1e9``) is representable in every float dtype, so
    float16 and bfloat16 scores as large as ``±1e4`` give finite weights. Gradients flow to
    ``X`` (a leaf tensor that requires grad works too); masked positions get zero gradient.

    Args:
        X: attention scores, floating point, shape ``(batch, n_queries, n_keys)``.
        valid_lens: optional integer tensor of shape ``(batch,)`` (all queries of sequence
            ``b`` see the first ``valid_lens[b]`` keys) or ``(batch, n_queries)`` (query
            ``i`` of sequence ``b`` sees the first ``valid_lens[b, i]`` keys). Entries in
            ``[0, n_keys]``.
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
    fn = "masked_softmax"
    X = check_float_tensor(X, "X", fn, ndim=3, layout=_SCORES)
    batch, n_queries, n_keys = X.shape
    valid_lens = check_valid_lens(valid_lens, batch, n_queries, n_keys, fn)
    mask = check_mask(mask, X.shape, fn)
    if valid_lens is None and mask is None:
        return torch.softmax(X, dim=-1)
    ignore = None  # True = masked out, broadcastable to X
    if valid_lens is not None:
        ignore = _lens_to_ignore(valid_lens, n_keys, X.device)
    if mask is not None:
        mask_ignore = ~mask.to(X.device)
        ignore = mask_ignore if ignore is None else (ignore | mask_ignore)
    # masked_fill returns a new tensor: X is never written into. finfo.min is finite, so a
    # fully masked row is a uniform softmax of equal values (finite, finite gradients),
    # which the second masked_fill turns into exact zeros.
    filled = X.masked_fill(ignore, torch.finfo(X.dtype).min)  # (batch, n_queries, n_keys)
    return torch.softmax(filled, dim=-1).masked_fill(ignore, 0.0)
