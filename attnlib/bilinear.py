"""General (bilinear, Luong et al. 2015) attention: function and module.

Scores are :func:`attnlib.bilinear_scores`; also importable from :mod:`attnlib.attention`.
"""

from __future__ import annotations

import numbers

import torch
from torch import Tensor, nn

from attnlib._checks import fmt_shape
from attnlib._validate import _scalar
from attnlib.domains import Int, Real, declare
from attnlib.masking import _masked_softmax
from attnlib.pooling import _check_values, check_dropout
from attnlib.scoring import _bilinear_scores
from attnlib.tensor_domains import QK_SIZES, FloatTensor, Lengths, Mask, attention_forward

__all__ = ["bilinear_attention", "GeneralAttention"]


@declare(
    **QK_SIZES,
    values=FloatTensor("batch n_keys d_v", same_dtype_as="queries"),
    W=FloatTensor("d_q d_k", same_dtype_as="queries"),
    valid_lens=Lengths(),
    mask=Mask(),
    differentiable=("queries", "keys", "values", "W"),
)
def bilinear_attention(
    queries: Tensor,
    keys: Tensor,
    values: Tensor,
    W: Tensor,
    valid_lens: Tensor | None = None,
    *,
    mask: Tensor | None = None,
) -> tuple[Tensor, Tensor]:
    r"""General (bilinear, Luong et al. 2015) attention, returning output and weights.

    .. math::
        \operatorname{softmax}\!\left(Q W K^\top\right) V,
        \qquad W \in \mathbb R^{d_q \times d_k}

    Queries and keys may have different sizes; the per-pair cost is one dot product of
    length ``d_k`` after ``W`` maps each query once. No :math:`1/\sqrt d` is applied
    (Luong's score has none; fold it into ``W``): with ``W = torch.eye(d) / math.sqrt(d)``
    this is :func:`dot_product_attention`.

    Plain-code reference::

        scores = queries @ W @ keys.transpose(1, 2)       # (batch, n_queries, n_keys)
        weights = masked_softmax(scores, valid_lens, mask=mask)
        output = weights @ values

    Args:
        queries: ``(batch, n_queries, d_q)``, floating point.
        keys: ``(batch, n_keys, d_k)``, same dtype.
        values: ``(batch, n_keys, d_v)``, same dtype.
        W: ``(d_q, d_k)``, same dtype.
        valid_lens: optional integer tensor ``(batch,)`` or ``(batch, n_queries)``.
        mask: optional boolean tensor broadcastable to ``(batch, n_queries, n_keys)``,
            ``True`` = attend.

    Returns:
        ``(output, weights)``: output ``(batch, n_queries, d_v)``, weights
        ``(batch, n_queries, n_keys)``.

    Shape legend: ``batch`` sequences, ``n_queries`` queries (rows), ``n_keys`` key-value
    pairs (columns), ``d_q`` / ``d_k`` feature sizes of queries / keys, ``d_v`` of values.

    Example::

        >>> q = torch.tensor([[[1.0, 0.0]]])                     # (1, 1, 2): d_q = 2
        >>> k = torch.tensor([[[1.0], [-1.0]]])                  # (1, 2, 1): d_k = 1
        >>> v = torch.tensor([[[1.0], [0.0]]])                   # (1, 2, 1)
        >>> W = torch.tensor([[2.0], [0.0]])                     # (2, 1)
        >>> output, weights = bilinear_attention(q, k, v, W)
        >>> weights                                    # softmax([2, -2])
        tensor([[[0.9820, 0.0180]]])
    """
    fn = "bilinear_attention"
    scores = _bilinear_scores(queries, keys, W, fn, "W")  # (batch, n_queries, n_keys)
    values = _check_values(values, keys, "keys", fn, 1)
    weights = _masked_softmax(scores, valid_lens, mask, fn, "scores")
    return torch.bmm(weights, values), weights  # (batch, n_queries, d_v)


