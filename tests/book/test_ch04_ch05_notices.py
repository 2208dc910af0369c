"""Chapters 4 and 5: preset notices say what their own frames show (issue 39).

The h = 32 notice of chapter 4 (it said "one key can take most of the weight" where its
frame gave the top key 0.35) and the origin notice of chapter 5 (it left out the Laplace row
and called a 0/0 cosine uniform without a word) are read back here against the frames the
preset shows, with plain loops: once on the committed notebook's saved explorer (what the
page shows), once on the declaration built here. Chapter 4's scores panel is checked for a
discrete axis: a tick at every key.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from _saved_state import saved_explorers, saved_frame

from scoringbook.ch04_additive_attention import additive_attention_declaration
from scoringbook.ch05_scaled_dot_product import scoring_comparison_declaration

CH04 = "04_additive_attention.ipynb"
CH05 = "05_scaled_dot_product_attention.ipynb"


def _saved(notebook, name):
    state = saved_explorers(notebook)[name]
    spec = state["spec"]
    values = {p["name"]: p["values"] for p in spec["params"]}
    presets = [
        (p["label"], p["notice"], {k: values[k][i] for k, i in p["indices"].items()})
        for p in spec["presets"]
    ]
    return (lambda params: saved_frame(state, params)), presets, {}  # presets set every param


def _built(decl):
    return (
        (lambda params: decl.compute(**params)),
        [(p.label, p.notice, p.values) for p in decl.presets],
        {},
    )


def _sources(notebook, name, build):
    return {"saved": lambda: _saved(notebook, name), "built": lambda: _built(build())}


@pytest.mark.parametrize("source", ["saved", "built"])
def test_ch04_the_h32_notice_is_its_frame(source):
    frame_of, presets, defaults = _sources(
        CH04, "additive_attention", additive_attention_declaration
    )[source]()
    (label, notice, values), *_ = [p for p in presets if p[0] == "h = 32"]
    assert "angle" in values, "the preset must fix the query, or its frame is not known"
    params = {**defaults, **values}
    frame = frame_of(params)
    w = [float(x) for x in np.asarray(frame["weights"]).reshape(-1)]
    scores = [float(x) for x in frame["scores"]["score a(q, k)"]]
    mid = frame_of({**params, "num_hiddens": 8})["scores"]["score a(q, k)"]
    m = re.search(r"highest minus lowest (\d+\.\d), against (\d+\.\d) at h = 8", notice)
    assert m, notice
    assert abs(float(m.group(1)) - (max(scores) - min(scores))) <= 0.05 + 1e-9
    assert abs(float(m.group(2)) - (max(mid) - min(mid))) <= 0.05 + 1e-9
    assert float(m.group(1)) > float(m.group(2))
    top = max(w)
    if "takes most of the weight" in notice:
        assert top > 0.5, (notice, w)
    else:
        assert top <= 0.5, f"the top key takes {top:.2f}: say so ({notice!r})"
        m = re.search(r"keys ([\d, and]+) take ([\d., and]+);", notice)
        assert m, notice
        keys = [int(k) for k in re.findall(r"\d+", m.group(1))]
        shares = [float(s) for s in re.findall(r"\d\.\d\d", m.group(2))]
        ranked = sorted(range(len(w)), key=lambda j: -w[j])
        assert keys == ranked[: len(keys)], (keys, w)
        assert all(abs(s - w[k]) <= 0.005 + 1e-9 for k, s in zip(keys, shares)), (shares, w)
        rest = re.search(r"share (\d\.\d\d)", notice)
        assert rest and abs(float(rest.group(1)) - (1 - sum(w[k] for k in keys))) <= 0.006
    assert "one key can take most" not in notice


def test_ch04_the_scores_axis_labels_every_key():
    spec = saved_explorers(CH04)["additive_attention"]["spec"]
    (panel,) = [p for p in spec["panels"] if p["name"] == "scores"]
    assert panel["xticks"] == list(range(8)), panel["xticks"]
    assert panel["xlim"] == [-0.5, 7.5], panel["xlim"]


def test_ch05_the_origin_notice_is_its_frame():
    # the explorer is computed in the page (no saved frames): its frame comes from attnlib,
    # and the page's notice must be the one read off that frame
    frame_of, presets, defaults = _built(scoring_comparison_declaration())
    spec = saved_explorers(CH05)["scoring_comparison"]["spec"]
    saved = {p["label"]: p["notice"] for p in spec["presets"]}
    (label, notice, values), *_ = [p for p in presets if p[0] == "At the origin"]
    assert saved[label] == notice, "the page shows another notice than the frame gives"
    w = np.asarray(frame_of({**defaults, **values})["weights"], dtype=float)
    words = {  # the rows, in the page's order, as the notice names them
        "dot-product": 0, "scaled dot-product": 1, "Gaussian": 2, "additive": 3,
        "cosine": 4, "general": 5, "Laplace": 6,
    }  # fmt: skip
    assert len(w) == len(words)
    uniform = {n for n, i in words.items() if max(w[i]) - min(w[i]) < 1e-9}
    said = re.search(r": the ([^:;]+?) rows are uniform.*; the ([^:;]+?) rows are not", notice)
    assert said, notice
    said_uniform, said_not = said.groups()
    split = lambda s: {x.strip() for x in re.split(r",| and ", s) if x.strip()}  # noqa: E731
    assert split(said_uniform) == uniform, (notice, w)
    assert split(said_not) == set(words) - uniform, (notice, w)
    assert "0/0" in notice and "take as 0" in notice  # the cosine of a zero query
    assert math.isclose(float(w[words["cosine"]][0]), 1 / 6, rel_tol=1e-6)
