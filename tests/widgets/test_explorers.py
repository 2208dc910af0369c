"""Tests of the book's explorers (scoringbook, one module per chapter; scoringbook.registry)
over their whole slider range.

Each frame is checked three ways: the invariants of attention weights (finite, rows sum to
1 over the valid keys, masked keys exactly 0), equality with ``compute(name, **params)``,
and equality with attnlib called directly in the test on the explorer's declared data.
"""

from __future__ import annotations

import gzip
import json
import math
import random
import re
from pathlib import Path

import numpy as np
import pytest
import torch

from attnlib import AdditiveAttention
from attnlib.widgets import Explorer
from scoringbook import claims, manifest
from scoringbook.ch09_explorer import SENTENCE, SHUFFLE
from scoringbook.registry import DECLARATIONS, EXPLORERS, compute

from ._built import built_explorer

# the chapter manifest names every explorer once: the stored ones are built here, the live ones
# (computed in the browser, attnlib.widgets.live) in tests/widgets/test_live.py, the trained ones
# from their chapter's run (tests/book/test_seq2seq_model.py, test_ch08_lengths.py,
# test_ch10_multihead.py)
ROOT = Path(__file__).resolve().parents[2]
NAMES = [e.name for e in manifest.explorers(manifest.STORED)]
LIVE = [e.name for e in manifest.explorers(manifest.LIVE)]
# bytes per explorer's saved state, gzip: a coarse guard here; what a page costs a reader (400 kB
# on the link read to the end) is checked on the built book by
# tests/browser/speed/test_page_weight.py and measured by benchmarks/bench_browser.py
STATE_BUDGET_GZIP = 150_000


@pytest.fixture(scope="module")
def built():
    # built once per process, shared with test_presets.py's pages (_built.py), which checks
    # that building each leaves the global RNG untouched
    return {name: built_explorer(name) for name in NAMES}


def grid(ex: Explorer):
    return list(ex.declaration.grid())


def assert_weights(w: np.ndarray, valid: int | None = None, *, where=""):
    """Rows sum to 1 over the first ``valid`` keys (all if None), masked keys exactly 0."""
    assert np.all(np.isfinite(w)), where
    assert np.all(w >= 0), where
    n_keys = w.shape[-1]
    valid = n_keys if valid is None else valid
    assert np.all(w[..., valid:] == 0.0), f"{where}: masked keys must be exactly 0"
    if valid == 0:
        assert np.all(w == 0.0), f"{where}: no valid key -> all-zero row"
    else:
        np.testing.assert_allclose(w[..., :valid].sum(-1), 1.0, atol=1e-5, err_msg=where)


def test_registry():
    """The registry builds what the manifest lists: a stored or live explorer's widget and
    every explorer's declaration, each of the kind the manifest says (a live one is computed
    in the page: its declaration has a live spec; a stored one has none)."""
    assert list(EXPLORERS) == NAMES_IN_ORDER
    assert list(DECLARATIONS) == [e.name for e in manifest.explorers()]
    for name in NAMES + LIVE:
        decl = DECLARATIONS[name]()
        kind = manifest.explorer(name).kind
        assert (decl.live is not None) == (kind == manifest.LIVE), (
            f"{name}: the manifest says {kind}, its declaration is "
            f"{'live' if decl.live is not None else 'stored'}"
        )
    with pytest.raises(ValueError, match="compute: name must be one of .*; got 'nope'"):
        compute("nope")


# reading order of the stored and live explorers, as the chapters show them
NAMES_IN_ORDER = [e.name for e in manifest.explorers(manifest.STORED, manifest.LIVE)]


