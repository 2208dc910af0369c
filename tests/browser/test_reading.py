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


# Polls every frame for `ms` after `act` (a function's source, run first) whether the drawer's
# place in the page (#pst-<which>-sidebar) shows on the screen; returns the frames it did.
DRAWER_HOME_SHOWS_JS = """
async ([which, ms]) => {
  const home = document.getElementById(`pst-${which}-sidebar`);
  const shown = [];
  const t0 = performance.now();
  while (performance.now() - t0 < ms) {
    await new Promise((r) => requestAnimationFrame(r));
    const r = home.getBoundingClientRect();
    if (home.checkVisibility({visibilityProperty: true, opacityProperty: true}) &&
        r.right > 1 && r.left < innerWidth && r.width > 1 && home.childElementCount)
      shown.push(Math.round(performance.now() - t0));
  }
  return shown;
}
"""


@pytest.mark.parametrize("how", ["Escape", "tap outside"])
@pytest.mark.parametrize("which", ["primary", "secondary"])
def test_closing_a_phone_drawer_keeps_the_readers_place(browser, base_url, which, how):
    """Closing a drawer leaves the page where it was, the drawer does not come back sliding out
    after it has gone (its place in the page took the theme's slide-out transition), the focus
    returns to the toggle, and no tooltip is left over the header (a screen without hover has
    no Bootstrap tooltips)."""
    name = CHAPTERS[4]
    dialog = f"pst-{which}-sidebar-modal"
    with fresh_page(
        browser, f"{base_url}/{name}", viewport=PHONE, has_touch=True, is_mobile=True
    ) as page:
        page.evaluate("window.scrollTo(0, 3000)")
        page.wait_for_timeout(300)
        page.wait_for_function("() => !!window.bootstrap", timeout=15_000)  # a scroll loads it
        y0 = page.evaluate("scrollY")
        # a finger's tap where the toggle is (Playwright's locator.tap() first scrolls its target
        # "into view", which for this toggle in the sticky header moved the page by itself)
        box = page.locator(f".{which}-toggle:visible").first.bounding_box()
        page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.wait_for_function(f"() => document.getElementById('{dialog}').matches(':modal')")
        page.wait_for_timeout(400)
        if how == "Escape":
            page.keyboard.press("Escape")
        else:
            x = 385 if which == "primary" else 5  # the drawer covers the other side
            page.touchscreen.tap(x, 600)
        shown = page.evaluate(DRAWER_HOME_SHOWS_JS, [which, 500])
        assert not page.evaluate(f"() => document.getElementById('{dialog}').open")
        assert not shown, f"{name}: the closed {which} drawer showed again at {shown} ms"
        y1 = page.evaluate("scrollY")
        assert abs(y1 - y0) <= 2, f"{name}: closing the {which} drawer scrolled {y0} -> {y1}"
        page.wait_for_timeout(400)
        tips = page.evaluate(
            "() => [...document.querySelectorAll('.tooltip')].filter((t) => t.checkVisibility())"
            ".map((t) => t.textContent)"
        )
        if how == "tap outside":
            assert not tips, f"{name}: tooltips left after a finger closed the drawer: {tips}"
        assert page.evaluate(
            f"() => document.activeElement === [...document.querySelectorAll('.{which}-toggle')]"
            ".find((t) => t.offsetParent)"
        ), "the focus did not come back to the toggle"


def test_a_section_picked_in_on_this_page_closes_the_drawer(browser, base_url, margin):
    name = CHAPTERS[4]
    with fresh_page(
        browser, f"{base_url}/{name}", viewport=PHONE, has_touch=True, is_mobile=True
    ) as page:
        page.locator(".secondary-toggle:visible").first.tap()
        page.wait_for_function(
            "() => document.getElementById('pst-secondary-sidebar-modal').matches(':modal')"
        )
        link = page.locator("#pst-secondary-sidebar-modal a.nav-link").nth(3)
        target = link.get_attribute("href")[1:]
        link.tap()
        page.wait_for_function(
            "() => !document.getElementById('pst-secondary-sidebar-modal').open", timeout=3_000
        )
        page.wait_for_timeout(600)
        top = page.evaluate(
            "(id) => document.getElementById(id).getBoundingClientRect().top", target
        )
        margin(f"{name}: px from the top to #{target} picked on a phone", top, 150, at_least=False)
        assert 0 <= top <= 150, f"{name}: #{target} is at {top:.0f} px after picking it"


def test_the_navigation_toggle_a_reader_sees_hides_the_sidebar_on_a_wide_screen(browser, base_url):
    with fresh_page(
        browser, f"{base_url}/{CHAPTERS[4]}", viewport={"width": 1280, "height": 900}
    ) as page:
        toggle = page.locator(".primary-toggle:visible")
        assert toggle.count() == 1, "one visible navigation toggle at 1280 px"
        hidden = "() => document.getElementById('pst-primary-sidebar').classList.contains('pst-sidebar-hidden')"
        assert not page.evaluate(hidden)
        toggle.first.click()
        page.wait_for_timeout(400)
        assert page.evaluate(hidden), "the toggle did not hide the sidebar"
        assert not page.evaluate(
            "() => document.getElementById('pst-primary-sidebar-modal').open"
        ), "a wide screen opened the phone's drawer"
        toggle.first.click()
        page.wait_for_timeout(400)
        assert not page.evaluate(hidden), "the toggle did not bring the sidebar back"


@pytest.mark.parametrize("name", CHAPTERS)
def test_on_this_page_links_land_their_heading_at_the_top(browser, base_url, margin, name):
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
            if not at_end:
                margin(
                    f"{name}#{target}: px from the top on a fresh load", top, 150, at_least=False
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
