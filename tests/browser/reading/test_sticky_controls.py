"""What an explorer's sticky controls cover on a phone (issue 39, item 5: "Sticky controls take
at most 20 % of a phone screen", where the issue measured controls plus the 56 px header).

At 390 x 844 (touch), for every explorer on every chapter with explorers, the page is scrolled
until the explorer's controls would sit 20 px above the window's top, so they hang under the
book's sticky header (#book-header); the window is then covered from its top to the controls'
bottom edge: header and controls together. That must be at most 20 % of 844 px.

(The height-only check of the controls, in test_on_a_phone.py / test_wide_layout.py, leaves
the header out.) Every wait is on a condition, never a fixed sleep.
"""

from __future__ import annotations

import pytest

from ..conftest import EXPLORER_CHAPTERS, fresh_page, wake_explorers

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
SHARE = 0.2

STUCK_JS = """(k) => {
  const c = document.querySelectorAll('.attn-explorer .attn-controls')[k];
  const header = document.querySelector('#book-header');
  const hb = header ? header.getBoundingClientRect().bottom : 0;
  const r = c.getBoundingClientRect();
  return {sticky: getComputedStyle(c).position === 'sticky', top: r.top, bottom: r.bottom,
          header: hb, height: r.height,
          explorer: c.closest('.attn-explorer').getAttribute('data-explorer')};
}"""


@pytest.mark.parametrize("name", EXPLORER_CHAPTERS)
def test_header_and_sticky_controls_take_at_most_a_fifth_of_a_phone(browser, visits, name):
    visits(name)
    url = f"{visits.base_url}/{name}"
    with fresh_page(browser, url, viewport=PHONE, has_touch=True, is_mobile=True) as page:
        wake_explorers(page)
        n = page.evaluate("document.querySelectorAll('.attn-explorer .attn-controls').length")
        assert n, f"{name}: no explorer controls"
        covered = []
        for k in range(n):
            page.evaluate(
                "(k) => { const c = document.querySelectorAll('.attn-explorer .attn-controls')[k];"
                " window.scrollBy(0, c.getBoundingClientRect().top + 20); }",
                k,
            )
            # stuck: the controls hang right under the header
            page.wait_for_function(
                f"(k) => {{ const s = ({STUCK_JS})(k); return s.sticky && s.header > 0 &&"
                " Math.abs(s.top - s.header) < 1.5; }",
                arg=k,
                timeout=5000,
            )
            covered.append(page.evaluate(STUCK_JS, k))
    limit = SHARE * PHONE["height"]
    over = [
        f"{s['explorer']}: header {s['header']:.0f} px + controls {s['height']:.0f} px = "
        f"{s['bottom']:.0f} px ({s['bottom'] / PHONE['height']:.1%} of {PHONE['height']})"
        for s in covered
        if s["bottom"] > limit
    ]
    assert not over, f"{name}: sticky header and controls over {SHARE:.0%}: {over}"
