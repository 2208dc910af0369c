"""Figures at page width and display equations that say they scroll (issue 26).

- at 1280 x 900 (>= 1200 px) every explorer is wider than the text column (it takes the
  width the "on this page" column, #book-toc, keeps beside it, and is drawn over that column's
  list) while the column's paragraphs stay at their reading width (<= 700 px) and nothing
  scrolls sideways; at 1100 px ("on this page" is a drawer) explorers keep to the column;
- at 390 x 844 every display equation carries the scroll cue (a shadow at an edge that has
  more, shown only while it overflows), in light and dark: checked in test_on_a_phone.py.
"""

from __future__ import annotations

import pytest

from ..conftest import chapter_page

pytestmark = pytest.mark.browser

WIDTHS_JS = """() => ({
  explorers: [...document.querySelectorAll('.attn-explorer')].map((e) => e.getBoundingClientRect().width),
  column: Math.max(...[...document.querySelectorAll('.book-article section > p')].map((p) => p.getBoundingClientRect().width)),
  scroll: document.documentElement.scrollWidth,
  // what a reader sees 40 px inside the right edge of each explorer (not the list of #book-toc)
  covered: [...document.querySelectorAll('.attn-explorer')].map((e) => {
    e.scrollIntoView({ block: 'center' });
    const r = e.getBoundingClientRect(), at = document.elementFromPoint(r.right - 40, r.top + r.height / 2);
    return !(at && e.contains(at));
  }),
})"""


def _page(browser, visits, name, width, height, scheme="light"):
    visits(name)
    ctx = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
    page = ctx.new_page()
    page.goto(f"{visits.base_url}/{name}", wait_until="load")
    return ctx, page


# the core chapters' explorers (stored and live), by name
CORE = [
    chapter_page(stem)
    for stem in (
        "01_queries_keys_values",
        "02_attention_pooling",
        "03_masked_softmax",
        "04_additive_attention",
        "05_scaled_dot_product_attention",
    )
]


@pytest.mark.parametrize("name", CORE)
def test_explorers_use_the_page_width_on_wide_screens(browser, visits, name):
    from ..conftest import wake_explorers

    for width, wide in ((1280, True), (1100, False)):
        ctx, page = _page(browser, visits, name, width, 900)
        try:
            wake_explorers(page)
            m = page.evaluate(WIDTHS_JS)
        finally:
            ctx.close()
        assert m["explorers"], f"{name}: no explorer"
        if wide:  # (below 1200 px the text column may be wider: no "on this page" beside it)
            assert m["column"] <= 700, f"{name} at {width} px: text column {m['column']:.0f} px"
        assert m["scroll"] <= width, f"{name} at {width} px: the page scrolls sideways"
        assert not any(m["covered"]), (
            f"{name} at {width} px: an explorer is drawn under 'on this page'"
        )
        for w in m["explorers"]:
            if wide:
                assert w >= m["column"] + 200, (
                    f"{name} at {width} px: an explorer {w:.0f} px wide in a "
                    f"{m['column']:.0f} px column (not at page width)"
                )
            else:
                assert w <= m["column"] + 1, f"{name} at {width} px: explorer {w:.0f} px wide"


# The phone's scroll cue on display equations (390 x 844, light and dark) is checked in
# test_on_a_phone.py, on the load that serves every phone check of a page.
