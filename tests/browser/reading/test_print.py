"""Printing a page: the text and pictures without the controls, light figures even from a
dark page, outputs with a figure or an explorer kept on one printed page; each explorer prints
whole, without its controls, no taller than a printed page."""

from __future__ import annotations

import pytest

from .._craft import PRINT_PX
from ..conftest import (
    CHAPTERS,
    EXPLORER_CHAPTERS,
    LANDING,
    SCREENSHOTS,
    fresh_page,
    show_back_to_top,
)

pytestmark = pytest.mark.browser

# ----------------------------------------------------------------------------- the page

TABLET = {"width": 1024, "height": 800}  # "Back to top" shows below 1200 px (sphinx-book-theme)

PRINT_JS = """
() => {
  const shown = (e) => e.checkVisibility() && e.getBoundingClientRect().width > 0;
  const controls = [...document.querySelectorAll('button, input, select, textarea, [role=button], a.btn, #pst-back-to-top')]
    .filter(e => !e.closest('.attn-explorer') && shown(e))
    .map(e => `${e.tagName.toLowerCase()}.${String(e.className).split(' ')[0]} "${(e.getAttribute('aria-label') || e.textContent).trim().slice(0, 30)}"`);
  const chrome = ['#pst-header', '.bd-header-article', '.bd-sidebar-primary', '.bd-sidebar-secondary', '#pst-back-to-top',
                  '.prev-next-area', '.bd-footer']
    .filter(s => [...document.querySelectorAll(s)].some(shown));
  const outputs = [...document.querySelectorAll('.bd-article .cell_output')]
    .filter(o => o.querySelector('img, .attn-explorer'))
    .map(o => getComputedStyle(o).breakInside);
  const figures = [...document.querySelectorAll('.bd-article picture.attn-figure')].filter(shown)
    .map(p => p.classList.contains('only-dark') ? 'dark' : 'light');
  return {controls, chrome, outputs, figures, text: document.querySelector('.bd-article').innerText.length};
}
"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("name", CHAPTERS)
def test_print_shows_the_page_without_its_controls(browser, base_url, name, scheme):
    """Print media: no theme control is shown (menu, launch, download, mode, search, copy,
    toggles, "Back to top", which is fixed and would print over the text), the sidebars and
    header are gone, every output holding a figure or an explorer is kept on one page
    (break-inside: avoid), and figures print in their light variant even from a dark page.
    (The controls inside an explorer are attnlib's explorer.css's business.)"""
    with fresh_page(browser, f"{base_url}/{name}", viewport=TABLET, color_scheme=scheme) as page:
        # scroll down and a little back up, away from the explorers: the theme then shows
        # "Back to top"
        assert show_back_to_top(page) is not None, (
            f"{name}: 'Back to top' did not appear on screen (the test would not see it hidden)"
        )
        page.emulate_media(media="print")
        got = page.evaluate(PRINT_JS)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(
            path=str(
                SCREENSHOTS
                / f"{name.replace('/', '__').removesuffix('.html')}--print-{scheme}.png"
            )
        )
    assert got["text"] > 1000, f"{name}: the article has no text in print"
    assert not got["controls"], f"{name} ({scheme}) prints controls: {got['controls'][:8]}"
    assert not got["chrome"], f"{name} ({scheme}) prints the theme's chrome: {got['chrome']}"
    assert got["outputs"] and all(b == "avoid" for b in got["outputs"]), (
        f"{name}: outputs with figures or explorers may split across pages: {got['outputs']}"
    )
    assert got["figures"] and set(got["figures"]) == {"light"}, (
        f"{name} ({scheme}): printed figures are {got['figures']}, not the light variants"
    )


# ----------------------------------------------------------------------------- explorers

# the pages with explorers, in reading order: the landing page, then every chapter that has
# explorers (the notation page and chapter 6 have none)
PAGES = [LANDING, *EXPLORER_CHAPTERS]


@pytest.mark.parametrize("name", PAGES)
def test_print_shows_each_explorer_whole_without_its_controls(opened, margin, name):
    page = opened(name, viewport={"width": 700, "height": 1000})
    page.emulate_media(media="print")
    got = page.evaluate("""() => [...document.querySelectorAll('.attn-explorer')].map((ex) => ({
      name: ex.dataset.explorer, height: ex.getBoundingClientRect().height,
      breakInside: getComputedStyle(ex).breakInside,
      shown: [...ex.querySelectorAll('input, select, button')].filter((c) => c.getClientRects().length > 0
        && c.type !== 'text').map((c) => c.className || c.tagName)}))""")
    assert got, f"{name}: no explorer"
    for ex in got:
        where = f"{name}, {ex['name']} in print"
        assert not ex["shown"], f"{where}: controls still printed: {ex['shown']}"
        assert ex["breakInside"] == "avoid", (
            f"{where}: break-inside is {ex['breakInside']!r}, so a page break may split it"
        )
        margin(f"{where}: px tall", ex["height"], PRINT_PX, at_least=False)
        assert ex["height"] <= PRINT_PX, (
            f"{where}: {ex['height']:.0f} px tall, more than a printed page ({PRINT_PX} px)"
        )
