"""Chapter 10's three explorers in the built book: the heads over training (playback), any
head on three held-out sequences, and the ablation toggles. Each state the keyboard reaches
is checked against the frames the committed notebook saved (a training run's numbers, see
tests/browser/_frames.py's TRAINED); the page-level suites (fit, phone, dark, print, no JS, page
weight) enumerate this chapter from _toc.yml like the others."""

from __future__ import annotations

import json
import re

import pytest
from _saved_state import saved_explorers, saved_frame

from .._frames import _check_frame, snapshot
from ..conftest import CHAPTERS, install_clock, opened_explorer, pause_clock, wake_explorers

pytestmark = pytest.mark.browser

PAGE = next(p for p in CHAPTERS if "10_induction_heads" in p)
NOTEBOOK = "10_induction_heads.ipynb"

INDEX_JS = """
(name) => [...document.querySelectorAll('.attn-explorer')].findIndex((e) => e.dataset.explorer === name)
"""


def _snapshot(page, name):
    return snapshot(page, page.evaluate(INDEX_JS, name))


def test_the_chapter_publishes_its_three_explorers(visits):
    v = visits(PAGE)
    names = v.page.evaluate(
        "() => [...document.querySelectorAll('.attn-explorer')].map((e) => e.dataset.explorer)"
    )
    assert names == ["heads_playback", "heads", "ablation"], names


@pytest.mark.parametrize(
    "name, param", [("heads", "head"), ("heads", "sequence"), ("heads_playback", "head")]
)
def test_choices_by_keyboard_redraw_the_saved_frames(browser, visits, name, param):
    with opened_explorer(browser, visits, PAGE, name) as page:
        ex = page.locator(f'.attn-explorer[data-explorer="{name}"]')
        choice = ex.locator(f'.attn-choice[data-param="{param}"]')
        n = choice.evaluate("(c) => c.options.length")
        seen = set()
        for i in range(n):
            choice.focus()
            choice.select_option(index=i)  # what the arrow keys do on a focused <select>
            snap = _snapshot(page, name)
            _check_frame(snap, f"{name}, {param} option {i}")
            seen.add(json.dumps(snap["heatmaps"][0]["cells"][:40]))
        assert len(seen) == n, f"{name}: the {n} options of {param} drew {len(seen)} pictures"


def test_playback_plays_to_the_last_checkpoint(browser, visits):
    visits(PAGE)
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    try:
        install_clock(page)
        page.goto(f"{visits.base_url}/{PAGE}", wait_until="load")
        assert wake_explorers(page, only="heads_playback")["woken"] == 1
        pause_clock(page)
        ex = page.locator('.attn-explorer[data-explorer="heads_playback"]')
        slider = ex.locator('.attn-slider[data-param="step"]')
        slider.focus()
        page.keyboard.press("Home")
        assert slider.evaluate("(s) => +s.value") == 0
        _check_frame(_snapshot(page, "heads_playback"), "step 0")
        ex.locator(".attn-speed").select_option(label="fast")
        ex.locator(".attn-play-button").click()
        page.clock.run_for(30_000)
        assert slider.evaluate("(s) => +s.value === +s.max"), "playback did not reach the end"
        snap = _snapshot(page, "heads_playback")
        assert json.loads(snap["params"])["step"] == 400
        _check_frame(snap, "after playback")
    finally:
        ctx.close()


def test_ablation_toggles_change_the_accuracy_shown(browser, visits):
    saved = saved_explorers(NOTEBOOK)["ablation"]
    with opened_explorer(browser, visits, PAGE, "ablation") as page:
        ex = page.locator('.attn-explorer[data-explorer="ablation"]')
        body = ex.locator(".attn-text-body")
        texts = []
        for head in ["L1H1", "L1H2", "L2H1", "L2H2"]:
            choice = ex.locator(f'.attn-choice[data-param="{head}"]')
            choice.focus()
            choice.select_option("zeroed")
            params = json.loads(ex.evaluate("(e) => e.dataset.params"))
            want = saved_frame(saved, params)["summary"]
            assert body.text_content() == want, (params, body.text_content(), want)
            texts.append(body.text_content())
        assert texts[-1].startswith("heads zeroed: layer 1, head 1, layer 1, head 2")
        assert len(set(texts)) == 4


