"""The search page's snippets, read from small text copies of the pages (web/search-text.mjs).

Sphinx's searchtools.js shows under each hit a snippet cut from the hit's page; the book's build
writes a copy of each page cut down to what that code reads (_search/<page>.html) and has the
search page fetch it instead of the whole page. These check that:

- the copies give Sphinx's `Search.htmlToText` the same text as the pages, for the whole main
  text and for every anchor in it (a hit on a section title shows that section's text);
- the search page shows, for several queries, the hits in Sphinx's order with the snippets
  Sphinx's own `makeSearchSummary` and highlighting make from the WHOLE pages;
- a search fetches the copies, no page, and stays within a byte budget;
- nothing on the page moves while the hits arrive on a slow link (layout shift);
- the hits stay hidden until every hit on the first screen has its snippet, then show at once,
  before the snippets of the hits below the screen are in (attnbook.js);
- a chapter's search field (Ctrl+K or "/" go to it) leads to the search page, which finds the
  chapter;
- a desktop page has one search field (in the chapter list), a phone one search link; there
  Ctrl+K opens the chapter list's drawer at the field.

On the search page `data-content_root` is `_search/` (web/theme/attnbook/search.html): the
checks below fetch the whole pages from the site's root, the copies from `_search/`.
"""

from __future__ import annotations

import contextlib
import json
import re
from urllib.parse import quote

import pytest
from _vitals import DEVICE, OBSERVE_JS, READ_JS, Load, cls, slow_network
from _wait import wait_still

from ..conftest import PAGES, SITE, chapter_page, fresh_page

pytestmark = pytest.mark.browser

# "attention": every page; "bilinear": one or two pages; "exercises": a section title on six pages,
# so each hit has an anchor (#exercises) and its snippet is that section's text
QUERIES = ["attention", "bilinear", "exercises"]
# bytes on the link for search.html?q=attention, gzip: the page, Sphinx's scripts and index
# (68 kB) plus the eight hits' text copies (79 kB). The whole pages were 405 kB more.
SEARCH_BUDGET = 200e3


def _docnames() -> list[str]:
    js = (SITE / "searchindex.js").read_text(encoding="utf8")
    m = re.fullmatch(r"Search\.setIndex\((.*)\)\s*", js, re.S)
    assert m, "searchindex.js is not Search.setIndex({...})"
    return json.loads(m.group(1))["docnames"]


