#!/usr/bin/env node
// Puts each page's stylesheets into the page: no request holds up the first paint on a slow
// link. `make book` runs it after the other build steps, over _build/html.
//
// A page links 5-6 small stylesheets: the theme's (web/theme/attnbook/static/attnbook.css),
// the code colours, myst-nb's cells, the copy and toggle buttons, and on pages with formulas
// lib/math.css. Here they are read in the order the page links them, their url()s rebased to
// the page, minified with Lightning CSS (pinned in web/package-lock.json) and put in ONE <style>
// where the first link stood (a link for some media only, media="print", keeps its rules inside
// @media). A linked file that is missing stops the build, naming the page and the file. Nothing
// is purged: every rule a page links stays, so a class a script adds at run time always finds
// its style. The files themselves stay in _static/ (a
// page that is not rewritten, such as one saved from the browser, still works).
//
// Usage: node inline-css.mjs ../_build/html   (from web/, after `npm ci`; `make book`)
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { transform } from "lightningcss";

class BuildError extends Error {}
const fail = (msg) => { throw new BuildError(msg); };

const MARK = '<meta name="inlined-css" content="web/inline-css.mjs" />';
const LINK = /[ \t]*<link\b[^>]*\brel="stylesheet"[^>]*>\n?/g;
const toPosix = (p) => p.split(sep).join("/");
const stripQuery = (href) => href.split(/[?#]/)[0];
const hrefOf = (tag) => (/\shref="([^"]+)"/.exec(tag) || fail(`a stylesheet link without href: ${tag}`))[1];
const mediaOf = (tag) => /\smedia="([^"]*)"/.exec(tag)?.[1];
// an attribute's character references (the ones a path can need), decoded
const unescapeAttr = (v) => v.replace(/&(?:#x([0-9a-f]+)|#([0-9]+)|(amp|quot|lt|gt|apos));/gi, (m, hex, dec, name) =>
  (name ? { amp: "&", quot: '"', lt: "<", gt: ">", apos: "'" }[name.toLowerCase()] : codePoint(parseInt(hex ?? dec, hex ? 16 : 10))));
function codePoint(c) { return (c > 0 && c <= 0x10ffff && !(c >= 0xd800 && c <= 0xdfff) ? String.fromCodePoint(c) : "\ufffd"); }

export function htmlFiles(dir, root = dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (!["_static", "_sources", "_images", "_search"].includes(relative(root, p))) out.push(...htmlFiles(p, root));
    } else if (name.endsWith(".html")) out.push(p);
  }
  return out;
}

// CSS's escapes (\" \) \26 ...) in a url's value, decoded
const unescapeCss = (v) => v.replace(/\\(?:([0-9a-fA-F]{1,6})[ \t\n\f\r]?|\r\n|([\s\S]))/g, (m, hex, ch) => {
  if (hex !== undefined) {
    const code = parseInt(hex, 16);
    return codePoint(code);
  }
  return ch === undefined || ch === "\n" || ch === "\f" ? "" : ch;
});
const quoteCss = (v) => `"${v.replace(/[\\"]/g, "\\$&").replace(/\n/g, "\\a ").replace(/\r/g, "\\d ").replace(/\f/g, "\\c ")}"`;
const WS = /[ \t\n\f\r]/;

