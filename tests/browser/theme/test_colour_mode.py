"""Colour mode: the page follows the OS (dark and light) and leaves figures undimmed; the
colour-mode switch (#book-mode, web/theme/attnbook/static/attnbook.js) cycles auto -> the mode
the page is not in -> the system's -> auto, by click or keyboard, answers the press in its own frame before the page restyles,
and the choice is remembered on the next page. Screenshots of the dark views go to
_build/screenshots/."""

from __future__ import annotations

import contextlib

import pytest
from _wait import with_page_waits

from .._reader import _load, _shot, reads
from ..conftest import PAGES, chapter_page

# the checks of a page as it loads in each mode read the desktop ``reading``
# (tests/browser/_reader.py): one load per page and mode for them and the other files' checks
pytestmark = pytest.mark.browser


@reads("loaded", "colour-mode")
def _colour_mode(page, reading) -> dict:
    """The theme the page is drawn in, its background and its figures' CSS filters, as
    loaded; a screenshot of the dark view's window."""
    got = {
        "theme": page.evaluate("document.documentElement.dataset.theme"),
        "bg": page.evaluate("getComputedStyle(document.body).backgroundColor"),
        "filters": page.eval_on_selector_all(
            ".book-article img", "ims => ims.map(i => getComputedStyle(i).filter)"
        ),
    }
    if reading.scheme == "dark":
        _shot(page, reading.name, "dark")
    return got


@pytest.mark.parametrize("name", PAGES)
def test_dark_mode_follows_the_os_and_leaves_figures_undimmed(reading, name):
    dark = reading(name, "dark")
    got = dark.get("colour-mode")
    theme = got["theme"]
    assert theme == "dark", f"{name}: prefers-color-scheme dark gave data-theme={theme!r}"
    bg = got["bg"]
    rgb = [int(x) for x in bg[bg.index("(") + 1 : bg.index(")")].split(",")[:3]]
    assert sum(rgb) / 3 < 80, f"{name}: page background {bg} is not dark"
    filters = got["filters"]
    assert all(f == "none" for f in filters), (
        f"{name}: figures dimmed in dark mode: {set(filters)}"
    )
    assert not dark.errors("loaded"), f"{name} (dark): page errors {dark.errors('loaded')}"
    light = reading(name, "light")
    assert light.get("colour-mode")["theme"] == "light"
    assert not light.errors("loaded"), f"{name} (light): page errors {light.errors('loaded')}"


# Presses the colour-mode button and reports, right after the press, at the next frame
# (requestAnimationFrame callbacks asked for after the press run just before that frame is
# painted) and once things settle: the mode, the theme the page is styled in and the button's
# words.
PRESS_MODE_JS = with_page_waits(
    """
async () => {
  const button = document.getElementById('book-mode');
  const html = document.documentElement;
  const state = () => ({mode: html.dataset.mode, theme: html.dataset.theme,
    says: button.textContent.trim().replace(/\\s+/g, ' ')});
  const before = state();
  button.click();
  const atPress = state();
  const atNextFrame = await new Promise((r) => requestAnimationFrame(() => r(state())));
  await attnStill();
  return {before, atPress, atNextFrame, after: state(),
          stored: localStorage.getItem('attnbook-mode')};
}
"""
)


