// render({model, el}): builds an explorer's controls (sliders, choices, text fields, Play,
// Reset, things to try) and panels from model.get("spec"), and redraws every panel for the
// current controls: a precomputed explorer picks its frame from model.get("data"); a live one
// computes it (primitives.js). Kept in sync with the kernel through model.set / save_changes.
// Each function below draws (or computes) one thing; drawExplorer calls them in order.

import { html, nextId, one } from "./dom.js";
import { captionPanel } from "./caption.js";
import { EMPTY, decode, flatSeries, seriesOf, texts as storedTexts } from "./frames.js";
import { PANEL_W, colorbar, heatmapPanel } from "./heatmap.js";
import { linesPanel } from "./lines.js";
import { kernelFrame, liveFrame, maskingFrame } from "./primitives.js";
import { captionWords, controlWords, kernelWords, rowWords, shareWords } from "./spoken.js";

const SPEEDS = [["slow", 16000], ["normal", 7000], ["fast", 3000]];  // ms for a whole run

export function render({ model, el: host }) {
  const root = html("div", "attn-explorer", host);
  let cleanup = [];
  const build = () => {
    root.textContent = "";
    const spec = model.get("spec");
    if (!spec || !spec.params) return;
    cleanup = drawExplorer(model, host, root, spec);
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

// One explorer, drawn in order: its title, things to try, controls, panels, text fields, the
// notice, colour bars; then kept in step with the model. Every part is a function below that
// draws one thing; they share `x`, the explorer's state (spec, control positions, the elements
// drawn so far). Returns the explorer's clean-up functions.
function drawExplorer(model, host, root, spec) {
  const x = {
    model, root, spec, data: model.get("data"),
    doc: root.ownerDocument,
    win: host.ownerDocument && host.ownerDocument.defaultView,
    idx: (model.get("indices") || []).slice(),
    inputs: [], outputs: [], texts: [], painters: [], bars: [],
    presets: spec.presets || [], presetButtons: [], chosen: -1, notice: null,
    timer: null, playing: null, cleanup: [],
  };
  root.setAttribute("data-explorer", model.get("name"));
  x.initial = x.idx.slice();  // what Reset returns to: the positions the explorer opened at
  x.startTexts = Object.assign({}, model.get("texts") || {});
  x.pos = (name) => spec.params.findIndex((p) => p.name === name);
  x.redraw = () => redraw(x);
  drawHead(x);
  x.ui = makeUi(x);
  x.cleanup.push(() => stopPlaying(x));
  spec.params.forEach((p, k) => drawControl(x, p, k));
  drawPresets(x);
  drawReset(x);
  x.painters = spec.panels.map((ps) => drawPanel(x, ps));
  x.caption = spec.panels.find((ps) => ps.kind === "caption");
  // With a caption panel the sentence reads the caption out, which is on screen already: it
  // is kept for screen readers only (explorer.css), not shown twice.
  if (x.caption) x.live.classList.add("attn-live-spoken");
  x.texts = (spec.texts || []).map((t) => drawTextField(x, t));
  drawNotice(x);
  x.bars = drawColorbars(x);
  watch(x);
  x.redraw();
  return x.cleanup;
}

// The title (with Reset beside it when there is nothing to try: Reset is rarely needed, and
// does not take a place in the controls, which stick to the top of a phone's screen), the
// controls' row, the panels' row, and the sentence that says what changed.
function drawHead(x) {
  x.head = html("div", "attn-head", x.root);
  if (x.spec.title) html("div", "attn-caption", x.head, x.spec.title);
  x.controls = html("div", "attn-controls", x.root);
  x.panelsDiv = html("div", "attn-panels", x.root);
  x.live = html("p", "attn-live", x.root);
  x.live.setAttribute("aria-live", "polite");
}

// What the panels share with the controls: the current positions, and moving several
// controls at once (a dragged point moves two sliders) with one redraw.
function makeUi(x) {
  const { spec } = x;
  const nMaps = spec.panels.filter((ps) => ps.kind === "heatmap").length;
  const masking = !!(spec.live && spec.live.kind === "masking");
  const ui = {
    typedLabels: masking,
    // the typed sentences' maps: a weight of exactly 0 is a masked key (saved states from
    // before Heatmap(masked_zeros=True) say so by their kind)
    marksZeros: () => masking,
    controls: x.controls,
    fieldAbove: (panel) => masking && spec.live.weights.includes(panel),
    // three maps or more share one row of the book's column (each gets a third of it)
    panelWidth: (ps) => (ps.kind === "heatmap" && nMaps >= 3 ? 214 : PANEL_W),
    heatmaps: [],
    onColumn: [],
    column: (j, from, n) => ui.onColumn.forEach((f) => f(j, from, n)),
    onRow: [],
    row: (i, from, n) => ui.onRow.forEach((f) => f(i, from, n)),
    read: () => speak(x),  // a map's cell was read: the sentence follows its row
    values: (name) => spec.params[x.pos(name)].values,
    index: (name) => x.idx[x.pos(name)],
    grab: () => stopPlaying(x),  // the reader takes a dragged point: a playback stops
    move: (changes) => moveControls(x, changes),
  };
  return ui;
}

// Moves controls to new positions ({name: index}); one redraw, one sync with the kernel.
// Returns whether anything moved.
function moveControls(x, changes) {
  let any = false;
  for (const [name, i] of Object.entries(changes)) {
    const k = x.pos(name);
    if (k < 0 || !(i >= 0 && i < x.spec.params[k].values.length) || x.idx[k] === i) continue;
    x.idx[k] = i; x.inputs[k].value = String(i); any = true;
  }
  if (!any) return false;
  x.redraw();
  x.model.set("indices", x.idx.slice());
  x.model.save_changes();
  return true;
}

const reducedMotion = (x) => !!(x.win && x.win.matchMedia && x.win.matchMedia("(prefers-reduced-motion: reduce)").matches);
// Escape pauses a playback, wherever the focus is.
function onEscape(x) {
  if (!x.escape) x.escape = (ev) => { if (ev.key === "Escape" || ev.key === "Esc") stopPlaying(x); };
  return x.escape;
}
function stopPlaying(x) {
  if (x.timer !== null) { clearTimeout(x.timer); x.timer = null; }
  if (x.playing) { x.playing.textContent = "Play"; x.playing = null; }
  if (x.doc) x.doc.removeEventListener("keydown", onEscape(x));
}

// Play / pause over a slider's values (Slider(play=True)): one step per tick at the chosen
// speed, stopping at the last value. With prefers-reduced-motion the button steps once per
// press instead ("Next step"), and nothing moves on its own.
function drawPlay(x, p, k) {
  const box = html("span", "attn-play", x.controls);
  const btn = html("button", "attn-play-button", box, reducedMotion(x) ? "Next step" : "Play");
  btn.type = "button";
  btn.setAttribute("data-param", p.name);
  // the speed menu, named in words on screen ("speed"): its <label> is its accessible name too
  const named = html("label", "attn-speed-label", box, "speed ");
  const speed = html("select", "attn-speed", named);
  speed.title = `playback speed of ${p.label}`;
  // a speed is the time a whole run takes (normal: 100 steps in 7 s), each step between
  // 40 and 700 ms
  SPEEDS.forEach(([t, ms]) => { html("option", null, speed, t).value = String(ms); });
  speed.value = String(SPEEDS[1][1]);
  if (reducedMotion(x)) { speed.hidden = true; named.hidden = true; }
  const last = p.values.length - 1;
  const delay = () => Math.max(40, Math.min(700, +speed.value / Math.max(1, last)));
  const tick = () => {
    x.timer = null;
    if (x.idx[k] >= last) return stopPlaying(x);
    x.ui.move({ [p.name]: x.idx[k] + 1 });
    if (x.idx[k] >= last) stopPlaying(x); else x.timer = setTimeout(tick, delay());
  };
  btn.addEventListener("click", () => {
    if (reducedMotion(x)) { x.ui.move({ [p.name]: x.idx[k] >= last ? 0 : x.idx[k] + 1 }); return; }
    if (x.playing === btn) { stopPlaying(x); return; }
    stopPlaying(x);
    if (x.idx[k] >= last) x.ui.move({ [p.name]: 0 });  // from the start again
    x.playing = btn; btn.textContent = "Pause";  // its name says what a press does next
    if (x.doc) x.doc.addEventListener("keydown", onEscape(x));
    x.timer = setTimeout(tick, delay());
  });
}

// One control: a menu (Choice) or a slider with its value (and its Play button). A slider
// moved by a dragged point (Handle) stays in the page for scripts and the kernel's sync but is
// not shown: the point is the control (mouse, touch, and the arrow keys with its value text).
function drawControl(x, p, k) {
  const label = html("label", p.kind === "choice" ? "attn-choice-label" : "attn-slider-label", x.controls, p.label + " ");
  if (p.kind === "choice") {
    const sel = html("select", "attn-choice", label);
    sel.setAttribute("data-param", p.name);
    p.labels.forEach((t, i) => { const o = html("option", null, sel, t); o.value = String(i); });
    sel.value = String(x.idx[k]);
    sel.addEventListener("change", () => x.ui.move({ [p.name]: +sel.value }));
    x.inputs.push(sel); x.outputs.push(null);
  } else {
    const inp = html("input", "attn-slider", label);
    Object.assign(inp, { type: "range", min: "0", max: String(p.values.length - 1), step: "1" });
    inp.setAttribute("data-param", p.name);
    inp.value = String(x.idx[k]);
    const out = html("output", "attn-value", label);
    out.setAttribute("data-param", p.name);
    inp.setAttribute("aria-label", p.label);
    inp.addEventListener("input", () => { stopPlaying(x); x.ui.move({ [p.name]: +inp.value }); });
    x.inputs.push(inp); x.outputs.push(out);
    const handled = x.spec.panels.some((ps) => ps.handle && (ps.handle.x === p.name || ps.handle.y === p.name));
    if (handled) label.setAttribute("hidden", "");
    if (p.play) drawPlay(x, p, k);
  }
  // JupyterLab binds the arrow keys to notebook commands (move between cells, collapse
  // headings) for any focused element that is not a text field; let a focused slider or
  // choice keep them. No effect outside JupyterLab.
  x.inputs[k].setAttribute("data-lm-suppress-shortcuts", "true");
}

// Things to try (Declaration(presets=...)): a labelled list of buttons, one each, above the
// controls (a wrapping list, never a row that scrolls sideways: on a phone it is a few short
// rows, outside the controls that stick to the top of the screen).
function drawPresets(x) {
  if (!x.presets.length) return;
  const group = html("div", "attn-presets", null);
  x.root.insertBefore(group, x.controls);
  group.setAttribute("role", "group");
  group.setAttribute("aria-label", "Things to try");
  html("span", "attn-presets-title", group, "Things to try:");
  x.presetButtons = x.presets.map((pr, k) => {
    const b = html("button", "attn-preset", group, pr.label);
    b.type = "button";
    b.setAttribute("aria-pressed", "false");
    b.setAttribute("data-preset", String(k));
    b.addEventListener("click", () => choosePreset(x, k));
    return b;
  });
}

function choosePreset(x, k) {
  const pr = x.presets[k];
  stopPlaying(x);
  x.chosen = k;
  let typed = false;
  x.texts.forEach(({ name, input }) => {
    if (typeof pr.texts[name] === "string" && input.value !== pr.texts[name]) { input.value = pr.texts[name]; typed = true; }
  });
  x.notice.textContent = pr.notice;
  // ui.move redraws when a control moves; the typed texts and the pressed state need one too
  if (!x.ui.move(pr.indices) || typed) x.redraw();
  if (typed) syncTexts(x);
}

// Whether the controls stand where preset k puts them.
function presetOn(x, k) {
  const pr = x.presets[k];
  return Object.entries(pr.indices).every(([name, i]) => x.idx[x.pos(name)] === i) &&
    x.texts.every(({ name, input }) => pr.texts[name] === undefined || pr.texts[name] === input.value);
}

const NOTICE = "Pick one of the things to try; this line says what to notice.";

// Reset: every control back to where it started. With things to try it ends their row (it is
// one more way to set the controls, and the title's row then takes no more height than the
// title); otherwise it sits beside the title.
function drawReset(x) {
  const reset = html("button", "attn-reset", x.presetButtons.length ? x.presetButtons[0].parentNode : x.head, "Reset");
  reset.type = "button";
  reset.setAttribute("aria-label", "Reset: every control back to where it started");
  reset.addEventListener("click", () => {
    stopPlaying(x);
    if (x.notice) { x.chosen = -1; x.notice.textContent = NOTICE; }
    let typed = false;
    x.texts.forEach(({ name, input }) => {
      const start = x.startTexts[name] === undefined ? "" : x.startTexts[name];
      if (input.value !== start) { input.value = start; typed = true; }
    });
    const moved = x.ui.move(Object.fromEntries(x.spec.params.map((p, k) => [p.name, x.initial[k]])));
    if (typed || !moved) x.redraw();
    if (typed) syncTexts(x);
  });
}

// One panel (a map, a line plot or a caption) and what paints it: {name, frame, labels, paint}.
function drawPanel(x, ps) {
  const stored = x.spec.live ? null : x.data[ps.name];
  if (ps.kind === "caption") return { name: ps.name, frame: storedTexts(stored), paint: captionPanel(ps, x.panelsDiv) };
  return {
    name: ps.name,
    frame: stored ? decode(stored) : null,
    labels: stored && stored.labels ? storedTexts(stored.labels) : null,  // per-frame tick labels
    // stored per-frame labels: the layout leaves room for the longest of them only
    paint: ps.kind === "heatmap" ? heatmapPanel(stored && stored.labels ? { ...ps, label_chars: longest(stored.labels) } : ps,
      x.panelsDiv, x.ui) : linesPanel(ps, x.panelsDiv, x.ui),
  };
}

function syncTexts(x) {
  x.model.set("texts", Object.fromEntries(x.texts.map(({ name, input }) => [name, input.value])));
  x.model.save_changes();
}

// A text field (a sentence the reader types, or picks from the field's suggestions): above
// the map it changes (a typed-sentences explorer), else with the other controls.
function drawTextField(x, t) {
  const lv = x.spec.live;
  const b = lv && lv.kind === "masking" ? lv.sentences.indexOf(t.name) : -1;
  const h = b >= 0 && x.ui.heatmaps.find((m) => m.spec.name === lv.weights[b]);
  const place = h ? h.wrap : x.controls;
  const label = html("label", "attn-text-label", null, t.label + " ");
  place.insertBefore(label, place === x.controls ? null : place.firstChild);
  const input = html("input", "attn-text", label);
  input.setAttribute("type", "text");
  input.setAttribute("data-param", t.name);
  input.setAttribute("maxlength", String(t.max_length));
  input.setAttribute("autocomplete", "off");
  input.setAttribute("spellcheck", "false");
  input.value = x.startTexts[t.name] === undefined ? "" : x.startTexts[t.name];
  if (t.suggestions.length) {  // typing or picking: the browser offers these as the reader types
    const id = `attn-list-${nextId()}`, list = html("datalist", null, label);
    list.setAttribute("id", id);
    t.suggestions.forEach((s) => html("option", null, list).setAttribute("value", s));
    input.setAttribute("list", id);
  }
  input.addEventListener("input", () => { stopPlaying(x); x.redraw(); syncTexts(x); });
  input.setAttribute("data-lm-suppress-shortcuts", "true");
  return { name: t.name, input };
}

// The line that says what to notice, after the controls (not in the bar that sticks on a
// phone): just above the picture it talks about; read out when a preset is picked.
function drawNotice(x) {
  if (!x.presets.length) return;
  x.notice = html("p", "attn-notice", null, NOTICE);
  x.root.insertBefore(x.notice, x.panelsDiv);
  x.notice.setAttribute("aria-live", "polite");
}

// One colour bar per colour range, under the last map that uses it.
function drawColorbars(x) {
  const ranges = new Map();
  x.ui.heatmaps.forEach((h) => ranges.set(`${h.spec.vmin}|${h.spec.vmax}|${h.spec.colorbar_label}|${!!h.spec.saturate}`, h));
  return [...ranges.values()].map((h) => colorbar(h.spec, h.wrap, h.readout, x.ui.panelWidth(h.spec)));
}

// The sentence that says what changed, for screen readers (and everyone); its words are
// spoken.js's.
function sentence(x, params, values, labels) {
  const { spec } = x;
  const where = spec.params.map((p, k) => controlWords(p.label, p.labels[x.idx[k]])).join(", ");
  const lv = spec.live;
  if (lv && lv.kind === "masking") return `${where}: ${maskingSentence(lv, values, labels)}`;
  if (lv && lv.kind === "kernel_regression") return `${where}: ${kernelSentence(spec, lv, values, params)}`;
  if (x.caption) return `${where}. ${captionWords(values[x.caption.name])}`;
  const h = x.ui.heatmaps[0];
  if (!h || !h.values()) return `${where}.`;
  // the row the reader is reading (spokenRow: the cell read last, else the marked row)
  const i = h.spokenRow(), C = h.spec.cols;
  return `${where}: ${rowWords(i, h.values().slice(i * C, (i + 1) * C), h.rowName, h.colName, h.labelled())}`;
}

// The sentence again for the current frame (the reader read another row of a map): set only
// when its words change, since the line is a live region, read out on each change.
function speak(x) {
  if (!x.said) return;
  const t = sentence(x, ...x.said);
  if (x.live.textContent !== t) x.live.textContent = t;
}

// Typed sentences: the valid lengths, and how much weight the padding gets.
function maskingSentence(lv, values, labels) {
  const n = lv.max_tokens, lens = lv.weights.map((w) => labels[w].length);
  let pad = 0;
  lv.weights.forEach((w, b) => {
    for (let i = 0; i < n; i++) {
      let sum = 0;
      for (let j = lens[b]; j < n; j++) sum += values[w][i * n + j];
      pad = Math.max(pad, sum);
    }
  });
  return `valid lengths ${lens.join(", ")} of ${n} tokens; the <pad> keys get ` +
    (pad === 0 ? "no weight (exactly 0) in every row." : `up to ${shareWords(pad)} of a row's weight.`);
}

// Kernel regression: what happens at the dragged query (spoken.js: kernelWords), and which
// fixed query the heatmap outlines (nearestRow: linkRows outlines the same one).
function kernelSentence(spec, lv, values, params) {
  const w = seriesOf(spec, values, lv.bars), fit = seriesOf(spec, values, lv.marker)[1];  // (n_train,), ŷ
  const near = lv.heat_x ? nearestRow(lv.heat_x, params[lv.query]) : -1;
  return kernelWords(fit, w, lv.x_train, near >= 0 ? lv.heat_x[near] : null);
}

// The index of the value of xs nearest q (the first of a tie), or -1 when q is not a number.
function nearestRow(xs, q) {
  if (typeof q !== "number") return -1;
  let best = 0;
  xs.forEach((v, i) => { if (Math.abs(v - q) < Math.abs(xs[best] - q)) best = i; });
  return best;
}

// Linked views: the heatmap row that another panel shows. Kernel regression: the row of the
// heatmap's query nearest the dragged one. A line panel drawing one row ("query 2"): that row.
function linkRows(x, params) {
  const { spec, ui } = x;
  const lv = spec.live;
  if (lv && lv.kind === "kernel_regression" && lv.heat_x) {
    const h = ui.heatmaps.find((m) => m.spec.name === lv.weights), best = nearestRow(lv.heat_x, params[lv.query]);
    if (h && best >= 0) h.markRow(best);
    return;
  }
  if (ui.heatmaps.length !== 1) return;
  for (const ps of spec.panels) {
    const m = ps.kind === "lines" && ps.series && ps.series.length === 1 && /^query (\d+)$/.exec(ps.series[0].name || "");
    if (m && +m[1] < ui.heatmaps[0].spec.rows) { ui.heatmaps[0].markRow(+m[1]); return; }
  }
}

// The current frame's values: picked from the stored frames (a precomputed explorer) or
// computed here (a live one, primitives.js). Returns {f, params, values, labels}.
function currentFrame(x) {
  const { spec } = x;
  let f = 0;
  const params = {};
  x.texts.forEach(({ name, input }) => { params[name] = input.value; });
  spec.params.forEach((p, k) => {
    f += x.idx[k] * spec.strides[k];
    params[p.name] = p.values[x.idx[k]];
  });
  let computed = null, labels = {};
  if (spec.live && spec.live.kind === "masking") ({ values: computed, labels } = maskingFrame(spec.live, params));
  else if (spec.live) {
    computed = spec.live.kind === "kernel_regression" ? kernelFrame(spec.live, params, spec.panels)
      : liveFrame(spec.live, params);
  }
  const values = {};
  spec.panels.forEach((ps, k) => {
    const c = computed && computed[ps.name];
    values[ps.name] = !computed ? x.painters[k].frame(f) : !c ? EMPTY : c instanceof Float64Array ? c : flatSeries(ps, c);
  });
  return { f, params, values, labels };
}

// Every control's value text, every panel, the colour bars, the linked rows, the pressed
// preset and the sentence, for the controls' current positions.
function redraw(x) {
  const { spec } = x;
  spec.params.forEach((p, k) => {
    if (!x.outputs[k]) return;
    x.outputs[k].textContent = p.labels[x.idx[k]];
    x.inputs[k].setAttribute("aria-valuetext", p.labels[x.idx[k]]);
  });
  const { f, params, values, labels } = currentFrame(x);
  for (const p of x.painters) {
    const own = p.labels && p.labels(f);  // [row labels, column labels] of this frame
    p.paint(values[p.name], { params, values, labels: own ? { rows: own[0], cols: own[1] } : labels[p.name] });
  }
  x.bars.forEach((b) => b());
  linkRows(x, params);
  x.presetButtons.forEach((b, k) => b.setAttribute("aria-pressed", String(k === x.chosen && presetOn(x, k))));
  // a notice speaks of its preset's picture: once a control moves off it, say so instead
  // (set only when it changes: the line is a live region, read out on each change)
  if (x.chosen >= 0) {
    const pr = x.presets[x.chosen];
    const t = presetOn(x, x.chosen) ? pr.notice : `Moved off “${pr.label}”: its notice no longer fits the picture.`;
    if (x.notice.textContent !== t) x.notice.textContent = t;
  }
  x.said = [params, values, labels];
  x.live.textContent = sentence(x, params, values, labels);
  x.root.setAttribute("data-params", JSON.stringify(params));
  x.root.setAttribute("data-frame", String(f));
  x.root.setAttribute("data-ready", "true");
}

// Kept in step: the kernel's indices and texts, the page's colour theme (another colour
// scale), and the controls' height (on phones they stick under the book's header: anything
// brought into view must clear them too, explorer.css: scroll-margin-top).
function watch(x) {
  const { model, spec } = x;
  const onIndices = () => {
    const next = model.get("indices") || [];
    let changed = false;
    next.forEach((i, k) => {
      if (k < x.idx.length && x.idx[k] !== i && i >= 0 && i < spec.params[k].values.length) {
        x.idx[k] = i; x.inputs[k].value = String(i); changed = true;
      }
    });
    if (changed) x.redraw();
  };
  model.on("change:indices", onIndices);
  x.cleanup.push(() => model.off("change:indices", onIndices));
  const onTexts = () => {
    const next = model.get("texts") || {};
    let changed = false;
    x.texts.forEach(({ name, input }) => {
      if (typeof next[name] === "string" && next[name] !== input.value) { input.value = next[name]; changed = true; }
    });
    if (changed) x.redraw();
  };
  model.on("change:texts", onTexts);
  x.cleanup.push(() => model.off("change:texts", onTexts));
  const view = x.doc && x.doc.defaultView;
  if (view && typeof view.MutationObserver === "function") {
    const obs = new view.MutationObserver(() => x.redraw());
    obs.observe(x.doc.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
    if (x.doc.body) obs.observe(x.doc.body, { attributes: true, attributeFilter: ["data-jp-theme-light"] });
    x.cleanup.push(() => obs.disconnect());
  }
  if (view && typeof view.ResizeObserver === "function") {
    const ro = new view.ResizeObserver(() => x.root.style.setProperty("--attn-bar-h", `${Math.ceil(x.controls.offsetHeight)}px`));
    ro.observe(x.controls);
    x.cleanup.push(() => ro.disconnect());
  }
}


// The longest row label and the longest column label over every frame's stored labels
// (attnlib.widgets.caption.text_table of [row labels, column labels] pairs), in characters.
function longest(table) {
  const len = (t) => Array.from(t).length;
  const most = (k) => Math.max(1, ...table.strings.map((pair) => Math.max(0, ...pair[k].map(len))));
  return [most(0), most(1)];
}