@pytest.mark.parametrize("name", NAMES)
def test_every_frame_equals_compute_and_decodes_within_1e_4(built, name):
    ex = built[name]
    assert ex.name == name
    frames = grid(ex)
    assert len(ex.frames) == len(frames) == ex.declaration.n_frames
    decl = DECLARATIONS[name]()
    for f, params in frames:
        fresh = decl.compute(**params)
        via_compute = compute(name, **params) if f % 7 == 0 else fresh  # compute(): its own build
        decoded = ex.decoded(f)
        for panel in ex.declaration.panels:
            got = ex.frames[f][panel.name]
            if isinstance(got, str):  # a caption: stored as text
                assert got == fresh[panel.name] == via_compute[panel.name] == decoded[panel.name]
            elif isinstance(got, dict):
                for s in got:
                    np.testing.assert_array_equal(got[s], fresh[panel.name][s])
                    np.testing.assert_array_equal(got[s], via_compute[panel.name][s])
                    assert np.max(np.abs(decoded[panel.name][s] - got[s])) < 1e-4
            else:
                np.testing.assert_array_equal(got, fresh[panel.name])
                np.testing.assert_array_equal(got, via_compute[panel.name])
                assert np.max(np.abs(decoded[panel.name] - got)) < 1e-4


def _saved_repr(name: str) -> str:
    """The explorer's text/plain output in its chapter's executed notebook (what nbval
    compares): the repr the chapter showed when it was run."""
    chapter = manifest.chapter_of(name)
    nb = json.loads((ROOT / "chapters" / chapter.notebook).read_text(encoding="utf8"))
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            text = "".join(out.get("data", {}).get("text/plain", []))
            if text.startswith(f"Explorer({name!r}:"):
                return text
    raise AssertionError(f"chapters/{chapter.notebook} shows no repr of explorer {name!r}")


@pytest.mark.parametrize("name", NAMES)
def test_repr_is_short_and_stable(built, name):
    """The repr is the notebooks' text/plain output, which nbval compares: it must not
    change between runs and must not dump the widget state."""
    r = repr(built[name])
    assert r == _saved_repr(name)
    assert "\n" not in r and len(r) < 200


def test_repr_does_not_depend_on_the_run():
    assert repr(EXPLORERS["scaling"]()) == _saved_repr("scaling")


@pytest.mark.parametrize("name", NAMES)
def test_state_is_json_serialisable_and_within_budget(built, name):
    ex = built[name]
    text = json.dumps(ex.get_state())
    size = len(gzip.compress(text.encode(), 9))
    assert size < STATE_BUDGET_GZIP, f"{name}: {size} bytes gzip"
    raw, gz = ex.state_size()
    assert gz < STATE_BUDGET_GZIP


# ----------------------------------------------------------------------------- per explorer


def test_softmax_temperature(built):
    ex = built["softmax_temperature"]
    temps = ex.declaration.params[0].values
    assert len(temps) == 41 and temps[0] == 0.05 and temps[-1] == 20.0
    assert all(a < b for a, b in zip(temps, temps[1:]))
    scores = ex.declaration.meta["scores"]  # (1, 4, 8)
    for f, params in grid(ex):
        T = params["temperature"]
        w = ex.frames[f]["weights"]
        assert_weights(w, where=f"T={T}")
        direct = torch.softmax(scores[0].double() / T, dim=-1).numpy()
        np.testing.assert_allclose(w, direct, atol=1e-6)
        np.testing.assert_array_equal(ex.frames[f]["query_0"]["query 0"], w[0])
    cold, hot = ex.frames[0]["weights"], ex.frames[-1]["weights"]
    argmax = scores[0].argmax(-1).numpy()
    assert np.all(cold[np.arange(4), argmax] > 0.99), "T -> 0: one-hot on the largest score"
    np.testing.assert_allclose(hot, 1 / 8, atol=0.05)  # T -> ∞: uniform (average pooling)


