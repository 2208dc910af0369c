"""The theme around the chapters (pydata-sphinx-theme + sphinx-book-theme, adjusted in
web/book.css): keyboard focus is visible on every header and sidebar button, a desktop page has
one search box, and printing gives the text and pictures without the controls.

Each test drives the built book (`make book`) in a fresh browser context.
"""

from __future__ import annotations

import io
import re

import numpy as np
import pytest

from .conftest import CHAPTERS, PAGES, SCREENSHOTS, fresh_page, show_back_to_top

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
TABLET = {"width": 1024, "height": 800}  # "Back to top" shows below 1200 px (sphinx-book-theme)


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

# The buttons of the theme's chrome that a keyboard user reaches: the article header's menu,
# launch, download, full-screen and colour-mode buttons (and, on a phone, its search and
# "contents" buttons), the sidebar's search field on a desktop.
TARGETS = (
    ".bd-header-article button, .bd-sidebar-primary .search-button__button, "
    ".bd-header .search-button__button"
)

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
    name = CHAPTERS[1]
    mobile = viewport is PHONE
    with fresh_page(
        browser,
        f"{base_url}/{name}",
        viewport=viewport,
        color_scheme=scheme,
        is_mobile=mobile,
        has_touch=mobile,
    ) as page:
        # each visible button is tagged with its index: its text may change under the test
        # (the theme's script adds "Ctrl+K" to the search button once it runs)
        expected = page.evaluate(f"""() => [...document.querySelectorAll({TARGETS!r})]
            .filter(e => e.checkVisibility()).map((e, i) => {{ e.dataset.probe = i;
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


# ----------------------------------------------------------------------------- search

VISIBLE_SEARCH_JS = """
() => [...document.querySelectorAll('.search-button__button, .bd-search, form[role=search], input[type=search]')]
  .filter(e => e.checkVisibility() && e.getBoundingClientRect().width > 0)
  .map(e => ({cls: String(e.className), text: e.textContent.trim().replace(/\\s+/g, ' '),
              top: Math.round(e.getBoundingClientRect().top)}))
"""


@pytest.mark.parametrize("name", PAGES[:2])
def test_one_search_box(browser, base_url, name):
    """A desktop page shows one search field (the sidebar's), a phone one search button;
    Ctrl+K still opens the search dialog."""
    with fresh_page(browser, f"{base_url}/{name}", viewport=DESKTOP) as page:
        boxes = page.evaluate(VISIBLE_SEARCH_JS)
        assert len(boxes) == 1, f"{name} at 1280 px shows {len(boxes)} search boxes: {boxes}"
        assert "Search" in boxes[0]["text"], boxes
        page.keyboard.press("Control+k")
        page.wait_for_function(
            "document.querySelector('#pst-search-dialog')?.open === true", timeout=5000
        )
    with fresh_page(
        browser, f"{base_url}/{name}", viewport=PHONE, is_mobile=True, has_touch=True
    ) as page:
        boxes = page.evaluate(VISIBLE_SEARCH_JS)
        assert len(boxes) == 1, f"{name} at 390 px shows {len(boxes)} search controls: {boxes}"


# ----------------------------------------------------------------------------- print

PRINT_JS = """
() => {
  const shown = (e) => e.checkVisibility() && e.getBoundingClientRect().width > 0;
  const controls = [...document.querySelectorAll('button, input, select, textarea, [role=button], a.btn, #pst-back-to-top')]
    .filter(e => !e.closest('.attn-explorer') && shown(e))
    .map(e => `${e.tagName.toLowerCase()}.${String(e.className).split(' ')[0]} "${(e.getAttribute('aria-label') || e.textContent).trim().slice(0, 30)}"`);
  const chrome = ['#pst-header', '.bd-header-article', '.bd-sidebar-primary', '.bd-sidebar-secondary', '#pst-back-to-top',
                  '.prev-next-area', '.bd-footer']
    .filter(s => [...document.querySelectorAll(s)].some(shown));
  const outputs = [...document.querySelectorAll('.bd-article .cell_output')]
    .filter(o => o.querySelector('img, .attn-explorer'))
    .map(o => getComputedStyle(o).breakInside);
  const figures = [...document.querySelectorAll('.bd-article picture.attn-figure')].filter(shown)
    .map(p => p.classList.contains('only-dark') ? 'dark' : 'light');
  return {controls, chrome, outputs, figures, text: document.querySelector('.bd-article').innerText.length};
}
"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("name", CHAPTERS)
def test_print_shows_the_page_without_its_controls(browser, base_url, name, scheme):
    """Print media: no theme control is shown (menu, launch, download, mode, search, copy,
    toggles, "Back to top", which is fixed and would print over the text), the sidebars and
    header are gone, every output holding a figure or an explorer is kept on one page
    (break-inside: avoid), and figures print in their light variant even from a dark page.
    (The controls inside an explorer are attnlib's explorer.css's business.)"""
    with fresh_page(browser, f"{base_url}/{name}", viewport=TABLET, color_scheme=scheme) as page:
        # scroll down and a little back up, away from the explorers: the theme then shows
        # "Back to top"
        assert show_back_to_top(page) is not None, (
            f"{name}: 'Back to top' did not appear on screen (the test would not see it hidden)"
        )
        page.emulate_media(media="print")
        got = page.evaluate(PRINT_JS)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(
            path=str(
                SCREENSHOTS
                / f"{name.replace('/', '__').removesuffix('.html')}--print-{scheme}.png"
            )
        )
    assert got["text"] > 1000, f"{name}: the article has no text in print"
    assert not got["controls"], f"{name} ({scheme}) prints controls: {got['controls'][:8]}"
    assert not got["chrome"], f"{name} ({scheme}) prints the theme's chrome: {got['chrome']}"
    assert got["outputs"] and all(b == "avoid" for b in got["outputs"]), (
        f"{name}: outputs with figures or explorers may split across pages: {got['outputs']}"
    )
    assert got["figures"] and set(got["figures"]) == {"light"}, (
        f"{name} ({scheme}): printed figures are {got['figures']}, not the light variants"
    )
