"""Attention pooling: softmax the scores over the keys and average the values.

The step every attention module of the package ends with (d2l, https://d2l.ai, section
11.1), and the checks those modules share: values against the scores or keys they pool
(:func:`_check_values`) and a dropout probability (:func:`check_dropout`).
"""

from __future__ import annotations

import numbers

import torch
from torch import Tensor

from attnlib._checks import check_dim_match, check_float_tensor, check_same_dtype
from attnlib._validate import _scalar
from attnlib.domains import declare
from attnlib.masking import _masked_softmax
from attnlib.tensor_domains import FloatTensor, Lengths, Mask

__all__ = ["attention_pool"]


def _check_values(
    values: object, scores_like: Tensor, scores_name: str, fn: str, n_keys_dim: int
) -> Tensor:
    values = check_float_tensor(values, "values", fn, ndim=3, layout="(batch, n_keys, d_v)")
    check_same_dtype(fn, **{scores_name: scores_like, "values": values})
    check_dim_match(fn, "values", values, 0, scores_name, scores_like, 0, "batch size")
    check_dim_match(
        fn, "values", values, 1, scores_name, scores_like, n_keys_dim, "number of keys n_keys"
    )
    return values


@declare(
    scores=FloatTensor("batch n_queries n_keys"),
    values=FloatTensor("batch n_keys d_v", same_dtype_as="scores"),
    valid_lens=Lengths(),
    mask=Mask(),
    differentiable=("scores", "values"),
)
def attention_pool(
    scores: Tensor, values: Tensor, valid_lens: Tensor | None = None, *, mask: Tensor | None = None
) -> tuple[Tensor, Tensor]:
    r"""Attention pooling: softmax the scores over the keys and average the values.

    .. math::
        \text{weights} = \operatorname{masked\_softmax}(\text{scores}), \qquad
        \text{output}_{bi} = \sum_j \text{weights}_{bij}\, \text{values}_{bj}

    Plain-code reference::

        weights = attnlib.masked_softmax(scores, valid_lens, mask=mask)
        output = weights @ values

    A query with no valid key gets zero weights and therefore a zero output.

    Args:
        scores: ``(batch, n_queries, n_keys)``, floating point.
        values: ``(batch, n_keys, d_v)``, same dtype.
        valid_lens: optional integer tensor ``(batch,)`` or ``(batch, n_queries)``; see
            :func:`attnlib.masked_softmax`.
        mask: optional boolean tensor broadcastable to ``(batch, n_queries, n_keys)``,
            ``True`` = attend (combined with ``valid_lens`` by logical AND).

    Returns:
        ``(output, weights)``: output ``(batch, n_queries, d_v)`` and weights
        ``(batch, n_queries, n_keys)``.

    Shape legend: ``batch`` sequences, ``n_queries`` queries (rows), ``n_keys`` key-value
    pairs (columns), ``d`` feature size of queries and keys, ``d_v`` of values.

    Example::

        >>> scores = torch.tensor([[[0.0, 0.0, 5.0]]])            # (1, 1, 3)
        >>> values = torch.tensor([[[1.0], [3.0], [100.0]]])      # (1, 3, 1)
        >>> output, weights = attention_pool(scores, values, torch.tensor([2]))
        >>> output, weights
        (tensor([[[2.]]]), tensor([[[0.5000, 0.5000, 0.0000]]]))
    """
    fn = "attention_pool"
    scores = check_float_tensor(scores, "scores", fn, ndim=3, layout="(batch, n_queries, n_keys)")
    values = _check_values(values, scores, "scores", fn, 2)
    weights = _masked_softmax(scores, valid_lens, mask, fn, "scores")
    return torch.bmm(weights, values), weights  # (batch, n_queries, d_v)


def check_dropout(p: object, fn: str) -> float:
    """A dropout probability in [0, 1] as a float: a number, numpy scalar or 0-d tensor (not a
    bool, a string or None); refused at construction, not at the first forward."""
    v = _scalar(p)
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(
            f"{fn}: dropout must be a probability in [0, 1] (a number); got {p!r} "
            f"({type(p).__name__})"
        )
    v = float(v)
    if not 0.0 <= v <= 1.0:  # NaN fails too
        raise ValueError(f"{fn}: dropout must be a probability in [0, 1]; got {v}")
    return v