def test_the_temperature_is_read_out_as_the_book_reads_numbers_out(built):
    """Issue 39's cold read: the landing page's and chapter 1's slider read "T = 0.193" and
    "T = 0.473" while the presets said "T ≈ 0.2". The book's rule (chapter 2's sigma_text):
    two decimals, and below 0.1 two significant figures."""
    decl = built["softmax_temperature"].declaration
    (slider,) = [p for p in decl.params if p.name == "temperature"]
    for t, label in zip(slider.values, slider.value_labels):
        if t >= 0.0995:
            want = f"{t:.2f}"  # two decimals
        else:
            digits = 1 - int(np.floor(np.log10(t)))  # two significant figures
            want = f"{t:.{digits}f}".rstrip("0").rstrip(".")
        assert label == f"T = {want}", (t, label)
    labels = list(slider.value_labels)
    assert "T = 0.19" in labels and "T = 0.47" in labels and "T = 0.058" in labels, labels
    assert len(set(labels)) == len(labels), "two stops of the slider read the same"


def test_softmax_temperature_notices_name_what_the_explorer_shows(built):
    """Every preset's notice speaks of the rows the explorer shows: query 0 is the line
    panel's row (the stems) and the outlined heatmap row; the "T = 0.19" notice's numbers are
    recomputed here with torch.softmax from the explorer's scores (chapter 1's cold read: it
    named queries 1 and 2, which the line panel does not show)."""
    ex = built["softmax_temperature"]
    decl = ex.declaration
    lines = next(p for p in decl.panels if p.name == "query_0")
    shown = {s.name for s in lines.series}
    assert shown == {"query 0"}
    scores = decl.meta["scores"][0].double()  # (4, 8)
    (split,) = [pr for pr in decl.presets if "query 0 against" in pr.label]
    T = split.values["temperature"]
    w = torch.softmax(scores / T, dim=-1).numpy()  # (4, 8)
    a, b = np.argsort(-w[0])[:2]
    sure = 1 + int(np.argmax(w[1:].max(axis=1)))
    assert w[0, a] < 0.9 and w[0, b] > 0.1, "query 0's second key must keep a visible share"
    assert w[sure].max() > 0.99, f"query {sure} must really be nearly one-hot at this T"
    assert split.label == f"T = {T:.2f}: query 0 against query {sure}"  # as the slider reads
    notice = split.notice
    assert "query 0 (the stems, the outlined row)" in notice
    assert (
        f"still gives key {b} {w[0, b]:.2f} of its weight, next to key {a}'s {w[0, a]:.2f}"
        in notice
    )
    assert f"({scores[0, b]:.2f} and {scores[0, a]:.2f})" in notice
    assert "split" not in notice  # 0.84 against 0.16 is no split (a cold read)
    assert f"query {sure}'s row is already nearly one-hot on key {np.argmax(w[sure])}" in notice
    assert f"({w[sure].max():.2f})" in notice
    # no notice names a query other than 0 and the one it compares with
    for pr in decl.presets:
        named = {int(q) for q in re.findall(r"query (\d)", pr.label + " " + pr.notice)}
        assert named <= {0, sure}, (pr.label, named)
    # and no notice speaks of a curve: query 0's panel draws stems (one per key)
    assert all("curve" not in pr.notice for pr in decl.presets)
    assert lines.series[0].style == "bars"


def test_additive_attention(built):
    ex = built["additive_attention"]
    m = ex.declaration.meta
    keys = m["keys"]  # (1, 8, 2)
    values = torch.arange(8.0).reshape(1, 8, 1)  # (1, 8, 1)
    # the query is the point the reader drags round the circle of radius 1.5 (the angle)
    plane = next(p for p in ex.spec["panels"] if p["name"] == "plane")
    assert plane["handle"]["x"] == "angle" and plane["handle"]["circle"] == [0.0, 0.0, m["radius"]]
    for f, params in grid(ex):
        h, L = params["num_hiddens"], params["valid_len"]
        w = ex.frames[f]["weights"]
        assert w.shape == (1, 8)
        assert_weights(w, L, where=str(params))
        module = AdditiveAttention(key_size=2, query_size=2, num_hiddens=h).eval()
        with torch.no_grad():
            module.W_q.weight.copy_(m["W_q"][:h])
            module.W_k.weight.copy_(m["W_k"][:h])
            module.w_v.weight.copy_(m["w_v"][:h][None])
            a = math.radians(params["angle"])
            q = torch.tensor(
                [[[m["radius"] * math.cos(a), m["radius"] * math.sin(a)]]]
            )  # (1, 1, 2)
            module(q, keys, values, torch.tensor([L]))
        np.testing.assert_allclose(w, module.attention_weights[0].numpy(), atol=1e-6)
        # the plane panel draws the query as the point dragged round its circle
        assert ex.frames[f]["plane"] == {}
        # scores: the broadcast form, computed here by hand
        feats = torch.tanh(
            q @ m["W_q"][:h].T + (keys @ m["W_k"][:h].T).transpose(0, 1)
        )  # (8, 1, h)
        np.testing.assert_allclose(
            ex.frames[f]["scores"]["score a(q, k)"],
            (feats @ m["w_v"][:h])[:, 0].numpy(),
            atol=1e-5,
        )
    # moving the query changes the weights (the point of the explorer)
    a0 = ex.frames[ex.frame_index(angle=0.0)]["weights"]
    a180 = ex.frames[ex.frame_index(angle=180.0)]["weights"]
    assert np.abs(a0 - a180).max() > 0.05


