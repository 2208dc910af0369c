"""A standalone HTML page for one explorer (see :mod:`attnlib.widgets`)."""

from __future__ import annotations

import json

from attnlib.widgets.widget import _STATIC, Explorer

# ----------------------------------------------------------------------------- standalone page

_SHIM = """
const state = JSON.parse(document.getElementById("attn-state").textContent);
const listeners = {};
let saves = 0;
const model = {
  get: (k) => state[k],
  set: (k, v) => { state[k] = v; (listeners["change:" + k] || []).slice().forEach((f) => f()); },
  on: (ev, f) => { (listeners[ev] = listeners[ev] || []).push(f); },
  off: (ev, f) => { if (listeners[ev]) listeners[ev] = listeners[ev].filter((g) => g !== f); },
  save_changes: () => { saves += 1; },
};
const url = URL.createObjectURL(new Blob([document.getElementById("attn-esm").textContent],
                                         { type: "text/javascript" }));
const mod = (await import(url)).default;
window.attnModel = model;
window.attnSaves = () => saves;
window.attnCleanup = mod.render({ model, el: document.getElementById("attn-host") });
"""


def standalone_html(explorer: Explorer) -> str:
    """A self-contained HTML page rendering ``explorer`` without Jupyter (no kernel, no network).

    The page embeds the ES module, the CSS and the synced state, and drives the module
    with a minimal stand-in for the anywidget model (``get``/``set``/``on``/``off``/
    ``save_changes``). Used by the tests and benchmarks; also handy for a quick preview.
    """

    def safe(text: str) -> str:
        return text.replace("</", "<\\/")

    state = {
        "name": explorer.name,
        "spec": explorer.spec,
        "data": explorer.data,
        "indices": list(explorer.indices),
        "texts": dict(explorer.texts),
    }
    esm = (_STATIC / "explorer.js").read_text(encoding="utf-8")
    css = (_STATIC / "explorer.css").read_text(encoding="utf-8")
    return (
        '<!doctype html>\n<html><head><meta charset="utf-8">'
        f"<title>{explorer.name}</title><style>{css}</style></head><body>"
        '<div id="attn-host"></div>'
        f'<script type="application/json" id="attn-state">{safe(json.dumps(state))}</script>'
        f'<script type="text/plain" id="attn-esm">{safe(esm)}</script>'
        f'<script type="module">{_SHIM}</script></body></html>\n'
    )
