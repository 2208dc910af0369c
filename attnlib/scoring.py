"""Attention scoring functions: how well does each key match each query?

Every function here is pure (no parameters of its own, no state) and returns a score
tensor of shape ``(batch, n_queries, n_keys)``: queries are rows, keys are columns.
Turn scores into weights with :func:`attnlib.masked_softmax`. The treatment follows d2l
(Zhang et al., *Dive into Deep Learning*, https://d2l.ai, section 11.3).

Shape legend used throughout:

- ``batch``: number of independent sequences
- ``n_queries``: queries per sequence (rows of the score matrix)
- ``n_keys``: keys per sequence (columns)
- ``d``: feature size of queries and keys when they must agree; ``d_q`` / ``d_k``
  when they may differ
- ``h``: hidden size of additive attention (``num_hiddens``)

The family, with its sources (Weng, "Attention? Attention!", 2018, tabulates it):
content-based / cosine (:func:`cosine_scores`; Graves et al. 2014), additive
(:func:`additive_scores`; Bahdanau et al. 2015), general / bilinear (:func:`bilinear_scores`;
Luong et al. 2015), dot product and scaled dot product (:func:`dot_product_scores`; Luong et
al. 2015, Vaswani et al. 2017), and the Gaussian and Laplace kernels of Nadaraya-Watson
(:func:`gaussian_scores`, :func:`laplace_scores`).
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from attnlib._additive_blocks import (
    _additive_block,
    _additive_blocks_no_grad,
    _BlockedAdditive,
)
from attnlib._checks import (
    check_dim_match,
    check_float_tensor,
    check_positive,
    check_same_dtype,
    fmt_shape,
)
from attnlib.domains import Int, Real, declare
from attnlib.tensor_domains import QK, QK_SIZES, FloatTensor

__all__ = [
    "dot_product_scores",
    "additive_scores",
    "bilinear_scores",
    "cosine_scores",
    "gaussian_scores",
    "laplace_scores",
    "DEFAULT_BLOCK_ELEMENTS",
]

#: Largest (batch, block_queries, block_keys, h) intermediate that :func:`additive_scores`
#: builds at once (2**20 elements = 4 MiB in float32: small enough to stay in cache, large
#: enough that per-block overhead is negligible).
DEFAULT_BLOCK_ELEMENTS = 2**20

_BOTH = ("queries", "keys")

_Q = "(batch, n_queries, d)"
_K = "(batch, n_keys, d)"


def _check_qk(
    queries: object, keys: object, fn: str, q_layout: str = _Q, k_layout: str = _K
) -> tuple[Tensor, Tensor]:
    queries = check_float_tensor(queries, "queries", fn, ndim=3, layout=q_layout)
    keys = check_float_tensor(keys, "keys", fn, ndim=3, layout=k_layout)
    check_same_dtype(fn, queries=queries, keys=keys)
    check_dim_match(fn, "queries", queries, 0, "keys", keys, 0, "batch size")
    return queries, keys


@declare(**QK, differentiable=_BOTH)
def dot_product_scores(queries: Tensor, keys: Tensor) -> Tensor:
    r"""Scaled dot-product scores :math:`q^\top k / \sqrt{d}`.

    .. math::
        a(\mathbf q_i, \mathbf k_j) = \frac{\mathbf q_i^\top \mathbf k_j}{\sqrt d}

    Dividing by :math:`\sqrt d` keeps the variance of the scores near 1 when the entries
    of queries and keys have unit variance (the raw dot product has variance about ``d``).

    Plain-code reference::

        scores = queries @ keys.transpose(1, 2) / math.sqrt(d)

    Args:
        queries: ``(batch, n_queries, d)``, floating point.
        keys: ``(batch, n_keys, d)``, same dtype and the same feature size ``d``.

    Returns:
        Scores of shape ``(batch, n_queries, n_keys)``.

    Raises:
        ValueError: if queries and keys have different feature sizes (use
            :func:`bilinear_scores` or :class:`attnlib.AdditiveAttention` for those).

    Shape legend: ``batch`` sequences, ``n_queries`` queries (rows), ``n_keys`` keys
    (columns), ``d`` feature size.

    Example::

        >>> q = torch.tensor([[[1.0, 0.0, 0.0, 0.0]]])                          # (1, 1, 4)
        >>> k = torch.tensor([[[2.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]]])    # (1, 2, 4)
        >>> dot_product_scores(q, k)
        tensor([[[1., 0.]]])
    """
    return _dot_product_scores(queries, keys, "dot_product_scores")


def _dot_product_scores(queries: Tensor, keys: Tensor, fn: str) -> Tensor:
    """:func:`dot_product_scores`, with error messages naming the caller ``fn``."""
    queries, keys = _check_qk(queries, keys, fn)
    d_q, d_k = queries.shape[-1], keys.shape[-1]
    if d_q != d_k:
        raise ValueError(
            f"{fn}: queries and keys must have the same feature size d; got queries of shape "
            f"{fmt_shape(queries.shape)} (d = {d_q}) and keys of shape "
            f"{fmt_shape(keys.shape)} (d = {d_k}). For queries and keys of different sizes "
            f"use attnlib.bilinear_scores(queries, keys, M) with M of shape ({d_q}, {d_k}) "
            f"or attnlib.AdditiveAttention(key_size={d_k}, query_size={d_q}, num_hiddens=...)"
        )
    if d_q == 0:
        raise ValueError(
            f"{fn}: queries and keys must have a feature size d >= 1 (the "
            f"scores divide by sqrt(d)); got queries of shape "
            f"{fmt_shape(queries.shape)} and keys of shape {fmt_shape(keys.shape)}"
        )
    # alpha folds the 1/sqrt(d) into the matmul (no extra pass over the scores)
    out = queries.new_empty(())  # ignored: beta=0
    return torch.baddbmm(
        out,
        queries,
        keys.transpose(1, 2),  # (batch, d, n_keys)
        beta=0.0,
        alpha=1.0 / math.sqrt(d_q),
    )  # (batch, n_queries, n_keys)


@declare(
    **QK_SIZES, M=FloatTensor("d_q d_k", same_dtype_as="queries"), differentiable=(*_BOTH, "M")
)
def bilinear_scores(queries: Tensor, keys: Tensor, M: Tensor) -> Tensor:
    r"""Bilinear (general) scores :math:`q^\top M k` for queries and keys of any sizes.

    .. math::
        a(\mathbf q_i, \mathbf k_j) = \mathbf q_i^\top M \mathbf k_j,
        \qquad M \in \mathbb R^{d_q \times d_k}

    No :math:`1/\sqrt d` scaling is applied (fold it into ``M`` if you want it). With
    ``M = torch.eye(d) / math.sqrt(d)`` this equals :func:`dot_product_scores`.

    Plain-code reference::

        scores = queries @ M @ keys.transpose(1, 2)

    Args:
        queries: ``(batch, n_queries, d_q)``, floating point.
        keys: ``(batch, n_keys, d_k)``, same dtype.
        M: ``(d_q, d_k)``, same dtype.

    Returns:
        Scores of shape ``(batch, n_queries, n_keys)``.

    Shape legend: ``batch`` sequences, ``n_queries`` queries (rows), ``n_keys`` keys
    (columns), ``d_q`` / ``d_k`` feature sizes of queries / keys.

    Example::

        >>> q = torch.tensor([[[1.0, 2.0]]])                   # (1, 1, 2): d_q = 2
        >>> k = torch.tensor([[[1.0, 0.0, 1.0]]])              # (1, 1, 3): d_k = 3
        >>> M = torch.tensor([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])  # (2, 3)
        >>> bilinear_scores(q, k, M)
        tensor([[[3.]]])
    """
    return _bilinear_scores(queries, keys, M, "bilinear_scores")


def _bilinear_scores(queries: Tensor, keys: Tensor, M: Tensor, fn: str, m: str = "M") -> Tensor:
    """:func:`bilinear_scores`, with messages naming the caller ``fn`` and the matrix ``m``."""
    queries, keys = _check_qk(queries, keys, fn, "(batch, n_queries, d_q)", "(batch, n_keys, d_k)")
    M = check_float_tensor(M, m, fn, ndim=2, layout="(d_q, d_k)")
    check_same_dtype(fn, queries=queries, **{m: M})
    d_q, d_k = queries.shape[-1], keys.shape[-1]
    if tuple(M.shape) != (d_q, d_k):
        raise ValueError(
            f"{fn}: {m} must have shape (d_q, d_k) = ({d_q}, {d_k}) to match "
            f"queries {fmt_shape(queries.shape)} and keys {fmt_shape(keys.shape)}; "
            f"got shape {fmt_shape(M.shape)}"
        )
    projected = torch.matmul(queries, M)  # (batch, n_queries, d_k)
    return torch.bmm(projected, keys.transpose(1, 2))  # (batch, n_queries, n_keys)


def _unit_rows(x: Tensor) -> Tensor:
    """``x / ||x||`` along the last axis, 0 for a zero vector, without overflow or underflow.

    Each row is first divided by its largest magnitude (a constant, detached: the direction,
    its value and its gradient, do not change), so squares of 1e30 or 1e-30 stay finite
    and nonzero in float32.
    """
    big = x.detach().abs().amax(dim=-1, keepdim=True)  # (batch, n, 1)
    x = x / torch.where(big > 0, big, torch.ones_like(big))  # (batch, n, d), entries in [-1, 1]
    norm = torch.linalg.vector_norm(x, dim=-1, keepdim=True)  # (batch, n, 1), in [1, sqrt(d)]
    return x / torch.where(norm > 0, norm, torch.ones_like(norm))  # (batch, n, d)


@declare(**QK, temperature=Real(gt=0, tensor=True), differentiable=_BOTH)
def cosine_scores(queries: Tensor, keys: Tensor, temperature: float | Tensor = 1.0) -> Tensor:
    r"""Cosine-similarity (content-based) scores :math:`\cos(q, k) / \tau`.

    .. math::
        a(\mathbf q_i, \mathbf k_j) = \frac{1}{\tau}\,
        \frac{\mathbf q_i^\top \mathbf k_j}{\lVert \mathbf q_i\rVert\,
        \lVert \mathbf k_j\rVert}

    Only directions count: a key twice as long scores the same, so unlike the dot product
    the score cannot reward long keys. The scores lie in :math:`[-1/\tau, 1/\tau]`
    whatever ``d``, so the temperature :math:`\tau` alone sets how sharp the softmax can
    get. This is the content-based addressing of the Neural Turing Machine (Graves et al.,
    2014, with key strength :math:`\beta = 1/\tau`) and, with a learned temperature,
    QK-norm (Henry et al., 2020). A zero query or key has no direction: its scores are 0.

    Plain-code reference::

        q = queries / queries.norm(dim=-1, keepdim=True)   # (batch, n_queries, d)
        k = keys / keys.norm(dim=-1, keepdim=True)         # (batch, n_keys, d)
        scores = q @ k.transpose(1, 2) / temperature

    (the implementation also divides each row by its largest entry first, so that norms of
    very large or very small vectors neither overflow nor underflow.)

    Args:
        queries: ``(batch, n_queries, d)``, floating point, finite.
        keys: ``(batch, n_keys, d)``, same dtype and feature size, finite.
        temperature: :math:`\tau`, a positive number or a single-element tensor (may
            require grad, e.g. a learned temperature).

    Returns:
        Scores of shape ``(batch, n_queries, n_keys)``, in ``[-1/τ, 1/τ]``.

    Raises:
        ValueError: if queries and keys have different feature sizes, or hold inf or NaN
            (a vector with an infinite entry has no direction).

    Shape legend: ``batch`` sequences, ``n_queries`` queries (rows), ``n_keys`` keys
    (columns), ``d`` feature size.

    Example::

        >>> q = torch.tensor([[[1.0, 0.0]]])                      # (1, 1, 2)
        >>> k = torch.tensor([[[3.0, 0.0], [0.0, 1.0], [-1.0, 1.0]]])  # (1, 3, 2)
        >>> cosine_scores(q, k, temperature=0.5)                   # 2 cos: 2, 0, -√2
        tensor([[[ 2.0000,  0.0000, -1.4142]]])
    """
    return _cosine_scores(queries, keys, temperature, "cosine_scores")


def _cosine_scores(queries: Tensor, keys: Tensor, temperature: object, fn: str) -> Tensor:
    """:func:`cosine_scores`, with error messages naming the caller ``fn``."""
    queries, keys = _check_qk(queries, keys, fn)
    check_dim_match(fn, "queries", queries, 2, "keys", keys, 2, "feature size d")
    temperature = check_positive(temperature, "temperature", fn)
    if queries.shape[-1] == 0:
        raise ValueError(
            f"{fn}: queries and keys must have a feature size d >= 1 (a vector of size 0 "
            f"has no direction); got queries of shape {fmt_shape(queries.shape)} and keys "
            f"of shape {fmt_shape(keys.shape)}"
        )
    if queries.is_complex() or keys.is_complex():
        raise TypeError(
            f"{fn}: queries and keys must be real floating-point tensors; got "
            f"{queries.dtype} and {keys.dtype}"
        )
    for name, x in (("queries", queries), ("keys", keys)):
        if not bool(torch.isfinite(x).all()):
            raise ValueError(
                f"{fn}: {name} must be finite (a vector with an inf or NaN entry has no "
                f"direction); got a tensor of shape {fmt_shape(x.shape)} with "
                f"{int((~torch.isfinite(x)).sum())} non-finite entries"
            )
    out_dtype = queries.dtype
    if out_dtype in (torch.float16, torch.bfloat16):
        queries, keys = queries.float(), keys.float()  # norms in float32, one rounding at the end
    q = _unit_rows(queries)  # (batch, n_queries, d)
    k = _unit_rows(keys)  # (batch, n_keys, d)
    if isinstance(temperature, Tensor):
        temperature = temperature.to(queries.dtype).reshape(())  # ()
        cos = torch.bmm(q, k.transpose(1, 2)).clamp(-1.0, 1.0)  # (batch, n_queries, n_keys)
        return (cos / temperature).to(out_dtype)
    # a fixed temperature: folded into the queries, and one n_queries x n_keys tensor only
    bound = 1.0 / temperature
    scores = torch.bmm(q * bound, k.transpose(1, 2))  # (batch, n_queries, n_keys)
    return scores.clamp_(-bound, bound).to(out_dtype)


@declare(**QK, sigma=Real(gt=0, tensor=True), differentiable=_BOTH)
def gaussian_scores(queries: Tensor, keys: Tensor, sigma: float | Tensor = 1.0) -> Tensor:
    r"""Gaussian-kernel scores :math:`-\lVert q - k\rVert^2 / (2\sigma^2)`.

    .. math::
        a(\mathbf q_i, \mathbf k_j) = -\frac{\lVert \mathbf q_i - \mathbf k_j\rVert^2}
        {2\sigma^2}

    A softmax of these scores is Nadaraya-Watson regression with a Gaussian kernel of
    bandwidth ``sigma``. Expanding the square,
    :math:`-\lVert q-k\rVert^2/(2\sigma^2) = q^\top k/\sigma^2 - \lVert q\rVert^2/(2\sigma^2)
    - \lVert k\rVert^2/(2\sigma^2)`: the query term is constant along a row and cancels in the
    softmax, so when all keys have the same norm the weights equal those of
    :func:`dot_product_scores` with :math:`\sigma^2 = \sqrt d`.

    Plain-code reference (the implementation uses the expanded form, which never builds a
    ``(batch, n_queries, n_keys, d)`` tensor)::

        diff = queries[:, :, None, :] - keys[:, None, :, :]  # (batch, n_queries, n_keys, d)
        scores = -(diff ** 2).sum(-1) / (2 * sigma ** 2)

    Args:
        queries: ``(batch, n_queries, d)``, floating point.
        keys: ``(batch, n_keys, d)``, same dtype and feature size.
        sigma: bandwidth, a positive number or a single-element tensor (may require grad).

    Returns:
        Scores of shape ``(batch, n_queries, n_keys)``, all ``<= 0``.

    Shape legend: ``batch`` sequences, ``n_queries`` queries (rows), ``n_keys`` keys
    (columns), ``d`` feature size.

    Example::

        >>> q = torch.tensor([[[0.0, 0.0]]])                  # (1, 1, 2)
        >>> k = torch.tensor([[[0.0, 0.0], [1.0, 1.0]]])      # (1, 2, 2)
        >>> gaussian_scores(q, k, sigma=1.0)
        tensor([[[ 0., -1.]]])
    """
    fn = "gaussian_scores"
    queries, keys = _check_qk(queries, keys, fn)
    check_dim_match(fn, "queries", queries, 2, "keys", keys, 2, "feature size d")
    sigma = check_positive(sigma, "sigma", fn)
    if isinstance(sigma, Tensor):
        sigma = sigma.to(queries.dtype).reshape(())  # ()
    out_dtype = queries.dtype
    if out_dtype in (torch.float16, torch.bfloat16):
        # the squared norms below overflow float16 near |x| = 256 (and lose all digits in
        # bfloat16): compute in float32, round once at the end
        queries, keys = queries.float(), keys.float()
        if isinstance(sigma, Tensor):
            sigma = sigma.float()
    # Translate both by the keys' mean: distances do not change, but the expanded form
    # below no longer cancels catastrophically far from the origin (q = 1000 vs
    # k = 1000.01 keeps its digits in float32).
    if keys.shape[1] > 0:
        center = keys.detach().mean(dim=1, keepdim=True)  # (batch, 1, d)
        queries, keys = queries - center, keys - center
    q_sq = (queries * queries).sum(-1, keepdim=True)  # (batch, n_queries, 1)
    k_sq = (keys * keys).sum(-1).unsqueeze(1)  # (batch, 1, n_keys)
    cross = torch.bmm(queries, keys.transpose(1, 2))  # (batch, n_queries, n_keys)
    # rounding can make the expanded distance slightly negative: clamp to the true bound
    sq_dist = (q_sq + k_sq - 2.0 * cross).clamp_min(0.0)  # (batch, n_queries, n_keys)
    return (-sq_dist / (2.0 * sigma * sigma) + 0.0).to(out_dtype)  # + 0.0: no -0.0


@declare(**QK, sigma=Real(gt=0, tensor=True), differentiable=_BOTH)
def laplace_scores(queries: Tensor, keys: Tensor, sigma: float | Tensor = 1.0) -> Tensor:
    r"""Laplace-kernel scores :math:`-\lVert q - k\rVert / \sigma`.

    .. math::
        a(\mathbf q_i, \mathbf k_j) = -\frac{\lVert \mathbf q_i - \mathbf k_j\rVert}{\sigma}

    The distance itself, not its square: a softmax of these scores is Nadaraya-Watson with
    the kernel :math:`\exp(-\lVert u\rVert/\sigma)`, whose weights fall off with distance
    more slowly than the Gaussian's far away and more sharply close by. Unlike
    :func:`gaussian_scores` the score does not expand into :math:`q^\top k` plus a query
    term and a key term (there is no square to multiply out), so no dot product is hiding in
    it and no single matrix product computes it. At :math:`q = k` the norm has a kink: the
    gradient there is the subgradient 0 (not 0/0).

    Plain-code reference (what the implementation computes; it builds the
    ``(batch, n_queries, n_keys, d)`` differences, so keep it to book-sized inputs)::

        diff = queries[:, :, None, :] - keys[:, None, :, :]  # (batch, n_queries, n_keys, d)
        scores = -diff.norm(dim=-1) / sigma

    Args:
        queries: ``(batch, n_queries, d)``, floating point.
        keys: ``(batch, n_keys, d)``, same dtype and feature size.
        sigma: bandwidth, a positive number or a single-element tensor (may require grad).

    Returns:
        Scores of shape ``(batch, n_queries, n_keys)``, all ``<= 0``.

    Example::

        >>> q = torch.tensor([[[0.0, 0.0]]])                  # (1, 1, 2)
        >>> k = torch.tensor([[[0.0, 0.0], [3.0, 4.0]]])      # (1, 2, 2)
        >>> laplace_scores(q, k, sigma=2.0)
        tensor([[[ 0.0000, -2.5000]]])
    """
    fn = "laplace_scores"
    queries, keys = _check_qk(queries, keys, fn)
    check_dim_match(fn, "queries", queries, 2, "keys", keys, 2, "feature size d")
    sigma = check_positive(sigma, "sigma", fn)
    out_dtype = queries.dtype
    if out_dtype in (torch.float16, torch.bfloat16):  # norms in float32, one rounding at the end
        queries, keys = queries.float(), keys.float()
    if isinstance(sigma, Tensor):
        sigma = sigma.to(queries.dtype).reshape(())  # ()
    diff = queries.unsqueeze(2) - keys.unsqueeze(1)  # (batch, n_queries, n_keys, d)
    tie = (diff == 0).all(dim=-1)  # (batch, n_queries, n_keys): q_i = k_j
    # a safe norm: where q_i = k_j the norm sees ones instead of zeros, so its gradient there
    # is finite, and the where below passes none of it back (the subgradient 0)
    safe = torch.where(tie.unsqueeze(-1), torch.ones_like(diff), diff)
    dist = torch.where(tie, 0.0, torch.linalg.vector_norm(safe, dim=-1))
    return (-dist / sigma + 0.0).to(out_dtype)  # + 0.0: no -0.0


@declare(
    **QK_SIZES,
    W_q=FloatTensor("h d_q", same_dtype_as="queries"),
    W_k=FloatTensor("h d_k", same_dtype_as="queries"),
    w_v=FloatTensor("h", same_dtype_as="queries"),
    max_block_elements=Int(ge=1),
    differentiable=(*_BOTH, "W_q", "W_k", "w_v"),
)
def additive_scores(
    queries: Tensor,
    keys: Tensor,
    W_q: Tensor,
    W_k: Tensor,
    w_v: Tensor,
    *,
    max_block_elements: int = DEFAULT_BLOCK_ELEMENTS,
) -> Tensor:
    r"""Additive (Bahdanau) scores :math:`w_v^\top \tanh(W_q q + W_k k)`, computed in blocks.

    .. math::
        a(\mathbf q_i, \mathbf k_j) = \mathbf w_v^\top \tanh(W_q \mathbf q_i + W_k \mathbf k_j)

    Queries and keys may have different feature sizes. The naive broadcast form (d2l's)
    builds a ``(batch, n_queries, n_keys, h)`` tensor, so its memory grows with all four
    sizes. Here the projections ``W_q q`` and ``W_k k`` are computed once and the tanh
    features are built for one block of queries (and, if needed, keys) at a time, with at
    most ``max_block_elements`` elements per block:

    - without autograd (``torch.no_grad()`` or no input requiring grad) one block-sized
      buffer is reused, with an in-place ``tanh``; the blocks stay in cache, which makes
      this faster than the broadcast form as well as smaller;
    - when autograd is recording, a custom autograd function keeps only the projections
      and its backward recomputes each block's tanh in one reused buffer, accumulating the
      gradients block by block: peak memory stays bounded by the block size in training
      too (measured by ``benchmarks/bench_attention.py``), at the cost of computing the
      blocks twice. It is differentiable once (no double backward).

    Inputs small enough to fit in one block take the plain broadcast path.

    Plain-code reference (the broadcast form; equal up to rounding)::

        features = torch.tanh((queries @ W_q.T)[:, :, None, :] + (keys @ W_k.T)[:, None, :, :])
        scores = features @ w_v          # (batch, n_queries, n_keys)

    Args:
        queries: ``(batch, n_queries, d_q)``, floating point.
        keys: ``(batch, n_keys, d_k)``, same dtype.
        W_q: ``(h, d_q)`` query projection (the ``weight`` of ``nn.Linear(d_q, h)``).
        W_k: ``(h, d_k)`` key projection.
        w_v: ``(h,)`` output vector.
        max_block_elements: largest number of elements of one ``(batch, block_queries,
            block_keys, h)`` intermediate (keyword only).

    Returns:
        Scores of shape ``(batch, n_queries, n_keys)``.

    Shape legend: ``batch`` sequences, ``n_queries`` queries (rows), ``n_keys`` keys
    (columns), ``d_q`` / ``d_k`` feature sizes of queries / keys, ``h`` hidden size.

    Example::

        >>> q = torch.tensor([[[1.0, 0.0]]])                     # (1, 1, 2): d_q = 2
        >>> k = torch.tensor([[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]]])  # (1, 2, 3): d_k = 3
        >>> W_q = torch.tensor([[1.0, 0.0]])                     # (1, 2): h = 1
        >>> W_k = torch.tensor([[1.0, 0.0, 0.0]])                # (1, 3)
        >>> additive_scores(q, k, W_q, W_k, torch.tensor([2.0]))  # 2 tanh(1), 2 tanh(2)
        tensor([[[1.5232, 1.9281]]])
    """
    return _additive_scores(queries, keys, W_q, W_k, w_v, max_block_elements, "additive_scores")


def _additive_scores(
    queries: Tensor,
    keys: Tensor,
    W_q: Tensor,
    W_k: Tensor,
    w_v: Tensor,
    max_block_elements: int,
    fn: str,
) -> Tensor:
    """:func:`additive_scores`, with error messages naming the caller ``fn``."""
    queries, keys = _check_qk(queries, keys, fn, "(batch, n_queries, d_q)", "(batch, n_keys, d_k)")
    W_q = check_float_tensor(W_q, "W_q", fn, ndim=2, layout="(h, d_q)")
    W_k = check_float_tensor(W_k, "W_k", fn, ndim=2, layout="(h, d_k)")
    w_v = check_float_tensor(w_v, "w_v", fn, ndim=1, layout="(h,)")
    check_same_dtype(fn, queries=queries, W_q=W_q, W_k=W_k, w_v=w_v)
    check_dim_match(
        fn, "W_q", W_q, 1, "queries", queries, 2, "feature size d_q", "W_q has shape (h, d_q)"
    )
    check_dim_match(
        fn, "W_k", W_k, 1, "keys", keys, 2, "feature size d_k", "W_k has shape (h, d_k)"
    )
    check_dim_match(fn, "W_k", W_k, 0, "W_q", W_q, 0, "hidden size h")
    check_dim_match(fn, "w_v", w_v, 0, "W_q", W_q, 0, "hidden size h")
    if (
        isinstance(max_block_elements, bool)
        or not isinstance(max_block_elements, int)
        or max_block_elements < 1
    ):
        raise ValueError(
            f"{fn}: max_block_elements must be a positive int; got {max_block_elements!r}"
        )

    q_proj = torch.matmul(queries, W_q.t())  # (batch, n_queries, h)
    k_proj = torch.matmul(keys, W_k.t())  # (batch, n_keys, h)
    batch, n_queries, h = q_proj.shape
    n_keys = k_proj.shape[1]
    per_pair = max(1, batch * h)  # elements per (query, key) pair
    if n_queries * n_keys * per_pair <= max_block_elements:
        return _additive_block(q_proj, k_proj, w_v)
    block_k = min(n_keys, max(1, max_block_elements // per_pair))
    block_q = min(n_queries, max(1, max_block_elements // (per_pair * block_k)))
    needs_grad = torch.is_grad_enabled() and (
        q_proj.requires_grad or k_proj.requires_grad or w_v.requires_grad
    )
    if not needs_grad:
        return _additive_blocks_no_grad(q_proj, k_proj, w_v, block_q, block_k)
    return _BlockedAdditive.apply(q_proj, k_proj, w_v, block_q, block_k)
