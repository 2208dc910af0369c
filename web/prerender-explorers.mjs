#!/usr/bin/env node
// Puts each explorer's default picture into the built HTML, so it shows at first paint and
// with JavaScript off, and trims the saved widget state to what the explorers read.
//
// For every page of _build/html with a saved widget state (myst-nb writes it as
// <script type="application/vnd.jupyter.widget-state+json"> in <head>):
//  1. the state keeps, per attnlib explorer model, only spec, data, indices, texts and name (the
//     module's source `_esm`, its `_css` and the ipywidgets layout models are dropped: the
//     page loads the module and its stylesheet as files);
//  2. before each widget view, the explorer is drawn by attnlib/static/explorer.js (the module
//     anywidget runs) into a minimal DOM below, and the markup is inserted as
//     <div class="attn-static">: the same picture the live explorer draws at its starting
//     positions, its controls disabled until _static/lib/explorer-boot.js replaces it;
//  3. each view's model state moves out of <head> to just before the view, in a state script
//     of its own (chapter 2 carried 21 kB of state in <head>, ahead of the first paragraph);
//  4. the stylesheet _static/lib/explorer.css is linked in the head, so the picture is styled
//     at first paint.
// The landing page may hold <div class="attn-preview" data-page="chapters/01_....html"
// data-explorer="softmax_temperature"></div>: the named explorer's state is copied there from
// that chapter, and its view and the loader are added, so the landing page shows it too.
//
// Usage: node prerender-explorers.mjs ../_build/html   (`make book` runs it)
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

// explorer.js is an ES module in a directory with no package.json saying so: import a copy
// named .mjs.
const here = dirname(fileURLToPath(import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), "attn-prerender-"));
writeFileSync(join(tmp, "explorer.mjs"), readFileSync(join(here, "..", "attnlib", "static", "explorer.js")));
const { default: explorer } = await import(pathToFileURL(join(tmp, "explorer.mjs")).href);
rmSync(tmp, { recursive: true, force: true });

