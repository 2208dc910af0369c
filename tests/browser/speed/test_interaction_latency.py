"""What a tap does, checked in ways a busy machine cannot make flaky (nothing here measures
time): a tap on a hidden cell's summary places no text caret, a tap on the colour-mode button
evaluates no script. The wall-clock costs (INP at 4x CPU) are measured by
benchmarks/bench_browser.py."""

from __future__ import annotations

import pytest
from _vitals import DEVICE

from ..conftest import CHAPTERS

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("name", [CHAPTERS[0], CHAPTERS[4]])
def test_a_tap_on_a_summary_places_no_text_caret(browser, base_url, name):
    """Tapping a hidden cell's "Show code cell source" opens it without first placing a text
    caret in its label (Chromium's selection update was a quarter of the tap's work at 4x)."""
    ctx = browser.new_context(**DEVICE)
    page = ctx.new_page()
    try:
        page.goto(f"{base_url}/{name}", wait_until="load")
        summaries = page.locator("details.hide > summary")
        assert summaries.count(), f"{name}: no hidden code cell"
        summary = summaries.first
        summary.scroll_into_view_if_needed()
        summary.tap()
        got = page.evaluate(
            "() => [getSelection().type, document.querySelector('details.hide').open]"
        )
        assert got == ["None", True], f"{name}: selection type and open state after a tap: {got}"
    finally:
        ctx.close()


def test_a_tap_evaluates_no_script(browser, gzip_url):
    """A finger on the colour-mode button (a Bootstrap tooltip's target) switches the mode without
    fetching bootstrap.js: its evaluation (60-120 ms at 4x) landed inside the tap. A mouse over the
    same button still fetches it and shows the tooltip."""
    ctx = browser.new_context(service_workers="block", color_scheme="light", **DEVICE)
    page = ctx.new_page()
    fetched = []
    page.on("request", lambda r: "bootstrap.js" in r.url and fetched.append(r.url))
    try:
        page.goto(f"{gzip_url}/{CHAPTERS[0]}", wait_until="load")
        page.wait_for_load_state("networkidle")
        button = page.locator(".theme-switch-button:visible").first
        box = button.bounding_box()
        page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.wait_for_function(
            "() => document.documentElement.dataset.theme === 'dark'", timeout=5_000
        )
        page.wait_for_timeout(1_000)
        assert not fetched, f"a tap on the colour-mode button fetched {fetched}"
    finally:
        ctx.close()
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    page.on("request", lambda r: "bootstrap.js" in r.url and fetched.append(r.url))
    try:
        page.goto(f"{gzip_url}/{CHAPTERS[0]}", wait_until="load")
        button = page.locator(".theme-switch-button:visible").first
        button.hover()  # fetches Bootstrap, which sets the tooltips up (they show from the next hover)
        page.wait_for_function("() => !!window.bootstrap", timeout=10_000)
        assert fetched, "Bootstrap arrived without a request?"
        page.mouse.move(600, 600)
        button.hover()
        page.wait_for_selector(".tooltip.show", timeout=10_000)
    finally:
        ctx.close()
