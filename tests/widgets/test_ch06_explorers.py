"""Chapter 6's explorers: a dragged key against dot, scaled-dot and cosine scores (live, with
:class:`attnlib.widgets.live.LiveAttention`'s ``moving_key``), and a slider for d with one row
and the mean row entropy under the factors 1, 1/sqrt(d) and 1/d. The weights are recomputed
here from the formulas (numpy, not attnlib's scoring functions), and every preset's notice is
held to what the frame it sets shows."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from attnlib.widgets import Explorer, Handle, Heatmap, Lines, Slider
from attnlib.widgets.controls import ExplorerError
from attnlib.widgets.declaration import Declaration
from attnlib.widgets.live import LiveAttention
from scoringbook.ch06_explorers import long_key_declaration, scaling_d_declaration
from scoringbook.registry import compute

QUERY = np.array([2.0, 0.0])
ANGLES = np.radians([0.0, 53.0, 140.0, 250.0])
KEYS = 1.2 * np.stack([np.cos(ANGLES), np.sin(ANGLES)], axis=1)  # (4, 2)


def _softmax(s: np.ndarray) -> np.ndarray:
    e = np.exp(s - s.max())
    return e / e.sum()


def _long_key_rows(x: float, y: float, temperature: float = 0.25) -> np.ndarray:
    """(3, 4): softmax of q.k, q.k/sqrt(2) and cos(q, k)/T over the keys, key 1 at (x, y)."""
    k = KEYS.copy()
    k[1] = (x, y)
    dot = k @ QUERY
    norms = np.linalg.norm(k, axis=1) * np.linalg.norm(QUERY)
    cos = np.where(norms > 0, dot / np.where(norms > 0, norms, 1), 0.0)
    return np.stack([_softmax(dot), _softmax(dot / math.sqrt(2)), _softmax(cos / temperature)])


def test_long_key_weights_are_the_three_scores_with_the_dragged_key_moved():
    rng = np.random.default_rng(6)
    grid = np.round(np.arange(-3.0, 3.0001, 0.05), 2)
    for x, y in rng.choice(grid, size=(20, 2)):
        got = compute("long_key", key_x=float(x), key_y=float(y))["weights"]
        np.testing.assert_allclose(got, _long_key_rows(x, y), rtol=0, atol=1e-12)


def _preset(decl: Declaration, label_start: str) -> dict:
    p = next(p for p in decl.presets if p.label.startswith(label_start))
    return p.values


def test_long_key_presets_show_what_their_notices_say():
    decl = long_key_declaration()
    w = {p.label: compute("long_key", **p.values)["weights"] for p in decl.presets}
    start, longer, short, away = (w[p.label] for p in decl.presets)
    # "every row puts the most weight on key 0"
    assert (start.argmax(axis=1) == 0).all(), start
    # "both dot-product rows now favour key 1 over key 0; the cosine row has not changed"
    assert (longer[:2, 1] > longer[:2, 0]).all(), longer
    np.testing.assert_allclose(longer[2], start[2], rtol=0, atol=1e-12)
    # "cosine splits its weight evenly between keys 0 and 1; the dot products prefer key 0"
    assert abs(short[2, 0] - short[2, 1]) < 1e-12, short
    assert (short[:2, 0] > short[:2, 1]).all(), short
    # "the dot products give key 1 almost nothing, and cosine as little at any length there"
    assert (away[:2, 1] < 0.05).all(), away
    x = _preset(decl, "Key 1 long, opposite")["key_x"]
    shorter = compute("long_key", key_x=x / 5, key_y=0.0)["weights"]
    np.testing.assert_allclose(away[2], shorter[2], rtol=0, atol=1e-12)


def test_long_key_drags_the_key_and_the_query_stays():
    """The plane's handle moves key 1 (the sliders the page's moving key reads); the query is
    a fixed point, drawn, and not a control."""
    decl = long_key_declaration()
    spec = Explorer(decl).spec
    assert spec["live"]["moving_key"] == [1, "key_x", "key_y"]
    assert spec["live"]["query"] == [2.0, 0.0]
    plane = next(p for p in spec["panels"] if p["name"] == "plane")
    assert (plane["handle"]["x"], plane["handle"]["y"]) == ("key_x", "key_y")
    assert [p["name"] for p in spec["params"]] == ["key_x", "key_y"]


def _decl(live: LiveAttention, params=None) -> Declaration:
    params = params or [Slider(n, [0.0, 1.0]) for n in ("kx", "ky")]
    return Declaration(
        name="t",
        update=lambda **p: {"w": np.full((1, 2), 0.5), "plane": {}},
        params=params,
        panels=[
            Lines("plane", xlim=(-1, 1), ylim=(-1, 1), handle=Handle("kx", "ky")),
            Heatmap("w", rows_sum_to_one=True),
        ],
        live=live,
    )


# a valid LiveAttention with key 0 bound to the sliders kx and ky; each test changes one thing
MOVING_KEY_ARGS = dict(
    keys=[[1.0, 0.0], [0.0, 1.0]],
    values=[[1.0, 0.0], [0.0, 1.0]],
    query=(1.0, 0.0),
    weights="w",
    compare=("dot",),
    score=None,
    moving_key=(0, "kx", "ky"),
)


@pytest.mark.parametrize(
    "kwargs, words",
    [
        (dict(moving_key=(2, "kx", "ky")), ["moving_key", "index", "0 to 1", "2"]),
        (dict(moving_key=("kx", "ky")), ["moving_key", "(key index, x slider, y slider)"]),
        (dict(moving_key=(True, "kx", "ky")), ["moving_key"]),
        (dict(moving_key=(0, "kx", "ky"), compare=None, output=("plane", "o")), ["compare"]),
        (dict(moving_key=None), ["query", "two slider names"]),
        (dict(query=(1.0, float("nan"))), ["query"]),
    ],
)
def test_a_bad_moving_key_is_refused_by_name(kwargs, words):
    args = {**MOVING_KEY_ARGS, **kwargs}
    with pytest.raises(ExplorerError) as e:
        LiveAttention(**args)
    for w in words:
        assert w in str(e.value), (w, str(e.value))


def test_a_moving_key_must_be_bound_to_sliders():
    live = LiveAttention(**{**MOVING_KEY_ARGS, "moving_key": (0, "kx", "nope")})
    with pytest.raises(ExplorerError, match="moving key coordinate 'nope' is not a Slider"):
        _decl(live)


# ------------------------------------------------------------------------------ scaling_d


def _row(d: int, n_keys: int = 16, seed: int = 0) -> np.ndarray:
    """The explorer's one query against n_keys keys, drawn as its docs say, and the three
    softmax rows of c * q.k, recomputed with numpy."""
    g = torch.Generator().manual_seed(seed * 100_003 + d)
    q = torch.randn(1, 1, d, generator=g, dtype=torch.float64)[0, 0].numpy()
    k = torch.randn(1, n_keys, d, generator=g, dtype=torch.float64)[0].numpy()
    s = k @ q
    return np.stack([_softmax(c * s) for c in (1.0, 1 / math.sqrt(d), 1 / d)])


def _entropy(w: np.ndarray) -> np.ndarray:
    return -(np.where(w > 0, w * np.log(np.where(w > 0, w, 1)), 0.0)).sum(-1)


@pytest.mark.parametrize("d", [2, 64, 2048])
def test_scaling_d_rows_are_c_times_q_dot_k(d):
    got = compute("scaling_d", d=d)
    np.testing.assert_allclose(got["weights"], _row(d), rtol=0, atol=1e-12)
    at = got["entropy"]["mean entropy at this d"]
    assert at.shape == (2, 3)
    np.testing.assert_allclose(at[0], math.log2(d))


def test_scaling_d_entropy_is_the_mean_over_random_rows():
    """The marked entropies against a mean over 400 fresh rows drawn here (another generator):
    the same expectation, within a margin the spread of 400 rows allows (4 standard errors)."""
    rng = np.random.default_rng(39)
    for d in (2, 64, 2048):
        at = compute("scaling_d", d=d)["entropy"]["mean entropy at this d"][1]
        q = rng.standard_normal((400, d))
        k = rng.standard_normal((400, 16, d))
        s = np.einsum("rd,rkd->rk", q, k)
        for c, got in zip((1.0, 1 / math.sqrt(d), 1 / d), at):
            x = c * s
            e = np.exp(x - x.max(1, keepdims=True))
            h = _entropy(e / e.sum(1, keepdims=True))
            margin = 4 * h.std() / math.sqrt(400) + 1e-3
            assert abs(got - h.mean()) < margin, (d, c, got, h.mean(), margin)


def test_scaling_d_presets_show_what_their_notices_say():
    decl = scaling_d_declaration()
    frames = {p.label: compute("scaling_d", **p.values) for p in decl.presets}
    small, mid, big = (frames[p.label] for p in decl.presets)
    h = {k: f["entropy"]["mean entropy at this d"][1] for k, f in zip("smb", (small, mid, big))}
    # d = 2: "the three rows differ only mildly, and the three points sit close together"
    assert np.ptp(h["s"]) < 0.5 and np.abs(small["weights"] - small["weights"][1]).max() < 0.1
    # middle d: "x 1 narrowed to a few cells; x 1/d paled towards uniform"
    w = mid["weights"]
    assert w[0].max() > 2 * w[1].max() and (w[0] > 0.05).sum() <= 4, w[0]
    assert h["m"][2] > h["m"][1] and w[2].max() < 2 / 16, w[2]
    # d = 2048: "x 1 is one strong cell (entropy near 0), x 1/d is flat (on the uniform line);
    # x 1/sqrt(d) keeps its shades"
    w = big["weights"]
    assert w[0].max() > 0.9 and h["b"][0] < 0.2
    assert abs(h["b"][2] - math.log(16)) < 0.02 and np.ptp(w[2]) < 0.01
    assert w[1].max() < 0.5 and abs(h["b"][1] - h["s"][1]) < 0.5


def test_scaling_d_axis_is_ticked_in_d_at_the_chapter_s_sizes():
    """The entropy panel's x axis is log2 d; the reader reads d (issue 37: d = 16, 128, 512
    could not be read off). Each tick sits at log2 of the d its label names."""
    from scoringbook.registry import EXPLORERS

    panel = next(p for p in EXPLORERS["scaling_d"]().spec["panels"] if p["name"] == "entropy")
    labels, ticks = panel["xtick_labels"], panel["xticks"]
    assert labels == ["2", "16", "128", "512", "2048"]
    for label, at in zip(labels, ticks):
        assert at == pytest.approx(math.log2(int(label)), abs=1e-12), (label, at)
        assert panel["xlim"][0] <= at <= panel["xlim"][1]
    assert "log₂" not in panel["xlabel"] and "d" in panel["xlabel"].split()