def test_scaling(built):
    ex = built["scaling"]
    dims = ex.declaration.params[0].values
    assert dims == (2, 4, 8, 16, 32, 64, 128, 256, 512)
    data = ex.declaration.meta["data"]
    edges = ex.declaration.meta["edges"]
    for f, params in grid(ex):
        d = params["d"]
        q, k = data(d)
        raw = (q[0].double() @ k[0].double().T).numpy()  # (n, n) q·k, computed independently
        fr = ex.frames[f]
        w_raw, w_scaled = fr["unscaled"], fr["scaled"]
        assert_weights(w_raw, where=f"d={d}")
        assert_weights(w_scaled, where=f"d={d}")
        s = raw[:4, :8]
        np.testing.assert_allclose(w_raw, torch.softmax(torch.tensor(s), -1).numpy(), atol=1e-5)
        np.testing.assert_allclose(
            w_scaled, torch.softmax(torch.tensor(s / math.sqrt(d)), -1).numpy(), atol=1e-5
        )
        # histogram densities: step lines over fixed bins
        width = edges[1] - edges[0]
        for label, vals in (("q·k", raw), ("q·k/√d", raw / math.sqrt(d))):
            step = fr["spread"][label]
            counts, _ = np.histogram(vals.ravel(), bins=edges)
            # float32 (explorer) vs float64 (here) may move a value sitting on a bin edge
            moved = np.abs(step[::2] * vals.size * width - counts).sum()
            assert moved <= 1e-3 * vals.size, (label, d, moved)
            np.testing.assert_array_equal(step[::2], step[1::2])  # step lines: pairs
        # the variance of q·k grows like d, the scaled one stays near 1
        assert 0.7 * d < raw.var() < 1.3 * d
        assert 0.7 < (raw / math.sqrt(d)).var() < 1.3
    big = ex.frames[ex.frame_index(d=512)]
    assert big["unscaled"].max(1).min() > 0.99  # saturated: one-hot rows
    assert big["scaled"].max(1).max() < 0.9


def _by_hand_self_attention(X, W_q, W_k, heads, positions, causal):
    """Multi-head self-attention weights ``(heads, n, n)`` written out here, independently of
    attnlib: sinusoids added (the table's formula), no biases, scaled dot product per head,
    -inf above the diagonal for the causal mask."""
    X = X[0].double()  # (n, d)
    n, d = X.shape
    if positions:
        i = torch.arange(n, dtype=torch.float64)[:, None]  # (n, 1)
        freq = 10000 ** (torch.arange(0, d, 2, dtype=torch.float64) / d)  # (d/2,)
        P = torch.zeros(n, d, dtype=torch.float64)
        P[:, 0::2], P[:, 1::2] = torch.sin(i / freq), torch.cos(i / freq)
        X = X + P
    q, k = X @ W_q.double().T, X @ W_k.double().T  # (n, d) each
    dh = d // heads
    out = []
    for h in range(heads):
        s = q[:, h * dh : (h + 1) * dh] @ k[:, h * dh : (h + 1) * dh].T / math.sqrt(dh)
        if causal:
            s = s.masked_fill(torch.ones(n, n, dtype=torch.bool).triu(1), float("-inf"))
        out.append(torch.softmax(s, -1))
    return torch.stack(out).numpy()  # (heads, n, n)


