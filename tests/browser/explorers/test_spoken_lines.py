"""What chapters 9's and 10's explorers say in words, in the built book: the spoken line
(aria-live) reads a caption as the sentence it is, names a head once and speaks of the row the
reader reads; the playback's speed menu has a visible label.

A cold read (issue 39) heard "a word pair's; weight" in chapter 9, "head layer 1, head 1" and
always row 0 (a causal map's row 0 puts 1 on itself) in chapter 10's heads explorer, and found
the speed menu with no name on screen."""

from __future__ import annotations

import re

import pytest

from ..conftest import chapter_page, opened_explorer

pytestmark = pytest.mark.browser

CH09 = chapter_page("09_multi_head_attention")
CH10 = chapter_page("10_induction_heads")
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}

LIVE_JS = "(ex) => ex.querySelector('.attn-live[aria-live]').textContent"


def test_chapter_9_speaks_its_caption_as_one_sentence(browser, visits):
    with opened_explorer(browser, visits, CH09, "word_order") as page:
        ex = page.locator('.attn-explorer[data-explorer="word_order"]')
        said = ex.evaluate(LIVE_JS)
        shown = ex.locator(".attn-text-body").text_content()
    assert "word pair's weight" in said, said
    assert " ".join(shown.split()) in said, (shown, said)  # the caption's words, in order
    assert "head head" not in said, said


ROW_JS = """(ex) => {
  const svg = ex.querySelector('svg.attn-heatmap'), r = ex.querySelector('.attn-readout');
  const C = +svg.dataset.cols, i = +r.dataset.row, v = svg.attnValues;
  let best = 0;
  for (let j = 1; j < C; j++) if (v[i * C + j] > v[i * C + best]) best = j;
  return {row: i, best, weight: v[i * C + best], live: ex.querySelector('.attn-live').textContent};
}"""


def _spoken(r: dict) -> None:
    """The spoken line names the row being read and its largest weight, on its column."""
    assert f"row {r['row']}, " in r["live"], r
    m = re.search(
        r"puts (\d\.\d\d|all|nearly all) of its weight on .*\(column (\d+)\)\.$", r["live"]
    )
    assert m, r["live"]
    w = {"all": 1.0, "nearly all": 0.995}.get(m[1]) or float(m[1])
    assert int(m[2]) == r["best"] and abs(w - r["weight"]) <= 0.005, r


def test_the_heads_explorer_names_heads_once_and_speaks_the_row_being_read(browser, visits):
    with opened_explorer(browser, visits, CH10, "heads") as page:
        ex = page.locator('.attn-explorer[data-explorer="heads"]')
        said = ex.evaluate(LIVE_JS)
        assert re.match(r"layer \d, head \d, held-out sequence ", said), said
        assert "head layer" not in said, said
        svg = ex.locator("svg.attn-heatmap")
        svg.focus()
        for _ in range(12):  # down to row 12, a token of the repeat
            page.keyboard.press("ArrowDown")
        r = ex.evaluate(ROW_JS)
        assert r["row"] == 12, r
        _spoken(r)
        choice = ex.locator('.attn-choice[data-param="head"]')
        for k in range(choice.evaluate("(c) => c.options.length")):
            choice.select_option(index=k)  # another head: still the row being read
            r = ex.evaluate(ROW_JS)
            head = choice.evaluate("(c) => c.options[c.selectedIndex].textContent")
            assert r["live"].startswith(f"{head}, "), (head, r["live"])
            assert r["row"] == 12
            _spoken(r)


SPEED_JS = """(ex) => {
  const s = ex.querySelector('select.attn-speed'), l = s.labels && s.labels[0];
  const words = l ? [...l.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join('').trim() : '';
  const b = l && l.getBoundingClientRect(), st = l && getComputedStyle(l);
  return {words, labels: s.labels ? s.labels.length : 0, aria: s.getAttribute('aria-label'),
          box: b && {w: b.width, h: b.height}, visible: !!l && st.visibility === 'visible' && st.display !== 'none',
          px: l ? parseFloat(st.fontSize) : 0};
}"""


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_playback_speed_menu_says_what_it_is_in_words_on_screen(browser, visits, size):
    context = PHONE if size == "phone" else {}
    with opened_explorer(browser, visits, CH10, "heads_playback", **context) as page:
        ex = page.locator('.attn-explorer[data-explorer="heads_playback"]')
        s = ex.evaluate(SPEED_JS)
        # the accessible name comes from the same words (Playwright's get_by_label)
        named = ex.get_by_label("speed", exact=False)
        assert named.count() == 1 and named.evaluate("(e) => e.classList.contains('attn-speed')")
    assert s["labels"] == 1 and s["words"] == "speed", s
    assert s["visible"] and s["box"]["w"] > 0 and s["box"]["h"] > 0, s
    assert s["px"] >= 12.0, s
    assert s["aria"] is None, f"an aria-label would override the words on screen: {s}"
