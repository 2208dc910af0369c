"""The explorers on a reader's screen (the book's layout issue): each fits the window, what a
control changes is in view while it is operated, a swipe on a picture scrolls the page,
small weights stay visible in dark mode, series colours have 3:1 contrast, text is legible
and fields do not make a phone zoom. Methods and protocol: tests/browser/_craft.py;
`benchmarks/explorer_craft.py` prints the same numbers as a table.

Targets:
- height <= 1 window at 1280 x 900, <= 1.25 windows at 390 x 844 (touch);
- while any control is operated, >= 50 % of the pictures it changes are on screen;
- a vertical finger swipe starting on any picture away from its handle scrolls the page
  (>= 40 px) and leaves the explorer's parameters unchanged;
- dark mode: the colour of a 0.05 weight >= 1.5:1 against the explorer's background, a zero
  cell >= 1.1:1 against it (the map's extent stays visible) and >= 1.5:1 against the map's
  frame; every series colour >= 3:1 against the background, light and dark;
- explorer text >= 12 CSS px as drawn; inputs and menus >= 16 px where the pointer is coarse.
"""

from __future__ import annotations

import pytest

from ._craft import DESKTOP, PHONE, colours, layout, n_explorers, open_page, swipe, text_sizes
from .conftest import PAGES

pytestmark = pytest.mark.browser

HEIGHT = {"desktop": 1.0, "phone": 1.25}
SHARE = 0.5
SWIPE_PX = 40
DARK_005 = 1.5
ZERO_VS_BG = 1.1
ZERO_VS_FRAME = 1.5
SERIES = 3.0
TEXT_PX = 12.0
FIELD_PX = 16.0
SIZES = {"desktop": DESKTOP, "phone": PHONE}


@pytest.fixture
def opened(browser, visits):
    """opened(name, **context) -> page with every explorer drawn; closed after the test."""
    contexts = []

    def get(name, **context):
        visits(name)
        ctx, page = open_page(browser, visits.base_url, name, **context)
        contexts.append(ctx)
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.errors = errors
        return page

    yield get
    for ctx in contexts:
        ctx.close()


def _where(name: str, k: int, ex: str, size: str) -> str:
    return f"{name} explorer #{k} ({ex}) at {size}"


@pytest.mark.parametrize("size", ["desktop", "phone"])
@pytest.mark.parametrize("name", PAGES)
def test_every_explorer_fits_the_window_and_shows_what_each_control_changes(opened, name, size):
    page = opened(name, **SIZES[size])
    n = n_explorers(page)
    assert n >= 1, f"{name}: no explorer"
    problems = []
    for k in range(n):
        r = layout(page, k)
        where = _where(name, k, r["name"], size)
        if r["height"] > HEIGHT[size] + 1e-9:
            problems.append(f"{where}: {r['height']:.2f} windows tall (at most {HEIGHT[size]})")
        assert r["controls"], f"{where}: no control found"
        for c in r["controls"]:
            for how, a in c["arrivals"].items():
                assert a["paramsChanged"] or c["kind"] == "play", f"{where}: operating {c['name']} changed nothing"
                assert a["changed"], f"{where}: operating {c['name']} changed no picture"
            if c["share"] < SHARE:
                detail = "; ".join(f"arriving at its {how}: {a['share']:.2f} of {', '.join(a['changed'])}"
                                   + ("" if a["reachable"] else " (the control itself was not on screen)")
                                   for how, a in c["arrivals"].items())
                problems.append(f"{where}: while {c['name']} is operated, {c['share']:.2f} of what it changes "
                                f"is in view ({detail})")
    assert not page.errors, f"{name}: page errors: {page.errors}"
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", PAGES)
def test_a_vertical_swipe_on_a_picture_scrolls_and_leaves_the_query(opened, name):
    page = opened(name, **PHONE)
    problems = []
    for k in range(n_explorers(page)):
        for s in swipe(page, k):
            where = f"{name} explorer #{k}, picture {s['panel']!r}"
            if s["handle"] and s["distance"] < 48:
                problems.append(f"{where}: no point of the plot is 48 px from the handle")
            if not s["params_kept"]:
                problems.append(f"{where}: a swipe changed the explorer from {s['before']} to {s['after']}")
            if s["scrolled"] < SWIPE_PX:
                problems.append(f"{where}: a 180 px swipe scrolled the page {s['scrolled']} px")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", PAGES)
