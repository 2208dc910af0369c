"""Writes the book's maths font: STIX Two Math cut down to the characters the formulas use.

web/prerender-math.mjs typesets every formula at build time into native MathML (MathML Core)
and links _static/lib/math.css, whose @font-face names _static/lib/math/STIXTwoMath-subset.woff2.
This script writes that file. STIX Two Math (SIL Open Font License) is an OpenType maths font:
its MATH table gives the browser the constants and the stretchy variants (brackets around a
matrix, roots, big parentheses) that native MathML layout needs, so the maths looks the same in
every browser instead of depending on the reader's installed fonts. The font comes from the
``ziamath`` package (pinned in requirements.txt), which ships it; nothing is downloaded.

Characters kept: every character inside a <math> element of any page, plus, for each
single-letter <mi> that MathML Core shows in italic, the mathematical italic letter the browser
actually draws (x -> U+1D465, h -> U+210E, alpha -> U+1D6FC, ...). fontTools' subsetter keeps the
glyphs the MATH table and the layout features reach from those (size variants and pieces of
stretchy delimiters, primes, ...), and the radical sign where there is a root. A character
the font lacks is an error, naming it and a page.

Usage: python web/subset_math_font.py _build/html   (`make book` runs it after prerender-math)
"""

from __future__ import annotations

import html
import io
import re
import sys
import unicodedata
from importlib import resources
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTFont

OUT = Path("_static/lib/math/STIXTwoMath-subset.woff2")
CSS = Path("_static/lib/math.css")
INVISIBLE = {0x2061, 0x2062, 0x2063, 0x2064, 0x200B, 0x00A0, 0x0020, 0x000A, 0x0009}

MATH = re.compile(r"<math\b[^>]*>(.*?)</math>", re.S)
MI = re.compile(r"<mi\b([^>]*)>([^<]*)</mi>")


def italic(c: str) -> str | None:
    """The letter MathML Core draws for a single-character <mi> (text-transform: math-auto)."""
    o = ord(c)
    special = {
        "h": 0x210E,
        "ı": 0x1D6A4,
        "ȷ": 0x1D6A5,
        "∇": 0x1D6FB,
        "∂": 0x1D715,
        "ϵ": 0x1D716,
        "ϑ": 0x1D717,
        "ϰ": 0x1D718,
        "ϕ": 0x1D719,
        "ϱ": 0x1D71A,
        "ϖ": 0x1D71B,
        "ϴ": 0x1D6F3,
    }
    if c in special:
        return chr(special[c])
    if "A" <= c <= "Z":
        return chr(0x1D434 + o - ord("A"))
    if "a" <= c <= "z":
        return chr(0x1D44E + o - ord("a"))
    if 0x391 <= o <= 0x3A9 and o != 0x3A2:
        return chr(0x1D6E2 + o - 0x391)
    if 0x3B1 <= o <= 0x3C9:
        return chr(0x1D6FC + o - 0x3B1)
    return None


def characters(site: Path) -> dict[str, str]:
    """Every character the formulas draw -> a page that draws it (its path in the site)."""
    found: dict[str, str] = {}
    for page in sorted(site.rglob("*.html")):
        if "_static" in page.parts:
            continue
        text = page.read_text(encoding="utf8")
        where = page.relative_to(site).as_posix()
        for m in MATH.finditer(text):
            body = m.group(1)
            for attrs, letter in MI.findall(body):
                letter = html.unescape(letter).strip(" \t\n\r\f")  # MathML trims its text
                if len(letter) == 1 and "mathvariant" not in attrs and (it := italic(letter)):
                    found.setdefault(it, where)
            for c in html.unescape(re.sub(r"<[^>]+>", "", body)):
                found.setdefault(c, where)
            if "<msqrt" in body or "<mroot" in body:  # the radical sign is drawn, not written
                found.setdefault("\u221a", where)
    return {c: p for c, p in found.items() if ord(c) not in INVISIBLE}


def main(site_arg: str) -> int:
    site = Path(site_arg)
    if not (site / CSS).is_file():
        raise SystemExit(
            f"subset_math_font: {site / CSS} missing: run web/prerender-math.mjs first"
        )
    if OUT.as_posix().removeprefix("_static/lib/") not in (site / CSS).read_text(encoding="utf8"):
        raise SystemExit(f"subset_math_font: {site / CSS} does not name {OUT.name}")
    chars = characters(site)
    if not chars:
        raise SystemExit(f"subset_math_font: no <math> under {site}")
    source = resources.files("ziamath") / "fonts" / "STIXTwoMath-Regular.ttf"
    data = source.read_bytes()
    font = TTFont(io.BytesIO(data))
    cmap = font.getBestCmap()
    missing = {c: p for c, p in chars.items() if ord(c) not in cmap}
    if missing:
        raise SystemExit(
            "subset_math_font: STIX Two Math has no glyph for "
            + ", ".join(
                f"U+{ord(c):04X} {unicodedata.name(c, '?')} ({p})"
                for c, p in sorted(missing.items())
            )
        )
    options = subset.Options()
    options.flavor = "woff2"
    options.layout_features = [
        "dtls",
        "flac",
        "ss04",
    ]  # dotless i/j under accents, flat accents, primes
    options.notdef_outline = True
    options.name_IDs = ["*"]  # keeps the copyright and licence (OFL) entries
    options.hinting = False  # browsers on phones and high-DPI screens do not need TrueType hints
    options.drop_tables += ["DSIG"]
    sub = subset.Subsetter(options)
    sub.populate(unicodes={ord(c) for c in chars})
    sub.subset(font)
    out = io.BytesIO()
    font.flavor = "woff2"
    font.save(out)
    target = site / OUT
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(out.getvalue())
    name = font["name"]
    (target.parent / "LICENSE-STIXTwoMath.txt").write_text(
        f"{name.getDebugName(0)}\n\n{name.getDebugName(13)}\n{name.getDebugName(14) or ''}\n",
        encoding="utf8",
    )
    print(
        f"subset_math_font: {len(chars)} characters, {len(font.getGlyphOrder())} glyphs; "
        f"STIX Two Math {len(data) / 1e3:.0f} kB -> {target.relative_to(site)} "
        f"{len(out.getvalue()) / 1e3:.1f} kB"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "_build/html"))
