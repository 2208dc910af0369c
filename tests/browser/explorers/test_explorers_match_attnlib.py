"""Every explorer of the published book works (headless Chromium, no kernel, no network):
each slider / choice, moved to several positions, redraws the picture, and the weights the page
shows equal what ``scoringbook.compute`` returns for the parameters the page reports; on a
desktop in light mode and on a phone in dark mode. The chapters left out as having no explorer
are exactly the declared ones."""

from __future__ import annotations

import contextlib
import json

import pytest
from _wait import wait_until

from .._frames import MOVE_JS, PARAMS_JS, _check_frame, expected_frame, frames_differ, snapshot
from ..conftest import (
    CHAPTERS,
    CHAPTERS_WITHOUT_EXPLORERS,
    EXPLORER_CHAPTERS,
    PAGES,
    ROOT,
    SCREENSHOTS,
    wake_explorers,
)

pytestmark = pytest.mark.browser


def _picture(snap: dict) -> str:
    """Everything drawn that depends on the parameters: cell fills, paths, points, a dragged
    point, text panels (two one-digit numbers have the same one-column attention map, but
    the models wrote different digits)."""
    return json.dumps(
        [[c[3] for c in h["cells"]] for h in snap["heatmaps"]]
        + [[(s["d"], s["points"]) for s in ln["series"]] + [ln["handle"]] for ln in snap["lines"]]
        + [snap.get("texts", [])]
    )


