"""The navigation drawers (web/theme/attnbook/static/attnbook.js): on a phone the chapter list
(#book-nav) and "on this page" (#book-toc) slide in from their toggles over a shade
(#book-backdrop); Esc, a tap on the shade or a section picked in the drawer closes it, closing
keeps the reader's place and returns the focus to the toggle, and nothing is left over the
header; a drawer and its shade show in the tap's own frame and only they restyle (the rest of
the page is not touched). On a wide screen the chapter list's toggle hides and brings back the
column."""

from __future__ import annotations

import pytest
from _wait import wait_still, with_page_waits

from ..conftest import chapter_page, fresh_page, wake_explorers

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
# the drawers and their toggles (web/theme/CONTRACT.md)
DRAWERS = {"nav": ("book-nav", "book-nav-toggle"), "toc": ("book-toc", "book-toc-toggle")}

STATE_JS = """
([panelId, toggleId]) => {
  const panel = document.getElementById(panelId), toggle = document.getElementById(toggleId);
  const backdrop = document.getElementById('book-backdrop');
  const r = panel.getBoundingClientRect();
  return {open: panel.hasAttribute('data-open'), expanded: toggle.getAttribute('aria-expanded'),
          shown: panel.checkVisibility({visibilityProperty: true}) && r.right > 1 && r.left < innerWidth - 1,
          shade: backdrop.checkVisibility(),
          focusInside: panel.contains(document.activeElement),
          focusOnToggle: document.activeElement === toggle};
}
"""


def _state(page, which):
    return page.evaluate(STATE_JS, list(DRAWERS[which]))


def _tap_toggle(page, which):
    """A finger's tap where the toggle is (Playwright's locator.tap() first scrolls its target
    into view, which for a toggle in the sticky header could move the page by itself)."""
    box = page.locator(f"#{DRAWERS[which][1]}").bounding_box()
    assert box, f"#{DRAWERS[which][1]} is not shown"
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def _phone(browser, base_url, name):
    return fresh_page(
        browser, f"{base_url}/{name}", viewport=PHONE, has_touch=True, is_mobile=True
    )


@pytest.mark.parametrize("which", ["nav", "toc"])
def test_navigation_toggles_open_and_close_on_a_phone(browser, base_url, which):
    name = chapter_page("03_masked_softmax")
    panel, toggle = DRAWERS[which]
    with _phone(browser, base_url, name) as page:
        assert page.locator(f"#{toggle}").is_visible(), f"{name}: #{toggle} hidden at 390 px"
        closed = _state(page, which)
        assert not closed["shown"] and not closed["shade"] and closed["expanded"] == "false", (
            f"{name}: the {which} drawer shows before its toggle is tapped: {closed}"
        )
        _tap_toggle(page, which)
        page.wait_for_function(
            f"() => document.getElementById('{panel}').hasAttribute('data-open')", timeout=5000
        )
        wait_still(page)  # the slide (0.15 s) has ended
        got = _state(page, which)
        assert got["shown"] and got["shade"] and got["expanded"] == "true", (
            f"{name}: the {which} drawer did not open: {got}"
        )
        assert got["focusInside"], f"{name}: the focus did not go into the {which} drawer: {got}"
        # on the reader's place: their chapter in the chapter list; in "on this page" the
        # section they are in (aria-current="location"), else its first link. Not on the search
        # field: a phone's keyboard would come up over the list
        focused = page.evaluate(
            """(panel) => {
              const p = document.getElementById(panel), a = document.activeElement;
              const place = p.querySelector('a[aria-current=page], a[aria-current=location]');
              return [a.tagName, a.getAttribute('aria-current'),
                      a === (place || p.querySelector('a[href]'))];
            }""",
            panel,
        )
        expected = ["A", "page", True] if which == "nav" else ["A", focused[1], True]
        assert focused == expected and focused[1] in ("page", "location", None), (
            f"{name}: opening the {which} drawer focused {focused}"
        )
        links = page.eval_on_selector_all(
            f"#{panel} a[href]",
            "as => as.filter(a => a.checkVisibility({visibilityProperty: true})).length",
        )
        assert links >= 3, f"{name}: the {which} drawer opened with {links} visible links"
        page.keyboard.press("Escape")
        wait_still(page)
        got = _state(page, which)
        assert not got["open"] and not got["shown"] and not got["shade"], (
            f"{name}: Esc did not close the {which} drawer: {got}"
        )
        assert got["expanded"] == "false" and got["focusOnToggle"], (
            f"{name}: after Esc the {which} toggle says {got['expanded']!r}, focus on it: "
            f"{got['focusOnToggle']}"
        )


