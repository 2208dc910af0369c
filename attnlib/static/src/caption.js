// A caption panel (attnlib.widgets.Caption): the text the update function wrote for the
// current frame (e.g. what each model outputs), preformatted so that its columns line up.

import { html } from "./dom.js";

export function captionPanel(spec, parent) {
  const wrap = html("div", "attn-panel attn-text-panel", parent);
  wrap.setAttribute("data-panel", spec.name);
  if (spec.title) html("div", "attn-text-title", wrap, spec.title);
  const body = html("pre", "attn-text-body", wrap);
  return (text) => { body.textContent = text; };
}
