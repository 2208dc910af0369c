"""The Python post-build steps over generated pages, against oracles written with html.parser:

- web/subset_math_font.py ``characters``: the characters the font must hold are exactly those
  of the text inside every <math> (character references decoded, markup and whitespace
  aside), plus, for a single-character <mi> without mathvariant (MathML trims its whitespace),
  the italic letter the browser draws; each is named with a page (its path in the site) that
  draws it;
- web/optimize_images.py ``lazy_figures``: every figure <img> (a src under _images/ with
  myst-nb's inline size) gets width and height equal to that size, loading="lazy" and
  decoding="async", inside a <picture> offering the WebP exactly when the PNG has one;
  everything else in the page is unchanged, and a second run changes nothing.
"""

from __future__ import annotations

import importlib.util
import sys
from html.parser import HTMLParser
from pathlib import Path

from _depth import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"web_{name}", ROOT / "web" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


subset = _load("subset_math_font")
optimize = _load("optimize_images")

PROPS = settings(
    derandomize=True,
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

# ----------------------------------------------------------------------------- maths characters

MATH_TEXT = st.sampled_from(
    ["x", "&lt;", "&amp;", "&#x2211;", "\u2211", "\u03b1", "h", "AB", "&#120491;", "=", " ", "2"]
)


@st.composite
def math_elements(draw):
    kind = draw(st.sampled_from(["mi", "mi", "mo", "mn", "mtext"]))
    attrs = draw(st.sampled_from(["", ' mathvariant="normal"', ' class="x"']))
    pad = draw(st.sampled_from(["", " ", "\n"]))
    inner = draw(MATH_TEXT)
    return f"<{kind}{attrs}>{pad}{inner}{pad}</{kind}>"


@st.composite
def math_pages(draw):
    parts = []
    for _ in range(draw(st.integers(1, 3))):
        body = "".join(draw(st.lists(math_elements(), min_size=1, max_size=4)))
        root = draw(st.sampled_from(["<math>", '<math display="block" class="tml-display">']))
        wrap = draw(st.sampled_from(["{}", "<mrow>{}</mrow>", "<msqrt>{}</msqrt>"]))
        parts.append(root + wrap.format(body) + "</math>")
    outside = draw(st.sampled_from(["<p>outside \u2603</p>", ""]))
    return f"<html><body>{outside}{'<p>t</p>'.join(parts)}</body></html>"


class MathText(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.depth = 0
        self.chars: set[str] = set()
        self._mi: list | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "math":
            self.depth += 1
        if self.depth and tag in ("msqrt", "mroot"):
            self.chars.add("\u221a")
        if self.depth and tag == "mi":
            self._mi = [dict(attrs), ""]

    def handle_endtag(self, tag):
        if tag == "math":
            self.depth -= 1
        if tag == "mi" and self._mi is not None:
            attrs, text = self._mi
            text = text.strip(" \t\n\r\f")
            if len(text) == 1 and "mathvariant" not in attrs and (it := subset.italic(text)):
                self.chars.add(it)
            self._mi = None

    def handle_data(self, data):
        if self.depth:
            self.chars.update(data)
            if self._mi is not None:
                self._mi[1] += data


@PROPS
@given(st.lists(math_pages(), min_size=1, max_size=3))
def test_font_characters_are_the_maths_text(tmp_path_factory, pages):
    site = tmp_path_factory.mktemp("site")
    want: set[str] = set()
    drawn_by: dict[str, set[str]] = {}
    for k, html in enumerate(pages):
        rel = f"chapters/p{k}.html" if k % 2 else f"p{k}.html"
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text(html, encoding="utf8")
        p = MathText()
        p.feed(html)
        p.close()
        page_chars = {c for c in p.chars if ord(c) not in subset.INVISIBLE}
        want |= page_chars
        for c in page_chars:
            drawn_by.setdefault(c, set()).add(rel)
    (site / "_static").mkdir()
    (site / "_static" / "x.html").write_text("<math><mi>\u2603</mi></math>", encoding="utf8")
    got = subset.characters(site)
    assert set(got) == want, (
        f"missing {sorted(want - set(got))}, extra {sorted(set(got) - want)} for pages {pages}"
    )
    for c, page in got.items():
        assert page in drawn_by[c], f"U+{ord(c):04X} named with {page}, drawn by {drawn_by[c]}"


# ----------------------------------------------------------------------------- lazy figures

SRC = st.sampled_from(
    [
        "../_images/aa.png",
        "_images/bb.png",
        "../../_images/cc.png",
        "../_images/dd.svg",
        "../_static/ee.png",
    ]
)


@st.composite
def figure_pages(draw):
    parts = []
    for _ in range(draw(st.integers(0, 4))):
        src = draw(SRC)
        w, h = draw(st.integers(1, 2000)), draw(st.integers(1, 2000))
        alt = draw(st.sampled_from(['alt="" ', 'alt="a &amp; b" ', "", 'class="x" ']))
        end = draw(st.sampled_from(["/>", " />"]))
        parts.append(f'<img {alt}src="{src}" style="width: {w}px; height: {h}px;"{end}')
        parts.append(draw(st.sampled_from(["<p>x</p>", "\n", '<img src="other.png" />'])))
    return "<html><body>" + "".join(parts) + "</body></html>"


class Imgs(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.imgs: list[tuple[dict, bool, list]] = []  # (attrs, in a <picture>, its sources)
        self.events: list = []
        self._picture: list | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "picture":
            self._picture = []
        elif tag == "source" and self._picture is not None:
            self._picture.append(a)
        elif tag == "img":
            self.imgs.append((a, self._picture is not None, self._picture or []))
        if tag not in ("picture", "source"):
            keep = {
                k: v for k, v in a.items() if k not in ("width", "height", "loading", "decoding")
            }
            self.events.append((tag, sorted(keep.items())))

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        if tag == "picture":
            self._picture = None
        else:
            self.events.append(("/" + tag,))

    def handle_data(self, data):
        self.events.append(("data", data))


def read_imgs(html: str) -> Imgs:
    p = Imgs()
    p.feed(html)
    p.close()
    return p


@PROPS
@given(figure_pages(), st.sets(st.sampled_from(["aa.png", "bb.png", "cc.png"])))
def test_figures_get_their_size_and_load_lazily(tmp_path_factory, html, webps):
    site = tmp_path_factory.mktemp("site")
    page = site / "chapters" / "p.html"
    page.parent.mkdir()
    page.write_text(html, encoding="utf8")
    before = read_imgs(html)
    optimize.lazy_figures(str(site), webps)
    out = page.read_text(encoding="utf8")
    after = read_imgs(out)
    assert after.events == before.events, f"chapters/p.html: more than figures changed:\n{out}"
    for (a0, _, _), (a1, in_picture, sources) in zip(before.imgs, after.imgs):
        src = a0["src"]
        if "_images/" not in src:
            assert a1 == a0 and not in_picture, f"chapters/p.html: {src} is not a figure"
            continue
        w, h = (v.strip().removesuffix("px") for v in a0["style"].rstrip(";").split(";")[0:2])
        w, h = w.split(":")[1].strip(), h.split(":")[1].strip()
        assert (a1.get("width"), a1.get("height")) == (w, h), f"chapters/p.html: {src} size"
        assert a1.get("loading") == "lazy" and a1.get("decoding") == "async", src
        has_webp = Path(src).name in webps
        assert in_picture == has_webp, f"chapters/p.html: {src} picture={in_picture}"
        if has_webp:
            assert sources == [{"type": "image/webp", "srcset": src[:-4] + ".webp"}], sources
    optimize.lazy_figures(str(site), webps)
    assert page.read_text(encoding="utf8") == out, "chapters/p.html: a second run changed it"