# Polls every frame for `ms` whether the drawer shows on the screen; returns the frames
# (ms after the start) it did.
DRAWER_SHOWS_JS = """
async ([panelId, ms]) => {
  const panel = document.getElementById(panelId);
  const shown = [];
  const t0 = performance.now();
  while (performance.now() - t0 < ms) {
    await new Promise((r) => requestAnimationFrame(r));
    const r = panel.getBoundingClientRect();
    if (panel.checkVisibility({visibilityProperty: true, opacityProperty: true}) &&
        r.right > 1 && r.left < innerWidth - 1 && r.width > 1)
      shown.push(Math.round(performance.now() - t0));
  }
  return shown;
}
"""

# For every control of the header: is it what a tap on its centre reaches (nothing lies over it)?
HEADER_COVERED_JS = """
() => [...document.querySelectorAll('#book-header a[href], #book-header button, #book-header summary')]
  .filter((e) => e.checkVisibility({visibilityProperty: true}))
  .map((e) => { const r = e.getBoundingClientRect();
    const top = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
    return [e.id || e.className || e.textContent.trim(), !!top && (e === top || e.contains(top))]; })
  .filter(([, reached]) => !reached).map(([n]) => n)
"""


@pytest.mark.parametrize("how", ["Escape", "tap outside"])
@pytest.mark.parametrize("which", ["nav", "toc"])
def test_closing_a_phone_drawer_keeps_the_readers_place(browser, base_url, which, how):
    """Closing a drawer leaves the page where it was, the drawer slides out and does not come
    back, the focus returns to the toggle, and nothing (a shade, a leftover panel, a tooltip)
    is left over the header's controls."""
    name = chapter_page("05_scaled_dot_product_attention")
    panel, toggle = DRAWERS[which]
    with _phone(browser, base_url, name) as page:
        page.evaluate("window.scrollTo(0, 3000)")
        wait_still(page)
        y0 = page.evaluate("scrollY")
        assert y0 > 1000, f"{name}: could not scroll down ({y0})"
        _tap_toggle(page, which)
        page.wait_for_function(
            f"() => document.getElementById('{panel}').hasAttribute('data-open')", timeout=5000
        )
        wait_still(page)
        if how == "Escape":
            page.keyboard.press("Escape")
        else:
            x = 385 if which == "nav" else 5  # the drawer covers the other side
            page.touchscreen.tap(x, 600)
        shown = page.evaluate(DRAWER_SHOWS_JS, [panel, 600])
        got = _state(page, which)
        assert not got["open"] and not got["shade"], (
            f"{name}: {how} left the {which} drawer: {got}"
        )
        late = [t for t in shown if t > 250]  # the slide out takes 0.15 s
        assert not late, f"{name}: the closed {which} drawer still showed at {late} ms"
        y1 = page.evaluate("scrollY")
        assert abs(y1 - y0) <= 2, f"{name}: closing the {which} drawer scrolled {y0} -> {y1}"
        assert got["focusOnToggle"], f"{name}: the focus did not come back to #{toggle}"
        covered = page.evaluate(HEADER_COVERED_JS)
        assert not covered, f"{name}: after {how}, something lies over the header's {covered}"


