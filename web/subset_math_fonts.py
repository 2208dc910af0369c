"""Cuts MathJax's web fonts down to the characters the book's formulas use.

web/prerender-math.mjs typesets every formula at build time and writes one stylesheet,
_static/lib/mathjax-chtml.css, with a rule per character used (``content: "\\1D45E"``) and an
@font-face per MathJax font. A page then downloads whole TeX fonts (MathJax_Main-Regular alone
is 34 kB) to draw a few dozen characters. This script collects every code point named in
that stylesheet and subsets each font it references to them (fontTools, which matplotlib
already brings), keeping file names, so nothing else changes. A character the fonts lack
stays missing as before; a font with none of them is left whole.

Usage: python web/subset_math_fonts.py _build/html   (`make book` runs it after prerender-math)
"""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTFont

CSS = Path("_static/lib/mathjax-chtml.css")


def code_points(css: str) -> set[int]:
    """Every character in the stylesheet's ``content: "..."`` strings (CSS escapes decoded)."""
    points: set[int] = set()
    for text in re.findall(r'content:\s*"((?:[^"\\]|\\.)*)"', css):
        for m in re.finditer(r"\\([0-9A-Fa-f]{1,6})\s?|\\(.)|(.)", text, re.S):
            if m.group(1):
                points.add(int(m.group(1), 16))
            else:
                points.add(ord(m.group(2) or m.group(3)))
    return points


def main(site: str) -> int:
    css_path = Path(site) / CSS
    css = css_path.read_text(encoding="utf8")
    points = code_points(css)
    if not points:
        raise SystemExit(f"subset_math_fonts: no characters found in {css_path}")
    before = after = 0
    for url in sorted(set(re.findall(r'url\("([^"]+\.woff)"\)', css))):
        path = css_path.parent / url
        data = path.read_bytes()
        font = TTFont(io.BytesIO(data))
        keep = points & set(font.getBestCmap() or {})
        before += len(data)
        if not keep:
            after += len(data)
            continue
        options = subset.Options()
        options.flavor = "woff"
        options.layout_features = ["*"]
        options.notdef_outline = True
        options.name_IDs = ["*"]
        options.drop_tables += ["FFTM"]  # FontForge timestamps: not needed to draw
        sub = subset.Subsetter(options)
        sub.populate(unicodes=keep)
        sub.subset(font)
        out = io.BytesIO()
        font.flavor = "woff"
        font.save(out)
        new = out.getvalue()
        if len(new) < len(data):
            path.write_bytes(new)
            data = new
        after += len(data)
    print(
        f"subset_math_fonts: {len(points)} characters; MathJax fonts {before / 1e3:.0f} kB "
        f"-> {after / 1e3:.0f} kB"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "_build/html"))