# ----------------------------------------------------------------------------- craft (issue 39)
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
TICKS_JS = """(ex) => [...ex.querySelectorAll('svg.attn-heatmap')].map((s) => {
  const ticks = [...s.querySelectorAll('text.attn-tick')].map((t) => {
    const b = t.getBoundingClientRect(), m = t.getScreenCTM();
    return {text: t.textContent, x: b.left + b.width / 2, y: b.top + b.height / 2,
            row: t.getAttribute('x') === '-4',  // heatmap.js: row labels end 4 px left of the map
            px: parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b)};
  });
  return {rows: +s.dataset.rows, cols: +s.dataset.cols, ticks};
})"""


@pytest.mark.parametrize("size", ["phone", "desktop"])
@pytest.mark.parametrize("name", ["heads_playback", "heads"])
def test_every_token_is_named_on_both_axes(browser, visits, name, size):
    # issue 39 item 6: the 20-row maps named every other token on the y axis (12-px cells)
    context = PHONE if size == "phone" else {}
    with opened_explorer(browser, visits, PAGE, name, **context) as page:
        ex = page.locator(f'.attn-explorer[data-explorer="{name}"]')
        (svg,) = ex.evaluate(TICKS_JS)
    n = svg["rows"]
    assert n == svg["cols"] == 20
    rows = [t for t in svg["ticks"] if t["row"]]
    cols = [t for t in svg["ticks"] if not t["row"]]
    assert len(rows) == n and len(cols) == n, (
        f"{size}: {len(rows)} row and {len(cols)} column labels"
    )
    for axis, key in ((rows, "y"), (cols, "x")):
        at = sorted(t[key] for t in axis)
        gap = min(b - a for a, b in zip(at, at[1:]))
        assert gap >= 12.0, f"{size}: neighbouring labels {gap:.1f} px apart"
    assert min(t["px"] for t in svg["ticks"]) >= 12.0 - 0.05  # explorer.css: 12 px text


READOUT_JS = """(ex) => {
  const box = (e) => { const b = e.getBoundingClientRect(); return {top: b.top, bottom: b.bottom}; };
  const shown = (e) => e && e.getClientRects().length && !e.classList.contains('attn-live-spoken');
  const readout = [ex.querySelector('.attn-text-panel'), ex.querySelector('.attn-live')].find(shown);
  const map = ex.querySelector('svg.attn-heatmap').closest('.attn-panel');
  const loss = ex.querySelector('svg.attn-lines');
  const pre = ex.querySelector('.attn-text-body');
  const lines = pre ? pre.getBoundingClientRect().height / parseFloat(getComputedStyle(pre).lineHeight) : 0;
  return {controls: box(ex.querySelector('.attn-controls')), readout: readout && box(readout), lines,
          text: readout && readout.textContent, map: box(map), loss: box(loss),
          header: document.querySelector('#book-header').getBoundingClientRect().bottom};
}"""


def _in_view_under_the_controls(page, ex):
    """Scroll until the pictures start right under the stuck controls; their boxes then."""
    r = ex.evaluate(READOUT_JS)
    assert r["readout"], "the playback shows no read-out"
    first = min(r["readout"]["top"], r["map"]["top"])
    stuck = r["header"] + (r["controls"]["bottom"] - r["controls"]["top"])
    page.evaluate(f"() => window.scrollBy(0, {first - stuck - 2})")
    return ex.evaluate(READOUT_JS)


