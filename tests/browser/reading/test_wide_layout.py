"""The layout at 1280 x 900 and on a phone (issue 39, item 5).

- At 1280 x 900, with each explorer scrolled to the middle of the window, "on this page"
  (#book-toc) is either folded away (not visible) or clear of every explorer: no explorer is
  drawn over it, and it is drawn over none.
- "On this page" marks where the reader is: after a jump to a section, that section's link
  (and only it) carries aria-current; in the page's opening, before any section, none does.
- The drag plot's data area (the handle's drag area) on a 1280 px screen is at least twice
  the 190 x 160 px a fixed 330 px panel gave.
- (On a phone an explorer's sticky controls take at most 20 % of the screen: checked on the
  phone's load that serves every phone check of a page, reading/test_on_a_phone.py.)

Every wait is on a condition (Playwright's wait_for_function), never a fixed sleep.

The checks at 1280 x 900 only scroll and read: they share the session's load of the page
(``visits``: every page at 1280 x 900, light, its explorers drawn), each scrolling to what it
measures itself.
"""

from __future__ import annotations

import pytest

from ..conftest import CHAPTERS, EXPLORER_CHAPTERS, LANDING

pytestmark = pytest.mark.browser

# Data area of the chapters' drag plots before issue 39 (a 330 px panel): 190 x 160 px.
OLD_DRAG_AREA = 190 * 160

CLEAR_JS = """(k) => {
  const ex = [...document.querySelectorAll('.attn-explorer')][k];
  const toc = document.querySelector('#book-toc');
  if (!ex || !toc) return 'missing';
  if (!toc.checkVisibility({visibilityProperty: true, opacityProperty: true})) return 'folded';
  const a = ex.getBoundingClientRect(), list = toc.querySelector('nav') || toc;
  const b = list.getBoundingClientRect();
  const overlap = a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  return overlap ? `overlap: explorer ${Math.round(a.left)}..${Math.round(a.right)} x ${Math.round(a.top)}..${Math.round(a.bottom)}, list ${Math.round(b.left)}..${Math.round(b.right)} x ${Math.round(b.top)}..${Math.round(b.bottom)}` : 'clear';
}"""


@pytest.mark.parametrize("name", EXPLORER_CHAPTERS)
def test_no_explorer_covers_on_this_page_at_1280(visits, name):
    page = visits(name).page
    n = page.evaluate("document.querySelectorAll('.attn-explorer').length")
    assert n, f"{name}: no explorer"
    for k in range(n):
        page.evaluate(
            "(k) => document.querySelectorAll('.attn-explorer')[k]"
            ".scrollIntoView({block: 'center'})",
            k,
        )
        # wait until the page settles on folded or clear (an overlap that lasts is the
        # failure; reading/test_toc_never_covered.py checks every frame on the way)
        try:
            page.wait_for_function(
                f"({CLEAR_JS})({k}) !== 'missing' && !({CLEAR_JS})({k}).startsWith('overlap')",
                timeout=3000,
            )
        except Exception:
            pass
        got = page.evaluate(CLEAR_JS, k)
        assert got in ("folded", "clear"), f"{name}, explorer {k}: {got}"


@pytest.mark.parametrize("name", [LANDING, *CHAPTERS[:3]])
def test_on_this_page_marks_the_current_section(visits, name):
    page = visits(name).page
    links = page.evaluate(
        "() => [...document.querySelectorAll('#book-toc a[href^=\"#\"]')]"
        ".map((a) => a.getAttribute('href')).filter((h) => h.length > 1)"
    )
    assert len(links) >= 2, f"{name}: {links}"
    for href in dict.fromkeys((links[min(2, len(links) - 1)], links[-1], links[0])):
        page.evaluate(
            "(h) => document.getElementById(decodeURIComponent(h.slice(1)))"
            ".querySelector('h2, h3').scrollIntoView({block: 'start'})",
            href,
        )
        page.wait_for_function(
            "(h) => { const cur = [...document.querySelectorAll('#book-toc a[aria-current]')];"
            " return cur.length === 1 && cur[0].getAttribute('href') === h; }",
            arg=href,
            timeout=5000,
        )
    # back at the top, in the page's opening before any section: no link is marked
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_function(
        "() => !document.querySelector('#book-toc a[aria-current]')", timeout=5000
    )


DRAG_AREA_JS = """() => [...document.querySelectorAll('.attn-explorer rect.attn-drag-area')]
  .map((r) => { const b = r.getBoundingClientRect(); return [b.width, b.height]; })"""


@pytest.mark.parametrize("name", EXPLORER_CHAPTERS[:5])
def test_the_drag_plot_grows_with_the_screen(visits, name):
    areas = visits(name).page.evaluate(DRAG_AREA_JS)
    for w, h in areas:
        assert w * h >= 2 * OLD_DRAG_AREA, (
            f"{name}: a drag plot's data area is {w:.0f} x {h:.0f} px at 1280 px (< 2 x 190 x 160)"
        )