def _positions(n: int, start: int) -> list[int]:
    picks = sorted({0, n // 4, n // 2, (3 * n) // 4, n - 1}) if n > 6 else list(range(n))
    return [i for i in picks if i != start] + [start]


def _walk_every_control(page, name: str, views: int, mode: str, margin) -> None:
    """Every control of every explorer on the page, moved to several positions: the picture
    redraws and shows attnlib's weights (and colours that follow them) each time."""
    n = page.evaluate("() => document.querySelectorAll('.attn-explorer').length")
    assert n >= 1, f"{name}: no explorer on the page"
    assert n == views, f"{name}: {views} widget views but {n} explorers rendered"
    for k in range(n):
        snap = snapshot(page, k)
        where = f"{name} explorer #{k} ({snap['name']}, {mode})"
        assert snap["controls"], f"{where}: no slider or choice"
        assert snap["heatmaps"] or snap["lines"], f"{where}: no panel drawn"
        fars = [_check_frame(snap, where)]
        for ctl in snap["controls"]:
            assert ctl["n"] >= 2, f"{where}: control {ctl['param']!r} has {ctl['n']} positions"
            before = snap
            for i in _positions(ctl["n"], ctl["index"]):
                page.evaluate(MOVE_JS, [k, ctl["param"], i])
                old = _picture(before)

                # polls the parameters only (a full snapshot reads every cell back)
                def moved_to(k=k, params=before["params"], name=snap["name"]):
                    now = page.evaluate(PARAMS_JS, k)
                    return {"name": name, "params": now} if now != params else None

                def redrawn(k=k, old=old):
                    snap = snapshot(page, k)
                    return snap if _picture(snap) != old else None

                # The redraw writes the new parameters (data-params) once it has painted; the
                # cells are then read back from the painted image, which may land a frame late
                # on a busy page: give it that frame, but only where attnlib's frames for the
                # two settings differ (waiting on a picture that must not change would only
                # run out the clock). What never comes fails below.
                with contextlib.suppress(TimeoutError):
                    params_now = wait_until(moved_to, 5.0, "the new parameters")
                    if frames_differ(expected_frame(before), expected_frame(params_now)):
                        wait_until(redrawn, 5.0, "the redraw")
                after = snapshot(page, k)
                w = f"{where}, {ctl['param']} -> position {i}"
                moved = next(c for c in after["controls"] if c["param"] == ctl["param"])
                assert moved["index"] == i, f"{w}: control did not move"
                assert moved["shown"] and moved["shown"].strip(), (
                    f"{w}: the value shown next to the control is empty"
                )
                assert after["params"] != before["params"], f"{w}: data-params did not change"
                # a redraw must show: unless attnlib's own frame is the same for both settings
                # (an earlier test on this shared page may have left, say, the query where two
                # scores weigh the keys alike)
                if frames_differ(expected_frame(before), expected_frame(after)):
                    assert _picture(after) != _picture(before), f"{w}: the picture did not change"
                fars.append(_check_frame(after, w))
                before = after
        fars = [f for f in fars if f is not None]
        if fars:
            margin(f"{where}: colour distance of the extreme weights", min(fars), 40)


@pytest.mark.parametrize("name", EXPLORER_CHAPTERS)
def test_explorers_redraw_and_match_attnlib(visits, margin, name):
    v = visits(name)
    seen_requests, seen_failed, seen_console = (
        len(v.requests),
        len(v.failed),
        len(v.console_errors()),
    )
    _walk_every_control(v.page, name, v.info.get("views", 0), "desktop, light", margin)
    # Moving the controls asked for nothing and logged nothing.
    assert len(v.requests) == seen_requests, (
        f"{name}: requests while moving sliders: {v.requests[seen_requests:]}"
    )
    assert len(v.failed) == seen_failed, (
        f"{name}: failures while moving sliders: {v.failed[seen_failed:]}"
    )
    assert len(v.console_errors()) == seen_console, (
        f"{name}: console errors while moving sliders: {v.console_errors()[seen_console:]}"
    )


@pytest.mark.parametrize("name", PAGES)
def test_explorers_redraw_and_match_attnlib_on_a_phone_in_dark_mode(browser, visits, margin, name):
    """The same walk at 390 x 844 (touch, mobile viewport) with the OS in dark mode, on every
    page with explorers; every page is dark, no wider than the phone, and saved as a
    screenshot (_build/screenshots/*__phone-dark.png)."""
    v = visits(name)
    ctx = browser.new_context(
        viewport={"width": 390, "height": 844},
        is_mobile=True,
        has_touch=True,
        color_scheme="dark",
        service_workers="block",
    )
    page = ctx.new_page()
    errors, requests = [], []
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(f"{visits.base_url}/{name}", wait_until="load")
        wake_explorers(page)
        assert page.evaluate("() => document.documentElement.dataset.theme") == "dark", (
            f"{name}: not dark"
        )
        page.evaluate("() => document.fonts.ready.then(() => true)")
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        stem = name.replace("/", "__").removesuffix(".html")
        page.screenshot(
            path=str(SCREENSHOTS / f"{stem}__phone-dark.png"), full_page=True, scale="css"
        )
        page.wait_for_load_state("networkidle")  # what the screenshot fetched, before listening
        wide = page.evaluate("() => document.documentElement.scrollWidth")
        assert wide <= 390, f"{name}: page is {wide} px wide on a 390 px phone in dark mode"
        page.on("request", lambda r: requests.append(r.url))
        if v.info.get("views", 0):
            _walk_every_control(page, name, v.info["views"], "390 px, dark", margin)
        else:
            assert name not in EXPLORER_CHAPTERS, f"{name}: a chapter without an explorer"
        assert not requests, f"{name}: requests while moving sliders on a phone: {requests}"
        assert not errors, f"{name}: console errors on a phone in dark mode: {errors}"
    finally:
        ctx.close()


def test_chapters_without_explorers_are_the_declared_ones():
    """The explorer tests leave out CHAPTERS_WITHOUT_EXPLORERS: exactly the chapters whose
    committed notebook saves no explorer (a widget view), so none drops out unnoticed."""
    import json

    view = "application/vnd.jupyter.widget-view+json"
    without = []
    for page in CHAPTERS:
        nb = json.loads((ROOT / page.replace(".html", ".ipynb")).read_text(encoding="utf8"))
        outputs = [o for c in nb["cells"] for o in c.get("outputs", [])]
        if not any(view in o.get("data", {}) for o in outputs):
            without.append(page)
    assert without == CHAPTERS_WITHOUT_EXPLORERS
