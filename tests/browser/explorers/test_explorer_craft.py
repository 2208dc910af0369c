"""The explorers on a reader's screen (the book's layout issue): each fits the window, what a
control changes is in view while it is operated, a swipe on a picture scrolls the page,
small weights stay visible in dark mode, series colours have 3:1 contrast, text is legible
and fields do not make a phone zoom. Methods and protocol: devtools/_craft.py;
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

An explorer in print (at most PRINT_PX tall, no controls): tests/browser/reading/test_print.py.
"""

from __future__ import annotations

import json

import pytest
from _craft import (
    DARK_005,
    DESKTOP,
    FIELD_PX,
    HANDLE_PX,
    HEIGHT,
    HELPERS_JS,
    PHONE,
    READY_JS,
    SERIES,
    SHARE,
    SWIPE_PX,
    TEXT_PX,
    ZERO_VS_BG,
    ZERO_VS_FRAME,
    colours,
    layout,
    n_explorers,
    open_page,
    swipe,
    text_sizes,
)
from _wait import with_page_waits

from .._reader import reads
from ..conftest import (
    CHAPTERS,
    EXPLORER_CHAPTERS,
    LANDING,
)

# the pages with explorers, in reading order: the landing page, then every chapter that has
# explorers (the notation page has none)
PAGES = [LANDING, *EXPLORER_CHAPTERS]
# chapter 7 (Bahdanau attention), named: its place in the book moves as chapters are added
BAHDANAU = next(p for p in CHAPTERS if p.endswith("07_bahdanau_attention.html"))

pytestmark = pytest.mark.browser

SIZES = {"desktop": DESKTOP, "phone": PHONE}


@pytest.fixture(scope="module")
def shared(browser, visits):
    """shared(name, **context) -> one page per page name and context for this module's checks
    that only measure, or that put back what they move (the fit check presses each explorer's
    Reset): a page load serves several tests, not one each. Each check scrolls to what it
    measures itself. Closed with the module."""
    import json

    cache = {}

    def get(name, **context):
        context = {"color_scheme": "light", **context}
        key = (name, json.dumps(context, sort_keys=True))
        if key not in cache:
            # tests run page by page (`name` is parametrized at module scope): close the pages
            # of the page before
            for old in [k for k in cache if k[0] != name]:
                cache.pop(old)[0].close()
            visits(name)
            ctx, page = open_page(browser, visits.base_url, name, **context)
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.errors = errors
            cache[key] = (ctx, page)
        return cache[key][1]

    yield get
    for ctx, _page in cache.values():
        ctx.close()


# The colours in dark mode at 1280 x 900 (the two dark checks below) are read from the session's
# desktop `reading` (tests/browser/_reader.py): the dark page axe-core, the colour mode and
# explorer access read too, one load per page and mode instead of one more here (issue 36; this
# file runs on the reading's worker: tests/conftest.py's SHARED_LOADS). Only measured: nothing
# on the page moves.
@reads("woken", "craft-dark-colours")
def _craft_dark_colours(page, reading) -> dict | None:
    if reading.scheme != "dark" or not n_explorers(page):
        return None
    page.wait_for_function(READY_JS)
    page.evaluate("() => document.fonts.ready.then(() => true)")
    page.evaluate(HELPERS_JS)
    return {
        "theme": page.evaluate("() => document.documentElement.dataset.theme"),
        "explorers": [colours(page, k) for k in range(n_explorers(page))],
        "plots": page.evaluate(
            "() => document.querySelectorAll('.attn-explorer svg.attn-lines').length"
        ),
    }


def _dark_colours(reading, name: str) -> dict:
    got = reading(name, "dark").get("craft-dark-colours")
    assert got is not None, f"{name}: no explorer in the dark desktop reading"
    return got


def _where(name: str, k: int, ex: str, size: str) -> str:
    return f"{name} explorer #{k} ({ex}) at {size}"


