"""Explorers for keyboard and screen-reader users, and in dark mode.

Each slider says its value in words (``aria-valuetext`` equals the value shown next to it) and
has a label in words; each heatmap can be walked with the arrow keys and has a readout line
that names the row, the column and the weight (a labelled row or column with its label in
quotes); each explorer has an ``aria-live`` sentence that follows the controls and a Reset
button; with the OS in dark mode the explorers are drawn dark.
"""

from __future__ import annotations

import re

import pytest
from _craft import DESKTOP
from _heatmap_js import CELLS

from .._frames import MOVE_JS, snapshot
from .._reader import reads
from ..conftest import CHAPTERS, EXPLORER_CHAPTERS, chapter_page, wake_explorers

# the dark-mode check reads the desktop ``reading`` (tests/browser/_reader.py): one load per
# page and mode serves it and the other files' checks of that view
pytestmark = pytest.mark.browser

# chapter 7 (Bahdanau attention), named: its place in the book moves as chapters are added
BAHDANAU = next(p for p in CHAPTERS if p.endswith("07_bahdanau_attention.html"))

CONTROLS_JS = """
() => [...document.querySelectorAll('.attn-explorer')].map((ex) => ({
  name: ex.dataset.explorer,
  live: (ex.querySelector('.attn-live[aria-live]') || {}).textContent || null,
  reset: !!ex.querySelector('button.attn-reset'),
  sliders: [...ex.querySelectorAll('.attn-slider')].map((s) => ({
    param: s.dataset.param, index: +s.value, max: +s.max,
    valuetext: s.getAttribute('aria-valuetext'),
    label: s.closest('label') ? s.closest('label').firstChild.textContent.trim() : s.getAttribute('aria-label'),
    shown: (ex.querySelector(`output.attn-value[data-param="${s.dataset.param}"]`) || {}).textContent,
  })),
  choices: [...ex.querySelectorAll('.attn-choice')].map((c) => ({
    param: c.dataset.param, label: c.closest('label') ? c.closest('label').firstChild.textContent.trim() : null,
  })),
}))
"""


def _explorers(page):
    return page.evaluate(CONTROLS_JS)


