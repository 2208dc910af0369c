"""Chapter 2's kernel-regression explorer in the built book: the reader drags the query x
along the axis (mouse, touch, keyboard); the page computes the fit, the query's weight bars,
the kernel window and the heatmap itself (attnlib/static/src/primitives.js, `kernelFrame`). Each
state the page shows is checked against attnlib's (`scoringbook.compute`): weights
within 1e-4, every drawn series an affine image of attnlib's numbers."""

from __future__ import annotations

import contextlib
import random
import re

import pytest
from _heatmap_js import HOVER

from .._frames import MOVE_JS, _check_frame, snapshot
from ..conftest import opened_explorer, page_of

pytestmark = pytest.mark.browser

PAGE = page_of("kernel_regression")
NAME = "kernel_regression"
SEL = f'.attn-explorer[data-explorer="{NAME}"]'

STATE_JS = (
    """
() => {
  const ex = document.querySelector('%s');
  const knob = ex.querySelector('.attn-handle');
  const area = ex.querySelector('svg.attn-lines[data-panel="fit"] .attn-drag-area').getBoundingClientRect();
  const kb = knob.querySelector('.attn-handle-dot').getBoundingClientRect();
  return {k: [...document.querySelectorAll('.attn-explorer')].indexOf(ex),
          params: JSON.parse(ex.dataset.params), valuetext: knob.getAttribute('aria-valuetext'),
          role: knob.getAttribute('role'), live: ex.querySelector('.attn-live').textContent,
          area: [area.left, area.top, area.width, area.height],
          knob: [kb.left + kb.width / 2, kb.top + kb.height / 2],
          ytop: ex.querySelector('svg.attn-lines[data-panel="window"]').dataset.ytop};
}
"""
    % SEL
)


@contextlib.contextmanager
def _opened(browser, visits, **context):
    """The page, fresh, once the explorer is ready, scrolled to the fit."""
    with opened_explorer(browser, visits, PAGE, NAME, **context) as page:
        page.locator(f'{SEL} svg.attn-lines[data-panel="fit"]').scroll_into_view_if_needed()
        yield page


def _check(page, where: str) -> dict:
    s = page.evaluate(STATE_JS)
    snap = snapshot(page, s["k"])
    _check_frame(snap, f"{where} at {s['params']}")  # the bars' tops, the curves, the heatmap
    # the bars' feet (which _check_frame does not see): all on the axis, each bar upwards
    bars = next(
        x
        for ln in snap["lines"]
        for x in ln["series"]
        if x["name"] == "weight on each training point"
    )
    feet = [float(f) for f in re.findall(r"M[-\d.]+ ([-\d.]+)V", bars["d"])]
    tops = [float(t) for t in re.findall(r"V([-\d.]+)", bars["d"])]
    assert len(feet) == len(tops) == 40 and len(set(feet)) == 1, (
        f"{where}: bars stand on {sorted(set(feet))}"
    )
    assert all(t <= feet[0] + 1e-9 for t in tops), f"{where}: a bar hangs below its axis"
    q = s["params"]["query"]
    assert s["valuetext"] == f"query at x = {q:g}", s["valuetext"]
    return s


def _screen_x(s: dict, x: float) -> float:
    left, _, width, _ = s["area"]
    return left + width * x / 5.0  # the fit's x axis runs from 0 to 5


def test_the_page_computes_what_attnlib_computes_at_random_positions(browser, visits):
    from scoringbook.registry import DECLARATIONS

    decl = DECLARATIONS[NAME]()
    with _opened(browser, visits) as page:
        k = page.evaluate(STATE_JS)["k"]
        rng = random.Random(11)
        tops = set()
        for _ in range(40):
            for p in decl.params:
                page.evaluate(MOVE_JS, [k, p.name, rng.randrange(len(p.values))])
            tops.add(_check(page, "random position")["ytop"])
        assert len(tops) >= 2, f"the weights' y axis never changed its top: {tops}"


def test_dragging_the_query_with_the_mouse(browser, visits):
    with _opened(browser, visits) as page:
        s = page.evaluate(STATE_JS)
        assert s["role"] == "slider" and s["valuetext"] == "query at x = 1.5"
        for x in (3.2, 0.45, 4.75):
            s = page.evaluate(STATE_JS)
            page.mouse.move(*s["knob"])
            page.mouse.down()
            page.mouse.move(
                _screen_x(s, x), s["knob"][1] - 40, steps=8
            )  # off the axis: only x counts
            page.mouse.up()
            s = _check(page, f"dragged to {x}")
            assert abs(s["params"]["query"] - x) < 1e-9, (
                f"dragged to x = {x}, the page says {s['params']}"
            )
            assert f"query x {x:.2f}: the fit at the query is" in s["live"], s["live"]