// ----------------------------------------------------------------------- a minimal DOM
const VOID = new Set(["input", "br", "img", "link", "meta", "hr"]);
const esc = (s, attr) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
  .replace(/"/g, attr ? "&quot;" : '"');

class Element {
  constructor(tag, svg) {
    this.tag = tag; this.svg = svg; this.attrs = new Map(); this.children = []; this.parentNode = null;
  }
  get ownerDocument() { return doc; }
  setAttribute(k, v) { this.attrs.set(k, String(v)); }
  getAttribute(k) { return this.attrs.has(k) ? this.attrs.get(k) : null; }
  removeAttribute(k) { this.attrs.delete(k); }
  hasAttribute(k) { return this.attrs.has(k); }
  get childNodes() { return this.children; }
  appendChild(c) { c.parentNode = this; this.children.push(c); return c; }
  insertBefore(c, ref) {
    const i = this.children.indexOf(c);
    if (i >= 0) this.children.splice(i, 1);
    const at = ref ? this.children.indexOf(ref) : -1;
    c.parentNode = this;
    if (at < 0) this.children.push(c); else this.children.splice(at, 0, c);
    return c;
  }
  get firstChild() { return this.children[0] || null; }
  addEventListener() {}
  removeEventListener() {}
  set className(v) { this.setAttribute("class", v); }
  get className() { return this.getAttribute("class") || ""; }
  get classList() {
    const names = () => this.className.split(/\s+/).filter(Boolean);
    return { contains: (c) => names().includes(c), add: (c) => this.setAttribute("class", [...names(), c].join(" ")) };
  }
  set textContent(t) { this.children = t === "" ? [] : [{ text: String(t) }]; }
  get textContent() { return this.children.map((c) => (c.text !== undefined ? c.text : c.textContent)).join(""); }
  set type(v) { this.setAttribute("type", v); }
  set min(v) { this.setAttribute("min", v); }
  set max(v) { this.setAttribute("max", v); }
  set step(v) { this.setAttribute("step", v); }
  get value() { return this.getAttribute("value"); }
  set value(v) {
    if (this.tag === "select") {
      for (const o of this.children) {
        if (o.tag !== "option") continue;
        if (o.getAttribute("value") === String(v)) o.setAttribute("selected", "");
        else o.removeAttribute("selected");
      }
    } else this.setAttribute("value", v);
  }
  serialize() {
    const attrs = [...this.attrs].map(([k, v]) => (v === "" && !this.svg ? ` ${k}` : ` ${k}="${esc(v, true)}"`)).join("");
    if (!this.svg && VOID.has(this.tag)) return `<${this.tag}${attrs}>`;
    const inner = this.children.map((c) => (c.text !== undefined ? esc(c.text) : c.serialize())).join("");
    if (this.svg && !inner) return `<${this.tag}${attrs}/>`;
    return `<${this.tag}${attrs}>${inner}</${this.tag}>`;
  }
}
const doc = {
  createElement: (tag) => new Element(tag, false),
  createElementNS: (_ns, tag) => new Element(tag, true),
  createTextNode: (text) => ({ text: String(text) }),
  documentElement: new Element("html", false),
  body: null,
  defaultView: null,
};
globalThis.document = doc;

function walk(node, f) {
  f(node);
  for (const c of node.children || []) if (c.tag) walk(c, f);
}

/** What the notice line of an explorer says on a page read with JavaScript off. */
export const NO_SCRIPT = "Interactive with JavaScript: this is the explorer's first picture.";

/** The explorer drawn at its starting positions, as static markup. */
export function staticPicture(state) {
  const values = { ...state };
  const model = { get: (k) => values[k], set: (k, v) => { values[k] = v; }, on() {}, off() {}, save_changes() {} };
  const host = new Element("div", false);
  host.className = "attn-static";
  explorer.render({ model, el: host });
  walk(host, (e) => {
    // a map's cells in both modes, the page's shown (explorer.css): no light flash on a dark page
    if (e.tag === "image" && e.classList.contains("attn-cells") && !e.classList.contains("attn-cells-light") && e.parentNode && e.parentNode.parentNode.attnPicture) {
      const dark = e.parentNode.parentNode.attnPicture("dark");
      if (dark) {
        const twin = new Element("image", true);
        for (const [k, v] of e.attrs) twin.setAttribute(k, v);
        twin.setAttribute("class", "attn-cells-dark");
        twin.setAttribute("href", dark);
        e.setAttribute("class", `${e.className} attn-cells-light`);
        e.parentNode.insertBefore(twin, e.parentNode.children[e.parentNode.children.indexOf(e) + 1] || null);
      }
    }
    if (e.tag === "input" || e.tag === "select" || e.tag === "button") {
      e.setAttribute("disabled", "");  // not focusable, not operable: a picture of the controls
      e.setAttribute("aria-disabled", "true");
    }
    // the notice line holds two sentences: the live one's first words, and what a page read
    // with JavaScript off says instead (explorer.css shows one, by html[data-script])
    if (e.classList.contains("attn-notice")) {
      const said = e.textContent;
      e.textContent = "";
      const live = e.appendChild(new Element("span", false));
      live.className = "attn-notice-live";
      live.textContent = said;
      const off = e.appendChild(new Element("span", false));
      off.className = "attn-notice-nojs";
      off.textContent = NO_SCRIPT;
    }
    if (e.getAttribute("tabindex") !== null) e.removeAttribute("tabindex");
    if (e.getAttribute("data-handle") !== null) {  // a picture of the point, not a control yet
      for (const a of ["role", "aria-label", "aria-valuemin", "aria-valuemax", "aria-valuenow", "aria-valuetext"]) {
        e.removeAttribute(a);
      }
    }
    e.removeAttribute("data-value"); // the live explorer's test hook: not needed in a picture
    if (e.getAttribute("data-ready") !== null) { e.removeAttribute("data-ready"); e.setAttribute("data-static", "true"); }
    // the sentence (and a preset's notice line) keeps its text: the picture is as tall as the
    // live explorer that replaces it (no layout shift); only the live one speaks
    if (e.getAttribute("aria-live") !== null) e.removeAttribute("aria-live");
  });
  return host.serialize();
}

// ----------------------------------------------------------------------- the pages
export const STATE_RE = /<script type="application\/vnd\.jupyter\.widget-state\+json">([\s\S]*?)<\/script>/;
const VIEW_RE = /<script type="application\/vnd\.jupyter\.widget-view\+json">([\s\S]*?)<\/script>/g;
const KEEP = ["spec", "data", "indices", "texts", "name"];
// JSON inside <script>: "<", ">" and "&" are written as JSON escapes (\u003c, ...), so no text
// in the state (a title, a label) can end the element ("</script>") or open the parser's
// comment-like states ("<!--", after which the real "</script>" no longer closes it); the
// state parses to the same value. attnlib.widgets.page.script_json does the same in Python.
export const scriptJson = (obj) =>
  JSON.stringify(obj).replace(/[<>&\u2028\u2029]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));

export function slimState(state) {
  const out = {};
  for (const [id, m] of Object.entries(state)) {
    if (!m.state || !m.state.spec) continue; // layout models and anything not an explorer
    out[id] = { model_name: m.model_name, state: Object.fromEntries(KEEP.map((k) => [k, m.state[k]])) };
  }
  return out;
}

export function staticDir(site, file) {
  const rel = relative(join(file, ".."), join(site, "_static")).split("\\").join("/");
  return rel || "_static";
}