@pytest.mark.parametrize("size", ["desktop", "phone"])
@pytest.mark.parametrize("name", PAGES, scope="module")
def test_every_explorer_fits_the_window_and_shows_what_each_control_changes(
    shared, margin, name, size
):
    page = shared(name, **SIZES[size])
    n = n_explorers(page)
    assert n >= 1, f"{name}: no explorer"
    problems = []
    for k in range(n):
        r = layout(page, k)
        where = _where(name, k, r["name"], size)
        margin(f"{where}: height in windows", r["height"], HEIGHT[size], at_least=False)
        if r["height"] > HEIGHT[size] + 1e-9:
            problems.append(f"{where}: {r['height']:.3f} windows tall (at most {HEIGHT[size]})")
        assert r["controls"], f"{where}: no control found"
        for c in r["controls"]:
            for a in c["arrivals"].values():
                assert a["paramsChanged"] or c["kind"] == "play", (
                    f"{where}: operating {c['name']} changed nothing"
                )
                assert a["changed"], f"{where}: operating {c['name']} changed no picture"
            margin(f"{where}: share in view while {c['name']} is operated", c["share"], SHARE)
            if c["share"] < SHARE:
                detail = "; ".join(
                    f"arriving at its {how}: {a['share']:.2f} of {', '.join(a['changed'])}"
                    + ("" if a["reachable"] else " (the control itself was not on screen)")
                    for how, a in c["arrivals"].items()
                )
                problems.append(
                    f"{where}: while {c['name']} is operated, {c['share']:.2f} of what it changes "
                    f"is in view ({detail})"
                )
    assert not page.errors, f"{name}: page errors: {page.errors}"
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", PAGES, scope="module")
def test_a_vertical_swipe_on_a_picture_scrolls_and_leaves_the_query(shared, margin, name):
    page = shared(name, **PHONE)
    problems = []
    for k in range(n_explorers(page)):
        for s in swipe(page, k):
            where = f"{name} explorer #{k}, picture {s['panel']!r}"
            margin(f"{where}: px a swipe scrolls", s["scrolled"], SWIPE_PX)
            if s["handle"]:
                margin(f"{where}: swipe's px from the handle", s["distance"], HANDLE_PX)
            if s["handle"] and s["distance"] < HANDLE_PX:
                problems.append(
                    f"{where}: no point of the plot is {HANDLE_PX} px from the handle "
                    f"(at most {s['distance']:.0f})"
                )
            if not s["params_kept"]:
                problems.append(
                    f"{where}: a swipe changed the explorer from {s['before']} to {s['after']}"
                )
            if s["scrolled"] < SWIPE_PX:
                problems.append(f"{where}: a 180 px swipe scrolled the page {s['scrolled']} px")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", PAGES, scope="module")
def test_small_weights_stay_visible_in_dark_mode(reading, margin, name):
    read = _dark_colours(reading, name)
    assert read["theme"] == "dark"
    problems, maps = [], 0
    for k, d in enumerate(read["explorers"]):
        for h in d["heatmaps"]:
            maps += 1
            where = f"{name} explorer #{k} ({d['name']}), map {h['panel']!r}"
            assert h["mapped"], (
                f"{where}: the heatmap does not report its colour map (svg.attnColour)"
            )
            assert h["mismatch"] <= 1, (
                f"{where}: svg.attnColour differs from the painted cells by {h['mismatch']}"
            )
            from_frame = _contrast(h["at0"]["colour"], h["frame"]) if h["frame"] else 0
            margin(f"{where}: contrast of a 0.05 weight, dark", h["at005"]["contrast"], DARK_005)
            if h["smallest"]:
                margin(
                    f"{where}: contrast of its smallest weight >= 0.05, dark",
                    h["smallest"]["contrast"],
                    DARK_005,
                )
            margin(f"{where}: contrast of a zero weight, dark", h["at0"]["contrast"], ZERO_VS_BG)
            margin(
                f"{where}: contrast of a zero cell with the frame, dark", from_frame, ZERO_VS_FRAME
            )
            if h["at005"]["contrast"] < DARK_005:
                problems.append(
                    f"{where}: a 0.05 weight is painted {h['at005']['colour']}, "
                    f"{h['at005']['contrast']:.2f}:1 against the background {d['bg']}"
                )
            if h["smallest"] and h["smallest"]["contrast"] < DARK_005:
                problems.append(
                    f"{where}: its smallest weight >= 0.05 ({h['smallest']['value']:.3f}) has "
                    f"{h['smallest']['contrast']:.2f}:1 against the background"
                )
            if h["at0"]["contrast"] < ZERO_VS_BG:
                problems.append(
                    f"{where}: a zero weight is painted {h['at0']['colour']}, "
                    f"{h['at0']['contrast']:.2f}:1 against the background"
                )
            if from_frame < ZERO_VS_FRAME:
                problems.append(
                    f"{where}: a zero cell ({h['at0']['colour']}) and the frame ({h['frame']}) "
                    f"differ by {from_frame:.2f}:1"
                )
    assert maps, f"{name}: no heatmap found"
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("name", PAGES, scope="module")
def test_series_colours_stand_out_from_the_background(shared, reading, margin, name, scheme):
    if scheme == "dark":
        read = _dark_colours(reading, name)
        every, plots = read["explorers"], read["plots"]
    else:
        page = shared(name, **DESKTOP)
        every = [colours(page, k) for k in range(n_explorers(page))]
        plots = page.evaluate(
            "() => document.querySelectorAll('.attn-explorer svg.attn-lines').length"
        )
    problems, seen = [], 0
    for k, d in enumerate(every):
        for s in d["series"]:
            seen += 1
            margin(
                f"{name} explorer #{k} ({d['name']}), {s['where']}: contrast of {s['what']!r}, "
                f"{scheme}",
                s["contrast"],
                SERIES,
            )
            if s["contrast"] < SERIES:
                problems.append(
                    f"{name} explorer #{k} ({d['name']}), {s['where']}: {s['what']!r} is "
                    f"{s['colour']}, {s['contrast']:.2f}:1 against {d['bg']} ({scheme})"
                )
    assert seen or not plots, f"{name}: {plots} plots but no series found"
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("size", ["desktop", "phone"])
@pytest.mark.parametrize("name", PAGES, scope="module")
def test_explorer_text_and_fields_are_legible(shared, margin, name, size):
    page = shared(name, **SIZES[size])
    problems = []
    for k in range(n_explorers(page)):
        t = text_sizes(page, k)
        where = _where(name, k, t["name"], size)
        margin(f"{where}: smallest text px", t["smallest"]["px"], TEXT_PX)
        if t["smallest"]["px"] < TEXT_PX - 0.05:
            problems.append(
                f"{where}: text drawn at {t['smallest']['px']:.1f} px ({t['smallest']['text']!r}, "
                f"{t['smallest']['where']})"
            )
        for a, b, w in t["overlaps"]:
            problems.append(
                f"{where}: the labels {a!r} and {b!r} overlap by {w} px (touching: -1 to 0)"
            )
        if size == "phone":
            assert t["coarse"], f"{where}: the phone context does not match (pointer: coarse)"
            for f in t["fields"]:
                margin(f"{where}, {f['tag'].lower()}.{f['cls']}: field text px", f["px"], FIELD_PX)
                if f["px"] < FIELD_PX:
                    problems.append(
                        f"{where}: {f['tag'].lower()}.{f['cls']} has {f['px']} px text "
                        "(a phone zooms into a field under 16 px)"
                    )
    assert not problems, "\n".join(problems)


