"""No table in the reading path is wider than its column, at any width (issue 39, "What to
build" 1: "Wide tables become stacked cards or wrap").

At 1280 x 900 and at 390 x 844, on every page, every table in the article (outside an
explorer) shows all it holds: its content is no wider than its box (``scrollWidth <=
clientWidth``, 1 px of rounding allowed) and its box no wider than the column it stands in.
Chapter 6's cost table was 1373 px of content in a 684 px box at 1280 px: its last column
was off to the right with no visible cue.

And no card shows a name without a value: in a table of cards (web/table-cards.mjs) every
named body cell shows some text, a picture or maths; a blank one shows "—", named "not
applicable" for screen readers (chapter 10's "none zeroed" card had two empty scores).
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
            column: col.width, cards: t.classList.contains('attn-cards'),
            // named cells of a card table that show nothing: no text, no picture, no maths
            empty: t.classList.contains('attn-cards') ? [...t.querySelectorAll('tbody :is(td, th)[data-label]')]
              .filter((c) => !c.innerText.trim() && !c.querySelector('img, svg, math, picture, canvas'))
              .map((c) => `${c.closest('tr').innerText.trim().replace(/\\s+/g, ' ').slice(0, 60)} | ${c.dataset.label}`) : [],
            // the blank cells' dash: named for screen readers
            unnamed: [...t.querySelectorAll('.attn-na')].filter((s) => s.getAttribute('role') !== 'img'
              || s.getAttribute('aria-label') !== 'not applicable' || s.textContent !== '\u2014').length};
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
    empty = [e for t in got for e in t["empty"]]
    assert not empty, f"{name} at {width} px: card fields with no value (row | field): {empty}"
    assert not sum(t["unnamed"] for t in got), f"{name}: a blank cell's dash is not named"
