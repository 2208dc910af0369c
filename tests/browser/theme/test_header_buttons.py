"""The buttons of a chapter's header: the Binder and Colab launch buttons are plain links to
the chapter's notebook, and the launch and download menus open at the first click."""

from __future__ import annotations

import pytest

from ..conftest import CHAPTERS

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


def test_theme_dropdowns_open(browser, base_url):
    """The launch and download menus open at the first click, Bootstrap fetched on the way."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    fetched = []
    page.on("request", lambda r: "bootstrap.js" in r.url and fetched.append(r.url))
    try:
        page.goto(f"{base_url}/{CHAPTERS[0]}", wait_until="load")
        assert not fetched, "bootstrap.js fetched at load"
        toggles = page.locator(".dropdown-download-buttons > button.dropdown-toggle")
        assert toggles.count() == 1, "no download menu"
        page.evaluate(
            "document.querySelector('.dropdown-download-buttons > button').click()"
        )  # no hover first
        page.wait_for_selector(".dropdown-download-buttons .dropdown-menu.show", timeout=10_000)
        assert fetched, "the menu opened without Bootstrap?"
        page.keyboard.press("Escape")
        page.wait_for_selector(
            ".dropdown-download-buttons .dropdown-menu.show", state="detached", timeout=5_000
        )
        page.locator(".dropdown-launch-buttons > button.dropdown-toggle").click()
        page.wait_for_selector(".dropdown-launch-buttons .dropdown-menu.show", timeout=5_000)
    finally:
        ctx.close()
