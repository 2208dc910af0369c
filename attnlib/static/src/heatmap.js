// The heatmap panel: the weights of one frame as an image with a pixel per cell (png.js), its
// colour bar, axis labels (tokens of a typed sentence), readout line and keyboard focus.

import { el, fmt, html, isDark, nextId, one } from "./dom.js";
import { pngDataUrl } from "./png.js";

// matplotlib "Reds" (ColorBrewer Reds, 9 classes): sequential, colour-blind safe.
const REDS = ["#fff5f0", "#fee0d2", "#fcbba1", "#fc9272", "#fb6a4a", "#ef3b2c", "#cb181d",
  "#a50f15", "#67000d"];
// On a dark page the colour scale runs from the page's dark background (small weights)
// to bright yellow (large), so small weights recede as they do on white ("inferno"-like).
const DARK = ["#1b1b1f", "#2c1650", "#57106e", "#8a226a", "#ba3655", "#e35933", "#f98e09",
  "#f8c932", "#fcffa4"];
// 256 colours interpolated between the stops, as r, g, b bytes.
const lut = (hexes) => {
  const rgb = hexes.map((h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)));
  const out = new Uint8Array(256 * 3);
  for (let k = 0; k < 256; k++) {
    const t = (k / 255) * (rgb.length - 1), i = Math.min(Math.floor(t), rgb.length - 2), f = t - i;
    for (let j = 0; j < 3; j++) out[3 * k + j] = Math.round(rgb[i][j] + f * (rgb[i + 1][j] - rgb[i][j]));
  }
  return out;
};
const LUT = lut(REDS), LUT_DARK = lut(DARK);
const LABEL_MAX = 10;

