"""The buttons of a chapter's header: the Binder and Colab launch buttons are plain links to
the chapter's notebook, and the Run and Download menus (<details>, web/theme/attnbook) open at
the first click, one at a time, and close on Esc (the focus back on the menu's button) or on a
click outside."""

from __future__ import annotations

import pytest

from ..conftest import CHAPTERS, chapter_page

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("name", CHAPTERS)
def test_launch_buttons_are_plain_links(visits, name):
    """Binder and Colab open the chapter's notebook; nothing is loaded until a click."""
    v = visits(name)
    hrefs = v.page.evaluate("() => [...document.querySelectorAll('a[href]')].map(a => a.href)")
    nb = name.removesuffix(".html") + ".ipynb"
    binder = [h for h in hrefs if h.startswith("https://mybinder.org/v2/gh/") and nb in h]
    colab = [
        h
        for h in hrefs
        if h.startswith("https://colab.research.google.com/github/") and h.endswith(nb)
    ]
    assert binder, f"{name}: no Binder launch link for {nb}"
    assert colab, f"{name}: no Colab launch link for {nb}"


MENU_JS = """
() => ['book-launch', 'book-download'].map((id) => {
  const d = document.getElementById(id);
  return [id, d.open, [...d.querySelectorAll('a[href], button')]
    .filter((e) => e.checkVisibility({visibilityProperty: true})).map((e) => e.textContent.trim())];
})
"""


def test_the_run_and_download_menus_open(browser, base_url):
    """The menus open at the first click and show their items (the notebook, printing; Binder
    and Colab), only one at a time; Esc closes a menu with the focus back on its button, a click
    outside closes it; opening them fetches nothing."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    fetched = []
    try:
        page.goto(f"{base_url}/{chapter_page('01_queries_keys_values')}", wait_until="load")
        page.wait_for_load_state("networkidle")
        page.on("request", lambda r: fetched.append(r.url))
        menus = dict((k, (o, items)) for k, o, items in page.evaluate(MENU_JS))
        assert menus == {"book-launch": (False, []), "book-download": (False, [])}, menus
        page.locator("#book-download > summary").click()
        menus = dict((k, (o, items)) for k, o, items in page.evaluate(MENU_JS))
        assert menus["book-download"][0], f"the Download menu did not open: {menus}"
        assert menus["book-download"][1] == ["This page as .ipynb", "Print, or save as PDF"], menus
        page.keyboard.press("Escape")
        menus = dict((k, (o, items)) for k, o, items in page.evaluate(MENU_JS))
        assert not menus["book-download"][0], f"Esc did not close the Download menu: {menus}"
        assert page.evaluate(
            "() => document.activeElement === document.querySelector('#book-download > summary')"
        ), "after Esc the focus is not on the Download menu's button"
        page.locator("#book-download > summary").click()
        page.locator("#book-launch > summary").click()
        menus = dict((k, (o, items)) for k, o, items in page.evaluate(MENU_JS))
        assert menus["book-launch"][0] and not menus["book-download"][0], (
            f"the Run menu did not open alone: {menus}"
        )
        assert menus["book-launch"][1] == ["Open in Binder", "Open in Colab"], menus
        page.locator("main h1").first.click()  # the title, outside the menu
        menus = dict((k, (o, items)) for k, o, items in page.evaluate(MENU_JS))
        assert not menus["book-launch"][0], f"a click outside left the Run menu open: {menus}"
        assert not fetched, f"opening the menus fetched {fetched}"
    finally:
        ctx.close()