// After each view: if the loader (an async module in <head>) is already running, it starts
// watching the views parsed so far (each wakes as it nears the viewport).
function early(html) {
  if (!/<script (?:async="async" )?type="module"(?: async="async")? src="[^"]*explorer-boot\.js[^"]*"(?: async="async")?><\/script>/.test(html)) return "";
  return "<script>window.attnExplorers && window.attnExplorers.render();</script>";
}

// One model's saved state, as a state script of its own.
const stateScript = (id, model) =>
  `<script type="application/vnd.jupyter.widget-state+json">${scriptJson({ version_major: 2, version_minor: 0, state: { [id]: model } })}</script>`;

// "On this page" folds away while an explorer (drawn at page width, over the column's place)
// passes the band of the window the column's list stands in: a scroll-driven animation
// (web/theme/attnbook/static/attnbook.css, .book-toc) on each explorer's view timeline, so the
// fold is part of the same frame as the scroll, from the first paint, with or without
// JavaScript. A view timeline needs a name the column can refer to, unique on the page: the
// cell output holding the k-th explorer's picture is named --attn-explorer-k (the live explorer
// replaces the picture inside that output, which stays). The stylesheet lists MAX_FOLDS names.
export const MAX_FOLDS = 8;
export function nameExplorerTimelines(html) {
  let k = 0;
  const out = html.replace(/<div class="cell_output docutils container">(\s*<div class="attn-static">)/g, (_w, rest) => {
    if (k >= MAX_FOLDS) throw new Error(`more than ${MAX_FOLDS} explorers on a page: list more --attn-explorer-N names in attnbook.css`);
    return `<div class="cell_output docutils container" style="view-timeline-name: --attn-explorer-${k++}">${rest}`;
  });
  return out;
}

export function prerender(html, state, css) {
  let views = 0;
  const after = early(html);
  let found = 0;
  html = html.replace(STATE_RE, () => { found++; return ""; });
  if (found !== 1) throw new Error(`expected one widget state script, found ${found}`);
  html = html.replace(VIEW_RE, (whole, body) => {
    const id = JSON.parse(body).model_id;
    if (!state[id]) return whole;
    views++;
    return staticPicture(state[id].state) + stateScript(id, state[id]) + whole + after;
  });
  html = nameExplorerTimelines(html);
  if (views && !html.includes(`href="${css}"`)) html = html.replace("</head>", `  <link rel="stylesheet" href="${css}" />\n</head>`);
  return { html, views };
}

function pages(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) { if (!name.startsWith("_")) out.push(...pages(p)); }
    else if (name.endsWith(".html")) out.push(p);
  }
  return out;
}

function main() {
  const site = process.argv[2];
  if (!site) throw new Error("usage: node prerender-explorers.mjs <built site>");
  const files = pages(site);
  const states = new Map(); // page (relative to site) -> slim state
  let total = 0, touched = 0;
  for (const file of files) {
    const where = relative(site, file).split("\\").join("/");
    let html = readFileSync(file, "utf8");
    const m = html.match(STATE_RE);
    if (!m) continue;
    try {
      const state = slimState(JSON.parse(m[1]).state || {});
      states.set(where, state);
      if (html.includes('<div class="attn-static"')) continue; // already done (run twice)
      const res = prerender(html, state, `${staticDir(site, file)}/lib/explorer.css`);
      writeFileSync(file, res.html);
      total += res.views; touched++;
    } catch (e) {
      throw new Error(`${where}: ${e.message}`);  // a widget state or view that is not JSON, ...
    }
  }
  // Previews: an explorer of a chapter, shown on another page (the landing page).
  let previews = 0;
  for (const file of files) {
    let html = readFileSync(file, "utf8");
    const re = /<div class="attn-preview" data-page="([^"]+)" data-explorer="([^"]+)"><\/div>/g;
    if (!re.test(html)) continue;
    html = html.replace(re, (_w, page, name) => {
      const from = states.get(page);
      if (!from) throw new Error(`${relative(site, file)}: preview of ${page}, which has no explorers`);
      const hit = Object.entries(from).find(([, m]) => m.state.name === name);
      if (!hit) throw new Error(`${relative(site, file)}: ${page} has no explorer named ${name}`);
      previews++;
      return `<div class="attn-preview">${staticPicture(hit[1].state)}${stateScript(hit[0], hit[1])}<script type="application/vnd.jupyter.widget-view+json">${scriptJson({ version_major: 2, version_minor: 1, model_id: hit[0] })}</script></div>`;
    });
    const dir = staticDir(site, file);
    const head = `  <script type="module" src="${dir}/lib/explorer-boot.js"></script>\n` +
      `  <link rel="stylesheet" href="${dir}/lib/explorer.css" />\n</head>`;
    html = html.replace("</head>", head);
    writeFileSync(file, html);
  }
  console.log(`prerender-explorers: drew ${total} explorers on ${touched} pages and ${previews} preview(s)`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) main();
