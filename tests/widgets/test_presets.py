"""Things to try as presets inside an explorer (issue 26): ``Declaration(presets=...)``.

- a preset naming an unknown control, or a value off its control's grid, is refused with a
  ValueError (ExplorerError) naming it;
- every explorer of chapters 1-5 carries its chapter's things to try, each on its grid;
- the page draws one button per preset (named by its label, in a group named "Things to
  try") and a notice line read out by screen readers; a click or the keyboard moves the
  controls, redraws and shows the notice; Reset clears it;
- instruction (notice), control (preset) and effect (the first picture) are on screen
  together at 390 x 844 and 1280 x 900;
- web/prerender-explorers.mjs draws the buttons and the notice in the static picture;
- a masked key's cell (a weight of exactly 0) is crossed out.
"""

from __future__ import annotations

import functools
import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from attnlib.widgets import (
    Choice,
    Declaration,
    Explorer,
    ExplorerError,
    Heatmap,
    Preset,
    Slider,
    standalone_html,
)
from scoringbook import registry

from ._built import built_explorer

ROOT = Path(__file__).resolve().parents[2]
BOOK = [n for n in registry.EXPLORERS]  # stored and live (a trained one needs its chapter's run)


def _decl(presets, **kw):
    return Declaration(
        name="demo",
        update=lambda t, kind: {"w": np.full((1, 2), 0.5)},
        params=[Slider("t", [0.5, 1.0, 2.0], default=1.0), Choice("kind", ["a", "b"])],
        panels=[Heatmap("w", rows_sum_to_one=True)],
        presets=presets,
        **kw,
    )


# ----------------------------------------------------------------------------- declarations


def test_a_preset_is_sent_to_the_page_as_indices():
    ex = Explorer(_decl([Preset("sharp", "Notice: one cell.", {"t": 0.5, "kind": "b"})]))
    assert ex.spec["presets"] == [
        {
            "label": "sharp",
            "notice": "Notice: one cell.",
            "indices": {"t": 0, "kind": 1},
            "texts": {},
        }
    ]
    assert "presets" not in Explorer(_decl([])).spec  # other explorers' saved state unchanged


@pytest.mark.parametrize(
    "values, match",
    [
        ({"temperature": 1.0}, r"'temperature' is not a control of this explorer"),
        ({"t": 0.7}, r"t=0\.7 is not on its grid \[0\.5, 1\.0, 2\.0\]"),
        ({"t": True}, r"t is a number on its grid; got a bool"),
        ({"kind": "c"}, r"kind must be one of \['a', 'b'\]; got 'c'"),
        ({"kind": 1}, r"kind must be one of"),
    ],
)
def test_a_preset_off_the_explorer_is_refused_naming_it(values, match):
    with pytest.raises(ValueError, match=match) as err:
        _decl([Preset("try", "Notice: x.", values)])
    assert isinstance(err.value, ExplorerError) and "preset 'try'" in str(err.value)


@pytest.mark.parametrize(
    "args, match",
    [
        (("", "Notice.", {"t": 1.0}), "label must be a non-empty string"),
        ((3, "Notice.", {"t": 1.0}), "label must be a string"),
        (("a", "two\nlines", {"t": 1.0}), "notice must be one non-empty line"),
        (("a", " ", {"t": 1.0}), "notice must be one non-empty line"),
        (("a", "Notice.", {}), "values must be a non-empty dict"),
        (("a", "Notice.", [("t", 1.0)]), "values must be a non-empty dict"),
        (("a", "Notice.", {1: 1.0}), "control names must be strings"),
    ],
)
def test_a_malformed_preset_is_refused(args, match):
    with pytest.raises(ExplorerError, match=match):
        Preset(*args)


def test_presets_must_be_a_list_of_presets_with_distinct_labels():
    p = Preset("a", "Notice.", {"t": 1.0})
    with pytest.raises(ExplorerError, match="presets must be a list"):
        _decl(p)
    with pytest.raises(ExplorerError, match="presets must be Preset objects; got dict"):
        _decl([{"label": "a"}])
    with pytest.raises(ExplorerError, match="preset labels must be distinct"):
        _decl([p, Preset("a", "Other.", {"t": 2.0})])


@pytest.mark.parametrize("name", BOOK)
def test_every_explorer_of_chapters_1_to_5_has_its_things_to_try(name):
    decl = registry.DECLARATIONS[name]()
    assert len(decl.presets) >= 3, f"{name}: {len(decl.presets)} presets"
    for pr in decl.presets:
        assert pr.notice.startswith("Notice:"), f"{name}, {pr.label!r}: {pr.notice!r}"
        assert len(pr.label) <= 34, f"{name}: preset label {pr.label!r} is long for a button"


# ----------------------------------------------------------------------------- prerender


