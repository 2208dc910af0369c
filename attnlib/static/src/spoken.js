// The words of an explorer's sentence (its aria-live line, render.js: sentence), as pure
// functions of the spec's labels and the current values: no DOM, so Node tests them
// (tests/widgets/test_spoken_words.py).

import { fmt } from "./dom.js";

const escaped = (t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

// One control in words: its label, then the label of its value ("training step 400"), or the
// value's label alone when that already names what the control is (a "head" menu whose
// option reads "layer 1, head 1" says "layer 1, head 1", not "head layer 1, head 1").
// A label that says in brackets what its value's second half is ("decode step (output
// character)") with a value "9: 2" reads "decode step 9 (output character “2”)", not
// "decode step (output character) 9: 2" (a ratio, the step twice).
export function controlWords(label, value) {
  const names = new RegExp(`(^|[^\\w])${escaped(String(label))}([^\\w]|$)`, "i");
  if (label && names.test(value)) return value;
  const named = /^(.*\S)\s*\(([^()]+)\)$/.exec(String(label));
  const pair = /^(\S+):\s+(.+)$/.exec(String(value));
  if (named && pair) return `${named[1]} ${pair[1]} (${named[2]} “${pair[2]}”)`;
  return `${label} ${value}`;
}

// A caption panel's text read out (attnlib.widgets.Caption): its lines without the blank
// ones and the spaces that align columns, one after another with "; ". A line that starts
// with a space continues the line before it (a sentence wrapped to fit a phone, a verdict
// indented under its output) and joins it with a space, not a "; ".
export function captionWords(text) {
  const parts = [];
  for (const line of String(text).split("\n")) {
    const words = line.trim().replace(/\s+/g, " ");
    if (!words) continue;
    if (parts.length && /^\s/.test(line)) parts[parts.length - 1] += ` ${words}`;
    else parts.push(words);
  }
  return parts.join("; ");
}

// One row of a heatmap in words: where row i (queries are rows) puts most of its weight.
// `row` holds its C weights; rowName / colName name a row and a column ("query 2", or a
// labelled one: "token now (query) “c”"); a labelled row or column also gets its index, since
// a label (a repeated token) may stand in several places.
export function rowWords(i, row, rowName, colName, [rowsNamed, colsNamed]) {
  let best = 0;
  for (let j = 1; j < row.length; j++) if (row[j] > row[best]) best = j;
  const r = rowsNamed ? `row ${i}, ${rowName(i)}` : rowName(i);
  const name = (j) => (colsNamed ? `${colName(j)} (column ${j})` : colName(j));
  const w = fmt(Math.round(row[best] * 100) / 100);
  // top weights that tie (within 1e-3, e.g. a flat Laplace row at the origin): all of them,
  // not the last one the loop happened to keep
  const tied = [];
  for (let j = 0; j < row.length; j++) if (row[best] - row[j] <= 1e-3) tied.push(name(j));
  if (tied.length > 1) {
    const list = `${tied.slice(0, -1).join(", ")} and ${tied[tied.length - 1]}`;
    return `${r} puts ${w} of its weight on each of ${list}.`;
  }
  return `${r} puts ${w} of its weight on ${name(best)}.`;
}
