#!/usr/bin/env node
// Makes every page of the built book light on a slow phone: only the CSS it uses, inlined,
// and no script in the way of the first paint. `make book` runs it last, over _build/html.
//
// Measured with benchmarks/bench_browser.py on Lighthouse's mobile profile (README, issue 20).
// What it does to each page, in order:
//
// 1. Stylesheets. The theme links 11-13 stylesheets (about 100 kB gzip, 570 kB raw: all of
//    Bootstrap 5, Font Awesome's CSS, Sphinx's basic.css through a chained @import), of which a
//    page uses about a tenth. Here they are read in the order the page links them (an @import is
//    inlined where it stands, url()s are rebased), purged with PurgeCSS against the page's own
//    HTML and the scripts that can add classes at run time (the theme's, Sphinx's, the book's;
//    see SCRIPTS_FOR_CLASSES), minified with Lightning CSS, and put in ONE <style> in the
//    page's <head>, where the first link stood: no render-blocking request, no @import chain.
//    Kept whole whatever the page holds: rules under the selectors the theme toggles
//    (SAFELIST: dark mode is [data-theme="dark"] on <html>, dialogs, tooltips, "show", ...) and
//    @media/@supports blocks around rules that are kept. explorer.css is not purged: the
//    explorers build their DOM in script (it is appended whole on pages with explorers).
// 2. Scripts. Classic scripts in <head> get `defer` (they ran before the first paint and held
//    the parser); documentation_options.js is inlined, because small inline scripts after it
//    set its fields while the page is parsed. Sphinx's search (searchtools.js,
//    language_data.js, searchindex.js) stays on the search page only: elsewhere the theme's
//    search box just opens search.html?q=... . design-tabs.js goes where there are no tabs.
//    The <link rel="preload"> of the theme's scripts (bootstrap.js, pydata-sphinx-theme.js,
//    loaded deferred at the end of <body>) are dropped: they competed with the first screen.
// 3. The theme's scroll-width pass. pydata-sphinx-theme.js, at DOMContentLoaded and again on
//    every change below #main-content, gives each code block and output a tab stop when it
//    scrolls sideways: it reads scrollWidth and writes tabIndex element by element, so each
//    read forced a fresh layout of the whole page (240-290 ms at 4x CPU). The pass is
//    rewritten (once, in _static/scripts/pydata-sphinx-theme.js) to read every width first
//    and then write only the tab stops that change, after the first frame has been laid out.
//
// Fails loudly (non-zero exit, naming the page) on anything it does not recognise: a
// stylesheet or script it cannot find, a theme script of another shape, a page already done.
//
// Usage: node optimize-pages.mjs ../_build/html   (from web/, after `npm ci`; `make book`)
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, posix, relative, resolve, sep } from "node:path";
import { parseFragment } from "parse5";
import { PurgeCSS } from "purgecss";
import { transform } from "lightningcss";

class BuildError extends Error {}
const fail = (msg) => { throw new BuildError(msg); };

// Scripts whose string literals may become class names at run time (their tokens count as
// "used" for the purge). Paths relative to the site root. bootstrap.js is left out on
// purpose (it names every Bootstrap component; the few the theme uses are in SAFELIST).
const SCRIPTS_FOR_CLASSES = [
  "_static/scripts/pydata-sphinx-theme.js", "_static/scripts/sphinx-book-theme.js",
  "_static/togglebutton.js", "_static/copybutton.js", "_static/sphinx_highlight.js", "_static/doctools.js",
  "_static/lib/book.js",
];
const SEARCH_SCRIPTS = ["_static/searchtools.js", "_static/language_data.js"];
// Selectors kept whatever a page holds: states the theme's scripts and Bootstrap toggle. Dark
// mode needs no entry here: [data-theme=...] is a DYNAMIC_ATTRIBUTE, so a rule under
// html[data-theme="dark"] is kept whenever the rest of its selector matches the page.
const SAFELIST = {
  standard: [/^show$/, /^showing$/, /^hiding$/, /^fade$/, /^collapsing$/, /^active$/, /^disabled$/, /^open$/,
    /^scrolled$/, /^focus-visible$/],
  deep: [/^tooltip/, /^bs-tooltip/, /^dropdown/, /^tooltip-inner$/, /^tooltip-arrow$/],
};
const DYNAMIC_ATTRIBUTES = ["data-theme", "data-mode", "aria-expanded", "aria-current", "aria-selected", "open",
  "data-bs-popper", "data-popper-placement", "tabindex", "hidden"];

// ------------------------------------------------------------------------------- the pages

