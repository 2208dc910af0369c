"""Anchors and the table of contents: a link picked in "on this page" (``#book-toc``) lands its
heading at the top of the window, right below the sticky header (``#book-header``): not under
it, and not a screen's fifth further down. So does a deep link (page.html#section) on a fresh
load. (A heading near the page's end may stay lower: the page cannot scroll further.)"""

from __future__ import annotations

import contextlib

import pytest
from _wait import wait_still

from ..conftest import CHAPTERS, fresh_page

pytestmark = pytest.mark.browser

# the heading's top may be at most this far below the sticky header's bottom edge
BELOW_HEADER_PX = 40

# Where the target's heading is, where the header ends, and whether the page is at its end.
# A link names a <section>; its heading is the section's first child heading.
LANDED_JS = """(id) => {
  const target = document.getElementById(id);
  const heading = target.matches('section')
    ? target.querySelector(':scope > :is(h1, h2, h3, h4, h5, h6)') || target : target;
  return {
    top: heading.getBoundingClientRect().top,
    header: document.getElementById('book-header').getBoundingClientRect().bottom,
    atEnd: Math.ceil(window.scrollY + window.innerHeight) >= document.documentElement.scrollHeight - 2,
  };
}"""


def _miss(got: dict) -> str | None:
    """Why a heading that landed at ``got`` misses the top of the window, or None."""
    below = got["top"] - got["header"]
    if below < -1:
        return f"under the sticky header (its top {-below:.0f} px behind the header)"
    if below > BELOW_HEADER_PX and not got["atEnd"]:
        return f"{below:.0f} px below the header (at most {BELOW_HEADER_PX})"
    return None


@pytest.mark.parametrize("name", CHAPTERS)
def test_on_this_page_links_land_their_heading_at_the_top(browser, base_url, margin, name):
    from playwright.sync_api import TimeoutError as PlaywrightTimeout  # installed, or skipped

    with fresh_page(
        browser, f"{base_url}/{name}", viewport={"width": 1280, "height": 900}
    ) as page:
        hrefs = page.eval_on_selector_all(
            "#book-toc a[href^='#']", "as => as.map(a => a.getAttribute('href'))"
        )
        assert hrefs, f"{name}: no 'on this page' links"
        misses = []
        for href in hrefs:
            link = page.locator(f"#book-toc a[href='{href}']")
            # from 1200 px the column folds away while an explorer passes it
            # (reading/test_wide_layout.py checks that); where the reader stands now it is
            # folded (or folds as an explorer wakes beside it, between the check and the click),
            # so follow the link as the browser would: the landing is what counts
            clicked = False
            if link.is_visible():
                with contextlib.suppress(PlaywrightTimeout):
                    link.click(timeout=5_000)  # a bound on the wait, not a pause
                    clicked = True
            if not clicked:
                link.evaluate("a => a.click()")
            wait_still(page)  # the jump (smooth or not) has ended
            got = page.evaluate(LANDED_JS, href[1:])
            if not got["atEnd"]:
                margin(
                    f"{name}: px below the header to {href} picked",
                    got["top"] - got["header"],
                    BELOW_HEADER_PX,
                    at_least=False,
                )
            why = _miss(got)
            if why:
                misses.append(f"{href}: heading {why}")
        assert not misses, f"{name}: links that miss their heading: {misses}"


@pytest.mark.parametrize("name", CHAPTERS[:1] + CHAPTERS[-1:])  # the first and the last chapter
def test_deep_links_land_on_a_fresh_load(browser, base_url, margin, name):
    with fresh_page(
        browser, f"{base_url}/{name}", viewport={"width": 1280, "height": 900}
    ) as page:
        ids = page.eval_on_selector_all(
            "#book-toc a[href^='#']", "as => as.map(a => a.getAttribute('href').slice(1))"
        )
    assert len(ids) >= 2, f"{name}: 'on this page' lists {ids}"
    for target in (ids[len(ids) // 2], ids[-1]):  # the middle of the page, and its end
        with fresh_page(
            browser, f"{base_url}/{name}#{target}", viewport={"width": 1280, "height": 900}
        ) as page:
            wait_still(page)
            got = page.evaluate(LANDED_JS, target)
        if not got["atEnd"]:
            margin(
                f"{name}#{target}: px below the header on a fresh load",
                got["top"] - got["header"],
                BELOW_HEADER_PX,
                at_least=False,
            )
        why = _miss(got)
        assert why is None, f"{name}#{target}: after loading, the heading is {why}"
