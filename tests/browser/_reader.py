"""Pages opened as a reader would, shared by tests in more than one folder: ``_load`` (a fresh
browser context, the page loaded, its explorers woken and its fonts ready, optionally a
full-page screenshot) and ``_shot`` (a screenshot of the window under _build/screenshots/)."""

from __future__ import annotations

from .conftest import SCREENSHOTS, wake_explorers


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
            scale="css",
        )
    return ctx, page, errors


def _shot(page, name, mode):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(
        path=str(SCREENSHOTS / f"{name.replace('/', '__').removesuffix('.html')}--{mode}.png")
    )
