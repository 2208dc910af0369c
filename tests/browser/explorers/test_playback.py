"""Play / pause over a slider (Slider(play=True)) in the built book: chapters 7's and 2's
training playbacks and chapter 4's query angle play to the end and stop, pause, respect reduced
motion; normal speed plays chapter 2's 100 steps in 5 to 10 s; Escape pauses.

A playback steps on setTimeout (attnlib/static/src/render.js). Each test installs Playwright's
clock before the page loads and pauses it once the explorer is ready (conftest.install_clock,
pause_clock); the page's time then moves only as the test advances it (page.clock.run_for), so
what a playback has done after so many milliseconds is exact however busy the machine is: these
tests share the cores with the others."""

from __future__ import annotations

import pytest
from _craft import DESKTOP

from ..conftest import (
    CHAPTERS,
    install_clock,
    page_of,
    pause_clock,
    wake_explorers,
)

pytestmark = pytest.mark.browser

# chapter 7 (Bahdanau attention), named: its place in the book moves as chapters are added
BAHDANAU = next(p for p in CHAPTERS if p.endswith("07_bahdanau_attention.html"))

PLAYERS = [
    (page_of("alignment_playback"), "alignment_playback", "step"),
    (page_of("additive_attention"), "additive_attention", "angle"),
    (page_of("bandwidth_training"), "bandwidth_training", "step"),
]

STATE_JS = """
([name, param]) => {
  const ex = document.querySelector(`.attn-explorer[data-explorer="${name}"]`);
  const s = ex.querySelector(`.attn-slider[data-param="${param}"]`);
  const b = ex.querySelector(`.attn-play-button[data-param="${param}"]`);
  const sp = b.parentElement.querySelector('.attn-speed');
  return {index: +s.value, max: +s.max, params: JSON.parse(ex.dataset.params), button: b.textContent,
          speedHidden: sp.hidden, speeds: [...sp.options].map((o) => o.textContent)};
}
"""

# Records every redraw of the explorer (a change of its data-params): the slider's position,
# the button's label and the page's (virtual) time.
RECORD_JS = """
([name, param]) => {
  const ex = document.querySelector(`.attn-explorer[data-explorer="${name}"]`);
  const s = ex.querySelector(`.attn-slider[data-param="${param}"]`);
  const b = ex.querySelector(`.attn-play-button[data-param="${param}"]`);
  window.__seen = [];
  new MutationObserver(() => window.__seen.push({index: +s.value, button: b.textContent, t: performance.now()}))
    .observe(ex, {attributes: true, attributeFilter: ['data-params']});
}
"""


def _open(browser, visits, page_name, name, **context):
    visits(page_name)
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, **context)
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    install_clock(page)
    page.goto(f"{visits.base_url}/{page_name}", wait_until="load")
    assert wake_explorers(page, only=name)["woken"] == 1, f"{page_name}: no explorer {name!r}"
    pause_clock(page)
    return ctx, page, errors


@pytest.mark.parametrize("page_name, name, param", PLAYERS)
def test_play_steps_to_the_end_and_stops(browser, visits, page_name, name, param):
    ctx, page, errors = _open(browser, visits, page_name, name)
    try:
        ex = page.locator(f'.attn-explorer[data-explorer="{name}"]')
        s0 = page.evaluate(STATE_JS, [name, param])
        assert s0["button"] == "Play" and s0["speeds"] == ["slow", "normal", "fast"]
        ex.locator(".attn-speed").select_option(label="fast")
        page.evaluate(RECORD_JS, [name, param])
        ex.locator(".attn-play-button").click()
        assert page.evaluate(STATE_JS, [name, param])["button"] == "Pause"
        # a whole run at fast speed takes 3 s of page time (at most 40 ms a step): ten times that
        page.clock.run_for(30_000)
        last = page.evaluate(STATE_JS, [name, param])
        assert last["button"] == "Play", f"playback did not stop: {last}"
        top = last["max"]
        assert last["index"] == top, f"stopped at {last['index']} of {top}"
        indices = [x["index"] for x in page.evaluate("() => window.__seen")]
        # every position in turn, once; at the end, Play starts again from 0
        start = s0["index"]
        want = list(range(0, top + 1)) if start == top else list(range(start + 1, top + 1))
        assert indices == want, f"played {indices} from {start}"
        page.clock.run_for(5_000)  # and stays stopped
        assert page.evaluate(STATE_JS, [name, param])["index"] == top
        assert len(page.evaluate("() => window.__seen")) == len(want), "kept redrawing"
        assert not errors, errors
    finally:
        ctx.close()


def test_pause_and_moving_the_slider_stop_playback(browser, visits):
    page_name, name, param = PLAYERS[1]
    ctx, page, errors = _open(browser, visits, page_name, name)
    try:
        ex = page.locator(f'.attn-explorer[data-explorer="{name}"]')
        button = ex.locator(".attn-play-button")
        button.click()
        page.clock.run_for(700)
        button.click()  # pause
        paused = page.evaluate(STATE_JS, [name, param])
        assert paused["button"] == "Play" and 0 < paused["index"] < paused["max"], paused
        page.clock.run_for(5_000)
        assert page.evaluate(STATE_JS, [name, param])["index"] == paused["index"], (
            "kept playing after Pause"
        )
        button.click()  # play again, then take the query (the angle's dragged point) with the keys
        page.clock.run_for(400)
        ex.locator(".attn-handle").focus()
        page.keyboard.press("Home")
        page.clock.run_for(5_000)
        now = page.evaluate(STATE_JS, [name, param])
        assert now["index"] == 0 and now["button"] == "Play", (
            f"taking the query did not stop playback: {now}"
        )
        assert not errors, errors
    finally:
        ctx.close()


