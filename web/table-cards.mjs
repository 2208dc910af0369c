#!/usr/bin/env node
// Tables with words in them become stacked cards on a phone (attnbook.css, "Tables"): this
// gives each body cell the name of its column, which the card shows before the cell's text.
//
// `make book` runs this after web/prerender-math.mjs, over every HTML page of _build/html. For
// each <table> with a <thead> of one row and at least three columns, written in the text
// (docutils) or holding words (a body <td> of three words or more: an output's table of numbers
// stays a grid, it fits), it
//   - adds class "attn-cards" to the table,
//   - writes data-label="<column's header text>" on every body cell (<td>, and a row's
//     <th scope="row">), the header's text as the browser reads it (tags and comments removed,
//     character references decoded, runs of whitespace one space; maths keeps its characters),
//   - fills every body cell that shows nothing (white space at most, no picture or maths) with
//     "—" named "not applicable" (NOT_APPLICABLE), so no card has a name without a value.
// Tables are written by docutils (Markdown tables) or by attnlib's _repr_html_ (one line):
// cells without rowspan or colspan and no table inside a table, which this checks (anything else
// is left a grid and named). The functions are exported for tests/web/test_table_cards_properties.py.
// Everything else in the file stays byte for byte.
//
// Usage: node table-cards.mjs [SITE]   (SITE defaults to ../_build/html)
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseFragment } from "parse5";

const here = dirname(fileURLToPath(import.meta.url));

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

// A cell's text as the browser reads it (textContent: tags dropped, every character reference
// decoded, comments and a <template>'s content left out), runs of HTML whitespace as one space.
const textNodes = (n) => (n.nodeName === "#text" ? n.value
  : n.nodeName === "template" ? "" : (n.childNodes || []).map(textNodes).join(""));
const TEXT = (html) => textNodes(parseFragment(html)).replace(/[\t\n\f\r ]+/g, " ").replace(/^ | $/g, "");
const ATTR = (text) => text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
// a start tag's attributes: a quoted value may hold ">"
const ATTRS = String.raw`((?:[^>"']|"[^"]*"|'[^']*')*)`;
const TABLE = new RegExp(String.raw`<table\b${ATTRS}>([\s\S]*?)<\/table>`, "gi");
const CELL = new RegExp(String.raw`<(td|th)\b${ATTRS}>`, "gi");
const HEAD_CELL = new RegExp(String.raw`<th\b${ATTRS}>([\s\S]*?)<\/th>`, "gi");
const BODY_CELL = new RegExp(String.raw`<td\b${ATTRS}>([\s\S]*?)<\/td>`, "gi");
const CLASS = /(^|[\t\n\f\r ])class[\t\n\f\r ]*=[\t\n\f\r ]*(?:"([^"]*)"|'([^']*)'|([^\t\n\f\r "'=<>`]+))/i;

// A body cell of a card table that shows nothing (no text but white space, no picture or
// maths: a Markdown table's blank cell, "| none zeroed | | |") would be a name with no value on
// its card and a hole in the grid: it shows "—", named "not applicable" for screen readers.
const WHOLE_CELL = new RegExp(String.raw`(<(td|th)\b${ATTRS}>)([\s\S]*?)(<\/\2>)`, "gi");
const SHOWN = /<(img|svg|math|picture|video|canvas|iframe|object|embed|input|button|select|textarea)\b/i;
export const NOT_APPLICABLE = '<span class="attn-na" role="img" aria-label="not applicable" title="not applicable">\u2014</span>';
const isEmpty = (content) => !SHOWN.test(content) && TEXT(content).trim() === "";
// inside the cell's one empty paragraph (docutils writes <td><p></p></td>), else first
function notApplicable(content) {
  const p = /^(\s*<p\b[^>]*>)((?:(?!<\/?p\b)[\s\S])*<\/p>\s*)$/i.exec(content);
  return p ? p[1] + NOT_APPLICABLE + p[2] : NOT_APPLICABLE + content;
}

function cardTable(attrs, inner, where, skipped) {
  const head = /<thead\b[^>]*>([\s\S]*?)<\/thead>/i.exec(inner);
  if (!head) return null;
  const headRows = head[1].match(/<tr\b/gi) || [];
  const labels = [...head[1].matchAll(HEAD_CELL)].map((m) => TEXT(m[2]));
  if (headRows.length !== 1 || labels.length < 3) return null;
  if (/<table\b/i.test(inner)) { skipped.push(`${where}: a table inside a table`); return null; }
  if (/\b(rowspan|colspan)=/i.test(inner)) { skipped.push(`${where}: a table with spanning cells`); return null; }
  const bodyStart = inner.search(/<tbody\b/i);
  if (bodyStart < 0) return null;
  const body = inner.slice(bodyStart);
  const cells = [...body.matchAll(BODY_CELL)].map((m) => TEXT(m[2]));
  const cls = CLASS.exec(attrs);
  const classValue = cls ? (cls[2] ?? cls[3] ?? cls[4]) : null;
  // a table of numbers from a cell's output stays a grid (it fits); the text's own tables
  // (docutils) become cards whatever they hold
  const docutils = classValue !== null && classValue.split(/[\t\n\f\r ]+/).includes("docutils");
  if (!docutils && !cells.some((t) => t.split(" ").length >= 3)) return null;
  // every row's cells, in order, get their column's name; an empty one shows "—"
  const rows = body.split(/(?=<tr\b)/i);
  const out = rows.map((row) => {
    if (!/^<tr\b/i.test(row)) return row;
    let k = 0;
    return row.replace(CELL, (m, tag, a) => {
      const label = labels[k++];
      if (label === undefined) throw new Error(`${where}: a body row with more cells than the header`);
      return `<${tag}${a} data-label="${ATTR(label)}">`;
    }).replace(WHOLE_CELL, (m, open, tag, a, content, close) => (isEmpty(content) ? open + notApplicable(content) + close : m));
  }).join("");
  const newAttrs = cls
    ? attrs.slice(0, cls.index) + `${cls[1]}class="${ATTR(`${classValue} attn-cards`)}"` + attrs.slice(cls.index + cls[0].length)
    : `${attrs} class="attn-cards"`;
  return `<table${newAttrs}>${inner.slice(0, bodyStart)}${out}</table>`;
}

/** The page `html` with its tables of words as cards: returns {html, n (tables changed),
 * skipped (tables left a grid, each named with `where`)}. A page already done comes back
 * unchanged. */
export function cardTables(html, where) {
  const skipped = [];
  let n = 0;
  if (/<table\b[^>]*attn-cards/i.test(html)) return { html, n, skipped };  // already done
  const next = html.replace(TABLE, (m, attrs, inner) => {
    const t = cardTable(attrs, inner, where, skipped);
    if (t === null) return m;
    n++;
    return t;
  });
  return { html: next, n, skipped };
}

function main() {
  const site = resolve(process.argv[2] || join(here, "..", "_build", "html"));
  let n = 0;
  const skipped = [];
  for (const file of htmlFiles(site)) {
    const where = relative(site, file);
    const html = readFileSync(file, "utf8");
    const res = cardTables(html, where);
    skipped.push(...res.skipped);
    if (res.n) {
      writeFileSync(file, res.html);
      n += res.n;
    }
  }
  for (const s of skipped) console.log(`table-cards: left a grid: ${s}`);
  console.log(`table-cards: ${n} tables become cards on phones`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) main();
