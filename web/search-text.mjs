#!/usr/bin/env node
// The search page's snippets without fetching whole pages. `make book` runs it over _build/html.
//
// Sphinx 7.4's searchtools.js shows a snippet under each hit: it fetches the hit's page
// (`data-content_root + docName + ".html"`), and `Search.makeSearchSummary` cuts 240 characters
// around the first query term out of `Search.htmlToText(page, anchor)`: the textContent of
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
// The theme's search page (web/theme/attnbook/search.html) sets its data-content_root to
// _search/, so Sphinx's own searchtools.js, unchanged, fetches these files. (Only that page:
// the content root is read by nothing else.) tests/browser/theme/test_search.py checks the
// snippets against Sphinx's own code run on the whole pages.
//
// Usage: node search-text.mjs ../_build/html   (from web/, after `npm ci`; `make book`)
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
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
  console.log(`search-text: ${docnames.length} pages' search text in ${SEARCH_DIR}/ (${(raw / 1e3).toFixed(0)} kB raw)`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  try {
    main();
  } catch (e) {
    console.error(e instanceof BuildError ? `search-text: ERROR: ${e.message}` : e);
    process.exit(1);
  }
}
