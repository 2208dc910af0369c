// attnlib explorer (anywidget ES module). A precomputed explorer's frames are computed in
// Python by attnlib and synced in the model: this module selects the frame for the current
// controls and draws it as SVG. A live explorer (attnlib.live: a dragged query, a typed
// sentence) is computed here with one small implementation of attention's primitives
// (SCORES, softmax, LOG_KERNELS, the masked softmax of maskingFrame), which the browser tests
// compare with attnlib's numbers.
// No dependencies, no network, no console output.
// What scripts and tests may read: each explorer's data-explorer / data-params / data-frame /
// data-ready; each heatmap's svg.attnValues (the weights shown, row by row), data-rows,
// data-cols and its cells' image (image.attn-cells, one pixel per cell); the readout line;
// the weights panel's data-ytop; a typed sentence's heatmap data-col-labels.

const SVG = "http://www.w3.org/2000/svg";
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

// A heatmap's cells are one image with a pixel per cell, scaled up without smoothing: a
// redraw changes one attribute instead of one per cell (800 cells cost 30 ms of style work
// per redraw on a phone-class CPU; the image costs under 1 ms). The PNG is written here,
// uncompressed ("stored" deflate blocks), so the same code runs in the browser and in Node
// (the book's static pictures) with no canvas.
const CRC = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();
function pngDataUrl(w, h, rgb) {
  const stride = 1 + 3 * w, raw = new Uint8Array(h * stride);  // each row: filter 0, then pixels
  for (let y = 0; y < h; y++) raw.set(rgb.subarray(3 * w * y, 3 * w * (y + 1)), y * stride + 1);
  const nb = Math.max(1, Math.ceil(raw.length / 65535));
  const z = new Uint8Array(2 + 5 * nb + raw.length + 4);
  z[0] = 0x78; z[1] = 0x01;  // zlib header: deflate, no dictionary
  let o = 2;
  for (let k = 0; k < nb; k++) {
    const s = k * 65535, n = Math.min(65535, raw.length - s);
    z.set([k === nb - 1 ? 1 : 0, n & 255, n >>> 8, ~n & 255, (~n >>> 8) & 255], o);
    z.set(raw.subarray(s, s + n), o + 5);
    o += 5 + n;
  }
  let a = 1, b = 0;
  for (let i = 0; i < raw.length; i++) { a = (a + raw[i]) % 65521; b = (b + a) % 65521; }
  const be = (v) => [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255];
  z.set(be(((b << 16) | a) >>> 0), o);
  const chunk = (type, data) => {
    const c = new Uint8Array(12 + data.length);
    c.set(be(data.length), 0);
    for (let i = 0; i < 4; i++) c[4 + i] = type.charCodeAt(i);
    c.set(data, 8);
    let crc = 0xffffffff;
    for (let i = 4; i < 8 + data.length; i++) crc = CRC[(crc ^ c[i]) & 255] ^ (crc >>> 8);
    c.set(be((crc ^ 0xffffffff) >>> 0), 8 + data.length);
    return c;
  };
  const ihdr = new Uint8Array([...be(w), ...be(h), 8, 2, 0, 0, 0]);  // 8-bit RGB
  const parts = [new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]), chunk("IHDR", ihdr), chunk("IDAT", z),
    chunk("IEND", new Uint8Array(0))];
  let bin = "";
  for (const part of parts) {
    for (let i = 0; i < part.length; i += 8192) bin += String.fromCharCode.apply(null, part.subarray(i, i + 8192));
  }
  return "data:image/png;base64," + btoa(bin);
}
// Dark when the book's theme says so (pydata: html[data-theme=dark]) or JupyterLab's does.
function isDark(node) {
  const doc = node.ownerDocument, html = doc && doc.documentElement;
  if (!html) return false;
  if (html.getAttribute("data-theme") === "dark") return true;
  const body = doc.body;
  return !!(body && body.getAttribute("data-jp-theme-light") === "false");
}
let uid = 0;

function el(tag, attrs, parent, text) {
  const e = document.createElementNS(SVG, tag);
  for (const k in attrs) if (attrs[k] !== null && attrs[k] !== undefined) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}
function html(tag, cls, parent, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}
const fmt = (v) => String(+(+v).toFixed(4));
// "queries" -> "query" when naming one row or column ("query 2, key 5: 0.31").
const one = (t) => String(t).replace(/\bqueries\b/, "query").replace(/\bkeys\b/, "key")
  .replace(/\binputs\b/, "input").replace(/\bcharacters\b/, "character").replace(/\bfunctions\b/, "function");

// Decode one panel's frames (see attnlib.widgets.encode_frames): byte planes of
// little-endian unsigned integers, value = offset + q * scale; `index` maps frames.
function decode(enc) {
  const bin = atob(enc.data), N = enc.n_stored * enc.n, nb = enc.bits / 8;
  const vals = new Float64Array(N);
  for (let i = 0; i < N; i++) {
    let q = 0;
    for (let b = nb - 1; b >= 0; b--) q = q * 256 + bin.charCodeAt(b * N + i);
    vals[i] = enc.offset + q * enc.scale;
  }
  return (frame) => {
    const s = enc.index ? enc.index[frame] : frame;
    return vals.subarray(s * enc.n, (s + 1) * enc.n);
  };
}