def test_with_reduced_motion_play_steps_once_per_press(browser, visits):
    page_name, name, param = PLAYERS[1]
    ctx, page, errors = _open(browser, visits, page_name, name, reduced_motion="reduce")
    try:
        ex = page.locator(f'.attn-explorer[data-explorer="{name}"]')
        s0 = page.evaluate(STATE_JS, [name, param])
        assert s0["button"] == "Next step" and s0["speedHidden"], s0
        ex.locator(".attn-play-button").click()
        page.clock.run_for(5_000)  # nothing moves on its own
        s1 = page.evaluate(STATE_JS, [name, param])
        assert s1["index"] == s0["index"] + 1, f"one press moved {s0['index']} -> {s1['index']}"
        assert not errors, errors
    finally:
        ctx.close()


# ----------------------------------------------------------------------------- pace and Escape

# Records, in the page, each step of a playback: the moments (page time) its explorer's
# parameters change.
STEPS_JS = """
(name) => {
  window.__steps = [];
  new MutationObserver(() => window.__steps.push(performance.now())).observe(
    document.querySelector(`.attn-explorer[data-explorer="${name}"]`),
    {attributes: true, attributeFilter: ['data-params']});
}
"""


def test_play_at_normal_speed_runs_a_hundred_steps_in_five_to_ten_seconds(browser, visits, margin):
    """The pace in page time: the playback steps on setTimeout, which Playwright's clock drives
    (conftest.install_clock), so a busy machine cannot move the measurement."""
    name = page_of("bandwidth_training")  # 100 steps of Adam
    visits(name)
    ctx = browser.new_context(**DESKTOP)
    try:
        page = ctx.new_page()
        install_clock(page)
        page.goto(f"{visits.base_url}/{name}", wait_until="load")
        wake_explorers(page, only="bandwidth_training")  # it wakes near the viewport
        pause_clock(page)
        ex = page.locator('.attn-explorer[data-explorer="bandwidth_training"]')
        assert ex.locator(".attn-speed option:checked").text_content() == "normal"
        steps = int(ex.locator('.attn-slider[data-param="step"]').get_attribute("max"))
        assert steps == 100
        page.evaluate(STEPS_JS, "bandwidth_training")
        t0 = page.evaluate("() => performance.now()")
        ex.locator(".attn-play-button").click()
        page.clock.run_for(4_999)
        early = len(page.evaluate("() => window.__steps"))
        page.clock.run_for(20_001)
        assert ex.locator(".attn-play-button").text_content() == "Play", "still playing after 25 s"
        assert ex.locator('.attn-slider[data-param="step"]').input_value() == str(steps), (
            "did not play to the end"
        )
        times = page.evaluate("() => window.__steps")
        assert len(times) == steps, f"{len(times)} redraws for {steps} steps"
        # from the press to the last step
        took = (times[-1] - t0) / 1000
        gaps = [b - a for a, b in zip([t0, *times], times)]
        what = "chapter 2's training playback at normal speed"
        margin(f"{what}: s for 100 steps of page time, at most", took, 10, at_least=False)
        margin(f"{what}: s for 100 steps of page time, at least", took, 5)
        assert 5 <= took <= 10 and early < steps, (
            f"normal speed plays {steps} steps in {took:.2f} s ({early} steps in the first 5 s)"
        )
        assert max(gaps) <= 1.5 * min(gaps), f"uneven steps: {min(gaps):.0f}-{max(gaps):.0f} ms"
    finally:
        ctx.close()


def test_escape_pauses_playback(browser, visits):
    name = BAHDANAU  # chapter 7's training playback
    visits(name)
    ctx = browser.new_context(**DESKTOP)
    try:
        page = ctx.new_page()
        install_clock(page)
        page.goto(f"{visits.base_url}/{name}", wait_until="load")
        wake_explorers(page, only="alignment_playback")
        pause_clock(page)
        ex = page.locator('.attn-explorer[data-explorer="alignment_playback"]')
        ex.locator(".attn-slider").evaluate(
            "(s) => { s.value = '0'; s.dispatchEvent(new Event('input', {bubbles: true})); }"
        )
        ex.locator(".attn-play-button").click()
        page.clock.run_for(1_500)
        page.evaluate(
            "() => document.activeElement && document.activeElement.blur()"
        )  # the focus leaves the explorer
        page.keyboard.press("Escape")

        def state():
            return (
                ex.locator(".attn-play-button").text_content(),
                ex.locator(".attn-slider").input_value(),
            )

        button, at = state()
        assert button == "Play", f"Escape did not pause: the button says {button!r}"
        page.clock.run_for(5_000)
        assert state()[1] == at, "kept playing after Escape"
        assert 0 < int(at) < int(ex.locator(".attn-slider").get_attribute("max")), (
            f"paused at {at}"
        )
    finally:
        ctx.close()