export function heatmapPanel(spec, parent, ui) {
  const R = spec.rows, C = spec.cols;
  const cell = Math.max(5, Math.min(40, Math.floor(Math.min(360 / C, 260 / R))));
  const charW = 6.5;
  // Labels may change with each frame (typed words: ctx.labels); ticks show at most LABEL_MAX
  // characters of them, and the layout leaves room for that many.
  let rowLab = spec.row_labels, colLab = spec.col_labels;
  const rowTxt = (i) => (rowLab ? rowLab[i] : String(i));
  const colTxt = (j) => (colLab ? colLab[j] : String(j));
  const cut = (t) => { const c = Array.from(t); return c.length > LABEL_MAX ? c.slice(0, LABEL_MAX - 1).join("") + "\u2026" : t; };
  // typed words, or labels stored with each frame (Heatmap(labels_per_frame=True))
  const changing = ui.typedLabels || !!spec.labels_per_frame;
  const maxRow = changing ? LABEL_MAX : Math.max(...Array.from({ length: R }, (_, i) => rowTxt(i).length));
  const maxCol = changing ? LABEL_MAX : Math.max(...Array.from({ length: C }, (_, j) => colTxt(j).length));
  const rotate = maxCol * charW > cell;
  // label every cell when there is room (about 12 px per label), else every k-th
  const stepR = Math.max(1, rowLab || changing ? Math.ceil(12 / cell) : Math.ceil(R / 10));
  const stepC = Math.max(1, colLab || changing ? Math.ceil(12 / cell) : Math.ceil(C / 12));
  const left = 26 + maxRow * charW + 6, top = spec.title ? 24 : 8;
  const W = C * cell, H = R * cell, barH = Math.max(H, 90);
  const bottom = (rotate ? maxCol * charW * 0.75 + 14 : 18) + 20;
  const width = left + W + 8, height = top + Math.max(H + bottom, barH + 8);
  // The panel is a wrapping row: the map, then its colour bar (a second SVG), which moves
  // below the map when the column is too narrow for both (phones); the readout line last.
  const wrap = html("div", "attn-panel", parent);
  const svg = el("svg", { class: "attn-heatmap", "data-panel": spec.name, "data-rows": R, "data-cols": C, width, height,
    viewBox: `0 0 ${width} ${height}`, role: "img", tabindex: "0",
    "aria-label": `${spec.title || spec.name}: heatmap, ${R} ${spec.ylabel} (rows) by ${C} ` +
      `${spec.xlabel} (columns). Arrow keys move between cells; the line below reads the cell.` }, wrap);
  const barW = 90, bar = el("svg", { class: "attn-colorbar-svg", "data-panel": spec.name, width: barW,
    height: top + barH + 8, viewBox: `0 0 ${barW} ${top + barH + 8}`, role: "img",
    "aria-label": `colour scale: ${spec.colorbar_label}, from ${fmt(spec.vmin)} to ${fmt(spec.vmax)}` }, wrap);
  const readout = html("div", "attn-readout", wrap);
  readout.setAttribute("data-panel", spec.name);
  if (spec.title) el("text", { class: "attn-title", x: left + W / 2, y: 15, "text-anchor": "middle" }, svg, spec.title);
  const g = el("g", { transform: `translate(${left},${top})` }, svg);
  // The cells: one pixel each, drawn crisp (see pngDataUrl); the pointer's cell is found
  // from its position. The image's one tooltip names the cell under the pointer.
  const img = el("image", { class: "attn-cells", x: 0, y: 0, width: W, height: H, preserveAspectRatio: "none",
    "image-rendering": "optimizeSpeed", style: "image-rendering: pixelated" }, g);
  const tip = el("title", {}, img);
  el("rect", { x: 0, y: 0, width: W, height: H, fill: "none", class: "attn-frame" }, g);
  const rowTicks = [], colTicks = [];
  for (let i = 0; i < R; i += stepR) {
    rowTicks.push([i, el("text", { class: "attn-tick", x: -4, y: i * cell + cell / 2, "text-anchor": "end",
      "dominant-baseline": "central" }, g, cut(rowTxt(i)))]);
  }
  for (let j = 0; j < C; j += stepC) {
    const x = j * cell + cell / 2, y = H + 12;
    colTicks.push([j, el("text", rotate
      ? { class: "attn-tick", x, y: H + 6, "text-anchor": "end", transform: `rotate(-45 ${x} ${H + 6})`,
        "dominant-baseline": "central" }
      : { class: "attn-tick", x, y, "text-anchor": "middle" }, g, cut(colTxt(j)))]);
  }
  el("text", { class: "attn-axis-label", x: W / 2, y: H + bottom - 6, "text-anchor": "middle" }, g, spec.xlabel);
  el("text", { class: "attn-axis-label", x: 0, y: 0, "text-anchor": "middle",
    transform: `translate(${-left + 12},${H / 2}) rotate(-90)` }, g, spec.ylabel);
  // colour bar
  const gid = `attn-grad-${nextId()}`;
  const defs = el("defs", {}, bar);
  const grad = el("linearGradient", { id: gid, x1: 0, y1: 1, x2: 0, y2: 0 }, defs);
  const stops = REDS.map((c, k) => el("stop", { offset: k / (REDS.length - 1), "stop-color": c }, grad));
  const bg = el("g", { transform: `translate(0,${top})` }, bar);
  const bx = 6, span = spec.vmax - spec.vmin;
  el("rect", { class: "attn-colorbar", x: bx, y: 0, width: 12, height: barH, fill: `url(#${gid})` }, bg);
  for (const t of spec.colorbar_ticks) {
    const y = barH - ((t - spec.vmin) / span) * barH;
    el("line", { x1: bx + 12, x2: bx + 15, y1: y, y2: y, class: "attn-axis" }, bg);
    el("text", { class: "attn-tick", x: bx + 17, y, "dominant-baseline": "central" }, bg, fmt(t));
  }
  el("text", { class: "attn-colorbar-label", x: 0, y: 0, "text-anchor": "middle",
    transform: `translate(${bx + 60},${barH / 2}) rotate(-90)` }, bg, spec.colorbar_label);
  const yl = one(spec.ylabel), xl = one(spec.xlabel);
  const name = (i, j) => `${yl} ${i}${rowLab && rowLab[i] ? ` (${rowLab[i]})` : ""}, ${xl} ${j}${colLab && colLab[j] ? ` (${colLab[j]})` : ""}: `;
  // The cell being read: by hover, tap, or arrow keys when the heatmap has focus.
  const cursor = el("rect", { class: "attn-cursor", width: cell, height: cell, fill: "none",
    visibility: "hidden" }, g);
  let current = [0, 0], last = null, picked = false;
  const read = () => {
    const [i, j] = current;
    if (!last || !picked) return;  // nothing read yet: keep the instructions
    const text = name(i, j) + last[i * C + j].toFixed(4);
    cursor.setAttribute("x", j * cell);
    cursor.setAttribute("y", i * cell);
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
  };
  ui.onColumn.push((j, from, n) => { if (from !== spec.name && n === C) show(current[0], j, true); });
  ui.onRow.push((i, from, n) => { if (from !== spec.name && n === R) show(i, current[1], true); });
  const pick = (ev) => {  // the cell under the pointer, in the map's own units (any CSS scale)
    const m = g.getScreenCTM && g.getScreenCTM();
    if (!m) return;
    const p = new DOMPoint(ev.clientX, ev.clientY).matrixTransform(m.inverse());
    const i = Math.floor(p.y / cell), j = Math.floor(p.x / cell);
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
  ui.heatmaps.push({ spec, rowTxt, colTxt, values: () => last });
  const rgb = new Uint8Array(R * C * 3);
  return (values, ctx) => {
    if (ctx && ctx.labels) {  // the words of a typed sentence, or this frame's stored labels
      rowLab = ctx.labels.rows; colLab = ctx.labels.cols;
      rowTicks.forEach(([i, t]) => { t.textContent = cut(rowTxt(i)); });
      colTicks.forEach(([j, t]) => { t.textContent = cut(colTxt(j)); });
      svg.setAttribute("data-col-labels", JSON.stringify(colLab));
    }
    const dark = isDark(svg), table = dark ? LUT_DARK : LUT, ramp = dark ? DARK : REDS;
    stops.forEach((st, k) => st.setAttribute("stop-color", ramp[k]));
    for (let k = 0; k < R * C; k++) {
      const u = Math.min(1, Math.max(0, (values[k] - spec.vmin) / span)), t = 3 * Math.round(u * 255);
      rgb[3 * k] = table[t]; rgb[3 * k + 1] = table[t + 1]; rgb[3 * k + 2] = table[t + 2];
    }
    img.setAttribute("href", pngDataUrl(C, R, rgb));
    // What the map shows, for scripts and tests: the weights, row by row (queries are rows).
    svg.attnValues = values;
    last = values;
    if (!readout.textContent) readout.textContent = `Point at a cell, tap it, or focus the heatmap and use the arrow keys to read its weight.`;
    else read();
  };
}

