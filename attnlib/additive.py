"""Additive (Bahdanau) attention: d2l's ``AdditiveAttention``, both of its constructors.

Scores are :func:`attnlib.additive_scores` (computed in blocks); pooling is
:func:`attnlib.attention_pool`'s. Also importable as ``attnlib.attention.AdditiveAttention``.
"""

from __future__ import annotations

import numbers

import torch
from torch import Tensor, nn
from torch.nn.parameter import is_lazy

from attnlib._checks import fmt_shape
from attnlib._validate import _scalar
from attnlib.domains import Int, Real, declare
from attnlib.masking import _masked_softmax
from attnlib.pooling import _check_values, check_dropout
from attnlib.scoring import DEFAULT_BLOCK_ELEMENTS, _additive_scores
from attnlib.tensor_domains import QK_SIZES, attention_forward

__all__ = ["AdditiveAttention"]


def _additive_signature(args: tuple, kwargs: dict) -> tuple:
    """Read both d2l constructors of AdditiveAttention.

    ``(num_hiddens, dropout=0)`` (d2l today, lazily sized) or ``(key_size, query_size,
    num_hiddens, dropout=0)`` (d2l <= 0.17), positionally or by keyword. Returns
    ``(key_size, query_size, num_hiddens, dropout)`` with ``key_size = query_size = None``
    for the lazy form.
    """
    fn = "AdditiveAttention"
    names_old = ("key_size", "query_size", "num_hiddens", "dropout")
    names_new = ("num_hiddens", "dropout")
    unknown = set(kwargs) - set(names_old)
    if unknown:
        raise TypeError(
            f"{fn}: unexpected keyword argument(s) {sorted(unknown)}; use "
            f"AdditiveAttention(num_hiddens, dropout) or AdditiveAttention("
            f"key_size, query_size, num_hiddens, dropout)"
        )
    old_form = len(args) >= 3 or "key_size" in kwargs or "query_size" in kwargs
    names = names_old if old_form else names_new
    if len(args) > len(names):
        raise TypeError(
            f"{fn}: takes at most {len(names_old)} positional arguments (key_size, "
            f"query_size, num_hiddens, dropout); got {len(args)}"
        )
    bound = dict(zip(names, args))
    for k, v in kwargs.items():
        if k in bound:
            raise TypeError(f"{fn}: got multiple values for argument {k!r}")
        bound[k] = v
    if old_form and not {"key_size", "query_size", "num_hiddens"} <= set(bound):
        raise TypeError(
            f"{fn}: the four-argument form needs key_size, query_size and "
            f"num_hiddens; got {sorted(bound)}"
        )
    if "num_hiddens" not in bound:
        raise TypeError(
            f"{fn}: missing num_hiddens: use AdditiveAttention(num_hiddens, "
            f"dropout) (d2l today) or AdditiveAttention(key_size, query_size, "
            f"num_hiddens, dropout) (d2l <= 0.17)"
        )
    sizes = {n: bound[n] for n in ("key_size", "query_size", "num_hiddens") if n in bound}
    for name, v in sizes.items():
        v = _scalar(v)
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 1:
            raise ValueError(f"{fn}: {name} must be a positive int; got {bound[name]!r}")
        bound[name] = int(v)
    dropout = check_dropout(bound.get("dropout", 0.0), fn)
    return bound.get("key_size"), bound.get("query_size"), bound["num_hiddens"], dropout


