"""Folded code reads as one control (issue 39: picture-first pages).

myst-nb folds each hidden cell under its own toggle ("Show code cell source"), so two or more
hidden cells in a row were a stack of identical buttons, often right above a chapter's first
picture. web/book_ext.py (``FoldCodeRuns``) puts hidden cells with nothing visible between
them under ONE toggle that says what it holds ("Show the code (2 cells)"); outputs that were
shown stay where they were.

- on every page of the book, at 390 x 844, no two toggles of folded code sit together: between
  each toggle and the next there is something a reader sees (text, a picture, a control),
  but for an exercise's solution (a cell tagged ``solution``), which keeps its own toggle,
  and no grouped toggle holds one;
- a grouped toggle names its count of cells truly, is in the Tab order, opens with Enter (its
  code then shows, its words change to "Hide ...", and that is what a screen reader hears),
  with JavaScript off (light) and on (dark), its words at 4.5:1 and its box on a 390 px screen;
- one vocabulary on every page: every toggle of a code cell's hidden part, grouped or alone,
  says what it holds in the book's words, closed and open ("Show the code", "Show the output",
  "Show the code and output", with " (N cells)" for several; "Hide ..." once open), never
  myst-nb's "Show code cell source / outputs / content"; and what it says it holds is what is
  under it.
"""

from __future__ import annotations

import re

import pytest

from ..conftest import CHAPTERS, PAGES, SITE, fresh_page

pytestmark = pytest.mark.browser

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}

# Pairs of consecutive folded-code toggles (top-level <details class="hide"> of the article,
# in document order) with nothing visible between them: no rendered text, no picture or
# control of some size. What lies between is the DOM range from the end of one <details> to
# the start of the next.
ADJACENT_JS = """
() => {
  const all = [...document.querySelectorAll('.book-article details.hide')]
    .filter((d) => !d.parentElement.closest('details.hide'));
  const shown = (e) => e.checkVisibility({visibilityProperty: true, opacityProperty: true});
  const MEDIA = 'img, svg, canvas, video, iframe, input, select, textarea, button, table, math';
  const label = (d) => d.querySelector(':scope > summary')?.innerText.replace(/\\s+/g, ' ').trim();
  const pairs = [];
  for (let i = 0; i + 1 < all.length; i++) {
    const a = all[i], b = all[i + 1];
    // an exercise's solution keeps its own toggle, by design (web/book_ext.py)
    if (a.closest('.tag_solution') || b.closest('.tag_solution')) continue;
    const range = document.createRange();
    range.setStartAfter(a);
    range.setEndBefore(b);
    const root = range.commonAncestorContainer;
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    let seen = null;
    for (let n = walker.currentNode; n && !seen; n = walker.nextNode()) {
      if (!range.intersectsNode(n) || n === root || n.contains(a) || n.contains(b)) continue;
      if (a.contains(n) || b.contains(n)) continue;
      if (n.nodeType === Node.TEXT_NODE) {
        if (n.data.trim() && n.parentElement && shown(n.parentElement)) seen = n.data.trim().slice(0, 40);
      } else if (n.matches(MEDIA) && shown(n)) {
        const r = n.getBoundingClientRect();
        if (r.width >= 8 && r.height >= 8) seen = '<' + n.localName + '>';
      }
    }
    if (!seen) pairs.push([label(a), label(b), Math.round(a.getBoundingClientRect().top + scrollY)]);
  }
  return {toggles: all.length, pairs};
}
"""


@pytest.mark.parametrize("name", PAGES)
def test_no_two_code_toggles_sit_together(phone, name):
    """...and every grouped toggle on the page names its count of cells truly (read on the
    phone's load of the page, light, as it loaded: reading/test_on_a_phone.py's PhoneReading)."""
    read = phone(name, "light").at("loaded")
    got, groups = read["toggles"], read["groups"]
    assert not got["pairs"], (
        f"{name}: {len(got['pairs'])} pair(s) of code toggles with nothing visible between them "
        f"(of {got['toggles']} toggles; [first, second, y px]): {got['pairs']}"
    )
    for g in groups:
        m = re.fullmatch(r"Show the code(?: and output)? \((\d+) cells\)", g["words"])
        assert m, f"{name}: a grouped toggle says {g['words']!r}"
        assert int(m[1]) == g["cells"] >= 2, f"{name}: {g}"
        assert g["code"] >= 1, f"{name}: a grouped toggle holds no code: {g}"
        assert not g["solution"], f"{name}: a grouped toggle holds an exercise's solution: {g}"


