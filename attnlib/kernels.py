r"""Kernels: the shapes K(u) of Nadaraya-Watson kernel regression, and their logarithms.

The regression itself is :mod:`attnlib.kernel_regression`, one layer above (d2l readers call
it as ``attnlib.nadaraya_watson`` and ``attnlib.NadarayaWatson``).

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
from torch import Tensor

from attnlib._checks import check_float_tensor, fmt_shape
from attnlib.domains import Choice, declare
from attnlib.tensor_domains import FloatTensor

__all__ = [
    "gaussian",
    "boxcar",
    "constant",
    "epanechnikov",
    "triangular",
    "KERNELS",
    "LOG_KERNELS",
    "log_kernel",
]

KernelArg = str | Callable[[Tensor], Tensor]
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


def _check_u(u: object, fn: str) -> Tensor:
    return check_float_tensor(u, "u", fn)


@declare(u=FloatTensor(), differentiable=("u",))
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


@declare(u=FloatTensor())
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


@declare(u=FloatTensor())
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


@declare(u=FloatTensor(), differentiable=("u",))
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


@declare(u=FloatTensor())
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


@declare(u=FloatTensor(), kernel=Choice(*LOG_KERNELS, or_callable=True))
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
