"""At 1280 x 900 no explorer overlaps "on this page" on ANY frame (issue 39, item 5).

reading/test_wide_layout.py checks the page once it has settled, with each explorer scrolled to
the middle of the window. A cold read saw more: for a moment after scrolling an explorer was
drawn over the column before it folded away (the fold followed an IntersectionObserver callback,
which runs after the frame is painted, and then faded out over 150 ms). These checks sample every
animation frame inside the page, from its first frame (an init script), and fail on any frame on
which the column's list is visible (not hidden, opacity not 0) while an explorer's box meets it:

- while the page is scrolled through from top to bottom and back, a window's tenth a frame
  (explorers wake, and are replaced by their live drawing, on the way);
- while the page is opened on each explorer in turn (a jump, as a link would take the reader),
  until the explorer has woken and drawn.

Frames are counted in the page (requestAnimationFrame); every wait is on a condition.
"""

from __future__ import annotations

import pytest

from ..conftest import EXPLORER_CHAPTERS

pytestmark = pytest.mark.browser

# Installed before the page's own scripts: each frame, before the page's own frame callbacks,
# record whether the column's visible list meets an explorer's box. The state read there is
# what the previous frame painted (plus the tasks run since, which run before this frame
# paints: a change they make is painted no earlier than this frame).
SAMPLER_JS = """
(() => {
  const seen = (window.__tocFrames = { frames: 0, overlaps: [] });
  const round = (v) => Math.round(v);
  function sample() {
    seen.frames++;
    const toc = document.getElementById('book-toc');
    if (toc && innerWidth >= 1200 &&
        toc.checkVisibility({ visibilityProperty: true, opacityProperty: true })) {
      const list = (toc.querySelector('nav') || toc).getBoundingClientRect();
      const box = toc.getBoundingClientRect();  // the list scrolls inside the column
      const b = { left: Math.max(list.left, box.left), right: Math.min(list.right, box.right),
                  top: Math.max(list.top, box.top), bottom: Math.min(list.bottom, box.bottom, innerHeight) };
      document.querySelectorAll('.attn-explorer').forEach((ex, k) => {
        if (!ex.checkVisibility()) return;
        const a = ex.getBoundingClientRect();
        if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom &&
            seen.overlaps.length < 20) {
          seen.overlaps.push(`frame ${seen.frames} at scrollY ${round(scrollY)}: explorer ${k} ` +
            `(${ex.dataset.explorer}, ready=${ex.dataset.ready || 'no'}) ` +
            `${round(a.left)}..${round(a.right)} x ${round(a.top)}..${round(a.bottom)} over the list ` +
            `${round(b.left)}..${round(b.right)} x ${round(b.top)}..${round(b.bottom)}, ` +
            `opacity ${getComputedStyle(toc).opacity}`);
        }
      });
    }
    requestAnimationFrame(sample);
  }
  requestAnimationFrame(sample);
})();
"""

# Scroll the page from the top to the bottom and back up, a tenth of the window each frame.
SCROLL_THROUGH_JS = """
async () => {
  const frame = () => new Promise((r) => requestAnimationFrame(r));
  const step = Math.round(innerHeight / 10);
  window.scrollTo({ top: 0, behavior: 'instant' });
  await frame();
  let frames = 0;
  while (scrollY + innerHeight < document.documentElement.scrollHeight - 1) {
    window.scrollBy({ top: step, behavior: 'instant' });
    await frame();
    frames++;
  }
  while (scrollY > 0) {
    window.scrollBy({ top: -step, behavior: 'instant' });
    await frame();
    frames++;
  }
  return frames;
}
"""

VIEWS = "document.querySelectorAll('script[type=\"application/vnd.jupyter.widget-view+json\"]').length"
READY = "document.querySelectorAll('.attn-explorer[data-ready=\"true\"]').length"


def _open(browser, base_url, name, scheme="light"):
    ctx = browser.new_context(
        viewport={"width": 1280, "height": 900}, color_scheme=scheme, service_workers="block"
    )
    ctx.add_init_script(SAMPLER_JS)
    page = ctx.new_page()
    page.goto(f"{base_url}/{name}", wait_until="load")
    return ctx, page


def _settle(page, frames: int = 12) -> None:
    """Wait (on the page's own frame count) for ``frames`` more frames: a fold's transition and
    any callback that follows a change have run by then."""
    start = page.evaluate("window.__tocFrames.frames")
    page.wait_for_function(f"window.__tocFrames.frames >= {start + frames}", timeout=30_000)


@pytest.mark.parametrize("name", EXPLORER_CHAPTERS)
def test_no_frame_shows_an_explorer_over_on_this_page_while_scrolling(browser, visits, name):
    visits(name)  # the page loads (its own checks report a page that does not)
    ctx, page = _open(browser, visits.base_url, name)
    try:
        frames = page.evaluate(SCROLL_THROUGH_JS)
        # explorers woken on the way have drawn: their live boxes are sampled too
        page.wait_for_function(f"{READY} >= {VIEWS}", timeout=60_000)
        page.evaluate(SCROLL_THROUGH_JS)
        _settle(page)
        seen = page.evaluate("window.__tocFrames")
    finally:
        ctx.close()
    assert frames > 20, f"{name}: only {frames} frames scrolled"
    assert not seen["overlaps"], f"{name}: " + "; ".join(seen["overlaps"])


@pytest.mark.parametrize("name", EXPLORER_CHAPTERS)
def test_no_frame_shows_an_explorer_over_on_this_page_while_it_boots(browser, visits, name):
    visits(name)
    ctx, page = _open(browser, visits.base_url, name)
    try:
        n = page.evaluate("document.querySelectorAll('.attn-explorer').length")
        assert n, f"{name}: no explorer"
        for k in range(n):
            # the explorer's top just below the header, as a link to it would put it: it wakes
            # where it stands, in the band of the window the column's list stands in
            page.evaluate(
                "(k) => { const ex = document.querySelectorAll('.attn-explorer')[k];"
                " window.scrollTo({top: scrollY + ex.getBoundingClientRect().top - 80,"
                " behavior: 'instant'}); }",
                k,
            )
            page.wait_for_function(
                f"(k) => document.querySelectorAll('.attn-explorer').length === {n}"
                " && document.querySelectorAll('.attn-explorer')[k].dataset.ready === 'true'",
                arg=k,
                timeout=60_000,
            )
            _settle(page)
        seen = page.evaluate("window.__tocFrames")
    finally:
        ctx.close()
    assert not seen["overlaps"], f"{name}: " + "; ".join(seen["overlaps"])
