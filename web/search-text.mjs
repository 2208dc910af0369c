#!/usr/bin/env node
// The search page's snippets without fetching whole pages. `make book` runs it after
// optimize-pages.mjs, over _build/html.
//
// Sphinx 7.4's searchtools.js shows a snippet under each hit: it fetches the hit's page
// (`contentRoot + docName + ".html"`), and `Search.makeSearchSummary` cuts 240 characters around
// the first query term out of `Search.htmlToText(page, anchor)`: the textContent of
// `[role="main"] <anchor>` (or of `[role="main"]`) once `.headerlink`, `script` and `style` are
// removed. Searching "attention" fetched eight whole pages, 405 of the search page's 473 kB.
//
// This writes, for every page in the search index, `_search/<docname>.html`: the same page cut
// down to what htmlToText can read. It holds one <div role="main"> with the main text's text
// nodes, in order, and of the elements inside it only those with an id (an anchor a hit can
// point to), nested as they were, as bare <div id="...">s. Every other element is dropped and
// its text kept in place, so the textContent of [role=main] and of every anchored element is
// character for character the page's own, and htmlToText gives the same text on both files.
// The pages are parsed as the browser's DOMParser parses them (parse5, the WHATWG parsing
// algorithm, with scripting disabled as in DOMParser).
//
// Then searchtools.js is patched to fetch `_search/<docname>.html` instead of the page, and to
// add each hit to the list with its snippet, in rank order (Sphinx listed the hits 5 ms apart
// and added each snippet under its hit as it arrived, pushing the hits below it down: the
// page's layout shift). On search.html, when the address holds a query, the box that holds
// the title, the search field and the results is given a screen's height at once (before the
// first paint), so the footer below does not move as the hits arrive. (The box, not the
// results' own <div>: a min-height on that empty <div> keeps the field's bottom margin from
// collapsing with the first result's top margin until the result comes, and the results then
// moved up 18 px.) Each patch replaces one exact piece of Sphinx's or the theme's code; when
// that code is not as expected (another version), the build fails, naming the piece.
// tests/browser/test_search.py checks the snippets against Sphinx's own code run on the
// whole pages.
//
// Usage: node search-text.mjs ../_build/html   (from web/, after `npm ci`; `make book`)
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parse } from "parse5";

class BuildError extends Error {}
const fail = (msg) => { throw new BuildError(msg); };

export const SEARCH_DIR = "_search";

// ------------------------------------------------------------------- the pages' main text

const attrOf = (el, name) => (el.attrs || []).find((a) => a.name === name)?.value;
const hasClass = (el, cls) => (attrOf(el, "class") || "").split(/[\t\n\f\r ]+/).includes(cls);
const isElement = (n) => n.tagName !== undefined;

// document order, as querySelector walks it (a <template>'s content is not a child)
function find(node, test) {
  for (const c of node.childNodes || []) {
    if (isElement(c) && test(c)) return c;
    const r = isElement(c) || c.nodeName === "#document" ? find(c, test) : null;
    if (r) return r;
  }
  return null;
}

// htmlToText's removals: every element querySelectorAll(".headerlink"), ("script") or
// ("style") finds. A type selector matches in every namespace (an SVG or MathML <script> or
// <style> goes too); a class selector matches case-insensitively in quirks mode (no doctype).
function strip(node, quirks) {
  const headerlink = (c) => (quirks
    ? (attrOf(c, "class") || "").split(/[\t\n\f\r ]+/).some((k) => k.toLowerCase() === "headerlink")
    : hasClass(c, "headerlink"));
  node.childNodes = (node.childNodes || []).filter((c) => !(isElement(c) &&
    (headerlink(c) || ["script", "style"].includes(c.tagName))));
  for (const c of node.childNodes) if (isElement(c)) strip(c, quirks);
}

const escText = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;");
const escAttr = (s) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;");

// the text nodes below `node`, and the elements with an id as <div id>s around theirs
function reduce(node) {
  let out = "";
  for (const c of node.childNodes || []) {
    if (c.nodeName === "#text") out += escText(c.value);
    else if (isElement(c)) {
      const id = attrOf(c, "id");
      const inner = reduce(c);
      out += id !== undefined ? `<div id="${escAttr(id)}">${inner}</div>` : inner;
    }
  }
  return out;
}

// the text textContent gives (for the check below)
const text = (node) => (node.childNodes || []).map((c) => (c.nodeName === "#text" ? c.value : isElement(c) ? text(c) : "")).join("");

