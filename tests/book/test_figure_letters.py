"""Letters in the chapters' figures, on a phone: every figure of every chapter in the manifest,
read from its executed notebook (what the book shows).

Where letters are the content (a token named on an axis, the ``T``/``F`` in a mask's cells:
texts of one or two characters with a letter, attnlib.plotting.variants._is_letters), the reader
must tell one shape from another, so they are measured by their glyphs: their capital height as
the figure's PNG draws it (CSS px per CSS px of width, from the renderer), held to the book's
rules for figure text (issue 39) in the figures' font: letters in a picture (``glyph_scale``)
as tall as the capitals of a diagram's 12.8-px text (body 16 px x 0.8), tick letters
(``tick_glyph_scale``) as those of a 10.5-px tick label. A cold read measured chapter 9's mask
letters at about 7 px on a 390-px phone.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from matplotlib.font_manager import FontProperties

from attnlib.plotting.variants import _cap_height_pt
from scoringbook.manifest import CHAPTERS

ROOT = Path(__file__).resolve().parents[2]
#: a 390-px phone's column (web/book_ext.py's page padding: 16 px each side)
PHONE_COLUMN = 390 - 32
#: the capital height of a 12.8-px text (body 16 px x 0.8) in the figures' font (DejaVu Sans),
#: and of a 10.5-px tick label
LETTER_PX = _cap_height_pt(0.8 * 16, FontProperties())
TICK_LETTER_PX = _cap_height_pt(10.5, FontProperties())
#: each glyph scale and the least capital height (CSS px) it must give on a phone
LEAST = {"glyph_scale": LETTER_PX, "tick_glyph_scale": TICK_LETTER_PX}


def _figures(notebook: Path):
    """(cell number, attnlib metadata) of each attnlib figure the notebook shows."""
    for k, cell in enumerate(json.loads(notebook.read_text(encoding="utf8"))["cells"]):
        for out in cell.get("outputs", []):
            meta = out.get("metadata", {}).get("image/png", {}).get("attnlib")
            if "image/png" in out.get("data", {}) and meta is not None:
                yield k, meta


def _on_a_phone(meta: dict) -> list[dict]:
    """The pictures a phone shows of a figure, light and dark: its narrow variants, or, for a
    figure no wider than a phone's (no narrow variant), the figure itself and its dark twin."""
    narrow = [v for v in meta["variants"] if v["layout"] == "narrow"]
    if narrow:
        return narrow
    main = {"theme": "light", **{k: meta.get(k, "missing") for k in ("label_scale", *LEAST)}}
    main["width"] = min(v["width"] for v in meta["variants"])  # the dark twin's size: the same
    return [main, *(v for v in meta["variants"] if v["layout"] == "wide")]


def letters_on_a_phone(meta: dict) -> list[tuple[str, str, float, float]]:
    """(theme, which letters, capital height in CSS px, the least allowed) of the smallest
    letters of each picture a phone shows, the picture drawn at most the column's width; none
    for a figure without letters."""
    out = []
    for v in _on_a_phone(meta):
        for key, least in LEAST.items():
            if v.get(key, "missing") == "missing":
                raise AssertionError(f"no {key}: the notebook was executed before it existed")
            if v[key] is not None:
                px = v[key] * min(v["width"], PHONE_COLUMN)
                out.append((v["theme"], key, px, least))
    return out


def test_letter_px_is_the_capital_height_of_four_fifths_of_body_text():
    # DejaVu Sans: capital height 0.729 em
    assert LETTER_PX == pytest.approx(0.729 * 12.8, rel=0.01)
    assert TICK_LETTER_PX == pytest.approx(0.729 * 10.5, rel=0.01)


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda c: c.stem[:2])
def test_letters_in_figures_are_legible_on_a_phone(chapter):
    notebook = ROOT / "chapters" / chapter.notebook
    small = []
    for cell, meta in _figures(notebook):
        for theme, key, px, least in letters_on_a_phone(meta):
            if px < least - 1e-6:
                small.append(f"cell {cell}, {theme}, {key}: {px:.2f} px tall (< {least:.2f})")
    assert not small, f"{chapter.stem} on a 390-px phone:\n" + "\n".join(small)
