"""Scaled dot-product attention, and the d2l names of every attention module.

Pure functions first (:func:`attention_pool`, :func:`dot_product_attention`), then thin
``nn.Module`` wrappers with the interface of d2l (Zhang et al., *Dive into Deep Learning*,
https://d2l.ai, section 11.3): ``forward(queries, keys, values, valid_lens=None)`` returns
the output, and ``.attention_weights`` holds the weights of the last call (before
dropout, as in d2l).

The other scores have their own modules (:mod:`attnlib.additive`, :mod:`attnlib.cosine`,
:mod:`attnlib.bilinear`; pooling itself is :mod:`attnlib.pooling`); their names are
re-exported here, so ``attnlib.attention.AdditiveAttention`` keeps working.

Shape legend used throughout:

- ``batch``: number of independent sequences
- ``n_queries``: queries per sequence (rows of the weight matrix)
- ``n_keys``: key-value pairs per sequence (columns)
- ``d``: feature size of queries and keys (``d_q``/``d_k`` when they may differ)
- ``d_v``: feature size of values
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from attnlib.additive import AdditiveAttention
from attnlib.bilinear import GeneralAttention, bilinear_attention
from attnlib.cosine import CosineAttention, cosine_attention
from attnlib.domains import Real, declare
from attnlib.masking import _masked_softmax
from attnlib.pooling import _check_values, attention_pool, check_dropout
from attnlib.scoring import _dot_product_scores
from attnlib.tensor_domains import KV, QK, attention_forward

__all__ = [
    "attention_pool",
    "dot_product_attention",
    "cosine_attention",
    "bilinear_attention",
    "DotProductAttention",
    "AdditiveAttention",
    "CosineAttention",
    "GeneralAttention",
]


@declare(
    **QK,
    **KV,
    differentiable=("queries", "keys", "values"),
)
def dot_product_attention(
    queries: Tensor,
    keys: Tensor,
    values: Tensor,
    valid_lens: Tensor | None = None,
    *,
    mask: Tensor | None = None,
) -> tuple[Tensor, Tensor]:
    r"""Scaled dot-product attention that also returns the attention weights.

    .. math::
        \operatorname{softmax}\!\left(\frac{Q K^\top}{\sqrt d}\right) V

    with masked keys given weight exactly 0 (see :func:`attnlib.masked_softmax`). For rows
    with at least one valid key this equals
    :func:`torch.nn.functional.scaled_dot_product_attention` with
    ``attn_mask = valid_lens_to_mask(...)``; for a row with no valid key both return zeros
    (SDPA in the pinned torch 2.13; older versions returned NaN there).

    Plain-code reference::

        scores = queries @ keys.transpose(1, 2) / math.sqrt(d)
        weights = masked_softmax(scores, valid_lens, mask=mask)
        output = weights @ values

    Args:
        queries: ``(batch, n_queries, d)``, floating point.
        keys: ``(batch, n_keys, d)``, same dtype and feature size.
        values: ``(batch, n_keys, d_v)``, same dtype.
        valid_lens: optional integer tensor ``(batch,)`` or ``(batch, n_queries)``.
        mask: optional boolean tensor broadcastable to ``(batch, n_queries, n_keys)``,
            ``True`` = attend.

    Returns:
        ``(output, weights)``: output ``(batch, n_queries, d_v)``, weights
        ``(batch, n_queries, n_keys)``.

    Shape legend: ``batch`` sequences, ``n_queries`` queries (rows), ``n_keys`` key-value
    pairs (columns), ``d`` feature size of queries and keys, ``d_v`` of values.

    Example::

        >>> q = torch.tensor([[[2.0, 0.0]]])                     # (1, 1, 2)
        >>> k = torch.tensor([[[1.0, 0.0], [-1.0, 0.0]]])        # (1, 2, 2)
        >>> v = torch.tensor([[[1.0], [0.0]]])                   # (1, 2, 1)
        >>> output, weights = dot_product_attention(q, k, v)
        >>> weights                                    # softmax([2, -2] / sqrt(2))
        tensor([[[0.9442, 0.0558]]])
    """
    fn = "dot_product_attention"
    scores = _dot_product_scores(queries, keys, fn)  # (batch, n_queries, n_keys)
    values = _check_values(values, keys, "keys", fn, 1)
    weights = _masked_softmax(scores, valid_lens, mask, fn, "scores")
    return torch.bmm(weights, values), weights  # (batch, n_queries, d_v)


class DotProductAttention(nn.Module):
    r"""Scaled dot-product attention module (d2l's ``DotProductAttention``).

    .. math::
        \operatorname{dropout}\!\left(\operatorname{softmax}\!\left(
        \frac{Q K^\top}{\sqrt d}\right)\right) V

    Plain-code reference::

        weights = masked_softmax(queries @ keys.transpose(1, 2) / math.sqrt(d), valid_lens)
        self.attention_weights = weights                  # before dropout, as in d2l
        output = self.dropout(weights) @ values

    Dropout is applied to the weights in training mode only (``module.train()``); in
    ``eval()`` mode the output equals :func:`dot_product_attention`.

    Args:
        dropout: probability of zeroing a weight during training (default 0).

    Forward args:
        queries ``(batch, n_queries, d)``, keys ``(batch, n_keys, d)``, values
        ``(batch, n_keys, d_v)``, optional valid_lens ``(batch,)`` or
        ``(batch, n_queries)`` (integer); keyword-only ``mask`` (bool, True = attend).

    Returns:
        output ``(batch, n_queries, d_v)``; ``.attention_weights`` is
        ``(batch, n_queries, n_keys)``.

    Shape legend: ``batch`` sequences, ``n_queries`` queries (rows), ``n_keys`` key-value
    pairs (columns), ``d`` feature size of queries and keys, ``d_v`` of values.

    Example::

        >>> attn = DotProductAttention(dropout=0.5).eval()
        >>> q = torch.tensor([[[2.0, 0.0]]])                     # (1, 1, 2)
        >>> k = torch.tensor([[[1.0, 0.0], [-1.0, 0.0]]])        # (1, 2, 2)
        >>> v = torch.tensor([[[1.0], [0.0]]])                   # (1, 2, 1)
        >>> attn(q, k, v, torch.tensor([1]))
        tensor([[[1.]]])
        >>> attn.attention_weights
        tensor([[[1., 0.]]])
    """

    @declare(dropout=Real(ge=0, le=1))
    def __init__(self, dropout: float = 0.0) -> None:
        super().__init__()
        self.dropout = nn.Dropout(check_dropout(dropout, "DotProductAttention"))
        self.attention_weights: Tensor | None = None

    @attention_forward()
    def forward(
        self,
        queries: Tensor,
        keys: Tensor,
        values: Tensor,
        valid_lens: Tensor | None = None,
        *,
        mask: Tensor | None = None,
    ) -> Tensor:
        fn = "DotProductAttention"
        scores = _dot_product_scores(queries, keys, fn)  # (batch, n_queries, n_keys)
        values = _check_values(values, keys, "keys", fn, 1)
        self.attention_weights = _masked_softmax(scores, valid_lens, mask, fn, "scores")
        return torch.bmm(self.dropout(self.attention_weights), values)  # (batch, n_queries, d_v)
