"""What a tap does, checked in ways a busy machine cannot make flaky (nothing here measures
time): a tap on a hidden cell's summary places no text caret, a tap on the colour-mode button
fetches and compiles no script. The wall-clock costs (INP at 4x CPU) are measured by
benchmarks/bench_browser.py."""

from __future__ import annotations

import contextlib
import re

import pytest
from _vitals import DEVICE
from _wait import wait_still, wait_until

from ..conftest import chapter_page

pytestmark = pytest.mark.browser


@pytest.mark.parametrize(
    "name",
    [chapter_page("01_queries_keys_values"), chapter_page("05_scaled_dot_product_attention")],
)
def test_a_tap_on_a_summary_places_no_text_caret(browser, base_url, name):
    """Tapping a hidden cell's "Show the code" opens it without first placing a text
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
    """A finger on the colour-mode button switches the mode with the script already on the page:
    nothing is fetched and no script is compiled inside the tap (the old theme fetched and
    evaluated bootstrap.js there, 60-120 ms at 4x). The button then names the new mode in words,
    on it and in its title (what a mouse over it shows)."""
    ctx = browser.new_context(service_workers="block", color_scheme="light", **DEVICE)
    page = ctx.new_page()
    requests = []
    try:
        page.goto(f"{gzip_url}/{chapter_page('01_queries_keys_values')}", wait_until="load")
        page.wait_for_load_state("networkidle")
        # every explorer that woke at load has drawn, and nothing moves
        page.wait_for_function(
            "() => [...document.querySelectorAll('.attn-host')]"
            ".every((h) => h.querySelector('.attn-explorer[data-ready=\"true\"]'))",
            timeout=60_000,
        )
        wait_still(page)
        button = page.locator("#book-mode")
        assert button.is_visible(), "no colour-mode button on a phone"
        box = button.bounding_box()
        # the files of the figures' dark variants (read before the debugger
        # starts counting compiled scripts)
        dark_figures = page.evaluate(
            "() => [...document.querySelectorAll('picture.only-dark source, picture.only-dark img')]"
            ".flatMap((e) => [e.getAttribute('srcset'), e.getAttribute('src')])"
            ".filter(Boolean).map((u) => u.split(/[ ,]/)[0].replace(/^(\\.\\.\\/)+/, '/'))"
        )
        cdp = page.context.new_cdp_session(page)
        parsed = []
        cdp.on("Debugger.scriptParsed", lambda e: parsed.append(e.get("url") or "(inline)"))
        # the events of one DevTools session arrive in order: every script compiled before
        # Debugger.enable answers is reported before that answer
        cdp.send("Debugger.enable")  # reports the scripts compiled so far, then each new one
        before = len(parsed)
        assert before > 0, "the debugger reported no script at all (the check would see none)"
        page.on("request", lambda r: requests.append(r.url))
        cdp.on("Network.requestWillBeSent", lambda e: requests.append(e["request"]["url"]))
        cdp.send("Network.enable")
        cdp.send("DOMStorage.enable")
        origin = re.match(r"https?://[^/]+", page.url).group(0)

        def stored() -> str | None:  # read through DevTools: no script runs in the page
            items = cdp.send(
                "DOMStorage.getDOMStorageItems",
                {"storageId": {"securityOrigin": origin, "isLocalStorage": True}},
            )["entries"]
            return dict(map(tuple, items)).get("attnbook-mode")

        mode0 = stored()
        # from the tap until its frame is drawn nothing of Playwright's runs in the page: wait,
        # through DevTools, until the tap has stored the new mode, then for a new frame
        # (Page.captureScreenshot answers once the page has drawn one; the main thread was free)
        page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        with contextlib.suppress(TimeoutError):  # not stored: the assertions below say what is
            wait_until(lambda: stored() != mode0, 10, "the tap storing the colour mode")
        cdp.send("Page.captureScreenshot", {"format": "jpeg", "quality": 10})
        compiled = parsed[before:]
        cdp.send("Debugger.disable")
        got = page.evaluate(
            "() => [document.documentElement.dataset.theme,"
            " document.querySelector('#book-mode .book-mode-name').textContent,"
            " document.getElementById('book-mode').title]"
        )
        cdp.detach()
    finally:
        ctx.close()
    # The one fetch a tap may cause: the dark variant of a figure in view (its <picture
    # class="only-dark">), which the browser loads for the new mode, off the main thread. No
    # script, stylesheet or anything else may be fetched.
    other = [u for u in requests if not any(u.endswith(p) for p in dark_figures)]
    assert not other, f"a tap on the colour-mode button fetched {other}"
    assert not compiled, f"a tap on the colour-mode button compiled scripts: {compiled}"
    assert got[0] == "dark", f"a tap on the colour-mode button left the page {got[0]}"
    assert got[1] == "dark" and "dark" in got[2], (
        f"after the tap the button reads {got[1]!r}, titled {got[2]!r}"
    )
