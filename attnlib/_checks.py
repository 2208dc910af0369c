"""Input validation shared by every public function of attnlib.

Every helper raises ``TypeError`` (wrong kind of object or dtype) or ``ValueError``
(wrong shape or value) with a message that names the function, the argument, what was
expected and what was received, e.g.::

    dot_product_scores: queries must have 3 dimensions (batch, n_queries, d); got shape (2, 3)

The helpers never modify their inputs and never broadcast silently.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import Tensor

__all__ = [
    "fmt_shape",
    "check_tensor",
    "check_float_tensor",
    "check_same_dtype",
    "check_dim_match",
    "check_valid_lens",
    "is_tracing",
    "check_mask",
    "check_positive",
]

_INT_DTYPES = (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8)


def fmt_shape(shape: Sequence[int]) -> str:
    """Format a shape as ``(2, 3)`` (``(5,)`` for one dimension, ``()`` for a scalar)."""
    shape = tuple(int(s) for s in shape)
    if len(shape) == 1:
        return f"({shape[0]},)"
    return "(" + ", ".join(str(s) for s in shape) + ")"


def _describe(x: object) -> str:
    if isinstance(x, Tensor):
        return f"a tensor of dtype {x.dtype} and shape {fmt_shape(x.shape)}"
    return f"an object of type {type(x).__name__}"


def check_tensor(
    x: object, name: str, fn: str, *, ndim: int | None = None, layout: str | None = None
) -> Tensor:
    """Check that ``x`` is a tensor (optionally with ``ndim`` dimensions) and return it.

    ``layout`` names the dimensions in error messages, e.g. ``"(batch, n_queries, d)"``.
    """
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{fn}: {name} must be a torch.Tensor"
            + (f" of shape {layout}" if layout else "")
            + f"; got {_describe(x)}"
        )
    if ndim is not None and x.dim() != ndim:
        raise ValueError(
            f"{fn}: {name} must have {ndim} dimension{'s' if ndim != 1 else ''}"
            + (f" {layout}" if layout else "")
            + f"; got shape {fmt_shape(x.shape)}"
        )
    return x


def check_float_tensor(
    x: object, name: str, fn: str, *, ndim: int | None = None, layout: str | None = None
) -> Tensor:
    """Like :func:`check_tensor`, and the dtype must be floating point."""
    x = check_tensor(x, name, fn, ndim=ndim, layout=layout)
    if not x.is_floating_point():
        raise TypeError(
            f"{fn}: {name} must be a floating-point tensor (float16, bfloat16, "
            f"float32 or float64); got dtype {x.dtype}. "
            f"Convert it first, e.g. {name}.float()"
        )
    return x


def check_same_dtype(fn: str, **tensors: Tensor) -> None:
    """All given tensors must share one dtype (no silent promotion)."""
    items = list(tensors.items())
    first_name, first = items[0]
    for name, t in items[1:]:
        if t.dtype != first.dtype:
            raise TypeError(
                f"{fn}: {name} must have the same dtype as {first_name} "
                f"({first.dtype}); got {t.dtype}"
            )


def check_dim_match(
    fn: str,
    name_a: str,
    a: Tensor,
    dim_a: int,
    name_b: str,
    b: Tensor,
    dim_b: int,
    what: str,
    hint: str = "",
) -> None:
    """``a.shape[dim_a]`` must equal ``b.shape[dim_b]``; ``what`` names the dimension."""
    if a.shape[dim_a] != b.shape[dim_b]:
        raise ValueError(
            f"{fn}: {name_a} and {name_b} must have the same {what}; got "
            f"{name_a} of shape {fmt_shape(a.shape)} ({what} {a.shape[dim_a]}) "
            f"and {name_b} of shape {fmt_shape(b.shape)} ({what} {b.shape[dim_b]})"
            + (f". {hint}" if hint else "")
        )


def is_tracing() -> bool:
    """True under ``torch.compile`` tracing or inside ``torch.func.vmap``.

    Data-dependent checks (reading a value with ``.item()``) cannot run there: they break
    a ``fullgraph=True`` compile and fail under ``vmap``. Callers then skip the *range*
    checks of lengths (shapes and dtypes are still checked) and use branch-free code.
    """
    compiler = getattr(torch, "compiler", None)
    if compiler is not None and compiler.is_compiling():
        return True
    return False


def _is_batched(x: Tensor) -> bool:
    """True for a functorch BatchedTensor (an input seen inside ``torch.func.vmap``)."""
    functorch = getattr(torch._C, "_functorch", None)
    return bool(functorch is not None and functorch.is_batchedtensor(x))


def check_valid_lens(
    valid_lens: object,
    batch: int | None,
    n_queries: int,
    n_keys: int,
    fn: str,
    name: str = "valid_lens",
    *,
    return_min: bool = False,
):
    """Validate ``valid_lens`` and return it as an int64 tensor (or ``None``).

    With ``return_min=True`` return ``(valid_lens, smallest entry)``; the smallest entry is
    ``None`` when ``valid_lens`` is ``None`` or empty, or when it cannot be read without a
    data-dependent step (under ``torch.compile`` or ``vmap``, see :func:`is_tracing`).

    Accepted: ``None``; a tensor, numpy array, list or tuple of shape ``(batch,)`` (one
    length per sequence, shared by all its queries) or ``(batch, n_queries)`` (one length
    per query) with every entry in ``[0, n_keys]``. Integer dtypes of any width are
    accepted, and floating-point lengths that hold whole numbers (d2l's BERT passes float32
    lengths); a non-whole or non-finite float raises ``ValueError``. ``batch=None`` accepts
    any batch size.
    """
    if valid_lens is None:
        return (None, None) if return_min else None
    if type(valid_lens).__module__ == "numpy" and hasattr(valid_lens, "dtype"):
        # numpy arrays are accepted like lists (decision: documented in README)
        if valid_lens.dtype.kind not in "iuf":
            raise TypeError(
                f"{fn}: {name} must hold integer lengths; got a numpy array of "
                f"dtype {valid_lens.dtype}"
            )
        valid_lens = torch.from_numpy(valid_lens.copy())
    if isinstance(valid_lens, (list, tuple)):
        try:
            valid_lens = torch.tensor(valid_lens)
        except (TypeError, ValueError, RuntimeError) as err:
            raise TypeError(
                f"{fn}: {name} must be an integer tensor; got a "
                f"{type(valid_lens).__name__} that torch.tensor cannot convert "
                f"({err})"
            ) from None
    if not isinstance(valid_lens, Tensor):
        raise TypeError(
            f"{fn}: {name} must be None or an integer tensor of shape (batch,) "
            f"or (batch, n_queries); got {_describe(valid_lens)}"
        )
    if valid_lens.dtype == torch.bool:
        raise TypeError(
            f"{fn}: {name} must be an integer tensor of lengths; got dtype "
            f"torch.bool. To pass a boolean mask use mask= (True = attend)"
        )
    if valid_lens.is_complex() or not (
        valid_lens.dtype in _INT_DTYPES or valid_lens.is_floating_point()
    ):
        raise TypeError(
            f"{fn}: {name} must be an integer tensor (e.g. torch.int64) of "
            f"lengths; got dtype {valid_lens.dtype}"
        )
    b = valid_lens.shape[0] if valid_lens.dim() >= 1 else None
    expected = (
        "(batch,) or (batch, n_queries)"
        if batch is None
        else f"({batch},) or ({batch}, {n_queries}), i.e. (batch,) or (batch, n_queries)"
    )
    ok = valid_lens.dim() == 1 or (valid_lens.dim() == 2 and valid_lens.shape[1] == n_queries)
    if batch is not None and b != batch:
        ok = False
    if not ok:
        raise ValueError(
            f"{fn}: {name} must have shape {expected}; got shape {fmt_shape(valid_lens.shape)}"
        )
    # no data-dependent reads under torch.compile / vmap, or on the "meta" device
    traced = is_tracing() or _is_batched(valid_lens) or valid_lens.device.type == "meta"
    if valid_lens.is_floating_point():
        if not traced and valid_lens.numel():
            bad = ~torch.isfinite(valid_lens) | (valid_lens != valid_lens.round())
            if bool(bad.any()):
                first = valid_lens[bad].flatten()[0].item()
                raise ValueError(
                    f"{fn}: {name} holds lengths, so its entries must be whole "
                    f"numbers; got {first} (dtype {valid_lens.dtype})"
                )
        valid_lens = valid_lens.round()
    # int64 everywhere below: index lookups (embedding) take int32/int64 only, and narrow
    # dtypes (int8, uint8, int16) would overflow in comparisons with n_keys
    valid_lens = valid_lens.to(torch.int64)
    lo = None
    if valid_lens.numel() and not traced:
        lo, hi = torch.aminmax(valid_lens)
        lo, hi = int(lo), int(hi)
        if lo < 0:
            raise ValueError(f"{fn}: {name} must be >= 0; got a minimum of {lo}")
        if hi > n_keys:
            raise ValueError(f"{fn}: {name} must be <= n_keys = {n_keys}; got a maximum of {hi}")
    return (valid_lens, lo) if return_min else valid_lens


def check_mask(
    mask: object,
    target_shape: Sequence[int],
    fn: str,
    name: str = "mask",
    layout: str = "(batch, n_queries, n_keys)",
) -> Tensor | None:
    """A boolean mask (True = attend) broadcastable to ``target_shape`` without growing it."""
    if mask is None:
        return None
    if not isinstance(mask, Tensor):
        raise TypeError(
            f"{fn}: {name} must be None or a boolean tensor (True = attend); got {_describe(mask)}"
        )
    if mask.dtype != torch.bool:
        raise TypeError(
            f"{fn}: {name} must be a boolean tensor (True = attend); got dtype "
            f"{mask.dtype}. Use valid_lens= for integer lengths"
        )
    target = tuple(int(s) for s in target_shape)
    try:
        ok = (
            mask.dim() <= len(target)
            and tuple(torch.broadcast_shapes(mask.shape, target)) == target
        )
    except RuntimeError:
        ok = False
    if not ok:
        raise ValueError(
            f"{fn}: {name} must be broadcastable to {layout} = {fmt_shape(target)}; "
            f"got shape {fmt_shape(mask.shape)}"
        )
    return mask


def check_positive(value: object, name: str, fn: str) -> float | Tensor:
    """A positive finite Python number or a single-element floating tensor."""
    if isinstance(value, Tensor):
        if value.numel() != 1:
            raise ValueError(
                f"{fn}: {name} must be a single positive number; got a tensor of "
                f"shape {fmt_shape(value.shape)}"
            )
        if not value.is_floating_point():
            raise TypeError(
                f"{fn}: {name} must be a floating-point number; got a tensor of "
                f"dtype {value.dtype}"
            )
        v = float(value.detach())
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        v = float(value)
    else:
        raise TypeError(f"{fn}: {name} must be a positive number; got {_describe(value)}")
    if not (v > 0 and math.isfinite(v)):
        raise ValueError(f"{fn}: {name} must be > 0 and finite; got {v}")
    return value
