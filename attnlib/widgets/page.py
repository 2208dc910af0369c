"""A standalone HTML page for one explorer (see :mod:`attnlib.widgets`)."""

from __future__ import annotations

import html
import json

from attnlib.domains import Instance, declare
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
const esm = JSON.parse(document.getElementById("attn-esm").textContent);
const url = URL.createObjectURL(new Blob([esm], { type: "text/javascript" }));
const mod = (await import(url)).default;
window.attnModel = model;
window.attnSaves = () => saves;
window.attnCleanup = mod.render({ model, el: document.getElementById("attn-host") });
"""


def script_json(value: object) -> str:
    """``value`` as JSON that is safe inside an HTML ``<script>`` element: ``<``, ``>`` and
    ``&`` are written as ``\\u003c``, ``\\u003e``, ``\\u0026`` (JSON escapes, so the text
    parses to the same value; everything outside ASCII is escaped too). No user text can
    then end the element (``</script>``) or put the HTML parser in its comment-like states
    (``<!--``)."""
    text = json.dumps(value, allow_nan=False)  # ASCII only: U+2028 and U+2029 come escaped
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(ch, esc)
    return text


@declare(explorer=Instance(Explorer, what="an attnlib.widgets.Explorer"))
def standalone_html(explorer: Explorer) -> str:
    """A self-contained HTML page rendering ``explorer`` without Jupyter (no kernel, no network).

    The page embeds the ES module, the CSS and the synced state, and drives the module
    with a minimal stand-in for the anywidget model (``get``/``set``/``on``/``off``/
    ``save_changes``). Used by the tests and benchmarks; also handy for a quick preview.
    The state and the module's source are embedded as JSON with :func:`script_json`, so no
    string in them (a title, a label, a typed text) can end or derail their ``<script>``.
    """
    if not isinstance(explorer, Explorer):
        raise TypeError(
            f"standalone_html: explorer must be an Explorer (Explorer(declaration)); got "
            f"{type(explorer).__name__}"
        )
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
        f"<title>{html.escape(explorer.name)}</title><style>{css}</style></head><body>"
        '<div id="attn-host"></div>'
        f'<script type="application/json" id="attn-state">{script_json(state)}</script>'
        f'<script type="application/json" id="attn-esm">{script_json(esm)}</script>'
        f'<script type="module">{_SHIM}</script></body></html>\n'
    )
