r"""Nadaraya-Watson kernel regression: attention pooling without parameters.

.. math::
    \hat y(x) = \sum_j \alpha(x, x_j)\, y_j, \qquad
    \alpha(x, x_j) = \operatorname{softmax}_j \log K\big((x - x_j)/h\big)

Queries are the ``x``, keys the training inputs ``x_j``, values the targets ``y_j``; the
kernels ``K`` are those of :mod:`attnlib.kernels` (or any callable ``K(u)``). Weights are a
softmax of log-kernel values, which never divides 0 by 0 (d2l's ``K / sum(K)`` does, for a
narrow boxcar or a tiny Gaussian bandwidth). Following d2l (https://d2l.ai, sections
11.1-11.2). ``attnlib.nadaraya_watson`` and ``attnlib.NadarayaWatson`` are these objects.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from attnlib._checks import (
    check_float_tensor,
    check_positive,
    check_same_dtype,
    check_tensor,
    fmt_shape,
)
from attnlib.domains import Anything, Bool, Choice, Real, declare
from attnlib.kernels import LOG_KERNELS, KernelArg, _resolve_kernel
from attnlib.tensor_domains import FloatTensor

__all__ = ["nadaraya_watson", "NadarayaWatson"]


@declare(
    x_train=FloatTensor("n_train"),
    y_train=FloatTensor("n_train", same_dtype_as="x_train"),
    x_query=FloatTensor("n_queries", same_dtype_as="x_train"),
    kernel=Choice(*LOG_KERNELS, or_callable=True),
    bandwidth=Real(gt=0, tensor=True),
    exclude_self=Bool(),
    mask=Anything(
        "a boolean (n_queries, n_train) tensor, checked in the body",
        optional=True,
    ),
    differentiable=("x_train", "y_train", "x_query"),
)
def nadaraya_watson(
    x_train: Tensor,
    y_train: Tensor,
    x_query: Tensor,
    kernel: KernelArg = "gaussian",
    bandwidth: float | Tensor = 1.0,
    *,
    exclude_self: bool = False,
    mask: Tensor | None = None,
) -> tuple[Tensor, Tensor]:
    r"""Nadaraya-Watson kernel regression; returns predictions and the weight matrix.

    .. math::
        \alpha_{ij} = \operatorname{softmax}_j\big(\log K((x^{q}_i - x_j)/h)\big),
        \qquad \hat y_i = \sum_j \alpha_{ij}\, y_j

    Computing the weights as a softmax of log-kernel values (not ``K / K.sum()``) means a
    narrow Gaussian (``h = 0.01``) or a narrow boxcar never produces 0/0 = NaN.

    **Empty-window rule.** With a compact kernel (boxcar, epanechnikov, triangular) a
    query may have no training point inside its window (all kernel values 0). Such a
    query puts weight 1 on the nearest allowed training point (the first one on a tie),
    i.e. it predicts that point's target: the limit of the Gaussian prediction as the
    bandwidth shrinks.

    **Leave-one-out.** ``exclude_self=True`` (needs ``x_query`` to be the training inputs,
    ``n_queries == n_train``) stops query ``i`` from using training point ``i``, as in d2l's
    training loop, where each training point is predicted from all the others. ``mask``
    (boolean, True = may use) restricts the training points per query more generally;
    both are combined with a logical AND. Every query must keep at least one training
    point.

    Plain-code reference (up to the empty-window rule)::

        u = (x_query[:, None] - x_train[None, :]) / bandwidth  # (n_queries, n_train)
        weights = torch.softmax(torch.log(K(u)), dim=1)          # = K / K.sum(1, keepdim=True)
        y_hat = weights @ y_train

    Args:
        x_train: training inputs (keys), ``(n_train,)``, floating point.
        y_train: training targets (values), ``(n_train,)``, same dtype.
        x_query: query inputs, ``(n_queries,)``, same dtype.
        kernel: a name in :data:`KERNELS` (``"gaussian"``, ``"boxcar"``, ``"constant"``,
            ``"epanechnikov"``, ``"triangular"``) or a callable ``K(u)`` returning
            non-negative values of the shape of ``u``.
        bandwidth: ``h > 0``, a number or a single-element tensor (may require grad).
        exclude_self: keyword-only; leave-one-out as described above.
        mask: keyword-only optional boolean ``(n_queries, n_train)``, True = may use.

    Returns:
        ``(y_hat, weights)``: ``y_hat`` ``(n_queries,)`` and ``weights``
        ``(n_queries, n_train)``, each row summing to 1 (queries are rows).

    Shape legend: ``n_train`` training points (keys/values), ``n_queries`` queries.

    Example::

        >>> x_train = torch.tensor([0.0, 1.0, 2.0])
        >>> y_train = torch.tensor([0.0, 10.0, 20.0])
        >>> y_hat, weights = nadaraya_watson(x_train, y_train, torch.tensor([0.4, 5.0]),
        ...                                  kernel="boxcar", bandwidth=0.5)
        >>> y_hat           # 0.4 sees only x = 0; 5.0 sees nothing -> nearest point x = 2
        tensor([ 0., 20.])
        >>> weights
        tensor([[1., 0., 0.],
                [0., 0., 1.]])
    """
    fn = "nadaraya_watson"
    x_train = check_float_tensor(x_train, "x_train", fn, ndim=1, layout="(n_train,)")
    y_train = check_float_tensor(y_train, "y_train", fn, ndim=1, layout="(n_train,)")
    x_query = check_float_tensor(x_query, "x_query", fn, ndim=1, layout="(n_queries,)")
    check_same_dtype(fn, x_train=x_train, y_train=y_train, x_query=x_query)
    n_train, n_queries = x_train.shape[0], x_query.shape[0]
    if y_train.shape[0] != n_train:
        raise ValueError(
            f"{fn}: y_train must have shape (n_train,) = ({n_train},) like "
            f"x_train; got shape {fmt_shape(y_train.shape)}"
        )
    if n_train == 0:
        raise ValueError(
            f"{fn}: x_train must contain at least one training point; got shape "
            f"{fmt_shape(x_train.shape)}"
        )
    _, log_k = _resolve_kernel(kernel, fn)
    bandwidth = check_positive(bandwidth, "bandwidth", fn)
    if isinstance(bandwidth, Tensor):
        bandwidth = bandwidth.to(x_train.dtype).reshape(())  # ()
    if not isinstance(exclude_self, bool):
        raise TypeError(f"{fn}: exclude_self must be a bool; got {exclude_self!r}")

    allowed = None  # (n_queries, n_train) bool, True = may use
    if mask is not None:
        mask = check_tensor(mask, "mask", fn, ndim=2, layout="(n_queries, n_train)")
        if mask.dtype != torch.bool:
            raise TypeError(
                f"{fn}: mask must be a boolean tensor (True = may use); got dtype {mask.dtype}"
            )
        if tuple(mask.shape) != (n_queries, n_train):
            raise ValueError(
                f"{fn}: mask must have shape (n_queries, n_train) = "
                f"({n_queries}, {n_train}); got shape {fmt_shape(mask.shape)}"
            )
        allowed = mask
    if exclude_self:
        if n_queries != n_train:
            raise ValueError(
                f"{fn}: exclude_self=True needs x_query to be the training "
                f"inputs (n_queries == n_train); got x_query of shape "
                f"{fmt_shape(x_query.shape)} and x_train of shape "
                f"{fmt_shape(x_train.shape)}"
            )
        not_self = ~torch.eye(n_train, dtype=torch.bool, device=x_train.device)
        allowed = not_self if allowed is None else allowed & not_self
    if allowed is not None:
        empty = ~allowed.any(dim=1)
        if bool(empty.any()):
            i = int(empty.nonzero()[0, 0])
            raise ValueError(
                f"{fn}: every query needs at least one usable training point; "
                f"mask/exclude_self leaves query {i} with none"
            )

    diff = x_query.unsqueeze(1) - x_train.unsqueeze(0)  # (n_queries, n_train)
    # u = diff / h, with u = 0 where diff = 0: a bandwidth that underflows in the data's
    # dtype (1e-50 in float32, 1e-8 in float16) would otherwise give 0/0 = NaN there; the
    # other entries become +-inf, outside every kernel's support (the h -> 0 limit).
    u = torch.where(diff == 0, torch.zeros_like(diff), diff / bandwidth)  # (n_queries, n_train)
    logits = log_k(u)  # (n_queries, n_train)
    if allowed is not None:
        logits = logits.masked_fill(~allowed, -math.inf)
    # Empty-window rule: a row with no finite log-kernel value keeps only its nearest
    # allowed training point (log-weight 0 there, -inf elsewhere).
    no_support = torch.isneginf(logits).all(dim=1, keepdim=True)  # (n_queries, 1)
    if bool(no_support.any()):
        dist = diff.detach().abs()  # (n_queries, n_train)
        if allowed is not None:
            dist = dist.masked_fill(~allowed, math.inf)
        nearest = dist.argmin(dim=1, keepdim=True)  # (n_queries, 1)
        one_hot = torch.zeros_like(
            allowed if allowed is not None else dist, dtype=torch.bool
        ).scatter_(1, nearest, True)
        fallback = torch.zeros_like(logits).masked_fill(~one_hot, -math.inf)
        logits = torch.where(no_support, fallback, logits)
    weights = torch.softmax(logits, dim=1)  # (n_queries, n_train)
    return weights @ y_train, weights  # (n_queries,)


class NadarayaWatson(nn.Module):
    r"""Nadaraya-Watson regression with a trainable bandwidth (d2l's parametric pooling).

    .. math::
        \hat y(x) = \sum_j \operatorname{softmax}_j\big(\log K((x - x_j)/h)\big)\, y_j,
        \qquad h = \exp(\text{log\_bandwidth})

    The bandwidth is learnt through its logarithm, so it stays positive under any
    gradient step. (d2l multiplies the distance by a learnt ``w``; that is ``h = 1/w``.)

    Plain-code reference::

        y_hat, self.attention_weights = nadaraya_watson(
            x_train, y_train, x_query, kernel, bandwidth=self.log_bandwidth.exp())

    Args:
        kernel: kernel name in :data:`KERNELS` or a callable ``K(u)``.
        bandwidth: initial bandwidth ``h > 0``.
        exclude_self: default leave-one-out setting for :meth:`forward` (see
            :func:`nadaraya_watson`); use ``True`` when training with
            ``x_query = x_train``.

    Forward args:
        x_train ``(n_train,)``, y_train ``(n_train,)``, x_query ``(n_queries,)``;
        keyword-only ``exclude_self`` (overrides the default) and ``mask``
        ``(n_queries, n_train)``.

    Returns:
        ``y_hat`` ``(n_queries,)``; ``.attention_weights`` is ``(n_queries, n_train)``.

    Shape legend: ``n_train`` training points (keys/values), ``n_queries`` queries.

    Example::

        >>> model = NadarayaWatson("gaussian", bandwidth=0.5)
        >>> x = torch.tensor([0.0, 1.0, 2.0])
        >>> round(model(x, 2 * x, torch.tensor([1.0])).item(), 4)  # symmetric neighbours
        2.0
        >>> round(model.bandwidth.item(), 4)
        0.5
    """

    @declare(
        kernel=Choice(*LOG_KERNELS, or_callable=True), bandwidth=Real(gt=0), exclude_self=Bool()
    )
    def __init__(
        self, kernel: KernelArg = "gaussian", bandwidth: float = 1.0, *, exclude_self: bool = False
    ) -> None:
        super().__init__()
        fn = "NadarayaWatson"
        _resolve_kernel(kernel, fn)
        bandwidth = check_positive(bandwidth, "bandwidth", fn)
        self.kernel = kernel
        self.exclude_self = exclude_self
        self.log_bandwidth = nn.Parameter(torch.tensor(math.log(float(bandwidth))))
        self.attention_weights: Tensor | None = None

    @property
    def bandwidth(self) -> Tensor:
        """The current bandwidth ``exp(log_bandwidth)`` (a 0-d tensor)."""
        return self.log_bandwidth.exp()

    def forward(
        self,
        x_train: Tensor,
        y_train: Tensor,
        x_query: Tensor,
        *,
        exclude_self: bool | None = None,
        mask: Tensor | None = None,
    ) -> Tensor:
        if exclude_self is None:
            exclude_self = self.exclude_self
        dtype = x_train.dtype if isinstance(x_train, Tensor) else None
        bw = self.bandwidth if dtype is None else self.bandwidth.to(dtype)
        y_hat, self.attention_weights = nadaraya_watson(
            x_train, y_train, x_query, self.kernel, bw, exclude_self=exclude_self, mask=mask
        )
        return y_hat

    def extra_repr(self) -> str:
        name = (
            self.kernel
            if isinstance(self.kernel, str)
            else getattr(self.kernel, "__name__", "custom")
        )
        return f"kernel={name!r}, bandwidth={self.bandwidth.item():.4g}"