def _contrast(a: dict, b: dict) -> float:
    def lum(c):
        def f(v):
            v /= 255
            return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

        return 0.2126 * f(c["r"]) + 0.7152 * f(c["g"]) + 0.0722 * f(c["b"])

    x, y = lum(a), lum(b)
    return (max(x, y) + 0.05) / (min(x, y) + 0.05)


# ----------------------------------------------------------------------------- the theme's button

HANDLE_PAGES = [
    PAGES[1],
    PAGES[2],
    PAGES[4],
    PAGES[5],
]  # chapters 1, 2, 4 and 5 have dragged points

# Put handle k's centre at `at` px from the top of the window ("header": 12 px below the height
# the page shell declares for its sticky header, --book-header-height, which explorer.css's
# sticky controls and scroll margins rely on); return what is on top at the handle's centre and
# where the sticky header is.
COVER_JS = with_page_waits(
    r"""
async ([k, at]) => {
  const C = window.__craft;
  const knob = document.querySelectorAll('.attn-handle')[k], dot = knob.querySelector('.attn-handle-dot');
  const centre = () => { const b = dot.getBoundingClientRect(); return [b.left + b.width / 2, b.top + b.height / 2]; };
  const declared = parseFloat(getComputedStyle(document.documentElement).getPropertyValue('--book-header-height'))
    * parseFloat(getComputedStyle(document.documentElement).fontSize);
  const want = at === 'header' ? declared + 12 : at * innerHeight;
  C.scrollTo(scrollY + centre()[1] - want);
  await C.frames();
  await attnStill();  // the scroll has ended and nothing moves
  const [x, y] = centre();
  const hit = document.elementFromPoint(x, y);
  const header = document.getElementById('book-header'), hb = header.getBoundingClientRect();
  // the handle's own explorer may cover it (its controls stick at the top on a phone): not the shell
  const own = !!hit && hit.closest('.attn-explorer') === knob.closest('.attn-explorer');
  return {x, y, declared, onTop: hit ? (hit.id || hit.tagName) + '.' + (hit.getAttribute('class') || '') : null,
          inView: y >= 0 && y < innerHeight, onKnob: !!hit && knob.contains(hit), own,
          header: {top: hb.top, bottom: hb.bottom, position: getComputedStyle(header).position}};
}
"""
)


