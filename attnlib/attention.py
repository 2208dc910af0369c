"""Attention pooling: weighted averages of values, and the d2l attention modules.

Pure functions first (:func:`attention_pool`, :func:`dot_product_attention`), then thin
``nn.Module`` wrappers with the interface of d2l (Zhang et al., *Dive into Deep Learning*,
https://d2l.ai, section 11.3): ``forward(queries, keys, values, valid_lens=None)`` returns
the output, and ``.attention_weights`` holds the weights of the last call (before
dropout, as in d2l).

Shape legend used throughout:

- ``batch``: number of independent sequences
- ``n_queries``: queries per sequence (rows of the weight matrix)
- ``n_keys``: key-value pairs per sequence (columns)
- ``d``: feature size of queries and keys (``d_q``/``d_k`` when they may differ)
- ``d_v``: feature size of values
"""

from __future__ import annotations

import math
import numbers

import torch
from torch import Tensor, nn
from torch.nn.parameter import is_lazy

from attnlib._checks import check_dim_match, check_float_tensor, check_same_dtype, fmt_shape
from attnlib._validate import _scalar
from attnlib.masking import _masked_softmax
from attnlib.scoring import (
    DEFAULT_BLOCK_ELEMENTS,
    _additive_scores,
    _bilinear_scores,
    _cosine_scores,
    _dot_product_scores,
)

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

    def __init__(self, dropout: float = 0.0) -> None:
        super().__init__()
        self.dropout = nn.Dropout(check_dropout(dropout, "DotProductAttention"))
        self.attention_weights: Tensor | None = None

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
        queries = check_float_tensor(
            queries, "queries", fn, ndim=3, layout="(batch, n_queries, query_size)"
        )
        keys = check_float_tensor(keys, "keys", fn, ndim=3, layout="(batch, n_keys, key_size)")
        if queries.is_complex() or keys.is_complex():
            raise TypeError(
                f"{fn}: queries and keys must be real floating-point tensors; got "
                f"{queries.dtype} and {keys.dtype}"
            )
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
        queries = check_float_tensor(
            queries, "queries", fn, ndim=3, layout="(batch, n_queries, query_size)"
        )
        keys = check_float_tensor(keys, "keys", fn, ndim=3, layout="(batch, n_keys, key_size)")
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