def test_the_measure_sees_toggles_together(browser, base_url):
    """The ruler itself: two folded cells in a row are a pair; a paragraph, a figure or an
    empty output box between two others is (twice) not, and is (once) a pair."""
    cell = (
        "<div class='cell'><details class='hide'><summary>Show code cell source</summary>"
        "<pre>x = 1</pre></details>{out}</div>"
    )
    html = (
        "<main><article class='book-article'>"
        + cell.format(out="")
        + cell.format(out="<div class='cell_output'> </div>")
        + "<p>Words between.</p>"
        + cell.format(out="")
        + "<svg width='100' height='60'><rect width='100' height='60'/></svg>"
        + cell.format(out="")
        + "</article></main>"
    )
    with fresh_page(browser, "about:blank", **PHONE) as page:
        page.set_content(html)
        got = page.evaluate(ADJACENT_JS)
    assert got["toggles"] == 4, got
    assert len(got["pairs"]) == 1, got


def _groups(page):
    return page.evaluate(
        """() => [...document.querySelectorAll('.book-article details.hide.attn-folded')].map((d) => ({
          id: d.id, words: d.querySelector(':scope > summary').innerText.trim(),
          cells: d.querySelectorAll(':scope > .attn-folded-cell').length,
          code: d.querySelectorAll('.cell_input pre').length,
          solution: d.querySelectorAll('.tag_solution').length}))"""
    )


