#!/usr/bin/env node
// Typesets the book's maths at BUILD time, so pages load no MathJax JavaScript at all.
//
// `make book` runs this right after `jupyter-book build`, over every HTML page of _build/html.
// Sphinx writes maths as  <span class="math notranslate nohighlight">\(...\)</span>  (inline)
// and  <div class="math notranslate nohighlight">\[...\]</div>  (display; an amsmath
// environment may stand there without \[ \], and a numbered equation starts with a
// <span class="eqno">). For each one this script replaces the TeX (HTML entities unescaped
// first) with the <mjx-container> MathJax 3 itself would have put there in the browser:
// CommonHTML output with MathJax's woff-v2 fonts, plus assistive MathML for screen readers.
// Everything else in the file stays byte for byte as Sphinx wrote it (the page is never
// re-serialised: widget state JSON in <script> tags must survive verbatim).
//
// On each page it also removes the two <script> tags Sphinx injected for MathJax (the
// window.MathJax configuration and _static/lib/mathjax/load.js) and, on pages with maths,
// links ONE shared stylesheet, _static/lib/mathjax-chtml.css, written once at the end from the
// CHTML styles accumulated over all pages (the glyphs actually used). Its @font-face url()s are
// relative to the stylesheet itself (lib/mathjax/output/chtml/fonts/woff-v2/), so pages at any
// depth work.
//
// The TeX configuration comes from the window.MathJax object Sphinx wrote from
// `mathjax3_config` in _config.yml (one source of truth; a plain `jupyter-book build` without
// this step still gives pages that typeset in the browser). Two differences, both to fail
// loudly instead of showing a reader broken maths: an undefined macro is an error (the
// `noundefined` package is left out) and any TeX error stops the script with a non-zero exit,
// naming the page and the TeX. So does anything unexpected: a maths element of another shape,
// MathJax script tags of another form, TeX delimiters left outside maths elements, or a page
// that was already post-processed (rebuild with `jupyter-book build --all`).
//
// One more difference, in the look: the browser's MathJax scales each formula so that its
// x-height matches the surrounding text (matchFontHeight: font-size = ex of the text / 0.442).
// CSS says the same thing with the ex unit, so the stylesheet gives mjx-container
// font-size: 2.2624ex (1 / 0.442) and the maths keeps the size the browser gave it.
//
// Usage: node prerender-math.mjs [SITE]   (SITE defaults to ../_build/html; run from web/
// after `npm ci`; `make book` does all of this)
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, posix, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const site = resolve(process.argv[2] || join(here, "..", "_build", "html"));
const CSS_REL = "_static/lib/mathjax-chtml.css"; // relative to the site root
const FONT_URL = "mathjax/output/chtml/fonts/woff-v2"; // relative to CSS_REL's folder
const MATCH_FONT_HEIGHT_EX = (1 / 0.442).toFixed(4); // MathJax TeX font's x-height is 0.442 em

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
const ALREADY = /<link rel="stylesheet"[^>]*mathjax-chtml\.css/;

const ENTITIES = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'", nbsp: "\u00a0" };
function unescapeHtml(text, where) {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z][A-Za-z0-9]*);/g, (m, e) => {
    if (e[0] === "#") return String.fromCodePoint(e[1] === "x" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
    if (!(e in ENTITIES)) fail(`${where}: unknown HTML entity ${m} in maths`);
    return ENTITIES[e];
  });
}

