"""Tensor domains for :mod:`attnlib.domains`: floating-point tensors with named dimensions
shared between the arguments of one call, lengths (``valid_lens``) and boolean masks; and the
book's shape vocabulary declared once (:data:`QK`, :data:`QK_SIZES`, :data:`KV`), which every
scoring function and attention module uses.

Import them from :mod:`attnlib.domains` (this module is its tensor half).
"""

from __future__ import annotations

import torch
from torch import Tensor

from attnlib._checks import check_mask, check_valid_lens, fmt_shape
from attnlib._validate import describe
from attnlib.domains import Domain, declare

__all__ = [
    "FloatTensor",
    "Lengths",
    "Mask",
    "QK",
    "QK_SIZES",
    "KV",
    "DIM_WORDS",
    "attention_forward",
]

#: readable names of common dimensions, for messages ("the same number of keys n_keys")
DIM_WORDS = {
    "batch": "batch size",
    "n_queries": "number of queries n_queries",
    "n_keys": "number of keys n_keys",
    "n_train": "number of training points n_train",
    "d": "feature size d",
    "d_q": "query feature size d_q",
    "d_k": "key feature size d_k",
    "d_v": "value feature size d_v",
    "h": "hidden size h",
}


class FloatTensor(Domain):
    """A floating-point tensor whose dimensions are named: ``"batch n_queries d"``. A name
    shared with another argument of the same call must have the same size there (the
    first argument that names it sets it); ``"..."`` accepts any shape. ``same_dtype_as``
    names an argument whose dtype this one must share (no silent promotion); ``finite``
    refuses NaN and infinite entries (one pass over the tensor: only where it matters)."""

    kind = "tensor"

    def __init__(
        self,
        dims: str = "...",
        *,
        same_dtype_as: str | None = None,
        finite: bool = False,
        min_size: dict | None = None,
        hints: dict | None = None,
        within: tuple[float, float] | None = None,
        **kw,
    ) -> None:
        super().__init__(**kw)
        self.hints = dict(hints or {})
        self.within = within
        self.dims = tuple(dims.split())
        self.same_dtype_as = same_dtype_as
        self.finite = finite
        self.min_size = dict(min_size or {})
        self.layout = "(" + ", ".join(self.dims) + ("," if len(self.dims) == 1 else "") + ")"
        if "..." in self.dims[1:]:
            raise ValueError(f"FloatTensor: '...' may only lead the dimensions; got {dims!r}")

    def check(self, value, fn, name, dims):
        if not isinstance(value, Tensor):
            raise TypeError(
                f"{fn}: {name} must be a torch.Tensor"
                + ("" if self.dims == ("...",) else f" of shape {self.layout}")
                + f"; got {describe(value)}"
            )
        if not value.is_floating_point():
            raise TypeError(
                f"{fn}: {name} must be a floating-point tensor (float16, bfloat16, float32 or "
                f"float64); got dtype {value.dtype}. Convert it first, e.g. {name}.float()"
            )
        if self.same_dtype_as is not None:
            other = dims.get(("dtype", self.same_dtype_as))
            if other is not None and other != value.dtype:
                raise TypeError(
                    f"{fn}: {name} must have the same dtype as {self.same_dtype_as} "
                    f"({other}); got {value.dtype}"
                )
        dims[("dtype", name)] = value.dtype
        if self.dims != ("...",):
            lead = self.dims[0] == "..."
            named = self.dims[1:] if lead else self.dims
            n = len(named)
            if value.dim() != n and not (lead and value.dim() >= n):
                at_least = "at least " if lead else ""
                raise ValueError(
                    f"{fn}: {name} must have {at_least}{n} dimension{'s' if n != 1 else ''} "
                    f"{self.layout}; got shape {fmt_shape(value.shape)}"
                )
            offset = value.dim() - n
            for axis, dim in enumerate(named, offset):
                size = value.shape[axis]
                if dim.isdigit():
                    if size != int(dim):
                        raise ValueError(
                            f"{fn}: {name} must have shape {self.layout}; got shape "
                            f"{fmt_shape(value.shape)}"
                        )
                    continue
                seen = dims.get(dim)
                if seen is None:
                    dims[dim] = (size, name, value.shape)
                elif seen[0] != size:
                    words = DIM_WORDS.get(dim, dim)
                    expected = tuple(
                        int(d) if d.isdigit() else dims[d][0] if d in dims else value.shape[i]
                        for i, d in enumerate(named, offset)
                    )
                    where = (
                        f"{seen[1]} has shape {fmt_shape(seen[2])}: {dim} = {seen[0]}"
                        if seen[2] is not None
                        else f"{seen[1]} = {seen[0]}"
                    )
                    raise ValueError(
                        f"{fn}: {name} and {seen[1]} must have the same {words}; {name} must "
                        f"have shape {self.layout} = {fmt_shape(expected)}, got "
                        f"{fmt_shape(value.shape)} ({dim} = {size}; {where})"
                        + (f". {self.hints[dim]}" if dim in self.hints else "")
                    )
                low = self.min_size.get(dim)
                if low is not None and size < low:
                    raise ValueError(
                        f"{fn}: {name} must have {dim} >= {low}; got shape "
                        f"{fmt_shape(value.shape)}"
                    )
        if self.finite and value.numel() and not bool(torch.isfinite(value).all()):
            raise ValueError(f"{fn}: {name} must hold finite values; got NaN or infinity")
        if self.within is not None and value.numel():
            lo, hi = self.within
            low, high = float(value.min()), float(value.max())
            if not (lo <= low and high <= hi):
                raise ValueError(
                    f"{fn}: {name} must hold values in [{lo:g}, {hi:g}]; got values from "
                    f"{low:g} to {high:g}"
                )
        return value