def test_the_static_picture_shows_the_presets_and_the_notice(tmp_path):
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    ex = registry.EXPLORERS["softmax_temperature"]()
    state = {
        "m1": {
            "model_name": "AnyModel",
            "state": {
                "name": ex.name,
                "spec": ex.spec,
                "data": ex.data,
                "indices": list(ex.indices),
                "texts": {},
            },
        }
    }
    page = (
        "<html><head>"
        '<script type="application/vnd.jupyter.widget-state+json">'
        + json.dumps({"version_major": 2, "version_minor": 0, "state": state})
        + "</script></head><body>"
        '<script type="application/vnd.jupyter.widget-view+json">{"model_id": "m1"}</script>'
        "</body></html>"
    )
    (tmp_path / "_static").mkdir()
    (tmp_path / "p.html").write_text(page)
    subprocess.run(
        [node, "prerender-explorers.mjs", str(tmp_path)],
        cwd=ROOT / "web",
        check=True,
        capture_output=True,
    )
    html = (tmp_path / "p.html").read_text()
    static = html[html.index('<div class="attn-static"') : html.index("<script")]
    assert 'role="group" aria-label="Things to try"' in static
    for pr in registry.DECLARATIONS["softmax_temperature"]().presets:
        assert f">{pr.label}</button>" in static.replace("&gt;", ">") or pr.label in static
    assert static.count('class="attn-preset"') == len(ex.spec["presets"])
    assert static.count("disabled") >= len(ex.spec["presets"])
    assert 'class="attn-notice"' in static and "this line says what to notice" in static
    # the picture keeps its sentence (as tall as the live explorer), silent until live
    assert "aria-live" not in static
    assert "softmax" in static and "of its weight on" in static


# ----------------------------------------------------------------------------- the page


@pytest.fixture
def browser(chromium):
    return chromium


@functools.cache
def _page(name: str) -> str:
    return standalone_html(built_explorer(name))  # built once per process (_built.py)


def _open(browser, name, width=1280, height=900):
    ctx = browser.new_context(viewport={"width": width, "height": height})
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_content(_page(name))
    page.wait_for_selector(".attn-explorer[data-ready=true]", timeout=10_000)
    return ctx, page, errors


STATE_JS = """() => { const ex = document.querySelector('.attn-explorer');
  return { params: JSON.parse(ex.dataset.params), frame: ex.dataset.frame,
    notice: ex.querySelector('.attn-notice').textContent,
    pressed: [...ex.querySelectorAll('.attn-preset')].map((b) => b.getAttribute('aria-pressed')),
    cells: [...ex.querySelectorAll('image.attn-cells')].map((i) => i.getAttribute('href')) }; }"""


@pytest.mark.browser
@pytest.mark.parametrize("name", ["softmax_temperature", "soft_lookup", "masking"])
def test_a_preset_moves_the_controls_and_shows_its_notice(browser, name):
    decl = registry.DECLARATIONS[name]()
    ctx, page, errors = _open(browser, name)
    try:
        group = page.query_selector(".attn-presets")
        assert group.get_attribute("role") == "group"
        assert group.get_attribute("aria-label") == "Things to try"
        notice = page.query_selector(".attn-notice")
        assert notice.get_attribute("aria-live") == "polite"
        buttons = page.query_selector_all("button.attn-preset")
        assert [b.text_content() for b in buttons] == [p.label for p in decl.presets]
        start = page.evaluate(STATE_JS)
        for k in range(len(decl.presets) - 1, -1, -1):
            pr = decl.presets[k]
            if k % 2:
                buttons[k].click()
            else:  # the keyboard: focus and Enter
                buttons[k].focus()
                page.keyboard.press("Enter")
            now = page.evaluate(STATE_JS)
            for control, value in pr.values.items():
                assert now["params"][control] == value, (
                    f"{name}, preset {pr.label!r}: {control} = {now['params'][control]!r}"
                )
            assert now["notice"] == pr.notice
            assert now["pressed"] == ["true" if j == k else "false" for j in range(len(buttons))]
            if now["params"] != start["params"]:
                assert now["cells"] != start["cells"], f"{name}, {pr.label!r}: nothing redrawn"
        # a slider moved off the preset: its notice no longer fits the picture, and says so
        # (it stood, speaking of a picture no longer shown: a cold read found it)
        on = page.evaluate(STATE_JS)
        slider = page.query_selector(".attn-explorer input[type=range]")
        if slider:
            slider.focus()
            page.keyboard.press("ArrowRight")
            if page.evaluate(STATE_JS)["params"] == on["params"]:  # at its right end
                page.keyboard.press("ArrowLeft")
        else:  # an explorer of text fields (masking: the sentence): type another word
            field = page.query_selector(".attn-explorer input[type=text]")
            assert field, f"{name}: neither a slider nor a text field to move off the preset"
            field.fill(field.input_value() + " more")
        off = page.evaluate(STATE_JS)
        assert off["params"] != on["params"], f"{name}: the slider did not move"
        assert (
            off["notice"]
            == f"Moved off “{decl.presets[0].label}”: its notice no longer fits the picture."
        )
        assert "true" not in off["pressed"], off["pressed"]
        buttons[0].click()  # back on it: its notice again
        assert page.evaluate(STATE_JS)["notice"] == decl.presets[0].notice
        page.click("button.attn-reset")
        end = page.evaluate(STATE_JS)
        assert end["params"] == start["params"] and end["cells"] == start["cells"]
        assert "true" not in end["pressed"] and end["notice"] == start["notice"]
        assert errors == []
    finally:
        ctx.close()


