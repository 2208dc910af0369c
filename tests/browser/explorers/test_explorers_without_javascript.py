"""With JavaScript off, every explorer shows its starting picture (drawn at build time by
web/prerender-explorers.mjs), and that picture is the one the live explorer draws, as tall as
it. Screenshots of every page with JavaScript off go to _build/screenshots/."""

from __future__ import annotations

import pytest

from .._reader import _load
from ..conftest import EXPLORER_CHAPTERS, EXPLORERS_JS, PAGES

pytestmark = pytest.mark.browser

STATIC_JS = EXPLORERS_JS.replace(".attn-explorer'", ".attn-static .attn-explorer'")
assert STATIC_JS.count(".attn-static .attn-explorer'") == 1


@pytest.mark.parametrize("name", PAGES)
def test_explorers_show_their_picture_without_javascript(browser, visits, margin, name):
    v = visits(name)
    views = v.info.get("views", 0)
    if name in EXPLORER_CHAPTERS:
        assert views >= 1, f"{name}: no explorer"
    ctx, page, _ = _load(browser, visits.base_url, name, shot="nojs", java_script_enabled=False)
    try:
        static = page.evaluate(STATIC_JS)
    finally:
        ctx.close()
    assert len(static) == views, (
        f"{name}: {views} explorers, {len(static)} static pictures without JavaScript"
    )
    live = v.start  # the live explorers as the shared page came up (no test has moved them)
    for k, (s, lv) in enumerate(zip(static, live)):
        where = f"{name} explorer #{k} ({s['name']})"
        margin(f"{where}: static picture px tall", s["box"], 100)
        assert s["box"] > 100, f"{where}: the static picture is {s['box']} px tall"
        assert s["cells"] or s["paths"], f"{where}: nothing drawn in the static picture"
        assert all(c and c.startswith("data:image/png;base64,") for c in s["cells"]), (
            f"{where}: a heatmap without cells"
        )
        # the picture is as tall as the explorer that replaces it: nothing below moves when
        # the page's script swaps them (layout shift)
        assert abs(s["box"] - lv["box"]) <= 1, (
            f"{where}: the static picture is {s['box']:.0f} px tall, the live explorer "
            f"{lv['box']:.0f} px"
        )
        assert s["params"] == lv["params"], (
            f"{where}: static at {s['params']}, live starts at {lv['params']}"
        )
        assert s["cells"] == lv["cells"] and s["paths"] == lv["paths"], (
            f"{where}: the static picture differs from what the live explorer draws"
        )


# Explorers on a phone in dark mode: test_explorers_match_attnlib.test_explorers_redraw_and_match_
# attnlib_on_a_phone_in_dark_mode walks every control there (and saves the page's __phone-dark.png
# screenshot).


# With JavaScript off the static picture's controls are a picture too: disabled (so not
# focusable), marked aria-disabled, dimmed; and the notice line says the explorer is a picture
# instead of inviting the reader to pick a preset that does nothing. Light and dark OS.
NOJS_CONTROLS_JS = """() => [...document.querySelectorAll('.attn-static .attn-explorer')].map((x) => {
  const controls = [...x.querySelectorAll('button, input, select')].map((c) => {
    c.focus();
    return {tag: c.tagName, disabled: c.disabled, aria: c.getAttribute('aria-disabled'),
            focused: document.activeElement === c,
            opacity: parseFloat(getComputedStyle(c).opacity) *
                     parseFloat(getComputedStyle(c.closest('label') || c).opacity)};
  });
  const n = x.querySelector('.attn-notice');
  return {name: x.getAttribute('data-name') || '', controls,
          notice: n ? n.innerText.trim() : null};
})"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("name", EXPLORER_CHAPTERS)
def test_controls_without_javascript_say_they_are_a_picture(browser, base_url, name, scheme):
    ctx, page, _ = _load(browser, base_url, name, java_script_enabled=False, color_scheme=scheme)
    try:
        found = page.evaluate(NOJS_CONTROLS_JS)
    finally:
        ctx.close()
    assert found, f"{name}: no static explorer without JavaScript"
    for k, x in enumerate(found):
        where = f"{name} explorer #{k} {x['name']} ({scheme})"
        assert x["controls"], f"{where}: no controls drawn"
        for c in x["controls"]:
            assert c["disabled"] and c["aria"] == "true", f"{where}: a live-looking {c}"
            assert not c["focused"], f"{where}: a {c['tag']} takes focus"
            assert c["opacity"] < 0.8, f"{where}: a {c['tag']} is not dimmed ({c['opacity']})"
        if x["notice"] is not None:
            assert x["notice"] == (
                "Interactive with JavaScript: this is the explorer's first picture."
            ), f"{where}: the notice says {x['notice']!r}"
