// The heatmap panel: the weights of one frame as an image with a pixel per cell (png.js), axis
// labels (tokens of a typed sentence), readout line and keyboard focus; and the explorer's
// colour bar (colorbar), one per colour range, under the last map that uses it.

import { GAMMA, colourScale } from "./colours.js";
import { el, fmt, html, isDark, nextId, one } from "./dom.js";
import { pngDataUrl } from "./png.js";

const LABEL_MAX = 10;  // typed words: at most this many characters show on a tick
const CHAR_W = 7;  // width of a 12 px label character, for the layout
export const PANEL_W = 330;
// empty cells (Heatmap(labels_per_frame=True), a "" label): a neutral grey, off the weight
// scales (white to red on a light page, purple to yellow on a dark one)
const EMPTY_LIGHT = [200, 200, 200], EMPTY_DARK = [72, 72, 72];  // every picture fits a 390 px phone unscaled, two share the book's column

// The smallest of 1, 2, 5, 10, 20, 50, ... that is at least `min` (a tick every that many).
export function niceStep(min) {
  for (let p = 1; ; p *= 10) for (const m of [1, 2, 5]) if (m * p >= min) return m * p;
}

export function heatmapPanel(spec, parent, ui) {
  const R = spec.rows, C = spec.cols, target = ui.panelWidth(spec);
  // a map with its own text field above it is titled by the field's label
  const title = ui.fieldAbove && ui.fieldAbove(spec.name) ? null : spec.title;
  // Labels may change with each frame (typed words: ctx.labels); ticks show at most LABEL_MAX
  // characters of them, and the layout leaves room for that many. Declared labels show whole.
  let rowLab = spec.row_labels, colLab = spec.col_labels;
  const rowTxt = (i) => (rowLab ? rowLab[i] : String(i));
  const colTxt = (j) => (colLab ? colLab[j] : String(j));
  // typed words, or labels stored with each frame (Heatmap(labels_per_frame=True))
  const changing = ui.typedLabels || !!spec.labels_per_frame;
  const cut = (t) => {
    const c = Array.from(t);
    return changing && c.length > LABEL_MAX ? c.slice(0, LABEL_MAX - 1).join("") + "\u2026" : t;
  };
  const len = (t) => Array.from(t).length;
  // room for LABEL_MAX characters of typed words; stored per-frame labels need only their
  // longest (spec.label_chars, from render.js)
  const most = (k) => (spec.label_chars ? Math.min(LABEL_MAX, spec.label_chars[k]) : LABEL_MAX);
  const maxRow = changing ? most(0) : Math.max(...Array.from({ length: R }, (_, i) => len(rowTxt(i))));
  const maxCol = changing ? most(1) : Math.max(...Array.from({ length: C }, (_, j) => len(colTxt(j))));
  const left = 18 + maxRow * CHAR_W + 6, top = 6;
  // cells as large as the panel allows (at most 40 px), in quarter pixels; at most 240 px
  // tall, or 14 px a named row up to 320 px (every token labelled)
  const tall = (rowLab || changing) && R <= 22 ? Math.max(240, 14 * R) : 240;
  const cell = Math.max(4, Math.floor(4 * Math.min(40, (target - left - 6) / C, tall / R)) / 4);
  // rows named by words (tokens, characters) in cells under 14 px grow to 14 px: every row keeps
  // its label; rows named by numbers (positions along an axis) keep square cells, every other
  // one labelled
  const words = changing || (rowLab && rowLab.some((t) => t === "" || isNaN(Number(t))));
  const rowH = words && cell < 14 && 14 * R <= tall ? 14 : cell;
  const rotate = maxCol * CHAR_W > cell - 2;
  // Column labels too long for their cell are turned: at 45 degrees they lie 0.71 times their
  // spacing apart and need 18 px to clear each other; between 13.5 and 18 px they turn to 70
  // degrees instead (0.94 times the spacing) so that every column keeps its label.
  const angle = rotate && cell < 18 && cell >= 13.5 ? 70 : 45, sin = Math.sin((angle * Math.PI) / 180);
  // label every cell when there is room (about 14 px per label, 18 for labels at 45 degrees;
  // a declared one-character column label, such as a character of a date, needs only its
  // own width, 10 px), else every k-th
  const oneC = !changing && maxCol === 1 && !rotate;
  // numbered rows and columns (indices): every one where its label fits (a label's width and
  // 4 px apart; 14 px a row); numbered columns whose labels fit only two cells wide take two
  // staggered lines (odd keys on the second: every key keeps its label, chapter 6's 16 keys);
  // else every k-th for k a "nice" step (2, 5, 10, 20, ...)
  const numW = String(C - 1).length * CHAR_W + 4;
  const stagger = !colLab && !changing && !rotate && numW > cell && numW <= 2 * cell;
  const stepR = Math.max(1, rowLab || changing ? Math.ceil(14 / rowH) : niceStep(14 / rowH));
  const stepC = Math.max(1, colLab || changing
    ? Math.ceil((oneC ? CHAR_W + 3 : rotate && angle === 45 ? 18 : 14) / cell)
    : stagger ? 1 : niceStep(numW / cell));
  const W = C * cell, H = R * rowH;
  const bottom = (rotate ? maxCol * CHAR_W * sin + 10 : 16) + 18 + (stagger ? 16 : 0);
  const width = Math.ceil(left + W + 6), height = Math.ceil(top + H + bottom);
  // The panel: the map, then (for the last map of a colour range) the colour bar, then the
  // readout line.
  const wrap = html("div", "attn-panel", parent);
  wrap.setAttribute("data-panel", spec.name);
  wrap.setAttribute("style", `--attn-w:${width}px`);  // its title, field, bar and readout are no wider
  // the title: text that wraps on a narrow column (centred over the picture)
  if (title) html("div", "attn-panel-title", wrap, title);
  const svg = el("svg", { class: "attn-heatmap", "data-panel": spec.name, "data-rows": R, "data-cols": C, width, height,
    viewBox: `0 0 ${width} ${height}`, role: "img", tabindex: "0",
    "data-vmin": spec.vmin, "data-vmax": spec.vmax,
    "aria-label": `${spec.title || spec.name}: heatmap, ${R} ${spec.ylabel} (rows) by ${C} ` +
      `${spec.xlabel} (columns). Arrow keys move between cells; the line below reads the cell.` }, wrap);
  const readout = html("div", "attn-readout", wrap);
  readout.setAttribute("data-panel", spec.name);
  const g = el("g", { transform: `translate(${left},${top})` }, svg);
  // The cells: one pixel each, drawn crisp (see pngDataUrl); the pointer's cell is found
  // from its position. The image's one tooltip names the cell under the pointer.
  const img = el("image", { class: "attn-cells", x: 0, y: 0, width: W, height: H, preserveAspectRatio: "none",
    "image-rendering": "optimizeSpeed", style: "image-rendering: pixelated" }, g);
  const tip = el("title", {}, img);
  el("rect", { x: 0, y: 0, width: W, height: H, fill: "none", class: "attn-frame" }, g);
  // masked keys (a weight of exactly 0 where the map says zeros are masked): each cell crossed
  // out, so that it does not read as a small weight
  const marksZeros = !!spec.masked_zeros || !!(ui.marksZeros && ui.marksZeros(spec.name));
  const masked = marksZeros ? el("path", { class: "attn-masked", d: "" }, g) : null;
  const rowTicks = [], colTicks = [];
  for (let i = 0; i < R; i += stepR) {
    rowTicks.push([i, el("text", { class: "attn-tick", x: -4, y: i * rowH + rowH / 2, "text-anchor": "end",
      "dominant-baseline": "central" }, g, cut(rowTxt(i)))]);
  }
  for (let j = 0; j < C; j += stepC) {
    const x = j * cell + cell / 2, y = H + 12 + (stagger && j % 2 ? 16 : 0);  // a line apart
    colTicks.push([j, el("text", rotate
      ? { class: "attn-tick", x, y: H + 6, "text-anchor": "end", transform: `rotate(-${angle} ${x} ${H + 6})`,
        "dominant-baseline": "central" }
      : { class: "attn-tick", x, y, "text-anchor": "middle" }, g, cut(colTxt(j)))]);
  }
  el("text", { class: "attn-axis-label", x: W / 2, y: H + bottom - 6, "text-anchor": "middle" }, g, spec.xlabel);
  el("text", { class: "attn-axis-label", x: 0, y: 0, "text-anchor": "middle",
    transform: `translate(${-left + 12},${H / 2}) rotate(-90)` }, g, spec.ylabel);
  const scale = colourScale(spec.vmin, spec.vmax);
  const yl = one(spec.ylabel), xl = one(spec.xlabel);
  // A row or column in words: "query 2", or, when labelled, its label in quotes after its
  // index ("row 3, output character (query) “6”"), so a label that is a digit never reads as
  // an index.
  const q = (t) => `\u201c${t}\u201d`;
  const rowName = (i) => (rowLab ? `${yl} ${q(rowLab[i])}` : `${yl} ${i}`);
  const colName = (j) => (colLab ? `${xl} ${q(colLab[j])}` : `${xl} ${j}`);
  const name = (i, j) => (rowLab ? `row ${i}, ${rowName(i)}` : rowName(i)) + ", " +
    (colLab ? `column ${j}, ${colName(j)}` : colName(j)) + ": ";
  // The cell being read: by hover, tap, or arrow keys when the heatmap has focus.
  const cursor = el("rect", { class: "attn-cursor", width: cell, height: rowH, fill: "none",
    visibility: "hidden" }, g);
  let current = [0, 0], last = null, picked = false;
  // Labels stored with each frame mark padding with "": such a cell is empty (not a weight of
  // 0), painted in a neutral colour outside the weight scale and read as "empty".
  const empty = (i, j) => !!spec.labels_per_frame && !!rowLab && !!colLab &&
    (rowLab[i] === "" || colLab[j] === "");
  const read = () => {
    const [i, j] = current;
    if (!last || !picked) return;  // nothing read yet: keep the instructions
    const text = empty(i, j) ? `row ${i}, column ${j}: empty (beyond this input and output)`
      : name(i, j) + last[i * C + j].toFixed(4);
    cursor.setAttribute("x", j * cell);
    cursor.setAttribute("y", i * rowH);
    readout.textContent = text;
    tip.textContent = text;
    readout.setAttribute("data-row", i);
    readout.setAttribute("data-col", j);
  };
  const show = (i, j, quiet) => {
    current = [Math.max(0, Math.min(R - 1, i)), Math.max(0, Math.min(C - 1, j))];
    picked = true;
    cursor.setAttribute("visibility", "visible");
    read();
    if (!quiet) {  // linked views: the same key, and the same query, elsewhere
      ui.column(current[1], spec.name, C);
      ui.row(current[0], spec.name, R);
    }
    if (ui.read) ui.read(spec.name);  // the explorer's sentence speaks of the row being read
  };
  ui.onColumn.push((j, from, n) => { if (from !== spec.name && n === C) show(current[0], j, true); });
  ui.onRow.push((i, from, n) => { if (from !== spec.name && n === R) show(i, current[1], true); });
  const pick = (ev) => {  // the cell under the pointer, in the map's own units (any CSS scale)
    const m = g.getScreenCTM && g.getScreenCTM();
    if (!m) return;
    const p = new DOMPoint(ev.clientX, ev.clientY).matrixTransform(m.inverse());
    const i = Math.floor(p.y / rowH), j = Math.floor(p.x / cell);
    if (i >= 0 && i < R && j >= 0 && j < C && (i !== current[0] || j !== current[1] || !picked)) show(i, j);
  };
  img.addEventListener("mousemove", pick);
  img.addEventListener("click", pick);
  svg.addEventListener("focus", () => show(current[0], current[1]));
  svg.addEventListener("keydown", (ev) => {
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1],
      Home: [0, -C], End: [0, C] };
    const m = moves[ev.key];
    if (!m) return;
    ev.preventDefault();
    show(current[0] + m[0], current[1] + m[1]);
  });
  svg.setAttribute("data-lm-suppress-shortcuts", "true");
  // linked views: the row another panel shows (the dragged query's row, the row a line panel
  // draws) is outlined in the accent colour
  let rowMark = null, marked = null;
  const markRow = (i) => {
    if (!rowMark) rowMark = el("rect", { class: "attn-current-row", x: -1, width: W + 2, height: rowH, fill: "none" }, g);
    rowMark.setAttribute("y", String(i * rowH));
    svg.setAttribute("data-current-row", String(i));
    marked = i;
  };
  // The row the reader is looking at, for the explorer's sentence: the row of the cell read
  // last (pointer, tap or arrow keys), else the row another panel marks, else the row the map
  // declares its notices speak of (Heatmap(read_row=...): chapter 5's dot-product row), else
  // the last row (on a causal map the only query that sees every key; the first sees only
  // itself).
  const start = Number.isInteger(spec.read_row) && spec.read_row >= 0 && spec.read_row < R ? spec.read_row : R - 1;
  const spokenRow = () => (picked ? current[0] : marked !== null ? marked : start);
  ui.heatmaps.push({ spec, rowTxt, colTxt, rowName, colName, wrap, readout, values: () => last, markRow,
    spokenRow, labelled: () => [!!rowLab, !!colLab] });
  // the colour a weight is painted (for scripts and tests, like svg.attnValues)
  svg.attnColour = (v) => scale.colour(v, isDark(svg) ? "dark" : "light");
  svg.attnEmpty = empty;  // (row, column) -> an empty cell, painted off the scale (for tests)
  const rgb = new Uint8Array(R * C * 3);
  // the cells of `values` in a mode's colours, as a PNG data URL (one pixel a cell)
  const picture = (values, mode) => {
    const table = scale.table(mode), none = mode === "dark" ? EMPTY_DARK : EMPTY_LIGHT;
    for (let k = 0; k < R * C; k++) {
      if (empty(Math.floor(k / C), k % C)) {
        rgb[3 * k] = none[0]; rgb[3 * k + 1] = none[1]; rgb[3 * k + 2] = none[2];
        continue;
      }
      const t = scale.index(values[k]);
      rgb[3 * k] = table[t]; rgb[3 * k + 1] = table[t + 1]; rgb[3 * k + 2] = table[t + 2];
    }
    return pngDataUrl(C, R, rgb);
  };
  // the picture shown, in either mode (web/prerender-explorers.mjs puts both in the page's
  // static picture, so it is in the reader's mode from the first paint)
  svg.attnPicture = (mode) => (last ? picture(last, mode) : null);
  return (values, ctx) => {
    if (ctx && ctx.labels) {  // the words of a typed sentence, or this frame's stored labels
      rowLab = ctx.labels.rows; colLab = ctx.labels.cols;
      rowTicks.forEach(([i, t]) => { t.textContent = cut(rowTxt(i)); });
      colTicks.forEach(([j, t]) => { t.textContent = cut(colTxt(j)); });
      svg.setAttribute("data-col-labels", JSON.stringify(colLab));
    }
    img.setAttribute("href", picture(values, isDark(svg) ? "dark" : "light"));
    if (masked) {
      let d = "";
      const m = Math.max(1, Math.min(cell, rowH) * 0.25), s = cell - 2 * m, t = rowH - 2 * m;
      for (let k = 0; k < R * C; k++) {
        if (values[k] !== 0) continue;
        const x = (k % C) * cell + m, y = Math.floor(k / C) * rowH + m;
        d += `M${x} ${y}l${s} ${t}M${x + s} ${y}l${-s} ${t}`;
      }
      masked.setAttribute("d", d);
      svg.setAttribute("data-masked", String(d ? d.split("M").length / 2 - 0.5 : 0));
    }
    // What the map shows, for scripts and tests: the weights, row by row (queries are rows).
    svg.attnValues = values;
    last = values;
    if (!readout.textContent) readout.textContent = "Point at or tap a cell.";
    else read();
  };
}


