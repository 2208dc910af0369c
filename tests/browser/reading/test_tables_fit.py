"""No table in the reading path is wider than its column, at any width (issue 39, "What to
build" 1: "Wide tables become stacked cards or wrap").

At 1280 x 900 and at 390 x 844, on every page, every table in the article (outside an
explorer) shows all it holds: its content is no wider than its box (``scrollWidth <=
clientWidth``, 1 px of rounding allowed) and its box no wider than the column it stands in.
Chapter 6's cost table was 1373 px of content in a 684 px box at 1280 px: its last column
was off to the right with no visible cue.
"""

from __future__ import annotations

import pytest

from ..conftest import PAGES, fresh_page

pytestmark = pytest.mark.browser

TABLES_JS = """() => [...document.querySelectorAll('.book-article table')]
  .filter((t) => !t.closest('.attn-explorer') && t.checkVisibility())
  .map((t) => {
    const col = t.closest('section, .book-article').getBoundingClientRect();
    return {head: Array.from((t.querySelector('tr') || t).textContent.trim().replace(/\\s+/g, ' ')).slice(0, 50).join(''),
            scroll: t.scrollWidth, client: t.clientWidth, width: t.getBoundingClientRect().width,
            column: col.width, cards: t.classList.contains('attn-cards')};
  })"""


@pytest.mark.parametrize("width,height", [(1280, 900), (390, 844)])
@pytest.mark.parametrize("name", PAGES)
def test_no_table_is_wider_than_its_column(browser, visits, name, width, height):
    visits(name)
    phone = width < 600
    with fresh_page(
        browser,
        f"{visits.base_url}/{name}",
        viewport={"width": width, "height": height},
        is_mobile=phone,
        has_touch=phone,
    ) as page:
        got = page.evaluate(TABLES_JS)
    wide = [t for t in got if t["scroll"] > t["client"] + 1 or t["width"] > t["column"] + 1]
    assert not wide, f"{name} at {width} px: tables wider than their column: {wide}"
