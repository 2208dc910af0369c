"""The picture a page shows before its explorers wake (web/prerender-explorers.mjs draws it at
build time) is in the reader's colour mode from the first paint, and chapter 6's cost table is a
table at a desktop's width.

A cold read (stop 44) saw, in dark mode, each heatmap's prerendered picture in the light palette
until about 0.1 s after its explorer scrolled into view (a flash); and chapter 6's cost table
stacked as four cards at 1280 px (wider than its column), so that comparing values across rows
meant reading four cards.

The explorers' module (lib/explorer.js) is refused here, so no picture is replaced by a live
explorer: what is measured is the picture as the page paints it.
"""

from __future__ import annotations

import pytest

from ..conftest import chapter_page, fresh_page

pytestmark = pytest.mark.browser

# per static heatmap: the class of each cells image shown, and per colour bar: its first stop's
# colour as drawn against its two declared colours
STATIC_JS = """() => {
  const shown = (e) => getComputedStyle(e).display !== 'none';
  const maps = [...document.querySelectorAll('.attn-static svg.attn-heatmap')].map((svg) =>
    [...svg.querySelectorAll('image')].filter(shown).map((i) => i.getAttribute('class')));
  const bars = [...document.querySelectorAll('.attn-static svg.attn-colorbar-svg stop')].map((s) => {
    const cs = getComputedStyle(s), probe = document.createElement('div');
    const norm = (c) => { probe.style.color = c; document.body.appendChild(probe);
      const v = getComputedStyle(probe).color; probe.remove(); return v; };
    return {drawn: norm(cs.stopColor), light: norm(cs.getPropertyValue('--attn-c').trim()),
            dark: norm(cs.getPropertyValue('--attn-cd').trim())};
  });
  const live = document.querySelectorAll('.attn-host').length;
  return {maps, bars, live, theme: document.documentElement.dataset.theme};
}"""


@pytest.mark.parametrize("scheme", ["dark", "light"])
@pytest.mark.parametrize("stem", [1, 5, 6])
def test_a_static_picture_is_in_the_readers_mode_at_first_paint(browser, visits, stem, scheme):
    name = chapter_page(stem)
    visits(name)  # the book is built and served
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme=scheme)
    try:
        page = ctx.new_page()
        page.route("**/lib/explorer.js", lambda route: route.abort())
        page.goto(f"{visits.base_url}/{name}", wait_until="load")
        got = page.evaluate(STATIC_JS)
    finally:
        ctx.close()
    assert got["theme"] == scheme, got["theme"]
    assert got["live"] == 0, f"{name}: an explorer woke though its module was refused"
    assert got["maps"], f"{name}: no static heatmap"
    want = "attn-cells-dark" if scheme == "dark" else "attn-cells attn-cells-light"
    for k, shown in enumerate(got["maps"]):
        assert shown == [want], f"{name} ({scheme}) heatmap #{k}: shows {shown}, not {want!r}"
    assert got["bars"], f"{name}: no colour bar"
    for s in got["bars"]:
        assert s["light"] != s["dark"], s
        assert s["drawn"] == s[scheme], f"{name} ({scheme}): a colour-bar stop drawn {s}"


def test_chapter_6s_cost_table_is_a_table_on_a_desktop_and_cards_on_a_phone(browser, visits):
    name = chapter_page(6)
    visits(name)
    probe = """() => { const t = document.querySelector('table.attn-costs');
      if (!t) return null;
      const r = t.getBoundingClientRect(), col = t.parentElement.getBoundingClientRect();
      return {stacked: t.classList.contains('attn-stacked'), display: getComputedStyle(t.querySelector('tr')).display,
              cards: t.classList.contains('attn-cards'), right: r.right, colRight: col.right,
              scroll: t.scrollWidth, client: t.clientWidth}; }"""
    for width, table in ((1280, True), (390, False)):
        with fresh_page(browser, f"{visits.base_url}/{name}",
                        viewport={"width": width, "height": 900}) as page:  # fmt: skip
            got = page.evaluate(probe)
        assert got is not None, f"{name}: no cost table (table.attn-costs)"
        assert got["cards"], got  # web/table-cards.mjs names its cells: cards on a phone
        if table:
            assert not got["stacked"] and got["display"] == "table-row", (
                f"at {width} px the cost table is stacked as cards: {got}"
            )
            assert got["scroll"] <= got["client"] + 1, f"at {width} px it scrolls: {got}"
        else:
            assert got["display"] == "block", f"at {width} px the cost table is not cards: {got}"