@pytest.mark.parametrize("preset", [None, "Step 0", "Step 140", "Step 400"])
def test_the_playback_read_out_sits_by_its_map_in_view_under_the_phone_controls(
    browser, visits, preset
):
    # issue 39 item 6: on a phone the sticky controls covered the playback's read-out line,
    # which sat under the loss chart, far from the map it read (row 0, always "puts 1"); each
    # preset's notice (in the controls) must leave the read-out, the map and the loss in view
    with opened_explorer(browser, visits, PAGE, "heads_playback", **PHONE) as page:
        ex = page.locator('.attn-explorer[data-explorer="heads_playback"]')
        if preset:
            ex.get_by_role("button", name=preset, exact=True).click()
        r = _in_view_under_the_controls(page, ex)
    c, out, m, loss = r["controls"], r["readout"], r["map"], r["loss"]
    assert c["bottom"] - c["top"] <= 0.2 * 844, f"sticky controls {c['bottom'] - c['top']:.0f} px"
    assert abs(c["top"] - r["header"]) < 1, "the controls are not stuck under the header"
    gap = max(m["top"] - out["bottom"], out["top"] - m["bottom"])
    assert gap <= 12, f"the read-out is {gap:.0f} px from the map it reads"
    for what, b in (("read-out", out), ("map", m), ("loss chart", loss)):
        assert b["top"] >= c["bottom"] - 0.5 and b["bottom"] <= 844, (
            f"{what} at {b['top']:.0f}-{b['bottom']:.0f} px: not wholly in view under the "
            f"controls (they end at {c['bottom']:.0f} px)"
        )
    step = (preset or "Step 400").split()[1]
    assert r["text"].startswith(f"step {step}: loss "), r["text"]
    assert r["lines"] <= 2.05, f"the read-out wraps onto {r['lines']:.1f} lines"


# A real pointer (page.mouse, so an element drawn over the map would catch it) over a cell
# above the diagonal, which the causal mask blocks: a later token than the row's.
POINT_JS = """(svg, [i, j]) => {
  const img = svg.querySelector('image.attn-cells'), b = img.getBoundingClientRect();
  const R = +svg.dataset.rows, C = +svg.dataset.cols;
  return {x: b.left + (j + 0.5) * b.width / C, y: b.top + (i + 0.5) * b.height / R};
}"""
READ_JS = """(ex) => {
  const r = ex.querySelector('.attn-readout');
  return {readout: r.textContent, row: r.dataset.row, col: r.dataset.col,
          live: ex.querySelector('.attn-live[aria-live]').textContent};
}"""


@pytest.mark.parametrize("cell", [(8, 9), (15, 3)])
@pytest.mark.parametrize("name", ["heads_playback", "heads"])
def test_pointing_at_a_cell_reads_its_row_and_column_in_words(browser, visits, name, cell):
    # a cold read: in "Does the stripe follow the repeat?" pointing at or clicking a cell left
    # the read-out and the spoken line on row 19; and the read-out called column 9 of row 8
    # an "earlier token", which it is not (the causal mask blocks it)
    i, j = cell
    with opened_explorer(browser, visits, PAGE, name) as page:
        ex = page.locator(f'.attn-explorer[data-explorer="{name}"]')
        svg = ex.locator("svg.attn-heatmap")
        svg.scroll_into_view_if_needed()
        at = svg.evaluate(POINT_JS, [i, j])
        page.mouse.move(at["x"], at["y"])
        got = ex.evaluate(READ_JS)  # the pointer's events are handled before move returns
    want = rf"row {i}, token now \(query\) “.”, column {j}, token \(key\) “.”: \d\.\d{{4}}"
    assert re.fullmatch(want, got["readout"]), f"{name}: the read-out says {got['readout']!r}"
    assert "earlier" not in got["readout"] + got["live"], got
    # the spoken line follows the row read
    assert (got["row"], got["col"]) == (str(i), str(j)), f"{name}: read {got}"
    if name == "heads":  # the playback's spoken line reads its caption instead
        assert f"row {i}," in got["live"] and "row 19," not in got["live"], got["live"]
