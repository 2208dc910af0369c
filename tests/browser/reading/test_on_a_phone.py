"""Every page read on a phone (390 x 844, touch, mobile viewport), light and dark: one page
load per page and colour mode serves every check below (issue 36: a load per check cost a
load per check), each check still reported on its own.

- **Nothing is wider than a phone** (360 and 390 px): nothing of the header or the page (text,
  previous/next, footer) reaches past either edge of the screen, nothing scrolls sideways. The
  drawers, hidden off screen until opened, are the theme tests' business. At 360 px the page
  gets its own load (another viewport).
- **Figures** (the chapters; light and dark): legible, in the page's mode, the narrow variant
  where one exists, and only the picture shown fetched (test_figures.py's check, which holds
  the wider screens to the same).
- **A display equation too wide for a phone shows it scrolls** (the chapters; light and dark;
  issue 26): every display equation carries the scroll cue (a shadow at an edge that has more,
  shown only while it overflows).
- **Nothing in the reading path hides content sideways** (issue 39, item 1): every block of the
  article (display equations, tables, code outputs, explorers) shows all it holds across: no
  element whose content is wider than its box (``scrollWidth > clientWidth``) while its box
  scrolls or clips (``overflow-x`` other than ``visible``). Code (a cell's source, a listing
  in the text) is the one exception: it may scroll, and then carries the scroll cue (a shadow
  at an edge with more to show), which is checked too. Form fields (their own typed text) and
  text for screen readers only (a 1 px box) are not blocks a reader sees. A block is measured
  once every explorer has drawn and every fold is open (folded code and outputs, dropdowns),
  so an explorer's own rows and what a reader unfolds count.
- **A display equation breaks only where a reader would** (the chapters; issue 39's cold read:
  chapter 7's GRU step broke after "GRU(" at 390 px): in every display equation that wraps
  (web/prerender-math.mjs's wrapping form, a flex row of pieces), measured with every fold
  open, no line ends on a function's name or an opening bracket, none starts with a closing
  bracket or a separator (",", ";"), and no line break falls between a sized bracket
  (\\big( ...) and its partner.
- **An explorer's sticky controls take at most a fifth of the phone's screen** (issue 39,
  item 5; light), measured once every explorer has drawn.

- **Every card names its cell's column** (issue 39: a table that becomes cards): in each table
  the page shows as stacked cards, every cell's shown name (its ``::before``) is the text of its
  column's header, and its content sits in the card's value column, beside the name; a cell
  whose column has no header (the landing page's chapter numbers) shows no empty name slot,
  its content starts at the card's edge.
- **No slider's value wraps** (every explorer, 390 px): each slider's value read-out is one
  line, beside the slider on its row or, where a phone pairs sliders up, on the name's line
  above it.

One load goes through fixed stages, in this order, each reading what its checks need as it
passes (``PhoneReading``): *loaded* (fonts ready, nothing scrolled: the header and page
overflow, the equations' scroll cues), *figures* (each figure scrolled into view: the figures and the PNGs fetched), *woken*
(every explorer drawn and every fold opened: the blocks that hide content sideways). The sequence is the same
whichever test asks first, and what each stage reads is kept, so no check depends on which ran
before it (a test asking for a stage the page has passed gets what was read there). Page errors are recorded from the
load on; each check fails on any raised before its stage ended.
Screenshots of the phone views go to _build/screenshots/.
"""

from __future__ import annotations

import re

import pytest
from _pacing import pacing

from .._reader import _shot
from ..conftest import CHAPTERS, EXPLORER_CHAPTERS, PAGES, fresh_page, wake_explorers
from .test_figures import check_figures, read_figures
from .test_folded_code import ADJACENT_JS
from .test_folded_code import _groups as folded_groups

pytestmark = pytest.mark.browser

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
SCHEMES = ["light", "dark"]

TOUCH = {"has_touch": True, "is_mobile": True}

