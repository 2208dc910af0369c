"""The Transformer's attention: multi-head attention and sinusoidal positional encoding.

Follows Vaswani et al., "Attention is all you need" (NeurIPS 2017), with the interface of
d2l (Zhang et al., *Dive into Deep Learning*, https://d2l.ai, sections 11.5 and 11.6): a
d2l reader replaces ``d2l.MultiHeadAttention`` and ``d2l.PositionalEncoding`` with
``attnlib.MultiHeadAttention`` and ``attnlib.PositionalEncoding``.

Pure function first (:func:`sinusoidal_encoding`), then the ``nn.Module`` wrappers.

Shape legend:

- ``batch``: number of independent sequences
- ``n_queries`` / ``n_keys``: queries (rows of every weight matrix) and key-value pairs
- ``num_hiddens``: feature size after the projections (``d`` in the paper's ``d_model``)
- ``num_heads``: heads; each works in ``num_hiddens // num_heads`` dimensions
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from attnlib._checks import check_float_tensor, check_mask, check_valid_lens
from attnlib._validate import as_bool, as_int
from attnlib.attention import DotProductAttention, check_dropout
from attnlib.domains import Anything, Bool, Int, Real, declare
from attnlib.tensor_domains import QK_SIZES, FloatTensor, attention_forward

__all__ = [
    "sinusoidal_encoding",
    "causal_valid_lens",
    "MultiHeadAttention",
    "PositionalEncoding",
]


@declare(
    max_len=Int(ge=1, le=2**24),
    num_hiddens=Int(ge=1, le=2**16),
    dtype=Anything("a floating-point torch.dtype: checked in the body"),
)
def sinusoidal_encoding(
    max_len: int, num_hiddens: int, *, dtype: torch.dtype = torch.float32
) -> Tensor:
    r"""The sinusoidal position table of Vaswani et al. (2017), d2l's ``PositionalEncoding.P``.

    .. math::
        P_{i,\,2j} = \sin\!\left(\frac{i}{10000^{2j/d}}\right), \qquad
        P_{i,\,2j+1} = \cos\!\left(\frac{i}{10000^{2j/d}}\right)

    Plain-code reference::

        i = torch.arange(max_len).reshape(-1, 1)                # (max_len, 1)
        freq = 10000 ** (torch.arange(0, d, 2) / d)             # (ceil(d / 2),)
        P[:, 0::2], P[:, 1::2] = sin(i / freq), cos(i / freq)  # an odd d drops the last cos

    Args:
        max_len: number of positions (rows), an int >= 1.
        num_hiddens: encoding size ``d`` (columns), an int >= 1 (odd sizes are allowed).
        dtype: a floating-point dtype (keyword-only; default float32).

    Returns:
        ``(max_len, num_hiddens)``: row ``i`` is the encoding of position ``i``.

    Example::

        >>> sinusoidal_encoding(3, 4)
        tensor([[ 0.0000,  1.0000,  0.0000,  1.0000],
                [ 0.8415,  0.5403,  0.0100,  0.9999],
                [ 0.9093, -0.4161,  0.0200,  0.9998]])
    """
    fn = "sinusoidal_encoding"
    max_len = as_int(max_len, "max_len", fn, min=1)
    num_hiddens = as_int(num_hiddens, "num_hiddens", fn, min=1)
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise TypeError(f"{fn}: dtype must be a floating-point torch.dtype; got {dtype!r}")
    # computed in float32 as d2l does, so the table equals d2l's bit for bit, then cast
    i = torch.arange(max_len, dtype=torch.float32).reshape(-1, 1)  # (max_len, 1)
    freq = torch.pow(10000, torch.arange(0, num_hiddens, 2, dtype=torch.float32) / num_hiddens)
    angles = i / freq  # (max_len, ceil(num_hiddens / 2))
    P = torch.zeros(max_len, num_hiddens)
    P[:, 0::2] = torch.sin(angles)
    P[:, 1::2] = torch.cos(angles[:, : num_hiddens // 2])
    return P.to(dtype)


class PositionalEncoding(nn.Module):
    r"""Add the sinusoidal position table to a sequence of embeddings, then dropout.

    .. math::
        \operatorname{dropout}(X + P_{:n}), \qquad P = \text{sinusoidal\_encoding}

    Plain-code reference::

        self.P = sinusoidal_encoding(max_len, num_hiddens).unsqueeze(0)  # (1, max_len, d)
        output = self.dropout(X + self.P[:, : X.shape[1], :])

    ``.P`` is d2l's ``(1, max_len, num_hiddens)`` table (a plain attribute, as in d2l: not
    in the state dict, moved to ``X``'s device and dtype on each call).

    Args:
        num_hiddens: encoding size ``d``, an int >= 1.
        dropout: probability of zeroing an entry in training mode, in [0, 1].
        max_len: the longest sequence it can encode, an int >= 1 (default 1000).

    Forward args:
        X: ``(batch, n, num_hiddens)``, floating point, with ``n <= max_len``.

    Returns:
        ``(batch, n, num_hiddens)``.

    Example::

        >>> pe = PositionalEncoding(4, dropout=0.0)
        >>> pe(torch.zeros(1, 2, 4))                      # (1, 2, 4): the first two rows of P
        tensor([[[0.0000, 1.0000, 0.0000, 1.0000],
                 [0.8415, 0.5403, 0.0100, 0.9999]]])
    """

    @declare(
        num_hiddens=Int(ge=1, le=2**16), dropout=Real(ge=0, le=1), max_len=Int(ge=1, le=2**24)
    )
    def __init__(self, num_hiddens: int, dropout: float, max_len: int = 1000) -> None:
        super().__init__()
        fn = "PositionalEncoding"
        self.num_hiddens = as_int(num_hiddens, "num_hiddens", fn, min=1)
        self.max_len = as_int(max_len, "max_len", fn, min=1)
        self.dropout = nn.Dropout(check_dropout(dropout, fn))
        self.P = sinusoidal_encoding(self.max_len, self.num_hiddens).unsqueeze(0)  # (1, L, d)

    @declare(X=FloatTensor("batch n num_hiddens"), differentiable=("X",))
    def forward(self, X: Tensor) -> Tensor:
        fn = "PositionalEncoding"
        X = check_float_tensor(X, "X", fn, ndim=3, layout="(batch, n, num_hiddens)")
        if X.shape[2] != self.num_hiddens:
            raise ValueError(
                f"{fn}: X must have num_hiddens = {self.num_hiddens} features (last "
                f"dimension); got shape {tuple(X.shape)}"
            )
        if X.shape[1] > self.max_len:
            raise ValueError(
                f"{fn}: X has {X.shape[1]} positions but max_len = {self.max_len}; build it "
                f"with max_len >= {X.shape[1]}"
            )
        P = self.P[:, : X.shape[1], :].to(device=X.device, dtype=X.dtype)  # (1, n, d)
        return self.dropout(X + P)

    def extra_repr(self) -> str:
        return f"num_hiddens={self.num_hiddens}, max_len={self.max_len}"


class MultiHeadAttention(nn.Module):
    r"""Multi-head attention (Vaswani et al. 2017; d2l's ``MultiHeadAttention``).

    .. math::
        \text{head}_h = \operatorname{softmax}\!\left(
            \frac{(Q W_q)_h (K W_k)_h^\top}{\sqrt{d/H}}\right) (V W_v)_h, \qquad
        \text{output} = [\text{head}_1, \dots, \text{head}_H]\, W_o

    where ``(.)_h`` is the ``h``-th block of ``d / H`` columns. ``H`` heads of size ``d / H``
    cost about what one head of size ``d`` costs.

    Plain-code reference::

        q = self.W_q(queries).reshape(b, n_q, H, d // H).transpose(1, 2)   # (b, H, n_q, d/H)
        k = self.W_k(keys).reshape(b, n_k, H, d // H).transpose(1, 2)      # (b, H, n_k, d/H)
        v = self.W_v(values).reshape(b, n_k, H, d // H).transpose(1, 2)    # (b, H, n_k, d/H)
        weights = masked_softmax(q @ k.transpose(-1, -2) / sqrt(d // H), valid_lens)
        heads = dropout(weights) @ v                                        # (b, H, n_q, d/H)
        output = self.W_o(heads.transpose(1, 2).reshape(b, n_q, d))         # (b, n_q, d)

    ``W_q``, ``W_k``, ``W_v``, ``W_o`` are ``nn.LazyLinear(num_hiddens, bias=bias)``: sized
    by the first call (queries, keys and values may have different feature sizes). The
    heads run as one batch of ``batch * num_heads`` through ``self.attention``, a
    :class:`attnlib.DotProductAttention` (as in d2l).

    **Weights layout (a decision).** ``.attention_weights`` is
    ``(batch, num_heads, n_queries, n_keys)``: sequence first, then head, queries are rows
    (the layout ``nn.MultiheadAttention`` returns when its forward call is given
    ``average_attn_weights=False``, an argument of the call, not of the constructor). d2l's layout,
    ``(batch * num_heads, n_queries, n_keys)`` with the heads of sequence 0 first, stays at
    ``.attention.attention_weights``, so d2l's Transformer code runs unchanged. Both are the
    weights before dropout.

    Args:
        num_hiddens: output size of every projection ``d``, an int >= 1, divisible by
            ``num_heads``.
        num_heads: number of heads ``H``, an int >= 1.
        dropout: probability of zeroing an attention weight in training mode, in [0, 1].
        bias: whether the four projections have a bias (default False, as in d2l).

    Forward args:
        queries: ``(batch, n_queries, d_q)``, floating point.
        keys: ``(batch, n_keys, d_k)``, same dtype.
        values: ``(batch, n_keys, d_v)``, same dtype.
        valid_lens: ``None``, or integer lengths ``(batch,)`` (one per sequence) or
            ``(batch, n_queries)`` (one per query: ``valid_lens[b, i] = i + 1`` is the
            causal mask), each in ``[0, n_keys]``; shared by all heads.
        mask: keyword-only boolean tensor broadcastable to ``(batch, n_queries, n_keys)``,
            ``True`` = attend, shared by all heads (combined with ``valid_lens`` by AND).

    Returns:
        output ``(batch, n_queries, num_hiddens)``.

    Shape legend: ``batch`` sequences, ``n_queries`` queries (rows), ``n_keys`` key-value
    pairs (columns), ``H = num_heads``, ``d = num_hiddens``.

    Example::

        >>> mha = MultiHeadAttention(num_hiddens=8, num_heads=2, dropout=0.0)
        >>> X = torch.ones(1, 3, 5)                              # (1, 3, 5)
        >>> mha(X, X, X, torch.tensor([2])).shape
        torch.Size([1, 3, 8])
        >>> mha.attention_weights[0, 0].detach()                 # head 0: 2 valid keys
        tensor([[0.5000, 0.5000, 0.0000],
                [0.5000, 0.5000, 0.0000],
                [0.5000, 0.5000, 0.0000]])
    """

    @declare(num_hiddens=Int(ge=1), num_heads=Int(ge=1), dropout=Real(ge=0, le=1), bias=Bool())
    def __init__(
        self, num_hiddens: int, num_heads: int, dropout: float, bias: bool = False, **kwargs
    ) -> None:
        super().__init__()
        fn = "MultiHeadAttention"
        if kwargs:  # d2l's signature accepts **kwargs and ignores them; refuse, naming them
            raise TypeError(f"{fn}: unexpected keyword argument(s) {sorted(kwargs)}")
        num_hiddens = as_int(num_hiddens, "num_hiddens", fn, min=1)
        num_heads = as_int(num_heads, "num_heads", fn, min=1)
        if num_hiddens % num_heads:
            raise ValueError(
                f"{fn}: num_hiddens must be divisible by num_heads (each head gets "
                f"num_hiddens / num_heads dimensions); got num_hiddens={num_hiddens}, "
                f"num_heads={num_heads}"
            )
        bias = as_bool(bias, "bias", fn)
        self.num_hiddens, self.num_heads = num_hiddens, num_heads
        self.attention = DotProductAttention(check_dropout(dropout, fn))
        self.W_q = nn.LazyLinear(num_hiddens, bias=bias)
        self.W_k = nn.LazyLinear(num_hiddens, bias=bias)
        self.W_v = nn.LazyLinear(num_hiddens, bias=bias)
        self.W_o = nn.LazyLinear(num_hiddens, bias=bias)

    def transpose_qkv(self, X: Tensor) -> Tensor:
        """``(batch, n, num_hiddens)`` -> ``(batch * num_heads, n, num_hiddens / num_heads)``,
        the heads of sequence 0 first (d2l's ``transpose_qkv``)."""
        H = self.num_heads
        X = X.reshape(X.shape[0], X.shape[1], H, X.shape[2] // H)  # (b, n, H, d/H)
        X = X.permute(0, 2, 1, 3)  # (b, H, n, d/H)
        return X.reshape(X.shape[0] * H, X.shape[2], X.shape[3])  # (b * H, n, d/H)

    def transpose_output(self, X: Tensor) -> Tensor:
        """The inverse of :meth:`transpose_qkv` (d2l's ``transpose_output``)."""
        H = self.num_heads
        X = X.reshape(X.shape[0] // H, H, X.shape[1], X.shape[2])  # (b, H, n, d/H)
        X = X.permute(0, 2, 1, 3)  # (b, n, H, d/H)
        return X.reshape(X.shape[0], X.shape[1], H * X.shape[3])  # (b, n, d)

    @property
    def attention_weights(self) -> Tensor | None:
        """The last call's weights ``(batch, num_heads, n_queries, n_keys)`` (None before)."""
        w = self.attention.attention_weights  # (b * H, n_q, n_k)
        if w is None:
            return None
        H = self.num_heads
        return w.reshape(w.shape[0] // H, H, w.shape[1], w.shape[2])  # (b, H, n_q, n_k)

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
        fn = "MultiHeadAttention"
        for name, t in (("queries", queries), ("keys", keys), ("values", values)):
            if t.shape[2] == 0:
                raise ValueError(
                    f"{fn}: {name} must have a feature size >= 1; got shape {tuple(t.shape)}"
                )
        batch, n_q, n_k = queries.shape[0], queries.shape[1], keys.shape[1]
        valid_lens = check_valid_lens(valid_lens, batch, n_q, n_k, fn)
        mask = check_mask(mask, (batch, n_q, n_k), fn)
        H = self.num_heads
        q = self.transpose_qkv(self.W_q(queries))  # (b * H, n_q, d/H)
        k = self.transpose_qkv(self.W_k(keys))  # (b * H, n_k, d/H)
        v = self.transpose_qkv(self.W_v(values))  # (b * H, n_k, d/H)
        if valid_lens is not None:  # sequence b's lengths for each of its H heads
            valid_lens = torch.repeat_interleave(valid_lens, repeats=H, dim=0)  # (b * H, ...)
        if mask is not None and mask.dim() == 3 and mask.shape[0] != 1:
            mask = torch.repeat_interleave(mask, repeats=H, dim=0)  # (b * H, n_q | 1, n_k | 1)
        output = self.attention(q, k, v, valid_lens, mask=mask)  # (b * H, n_q, d/H)
        return self.W_o(self.transpose_output(output))  # (b, n_q, d)

    def extra_repr(self) -> str:
        return f"num_hiddens={self.num_hiddens}, num_heads={self.num_heads}"


@declare(batch=Int(ge=0), n=Int(ge=0))
def causal_valid_lens(batch: int, n: int) -> Tensor:
    """``valid_lens`` of the causal mask: ``(batch, n)`` with row ``i`` equal to ``i + 1``
    (query ``i`` sees keys ``0 .. i``), as d2l's Transformer decoder builds it in training.

    Example::

        >>> causal_valid_lens(2, 3)
        tensor([[1, 2, 3],
                [1, 2, 3]])
    """
    fn = "causal_valid_lens"
    batch = as_int(batch, "batch", fn, min=0)
    n = as_int(n, "n", fn, min=0)
    return torch.arange(1, n + 1).repeat(batch, 1)  # (batch, n)