export function searchText(html, where) {
  const doc = parse(html, { scriptingEnabled: false });
  strip(doc, doc.mode === "quirks");
  const main = find(doc, (el) => attrOf(el, "role") === "main");
  if (!main) fail(`${where}: no [role="main"] element (the theme changed?)`);
  const body = reduce(main);
  // the reduced file, parsed again, must hold the same text (a <pre>'s first newline, say, would not)
  const again = find(parse(`<div role="main">${body}</div>`, { scriptingEnabled: false }), (el) => attrOf(el, "role") === "main");
  if (text(again) !== text(main)) fail(`${where}: the reduced text differs from the page's`);
  return '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex">' +
    `<title>search text</title></head><body><div role="main">${body}</div></body></html>\n`;
}

// --------------------------------------------------------------------- searchtools.js

// The hits whose snippets are fetched first, alone: what a phone's first screen shows (on
// Lighthouse's mobile profile, 412 x 823, the first two). Fetched with the rest, each text copy
// shared the slow link with seven others and the first screen waited for nearly all of them.
const FIRST_HITS = 2;
// [what Sphinx 7.4.7 has, what it becomes, why]
const PATCHES = [
  [
    "requestUrl = contentRoot + docName + docFileSuffix;",
    `requestUrl = contentRoot + "${SEARCH_DIR}/" + docName + docFileSuffix;`,
    "the snippet's text comes from the page's cut-down copy",
  ],
  // _displayItem: the hit's <li> is filled as before, but added to the list by the caller,
  // and its snippet is fetched once \`after\` has resolved
  [
    "const _displayItem = (item, searchTerms, highlightTerms) => {",
    "const _displayItem = (item, searchTerms, highlightTerms, after = Promise.resolve()) => {",
    "a hit's snippet can wait for the first hits'",
  ],
  [
    `  else if (showSearchSummary)
    fetch(requestUrl)
      .then((responseData) => responseData.text())
      .then((data) => {
        if (data)
          listItem.appendChild(
            Search.makeSearchSummary(data, searchTerms, anchor)
          );
        // highlight search terms in the summary
        if (SPHINX_HIGHLIGHT_ENABLED)  // set in sphinx_highlight.js
          highlightTerms.forEach((term) => _highlightText(listItem, term, "highlighted"));
      });
  Search.output.appendChild(listItem);
};`,
    `  else if (showSearchSummary)
    return after.then(() => fetch(requestUrl))
      .then((responseData) => responseData.text())
      .then((data) => {
        if (data)
          listItem.appendChild(
            Search.makeSearchSummary(data, searchTerms, anchor)
          );
        // highlight search terms in the summary
        if (SPHINX_HIGHLIGHT_ENABLED)  // set in sphinx_highlight.js
          highlightTerms.forEach((term) => _highlightText(listItem, term, "highlighted"));
      })
      .catch((e) => console.error(e))
      .then(() => listItem);
  return Promise.resolve(listItem);
};`,
    "a hit is shown with its snippet, not before it",
  ],
  // _displayNextItem: the first hits' snippets are fetched, then the others' (they came 5 ms
  // apart); each hit is added to the list once it and every hit ranked above it have their
  // snippet, so the hits appear in rank order, each below the last (nothing already shown moves). The status line,
  // above the list, is written with the first hits (Sphinx wrote it once every hit was listed,
  // their snippets still loading), in the same frame: it does not push shown hits down either.
  [
    `  // results left, load the summary and display it
  // this is intended to be dynamic (don't sub resultsCount)
  if (results.length) {
    _displayItem(results.pop(), searchTerms, highlightTerms);
    setTimeout(
      () => _displayNextItem(results, resultCount, searchTerms, highlightTerms),
      5
    );
  }
  // search finished, update title and status message
  else _finishSearch(resultCount);
};`,
    `  // the first hits' summaries are loaded first (the link is not shared with the others),
  // then all the others at once; the hits are shown in rank order
  const ranked = results.reverse();
  const first = ranked.slice(0, ${FIRST_HITS}).map((item) => _displayItem(item, searchTerms, highlightTerms));
  const firstIn = Promise.all(first);
  const items = first.concat(ranked.slice(${FIRST_HITS}).map((item) => _displayItem(item, searchTerms, highlightTerms, firstIn)));
  if (!items.length) _finishSearch(resultCount);
  items.reduce((shown, item, k) => shown.then(() => item).then((listItem) => {
    Search.output.appendChild(listItem);
    if (k === 0) _finishSearch(resultCount);
  }), Promise.resolve());
};`,
    "the hits appear in rank order, each with its snippet, and nothing shown moves",
  ],
];

export function patchSearchtools(js) {
  if (PATCHES.every(([, to]) => js.includes(to))) return js;
  for (const [from, to, why] of PATCHES) {
    const k = js.indexOf(from);
    if (k < 0 || js.indexOf(from, k + 1) >= 0) {
      fail(`_static/searchtools.js: cannot patch it so that ${why}: the code it replaces is not there ` +
        `exactly once (Sphinx changed?):\n${from}`);
    }
    js = js.replace(from, () => to);
  }
  return js;
}

