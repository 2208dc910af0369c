// Renders the book's explorers from the widget state saved in the page, with the explorer's
// own ES module (attnlib/static/explorer.js, the module anywidget runs in JupyterLab). No
// widget manager, no require.js, no kernel: the model below is the small part of anywidget's
// model interface the module uses (get, set, on, off, save_changes).
//
// Each widget view is a <script type="application/vnd.jupyter.widget-view+json"> naming a
// model in the page's <script type="application/vnd.jupyter.widget-state+json">. When
// web/prerender-explorers.mjs has run (`make book`), the view is preceded by a
// <div class="attn-static"> holding the explorer's default picture, drawn at build time by
// the same module; it is replaced here by the live explorer, which draws the same picture.
import explorer from "./explorer.js";

const STYLE = new URL("./explorer.css", import.meta.url).href;

function model(state) {
  const values = { ...state }, handlers = {};
  return {
    get: (key) => values[key],
    set(key, value) {
      values[key] = value;
      (handlers[`change:${key}`] || []).slice().forEach((f) => f());
    },
    on(event, f) { (handlers[event] = handlers[event] || []).push(f); },
    off(event, f) {
      const hs = handlers[event] || [];
      if (f === undefined) hs.length = 0;
      else if (hs.indexOf(f) >= 0) hs.splice(hs.indexOf(f), 1);
    },
    save_changes() {},  // nothing to sync with: there is no kernel
  };
}

let state = null;
function savedState() {
  if (state) return state;
  const saved = document.querySelector('script[type="application/vnd.jupyter.widget-state+json"]');
  if (saved) state = JSON.parse(saved.textContent).state || {};
  return state;
}

function ensureStyle() {
  if (document.querySelector('link[href*="explorer.css"]')) return;
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = STYLE;
  document.head.appendChild(link);
}

// Renders every widget view the parser has reached and that is not rendered yet. Runs when
// this module is first evaluated (web/prerender-explorers.mjs imports it with an async
// <script type="module"> right after each view, so an explorer works before the rest of a
// long page is parsed), again from the small inline script after each later view, and at
// DOMContentLoaded.
function renderPending() {
  ensureStyle();
  const all = savedState();
  if (!all) return;
  for (const view of document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]')) {
    if (view.hasAttribute("data-rendered")) continue;
    view.setAttribute("data-rendered", "");
    const entry = all[JSON.parse(view.textContent).model_id];
    if (!entry || !entry.state || !entry.state.spec) continue;  // not an attnlib explorer
    const prev = view.previousElementSibling;
    const live = document.createElement("div");
    live.className = "attn-host";
    explorer.render({ model: model(entry.state), el: live });
    if (prev && prev.classList.contains("attn-static")) prev.replaceWith(live);
    else view.parentNode.insertBefore(live, view);
  }
}

window.attnExplorers = { render: renderPending };
renderPending();
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", renderPending);
