"""Anchors and the table of contents: a link picked in "on this page" lands its heading at
the top of the window, and so does a deep link (page.html#section) on a fresh load."""

from __future__ import annotations

import pytest

from ..conftest import CHAPTERS, fresh_page

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("name", CHAPTERS)
def test_on_this_page_links_land_their_heading_at_the_top(browser, base_url, margin, name):
    with fresh_page(
        browser, f"{base_url}/{name}", viewport={"width": 1280, "height": 900}
    ) as page:
        page.evaluate("document.fonts.ready")
        hrefs = page.eval_on_selector_all(
            "#book-toc a[href^='#']", "as => as.map(a => a.getAttribute('href'))"
        )
        assert hrefs, f"{name}: no 'on this page' links"
        misses = []
        for href in hrefs:
            page.click(f"#book-toc a[href='{href}']")
            page.wait_for_timeout(150)
            top = page.evaluate(
                "(id) => document.getElementById(id).getBoundingClientRect().top", href[1:]
            )
            at_end = page.evaluate(
                "Math.ceil(window.scrollY + window.innerHeight) >= "
                "document.documentElement.scrollHeight - 2"
            )
            if not at_end:
                margin(f"{name}: px from the top to {href} picked", top, 150, at_least=False)
            if not (0 <= top <= 150 or (at_end and top >= 0)):
                misses.append(f"{href}: heading at {top:.0f} px")
        assert not misses, f"{name}: links that miss their heading: {misses}"


@pytest.mark.parametrize("name", CHAPTERS[:1] + CHAPTERS[-1:])
def test_deep_links_land_on_a_fresh_load(browser, base_url, margin, name):
    with fresh_page(
        browser, f"{base_url}/{name}", viewport={"width": 1280, "height": 900}
    ) as page:
        ids = page.eval_on_selector_all(
            "#book-toc a[href^='#']", "as => as.map(a => a.getAttribute('href').slice(1))"
        )
    for target in (ids[len(ids) // 2], ids[-1]):  # the middle of the page, and its end
        with fresh_page(
            browser, f"{base_url}/{name}#{target}", viewport={"width": 1280, "height": 900}
        ) as page:
            page.wait_for_timeout(300)
            top = page.evaluate(
                "(id) => document.getElementById(id).getBoundingClientRect().top", target
            )
            at_end = page.evaluate(
                "Math.ceil(window.scrollY + window.innerHeight) >= "
                "document.documentElement.scrollHeight - 2"
            )
            if not at_end:
                margin(
                    f"{name}#{target}: px from the top on a fresh load", top, 150, at_least=False
                )
            assert 0 <= top <= 150 or (at_end and top >= 0), (
                f"{name}#{target}: heading at {top:.0f} px after loading"
            )
