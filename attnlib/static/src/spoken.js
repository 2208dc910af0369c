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

// A share of a row's weight in words, at a fixed two decimals ("0.10", not "0.1" beside a
// "0.13"): "all of its weight" for a weight of 1 (to within 5e-5), "nearly all" for one that
// two decimals would round up to 1 ("1 of its weight" read as a count), "none" for 0.
export function shareWords(w) {
  if (w >= 1 - 5e-5) return "all";
  if (w >= 0.995) return "nearly all";
  if (w <= 5e-5) return "none";
  return w.toFixed(2);
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
  // a row of zeros (Heatmap(allow_zero_rows=True): a query with no valid key)
  if (row[best] <= 5e-5) return `${r} puts no weight on any key (every weight is 0).`;
  const w = shareWords(row[best]);
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

// Kernel regression (chapter 2) in words: the fit at the dragged query and where its largest
// weight goes. `w` holds the weights over the training inputs `xTrain`; `marked` is the input
// of the heatmap row outlined as the fixed query nearest the reader's (the heatmap has a row
// per fixed query, so it rarely is the reader's own), or null when there is none.
export function kernelWords(fit, w, xTrain, marked) {
  const x2 = (v) => v.toFixed(2);
  let best = 0;
  for (let j = 1; j < xTrain.length; j++) if (w[j] > w[best]) best = j;
  let out = `the fit at the query is ${x2(fit)}; `;
  if (Math.max(...w) - Math.min(...w) < 1e-9) {
    out += `every training input has the same weight, ${fmt(Math.round(w[0] * 1e4) / 1e4)}`;
  } else if (shareWords(w[best]) === "all") {
    out += `all of the weight is on the training input at x = ${x2(xTrain[best])}`;
  } else {
    out += `the largest weight, ${shareWords(w[best])}, is on the training input at x = ${x2(xTrain[best])}`;
  }
  return marked === null || marked === undefined ? `${out}.`
    : `${out}; the outlined heatmap row is the fixed query nearest yours, x = ${x2(marked)}.`;
}
