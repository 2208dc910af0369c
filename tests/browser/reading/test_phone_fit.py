"""Every page fits a phone: nothing of the header or the page (text, previous/next, footer)
reaches past either edge of a 360 or 390 px screen, nothing scrolls sideways (headless
Chromium, touch, mobile viewport). The drawers, hidden off screen until opened, are the theme
tests' business.
Screenshots of the phone views go to _build/screenshots/."""

from __future__ import annotations

import pytest

from .._reader import _shot
from ..conftest import PAGES, fresh_page

pytestmark = pytest.mark.browser

# Elements of the header and the page that stick out of the viewport without being inside a
# scrolling or clipping box (a drawer closed is visibility: hidden, so not counted).
OVERFLOW_JS = """
(w) => {
  const out = [];
  for (const e of document.querySelectorAll('#book-header *, #book-page *')) {
    const r = e.getBoundingClientRect();
    if (r.width === 0 || (r.right <= w + 1 && r.left >= -1)) continue;  // out past either edge
    if (!e.checkVisibility({visibilityProperty: true, opacityProperty: true})) continue;
    let p = e.parentElement, clipped = false;
    while (p) {
      const ox = getComputedStyle(p).overflowX;
      if (ox === 'auto' || ox === 'scroll' || ox === 'hidden' || ox === 'clip') { clipped = true; break; }
      p = p.parentElement;
    }
    if (!clipped) out.push(`${e.tagName.toLowerCase()}.${String(e.className.baseVal ?? e.className).split(' ')[0]} spans ${Math.round(r.left)}..${Math.round(r.right)} px`);
  }
  return {scrollWidth: document.documentElement.scrollWidth, offenders: out.slice(0, 5)};
}
"""


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
