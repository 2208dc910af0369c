"""Cosine-similarity attention with a temperature (QK-norm): function and module.

Scores are :func:`attnlib.cosine_scores`; also importable from :mod:`attnlib.attention`.
"""

from __future__ import annotations

import math
import numbers

import torch
from torch import Tensor, nn

from attnlib._validate import _scalar
from attnlib.domains import Bool, Real, declare
from attnlib.masking import _masked_softmax
from attnlib.pooling import _check_values, check_dropout
from attnlib.scoring import _cosine_scores
from attnlib.tensor_domains import KV, QK, attention_forward

__all__ = ["cosine_attention", "CosineAttention"]


@declare(
    **QK,
    **KV,
    temperature=Real(gt=0, tensor=True),
    differentiable=("queries", "keys", "values"),
)
def cosine_attention(
    queries: Tensor,
    keys: Tensor,
    values: Tensor,
    valid_lens: Tensor | None = None,
    *,
    temperature: float | Tensor = 1.0,
    mask: Tensor | None = None,
) -> tuple[Tensor, Tensor]:
    r"""Cosine-similarity attention with a temperature, returning output and weights.

    .. math::
        \operatorname{softmax}\!\left(\frac{\hat Q \hat K^\top}{\tau}\right) V,
        \qquad \hat{\mathbf q} = \mathbf q / \lVert \mathbf q\rVert,\;
        \hat{\mathbf k} = \mathbf k / \lVert \mathbf k\rVert

    Scores are :func:`attnlib.cosine_scores` (in ``[-1/τ, 1/τ]``: a long key is not
    preferred for its length); masked keys get weight exactly 0, and a query with no valid
    key gets zero weights and a zero output (see :func:`attnlib.masked_softmax`).

    Plain-code reference::

        q = queries / queries.norm(dim=-1, keepdim=True)
        k = keys / keys.norm(dim=-1, keepdim=True)
        weights = masked_softmax(q @ k.transpose(1, 2) / temperature, valid_lens, mask=mask)
        output = weights @ values

    Args:
        queries: ``(batch, n_queries, d)``, floating point, finite.
        keys: ``(batch, n_keys, d)``, same dtype and feature size, finite.
        values: ``(batch, n_keys, d_v)``, same dtype.
        valid_lens: optional integer tensor ``(batch,)`` or ``(batch, n_queries)``.
        temperature: keyword-only :math:`\tau > 0` (number or single-element tensor).
        mask: optional boolean tensor broadcastable to ``(batch, n_queries, n_keys)``,
            ``True`` = attend.

    Returns:
        ``(output, weights)``: output ``(batch, n_queries, d_v)``, weights
        ``(batch, n_queries, n_keys)``.

    Shape legend: ``batch`` sequences, ``n_queries`` queries (rows), ``n_keys`` key-value
    pairs (columns), ``d`` feature size of queries and keys, ``d_v`` of values.

    Example::

        >>> q = torch.tensor([[[1.0, 0.0]]])                     # (1, 1, 2)
        >>> k = torch.tensor([[[1.0, 0.0], [-5.0, 0.0]]])        # (1, 2, 2)
        >>> v = torch.tensor([[[1.0], [0.0]]])                   # (1, 2, 1)
        >>> output, weights = cosine_attention(q, k, v, temperature=0.5)
        >>> weights                                    # softmax([1, -1] / 0.5)
        tensor([[[0.9820, 0.0180]]])
    """
    fn = "cosine_attention"
    scores = _cosine_scores(queries, keys, temperature, fn)  # (batch, n_queries, n_keys)
    values = _check_values(values, keys, "keys", fn, 1)
    weights = _masked_softmax(scores, valid_lens, mask, fn, "scores")
    return torch.bmm(weights, values), weights  # (batch, n_queries, d_v)


def _check_temperature(value: object, fn: str) -> float:
    v = _scalar(value)
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(
            f"{fn}: temperature must be a positive number; got {value!r} ({type(value).__name__})"
        )
    v = float(v)
    if not (v > 0 and math.isfinite(v)):
        raise ValueError(f"{fn}: temperature must be > 0 and finite; got {v}")
    return v


class CosineAttention(nn.Module):
    r"""Cosine-similarity attention module with a fixed or learned temperature (QK-norm).

    .. math::
        \operatorname{dropout}\!\left(\operatorname{softmax}\!\left(
        \frac{\hat Q \hat K^\top}{\tau}\right)\right) V

    Queries and keys are normalised to unit length, so a key's length no longer raises its
    score. With ``learn_temperature=True`` the temperature is a parameter, stored as
    ``log_temperature`` (so it stays positive), as in QK-norm (Henry et al., 2020);
    otherwise it is a plain number (no parameter, no buffer).

    Plain-code reference::

        scores = cosine_scores(queries, keys, self.temperature)   # (batch, n_queries, n_keys)
        self.attention_weights = masked_softmax(scores, valid_lens)  # before dropout
        output = self.dropout(self.attention_weights) @ values

    Args:
        temperature: :math:`\tau > 0` (default 1); the initial value if learned.
        dropout: probability of zeroing a weight during training (default 0).
        learn_temperature: keyword-only; make :math:`\log \tau` a parameter.

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

        >>> attn = CosineAttention(temperature=0.5).eval()
        >>> q = torch.tensor([[[1.0, 0.0]]])                     # (1, 1, 2)
        >>> k = torch.tensor([[[1.0, 0.0], [-5.0, 0.0]]])        # (1, 2, 2)
        >>> v = torch.tensor([[[1.0], [0.0]]])                   # (1, 2, 1)
        >>> attn(q, k, v)                              # softmax([2, -2]) @ v
        tensor([[[0.9820]]])
    """

    @declare(temperature=Real(gt=0), dropout=Real(ge=0, le=1), learn_temperature=Bool())
    def __init__(
        self, temperature: float = 1.0, dropout: float = 0.0, *, learn_temperature: bool = False
    ) -> None:
        super().__init__()
        fn = "CosineAttention"
        t = _check_temperature(temperature, fn)
        if not isinstance(learn_temperature, bool):
            raise TypeError(
                f"{fn}: learn_temperature must be True or False; got {learn_temperature!r}"
            )
        self.dropout = nn.Dropout(check_dropout(dropout, fn))
        self.learn_temperature = learn_temperature
        self._temperature = t  # the fixed temperature, exactly as given
        if learn_temperature:
            self.log_temperature = nn.Parameter(torch.tensor(math.log(t)))  # ()
        self.attention_weights: Tensor | None = None

    @property
    def temperature(self) -> float | Tensor:
        """The temperature: the number given, or exp(log_temperature) (a 0-d tensor) if
        learned."""
        return self.log_temperature.exp() if self.learn_temperature else self._temperature

    def extra_repr(self) -> str:
        learned = ", learned" if self.learn_temperature else ""
        return f"temperature={float(self.temperature):.4g}{learned}"

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
        fn = "CosineAttention"
        scores = _cosine_scores(queries, keys, self.temperature, fn)  # (batch, n_q, n_k)
        values = _check_values(values, keys, "keys", fn, 1)
        self.attention_weights = _masked_softmax(scores, valid_lens, mask, fn, "scores")
        return torch.bmm(self.dropout(self.attention_weights), values)  # (batch, n_queries, d_v)
