"""Nothing in the reading path hides content sideways on a phone (issue 39, item 1).

At 390 x 844 (touch, mobile viewport), light and dark, every block of the article (display
equations, tables, code outputs, explorers) shows all it holds across: no element whose
content is wider than its box (``scrollWidth > clientWidth``) while its box scrolls or clips
(``overflow-x`` other than ``visible``). Code (a cell's source, a listing in the text) is the
one exception: it may scroll, and then carries the scroll cue (a shadow at an edge with more to
show), which is checked too. Form fields (their own typed text) and text for screen readers
only (a 1 px box) are not blocks a reader sees. A block is measured once every explorer has
drawn, so an explorer's own rows count.

``sideways_blocks`` returns one line per block that hides content, naming the block, its box
width and its content width.
"""

from __future__ import annotations

import pytest

from .._reader import _shot
from ..conftest import PAGES, fresh_page, wake_explorers

pytestmark = pytest.mark.browser

# Code: a cell's source or a listing in the text (not an output, which myst-nb also highlights)
# may scroll, with a cue, per the issue.
CODE_SOURCE = '.cell_input pre, div[class*="highlight-"]:not(.output) pre'

SIDEWAYS_JS = """
(codeSource) => {
  const out = [], cues = [];
  const article = document.querySelector('.book-article');
  for (const e of article.querySelectorAll('*')) {
    if (e.closest('svg') && e.tagName.toLowerCase() !== 'svg') continue;
    if (!e.checkVisibility({visibilityProperty: true})) continue;
    // form fields scroll their own text as it is typed; text for screen readers only is 1 px
    if (e.matches('input, select, textarea') || e.clientWidth <= 1) continue;
    const ox = getComputedStyle(e).overflowX;
    if (ox === 'visible') continue;
    const over = e.scrollWidth - e.clientWidth;
    if (over <= 1) continue;
    const tag = e.tagName.toLowerCase();
    const cls = String(e.className.baseVal ?? e.className).split(' ').filter(Boolean).slice(0, 2).join('.');
    const where = e.closest('section[id]');
    const what = `${tag}${cls ? '.' + cls : ''} in #${where ? where.id : '?'}: ` +
      `${e.clientWidth} px box, ${e.scrollWidth} px content (${Array.from((e.textContent || '').trim()).slice(0, 40).join('')})`;
    if (e.matches(codeSource)) {
      // a code cell's source may scroll, with a visible cue: a shadow painted at its edge
      const bg = getComputedStyle(e).backgroundImage + getComputedStyle(e.parentElement).backgroundImage;
      if (!/gradient/.test(bg)) cues.push(what);
      continue;
    }
    out.push(what);
  }
  return {hidden: out, uncued: cues};
}
"""


def sideways_blocks(page) -> dict:
    """{"hidden": [...], "uncued": [...]}: the article's blocks that hide content sideways,
    and the code sources that scroll without a cue, on ``page`` as it is laid out now."""
    return page.evaluate(SIDEWAYS_JS, CODE_SOURCE)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("name", PAGES)
def test_nothing_in_the_reading_path_hides_content_sideways(browser, base_url, name, scheme):
    with fresh_page(
        browser,
        f"{base_url}/{name}",
        viewport={"width": 390, "height": 844},
        has_touch=True,
        is_mobile=True,
        color_scheme=scheme,
    ) as page:
        wake_explorers(page)
        got = sideways_blocks(page)
        if scheme == "dark":
            _shot(page, name, "phone-dark")
        assert not got["hidden"], (
            f"{name} at 390 px ({scheme}): {len(got['hidden'])} blocks hide content "
            f"sideways: {got['hidden']}"
        )
        assert not got["uncued"], f"{name}: code that scrolls without a cue: {got['uncued']}"
