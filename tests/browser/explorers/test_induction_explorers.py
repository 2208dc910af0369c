"""Chapter 10's three explorers in the built book: the heads over training (playback), any
head on three held-out sequences, and the ablation toggles. Each state the keyboard reaches
is checked against the frames the committed notebook saved (a training run's numbers, see
tests/browser/_frames.py's TRAINED); the page-level suites (fit, phone, dark, print, no JS, page
weight) enumerate this chapter from _toc.yml like the others."""

from __future__ import annotations

import json

import pytest
from _saved_state import saved_explorers, saved_frame

from .._frames import SNAPSHOT_JS, _check_frame
from ..conftest import CHAPTERS, install_clock, opened_explorer, pause_clock, wake_explorers

pytestmark = pytest.mark.browser

PAGE = next(p for p in CHAPTERS if "10_induction_heads" in p)
NOTEBOOK = "10_induction_heads.ipynb"

INDEX_JS = """
(name) => [...document.querySelectorAll('.attn-explorer')].findIndex((e) => e.dataset.explorer === name)
"""


def _snapshot(page, name):
    return page.evaluate(SNAPSHOT_JS, page.evaluate(INDEX_JS, name))


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
