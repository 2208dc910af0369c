// tests/web/test_build_scripts_properties.py's Node side (a test file, never run by the build): one line of JSON in ({"html": ...}),
// one line of JSON out, per generated page. Run with cwd web/ (parse5, purgecss from there).
//
// The oracles are written here, apart from the scripts under test:
// - the text the page's search reads: Sphinx 7.4's Search.htmlToText, i.e. DOMParser (parse5
//   is the same WHATWG algorithm, scripting off), every element matching ".headerlink",
//   "script" or "style" removed (CSS selectors: a type selector matches in any namespace, a
//   class selector case-insensitively in quirks mode), then the textContent of the first
//   [role="main"], and of `[role="main"] #id` for each id;
// - the classes a page uses: every class of every element parse5 builds (any namespace).
import { createInterface } from "node:readline";
import { parse } from "parse5";
import { PurgeCSS } from "purgecss";

import { searchText } from "./search-text.mjs";
import { htmlMarkup } from "./optimize-pages.mjs";

const isEl = (n) => n.tagName !== undefined;
const attr = (el, name) => (el.attrs || []).find((a) => a.name === name && !a.prefix)?.value;
const kids = (n) => (n.nodeName === "template" && n.content ? [] : n.childNodes || []);
const classesOf = (el) => (attr(el, "class") || "").split(/[\t\n\f\r ]+/).filter(Boolean);

function walk(n, f) {
  for (const c of kids(n)) { f(c); if (isEl(c)) walk(c, f); }
}
function htmlToText(html) {
  const doc = parse(html, { scriptingEnabled: false });
  const quirks = doc.mode === "quirks";
  const removed = (el) => el.tagName === "script" || el.tagName === "style" ||
    classesOf(el).some((c) => (quirks ? c.toLowerCase() === "headerlink" : c === "headerlink"));
  const prune = (n) => {
    n.childNodes = (n.childNodes || []).filter((c) => !(isEl(c) && removed(c)));
    for (const c of n.childNodes) if (isEl(c)) prune(c);
  };
  prune(doc);
  let main = null;
  walk(doc, (c) => { if (!main && isEl(c) && attr(c, "role") === "main") main = c; });
  if (!main) return null;
  const text = (n) => kids(n).map((c) => (c.nodeName === "#text" ? c.value : isEl(c) ? text(c) : "")).join("");
  const anchors = {};
  walk(main, (c) => { const id = isEl(c) && attr(c, "id"); if (id && !(id in anchors)) anchors[id] = text(c); });
  return { main: text(main), anchors };
}

function usedClasses(html) {
  const out = new Set();
  walk(parse(html, { scriptingEnabled: false }), (c) => { if (isEl(c)) for (const k of classesOf(c)) out.add(k); });
  return [...out];
}
const cssIdent = (s) => s.replace(/^-?\d|[^A-Za-z0-9_-]/g, (ch) => `\\${ch.codePointAt(0).toString(16)} `);

async function check(html) {
  const out = {};
  const want = htmlToText(html);
  try {
    const copy = searchText(html, "page.html");
    const got = htmlToText(copy);
    out.search = want === null ? { refused: false, bad: "accepted a page with no [role=main]" }
      : { main_equal: got.main === want.main, want: want.main, got: got.main,
        anchors_differ: Object.keys(want.anchors).filter((id) => got.anchors[id] !== want.anchors[id]) };
  } catch (e) {
    out.search = { refused: true, error: String(e.message || e), has_main: want !== null };
  }
  const used = usedClasses(html);
  const found = new Set(htmlMarkup(html).classes);
  out.extractor_missing = used.filter((c) => !found.has(c));
  const css = used.map((c, i) => `.${cssIdent(c)}{z-index:${1000 + i}}`).join("\n");
  const [r] = await new PurgeCSS().purge({
    content: [{ raw: html, extension: "html" }],
    extractors: [{ extractor: htmlMarkup, extensions: ["html"] }],
    css: [{ raw: css }],
  });
  const kept = r.css.replace(/\s+/g, "").replace(/;}/g, "}");
  out.purged = used.filter((c, i) => !kept.includes(`z-index:${1000 + i}}`));
  return out;
}

for await (const line of createInterface({ input: process.stdin })) {
  const { html } = JSON.parse(line);
  process.stdout.write(JSON.stringify(await check(html)) + "\n");
}
