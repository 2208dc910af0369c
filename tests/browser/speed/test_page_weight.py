"""Pages as light as the landing page on a slow phone (issue 20), checked in ways a busy machine
cannot make flaky.

- Nothing in a page's <head> holds up the first paint: no stylesheet to fetch (web/inline-css.mjs
  inlines the stylesheets a page lists into one <style>), no @import, no parser-blocking script,
  no preloaded script, no widget state; Sphinx's search index only on the search page; no script
  but the book's own (the theme's attnbook.js, the explorers' boot) and Sphinx's and its
  extensions' small ones (no theme bundle, no framework).
- The bytes that cross the link, served gzip-compressed as a host would (devtools/_serve.py): at
  load and after reading to the end, within the budget, every chapter next to the landing page.
- An explorer wakes when it nears the viewport, not at load.

What a tap costs is checked in test_interaction_latency.py; what these changes must not break is
checked where it belongs (tests/browser/theme/: the drawers, the colour-mode switch, search, the
header's menus).

Nothing here measures time. Wall-clock Core Web Vitals on Lighthouse's mobile profile (LCP, TBT,
INP, CLS) and the main thread's work at 4x CPU estimated from CPU time (blocking work after the
first paint, the colour-mode switch) are measured by benchmarks/bench_browser.py, in one run,
as ratios to their targets (README): no verdict of `make test` depends on the machine's load.
"""

from __future__ import annotations

import re

import pytest
from _vitals import loads_together
from _wait import wait_still

from ..conftest import EXPLORER_CHAPTERS, LANDING, PAGES, SITE

pytestmark = pytest.mark.browser

OTHER_PAGES = ["search.html", "genindex.html", "404.html"]
READ_BUDGET = 400e3  # bytes on the link, read to the end (issue 20)
LOAD_BUDGET = 200e3  # at load: figures and explorers below the first screen wait for the reader


# Every script a page may load: the theme's (web/theme/attnbook), the explorers' boot (web/),
# Sphinx's, sphinx-copybutton's and sphinx-togglebutton's; Sphinx's search on the search page.
SCRIPTS = {
    "attnbook.js",
    "explorer-boot.js",
    "documentation_options.js",
    "doctools.js",
    "sphinx_highlight.js",
    "clipboard.min.js",
    "copybutton.js",
    "togglebutton.js",
    "language_data.js",
    "searchtools.js",
    "searchindex.js",
}


def _head(name: str) -> str:
    html = (SITE / name).read_text(encoding="utf8")
    return html[: html.index("</head>")]


# ----------------------------------------------------------------------------- the first paint


@pytest.mark.parametrize("name", PAGES + OTHER_PAGES)
def test_nothing_in_the_head_holds_up_the_first_paint(site, name):
    head = _head(name)
    links = re.findall(r"<link\b[^>]*\brel=\"stylesheet\"[^>]*>", head)
    assert not links, f"{name}: render-blocking stylesheets in <head>: {links}"
    styles = re.findall(r"<style\b[^>]*>([\s\S]*?)</style>", head)
    assert styles and max(len(s) for s in styles) > 5000, (
        f"{name}: the page's CSS is not inlined in <head>"
    )
    assert not any("@import" in s for s in styles), f"{name}: @import in the inlined CSS"
    blocking = [
        t
        for t in re.findall(r"<script\b[^>]*\bsrc=[^>]*>", head)
        if not re.search(r"\b(defer|async)\b|type=\"module\"", t)
    ]
    assert not blocking, f"{name}: parser-blocking scripts in <head>: {blocking}"
    preloads = re.findall(r"<link\b[^>]*\brel=\"preload\"[^>]*\bas=\"script\"[^>]*>", head)
    assert not preloads, f"{name}: scripts preloaded ahead of the first screen: {preloads}"
    assert "widget-state+json" not in head, (
        f"{name}: explorer state in <head> (it belongs next to its view)"
    )
    html = (SITE / name).read_text(encoding="utf8")
    search = re.findall(
        r"<script\b[^>]*\bsrc=\"[^\"]*(searchtools|language_data|searchindex)\.js", html
    )
    if name == "search.html":
        assert sorted(search) == ["language_data", "searchindex", "searchtools"], (
            f"search.html loads {search}"
        )
    else:
        assert not search, (
            f"{name}: loads Sphinx's search index ({search}); only the search page needs it"
        )
    scripts = {
        re.sub(r"\?.*", "", src).rsplit("/", 1)[-1]
        for src in re.findall(r"<script\b[^>]*\bsrc=\"([^\"]+)\"", html)
    }
    foreign = sorted(scripts - SCRIPTS)
    assert not foreign, f"{name}: loads scripts that are not the book's or Sphinx's: {foreign}"


