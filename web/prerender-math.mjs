#!/usr/bin/env node
// Typesets the book's maths at BUILD time into native MathML, so pages load no maths
// JavaScript and carry each formula once.
//
// `make book` runs this right after `jupyter-book build`, over every HTML page of _build/html.
// Sphinx writes maths as  <span class="math notranslate nohighlight">\(...\)</span>  (inline)
// and  <div class="math notranslate nohighlight">\[...\]</div>  (display; an amsmath
// environment may stand there without \[ \], and a numbered equation starts with a
// <span class="eqno">). For each one this script replaces the TeX (HTML entities unescaped
// first) with a <math> element written by Temml (pinned in web/package-lock.json), which emits
// MathML Core: the MathML that Chromium, Firefox and Safari lay out natively, that screen
// readers read, and that needs no hidden second copy (MathJax's CommonHTML output drew each
// formula with 2,000-3,600 <mjx-*> elements per page PLUS a hidden MathML copy for assistive
// technology). Bold vectors (\mathbf) come out as Unicode mathematical bold letters, which is
// how MathML Core writes them (it ignores mathvariant="bold"). Everything else in the file stays
// byte for byte as Sphinx wrote it (the page is never re-serialised: widget state JSON in
// <script> tags must survive verbatim).
//
// On each page it also removes the two <script> tags Sphinx injected for MathJax (the
// window.MathJax configuration and _static/lib/mathjax/load.js) and, on pages with maths,
// links ONE shared stylesheet, _static/lib/math.css: Temml's stylesheet for MathML Core
// (web/node_modules/temml/dist/Temml-STIX2.css) with its font replaced by the book's own
// subset of STIX Two Math (web/subset_math_font.py writes it next: the glyphs the formulas use,
// with their stretchy variants), plus the book's few rules (MATH_CSS). The MathJax files that
// `make vendor` copied for a plain `jupyter-book build` are then removed from the built site:
// no page uses them.
//
// TeX macros come from the window.MathJax object Sphinx wrote from `mathjax3_config` in
// _config.yml (one source of truth; a plain `jupyter-book build` without this step still
// gives pages that MathJax typesets in the browser). Any TeX error (an undefined macro
// included) stops the script with a non-zero exit, naming the page and the TeX. So does
// anything unexpected: a maths element of another shape, MathJax script tags of another form,
// TeX delimiters left outside maths elements, or a page that was already post-processed
// (rebuild with `jupyter-book build --all`).
//
// Usage: node prerender-math.mjs [SITE]   (SITE defaults to ../_build/html; run from web/
// after `npm ci`; `make book` does all of this)
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, posix, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import temml from "temml";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const site = resolve(process.argv[2] || join(here, "..", "_build", "html"));
const isMain = process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1]);
const CSS_REL = "_static/lib/math.css"; // relative to the site root
const FONT_REL = "math/STIXTwoMath-subset.woff2"; // relative to CSS_REL's folder (subset_math_font.py)
const FONT_FAMILY = "STIX Two Math subset";
const TEMML_CSS = join(dirname(require.resolve("temml")), "Temml-STIX2.css");
// The book's own rules, after Temml's.
const MATH_CSS = `
/* The maths' x-height matches the surrounding text's, as MathJax did (matchFontHeight): the
   font size is the text's ex over STIX Two Math's x-height (0.473 em). */
math {
  font-size: ${(1 / 0.473).toFixed(4)}ex;
}
/* A display formula wider than the column scrolls sideways inside its own box (the page
   shell's attnbook.js gives exactly those a tab stop and a name); inline maths may wrap at its relations and
   binary operators (Temml's wrap: "tex" splits it into <mrow>s, Temml's CSS lets them wrap). */
div.math {
  overflow-x: auto;
  overflow-y: hidden;
  max-width: 100%;
}
math.tml-display {
  margin: 0.5em 0;
}
/* A display formula in Temml's wrapping form (typeset() below): its pieces centred on one line
   where they fit, continued on the next where they do not. */
math.tml-display.attn-wrap {
  display: flex;
  flex-wrap: wrap;
  justify-content: center;
  align-items: baseline;
  math-style: normal;
}
math.tml-display.attn-wrap > mrow,
math.tml-display.attn-wrap > mrow.attn-clause > mrow {
  padding: 0.25ex 0;
}
/* A clause of a formula set side by side with others (\qquad): one item of the formula's row,
   itself a wrapping row of its pieces. */
math.tml-display.attn-wrap > mrow.attn-clause {
  display: flex;
  flex-wrap: wrap;
  justify-content: center;
  align-items: baseline;
  padding: 0;
  max-width: 100%;
}
/* Temml pads each top-level row by 0.5ex above and below (room between wrapped lines): in
   running text that made every line holding maths taller than the others. */
math:not(.tml-display) > mrow {
  padding: 0;
}
`;

