"""A chapter whose first picture is a figure fetches it early, once, in the reader's mode and
width (issue 39, item 8: the figure became the largest paint of chapters 1, 6 and 9).

attnlib's figures are lazy ``<img>``s (web/book_ext.py), in a light and a dark ``<picture>``,
each with a narrow ``<source>`` for phones. A lazy image is not seen by the preload scanner: its
fetch waited for the first layout (on Lighthouse's mobile profile it arrived at about 1 s and was
painted after the next long task, at 1.1-2.3 s). The head's colour-mode script
(web/theme/attnbook/layout.html) now preloads the first figure's PNG for the mode it has just
chosen, under the media query its ``<source>`` is picked by. Here, in Chromium, at 390 and
1280 px, light and dark, for each chapter:

- which picture comes first is read from the built HTML (html.parser, not the build's code): an
  attnlib figure, or an explorer (its widget view) or another image;
- a chapter opening on a figure: the PNG its ``<picture>`` shows in that mode and width was
  fetched by a preload (``initiatorType`` "link", not "img") that started while the page was still
  being parsed (before ``domInteractive``), exactly once, and no other PNG of that figure (the
  other mode's, the other width's) was fetched;
- a chapter opening on an explorer preloads no image (the figure may be screens further down).

Nothing here measures time: benchmarks/bench_browser.py measures LCP (README).
"""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from ..conftest import CHAPTERS, SITE

# a fresh context at a width and mode, every /_images/ request recorded from the start
from ..reading.test_figures import _reader

pytestmark = pytest.mark.browser

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


class _Pictures(HTMLParser):
    """The article's pictures in order: ["figure", its classes, its PNG urls] for an attnlib
    <picture>, ["explorer"] for a widget view or a prerendered explorer, ["image"] for another
    <img>."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.in_article = False
        self.picture: list | None = None
        self.found: list[list] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "article" and "book-article" in classes:
            self.in_article = True
        if not self.in_article:
            return
        if tag == "picture" and "attn-figure" in classes:
            self.picture = ["figure", set(classes), set()]
            self.found.append(self.picture)
        elif tag == "source" and self.picture is not None:
            self.picture[2].add(a["srcset"])
        elif tag == "img" and self.picture is not None:
            self.picture[2].add(a["src"])
        elif tag == "img":
            self.found.append(["image"])
        elif (tag == "script" and a.get("type") == WIDGET_VIEW) or "attn-static" in classes:
            if not (self.found and self.found[-1] == ["explorer"]):
                self.found.append(["explorer"])

    def handle_endtag(self, tag):
        if tag == "picture":
            self.picture = None

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)


def first_picture(name: str) -> tuple[str, set | None]:
    """("figure", the PNGs of both its pictures) when the page's first picture is an attnlib
    figure, else ("explorer" | "image", None)."""
    p = _Pictures()
    p.feed((SITE / name).read_text(encoding="utf8"))
    assert p.found, f"{name}: no picture at all"
    first = p.found[0]
    if first[0] != "figure":
        return first[0], None
    urls = set(first[2])
    nxt = p.found[1] if len(p.found) > 1 else None
    if "only-light" in first[1] and nxt and nxt[0] == "figure" and "only-dark" in nxt[1]:
        urls |= nxt[2]  # its dark twin
    return "figure", urls


CASES = [(390, "light"), (390, "dark"), (1280, "light"), (1280, "dark")]

FIRST_FIGURE_JS = """
(urls) => {
  const abs = (u) => new URL(u, location.href).href;
  const want = new Set(urls.map(abs));
  const nav = performance.getEntriesByType('navigation')[0];
  // the figure shown: the one of its two pictures that is displayed in this mode
  const img = [...document.querySelectorAll('.book-article picture.attn-figure img')]
    .find((i) => want.has(abs(i.getAttribute('src'))) && i.checkVisibility());
  return {
    want: [...want],
    shown: img ? img.currentSrc : null,
    entries: performance.getEntriesByType('resource').filter((e) => want.has(e.name))
      .map((e) => ({url: e.name, initiator: e.initiatorType, start: e.startTime})),
    domInteractive: nav.domInteractive,
    preloads: [...document.querySelectorAll('link[rel="preload"][as="image"]')].map((l) => l.href),
  };
}
"""


def _check(browser, base_url, name, urls, width, scheme) -> list[str]:
    """What is wrong with how the first figure (its PNGs: ``urls``) was fetched at ``width`` in
    ``scheme``."""
    where = f"{name} at {width} px, {scheme}"
    with _reader(browser, f"{base_url}/{name}", width, scheme) as (page, requests):
        page.wait_for_function(
            """(urls) => { const want = new Set(urls.map((u) => new URL(u, location.href).href));
              return [...document.querySelectorAll('.book-article picture.attn-figure img')]
                .some((i) => want.has(new URL(i.getAttribute('src'), location.href).href)
                             && i.checkVisibility() && i.complete && i.naturalWidth > 0); }""",
            arg=sorted(urls),
            timeout=30_000,
        )
        got = page.evaluate(FIRST_FIGURE_JS, sorted(urls))
    shown = got["shown"]
    if not shown:
        return [f"{where}: the first figure is not shown"]
    fetched = [u for u in requests if u in got["want"]]
    if fetched != [shown]:
        return [
            f"{where}: the first figure's PNGs fetched {fetched}; it shows {shown} (only that one, once)"
        ]
    entry = [e for e in got["entries"] if e["url"] == shown]
    if not entry:
        return [f"{where}: no resource timing for {shown}"]
    problems = []
    if entry[0]["initiator"] != "link":
        problems.append(
            f"{where}: the first figure was fetched by its <{entry[0]['initiator']}> (lazy: "
            "after layout), not preloaded from the head"
        )
    if not entry[0]["start"] < got["domInteractive"]:
        problems.append(
            f"{where}: the first figure's fetch started at {entry[0]['start']:.0f} ms, after "
            f"the page was parsed ({got['domInteractive']:.0f} ms)"
        )
    return problems


@pytest.mark.parametrize("name", CHAPTERS)
def test_first_figure_is_fetched_early_once_in_the_mode(browser, base_url, name):
    """At 390 and 1280 px, light and dark (one load each) when the chapter opens on a figure;
    one load when it opens on an explorer."""
    kind, urls = first_picture(name)
    if kind != "figure":
        width, scheme = CASES[0]
        with _reader(browser, f"{base_url}/{name}", width, scheme) as (page, _requests):
            got = page.evaluate(FIRST_FIGURE_JS, [])
        assert not got["preloads"], (
            f"{name} opens on an {kind}, yet preloads images: {got['preloads']}"
        )
        return
    problems = []
    for width, scheme in CASES:
        problems += _check(browser, base_url, name, urls, width, scheme)
    assert not problems, "\n".join(problems)