# Elements of the header and the page that stick out of the viewport without being inside a
# scrolling or clipping box (a drawer closed is visibility: hidden, so not counted).
OVERFLOW_JS = """
(w) => {
  const out = [];
  for (const e of document.querySelectorAll('#book-header *, #book-page *')) {
    const r = e.getBoundingClientRect();
    if (r.width === 0 || (r.right <= w + 1 && r.left >= -1)) continue;  // out past either edge
    if (!e.checkVisibility({visibilityProperty: true, opacityProperty: true})) continue;
    let p = e.parentElement, clipped = false;
    while (p) {
      const ox = getComputedStyle(p).overflowX;
      if (ox === 'auto' || ox === 'scroll' || ox === 'hidden' || ox === 'clip') { clipped = true; break; }
      p = p.parentElement;
    }
    if (!clipped) out.push(`${e.tagName.toLowerCase()}.${String(e.className.baseVal ?? e.className).split(' ')[0]} spans ${Math.round(r.left)}..${Math.round(r.right)} px`);
  }
  return {scrollWidth: document.documentElement.scrollWidth, offenders: out.slice(0, 5)};
}
"""


# Code: a cell's source or a listing in the text (not an output, which myst-nb also highlights)
# may scroll, with a cue, per the issue.
CODE_SOURCE = '.cell_input pre, div[class*="highlight-"]:not(.output) pre'

SIDEWAYS_JS = """
(codeSource) => {
  const out = [], cues = [];
  const article = document.querySelector('.book-article');
  for (const e of article.querySelectorAll('*')) {
    if (e.closest('svg') && e.tagName.toLowerCase() !== 'svg') continue;
    if (!e.checkVisibility({visibilityProperty: true})) continue;
    // form fields scroll their own text as it is typed; text for screen readers only is 1 px
    if (e.matches('input, select, textarea') || e.clientWidth <= 1) continue;
    const ox = getComputedStyle(e).overflowX;
    if (ox === 'visible') continue;
    const over = e.scrollWidth - e.clientWidth;
    if (over <= 1) continue;
    const tag = e.tagName.toLowerCase();
    const cls = String(e.className.baseVal ?? e.className).split(' ').filter(Boolean).slice(0, 2).join('.');
    const where = e.closest('section[id]');
    const what = `${tag}${cls ? '.' + cls : ''} in #${where ? where.id : '?'}: ` +
      `${e.clientWidth} px box, ${e.scrollWidth} px content (${Array.from((e.textContent || '').trim()).slice(0, 40).join('')})`;
    if (e.matches(codeSource)) {
      // a code cell's source may scroll, with a visible cue: a shadow painted at its edge
      const bg = getComputedStyle(e).backgroundImage + getComputedStyle(e.parentElement).backgroundImage;
      if (!/gradient/.test(bg)) cues.push(what);
      continue;
    }
    out.push(what);
  }
  return {hidden: out, uncued: cues};
}
"""


# Folded blocks opened before measuring: myst-nb's hidden inputs and outputs and the book's
# folded runs (<details>), and the text's dropdowns (sphinx-togglebutton: a button that takes
# the admonition's "toggle-hidden" away). A fold's content is invisible while closed, so
# without this a table or an equation inside one was never measured (issue 39 item 1:
# chapter 8's folded results table, chapter 7's GRU equation in a dropdown).
OPEN_FOLDS_JS = """() => {
  const article = document.querySelector('.book-article');
  let n = 0;
  for (const d of article.querySelectorAll('details:not([open])')) { d.open = true; n++; }
  for (const a of article.querySelectorAll('.toggle-hidden')) {
    const b = a.querySelector('button.toggle-button');
    if (b) { b.click(); n++; }
  }
  return n;
}"""


def open_folds(page) -> int:
    """Open every fold of the article; wait until none is closed; return how many opened."""
    n = page.evaluate(OPEN_FOLDS_JS)
    page.wait_for_function(
        "() => !document.querySelector('.book-article .toggle-hidden, "
        ".book-article details:not([open])')"
    )
    return n