def test_a_section_picked_in_on_this_page_closes_the_drawer(browser, base_url, margin):
    name = chapter_page("05_scaled_dot_product_attention")
    with _phone(browser, base_url, name) as page:
        _tap_toggle(page, "toc")
        page.wait_for_function(
            "() => document.getElementById('book-toc').hasAttribute('data-open')", timeout=5000
        )
        wait_still(page)
        link = page.locator("#book-toc a[href^='#']").nth(3)
        target = link.get_attribute("href")[1:]
        link.tap()
        page.wait_for_function(
            "() => !document.getElementById('book-toc').hasAttribute('data-open')"
            " && document.getElementById('book-backdrop').hidden",
            timeout=3_000,
        )
        wait_still(page)  # the drawer has slid out and the page has scrolled to the section
        top = page.evaluate(
            "(id) => document.getElementById(id).getBoundingClientRect().top", target
        )
        margin(f"{name}: px from the top to #{target} picked on a phone", top, 150, at_least=False)
        assert 0 <= top <= 150, f"{name}: #{target} is at {top:.0f} px after picking it"


def test_the_navigation_toggle_a_reader_sees_hides_the_sidebar_on_a_wide_screen(browser, base_url):
    with fresh_page(
        browser,
        f"{base_url}/{chapter_page('05_scaled_dot_product_attention')}",
        viewport={"width": 1280, "height": 900},
    ) as page:
        toggle = page.locator("#book-nav-toggle")
        assert toggle.is_visible(), "no visible navigation toggle at 1280 px"
        shows = (
            "() => document.getElementById('book-nav').checkVisibility({visibilityProperty: true})"
        )
        assert page.evaluate(shows), "the chapter list is not a column at 1280 px"
        assert toggle.get_attribute("aria-expanded") == "true"
        toggle.click()
        wait_still(page)
        assert not page.evaluate(shows), "the toggle did not hide the chapter list"
        assert toggle.get_attribute("aria-expanded") == "false"
        assert page.evaluate(
            "() => !document.getElementById('book-nav').hasAttribute('data-open')"
            " && document.getElementById('book-backdrop').hidden"
        ), "a wide screen opened the phone's drawer"
        toggle.click()
        wait_still(page)
        assert page.evaluate(shows), "the toggle did not bring the chapter list back"
        assert toggle.get_attribute("aria-expanded") == "true"


# ----------------------------------------------------------------------------- the tap's frame

# Taps a phone's drawer toggle and reports the drawer's state in the first frame after the tap (a
# requestAnimationFrame callback asked for in the click's capture phase, before the page's own
# handlers ask for theirs: it runs first, just before that frame is painted) and once settled;
# and every element whose attributes the tap changed (a change on <html> or <body>, or making
# the page inert as a modal dialog does, restyles the whole page: about 110 ms at 4x CPU).
TAP_DRAWER_JS = with_page_waits(
    """
async ([panelId, toggleId]) => {
  const panel = document.getElementById(panelId), toggle = document.getElementById(toggleId);
  const backdrop = document.getElementById('book-backdrop');
  const state = () => ({open: panel.hasAttribute('data-open'),
    drawer: panel.checkVisibility({visibilityProperty: true}), shade: backdrop.checkVisibility(),
    focusInside: panel.contains(document.activeElement)});
  const touched = new Set();
  const observer = new MutationObserver((ms) => ms.forEach((m) =>
    touched.add(m.target.id || m.target.tagName.toLowerCase())));
  observer.observe(document.documentElement, {attributes: true, subtree: true});
  let atFrame = null;
  const frame = new Promise((r) => window.addEventListener('click', () => requestAnimationFrame(() => {
    atFrame = state(); r(); }), {capture: true, once: true}));
  toggle.focus();  // as a tap does
  toggle.click();
  await frame;
  await attnStill();
  observer.disconnect();
  return {atFrame, settled: state(), touched: [...touched].sort(),
          modal: !!document.querySelector(':modal'), inert: !!document.querySelector('[inert]')};
}
"""
)

