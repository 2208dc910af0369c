"""What an explorer's static picture (web/prerender-explorers.mjs: staticPicture, the picture a
page shows at first paint, drawn by attnlib/static/explorer.js in Node) says and labels, for the
book's own explorers built here.

A cold read (stop 44) found: chapter 5's comparison read out "row 6, scoring function
'Laplace ...'" while every notice spoke of the dot-product and Gaussian rows; chapter 6's
sqrt(d) explorer read out the near-uniform "× 1/d" row; chapter 2's read-out gave "the largest
weight, 0.1" next to a "0.13", and its outlined heatmap row (x = 1.58) was not the dragged query
(x = 1.50) with nothing saying so; chapter 1's stems were labelled 0, 2, 4, 6 for 8 keys (key 5,
which a notice cites, had none) and chapter 6's 16-key map 0, 2, ..., 14; and a dark page showed
the static picture's cells in the light palette until the live explorer replaced it.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from scoringbook.registry import EXPLORERS


def _picture(node, name: str) -> str:
    ex = EXPLORERS[name]()
    state = {"spec": ex.spec, "data": ex.data, "indices": ex.indices, "texts": ex.texts,
             "name": ex.name}  # fmt: skip
    out = node({"op": "picture", "state": state})
    assert "error" not in out, out
    return out["html"]


class _Picture(HTMLParser):
    """The spoken line, and per panel (data-panel of its svg) its tick labels and images."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.live = ""
        self.ticks: dict[str, list[str]] = {}
        self.images: dict[str, list[dict]] = {}
        self._panel: list[str | None] = []
        self._tick = False
        self._live = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg":
            self._panel.append(a.get("data-panel"))
        elif tag == "text" and "attn-tick" in (a.get("class") or "").split():
            self._tick = True
            self.ticks.setdefault(self._panel[-1] if self._panel else None, []).append("")
        elif tag == "image" and self._panel:
            self.images.setdefault(self._panel[-1], []).append(a)
        elif tag == "p" and "attn-live" in (a.get("class") or "").split():
            self._live = True

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag == "svg":
            self._panel.pop()

    def handle_endtag(self, tag):
        if tag == "svg" and self._panel:
            self._panel.pop()
        elif tag == "text":
            self._tick = False
        elif tag == "p":
            self._live = False

    def handle_data(self, data):
        if self._tick:
            key = self._panel[-1] if self._panel else None
            self.ticks[key][-1] += data
        if self._live:
            self.live += data


def _read(node, name: str) -> _Picture:
    p = _Picture()
    p.feed(_picture(node, name))
    p.close()
    return p


def test_chapter_5s_comparison_reads_the_dot_product_row_and_names_it(node):
    p = _read(node, "scoring_comparison")
    # row 0 is the dot product (scoringbook.ch05_scaled_dot_product.SCORING_ROWS)
    want = r": row 0, scoring function “dot q·k” puts 0\.\d\d of its weight on key \d\.$"
    assert re.search(want, p.live), p.live


def test_chapter_6s_long_key_explorer_reads_its_dot_product_row(node):
    p = _read(node, "long_key")
    assert ": row 0, scoring function “dot q·k” puts " in p.live, p.live


def test_chapter_6s_sqrt_d_explorer_reads_the_one_over_sqrt_d_row(node):
    p = _read(node, "scaling_d")
    assert re.search(r"^feature size d = 2: row 1, scaling “× 1/√d” puts 0\.\d\d of its weight on "
                     r"key \d+\.$", p.live), p.live  # fmt: skip


def test_chapter_2s_read_out_names_the_outlined_row_and_gives_two_decimals(node):
    p = _read(node, "kernel_regression")
    m = re.search(
        r"query x (\d\.\d\d): the fit at the query is -?\d+\.\d\d; the largest weight, (0\.\d\d), "
        r"is on the training input at x = -?\d+\.\d\d; the outlined heatmap row is the fixed "
        r"query nearest yours, x = (\d\.\d\d)\.$",
        p.live,
    )
    assert m, p.live
    ex = EXPLORERS["kernel_regression"]()
    heat_x = ex.spec["live"]["heat_x"]
    q = float(m.group(1))
    nearest = min(heat_x, key=lambda v: abs(v - q))
    assert m.group(3) == f"{nearest:.2f}", (m.group(3), nearest)


@pytest.mark.parametrize(
    ("name", "panel", "n"),
    [("softmax_temperature", "query_0", 8), ("scaling_d", "weights", 16)],
)
def test_every_key_is_labelled(node, name, panel, n):
    p = _read(node, name)
    ticks = p.ticks.get(panel, [])
    keys = [t for t in ticks if re.fullmatch(r"\d+", t)]
    assert [str(j) for j in range(n)] == keys[-n:] or [str(j) for j in range(n)] == keys[:n], (
        f"{name} {panel}: key ticks {ticks}"
    )


@pytest.mark.parametrize("name", ["softmax_temperature", "scaling_d", "scoring_comparison"])
def test_the_static_picture_holds_its_cells_in_both_modes(node, name):
    p = _read(node, name)
    for panel, images in p.images.items():
        cells = [a for a in images if "attn-cells" in a.get("class", "").split()]
        dark = [a for a in images if "attn-cells-dark" in a.get("class", "").split()]
        if not cells:
            continue
        assert len(cells) == 1 and len(dark) == 1, (panel, images)
        assert "attn-cells-light" in cells[0]["class"].split(), cells[0]["class"]
        assert dark[0]["href"].startswith("data:image/png;base64,")
        assert dark[0]["href"] != cells[0]["href"], f"{name} {panel}: one palette twice"
        same = {k: v for k, v in dark[0].items() if k not in ("class", "href")}
        assert same == {k: v for k, v in cells[0].items() if k not in ("class", "href")}