def sideways_blocks(page) -> dict:
    """{"hidden": [...], "uncued": [...]}: the article's blocks that hide content sideways,
    and the code sources that scroll without a cue, on ``page`` as it is laid out now."""
    return page.evaluate(SIDEWAYS_JS, CODE_SOURCE)


# The height of every explorer's control bar that sticks to the top of the screen on a phone.
STICKY_JS = """() => {
  const out = [];
  for (const c of document.querySelectorAll('.attn-explorer .attn-controls')) {
    if (getComputedStyle(c).position !== 'sticky') continue;
    out.push(c.getBoundingClientRect().height);
  }
  return out;
}"""

# Every wrapping display equation's line breaks, as laid out: a piece (a top-level <mrow> of the
# flex row, or of one of its clauses) starts a new line when it starts left of where the piece before it ended. At each
# break, what ends the line above and what starts the line below, and how many sized brackets
# (<mo minsize>, Temml's \big) are open at it.
BREAKS_JS = """() => {
  const OPEN = '([{\u27e8\u2308\u230a', CLOSE = ')]}\u27e9\u2309\u230b';
  const out = [];
  let n = 0;
  for (const m of document.querySelectorAll('.book-article math.attn-wrap')) {
    if (!m.checkVisibility()) continue;
    n++;
    // its pieces, in one row or in clauses (formulas side by side, each its own wrapping row)
    const pieces = [...m.querySelectorAll(':scope > mrow:not(.attn-clause), :scope > mrow.attn-clause > mrow')];
    let open = 0;
    for (const [k, p] of pieces.entries()) {
      if (k > 0 && p.getBoundingClientRect().left < pieces[k - 1].getBoundingClientRect().right - 0.5) {
        const last = pieces[k - 1].lastElementChild, first = p.firstElementChild;
        const end = last && last.localName === 'mo' ? last.textContent : '';
        const start = first && first.localName === 'mo' ? first.textContent : '';
        const why = [];
        if (end === '\u2061') why.push('a line ends on a function name');
        else if (end.length === 1 && OPEN.includes(end)) why.push(`a line ends on "${end}"`);
        if (start.length === 1 && (CLOSE + ',;.').includes(start)) why.push(`a line starts with "${start}"`);
        if (open > 0) why.push('a break inside a sized bracket pair');
        if (why.length) {
          out.push(`${why.join(', ')}: "${pieces.slice(Math.max(0, k - 2), k).map((q) => q.textContent).join('')}" | ` +
                   `"${pieces.slice(k, k + 2).map((q) => q.textContent).join('')}"`);
        }
      }
      for (const mo of p.querySelectorAll('mo[minsize]')) {
        if (OPEN.includes(mo.textContent)) open++;
        else if (CLOSE.includes(mo.textContent)) open = Math.max(0, open - 1);
      }
    }
  }
  return {wrapping: n, bad: out};
}"""

CUE_JS = """() => [...document.querySelectorAll('.book-article div.math')]
  .map((d) => ({ tex: d.textContent.slice(0, 40), bg: getComputedStyle(d).backgroundImage }))"""

