"""At 1280 x 900 no explorer overlaps "on this page" on ANY frame (issue 39, item 5).

reading/test_wide_layout.py checks the page once it has settled, with each explorer scrolled to
the middle of the window. A cold read saw more: for a moment after scrolling an explorer was
drawn over the column before it folded away (the fold followed an IntersectionObserver callback,
which runs after the frame is painted, and then faded out over 150 ms). These checks sample every
animation frame inside the page, from its first frame (an init script), and fail on any frame on
which the column's list is visible (not hidden, opacity not 0) while an explorer's box meets it
(read after the frame's layout, before it is painted):

- while the page is scrolled through from top to bottom and back, twice, by mouse wheel
  (explorers wake, and are replaced by their live drawing, on the way);
- while the page is opened on each explorer in turn (a jump, as a link would take the reader),
  until the explorer has woken and drawn.

Frames are counted in the page (requestAnimationFrame); every wait is on a condition.
"""

from __future__ import annotations

import pytest

from ..conftest import EXPLORER_CHAPTERS

pytestmark = pytest.mark.browser

# Installed before the page's own scripts. Every frame, after its style and layout and before
# it is painted, record whether the column's visible list meets an explorer's box: a
# ResizeObserver's callback runs at that point of a frame, and a probe (a hidden 1 px box whose
# width changes in each frame's requestAnimationFrame) makes it run on every frame. (Read in
# the frame's requestAnimationFrame callback instead, the state would be the one before the
# frame's style and layout: on a page's first frame, before any was painted, a scroll-driven
# animation has no time yet there.)
SAMPLER_JS = """
(() => {
  const seen = (window.__tocFrames = { frames: 0, sampled: 0, overlaps: [] });
  const round = (v) => Math.round(v);
  const probe = document.createElement('div');
  probe.style.cssText = 'position:fixed;left:0;top:0;height:1px;width:1px;visibility:hidden;pointer-events:none';
  function sample() {
    seen.sampled++;
    const toc = document.getElementById('book-toc');
    if (!toc || innerWidth < 1200 ||
        !toc.checkVisibility({ visibilityProperty: true, opacityProperty: true })) return;
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
  new ResizeObserver(sample).observe(probe);
  function tick() {
    seen.frames++;
    if (!probe.isConnected && document.body) document.body.appendChild(probe);
    probe.style.width = (seen.frames % 2 ? 2 : 1) + 'px';
    requestAnimationFrame(tick);
  }
  requestAnimationFrame(tick);
})();
"""


# The reader's wheel: the page scrolled from the top to the bottom and back up by wheel turns
# of a third of the window (Chromium scrolls each smoothly, over several frames, as a mouse
# wheel does), each turn given once the last one's scroll has begun.
def _scroll_through(page) -> int:
    page.mouse.move(640, 450)
    turns = 0
    for direction in (1, -1):
        for _ in range(400):
            at = page.evaluate("[scrollY, document.documentElement.scrollHeight - innerHeight]")
            if (direction > 0 and at[0] >= at[1] - 1) or (direction < 0 and at[0] <= 0):
                break
            page.mouse.wheel(0, direction * 300)
            turns += 1
            page.wait_for_function(f"scrollY !== {at[0]}", timeout=10_000)
    return turns


VIEWS = (
    "document.querySelectorAll('script[type=\"application/vnd.jupyter.widget-view+json\"]').length"
)
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
        page.evaluate("document.fonts.ready")
        turns = _scroll_through(page)
        # explorers woken on the way have drawn: their live boxes are sampled too
        page.wait_for_function(f"{READY} >= {VIEWS}", timeout=60_000)
        turns += _scroll_through(page)
        _settle(page, 30)
        seen = page.evaluate("window.__tocFrames")
    finally:
        ctx.close()
    assert turns > 10, f"{name}: only {turns} wheel turns"
    # the probe's callback ran on (nearly) every frame: the samples are the frames
    assert seen["sampled"] >= 0.9 * seen["frames"], (
        f"{name}: {seen['sampled']} samples, {seen['frames']} frames"
    )
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