# ----------------------------------------------------------------------------- bytes


@pytest.fixture(scope="module")
def weights(browser, gzip_url):
    """Bytes on the link per page (landing page first), unthrottled: bytes do not depend on speed,
    so the pages load at the same time (each in its own context, its bytes counted on its own)
    and are measured one after the other."""
    loads = loads_together(
        browser,
        [f"{gzip_url}/{name}" for name in PAGES],
        cpu=1,
        network=False,
        interact=False,
        read=True,
        quiet_ms=500,
        read_pause_ms=40,  # a screen every 40 ms: the lazy figures' requests start at once
    )
    return {
        name: (load.load_bytes, load.read_bytes, load.errors, load.unloaded)
        for name, load in zip(PAGES, loads, strict=True)
    }


@pytest.mark.parametrize("name", PAGES)
def test_bytes_on_the_link_within_budget(weights, margin, name):
    at_load, read, errors, unloaded = weights[name]
    margin(f"{name}: bytes on the link read to the end", read, READ_BUDGET, at_least=False)
    margin(f"{name}: bytes on the link at load", at_load, LOAD_BUDGET, at_least=False)
    landing = weights[LANDING][1]
    assert not errors, f"{name}: console errors {errors}"
    assert not unloaded, f"{name}: figures never fetched while reading to the end: {unloaded}"
    assert read <= READ_BUDGET, (
        f"{name}: {read / 1e3:.0f} kB cross the link reading to the end (budget {READ_BUDGET / 1e3:.0f} kB; "
        f"landing page {landing / 1e3:.0f} kB)"
    )
    assert at_load <= LOAD_BUDGET, (
        f"{name}: {at_load / 1e3:.0f} kB at load (budget {LOAD_BUDGET / 1e3:.0f} kB)"
    )
    assert read >= at_load > 0


# ----------------------------------------------------------------------------- explorers at load


@pytest.mark.parametrize("name", EXPLORER_CHAPTERS)
def test_explorers_wake_near_the_viewport(browser, base_url, name):
    """At load only the explorers within the wake margin of the first screen are live; one further
    down stays a static picture until the reader scrolls near it."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    try:
        page.goto(f"{base_url}/{name}", wait_until="load")
        page.wait_for_load_state("networkidle")
        wait_still(page)
        tops = page.evaluate("""() => [...document.querySelectorAll('.attn-static, .attn-host')]
          .map((e) => ({top: e.getBoundingClientRect().top + scrollY, live: e.classList.contains('attn-host')}))""")
        assert tops, f"{name}: no explorer"
        far = [
            t for t in tops if t["top"] > 4 * 900
        ]  # beyond the 1.5-screen margin, with room to spare
        near = [t for t in tops if t["top"] < 900]
        assert all(not t["live"] for t in far), (
            f"{name}: explorers far below the first screen woke at load: {tops}"
        )
        assert all(t["live"] for t in near), (
            f"{name}: an explorer on the first screen did not wake: {tops}"
        )
        if far:
            page.evaluate("(y) => window.scrollTo(0, y - 300)", far[0]["top"])
            page.wait_for_function(
                "(y) => [...document.querySelectorAll('.attn-host')].some((e) => "
                "Math.abs(e.getBoundingClientRect().top + scrollY - y) < 50)",
                arg=far[0]["top"],
                timeout=30_000,
            )
    finally:
        ctx.close()