class GeneralAttention(nn.Module):
    r"""General (bilinear) attention module, Luong et al.'s (2015) ``general`` score.

    .. math::
        a(\mathbf q, \mathbf k) = \mathbf q^\top W \mathbf k, \qquad
        \text{output} = \operatorname{dropout}(\operatorname{softmax}(a))\, V

    Queries and keys may have different sizes (like :class:`AdditiveAttention`), at the
    cost of one matrix product: ``W`` is ``self.W.weight``, the weight of a bias-free
    ``nn.Linear(key_size, query_size)``, so ``self.W(keys)`` is :math:`W \mathbf k`. No
    :math:`1/\sqrt d` scale (Luong's score has none; ``W`` can learn one).

    Plain-code reference::

        scores = queries @ self.W.weight @ keys.transpose(1, 2)  # (batch, n_queries, n_keys)
        self.attention_weights = masked_softmax(scores, valid_lens)  # before dropout
        output = self.dropout(self.attention_weights) @ values

    Args:
        query_size: feature size ``d_q`` of the queries.
        key_size: feature size ``d_k`` of the keys.
        dropout: probability of zeroing a weight during training (default 0).

    Forward args:
        queries ``(batch, n_queries, d_q)``, keys ``(batch, n_keys, d_k)``, values
        ``(batch, n_keys, d_v)``, optional valid_lens ``(batch,)`` or ``(batch, n_queries)``;
        keyword-only ``mask`` (bool, True = attend).

    Returns:
        output ``(batch, n_queries, d_v)``; ``.attention_weights`` is
        ``(batch, n_queries, n_keys)``.

    Shape legend: ``batch`` sequences, ``n_queries`` queries (rows), ``n_keys`` key-value
    pairs (columns), ``d_q`` / ``d_k`` feature sizes of queries / keys, ``d_v`` of values.

    Example::

        >>> attn = GeneralAttention(query_size=2, key_size=1).eval()
        >>> _ = nn.init.constant_(attn.W.weight, 1.0)            # W = [[1], [1]]
        >>> q = torch.tensor([[[1.0, 1.0]]])                     # (1, 1, 2)
        >>> k = torch.tensor([[[1.0], [-1.0]]])                  # (1, 2, 1)
        >>> v = torch.tensor([[[1.0], [0.0]]])                   # (1, 2, 1)
        >>> attn(q, k, v)                              # softmax([2, -2]) @ v
        tensor([[[0.9820]]], grad_fn=<BmmBackward0>)
    """

    @declare(query_size=Int(ge=1), key_size=Int(ge=1), dropout=Real(ge=0, le=1))
    def __init__(self, query_size: int, key_size: int, dropout: float = 0.0) -> None:
        super().__init__()
        fn = "GeneralAttention"
        sizes = {}
        for name, v in (("query_size", query_size), ("key_size", key_size)):
            n = _scalar(v)
            if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
                raise ValueError(f"{fn}: {name} must be a positive int; got {v!r}")
            sizes[name] = int(n)
        self.W = nn.Linear(sizes["key_size"], sizes["query_size"], bias=False)
        self.dropout = nn.Dropout(check_dropout(dropout, fn))
        self.attention_weights: Tensor | None = None

    @attention_forward(QK_SIZES)
    def forward(
        self,
        queries: Tensor,
        keys: Tensor,
        values: Tensor,
        valid_lens: Tensor | None = None,
        *,
        mask: Tensor | None = None,
    ) -> Tensor:
        fn = "GeneralAttention"
        d_q, d_k = self.W.out_features, self.W.in_features
        if queries.shape[-1] != d_q:
            raise ValueError(
                f"{fn}: queries must have feature size query_size = {d_q}; got shape "
                f"{fmt_shape(queries.shape)}"
            )
        if keys.shape[-1] != d_k:
            raise ValueError(
                f"{fn}: keys must have feature size key_size = {d_k}; got shape "
                f"{fmt_shape(keys.shape)}"
            )
        values = _check_values(values, keys, "keys", fn, 1)
        scores = _bilinear_scores(queries, keys, self.W.weight, fn, "W")  # (batch, n_q, n_k)
        self.attention_weights = _masked_softmax(scores, valid_lens, mask, fn, "scores")
        return torch.bmm(self.dropout(self.attention_weights), values)  # (batch, n_queries, d_v)