def test_the_colour_mode_switch_answers_the_press_before_restyling(browser, base_url):
    """A change of data-theme restyles the whole page (150-300 ms at 4x CPU on a chapter): the
    press is answered first (the button names the new mode in the press's own frame) and the
    restyle runs after that frame, as a task of its own; the mode is remembered. On a light
    system the first press, from "auto", goes to dark: it always changes what the reader sees."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="light")
    page = ctx.new_page()
    try:
        page.goto(
            f"{base_url}/{chapter_page('05_scaled_dot_product_attention')}", wait_until="load"
        )
        page.wait_for_load_state("networkidle")
        got = page.evaluate(PRESS_MODE_JS)
        assert got["before"] == {"mode": "auto", "theme": "light", "says": "Colour: auto"}, got
        assert got["atPress"]["says"] == "Colour: dark" and got["atPress"]["mode"] == "dark", (
            f"the button did not name the new mode in the press's own frame: {got}"
        )
        assert got["atPress"]["theme"] == "light" and got["atNextFrame"]["theme"] == "light", (
            f"the page was restyled inside the press, before its next frame: {got}"
        )
        assert got["after"] == {"mode": "dark", "theme": "dark", "says": "Colour: dark"}, (
            f"the page did not turn dark after the press: {got}"
        )
        assert got["stored"] == "dark", f"the choice was not remembered: {got}"
        # the next page opens in the mode chosen, before its first paint
        page.goto(f"{base_url}/{chapter_page('06_scoring_family')}", wait_until="commit")
        page.wait_for_selector("#book-header", state="attached")
        assert page.evaluate("() => document.documentElement.dataset.theme") == "dark"
    finally:
        ctx.close()


@pytest.mark.parametrize("key", ["Enter", "Space"])
def test_the_colour_mode_switch_cycles_by_keyboard(browser, base_url, key):
    """From the keyboard the switch goes, on a dark system, auto -> light -> dark -> auto (the
    mode the page is not in first); "auto" is dark and the button always names its mode."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="dark")
    page = ctx.new_page()
    try:
        page.goto(
            f"{base_url}/{chapter_page('01_queries_keys_values')}", wait_until="load"
        )  # no mode stored: auto
        button = page.locator("#book-mode")
        assert button.is_visible(), "no visible colour-mode switch"
        state = (
            "() => [document.documentElement.dataset.mode, document.documentElement.dataset.theme,"
            " document.querySelector('#book-mode .book-mode-name').textContent]"
        )
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        seen = [page.evaluate(state)]
        button.focus()
        for _ in range(3):
            page.keyboard.press(key)
            with contextlib.suppress(PlaywrightTimeout):  # unchanged: the assertion says so
                # the mode, then the theme it resolves to (set a frame later): both settled
                page.wait_for_function(
                    "(m) => { const d = document.documentElement.dataset;"
                    " return d.mode !== m && (d.mode === 'auto' || d.theme === d.mode); }",
                    arg=seen[-1][0],
                    timeout=5_000,
                )
            seen.append(page.evaluate(state))
        assert seen == [
            ["auto", "dark", "auto"],
            ["light", "light", "light"],
            ["dark", "dark", "dark"],
            ["auto", "dark", "auto"],
        ], f"{key} on the colour-mode switch gave {seen}"
    finally:
        ctx.close()


# sphinx-copybutton draws its copy buttons in GitHub's light colours (#f6f8fa); on a dark page
# they take the page's dark colours, with scripts on (data-theme) and off (the dark OS's twins
# of web/inline-css.mjs). A light page keeps a light button.
@pytest.mark.parametrize("scripts", [True, False], ids=["js", "nojs"])
@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_copy_buttons_follow_the_colour_mode(browser, base_url, scheme, scripts):
    name = chapter_page("05_scaled_dot_product_attention")
    ctx, page, _ = _load(browser, base_url, name, java_script_enabled=scripts, color_scheme=scheme)
    try:
        if not scripts:  # sphinx-copybutton adds its buttons by script: one like them
            page.evaluate(
                """() => { const b = document.createElement('button');
                b.className = 'copybtn'; document.querySelector('div.highlight').append(b); }"""
            )
        else:
            page.wait_for_selector("button.copybtn", state="attached")
        bgs = page.eval_on_selector_all(
            "button.copybtn", "bs => bs.map(b => getComputedStyle(b).backgroundColor)"
        )
    finally:
        ctx.close()
    assert bgs, f"{name}: no copy button"
    for bg in bgs:
        mean = sum(int(x) for x in bg[bg.index("(") + 1 : bg.index(")")].split(",")[:3]) / 3
        if scheme == "dark":
            assert mean < 80, f"{name} dark ({'js' if scripts else 'nojs'}): copy button {bg}"
        else:
            assert mean > 200, f"{name} light: copy button {bg}"