# Presses Esc in an open drawer and reports, at the key's next frame and once settled, whether
# it is open, the shade shows and where the focus went.
ESC_DRAWER_JS = with_page_waits(
    """
async ([panelId, toggleId]) => {
  const panel = document.getElementById(panelId), toggle = document.getElementById(toggleId);
  const backdrop = document.getElementById('book-backdrop');
  let atFrame = null;
  const frame = new Promise((r) => window.addEventListener('keydown', () => requestAnimationFrame(() => {
    atFrame = {open: panel.hasAttribute('data-open'), shade: backdrop.checkVisibility()}; r(); }),
    {capture: true, once: true}));
  document.activeElement.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape', bubbles: true, cancelable: true}));
  await frame;
  await attnStill();
  return {atFrame, settled: {open: panel.hasAttribute('data-open'),
    drawer: panel.checkVisibility({visibilityProperty: true}), focusOnToggle: document.activeElement === toggle}};
}
"""
)


@pytest.mark.parametrize("which", ["nav", "toc"])
def test_a_phone_drawer_shows_in_the_taps_frame_and_only_it_restyles(browser, base_url, which):
    """A tap on a drawer's toggle is answered in its own frame: the drawer and its shade show
    there. The page around stays as it was: the tap changes attributes on the drawer, its toggle
    and the shade only (none on <html> or <body>, no modal dialog, nothing made inert: each
    would restyle every element of the chapter). Esc takes drawer and shade away in the key's
    frame and gives the focus back to the toggle. A drawer closed in the tap's frame stays
    closed."""
    panel, toggle = DRAWERS[which]
    ctx = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = ctx.new_page()
    try:
        page.goto(
            f"{base_url}/{chapter_page('05_scaled_dot_product_attention')}", wait_until="load"
        )
        page.wait_for_load_state("networkidle")
        # every explorer drawn first: one waking late (a busy machine) swaps its picture inside
        # the tap's observation and is counted as restyled by the tap (seen once)
        wake_explorers(page)
        wait_still(page)
        got = page.evaluate(TAP_DRAWER_JS, [panel, toggle])
        assert got["atFrame"]["open"] and got["atFrame"]["drawer"] and got["atFrame"]["shade"], (
            f"the {which} drawer and its shade did not show in the tap's frame: {got}"
        )
        assert got["settled"] == {
            "open": True,
            "drawer": True,
            "shade": True,
            "focusInside": True,
        }, f"the {which} drawer did not stay open with the focus inside: {got}"
        assert set(got["touched"]) <= {panel, toggle, "book-backdrop"}, (
            f"the tap on the {which} toggle changed attributes of {got['touched']}: "
            "more than the drawer restyles"
        )
        assert not got["modal"] and not got["inert"], (
            f"the {which} drawer made the page inert: {got}"
        )

        got = page.evaluate(ESC_DRAWER_JS, [panel, toggle])
        assert got["atFrame"] == {"open": False, "shade": False}, (
            f"the {which} drawer or its shade was still there in Esc's frame: {got}"
        )
        assert got["settled"] == {"open": False, "drawer": False, "focusOnToggle": True}, (
            f"the {which} drawer did not close with the focus back on its toggle: {got}"
        )

        # opened and closed again within the tap's frame: it must not come back
        got = page.evaluate(
            with_page_waits(
                """async ([panelId, toggleId]) => {
              const toggle = document.getElementById(toggleId);
              toggle.click();
              toggle.click();
              await attnStill();
              const panel = document.getElementById(panelId);
              return {open: panel.hasAttribute('data-open'),
                      drawer: panel.checkVisibility({visibilityProperty: true}),
                      shade: document.getElementById('book-backdrop').checkVisibility()};
            }"""
            ),
            [panel, toggle],
        )
        assert got == {"open": False, "drawer": False, "shade": False}, (
            f"a {which} drawer closed in the tap's frame came back: {got}"
        )
    finally:
        ctx.close()