def test_word_order(built):
    ex = built["word_order"]
    m = ex.declaration.meta
    perm = list(SHUFFLE)
    words = {"written": list(SENTENCE), "shuffled": [SENTENCE[i] for i in perm]}
    frames = {}
    for f, params in grid(ex):
        o, pos, mask, head = params["order"], params["positions"], params["mask"], params["head"]
        fr = ex.frames[f]["weights"]
        w = np.asarray(fr)  # a LabelledMatrix: the weights with this frame's words
        assert w.shape == (10, 10)
        assert list(fr.row_labels) == list(fr.col_labels) == words[o], params
        assert_weights(w, where=str(params))
        if mask == "causal":
            assert np.all(w[np.triu_indices(10, 1)] == 0.0), f"{params}: above the diagonal"
        X = m["X"][:, perm] if o == "shuffled" else m["X"]
        want = _by_hand_self_attention(
            X, m["W_q"], m["W_k"], 2, pos == "sinusoidal", mask == "causal"
        )[int(head) - 1]
        np.testing.assert_allclose(w, want, atol=1e-5, err_msg=str(params))
        frames[o, pos, mask, head] = w
    p = np.asarray(perm)
    for head in ("1", "2"):
        change = {
            (pos, mask): np.abs(
                frames["shuffled", pos, mask, head] - frames["written", pos, mask, head][p][:, p]
            ).max()
            for pos in ("none", "sinusoidal")
            for mask in ("none", "causal")
        }
        # permutation equivariance: without positions and mask a shuffle only reorders
        assert change["none", "none"] < 1e-5, change
        # positions break it, and so does the causal mask (by a clear margin, not rounding)
        assert change["sinusoidal", "none"] > 0.05, change
        assert change["none", "causal"] > 0.05, change
        # the caption says the same, from the same frames
        for o in ("written", "shuffled"):
            cap = ex.frames[ex.frame_index(order=o, positions="none", mask="none", head=head)]
            assert "as it was (any difference is rounding)" in cap["change"]
            cap = ex.frames[
                ex.frame_index(order=o, positions="sinusoidal", mask="none", head=head)
            ]
            assert f"at most {change['sinusoidal', 'none']:.2f}." in cap["change"]
            assert "rounding" not in cap["change"]
    # the presets' notices quote the frames they set
    notes = {pr.label: pr.notice for pr in ex.declaration.presets}
    shuf = ex.frames[ex.frame_index(order="shuffled", positions="none", mask="causal", head="1")]
    assert f"“{words['shuffled'][0]}”, now first" in notes["Shuffle, causal mask"]
    assert shuf["weights"][0, 0] == 1.0
    # the word the notice names sees as many words as it says: its slot's row has that many
    # nonzero weights under the causal mask (a cold read: the reason once fitted another row)
    m = re.search(r"“([^”]+)”, now in slot (\d+), sees (\d+) word", notes["Shuffle, causal mask"])
    assert m, notes["Shuffle, causal mask"]
    slot, seen = int(m[2]), int(m[3])
    assert words["shuffled"][slot - 1] == m[1] and seen == slot
    assert int((shuf["weights"][slot - 1] > 0).sum()) == seen


# ----------------------------------------------------------------------------- browser

from _heatmap_js import as_json  # noqa: E402

from .test_widgets import READ_CELLS, browser, open_explorer  # noqa: E402,F401


