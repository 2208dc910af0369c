"""Printing a page: the text and pictures without the controls, light figures even from a
dark page, outputs with a figure or an explorer kept on one printed page; each explorer prints
whole, without its controls, no taller than a printed page."""

from __future__ import annotations

import pytest
from _craft import PRINT_PX

from ..conftest import (
    CHAPTERS,
    EXPLORER_CHAPTERS,
    LANDING,
    SCREENSHOTS,
    fresh_page,
)

pytestmark = pytest.mark.browser

# ----------------------------------------------------------------------------- the page

# Below 1200 px "on this page" is a drawer (position: fixed) that would print over the text;
# the chapter list is a column from 992 px, so both kinds of shell show on screen here.
TABLET = {"width": 1024, "height": 800}

# The page shell (web/theme/CONTRACT.md): header, chapter list, "on this page", its shade,
# previous/next, footer, skip link.
SHELL = [
    "#book-header",
    "#book-nav",
    "#book-toc",
    "#book-backdrop",
    ".book-prev-next",
    ".book-footer",
    ".book-skip-link",
]

# A reader halfway down the page opens "on this page" (the fixed drawer and its shade over the
# text, the sticky header on top): what of the shell shows on screen.
OPEN_DRAWER_JS = """
async (shell) => {
  window.scrollTo({left: 0, top: document.documentElement.scrollHeight / 2, behavior: 'instant'});
  document.getElementById('book-toc-toggle').click();
  // the drawer slides in (0.15 s; longer on a busy machine): wait until it is all on screen
  const toc = document.getElementById('book-toc');
  for (let t = 0; t < 100; t++) {
    const b = toc.getBoundingClientRect();
    if (toc.checkVisibility({visibilityProperty: true}) && b.right <= innerWidth + 1) break;
    await new Promise((r) => requestAnimationFrame(r));  // a frame per check
  }
  const onScreen = (e) => { const b = e.getBoundingClientRect();
    return e.checkVisibility({visibilityProperty: true}) && b.width > 0 && b.right > 0 && b.left < innerWidth
      && b.bottom > 0 && b.top < innerHeight; };
  return shell.filter((s) => [...document.querySelectorAll(s)].some(onScreen));
}
"""

PRINT_JS = """
(shell) => {
  const shown = (e) => e.checkVisibility({visibilityProperty: true}) && e.getBoundingClientRect().width > 0;
  const controls = [...document.querySelectorAll('button, input, select, textarea, summary, [role=button], a.book-button')]
    .filter(e => !e.closest('.attn-explorer') && shown(e))
    .map(e => `${e.tagName.toLowerCase()}.${String(e.className).split(' ')[0]} "${(e.getAttribute('aria-label') || e.textContent).trim().slice(0, 30)}"`);
  const chrome = shell.filter(s => [...document.querySelectorAll(s)].some(shown));
  const outputs = [...document.querySelectorAll('.book-article .cell_output')]
    .filter(o => o.querySelector('img, .attn-explorer'))
    .map(o => getComputedStyle(o).breakInside);
  const figures = [...document.querySelectorAll('.book-article picture.attn-figure')].filter(shown)
    .map(p => p.classList.contains('only-dark') ? 'dark' : 'light');
  const article = document.querySelector('.book-article');
  return {controls, chrome, outputs, figures, text: article.innerText.length,
          // the text uses the paper's width: nothing of the screen's columns is left beside it
          width: article.getBoundingClientRect().width, page: document.documentElement.clientWidth};
}
"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("name", CHAPTERS)
def test_print_shows_the_page_without_its_controls(browser, base_url, name, scheme):
    """Print media: no control of the page is shown (the header's menus, launch, download,
    mode and search, the drawers' toggles, copy buttons, hidden-code toggles), the page shell
    is gone (header, chapter list, "on this page" even while open as a drawer, which is fixed
    and would print over the text, its shade, previous/next, footer), the text takes the
    paper's width, every output holding a figure or an explorer is kept on one page
    (break-inside: avoid), and figures print in their light variant even from a dark page.
    (The controls inside an explorer are attnlib's explorer.css's business.)"""
    with fresh_page(browser, f"{base_url}/{name}", viewport=TABLET, color_scheme=scheme) as page:
        on_screen = page.evaluate(OPEN_DRAWER_JS, SHELL)
        # the set-up: the header, both lists and the shade are on screen (else the check below
        # would pass merely because they never showed)
        for part in ("#book-header", "#book-nav", "#book-toc", "#book-backdrop"):
            assert part in on_screen, f"{name}: {part} not on screen before printing ({on_screen})"
        page.emulate_media(media="print")
        got = page.evaluate(PRINT_JS, SHELL)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(
            path=str(
                SCREENSHOTS
                / f"{name.replace('/', '__').removesuffix('.html')}--print-{scheme}.png"
            )
        )
    assert got["text"] > 1000, f"{name}: the article has no text in print"
    assert not got["controls"], f"{name} ({scheme}) prints controls: {got['controls'][:8]}"
    assert not got["chrome"], f"{name} ({scheme}) prints the page shell: {got['chrome']}"
    assert got["width"] >= 0.9 * got["page"], (
        f"{name} ({scheme}): the text prints {got['width']:.0f} px wide on a {got['page']} px page"
    )
    assert got["outputs"] and all(b == "avoid" for b in got["outputs"]), (
        f"{name}: outputs with figures or explorers may split across pages: {got['outputs']}"
    )
    assert got["figures"] and set(got["figures"]) == {"light"}, (
        f"{name} ({scheme}): printed figures are {got['figures']}, not the light variants"
    )


# ----------------------------------------------------------------------------- explorers

# the pages with explorers, in reading order: the landing page, then every chapter that has
# explorers (the notation page has none)
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
