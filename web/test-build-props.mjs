// tests/web/test_build_scripts_properties.py's Node side (a test file, never run by the build):
// one line of JSON in ({"html": ...} or {"css": ..., "from": ..., "to": ...}), one line of JSON
// out, per generated case. Run with cwd web/ (parse5 from there).
//
// The oracles are written here, apart from the scripts under test:
// - the text the page's search reads: Sphinx 7.4's Search.htmlToText, i.e. DOMParser (parse5
//   is the same WHATWG algorithm, scripting off), every element matching ".headerlink",
//   "script" or "style" removed (CSS selectors: a type selector matches in any namespace, a
//   class selector case-insensitively in quirks mode), then the textContent of the first
//   [role="main"], and of `[role="main"] #id` for each id;
// - where a stylesheet's url()s point: each url token read by a small CSS tokenizer written here
//   (a quoted string is one token, whatever it holds), resolved from the stylesheet's folder;
//   after inlining they must point, resolved from the page's folder, at the same files, and a
//   data:/absolute URL must be left as it was.
import { createInterface } from "node:readline";
import { parse } from "parse5";
import { dirname, resolve } from "node:path";

import { inlineStyles, rebaseUrls, withNoScriptDark } from "./inline-css.mjs";
import { searchText } from "./search-text.mjs";
import { cardTables } from "./table-cards.mjs";
import { nameExplorerTimelines, prerender, scriptJson, slimState, STATE_RE, staticDir, staticPicture } from "./prerender-explorers.mjs";
import { resetConfig, typesetPage } from "./prerender-math.mjs";
import temml from "temml";

// {"op": NAME, ...}: a script's function called on generated input; the Python side is the
// oracle (html.parser, urllib, posixpath). An error comes back as {"error": message}.
const OPS = {
  cards: ({ html, where }) => cardTables(html, where),
  rebase: ({ css, from, to }) => ({ css: rebaseUrls(css, from, to) }),
  inline: ({ html, file, site }) => ({ html: inlineStyles(html, file, site) }),
  noScriptDark: ({ css }) => ({ css: withNoScriptDark(css) }),
  timelines: ({ html }) => ({ html: nameExplorerTimelines(html) }),
  scriptJson: ({ value }) => ({ json: scriptJson(value) }),
  staticDir: ({ site, file }) => ({ dir: staticDir(site, file) }),
  // as main() calls it for one page
  // one explorer's static picture, from its saved state (spec, data, indices, texts, name)
  picture: ({ state }) => ({ html: staticPicture(state) }),
  prerender: ({ html, css }) => prerender(html, slimState(JSON.parse(html.match(STATE_RE)[1]).state || {}), css),
  math: ({ html, where }) => { resetConfig(); const r = typesetPage(html, where); return { state: r.state, html: r.html ?? null, n: r.n ?? 0 }; },
  // Temml itself, called as the script's header says (the reference for each formula)
  temml: ({ tex, display, macros }) => ({ mml: temml.renderToString(tex, { displayMode: display, throwOnError: true, macros, wrap: "tex" }) }),
};

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

// the url(...) tokens of a stylesheet, in order: quoted strings are skipped whole
function urlTokens(css) {
  const out = [];
  let i = 0;
  while (i < css.length) {
    const ch = css[i];
    if (ch === '"' || ch === "'") { i = css.indexOf(ch, i + 1) + 1 || css.length; continue; }
    if (css.startsWith("url(", i)) {
      let j = i + 4;
      while (css[j] === " ") j += 1;
      let value;
      if (css[j] === '"' || css[j] === "'") {
        const end = css.indexOf(css[j], j + 1);
        value = css.slice(j + 1, end);
        j = end + 1;
      } else {
        const end = css.indexOf(")", j);
        value = css.slice(j, end).trim();
        j = end;
      }
      out.push(value);
      i = css.indexOf(")", j) + 1;
      continue;
    }
    i += 1;
  }
  return out;
}
const external = (u) => /^(data:|[a-z][a-z0-9+.-]*:|#|\/)/i.test(u);

function checkRebase({ css, from, to }) {
  const before = urlTokens(css);
  const after = urlTokens(rebaseUrls(css, from, to));
  if (before.length !== after.length) return { count: [before.length, after.length] };
  const wrong = [];
  before.forEach((u, k) => {
    const got = after[k];
    const ok = external(u) ? got === u : resolve(to, got) === resolve(dirname(from), u);
    if (!ok) wrong.push({ url: u, got });
  });
  return { wrong };
}

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
  return out;
}

for await (const line of createInterface({ input: process.stdin })) {
  const input = JSON.parse(line);
  let out;
  if ("op" in input) {
    try { out = await OPS[input.op](input); } catch (e) { out = { error: String(e.message || e) }; }
  } else out = "css" in input ? checkRebase(input) : await check(input.html);
  process.stdout.write(JSON.stringify(out) + "\n");
}
