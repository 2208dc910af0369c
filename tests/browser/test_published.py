"""The published pages as readers meet them, beyond a desktop with a mouse.

- axe-core (vendored through npm, web/package-lock.json) finds no serious or critical
  violation on any page, in light and in dark mode;
- with JavaScript off, every explorer shows its starting picture (drawn at build time by
  web/prerender-explorers.mjs), and that picture is the one the live explorer draws;
- at phone size (390 x 844) in dark mode the explorers load, redraw and match attnlib;
- every figure has alt text that says something (not its file name);
- the book has a 404 page.

Screenshots of every page at phone size in dark mode, and with JavaScript off, go to
_build/screenshots/ next to the desktop ones.
"""

from __future__ import annotations

import re

import pytest

from .conftest import CHAPTERS, EXPLORER_CHAPTERS, PAGES, ROOT, SCREENSHOTS, wake_explorers
from .test_book import SCROLL_IMAGES_JS

pytestmark = pytest.mark.browser

AXE = ROOT / "web" / "node_modules" / "axe-core" / "axe.min.js"


def _load(browser, base_url, name, shot=None, **context):
    ctx = browser.new_context(**{"viewport": {"width": 1280, "height": 900}, **context})
    page = ctx.new_page()
    errors = []
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{base_url}/{name}", wait_until="load")
    if context.get("java_script_enabled", True):
        wake_explorers(page)
    page.evaluate("() => document.fonts.ready.then(() => true)")
    if shot:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(
            path=str(
                SCREENSHOTS / (name.replace("/", "__").removesuffix(".html") + f"__{shot}.png")
            ),
            full_page=True,
        )
    return ctx, page, errors


# ----------------------------------------------------------------------------- axe-core


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("name", PAGES)
def test_axe_finds_no_serious_violations(browser, visits, name, scheme):
    assert AXE.is_file(), f"{AXE} missing: run `make vendor` (npm ci in web/)"
    visits(name)
    ctx, page, _ = _load(browser, visits.base_url, name, color_scheme=scheme)
    try:
        assert page.evaluate("() => document.documentElement.dataset.theme") == scheme
        # colours are checked once the theme's CSS transitions (e.g. on the search button) end
        page.evaluate(
            "() => Promise.all(document.getAnimations().map((a) => a.finished.catch(() => "
            "null)))"
            ".then(() => true)"
        )
        page.add_script_tag(content=AXE.read_text(encoding="utf8"))
        found = page.evaluate("""async () => (await axe.run(document, {resultTypes: ['violations']}))
          .violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id} (${v.impact}): ${v.nodes.length} element(s), e.g. ${v.nodes[0].target.join(' ')}`)""")
        assert not found, f"{name} ({scheme}): axe-core violations:\n  " + "\n  ".join(found)
    finally:
        ctx.close()


# ----------------------------------------------------------------------------- no JavaScript

STATIC_JS = """
() => [...document.querySelectorAll('.attn-static .attn-explorer')].map((ex) => ({
  name: ex.dataset.explorer, params: ex.dataset.params,
  cells: [...ex.querySelectorAll('svg.attn-heatmap image.attn-cells')].map((i) => i.getAttribute('href')),
  paths: [...ex.querySelectorAll('.attn-series:not(.attn-fixed)')].map((s) =>
    s.getAttribute('d') || [...s.querySelectorAll('circle')].map((c) => c.getAttribute('cx') + ',' + c.getAttribute('cy')).join(' ')),
  box: ex.getBoundingClientRect().height,
}))
"""
LIVE_JS = STATIC_JS.replace(".attn-static .attn-explorer", ".attn-explorer")


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
    ctx, page, _ = _load(browser, visits.base_url, name)
    try:
        live = page.evaluate(LIVE_JS)
    finally:
        ctx.close()
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


# Explorers on a phone in dark mode: test_book.test_explorers_redraw_and_match_attnlib_on_a_phone_
# in_dark_mode walks every control there (and saves the page's __phone-dark.png screenshot).


# ----------------------------------------------------------------------------- figures, 404


@pytest.mark.parametrize("name", CHAPTERS)
def test_figures_have_alt_text_and_are_sharp(visits, margin, name):
    imgs = [
        i for i in visits(name).page.evaluate(SCROLL_IMAGES_JS) if "_images/" in (i["src"] or "")
    ]
    assert imgs, f"{name}: no figures"
    for i in imgs:
        assert i["lazy"] and i["sized"], (
            f"{name}: figure {i['src']} is not lazy with a reserved size"
        )
        alt = (i["alt"] or "").strip()
        assert (
            len(alt) >= 40 and not re.search(r"\.(png|svg|jpe?g)$", alt) and "_images" not in alt
        ), f"{name}: figure {i['src']} has alt text {alt!r}"
        if i["shown"]:
            margin(
                f"{name}: figure {i['src'].rsplit('/', 1)[-1][:12]}, pixels per CSS px",
                i["natural"] / i["shown"],
                1.9,
            )
        assert i["shown"] and i["natural"] >= 1.9 * i["shown"], (
            f"{name}: figure {i['src']} is {i['natural']} px wide shown at {i['shown']} px "
            "(not 2x)"
        )


def test_404_page(visits):
    v = visits(PAGES[0])
    page = v.page.context.new_page()
    try:
        page.goto(f"{visits.base_url}/404.html", wait_until="load")
        text = page.evaluate("() => document.querySelector('main').innerText")
        assert "not found" in text.lower(), f"404.html says: {text[:200]!r}"
        links = page.evaluate(
            "() => [...document.querySelectorAll('main a[href]')].map((a) => a.href)"
        )
        assert any(h.endswith("intro.html") for h in links), (
            f"404.html links to {links}, not the landing page"
        )
        # styled like the book (its CSS is inlined, web/optimize-pages.mjs): the theme's rules are
        # there, its fonts and its header bar apply
        rules = page.evaluate(
            "() => [...document.styleSheets].reduce((n, s) => n + s.cssRules.length, 0)"
        )
        assert rules >= 200, f"404.html is unstyled ({rules} CSS rules)"
        font = page.evaluate("() => getComputedStyle(document.body).fontFamily")
        assert "system-ui" in font, f"404.html: body font {font!r}, not the theme's"
        # the same header bars as the landing page in the same window (the theme shows its top
        # bar below 992 px and the article's header bar from there on)
        bars_js = """() => ['.bd-header', '.bd-header-article', '.bd-sidebar-primary']
            .map((s) => { const e = document.querySelector(s); return [s, e && getComputedStyle(e).display]; })"""
        for width in (390, 1280):  # the shared landing page is left at its 1280 px
            for p in (page, v.page):
                p.set_viewport_size({"width": width, "height": 900})
            bars, landing = page.evaluate(bars_js), v.page.evaluate(bars_js)
            assert bars == landing, (
                f"404.html at {width} px: bars {bars} differ from the landing page's {landing}"
            )
            assert any(d not in (None, "none") for _, d in bars), (
                f"404.html at {width} px shows no header bar: {bars}"
            )
    finally:
        page.close()