// url(...) in a stylesheet at `file`, rewritten relative to the page's folder `pageDir`. The
// stylesheet is scanned as CSS tokenizes it: comments and strings are passed over whole (a
// string may say "url(x)"; a data: URL may hold url(...) and quotes of the other kind), the
// function name is matched in any letter case, and escapes in the URL are decoded before it is
// resolved and written again (quoted) after.
export function rebaseUrls(css, file, pageDir) {
  let out = "";
  let i = 0;
  const n = css.length;
  const stringEnd = (k) => {  // k at the opening quote: index after the closing one
    const q = css[k];
    let j = k + 1;
    while (j < n && css[j] !== q && css[j] !== "\n") j += css[j] === "\\" ? 2 : 1;
    return Math.min(n, j + 1);
  };
  while (i < n) {
    const ch = css[i];
    if (ch === "/" && css[i + 1] === "*") {
      const e = css.indexOf("*/", i + 2);
      const stop = e < 0 ? n : e + 2;
      out += css.slice(i, stop); i = stop; continue;
    }
    if (ch === '"' || ch === "'") { const e = stringEnd(i); out += css.slice(i, e); i = e; continue; }
    if (ch === "\\") { out += css.slice(i, i + 2); i += 2; continue; }
    if ((ch === "u" || ch === "U") && /^url\($/i.test(css.slice(i, i + 4)) && !/[-\w\\\u0080-\uffff]/.test(css[i - 1] || " ")) {
      let j = i + 4;
      while (j < n && WS.test(css[j])) j++;
      let raw, after;
      if (css[j] === '"' || css[j] === "'") {
        const e = stringEnd(j);
        raw = css.slice(j + 1, e - 1);
        after = e;
        while (after < n && WS.test(css[after])) after++;
        if (css[after] !== ")") { out += css.slice(i, after); i = after; continue; }  // not a url: left
      } else {
        let k = j;
        while (k < n && css[k] !== ")" && !WS.test(css[k])) k += css[k] === "\\" ? 2 : 1;
        raw = css.slice(j, k);
        after = k;
        while (after < n && WS.test(css[after])) after++;
        if (css[after] !== ")") { out += css.slice(i, after); i = after; continue; }
      }
      const url = unescapeCss(raw);
      const whole = css.slice(i, after + 1);
      i = after + 1;
      if (url === "" || /^(data:|[a-z][a-z0-9+.-]*:|#|\/)/i.test(url)) { out += whole; continue; }
      const [path, rest] = /^([^?#]*)([\s\S]*)$/.exec(url).slice(1);
      const target = resolve(dirname(file), path);
      out += `url(${quoteCss((toPosix(relative(pageDir, target)) || ".") + rest)})`;
      continue;
    }
    out += ch; i += 1;
  }
  return out;
}

const minified = new Map(); // one stylesheet set, rebased for one folder -> minified CSS

// Without JavaScript, the OS's colour mode. Every stylesheet keys its dark colours on
// html[data-theme="dark"], which layout.html's inline script sets (the reader's choice, else the
// OS's); without scripts the attribute stays "light" and html has no data-script. So each rule
// (or the selectors of a rule) that names [data-theme="dark"] (not inside a :not(...)) gets a
// twin, appended at the end
// (it wins over the light rules it mirrors: same specificity, later), in which
// [data-theme="dark"] reads :not([data-script]), all inside @media (prefers-color-scheme: dark):
// the dark colours, figures and prerendered maps for a reader with scripts off and a dark OS.
// With scripts on, html always has data-script, and no twin applies: the mode switch wins.
// Read from Lightning CSS's minified output: rules, at-rules with blocks (@media, @supports,
// @layer are entered; @keyframes, @font-face and the like are not), strings and parentheses
// passed over whole.
const DARK = /\[data-theme=(["']?)dark\1\]/g;
function blockEnd(css, open) {  // index of the "}" closing the "{" at `open`
  let depth = 0;
  for (let i = open; i < css.length; i++) {
    const c = css[i];
    if (c === '"' || c === "'") { i = stringEnd(css, i) - 1; continue; }
    if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return i;
  }
  fail("an unbalanced stylesheet");
}
function stringEnd(css, k) {
  let j = k + 1;
  while (j < css.length && css[j] !== css[k]) j += css[j] === "\\" ? 2 : 1;
  return j + 1;
}
function splitSelectors(prelude) {  // top-level commas only (not inside :is(...), strings)
  const out = [];
  let depth = 0, from = 0;
  for (let i = 0; i < prelude.length; i++) {
    const c = prelude[i];
    if (c === '"' || c === "'") { i = stringEnd(prelude, i) - 1; continue; }
    if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "," && depth === 0) { out.push(prelude.slice(from, i)); from = i + 1; }
  }
  out.push(prelude.slice(from));
  return out;
}
// A selector for the dark mode: it names [data-theme="dark"], and never inside :not(...) (that
// one is for the light mode: html[data-script]:not([data-theme="dark"]) .only-dark).
const NOT = /:not\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)/g;
function isDarkSelector(sel) {
  const has = (s) => { DARK.lastIndex = 0; return DARK.test(s); };
  const outside = sel.replace(NOT, "");
  return has(outside) && !(sel.match(NOT) || []).some(has);
}
function darkTwins(css) {
  let out = "";
  let i = 0;
  while (i < css.length) {
    while (i < css.length && /[\s;]/.test(css[i])) i++;
    if (i >= css.length) break;
    let j = i;
    while (j < css.length && css[j] !== "{" && css[j] !== ";") {
      if (css[j] === '"' || css[j] === "'") j = stringEnd(css, j); else j++;
    }
    if (j >= css.length || css[j] === ";") { i = j + 1; continue; }  // @charset/@import/...: no block
    const prelude = css.slice(i, j).trim();
    const end = blockEnd(css, j);
    const body = css.slice(j + 1, end);
    i = end + 1;
    if (prelude.startsWith("@")) {
      if (/^@(media|supports|layer)\b/i.test(prelude)) {
        const inner = darkTwins(body);
        if (inner) out += `${prelude}{${inner}}`;
      }
      continue;
    }
    const dark = splitSelectors(prelude).filter(isDarkSelector);
    if (dark.length) out += `${dark.map((sel) => sel.replace(DARK, ":not([data-script])")).join(",")}{${body}}`;
  }
  return out;
}
export function withNoScriptDark(css) {
  const twins = darkTwins(css);
  return twins ? `${css}@media (prefers-color-scheme:dark){${twins}}` : css;
}

export function inlineStyles(html, file, site) {
  if (html.includes(MARK)) return html; // already done (make book runs it once per build)
  const head = html.slice(0, html.indexOf("</head>"));
  const links = head.match(LINK) || [];
  if (!links.length) return html;
  const pageDir = dirname(file);
  const page = relative(site, file);
  const sheets = links.map((tag) => {
    const href = stripQuery(unescapeAttr(hrefOf(tag)));
    if (/^[a-z]+:|^\/\//i.test(href)) fail(`${page} links an outside stylesheet: ${href}`);
    let path;
    try { path = decodeURIComponent(href); } catch { fail(`${page}: a stylesheet link that is not a URL: ${href}`); }
    const f = resolve(pageDir, path);
    if (!existsSync(f)) fail(`${page} links ${href}, which is missing (${relative(site, f)})`);
    return { file: f, media: mediaOf(tag) };
  });
  const files = sheets.map((x) => x.file);
  const key = `${toPosix(relative(site, pageDir))}|${sheets.map((x) => `${x.file} ${x.media ?? ""}`).join("|")}`;
  if (!minified.has(key)) {
    // a link for some media only (media="print") keeps its rules for those media
    const css = sheets.map(({ file: f, media }) => {
      const text = rebaseUrls(readFileSync(f, "utf8"), f, pageDir);
      return media && media.trim().toLowerCase() !== "all" ? `@media ${media} {\n${text}\n}` : text;
    }).join("\n");
    if (/@import\b/.test(css)) fail(`${page}: a linked stylesheet uses @import`);
    const { code } = transform({ filename: key, code: Buffer.from(css), minify: true });
    minified.set(key, withNoScriptDark(code.toString("utf8")).replace(/<\/style/gi, "<\\/style"));
  }
  let first = true;
  const rewritten = head.replace(LINK, (tag) => {
    if (!first) return "";
    first = false;
    const indent = /^[ \t]*/.exec(tag)[0];
    // explorer-boot.js adds explorer.css to a page that has not got it: this one has
    const explorer = files.some((f) => f.endsWith(`${sep}explorer.css`)) ? " data-explorer-css" : "";
    return `${indent}${MARK}\n${indent}<style${explorer}>${minified.get(key)}</style>\n`;
  });
  return rewritten + html.slice(head.length);
}

function main() {
  const site = resolve(process.argv[2] || fail("usage: node inline-css.mjs <built site>"));
  let pages = 0;
  for (const file of htmlFiles(site)) {
    const html = readFileSync(file, "utf8");
    const out = inlineStyles(html, file, site);
    if (out !== html) {
      writeFileSync(file, out);
      pages += 1;
    }
  }
  console.log(`inline-css: stylesheets inlined into ${pages} pages (${minified.size} distinct sets)`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  try {
    main();
  } catch (e) {
    if (e instanceof BuildError) {
      console.error(`inline-css: ${e.message}`);
      process.exit(1);
    }
    throw e;
  }
}