// The colour bar of one colour range (the explorer draws one per range, under the last map
// that uses it): a horizontal bar with ticks at their values, the label beside it and, under
// it, the words saying that the scale is a power law (colours.js GAMMA). A range that
// saturates (Heatmap(saturate=True)) ends in an arrow: larger values take its top colour.
export function colorbar(spec, parent, before, maxWidth = PANEL_W) {
  const scale = colourScale(spec.vmin, spec.vmax), span = spec.vmax - spec.vmin;
  // the label beside the bar, or above it when the map is narrow
  const arrow = spec.saturate ? 8 : 0, labelW = spec.colorbar_label.length * 7, bx = 8;
  const beside = bx + 150 + arrow + 14 + labelW <= maxWidth;
  const bw = beside ? 150 : Math.max(100, Math.min(150, maxWidth - bx - arrow - 12)), by = beside ? 2 : 17;
  // the scale is not linear, and the words under the bar say so (as the static figures' colour
  // bars do): on one line, or split after its colon where the map is narrow
  const note = `(colour \u221d value^${GAMMA}: small values stand out)`, colon = note.indexOf(":") + 1;
  const lines = note.length * CHAR_W <= maxWidth ? [note] : [note.slice(0, colon), note.slice(colon + 1)];
  const noteW = Math.max(...lines.map((l) => l.length * CHAR_W));
  const width = Math.ceil(Math.max(noteW + 4, beside ? bx + bw + arrow + 14 + labelW : Math.max(bx + bw + arrow + 12, labelW + 4)));
  const height = by + 34 + 15 * lines.length;
  const top = (t) => (spec.saturate && Math.abs(t - spec.vmax) < 1e-12 ? "\u2265 " : "") + fmt(t);
  const svg = el("svg", { class: "attn-colorbar-svg", width, height, viewBox: `0 0 ${width} ${height}`, role: "img",
    "data-vmin": spec.vmin, "data-vmax": spec.vmax,
    "aria-label": `colour scale: ${spec.colorbar_label}, from ${fmt(spec.vmin)} to ${fmt(spec.vmax)}` +
      (spec.saturate ? ` (larger values take the colour of ${fmt(spec.vmax)})` : "") + ` ${note}` });
  parent.insertBefore(svg, before || null);
  const gid = `attn-grad-${nextId()}`;
  const grad = el("linearGradient", { id: gid, x1: 0, y1: 0, x2: 1, y2: 0 }, el("defs", {}, svg));
  // each stop carries both modes' colours (--attn-c, --attn-cd; explorer.css picks the page's),
  // so a bar drawn before the page's mode is known (a static picture) is right at first paint
  const dark = scale.stops("dark");
  const stops = scale.stops("light").map(([o, c], k) => el("stop", { offset: o.toFixed(4), "stop-color": c,
    class: "attn-stop", style: `--attn-c:${c};--attn-cd:${dark[k][1]}` }, grad));
  el("rect", { class: "attn-colorbar", x: bx, y: by, width: bw, height: 10, fill: `url(#${gid})` }, svg);
  const ends = ["light", "dark"].map((m) => `rgb(${scale.colour(spec.vmax, m).join(",")})`);
  const tip = spec.saturate ? el("path", { class: "attn-colorbar attn-f", fill: ends[0], style: `--attn-c:${ends[0]};--attn-cd:${ends[1]}`,
    d: `M${bx + bw} ${by} L${bx + bw + arrow} ${by + 5} L${bx + bw} ${by + 10} Z` }, svg) : null;
  // a saturating range says where it ends: a last tick "≥ vmax"
  let ticks = spec.colorbar_ticks.slice();
  if (spec.saturate && !ticks.some((t) => Math.abs(t - spec.vmax) < 1e-12)) ticks.push(spec.vmax);
  // no two labels overlap (at a phone's width "0.2" and "≥ 0.25" would): walking from the
  // last tick (which says where a saturating scale ends) down, keep a tick only if its label
  // clears the one kept after it (about 7 px per character at the tick font, 4 px apart)
  const at = (t) => bx + ((t - spec.vmin) / span) * bw, half = (t) => top(t).length * 3.5;
  const kept = [];
  for (const t of ticks.slice().sort((a, b) => b - a)) {
    const next = kept[kept.length - 1];
    if (next === undefined || at(next) - half(next) - (at(t) + half(t)) >= 4) kept.push(t);
  }
  ticks = kept.reverse();
  for (const t of ticks) {
    const x = at(t);
    el("line", { x1: x, x2: x, y1: by + 10, y2: by + 14, class: "attn-axis" }, svg);
    el("text", { class: "attn-tick", x, y: by + 27, "text-anchor": "middle" }, svg, top(t));
  }
  el("text", { class: "attn-colorbar-label", x: beside ? bx + bw + arrow + 10 : 2, y: beside ? by + 9 : 12 }, svg, spec.colorbar_label);
  lines.forEach((l, k) => el("text", { class: "attn-colorbar-label attn-colorbar-note", x: 2, y: by + 44 + 15 * k }, svg, l));
  return () => {  // follow the page's mode
    const mode = isDark(svg) ? "dark" : "light";
    scale.stops(mode).forEach(([, c], k) => stops[k].setAttribute("stop-color", c));
    if (tip) { const c = scale.colour(spec.vmax, mode); tip.setAttribute("fill", `rgb(${c.join(",")})`); }
  };
}
