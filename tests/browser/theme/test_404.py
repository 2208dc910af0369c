"""The book has a 404 page (web/theme/attnbook/404.html): it says the page was not found, links
to the landing page and the search, and is styled like the book, with the same header, chapter
list and working controls as the landing page, also when served for a missing address deep in
the site (its links resolve from the site's root)."""

from __future__ import annotations

import pytest
from _wait import wait_still

from ..conftest import PAGES, SITE

pytestmark = pytest.mark.browser


def test_404_page(visits):
    v = visits(PAGES[0])
    page = v.page.context.new_page()
    try:
        page.goto(f"{visits.base_url}/404.html", wait_until="load")
        text = page.evaluate("() => document.querySelector('main').innerText")
        assert "not found" in text.lower(), f"404.html says: {text[:200]!r}"
        links = page.evaluate(
            "() => [...document.querySelectorAll('main a[href]')].map((a) => a.href)"
        )
        assert any(h.endswith("intro.html") for h in links), (
            f"404.html links to {links}, not the landing page"
        )
        # styled like the book (its CSS is inlined, web/inline-css.mjs): the theme's rules are
        # there, its fonts and its header apply
        rules = page.evaluate(
            "() => [...document.styleSheets].reduce((n, s) => n + s.cssRules.length, 0)"
        )
        assert rules >= 200, f"404.html is unstyled ({rules} CSS rules)"
        font = page.evaluate("() => getComputedStyle(document.body).fontFamily")
        assert "system-ui" in font, f"404.html: body font {font!r}, not the theme's"
        # the same header and chapter list as the landing page in the same window (the chapter
        # list is a column from 992 px, a drawer below; the search link shows below 992 px)
        bars_js = """() => ['#book-header', '#book-nav', '#book-nav-toggle', 'a.book-search-link', '#book-mode']
            .map((s) => { const e = document.querySelector(s);
              return [s, e && e.checkVisibility({visibilityProperty: true}) && getComputedStyle(e).display]; })"""
        for width in (390, 1280):  # the shared landing page is left at its 1280 px
            for p in (page, v.page):
                p.set_viewport_size({"width": width, "height": 900})
                wait_still(p)  # a column turned drawer slides away (0.15 s)
            bars, landing = page.evaluate(bars_js), v.page.evaluate(bars_js)
            assert bars == landing, (
                f"404.html at {width} px: bars {bars} differ from the landing page's {landing}"
            )
            assert bars[0][1] not in (None, False, "none"), (
                f"404.html at {width} px shows no header bar: {bars}"
            )
        # the colour-mode switch works there too
        page.set_viewport_size({"width": 1280, "height": 900})
        before = page.evaluate("() => document.documentElement.dataset.mode")
        page.locator("#book-mode").click()
        page.wait_for_function(f"() => document.documentElement.dataset.mode !== {before!r}")
    finally:
        page.close()


def test_404_page_links_resolve_from_the_sites_root(browser, base_url):
    """A host answers a missing address anywhere in the site with 404.html: its links, styles
    and script still work from there (<base href="/">)."""
    ctx = browser.new_context(viewport={"width": 390, "height": 844})
    page = ctx.new_page()
    html = (SITE / "404.html").read_text(encoding="utf8")
    failed = []
    page.on("response", lambda r: r.status >= 400 and failed.append(r.url))
    # served for /chapters/gone/missing.html, as a static host does
    page.route(
        "**/chapters/gone/missing.html",
        lambda route: route.fulfill(status=404, body=html, content_type="text/html"),
    )
    try:
        page.goto(f"{base_url}/chapters/gone/missing.html", wait_until="load")
        page.wait_for_load_state("networkidle")
        links = page.evaluate(
            "() => [...document.querySelectorAll('main a[href], #book-nav a[href]')].map((a) => a.href)"
        )
        assert f"{base_url}/intro.html" in links and f"{base_url}/search.html" in links, links
        chapters = [h for h in links if "/chapters/0" in h]
        assert chapters and all(h.startswith(f"{base_url}/chapters/0") for h in chapters), links
        assert not [u for u in failed if not u.endswith("missing.html")], failed
        assert page.locator("#book-nav-toggle").is_visible(), "the page's script did not run"
    finally:
        ctx.close()
