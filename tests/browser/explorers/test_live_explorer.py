"""The live explorers in the built book (chapter 1's soft lookup, chapter 5's scoring
functions): the page computes their frames itself (attnlib/static/src/primitives.js, `liveFrame`);
the reader drags the query with a mouse, a finger or the arrow keys. Checked against
attnlib's reference (`scoringbook.compute`)."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from _heatmap_js import HOVER

from .._frames import MOVE_JS, _check_affine
from ..conftest import opened_explorer, page_of

pytestmark = pytest.mark.browser

PAGE = page_of("soft_lookup")
NAME = "soft_lookup"
TOL = 1e-4

LIVE = [(page_of(name), name) for name in ("soft_lookup", "scoring_comparison", "long_key")]

STATE_JS = """
(name) => {
  const ex = document.querySelector(`.attn-explorer[data-explorer="${name || 'soft_lookup'}"]`);
  const k = [...document.querySelectorAll('.attn-explorer')].indexOf(ex);
  const svg = ex.querySelector('svg.attn-heatmap');
  const out = ex.querySelector('svg.attn-lines[data-panel="values"] .attn-series:not(.attn-fixed) circle');
  const knob = ex.querySelector('.attn-handle');
  return {k, params: JSON.parse(ex.dataset.params), weights: Array.from(svg.attnValues),
          out: out ? [+out.getAttribute('cx'), +out.getAttribute('cy')] : null,
          spokes: [...ex.querySelectorAll('.attn-spokes line')].map((l) => +l.getAttribute('stroke-opacity')),
          valuetext: knob.getAttribute('aria-valuetext'), role: knob.getAttribute('role'),
          live: ex.querySelector('.attn-live').textContent};
}
"""
# where key j's dot is on screen
KEY_JS = """
(j) => {
  const ex = document.querySelector('.attn-explorer[data-explorer="soft_lookup"]');
  const dot = ex.querySelector('svg.attn-lines[data-panel="keys"] .attn-fixed[data-series="keys"]').children[j];
  const b = dot.getBoundingClientRect();
  return [b.left + b.width / 2, b.top + b.height / 2];
}
"""


def _opened(browser, visits, page_name=PAGE, name=NAME, **context):
    return opened_explorer(browser, visits, page_name, name, **context)


def _expected(params: dict, name: str = NAME):
    from scoringbook.registry import compute

    return compute(name, **params)


@pytest.mark.parametrize("page_name, name", LIVE)
def test_the_page_computes_what_attnlib_computes_at_random_positions(
    browser, visits, page_name, name
):
    from scoringbook.registry import DECLARATIONS

    decl = DECLARATIONS[name]()
    with _opened(browser, visits, page_name, name) as page:
        k = page.evaluate(STATE_JS, name)["k"]
        rng = random.Random(7)
        xs_pix, xs_dat, ys_pix, ys_dat = [], [], [], []
        for _ in range(40):
            for p in decl.params:
                page.evaluate(MOVE_JS, [k, p.name, rng.randrange(len(p.values))])
            s = page.evaluate(STATE_JS, name)
            want = _expected(s["params"], name)
            w = np.asarray(want["weights"])  # (rows, n_keys)
            err = np.abs(np.array(s["weights"]) - w.reshape(-1)).max()
            assert err <= TOL, (
                f"{name} at {s['params']}: the page's weights differ from attnlib's by {err:.2e}"
            )
            if s["spokes"]:
                np.testing.assert_allclose(
                    s["spokes"],
                    np.minimum(1, w[0]),
                    atol=1e-3,
                    err_msg=f"at {s['params']}: line opacities are not the weights",
                )
            if s["out"] is not None:
                xs_pix.append(s["out"][0])
                xs_dat.append(want["values"]["output"][0, 0])
                ys_pix.append(s["out"][1])
                ys_dat.append(want["values"]["output"][1, 0])
        if xs_dat:  # the output point is drawn where attnlib's weighted average is (one affine map per axis)
            _check_affine(xs_pix, xs_dat, f"{name} output (x)")
            _check_affine(ys_pix, ys_dat, f"{name} output (y)")


def test_dragging_the_query_onto_a_key_gives_that_key_the_most_weight(browser, visits):
    with _opened(browser, visits) as page:
        page.locator(
            '.attn-explorer[data-explorer="soft_lookup"] svg.attn-lines[data-panel="keys"]'
        ).scroll_into_view_if_needed()
        start = page.evaluate(STATE_JS)
        assert start["role"] == "slider" and start["valuetext"] == "query at x = 0.5, y = -0.5"
        knob = page.locator('.attn-explorer[data-explorer="soft_lookup"] .attn-handle')
        for j in (3, 0, 6):
            box = knob.bounding_box()
            page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            page.mouse.down()
            tx, ty = page.evaluate(KEY_JS, j)
            page.mouse.move(tx, ty, steps=8)
            page.mouse.up()
            s = page.evaluate(STATE_JS)
            assert int(np.argmax(s["weights"])) == j, (
                f"dragged onto key {j}: weights {np.round(s['weights'], 3)}"
            )
            err = np.abs(np.array(s["weights"]) - _expected(s["params"])["weights"][0]).max()
            assert err <= TOL
            assert (
                s["valuetext"]
                == f"query at x = {s['params']['query_x']:g}, y = {s['params']['query_y']:g}"
            )
            assert s["live"].startswith("scoring function") and f"on key {j}" in s["live"], s[
                "live"
            ]


def test_a_tap_puts_the_query_there(browser, visits):
    with _opened(browser, visits, has_touch=True, is_mobile=True) as page:
        page.locator(
            '.attn-explorer[data-explorer="soft_lookup"] svg.attn-lines[data-panel="keys"]'
        ).scroll_into_view_if_needed()
        tx, ty = page.evaluate(KEY_JS, 1)
        page.touchscreen.tap(tx + 2, ty + 2)  # next to the dot: the plot under it takes the tap
        s = page.evaluate(STATE_JS)
        assert int(np.argmax(s["weights"])) == 1, (
            f"tapped key 1: {s['params']}, {np.round(s['weights'], 3)}"
        )


@pytest.mark.parametrize("page_name, name", LIVE)
def test_a_finger_drags_the_query_without_scrolling_the_page(browser, visits, page_name, name):
    with _opened(
        browser,
        visits,
        page_name,
        name,
        viewport={"width": 390, "height": 844},
        has_touch=True,
        is_mobile=True,
    ) as page:
        sel = f'.attn-explorer[data-explorer="{name}"]'
        page.locator(f"{sel} .attn-handle").scroll_into_view_if_needed()
        cdp = page.context.new_cdp_session(page)
        scroll = page.evaluate("() => window.scrollY")
        for dx, dy in ((60, -40), (-90, 70)):
            b = page.locator(f"{sel} .attn-handle-dot").bounding_box()
            x0, y0 = b["x"] + b["width"] / 2, b["y"] + b["height"] / 2
            before = page.evaluate(STATE_JS, name)["params"]
            cdp.send(
                "Input.dispatchTouchEvent",
                {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]},
            )
            for t in range(1, 11):
                cdp.send(
                    "Input.dispatchTouchEvent",
                    {
                        "type": "touchMove",
                        "touchPoints": [{"x": x0 + dx * t / 10, "y": y0 + dy * t / 10}],
                    },
                )
            cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
            s = page.evaluate(STATE_JS, name)
            b2 = page.locator(f"{sel} .attn-handle-dot").bounding_box()
            moved = (b2["x"] - b["x"], b2["y"] - b["y"])
            assert abs(moved[0] - dx) < 6 and abs(moved[1] - dy) < 6, (
                f"{name}: the finger moved ({dx}, {dy}) px, the dot ({moved[0]:.0f}, "
                f"{moved[1]:.0f})"
            )
            assert s["params"] != before
            err = np.abs(
                np.array(s["weights"])
                - np.asarray(_expected(s["params"], name)["weights"]).reshape(-1)
            ).max()
            assert err <= TOL, (
                f"{name} at {s['params']}: weights differ from attnlib's by {err:.2e}"
            )
        assert page.evaluate("() => window.scrollY") == scroll, (
            f"{name}: dragging the dot scrolled the page"
        )


def test_the_arrow_keys_move_the_query_one_grid_step(browser, visits):
    with _opened(browser, visits) as page:
        page.locator('.attn-explorer[data-explorer="soft_lookup"] .attn-handle').focus()
        for key in ["ArrowRight"] * 3 + ["ArrowUp"] * 2 + ["ArrowDown"]:
            page.keyboard.press(key)
        s = page.evaluate(STATE_JS)
        assert (s["params"]["query_x"], s["params"]["query_y"]) == (0.65, -0.45), s["params"]
        assert s["valuetext"] == "query at x = 0.65, y = -0.45"
        for _ in range(80):  # 63 steps reach the edge; held there, it stays on the grid
            page.keyboard.press("ArrowLeft")
        assert page.evaluate(STATE_JS)["params"]["query_x"] == -2.5
        assert json.dumps(page.evaluate(STATE_JS)["params"])  # still a well-formed frame


LINK_JS = (
    """
