// render({model, el}): builds an explorer's controls (sliders, choices, text fields, Play,
// Reset) and panels from model.get("spec"), and redraws every panel for the current controls:
// a precomputed explorer picks its frame from model.get("data"); a live one computes it
// (primitives.js). Kept in sync with the kernel through model.set / save_changes.

import { fmt, html, nextId, one } from "./dom.js";
import { captionPanel } from "./caption.js";
import { EMPTY, decode, flatSeries, seriesOf, texts as storedTexts } from "./frames.js";
import { PANEL_W, colorbar, heatmapPanel } from "./heatmap.js";
import { linesPanel } from "./lines.js";
import { kernelFrame, liveFrame, maskingFrame } from "./primitives.js";

const SPEEDS = [["slow", 16000], ["normal", 7000], ["fast", 3000]];  // ms for a whole run

export function render({ model, el: host }) {
  const root = html("div", "attn-explorer", host);
  let cleanup = [];
  const build = () => {
    root.textContent = "";
    const spec = model.get("spec"), data = model.get("data"), name = model.get("name");
    if (!spec || !spec.params) return;
    root.setAttribute("data-explorer", name);
    // the title, with Reset beside it (Reset is rarely needed: it does not take a place in the
    // controls, which stick to the top of a phone's screen)
    const head = html("div", "attn-head", root);
    if (spec.title) html("div", "attn-caption", head, spec.title);
    const controls = html("div", "attn-controls", root);
    const panelsDiv = html("div", "attn-panels", root);
    const live = html("p", "attn-live", root);
    live.setAttribute("aria-live", "polite");
    const idx = (model.get("indices") || []).slice();
    const pos = (name) => spec.params.findIndex((p) => p.name === name);
    // Sliders bound to a dragged point (Handle) are not shown: the point is the control (mouse,
    // touch, and the arrow keys with its value text); a Play button over such a slider stays.
    const handled = new Set();
    spec.panels.forEach((ps) => { if (ps.handle) { handled.add(ps.handle.x); if (ps.handle.y) handled.add(ps.handle.y); } });
    const nMaps = spec.panels.filter((ps) => ps.kind === "heatmap").length;
    const ui = {
      typedLabels: !!(spec.live && spec.live.kind === "masking"),
      // the typed sentences' maps: a weight of exactly 0 is a masked key (saved states from
      // before Heatmap(masked_zeros=True) say so by their kind)
      marksZeros: () => !!(spec.live && spec.live.kind === "masking"),
      controls,
      fieldAbove: (panel) => !!(spec.live && spec.live.kind === "masking" && spec.live.weights.includes(panel)),
      // three maps or more share one row of the book's column (each gets a third of it)
      panelWidth: (ps) => (ps.kind === "heatmap" && nMaps >= 3 ? 214 : PANEL_W),
      heatmaps: [],
      onColumn: [],
      column: (j, from, n) => ui.onColumn.forEach((f) => f(j, from, n)),
      onRow: [],
      row: (i, from, n) => ui.onRow.forEach((f) => f(i, from, n)),
      values: (name) => spec.params[pos(name)].values,
      index: (name) => idx[pos(name)],
      grab: () => stopPlaying(),  // the reader takes a dragged point: a playback stops
      // several controls at once (a dragged point moves two sliders), one redraw
      move: (changes) => {
        let any = false;
        for (const [name, i] of Object.entries(changes)) {
          const k = pos(name);
          if (k < 0 || !(i >= 0 && i < spec.params[k].values.length) || idx[k] === i) continue;
          idx[k] = i; inputs[k].value = String(i); any = true;
        }
        if (!any) return false;
        redraw();
        model.set("indices", idx.slice());
        model.save_changes();
        return true;
      },
    };
    const initial = idx.slice();  // what Reset returns to: the positions the explorer opened at
    // Text fields (a sentence the reader types, or picks from the field's suggestions).
    const startTexts = Object.assign({}, model.get("texts") || {});
    const syncTexts = () => {
      model.set("texts", Object.fromEntries(texts.map(({ name, input }) => [name, input.value])));
      model.save_changes();
    };
    let texts = [];
    const inputs = [], outputs = [];
    // Play / pause over a slider's values (Slider(play=True)): one step per tick at the chosen
    // speed, stopping at the last value. With prefers-reduced-motion the button steps once
    // per press instead ("Next step"), and nothing moves on its own.
    const win = host.ownerDocument && host.ownerDocument.defaultView;
    const reducedMotion = () => !!(win && win.matchMedia && win.matchMedia("(prefers-reduced-motion: reduce)").matches);
    let timer = null, playing = null;
    const doc = root.ownerDocument;
    const stopPlaying = () => {
      if (timer !== null) { clearTimeout(timer); timer = null; }
      if (playing) { playing.textContent = "Play"; playing = null; }
      if (doc) doc.removeEventListener("keydown", onEscape);
    };
    // Escape pauses a playback, wherever the focus is
    const onEscape = (ev) => { if (ev.key === "Escape" || ev.key === "Esc") stopPlaying(); };
    cleanup.push(stopPlaying);
    const playButton = (p, k) => {
      const box = html("span", "attn-play", controls);
      const btn = html("button", "attn-play-button", box, reducedMotion() ? "Next step" : "Play");
      btn.type = "button";
      btn.setAttribute("data-param", p.name);
      const speed = html("select", "attn-speed", box);
      speed.setAttribute("aria-label", `playback speed of ${p.label}`);
      // a speed is the time a whole run takes (normal: 100 steps in 7 s), each step between
      // 40 and 700 ms
      SPEEDS.forEach(([t, ms]) => { html("option", null, speed, t).value = String(ms); });
      speed.value = String(SPEEDS[1][1]);
      if (reducedMotion()) speed.hidden = true;
      const last = p.values.length - 1;
      const delay = () => Math.max(40, Math.min(700, +speed.value / Math.max(1, last)));
      const tick = () => {
        timer = null;
        if (idx[k] >= last) return stopPlaying();
        ui.move({ [p.name]: idx[k] + 1 });
        if (idx[k] >= last) stopPlaying(); else timer = setTimeout(tick, delay());
      };
      btn.addEventListener("click", () => {
        if (reducedMotion()) { ui.move({ [p.name]: idx[k] >= last ? 0 : idx[k] + 1 }); return; }
        if (playing === btn) { stopPlaying(); return; }
        stopPlaying();
        if (idx[k] >= last) ui.move({ [p.name]: 0 });  // from the start again
        playing = btn; btn.textContent = "Pause";  // its name says what a press does next
        if (doc) doc.addEventListener("keydown", onEscape);
        timer = setTimeout(tick, delay());
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
        // a slider moved by its dragged point stays in the page for scripts (and the kernel's
        // sync) but is not shown: the point is the control
        if (handled.has(p.name)) label.setAttribute("hidden", "");
        if (p.play) playButton(p, k);
      }
      // JupyterLab binds the arrow keys to notebook commands (move between cells, collapse
      // headings) for any focused element that is not a text field; let a focused slider or
      // choice keep them. No effect outside JupyterLab.
      inputs[k].setAttribute("data-lm-suppress-shortcuts", "true");
    });
    // Things to try (Declaration(presets=...)): a labelled list of buttons, one each, above the
    // controls (a wrapping list, never a row that scrolls sideways: on a phone it is a few
    // short rows, outside the controls that stick to the top of the screen), and the line that
    // says what to notice, last in the controls, read out when a preset is picked.
    const presets = spec.presets || [];
    let chosen = -1, presetButtons = [], notice = null;
    if (presets.length) {
      const group = html("div", "attn-presets", null);
      root.insertBefore(group, controls);
      group.setAttribute("role", "group");
      group.setAttribute("aria-label", "Things to try");
      html("span", "attn-presets-title", group, "Things to try:");
      presetButtons = presets.map((pr, k) => {
        const b = html("button", "attn-preset", group, pr.label);
        b.type = "button";
        b.setAttribute("aria-pressed", "false");
        b.setAttribute("data-preset", String(k));
        b.addEventListener("click", () => choosePreset(k));
        return b;
      });
    }
    const choosePreset = (k) => {
      const pr = presets[k];
      stopPlaying();
      chosen = k;
      let typed = false;
      texts.forEach(({ name, input }) => {
        if (typeof pr.texts[name] === "string" && input.value !== pr.texts[name]) { input.value = pr.texts[name]; typed = true; }
      });
      notice.textContent = pr.notice;
      // ui.move redraws when a control moves; the typed texts and the pressed state need one too
      if (!ui.move(pr.indices) || typed) redraw();
      if (typed) syncTexts();
    };
    const NOTICE = "Pick one of the things to try; this line says what to notice.";
    const presetOn = (k) => {
      const pr = presets[k];
      return Object.entries(pr.indices).every(([name, i]) => idx[pos(name)] === i) &&
        texts.every(({ name, input }) => pr.texts[name] === undefined || pr.texts[name] === input.value);
    };
    // With things to try, Reset ends their row (it is one more way to set the controls, and the
    // title's row then takes no more height than the title): an explorer with presets stays
    // short enough for a phone. Otherwise it sits beside the title.
    const reset = html("button", "attn-reset", presetButtons.length ? presetButtons[0].parentNode : head, "Reset");
    reset.type = "button";
    reset.setAttribute("aria-label", "Reset: every control back to where it started");
    reset.addEventListener("click", () => {
      stopPlaying();
      if (notice) { chosen = -1; notice.textContent = NOTICE; }
      let typed = false;
      texts.forEach(({ name, input }) => {
        const start = startTexts[name] === undefined ? "" : startTexts[name];
        if (input.value !== start) { input.value = start; typed = true; }
      });
      const moved = ui.move(Object.fromEntries(spec.params.map((p, k) => [p.name, initial[k]])));
      if (typed || !moved) redraw();
      if (typed) syncTexts();
    });
    const painters = spec.panels.map((ps) => {
      const stored = spec.live ? null : data[ps.name];
      if (ps.kind === "caption") return { name: ps.name, frame: storedTexts(stored), paint: captionPanel(ps, panelsDiv) };
      return {
        name: ps.name,
        frame: stored ? decode(stored) : null,
        labels: stored && stored.labels ? storedTexts(stored.labels) : null,  // per-frame tick labels
        // stored per-frame labels: the layout leaves room for the longest of them only
        paint: ps.kind === "heatmap" ? heatmapPanel(stored && stored.labels ? { ...ps, label_chars: longest(stored.labels) } : ps,
          panelsDiv, ui) : linesPanel(ps, panelsDiv, ui),
      };
    });
    const caption = spec.panels.find((ps) => ps.kind === "caption");
    // With a caption panel the sentence reads the caption out, which is on screen already: it
    // is kept for screen readers only (explorer.css), not shown twice.
    if (caption) live.classList.add("attn-live-spoken");
    // A sentence's field sits above the map it changes (a typed-sentences explorer), else with
    // the other controls.
    const fieldPlace = (name) => {
      const lv = spec.live;
      const b = lv && lv.kind === "masking" ? lv.sentences.indexOf(name) : -1;
      const h = b >= 0 && ui.heatmaps.find((x) => x.spec.name === lv.weights[b]);
      return h ? h.wrap : controls;
    };
    texts = (spec.texts || []).map((t) => {
      const place = fieldPlace(t.name);
      const label = html("label", "attn-text-label", null, t.label + " ");
      place.insertBefore(label, place === controls ? null : place.firstChild);
      const input = html("input", "attn-text", label);
      input.setAttribute("type", "text");
      input.setAttribute("data-param", t.name);
      input.setAttribute("maxlength", String(t.max_length));
      input.setAttribute("autocomplete", "off");
      input.setAttribute("spellcheck", "false");
      input.value = startTexts[t.name] === undefined ? "" : startTexts[t.name];
      if (t.suggestions.length) {  // typing or picking: the browser offers these as the reader types
        const id = `attn-list-${nextId()}`, list = html("datalist", null, label);
        list.setAttribute("id", id);
        t.suggestions.forEach((x) => html("option", null, list).setAttribute("value", x));
        input.setAttribute("list", id);
      }
      input.addEventListener("input", () => { stopPlaying(); redraw(); syncTexts(); });
      input.setAttribute("data-lm-suppress-shortcuts", "true");
      return { name: t.name, input };
    });
    if (presets.length) {  // last in the controls: just above the picture it talks about
      notice = html("p", "attn-notice", controls, NOTICE);
      notice.setAttribute("aria-live", "polite");
    }
    // One colour bar per colour range, under the last map that uses it.
    const ranges = new Map();
    ui.heatmaps.forEach((h) => ranges.set(`${h.spec.vmin}|${h.spec.vmax}|${h.spec.colorbar_label}|${!!h.spec.saturate}`, h));
    const bars = [...ranges.values()].map((h) => colorbar(h.spec, h.wrap, h.readout, ui.panelWidth(h.spec)));
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
      if (caption) {  // its lines, without the blank ones and the spaces that align columns
        const lines = values[caption.name].split("\n").map((t) => t.trim().replace(/\s+/g, " "));
        return `${where}. ${lines.filter(Boolean).join("; ")}`;
      }
      const h = ui.heatmaps[0];
      if (!h || !h.values()) return `${where}.`;
      const v = h.values(), C = h.spec.cols;
      let best = 0;
      for (let j = 1; j < C; j++) if (v[j] > v[best]) best = j;
      return `${where}: ${h.rowName(0)} puts ${fmt(Math.round(v[best] * 100) / 100)} ` +
        `of its weight on ${h.colName(best)}.`;
    };
    // Linked views: the heatmap row that another panel shows. Kernel regression: the row of the
    // heatmap's query nearest the dragged one. A line panel drawing one row ("query 2"): that row.
    const linkRows = (params) => {
      const lv = spec.live;
      if (lv && lv.kind === "kernel_regression" && lv.heat_x) {
        const h = ui.heatmaps.find((x) => x.spec.name === lv.weights), q = params[lv.query];
        if (!h || typeof q !== "number") return;
        let best = 0;
        lv.heat_x.forEach((x, i) => { if (Math.abs(x - q) < Math.abs(lv.heat_x[best] - q)) best = i; });
        h.markRow(best);
        return;
      }
      if (ui.heatmaps.length !== 1) return;
      for (const ps of spec.panels) {
        const m = ps.kind === "lines" && ps.series && ps.series.length === 1 && /^query (\d+)$/.exec(ps.series[0].name || "");
        if (m && +m[1] < ui.heatmaps[0].spec.rows) { ui.heatmaps[0].markRow(+m[1]); return; }
      }
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
      for (const p of painters) {
        const own = p.labels && p.labels(f);  // [row labels, column labels] of this frame
        p.paint(values[p.name], { params, values, labels: own ? { rows: own[0], cols: own[1] } : labels[p.name] });
      }
      bars.forEach((b) => b());
      linkRows(params);
      presetButtons.forEach((b, k) => b.setAttribute("aria-pressed", String(k === chosen && presetOn(k))));
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
    const view = doc && doc.defaultView;
    if (view && typeof view.MutationObserver === "function") {
      const obs = new view.MutationObserver(() => redraw());
      obs.observe(doc.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
      if (doc.body) obs.observe(doc.body, { attributes: true, attributeFilter: ["data-jp-theme-light"] });
      cleanup.push(() => obs.disconnect());
    }
    // On phones the controls stick under the book's header: anything brought into view (a
    // focused handle or map) must clear them too (explorer.css: scroll-margin-top).
    if (view && typeof view.ResizeObserver === "function") {
      const ro = new view.ResizeObserver(() => root.style.setProperty("--attn-bar-h", `${Math.ceil(controls.offsetHeight)}px`));
      ro.observe(controls);
      cleanup.push(() => ro.disconnect());
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


// The longest row label and the longest column label over every frame's stored labels
// (attnlib.widgets.caption.text_table of [row labels, column labels] pairs), in characters.
function longest(table) {
  const len = (t) => Array.from(t).length;
  const most = (k) => Math.max(1, ...table.strings.map((pair) => Math.max(0, ...pair[k].map(len))));
  return [most(0), most(1)];
}