@pytest.mark.parametrize("size", ["desktop", "phone"])
@pytest.mark.parametrize("name", HANDLE_PAGES, scope="module")
def test_nothing_of_the_page_shell_covers_a_handle(shared, name, size):
    """A dragged point anywhere in the window below the sticky header, from just under the header
    to the window's bottom edge, is on top where the reader grabs it: the page shell (the sticky
    header, the closed drawers, their shade) covers none of it. The header stays within the
    height it declares (--book-header-height)."""
    page = shared(name, **SIZES[size])
    n = page.evaluate("() => document.querySelectorAll('.attn-handle').length")
    assert n >= 1, f"{name}: no dragged point"
    problems = []
    for k in range(n):
        for at in ("header", 0.12, 0.5, 0.86, 0.9, 0.94):
            r = page.evaluate(COVER_JS, [k, at])
            # the set-up: the header is stuck at the top of the window, over the page (else
            # nothing would be there to cover the handle)
            assert r["header"]["position"] == "sticky" and abs(r["header"]["top"]) < 1, (
                f"{name} at {size}: the header is not stuck at the top ({r['header']})"
            )
            if at == "header" and r["header"]["bottom"] > r["declared"] + 0.5:
                problems.append(
                    f"the header ends at {r['header']['bottom']:.1f} px, below the "
                    f"{r['declared']:.1f} px it declares (--book-header-height)"
                )
            if r["inView"] and not r["onKnob"] and not r["own"]:
                problems.append(
                    f"handle #{k} at {at if at == 'header' else f'{at:.0%}'} of the window "
                    f"(y = {r['y']:.0f} px): {r['onTop']} is on top of it"
                )
    assert not problems, f"{name} at {size}:\n" + "\n".join(problems)


# ----------------------------------------------------------------------------- chapters 7, 8


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_playback_labels_every_character(opened, size):
    # issue 26: the playback's 25 x 10 cells labelled every other character ("T u s a");
    # issue 39: its rows then named every other output character ("2 2 - 1 0"): rows of 11.5 px
    # could not be told apart. Every row and every column is named, at both widths.
    page = opened(BAHDANAU, **SIZES[size])
    svg = page.locator('.attn-explorer[data-explorer="alignment_playback"] svg.attn-heatmap')
    ticks = svg.evaluate(
        "(s) => [...s.querySelectorAll('text.attn-tick')].map(t => t.textContent)"
    )
    rows = list("2026-11-05")  # every row: they grow to 14 px when the columns are narrow
    cols = [c if c != " " else "␣" for c in "Thursday, 5 November 2026"]
    assert ticks == rows + cols, f"{size}: the ticks read {ticks}"
    # and no two labels of a row of ticks overlap
    boxes = svg.evaluate(
        "(s) => [...s.querySelectorAll('text.attn-tick')].map(t => {"
        "const b = t.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; })"
    )
    cols_b, rows_b = boxes[len(rows) :], boxes[: len(rows)]
    assert all(a[2] <= b[0] + 0.5 for a, b in zip(cols_b, cols_b[1:])), "column labels overlap"
    assert all(a[3] <= b[1] + 0.5 for a, b in zip(rows_b, rows_b[1:])), "row labels overlap"


def test_length_explorer_paints_empty_cells_apart_from_weight_0(opened):
    # issue 26: a fixed 16 x 17 grid whose cells beyond the number were painted as weight 0
    from _heatmap_js import CELLS, HOVER, as_json

    page = opened(
        next(p for p in CHAPTERS if p.endswith("08_attention_and_length.html")), **DESKTOP
    )
    svg = page.locator('.attn-explorer[data-explorer="length_experiment"] svg.attn-heatmap')
    cols = svg.evaluate("(s) => JSON.parse(s.dataset.colLabels)")
    used = sum(1 for c in cols if c)
    assert 0 < used < len(cols)  # the default frame (8 digits) leaves empty columns
    zero = svg.evaluate("(s) => `rgb(${s.attnColour(0).join(',')})`")
    every = json.loads(svg.evaluate(as_json(CELLS)))
    empty = {colour for i, j, v, colour in every if not cols[j]}
    assert empty and zero not in empty, f"empty cells painted {empty}, weight 0 is {zero}"
    read = svg.evaluate(f"(s, [i, j]) => ({HOVER})(s, i, j)", [0, len(cols) - 1])
    assert "empty" in read["readout"], read
