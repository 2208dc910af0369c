// Renders the book's explorers from the widget state saved in the page, with the explorer's
// own ES module (attnlib/static/explorer.js, the module anywidget runs in JupyterLab). No
// widget manager, no require.js, no kernel: the model below is the small part of anywidget's
// model interface the module uses (get, set, on, off, save_changes).
//
// Each widget view is a <script type="application/vnd.jupyter.widget-view+json"> naming a
// model. web/prerender-explorers.mjs (`make book`) puts that model's saved state right before
// the view, in its own <script type="application/vnd.jupyter.widget-state+json"> (not in the
// page's <head>, where it held up the first paint), and before both a <div class="attn-static">
// holding the explorer's starting picture, drawn at build time by the same module: the reader
// sees it at first paint.
//
// An explorer wakes when it comes near the viewport (IntersectionObserver, WAKE_MARGIN ahead of
// the reader), not while the page loads: the module (explorer.js) is fetched then, and each
// explorer is rendered in a task of its own, replacing its static picture with the live one,
// which draws the same picture. Without IntersectionObserver every explorer wakes at once.
const MODULE = new URL("./explorer.js", import.meta.url).href;
const STYLE = new URL("./explorer.css", import.meta.url).href;
const VIEW = 'script[type="application/vnd.jupyter.widget-view+json"]';
const STATE = 'script[type="application/vnd.jupyter.widget-state+json"]';
// How far ahead of the viewport an explorer wakes: a screen and a half, so that it is live by
// the time the reader reaches it, even on a slow link (the module is fetched on the first wake).
const WAKE_MARGIN = "150% 0px 150% 0px";

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

// The saved state of a model: the state scripts in the page (one per view after
// prerender-explorers.mjs; one for the whole page in a plain `jupyter-book build`).
const states = {};
function stateOf(id) {
  if (!(id in states)) {
    for (const s of document.querySelectorAll(STATE)) {
      if (s.hasAttribute("data-read")) continue;
      s.setAttribute("data-read", "");
      Object.assign(states, JSON.parse(s.textContent).state || {});
    }
  }
  return states[id];
}

function ensureStyle() {
  // the stylesheet is linked in <head>, or inlined there by web/inline-css.mjs
  if (document.querySelector('link[href*="explorer.css"], style[data-explorer-css]')) return;
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = STYLE;
  document.head.appendChild(link);
}

let explorer = null; // the module, once imported
const queue = [];
let running = false;

// Renders the queued views one per task, so that no start-up task holds the main thread for
// all of them.
async function drain() {
  if (running) return;
  running = true;
  try {
    if (!explorer) explorer = (await import(MODULE)).default;
    while (queue.length) {
      render(queue.shift());
      if (queue.length) await new Promise((r) => setTimeout(r, 0));
    }
  } finally {
    running = false;
  }
}

function render(view) {
  const entry = stateOf(JSON.parse(view.textContent).model_id);
  if (!entry || !entry.state || !entry.state.spec) return;  // not an attnlib explorer
  let prev = view.previousElementSibling;
  if (prev && prev.matches(STATE)) prev = prev.previousElementSibling;
  const live = document.createElement("div");
  live.className = "attn-host";
  explorer.render({ model: model(entry.state), el: live });
  if (prev && prev.classList.contains("attn-static")) prev.replaceWith(live);
  else view.parentNode.insertBefore(live, view);
}

function wake(view) {
  if (view.hasAttribute("data-rendered")) return;
  view.setAttribute("data-rendered", "");
  if (observer) observer.unobserve(target(view));
  queue.push(view);
  drain();
}

// What the observer watches for a view: its static picture, or its output cell.
function target(view) {
  let prev = view.previousElementSibling;
  if (prev && prev.matches(STATE)) prev = prev.previousElementSibling;
  return prev && prev.classList.contains("attn-static") ? prev : view.parentElement;
}

const observer = "IntersectionObserver" in window
  ? new IntersectionObserver((entries) => {
    for (const e of entries) if (e.isIntersecting) wake(e.target.__attnView);
  }, { rootMargin: WAKE_MARGIN })
  : null;

// Watches every widget view the parser has reached (runs when this module is first evaluated,
// again from the small inline script web/prerender-explorers.mjs puts after each later view,
// and at DOMContentLoaded).
function watchPending() {
  ensureStyle();
  for (const view of document.querySelectorAll(VIEW)) {
    if (view.hasAttribute("data-rendered") || view.hasAttribute("data-watched")) continue;
    view.setAttribute("data-watched", "");
    if (!observer) { wake(view); continue; }
    const t = target(view);
    t.__attnView = view;
    observer.observe(t);
  }
}

window.attnExplorers = { render: watchPending };
watchPending();
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", watchPending);
