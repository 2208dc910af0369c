"""Play / pause over a slider (Slider(play=True)): chapter 6's training playback and
chapter 4's query angle, in the built book."""

from __future__ import annotations

import time

import pytest

from .conftest import CHAPTERS, wake_explorers

# timed: the playback's pace is measured, so these run alone (pyproject.toml's `serial`)
pytestmark = [pytest.mark.browser, pytest.mark.serial]

PLAYERS = [
    (CHAPTERS[5], "alignment_playback", "step"),
    (CHAPTERS[3], "additive_attention", "angle"),
    (CHAPTERS[1], "bandwidth_training", "step"),
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


def _open(browser, visits, page_name, name, **context):
    visits(page_name)
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, **context)
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.goto(f"{visits.base_url}/{page_name}", wait_until="load")
    assert wake_explorers(page, only=name)["woken"] == 1, f"{page_name}: no explorer {name!r}"
    return ctx, page, errors


@pytest.mark.parametrize("page_name, name, param", PLAYERS)
def test_play_steps_to_the_end_and_stops(browser, visits, page_name, name, param):
    ctx, page, errors = _open(browser, visits, page_name, name)
    try:
        ex = page.locator(f'.attn-explorer[data-explorer="{name}"]')
        s0 = page.evaluate(STATE_JS, [name, param])
        assert s0["button"] == "Play" and s0["speeds"] == ["slow", "normal", "fast"]
        ex.locator(".attn-speed").select_option(label="fast")
        ex.locator(".attn-play-button").click()
        seen = [page.evaluate(STATE_JS, [name, param])]
        assert seen[0]["button"] == "Pause"
        deadline = time.monotonic() + 60
        while seen[-1]["button"] == "Pause" and time.monotonic() < deadline:
            page.wait_for_timeout(40)
            seen.append(page.evaluate(STATE_JS, [name, param]))
        last = seen[-1]
        assert last["button"] == "Play", "playback did not stop"
        assert last["index"] == last["max"], f"stopped at {last['index']} of {last['max']}"
        indices = [x["index"] for x in seen]
        assert indices == sorted(indices), f"playback went backwards: {indices}"
        assert len(set(indices)) >= min(5, last["max"]), (
            f"playback skipped through too few positions: {indices}"
        )
        start = (
            0 if s0["index"] == s0["max"] else s0["index"]
        )  # at the end, Play starts again from 0
        assert indices[0] <= start + 1
        page.wait_for_timeout(400)  # and stays stopped
        assert page.evaluate(STATE_JS, [name, param])["index"] == last["max"]
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
        page.wait_for_timeout(700)
        button.click()  # pause
        paused = page.evaluate(STATE_JS, [name, param])
        assert paused["button"] == "Play" and 0 < paused["index"] < paused["max"], paused
        page.wait_for_timeout(700)
        assert page.evaluate(STATE_JS, [name, param])["index"] == paused["index"], (
            "kept playing after Pause"
        )
        button.click()  # play again, then take the query (the angle's dragged point) with the keys
        page.wait_for_timeout(400)
        ex.locator(".attn-handle").focus()
        page.keyboard.press("Home")
        page.wait_for_timeout(700)
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
        page.wait_for_timeout(800)
        s1 = page.evaluate(STATE_JS, [name, param])
        assert s1["index"] == s0["index"] + 1, f"one press moved {s0['index']} -> {s1['index']}"
        assert not errors, errors
    finally:
        ctx.close()