// Attention's primitives for live explorers (attnlib.live): the page computes a frame
// itself, one query (the reader's handle) against fixed keys and values. The browser tests
// compare these numbers with attnlib's at random positions (within 1e-4).
const dot = (a, b) => { let s = 0; for (let i = 0; i < a.length; i++) s += a[i] * b[i]; return s; };
const SCORES = {
  gaussian: (q, k) => { let s = 0; for (let i = 0; i < q.length; i++) s -= (q[i] - k[i]) ** 2; return s / 2; },
  scaled_dot: (q, k) => dot(q, k) / Math.sqrt(q.length),
  dot: (q, k) => dot(q, k),
  additive: (q, k, { W_q, W_k, w_v }) => {                                 // w_v . tanh(W_q q + W_k k)
    let s = 0;
    for (let r = 0; r < w_v.length; r++) s += w_v[r] * Math.tanh(dot(W_q[r], q) + dot(W_k[r], k));
    return s;
  },
};
function softmax(s) {
  const m = Math.max(...s), e = s.map((v) => Math.exp(v - m)), z = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / z);
}
function liveFrame(live, params) {
  const q = live.query.map((n) => params[n]);                              // (d,)
  const t = live.temperature ? params[live.temperature] : 1;
  const weights = (name) => softmax(live.keys.map((k) => SCORES[name](q, k, live.additive) / t));  // (n_keys,)
  if (live.compare) return { [live.weights]: Float64Array.from(live.compare.flatMap(weights)) };  // (n_scorings * n_keys,)
  const w = weights(live.score_param ? params[live.score_param] : live.score);
  const out = [0, 0];                                                      // sum_j w_j v_j
  w.forEach((wj, j) => { out[0] += wj * live.values[j][0]; out[1] += wj * live.values[j][1]; });
  return { [live.weights]: Float64Array.from(w), [live.output[0]]: { [live.output[1]]: Float64Array.from(out) } };
}
// Nadaraya-Watson (attnlib.live.LiveKernelRegression), with attnlib.nadaraya_watson's rules:
// log-kernels (-Infinity outside a compact support), u = 0 where x = x_j, softmax of the
// logits, and a query with no finite logit puts weight 1 on its nearest training point.
const LOG_KERNELS = {
  gaussian: (u) => -0.5 * u * u - 0.5 * Math.log(2 * Math.PI),
  boxcar: (u) => (Math.abs(u) <= 1 ? Math.log(0.5) : -Infinity),
  constant: () => 0,
  epanechnikov: (u) => (Math.abs(u) < 1 ? Math.log(0.75) + Math.log1p(-u * u) : -Infinity),
  triangular: (u) => (Math.abs(u) < 1 ? Math.log1p(-Math.abs(u)) : -Infinity),
};
function nwLogits(xs, x, logK, h) {                                        // (n_train,)
  return xs.map((xj) => { const d = x - xj; return logK(d === 0 ? 0 : d / h); });
}
function nwWeights(xs, x, logK, h, l = nwLogits(xs, x, logK, h)) {        // (n_train,)
  if (l.every((v) => v === -Infinity)) {                                   // empty window
    let best = 0;
    for (let j = 1; j < xs.length; j++) if (Math.abs(x - xs[j]) < Math.abs(x - xs[best])) best = j;
    return xs.map((_, j) => (j === best ? 1 : 0));
  }
  return softmax(l);
}
function kernelFrame(live, params, panels) {
  const logK = LOG_KERNELS[params[live.kernel]], h = params[live.bandwidth], q = params[live.query];
  const xs = live.x_train, ys = live.y_train;
  const predict = (x) => dot(nwWeights(xs, x, logK, h), ys);
  const byName = Object.fromEntries(panels.map((p) => [p.name, p]));
  const out = {};
  const put = ([panel, series], arr) => { (out[panel] = out[panel] || {})[series] = Float64Array.from(arr); };
  put(live.fit, byName[live.fit[0]].x.map(predict));
  if (live.heat_points) put(live.heat_points, live.heat_x.concat(live.heat_x.map(predict)));  // (2, n_heat)
  const l = nwLogits(xs, q, logK, h), m = Math.max(...l);                  // the query's logits, once
  const w = nwWeights(xs, q, logK, h, l);
  put(live.bars, w);
  put(live.marker, [q, dot(w, ys)]);                                       // (2, 1): x row, y row
  // the window: min(1, K((t - q) / h) / sum_j K(u_j)), the weight a training point at t gets
  const logZ = m === -Infinity ? -Infinity : m + Math.log(l.reduce((a, v) => a + Math.exp(v - m), 0));
  const [s0, s1] = byName[live.window[0]].xlim, n = live.window_u.length;
  const ts = params[live.kernel] === "constant" ? live.window_u.map((_, i) => s0 + ((s1 - s0) * i) / (n - 1))
    : live.window_u.map((u) => q + h * u);
  const wy = ts.map((t) => {
    const lt = logK((t - q) / h);
    if (lt === -Infinity) return 0;
    return logZ === -Infinity ? 1 : Math.exp(Math.min(0, lt - logZ));
  });
  put(live.window, ts.concat(wy));                                         // (2, n_window)
  out[live.weights] = Float64Array.from(live.heat_x.flatMap((x) => nwWeights(xs, x, logK, h)));  // (n_heat * n_train,)
  return out;
}
// Masked self-attention over typed sentences (attnlib.live.LiveMasking): tokens split at
// whitespace, cut or padded to max_tokens; each word's query and key vectors from a hash of
// the word (FNV-1a, then mulberry32: the same numbers as attnlib.live.word_vector).
function wordVector(word, d) {
  let h = 0x811c9dc5;
  for (const b of new TextEncoder().encode(word)) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  const out = [];
  for (let i = 0; i < d; i++) {
    h = (h + 0x6d2b79f5) >>> 0;
    let t = Math.imul(h ^ (h >>> 15), h | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out.push(2 * (((t ^ (t >>> 14)) >>> 0) / 4294967296) - 1);
  }
  return out;
}
const fold = (w) => w.replace(/[A-Z]/g, (c) => c.toLowerCase());  // A-Z only, as attnlib.live.fold
const tokensOf = (text, n) => String(text).split(/[ \t\n\r\f\v]+/).filter(Boolean).slice(0, n);
function maskingFrame(live, params, spec) {
  const n = live.max_tokens, out = {}, labels = {};
  const masked = !live.masking || params[live.masking] === spec.params.find((p) => p.name === live.masking).values[0];
  live.sentences.forEach((name, b) => {
    const toks = tokensOf(params[name], n), l = toks.length;
    const padded = toks.concat(Array(n - l).fill(live.pad));
    const q = padded.map((w) => wordVector("q " + fold(w), live.d));       // (n, d)
    const k = padded.map((w) => wordVector("k " + fold(w), live.d));       // (n, d)
    const w = new Float64Array(n * n);                                     // (n_queries, n_keys)
    for (let i = 0; i < n; i++) {
      const valid = masked ? (i < l ? l : 0) : n;                          // a <pad> query: no valid key
      if (!valid) continue;                                                // an all-zero row
      const row = softmax(k.slice(0, valid).map((kj) => dot(q[i], kj) / Math.sqrt(live.d)));
      row.forEach((v, j) => { w[i * n + j] = v; });
    }
    out[live.weights[b]] = w;
    labels[live.weights[b]] = { rows: padded, cols: padded, length: l };
  });
  return { values: out, labels };
}
// A lines panel's values, flat in its series' order (an xy series: its xs, then its ys).
function flatSeries(ps, bySeries) {
  const parts = ps.series.map((s) => bySeries[s.name]);
  const flat = new Float64Array(parts.reduce((a, p) => a + p.length, 0));
  let at = 0;
  for (const p of parts) { flat.set(p, at); at += p.length; }
  return flat;
}
// One series of a lines panel, from the panel's flat values: [panel name, series name].
function seriesOf(spec, values, [panel, name]) {
  const ps = spec.panels.find((p) => p.name === panel);
  let at = 0;
  for (const s of ps.series) {
    const len = s.xy ? 2 * s.n : s.n;
    if (s.name === name) return values[panel].subarray(at, at + len);
    at += len;
  }
  return EMPTY;
}
const EMPTY = new Float64Array(0);
const LABEL_MAX = 10;

function heatmapPanel(spec, parent, ui) {
  const R = spec.rows, C = spec.cols;
  const cell = Math.max(5, Math.min(40, Math.floor(Math.min(360 / C, 260 / R))));
  const charW = 6.5;
  // Labels may change with each frame (typed words: ctx.labels); ticks show at most LABEL_MAX
  // characters of them, and the layout leaves room for that many.
  let rowLab = spec.row_labels, colLab = spec.col_labels;
  const rowTxt = (i) => (rowLab ? rowLab[i] : String(i));
  const colTxt = (j) => (colLab ? colLab[j] : String(j));
  const cut = (t) => { const c = Array.from(t); return c.length > LABEL_MAX ? c.slice(0, LABEL_MAX - 1).join("") + "\u2026" : t; };
  const maxRow = ui.typedLabels ? LABEL_MAX : Math.max(...Array.from({ length: R }, (_, i) => rowTxt(i).length));
  const maxCol = ui.typedLabels ? LABEL_MAX : Math.max(...Array.from({ length: C }, (_, j) => colTxt(j).length));
  const rotate = maxCol * charW > cell;
  // label every cell when there is room (about 12 px per label), else every k-th
  const stepR = Math.max(1, rowLab ? Math.ceil(12 / cell) : Math.ceil(R / 10));
  const stepC = Math.max(1, colLab ? Math.ceil(12 / cell) : Math.ceil(C / 12));
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
  const gid = `attn-grad-${++uid}`;
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
  const name = (i, j) => `${yl} ${i}${rowLab ? ` (${rowLab[i]})` : ""}, ${xl} ${j}${colLab ? ` (${colLab[j]})` : ""}: `;
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
    if (ctx && ctx.labels) {  // the words of a typed sentence
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

function linesPanel(spec, parent, ui) {
  const [x0, x1] = spec.xlim, [y0] = spec.ylim;
  let y1 = spec.ylim[1];  // the top moves between spec.ytops, when given
  let pw = 300, ph = spec.equal_aspect ? 260 : 200;
  if (spec.equal_aspect) {
    const k = Math.min(pw / (x1 - x0), ph / (y1 - y0));
    pw = k * (x1 - x0); ph = k * (y1 - y0);
  }
  // the legend names every series, and the point to drag (its own entry, first)
  const all = (spec.handle ? [{ name: `${spec.handle.label} (drag it)`, style: "handle", color: spec.handle.color }] : [])
    .concat(spec.fixed, spec.series);
  const maxName = Math.max(...all.map((s) => s.name.length));
  const left = 52, top = spec.title ? 24 : 10, legW = 30 + maxName * 6.5;
  const width = left + pw + 10, height = top + ph + 42;
  const X = (x) => ((x - x0) / (x1 - x0)) * pw, Y = (y) => ph - ((y - y0) / (y1 - y0)) * ph;
  const wrap = html("div", "attn-panel", parent);  // the plot, then its legend (below when narrow)
  // a plot with a point to drag is a group holding that control; otherwise a picture
  const svg = el("svg", { class: "attn-lines", "data-panel": spec.name, width, height,
    viewBox: `0 0 ${width} ${height}`, role: spec.handle ? "group" : "img",
    "aria-label": `${spec.title || spec.name}: ${spec.ylabel} against ${spec.xlabel}` }, wrap);
  if (spec.title) el("text", { class: "attn-title", x: left + pw / 2, y: 15, "text-anchor": "middle" }, svg, spec.title);
  const g = el("g", { transform: `translate(${left},${top})` }, svg);
  const cid = `attn-clip-${++uid}`;
  el("rect", { x: 0, y: 0, width: pw, height: ph }, el("clipPath", { id: cid }, el("defs", {}, svg)));
  for (const t of spec.xticks) {
    el("line", { class: "attn-grid", x1: X(t), x2: X(t), y1: 0, y2: ph }, g);
    el("text", { class: "attn-tick", x: X(t), y: ph + 13, "text-anchor": "middle" }, g, fmt(t));
  }
  const yg = el("g", {}, g);
  const yTicks = (ticks) => {
    yg.textContent = "";
    for (const t of ticks) {
      el("line", { class: "attn-grid", x1: 0, x2: pw, y1: Y(t), y2: Y(t) }, yg);
      el("text", { class: "attn-tick", x: -4, y: Y(t), "text-anchor": "end", "dominant-baseline": "central" }, yg, fmt(t));
    }
  };
  yTicks(spec.yticks);
  el("rect", { class: "attn-frame", x: 0, y: 0, width: pw, height: ph, fill: "none" }, g);
  el("text", { class: "attn-axis-label", x: pw / 2, y: ph + 32, "text-anchor": "middle" }, g, spec.xlabel);
  el("text", { class: "attn-axis-label", x: 0, y: 0, "text-anchor": "middle",
    transform: `translate(${-40},${ph / 2}) rotate(-90)` }, g, spec.ylabel);
  const plot = el("g", { "clip-path": `url(#${cid})` }, g);
  const spokes = spec.spokes ? el("g", { class: "attn-spokes" }, g) : null, dots = el("g", {}, g);
  const pathD = (xs, ys) => {
    let d = "";
    for (let i = 0; i < xs.length; i++) d += (i ? "L" : "M") + X(xs[i]).toFixed(1) + " " + Y(ys[i]).toFixed(1);
    return d;
  };
  const barsD = (xs, ys) => {  // one vertical bar from 0 to each y
    let d = "";
    const y0 = Y(Math.max(spec.ylim[0], 0)).toFixed(1);
    for (let i = 0; i < xs.length; i++) d += "M" + X(xs[i]).toFixed(1) + " " + y0 + "V" + Y(ys[i]).toFixed(1);
    return d;
  };
  const draw = (s, cls) => {
    if (s.style === "bars") {
      return el("path", { class: cls, "data-series": s.name, fill: "none", stroke: s.color,
        "stroke-width": s.width }, plot);
    }
    if (s.style === "line") {
      return el("path", { class: cls, "data-series": s.name, fill: "none", stroke: s.color,
        "stroke-width": s.width, "stroke-dasharray": s.dash }, plot);
    }
    return el("g", { class: cls, "data-series": s.name, fill: s.color }, dots);
  };
  const points = (gEl, xs, ys, r) => {
    while (gEl.childNodes.length < xs.length) el("circle", { r }, gEl);
    for (let i = 0; i < xs.length; i++) {
      const c = gEl.childNodes[i];
      c.setAttribute("cx", X(xs[i]).toFixed(1));
      c.setAttribute("cy", Y(ys[i]).toFixed(1));
    }
  };
  const fixedEls = [];
  for (const f of spec.fixed) {
    const e = draw(f, "attn-series attn-fixed");
    fixedEls.push(e);
    if (f.style === "line") e.setAttribute("d", pathD(f.x, f.y));
    else points(e, f.x, f.y, f.labels ? 4 : 2.5);
    (f.labels || []).forEach((t, i) => el("text", { class: "attn-point-label", x: (X(f.x[i]) + 6).toFixed(1),
      y: (Y(f.y[i]) - 6).toFixed(1) }, dots, t));
  }
  const spokeLines = spec.spokes ? (() => {
    const to = spec.fixed.find((f) => f.name === spec.spokes.to);
    return to.x.map((x, j) => el("line", { x2: X(x).toFixed(1), y2: Y(to.y[j]).toFixed(1),
      stroke: spec.handle.color, "stroke-linecap": "round" }, spokes));
  })() : [];
  const handle = spec.handle ? handlePanel(spec, svg, g, ui, X, Y, pw, ph) : null;
  // Linked views: a fixed series of labelled points (the keys, the values) answers to the
  // heatmap's columns: reading column j rings point j here, and pointing at point j reads
  // column j there.
  const linked = spec.fixed.map((f, i) => [f, fixedEls[i]])
    .filter(([f]) => f.style === "points" && f.labels);
  linked.forEach(([f, gEl]) => {
    gEl.setAttribute("data-linked", "true");
    gEl.addEventListener("mouseover", (ev) => {
      const j = Array.prototype.indexOf.call(gEl.childNodes, ev.target);
      if (j >= 0) ui.column(j, spec.name, f.x.length);
    });
  });
  ui.onColumn.push((j, from, n) => linked.forEach(([f, gEl]) => {
    if (f.x.length !== n) return;
    gEl.childNodes.forEach((c, i) => c.setAttribute("class", i === j ? "attn-linked" : ""));
  }));
  const live = spec.series.map((s) => draw(s, "attn-series"));
  // A series of points standing for the heatmaps' rows (their queries): reading row i rings
  // point i, pointing at point i reads row i.
  spec.series.forEach((s, k) => {
    if (!s.linked_rows) return;
    const gEl = live[k];
    gEl.setAttribute("data-linked", "rows");
    gEl.addEventListener("mouseover", (ev) => {
      const i = Array.prototype.indexOf.call(gEl.childNodes, ev.target);
      if (i >= 0) ui.row(i, spec.name, s.n);
    });
    ui.onRow.push((i, from, n) => {
      if (n === s.n) gEl.childNodes.forEach((c, r) => c.setAttribute("class", r === i ? "attn-linked" : ""));
    });
  });
  // legend
  const legH = top + all.length * 16 + 8;  // entries start level with the plot's top
  const legend = el("svg", { class: "attn-legend-svg", "data-panel": spec.name, width: legW + 4, height: legH,
    viewBox: `0 0 ${legW + 4} ${legH}`, role: "img",
    "aria-label": `legend: ${all.map((s) => s.name).join("; ")}` }, wrap);
  const lg = el("g", { class: "attn-legend", transform: `translate(2,${top + 4})` }, legend);
  all.forEach((s, k) => {
    const y = k * 16 + 6;
    if (s.style === "line") {
      el("line", { x1: 0, x2: 20, y1: y, y2: y, stroke: s.color, "stroke-width": s.width,
        "stroke-dasharray": s.dash }, lg);
    } else if (s.style === "bars") {
      el("line", { x1: 10, x2: 10, y1: y - 6, y2: y + 6, stroke: s.color, "stroke-width": s.width }, lg);
    } else el("circle", { cx: 10, cy: y, r: s.style === "handle" ? 6 : 3.5, fill: s.color }, lg);
    el("text", { class: "attn-tick", x: 25, y, "dominant-baseline": "central" }, lg, s.name);
  });
  // after the legend, so the legend stays beside the plot and the switch goes below both
  if (spec.spokes) {  // the weight lines can be switched off
    const box = html("label", "attn-toggle", wrap, "");
    const cb = html("input", null, box);
    cb.type = "checkbox";
    cb.setAttribute("checked", "");
    cb.setAttribute("data-spokes", spec.name);
    box.appendChild(box.ownerDocument.createTextNode(` lines from the ${spec.handle.label} to the ${spec.spokes.to}`));
    cb.addEventListener("change", () => spokes.setAttribute("visibility", cb.checked ? "visible" : "hidden"));
  }
  return (values, ctx) => {
    if (handle) {
      const [hx, hy] = handle.paint(ctx.params);
      if (spokeLines.length) {
        const w = ctx.values[spec.spokes.weights];
        spokeLines.forEach((ln, j) => {
          ln.setAttribute("x1", hx); ln.setAttribute("y1", hy);
          ln.setAttribute("stroke-opacity", Math.min(1, w[j]).toFixed(3));
          ln.setAttribute("stroke-width", (0.5 + 6 * w[j]).toFixed(2));
        });
      }
    }
    if (spec.ytops) {  // the smallest top that holds this frame's y values
      let top = 0, at = 0;
      spec.series.forEach((s) => {
        const ys = s.xy ? values.subarray(at + s.n, at + 2 * s.n) : values.subarray(at, at + s.n);
        for (const v of ys) if (v > top) top = v;
        at += s.xy ? 2 * s.n : s.n;
      });
      const pick = spec.ytops.find((t) => t.top >= top - 1e-9) || spec.ytops[spec.ytops.length - 1];
      if (pick.top !== y1) { y1 = pick.top; yTicks(pick.ticks); }
      svg.setAttribute("data-ytop", String(y1));
    }
    let at = 0;
    spec.series.forEach((s, k) => {
      let xs, ys;
      if (s.xy) { xs = values.subarray(at, at + s.n); ys = values.subarray(at + s.n, at + 2 * s.n); at += 2 * s.n; }
      else { xs = spec.x; ys = values.subarray(at, at + s.n); at += s.n; }
      if (s.style === "line") live[k].setAttribute("d", pathD(xs, ys));
      else if (s.style === "bars") live[k].setAttribute("d", barsD(xs, ys));
      else points(live[k], xs, ys, s.linked_rows ? 3 : s.n === 1 ? 6 : 4.5);  // a lone point is a marker
    });
  };
}

// The point the reader drags: bound to two sliders (spec.handle.x, .y), or to one (y null: a
// position along x, drawn on the axis with a line across the plot); a drag or a tap on the
// plot snaps to the nearest grid values, the arrow keys move it one grid step.
function handlePanel(spec, svg, g, ui, X, Y, pw, ph) {
  const h = spec.handle, [x0, x1] = spec.xlim, [y0, y1] = spec.ylim, oneD = h.y === null;
  const area = el("rect", { class: "attn-drag-area", x: 0, y: 0, width: pw, height: ph, fill: "transparent" }, g);
  area.parentNode.insertBefore(area, area.parentNode.firstChild);  // under the grid and the points
  const guide = oneD ? el("line", { class: "attn-handle-guide", y1: 0, y2: ph, stroke: h.color,
    "stroke-dasharray": "4 3", "stroke-width": 1.5 }, g) : null;
  const knob = el("g", { class: "attn-handle", tabindex: "0", role: "slider", "data-handle": h.label,
    "aria-label": `${h.label}: drag it, tap the plot, or use the arrow keys`,
    "aria-valuemin": 0, "aria-valuemax": ui.values(h.x).length - 1 }, g);
  el("circle", { class: "attn-handle-hit", r: 22, fill: "transparent" }, knob);  // a 44 px target
  el("circle", { class: "attn-handle-dot", r: 8, fill: h.color }, knob);
  const nearest = (vals, v) => {
    let best = 0;
    for (let i = 1; i < vals.length; i++) if (Math.abs(vals[i] - v) < Math.abs(vals[best] - v)) best = i;
    return best;
  };
  const plotPoint = (ev) => {  // the pointer in the plot's own units (any CSS scale), or null
    const m = g.getScreenCTM && g.getScreenCTM();
    return m ? new DOMPoint(ev.clientX, ev.clientY).matrixTransform(m.inverse()) : null;
  };
  const moveTo = (ev) => {
    const p = plotPoint(ev);
    if (!p) return;
    const x = x0 + (p.x / pw) * (x1 - x0), y = y0 + ((ph - p.y) / ph) * (y1 - y0);
    ui.move(oneD ? { [h.x]: nearest(ui.values(h.x), x) }
      : { [h.x]: nearest(ui.values(h.x), x), [h.y]: nearest(ui.values(h.y), y) });
  };
  let dragging = null;
  // A press anywhere on the plot (on a key, a label or empty space) puts the point there and
  // starts a drag; the axes and titles around it do nothing.
  svg.addEventListener("pointerdown", (ev) => {
    const p = plotPoint(ev), onKnob = knob.contains(ev.target);
    if ((ev.button !== undefined && ev.button !== 0) || !p) return;
    if (!onKnob && (p.x < 0 || p.x > pw || p.y < 0 || p.y > ph)) return;
    dragging = ev.pointerId;
    if (svg.setPointerCapture) svg.setPointerCapture(ev.pointerId);
    if (!onKnob) moveTo(ev);
    if (onKnob || ev.pointerType !== "touch") ev.preventDefault();
  });
  // A finger on the dot drags it and does not scroll the page (touch-action on an SVG child is
  // ignored by Chromium, so the touch's default, panning, is cancelled here instead).
  knob.addEventListener("touchstart", (ev) => ev.preventDefault(), { passive: false });
  svg.addEventListener("pointermove", (ev) => { if (dragging === ev.pointerId) moveTo(ev); });
  const stop = (ev) => { if (dragging === ev.pointerId) dragging = null; };
  svg.addEventListener("pointerup", stop);
  svg.addEventListener("pointercancel", stop);
  knob.addEventListener("keydown", (ev) => {
    const n = ui.values(h.x).length;
    const steps = (oneD  // along one axis, as a slider: up and right increase
      ? { ArrowLeft: [-1], ArrowDown: [-1], ArrowRight: [1], ArrowUp: [1], PageUp: [10], PageDown: [-10],
        Home: [-n], End: [n] }
      : { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1],
        PageUp: [0, 10], PageDown: [0, -10] })[ev.key];
    if (!steps) return;
    ev.preventDefault();
    const clamp = (name, i) => Math.max(0, Math.min(ui.values(name).length - 1, i));
    ui.move(oneD ? { [h.x]: clamp(h.x, ui.index(h.x) + steps[0]) }
      : { [h.x]: clamp(h.x, ui.index(h.x) + steps[0]), [h.y]: clamp(h.y, ui.index(h.y) + steps[1]) });
  });
  knob.setAttribute("data-lm-suppress-shortcuts", "true");
  return {
    paint: (params) => {
      const hx = X(params[h.x]).toFixed(1), hy = oneD ? ph.toFixed(1) : Y(params[h.y]).toFixed(1);
      knob.setAttribute("transform", `translate(${hx},${hy})`);
      knob.setAttribute("aria-valuenow", ui.index(h.x));
      knob.setAttribute("aria-valuetext", `${h.label} at x = ${fmt(params[h.x])}` +
        (oneD ? "" : `, y = ${fmt(params[h.y])}`));
      if (guide) { guide.setAttribute("x1", hx); guide.setAttribute("x2", hx); }
      return [hx, hy];
    },
  };
}

function render({ model, el: host }) {
  const root = html("div", "attn-explorer", host);
  let cleanup = [];
  const build = () => {
    root.textContent = "";
    const spec = model.get("spec"), data = model.get("data"), name = model.get("name");
    if (!spec || !spec.params) return;
    root.setAttribute("data-explorer", name);
    if (spec.title) html("div", "attn-caption", root, spec.title);
    const controls = html("div", "attn-controls", root);
    const panelsDiv = html("div", "attn-panels", root);
    const live = html("p", "attn-live", root);
    live.setAttribute("aria-live", "polite");
    const idx = (model.get("indices") || []).slice();
    const pos = (name) => spec.params.findIndex((p) => p.name === name);
    const ui = {
      typedLabels: !!(spec.live && spec.live.kind === "masking"),
      heatmaps: [],
      onColumn: [],
      column: (j, from, n) => ui.onColumn.forEach((f) => f(j, from, n)),
      onRow: [],
      row: (i, from, n) => ui.onRow.forEach((f) => f(i, from, n)),
      values: (name) => spec.params[pos(name)].values,
      index: (name) => idx[pos(name)],
      // several controls at once (a dragged point moves two sliders), one redraw
      move: (changes) => {
        let any = false;
        for (const [name, i] of Object.entries(changes)) {
          const k = pos(name);
          if (k < 0 || !(i >= 0 && i < spec.params[k].values.length) || idx[k] === i) continue;
          idx[k] = i; inputs[k].value = String(i); any = true;
        }
        if (!any) return;
        redraw();
        model.set("indices", idx.slice());
        model.save_changes();
      },
    };
    const initial = idx.slice();  // what Reset returns to: the positions the explorer opened at
    // Text fields (a sentence the reader types, or picks from the field's suggestions).
    const startTexts = Object.assign({}, model.get("texts") || {});
    const syncTexts = () => {
      model.set("texts", Object.fromEntries(texts.map(({ name, input }) => [name, input.value])));
      model.save_changes();
    };
    const texts = (spec.texts || []).map((t) => {
      const label = html("label", "attn-text-label", controls, t.label + " ");
      const input = html("input", "attn-text", label);
      input.setAttribute("type", "text");
      input.setAttribute("data-param", t.name);
      input.setAttribute("maxlength", String(t.max_length));
      input.setAttribute("autocomplete", "off");
      input.setAttribute("spellcheck", "false");
      input.value = startTexts[t.name] === undefined ? "" : startTexts[t.name];
      if (t.suggestions.length) {  // typing or picking: the browser offers these as the reader types
        const id = `attn-list-${++uid}`, list = html("datalist", null, label);
        list.setAttribute("id", id);
        t.suggestions.forEach((x) => html("option", null, list).setAttribute("value", x));
        input.setAttribute("list", id);
      }
      input.addEventListener("input", () => { stopPlaying(); redraw(); syncTexts(); });
      input.setAttribute("data-lm-suppress-shortcuts", "true");
      return { name: t.name, input };
    });
    const inputs = [], outputs = [];
    // Play / pause over a slider's values (Slider(play=True)): one step per tick at the chosen
    // speed, stopping at the last value. With prefers-reduced-motion the button steps once
    // per press instead ("Next step"), and nothing moves on its own.
    const win = host.ownerDocument && host.ownerDocument.defaultView;
    const reducedMotion = () => !!(win && win.matchMedia && win.matchMedia("(prefers-reduced-motion: reduce)").matches);
    let timer = null, playing = null;
    const stopPlaying = () => {
      if (timer !== null) { clearTimeout(timer); timer = null; }
      if (playing) { playing.textContent = "Play"; playing = null; }
    };
    cleanup.push(stopPlaying);
    const playButton = (p, k) => {
      const box = html("span", "attn-play", controls);
      const btn = html("button", "attn-play-button", box, reducedMotion() ? "Next step" : "Play");
      btn.type = "button";
      btn.setAttribute("data-param", p.name);
      const speed = html("select", "attn-speed", box);
      speed.setAttribute("aria-label", `playback speed of ${p.label}`);
      [["slow", 700], ["normal", 300], ["fast", 100]].forEach(([t, ms]) => { html("option", null, speed, t).value = String(ms); });
      speed.value = "300";
      if (reducedMotion()) speed.hidden = true;
      const last = p.values.length - 1;
      const tick = () => {
        timer = null;
        if (idx[k] >= last) return stopPlaying();
        ui.move({ [p.name]: idx[k] + 1 });
        if (idx[k] >= last) stopPlaying(); else timer = setTimeout(tick, +speed.value);
      };
      btn.addEventListener("click", () => {
        if (reducedMotion()) { ui.move({ [p.name]: idx[k] >= last ? 0 : idx[k] + 1 }); return; }
        if (playing === btn) { stopPlaying(); return; }
        stopPlaying();
        if (idx[k] >= last) ui.move({ [p.name]: 0 });  // from the start again
        playing = btn; btn.textContent = "Pause";  // its name says what a press does next
        timer = setTimeout(tick, +speed.value);
      });
    };
    spec.params.forEach((p, k) => {
      const label = html("label", null, controls, p.label + " ");
      if (p.kind === "choice") {
        const sel = html("select", "attn-choice", label);
        sel.setAttribute("data-param", p.name);
        p.labels.forEach((t, i) => { const o = html("option", null, sel, t); o.value = String(i); });
        sel.value = String(idx[k]);
        sel.addEventListener("change", () => onMove(k, +sel.value));
        inputs.push(sel); outputs.push(null);
      } else {
        const inp = html("input", "attn-slider", label);
        Object.assign(inp, { type: "range", min: "0", max: String(p.values.length - 1), step: "1" });
        inp.setAttribute("data-param", p.name);
        inp.value = String(idx[k]);
        const out = html("output", "attn-value", label);
        out.setAttribute("data-param", p.name);
        inp.setAttribute("aria-label", p.label);
        inp.addEventListener("input", () => { stopPlaying(); onMove(k, +inp.value); });
        inputs.push(inp); outputs.push(out);
        if (p.play) playButton(p, k);
      }
      // JupyterLab binds the arrow keys to notebook commands (move between cells, collapse
      // headings) for any focused element that is not a text field; let a focused slider or
      // choice keep them. No effect outside JupyterLab.
      inputs[k].setAttribute("data-lm-suppress-shortcuts", "true");
    });
    const reset = html("button", "attn-reset", controls, "Reset");
    reset.type = "button";
    reset.setAttribute("aria-label", "Reset: every control back to where it started");
    reset.addEventListener("click", () => {
      stopPlaying();
      let typed = false;
      texts.forEach(({ name, input }) => {
        const start = startTexts[name] === undefined ? "" : startTexts[name];
        if (input.value !== start) { input.value = start; typed = true; }
      });
      ui.move(Object.fromEntries(spec.params.map((p, k) => [p.name, initial[k]])));
      if (typed) { redraw(); syncTexts(); }
    });
    const painters = spec.panels.map((ps) => ({
      name: ps.name,
      frame: spec.live ? null : decode(data[ps.name]),
      paint: ps.kind === "heatmap" ? heatmapPanel(ps, panelsDiv, ui) : linesPanel(ps, panelsDiv, ui),
    }));
    // One sentence that says what changed, for screen readers (and everyone).
    const sentence = (params, values, labels) => {
      const where = spec.params.map((p, k) => `${p.label} ${p.labels[idx[k]]}`).join(", ");
      const lv = spec.live;
      if (lv && lv.kind === "masking") {  // the valid lengths, and how much weight the padding gets
        const n = lv.max_tokens, lens = lv.weights.map((w) => labels[w].length);
        let pad = 0;
        lv.weights.forEach((w, b) => {
          for (let i = 0; i < n; i++) {
            let sum = 0;
            for (let j = lens[b]; j < n; j++) sum += values[w][i * n + j];
            pad = Math.max(pad, sum);
          }
        });
        return `${where}: valid lengths ${lens.join(", ")} of ${n} tokens; the <pad> keys get ` +
          (pad === 0 ? "no weight (exactly 0) in every row." : `up to ${fmt(Math.round(pad * 100) / 100)} of a row's weight.`);
      }
      if (lv && lv.kind === "kernel_regression") {  // what happens at the dragged query
        const w = seriesOf(spec, values, lv.bars), fit = seriesOf(spec, values, lv.marker)[1];  // (n_train,), ŷ
        let best = 0;
        for (let j = 1; j < lv.x_train.length; j++) if (w[j] > w[best]) best = j;
        const r2 = (v) => fmt(Math.round(v * 100) / 100);
        if (Math.max(...w) - Math.min(...w) < 1e-9) {
          return `${where}: the fit at the query is ${r2(fit)}; every training input has the same weight, ${fmt(Math.round(w[0] * 1e4) / 1e4)}.`;
        }
        return `${where}: the fit at the query is ${r2(fit)}; the largest ` +
          `weight, ${fmt(Math.round(w[best] * 100) / 100)}, is on the training input at x = ${fmt(Math.round(lv.x_train[best] * 100) / 100)}.`;
      }
      const h = ui.heatmaps[0];
      if (!h || !h.values()) return `${where}.`;
      const v = h.values(), C = h.spec.cols;
      let best = 0;
      for (let j = 1; j < C; j++) if (v[j] > v[best]) best = j;
      const rowName = one(h.spec.ylabel), colName = one(h.spec.xlabel);
      return `${where}: ${rowName} ${h.rowTxt(0)} puts ${fmt(Math.round(v[best] * 100) / 100)} ` +
        `of its weight on ${colName} ${h.colTxt(best)}.`;
    };
    const redraw = () => {
      let f = 0;
      const params = {};
      texts.forEach(({ name, input }) => { params[name] = input.value; });
      spec.params.forEach((p, k) => {
        f += idx[k] * spec.strides[k];
        params[p.name] = p.values[idx[k]];
        if (outputs[k]) {
          outputs[k].textContent = p.labels[idx[k]];
          inputs[k].setAttribute("aria-valuetext", p.labels[idx[k]]);
        }
      });
      let computed = null, labels = {};
      if (spec.live && spec.live.kind === "masking") ({ values: computed, labels } = maskingFrame(spec.live, params, spec));
      else if (spec.live) {
        computed = spec.live.kind === "kernel_regression" ? kernelFrame(spec.live, params, spec.panels)
          : liveFrame(spec.live, params);
      }
      const values = {};
      spec.panels.forEach((ps, k) => {
        const c = computed && computed[ps.name];
        values[ps.name] = !computed ? painters[k].frame(f) : !c ? EMPTY : c instanceof Float64Array ? c : flatSeries(ps, c);
      });
      for (const p of painters) p.paint(values[p.name], { params, values, labels: labels[p.name] });
      live.textContent = sentence(params, values, labels);
      root.setAttribute("data-params", JSON.stringify(params));
      root.setAttribute("data-frame", String(f));
      root.setAttribute("data-ready", "true");
    };
    const onMove = (k, i) => ui.move({ [spec.params[k].name]: i });
    const onIndices = () => {
      const next = model.get("indices") || [];
      let changed = false;
      next.forEach((i, k) => {
        if (k < idx.length && idx[k] !== i && i >= 0 && i < spec.params[k].values.length) {
          idx[k] = i; inputs[k].value = String(i); changed = true;
        }
      });
      if (changed) redraw();
    };
    model.on("change:indices", onIndices);
    cleanup.push(() => model.off("change:indices", onIndices));
    const onTexts = () => {
      const next = model.get("texts") || {};
      let changed = false;
      texts.forEach(({ name, input }) => {
        if (typeof next[name] === "string" && next[name] !== input.value) { input.value = next[name]; changed = true; }
      });
      if (changed) redraw();
    };
    model.on("change:texts", onTexts);
    cleanup.push(() => model.off("change:texts", onTexts));
    // Repaint with the other colour scale when the reader switches the theme.
    const doc = root.ownerDocument, view = doc && doc.defaultView;
    if (view && typeof view.MutationObserver === "function") {
      const obs = new view.MutationObserver(() => redraw());
      obs.observe(doc.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
      if (doc.body) obs.observe(doc.body, { attributes: true, attributeFilter: ["data-jp-theme-light"] });
      cleanup.push(() => obs.disconnect());
    }
    redraw();
  };
  const rebuild = () => { cleanup.forEach((f) => f()); cleanup = []; build(); };
  build();
  model.on("change:spec", rebuild);
  model.on("change:data", rebuild);
  return () => {
    cleanup.forEach((f) => f());
    model.off("change:spec", rebuild);
    model.off("change:data", rebuild);
  };
}

export default { render };
