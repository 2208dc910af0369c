"""Without JavaScript the page follows the OS's colour mode (issue 39's cold read: with scripts
off and a dark OS preference, the page was light).

In a browser context with JavaScript disabled and ``color_scheme`` "dark" (then "light"), at
1280 x 900: the page's background and text are the theme's dark (light) colours, every figure
shown is its ``.only-dark`` (``.only-light``) variant and none of the other mode's, an explorer's
prerendered picture shows its heatmaps' dark (light) cells and sits on the dark (light) card, and
code sits on the dark (light) code background. The expected colours are the theme's own
(attnbook.css's --book-bg, --book-text) read in a context WITH JavaScript whose mode was chosen
by the switch (localStorage), so the no-script page is compared with what the switch gives.
With JavaScript on, the switch still wins over the OS (checked last).
"""

from __future__ import annotations

import pytest

from ..conftest import chapter_page

pytestmark = pytest.mark.browser

PAGES = [chapter_page("01_queries_keys_values"), chapter_page("10_induction_heads")]

READ_JS = """() => {
  const shown = (e) => e.checkVisibility();
  const css = (e, p) => e ? getComputedStyle(e)[p] : null;
  const figures = [...document.querySelectorAll('.book-article picture.attn-figure')];
  const cells = [...document.querySelectorAll('.attn-explorer svg image.attn-cells-light, .attn-explorer svg image.attn-cells-dark')];
  return {
    bg: css(document.body, 'backgroundColor'),
    text: css(document.body, 'color'),
    scheme: css(document.documentElement, 'colorScheme'),
    figures: figures.length,
    lightFigures: figures.filter((f) => f.classList.contains('only-light') && shown(f)).length,
    darkFigures: figures.filter((f) => f.classList.contains('only-dark') && shown(f)).length,
    lightCells: cells.filter((c) => c.classList.contains('attn-cells-light') && getComputedStyle(c).display !== 'none').length,
    darkCells: cells.filter((c) => c.classList.contains('attn-cells-dark') && getComputedStyle(c).display !== 'none').length,
    explorerBg: css(document.querySelector('.attn-explorer'), 'backgroundColor'),
    code: css(document.querySelector('.book-article .cell_input .highlight, .book-article div.highlight'), 'backgroundColor'),
    script: document.documentElement.hasAttribute('data-script'),
    theme: document.documentElement.dataset.theme,
  };
}"""


def _read(browser, url, scheme, js, mode=None):
    ctx = browser.new_context(
        viewport={"width": 1280, "height": 900},
        color_scheme=scheme,
        java_script_enabled=js,
        service_workers="block",
    )
    try:
        if mode:
            ctx.add_init_script(f"localStorage.setItem('attnbook-mode', '{mode}')")
        page = ctx.new_page()
        page.goto(url, wait_until="load")
        return page.evaluate(READ_JS)
    finally:
        ctx.close()


@pytest.mark.parametrize("name", PAGES)
@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_without_javascript_the_page_follows_the_os_mode(browser, visits, name, scheme):
    visits(name)
    url = f"{visits.base_url}/{name}"
    got = _read(browser, url, scheme, js=False)
    # the colours the mode switch gives, on a page with scripts (the OS in the other mode)
    other = "light" if scheme == "dark" else "dark"
    want = _read(browser, url, other, js=True, mode=scheme)
    assert not got["script"], f"{name}: the page ran a script with JavaScript disabled"
    for key in ("bg", "text", "scheme", "explorerBg", "code"):
        assert got[key] == want[key], (
            f"{name}, scripts off, OS {scheme}: {key} is {got[key]}, the {scheme} mode's is "
            f"{want[key]}"
        )
    _shows_only(got, scheme, f"{name}, scripts off, OS {scheme}")


def _shows_only(got, mode, where):
    """Every figure shown is its ``mode`` variant (one of each pair) and every prerendered map
    shows its ``mode`` cells."""
    assert got["figures"] and got["lightCells"] + got["darkCells"], f"{where}: {got}"
    shown, hidden = (
        ("darkFigures", "lightFigures") if mode == "dark" else ("lightFigures", "darkFigures")
    )
    assert got[shown] == got["figures"] // 2 and got[hidden] == 0, (
        f"{where}: {got['lightFigures']} light and {got['darkFigures']} dark figures shown "
        f"of {got['figures'] // 2}"
    )
    cells, other_cells = (
        ("darkCells", "lightCells") if mode == "dark" else ("lightCells", "darkCells")
    )
    assert got[cells] and not got[other_cells], (
        f"{where}: explorer maps show {got['lightCells']} light and {got['darkCells']} dark "
        "cell images"
    )


# (OS, the switch's choice or None for auto, the mode shown)
WITH_SCRIPTS = [
    ("dark", None, "dark"),
    ("light", None, "light"),
    ("dark", "light", "light"),
    ("light", "dark", "dark"),
]


@pytest.mark.parametrize(("os_mode", "choice", "mode"), WITH_SCRIPTS)
def test_with_javascript_the_page_shows_its_modes_pictures(browser, visits, os_mode, choice, mode):
    """The no-script twins never apply with scripts on: the pictures are the mode's the page
    is in (an OS in dark mode hid every dark figure when a twin matched a script page)."""
    name = PAGES[0]
    visits(name)
    got = _read(browser, f"{visits.base_url}/{name}", os_mode, js=True, mode=choice)
    assert got["theme"] == mode, f"{name}: OS {os_mode}, switch {choice}: page in {got['theme']}"
    _shows_only(got, mode, f"{name}, scripts on, OS {os_mode}, switch {choice or 'auto'}")


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_with_javascript_the_switch_wins_over_the_os(browser, visits, scheme):
    name = PAGES[0]
    visits(name)
    url = f"{visits.base_url}/{name}"
    other = "light" if scheme == "dark" else "dark"
    chosen = _read(
        browser, url, scheme, js=True, mode=other
    )  # the OS says scheme, the switch other
    natural = _read(browser, url, other, js=True)  # the OS says other, no choice (auto)
    assert chosen["script"]
    for key in ("bg", "text", "explorerBg", "code"):
        assert chosen[key] == natural[key], f"{name}: OS {scheme}, switch {other}: {key} {chosen}"
    assert chosen["bg"] != _read(browser, url, scheme, js=True)["bg"], "the modes look the same"
