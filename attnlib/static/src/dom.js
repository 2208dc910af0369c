// DOM helpers shared by the panels and the controls: SVG and HTML elements, the page's
// theme, number formatting, unique ids.

const SVG = "http://www.w3.org/2000/svg";
// Dark when the book's page shell says so (web/theme/attnbook: html[data-theme=dark]) or JupyterLab's does.
export function isDark(node) {
  const doc = node.ownerDocument, html = doc && doc.documentElement;
  if (!html) return false;
  if (html.getAttribute("data-theme") === "dark") return true;
  const body = doc.body;
  return !!(body && body.getAttribute("data-jp-theme-light") === "false");
}
let uid = 0;
export const nextId = () => ++uid;  // ids unique on the page (gradients, clip paths, lists)

export function el(tag, attrs, parent, text) {
  const e = document.createElementNS(SVG, tag);
  for (const k in attrs) if (attrs[k] !== null && attrs[k] !== undefined) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}
export function html(tag, cls, parent, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}
export const fmt = (v) => String(+(+v).toFixed(4));
// "queries" -> "query" when naming one row or column ("query 2, key 5: 0.31").
export const one = (t) => String(t).replace(/\bqueries\b/, "query").replace(/\bkeys\b/, "key")
  .replace(/\btokens\b/, "token").replace(/\binputs\b/, "input").replace(/\bcharacters\b/, "character").replace(/\bfunctions\b/, "function");

// Decode one panel's frames (see attnlib.widgets.encode_frames): byte planes of
