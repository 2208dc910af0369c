import { el, fmt } from "./dom.js";

// The point the reader drags: bound to two sliders (spec.handle.x, .y), or to one (y null: a
// position along x, drawn on the axis with a line across the plot); a drag or a tap on the
// plot snaps to the nearest grid values, the arrow keys move it one grid step.
export function handlePanel(spec, svg, g, ui, X, Y, pw, ph) {
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