# Every cell of every table shown as cards: its shown name against its column's header text
# (read from the <thead>, not from the data-label the build wrote), and where its content starts
# against the card's value column (the second grid track, after the column gap), or against the
# card's edge for a cell with no name.
CARDS_JS = """
() => {
  const text = (e) => e.textContent.replace(/\\s+/g, ' ').trim();
  const problems = [];
  let cells = 0;
  for (const t of document.querySelectorAll('.book-article table.attn-cards')) {
    if (!t.checkVisibility() || !t.tHead) continue;
    const heads = [...t.tHead.rows[0].cells].map(text);
    for (const body of t.tBodies) {
      for (const [i, row] of [...body.rows].entries()) {
        for (const [j, cell] of [...row.cells].entries()) {
          cells++;
          const where = `table "${heads.join(' | ').slice(0, 50)}", row ${i + 1} ("${text(cell).slice(0, 30)}")`;
          const content = getComputedStyle(cell, '::before').content;
          const name = content.startsWith('"') ? JSON.parse(content) : '';
          if (name !== heads[j]) {
            problems.push(`${where}: column ${j + 1} shows the name "${name}", its header says "${heads[j]}"`);
          }
          const s = getComputedStyle(cell), box = cell.getBoundingClientRect();
          const range = document.createRange();
          range.selectNodeContents(cell);
          const rects = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
          if (!rects.length) continue;
          const left = Math.min(...rects.map((r) => r.left)) - box.left - parseFloat(s.paddingLeft);
          const start = name ? parseFloat(s.gridTemplateColumns) + (parseFloat(s.columnGap) || 0) : 0;
          if (!(Math.abs(left - start) <= 2)) {
            problems.push(`${where}: column ${j + 1} ("${name}"): its content starts ${left.toFixed(0)} px into the card, ` +
                          (name ? `its value column at ${start.toFixed(0)} px` : 'a cell with no name at 0 px'));
          }
        }
      }
    }
  }
  return {cells, problems};
}
"""

# Every slider an explorer shows (not one moved by a dragged point, which is hidden): its value
# read-out on one line (the text's line boxes) and on the slider's row (their middles within
# half the slider's height).
SLIDERS_JS = """
() => {
  const out = [];
  for (const label of document.querySelectorAll('.attn-explorer .attn-controls label')) {
    const slider = label.querySelector(':scope > .attn-slider');
    const value = label.querySelector(':scope > .attn-value');
    if (!slider || !value || !label.checkVisibility()) continue;
    const range = document.createRange();
    range.selectNodeContents(value);
    const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
    const v = value.getBoundingClientRect(), sl = slider.getBoundingClientRect();
    const offset = Math.abs((v.top + v.bottom) / 2 - (sl.top + sl.bottom) / 2);
    // or the value shares the name's line, above the slider (phones pair sliders up that way)
    const nameRange = document.createRange();
    nameRange.selectNodeContents(label.firstChild);
    const n = nameRange.getBoundingClientRect();
    const vc = (v.top + v.bottom) / 2;  // (a name may wrap: the value sits on one of its lines)
    const withName = vc >= n.top - 4 && vc <= n.bottom + 4 && v.bottom <= sl.top + 2;
    out.push({explorer: label.closest('.attn-explorer').dataset.explorer,
              name: label.firstChild.textContent.trim(), value: value.textContent, lines,
              offRow: offset > sl.height / 2, offset: Math.round(offset), beside: v.left >= sl.right - 1,
              withName});
  }
  return out;
}
"""

STAGES = ("loaded", "figures", "woken")


