"""The layout at 1280 x 900 and on a phone (issue 39, item 5).

- At 1280 x 900, with each explorer scrolled to the middle of the window, "on this page"
  (#book-toc) is either folded away (not visible) or clear of every explorer: no explorer is
  drawn over it, and it is drawn over none.
- "On this page" marks where the reader is: after a jump to a section, that section's link
  (and only it) carries aria-current; in the page's opening, before any section, none does.
- Every picture of every explorer (the manifest's list: heatmaps and plots) grows with the
  screen: at 1280 px its data area is at least twice its drawn one (its size in a fixed panel),
  unless it shares a row of panels that it fills; a drag plot's data area (the handle's drag
  area) is at least twice the 190 x 160 px a fixed 330 px panel gave; heatmap cells stay
  square-ish (at most 1.5:1) and every text it draws is at least 10.5 px.
- (On a phone an explorer's sticky controls take at most 20 % of the screen: checked on the
  phone's load that serves every phone check of a page, reading/test_on_a_phone.py.)

Every wait is on a condition (Playwright's wait_for_function), never a fixed sleep.

The checks at 1280 x 900 only scroll and read: they share the session's load of the page
(``visits``: every page at 1280 x 900, light, its explorers drawn), each scrolling to what it
measures itself.
"""

from __future__ import annotations

import pytest

from scoringbook import manifest

from ..conftest import CHAPTERS, EXPLORER_CHAPTERS, LANDING, page_of

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


# Every picture of every explorer at 1280 x 900, as laid out: its data area (a heatmap's cells, a
# plot's frame) on screen and as drawn (the element's own width and height, in the picture's
# units: its size in a fixed panel, before issue 39), whether a reader drags it, how full its row
# of panels is, its heatmap cells, and the smallest text it draws on screen.
PICTURES_JS = """(name) => {
  const ex = document.querySelector(`.attn-explorer[data-explorer="${name}"]`);
  if (!ex) return null;
  const box = ex.querySelector('.attn-panels'), cs = getComputedStyle(box);
  const room = box.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
  const gap = parseFloat(cs.columnGap) || 0;
  const panels = [...box.children].filter((p) => p.classList.contains('attn-panel'))
    .map((p) => p.getBoundingClientRect());
  return [...ex.querySelectorAll('svg.attn-heatmap, svg.attn-lines')].map((svg) => {
    const heat = svg.classList.contains('attn-heatmap');
    const data = heat ? svg.querySelector('image.attn-cells') : svg.querySelector('rect.attn-frame');
    const b = data.getBoundingClientRect(), panel = svg.closest('.attn-panel').getBoundingClientRect();
    const row = panels.filter((r) => Math.abs(r.top - panel.top) < 2);
    const used = row.reduce((a, r) => a + r.width, 0) + gap * (row.length - 1);
    const texts = [...svg.querySelectorAll('text')].filter((t) => t.textContent.trim())
      .map((t) => { const m = t.getScreenCTM();
        return parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b); });
    return {
      panel: svg.dataset.panel, heat,
      drag: [...svg.querySelectorAll('rect.attn-drag-area')].map((r) => {
        const a = r.getBoundingClientRect(); return [a.width, a.height]; }),
      shown: [b.width, b.height],
      drawn: [+data.getAttribute('width'), +data.getAttribute('height')],
      cell: heat ? [b.width / +svg.dataset.cols, b.height / +svg.dataset.rows] : null,
      fill: used / room, text: texts.length ? Math.min(...texts) : null,
    };
  });
}"""

# A picture grows "the same way" as the drag plots: its data area at 1280 px is at least twice
# its drawn one, or it shares a row of panels that it fills with the others (95 % of the width).
GROWTH, FULL_ROW = 2.0, 0.95
# Heatmap cells stay square-ish (rows named by words grow to 14 px: not quite square), and the
# text of a grown picture stays readable.
CELL_ASPECT, TEXT_PX = 1.5, 10.5


@pytest.mark.parametrize("explorer", [e.name for e in manifest.explorers()])
def test_every_explorer_picture_grows_with_the_screen(visits, explorer):
    """Every explorer in the manifest, every picture it draws (heatmaps and plots): on a
    1280 px screen it grows with the room it has; a drag plot's data area is at least twice the
    190 x 160 px a fixed 330 px panel gave; cells stay square-ish and text readable."""
    name = page_of(explorer)
    pics = visits(name).page.evaluate(PICTURES_JS, explorer)
    assert pics, f"{name}: explorer {explorer!r} not on the page, or it draws no picture"
    problems = []
    for p in pics:
        where = f"{name}, {explorer} / {p['panel']}"
        (w, h), (w0, h0) = p["shown"], p["drawn"]
        grown = (w * h) / (w0 * h0)
        if grown < GROWTH and p["fill"] < FULL_ROW:
            problems.append(
                f"{where}: data area {w:.0f} x {h:.0f} px at 1280 px, {grown:.2f} x its drawn "
                f"{w0:.0f} x {h0:.0f} (< {GROWTH}), its row {p['fill']:.0%} full"
            )
        for dw, dh in p["drag"]:
            if dw * dh < 2 * OLD_DRAG_AREA:
                problems.append(
                    f"{where}: a drag plot's data area is {dw:.0f} x {dh:.0f} px (< 2 x 190 x 160)"
                )
        if p["cell"]:
            cw, ch = p["cell"]
            if max(cw, ch) / min(cw, ch) > CELL_ASPECT:
                problems.append(f"{where}: cells {cw:.1f} x {ch:.1f} px (not square-ish)")
        if p["text"] is not None and p["text"] < TEXT_PX:
            problems.append(f"{where}: text {p['text']:.1f} px (< {TEXT_PX})")
    assert not problems, "\n".join(problems)
