"""The book has a 404 page: it says the page was not found, links to the landing page and is
styled like the book, with the same header bars as the landing page."""

from __future__ import annotations

import pytest

from ..conftest import PAGES

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
        # styled like the book (its CSS is inlined, web/optimize-pages.mjs): the theme's rules are
        # there, its fonts and its header bar apply
        rules = page.evaluate(
            "() => [...document.styleSheets].reduce((n, s) => n + s.cssRules.length, 0)"
        )
        assert rules >= 200, f"404.html is unstyled ({rules} CSS rules)"
        font = page.evaluate("() => getComputedStyle(document.body).fontFamily")
        assert "system-ui" in font, f"404.html: body font {font!r}, not the theme's"
        # the same header bars as the landing page in the same window (the theme shows its top
        # bar below 992 px and the article's header bar from there on)
        bars_js = """() => ['.bd-header', '.bd-header-article', '.bd-sidebar-primary']
            .map((s) => { const e = document.querySelector(s); return [s, e && getComputedStyle(e).display]; })"""
        for width in (390, 1280):  # the shared landing page is left at its 1280 px
            for p in (page, v.page):
                p.set_viewport_size({"width": width, "height": 900})
            bars, landing = page.evaluate(bars_js), v.page.evaluate(bars_js)
            assert bars == landing, (
                f"404.html at {width} px: bars {bars} differ from the landing page's {landing}"
            )
            assert any(d not in (None, "none") for _, d in bars), (
                f"404.html at {width} px shows no header bar: {bars}"
            )
    finally:
        page.close()