class PhoneReading:
    """One page at 390 x 844 in one colour mode, loaded once, taken through STAGES in order.
    ``at(stage)`` returns what was read at that stage: recorded as the page passed it, or read
    now, going on from where the page is."""

    def __init__(self, browser, base_url: str, name: str, scheme: str):
        self.browser, self.url, self.name, self.scheme = (
            browser,
            f"{base_url}/{name}",
            name,
            scheme,
        )
        self.ctx = None
        self.done = -1
        self.read: dict = {}
        self.failed: Exception | None = None

    def _load(self) -> None:
        self.close()
        self.ctx = self.browser.new_context(
            service_workers="block", color_scheme=self.scheme, **PHONE
        )
        page = self.page = self.ctx.new_page()
        self.errors: list = []
        self.pngs: list = []
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("request", lambda r: "/_images/" in r.url and self.pngs.append(r.url))
        page.goto(self.url, wait_until="load")
        page.evaluate("document.fonts.ready")
        self.done, self.read = -1, {}

    def _next(self) -> None:
        stage = STAGES[self.done + 1]
        page, name, scheme = self.page, self.name, self.scheme
        if stage == "loaded":
            self.read["overflow"] = page.evaluate(OVERFLOW_JS, 390)
            self.read["cards"] = page.evaluate(CARDS_JS)
            self.read["equations"] = page.evaluate(CUE_JS)
            # reading/test_folded_code.py: code toggles next to each other, grouped toggles
            self.read["toggles"] = page.evaluate(ADJACENT_JS)
            self.read["groups"] = folded_groups(page)
            if scheme == "light":
                _shot(page, name, "phone")
        elif stage == "figures":
            self.read["figures"] = read_figures(page, self.pngs, name, 390, scheme)
        elif stage == "woken":
            wake_explorers(page)
            # pacing measures the page as a reader first meets it: folds closed
            self.read["pacing"] = pacing(page)  # reading/test_pacing.py
            self.read["folds"] = open_folds(page)
            self.read["sideways"] = sideways_blocks(page)
            self.read["breaks"] = page.evaluate(BREAKS_JS)
            self.read["sliders"] = page.evaluate(SLIDERS_JS)
            self.read["sticky"] = page.evaluate(STICKY_JS)
            if scheme == "dark":
                _shot(page, name, "phone-dark")
        self.read[f"errors:{stage}"] = list(self.errors)
        self.done += 1

    def at(self, stage: str) -> dict:
        k = STAGES.index(stage)
        if self.failed is not None and self.done < k:
            raise self.failed  # raised while finishing the page, at this stage
        if self.done < k and self.ctx is None:
            self._load()
        while self.done < k:
            self._next()
        errors = self.read[f"errors:{stage}"]
        assert not errors, f"{self.url} ({self.scheme}): page errors {errors}"
        return self.read

    def finish(self) -> None:
        """Takes an open page through its remaining stages (what it raises is kept for the
        check that asks for that stage), then closes it: its readings serve every later
        check, in this file or another."""
        try:
            while self.ctx is not None and self.done < len(STAGES) - 1:
                self._next()
        except Exception as e:  # noqa: BLE001  (raised to the check that asks for the stage)
            self.failed = e
        self.close()

    def close(self) -> None:
        if self.ctx is not None:
            self.ctx.close()
            self.ctx = None


@pytest.mark.parametrize("width", [360, 390])
@pytest.mark.parametrize("scheme", ["light"], scope="module")
@pytest.mark.parametrize("name", PAGES, scope="module")
def test_nothing_is_wider_than_a_phone(browser, base_url, phone, name, scheme, width):
    if width == 390:
        got = phone(name, scheme).at("loaded")["overflow"]
    else:
        with fresh_page(
            browser, f"{base_url}/{name}", viewport={"width": width, "height": 844}, **TOUCH
        ) as page:
            got = page.evaluate(OVERFLOW_JS, width)
    assert got["scrollWidth"] <= width, f"{name} at {width} px scrolls sideways: {got}"
    assert not got["offenders"], f"{name} at {width} px: {got['offenders']}"


@pytest.mark.parametrize("scheme", SCHEMES, scope="module")
@pytest.mark.parametrize("name", CHAPTERS, scope="module")
def test_figures_are_legible_in_the_mode_and_fetched_once(phone, margin, name, scheme):
    got, fetched = phone(name, scheme).at("figures")["figures"]
    check_figures(got, fetched, margin, name, 390, scheme)


@pytest.mark.parametrize("scheme", SCHEMES, scope="module")
@pytest.mark.parametrize("name", CHAPTERS, scope="module")
def test_a_display_equation_too_wide_for_a_phone_shows_it_scrolls(phone, name, scheme):
    for eq in phone(name, scheme).at("loaded")["equations"]:
        assert eq["bg"].count("radial-gradient") == 2, (
            f"{name} ({scheme}): equation {eq['tex']!r} overflows with no scroll cue ({eq['bg']})"
        )


@pytest.mark.parametrize("scheme", ["light"], scope="module")
@pytest.mark.parametrize("name", CHAPTERS, scope="module")
def test_display_equations_break_only_where_a_reader_would(phone, name, scheme):
    got = phone(name, scheme).at("woken")["breaks"]
    assert not got["bad"], (
        f"{name} at 390 px: {len(got['bad'])} bad line breaks in display equations "
        f"(line above | line below): {got['bad']}"
    )


