// render({model, el}): builds an explorer's controls (sliders, choices, text fields, Play,
// Reset) and panels from model.get("spec"), and redraws every panel for the current controls:
// a precomputed explorer picks its frame from model.get("data"); a live one computes it
// (primitives.js). Kept in sync with the kernel through model.set / save_changes.

import { fmt, html, nextId, one } from "./dom.js";
import { captionPanel } from "./caption.js";
import { EMPTY, decode, flatSeries, seriesOf, texts as storedTexts } from "./frames.js";
import { heatmapPanel } from "./heatmap.js";
import { linesPanel } from "./lines.js";
import { kernelFrame, liveFrame, maskingFrame } from "./primitives.js";

export function render({ model, el: host }) {
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
        const id = `attn-list-${nextId()}`, list = html("datalist", null, label);
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
    const painters = spec.panels.map((ps) => {
      const stored = spec.live ? null : data[ps.name];
      if (ps.kind === "caption") return { name: ps.name, frame: storedTexts(stored), paint: captionPanel(ps, panelsDiv) };
      return {
        name: ps.name,
        frame: stored ? decode(stored) : null,
        labels: stored && stored.labels ? storedTexts(stored.labels) : null,  // per-frame tick labels
        paint: ps.kind === "heatmap" ? heatmapPanel(ps, panelsDiv, ui) : linesPanel(ps, panelsDiv, ui),
      };
    });
    const caption = spec.panels.find((ps) => ps.kind === "caption");
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
      if (caption) return `${where}. ${values[caption.name].split("\n").join("; ")}`;
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
      for (const p of painters) {
        const own = p.labels && p.labels(f);  // [row labels, column labels] of this frame
        p.paint(values[p.name], { params, values, labels: own ? { rows: own[0], cols: own[1] } : labels[p.name] });
      }
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

