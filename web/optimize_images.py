"""Shrinks the book's figure PNGs (_build/html/_images/*.png) after `jupyter-book build`.

The chapters' figures are 2x PNGs (crisp on high-DPI screens) in full RGB(A). Most of their
pixels are a few flat colours (white, the axes, a colour map's steps), so a 256-colour
palette holds them almost exactly at well under half the bytes. Each image is converted
(Pillow's median cut on RGB, fast octree with alpha) and kept only when it is smaller and
faithful: mean colour error <= 1.0 and 99.5th percentile <= 12 (of 255) per channel. The
files keep their names (myst-nb names them by the hash of the notebook output).

Usage: python web/optimize_images.py _build/html   (`make book` runs it)
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import numpy as np
from PIL import Image

MEAN_TOL, P995_TOL = 1.0, 12.0


def shrink(data: bytes) -> tuple[bytes, float, float] | None:
    """The palette version of a PNG, or None when it is not smaller or not faithful."""
    im = Image.open(io.BytesIO(data))
    im.load()
    if im.mode == "P":
        return None
    rgba = im.convert("RGBA")
    has_alpha = np.asarray(rgba)[..., 3].min() < 255
    if has_alpha:
        pal = rgba.quantize(colors=256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
        back = np.asarray(pal.convert("RGBA"), dtype=np.int16)
        ref = np.asarray(rgba, dtype=np.int16)
    else:
        rgb = rgba.convert("RGB")
        pal = rgb.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
        back = np.asarray(pal.convert("RGB"), dtype=np.int16)
        ref = np.asarray(rgb, dtype=np.int16)
    err = np.abs(back - ref)
    mean, p995 = float(err.mean()), float(np.percentile(err, 99.5))
    out = io.BytesIO()
    pal.save(out, format="PNG", optimize=True)
    new = out.getvalue()
    if len(new) >= len(data) or mean > MEAN_TOL or p995 > P995_TOL:
        return None
    return new, mean, p995


def main(site: str) -> int:
    images = sorted(Path(site, "_images").glob("*.png"))
    before = after = 0
    kept = 0
    for path in images:
        data = path.read_bytes()
        before += len(data)
        res = shrink(data)
        if res is not None:
            path.write_bytes(res[0])
            data = res[0]
            kept += 1
        after += len(data)
    print(f"optimize_images: {kept} of {len(images)} PNGs as palettes, "
          f"{before / 1e6:.2f} MB -> {after / 1e6:.2f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "_build/html"))