@pytest.mark.parametrize("name", EXPLORER_CHAPTERS)
def test_sliders_say_their_value_in_words(visits, name):
    page = visits(name).page
    for k, ex in enumerate(_explorers(page)):
        for s in ex["sliders"]:
            where = f"{name} explorer #{k} ({ex['name']}), slider {s['param']!r}"
            assert s["label"] and not re.search(r"\w_\w|\[\d+\]", s["label"]), (
                f"{where}: label {s['label']!r} reads like code"
            )
            for i in sorted({0, s["max"] // 2, s["max"], s["index"]}):
                page.evaluate(MOVE_JS, [k, s["param"], i])
                now = next(x for x in _explorers(page)[k]["sliders"] if x["param"] == s["param"])
                assert now["shown"] and now["valuetext"] == now["shown"], (
                    f"{where} at position {i}: aria-valuetext {now['valuetext']!r} but the "
                    "page shows "
                    f"{now['shown']!r}"
                )
        for c in ex["choices"]:
            assert c["label"] and not re.search(r"\w_\w", c["label"]), (
                f"{name}: choice label {c['label']!r}"
            )


READOUT_JS = """
(k) => {
  const svg = document.querySelectorAll('.attn-explorer')[k].querySelector('svg.attn-heatmap');
  const r = svg.parentElement.querySelector('.attn-readout');
  const value = r.dataset.row === undefined ? null : svg.attnValues[+r.dataset.row * +svg.dataset.cols + +r.dataset.col];
  return {text: r.textContent, row: r.dataset.row, col: r.dataset.col,
          value, focused: document.activeElement === svg};
}
"""


@pytest.mark.parametrize("name", EXPLORER_CHAPTERS)
def test_heatmap_cells_walk_with_the_arrow_keys(visits, name):
    page = visits(name).page
    n = page.evaluate("() => document.querySelectorAll('.attn-explorer').length")
    tested = 0
    for k in range(n):
        has = page.evaluate(
            "(k) => !!document.querySelectorAll('.attn-explorer')[k].querySelector('svg.attn-heatmap')",
            k,
        )
        if not has:
            continue
        tested += 1
        page.evaluate(
            "(k) => document.querySelectorAll('.attn-explorer')[k].querySelector('svg.attn-heatmap').focus()",
            k,
        )
        first = page.evaluate(READOUT_JS, k)
        assert first["focused"], f"{name} explorer #{k}: the heatmap cannot take keyboard focus"
        assert (first["row"], first["col"]) == ("0", "0"), (
            f"{name} explorer #{k}: focus does not read cell (0, 0)"
        )
        seen = [(first["row"], first["col"])]
        for key in ("ArrowRight", "ArrowDown", "ArrowLeft", "End"):
            page.keyboard.press(key)
            seen.append((page.evaluate(READOUT_JS, k)["row"], page.evaluate(READOUT_JS, k)["col"]))
        now = page.evaluate(READOUT_JS, k)
        assert len(set(seen)) >= 2, (
            f"{name} explorer #{k}: the arrow keys do not move the readout ({seen})"
        )
        nums = re.findall(r"-?\d+(?:\.\d+)?", now["text"])
        assert nums and abs(float(nums[-1]) - float(now["value"])) <= 1e-3, (
            f"{name} explorer #{k}: readout {now['text']!r} does not give the weight "
            f"{now['value']} of its cell"
        )
    # chapter 2's explorers draw lines, not heatmaps
    if name != chapter_page("02_attention_pooling"):
        assert tested, f"{name}: no heatmap explorer"


def _fresh(browser, visits, name, **context):
    """The page loaded anew (the session's copy has had its sliders moved by other tests)."""
    visits(name)  # the page builds and is ready in the default (light) run
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, **context)
    page = ctx.new_page()
    page.goto(f"{visits.base_url}/{name}", wait_until="load")
    wake_explorers(page)
    return ctx, page


@pytest.fixture(scope="module")
def fresh(browser, visits):
    """fresh.take(name) -> the page loaded anew, for the reset check and then the hover check
    of that page (issue 36: one load for the two, not one each). The reset check gives it back
    (fresh.give_back(name)) only when it passed: it asserts that Reset put every explorer back
    as loaded, so the hover check reads a page as loaded; a page not given back is closed, and
    the next check of that page loads its own. The tests of a page run one after the other
    (``name`` is parametrized at module scope)."""

    class Fresh:
        def __init__(self):
            self.held, self.taken = {}, []

        def take(self, name):
            for ctx in self.taken:
                ctx.close()
            self.taken = []
            for old in [n for n in self.held if n != name]:
                self.held.pop(old)[0].close()
            ctx, page = self.held.pop(name, None) or _fresh(browser, visits, name)
            self.taken.append(ctx)
            return page

        def give_back(self, name):
            ctx = self.taken.pop()
            self.held[name] = (ctx, ctx.pages[0])

        def close(self):
            for ctx in self.taken + [c for c, _ in self.held.values()]:
                ctx.close()

    f = Fresh()
    yield f
    f.close()


@pytest.mark.parametrize("name", EXPLORER_CHAPTERS, scope="module")
def test_reset_and_live_sentence(fresh, name):
    page = fresh.take(name)
    _reset_and_live_sentence(page, name)
    fresh.give_back(name)


def _reset_and_live_sentence(page, name):
    for k, ex in enumerate(_explorers(page)):
        where = f"{name} explorer #{k} ({ex['name']})"
        assert ex["reset"], f"{where}: no Reset button"
        assert ex["live"] and len(ex["live"]) > 10, (
            f"{where}: no aria-live sentence ({ex['live']!r})"
        )
        start = snapshot(page, k)
        s = ex["sliders"][0] if ex["sliders"] else None
        if s is None:
            continue
        target = 0 if s["index"] != 0 else s["max"]
        page.evaluate(MOVE_JS, [k, s["param"], target])
        moved = _explorers(page)[k]
        assert moved["live"] != ex["live"], (
            f"{where}: the aria-live sentence did not follow the slider"
        )
        page.evaluate(
            "(k) => document.querySelectorAll('.attn-explorer')[k].querySelector('button.attn-reset').click()",
            k,
        )
        back = snapshot(page, k)
        assert back["params"] == start["params"], (
            f"{where}: Reset gave {back['params']}, expected {start['params']}"
        )
        assert _explorers(page)[k]["live"] == ex["live"], (
            f"{where}: after Reset the sentence differs"
        )


DARK_JS = (
    """
async () => {
  const readCells = """
    + CELLS
    + """;
  const lum = (c) => { const m = c.match(/\\d+(\\.\\d+)?/g).map(Number);
    return (0.2126 * m[0] + 0.7152 * m[1] + 0.0722 * m[2]) / 255; };
  const bodyBg = getComputedStyle(document.body).backgroundColor;
  return {
    theme: document.documentElement.dataset.theme,
    body: lum(bodyBg),
    explorers: await Promise.all([...document.querySelectorAll('.attn-explorer')].map(async (ex) => {
      const svg = ex.querySelector('svg.attn-heatmap');
      const cells = svg ? await readCells(svg) : [];
      const low = cells.length ? cells.reduce((a, b) => (a[2] <= b[2] ? a : b)) : null;  // the smallest weight
      return {bg: lum(getComputedStyle(ex).backgroundColor), fg: lum(getComputedStyle(ex).color),
              lowCell: low ? lum(low[3]) : null};
    })),
  };
}
"""
)


@reads("woken", "dark-explorers")
def _dark_explorers(page, reading) -> dict:
    return page.evaluate(DARK_JS)


@pytest.mark.parametrize("name", EXPLORER_CHAPTERS)
def test_explorers_are_dark_in_dark_mode(visits, reading, margin, name):
    visits(name)  # the page builds and is ready in the default (light) run
    d = reading(name, "dark").get("dark-explorers")
    assert d["theme"] == "dark", (
        f"{name}: with the OS in dark mode the page's theme is {d['theme']!r}"
    )
    margin(f"{name}: page background luminance, dark", d["body"], 0.2, at_least=False)
    assert d["body"] < 0.2, f"{name}: page background luminance {d['body']:.2f} in dark mode"
    for k, ex in enumerate(d["explorers"]):
        margin(f"{name} explorer #{k}: background luminance, dark", ex["bg"], 0.2, at_least=False)
        margin(f"{name} explorer #{k}: text luminance, dark", ex["fg"], 0.6)
        if ex["lowCell"] is not None:
            margin(
                f"{name} explorer #{k}: smallest weight's luminance, dark",
                ex["lowCell"],
                0.3,
                at_least=False,
            )
        assert ex["bg"] < 0.2 and ex["fg"] > 0.6, (
            f"{name} explorer #{k}: background luminance {ex['bg']:.2f}, text "
            f"{ex['fg']:.2f} in dark mode"
        )
        if ex["lowCell"] is not None:  # small weights recede into the dark background
            assert ex["lowCell"] < 0.3, (
                f"{name} explorer #{k}: the smallest weight is drawn bright ({ex['lowCell']:.2f})"
            )


HOVER_JS = """
(k) => {
  const svg = document.querySelectorAll('.attn-explorer')[k].querySelector('svg.attn-heatmap');
  const r = svg.parentElement.querySelector('.attn-readout'), t = svg.querySelector('image.attn-cells title');
  const value = r.dataset.row === undefined ? null : svg.attnValues[+r.dataset.row * +svg.dataset.cols + +r.dataset.col];
  return {value, row: r.dataset.row, col: r.dataset.col, title: t ? t.textContent : null, readout: r.textContent};
}
"""


@pytest.mark.parametrize("name", EXPLORER_CHAPTERS, scope="module")
def test_hovering_a_cell_shows_its_weight(fresh, name):
    page = fresh.take(name)  # as loaded (after the reset check, which gave it back as loaded)
    for k, ex in enumerate(_explorers(page)):
        cells = page.locator(".attn-explorer").nth(k).locator("svg.attn-heatmap image.attn-cells")
        if not cells.count() or not ex["sliders"]:
            continue
        cells.first.scroll_into_view_if_needed()
        box = cells.first.bounding_box()
        cells.first.hover(position={"x": 2, "y": 2})  # the real pointer, over the first cell
        got = page.evaluate(HOVER_JS, k)
        where = f"{name} explorer #{k} ({ex['name']})"
        assert (got["row"], got["col"]) == ("0", "0"), (
            f"{where}: the pointer over cell (0, 0) reads {got}"
        )
        for text in (got["title"], got["readout"]):
            nums = re.findall(r"-?\d+(?:\.\d+)?", text or "")
            assert nums and abs(float(nums[-1]) - float(got["value"])) <= 1e-3, (
                f"{where}: hover shows {text!r}, the cell's weight is {got['value']}"
            )
        # the last cell, bottom right, by position on the scaled picture
        cells.first.hover(position={"x": box["width"] - 2, "y": box["height"] - 2})
        far = page.evaluate(HOVER_JS, k)
        rows, cols = page.evaluate(
            "(k) => { const s = document.querySelectorAll('.attn-explorer')[k]"
            ".querySelector('svg.attn-heatmap'); return [+s.dataset.rows, "
            "+s.dataset.cols]; }",
            k,
        )
        assert (far["row"], far["col"]) == (str(rows - 1), str(cols - 1)), (
            f"{where}: the pointer over the last cell reads {far['row']}, {far['col']}"
        )
        s = ex["sliders"][0]
        page.evaluate(MOVE_JS, [k, s["param"], 0 if s["index"] else s["max"]])
        now = page.evaluate(HOVER_JS, k)
        if ": empty (" in (now["title"] or ""):  # a cell beyond this frame's input: no weight
            continue
        nums = re.findall(r"-?\d+(?:\.\d+)?", now["title"] or "")
        assert nums and abs(float(nums[-1]) - float(now["value"])) <= 1e-3, (
            f"{where}: after a redraw the tooltip says {now['title']!r}, the weight is "
            f"{now['value']}"
        )


# ----------------------------------------------------------------------------- a labelled readout


def test_a_labelled_cell_is_read_with_its_label_in_quotes(opened):
    import re

    from _heatmap_js import HOVER

    page = opened(BAHDANAU, **DESKTOP)  # chapter 7: the labels are characters, digits among them
    svg = page.locator('.attn-explorer[data-explorer="alignment_playback"] svg.attn-heatmap')
    r = svg.evaluate(f"(svg, [i, j]) => ({HOVER})(svg, i, j)", [3, 16])
    want = (
        r"row 3, output character \(query\) \u201c.\u201d, "
        r"column 16, input character \(key\) \u201c.\u201d: \d\.\d{4}"
    )
    assert re.fullmatch(want, r["readout"]), f"the readout says {r['readout']!r}"
    live = page.locator(
        '.attn-explorer[data-explorer="alignment_playback"] .attn-live'
    ).text_content()
    # the sentence speaks the row just read and names each by place and label (issue 39:
    # "output character “2” puts 0.63 on “0”" left open which "2" and which "0")
    got = re.search(
        r"row (\d+), output character \(query\) \u201c(.)\u201d puts [\d.]+ of its weight on "
        r"input character \(key\) \u201c(.)\u201d \(column (\d+)\)",
        live,
    )
    assert got, live
    assert got[1] == "3" and "2026-11-05"[int(got[1])] == got[2], live
    assert "Thursday, 5 November 2026"[int(got[4])].replace(" ", "␣") == got[3], live