class BuildError extends Error {}
const fail = (msg) => { throw new BuildError(msg); };

// ------------------------------------------------------------------------------- the pages

function htmlFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (!["_static", "_sources", "_images"].includes(name)) out.push(...htmlFiles(p));
    } else if (name.endsWith(".html")) out.push(p);
  }
  return out;
}

const CONFIG_SCRIPT = /[ \t]*<script>window\.MathJax = (\{.*?\})<\/script>\n/g;
const LOADER_SCRIPT = /[ \t]*<script defer="defer" src="([^"]*?)_static\/lib\/mathjax\/load\.js(?:\?v=[0-9a-f]+)?"><\/script>\n/g;
const INLINE = /<span class="math notranslate nohighlight">([\s\S]*?)<\/span>/g;
// A display element's content has no <div>; a numbered one starts with <span class="eqno">...</span>.
const DISPLAY = /(<div class="math notranslate nohighlight"(?: id="[^"]*")?>)([\s\S]*?)(<\/div>)/g;
const ANY_MATH = /class="math[ "]/g;
// a page this script already did: it links math.css, or web/inline-css.mjs has since put that
// stylesheet into the page
const ALREADY = /<link rel="stylesheet"[^>]*lib\/math\.css|<meta name="inlined-css" /;

const ENTITIES = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'", nbsp: "\u00a0" };
function unescapeHtml(text, where) {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z][A-Za-z0-9]*);/g, (m, e) => {
    if (e[0] === "#") {
      const code = e[1] === "x" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) fail(`${where}: ${m} in maths is no character`);
      return String.fromCodePoint(code);
    }
    if (!(e in ENTITIES)) fail(`${where}: unknown HTML entity ${m} in maths`);
    return ENTITIES[e];
  });
}