def test_the_chapters_have_display_equations_for_the_cue_check(site):
    """The scroll-cue check above sees display equations (else it checks nothing): the built
    chapters hold some, in the markup CUE_JS selects (div.math inside the article)."""
    found = {
        name: len(re.findall(r'<div\b[^>]*class="[^"]*\bmath\b', (site / name).read_text("utf8")))
        for name in CHAPTERS
    }
    assert sum(found.values()) >= 1, f"no display equation in any chapter: {found}"
    # and the line-break check sees equations in the wrapping form (web/prerender-math.mjs)
    wrapping = sum((site / name).read_text("utf8").count("attn-wrap") for name in CHAPTERS)
    assert wrapping >= 10, f"only {wrapping} display equations in the wrapping form"


@pytest.mark.parametrize("scheme", SCHEMES, scope="module")
@pytest.mark.parametrize("name", PAGES, scope="module")
def test_nothing_in_the_reading_path_hides_content_sideways(phone, name, scheme):
    got = phone(name, scheme).at("woken")["sideways"]
    assert not got["hidden"], (
        f"{name} at 390 px ({scheme}): {len(got['hidden'])} blocks hide content "
        f"sideways: {got['hidden']}"
    )
    assert not got["uncued"], f"{name}: code that scrolls without a cue: {got['uncued']}"


@pytest.mark.parametrize("scheme", ["light"], scope="module")
@pytest.mark.parametrize("name", PAGES, scope="module")
def test_every_card_names_its_cells_column(phone, name, scheme):
    got = phone(name, scheme).at("loaded")["cards"]
    assert not got["problems"], (
        f"{name} at 390 px: {len(got['problems'])} of {got['cells']} card cells: {got['problems']}"
    )


def test_the_card_check_sees_cards(site):
    """The card check above reads some cards (else it checks nothing): the built pages hold
    tables the build made cards (web/table-cards.mjs), one of them with a column that has no
    header (the landing page's chapter numbers)."""
    built = {name: (site / name).read_text("utf8") for name in PAGES}
    cards = sum(len(re.findall(r"<table\b[^>]*\battn-cards\b", h)) for h in built.values())
    assert cards >= 3, f"only {cards} tables shown as cards on the built pages"
    assert any('data-label=""' in h for h in built.values()), "no card cell without a name"


@pytest.mark.parametrize("scheme", ["light"], scope="module")
@pytest.mark.parametrize("name", PAGES, scope="module")
def test_no_slider_value_wraps(phone, name, scheme):
    sliders = phone(name, scheme).at("woken")["sliders"]
    # one line, either beside the slider on its row or on the name's line above it
    bad = [
        s
        for s in sliders
        if s["lines"] != 1 or not ((s["beside"] and not s["offRow"]) or s["withName"])
    ]
    assert not bad, (
        f"{name} at 390 px: slider values that wrap, or sit neither beside the slider nor on "
        f"its name's line: {bad}"
    )


def test_the_slider_check_sees_sliders(site):
    """The slider check above has sliders to read: the chapters' explorers show some (a
    slider's declaration is in each page's explorer state, drawn at run time)."""
    found = sum("attn-slider" in (site / name).read_text("utf8") for name in CHAPTERS)
    assert found >= 5, f"only {found} chapter pages draw a slider"


@pytest.mark.parametrize("scheme", ["light"], scope="module")
@pytest.mark.parametrize("name", EXPLORER_CHAPTERS, scope="module")
def test_sticky_controls_take_at_most_a_fifth_of_a_phone(phone, name, scheme):
    heights = phone(name, scheme).at("woken")["sticky"]
    assert heights, f"{name}: no sticky controls on a phone"
    for h in heights:
        assert h <= 0.2 * 844, f"{name}: sticky controls {h:.0f} px tall ({h / 844:.0%} of 844)"
