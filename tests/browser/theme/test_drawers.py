"""The navigation drawers: on a phone the chapter list and "on this page" open and close as
dialogs, closing one keeps the reader's place and returns the focus to its toggle, a section
picked in one closes it, and a drawer shows in the tap's frame before it turns modal; on a
wide screen the toggle hides and brings back the sidebar."""

from __future__ import annotations

import pytest

from ..conftest import CHAPTERS, fresh_page

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


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


# ----------------------------------------------------------------------------- a drawer in the tap's frame

# Taps a phone's navigation toggle and reports the drawer's state in the first frame after the
# tap (a requestAnimationFrame callback asked for in the click's capture phase, before the page's
# own handlers ask for theirs: it runs first, just before that frame is painted) and once settled.
TAP_DRAWER_JS = """
async ([which, dialogId]) => {
  const dialog = document.getElementById(dialogId);
  const state = () => ({open: dialog.open, modal: dialog.matches(':modal'),
    focusInside: dialog.contains(document.activeElement)});
  let atFrame = null;
  const frame = new Promise((r) => window.addEventListener('click', () => requestAnimationFrame(() => {
    atFrame = state(); r(); }), {capture: true, once: true}));
  const toggle = [...document.querySelectorAll(`.${which}-toggle`)].find((t) => t.offsetParent);
  toggle.focus();  // as a tap does
  toggle.click();
  await frame;
  await new Promise((r) => setTimeout(r, 300));
  return {atFrame, settled: state()};
}
"""

# Presses Esc in an open drawer and reports, at the key's next frame and once settled, whether
# it is still open, whether it can be seen, its backdrop's colour and where the focus went.
ESC_DRAWER_JS = """
async ([which, dialogId]) => {
  const dialog = document.getElementById(dialogId);
  let atFrame = null;
  const frame = new Promise((r) => window.addEventListener('keydown', () => requestAnimationFrame(() => {
    atFrame = {open: dialog.open, visible: dialog.checkVisibility({visibilityProperty: true}),
      backdrop: getComputedStyle(dialog, '::backdrop').backgroundColor}; r(); }), {capture: true, once: true}));
  document.activeElement.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape', bubbles: true, cancelable: true}));
  await frame;
  await new Promise((r) => setTimeout(r, 300));
  const toggle = [...document.querySelectorAll(`.${which}-toggle`)].find((t) => t.offsetParent);
  return {atFrame, settled: {open: dialog.open, focusOnToggle: document.activeElement === toggle}};
}
"""


def _shade_differs(a: bytes, b: bytes) -> float:
    """The share of pixels that differ (by more than 8 in a channel) between two screenshots."""
    import io

    from PIL import Image, ImageChops

    one, two = (Image.open(io.BytesIO(x)).convert("RGB") for x in (a, b))
    diff = ImageChops.difference(one, two).convert("L").point(lambda v: 255 if v > 8 else 0)
    return diff.histogram()[255] / (one.width * one.height)


@pytest.mark.parametrize(
    "which, dialog",
    [("primary", "pst-primary-sidebar-modal"), ("secondary", "pst-secondary-sidebar-modal")],
)
def test_a_phone_drawer_shows_in_the_taps_frame_then_turns_modal(browser, base_url, which, dialog):
    """A modal dialog makes the rest of the page inert, a restyle of every element (about 110 ms
    at 4x CPU on chapter 5, most of the tap's work): web/book.js shows the drawer as a plain
    dialog in the tap's frame and makes it modal (inert page, focus inside, backdrop) right
    after; in between it shades the page as its backdrop will, so the two frames look the same.
    Leaving the modal state costs the same restyle: on Esc the drawer and its backdrop vanish in
    the key's frame and the dialog closes after it, the focus back on the toggle. A drawer
    closed before the tap's frame stays closed."""
    ctx = browser.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
    )
    page = ctx.new_page()
    try:
        page.goto(f"{base_url}/{CHAPTERS[4]}", wait_until="load")
        page.wait_for_load_state("networkidle")
        got = page.evaluate(TAP_DRAWER_JS, [which, dialog])
        assert got["atFrame"]["open"] and not got["atFrame"]["modal"], (
            f"the {which} drawer was not drawn as a plain dialog in the tap's frame: {got}"
        )
        assert got["settled"] == {"open": True, "modal": True, "focusInside": True}, (
            f"the {which} drawer did not turn modal with the focus inside: {got}"
        )
        # Esc: the drawer and its backdrop go in the key's frame, the (costly) close follows
        got = page.evaluate(ESC_DRAWER_JS, [which, dialog])
        assert got["atFrame"] == {
            "open": True,
            "visible": False,
            "backdrop": "rgba(0, 0, 0, 0)",
        }, f"the {which} drawer did not vanish in the key's frame before closing: {got}"
        assert got["settled"] == {"open": False, "focusOnToggle": True}, (
            f"the {which} drawer did not close with the focus back on its toggle: {got}"
        )

        # the frame between (requestAnimationFrame held: the drawer stays plain) looks like the
        # modal one, the drawer's slide (0.25 s) over in both
        page.evaluate(
            "() => { window.__held = []; window.__raf = window.requestAnimationFrame;"
            " window.requestAnimationFrame = (f) => { window.__held.push(f); return 0; }; }"
        )
        page.locator(f".{which}-toggle:visible").first.tap()
        page.wait_for_timeout(600)
        assert page.evaluate(f"() => !document.getElementById('{dialog}').matches(':modal')")
        plain = page.screenshot()
        page.evaluate(
            "() => { window.requestAnimationFrame = window.__raf;"
            " window.__held.forEach((f) => window.__raf(f)); }"
        )
        page.wait_for_function(f"() => document.getElementById('{dialog}').matches(':modal')")
        page.wait_for_timeout(600)
        differs = _shade_differs(plain, page.screenshot())
        assert differs < 0.005, (
            f"the {which} drawer's plain frame and its modal frame differ in {differs:.1%} of "
            "the pixels (the shade in web/book.css no longer matches the backdrop?)"
        )
        page.keyboard.press("Escape")

        # closed within the tap's frame: it must not come back as a modal
        got = page.evaluate(
            """async ([which, dialogId]) => {
              const dialog = document.getElementById(dialogId);
              [...document.querySelectorAll(`.${which}-toggle`)].find((t) => t.offsetParent).click();
              dialog.close();
              await new Promise((r) => setTimeout(r, 300));
              return {open: dialog.open, modal: dialog.matches(':modal')};
            }""",
            [which, dialog],
        )
        assert got == {"open": False, "modal": False}, f"a closed drawer came back: {got}"
    finally:
        ctx.close()