class AdditiveAttention(nn.Module):
    r"""Additive (Bahdanau) attention module (d2l's ``AdditiveAttention``).

    .. math::
        a(\mathbf q, \mathbf k) = \mathbf w_v^\top \tanh(W_q \mathbf q + W_k \mathbf k),
        \qquad \text{output} = \operatorname{dropout}(\operatorname{softmax}(a))\, V

    Queries and keys may have different feature sizes. Scores are computed by
    :func:`attnlib.additive_scores` in blocks, so the ``(batch, n_queries, n_keys,
    num_hiddens)`` tensor of the broadcast form is never materialised, neither in the
    forward pass nor (its backward recomputes each block) in what autograd keeps for
    backward.

    Plain-code reference::

        features = torch.tanh(self.W_q(queries)[:, :, None] + self.W_k(keys)[:, None])
        scores = self.w_v(features).squeeze(-1)          # (batch, n_queries, n_keys)
        self.attention_weights = masked_softmax(scores, valid_lens)
        output = self.dropout(self.attention_weights) @ values

    The parameters have d2l's names and layouts (``W_k``, ``W_q``, ``w_v``: bias-free
    ``nn.Linear`` layers), so a d2l state dict loads into this module.

    Two constructors, both d2l's:

    - ``AdditiveAttention(num_hiddens, dropout)``, d2l today (since d2l PR #2110, 2022):
      ``W_q``, ``W_k`` and ``w_v`` are :class:`torch.nn.LazyLinear` layers sized by the
      first call (in d2l's order W_q, W_k, w_v, so seeded initial weights match d2l's).
      Run one forward pass before creating the optimizer, as d2l does; a state dict loads
      into an unsized module too.
    - ``AdditiveAttention(key_size, query_size, num_hiddens, dropout)``, d2l <= 0.17:
      sized at construction.

    The parameter names and shapes are the same either way, so state dicts load both ways.

    Args:
        num_hiddens: hidden size ``h``.
        dropout: probability of zeroing a weight during training (default 0).
        key_size: (four-argument form) feature size ``d_k`` of the keys.
        query_size: (four-argument form) feature size ``d_q`` of the queries.
        max_block_elements: keyword-only; largest intermediate block (elements), see
            :func:`attnlib.additive_scores`.

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

        >>> attn = AdditiveAttention(key_size=3, query_size=2, num_hiddens=4).eval()
        >>> _ = [nn.init.constant_(p, 0.5) for p in attn.parameters()]
        >>> q = torch.ones(1, 1, 2)                              # (1, 1, 2)
        >>> k = torch.tensor([[[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]])  # (1, 2, 3)
        >>> v = torch.tensor([[[0.0], [1.0]]])                   # (1, 2, 1)
        >>> attn(q, k, v).shape
        torch.Size([1, 1, 1])
        >>> attn.attention_weights.detach()        # softmax(2 tanh(1), 2 tanh(2.5))
        tensor([[[0.3894, 0.6106]]])
    """

    @declare(
        num_hiddens=Int(ge=1),
        key_size=Int(ge=1),
        query_size=Int(ge=1),
        dropout=Real(ge=0, le=1),
        max_block_elements=Int(ge=1),
    )
    def __init__(self, *args, max_block_elements: int = DEFAULT_BLOCK_ELEMENTS, **kwargs) -> None:
        super().__init__()
        key_size, query_size, num_hiddens, dropout = _additive_signature(args, kwargs)
        if key_size is None:
            # d2l today: layers sized on the first call, like nn.LazyLinear (which they are)
            self.W_k = nn.LazyLinear(num_hiddens, bias=False)
            self.W_q = nn.LazyLinear(num_hiddens, bias=False)
            self.w_v = nn.LazyLinear(1, bias=False)
        else:
            self.W_k = nn.Linear(key_size, num_hiddens, bias=False)
            self.W_q = nn.Linear(query_size, num_hiddens, bias=False)
            self.w_v = nn.Linear(num_hiddens, 1, bias=False)
        self.num_hiddens = num_hiddens
        self.dropout = nn.Dropout(dropout)
        self.max_block_elements = max_block_elements
        self.attention_weights: Tensor | None = None

    def _materialise(self, queries: Tensor, keys: Tensor) -> None:
        """Size lazy layers from the first inputs, in d2l's order (W_q, W_k, then w_v), so
        that a seeded d2l model and this one draw the same initial weights.

        Refused, naming what differs: inputs of another dtype than the layers' parameters
        (a float64 first call of a float32 module), and a lazy layer that was loaded (a state
        dict) with sizes the inputs or ``num_hiddens`` contradict."""
        fn = "AdditiveAttention"
        layers = (
            ("W_q", self.W_q, queries.shape[-1], "queries' feature size (query_size)"),
            ("W_k", self.W_k, keys.shape[-1], "keys' feature size (key_size)"),
            ("w_v", self.w_v, self.num_hiddens, "num_hiddens"),
        )
        for name, layer, size, what in layers:
            if layer.weight.dtype != queries.dtype:
                raise TypeError(
                    f"{fn}: queries and keys are {queries.dtype}, but the parameters ({name}) "
                    f"are {layer.weight.dtype}; convert one to the other, e.g. "
                    f"attention.to({queries.dtype}) before the first call"
                )
            if (
                isinstance(layer, nn.LazyLinear)
                and not is_lazy(layer.weight)
                and layer.weight.shape[1] != size
            ):
                raise ValueError(
                    f"{fn}: {name} was loaded (state dict) with in_features "
                    f"{layer.weight.shape[1]}, but the {what} is {size}"
                )
        if isinstance(self.W_q, nn.LazyLinear):
            self.W_q(queries[:, :0])  # (batch, 0, query_size): sizes W_q, computes nothing
        if isinstance(self.W_k, nn.LazyLinear):
            self.W_k(keys[:, :0])  # (batch, 0, key_size)
        if isinstance(self.w_v, nn.LazyLinear):
            self.w_v(queries.new_zeros(0, self.num_hiddens))  # (0, num_hiddens)

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
        fn = "AdditiveAttention"
        self._materialise(queries, keys)
        if queries.shape[-1] != self.W_q.in_features:
            raise ValueError(
                f"{fn}: queries must have feature size query_size = "
                f"{self.W_q.in_features}; got shape {fmt_shape(queries.shape)}"
            )
        if keys.shape[-1] != self.W_k.in_features:
            raise ValueError(
                f"{fn}: keys must have feature size key_size = "
                f"{self.W_k.in_features}; got shape {fmt_shape(keys.shape)}"
            )
        values = _check_values(values, keys, "keys", fn, 1)
        scores = _additive_scores(
            queries,
            keys,
            self.W_q.weight,
            self.W_k.weight,
            self.w_v.weight[0],  # (h,)
            self.max_block_elements,
            fn,
        )  # (batch, n_queries, n_keys)
        self.attention_weights = _masked_softmax(scores, valid_lens, mask, fn, "scores")
        return torch.bmm(self.dropout(self.attention_weights), values)  # (batch, n_queries, d_v)
