"""The published book as readers meet it: phones, anchors, dark mode (headless Chromium).

Each test drives the built book (`make book`) served on 127.0.0.1, in a fresh browser
context with the reader's settings (viewport, touch, colour scheme). Screenshots of the
phone and dark views go to _build/screenshots/.
"""

from __future__ import annotations

import pytest

from .conftest import CHAPTERS, PAGES, SCREENSHOTS, fresh_page

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}

# Elements that stick out of the viewport without being inside a scrolling or clipping box.
OVERFLOW_JS = """
(w) => {
  const out = [];
  for (const e of document.querySelectorAll('.bd-main *')) {
    const r = e.getBoundingClientRect();
    if (r.width === 0 || r.right <= w + 1) continue;
    if (!e.checkVisibility({visibilityProperty: true, opacityProperty: true})) continue;
    let p = e.parentElement, clipped = false;
    while (p) {
      const ox = getComputedStyle(p).overflowX;
      if (ox === 'auto' || ox === 'scroll' || ox === 'hidden' || ox === 'clip') { clipped = true; break; }
      p = p.parentElement;
    }
    if (!clipped) out.push(`${e.tagName.toLowerCase()}.${String(e.className.baseVal ?? e.className).split(' ')[0]} ends at ${Math.round(r.right)} px`);
  }
  return {scrollWidth: document.documentElement.scrollWidth, offenders: out.slice(0, 5)};
}
"""


def _shot(page, name, mode):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(
        path=str(SCREENSHOTS / f"{name.replace('/', '__').removesuffix('.html')}--{mode}.png")
    )


@pytest.mark.parametrize("width", [360, 390])
@pytest.mark.parametrize("name", PAGES)
def test_nothing_is_wider_than_a_phone(browser, base_url, name, width):
    with fresh_page(
        browser,
        f"{base_url}/{name}",
        viewport={"width": width, "height": 844},
        has_touch=True,
        is_mobile=True,
    ) as page:
        got = page.evaluate(OVERFLOW_JS, width)
        assert got["scrollWidth"] <= width, f"{name} at {width} px scrolls sideways: {got}"
        assert not got["offenders"], f"{name} at {width} px: {got['offenders']}"
        if width == 390:
            _shot(page, name, "phone")


@pytest.mark.parametrize(
    "which, dialog",
    [("primary", "pst-primary-sidebar-modal"), ("secondary", "pst-secondary-sidebar-modal")],
)
def test_navigation_toggles_open_and_close_on_a_phone(browser, base_url, which, dialog):
    name = CHAPTERS[2]
    with fresh_page(
        browser, f"{base_url}/{name}", viewport=PHONE, has_touch=True, is_mobile=True
    ) as page:
        toggles = [t for t in page.query_selector_all(f".{which}-toggle") if t.is_visible()]
        assert toggles, f"{name}: no visible .{which}-toggle at 390 px"
        toggles[0].tap()
        page.wait_for_function(f"document.getElementById('{dialog}')?.open === true", timeout=5000)
        links = page.eval_on_selector_all(
            f"#{dialog} a", "as => as.filter(a => a.offsetParent).length"
        )
        assert links >= 3, f"{name}: the {which} navigation opened with {links} visible links"
        page.keyboard.press("Escape")
        page.wait_for_function(
            f"document.getElementById('{dialog}')?.open === false", timeout=5000
        )


@pytest.mark.parametrize("name", CHAPTERS)
def test_on_this_page_links_land_their_heading_at_the_top(browser, base_url, name):
    with fresh_page(
        browser, f"{base_url}/{name}", viewport={"width": 1280, "height": 900}
    ) as page:
        page.evaluate("document.fonts.ready")
        hrefs = page.eval_on_selector_all(
            ".page-toc a.nav-link[href^='#']", "as => as.map(a => a.getAttribute('href'))"
        )
        assert hrefs, f"{name}: no 'on this page' links"
        misses = []
        for href in hrefs:
            page.click(f".page-toc a.nav-link[href='{href}']")
            page.wait_for_timeout(150)
            top = page.evaluate(
                "(id) => document.getElementById(id).getBoundingClientRect().top", href[1:]
            )
            at_end = page.evaluate(
                "Math.ceil(window.scrollY + window.innerHeight) >= "
                "document.documentElement.scrollHeight - 2"
            )
            if not (0 <= top <= 150 or (at_end and top >= 0)):
                misses.append(f"{href}: heading at {top:.0f} px")
        assert not misses, f"{name}: links that miss their heading: {misses}"


@pytest.mark.parametrize("name", CHAPTERS[:1] + CHAPTERS[-1:])
def test_deep_links_land_on_a_fresh_load(browser, base_url, name):
    with fresh_page(
        browser, f"{base_url}/{name}", viewport={"width": 1280, "height": 900}
    ) as page:
        ids = page.eval_on_selector_all(
            ".page-toc a.nav-link[href^='#']", "as => as.map(a => a.getAttribute('href').slice(1))"
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
            assert 0 <= top <= 150 or (at_end and top >= 0), (
                f"{name}#{target}: heading at {top:.0f} px after loading"
            )


@pytest.mark.parametrize("name", PAGES)
def test_dark_mode_follows_the_os_and_leaves_figures_undimmed(browser, base_url, name):
    with fresh_page(
        browser, f"{base_url}/{name}", viewport={"width": 1280, "height": 900}, color_scheme="dark"
    ) as page:
        theme = page.evaluate("document.documentElement.dataset.theme")
        assert theme == "dark", f"{name}: prefers-color-scheme dark gave data-theme={theme!r}"
        bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
        rgb = [int(x) for x in bg[bg.index("(") + 1 : bg.index(")")].split(",")[:3]]
        assert sum(rgb) / 3 < 80, f"{name}: page background {bg} is not dark"
        filters = page.eval_on_selector_all(
            ".bd-article img", "ims => ims.map(i => getComputedStyle(i).filter)"
        )
        assert all(f == "none" for f in filters), (
            f"{name}: figures dimmed in dark mode: {set(filters)}"
        )
        _shot(page, name, "dark")
    with fresh_page(
        browser,
        f"{base_url}/{name}",
        viewport={"width": 1280, "height": 900},
        color_scheme="light",
    ) as page:
        assert page.evaluate("document.documentElement.dataset.theme") == "light"
