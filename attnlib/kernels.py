r"""Kernels and Nadaraya-Watson kernel regression (attention pooling without parameters).

Nadaraya-Watson regression predicts, at a query :math:`x`, a weighted average of the
training targets, the weights coming from a kernel :math:`K` of the distance between the
query and each training input (the keys), scaled by a bandwidth :math:`h`:

.. math::
    \hat y(x) = \sum_j \alpha(x, x_j)\, y_j, \qquad
    \alpha(x, x_j) = \frac{K\big((x - x_j)/h\big)}{\sum_{j'} K\big((x - x_{j'})/h\big)}

This is attention pooling: queries are the ``x``, keys the ``x_j``, values the ``y_j``. The
treatment follows d2l (Zhang et al., *Dive into Deep Learning*, https://d2l.ai, sections
11.1-11.2), with two corrections: d2l's "Epanechnikov" kernel is really the triangular
kernel (d2l issue 2440; both are provided here, correctly named), and the weights are
computed as a softmax of log-kernel values, which never divides 0 by 0.

Kernels (all symmetric; all but ``constant`` integrate to 1 over the real line):

============== =========================================== ===========
name           :math:`K(u)`                                support
============== =========================================== ===========
gaussian       :math:`\exp(-u^2/2)/\sqrt{2\pi}`            all u
boxcar         :math:`1/2`                                 :math:`|u| \le 1`
constant       :math:`1` (improper: weights are uniform)   all u
epanechnikov   :math:`\tfrac34 (1 - u^2)`                  :math:`|u| \le 1`
triangular     :math:`1 - |u|`                             :math:`|u| \le 1`
============== =========================================== ===========

Normalising constants do not change Nadaraya-Watson weights (they cancel); they are kept
so that each kernel is a probability density and the plots compare like with like.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import Tensor, nn

from attnlib._checks import (
    check_float_tensor,
    check_positive,
    check_same_dtype,
    check_tensor,
    fmt_shape,
)

__all__ = [
    "gaussian",
    "boxcar",
    "constant",
    "epanechnikov",
    "triangular",
    "KERNELS",
    "LOG_KERNELS",
    "log_kernel",
    "nadaraya_watson",
    "NadarayaWatson",
]

KernelArg = str | Callable[[Tensor], Tensor]
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


def _check_u(u: object, fn: str) -> Tensor:
    return check_float_tensor(u, "u", fn)


def gaussian(u: Tensor) -> Tensor:
    r"""Gaussian kernel :math:`K(u) = \exp(-u^2/2) / \sqrt{2\pi}` (standard normal density).

    Args:
        u: scaled distances ``(query - key) / bandwidth``, any shape, floating point.

    Returns:
        Kernel values, same shape as ``u``.

    Example::

        >>> gaussian(torch.tensor([0.0, 1.0]))
        tensor([0.3989, 0.2420])
    """
    u = _check_u(u, "gaussian")
    return torch.exp(-0.5 * u * u - _LOG_SQRT_2PI)


def boxcar(u: Tensor) -> Tensor:
    r"""Boxcar (uniform) kernel :math:`K(u) = \tfrac12` for :math:`|u| \le 1`, else 0.

    (d2l's boxcar is 1 on :math:`|u| < 1`: a constant factor, so identical
    Nadaraya-Watson weights except exactly at :math:`|u| = 1`.)

    Args:
        u: scaled distances, any shape, floating point.

    Returns:
        Kernel values, same shape as ``u``.

    Example::

        >>> boxcar(torch.tensor([0.0, 1.0, 1.5]))
        tensor([0.5000, 0.5000, 0.0000])
    """
    u = _check_u(u, "boxcar")
    return torch.where(u.abs() <= 1.0, 0.5, 0.0).to(u.dtype)


def constant(u: Tensor) -> Tensor:
    r"""Constant kernel :math:`K(u) = 1` (improper: it does not integrate to 1).

    Every training point gets the same weight, so Nadaraya-Watson predicts the mean of
    the targets everywhere: the baseline of d2l section 11.2.

    Args:
        u: scaled distances, any shape, floating point.

    Returns:
        Ones, same shape as ``u``.

    Example::

        >>> constant(torch.tensor([0.0, 5.0]))
        tensor([1., 1.])
    """
    u = _check_u(u, "constant")
    return torch.ones_like(u)


def epanechnikov(u: Tensor) -> Tensor:
    r"""Epanechnikov kernel :math:`K(u) = \tfrac34 (1 - u^2)` for :math:`|u| \le 1`, else 0.

    The real one: a parabola. d2l's function of this name computes
    :math:`\max(0, 1 - |u|)`, which is the :func:`triangular` kernel (d2l issue 2440).

    Args:
        u: scaled distances, any shape, floating point.

    Returns:
        Kernel values, same shape as ``u``.

    Example::

        >>> epanechnikov(torch.tensor([0.0, 0.5, 2.0]))
        tensor([0.7500, 0.5625, 0.0000])
    """
    u = _check_u(u, "epanechnikov")
    return 0.75 * torch.clamp(1.0 - u * u, min=0.0)


def triangular(u: Tensor) -> Tensor:
    r"""Triangular kernel :math:`K(u) = 1 - |u|` for :math:`|u| \le 1`, else 0.

    (This is what d2l calls "Epanechnikov"; see :func:`epanechnikov`.)

    Args:
        u: scaled distances, any shape, floating point.

    Returns:
        Kernel values, same shape as ``u``.

    Example::

        >>> triangular(torch.tensor([0.0, 0.5, 2.0]))
        tensor([1.0000, 0.5000, 0.0000])
    """
    u = _check_u(u, "triangular")
    return torch.clamp(1.0 - u.abs(), min=0.0)


#: Kernel name -> function :math:`K(u)`.
KERNELS: dict[str, Callable[[Tensor], Tensor]] = {
    "gaussian": gaussian,
    "boxcar": boxcar,
    "constant": constant,
    "epanechnikov": epanechnikov,
    "triangular": triangular,
}


# --- log-kernels: log K(u), -inf outside a compact support, finite gradients inside ----
def _log_gaussian(u: Tensor) -> Tensor:
    return -0.5 * u * u - _LOG_SQRT_2PI


def _log_boxcar(u: Tensor) -> Tensor:
    # piecewise constant: its gradient is 0, but it stays in the graph (u_safe * 0), so a
    # trainable bandwidth gets a zero gradient instead of "does not require grad"
    inside = u.abs() <= 1.0
    u_safe = torch.where(inside, u, torch.zeros_like(u))
    return (u_safe * 0.0 + math.log(0.5)).masked_fill(~inside, -math.inf)


def _log_constant(u: Tensor) -> Tensor:
    return torch.where(torch.isfinite(u), u, torch.zeros_like(u)) * 0.0  # 0, in the graph


def _log_epanechnikov(u: Tensor) -> Tensor:
    inside = u.abs() < 1.0
    u_safe = torch.where(inside, u, torch.zeros_like(u))  # keeps log1p's gradient finite
    return (math.log(0.75) + torch.log1p(-u_safe * u_safe)).masked_fill(~inside, -math.inf)


def _log_triangular(u: Tensor) -> Tensor:
    inside = u.abs() < 1.0
    u_safe = torch.where(inside, u, torch.zeros_like(u))
    return torch.log1p(-u_safe.abs()).masked_fill(~inside, -math.inf)


#: Kernel name -> :math:`\log K(u)` (``-inf`` outside a compact kernel's support).
LOG_KERNELS: dict[str, Callable[[Tensor], Tensor]] = {
    "gaussian": _log_gaussian,
    "boxcar": _log_boxcar,
    "constant": _log_constant,
    "epanechnikov": _log_epanechnikov,
    "triangular": _log_triangular,
}


def _resolve_kernel(kernel: object, fn: str) -> tuple[str, Callable[[Tensor], Tensor]]:
    """Return (display name, log-kernel function) for a kernel name or callable K(u)."""
    if isinstance(kernel, str):
        if kernel not in LOG_KERNELS:
            raise ValueError(
                f"{fn}: kernel must be one of {sorted(LOG_KERNELS)} or a callable "
                f"K(u); got {kernel!r}"
            )
        return kernel, LOG_KERNELS[kernel]
    if callable(kernel):
        for name, k in KERNELS.items():
            if kernel is k:
                return name, LOG_KERNELS[name]

        def _log_custom(u: Tensor) -> Tensor:
            values = kernel(u)
            if not isinstance(values, Tensor):
                raise TypeError(
                    f"{fn}: a callable kernel must return a tensor of the shape of its input "
                    f"{fmt_shape(u.shape)}; got an object of type {type(values).__name__}"
                )
            if values.shape != u.shape:
                raise ValueError(
                    f"{fn}: a callable kernel must return a tensor of the same "
                    f"shape as its input {fmt_shape(u.shape)}; got {fmt_shape(values.shape)}"
                )
            if values.is_complex():
                raise TypeError(
                    f"{fn}: a callable kernel must return real values; got dtype {values.dtype}"
                )
            # Any real dtype (bool, integer, another float) is read in the data's dtype: a
            # window written as `u.abs() <= 1` is a kernel of 0/1 values.
            values = values.to(u.dtype)
            if bool(torch.isnan(values).any()):
                raise ValueError(f"{fn}: the callable kernel returned NaN values")
            if bool((values < 0).any()):
                raise ValueError(
                    f"{fn}: kernel values must be >= 0; the callable kernel "
                    f"returned negative values"
                )
            positive = values > 0
            # log of 1 where K = 0, then -inf: no 0 * inf = NaN in the backward pass
            safe = torch.where(positive, values, torch.ones_like(values))
            return torch.log(safe).masked_fill(~positive, -math.inf)

        return getattr(kernel, "__name__", "custom"), _log_custom
    raise TypeError(
        f"{fn}: kernel must be one of {sorted(LOG_KERNELS)} or a callable K(u); "
        f"got an object of type {type(kernel).__name__}"
    )


def log_kernel(u: Tensor, kernel: KernelArg = "gaussian") -> Tensor:
    r""":math:`\log K(u)`, computed directly (``-inf`` outside a compact kernel's support).

    Working with log-kernel values is what keeps Nadaraya-Watson free of 0/0: the weights
    are ``softmax(log K(u))`` along the training points, which is ``K / sum(K)`` whenever
    that ratio is defined.

    Args:
        u: scaled distances, any shape, floating point.
        kernel: a name in :data:`KERNELS` or a callable ``K(u)`` (then ``log(K(u))``).

    Returns:
        Log-kernel values, same shape as ``u``.

    Example::

        >>> log_kernel(torch.tensor([0.5, 1.0]), "triangular")   # log(1 - |u|)
        tensor([-0.6931,    -inf])
    """
    u = _check_u(u, "log_kernel")
    return _resolve_kernel(kernel, "log_kernel")[1](u)


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


_MISSPELT = ("epanechikov", "epanechikov_kernel")


def _in_from_import() -> bool:
    """True when the attribute is looked up by ``from attnlib.kernels import name``: the
    import machinery turns an AttributeError into a bare "cannot import name", but lets an
    ImportError through with its message."""
    import dis
    import sys

    try:
        frame = sys._getframe(2)  # the frame running the import statement
        return dis.opname[frame.f_code.co_code[frame.f_lasti]] == "IMPORT_FROM"
    except (AttributeError, IndexError, ValueError):  # another interpreter: no frame details
        return False


def __getattr__(name: str):
    if name in _MISSPELT:
        message = (
            f"attnlib.kernels has no {name!r}: d2l's 'epanechikov' is really the triangular "
            f"kernel max(0, 1 - |u|) (d2l issue 2440). Use attnlib.kernels.triangular for "
            f"d2l's numbers, or attnlib.kernels.epanechnikov for the real Epanechnikov kernel "
            f"3/4 (1 - u^2) on |u| <= 1."
        )
        if _in_from_import():
            raise ImportError(message, name=__name__, path=__file__)
        raise AttributeError(message)
    raise AttributeError(f"module 'attnlib.kernels' has no attribute {name!r}")