def test_small_weights_stay_visible_in_dark_mode(opened, name):
    page = opened(name, **DESKTOP, color_scheme="dark")
    assert page.evaluate("() => document.documentElement.dataset.theme") == "dark"
    problems, maps = [], 0
    for k in range(n_explorers(page)):
        d = colours(page, k)
        for h in d["heatmaps"]:
            maps += 1
            where = f"{name} explorer #{k} ({d['name']}), map {h['panel']!r}"
            assert h["mapped"], f"{where}: the heatmap does not report its colour map (svg.attnColour)"
            assert h["mismatch"] <= 1, f"{where}: svg.attnColour differs from the painted cells by {h['mismatch']}"
            if h["at005"]["contrast"] < DARK_005:
                problems.append(f"{where}: a 0.05 weight is painted {h['at005']['colour']}, "
                                f"{h['at005']['contrast']:.2f}:1 against the background {d['bg']}")
            if h["smallest"] and h["smallest"]["contrast"] < DARK_005:
                problems.append(f"{where}: its smallest weight >= 0.05 ({h['smallest']['value']:.3f}) has "
                                f"{h['smallest']['contrast']:.2f}:1 against the background")
            if h["at0"]["contrast"] < ZERO_VS_BG:
                problems.append(f"{where}: a zero weight is painted {h['at0']['colour']}, "
                                f"{h['at0']['contrast']:.2f}:1 against the background")
            from_frame = _contrast(h["at0"]["colour"], h["frame"]) if h["frame"] else 0
            if from_frame < ZERO_VS_FRAME:
                problems.append(f"{where}: a zero cell ({h['at0']['colour']}) and the frame ({h['frame']}) "
                                f"differ by {from_frame:.2f}:1")
    assert maps, f"{name}: no heatmap found"
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("name", PAGES)
def test_series_colours_stand_out_from_the_background(opened, name, scheme):
    page = opened(name, **DESKTOP, color_scheme=scheme)
    problems, seen = [], 0
    for k in range(n_explorers(page)):
        d = colours(page, k)
        for s in d["series"]:
            seen += 1
            if s["contrast"] < SERIES:
                problems.append(f"{name} explorer #{k} ({d['name']}), {s['where']}: {s['what']!r} is "
                                f"{s['colour']}, {s['contrast']:.2f}:1 against {d['bg']} ({scheme})")
    plots = page.evaluate("() => document.querySelectorAll('.attn-explorer svg.attn-lines').length")
    assert seen or not plots, f"{name}: {plots} plots but no series found"
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("size", ["desktop", "phone"])
@pytest.mark.parametrize("name", PAGES)
def test_explorer_text_and_fields_are_legible(opened, name, size):
    page = opened(name, **SIZES[size])
    problems = []
    for k in range(n_explorers(page)):
        t = text_sizes(page, k)
        where = _where(name, k, t["name"], size)
        if t["smallest"]["px"] < TEXT_PX - 0.05:
            problems.append(f"{where}: text drawn at {t['smallest']['px']:.1f} px ({t['smallest']['text']!r}, "
                            f"{t['smallest']['where']})")
        if size == "phone":
            assert t["coarse"], f"{where}: the phone context does not match (pointer: coarse)"
            for f in t["fields"]:
                if f["px"] < FIELD_PX:
                    problems.append(f"{where}: {f['tag'].lower()}.{f['cls']} has {f['px']} px text "
                                    "(a phone zooms into a field under 16 px)")
    assert not problems, "\n".join(problems)


def _contrast(a: dict, b: dict) -> float:
    def lum(c):
        def f(v):
            v /= 255
            return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

        return 0.2126 * f(c["r"]) + 0.7152 * f(c["g"]) + 0.0722 * f(c["b"])

    x, y = lum(a), lum(b)
    return (max(x, y) + 0.05) / (min(x, y) + 0.05)