// ------------------------------------------------------------------------- search.html

const RESULTS = '<div id="search-results"></div>';
// Sphinx's Search.init runs a search when the address has a non-empty ?q=
const RESERVE = '<script>new URLSearchParams(location.search).get("q") && ' +
  '(document.getElementById("search-results").parentElement.style.minHeight = "100vh");</script>';

export function reserveResults(html) {
  if (html.includes(RESULTS + RESERVE)) return html;
  const k = html.indexOf(RESULTS);
  if (k < 0 || html.indexOf(RESULTS, k + 1) >= 0) {
    fail(`search.html: ${RESULTS} is not there exactly once (the theme's search page changed?)`);
  }
  return html.replace(RESULTS, () => RESULTS + RESERVE);
}

// The search page's scripts. Sphinx's search runs when searchindex.js has run, and deferred
// scripts run in the order of the page: it waited for every script before it (the theme's,
// the book's, the code-cell buttons'), on a link that carries six requests at a time. On
// search.html, the search's three scripts move up to just after the two they use
// (doctools.js: _ready, gettext; sphinx_highlight.js: the highlighting), so they are fetched in
// the first six and run as soon as they are in; the code-cell buttons' scripts (copy, toggle),
// which find nothing to do on a page of search results, go.
const TAG = (src) => new RegExp(`[ \\t]*<script defer src="${src.replace(/[.?]/g, "\\$&")}(?:\\?[^"]*)?"></script>\\n`);
const SEARCH_TAGS = ["_static/searchtools.js", "_static/language_data.js", "searchindex.js"].map(TAG);
const AFTER = TAG("_static/sphinx_highlight.js");
const UNUSED = ["_static/clipboard.min.js", "_static/copybutton.js", "_static/togglebutton.js"].map(TAG);
const SEARCH_FIRST = "<!-- search scripts first: web/search-text.mjs -->";

export function searchPageScripts(html) {
  if (html.includes(SEARCH_FIRST)) return html;
  if (/<pre\b|class="(?:[^"]*\s)?(?:toggle|dropdown)(?:\s[^"]*)?"/.test(html)) fail("search.html: a code block or toggle on the search page (its scripts were to go)");
  const one = (re, what) => {
    const m = html.match(re);
    if (!m || html.indexOf(m[0], m.index + 1) >= 0) fail(`search.html: ${what} is not there once as <script defer src=...> (the page changed?)`);
    return m[0];
  };
  const tags = SEARCH_TAGS.map((re, k) => one(re, ["searchtools.js", "language_data.js", "searchindex.js"][k]));
  const after = one(AFTER, "sphinx_highlight.js");
  const unused = UNUSED.map((re, k) => one(re, ["clipboard.min.js", "copybutton.js", "togglebutton.js"][k]));
  for (const t of [...tags, ...unused]) html = html.replace(t, "");
  return html.replace(after, () => after + tags.join("") + `    ${SEARCH_FIRST}\n`);
}

// -------------------------------------------------------------------------------- main

function main() {
  const site = resolve(process.argv[2] || "../_build/html");
  const indexFile = join(site, "searchindex.js");
  if (!existsSync(indexFile)) fail(`${indexFile} not found: build the book first`);
  const m = /^Search\.setIndex\(([\s\S]*)\)\s*$/.exec(readFileSync(indexFile, "utf8"));
  if (!m) fail("searchindex.js is not of the form Search.setIndex({...})");
  const { docnames } = JSON.parse(m[1]);
  if (!Array.isArray(docnames) || !docnames.length) fail("searchindex.js lists no pages");
  let raw = 0;
  for (const doc of docnames) {
    const page = join(site, `${doc}.html`);
    if (!existsSync(page)) fail(`${doc}.html (in the search index) not found`);
    const out = searchText(readFileSync(page, "utf8"), `${doc}.html`);
    const file = join(site, SEARCH_DIR, `${doc}.html`);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, out);
    raw += Buffer.byteLength(out);
  }
  const search = join(site, "search.html");
  if (!existsSync(search)) fail("search.html not found");
  writeFileSync(search, searchPageScripts(reserveResults(readFileSync(search, "utf8"))));
  const tools = join(site, "_static", "searchtools.js");
  writeFileSync(tools, patchSearchtools(readFileSync(tools, "utf8")));
  console.log(`search-text: ${docnames.length} pages' search text in ${SEARCH_DIR}/ (${(raw / 1e3).toFixed(0)} kB raw); ` +
    "searchtools.js fetches them, search.html keeps room for the hits");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    main();
  } catch (e) {
    console.error(e instanceof BuildError ? `search-text: ERROR: ${e.message}` : e);
    process.exit(1);
  }
}