async (j) => {
  const ex = document.querySelector('.attn-explorer[data-explorer="soft_lookup"]');
  const svg = ex.querySelector('svg.attn-heatmap');
  const hover = """
    + HOVER
    + """;
  hover(svg, 0, j);                                     // read column j of the heatmap
  const ringed = (panel) => [...ex.querySelectorAll(`svg.attn-lines[data-panel="${panel}"] [data-linked] circle`)]
    .map((c, i) => c.classList.contains('attn-linked') ? i : -1).filter((i) => i >= 0);
  const fromMap = {keys: ringed('keys'), values: ringed('values')};
  // and back: the pointer on key (j + 2) % 7 in the plot reads that column
  const other = (j + 2) % 7;
  ex.querySelector('svg.attn-lines[data-panel="keys"] [data-linked] ').children[other]
    .dispatchEvent(new MouseEvent('mouseover', {bubbles: true}));
  const r = svg.parentElement.querySelector('.attn-readout');
  return {fromMap, other, readCol: r.dataset.row === undefined ? null : +r.dataset.col, readout: r.textContent,
          ringedAfter: ringed('values')};
}
"""
)


def test_reading_a_column_rings_its_key_and_value_and_back(browser, visits):
    with _opened(browser, visits) as page:
        for j in (1, 4):
            got = page.evaluate(LINK_JS, j)
            assert got["fromMap"] == {"keys": [j], "values": [j]}, (
                f"column {j} read: ringed {got['fromMap']}"
            )
            assert got["readCol"] == got["other"] and f"key {got['other']}" in got["readout"], got
            assert got["ringedAfter"] == [got["other"]], got


def test_the_weight_lines_can_be_switched_off(browser, visits):
    with _opened(browser, visits) as page:
        box = page.locator('.attn-explorer[data-explorer="soft_lookup"] input[data-spokes="keys"]')
        spokes = page.locator('.attn-explorer[data-explorer="soft_lookup"] .attn-spokes')
        assert box.is_checked() and spokes.get_attribute("visibility") in (None, "visible")
        label = page.evaluate(
            "() => document.querySelector('input[data-spokes=keys]').parentElement.textContent"
        )
        assert label.strip() == "lines to the keys"  # the switch ends the keys plot's legend
        box.click()
        assert not box.is_checked() and spokes.get_attribute("visibility") == "hidden"
        assert not spokes.is_visible()
        box.click()
        assert box.is_checked() and spokes.get_attribute("visibility") == "visible"
