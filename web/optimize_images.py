"""Shrinks the book's figure PNGs (_build/html/_images/*.png) after `jupyter-book build`.

The chapters' figures are 2x PNGs (crisp on high-DPI screens) in full RGB(A). Most of their
pixels are a few flat colours (white, the axes, a colour map's steps), so a 256-colour
palette holds them almost exactly at well under half the bytes. Each image is converted
(Pillow's median cut on RGB, fast octree with alpha) and kept only when it is smaller and
faithful: mean colour error <= 1.0 and 99.5th percentile <= 12 (of 255) per channel. The
files keep their names (myst-nb names them by the hash of the notebook output).

Each figure is also written as lossless WebP next to its PNG (X.webp beside X.png), kept when
it is smaller (about a quarter smaller here) and decodes to exactly the PNG's pixels, which
is checked. Pages offer it in a <picture> whose <img> stays the PNG: browsers without WebP,
and anything that reads <img src>, get the PNG.

Then, in every page, each figure's <img> (myst-nb writes its 1x size as an inline style) gets
width/height attributes, so the browser reserves its box before the file arrives (no layout
shift, anchors stay put), and loading="lazy": a figure is fetched when the reader scrolls
near it, not with the page.

Usage: python web/optimize_images.py _build/html   (`make book` runs it)
"""

from __future__ import annotations

import io
import re
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


def webp(data: bytes) -> bytes | None:
    """The image as lossless WebP, or None when that is not smaller. Raises when the WebP does
    not decode to the same pixels (it must be lossless)."""
    im = Image.open(io.BytesIO(data))
    im.load()
    alpha = im.mode in ("RGBA", "LA", "PA") or "transparency" in im.info
    rgb = im.convert("RGBA" if alpha else "RGB")
    out = io.BytesIO()
    rgb.save(out, format="WEBP", lossless=True, quality=50, method=4, exact=True)
    new = out.getvalue()
    back = Image.open(io.BytesIO(new)).convert(rgb.mode)
    if not np.array_equal(np.asarray(back), np.asarray(rgb)):
        raise SystemExit("optimize_images: lossless WebP changed the pixels")
    return new if len(new) < len(data) else None


IMG = re.compile(
    r'<img ([^>]*?)src="([^"]*_images/[^"]+)" style="width: (\d+)px; height: (\d+)px;" ?/>'
)


def lazy_figures(site: str, webps: set[str]) -> int:
    """Adds width, height, loading="lazy" and decoding="async" to the figures of every page, in a
    <picture> offering the WebP first where there is one (``webps``: their PNG names)."""
    n = 0

    def figure(m: re.Match) -> str:
        img = (
            f'<img {m.group(1)}src="{m.group(2)}" width="{m.group(3)}" height="{m.group(4)}" '
            f'style="width: {m.group(3)}px; height: {m.group(4)}px;" '
            'loading="lazy" decoding="async" />'
        )
        if Path(m.group(2)).name not in webps:
            return img
        return (
            f'<picture><source type="image/webp" srcset="{m.group(2)[:-4]}.webp" />{img}</picture>'
        )

    for page in Path(site).rglob("*.html"):
        html = page.read_text(encoding="utf8")
        new, k = IMG.subn(figure, html)
        if k:
            page.write_text(new, encoding="utf8")
            n += k
    return n


def _optimize(path: Path) -> tuple[int, int, bool, bool, int]:
    """One figure: (bytes before, bytes after, kept as a palette, has a WebP, its WebP bytes or
    its PNG bytes when there is none)."""
    data = path.read_bytes()
    before = len(data)
    res = shrink(data)
    if res is not None:
        path.write_bytes(res[0])
        data = res[0]
    w = webp(data)
    if w is not None:
        path.with_suffix(".webp").write_bytes(w)
    return before, len(data), res is not None, w is not None, len(w) if w else len(data)


def main(site: str) -> int:
    from concurrent.futures import ProcessPoolExecutor

    images = sorted(Path(site, "_images").glob("*.png"))
    # one figure per process, on every core (the figures are independent)
    with ProcessPoolExecutor() as pool:
        done = list(pool.map(_optimize, images))
    before = sum(d[0] for d in done)
    after = sum(d[1] for d in done)
    kept = sum(d[2] for d in done)
    webps = {path.name for path, d in zip(images, done) if d[3]}
    webp_bytes = sum(d[4] for d in done)
    print(
        f"optimize_images: {kept} of {len(images)} PNGs as palettes, "
        f"{before / 1e6:.2f} MB -> {after / 1e6:.2f} MB; {len(webps)} also as lossless WebP "
        f"({webp_bytes / 1e6:.2f} MB); {lazy_figures(site, webps)} figures load lazily"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "_build/html"))