def _accessible(page, selector):
    """The accessible name, role and expanded state Chromium gives the first ``selector``."""
    cdp = page.context.new_cdp_session(page)
    root = cdp.send("DOM.getDocument")["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
    ax = cdp.send("Accessibility.getPartialAXTree", {"nodeId": node, "fetchRelatives": False})
    ax = next(n for n in ax["nodes"] if not n.get("ignored"))
    props = {p["name"]: p["value"].get("value") for p in ax.get("properties", [])}
    return {
        "name": ax.get("name", {}).get("value"),
        "role": ax.get("role", {}).get("value"),
        "expanded": props.get("expanded"),
    }


# The first grouped toggle's look: its words' colour against the page, and its box on screen.
LOOK_JS = """
() => {
  const rgb = (c) => (c.match(/[\\d.]+/g) || []).slice(0, 3).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const s = document.querySelector('.book-article details.attn-folded > summary');
  const words = [...s.querySelectorAll('p')].find((p) => p.checkVisibility());
  const [a, b] = [lum(rgb(getComputedStyle(words).color)), lum(rgb(getComputedStyle(document.body).backgroundColor))];
  const r = s.getBoundingClientRect();
  return {theme: document.documentElement.dataset.theme,
          contrast: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05),
          left: r.left, right: r.right, height: r.height, width: innerWidth};
}
"""


# (JavaScript off: the page stays in its light mode, which the theme's inline script would
# switch; dark mode is checked with it on.)
def _first_grouped_chapter() -> str | None:
    """The first chapter whose built page has a grouped toggle (read from the HTML: no load)."""
    return next((n for n in CHAPTERS if "attn-folded" in (SITE / n).read_text("utf8")), None)


@pytest.mark.parametrize("scheme,js", [("light", False), ("dark", True)])
def test_a_grouped_toggle_says_what_it_holds_and_opens_from_the_keyboard(
    browser, base_url, scheme, js
):
    """The first chapter with a grouped toggle (what its words say is checked on every page
    above): how the toggle looks and works, with JavaScript off (light) and on (dark)."""
    name = _first_grouped_chapter()
    assert name, "no grouped toggle on any chapter page"
    with fresh_page(
        browser, f"{base_url}/{name}", java_script_enabled=js, color_scheme=scheme, **PHONE
    ) as page:
        assert _groups(page), f"{name}: the built page has a group, the loaded one none"
        look = page.evaluate(LOOK_JS)
        assert look["theme"] == scheme, look
        assert look["contrast"] >= 4.5, f"{name} ({scheme}): the toggle's words {look}"
        assert 0 <= look["left"] and look["right"] <= look["width"], f"{name}: {look}"
        assert look["height"] >= 44, f"{name}: a toggle under 44 px tall: {look}"
        # the first group: in the Tab order, Enter opens it, the code shows
        summary = page.locator(".book-article details.attn-folded > summary").first
        assert summary.evaluate("(e) => e.tabIndex") == 0, "the summary is not in the Tab order"
        summary.focus()
        assert page.evaluate("() => document.activeElement.localName") == "summary"
        code = page.locator(".book-article details.attn-folded").first.locator(".cell_input pre")
        assert not code.first.is_visible(), f"{name}: the group's code shows while closed"
        page.keyboard.press("Enter")
        page.wait_for_function(
            "() => document.querySelector('.book-article details.attn-folded').open"
        )
        assert code.first.is_visible(), f"{name}: the group's code hidden once open"
        assert summary.inner_text().strip().startswith("Hide the code"), summary.inner_text()
        # what a screen reader hears is what it shows (Chromium's accessibility tree)
        ax = _accessible(page, ".book-article details.attn-folded > summary")
        assert ax["name"] == summary.inner_text().strip(), ax
        assert ax["expanded"] is True, ax


# Every code toggle's words, closed and open (both are in the page; the theme shows one), and
# what is under it: cells' sources (.cell_input), outputs (.cell_output), folded cells.
WORDS_JS = """
() => [...document.querySelectorAll('.book-article details.hide')].map((d) => {
  const s = d.querySelector(':scope > summary');
  const words = (cls) => (s.querySelector(`p.${cls}`) || s).textContent.replace(/\\s+/g, ' ').trim();
  const folded = d.querySelectorAll(':scope > .attn-folded-cell').length;
  return {closed: words('collapsed'), open: words('expanded'), folded,
          code: d.querySelectorAll('.cell_input').length, output: d.querySelectorAll('.cell_output').length};
})
"""

VOCABULARY = re.compile(r"(Show|Hide) the (code and output|code|output)(?: \((\d+) cells\))?")


@pytest.mark.parametrize("name", PAGES)
def test_every_code_toggle_speaks_one_vocabulary(browser, base_url, name):
    with fresh_page(browser, f"{base_url}/{name}", java_script_enabled=False, **PHONE) as page:
        toggles = page.evaluate(WORDS_JS)
    problems = []
    for t in toggles:
        closed, opened = VOCABULARY.fullmatch(t["closed"]), VOCABULARY.fullmatch(t["open"])
        if not closed or not opened or closed[1] != "Show" or opened[1] != "Hide":
            problems.append(f"not the book's words: {t}")
            continue
        if closed.group(2, 3) != opened.group(2, 3):
            problems.append(f"closed and open say different things: {t}")
        cells = int(closed[3]) if closed[3] else 1
        if cells != max(t["folded"], 1) or (closed[3] is not None and cells < 2):
            problems.append(f"says {cells} cell(s), holds {max(t['folded'], 1)}: {t}")
        held = {
            (True, True): "code and output",
            (True, False): "code",
            (False, True): "output",
        }.get((t["code"] > 0, t["output"] > 0))
        if closed[2] != held:
            problems.append(f"says it holds {closed[2]!r}, holds {held!r}: {t}")
    assert not problems, f"{name}: {len(problems)} of {len(toggles)} code toggles: {problems}"


def test_the_vocabulary_check_sees_single_toggles(site):
    """The check above reads toggles of one cell as well as grouped ones (else it checks only
    the groups): the built chapters hold both."""
    built = "".join((site / n).read_text("utf8") for n in CHAPTERS)
    singles = len(re.findall(r'<details class="admonition hide (?![^"]*attn-folded)', built))
    groups = len(re.findall(r'<details class="admonition hide [^"]*attn-folded', built))
    assert singles >= 10 and groups >= 3, (singles, groups)
