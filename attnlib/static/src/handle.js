import { coloured } from "./colours.js";
import { el, fmt } from "./dom.js";

// The point the reader drags: bound to two sliders (spec.handle.x, .y), or to one (y null: a
// position along x, drawn on the axis with a line across the plot; or, with
// spec.handle.circle = [cx, cy, r], an angle in degrees: the point runs round that circle).
// It snaps to the nearest grid values; the arrow keys move it one grid step.
//
// Touch never fights scrolling: a finger that lands on the point drags it (and the page does
// not scroll); a finger that lands elsewhere on the plot leaves the gesture to the browser, so
// a swipe scrolls the page, and only a tap (lifted within TAP_PX of where it landed, without
// the browser taking it for a scroll) puts the point there. A mouse press anywhere on the plot
// puts the point there and drags it.
const TAP_PX = 6;

export function handlePanel(spec, svg, g, ui, X, Y, pw, ph) {
  const h = spec.handle, [x0, x1] = spec.xlim, [y0, y1] = spec.ylim, oneD = h.y === null;
  const circle = h.circle || null;
  const area = el("rect", { class: "attn-drag-area", x: 0, y: 0, width: pw, height: ph, fill: "transparent" }, g);
  area.parentNode.insertBefore(area, area.parentNode.firstChild);  // under the grid and the points
  const guide = oneD && !circle ? el("line", coloured({ class: "attn-handle-guide", y1: 0, y2: ph,
    "stroke-dasharray": "4 3", "stroke-width": 1.5 }, h.color, "stroke"), g) : null;
  const how = circle ? "drag it round its circle" : oneD ? "drag it along the axis" : "drag it";
  const knob = el("g", { class: "attn-handle", tabindex: "0", role: "slider", "data-handle": h.label,
    "aria-label": `${h.label}: ${how}, tap the plot, or use the arrow keys`,
    "aria-valuemin": 0, "aria-valuemax": ui.values(h.x).length - 1 }, g);
  el("circle", { class: "attn-handle-hit", r: 22, fill: "transparent" }, knob);  // a 44 px target
  el("circle", coloured({ class: "attn-handle-dot", r: 8 }, h.color, "fill"), knob);
  const nearest = (vals, v) => {
    let best = 0;
    for (let i = 1; i < vals.length; i++) if (Math.abs(vals[i] - v) < Math.abs(vals[best] - v)) best = i;
    return best;
  };
  // the nearest angle on a circular grid (359° is next to 0°)
  const nearestAngle = (vals, a) => {
    let best = 0, dist = Infinity;
    vals.forEach((v, i) => {
      const d = Math.abs(((((a - v) % 360) + 540) % 360) - 180);
      if (d < dist) { dist = d; best = i; }
    });
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
    if (circle) {
      const a = (Math.atan2(y - circle[1], x - circle[0]) * 180) / Math.PI;
      ui.move({ [h.x]: nearestAngle(ui.values(h.x), a) });
    } else {
      ui.move(oneD ? { [h.x]: nearest(ui.values(h.x), x) }
        : { [h.x]: nearest(ui.values(h.x), x), [h.y]: nearest(ui.values(h.y), y) });
    }
  };
  let dragging = null, tap = null;
  const inPlot = (p) => p && p.x >= 0 && p.x <= pw && p.y >= 0 && p.y <= ph;
  svg.addEventListener("pointerdown", (ev) => {
    const p = plotPoint(ev), onKnob = knob.contains(ev.target);
    if ((ev.button !== undefined && ev.button !== 0) || !p) return;
    if (!onKnob && !inPlot(p)) return;  // the axes and titles around the plot do nothing
    if (!onKnob && ev.pointerType !== "mouse" && ev.pointerType) {  // a finger or a pen: maybe a tap
      tap = { id: ev.pointerId, x: ev.clientX, y: ev.clientY };
      return;
    }
    dragging = ev.pointerId;
    ui.grab();
    if (svg.setPointerCapture) svg.setPointerCapture(ev.pointerId);
    if (!onKnob) moveTo(ev);
    ev.preventDefault();
  });
  // A finger on the dot drags it and does not scroll the page (touch-action on an SVG child is
  // ignored by Chromium, so the touch's default, panning, is cancelled here instead).
  knob.addEventListener("touchstart", (ev) => ev.preventDefault(), { passive: false });
  const far = (ev) => Math.hypot(ev.clientX - tap.x, ev.clientY - tap.y) > TAP_PX;
  svg.addEventListener("pointermove", (ev) => {
    if (dragging === ev.pointerId) moveTo(ev);
    else if (tap && tap.id === ev.pointerId && far(ev)) tap = null;  // a swipe: the page's
  });
  svg.addEventListener("pointerup", (ev) => {
    if (dragging === ev.pointerId) dragging = null;
    else if (tap && tap.id === ev.pointerId) {
      if (!far(ev) && inPlot(plotPoint(ev))) { ui.grab(); moveTo(ev); }
      tap = null;
    }
  });
  svg.addEventListener("pointercancel", (ev) => {  // the browser took the gesture (a scroll)
    if (dragging === ev.pointerId) dragging = null;
    if (tap && tap.id === ev.pointerId) tap = null;
  });
  knob.addEventListener("keydown", (ev) => {
    const n = ui.values(h.x).length;
    const steps = (oneD  // along one axis (or round the circle), as a slider: up and right increase
      ? { ArrowLeft: [-1], ArrowDown: [-1], ArrowRight: [1], ArrowUp: [1], PageUp: [10], PageDown: [-10],
        Home: [-n], End: [n] }
      : { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1],
        PageUp: [0, 10], PageDown: [0, -10] })[ev.key];
    if (!steps) return;
    ev.preventDefault();
    ui.grab();
    const clamp = (name, i) => Math.max(0, Math.min(ui.values(name).length - 1, i));
    if (circle && Math.abs(steps[0]) < n) {  // round and round: past the last angle comes the first
      ui.move({ [h.x]: (((ui.index(h.x) + steps[0]) % n) + n) % n });
      return;
    }
    ui.move(oneD ? { [h.x]: clamp(h.x, ui.index(h.x) + steps[0]) }
      : { [h.x]: clamp(h.x, ui.index(h.x) + steps[0]), [h.y]: clamp(h.y, ui.index(h.y) + steps[1]) });
  });
  knob.setAttribute("data-lm-suppress-shortcuts", "true");
  return {
    paint: (params) => {
      let hx, hy, text;
      if (circle) {
        const a = (params[h.x] * Math.PI) / 180;
        hx = X(circle[0] + circle[2] * Math.cos(a)).toFixed(1);
        hy = Y(circle[1] + circle[2] * Math.sin(a)).toFixed(1);
        text = `${h.label} at angle ${fmt(params[h.x])}°`;
      } else {
        hx = X(params[h.x]).toFixed(1);
        hy = oneD ? ph.toFixed(1) : Y(params[h.y]).toFixed(1);
        text = `${h.label} at x = ${fmt(params[h.x])}` + (oneD ? "" : `, y = ${fmt(params[h.y])}`);
      }
      knob.setAttribute("transform", `translate(${hx},${hy})`);
      knob.setAttribute("aria-valuenow", ui.index(h.x));
      knob.setAttribute("aria-valuetext", text);
      if (guide) { guide.setAttribute("x1", hx); guide.setAttribute("x2", hx); }
      return [hx, hy];
    },
  };
}