@pytest.mark.browser
@pytest.mark.parametrize("size", [(390, 844), (1280, 900)])
@pytest.mark.parametrize("name", BOOK)
def test_notice_preset_and_picture_are_on_screen_together(browser, name, size):
    ctx, page, _ = _open(browser, name, *size)
    try:
        buttons = page.query_selector_all("button.attn-preset")
        buttons[-1].click()
        # the reader has just tapped it: the list of things to try sits above the controls
        # (issue 39: a visible list, not a row that scrolls sideways inside the sticky bar),
        # so the pressed button at the top of the screen, the notice and the picture below it
        page.evaluate(
            "() => document.querySelector('.attn-preset[aria-pressed=true]')"
            ".scrollIntoView({block: 'start'})"
        )
        page.evaluate("() => window.scrollBy(0, -8)")
        boxes = page.evaluate(
            """() => { const ex = document.querySelector('.attn-explorer');
          const r = (e) => { const b = e.getBoundingClientRect();
            return [b.top, b.bottom, b.left, b.right]; };
          return { notice: r(ex.querySelector('.attn-notice')),
                   pressed: r(ex.querySelector('.attn-preset[aria-pressed=true]')),
                   picture: r(ex.querySelector('.attn-panels svg')),
                   scrollW: document.documentElement.scrollWidth }; }"""
        )
        w, h = size
        for what in ("notice", "pressed"):
            top, bottom, left, right = boxes[what]
            assert 0 <= top and bottom <= h and left >= 0 and right <= w, (
                f"{name} at {w}x{h}: the {what} is off screen: {boxes[what]}"
            )
        top, bottom, _, _ = boxes["picture"]
        assert top < h - 120, f"{name} at {w}x{h}: the picture starts at {top:.0f} px"
        assert boxes["scrollW"] <= w, f"{name} at {w}x{h}: the page scrolls sideways"
    finally:
        ctx.close()


@pytest.mark.browser
def test_masked_cells_are_crossed_out(browser):
    ctx, page, _ = _open(browser, "masking")
    try:
        masked = page.evaluate(
            "() => [...document.querySelectorAll('svg.attn-heatmap')]"
            ".map((s) => +s.dataset.masked)"
        )
        # 6 tokens: sentences of 4, 3 and 2 words leave 36 - 16, 36 - 9 and 36 - 4 cells at 0
        assert masked == [20, 27, 32]
        page.select_option("select[data-param=masking]", index=2)  # no masking: no zero
        masked = page.evaluate(
            "() => [...document.querySelectorAll('svg.attn-heatmap')]"
            ".map((s) => +s.dataset.masked)"
        )
        assert masked == [0, 0, 0]
        # one length per sentence: only the <pad> columns, 6 rows x (6 - l) keys
        page.select_option("select[data-param=masking]", index=0)
        masked = page.evaluate(
            "() => [...document.querySelectorAll('svg.attn-heatmap')]"
            ".map((s) => +s.dataset.masked)"
        )
        assert masked == [6 * 2, 6 * 3, 6 * 4]
    finally:
        ctx.close()
    ctx, page, _ = _open(browser, "additive_attention")
    try:
        page.evaluate(
            """() => { const s = document.querySelector('input[data-param=valid_len]');
              s.value = '3'; s.dispatchEvent(new Event('input')); }"""
        )
        svg = page.query_selector("svg.attn-heatmap")
        assert svg.get_attribute("data-masked") == "4"  # valid length 4 of 8: keys 4-7
    finally:
        ctx.close()


@pytest.mark.browser
def test_the_row_another_panel_shows_is_outlined_in_the_heatmap(browser):
    row = "() => document.querySelector('svg.attn-heatmap').dataset.currentRow"
    ctx, page, _ = _open(browser, "softmax_temperature")  # the line panel draws query 0
    try:
        assert page.evaluate(row) == "0"
        assert page.query_selector("svg.attn-heatmap rect.attn-current-row") is not None
    finally:
        ctx.close()
    decl = registry.DECLARATIONS["kernel_regression"]()
    heat_x = decl.live.spec()["heat_x"]
    queries = next(p for p in decl.params if p.name == "query").values
    ctx, page, _ = _open(browser, "kernel_regression")  # the heatmap row nearest the query
    try:
        for i in (0, 37, 90):
            page.evaluate(
                """(i) => { const s = document.querySelector('input[data-param=query]');
                  s.value = String(i); s.dispatchEvent(new Event('input')); }""",
                i,
            )
            want = min(range(len(heat_x)), key=lambda r: abs(heat_x[r] - queries[i]))
            assert page.evaluate(row) == str(want), f"query {queries[i]}"
    finally:
        ctx.close()
