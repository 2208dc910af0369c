"""Python-JavaScript parity of every score the page computes, without a browser.

``attnlib/static/src/primitives.js`` is imported in Node and called with the spec attnlib
syncs (the numbers the page receives); its frames are compared with attnlib's:

- each attention scoring function of ``attnlib.widgets.live_scores.LIVE_SCORES``, one by one:
  its function in ``SCORES`` against its declared reference (attnlib's scoring function) fed
  the same (rounded) numbers, to 1e-12, with arguments other than the defaults;
- every live explorer of the book (``scoringbook.registry``), frame by frame, against
  :func:`scoringbook.compute` at random positions.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch
from _chromium import unavailable

from attnlib.widgets import Explorer
from attnlib.widgets.live import SCORINGS, LiveAttention
from attnlib.widgets.live_scores import LIVE_SCORES
from scoringbook import manifest
from scoringbook.ch05_scaled_dot_product import scoring_comparison_declaration
from scoringbook.registry import DECLARATIONS, compute

PRIMITIVES = Path(__file__).resolve().parents[2] / "attnlib" / "static" / "src" / "primitives.js"

RUNNER = """
import { liveFrame, kernelFrame, maskingFrame } from %s;
let text = "";
for await (const chunk of process.stdin) text += chunk;
const { spec, points } = JSON.parse(text);
const plain = (x) => (ArrayBuffer.isView(x) ? Array.from(x)
  : x && typeof x === "object"
    ? Object.fromEntries(Object.entries(x).map(([k, v]) => [k, plain(v)])) : x);
const frames = points.map((params) => {
  const live = spec.live;
  if (live.kind === "masking") return plain(maskingFrame(live, params, spec).values);
  if (live.kind === "kernel_regression") return plain(kernelFrame(live, params, spec.panels));
  return plain(liveFrame(live, params));
});
process.stdout.write(JSON.stringify(frames));
"""


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        unavailable("node is not installed (the page's JavaScript runs in Node here)")
    return node


def _node_eval(expression: str):
    """The JSON value of ``expression`` evaluated in Node with primitives.js's exports."""
    script = (
        f"import * as P from {json.dumps(PRIMITIVES.as_uri())}; const {{ SCORES }} = P; "
        f"process.stdout.write(JSON.stringify({expression}));"
    )
    r = subprocess.run(
        [_node(), "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _node_frames(spec: dict, points: list[dict]) -> list[dict]:
    node = _node()
    script = RUNNER % json.dumps(PRIMITIVES.as_uri())
    r = subprocess.run(
        [node, "--input-type=module", "-e", script],
        input=json.dumps({"spec": spec, "points": points}),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_every_scoring_function_the_page_knows_has_its_js_function():
    """Each entry of LIVE_SCORES names a function that primitives.js's SCORES defines, and
    SCORES has no function the registry does not declare."""
    js = _node_eval("Object.keys(SCORES)")
    declared = sorted(s.js for s in LIVE_SCORES.values())
    assert sorted(js) == declared, f"primitives.js SCORES {sorted(js)} vs LIVE_SCORES {declared}"


def _kwargs(name: str) -> dict:
    """Arguments for scoring function ``name``: chapter 5's where it has them (additive,
    general), else something other than each default (cosine's 1, a bandwidth's 1)."""
    base = scoring_comparison_declaration().live.score_kwargs.get(name, {})
    return {a.name: base[a.name] if a.shape else 0.3 for a in LIVE_SCORES[name].args}


@pytest.mark.parametrize("name", SCORINGS)
def test_each_page_score_equals_attnlib_s(name):
    """The page's function against the registry's reference, on the spec's numbers."""
    d = scoring_comparison_declaration()
    base = d.live
    live = LiveAttention(
        keys=np.vstack([base.keys, [[0.0, 0.0], [3e-3, -2.0]]]),  # a zero key, a short one
        values=np.vstack([base.values, [[0.0, 0.0], [3e-3, -2.0]]]),
        query=("x", "y"),
        weights="w",
        compare=(name,),
        score_kwargs={name: _kwargs(name)},
    ).spec()
    kwargs = {  # the rounded numbers the page receives, as attnlib takes them
        k: np.array(v) if isinstance(v, list) else v
        for k, v in live["scores"][name]["kwargs"].items()
    }
    rng = np.random.default_rng(27)
    points = [{"x": 0.0, "y": 0.0}, {"x": 3e-3, "y": -2.0}] + [  # on the zero key, on a key
        {"x": float(x), "y": float(y)} for x, y in rng.uniform(-3, 3, size=(15, 2))
    ]
    frames = _node_frames({"live": live}, points)
    k = torch.tensor(live["keys"], dtype=torch.float64)[None]  # (1, n_keys, 2)
    for p, frame in zip(points, frames):
        q = torch.tensor([[[p["x"], p["y"]]]], dtype=torch.float64)  # (1, 1, 2)
        scores = LIVE_SCORES[name].scores(q, k, kwargs)  # (1, 1, n_keys)
        want = torch.softmax(scores, dim=-1)[0, 0].numpy()
        np.testing.assert_allclose(np.array(frame["w"]), want, rtol=0, atol=1e-12, err_msg=str(p))


LIVE = [e.name for e in manifest.explorers(manifest.LIVE)]  # every live explorer of the book


@pytest.mark.parametrize("name", LIVE)
def test_every_live_explorer_s_page_frames_equal_compute(name):
    decl = DECLARATIONS[name]()
    assert decl.live is not None
    spec = Explorer(decl).spec
    rng = np.random.default_rng(5)
    points = []
    for _ in range(8):
        params = {p.name: p.values[int(rng.integers(len(p.values)))] for p in decl.params}
        params = {k: v.item() if hasattr(v, "item") else v for k, v in params.items()}
        for t in decl.texts:
            params[t.name] = str(rng.choice(list(t.suggestions) or [t.default]))
        points.append(params)
    frames = _node_frames(spec, points)
    for params, frame in zip(points, frames):
        want = compute(name, **params)
        for panel, got in frame.items():
            ref = want[panel]
            if isinstance(got, dict):
                for series, values in got.items():
                    np.testing.assert_allclose(
                        np.ravel(values), np.ravel(ref[series]), atol=1e-5, err_msg=str(params)
                    )
            else:
                np.testing.assert_allclose(
                    np.ravel(got), np.ravel(ref), atol=1e-5, err_msg=f"{panel} {params}"
                )
