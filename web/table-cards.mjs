#!/usr/bin/env node
// Tables with words in them become stacked cards on a phone (attnbook.css, "Tables"): this
// gives each body cell the name of its column, which the card shows before the cell's text.
//
// `make book` runs this after web/prerender-math.mjs, over every HTML page of _build/html. For
// each <table> with a <thead> of one row and at least three columns, written in the text
// (docutils) or holding words (a cell of three words or more: an output's table of numbers
// stays a grid, it fits), it
//   - adds class "attn-cards" to the table,
//   - writes data-label="<column's header text>" on every body cell (<td>, and a row's
//     <th scope="row">), the header's text with its tags removed (maths keeps its characters).
// Tables are written by docutils (Markdown tables) or by attnlib's _repr_html_ (one line):
// cells without rowspan or colspan, which this checks (anything else is left a grid and named).
// Everything else in the file stays byte for byte.
//
// Usage: node table-cards.mjs [SITE]   (SITE defaults to ../_build/html)
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const site = resolve(process.argv[2] || join(here, "..", "_build", "html"));

function htmlFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (!["_static", "_sources", "_images", "_search"].includes(name)) out.push(...htmlFiles(p));
    } else if (name.endsWith(".html")) out.push(p);
  }
  return out;
}

const TEXT = (html) => html.replace(/<[^>]*>/g, "").replace(/\s+/g, " ").trim();
const ATTR = (text) => text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
const ENTITY_TEXT = (html) => TEXT(html).replace(/&(amp|lt|gt|quot|#39);/g, (m, e) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[e]);
const TABLE = /<table\b([^>]*)>([\s\S]*?)<\/table>/g;
const CELL = /<(td|th)\b([^>]*)>/g;

function cardTable(attrs, inner, where, skipped) {
  const head = /<thead>([\s\S]*?)<\/thead>/.exec(inner);
  if (!head) return null;
  const headRows = head[1].match(/<tr\b/g) || [];
  const labels = [...head[1].matchAll(/<th\b[^>]*>([\s\S]*?)<\/th>/g)].map((m) => ENTITY_TEXT(m[1]));
  if (headRows.length !== 1 || labels.length < 3) return null;
  if (/\b(rowspan|colspan)=/.test(inner)) { skipped.push(`${where}: a table with spanning cells`); return null; }
  const bodyStart = inner.indexOf("<tbody>");
  if (bodyStart < 0) return null;
  const body = inner.slice(bodyStart);
  const cells = [...body.matchAll(/<td\b[^>]*>([\s\S]*?)<\/td>/g)].map((m) => ENTITY_TEXT(m[1]));
  // a table of numbers from a cell's output stays a grid (it fits); the text's own tables
  // (docutils) become cards whatever they hold
  if (!/\bdocutils\b/.test(attrs) && !cells.some((t) => t.split(" ").length >= 3)) return null;
  // every row's cells, in order, get their column's name
  const rows = body.split(/(?=<tr\b)/);
  const out = rows.map((row) => {
    if (!row.startsWith("<tr")) return row;
    let k = 0;
    return row.replace(CELL, (m, tag, a) => {
      const label = labels[k++];
      if (label === undefined) throw new Error(`${where}: a body row with more cells than the header`);
      return `<${tag}${a} data-label="${ATTR(label)}">`;
    });
  }).join("");
  const cls = /\bclass="([^"]*)"/.exec(attrs);
  const newAttrs = cls ? attrs.replace(cls[0], `class="${cls[1]} attn-cards"`) : `${attrs} class="attn-cards"`;
  return `<table${newAttrs}>${inner.slice(0, bodyStart)}${out}</table>`;
}

let n = 0;
const skipped = [];
for (const file of htmlFiles(site)) {
  const where = relative(site, file);
  const html = readFileSync(file, "utf8");
  if (/<table[^>]*attn-cards/.test(html)) continue;  // already done
  let changed = false;
  const next = html.replace(TABLE, (m, attrs, inner) => {
    const t = cardTable(attrs, inner, where, skipped);
    if (t === null) return m;
    changed = true;
    n++;
    return t;
  });
  if (changed) writeFileSync(file, next);
}
for (const s of skipped) console.log(`table-cards: left a grid: ${s}`);
console.log(`table-cards: ${n} tables become cards on phones`);