def test_dragging_the_query_by_touch(browser, visits):
    with _opened(
        browser, visits, viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
    ) as page:
        cdp = page.context.new_cdp_session(page)
        scroll_before = page.evaluate("() => window.scrollY")
        for x in (2.5, 0.8):
            s = page.evaluate(STATE_JS)
            (x0, y0), x1 = s["knob"], _screen_x(s, x)
            cdp.send(
                "Input.dispatchTouchEvent",
                {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]},
            )
            for t in range(1, 9):
                cdp.send(
                    "Input.dispatchTouchEvent",
                    {
                        "type": "touchMove",
                        "touchPoints": [{"x": x0 + (x1 - x0) * t / 8, "y": y0 - 3 * t}],
                    },
                )
            cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
            s = _check(page, f"touch-dragged to {x}")
            assert abs(s["params"]["query"] - x) <= 0.05 + 1e-9, (
                f"touch-dragged to x = {x}: {s['params']}"
            )
        assert page.evaluate("() => window.scrollY") == scroll_before, (
            "dragging the dot scrolled the page"
        )


def test_the_keys_move_the_query_one_grid_step(browser, visits):
    with _opened(browser, visits) as page:
        page.locator(f"{SEL} .attn-handle").focus()
        for key in ["ArrowRight"] * 3 + ["ArrowLeft"]:
            page.keyboard.press(key)
        assert _check(page, "keys")["params"]["query"] == 1.6
        page.keyboard.press("ArrowUp")
        assert _check(page, "up")["params"]["query"] == 1.65  # up increases, as on a slider
        page.keyboard.press("End")
        assert _check(page, "End")["params"]["query"] == 5.0
        page.keyboard.press("PageDown")
        assert _check(page, "PageDown")["params"]["query"] == 4.5
        page.keyboard.press("Home")
        assert _check(page, "Home")["params"]["query"] == 0.0
        page.keyboard.press("ArrowLeft")  # held at the end of the axis
        assert _check(page, "below 0")["params"]["query"] == 0.0


def test_a_narrow_window_and_the_empty_window_rule_in_the_page(browser, visits):
    from scoringbook.registry import DECLARATIONS

    decl = DECLARATIONS[NAME]()
    with _opened(browser, visits) as page:
        k = page.evaluate(STATE_JS)["k"]
        idx = {p.name: p for p in decl.params}
        page.evaluate(MOVE_JS, [k, "kernel", idx["kernel"].options.index("boxcar")])
        page.evaluate(MOVE_JS, [k, "bandwidth", idx["bandwidth"].values.index(0.0613)])
        page.evaluate(MOVE_JS, [k, "query", idx["query"].values.index(2.5)])
        s = _check(page, "boxcar, σ = 0.0613, x = 2.5")
        assert s["ytop"] == "1", "one bar of weight 1: the axis must reach 1"
        assert "all of the weight is on the training input at x = 2.41" in s["live"], s["live"]
        page.evaluate(MOVE_JS, [k, "kernel", idx["kernel"].options.index("constant")])
        s = _check(page, "constant")
        assert "every training input has the same weight, 0.025" in s["live"], s["live"]
        # the outlined heatmap row is a fixed query, said so, with its x (the query is 2.5)
        assert "the outlined heatmap row is the fixed query nearest yours, x = " in s["live"]
        assert s["ytop"] == "0.125"


LINK_JS = """
async (i) => {
  const ex = document.querySelector('%s');
  const svg = ex.querySelector('svg.attn-heatmap');
  const hover = %s;
  hover(svg, i, 3);                                     // read row i of the heatmap
  const dots = ex.querySelector('svg.attn-lines[data-panel="fit"] [data-linked="rows"]');
  const ringed = () => [...dots.children].map((c, r) => c.classList.contains('attn-linked') ? r : -1).filter((r) => r >= 0);
  const fromMap = ringed();
  const other = (i + 5) %% 20;                          // and back: the pointer on another query's dot
  dots.children[other].dispatchEvent(new MouseEvent('mouseover', {bubbles: true}));
  const r = svg.parentElement.querySelector('.attn-readout');
  return {fromMap, other, readRow: +r.dataset.row, readout: r.textContent, ringedAfter: ringed()};
}
""" % (SEL, HOVER)


def test_reading_a_row_rings_its_query_on_the_fit_and_back(browser, visits):
    with _opened(browser, visits) as page:
        for i in (2, 17):
            got = page.evaluate(LINK_JS, i)
            assert got["fromMap"] == [i], f"row {i} read: ringed {got['fromMap']}"
            assert got["readRow"] == got["other"] and got["ringedAfter"] == [got["other"]], got
            # labelled rows are read as "row i, query “x”, ..." (a label never reads as an index)
            assert re.match(r"row \d+, query \u201c[\d.]+\u201d, ", got["readout"]), got["readout"]