// Delimiters MathJax would have typeset anywhere in the body, left outside maths elements.
function strayTeX(html) {
  const body = html.slice(html.indexOf("<body"))
    .replace(/<(script|style|pre|code|textarea)\b[\s\S]*?<\/\1>/g, "")
    .replace(/<mjx-container[\s\S]*?<\/mjx-container>/g, "");
  const m = body.match(/\\\(|\\\[|\$\$|\\begin\{[a-z]+\*?\}/);
  return m ? body.slice(Math.max(0, m.index - 80), m.index + 80).replace(/\s+/g, " ") : null;
}

// --------------------------------------------------------------------------------- MathJax

let MathJax = null;
let configJson = null;

async function startMathJax(json, where) {
  const pageCfg = JSON.parse(json);
  const known = new Set(["loader", "options", "tex", "chtml"]);
  for (const k of Object.keys(pageCfg)) if (!known.has(k)) fail(`${where}: mathjax3_config section "${k}" is not handled by prerender-math.mjs`);
  const load = pageCfg.loader?.load || [];
  for (const c of load) if (!["input/tex", "output/chtml", "a11y/assistive-mml"].includes(c)) {
    fail(`${where}: MathJax component ${c} in mathjax3_config is not handled by prerender-math.mjs`);
  }
  const tex = { ...(pageCfg.tex || {}) };
  // The input/tex component's packages, minus noundefined: an undefined macro is an error.
  tex.packages = { "[-]": ["noundefined"], ...(tex.packages || {}) };
  tex.formatError = (_jax, err) => { throw new BuildError(`TeX error: ${err.message}`); };
  const warn = console.warn; // liteDOM has no version stamp; MathJax warns about it once
  console.warn = (...a) => { if (!String(a[0]).startsWith("No version information")) warn(...a); };
  MathJax = await require("mathjax").init({
    loader: { load: ["input/tex", "output/chtml", "adaptors/liteDOM", "a11y/assistive-mml"] },
    tex,
    chtml: { ...(pageCfg.chtml || {}), fontURL: FONT_URL },
    startup: { typeset: false },
  });
  console.warn = warn;
}

async function typeset(tex, display, where) {
  let node;
  try {
    node = await MathJax.tex2chtmlPromise(tex, { display });
  } catch (e) {
    fail(`${where}: ${e.message}\n  TeX: ${tex.trim()}`);
  }
  const html = MathJax.startup.adaptor.outerHTML(node);
  if (/<mjx-merror|<merror|data-mjx-error|mathcolor="red"/.test(html)) fail(`${where}: MathJax error in\n  TeX: ${tex.trim()}`);
  if (!html.includes("<mjx-assistive-mml")) fail(`${where}: no assistive MathML produced`);
  return html;
}

// ----------------------------------------------------------------------------- one page

async function processPage(file) {
  const where = relative(site, file);
  const html = readFileSync(file, "utf8");
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
    await startMathJax(configJson, where);
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
    out += html.slice(pos, start) + (await typeset(tex, display, where));
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
  if (!MathJax) fail(`no page of ${site} loads MathJax: nothing to typeset (mathjax_path changed?)`);

  // The shared stylesheet: every CHTML rule, the @font-face rules and the glyphs of all pages.
  const adaptor = MathJax.startup.adaptor;
  let css = adaptor.textContent(MathJax.chtmlStylesheet());
  if (!css.includes(`url("${FONT_URL}/`) && !css.includes(`url(${FONT_URL}/`)) fail("fontURL not found in the CHTML stylesheet");
  const header = `/* MathJax ${MathJax.version} CommonHTML styles for the maths typeset at build time by
   web/prerender-math.mjs (all pages' glyphs). Generated: do not edit. */\n`;
  css = header + css + `\n/* the browser's matchFontHeight: formula x-height = the surrounding text's */\n`
    + `mjx-container[jax="CHTML"] {\n  font-size: ${MATCH_FONT_HEIGHT_EX}ex;\n}\n`;
  if (!css.includes("mjx-assistive-mml")) fail("the CHTML stylesheet has no rules for mjx-assistive-mml");
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
  console.log(`prerender-math: typeset ${total} formulas on ${typesetPages} pages; ` +
    `removed MathJax scripts from ${pages.filter((p) => p.state === "todo").length} pages; ` +
    `${relative(site, cssFile)} ${(css.length / 1024).toFixed(1)} kB`);
}

main().catch((e) => {
  console.error(e instanceof BuildError ? `prerender-math: ERROR: ${e.message}` : e);
  process.exit(1);
});