// Delimiters MathJax would have typeset anywhere in the body, left outside maths elements.
function strayTeX(html) {
  const body = html.slice(html.indexOf("<body"))
    .replace(/<(script|style|pre|code|textarea)\b[\s\S]*?<\/\1>/g, "")
    .replace(/<math\b[\s\S]*?<\/math>/g, "");
  const m = body.match(/\\\(|\\\[|\$\$|\\begin\{[a-z]+\*?\}/);
  return m ? body.slice(Math.max(0, m.index - 80), m.index + 80).replace(/\s+/g, " ") : null;
}

// ----------------------------------------------------------------------------------- Temml

let macros = null;
let configJson = null;

function configure(json, where) {
  const pageCfg = JSON.parse(json);
  const known = new Set(["loader", "options", "tex", "chtml"]);
  for (const k of Object.keys(pageCfg)) if (!known.has(k)) fail(`${where}: mathjax3_config section "${k}" is not handled by prerender-math.mjs`);
  for (const k of Object.keys(pageCfg.tex || {})) {
    if (k !== "macros") fail(`${where}: mathjax3_config.tex.${k} is not handled by prerender-math.mjs (only macros)`);
  }
  macros = {};
  for (const [name, def] of Object.entries(pageCfg.tex?.macros || {})) {
    if (Array.isArray(def)) fail(`${where}: macro \\${name} with arguments is not handled by prerender-math.mjs`);
    macros[`\\${name}`] = def;
  }
}

function render(tex, display, where) {
  let mml;
  try {
    mml = temml.renderToString(tex, { displayMode: display, throwOnError: true, macros: { ...macros }, wrap: "tex" });
  } catch (e) {
    fail(`${where}: ${e.message}\n  TeX: ${tex.trim()}`);
  }
  if (/<merror|class="temml-error"|color:#b22222/i.test(mml)) fail(`${where}: TeX error in\n  TeX: ${tex.trim()}`);
  if (!mml.startsWith("<math")) fail(`${where}: Temml wrote no <math> for\n  TeX: ${tex.trim()}`);
  return mml;
}

// The large operators whose limits a display formula sets below and above (\sum_{i=1}^n), not
// beside: Temml's inline form writes them as <msubsup>/<msub>/<msup> of an <mo movablelimits>.
const BIG_OP = /<(msubsup|msub|msup)><mo movablelimits="false">([∑∏⋃⋂⨁⨂]|max|min|arg max|arg min|lim|sup|inf)<\/mo>/g;
const UNDER = { msubsup: "munderover", msub: "munder", msup: "mover" };
function limitsBelow(mml) {
  let out = "", pos = 0;
  for (const m of mml.matchAll(BIG_OP)) {
    if (m.index < pos) continue;
    const tag = m[1];
    // the matching close tag: count the same element's opens and closes from here
    let depth = 0, k = m.index;
    const re = new RegExp(`<(/?)${tag}>`, "g");
    re.lastIndex = k;
    for (let t; (t = re.exec(mml));) {
      depth += t[1] ? -1 : 1;
      if (depth === 0) { k = t.index; break; }
    }
    if (depth !== 0) return mml;  // not well formed as expected: leave it as Temml wrote it
    out += mml.slice(pos, m.index) + `<${UNDER[tag]}>` + mml.slice(m.index + tag.length + 2, k) + `</${UNDER[tag]}>`;
    pos = k + tag.length + 3;
  }
  return out + mml.slice(pos);
}

// A display formula that has top-level relations or operators to break at is written as Temml's
// wrapping form (a row of <mrow>s, one per piece, laid out as a centred, wrapping flex row by
// MATH_CSS's math.attn-wrap): on a phone it continues on the next line instead of scrolling
// sideways and hiding its end ("= d"); where it fits, it is one line, as before. It is a
// display formula all the same (display="block": display style, its own line) with large
// operators' limits below and above. A formula with nothing to break at (one fraction, an
// aligned environment) keeps Temml's display form. One copy either way.
function typeset(tex, display, where) {
  if (!display) return render(tex, false, where);
  if (/\\begin\{|\\\\/.test(tex)) return render(tex, true, where);  // environments, line breaks
  const wrapped = render(tex, false, where);
  const pieces = (wrapped.match(/^<math><mrow>[\s\S]*<\/mrow><\/math>$/) && wrapped.split("</mrow><mrow>").length) || 1;
  if (pieces < 2) return render(tex, true, where);
  const kept = keepTogether(topPieces(limitsBelow(wrapped)));
  const row = (ps) => `<mrow>${ps.join("</mrow><mrow>")}</mrow>`;
  const parts = clauses(kept);
  const body = parts.length < 2 ? row(kept) : parts.map((c) => `<mrow class="attn-clause">${row(c)}</mrow>`).join("");
  return `<math display="block" class="tml-display attn-wrap">${body}</math>`;
}

// Formulas set side by side with \qquad ("c = ..., \qquad s = GRU(...), \qquad P = ...": chapter
// 7's decoder step) are clauses: each is a wrapping row of its own inside the formula's row
// (MATH_CSS: mrow.attn-clause), so a narrow screen moves a whole clause to the next line before
// it breaks one inside ("s =" | "GRU(...)"), and breaks inside a clause only where it alone is
// wider than the line. A clause ends with the piece that ends with \qquad's 2em space.
function clauses(pieces) {
  const out = [[]];
  for (const p of pieces) {
    out[out.length - 1].push(p);
    if (/<mspace width="2em"><\/mspace>$/.test(p)) out.push([]);
  }
  return out.filter((c) => c.length);
}

// The pieces of Temml's wrapping form: the contents of <math>'s top-level <mrow>s.
function topPieces(mml) {
  const pieces = [];
  let depth = 0, start = -1;
  for (const t of mml.matchAll(/<mrow\b[^>]*>|<\/mrow>/g)) {
    if (t[0][1] !== "/") {
      if (depth++ === 0) start = t.index + t[0].length;
    } else if (--depth === 0) pieces.push(mml.slice(start, t.index));
  }
  return pieces;
}

// Where Temml's wrapping form may break and a reader would not: a line that ends on a
// function's name (its invisible apply-function operator, U+2061: "Var" | "[q_j k_j] = d") or
// on an opening bracket ("GRU(" | "s, [e; c])": chapter 7's GRU step on a phone), a line that
// starts with a closing bracket, a separator or a lone operator (")", "," or "=" at a line's
// start), or any break between a sized bracket and its partner (\big( ... \big): Temml writes
// them as <mo>s with a minsize). Such a piece is joined with its neighbour, so a formula breaks
// after its relations and operators and between the arguments of plain brackets, never between
// a name, its bracket and what follows.
const OPEN = "([{\u27e8\u2308\u230a";
const CLOSE = ")]}\u27e9\u2309\u230b";
const lastMo = (piece) => /<mo\b[^>]*>([^<]*)<\/mo>$/.exec(piece)?.[1];
const firstMo = (piece) => /^<mo\b[^>]*>([^<]*)<\/mo>/.exec(piece)?.[1];
const endsOpen = (piece) => { const m = lastMo(piece); return m === "\u2061" || (m !== undefined && m.length === 1 && OPEN.includes(m)); };
const startsClosed = (piece) => { const m = firstMo(piece); return m !== undefined && m.length === 1 && (CLOSE + ",;.").includes(m); };
const SIZED = /<mo\b[^>]*\bminsize="[^"]*"[^>]*>([^<]*)<\/mo>/g;
// how many sized brackets a piece leaves open (opened less closed)
const sizedDepth = (piece) => [...piece.matchAll(SIZED)]
  .reduce((d, m) => d + (OPEN.includes(m[1]) ? 1 : CLOSE.includes(m[1]) ? -1 : 0), 0);
// a piece that is one operator alone ("P(y)" | "=" | "softmax(...)": Temml's break before a
// relation after a bracket) goes with the piece before it, as a relation ends a line elsewhere
// (and alone in its row it lost its spacing: "P(y)=softmax")
const LONE_MO = /^<mo\b[^>]*>[^<]*<\/mo>$/;
export function keepTogether(pieces) {
  const out = [];
  let depth = 0;  // sized brackets open at the end of out's last piece
  for (const p of pieces) {
    if (out.length && (depth > 0 || endsOpen(out[out.length - 1]) || startsClosed(p) || LONE_MO.test(p))) out[out.length - 1] += p;
    else out.push(p);
    depth = Math.max(0, depth + sizedDepth(p));
  }
  return out;
}

// ----------------------------------------------------------------------------- one page

async function processPage(file) {
  return typesetPage(readFileSync(file, "utf8"), relative(site, file));
}

/** One page's HTML, as processPage reads it: {where, state: "done" | "none" | "todo", html,
 * n (formulas), prefix (the loader's path to the site root)}. Throws naming `where`. The
 * MathJax configuration read from the first page with one is kept for the others
 * (resetConfig() forgets it, for tests). */
export function resetConfig() { macros = null; configJson = null; }

export function typesetPage(html, where) {
  const configs = [...html.matchAll(CONFIG_SCRIPT)];
  const loaders = [...html.matchAll(LOADER_SCRIPT)];
  const nMath = (html.match(ANY_MATH) || []).length;
  if (ALREADY.test(html)) return { where, state: "done" };
  if (configs.length > 1 || loaders.length > 1 || configs.length !== loaders.length) {
    fail(`${where}: expected the window.MathJax script and the load.js script once each, found ${configs.length} and ${loaders.length}`);
  }
  if (nMath && !configs.length) fail(`${where}: maths but no MathJax scripts from Sphinx (mathjax_path changed?)`);
  if (/mathjax\/load\.js|window\.MathJax/.test(html.replace(CONFIG_SCRIPT, "").replace(LOADER_SCRIPT, ""))) {
    fail(`${where}: a MathJax script tag of an unexpected form`);
  }
  if (!configs.length) return { where, state: "none", html };
  if (configJson === null) {
    configJson = configs[0][1];
    configure(configJson, where);
  } else if (configs[0][1] !== configJson) fail(`${where}: window.MathJax differs from the other pages'`);

  // Collect every maths element (both kinds), typeset them in document order, then splice.
  const edits = []; // [start, end, replacement]
  for (const m of html.matchAll(INLINE)) {
    const inner = /^\\\(([\s\S]*)\\\)$/.exec(m[1]);
    if (!inner) fail(`${where}: inline maths element of an unexpected shape: ${m[0].slice(0, 200)}`);
    const start = m.index + m[0].indexOf(">") + 1;
    edits.push([start, start + m[1].length, unescapeHtml(inner[1], where), false]);
  }
  for (const m of html.matchAll(DISPLAY)) {
    const content = m[2];
    const eqno = /^\s*<span class="eqno">[\s\S]*?<\/span>/.exec(content);
    const offset = eqno ? eqno[0].length : 0;
    const rest = content.slice(offset);
    let t = /^(\s*)\\\[([\s\S]*)\\\](\s*)$/.exec(rest);
    let tex, lead, trail;
    if (t) [, lead, tex, trail] = t;
    else if ((t = /^(\s*)(\\begin\{([a-zA-Z]+\*?)\}[\s\S]*\\end\{\3\})(\s*)$/.exec(rest))) [, lead, tex, , trail] = t;
    else fail(`${where}: display maths element of an unexpected shape: ${m[0].slice(0, 200)}`);
    if (/<[a-z/]/i.test(tex)) fail(`${where}: markup inside display maths: ${m[0].slice(0, 200)}`);
    const start = m.index + m[1].length + offset + lead.length;
    const end = m.index + m[1].length + content.length - trail.length;
    edits.push([start, end, unescapeHtml(tex, where), true]);
  }
  if (edits.length !== nMath) fail(`${where}: ${nMath} elements with class "math" but ${edits.length} recognised`);
  edits.sort((a, b) => a[0] - b[0]);
  for (let k = 1; k < edits.length; k++) if (edits[k][0] < edits[k - 1][1]) fail(`${where}: overlapping maths elements`);

  let out = "";
  let pos = 0;
  for (const [start, end, tex, display] of edits) {
    out += html.slice(pos, start) + typeset(tex, display, where);
    pos = end;
  }
  out += html.slice(pos);
  const stray = strayTeX(out);
  if (stray) fail(`${where}: TeX delimiters outside maths elements (the browser's MathJax would have typeset them): ...${stray}...`);
  return { where, state: "todo", html: out, n: edits.length, prefix: loaders[0][1] };
}

// ------------------------------------------------------------------------------------- main

async function main() {
  const files = htmlFiles(site);
  if (!files.length) fail(`no HTML pages under ${site}: build the book first`);
  const pages = [];
  for (const f of files) pages.push({ file: f, ...(await processPage(f)) });
  const done = pages.filter((p) => p.state === "done");
  if (done.length) {
    if (done.length === pages.filter((p) => p.state !== "none").length && !pages.some((p) => p.state === "todo")) {
      console.log(`prerender-math: ${site} is already post-processed; nothing to do`);
      return;
    }
    fail(`already post-processed: ${done.map((p) => p.where).join(", ")}; rebuild with \`jupyter-book build --all\``);
  }
  if (macros === null) fail(`no page of ${site} loads MathJax: nothing to typeset (mathjax_path changed?)`);

  // The shared stylesheet: Temml's, with the book's subset of STIX Two Math as its font.
  let temmlCss = readFileSync(TEMML_CSS, "utf8");
  const face = /@font-face\s*\{\s*font-family:\s*STIX2;[^}]*\}/;
  if (!face.test(temmlCss) || !/font-family:\s*STIX2,\s*math;/.test(temmlCss)) {
    fail(`${TEMML_CSS}: its @font-face for STIX2 is not where it was (temml changed?)`);
  }
  temmlCss = temmlCss.replace(face, `@font-face {
  font-family: "${FONT_FAMILY}";
  src: url("${FONT_REL}") format("woff2");
  font-display: swap;
}`).replace(/font-family:\s*STIX2,\s*math;/, `font-family: "${FONT_FAMILY}", math;`);
  const css = `/* Styles of the maths typeset at build time by web/prerender-math.mjs: Temml ${temml.version}'s
   stylesheet for MathML Core (Temml-STIX2.css, MIT licence) with the book's subset of
   STIX Two Math (SIL Open Font License) as its font, then the book's rules. Generated: do not edit. */
${temmlCss}
${MATH_CSS}`;
  const cssFile = join(site, ...CSS_REL.split("/"));
  writeFileSync(cssFile, css);
  const v = createHash("sha256").update(css).digest("hex").slice(0, 8);

  let total = 0;
  for (const p of pages) {
    let html = p.html ?? readFileSync(p.file, "utf8");
    if (p.state === "todo" && p.n) {
      const href = posix.join(relative(dirname(p.file), site).split(sep).join("/") || ".", CSS_REL);
      const link = `    <link rel="stylesheet" type="text/css" href="${href}?v=${v}" />\n`;
      let replaced = false;
      html = html.replace(CONFIG_SCRIPT, () => { replaced = true; return link; });
      if (!replaced) fail(`${p.where}: lost the window.MathJax script`);
      total += p.n;
    } else {
      html = html.replace(CONFIG_SCRIPT, "");
    }
    html = html.replace(LOADER_SCRIPT, "");
    if (p.state === "todo") writeFileSync(p.file, html);
  }
  const typesetPages = pages.filter((p) => p.n).length;
  // MathJax, vendored for a plain `jupyter-book build`, is used by no page of this site.
  const mathjax = join(site, "_static", "lib", "mathjax");
  if (existsSync(mathjax)) rmSync(mathjax, { recursive: true });
  console.log(`prerender-math: typeset ${total} formulas on ${typesetPages} pages (Temml ${temml.version}, MathML); ` +
    `removed MathJax scripts from ${pages.filter((p) => p.state === "todo").length} pages; ` +
    `${relative(site, cssFile)} ${(css.length / 1024).toFixed(1)} kB`);
}

if (isMain) {
  main().catch((e) => {
    console.error(e instanceof BuildError ? `prerender-math: ERROR: ${e.message}` : e);
    process.exit(1);
  });
}