class Lengths(Domain):
    """``valid_lens``: ``None``, or lengths ``(batch,)`` / ``(batch, n_queries)`` in
    ``[0, n_keys]`` (integer of any width, or floats holding whole numbers); see
    :func:`attnlib.masked_softmax`. Returned as int64."""

    checked_late = True  # reads the sizes the other arguments set

    kind = "lengths"

    def __init__(self, batch: str = "batch", rows: str = "n_queries", cols: str = "n_keys"):
        super().__init__(optional=True)
        self.batch, self.rows, self.cols = batch, rows, cols

    def check(self, value, fn, name, dims):
        b = dims.get(self.batch)
        rows = dims.get(self.rows)
        cols = dims.get(self.cols)
        if rows is None or cols is None:  # sizes not declared by a tensor argument
            return value
        return check_valid_lens(value, b and b[0], rows[0], cols[0], fn, name)


class Mask(Domain):
    """A boolean mask (True = attend) broadcastable to the named dimensions."""

    checked_late = True  # reads the sizes the other arguments set

    kind = "mask"

    def __init__(self, dims: str = "batch n_queries n_keys") -> None:
        super().__init__(optional=True)
        self.dims = tuple(dims.split())

    def check(self, value, fn, name, dims):
        sizes = [dims.get(d) for d in self.dims]
        if any(s is None for s in sizes):
            return value
        layout = "(" + ", ".join(self.dims) + ")"
        return check_mask(value, [s[0] for s in sizes], fn, name, layout)


#: what the message of a feature-size mismatch suggests
_DHINT = {
    "d": "For queries and keys of different sizes use attnlib.bilinear_scores(queries, keys, M) "
    "or attnlib.AdditiveAttention(num_hiddens)"
}

#: queries and keys of one feature size d (dot product, cosine, Gaussian, ...)
QK = {
    "queries": FloatTensor("batch n_queries d"),
    "keys": FloatTensor("batch n_keys d", same_dtype_as="queries", hints=_DHINT),
}
#: queries and keys of two feature sizes d_q and d_k (additive, bilinear)
QK_SIZES = {
    "queries": FloatTensor("batch n_queries d_q"),
    "keys": FloatTensor("batch n_keys d_k", same_dtype_as="queries"),
}
#: the values, their lengths and the mask of an attention call
KV = {
    "values": FloatTensor("batch n_keys d_v", same_dtype_as="queries"),
    "valid_lens": Lengths(),
    "mask": Mask(),
}


def attention_forward(qk: dict = QK):
    """The declaration of every attention module's ``forward(queries, keys, values,
    valid_lens=None, *, mask=None)``, written once: queries and keys as ``qk`` declares them
    (:data:`QK`, one feature size d; :data:`QK_SIZES`, d_q and d_k), values, lengths and mask
    as :data:`KV`, differentiable in the three tensors. The forward's body checks only what
    its own module adds (a feature size against its layers)."""
    return declare(**qk, **KV, differentiable=("queries", "keys", "values"))
