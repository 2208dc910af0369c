"""Frames for the browser: 16- or 32-bit quantised byte planes, error below
:data:`MAX_ENCODING_ERROR` (see :mod:`attnlib.widgets`)."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping

import numpy as np

from attnlib import domains as D
from attnlib.widgets.controls import ExplorerError

#: Largest error allowed between a value as stored for the browser and attnlib's value.
MAX_ENCODING_ERROR = 1e-4


# ----------------------------------------------------------------------------- encoding


@D.declare(values=D.Anything("(n_frames, n) finite numbers: checked in the body"), where=D.Str())
def encode_frames(values: np.ndarray, where: str = "") -> dict:
    """Compact, JSON-friendly encoding of ``values`` (n_frames, n) with error < 1e-4.

    ``where`` names the explorer and panel in error messages (e.g. ``"explorer 'x', panel
    'weights'"``). Values whose span (max - min) is too wide for 32-bit steps of 1e-4,
    about 4e5, raise :class:`ExplorerError`: rescale the panel (e.g. plot log values or
    divide by a unit) or split it.

    Values are quantised to unsigned integers, ``value ≈ offset + q * scale``: 16 bits when
    that keeps the error below ``MAX_ENCODING_ERROR / 2`` (always the case for weights in
    [0, 1]: error ≤ 7.7e-6), exactly for small integers (histogram counts), else 32 bits.
    Identical frames are stored once (``index`` maps frame -> stored frame). The integers
    are stored little-endian, split into byte planes (all low bytes, then all high bytes,
    which gzip compresses much better) and base64-encoded.
    """
    fn = f"encode_frames ({where})" if where else "encode_frames"
    if np.iscomplexobj(values) or (hasattr(values, "is_complex") and values.is_complex()):
        raise ExplorerError(f"{fn}: values must be real numbers; got complex values")
    try:
        values = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise ExplorerError(
            f"{fn}: values must be numbers; got {type(values).__name__} ({err})"
        ) from None
    if values.ndim != 2:
        raise ExplorerError(
            f"{fn}: values must have shape (n_frames, n); got {tuple(values.shape)}"
        )
    if not np.isfinite(values).all():
        raise ExplorerError(f"{fn}: values must be finite; got NaN or inf")
    n_frames, n = values.shape
    # Deduplicate identical frames.
    uniq: dict[bytes, int] = {}
    index = []
    rows = []
    for f in range(n_frames):
        key = hashlib.sha1(values[f].tobytes()).digest()
        if key not in uniq:
            uniq[key] = len(rows)
            rows.append(values[f])
        index.append(uniq[key])
    stored = np.stack(rows) if rows else values[:0]  # (n_stored, n)
    lo = float(stored.min()) if stored.size else 0.0
    hi = float(stored.max()) if stored.size else 0.0
    span = hi - lo
    if stored.size and np.all(stored == np.round(stored)) and span < 65536:
        bits, scale = 16, 1.0
    elif span == 0.0:
        bits, scale = 16, 1.0
    elif span / 65535 / 2 <= MAX_ENCODING_ERROR / 2:
        bits, scale = 16, span / 65535
    else:
        bits, scale = 32, span / 4294967295
        if not np.isfinite(span) or scale / 2 + abs(hi) * 2e-16 >= MAX_ENCODING_ERROR / 2:
            raise ExplorerError(
                f"{where or 'explorer'}: the values span {lo:.6g} .. {hi:.6g} (a range of "
                f"{span:.3g}); the frame encoding keeps every value within "
                f"{MAX_ENCODING_ERROR:g} with 32-bit steps, which holds a range of at most "
                f"{4294967295 * MAX_ENCODING_ERROR:.3g}. Fix: rescale this panel (plot "
                f"log values, or divide by a unit and say so in its label) or split it"
            )
    q = np.round((stored - lo) / scale)
    dtype = np.dtype("<u2") if bits == 16 else np.dtype("<u4")
    q = np.clip(q, 0, np.iinfo(dtype).max).astype(dtype)  # (n_stored, n)
    planes = q.reshape(-1).view(np.uint8).reshape(-1, dtype.itemsize).T  # (bytes, n_stored*n)
    blob = base64.b64encode(np.ascontiguousarray(planes).tobytes()).decode("ascii")
    enc = {
        "bits": bits,
        "offset": lo,
        "scale": scale,
        "n": int(n),
        "n_stored": len(rows),
        "data": blob,
        "index": index if len(rows) < n_frames else None,
    }
    err = float(np.max(np.abs(decode_frames(enc) - values))) if values.size else 0.0
    if not err < MAX_ENCODING_ERROR:  # pragma: no cover - guarded by the span check
        raise ExplorerError(
            f"{where or 'explorer'}: encoding error {err:.3g} exceeds "
            f"{MAX_ENCODING_ERROR}; rescale this panel's values"
        )
    return enc


_KEYS = ("bits", "offset", "scale", "n", "n_stored", "data", "index")


@D.declare(enc=D.Instance(Mapping, what="a dict (what encode_frames returns)"))
def decode_frames(enc: Mapping) -> np.ndarray:
    """Inverse of :func:`encode_frames` (what explorer.js does): (n_frames, n) float64.

    ``enc`` must hold every key :func:`encode_frames` writes, consistent with each other
    (``ValueError`` naming the first that is missing or does not fit)."""
    fn = "decode_frames"
    if not isinstance(enc, Mapping):
        raise ValueError(
            f"{fn}: enc must be a dict as encode_frames returns; got {type(enc).__name__}"
        )
    missing = [k for k in _KEYS if k not in enc]
    if missing:
        raise ValueError(f"{fn}: enc is missing {missing} (encode_frames writes {list(_KEYS)})")
    if enc["bits"] not in (16, 32):
        raise ValueError(f"{fn}: enc['bits'] must be 16 or 32; got {enc['bits']!r}")
    nbytes = enc["bits"] // 8
    try:
        raw = np.frombuffer(base64.b64decode(enc["data"], validate=True), dtype=np.uint8)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{fn}: enc['data'] must be base64 text; {err}") from None
    n_stored, n = enc["n_stored"], enc["n"]
    if raw.size != nbytes * n_stored * n:
        raise ValueError(
            f"{fn}: enc['data'] holds {raw.size} bytes; n_stored = {n_stored} frames of n = {n} "
            f"values at {enc['bits']} bits need {nbytes * n_stored * n}"
        )
    planes = raw.reshape(nbytes, n_stored * n)  # (bytes, n_stored*n)
    q = np.zeros(n_stored * n, dtype=np.float64)
    for b in range(nbytes):
        q += planes[b].astype(np.float64) * (256.0**b)
    stored = (enc["offset"] + q * enc["scale"]).reshape(n_stored, n)  # (n_stored, n)
    index = enc["index"] if enc["index"] is not None else list(range(n_stored))
    index = np.asarray(index, dtype=np.int64)
    if index.size and (index.min() < 0 or index.max() >= n_stored):
        raise ValueError(
            f"{fn}: enc['index'] must point at stored frames 0 .. {n_stored - 1}; got "
            f"{int(index.min())} .. {int(index.max())}"
        )
    return stored[index]
