"""The page shell around the chapters (web/theme/attnbook): keyboard focus is visible on every
header button and on the chapter list's search field.

Each test drives the built book (`make book`) in a fresh browser context.
"""

from __future__ import annotations

import io
import re

import numpy as np
import pytest

from ..conftest import chapter_page, fresh_page

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def _rgb(css: str) -> tuple[int, int, int]:
    return tuple(int(float(t)) for t in re.findall(r"[\d.]+", css)[:3])


def _luminance(rgb) -> float:
    c = np.asarray(rgb, dtype=float) / 255
    c = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return float(c @ [0.2126, 0.7152, 0.0722])


def _contrast(a, b) -> float:
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


# ----------------------------------------------------------------------------- focus rings

# The controls of the page shell that a keyboard user reaches: the header's chapter-list
# toggle, title, Run and Download menus and colour-mode switch (and, below 1200 px, the "on
# this page" toggle, below 992 px the search link), the chapter list's search field on a
# desktop.
TARGETS = "#book-header .book-button, #book-header .book-title, #book-search-field"

FOCUSED_JS = """
(targets) => {
  const e = document.activeElement;
  if (!e || !e.matches(targets)) return null;
  const r = e.getBoundingClientRect();
  let bg = null;
  for (let p = e; p && !bg; p = p.parentElement) {
    const c = getComputedStyle(p).backgroundColor;
    if (!/rgba\\(.*, 0\\)$/.test(c) && c !== 'transparent') bg = c;
  }
  const cs = getComputedStyle(e);
  return {name: (e.getAttribute('aria-label') || e.title || e.textContent).trim().replace(/\\s+/g, ' '),
          probe: e.dataset.probe ?? null,
          box: [r.x, r.y, r.width, r.height], visible: e.matches(':focus-visible'),
          outline: [cs.outlineStyle, parseFloat(cs.outlineWidth), cs.outlineColor, parseFloat(cs.outlineOffset)],
          background: bg || getComputedStyle(document.body).backgroundColor};
}
"""


def _ring_pixels(page, box, pad: int = 8) -> tuple[np.ndarray, np.ndarray]:
    """The screen around a focused control, focused and then blurred (same scroll position)."""
    from PIL import Image

    x, y, w, h = box
    clip = {
        "x": max(0, x - pad),
        "y": max(0, y - pad),
        "width": w + 2 * pad,
        "height": h + 2 * pad,
    }
    focused = np.asarray(
        Image.open(io.BytesIO(page.screenshot(clip=clip, animations="disabled"))).convert("RGB"),
        dtype=int,
    )
    page.evaluate(
        "() => { window.__refocus = document.activeElement; document.activeElement.blur(); }"
    )
    blurred = np.asarray(
        Image.open(io.BytesIO(page.screenshot(clip=clip, animations="disabled"))).convert("RGB"),
        dtype=int,
    )
    page.evaluate("() => window.__refocus.focus({focusVisible: true})")
    return focused, blurred


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280", "390"])
def test_every_header_button_shows_a_focus_ring(browser, base_url, margin, viewport, scheme):
    """Tab through the page: each header/sidebar button, once focused, is outlined by a ring
    at least 2 px wide with >= 3:1 contrast against the background it sits on (WCAG 1.4.11),
    and that ring is painted: around the control, the screen changes on focus, in a ring of
    pixels of at least 3:1 against the unfocused screen."""
    name = chapter_page("02_attention_pooling")
    mobile = viewport is PHONE
    with fresh_page(
        browser,
        f"{base_url}/{name}",
        viewport=viewport,
        color_scheme=scheme,
        is_mobile=mobile,
        has_touch=mobile,
    ) as page:
        # each visible control is tagged with its index: its text may change under the test
        # (the colour-mode switch names the mode it is in)
        expected = page.evaluate(f"""() => [...document.querySelectorAll({TARGETS!r})]
            .filter(e => e.checkVisibility({{visibilityProperty: true}})).map((e, i) => {{ e.dataset.probe = i;
              return (e.getAttribute('aria-label') || e.title || e.textContent).trim().replace(/\\s+/g, ' '); }})""")
        assert len(expected) >= 4, (
            f"{name}: only {expected} visible header buttons at {viewport['width']} px"
        )
        seen, problems = set(), []
        for _ in range(80):
            page.keyboard.press("Tab")
            got = page.evaluate(FOCUSED_JS, TARGETS)
            if got is None or got["probe"] is None or got["probe"] in seen:
                continue
            seen.add(got["probe"])
            what = f"{name} at {viewport['width']} px, {scheme}: {got['name']!r}"
            style, width, colour, _ = got["outline"]
            if not got["visible"]:
                problems.append(f"{what}: not :focus-visible after Tab")
            if style in ("none", "hidden") or width < 2:
                problems.append(f"{what}: outline {got['outline']}")
                continue
            ratio = _contrast(_rgb(colour), _rgb(got["background"]))
            margin(f"{what}: focus ring width px", width, 2)
            margin(f"{what}: focus ring contrast", ratio, 3)
            if ratio < 3:
                problems.append(f"{what}: ring {colour} on {got['background']} is {ratio:.2f}:1")
            focused, blurred = _ring_pixels(page, got["box"])
            changed = np.abs(focused - blurred).sum(axis=2) > 0
            strong = [
                _contrast(tuple(f), tuple(b)) >= 3
                for f, b in zip(focused[changed], blurred[changed])
            ]
            x, y, w, h = got["box"]
            margin(f"{what}: ring pixels painted at >= 3:1", sum(strong), 2 * (w + h))
            if sum(strong) < 2 * (w + h):  # at least a 1-px ring all round
                problems.append(
                    f"{what}: only {sum(strong)} ring pixels painted at >= 3:1 (need {2 * (w + h):.0f})"
                )
            if len(seen) == len(expected):
                break
        missing = [e for i, e in enumerate(expected) if str(i) not in seen]
        assert not missing, f"{name}: never reached by Tab: {missing}"
        assert not problems, "\n".join(problems)