function htmlFiles(dir, root = dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (!name.startsWith("_")) out.push(...htmlFiles(p, root));
    } else if (name.endsWith(".html")) out.push(p);
  }
  return out;
}

const MARK = '<meta name="optimized" content="web/optimize-pages.mjs" />';
const stripQuery = (href) => href.split(/[?#]/)[0];
const toPosix = (p) => p.split(sep).join("/");

// ------------------------------------------------------------------------------ stylesheets

/** A stylesheet's text with its @imports inlined and every relative url() made relative to
 * the folder `toDir` (the page that inlines it). */
function stylesheet(file, toDir, seen = new Set()) {
  if (seen.has(file)) fail(`@import cycle at ${file}`);
  seen.add(file);
  if (!existsSync(file)) fail(`stylesheet ${file} not found`);
  let css = readFileSync(file, "utf8");
  const from = dirname(file);
  const imports = [];  // inlined after the url()s of this file are rebased (theirs are rebased in the call)
  css = css.replace(/@import\s+(?:url\(\s*)?["']?([^"')\s;]+)["']?\s*\)?([^;]*);/g, (_m, href, media) => {
    if (media.trim()) fail(`${file}: @import with a condition (${media.trim()}) is not handled`);
    if (/^[a-z]+:/i.test(href)) fail(`${file}: @import of an outside stylesheet ${href}`);
    imports.push(stylesheet(resolve(from, stripQuery(href)), toDir, seen));
    return `\u0000${imports.length - 1}\u0000`;
  });
  css = css.replace(/url\(\s*(["']?)([^"')]+)\1\s*\)/g, (m, q, url) => {
    if (/^(data:|[a-z]+:|#|\/)/i.test(url)) return m;
    const path = url.split(/[?#]/)[0];
    return `url("${toPosix(relative(toDir, resolve(from, path))) || "."}${url.slice(path.length)}")`;
  });
  css = css.replace(/\u0000(\d+)\u0000/g, (_m, k) => imports[+k]);
  return css.replace(/\/\*# sourceMappingURL=[^*]*\*\//g, "");
}

// What a page's HTML can match: its tags, classes, ids, attribute names and values, and the words
// of its classic inline scripts (which may set classes). Not the words of its prose: PurgeCSS's
// default extractor takes every word of the page, so a chapter that says "row", "sidebar" or
// "legend" kept .row > *, aside.sidebar > * and legend + *, rules that match nothing yet are tried
// on every element at each style recalculation (a colour-mode switch recalculates the whole
// page: 4,000-7,500 elements on a chapter). Widget state and other data scripts are left out.
const WORDS = /[A-Za-z0-9_-]+/g;
// An attribute's value as the parser reads it: character references decoded (class="a&#32;b"
// is the classes a and b), by parse5 itself, on the rare values that hold an "&".
function attrValue(a) {
  const raw = a[2] ?? a[3] ?? a[4] ?? "";
  if (!raw.includes("&")) return raw;
  const q = a[3] !== undefined ? "'" : '"';
  const el = parseFragment(`<i x=${q}${raw}${q}></i>`).childNodes[0];
  return el?.attrs?.[0]?.value ?? raw;
}

export function htmlMarkup(html) {
  const tags = new Set(), classes = new Set(), ids = new Set(), names = new Set(), values = new Set();
  const words = new Set();
  const body = html.replace(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi, (_m, attrs, code) => {
    const type = /\btype="([^"]*)"/i.exec(attrs);
    if (!type || /javascript|module/i.test(type[1])) for (const w of code.match(WORDS) || []) words.add(w);
    return `<script${attrs}></script>`;
  }).replace(/<!--[\s\S]*?-->/g, "");
  // attributes after whitespace, or straight after a quoted value (<p id="a"class="b">)
  const TAG = /<([A-Za-z][\w:.-]*)((?:(?:\s+|(?<=["']))[^\s=>\/]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>"']+))?)*)\s*\/?>/g;
  const ATTR = /([^\s=>\/]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?/g;
  for (const m of body.matchAll(TAG)) {
    tags.add(m[1].toLowerCase());
    for (const a of m[2].matchAll(ATTR)) {
      const name = a[1].toLowerCase(), value = attrValue(a);
      names.add(name);
      if (!value) continue;
      values.add(value);
      // HTML splits a class list at ASCII whitespace only (a no-break space is part of a class)
      for (const v of value.split(/[\t\n\f\r ]+/)) if (v) values.add(v);
      if (name === "class") for (const c of value.split(/[\t\n\f\r ]+/)) if (c) classes.add(c);
      if (name === "id") ids.add(value);
    }
  }
  return { attributes: { names: [...names], values: [...values] }, classes: [...classes], ids: [...ids],
    tags: [...tags], undetermined: [...words] };
}

const LINK = /[ \t]*<link\b[^>]*\brel="stylesheet"[^>]*>\n?/g;
const hrefOf = (tag) => (/\bhref="([^"]+)"/.exec(tag) || fail(`a stylesheet link without href: ${tag}`))[1];

async function inlineCss(html, file, site, scripts, where) {
  const head = html.slice(0, html.indexOf("</head>"));
  const links = [...head.matchAll(LINK)];
  if (!links.length) fail(`${where}: no stylesheet in <head>`);
  const dir = dirname(file);
  let purgeable = "", whole = "";
  for (const m of links) {
    const href = hrefOf(m[0]);
    if (/^[a-z]+:/i.test(href)) fail(`${where}: an outside stylesheet ${href}`);
    const css = stylesheet(resolve(dir, stripQuery(href)), dir);
    if (/\/lib\/explorer\.css$/.test(stripQuery(href))) whole += css + "\n";
    else purgeable += css + "\n";
  }
  const [result] = await new PurgeCSS().purge({
    content: [{ raw: html, extension: "html" }, ...scripts.map((s) => ({ raw: s, extension: "js" }))],
    extractors: [{ extractor: htmlMarkup, extensions: ["html"] }],
    css: [{ raw: purgeable }],
    safelist: SAFELIST,
    dynamicAttributes: DYNAMIC_ATTRIBUTES,
    fontFace: true,
    keyframes: true,
    variables: true,
  });
  const code = Buffer.from(result.css + "\n" + whole);
  let min;
  try {
    min = transform({ filename: where + ".css", code, minify: true, errorRecovery: false }).code.toString();
  } catch (e) {
    fail(`${where}: Lightning CSS could not read the purged stylesheet: ${e.message}`);
  }
  if (/<\/style/i.test(min)) fail(`${where}: "</style" inside the CSS`);
  // One <style> where the first link stood; the other links go.
  let k = 0;
  // data-explorer-css tells _static/lib/explorer-boot.js the explorers' stylesheet is here
  const tag = whole ? "<style data-explorer-css>" : "<style>";
  const out = html.slice(0, head.length).replace(LINK, () => (k++ === 0 ? `    ${tag}${min}</style>\n` : ""));
  return { html: out + html.slice(head.length), before: Buffer.byteLength(purgeable + whole), after: min.length };
}

// ---------------------------------------------------------------------------------- scripts

const SCRIPT_TAG = /([ \t]*)<script\b([^>]*)>([\s\S]*?)<\/script>\n?/g;
const attr = (attrs, name) => {
  const m = new RegExp(`\\b${name}(?:="([^"]*)")?(?=[\\s>]|$)`).exec(attrs);
  return m ? (m[1] ?? "") : null;
};

function scripts(html, file, site, where) {
  const isSearch = where === "search.html";
  const headEnd = html.indexOf("</head>");
  let head = html.slice(0, headEnd);
  const dir = dirname(file);
  const siteRel = (src) => toPosix(relative(site, resolve(dir, stripQuery(src))));
  let removed = [], deferred = [];
  head = head.replace(SCRIPT_TAG, (whole, indent, attrs, body) => {
    const src = attr(attrs, "src");
    if (src === null) return whole; // inline: stays where it is (runs while parsing)
    if (/^[a-z]+:/i.test(src)) fail(`${where}: a script from outside: ${src}`);
    const rel = siteRel(src);
    if (!existsSync(join(site, rel))) fail(`${where}: script ${src} not found`);
    if (rel === "_static/scripts/fontawesome.js") { removed.push(rel); return ""; } // a stub: web/fontawesome-stub.js
    if (!isSearch && ["_static/searchtools.js", "_static/language_data.js", "searchindex.js"].includes(rel)) {
      removed.push(rel);
      return "";
    }
    if (rel === "_static/design-tabs.js" && !/class="sd-tab-set/.test(html)) { removed.push(rel); return ""; }
    if (rel === "_static/documentation_options.js") {
      // inlined: the small inline scripts after it (DOCUMENTATION_OPTIONS.pagename = ...) need it now
      const code = readFileSync(join(site, rel), "utf8");
      if (/<\/script/i.test(code)) fail(`${rel} holds "</script"`);
      return `${indent}<script>${code.trim()}</script>\n`;
    }
    if (attr(attrs, "type") === "module" || attr(attrs, "async") !== null || attr(attrs, "defer") !== null) return whole;
    deferred.push(rel);
    return `${indent}<script defer${attrs.replace(/\s+$/, "")}>${body}</script>\n`;
  });
  // The theme preloads its two scripts (loaded deferred at the end of <body>): they competed
  // with the first screen for the link.
  const before = head.length;
  head = head.replace(/[ \t]*<link rel="preload" as="script" href="[^"]*_static\/scripts\/(?:bootstrap|pydata-sphinx-theme)\.js[^"]*" \/>\n?/g, "");
  if (head.length === before && /_static\/scripts\/bootstrap\.js/.test(html)) {
    fail(`${where}: the theme's script preloads are not of the expected form`);
  }
  if (/<script[^>]*\bsrc=[^>]*>/.test(head.replace(SCRIPT_TAG, (w, i, a) =>
    (attr(a, "defer") !== null || attr(a, "async") !== null || attr(a, "type") === "module" ? "" : w)))) {
    fail(`${where}: a parser-blocking script is left in <head>`);
  }
  return { html: head + html.slice(headEnd), removed, deferred };
}

// The theme's first script (pydata-sphinx-theme's layout.html) sets data-theme to the stored
// theme or "auto"; pydata-sphinx-theme.js resolves "auto" to light or dark only after the page
// is parsed, which restyled the whole page once more (and painted it first without the colour
// variables of either). Resolved here at once, the way the theme's script resolves it: the
// mode when the reader chose light or dark, else the OS's colour scheme.
const THEME_INIT = /(document\.documentElement\.dataset\.mode = localStorage\.getItem\("mode"\) \|\| "([a-z]+)";\n\s*)document\.documentElement\.dataset\.theme = localStorage\.getItem\("theme"\) \|\| "[a-z]+";/;
const themeInit = (html, where) => {
  if (!THEME_INIT.test(html)) fail(`${where}: the theme's first script is not of the expected form`);
  return html.replace(THEME_INIT, (_m, mode) => `${mode}document.documentElement.dataset.theme = document.documentElement.dataset.mode === "auto" ` +
    `? (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light") : document.documentElement.dataset.mode;`);
};

// Bootstrap (bootstrap.js, 24 kB gzip, 80 kB to compile: the theme's two dropdown menus,
// its tooltips and its back-to-top button) is not loaded with the page: web/book.js fetches it
// at the first sign of use (a pointer over or focus in the header, a click on a dropdown, a
// scroll), from the URL left in <meta name="book-lazy-script">.
const BOOTSTRAP_TAG = /[ \t]*<script defer src="([^"]*_static\/scripts\/bootstrap\.js[^"]*)"><\/script>\n?/;
function lazyBootstrap(html, where) {
  const m = BOOTSTRAP_TAG.exec(html);
  if (!m) fail(`${where}: the theme's bootstrap.js tag is not of the expected form`);
  return html.replace(BOOTSTRAP_TAG, "").replace("</head>", `  <meta name="book-lazy-script" content="${m[1]}" />\n</head>`);
}

// The theme's scroll-width pass (pydata-sphinx-theme 0.17, minified): reads scrollWidth and
// writes tabIndex element by element (a forced layout per element), from DOMContentLoaded.
const SCROLL_PASS = 'document.querySelectorAll(["pre",".nboutput > .output_area",".cell_output > .output",".jp-RenderedHTMLCommon",".pst-scrollable-table-container"].join(", ")).forEach(e=>{e.tabIndex=e.scrollWidth>e.clientWidth||e.scrollHeight>e.clientHeight?0:-1})},t=_(e,300);window.addEventListener("resize",t),new MutationObserver(t).observe(document.getElementById("main-content"),{subtree:!0,childList:!0}),e()}';
// The same, reading every size first and then writing only the tab stops that change, first
// run after the first frame (when the layout is done anyway).
const SCROLL_PASS_BATCHED = 'const l=[...document.querySelectorAll(["pre",".nboutput > .output_area",".cell_output > .output",".jp-RenderedHTMLCommon",".pst-scrollable-table-container"].join(", "))],v=l.map(e=>e.scrollWidth>e.clientWidth||e.scrollHeight>e.clientHeight?0:-1);l.forEach((e,i)=>{e.tabIndex!==v[i]&&(e.tabIndex=v[i])})},t=_(e,300);window.addEventListener("resize",t),new MutationObserver(t).observe(document.getElementById("main-content"),{subtree:!0,childList:!0}),requestAnimationFrame(()=>setTimeout(e,0))}';

function patchTheme(site) {
  const file = join(site, "_static", "scripts", "pydata-sphinx-theme.js");
  const js = readFileSync(file, "utf8");
  if (js.includes(SCROLL_PASS_BATCHED)) return;
  const k = js.indexOf(SCROLL_PASS);
  if (k < 0 || js.indexOf(SCROLL_PASS, k + 1) >= 0) {
    fail(`${file}: the theme's scroll-width pass is not where it was (pydata-sphinx-theme changed?)`);
  }
  writeFileSync(file, js.replace(SCROLL_PASS, SCROLL_PASS_BATCHED));
}

// ------------------------------------------------------------------------------- code spans

// Pygments wraps every token of a code block in a <span class="..."> (about 2,500 elements on
// chapter 5, half its DOM): names, punctuation and whitespace get spans whose only style is the
// colour the block has anyway. Those spans are unwrapped (their text stays): the same picture
// for fewer elements to style and lay out. Which classes are plain is read from the theme's
// pygments.css, for the light and the dark theme alike.
function plainTokenClasses(site) {
  const css = readFileSync(join(site, "_static", "pygments.css"), "utf8");
  const plain = {};
  for (const theme of ["light", "dark"]) {
    const base = new RegExp(`html\\[data-theme="${theme}"\\] \\.highlight \\{ background: [^;]+; color: ([^ ;}]+) \\}`).exec(css);
    if (!base) fail(`_static/pygments.css: no base colour for the ${theme} theme`);
    const rules = [...css.matchAll(new RegExp(`html\\[data-theme="${theme}"\\] \\.highlight \\.([a-z0-9]+) \\{([^}]*)\\}`, "g"))];
    const seen = {};
    for (const [, cls, body] of rules) {
      const decl = body.trim().replace(/;$/, "");
      const same = decl.toLowerCase() === `color: ${base[1].toLowerCase()}`;
      seen[cls] = (seen[cls] ?? true) && same;
    }
    for (const [cls, same] of Object.entries(seen)) plain[cls] = (plain[cls] ?? true) && same;
  }
  // a class with rules in one theme only is not plain
  const classes = Object.entries(plain).filter(([, v]) => v).map(([k]) => k);
  if (!classes.length) fail("_static/pygments.css: no plain token class found (its format changed?)");
  return new Set(classes);
}

function unwrapPlainSpans(html, plain) {
  let n = 0;
  const out = html.replace(/(<div class="highlight"><pre>)([\s\S]*?)(<\/pre>)/g, (_m, open, code, close) =>
    open + code.replace(/<span class="([a-z0-9]+)">([^<]*)<\/span>/g, (whole, cls, text) => {
      if (!plain.has(cls)) return whole;
      n++;
      return text;
    }) + close);
  return { html: out, n };
}

// ----------------------------------------------------------------------------------- main

async function main() {
  const site = resolve(process.argv[2] || "../_build/html");
  const files = htmlFiles(site);
  if (!files.length) fail(`no HTML pages under ${site}: build the book first`);
  const read = (rel) => {
    const p = join(site, rel);
    if (!existsSync(p)) fail(`${rel} not found in ${site}`);
    return readFileSync(p, "utf8");
  };
  patchTheme(site);
  const plain = plainTokenClasses(site);
  const common = SCRIPTS_FOR_CLASSES.map(read);
  const search = SEARCH_SCRIPTS.map(read);
  let before = 0, after = 0, n = 0, spans = 0;
  for (const file of files) {
    const where = toPosix(relative(site, file));
    let html = readFileSync(file, "utf8");
    if (html.includes(MARK)) fail(`${where} was already optimised: rebuild with \`jupyter-book build --all\``);
    if (/<meta http-equiv="refresh"/i.test(html) && !LINK.test(html)) continue; // a redirect (index.html)
    LINK.lastIndex = 0;
    const isSearch = where === "search.html";
    const u = unwrapPlainSpans(html, plain);
    html = u.html;
    spans += u.n;
    const r = await inlineCss(html, file, site, isSearch ? common.concat(search) : common, where);
    html = scripts(r.html, file, site, where).html;
    html = lazyBootstrap(themeInit(html, where), where);
    html = html.replace("</head>", `  ${MARK}\n</head>`);
    before += r.before; after += r.after; n++;
    writeFileSync(file, html);
  }
  console.log(`optimize-pages: ${n} pages; stylesheets ${(before / n / 1e3).toFixed(0)} kB -> ` +
    `${(after / n / 1e3).toFixed(0)} kB inlined per page (raw, mean); ${spans} plain code spans unwrapped ` +
    `(classes ${[...plain].sort().join(" ")})`);
}

// run as a script (`node optimize-pages.mjs`), not when imported (tests/web/ imports htmlMarkup)
if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((e) => {
    console.error(e instanceof BuildError ? `optimize-pages: ERROR: ${e.message}` : e);
    process.exit(1);
  });
}
