// The lines panel: series (lines, points, bars, xy points), fixed series, the spokes from a
// dragged query to its keys, a marker, and the handle (handle.js) when the panel has one. The
// plot is at most PANEL_W wide and its legend sits under it (a wrapping list).

import { coloured } from "./colours.js";
import { el, fmt, html, nextId } from "./dom.js";
import { handlePanel } from "./handle.js";
import { PANEL_W } from "./heatmap.js";

export function linesPanel(spec, parent, ui) {
  const [x0, x1] = spec.xlim, [y0] = spec.ylim;
  let y1 = spec.ylim[1];  // the top moves between spec.ytops, when given
  const left = 46, right = 8, top = 8, bottom = 36;
  let pw = PANEL_W - left - right, ph = spec.equal_aspect ? 200 : 160;
  if (spec.equal_aspect) {
    const k = Math.min(pw / (x1 - x0), ph / (y1 - y0));
    pw = k * (x1 - x0); ph = k * (y1 - y0);
  }
  // the legend names every series, and the point to drag (its own entry, first)
  const all = (spec.handle ? [{ name: `${spec.handle.label} (drag it)`, style: "handle", color: spec.handle.color }] : [])
    .concat(spec.fixed, spec.series);
  const width = Math.ceil(left + pw + right), height = Math.ceil(top + ph + bottom);
  const X = (x) => ((x - x0) / (x1 - x0)) * pw, Y = (y) => ph - ((y - y0) / (y1 - y0)) * ph;
  const wrap = html("div", "attn-panel", parent);  // its title, the plot, then its legend
  wrap.setAttribute("data-panel", spec.name);
  wrap.setAttribute("style", `--attn-w:${width}px`);
  if (spec.title) html("div", "attn-panel-title", wrap, spec.title);
  // a plot with a point to drag is a group holding that control; otherwise a picture
  const svg = el("svg", { class: "attn-lines", "data-panel": spec.name, width, height,
    viewBox: `0 0 ${width} ${height}`, role: spec.handle ? "group" : "img",
    "aria-label": `${spec.title || spec.name}: ${spec.ylabel} against ${spec.xlabel}` }, wrap);
  const g = el("g", { transform: `translate(${left},${top})` }, svg);
  const cid = `attn-clip-${nextId()}`;
  el("rect", { x: 0, y: 0, width: pw, height: ph }, el("clipPath", { id: cid }, el("defs", {}, svg)));
  // a tick label in the bottom-left corner would meet the y axis's lowest one: it starts at
  // the axis instead of being centred on it
  const corner = (t) => Math.abs(X(t)) < 0.5 && spec.yticks.some((u) => Math.abs(Y(u) - ph) < 0.5);
  // ticks placed by hand bring their labels (d on a log2 d axis)
  spec.xticks.forEach((t, i) => {
    el("line", { class: "attn-grid", x1: X(t), x2: X(t), y1: 0, y2: ph }, g);
    el("text", { class: "attn-tick", x: corner(t) ? X(t) - 2 : X(t), y: ph + 13,
      "text-anchor": corner(t) ? "start" : "middle" }, g, spec.xtick_labels?.[i] ?? fmt(t));
  });
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
  el("text", { class: "attn-axis-label", x: pw / 2, y: ph + 31, "text-anchor": "middle" }, g, spec.xlabel);
  el("text", { class: "attn-axis-label", x: 0, y: 0, "text-anchor": "middle",
    transform: `translate(${-36},${ph / 2}) rotate(-90)` }, g, spec.ylabel);
  const plot = el("g", { "clip-path": `url(#${cid})` }, g);
  const spokes = spec.spokes ? el("g", { class: "attn-spokes" }, g) : null, dots = el("g", {}, g);
  const labels = el("g", { class: "attn-point-labels" }, g);  // raised above the handle below
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
      return el("path", coloured({ class: cls, "data-series": s.name, fill: "none", "stroke-width": s.width }, s.color, "stroke"), plot);
    }
    if (s.style === "line") {
      return el("path", coloured({ class: cls, "data-series": s.name, fill: "none", "stroke-width": s.width,
        "stroke-dasharray": s.dash }, s.color, "stroke"), plot);
    }
    return el("g", coloured({ class: cls, "data-series": s.name }, s.color, "fill"), dots);
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
  // A point's label goes above right of it, or, where that would touch a label already placed
  // or cover another labelled point, to the first free place around it (above left, below
  // right, below left, right, left). Boxes are estimated for the 12 px semibold labels.
  const placed = [], dotsAt = [];
  spec.fixed.forEach((f) => (f.labels || []).forEach((t, i) => dotsAt.push([X(f.x[i]), Y(f.y[i])])));
  const AROUND = [[6, -6, "start"], [-6, -6, "end"], [6, 15, "start"], [-6, 15, "end"], [9, 4, "start"], [-9, 4, "end"]];
  const labelAt = (px, py, t) => {
    const w = 7.5 * Array.from(String(t)).length;
    const boxOf = ([dx, dy, anchor]) => {
      const x0 = anchor === "start" ? px + dx : px + dx - w;
      return [x0 - 1.5, py + dy - 11, x0 + w + 1.5, py + dy + 3];
    };
    const free = (b) => placed.every((o) => b[2] <= o[0] || o[2] <= b[0] || b[3] <= o[1] || o[3] <= b[1]) &&
      dotsAt.every(([x, y]) => (x === px && y === py) || x < b[0] - 4 || x > b[2] + 4 || y < b[1] - 4 || y > b[3] + 4);
    const at = AROUND.find((c) => free(boxOf(c))) || AROUND[0];
    placed.push(boxOf(at));
    return at;
  };
  for (const f of spec.fixed) {
    const e = draw(f, "attn-series attn-fixed");
    fixedEls.push(e);
    if (f.style === "line") e.setAttribute("d", pathD(f.x, f.y));
    else points(e, f.x, f.y, f.labels ? 4 : 2.5);
    (f.labels || []).forEach((t, i) => {
      const px = X(f.x[i]), py = Y(f.y[i]), [dx, dy, anchor] = labelAt(px, py, t);
      el("text", { class: "attn-point-label", x: (px + dx).toFixed(1), y: (py + dy).toFixed(1),
        "text-anchor": anchor }, labels, t);
    });
  }
  const spokeLines = spec.spokes ? (() => {
    const to = spec.fixed.find((f) => f.name === spec.spokes.to);
    return to.x.map((x, j) => el("line", coloured({ x2: X(x).toFixed(1), y2: Y(to.y[j]).toFixed(1),
      "stroke-linecap": "round" }, spec.handle.color, "stroke"), spokes));
  })() : [];
  const handle = spec.handle ? handlePanel(spec, svg, g, ui, X, Y, pw, ph) : null;
  g.appendChild(labels);  // a key's label stays readable with the query on it
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
  // legend: under the plot, one entry per series (a swatch drawn as the series is, its name)
  const legend = html("ul", "attn-legend", wrap);
  legend.setAttribute("data-panel", spec.name);
  legend.setAttribute("aria-label", `legend of ${spec.title || spec.name}`);
  all.forEach((s) => {
    const li = html("li", null, legend);
    const sw = el("svg", { width: 16, height: 12, viewBox: "3 0 16 12", "aria-hidden": "true" }, li);
    if (s.style === "line") {
      el("line", coloured({ x1: 1, x2: 21, y1: 6, y2: 6, "stroke-width": s.width, "stroke-dasharray": s.dash,
        "data-swatch": s.name }, s.color, "stroke"), sw);
    } else if (s.style === "bars") {
      el("line", coloured({ x1: 11, x2: 11, y1: 0, y2: 12, "stroke-width": s.width, "data-swatch": s.name }, s.color, "stroke"), sw);
    } else el("circle", coloured({ cx: 11, cy: 6, r: s.style === "handle" ? 5.5 : 3.5, "data-swatch": s.name }, s.color, "fill"), sw);
    html("span", null, li, s.name);
  });
  if (spec.spokes) {  // the weight lines can be switched off: a switch at the end of the legend
    const box = html("label", "attn-toggle", html("li", "attn-legend-toggle", legend), "");
    const cb = html("input", null, box);
    cb.type = "checkbox";
    cb.setAttribute("checked", "");
    cb.setAttribute("data-spokes", spec.name);
    box.appendChild(box.ownerDocument.createTextNode(` lines to the ${spec.spokes.to}`));
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
