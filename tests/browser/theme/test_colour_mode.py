"""Colour mode: the page follows the OS (dark and light) and leaves figures undimmed, and the
colour-mode switch answers the press (click or keyboard) before the page restyles. Screenshots
of the dark views go to _build/screenshots/."""

from __future__ import annotations

import pytest

from .._reader import _shot
from ..conftest import CHAPTERS, PAGES, fresh_page

pytestmark = pytest.mark.browser


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


# Presses the colour-mode button and reports the mode right after the press, at the next
# frame (requestAnimationFrame callbacks run just before it is painted) and once things settle.
PRESS_MODE_JS = """
async () => {
  const button = [...document.querySelectorAll('.theme-switch-button')].find((b) => b.offsetParent)
    || document.querySelector('.theme-switch-button');
  const mode = () => document.documentElement.dataset.mode;
  const before = mode();
  button.click();
  const atPress = mode();
  const opacity = () => +getComputedStyle(button).opacity;
  const [atNextFrame, dimmed] = await new Promise((r) => requestAnimationFrame(() => r([mode(), opacity()])));
  await new Promise((r) => setTimeout(r, 300));
  return {before, atPress, atNextFrame, dimmed, after: mode(), opacityAfter: opacity()};
}
"""


@pytest.mark.parametrize("press", ["click", "keyboard"])
def test_the_colour_mode_switch_answers_the_press_before_restyling(browser, base_url, press):
    """The theme restyles the whole page when the mode changes (150-300 ms at 4x CPU on a
    chapter): web/book.js holds the click back until the frame after the press, so the press
    is answered at once (INP) and the restyle runs as its own task; the mode still changes,
    by mouse or keyboard."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="light")
    page = ctx.new_page()
    try:
        page.goto(f"{base_url}/{CHAPTERS[4]}", wait_until="load")
        page.wait_for_load_state("networkidle")
        if press == "click":
            got = page.evaluate(PRESS_MODE_JS)
        else:
            button = page.locator(".theme-switch-button:visible").first
            button.focus()
            before = page.evaluate("() => document.documentElement.dataset.mode")
            page.keyboard.press("Enter")
            page.wait_for_function(
                f"() => document.documentElement.dataset.mode !== {before!r}", timeout=5_000
            )
            got = {
                "before": before,
                "after": page.evaluate("document.documentElement.dataset.mode"),
            }
        assert got["after"] != got["before"], f"the mode never changed: {got}"
        if press == "click":
            assert got["atPress"] == got["before"] and got["atNextFrame"] == got["before"], (
                f"the page was restyled inside the press, before its next frame: {got}"
            )
            # the press's own feedback is in that frame: the button dims, then comes back
            assert got["dimmed"] < 0.9 and got["opacityAfter"] == 1, f"no feedback: {got}"
    finally:
        ctx.close()