@pytest.mark.browser
@pytest.mark.parametrize("name", NAMES)
def test_rendered_explorer_matches_compute(browser, built, name):  # noqa: F811
    ex = built[name]
    page, messages, requests = open_explorer(browser, ex)
    root = page.query_selector(".attn-explorer")
    assert root.get_attribute("data-explorer") == name
    rng = random.Random(0)
    decl = ex.declaration
    moves = [None] + [(rng.randrange(len(decl.params)), None) for _ in range(6)]
    for move in moves:
        if move is not None:
            k = move[0]
            p = decl.params[k]
            i = rng.randrange(len(p.values))
            sel = f"[data-param='{p.name}']"
            handled = {
                a
                for q in decl.panels
                for a in ([q.handle.x, q.handle.y] if getattr(q, "handle", None) else [])
            }
            if (
                p.name in handled
            ):  # moved by its dragged point: Home, then one arrow step at a time
                page.eval_on_selector(
                    ".attn-handle",
                    f"""e => {{ for (const key of ['Home', ...Array({i}).fill('ArrowRight')])
                         e.dispatchEvent(new KeyboardEvent('keydown', {{key, bubbles: true}})); }}""",
                )
            elif p.kind == "choice":
                page.eval_on_selector(
                    f"select{sel}",
                    f"e => {{ e.value = '{i}'; e.dispatchEvent(new Event('change')); }}",
                )
            else:
                page.eval_on_selector(
                    f"input{sel}",
                    f"e => {{ e.value = '{i}'; e.dispatchEvent(new Event('input')); }}",
                )
        params = json.loads(root.get_attribute("data-params"))
        assert int(root.get_attribute("data-frame")) == ex.frame_index(**params)
        expected = compute(name, **params)
        heatmaps = json.loads(root.evaluate(as_json(READ_CELLS)))
        assert [h["panel"] for h in heatmaps] == [
            p.name for p in decl.panels if p.kind == "heatmap"
        ]
        for h in heatmaps:
            want = np.asarray(expected[h["panel"]])
            assert len(h["cells"]) == want.size
            assert h["colorbar"]
            for i, j, value, readout, _, title in h["cells"]:
                assert abs(value - want[i, j]) < 1e-4, (h["panel"], i, j)
                assert abs(float(readout.rsplit(": ", 1)[1]) - want[i, j]) <= 6e-5
                assert title == readout
        for p in decl.panels:
            if p.kind == "lines":
                for s in p.series:
                    sel = (
                        f"svg.attn-lines[data-panel='{p.name}'] "
                        f".attn-series[data-series='{s.name}']"
                    )
                    assert page.query_selector(sel) is not None
    assert messages == []
    assert [u for u in requests if not u.startswith(("blob:", "data:", "about:"))] == []
    page.close()


def test_bandwidth_training_replays_the_chapter_s_run(built):
    """The explorer's runs are chapter 2's: the losses and bandwidths the chapter printed
    (leave-one-out / without, steps 0, 25, 99; learned h) from its own training cell."""
    runs = built["bandwidth_training"].declaration.meta["runs"]
    (h_loo, l_loo), (h_naive, l_naive) = runs[True], runs[False]
    # trained numbers: measurements that differ in the last digits by processor, so within
    # 2e-3 of one machine's run (100 steps of a one-parameter model do not amplify them)
    assert np.allclose([l_loo[k] for k in (0, 25, 99)], [0.782, 0.372, 0.362], atol=2e-3)
    assert np.allclose([l_naive[k] for k in (0, 25, 99)], [0.708, 0.240, 0.009], atol=2e-3)
    assert np.allclose([h_loo[100], h_naive[100]], [0.250, 0.008], atol=2e-3)
    assert h_loo[0] == h_naive[0] == 1.0
    claims.check(claims.bandwidth_claims(runs[True], runs[False]))  # what chapter 2 says
    ex = built["bandwidth_training"]
    f = ex.frame_index(step=30)
    fit = ex.frames[f]["fit"]
    assert np.all(np.isfinite(fit["leave-one-out"])) and np.all(
        np.isfinite(fit["without leave-one-out"])
    )
    assert (
        ex.spec["params"][0]["play"]
        and ex.spec["params"][0]["labels"][30] == f"30 (σ = {h_loo[30]:.2f} and {h_naive[30]:.2g})"
    )
