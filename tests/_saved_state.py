"""The frames an explorer's saved widget state holds, decoded in Python.

The book publishes the committed, executed notebooks (nbval has just re-executed and checked
them). An explorer of a trained model (chapters 7-9) shows that run's numbers, which another
processor would not reproduce (training is chaotic): the browser tests compare such an
explorer's page with the frames its notebook saved, decoded here with attnlib's
:func:`decode_frames` (the Python twin of the page's decoder), instead of retraining.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np

from attnlib.widgets.encoding import decode_frames

ROOT = Path(__file__).resolve().parents[1]
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


@lru_cache(maxsize=8)
def saved_explorers(notebook: str) -> dict[str, dict]:
    """``{explorer name: synced state}`` of the explorers saved in ``chapters/<notebook>``."""
    nb = json.loads((ROOT / "chapters" / notebook).read_text())
    states = nb["metadata"]["widgets"][WIDGET_STATE]["state"]
    out = {}
    for model in states.values():
        st = model["state"]
        if st.get("name") and "spec" in st and "data" in st:
            assert st["name"] not in out, f"{notebook}: two explorers named {st['name']!r}"
            out[st["name"]] = st
    return out


def saved_frame(state: dict, params: dict) -> dict:
    """The frame for ``params`` (every parameter, as the page reports them): ``{panel:
    2-D array | {series: array} | caption text}``, as :meth:`Declaration.compute` returns."""
    spec, data = state["spec"], state["data"]
    names = [p["name"] for p in spec["params"]]
    assert set(params) >= set(names), f"parameters {sorted(params)}, the explorer has {names}"
    index = sum(
        p["values"].index(params[p["name"]]) * stride
        for p, stride in zip(spec["params"], spec["strides"])
    )
    out = {}
    for panel in spec["panels"]:
        name, enc = panel["name"], data[panel["name"]]
        if panel["kind"] == "caption":
            out[name] = enc["strings"][enc["index"][index]]
            continue
        flat = decode_frames(enc)[index]  # (n,)
        if panel["kind"] == "heatmap":
            out[name] = flat.reshape(panel["rows"], panel["cols"])  # (n_queries, n_keys)
            continue
        assert panel["kind"] == "lines", panel["kind"]
        series, start = {}, 0
        for s in panel["series"]:
            size = s["n"] * (2 if s["xy"] else 1)
            block = flat[start : start + size]
            series[s["name"]] = block.reshape(2, s["n"]) if s["xy"] else block  # (2, n) | (n,)
            start += size
        assert start == flat.size, f"panel {name!r}: series hold {start} of {flat.size} values"
        out[name] = series
    return out


def as_arrays(frame: dict) -> dict:
    """``frame`` with every heatmap and series as a float array (captions dropped)."""
    return {
        k: ({s: np.asarray(v, dtype=float) for s, v in f.items()} if isinstance(f, dict) else
            np.asarray(f, dtype=float))
        for k, f in frame.items() if not isinstance(f, str)
    }  # fmt: skip