@pytest.fixture(scope="module")
def search_page(browser, base_url):
    """search.html without a query: Sphinx's search code loaded, nothing searched."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    page.goto(f"{base_url}/search.html", wait_until="load")
    page.wait_for_function("() => typeof Search !== 'undefined' && Search.hasIndex()")
    yield page
    ctx.close()


# For a page and its copy: htmlToText of each, for no anchor and for every id in the page's
# main text (each a possible hit anchor).
SAME_TEXT_JS = """
async (doc) => {
  const root = new URL('./', location.href).href;  // the site's root (search.html is there)
  const get = async (url) => {
    const r = await fetch(url);
    if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
    return r.text();
  };
  const page = await get(root + doc + '.html');
  const copy = await get(root + '_search/' + doc + '.html');
  const main = new DOMParser().parseFromString(page, 'text/html').querySelector('[role="main"]');
  const anchors = [null, ...[...main.querySelectorAll('[id]')].map((e) => '#' + CSS.escape(e.id))];
  const text = (html, anchor) => { try { return Search.htmlToText(html, anchor); } catch (e) { return 'error: ' + e; } };
  const differ = [];
  for (const a of anchors) {
    const want = text(page, a), got = text(copy, a);
    if (want === got) continue;
    let k = 0;
    while (want[k] === got[k]) k++;
    differ.push({anchor: a, at: k, want: want.slice(Math.max(0, k - 40), k + 40), got: got.slice(Math.max(0, k - 40), k + 40)});
  }
  return {anchors: anchors.length, chars: text(page, null).length, differ, bytes: [page.length, copy.length]};
}
"""


# the book's pages (from _toc.yml: known before the book is built, when tests are collected)
DOCS = [p.removesuffix(".html") for p in PAGES]


def test_the_search_index_holds_the_books_pages():
    assert sorted(_docnames()) == sorted(DOCS), "the search index and _toc.yml disagree"


@pytest.mark.parametrize("doc", DOCS)
def test_text_copy_gives_the_pages_text(search_page, doc):
    r = search_page.evaluate(SAME_TEXT_JS, doc)
    assert r["chars"] > 500, f"{doc}: the page's main text is only {r['chars']} characters"
    assert not r["differ"], (
        f"{doc}: _search/{doc}.html gives other text than the page for "
        f"{len(r['differ'])} of {r['anchors']} anchors, e.g. {r['differ'][:2]}"
    )
    assert r["bytes"][1] < r["bytes"][0] / 3, f"{doc}: the copy is not small: {r['bytes']}"


# Sphinx's own result list for a query, built the way searchtools.js 7.4 builds it, from the
# WHOLE pages: the hits in display order (highest score first), each with its link and the
# snippet Search.makeSearchSummary cuts from the whole page, highlighted by sphinx_highlight.js.
EXPECTED_JS = """
async (q) => {
  const [query, terms, excluded, highlight, objects] = Search._parseQuery(q);
  const results = Search._performSearch(query, terms, excluded, highlight, objects).reverse();
  const root = new URL('./', location.href).href;  // the WHOLE pages, not the _search/ copies
  const out = [];
  for (const [docName, title, anchor, descr] of results) {
    if (descr) throw new Error('a hit with a description: not expected in this book');
    const html = await (await fetch(root + docName + DOCUMENTATION_OPTIONS.FILE_SUFFIX)).text();
    const li = document.createElement('li');
    const p = Search.makeSearchSummary(html, terms, anchor);
    if (p) li.appendChild(p);
    highlight.forEach((term) => _highlightText(li, term, 'highlighted'));
    out.push({href: docName + DOCUMENTATION_OPTIONS.LINK_SUFFIX + anchor, snippet: p ? p.outerHTML : null});
  }
  return out;
}
"""

SHOWN_JS = """
() => [...document.querySelectorAll('#search-results ul.search > li')].map((li) => {
  const p = li.querySelectorAll('p.context');
  return {href: li.querySelector('a').getAttribute('href'),
          snippet: p.length === 1 ? p[0].outerHTML : (p.length ? 'several snippets' : null)};
})
"""

FINISHED_JS = "() => /Search finished|did not match/.test(document.querySelector('#search-results p.search-summary')?.textContent || '')"


@pytest.mark.parametrize("q", QUERIES)
def test_snippets_are_the_ones_sphinx_makes_from_the_whole_pages(browser, base_url, q):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: m.type in ("error", "warning") and errors.append(m.text))
    try:
        page.goto(f"{base_url}/search.html?q={quote(q)}", wait_until="load")
        page.wait_for_function(FINISHED_JS, timeout=30_000)
        page.wait_for_load_state("networkidle")
        expected = page.evaluate(EXPECTED_JS, q)
        page.wait_for_function(
            f"() => document.querySelectorAll('#search-results ul.search > li').length >= {len(expected)}",
            timeout=10_000,
        )
        shown = page.evaluate(SHOWN_JS)
    finally:
        ctx.close()
    assert len(expected) >= 1 and all(e["snippet"] for e in expected), (q, expected)
    if q == "attention":
        assert len(expected) >= 8, (
            f"'attention' should hit every page: {[e['href'] for e in expected]}"
        )
    if q == "exercises":
        anchored = [e for e in expected if e["href"].endswith("#exercises")]
        assert len(anchored) >= 6, f"'exercises' should hit six sections: {expected}"
    assert [s["href"] for s in shown] == [e["href"] for e in expected], (
        f"'{q}': hits shown {[s['href'] for s in shown]}, Sphinx's order {[e['href'] for e in expected]}"
    )
    for s, e in zip(shown, expected):
        assert s["snippet"] == e["snippet"], (
            f"'{q}', {e['href']}: snippet shown\n{s['snippet']}\nSphinx's from the whole page\n{e['snippet']}"
        )
    assert "highlighted" in "".join(s["snippet"] for s in shown), (
        f"'{q}': no query term highlighted"
    )
    assert not [e for e in errors if "search" in e.lower() or "fetch" in e.lower()], errors


@pytest.mark.parametrize("q", ["attention", "bilinear"])
def test_a_search_fetches_text_copies_not_pages(browser, gzip_url, margin, site, q):
    load = Load(
        browser,
        f"{gzip_url}/search.html?q={q}",
        cpu=1,
        network=False,
        interact=False,
        read=True,
        quiet_ms=500,
        read_pause_ms=40,
    )
    urls = [u.removeprefix(gzip_url + "/").split("?")[0] for u in load.read_by_url]
    pages = [u for u in urls if u.endswith(".html") and u != "search.html"]
    copies = [u for u in pages if u.startswith("_search/")]
    assert not load.errors, load.errors
    assert copies and pages == copies, f"'{q}': fetched pages {pages}, not only their text copies"
    if q == "bilinear":  # a rare word: only copies of pages that hold it, not every page's
        copies_of = list((site / "_search").rglob("*.html"))
        holders = {
            p.relative_to(site).as_posix()
            for p in copies_of
            if "bilinear" in p.read_text("utf8").lower()
        }
        assert set(copies) <= holders and len(holders) < len(copies_of) / 2, (holders, copies)
    margin(f"search.html?q={q}: bytes on the link", load.read_bytes, SEARCH_BUDGET, at_least=False)
    assert load.read_bytes <= SEARCH_BUDGET, (
        f"search.html?q={q}: {load.read_bytes / 1e3:.0f} kB on the link "
        f"(budget {SEARCH_BUDGET / 1e3:.0f} kB): {sorted(load.read_by_url.items(), key=lambda kv: -kv[1])[:5]}"
    )


@pytest.mark.parametrize("width", [412, 1280])
def test_nothing_moves_while_the_hits_arrive(browser, gzip_url, margin, width):
    """On the slow link (150 ms round trips, 1.6 Mbit/s, as devtools/_vitals.py) the hits arrive
    over a second or more: the layout shifts while they arrive and while reading to the end
    stay under 0.005 (the target is 0.1; Sphinx's way gave 0.15 at 412 px)."""
    device = {**DEVICE, "viewport": {"width": width, "height": 823 if width < 600 else 900}}
    if width >= 600:
        device.update(is_mobile=False, has_touch=False, device_scale_factor=1)
    ctx = browser.new_context(service_workers="block", **device)
    ctx.add_init_script(OBSERVE_JS)
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    cdp = ctx.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    slow_network(cdp)
    try:
        page.goto(f"{gzip_url}/search.html?q=attention", wait_until="load", timeout=60_000)
        page.wait_for_function(FINISHED_JS, timeout=60_000)
        page.wait_for_load_state("networkidle", timeout=60_000)
        wait_still(page)
        hits = page.evaluate(
            "() => document.querySelectorAll('#search-results li p.context').length"
        )
        page.evaluate(READ_JS, 100)
        wait_still(page)
        shifts = page.evaluate("() => window.__vitals.shifts")
    finally:
        ctx.close()
    assert not errors, errors
    assert hits >= 8, f"only {hits} snippets shown"
    margin(
        f"search.html?q=attention at {width} px: layout shift", cls(shifts), 0.005, at_least=False
    )
    assert cls(shifts) <= 0.005, (
        f"width {width}: layout shift {cls(shifts):.3f} ({len(shifts)} shifts: {shifts})"
    )


# Contrast of each highlighted query word on the results (WCAG's ratio of relative luminances).
HIGHLIGHT_CONTRAST_JS = """
() => {
  const lum = (c) => { const m = c.match(/[\\d.]+/g).map(Number).slice(0, 3).map((v) => {
    v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * m[0] + 0.7152 * m[1] + 0.0722 * m[2]; };
  return [...document.querySelectorAll('ul.search li span.highlighted')].map((s) => {
    const cs = getComputedStyle(s); const a = lum(cs.color), b = lum(cs.backgroundColor);
    return [s.closest('a') ? 'title' : 'snippet', s.textContent,
            (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)]; });
}
"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_highlighted_words_in_the_hits_are_readable(browser, base_url, margin, scheme):
    """A query word highlighted in a hit's title kept the link's colour on the highlight
    (2.1:1 in dark mode); every highlighted word reads at 4.5:1 or more."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
    page = ctx.new_page()
    try:
        page.goto(f"{base_url}/search.html?q=exercises", wait_until="load")
        page.wait_for_function(FINISHED_JS, timeout=30_000)
        # the highlights are added after the hits show: wait for both kinds (the assert says
        # what was found if they never come)
        with contextlib.suppress(Exception):
            page.wait_for_function(
                "(js) => new Set(eval(js)().map((x) => x[0])).size >= 2",
                arg=HIGHLIGHT_CONTRAST_JS,
                timeout=10_000,
            )
        got = page.evaluate(HIGHLIGHT_CONTRAST_JS)
        assert {w for w, _t, _c in got} == {"title", "snippet"}, f"no highlights? {got}"
        for w in ("title", "snippet"):
            worst = min(c for x, _t, c in got if x == w)
            margin(
                f"search results, {scheme}: contrast of a highlighted word in a {w}", worst, 4.5
            )
        low = [(w, t, round(c, 2)) for w, t, c in got if c < 4.5]
        assert not low, f"highlighted words under 4.5:1 in {scheme} mode: {low[:4]}"
    finally:
        ctx.close()


def test_search_page_runs_the_search_first(site):
    """search.html fetches and runs Sphinx's search scripts right after the ones they use,
    before the theme's, without the code-cell buttons' scripts, and its snippets come from
    the text copies (data-content_root is _search/)."""
    html = (site / "search.html").read_text(encoding="utf8")
    srcs = [s.split("?")[0] for s in re.findall(r'<script defer src="([^"]+)"', html)]
    search = ["_static/language_data.js", "_static/searchtools.js", "searchindex.js"]
    assert srcs[:3] == [
        "_static/documentation_options.js",
        "_static/doctools.js",
        "_static/sphinx_highlight.js",
    ], srcs
    assert srcs[3:6] == search, f"search.html's deferred scripts: {srcs}"
    assert srcs[-1] == "_static/attnbook.js", srcs
    unused = [s for s in srcs if re.search(r"copybutton|clipboard|togglebutton", s)]
    assert not unused, f"search.html loads {unused}"
    assert re.search(r'<html [^>]*data-content_root="(\./)?_search/"', html), (
        "search.html's data-content_root does not point at the text copies"
    )


# Every frame from the page's start: whether the hits show, how many hits and snippets there
# are, and the results box's height (an init script: it runs before the page's own).
WATCH_HITS_JS = """
window.__frames = [];
const watch = () => {
  const box = document.getElementById('search-results');
  if (box) {
    const hits = box.querySelectorAll('ul.search > li').length;
    const snippets = box.querySelectorAll('ul.search > li p.context').length;
    // the hits on the first screen, and how many of them have their snippet
    const inView = [...box.querySelectorAll('ul.search > li')]
      .filter((li) => li.getBoundingClientRect().top < innerHeight);
    window.__frames.push({shown: box.checkVisibility({visibilityProperty: true}), hits, snippets,
      inView: inView.length, inViewSnippets: inView.filter((li) => li.querySelector('p.context')).length,
      height: box.getBoundingClientRect().height, vh: innerHeight,
      pending: document.documentElement.hasAttribute('data-search-pending')});
  }
  requestAnimationFrame(watch);
};
requestAnimationFrame(watch);
"""


# Holds back the k-th fetch of a text copy (_search/) by 150 * k ms.
HOLD_COPIES_JS = """
window.__held = [];
const fetch0 = window.fetch;
window.fetch = (url, ...rest) => {
  if (!String(url).includes('_search/')) return fetch0(url, ...rest);
  window.__held.push(String(url));
  const wait = 150 * window.__held.length;
  return new Promise((r) => setTimeout(r, wait)).then(() => fetch0(url, ...rest));  // a slow network, not a wait
};
"""


def test_the_hits_show_at_once_when_the_first_screens_snippets_are_in(browser, base_url):
    """The snippets arrive one by one (here each text copy is held back 150 ms more than the
    one before): no hit shows before every hit on the first screen has its snippet, the box
    keeps a screen's height while it waits, and then all show at once, without waiting for the
    snippets of the hits below the screen (they arrive last; waiting for them held the search
    page's largest paint back, issue 39)."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    ctx.add_init_script(WATCH_HITS_JS)
    ctx.add_init_script(HOLD_COPIES_JS)
    page = ctx.new_page()
    try:
        page.goto(f"{base_url}/search.html?q=attention", wait_until="load")
        page.wait_for_function(FINISHED_JS, timeout=30_000)
        page.wait_for_function(
            "() => document.getElementById('search-results').checkVisibility({visibilityProperty: true})",
            timeout=10_000,
        )
        # ten frames of the shown hits recorded (a snippet arriving late would show in them)
        page.wait_for_function(
            "() => window.__frames.filter((f) => f.shown && f.hits).length >= 10",
            polling="raf",
            timeout=10_000,
        )
        frames = page.evaluate("() => window.__frames")
        held = page.evaluate("() => window.__held")
    finally:
        ctx.close()
    assert len(held) >= 8, f"only {len(held)} text copies fetched"
    shown = [f for f in frames if f["shown"] and f["hits"]]
    assert shown, "the hits never showed"
    first = shown[0]
    assert first["hits"] >= 8 and first["inView"] >= 1, first
    bare = [f for f in shown if f["inViewSnippets"] < f["inView"]]
    assert not bare, f"hits on the first screen showed without their snippet: {bare[:3]}"
    assert first["snippets"] < first["hits"], (
        f"the hits waited for every snippet, those below the screen too: {first}"
    )
    waiting = [f for f in frames if f["hits"] and not f["shown"]]
    assert waiting, "no frame with hits waiting for their snippets (the copies were not slowed?)"
    assert all(f["height"] >= f["vh"] for f in waiting), (
        f"the results box did not keep a screen's height while waiting: {waiting[:3]}"
    )
    assert not frames[-1]["pending"], frames[-1]


# ----------------------------------------------------------------------------- the search box


def test_search_finds_chapters_on_the_search_page(browser, base_url):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(f"{base_url}/{chapter_page('03_masked_softmax')}", wait_until="load")
        # Ctrl+K goes to the chapter's search field, which leads to the search page
        page.keyboard.press("Control+k")
        page.wait_for_function(
            "() => document.activeElement?.id === 'book-search-field'", timeout=5_000
        )
        page.keyboard.type("masked softmax")
        page.keyboard.press("Enter")
        page.wait_for_url("**/search.html?q=masked*", timeout=10_000)
        page.wait_for_function(
            "() => document.querySelectorAll('#search-results ul.search li a').length > 0",
            timeout=30_000,
        )
        hits = page.eval_on_selector_all(
            "#search-results ul.search li a", "as => as.map(a => a.getAttribute('href'))"
        )
        assert any("03_masked_softmax" in h for h in hits), (
            f"searching 'masked softmax' found {hits}"
        )
        assert page.input_value("#book-search-page-field") == "masked softmax"
        assert not errors, f"search page errors: {errors}"
    finally:
        ctx.close()


DESKTOP = {"width": 1280, "height": 900}

PHONE = {"width": 390, "height": 844}

VISIBLE_SEARCH_JS = """
() => [...document.querySelectorAll('a[href*="search.html"], input[type=search], button[type=submit]')]
  .filter(e => e.checkVisibility({visibilityProperty: true}) && e.getBoundingClientRect().width > 0)
  .filter(e => !e.closest('[role=main]'))  // the text's own links (the 404 page's) are not controls
  .map(e => ({tag: e.tagName, id: e.id, text: e.textContent.trim().replace(/\\s+/g, ' '),
              label: e.labels?.[0]?.textContent.trim() ?? null}))
"""

FOCUS_JS = "() => [document.activeElement?.id, document.getElementById('book-nav').hasAttribute('data-open')]"


@pytest.mark.parametrize("name", PAGES[:2])
def test_one_search_box(browser, base_url, name):
    """A desktop page shows one search field (the chapter list's), a phone one search link;
    Ctrl+K and "/" go to the field (on a phone in the chapter list's drawer), a "/" typed in
    the field stays a character."""
    with fresh_page(browser, f"{base_url}/{name}", viewport=DESKTOP) as page:
        boxes = page.evaluate(VISIBLE_SEARCH_JS)
        assert len(boxes) == 1, f"{name} at 1280 px shows {len(boxes)} search boxes: {boxes}"
        assert boxes[0]["id"] == "book-search-field" and "Search" in boxes[0]["label"], boxes
        page.keyboard.press("Control+k")
        assert page.evaluate(FOCUS_JS) == ["book-search-field", False], "Ctrl+K at 1280 px"
        page.keyboard.type("a/b")
        assert page.input_value("#book-search-field") == "a/b"
        page.evaluate("() => document.activeElement.blur()")
        page.keyboard.press("/")
        assert page.evaluate(FOCUS_JS) == ["book-search-field", False], '"/" at 1280 px'
    with fresh_page(
        browser, f"{base_url}/{name}", viewport=PHONE, is_mobile=True, has_touch=True
    ) as page:
        boxes = page.evaluate(VISIBLE_SEARCH_JS)
        assert len(boxes) == 1, f"{name} at 390 px shows {len(boxes)} search controls: {boxes}"
        assert boxes[0]["tag"] == "A" and boxes[0]["text"] == "Search", boxes
        page.keyboard.press("Control+k")
        assert page.evaluate(FOCUS_JS) == ["book-search-field", True], "Ctrl+K at 390 px"
        assert page.locator("#book-search-field").is_visible()
